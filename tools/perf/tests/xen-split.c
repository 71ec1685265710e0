// SPDX-License-Identifier: GPL-2.0
/*
 * perf xen split on a perf.data file written by the test: one file per
 * domain with exactly that domain's samples in their order, the side-band
 * records in every file (also in files opened after them), the input's
 * header features copied unchanged, Xen's symbols copied for Xen's file,
 * and a clear refusal, leaving nothing behind, of a file recorded without
 * the domain field.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <internal/lib.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "data.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "sample.h"
#include "session.h"
#include "synthetic-events.h"
#include "tests.h"
#include "tool.h"
#include "util/xen/machine.h"
#include "util/xen/split.h"
#include "util/xen/virt-id.h"

#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define HOSTNAME	"xen-split-test"
#define XEN		XEN_VIRT_ID_DOMID_XEN

/* Domains of the samples before and after the second comm record. */
static const u16 early_domids[] = { 0, 0, 5, XEN, 0, XEN, 5, XEN, XEN };
static const u16 late_domids[] = { 7, 0x7ff5, 0xffff };

/* What each output must hold. */
static const struct {
	const char *name;
	unsigned int samples;
} expected[] = {
	{ "dom0", 3 }, { "d5", 2 }, { "xen", 4 }, { "d7", 1 }, { "unknown", 2 },
};

static bool check(bool ok, const char *what)
{
	if (!ok)
		pr_debug("xen split: %s\n", what);
	return ok;
}

static u64 pack_virt_id(u16 domid)
{
	struct perf_sample_virt_id id = { .pcpu = 1, .domid = domid, .vcpu = 0 };
	u64 val;

	memcpy(&val, &id, sizeof(val));
	return val;
}

static int write_comm(int fd, const char *comm, size_t *size)
{
	struct perf_record_comm ev = {
		.header = { .type = PERF_RECORD_COMM, .size = sizeof(ev) },
		.pid = 42,
		.tid = 42,
	};

	memcpy(ev.comm, comm, strlen(comm) + 1);
	*size += sizeof(ev);
	return writen(fd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev) ? 0 : -1;
}

static int write_samples(int fd, u64 sample_type, const u16 *domids, size_t nr, u64 *time,
			 size_t *size)
{
	union perf_event *ev;
	struct perf_sample sample;
	size_t i, sz;
	int err = 0;

	memset(&sample, 0, sizeof(sample));
	sample.pid = 42;
	sample.tid = 42;
	sample.period = 1;
	sz = perf_event__sample_event_size(&sample, sample_type, 0);
	ev = zalloc(sz);
	if (!ev)
		return -1;
	for (i = 0; i < nr && !err; i++) {
		sample.ip = 0xffff82d040200000ULL + i;
		sample.time = ++*time;
		sample.cpu = i & 1;
		sample.virt_id = pack_virt_id(domids[i]);
		ev->header.type = PERF_RECORD_SAMPLE;
		ev->header.misc = domids[i] == XEN ? PERF_RECORD_MISC_HYPERVISOR :
				  domids[i] ? PERF_RECORD_MISC_GUEST_KERNEL :
				  PERF_RECORD_MISC_KERNEL;
		ev->header.size = sz;
		if (perf_event__synthesize_sample(ev, sample_type, 0, &sample) ||
		    writen(fd, ev, sz) != (ssize_t)sz)
			err = -1;
		*size += sz;
	}
	free(ev);
	return err;
}

static int save_hostname(struct perf_file_section *section,
			 struct perf_header *ph __maybe_unused, int feat,
			 int fd __maybe_unused, void *data)
{
	if (feat == HEADER_HOSTNAME)
		*(struct perf_file_section *)data = *section;
	return 0;
}

