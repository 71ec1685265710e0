// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_VIRT_ID in perf: parsing in the other byte order, domain
 * names and the guests' names from Xen's store, the domain/pcpu/vcpu sort
 * keys and perf script's fields, and a
 * file whose last sample or data section runs past its end.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <internal/lib.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/zalloc.h>

#include "data.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "hist.h"
#include "sample.h"
#include "session.h"
#include "sort.h"
#include "symbol_conf.h"
#include "synthetic-events.h"
#include "tests.h"
#include "tool.h"
#include "util/xen/virt-id.h"

#define VIRT_ID(pcpu, domid, vcpu) \
	((u64)(pcpu) | (u64)(domid) << 32 | (u64)(vcpu) << 48)

static int test__xen_virt_id_names(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	static const struct { u16 domid; const char *name; } t[] = {
		{ 0x7ff2, "xen" }, { 0, "dom0" }, { 5, "d5" }, { 0xffff, "-" },
	};
	char bf[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		xen_virt_id__domain_name(t[i].domid, bf, sizeof(bf));
		TEST_ASSERT_VAL("domain name", !strcmp(bf, t[i].name));
	}
	return TEST_OK;
}

/* Guests named from Xen's store: what is kept, refused and shown. */
static int test__xen_virt_id_guest_names(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	static const char * const bad_names[] = {
		"", "two words", "tab\there", "a/b", ".", "..",
		"0123456789012345678901234567890123456789012345678901234567890123x",
	};
	static const char lines[] =
		"7 web01 pvh\n"
		"9 db\n"
		"10 x vmware\n"		/* named, but not a type of Xen's */
		"4 four pv more\n"
		"0 Domain-0\n"		/* dom0 is not a guest */
		"32752 reserved\n"	/* DOMID_FIRST_RESERVED */
		"70000 big\n"
		"12\n"
		"13 two words here\n"
		"x y\n"
		"9 db2\n";		/* a later name replaces the earlier */
	struct hist_entry he = { .virt_id = VIRT_ID(1, 7, 0) };
	char bf[128], *out = NULL;
	size_t i, out_size = 0;
	unsigned int pos, sum = 0;
	u16 domid;
	FILE *fp;
	int n;

	xen_virt_id__forget_domain_names();
	for (i = 0; i < ARRAY_SIZE(bad_names); i++)
		TEST_ASSERT_VAL("bad name kept",
				xen_virt_id__set_domain_name(3, bad_names[i]) == -EINVAL);
	TEST_ASSERT_VAL("dom0 named", xen_virt_id__set_domain_name(0, "x") == -EINVAL);
	TEST_ASSERT_VAL("reserved id named",
			xen_virt_id__set_domain_name(XEN_DOMID_FIRST_RESERVED, "x") == -EINVAL);
	TEST_ASSERT_VAL("name of 64 refused",
			!xen_virt_id__set_domain_name(3, bad_names[6] + 1));
	TEST_ASSERT_VAL("name of 64 not kept", xen_virt_id__domain_name_of(3));

	xen_virt_id__forget_domain_names();
	TEST_ASSERT_VAL("names kept after forget", !xen_virt_id__domain_name_of(3));
	fp = fmemopen((void *)lines, sizeof(lines) - 1, "r");
	TEST_ASSERT_VAL("fmemopen", fp);
	n = xen_virt_id__read_names(fp, "test");
	fclose(fp);
	TEST_ASSERT_VAL("names read", n == 3);
	TEST_ASSERT_VAL("d7", !strcmp(xen_virt_id__domain_name_of(7) ?: "", "web01"));
	TEST_ASSERT_VAL("d9", !strcmp(xen_virt_id__domain_name_of(9) ?: "", "db2"));
	TEST_ASSERT_VAL("d7's type", !strcmp(xen_virt_id__domain_type_of(7) ?: "", "pvh"));
	TEST_ASSERT_VAL("d9's or d10's type",
			!xen_virt_id__domain_type_of(9) && !xen_virt_id__domain_type_of(10));
	TEST_ASSERT_VAL("d4 named", !xen_virt_id__domain_name_of(4));
	TEST_ASSERT_VAL("type of an unnamed guest",
			xen_virt_id__set_domain_type(8, "pv") == -ENOENT);
	TEST_ASSERT_VAL("d12 or d13 named",
			!xen_virt_id__domain_name_of(12) && !xen_virt_id__domain_name_of(13));
	TEST_ASSERT_VAL("find web01", xen_virt_id__find_domain("web01") == 7);
	for (i = 0, pos = 0; !xen_virt_id__next_domain(&pos, &domid); i++)
		sum += domid;
	TEST_ASSERT_VAL("named guests", i == 3 && sum == 7 + 9 + 10);
	TEST_ASSERT_VAL("find db", xen_virt_id__find_domain("db") == -ENOENT);

	xen_virt_id__domain_label(7, bf, sizeof(bf));
	TEST_ASSERT_VAL("label of d7", !strcmp(bf, "d7 web01"));
	xen_virt_id__domain_label(8, bf, sizeof(bf));
	TEST_ASSERT_VAL("label of d8", !strcmp(bf, "d8"));
	xen_virt_id__domain_label(0, bf, sizeof(bf));
	TEST_ASSERT_VAL("label of dom0", !strcmp(bf, "dom0"));
	TEST_ASSERT_VAL("width of d7", xen_virt_id__domain_width(7) == 8);
	sort_virt_domain.se_snprintf(&he, bf, sizeof(bf), 10);
	TEST_ASSERT_VAL("domain column of d7", !strcmp(bf, "d7 web01  "));
	/* report -t ' ': the separator inside a label is escaped */
	symbol_conf.field_sep = " ";
	sort_virt_domain.se_snprintf(&he, bf, sizeof(bf), 10);
	symbol_conf.field_sep = NULL;
	TEST_ASSERT_VAL("domain column of d7, -t ' '", !strcmp(bf, "d7.web01.."));

	fp = open_memstream(&out, &out_size);
	TEST_ASSERT_VAL("open_memstream", fp);
	TEST_ASSERT_VAL("names written", !xen_virt_id__write_names(fp));
	fclose(fp);
	TEST_ASSERT_VAL("names file", out && !strcmp(out, "7 web01 pvh\n9 db2\n10 x\n"));
	free(out);
	xen_virt_id__forget_domain_names();
	return TEST_OK;
}

