// SPDX-License-Identifier: GPL-2.0
/*
 * perf xen split on a perf.data file written by the test: one file per
 * domain with exactly that domain's samples in their order, the side-band
 * records in every file (also in files opened after them), the input's
 * header features copied unchanged, Xen's symbols copied for Xen's file,
 * and a clear refusal, leaving nothing behind, of a file recorded without
 * the domain field and of damaged files: an event, the data or a header
 * section past the end of the file.  Header features unknown to perf are
 * dropped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <internal/lib.h>
#include <linux/bitmap.h>
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

/* What each output must hold; d7 is named web07, d5 has no name. */
static const struct {
	const char *name;
	unsigned int samples;
} expected[] = {
	{ "dom0", 3 }, { "d5", 2 }, { "xen", 4 }, { "d7-web07", 1 }, { "unknown", 2 },
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
	struct perf_sample_virt_id id = perf_sample__virt_id(sample->virt_id);
	char name[XEN_VIRT_ID_NAME_MAX + 16], *blank;

	if (!strcmp(r->name, "unknown"))
		snprintf(name, sizeof(name), "%s",
			 id.domid >= XEN_DOMID_FIRST_RESERVED && id.domid != XEN ? "unknown" : "?");
	else
		xen_virt_id__domain_label(id.domid, name, sizeof(name));
	blank = strchr(name, ' ');
	if (blank)
		*blank = '-';
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
	xen_virt_id__forget_domain_names();
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

	ok &= check(!xen_virt_id__set_domain_name(7, "web07"), "cannot name d7");
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

/*
 * A file perf's reader maps past its end: at least @data bytes of samples,
 * ending at a page boundary, the last sample @cut bytes short in the file
 * and claiming @last_size bytes (0: its own size), and a header that claims
 * @extra bytes of data more than there are.  No header features follow.
 */
static int write_cut_input(const char *path, size_t data, u16 last_size, size_t cut, u64 extra)
{
	struct perf_data pd = { .path = path, .mode = PERF_DATA_MODE_WRITE };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = SAMPLE_TYPE | PERF_SAMPLE_VIRT_ID,
	};
	struct perf_sample sample = { .pid = 42, .tid = 42, .period = 1 };
	union perf_event *ev = NULL;
	struct perf_session *session;
	struct evlist *evlist;
	struct evsel *evsel;
	size_t sz, off, start, end, len, last_len;
	int fd, err = -1;

	session = perf_session__new(&pd, NULL);
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

	sz = perf_event__sample_event_size(&sample, attr.sample_type, 0);
	last_len = sz - cut;
	start = perf_session__data_offset(evlist);
	end = roundup(start + data, page_size);
	ev = zalloc(2 * sz);
	fd = perf_data__fd(&pd);
	if (!ev || lseek(fd, start, SEEK_SET) < 0)
		goto out;
	ev->header.type = PERF_RECORD_SAMPLE;
	ev->header.misc = PERF_RECORD_MISC_KERNEL;
	for (off = start; ; off += len) {
		size_t left = end - last_len - off;

		sample.ip = 0xffffffff81000000ULL + off;
		sample.time = off;
		sample.virt_id = pack_virt_id(0);
		if (perf_event__synthesize_sample(ev, attr.sample_type, 0, &sample))
			goto out;
		/* The one before the last pads up to where the last one starts. */
		len = left ? (left < 2 * sz ? left : sz) : last_len;
		ev->header.size = left || !last_size ? len : last_size;
		if (writen(fd, ev, len) != (ssize_t)len)
			goto out;
		if (!left)
			break;
	}
	session->header.data_size = end - start + extra;
	err = perf_session__write_header(session, evlist, fd, true);
	if (!err && ftruncate(fd, end))
		err = -1;
out:
	free(ev);
	evlist__delete(evlist);
	perf_session__delete(session);
	return err;
}

/* Outputs of a split in @dir, which holds only its input, perf.data, before. */
static int nr_outputs(const char *dir)
{
	struct dirent *ent;
	DIR *d = opendir(dir);
	int nr = 0;

	while (d && (ent = readdir(d)))
		if (ent->d_name[0] != '.' && strcmp(ent->d_name, "perf.data"))
			nr++;
	if (d)
		closedir(d);
	return nr;
}

/* Split must fail on INPUT, leaving no output. */
static bool refused(const char *dir, const char *input, const char *what)
{
	struct xen_split_stats stats;
	bool ok = check(xen_split(input, input, &stats) != 0, what);

	return check(!nr_outputs(dir), "output left behind") && ok;
}

static int test__xen_split_cut_event(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX];
	bool ok;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	/* A whole sample at the end of the file that claims two pages. */
	ok = check(!write_cut_input(input, 16 * page_size, 2 * page_size, 0, 0),
		   "cannot write the input") &&
	     refused(dir, input, "event past the end of the file split");
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

static int test__xen_split_cut_data(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX];
	bool ok;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	ok = check(!write_cut_input(input, 16 * page_size, 0, 0, 1 << 20),
		   "cannot write the input") &&
	     refused(dir, input, "data section past the end of the file split");
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

