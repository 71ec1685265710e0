// SPDX-License-Identifier: GPL-2.0
/*
 * perf xen's client of Xen's store, against a socket that plays the store:
 * the requests it sends, the replies it takes, and those it refuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/kernel.h>

#include "debug.h"
#include "tests.h"
#include "util/xen/store.h"
#include "util/xen/virt-id.h"

struct store_msg {
	u32 type;
	u32 req_id;
	u32 tx_id;
	u32 len;
};

enum { DIRECTORY = 1, READ = 2, WATCH_EVENT = 15, ERROR = 16 };

/* The store's side: one message with @len bytes of @payload. */
static int put_msg(int fd, u32 type, u32 req_id, const void *payload, u32 len)
{
	struct store_msg msg = { .type = type, .req_id = req_id, .len = len };

	if (write(fd, &msg, sizeof(msg)) != sizeof(msg))
		return -1;
	return len && write(fd, payload, len) != (ssize_t)len ? -1 : 0;
}

/* The next request the client sent: its type, and its first string. */
static int get_request(int fd, u32 *type, char *path, size_t size)
{
	struct store_msg msg;

	if (read(fd, &msg, sizeof(msg)) != sizeof(msg) || msg.len >= size ||
	    read(fd, path, msg.len) != (ssize_t)msg.len)
		return -1;
	path[msg.len] = '\0';
	*type = msg.type;
	return 0;
}

static int store_pair(struct xen_store *xs, int *peer)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	xs->fd = sv[0];
	xs->req_id = 0;
	*peer = sv[1];
	return 0;
}

static int test__xen_store_names(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	/* dom0, d7, junk, a leading zero, d9 and d11, each NUL-terminated */
	static const char dir[] = "0\0007\0abc\00007\0009\00011";
	struct xen_store xs;
	char path[64];
	u32 type;
	int peer, err;

	TEST_ASSERT_VAL("socketpair", !store_pair(&xs, &peer));
	xen_virt_id__forget_domain_names();
	/* The replies, in the order of the requests: dom0 and junk are not read. */
	put_msg(peer, DIRECTORY, 1, dir, sizeof(dir));
	put_msg(peer, READ, 2, "web01", 5);
	put_msg(peer, READ, 3, "pvh", 3);
	put_msg(peer, ERROR, 4, "ENOENT", 7);
	put_msg(peer, READ, 5, "bad name", 8);
	err = xen_store__read_names(&xs, 1000);

	TEST_ASSERT_VAL("names read", !err);
	TEST_ASSERT_VAL("d7 named", !strcmp(xen_virt_id__domain_name_of(7) ?: "", "web01"));
	TEST_ASSERT_VAL("d7's type", !strcmp(xen_virt_id__domain_type_of(7) ?: "", "pvh"));
	TEST_ASSERT_VAL("d9 or d11 named",
			!xen_virt_id__domain_name_of(9) && !xen_virt_id__domain_name_of(11));
	TEST_ASSERT_VAL("directory asked",
			!get_request(peer, &type, path, sizeof(path)) && type == DIRECTORY &&
			!strcmp(path, "/local/domain"));
	TEST_ASSERT_VAL("d7's name asked",
			!get_request(peer, &type, path, sizeof(path)) && type == READ &&
			!strcmp(path, "/local/domain/7/name"));
	TEST_ASSERT_VAL("d7's type asked",
			!get_request(peer, &type, path, sizeof(path)) && type == READ &&
			!strcmp(path, "/libxl/7/type"));
	TEST_ASSERT_VAL("d9's name asked",
			!get_request(peer, &type, path, sizeof(path)) &&
			!strcmp(path, "/local/domain/9/name"));
	TEST_ASSERT_VAL("d11's name asked",
			!get_request(peer, &type, path, sizeof(path)) &&
			!strcmp(path, "/local/domain/11/name"));
	xen_store__close(&xs);
	close(peer);
	xen_virt_id__forget_domain_names();
	return TEST_OK;
}

/*
 * Replies out of protocol, errors of the store, no reply: each is an
 * error, never a read past what the reply declared.
 */