/* A hostname only this test writes: the outputs must carry it unchanged. */
static int set_hostname(const char *path)
{
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_READ };
	struct perf_file_section sec = { .offset = 0 };
	struct perf_session *session;
	int fd, err;

	session = perf_session__new(&data, NULL);
	if (IS_ERR(session))
		return -1;
	err = perf_header__process_sections(&session->header, perf_data__fd(&data), &sec,
					    save_hostname);
	perf_session__delete(session);
	if (err || sec.size < sizeof(u32) + sizeof(HOSTNAME))
		return -1;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	if (pwrite(fd, HOSTNAME, sizeof(HOSTNAME), sec.offset + sizeof(u32)) !=
	    (ssize_t)sizeof(HOSTNAME))
		err = -1;
	close(fd);
	return err;
}

static int write_input(const char *path, bool with_field)
{
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_WRITE };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = SAMPLE_TYPE | (with_field ? PERF_SAMPLE_VIRT_ID : 0),
	};
	struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(round),
	};
	struct perf_session *session;
	struct evlist *evlist;
	struct evsel *evsel;
	size_t size = 0;
	u64 time = 0;
	int fd, err = -1;

	session = perf_session__new(&data, NULL);
	if (IS_ERR(session))
		return -1;
	evlist = evlist__new();
	evsel = evsel__new(&attr);
	if (!evlist || !evsel) {
		evsel__delete(evsel);
		goto out;
	}
	evlist__add(evlist, evsel);
	session->evlist = evlist;
	perf_header__set_feat(&session->header, HEADER_HOSTNAME);

	fd = perf_data__fd(&data);
	if (lseek(fd, perf_session__data_offset(evlist), SEEK_SET) < 0 ||
	    write_comm(fd, "first", &size) ||
	    write_samples(fd, attr.sample_type, early_domids, ARRAY_SIZE(early_domids),
			  &time, &size) ||
	    write_comm(fd, "late", &size) ||
	    writen(fd, &round, sizeof(round)) != (ssize_t)sizeof(round))
		goto out;
	size += sizeof(round);
	if (write_samples(fd, attr.sample_type, late_domids, ARRAY_SIZE(late_domids),
			  &time, &size))
		goto out;
	session->header.data_size = size;
	err = perf_session__write_header(session, evlist, fd, true);
out:
	evlist__delete(evlist);
	perf_session__delete(session);
	return err ?: set_hostname(path);
}

struct reader {
	struct perf_tool tool;
	const char *name;
	unsigned int samples, comms, bad;
	bool late;
	u64 last_time;
};

static int reader__sample(const struct perf_tool *tool, union perf_event *event __maybe_unused,
			  struct perf_sample *sample, struct evsel *evsel __maybe_unused,
			  struct machine *machine __maybe_unused)
{
	struct reader *r = container_of(tool, struct reader, tool);
	struct xen_virt_id id = xen_virt_id__unpack(sample->virt_id);
	char name[16];

	if (!strcmp(r->name, "unknown"))
		snprintf(name, sizeof(name), "%s",
			 id.domid >= XEN_DOMID_FIRST_RESERVED && id.domid != XEN ? "unknown" : "?");
	else
		xen_virt_id__domain_name(id.domid, name, sizeof(name));
	if (strcmp(name, r->name) || sample->time <= r->last_time)
		r->bad++;
	r->last_time = sample->time;
	r->samples++;
	return 0;
}

static int reader__comm(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	struct reader *r = container_of(tool, struct reader, tool);

	r->comms++;
	if (!strcmp(event->comm.comm, "late"))
		r->late = true;
	return 0;
}