static int read_file_header(const char *path, struct perf_file_header *h)
{
	int fd = open(path, O_RDONLY), err;

	if (fd < 0)
		return -1;
	err = pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) ? 0 : -1;
	close(fd);
	return err;
}

static int write_at(const char *path, const void *buf, size_t len, off_t offset)
{
	int fd = open(path, O_WRONLY), err;

	if (fd < 0)
		return -1;
	err = pwrite(fd, buf, len, offset) == (ssize_t)len ? 0 : -1;
	close(fd);
	return err;
}

/* Feature bits of a newer perf, or of a damaged file: not copied, not fatal. */
static int test__xen_split_unknown_features(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	static const int bits[] = { HEADER_LAST_FEATURE, 64, 128, HEADER_FEAT_BITS - 1 };
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX], path[PATH_MAX];
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_READ };
	struct perf_file_header h;
	struct xen_split_stats stats;
	struct perf_session *session;
	bool ok;
	size_t i;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	ok = check(snprintf(path, sizeof(path), "%s.dom0", input) < (int)sizeof(path) &&
		   !write_input(input, true) && !read_file_header(input, &h),
		   "cannot write the input");
	for (i = 0; ok && i < ARRAY_SIZE(bits); i++)
		__set_bit(bits[i], h.adds_features);
	ok = ok && check(!write_at(input, &h, sizeof(h), 0), "cannot write the input");
	ok = ok && check(!xen_virt_id__set_domain_name(7, "web07"), "cannot name d7");
	ok = ok && check(!xen_split(input, input, &stats), "split failed");
	for (i = 0; ok && i < ARRAY_SIZE(expected); i++)
		ok &= check_output(input, expected[i].name, expected[i].samples);
	session = ok ? perf_session__new(&data, NULL) : ERR_PTR(-EINVAL);
	ok = ok && check(!IS_ERR(session), "cannot open the output");
	ok = ok && check(find_next_bit(session->header.adds_features, HEADER_FEAT_BITS,
				       HEADER_LAST_FEATURE) == HEADER_FEAT_BITS,
			 "unknown feature copied");
	if (!IS_ERR(session))
		perf_session__delete(session);
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

/* What each damaged copy of a good input does to its header. */
enum damage {
	CUT_HEADER,
	ATTRS_PAST_END,
	FEATURE_TABLE_CUT,
	FEATURE_PAST_END,
	NR_DAMAGES,
};

static const char * const damage_names[] = {
	"file header cut short",
	"attributes past the end of the file",
	"feature table cut short",
	"feature section past the end of the file",
};

static int damage_input(const char *path, enum damage damage)
{
	struct perf_file_header h;
	struct perf_file_section sec;
	u64 feat_offset;
	struct stat st;

	if (read_file_header(path, &h) || stat(path, &st))
		return -1;
	feat_offset = h.data.offset + h.data.size;
	switch (damage) {
	case CUT_HEADER:
		return truncate(path, sizeof(h) / 2);
	case ATTRS_PAST_END:
		h.attrs.offset = st.st_size + page_size;
		return write_at(path, &h, sizeof(h), 0);
	case FEATURE_TABLE_CUT:
		return truncate(path, feat_offset + sizeof(sec) / 2);
	case FEATURE_PAST_END:
		sec.offset = st.st_size - 8;
		sec.size = page_size;
		return write_at(path, &sec, sizeof(sec), feat_offset);
	case NR_DAMAGES:
	default:
		return -1;
	}
}

static int test__xen_split_damaged_header(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-xen-split-XXXXXX", input[PATH_MAX];
	bool ok = true;
	int damage;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	snprintf(input, sizeof(input), "%s/perf.data", dir);
	for (damage = 0; damage < NR_DAMAGES; damage++) {
		/* Not renamed to perf.data.old, which would count as an output. */
		unlink(input);
		if (!check(!write_input(input, true) && !damage_input(input, damage),
			   "cannot write the input")) {
			ok = false;
			continue;
		}
		if (!refused(dir, input, "damaged file split")) {
			pr_debug("xen split: %s\n", damage_names[damage]);
			ok = false;
		}
	}
	cleanup(dir);
	return ok ? TEST_OK : TEST_FAIL;
}

static struct test_case xen_split_tests[] = {
	TEST_CASE("Xen split: one perf.data file per domain", xen_split_domains),
	TEST_CASE("Xen split: refuses a file without the domain field", xen_split_refuse),
	TEST_CASE("Xen split: refuses an event past the end of the file", xen_split_cut_event),
	TEST_CASE("Xen split: refuses a data section past the end of the file", xen_split_cut_data),
	TEST_CASE("Xen split: refuses header sections past the end of the file",
		  xen_split_damaged_header),
	TEST_CASE("Xen split: drops header features unknown to perf", xen_split_unknown_features),
	{ .name = NULL, }
};

struct test_suite suite__xen_split = {
	.desc = "Xen split by domain",
	.test_cases = xen_split_tests,
};
