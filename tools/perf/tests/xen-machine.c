// SPDX-License-Identifier: GPL-2.0
/*
 * Samples of Xen and of other domains: which machine they go to, that they
 * are not filtered as guest samples, Xen's symbols from a xensyms file
 * written by the test, from a xen-syms ELF and from /proc/xen/xensyms, and
 * each guest's kernel symbols from its own files.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
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
#include "util/xen/guest.h"
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

/* Two guests whose kernels have distinct functions at the same addresses. */
static const char guest_one_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T guest_one_kernel_spin\n"
	"ffffffff81000200 t guest_one_idle\n"
	"ffffffff81000300 T _etext\n";

static const char guest_two_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T guest_two_kernel_spin\n"
	"ffffffff81000200 t guest_two_idle\n"
	"ffffffff81000300 T _etext\n";

#define GUEST_SPIN	0xffffffff81000180ULL
#define GUEST_IDLE	0xffffffff81000208ULL

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fwrite(data, 1, len, f) != len)
		ret = -1;
	if (fclose(f))
		ret = -1;
	return ret;
}

static int write_str(const char *dir, const char *name, const char *s)
{
	return write_file(dir, name, s, strlen(s));
}

/* mkdir DIR/SUB/proc, for a guestmount directory. */
static int make_proc_dir(const char *dir, const char *sub)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0700))
		return -1;
	snprintf(path, sizeof(path), "%s/%s/proc", dir, sub);
	return mkdir(path, 0700);
}

/* rm -r of the few files and directories these tests make. */
static void remove_tree(const char *path)
{
	char cmd[PATH_MAX + 16];

	if (strncmp(path, "/tmp/perf-test-", 15))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		pr_debug("cannot remove %s\n", path);
}

/*
 * The name a guest kernel sample of @domid at @ip resolves to: @want, or
 * no name with @want NULL; always at level 'g' and never filtered.
 */
static int check_guest_symbol(struct machines *machines, u8 cpumode, u16 domid, u64 ip,
			      const char *want)
{
	u16 filtered = 0xffff;
	char level = 0, comm[32] = "";
	const char *name;

	name = resolve(machines, cpumode, domid, ip, &level, &filtered, comm, sizeof(comm));
	pr_debug("d%u %#llx: %s, level %c, filtered %#x, comm %s\n", domid,
		 (unsigned long long)ip, name ?: "(none)", level, filtered, comm);
	TEST_ASSERT_VAL("guest level", level == (cpumode == GUEST_KERNEL ? 'g' : 'u'));
	TEST_ASSERT_VAL("not filtered", filtered == 0);
	if (!want)
		TEST_ASSERT_VAL("no symbol", !name);
	else
		TEST_ASSERT_VAL("symbol", name && !strcmp(name, want));
	return TEST_OK;
}

/* Each guest's samples named from its own kallsyms copy, and no other's. */
static int test__xen_machine_guest_kallsyms(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-test-xen-guest-XXXXXX";
	char arg[PATH_MAX + 8];
	struct machines machines;
	int ret = TEST_FAIL;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	if (write_str(dir, "kallsyms.d1", guest_one_kallsyms) ||
	    write_str(dir, "kallsyms.d2", guest_two_kallsyms))
		goto out_rm;

	snprintf(arg, sizeof(arg), "1=%s/kallsyms.d1", dir);
	if (xen_guest_conf__add(arg, false))
		goto out_rm;
	snprintf(arg, sizeof(arg), "d2=%s/kallsyms.d2", dir);
	if (xen_guest_conf__add(arg, false))
		goto out_conf;

	machines__init(&machines);
	if (check_guest_symbol(&machines, GUEST_KERNEL, 1, GUEST_SPIN, "guest_one_kernel_spin") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 2, GUEST_SPIN, "guest_two_kernel_spin") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 1, GUEST_IDLE, "guest_one_idle") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 2, GUEST_IDLE, "guest_two_idle") ||
	    /* a domain without a file, and guest user space, keep their addresses */
	    check_guest_symbol(&machines, GUEST_KERNEL, 3, GUEST_SPIN, NULL) ||
	    check_guest_symbol(&machines, PERF_RECORD_MISC_GUEST_USER, 1, GUEST_SPIN, NULL))
		goto out_machines;
	ret = TEST_OK;
