// SPDX-License-Identifier: GPL-2.0
/*
 * Samples of Xen and of other domains: which machine they go to, that they
 * are not filtered as guest samples, and Xen's symbols from a xensyms file
 * written by the test, from a xen-syms ELF and from /proc/xen/xensyms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "addr_location.h"
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "hist.h"
#include "machine.h"
#include "map.h"
#include "sample.h"
#include "symbol.h"
#include "tests.h"
#include "thread.h"
#include "util/xen/machine.h"
#include "util/xen/virt-id.h"

#define XEN_SYMS_LIVE	"/proc/xen/xensyms"

static int read_version_part(const char *name)
{
	char path[64];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/hypervisor/version/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * Where Debian keeps the symbols of the Xen that runs (xen-syms-4.17-amd64
 * when not running on Xen, whose symbols alone can still be checked).
 */
static const char *xen_syms_elf(char *buf, size_t len)
{
	int major = read_version_part("major"), minor = read_version_part("minor");

	if (major < 0 || minor < 0) {
		major = 4;
		minor = 17;
	}
	snprintf(buf, len, "/usr/lib/debug/boot/xen-syms-%d.%d-amd64", major, minor);
	return buf;
}

static u64 pack_virt_id(u32 pcpu, u16 domid, u16 vcpu)
{
	struct perf_sample_virt_id id = { .pcpu = pcpu, .domid = domid, .vcpu = vcpu };
	u64 val;

	memcpy(&val, &id, sizeof(val));
	return val;
}

static void sample_init(struct perf_sample *sample, u8 cpumode, u16 domid, u64 ip)
{
	memset(sample, 0, sizeof(*sample));
	sample->cpumode = cpumode;
	sample->ip = ip;
	sample->pid = 0;
	sample->tid = 0;
	sample->cpu = 1;
	sample->period = 1;
	sample->virt_id = pack_virt_id(3, domid, 1);
}

static union perf_event sample_event = {
	.header = { .type = PERF_RECORD_SAMPLE, .size = sizeof(struct perf_event_header) },
};

#define KERNEL		PERF_RECORD_MISC_KERNEL
#define GUEST_KERNEL	PERF_RECORD_MISC_GUEST_KERNEL

/* Whether a sample leaves perf's own routing for a domain's machine. */
static bool routed(struct machines *machines, u8 cpumode, u16 domid, bool has_field)
{
	struct perf_sample sample;

	sample_init(&sample, cpumode, domid, 0x1000);
	if (!has_field)
		sample.virt_id = ~0ULL;
	return xen_machines__find_for_sample(machines, &sample_event, &sample);
}

/* Which machine a sample goes to, or NULL for perf's own routing. */
static int test__xen_machine_routing(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	union perf_event mmap_event = { .header = { .type = PERF_RECORD_MMAP } };
	struct perf_sample sample;
	struct machines machines;
	struct machine *m;
	int ret = TEST_FAIL;

	machines__init(&machines);

	sample_init(&sample, PERF_RECORD_MISC_HYPERVISOR, XEN_VIRT_ID_DOMID_XEN, 0x1000);
	m = xen_machines__find_for_sample(&machines, &sample_event, &sample);
	if (!m || m->pid != (XEN_MACHINE_PID_BASE | XEN_VIRT_ID_DOMID_XEN) ||
	    !xen_machine__is_domain(m)) {
		pr_debug("hypervisor sample not in Xen's machine\n");
		goto out;
	}
	if (xen_machines__find_for_sample(&machines, &sample_event, &sample) != m) {
		pr_debug("second Xen sample got another machine\n");
		goto out;
	}

	sample_init(&sample, PERF_RECORD_MISC_GUEST_USER, 7, 0x400000);
	m = xen_machines__find_for_sample(&machines, &sample_event, &sample);
	if (!m || m->pid != (XEN_MACHINE_PID_BASE | 7)) {
		pr_debug("d7 sample not in d7's machine\n");
		goto out;
	}

	/* dom0's own samples, and everything inconsistent, stay perf's. */
	TEST_ASSERT_VAL("dom0 kernel", !routed(&machines, KERNEL, 0, true));
	TEST_ASSERT_VAL("guest mode, dom0 id", !routed(&machines, GUEST_KERNEL, 0, true));
	TEST_ASSERT_VAL("Xen id, kernel mode", !routed(&machines, KERNEL, XEN_VIRT_ID_DOMID_XEN,
						       true));
	TEST_ASSERT_VAL("reserved domid", !routed(&machines, GUEST_KERNEL,
						  XEN_DOMID_FIRST_RESERVED, true));
	TEST_ASSERT_VAL("unknown domid", !routed(&machines, GUEST_KERNEL, 0xffff, true));
	TEST_ASSERT_VAL("file without the field", !routed(&machines, GUEST_KERNEL, 7, false));
	sample_init(&sample, PERF_RECORD_MISC_GUEST_KERNEL, 7, 0x1000);
	m = xen_machines__find_for_sample(&machines, &mmap_event, &sample);
	TEST_ASSERT_VAL("not a sample", !m);
	ret = TEST_OK;
out:
	machines__exit(&machines);
	return ret;
}

