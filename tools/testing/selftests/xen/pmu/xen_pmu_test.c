// SPDX-License-Identifier: GPL-2.0
/*
 * Xen PV PMU tests for a PV dom0 running on the real hypervisor.
 *
 * XENPMU_EXPECT_VPMU tells the test how Xen was booted: "on" (vpmu=on,
 * so the vPMU starts in self mode) or "off" (no vpmu option, every PMU
 * hypercall fails with EOPNOTSUPP).  Without it the cases that depend on
 * it are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "../../kselftest_harness.h"

#define PMU_SYSFS "/sys/hypervisor/pmu/"
#define PMU_STATS "/sys/kernel/debug/xen/pmu/stats"
#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/* Read a sysfs file into buf without its newline; -errno on failure. */
static int read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* 1 for vpmu=on, 0 for off, -1 when the lab did not say. */
static int expect_vpmu(void)
{
	const char *e = getenv("XENPMU_EXPECT_VPMU");

	if (!e)
		return -1;
	return !strcmp(e, "on");
}

TEST(hypervisor_is_xen)
{
	char buf[64];

	ASSERT_EQ(0, read_attr("/sys/hypervisor/type", buf, sizeof(buf)));
	EXPECT_STREQ("xen", buf);
}

TEST(pmu_mode_matches_boot)
{
	int want = expect_vpmu();
	char buf[64];
	int ret;

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	ret = read_attr(PMU_SYSFS "pmu_mode", buf, sizeof(buf));
	if (want) {
		ASSERT_EQ(0, ret) TH_LOG("pmu_mode: %s", strerror(-ret));
		/* Xen starts an enabled vPMU in self mode. */
		EXPECT_STREQ("self", buf);
	} else {
		EXPECT_EQ(-EOPNOTSUPP, ret)
			TH_LOG("pmu_mode read: %d '%s'", ret, ret ? "" : buf);
	}
}

TEST(pmu_features_matches_boot)
{
	int want = expect_vpmu();
	char buf[64];
	int ret;

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	ret = read_attr(PMU_SYSFS "pmu_features", buf, sizeof(buf));
	if (want) {
		ASSERT_EQ(0, ret) TH_LOG("pmu_features: %s", strerror(-ret));
		/* vpmu=on without bts/ipc/arch sets no feature. */
		EXPECT_EQ(0, strtoul(buf, NULL, 0)) TH_LOG("features %s", buf);
	} else {
		EXPECT_EQ(-EOPNOTSUPP, ret);
	}
}

/* Software events keep working whatever the vPMU does. */
TEST(software_event_counts)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
	};
	unsigned long long count = 0;
	int fd, i;

	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < 100000; i++)
		getppid();
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_LT(0, count);
	close(fd);
}

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		getppid();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* Samples of a software event: IP, TID, CPU and VIRT_ID, in that order. */
struct virt_id_sample {
	struct perf_event_header h;
	__u64 ip;
	__u32 pid, tid;
	__u32 cpu, res;
	struct perf_sample_virt_id id;
};

#define MAX_SAMPLES	4096

static char sample_buf[MAX_SAMPLES * 64];

/*
 * Open @attr for this thread, let it run for @ms and copy its sample
 * records, which must all be @rec_size bytes, into sample_buf.
 * Return: the number of samples, or -errno.
 */
static int record_samples(struct perf_event_attr *attr, long ms, size_t rec_size)
{
	const long page = sysconf(_SC_PAGESIZE);
	const size_t data_size = 16 * page;
	struct perf_event_mmap_page *mp;
	__u64 head, pos;
	int fd, n = 0;
	char *data;

	fd = syscall(__NR_perf_event_open, attr, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	mp = mmap(NULL, page + data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	data = (char *)mp + page;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(ms);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (head > data_size)
		n = -EOVERFLOW;
	for (pos = 0; n >= 0 && pos < head && n < MAX_SAMPLES;) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size) {
			n = -EPROTO;
		} else if (h->type == PERF_RECORD_SAMPLE) {
			if (h->size != rec_size || rec_size > sizeof(sample_buf) / MAX_SAMPLES)
				n = -EPROTO;
			else
				memcpy(sample_buf + n++ * rec_size, h, rec_size);
		}
		pos += h->size;
	}
	munmap(mp, page + data_size);
	close(fd);
	return n;
}

