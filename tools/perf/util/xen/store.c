// SPDX-License-Identifier: GPL-2.0
/*
 * The few requests perf xen makes of Xen's store: the guests' names, read
 * once and then watched, so that a report can say "d7 web01".  Every
 * message is a header (type, request id, transaction id, length) and a
 * payload of NUL-terminated strings; replies are untrusted and checked
 * against the length the protocol allows.  Each wait has a timeout, since
 * a dom0 without xenstored never answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <linux/kernel.h>

#include "store.h"
#include "virt-id.h"

/* Message types of the store's protocol (xs_wire.h's enum xsd_sockmsg_type). */
enum {
	XEN_STORE_DIRECTORY	= 1,
	XEN_STORE_READ		= 2,
	XEN_STORE_WATCH		= 4,
	XEN_STORE_WATCH_EVENT	= 15,
	XEN_STORE_ERROR		= 16,
};

struct xen_store_msg {
	u32 type;
	u32 req_id;
	u32 tx_id;
	u32 len;
};

int xen_store__open(struct xen_store *xs)
{
	xs->req_id = 0;
	xs->fd = open(XEN_STORE_DEV, O_RDWR | O_CLOEXEC);
	return xs->fd < 0 ? -errno : 0;
}

void xen_store__close(struct xen_store *xs)
{
	if (xs->fd >= 0)
		close(xs->fd);
	xs->fd = -1;
}