/*
 * A file written on a machine of the other byte order: the writer stored
 * each field in its order, the session swaps every u64 of the sample, and
 * parsing must give the fields back.
 */
static int test__xen_virt_id_swap(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct evsel evsel = {
		.core.attr = { .sample_type = PERF_SAMPLE_VIRT_ID },
		.needs_swap = true,
	};
	struct perf_sample in = { .virt_id = 0 }, out;
	union perf_event *event;
	struct perf_sample_virt_id id;
	unsigned char raw[8] = {
		0x00, 0x00, 0x00, 0x07,	/* pcpu 7, big-endian */
		0x00, 0x05,		/* domid 5 */
		0x00, 0x03,		/* vcpu 3 */
	};
	size_t sz = perf_event__sample_event_size(&in, PERF_SAMPLE_VIRT_ID, 0);
	u64 *slot, v;
	int err;

	event = calloc(1, sz);
	TEST_ASSERT_VAL("alloc", event);
	event->header.type = PERF_RECORD_SAMPLE;
	event->header.size = sz;
	err = perf_event__synthesize_sample(event, PERF_SAMPLE_VIRT_ID, 0, &in);
	TEST_ASSERT_VAL("synthesize", !err);
	slot = (u64 *)(&event->header + 1);
	memcpy(&v, raw, sizeof(v));
	*slot = bswap_64(v);
	evsel.sample_size = __evsel__sample_size(PERF_SAMPLE_VIRT_ID);
	err = evsel__parse_sample(&evsel, event, &out);
	free(event);
	TEST_ASSERT_VAL("parse", !err);
	id = perf_sample__virt_id(out.virt_id);
	TEST_ASSERT_EQUAL("pcpu", (int)id.pcpu, 7);
	TEST_ASSERT_EQUAL("domid", id.domid, 5);
	TEST_ASSERT_EQUAL("vcpu", id.vcpu, 3);
	return TEST_OK;
}

static int snprintf_entry(struct sort_entry *se, u64 virt_id, char *bf, size_t size)
{
	struct hist_entry he;

	memset(&he, 0, sizeof(he));
	he.virt_id = virt_id;
	se->se_snprintf(&he, bf, size, 5);
	return 0;
}