out_machines:
	machines__exit(&machines);
out_conf:
	xen_guest_conf__exit();
out_rm:
	remove_tree(dir);
	return ret;
}

static const char guest_one_modules[] =
	"guest_one_mod 16384 0 - Live 0xffffffffc0001000\n";

static const char guest_one_kallsyms_mod[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T guest_one_kernel_spin\n"
	"ffffffff81000200 t guest_one_idle\n"
	"ffffffff81000300 T _etext\n"
	"ffffffffc0001000 t guest_one_mod_fn\t[guest_one_mod]\n"
	"ffffffffc0001100 t guest_one_mod_other\t[guest_one_mod]\n";

/*
 * A --guestmount directory: DIR/1/proc/{kallsyms,modules}, DIR/2/proc/kallsyms
 * and no DIR/3 but DIR/web03 for d3 while it has that name.  Also: files of
 * a domain take precedence over the directory.
 */
static int test__xen_machine_guestmount(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-test-xen-guestmount-XXXXXX";
	char arg[PATH_MAX + 8];
	struct machines machines;
	int ret = TEST_FAIL;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	if (make_proc_dir(dir, "1") || make_proc_dir(dir, "2") ||
	    write_str(dir, "1/proc/kallsyms", guest_one_kallsyms_mod) ||
	    write_str(dir, "1/proc/modules", guest_one_modules) ||
	    write_str(dir, "2/proc/kallsyms", guest_two_kallsyms) ||
	    write_str(dir, "kallsyms.d2", guest_one_kallsyms) ||
	    make_proc_dir(dir, "web03") || make_proc_dir(dir, "one") ||
	    write_str(dir, "web03/proc/kallsyms", guest_two_kallsyms) ||
	    write_str(dir, "one/proc/kallsyms", guest_two_kallsyms))
		goto out_rm;

	/* Named guests: d3 by its name's directory, d1's own id first, d4 none. */
	if (xen_guest_conf__set_guestmount(dir) ||
	    xen_virt_id__set_domain_name(3, "web03") ||
	    xen_virt_id__set_domain_name(1, "one") ||
	    xen_virt_id__set_domain_name(4, "web04"))
		goto out_conf;
	machines__init(&machines);
	if (check_guest_symbol(&machines, GUEST_KERNEL, 3, GUEST_SPIN, "guest_two_kernel_spin") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 4, GUEST_SPIN, NULL) ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 1, GUEST_SPIN, "guest_one_kernel_spin") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 1, 0xffffffffc0001010ULL,
			       "guest_one_mod_fn") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 1, 0xffffffffc0001104ULL,
			       "guest_one_mod_other") ||
	    check_guest_symbol(&machines, GUEST_KERNEL, 2, GUEST_SPIN, "guest_two_kernel_spin"))
		goto out_machines;
	machines__exit(&machines);
	xen_virt_id__forget_domain_names();
	machines__init(&machines);
	if (check_guest_symbol(&machines, GUEST_KERNEL, 3, GUEST_SPIN, NULL))
		goto out_machines;
	machines__exit(&machines);

	/* d2's own file, here d1's functions, wins over DIR/2. */
	snprintf(arg, sizeof(arg), "2=%s/kallsyms.d2", dir);
	if (xen_guest_conf__add(arg, false))
		goto out_conf;
	machines__init(&machines);
	if (check_guest_symbol(&machines, GUEST_KERNEL, 2, GUEST_SPIN, "guest_one_kernel_spin"))
		goto out_machines;
	ret = TEST_OK;