/*
 * A software event's samples are taken outside any PMI from Xen, so they
 * are dom0's own: user or kernel, never guest, whatever the vPMU mode.
 */
TEST(software_samples_are_dom0)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 200000,
		.sample_type = PERF_SAMPLE_IP,
		.disabled = 1,
	};
	struct ip_sample {
		struct perf_event_header h;
		__u64 ip;
	} *r = (void *)sample_buf;
	int i, n, foreign = 0;

	n = record_samples(&attr, 100, sizeof(*r));
	ASSERT_LT(0, n) TH_LOG("samples: %d (%s)", n, n < 0 ? strerror(-n) : "none");
	for (i = 0; i < n; i++) {
		__u16 mode = r[i].h.misc & PERF_RECORD_MISC_CPUMODE_MASK;

		if (mode == PERF_RECORD_MISC_USER || mode == PERF_RECORD_MISC_KERNEL)
			continue;
		if (!foreign)
			TH_LOG("sample %d: cpumode %u", i, mode);
		foreign++;
	}
	EXPECT_EQ(0, foreign) TH_LOG("%d of %d samples not dom0's", foreign, n);
}

static int write_attr(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

/* "registered" column of the driver's statistics for @cpu, or -1. */
static int cpu_registered(int cpu)
{
	char line[512];
	int c, reg = -1;
	FILE *f;

	f = fopen(PMU_STATS, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "cpu registered pmis", 19)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d", &c, &reg) == 2 && c == cpu)
			break;
	fclose(f);
	return c == cpu ? reg : -1;
}

/* Every vCPU has its page registered exactly when Xen has the vPMU on. */
TEST(stats_show_registered_cpus)
{
	int want = expect_vpmu();
	int cpu, n = sysconf(_SC_NPROCESSORS_ONLN);

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	ASSERT_EQ(0, access(PMU_STATS, R_OK)) TH_LOG("%s: %s", PMU_STATS, strerror(errno));
	for (cpu = 0; cpu < n; cpu++)
		EXPECT_EQ(want, cpu_registered(cpu)) TH_LOG("cpu %d", cpu);
}

/* Does /proc/cpuinfo of the boot CPU list @flag; sets *family, *amd. */
static int cpu_has_flag(const char *flag, int *family, int *amd)
{
	char line[4096];
	int found = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return -1;
	*family = -1;
	*amd = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			*amd = strstr(line, "AuthenticAMD") || strstr(line, "HygonGenuine");
		} else if (!strncmp(line, "cpu family", 10)) {
			if (sscanf(strchr(line, ':') + 1, "%d", family) != 1)
				*family = -1;
		} else if (!strncmp(line, "flags", 5)) {
			char *p = strstr(line, flag);

			found = p && p[-1] == ' ' &&
				(p[strlen(flag)] == ' ' || p[strlen(flag)] == '\n');
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * AMD families with the extended bank: with the vPMU on, perf gets its six
 * counters (PERFCTR_CORE); Xen itself never advertises the bit to PV.
 */
TEST(amd_extended_bank_has_six_counters)
{
	int want = expect_vpmu(), family, amd, has;

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	has = cpu_has_flag("perfctr_core", &family, &amd);
	ASSERT_LE(0, has);
	if (!amd || (family != 0x15 && family != 0x17 && family != 0x18 && family != 0x19))
		SKIP(return, "not an AMD family with the extended bank");
	EXPECT_EQ(want, has) TH_LOG("family %#x: perfctr_core %s", family,
				    has ? "set" : "clear");
}

/* Offlining a CPU gives its page back; onlining it registers a new one. */
TEST(cpu_hotplug_reregisters)
{
	int want = expect_vpmu();
	char buf[8];

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	if (access(CPU1_ONLINE, W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	ASSERT_EQ(0, write_attr(CPU1_ONLINE, "0"));
	EXPECT_EQ(0, cpu_registered(1));
	ASSERT_EQ(0, write_attr(CPU1_ONLINE, "1"));
	ASSERT_EQ(0, read_attr(CPU1_ONLINE, buf, sizeof(buf)));
	EXPECT_STREQ("1", buf);
	EXPECT_EQ(want, cpu_registered(1));
}

static int open_virt_id_event(__u64 sample_type, bool user_only)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 200000,
		.sample_type = sample_type,
		.disabled = 1,
		.exclude_kernel = user_only,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/*
 * Outside a PMI from Xen every sample is dom0's own, with the vPMU or
 * without: domain 0, the vCPU it ran on, physical CPU unknown.
 */
TEST(virt_id_software_samples)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 200000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_VIRT_ID,
		.disabled = 1,
	};
	struct virt_id_sample *r = (void *)sample_buf;
	int i, n;

	n = record_samples(&attr, 100, sizeof(*r));
	ASSERT_LT(0, n) TH_LOG("samples: %d (%s)", n, n < 0 ? strerror(-n) : "none");
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0xffffffffU, r[i].id.pcpu);
		EXPECT_EQ(0, r[i].id.domid);
		EXPECT_EQ(r[i].cpu, r[i].id.vcpu);
		if (r[i].id.domid || r[i].id.vcpu != r[i].cpu || r[i].id.pcpu != 0xffffffffU)
			TH_LOG("sample %d: pcpu %#x domid %#x vcpu %u cpu %u", i,
			       r[i].id.pcpu, r[i].id.domid, r[i].id.vcpu, r[i].cpu);
	}
}