static int test__xen_virt_id_sort(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct hist_entry a, b;
	char bf[32];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.virt_id = VIRT_ID(1, 0x7ff2, 0);
	b.virt_id = VIRT_ID(1, 0x7ff2, 0);
	TEST_ASSERT_VAL("same domain", sort_virt_domain.se_cmp(&a, &b) == 0);
	b.virt_id = VIRT_ID(2, 3, 1);
	TEST_ASSERT_VAL("other domain", sort_virt_domain.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("other pcpu", sort_virt_pcpu.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("other vcpu", sort_virt_vcpu.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("order", (sort_virt_domain.se_cmp(&a, &b) > 0) ==
				 (sort_virt_domain.se_cmp(&b, &a) < 0));

	snprintf_entry(&sort_virt_domain, VIRT_ID(1, 0x7ff2, 0), bf, sizeof(bf));
	TEST_ASSERT_VAL("xen", !strcmp(bf, "xen  "));
	snprintf_entry(&sort_virt_domain, VIRT_ID(1, 12, 0), bf, sizeof(bf));
	TEST_ASSERT_VAL("d12", !strcmp(bf, "d12  "));
	snprintf_entry(&sort_virt_domain, ~0ULL, bf, sizeof(bf));
	TEST_ASSERT_VAL("no field", !strcmp(bf, "-    "));
	snprintf_entry(&sort_virt_pcpu, VIRT_ID(~0U, 0, 1), bf, sizeof(bf));
	TEST_ASSERT_VAL("pcpu unknown", !strcmp(bf, "    -"));
	snprintf_entry(&sort_virt_pcpu, VIRT_ID(42, 0, 1), bf, sizeof(bf));
	TEST_ASSERT_VAL("pcpu", !strcmp(bf, "   42"));
	snprintf_entry(&sort_virt_vcpu, VIRT_ID(42, 0, 7), bf, sizeof(bf));
	TEST_ASSERT_VAL("vcpu", !strcmp(bf, "    7"));
	return TEST_OK;
}

static int test__xen_virt_id_script(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	static const char expect[] =
		"DOM:d5    PCPU:007 VCPU:003 DOM:xen   PCPU:  - VCPU:  - DOM:dom0  ";
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int ok;

	TEST_ASSERT_VAL("memstream", fp);
	xen_virt_id__fprintf(VIRT_ID(7, 5, 3), fp, true, true, true);
	xen_virt_id__fprintf(VIRT_ID(~0U, 0x7ff2, 0xffff), fp, true, true, true);
	xen_virt_id__fprintf(VIRT_ID(1, 0, 2), fp, true, false, false);
	fclose(fp);
	ok = buf && !strcmp(buf, expect);
	if (!ok)
		pr_debug("got '%s'\n", buf);
	free(buf);
	TEST_ASSERT_VAL("script fields", ok);
	return TEST_OK;
}

#define CUT_SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_VIRT_ID)

/*
 * A file perf's reader maps past its end: samples up to a page boundary,
 * the last one's VIRT_ID the first word after the end of the file though
 * the sample claims @last_size bytes, or, with @extra, whole samples and a
 * header that claims @extra bytes of data more than there are.
 */
static int write_cut_file(const char *path, u16 last_size, u64 extra)
{
	struct perf_data pd = { .path = path, .mode = PERF_DATA_MODE_WRITE };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = CUT_SAMPLE_TYPE,
	};
	struct perf_sample sample = { .pid = 1, .tid = 1, .period = 1, .virt_id = 0 };
	size_t sz, start, end, off, len, last_len;
	struct perf_session *session;
	union perf_event *ev = NULL;
	struct evlist *evlist;
	struct evsel *evsel;
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
	last_len = extra ? sz : sz - sizeof(u64);
	start = perf_session__data_offset(evlist);
	end = roundup(start + 16 * page_size, page_size);
	ev = zalloc(2 * sz);
	fd = perf_data__fd(&pd);
	if (!ev || lseek(fd, start, SEEK_SET) < 0)
		goto out;
	ev->header.type = PERF_RECORD_SAMPLE;
	for (off = start; ; off += len) {
		size_t left = end - last_len - off;

		sample.ip = off;
		sample.time = off;
		if (perf_event__synthesize_sample(ev, attr.sample_type, 0, &sample))
			goto out;
		/* The one before the last pads up to where the last one starts. */
		len = left ? (left < 2 * sz ? left : sz) : last_len;
		ev->header.size = left || extra ? len : last_size;
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

static int ignore_sample(const struct perf_tool *tool __maybe_unused,
			 union perf_event *event __maybe_unused,
			 struct perf_sample *sample __maybe_unused,
			 struct evsel *evsel __maybe_unused,
			 struct machine *machine __maybe_unused)
{
	return 0;
}

/* Reading FILE as perf report does must fail, not fault. */
static bool read_fails(const char *path)
{
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_READ };
	struct perf_session *session;
	struct perf_tool tool;
	int err;

	perf_tool__init(&tool, /*ordered_events=*/true);
	tool.sample = ignore_sample;
	session = perf_session__new(&data, &tool);
	if (IS_ERR(session))
		return true;
	err = perf_session__process_events(session);
	perf_session__delete(session);
	return err != 0;
}

static int test__xen_virt_id_cut(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	char path[] = "/tmp/perf-xen-virt-id-XXXXXX";
	int fd = mkstemp(path);
	bool cut_sample, cut_data;

	TEST_ASSERT_VAL("temporary file", fd >= 0);
	close(fd);
	cut_sample = !write_cut_file(path, 2 * page_size, 0) && read_fails(path);
	cut_data = !write_cut_file(path, 0, 1 << 20) && read_fails(path);
	unlink(path);
	TEST_ASSERT_VAL("sample past the end of the file read", cut_sample);
	TEST_ASSERT_VAL("data section past the end of the file read", cut_data);
	return TEST_OK;
}

static struct test_case xen_virt_id_tests[] = {
	TEST_CASE("Xen VIRT_ID: domain names", xen_virt_id_names),
	TEST_CASE("Xen VIRT_ID: guests' names", xen_virt_id_guest_names),
	TEST_CASE("Xen VIRT_ID: parse from the other byte order", xen_virt_id_swap),
	TEST_CASE("Xen VIRT_ID: domain, pcpu and vcpu sort keys", xen_virt_id_sort),
	TEST_CASE("Xen VIRT_ID: perf script fields", xen_virt_id_script),
	TEST_CASE("Xen VIRT_ID: a sample past the end of the file is refused", xen_virt_id_cut),
	{ .name = NULL, }
};

struct test_suite suite__xen_virt_id = {
	.desc = "Xen VIRT_ID sample field",
	.test_cases = xen_virt_id_tests,
};