/*
 * Resolve one sample the way perf report does: its machine, then
 * machine__resolve().  Returns the symbol's name or NULL, and the level
 * and filter bits in *level and *filtered.
 */
static const char *resolve(struct machines *machines, u8 cpumode, u16 domid, u64 ip,
			   char *level, u16 *filtered, char *comm, size_t comm_size)
{
	struct perf_sample sample;
	struct addr_location al;
	struct machine *m;
	const char *name = NULL;
	static char bf[64];

	sample_init(&sample, cpumode, domid, ip);
	m = xen_machines__find_for_sample(machines, &sample_event, &sample);
	if (!m)
		return NULL;

	addr_location__init(&al);
	if (machine__resolve(m, &al, &sample) == 0) {
		*level = al.level;
		*filtered = al.filtered;
		snprintf(comm, comm_size, "%s", thread__comm_str(al.thread));
		if (al.sym) {
			snprintf(bf, sizeof(bf), "%s", al.sym->name);
			name = bf;
		}
	}
	addr_location__exit(&al);
	return name;
}

/* A guest sample is shown at level 'g', not filtered for want of --guest. */
static int test__xen_machine_guest(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct machines machines;
	u16 filtered = 0xffff;
	char level = 0, comm[32] = "";

	machines__init(&machines);
	resolve(&machines, PERF_RECORD_MISC_GUEST_KERNEL, 4, 0xffffffff81000000ULL,
		&level, &filtered, comm, sizeof(comm));
	machines__exit(&machines);

	pr_debug("level %c filtered %#x comm %s\n", level, filtered, comm);
	TEST_ASSERT_VAL("guest kernel level", level == 'g');
	TEST_ASSERT_VAL("not filtered", filtered == 0);
	TEST_ASSERT_VAL("thread named after its domain", !strcmp(comm, "d4"));
	return TEST_OK;
}

static const char xensyms[] =
	"ffff82d040200000 T _stext\n"
	"ffff82d040200100 T do_hypercall_test\n"
	"ffff82d040200200 t vcpu_switch_test\n"
	"ffff82d040200300 T _etext_test\n";

static int check_xen_symbol(struct machines *machines, u64 ip, const char *want)
{
	u16 filtered = 0xffff;
	char level = 0, comm[32] = "";
	const char *name;

	name = resolve(machines, PERF_RECORD_MISC_HYPERVISOR, XEN_VIRT_ID_DOMID_XEN, ip,
		       &level, &filtered, comm, sizeof(comm));
	pr_debug("%#llx: %s, level %c, filtered %#x, comm %s\n", (unsigned long long)ip,
		 name ?: "(none)", level, filtered, comm);
	TEST_ASSERT_VAL("hypervisor level", level == 'H');
	TEST_ASSERT_VAL("not filtered", filtered == 0);
	TEST_ASSERT_VAL("Xen's thread", !strcmp(comm, "xen"));
	if (!want)
		TEST_ASSERT_VAL("no symbol", !name);
	else
		TEST_ASSERT_VAL("symbol", name && !strcmp(name, want));
	return TEST_OK;
}