static int test__xen_store_errors(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	char big[XEN_STORE_PAYLOAD_MAX + 1], buf[16];
	struct xen_store xs;
	int peer;

	memset(big, 'x', sizeof(big));
	TEST_ASSERT_VAL("socketpair", !store_pair(&xs, &peer));

	put_msg(peer, READ, 1, big, sizeof(big));
	TEST_ASSERT_VAL("payload over the maximum",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EPROTO);
	xen_store__close(&xs);
	close(peer);
	TEST_ASSERT_VAL("socketpair", !store_pair(&xs, &peer));

	put_msg(peer, DIRECTORY, 1, "x", 2);
	TEST_ASSERT_VAL("reply of another type",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EPROTO);
	put_msg(peer, READ, 2, big, sizeof(buf));
	TEST_ASSERT_VAL("value longer than the buffer",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EOVERFLOW);
	put_msg(peer, ERROR, 3, "EACCES", 7);
	TEST_ASSERT_VAL("the store's EACCES",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EACCES);
	put_msg(peer, ERROR, 4, "EWHAT", 6);
	TEST_ASSERT_VAL("an unknown error",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EIO);
	put_msg(peer, WATCH_EVENT, 0, "/b\0t", 5);
	put_msg(peer, READ, 4, "old", 3);
	put_msg(peer, READ, 5, "new", 3);
	TEST_ASSERT_VAL("events and stale replies skipped",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == 3 &&
			!strcmp(buf, "new"));
	TEST_ASSERT_VAL("no reply", xen_store__read(&xs, "/a", buf, sizeof(buf), 50) ==
			-ETIMEDOUT);
	TEST_ASSERT_VAL("names without a reply", xen_store__read_names(&xs, 50) == -ETIMEDOUT);
	shutdown(peer, SHUT_WR);
	TEST_ASSERT_VAL("store gone",
			xen_store__read(&xs, "/a", buf, sizeof(buf), 1000) == -EPIPE);
	close(peer);
	xen_store__close(&xs);
	return TEST_OK;
}

struct name_path_case {
	const char *path;
	int domid;
};

static const struct name_path_case name_paths[] = {
	{ "/local/domain/7/name", 7 },
	{ "/local/domain/32751/name", 32751 },
	{ "/local/domain/32752/name", -1 },
	{ "/local/domain/0/name", -1 },
	{ "/local/domain/07/name", -1 },
	{ "/local/domain//name", -1 },
	{ "/local/domain/7/name/x", -1 },
	{ "/local/domain/7/names", -1 },
	{ "/local/domain/7", -1 },
	{ "/local/domain/7x/name", -1 },
	{ "/vm/7/name", -1 },
};

/* The watch: an event's path, a stop, and which paths are names. */
static int test__xen_store_watch(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const char event[] = "/local/domain/7/name\0perf-xen";
	struct xen_store xs;
	char path[32], small[8];
	int peer, stop[2];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(name_paths); i++) {
		pr_debug("%s\n", name_paths[i].path);
		TEST_ASSERT_VAL("name path",
				xen_store__name_path(name_paths[i].path) == name_paths[i].domid);
	}

	TEST_ASSERT_VAL("socketpair", !store_pair(&xs, &peer));
	TEST_ASSERT_VAL("pipe", !pipe(stop));
	put_msg(peer, READ, 1, "x", 2);
	put_msg(peer, WATCH_EVENT, 0, event, sizeof(event));
	TEST_ASSERT_VAL("event", !xen_store__next_event(&xs, path, sizeof(path), stop[0]) &&
			!strcmp(path, "/local/domain/7/name"));
	put_msg(peer, WATCH_EVENT, 0, event, sizeof(event));
	TEST_ASSERT_VAL("path longer than the buffer",
			xen_store__next_event(&xs, small, sizeof(small), stop[0]) == -EOVERFLOW);
	TEST_ASSERT_VAL("stop", write(stop[1], "", 1) == 1 &&
			xen_store__next_event(&xs, path, sizeof(path), stop[0]) == -ECANCELED);
	close(stop[0]);
	close(stop[1]);
	close(peer);
	xen_store__close(&xs);
	return TEST_OK;
}

static struct test_case xen_store_tests[] = {
	TEST_CASE("Xen store: the guests' names", xen_store_names),
	TEST_CASE("Xen store: bad replies and no reply", xen_store_errors),
	TEST_CASE("Xen store: watch events", xen_store_watch),
	{ .name = NULL, }
};

struct test_suite suite__xen_store = {
	.desc = "Xen store client",
	.test_cases = xen_store_tests,
};