out_machines:
	machines__exit(&machines);
out_conf:
	xen_guest_conf__exit();
	xen_virt_id__forget_domain_names();
out_rm:
	remove_tree(dir);
	return ret;
}

/*
 * --guest-vmlinux: an ELF names the guest's functions (Debian's xen-syms
 * stands in for a guest's vmlinux when it is there); a file that is not
 * an ELF gives none, and the domain's kallsyms copy is used instead.
 */
static int test__xen_machine_guest_vmlinux(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	char dir[] = "/tmp/perf-test-xen-vmlinux-XXXXXX";
	char arg[PATH_MAX + 8], elf[64];
	struct machines machines;
	struct machine *m;
	struct symbol *sym;
	struct map *map;
	u64 start = 0;
	int ret = TEST_FAIL;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	if (write_str(dir, "kallsyms.d1", guest_one_kallsyms))
		goto out_rm;

	snprintf(arg, sizeof(arg), "1=%s/kallsyms.d1", dir);
	if (xen_guest_conf__add(arg, true) || xen_guest_conf__add(arg, false))
		goto out_conf;
	machines__init(&machines);
	ret = check_guest_symbol(&machines, GUEST_KERNEL, 1, GUEST_SPIN, "guest_one_kernel_spin");
	machines__exit(&machines);
	xen_guest_conf__exit();
	if (ret)
		goto out_rm;

	xen_syms_elf(elf, sizeof(elf));
	if (access(elf, R_OK)) {
		pr_debug("no %s, no ELF to check\n", elf);
		goto out_rm;
	}
	ret = TEST_FAIL;
	snprintf(arg, sizeof(arg), "4=%s", elf);
	if (xen_guest_conf__add(arg, true))
		goto out_conf;
	machines__init(&machines);
	m = xen_machines__findnew_domain(&machines, 4);
	map = m ? machine__kernel_map(m) : NULL;
	sym = map ? map__find_symbol_by_name(map, "do_domctl") : NULL;
	if (sym)
		start = map__unmap_ip(map, sym->start);
	pr_debug("do_domctl at %#llx in d4's vmlinux\n", (unsigned long long)start);
	if (sym && !check_guest_symbol(&machines, GUEST_KERNEL, 4, start + 1, "do_domctl") &&
	    !check_guest_symbol(&machines, GUEST_KERNEL, 5, start + 1, NULL))
		ret = TEST_OK;
	machines__exit(&machines);
out_conf:
	xen_guest_conf__exit();
out_rm:
	remove_tree(dir);
	return ret;
}