/*
 * A hardware event with the bit, where the vPMU gives dom0 counters: its
 * samples are dom0's, Xen's or other domains', each with a domain id.
 */
TEST(virt_id_hardware_samples)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 1000000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_VIRT_ID,
		.disabled = 1,
	};
	struct virt_id_sample *r = (void *)sample_buf;
	int i, n;

	n = record_samples(&attr, 200, sizeof(*r));
	if (n == -ENOENT || n == -EOPNOTSUPP || n == -ENODEV)
		SKIP(return, "no hardware counters (%s)", strerror(-n));
	ASSERT_LT(0, n) TH_LOG("samples: %d (%s)", n, n < 0 ? strerror(-n) : "none");
	for (i = 0; i < n; i++) {
		__u16 mode = r[i].h.misc & PERF_RECORD_MISC_CPUMODE_MASK;

		/* dom0's own samples are domain 0, Xen's are DOMID_XEN. */
		EXPECT_EQ(mode == PERF_RECORD_MISC_USER || mode == PERF_RECORD_MISC_KERNEL,
			  r[i].id.domid == 0);
		EXPECT_EQ(mode == PERF_RECORD_MISC_HYPERVISOR, r[i].id.domid == 0x7ff2);
	}
}

/*
 * A group of @n events that only general counters take: -errno, or 1 if
 * it ran (all @n counted at once), 0 if it never could.
 */
static int gp_group_runs(int n)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = 1,
		.exclude_kernel = 1,
	};
	__u64 buf[3 + 16];
	int fd[16] = {}, i, ret;

	if (n > 16)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		attr.disabled = !i;
		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, i ? fd[0] : -1, 0);
		if (fd[i] < 0) {
			ret = -errno;
			goto out;
		}
	}
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(50);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd[0], buf, sizeof(buf)) < (ssize_t)(3 + n) * 8)
		ret = -EIO;
	else
		ret = buf[0] == (__u64)n && buf[1] && buf[2] == buf[1];
out:
	while (i-- > 0)
		close(fd[i]);
	return ret;
}

/*
 * The general counters the driver offers perf are what the running Xen's
 * vPMU reaches (XENPMU_EXPECT_GP, from the lab): a group of that many
 * runs, one more never does.
 */