/* 0 once @fd is readable, -ETIMEDOUT, or -ECANCELED when @stop_fd is. */
static int xen_store__wait(int fd, int stop_fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	int n;

	do {
		n = poll(pfd, stop_fd >= 0 ? 2 : 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	if (stop_fd >= 0 && pfd[1].revents)
		return -ECANCELED;
	return 0;
}

static int xen_store__readn(int fd, void *buf, size_t len, int stop_fd, int timeout_ms)
{
	char *p = buf;

	while (len) {
		ssize_t n;
		int err = xen_store__wait(fd, stop_fd, timeout_ms);

		if (err)
			return err;
		n = read(fd, p, len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

/* One message; @payload has room for XEN_STORE_PAYLOAD_MAX + 1 bytes. */
static int xen_store__recv(struct xen_store *xs, struct xen_store_msg *msg, char *payload,
			   int stop_fd, int timeout_ms)
{
	int err = xen_store__readn(xs->fd, msg, sizeof(*msg), stop_fd, timeout_ms);

	if (err)
		return err;
	if (msg->len > XEN_STORE_PAYLOAD_MAX)
		return -EPROTO;
	err = xen_store__readn(xs->fd, payload, msg->len, stop_fd, timeout_ms);
	if (err)
		return err;
	payload[msg->len] = '\0';
	return 0;
}

/* The errno of the store's error reply, as its names are errno's. */
static int xen_store__error(const char *name)
{
	static const struct {
		const char *name;
		int err;
	} errors[] = {
		{ "ENOENT", ENOENT }, { "EACCES", EACCES }, { "EINVAL", EINVAL },
		{ "EAGAIN", EAGAIN }, { "ENOSPC", ENOSPC }, { "E2BIG", E2BIG },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errors); i++) {
		if (!strcmp(name, errors[i].name))
			return -errors[i].err;
	}
	return -EIO;
}

/*
 * Send @type with the strings @a and, if not NULL, @b, and copy the reply's
 * payload to @buf (NUL-terminated).  Returns the payload's length or -errno:
 * -EOVERFLOW if it does not fit @size, -EPROTO for a reply out of protocol.
 */
static int xen_store__request(struct xen_store *xs, u32 type, const char *a, const char *b,
			      char *buf, size_t size, int timeout_ms)
{
	size_t alen = strlen(a) + 1, blen = b ? strlen(b) + 1 : 0;
	char payload[XEN_STORE_PAYLOAD_MAX + 1];
	struct xen_store_msg msg = {
		.type = type,
		.req_id = ++xs->req_id,
		.len = alen + blen,
	};
	struct iovec iov[3] = {
		{ .iov_base = &msg, .iov_len = sizeof(msg) },
		{ .iov_base = (void *)a, .iov_len = alen },
		{ .iov_base = (void *)b, .iov_len = blen },
	};
	u32 req_id = msg.req_id;
	int err;

	if (alen + blen > XEN_STORE_PAYLOAD_MAX)
		return -EINVAL;
	if (writev(xs->fd, iov, b ? 3 : 2) != (ssize_t)(sizeof(msg) + alen + blen))
		return errno ? -errno : -EIO;

	do {
		err = xen_store__recv(xs, &msg, payload, -1, timeout_ms);
		if (err)
			return err;
	} while (msg.type == XEN_STORE_WATCH_EVENT || msg.req_id != req_id);

	if (msg.type == XEN_STORE_ERROR)
		return xen_store__error(payload);
	if (msg.type != type)
		return -EPROTO;
	if (msg.len >= size)
		return -EOVERFLOW;
	memcpy(buf, payload, msg.len + 1);
	return msg.len;
}

/**
 * xen_store__read - read one node of Xen's store
 * @xs: the connection
 * @path: the node
 * @buf: its value, NUL-terminated
 * @size: room in @buf
 * @timeout_ms: the longest wait for each part of the reply, or -1
 *
 * Return: the value's length, or -errno: the store's own errors (-ENOENT,
 * -EACCES, ...), -ETIMEDOUT, -EOVERFLOW when the value does not fit, or
 * -EPROTO for a reply out of protocol.
 */
int xen_store__read(struct xen_store *xs, const char *path, char *buf, size_t size,
		    int timeout_ms)
{
	return xen_store__request(xs, XEN_STORE_READ, path, NULL, buf, size, timeout_ms);
}

/* The children of @path, each NUL-terminated, in @buf; as xen_store__read(). */
int xen_store__directory(struct xen_store *xs, const char *path, char *buf, size_t size,
			 int timeout_ms)
{
	return xen_store__request(xs, XEN_STORE_DIRECTORY, path, NULL, buf, size, timeout_ms);
}

/* Watch @path and all below it; 0 or -errno as xen_store__read(). */
int xen_store__watch(struct xen_store *xs, const char *path, const char *token,
		     int timeout_ms)
{
	char buf[8];
	int ret = xen_store__request(xs, XEN_STORE_WATCH, path, token, buf, sizeof(buf),
				     timeout_ms);

	return ret < 0 ? ret : 0;
}

/**
 * xen_store__next_event - wait for a watch to fire
 * @xs: a connection with a watch
 * @path: the node that changed, NUL-terminated
 * @size: room in @path
 * @stop_fd: a descriptor that ends the wait when readable, or -1
 *
 * Return: 0, -ECANCELED when @stop_fd became readable, -EOVERFLOW for a path
 * that does not fit, or another -errno when the connection fails.
 */
int xen_store__next_event(struct xen_store *xs, char *path, size_t size, int stop_fd)
{
	char payload[XEN_STORE_PAYLOAD_MAX + 1];
	struct xen_store_msg msg;
	size_t len;
	int err;

	do {
		err = xen_store__recv(xs, &msg, payload, stop_fd, -1);
		if (err)
			return err;
	} while (msg.type != XEN_STORE_WATCH_EVENT);

	len = strlen(payload);
	if (len >= size)
		return -EOVERFLOW;
	memcpy(path, payload, len + 1);
	return 0;
}

/* The guest id of a domain number in the store, or -1. */
static int xen_store__domid(const char *s, size_t len)
{
	unsigned long id = 0;
	size_t i;

	if (!len || len > 5 || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		id = id * 10 + s[i] - '0';
	}
	return id && id < XEN_DOMID_FIRST_RESERVED ? (int)id : -1;
}

/* The guest whose name @path is ("/local/domain/N/name"), or -1. */
int xen_store__name_path(const char *path)
{
	static const char pre[] = "/local/domain/", post[] = "/name";
	const char *id = path + sizeof(pre) - 1, *end;

	if (strncmp(path, pre, sizeof(pre) - 1))
		return -1;
	end = strchr(id, '/');
	if (!end || strcmp(end, post))
		return -1;
	return xen_store__domid(id, end - id);
}

/*
 * Name guest @domid from the store, and give it the type the toolstack
 * wrote (libxl's /libxl/<domid>/type); 0, or -errno other than a missing
 * name or type.
 */
int xen_store__read_name(struct xen_store *xs, int domid, int timeout_ms)
{
	char path[32], name[XEN_VIRT_ID_NAME_MAX + 1], type[8];
	int ret;

	snprintf(path, sizeof(path), "/local/domain/%d/name", domid);
	ret = xen_store__read(xs, path, name, sizeof(name), timeout_ms);
	if (ret == -ENOENT || ret == -EOVERFLOW)
		return 0;
	if (ret < 0)
		return ret;
	/* A name the reports cannot show stays an id. */
	ret = xen_virt_id__set_domain_name(domid, name);
	if (ret)
		return ret == -ENOMEM ? ret : 0;

	snprintf(path, sizeof(path), "/libxl/%d/type", domid);
	ret = xen_store__read(xs, path, type, sizeof(type), timeout_ms);
	if (ret == -ENOENT || ret == -EOVERFLOW || ret == -EACCES)
		return 0;
	if (ret < 0)
		return ret;
	/* Another toolstack's type, or none: the type stays unknown. */
	xen_virt_id__set_domain_type(domid, type);
	return 0;
}

/**
 * xen_store__read_names - name every guest that the store lists
 * @xs: the connection
 * @timeout_ms: the longest wait for each reply, or -1
 *
 * A guest without a name, or whose name cannot be shown, keeps its id.
 *
 * Return: 0, or -errno when the store cannot be read.
 */
int xen_store__read_names(struct xen_store *xs, int timeout_ms)
{
	char dir[XEN_STORE_PAYLOAD_MAX + 1];
	const char *p;
	int len, err;

	len = xen_store__directory(xs, "/local/domain", dir, sizeof(dir), timeout_ms);
	if (len < 0)
		return len;
	for (p = dir; p < dir + len; p += strlen(p) + 1) {
		int domid = xen_store__domid(p, strlen(p));

		if (domid < 0)
			continue;
		err = xen_store__read_name(xs, domid, timeout_ms);
		if (err)
			return err;
	}
	return 0;
}