/* Every malformed or unusable option is refused, and adds nothing. */
static int test__xen_machine_guest_options(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	static const char * const bad_ids[] = {
		"0", "d0", "32752", "65535", "65536", "99999999999", "-1", "+1", " 1", "1 ",
		"x", "d", "dd1", "0x1", "", "1.5",
	};
	char dir[] = "/tmp/perf-test-xen-options-XXXXXX";
	char arg[PATH_MAX + 32], file[PATH_MAX];
	int ret = TEST_FAIL;
	size_t i;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	if (write_str(dir, "kallsyms", guest_one_kallsyms))
		goto out_rm;
	snprintf(file, sizeof(file), "%s/kallsyms", dir);

	for (i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		snprintf(arg, sizeof(arg), "%s=%s", bad_ids[i], file);
		if (xen_guest_conf__add(arg, false) != -EINVAL ||
		    xen_guest_conf__add(arg, true) != -EINVAL || xen_guest_conf.nr_guests) {
			pr_debug("'%s' accepted\n", arg);
			goto out_conf;
		}
	}
	TEST_ASSERT_VAL("no =", xen_guest_conf__add("1", false) == -EINVAL);
	TEST_ASSERT_VAL("no file", xen_guest_conf__add("1=", false) == -EINVAL);
	TEST_ASSERT_VAL("NULL", xen_guest_conf__add(NULL, false) == -EINVAL);
	snprintf(arg, sizeof(arg), "1=%s/missing", dir);
	TEST_ASSERT_VAL("missing file", xen_guest_conf__add(arg, false) == -EINVAL);
	snprintf(arg, sizeof(arg), "1=%s", dir);
	TEST_ASSERT_VAL("directory", xen_guest_conf__add(arg, true) == -EINVAL);
	TEST_ASSERT_VAL("nothing added", !xen_guest_conf.nr_guests);

	/* The first and the last guest id, once each. */
	snprintf(arg, sizeof(arg), "1=%s", file);
	TEST_ASSERT_VAL("d1", !xen_guest_conf__add(arg, false));
	TEST_ASSERT_VAL("d1 twice", xen_guest_conf__add(arg, false) == -EINVAL);
	TEST_ASSERT_VAL("d1 vmlinux", !xen_guest_conf__add(arg, true));
	snprintf(arg, sizeof(arg), "d32751=%s", file);
	TEST_ASSERT_VAL("d32751", !xen_guest_conf__add(arg, false));
	TEST_ASSERT_VAL("two domains", xen_guest_conf.nr_guests == 2);

	snprintf(arg, sizeof(arg), "%s/missing", dir);
	TEST_ASSERT_VAL("missing guestmount", xen_guest_conf__set_guestmount(arg) == -EINVAL);
	TEST_ASSERT_VAL("guestmount of a file", xen_guest_conf__set_guestmount(file) == -EINVAL);
	TEST_ASSERT_VAL("no guestmount", !xen_guest_conf.guestmount);
	TEST_ASSERT_VAL("guestmount", !xen_guest_conf__set_guestmount(dir));
	ret = TEST_OK;
out_conf:
	xen_guest_conf__exit();
out_rm:
	remove_tree(dir);
	return ret;
}

/*
 * Hostile guest files: garbage, overlong names, addresses at the ends of
 * the address space, unknown modules, an empty file, a vmlinux that is no
 * ELF.  Nothing crashes, and a sane line among them still names its
 * function.
 */