/* Read one output back the way perf report does and check what it holds. */
static bool check_output(const char *prefix, const char *name, unsigned int samples)
{
	struct reader r = { .name = name };
	struct perf_data data = { .mode = PERF_DATA_MODE_READ };
	struct perf_session *session;
	char path[PATH_MAX];
	bool ok;

	if (snprintf(path, sizeof(path), "%s.%s", prefix, name) >= (int)sizeof(path))
		return false;
	data.path = path;
	perf_tool__init(&r.tool, /*ordered_events=*/true);
	r.tool.sample = reader__sample;
	r.tool.comm = reader__comm;
	session = perf_session__new(&data, &r.tool);
	if (IS_ERR(session)) {
		pr_debug("xen split: cannot open %s\n", path);
		return false;
	}
	ok = check(!perf_session__process_events(session), "output not readable");
	ok &= check(r.samples == samples, "wrong number of samples");
	ok &= check(!r.bad, "sample of another domain, or out of order");
	ok &= check(r.comms == 2 && r.late, "side-band records missing");
	ok &= check(session->header.env.hostname &&
		    !strcmp(session->header.env.hostname, HOSTNAME),
		    "header features not copied");
	ok &= check(session->evlist->core.nr_entries == 1 &&
		    evlist__first(session->evlist)->core.attr.sample_type & PERF_SAMPLE_VIRT_ID,
		    "event attributes not copied");
	perf_session__delete(session);
	if (!ok)
		pr_debug("xen split: in %s\n", path);
	return ok;
}

#define XENSYMS	"ffff82d040200000 T _stext\n"

/* INPUT.xensyms, which split must copy for Xen's file. */
static int write_xensyms(const char *input)
{
	char path[PATH_MAX];
	FILE *f;
	int err;

	if (snprintf(path, sizeof(path), "%s.xensyms", input) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fputs(XENSYMS, f) < 0;
	return fclose(f) || err ? -1 : 0;
}

static bool check_xensyms(const char *prefix)
{
	char path[PATH_MAX], buf[sizeof(XENSYMS) + 1] = "";
	size_t n = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s.xen.xensyms", prefix) >= (int)sizeof(path))
		return false;
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
	}
	return n == strlen(XENSYMS) && !memcmp(buf, XENSYMS, n);
}

static void cleanup(const char *dir)
{
	struct dirent *ent;
	DIR *d = opendir(dir);

	while (d && (ent = readdir(d)))
		if (ent->d_name[0] != '.')
			unlinkat(dirfd(d), ent->d_name, 0);
	if (d)
		closedir(d);
	if (rmdir(dir))
		pr_debug("xen split: cannot remove %s\n", dir);
}

static int test__xen_split_domains(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX], path[PATH_MAX];
	struct xen_split_stats stats;
	bool ok = true;
	size_t i;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	if (!check(!write_input(input, true) && !write_xensyms(input), "cannot write the input")) {
		cleanup(dir);
		return TEST_FAIL;
	}

	ok &= check(!xen_split(input, input, &stats), "split failed");
	ok &= check(stats.samples == ARRAY_SIZE(early_domids) + ARRAY_SIZE(late_domids),
		    "wrong sample count");
	ok &= check(stats.unknown == 2, "wrong unknown count");
	ok &= check(stats.sideband == 2, "wrong side-band count");
	ok &= check(stats.files == ARRAY_SIZE(expected), "wrong file count");
	ok &= check(stats.xen, "no Xen file");
	ok &= check(!stats.dropped, "samples dropped");
	ok &= check(stats.xensyms && check_xensyms(input), "Xen symbols not copied for its file");
	for (i = 0; i < ARRAY_SIZE(expected); i++)
		ok &= check_output(input, expected[i].name, expected[i].samples);

	ok &= check(snprintf(path, sizeof(path), "%s.d6", input) < (int)sizeof(path) &&
		    access(path, F_OK), "a file for a domain without samples");
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

static int test__xen_split_refuse(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX], path[PATH_MAX];
	struct xen_split_stats stats;
	bool ok = true;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	ok &= check(!write_input(input, false), "cannot write the input");
	ok &= check(xen_split(input, input, &stats) == -EINVAL, "file without the field split");
	ok &= check(snprintf(path, sizeof(path), "%s.dom0", input) < (int)sizeof(path) &&
		    access(path, F_OK), "output left behind");
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

static struct test_case xen_split_tests[] = {
	TEST_CASE("Xen split: one perf.data file per domain", xen_split_domains),
	TEST_CASE("Xen split: refuses a file without the domain field", xen_split_refuse),
	{ .name = NULL, }
};

struct test_suite suite__xen_split = {
	.desc = "Xen split by domain",
	.test_cases = xen_split_tests,
};
