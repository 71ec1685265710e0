// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_VIRT_ID in perf: parsing in the other byte order, domain
 * names, the domain/pcpu/vcpu sort keys and perf script's fields.
 */
#include <byteswap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "debug.h"
#include "event.h"
#include "evsel.h"
#include "hist.h"
#include "sample.h"
#include "sort.h"
#include "synthetic-events.h"
#include "tests.h"
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
	struct xen_virt_id id;
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
	id = xen_virt_id__unpack(out.virt_id);
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
	TEST_ASSERT_VAL("same domain", sort_xen_domain.se_cmp(&a, &b) == 0);
	b.virt_id = VIRT_ID(2, 3, 1);
	TEST_ASSERT_VAL("other domain", sort_xen_domain.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("other pcpu", sort_xen_pcpu.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("other vcpu", sort_xen_vcpu.se_cmp(&a, &b) != 0);
	TEST_ASSERT_VAL("order", (sort_xen_domain.se_cmp(&a, &b) > 0) ==
				 (sort_xen_domain.se_cmp(&b, &a) < 0));

	snprintf_entry(&sort_xen_domain, VIRT_ID(1, 0x7ff2, 0), bf, sizeof(bf));
	TEST_ASSERT_VAL("xen", !strcmp(bf, "xen  "));
	snprintf_entry(&sort_xen_domain, VIRT_ID(1, 12, 0), bf, sizeof(bf));
	TEST_ASSERT_VAL("d12", !strcmp(bf, "d12  "));
	snprintf_entry(&sort_xen_domain, ~0ULL, bf, sizeof(bf));
	TEST_ASSERT_VAL("no field", !strcmp(bf, "-    "));
	snprintf_entry(&sort_xen_pcpu, VIRT_ID(~0U, 0, 1), bf, sizeof(bf));
	TEST_ASSERT_VAL("pcpu unknown", !strcmp(bf, "    -"));
	snprintf_entry(&sort_xen_pcpu, VIRT_ID(42, 0, 1), bf, sizeof(bf));
	TEST_ASSERT_VAL("pcpu", !strcmp(bf, "   42"));
	snprintf_entry(&sort_xen_vcpu, VIRT_ID(42, 0, 7), bf, sizeof(bf));
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

static struct test_case xen_virt_id_tests[] = {
	TEST_CASE("Xen VIRT_ID: domain names", xen_virt_id_names),
	TEST_CASE("Xen VIRT_ID: parse from the other byte order", xen_virt_id_swap),
	TEST_CASE("Xen VIRT_ID: domain, pcpu and vcpu sort keys", xen_virt_id_sort),
	TEST_CASE("Xen VIRT_ID: perf script fields", xen_virt_id_script),
	{ .name = NULL, }
};

struct test_suite suite__xen_virt_id = {
	.desc = "Xen VIRT_ID sample field",
	.test_cases = xen_virt_id_tests,
};