static int test__xen_machine_guest_hostile(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	static const char junk[] =
		"\x7f\x45LF\x02\x01\x01 garbage\n"
		"ffffffff81000100 T guest_hostile_ok\n"
		"ffffffff81000100 T guest_hostile_dup\n"
		"ffffffff81000000 T _stext\n"
		"ffffffffffffffff T at_the_top\n"
		"0000000000000000 T at_zero\n"
		"ffffffff81000200 t\n"
		"ffffffff81000300\n"
		"ffffffff81000400 T in_no_module\t[no_such_module]\n"
		"ffffffff81000500 T unterminated\t[\n"
		"ffffffff81000600 T \t\t\t\n"
		"zzzzzzzzzzzzzzzz T not_hex\n"
		"1ffffffffffffffff0 T too_wide\n"
		"ffffffff81000700 T with\0nul\n"
		"ffffffff81000800 T no_newline_at_the_end";
	static const char modules[] =
		"no_such_module\n"
		"x 0x\n"
		"guest_mod 99999999999999999999 0 - Live 0xffffffffffffffff\n"
		" 1 2 3 0x\n";
	char dir[] = "/tmp/perf-test-xen-hostile-XXXXXX";
	static const u64 ips[] = {
		0, 1, 0xffffffff81000100ULL, 0xffffffff81000500ULL, 0xffffffff81000800ULL,
		0xfffffffffffffffeULL, ~0ULL,
	};
	char arg[PATH_MAX + 8], level, comm[32], *big;
	const size_t big_len = 3 * 4096;
	struct machines machines;
	const char *name;
	int pass, ret = TEST_FAIL;
	u16 domid, filtered;
	size_t i;

	if (!mkdtemp(dir))
		return TEST_FAIL;
	big = malloc(big_len);
	if (!big)
		goto out_rm;
	memcpy(big, "ffffffff81000100 T ", 19);
	memset(big + 19, 'a', big_len - 19);
	if (write_file(dir, "junk", junk, sizeof(junk) - 1) || write_str(dir, "empty", "") ||
	    write_file(dir, "long", big, big_len) || make_proc_dir(dir, "1") ||
	    write_file(dir, "1/proc/kallsyms", junk, sizeof(junk) - 1) ||
	    write_str(dir, "1/proc/modules", modules))
		goto out_rm;

	/* d1 from the junk (as vmlinux too), d2 from an empty file, d3 from a long name */
	snprintf(arg, sizeof(arg), "1=%s/junk", dir);
	if (xen_guest_conf__add(arg, false) || xen_guest_conf__add(arg, true))
		goto out_conf;
	snprintf(arg, sizeof(arg), "2=%s/empty", dir);
	if (xen_guest_conf__add(arg, false))
		goto out_conf;
	snprintf(arg, sizeof(arg), "3=%s/long", dir);
	if (xen_guest_conf__add(arg, false))
		goto out_conf;

	/* Then the same junk as DIR/1/proc/{kallsyms,modules} of a guestmount. */
	for (pass = 0; pass < 2; pass++) {
		machines__init(&machines);
		for (domid = 1; domid <= 3; domid++) {
			for (i = 0; i < ARRAY_SIZE(ips); i++)
				resolve(&machines, GUEST_KERNEL, domid, ips[i], &level, &filtered,
					comm, sizeof(comm));
		}
		/* Of two functions at one address, perf keeps one. */
		name = resolve(&machines, GUEST_KERNEL, 1, 0xffffffff81000110ULL, &level,
			       &filtered, comm, sizeof(comm));
		pr_debug("pass %d: d1's sane line names %s\n", pass, name ?: "(none)");
		ret = name && (!strcmp(name, "guest_hostile_ok") ||
			       !strcmp(name, "guest_hostile_dup")) ? TEST_OK : TEST_FAIL;
		if (!ret)
			ret = check_guest_symbol(&machines, GUEST_KERNEL, 2,
						 0xffffffff81000110ULL, NULL);
		machines__exit(&machines);
		if (ret)
			goto out_conf;
		xen_guest_conf__exit();
		if (xen_guest_conf__set_guestmount(dir))
			goto out_conf;
	}
	ret = TEST_OK;
out_conf:
	xen_guest_conf__exit();
out_rm:
	free(big);
	remove_tree(dir);
	return ret;
}

static struct test_case xen_machine_tests[] = {
	TEST_CASE("Xen domains: Xen and domU samples go to their machines", xen_machine_routing),
	TEST_CASE("Xen domains: domU samples are shown, not filtered as guest", xen_machine_guest),
	TEST_CASE("Xen domains: Xen symbols from a xensyms file", xen_machine_xensyms),
	TEST_CASE("Xen domains: Xen samples without symbols get no dom0 name", xen_machine_nosyms),
	TEST_CASE("Xen domains: Xen symbols from xen-syms and /proc/xen/xensyms", xen_machine_elf),
	TEST_CASE("Xen domains: guest kernel symbols per domain from kallsyms copies",
		  xen_machine_guest_kallsyms),
	TEST_CASE("Xen domains: guest kernel symbols from a guestmount directory",
		  xen_machine_guestmount),
	TEST_CASE("Xen domains: guest kernel symbols from a vmlinux", xen_machine_guest_vmlinux),
	TEST_CASE("Xen domains: guest symbol options refused", xen_machine_guest_options),
	TEST_CASE("Xen domains: hostile guest symbol files", xen_machine_guest_hostile),
	{ .name = NULL, }
};

struct test_suite suite__xen_machine = {
	.desc = "Xen domains and symbols",
	.test_cases = xen_machine_tests,
};