TEST(gp_counters_offered)
{
	const char *e = getenv("XENPMU_EXPECT_GP");
	int want, r;

	if (!e || !*e)
		SKIP(return, "XENPMU_EXPECT_GP not set");
	want = atoi(e);
	r = gp_group_runs(want);
	if (r == -ENOENT || r == -EOPNOTSUPP || r == -ENODEV)
		SKIP(return, "no hardware counters (%s)", strerror(-r));
	EXPECT_EQ(1, r) TH_LOG("a group of %d: %d", want, r);
	/* refused at open (x86 checks that a group fits) or never run */
	r = gp_group_runs(want + 1);
	EXPECT_TRUE(r == 0 || r == -EINVAL) TH_LOG("a group of %d: %d", want + 1, r);
}

/*
 * User-space RDPMC faults in a PV domain (CR4.PCE is Xen's): perf must
 * neither offer it in the event's mapped page nor in its sysfs switch.
 */
TEST(user_rdpmc_off)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.exclude_kernel = 1,
	};
	struct perf_event_mmap_page *pc;
	char buf[8];
	int fd;

	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV))
		SKIP(return, "no hardware counters (%s)", strerror(errno));
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pc) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(0, (int)pc->cap_user_rdpmc);
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
	ASSERT_EQ(0, read_attr("/sys/bus/event_source/devices/cpu/rdpmc", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
}

/* Where other domains run is privileged: perf_allow_kernel() applies. */
TEST(virt_id_needs_privilege)
{
	char old[16];
	int status, fd;
	pid_t pid;

	ASSERT_EQ(0, read_attr("/proc/sys/kernel/perf_event_paranoid", old, sizeof(old)));
	ASSERT_EQ(0, write_attr("/proc/sys/kernel/perf_event_paranoid", "2"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		/* Even for user space only: the bit itself needs the right. */
		fd = open_virt_id_event(PERF_SAMPLE_IP | PERF_SAMPLE_VIRT_ID, true);
		if (fd >= 0)
			_exit(11);
		if (errno != EACCES)
			_exit(12);
		/* The same event without the bit is allowed. */
		fd = open_virt_id_event(PERF_SAMPLE_IP, true);
		_exit(fd >= 0 ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	write_attr("/proc/sys/kernel/perf_event_paranoid", old);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("10 setuid, 11 opened, 12 wrong errno, 13 plain event refused");
}

/* A sample bit past the last one the kernel knows is refused. */
TEST(virt_id_next_bit_rejected)
{
	int fd = open_virt_id_event(PERF_SAMPLE_IP | (PERF_SAMPLE_VIRT_ID << 1), false);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
}

/*
 * pmu_mode takes whole mode names only; a refused write leaves the mode
 * as it was.  With the vPMU off every write fails with EOPNOTSUPP.
 */
TEST(pmu_mode_strings)
{
	static const char * const modes[] = { "hv", "all", "off", "self" };
	static const char * const bad[] = { "s", "se", "selfish", "hv all", "ALL" };
	int want = expect_vpmu();
	char buf[64];
	size_t i;

	if (want < 0)
		SKIP(return, "XENPMU_EXPECT_VPMU not set");
	if (!want) {
		EXPECT_EQ(-EOPNOTSUPP, write_attr(PMU_SYSFS "pmu_mode", "self"));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		EXPECT_EQ(0, write_attr(PMU_SYSFS "pmu_mode", modes[i])) TH_LOG("%s", modes[i]);
		ASSERT_EQ(0, read_attr(PMU_SYSFS "pmu_mode", buf, sizeof(buf)));
		EXPECT_STREQ(modes[i], buf);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, write_attr(PMU_SYSFS "pmu_mode", bad[i]))
			TH_LOG("'%s' accepted", bad[i]);
		ASSERT_EQ(0, read_attr(PMU_SYSFS "pmu_mode", buf, sizeof(buf)));
		EXPECT_STREQ("self", buf);
	}
}

TEST_HARNESS_MAIN