/* A xensyms file written here, in /proc/xen/xensyms' format. */
static int test__xen_machine_xensyms(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	char path[] = "/tmp/perf-test-xensyms-XXXXXX";
	struct machines machines;
	int fd, ret = TEST_FAIL;

	fd = mkstemp(path);
	if (fd < 0)
		return TEST_FAIL;
	if (write(fd, xensyms, sizeof(xensyms) - 1) != sizeof(xensyms) - 1) {
		close(fd);
		goto out_unlink;
	}
	close(fd);

	xen_symbol_conf.kallsyms = path;
	machines__init(&machines);
	if (check_xen_symbol(&machines, 0xffff82d040200180ULL, "do_hypercall_test") ||
	    check_xen_symbol(&machines, 0xffff82d040200200ULL, "vcpu_switch_test") ||
	    check_xen_symbol(&machines, 0xffff82d040200108ULL, "do_hypercall_test"))
		goto out;
	ret = TEST_OK;
out:
	machines__exit(&machines);
	xen_symbol_conf.kallsyms = NULL;
out_unlink:
	unlink(path);
	return ret;
}

/* Without a source, Xen's samples get no name, and never one of dom0's. */
static int test__xen_machine_nosyms(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	struct machines machines;
	int ret;

	machines__init(&machines);
	ret = check_xen_symbol(&machines, 0xffff82d040200180ULL, NULL);
	machines__exit(&machines);
	return ret;
}

/* With Xen's symbols from @syms or @kallsyms, @names[i] is at @start[i]. */
static int check_xen_symbols(const char *syms, const char *kallsyms,
			     const char * const *names, const u64 *start, size_t n)
{
	struct machines machines;
	int ret = TEST_OK;
	size_t i;

	xen_symbol_conf.syms = syms;
	xen_symbol_conf.kallsyms = kallsyms;
	machines__init(&machines);
	for (i = 0; i < n && ret == TEST_OK; i++)
		ret = check_xen_symbol(&machines, start[i] + 1, names[i]);
	machines__exit(&machines);
	xen_symbol_conf.syms = NULL;
	xen_symbol_conf.kallsyms = NULL;
	return ret;
}

/*
 * Debian's xen-syms ELF, and the running Xen's /proc/xen/xensyms when
 * there is one: both must name the same functions at the same addresses.
 */
static int test__xen_machine_elf(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const char * const names[] = { "do_domctl", "do_xenpmu_op", "context_switch" };
	struct machines machines;
	struct machine *m;
	struct map *map;
	struct symbol *sym;
	u64 start[ARRAY_SIZE(names)];
	size_t i, found = 0;
	char elf[64];

	xen_syms_elf(elf, sizeof(elf));
	if (access(elf, R_OK)) {
		pr_debug("no %s\n", elf);
		return TEST_SKIP;
	}

	xen_symbol_conf.syms = elf;
	machines__init(&machines);
	m = xen_machines__findnew_domain(&machines, XEN_VIRT_ID_DOMID_XEN);
	map = m ? machine__kernel_map(m) : NULL;
	for (i = 0; map && i < ARRAY_SIZE(names); i++) {
		sym = map__find_symbol_by_name(map, names[i]);
		if (!sym) {
			pr_debug("%s not in %s\n", names[i], elf);
			break;
		}
		start[i] = map__unmap_ip(map, sym->start);
		pr_debug("%s at %#llx in the ELF\n", names[i], (unsigned long long)start[i]);
		found++;
	}
	machines__exit(&machines);
	xen_symbol_conf.syms = NULL;
	if (found != ARRAY_SIZE(names))
		return TEST_FAIL;

	if (check_xen_symbols(elf, NULL, names, start, found))
		return TEST_FAIL;
	if (access(XEN_SYMS_LIVE, R_OK))
		return TEST_OK;

	/* The lab's dom0 runs under the Xen this ELF comes from. */
	return check_xen_symbols(NULL, XEN_SYMS_LIVE, names, start, found);
}

static struct test_case xen_machine_tests[] = {
	TEST_CASE("Xen domains: Xen and domU samples go to their machines", xen_machine_routing),
	TEST_CASE("Xen domains: domU samples are shown, not filtered as guest", xen_machine_guest),
	TEST_CASE("Xen domains: Xen symbols from a xensyms file", xen_machine_xensyms),
	TEST_CASE("Xen domains: Xen samples without symbols get no dom0 name", xen_machine_nosyms),
	TEST_CASE("Xen domains: Xen symbols from xen-syms and /proc/xen/xensyms", xen_machine_elf),
	{ .name = NULL, }
};

struct test_suite suite__xen_machine = {
	.desc = "Xen domains and symbols",
	.test_cases = xen_machine_tests,
};
