// SPDX-License-Identifier: GPL-2.0
/*
 * perf xen: profile a whole Xen host, the hypervisor and every domain,
 * from its PV dom0.  record sets Xen's vPMU mode, records every CPU with
 * PERF_SAMPLE_VIRT_ID and a copy of Xen's symbols, and puts the mode back;
 * report shows the result domain first; split writes one perf.data file
 * per domain; mode shows or sets the vPMU mode.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <api/fs/fs.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/debug.h"
#include "util/xen/guest.h"
#include "util/xen/machine.h"
#include "util/xen/split.h"
#include "util/xen/store.h"
#include "util/xen/virt-id.h"

#define XEN_SYSFS		"/sys/hypervisor"
#define XEN_PMU_MODE		XEN_SYSFS "/pmu/pmu_mode"
#define XEN_XENSYMS		"/proc/xen/xensyms"
#define XEN_PCPUS		"/sys/devices/system/xen_cpu"
#define XEN_REPORT_SORT		"domain,vcpu,comm,dso,sym"
/*
 * Without -c or -F, record samples with a fixed period: this many a second
 * of a busy CPU's clock (of 1 GHz when /proc/cpuinfo has none).  In all
 * mode a pCPU's PMIs go through Xen to one of dom0's vCPUs, so the rate is
 * well below perf's default frequency.
 */
#define XEN_RECORD_HZ		100
#define XEN_RECORD_DEFAULT_HZ	1000000000ULL
/*
 * perf throttles an event that overflows more than max_sample_rate / HZ
 * times within one tick of the CPU taking its PMIs, and the kernel lowers
 * max_sample_rate while PMIs take long, as dom0's do (each goes through
 * Xen).  In all mode a throttled counter stays stopped until the next tick
 * of the dom0 vCPU that took the PMI, so whatever else ran on that pCPU
 * meanwhile is not sampled.  Below this rate (8 PMIs a tick at HZ=250,
 * the default period's 100 a second with room for Xen's bursts), say so.
 */
#define XEN_SAMPLE_RATE		"kernel/perf_event_max_sample_rate"
#define XEN_RECORD_MIN_SAMPLE_RATE	2000

/*
 * The longest wait for one reply of Xen's store: a dom0 without xenstored
 * takes requests and never answers them.
 */
#define XEN_STORE_TIMEOUT_MS	2000

static const char *xen_file_name;
static const char *xen_mode = "all";
static char xen_saved_mode[16];
static bool xen_restore_pending;
/* Filled in by parse_options_subcommand() from the subcommands. */
static const char *xen_usage[2];

static int xen_read_line(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	strim(buf);
	return 0;
}

/* A clear message for each way Xen and the kernel refuse the vPMU. */
static void xen_mode_error(const char *what, int err)
{
	switch (err) {
	case -EACCES:
		pr_err("perf xen: %s needs root (%s).\n", what, XEN_PMU_MODE);
		break;
	case -EOPNOTSUPP:
		pr_err("perf xen: Xen's vPMU is off: boot Xen with vpmu=1 (and without its NMI watchdog).\n");
		break;
	case -EBUSY:
		pr_err("perf xen: Xen refuses to change the vPMU mode while other domains' vCPUs have a vPMU in another mode.\n");
		break;
	case -EPERM:
		pr_err("perf xen: only the control domain may change the vPMU mode.\n");
		break;
	case -EINVAL:
		pr_err("perf xen: unknown vPMU mode '%s': use off, self, hv or all.\n", xen_mode);
		break;
	default:
		pr_err("perf xen: %s failed: %s\n", what, strerror(-err));
	}
}

/* 0 in a PV domain with the vPMU interface, else says why not. */
static int xen_check_host(void)
{
	char buf[32];

	if (xen_read_line(XEN_SYSFS "/type", buf, sizeof(buf)) || strcmp(buf, "xen")) {
		pr_err("perf xen: not running on Xen (%s/type).\n", XEN_SYSFS);
		return -ENODEV;
	}
	if (!xen_read_line(XEN_SYSFS "/guest_type", buf, sizeof(buf)) && strcmp(buf, "PV")) {
		pr_err("perf xen: this is a Xen %s domain; perf xen needs a PV dom0.\n", buf);
		return -ENODEV;
	}
	if (access(XEN_PMU_MODE, F_OK)) {
		pr_err("perf xen: this kernel has no Xen vPMU interface (%s).\n", XEN_PMU_MODE);
		return -ENODEV;
	}
	return 0;
}

static int xen_get_mode(char *buf, size_t size)
{
	int err = xen_read_line(XEN_PMU_MODE, buf, size);

	if (err)
		xen_mode_error("reading the vPMU mode", err);
	return err;
}

static int xen_set_mode(const char *mode)
{
	int fd, err = 0;

	fd = open(XEN_PMU_MODE, O_WRONLY);
	if (fd < 0)
		err = -errno;
	else if (write(fd, mode, strlen(mode)) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err)
		xen_mode_error("setting the vPMU mode", err);
	return err;
}

static void xen_restore_mode(void)
{
	if (!xen_restore_pending)
		return;
	xen_restore_pending = false;
	if (xen_set_mode(xen_saved_mode))
		pr_err("perf xen: the vPMU mode stays '%s', it was '%s'.\n", xen_mode,
		       xen_saved_mode);
}

/* Keep Xen's symbols with the data: FILE.xensyms, like kallsyms. */
static void xen_save_xensyms(const char *data)
{
	char *dst = NULL;

	if (asprintf(&dst, "%s.xensyms", data) < 0)
		dst = NULL;
	if (!dst || xen_copy_file(XEN_XENSYMS, dst))
		pr_warning("perf xen: Xen's symbols not saved (%s: %s); report with --xen-syms.\n",
			   dst ?: XEN_XENSYMS, strerror(errno));
	free(dst);
}

/* cmd io file, the EXTRA arguments (NULL-terminated), then argv[1..] */
static const char **xen_argv(const char *cmd, const char *io, int argc, const char **argv,
			     const char * const *extra, int *nr)
{
	const char **new;
	int i = 0, j, n = 0;

	while (extra[n])
		n++;
	new = calloc(argc + n + 3, sizeof(*new));
	if (!new)
		return NULL;
	new[i++] = cmd;
	new[i++] = io;
	new[i++] = xen_file_name;
	for (j = 0; j < n; j++)
		new[i++] = extra[j];
	for (j = 1; j < argc; j++)
		new[i++] = argv[j];
	*nr = i;
	return new;
}

/*
 * 'c' when the record options choose a period (-c), 'F' a frequency (-F),
 * else 0.  Options come before "--" and the command; an option's value
 * (-e cycles) is never one of these.
 */
static int xen_record_sampling(int argc, const char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--count", 7) && (!a[7] || a[7] == '='))
			return 'c';
		if (!strncmp(a, "--freq", 6) && (!a[6] || a[6] == '='))
			return 'F';
		if (a[0] == '-' && (a[1] == 'c' || a[1] == 'F'))
			return a[1];
	}
	return 0;
}

/* The CPU's clock in Hz, from /proc/cpuinfo's first "cpu MHz", or 0. */
static u64 xen_cpu_hz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz > 0 ? (u64)(mhz * 1e6) : 0;
}

/* Xen's pCPUs, as dom0's xen_cpu devices list them, or 0 if unknown. */
static int xen_nr_pcpus(void)
{
	struct dirent *de;
	DIR *dir = opendir(XEN_PCPUS);
	int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "xen_cpu", 7))
			n++;
	closedir(dir);
	return n;
}

/*
 * In all mode only dom0's vCPUs program the counters, each on the pCPU it
 * runs on, and Xen switches nothing: a pCPU that no dom0 vCPU visits is
 * never counted.  Say so before recording a host with more pCPUs than
 * dom0 has vCPUs online.
 */
static void xen_check_pcpus(void)
{
	long vcpus = sysconf(_SC_NPROCESSORS_ONLN);
	int pcpus = xen_nr_pcpus();

	if (vcpus <= 0 || pcpus <= vcpus)
		return;
	pr_warning("perf xen: Xen has %d pCPUs and dom0 %ld vCPUs online: only the pCPUs where\n"
		   "dom0's vCPUs run are counted, so with dom0_vcpus_pin pCPUs %ld-%d are not sampled.\n"
		   "To sample every pCPU, boot Xen with dom0_max_vcpus=%d dom0_vcpus_pin (perf-xen(1)).\n",
		   pcpus, vcpus, vcpus, pcpus - 1, pcpus);
}

/* kernel.perf_event_max_sample_rate, or 0 if it cannot be read. */
static long xen_max_sample_rate(void)
{
	int rate;

	return sysctl__read_int(XEN_SAMPLE_RATE, &rate) ? 0 : rate;
}

/* Warn of a rate that throttles; @when says whether it is before or after. */
static void xen_check_sample_rate(long rate, const char *when)
{
	if (rate <= 0 || rate >= XEN_RECORD_MIN_SAMPLE_RATE)
		return;
	pr_warning("perf xen: kernel.perf_event_max_sample_rate is %ld%s: perf throttles the PMIs\n"
		   "that Xen delivers in bursts, and a throttled counter misses what runs on its\n"
		   "pCPU until dom0's vCPU ticks again, so shares are skewed.  Set the rate to %d,\n"
		   "then kernel.perf_cpu_time_max_percent=0 (perf-xen(1)).\n",
		   rate, when, XEN_RECORD_MIN_SAMPLE_RATE);
}

/*
 * The guests' names while perf record runs: read once before, then a
 * thread watches the store so that a guest created during the recording
 * is named too, even if it is gone by the end.  The thread alone writes
 * the names until it is joined.
 */
struct xen_names_watch {
	struct xen_store events;
	struct xen_store reads;
	pthread_t thread;
	int stop[2];
	int err;
};

static void *xen_names_watch__run(void *arg)
{
	struct xen_names_watch *w = arg;
	char path[XEN_STORE_PAYLOAD_MAX + 1];
	int domid;

	for (;;) {
		w->err = xen_store__next_event(&w->events, path, sizeof(path), w->stop[0]);
		if (w->err == -EOVERFLOW)
			continue;
		if (w->err)
			break;
		domid = xen_store__name_path(path);
		if (domid < 0)
			continue;
		w->err = xen_store__read_name(&w->reads, domid, XEN_STORE_TIMEOUT_MS);
		if (w->err)
			break;
	}
	if (w->err == -ECANCELED)
		w->err = 0;
	return NULL;
}

/* Start watching; -errno if the store cannot be watched. */
static int xen_names_watch__start(struct xen_names_watch *w)
{
	sigset_t all, old;
	int err;

	w->stop[0] = -1;
	w->stop[1] = -1;
	w->reads.fd = -1;
	err = xen_store__open(&w->events);
	if (err)
		return err;
	err = xen_store__open(&w->reads) ?:
	      xen_store__watch(&w->events, "/local/domain", "perf-xen", XEN_STORE_TIMEOUT_MS);
	if (!err && pipe2(w->stop, O_CLOEXEC))
		err = -errno;
	if (!err) {
		/* perf record's signals are for its own thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = -pthread_create(&w->thread, NULL, xen_names_watch__run, w);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err) {
		if (w->stop[0] >= 0) {
			close(w->stop[0]);
			close(w->stop[1]);
		}
		xen_store__close(&w->reads);
		xen_store__close(&w->events);
	}
	return err;
}

static int xen_names_watch__stop(struct xen_names_watch *w)
{
	if (write(w->stop[1], "", 1) != 1)
		pr_debug("perf xen: stopping the watch of Xen's store: %s\n", strerror(errno));
	pthread_join(w->thread, NULL);
	close(w->stop[0]);
	close(w->stop[1]);
	xen_store__close(&w->reads);
	xen_store__close(&w->events);
	return w->err;
}

/* The guests' names, now; -errno if the store cannot be read. */
static int xen_names_read(void)
{
	struct xen_store xs;
	int err = xen_store__open(&xs);

	if (err)
		return err;
	err = xen_store__read_names(&xs, XEN_STORE_TIMEOUT_MS);
	xen_store__close(&xs);
	return err;
}

/* Keep the guests' names with the data: FILE.domains, "DOMID NAME" lines. */
static void xen_save_names(const char *data)
{
	char *dst = NULL;
	FILE *fp = NULL;
	int err = -ENOMEM;

	if (asprintf(&dst, "%s.domains", data) < 0)
		dst = NULL;
	else
		fp = fopen(dst, "w");
	if (dst && !fp)
		err = -errno;
	else if (fp)
		err = xen_virt_id__write_names(fp);
	if (fp && fclose(fp) && !err)
		err = -errno;
	if (err)
		pr_warning("perf xen: the guests' names not saved (%s: %s); reports show ids.\n",
			   dst ?: data, strerror(-err));
	free(dst);
}

/* Name the guests of a report from FILE.domains, if perf xen record saved it. */
static void xen_load_names(const char *data)
{
	char *src = NULL;
	FILE *fp;

	if (asprintf(&src, "%s.domains", data) < 0)
		return;
	fp = fopen(src, "r");
	if (fp) {
		if (xen_virt_id__read_names(fp, src) < 0)
			pr_warning("perf xen: %s: out of memory, reports show ids.\n", src);
		fclose(fp);
	} else if (errno != ENOENT) {
		pr_warning("perf xen: %s: %s; reports show ids.\n", src, strerror(errno));
	}
	free(src);
}

/* Whether /proc/cpuinfo says AuthenticAMD. */
static bool xen_host_is_amd(void)
{
	char line[256];
	bool amd = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			amd = strstr(line, "AuthenticAMD");
			break;
		}
	}
	fclose(f);
	return amd;
}

/*
 * On AMD, Xen takes a PMI that comes while an HVM or PVH guest runs after
 * the guest's exit, in its own context (at svm_stgi_label), and its vPMU
 * then gives the sample to Xen: in all mode such a guest's time shows as
 * Xen's.  Name the guests this hides.
 */
static void xen_check_guest_types(void)
{
	unsigned int pos = 0;
	u16 domid;

	if (strcmp(xen_mode, "all") || !xen_host_is_amd())
		return;
	while (!xen_virt_id__next_domain(&pos, &domid)) {
		const char *type = xen_virt_id__domain_type_of(domid);

		if (!type || !strcmp(type, "pv"))
			continue;
		pr_warning("perf xen: d%u %s is a %s guest: on AMD, Xen's vPMU gives the samples of HVM and\n"
			   "PVH guests to Xen itself (at svm_stgi_label), so its time shows as Xen's (perf-xen(1)).\n",
			   domid, xen_virt_id__domain_name_of(domid), type);
	}
}

static int xen_record(int argc, const char **argv)
{
	static const char * const plain[] = { "-a", "--sample-virt-id", NULL };
	char mode[16], period[32];
	const char * const fixed[] = { "-a", "--sample-virt-id", "-c", period, NULL };
	const char * const *extra = plain;
	const char **rec_argv;
	struct xen_names_watch watch;
	bool watching = false;
	u64 hz;
	long rate;
	int nr, ret;

	ret = xen_check_host() ?: xen_get_mode(mode, sizeof(mode));
	if (ret)
		return ret;

	if (!strcmp(xen_mode, "all"))
		xen_check_pcpus();
	rate = xen_max_sample_rate();
	xen_check_sample_rate(rate, "");

	switch (xen_record_sampling(argc, argv)) {
	case 'F':
		if (!strcmp(xen_mode, "all"))
			pr_warning("perf xen: -F in all mode: dom0's ticks reprogram counters whose PMI is\n"
				   "still on its way through Xen, and those samples are lost, so shares are\n"
				   "skewed; -c <period> loses none (perf-xen(1)).\n");
		break;
	case 0:
		/* A fixed period: XEN_RECORD_HZ samples a second of a busy pCPU's clock. */
		hz = xen_cpu_hz() ?: XEN_RECORD_DEFAULT_HZ;
		snprintf(period, sizeof(period), "%llu", (unsigned long long)(hz / XEN_RECORD_HZ));
		extra = fixed;
		pr_info("perf xen: sampling every %s events (-c), %d a second of a busy CPU's clock\n",
			period, XEN_RECORD_HZ);
		break;
	default:
		break;
	}

	if (strcmp(mode, xen_mode)) {
		snprintf(xen_saved_mode, sizeof(xen_saved_mode), "%s", mode);
		ret = xen_set_mode(xen_mode);
		if (ret)
			return ret;
		xen_restore_pending = true;
		atexit(xen_restore_mode);
		pr_info("perf xen: vPMU mode %s (was %s)\n", xen_mode, mode);
	}
	xen_save_xensyms(xen_file_name);

	ret = xen_names_read();
	if (!ret) {
		ret = xen_names_watch__start(&watch);
		watching = !ret;
	}
	if (ret)
		pr_warning("perf xen: the guests' names not read from Xen's store (%s): reports show ids.\n",
			   strerror(-ret));

	rec_argv = xen_argv("record", "-o", argc, argv, extra, &nr);
	ret = rec_argv ? cmd_record(nr, rec_argv) : -ENOMEM;
	free(rec_argv);
	xen_restore_mode();
	if (watching) {
		int err = xen_names_watch__stop(&watch) ?: xen_names_read();

		if (err)
			pr_warning("perf xen: watching Xen's store failed (%s): guests created during the\n"
				   "recording may show ids.\n", strerror(-err));
		xen_save_names(xen_file_name);
		xen_check_guest_types();
	}
	if (rate >= XEN_RECORD_MIN_SAMPLE_RATE)
		xen_check_sample_rate(xen_max_sample_rate(),
				      ", lowered by the kernel during the recording");
	return ret;
}

static int xen_report(int argc, const char **argv)
{
	static char *xensyms;
	static const char * const sort[] = { "--sort", XEN_REPORT_SORT, NULL };
	const char **rep_argv;
	int nr, ret;

	xen_load_names(xen_file_name);
	if (!xen_symbol_conf.syms && !xen_symbol_conf.kallsyms &&
	    asprintf(&xensyms, "%s.xensyms", xen_file_name) > 0) {
		if (!access(xensyms, R_OK))
			xen_symbol_conf.kallsyms = xensyms;
	}

	/* Options given after "report", --sort too, override these. */
	rep_argv = xen_argv("report", "-i", argc, argv, sort, &nr);
	ret = rep_argv ? cmd_report(nr, rep_argv) : -ENOMEM;
	free(rep_argv);
	return ret;
}

static int xen_split_cmd(int argc, const char **argv)
{
	const char *prefix = NULL;
	const struct option split_options[] = {
		OPT_STRING(0, "prefix", &prefix, "prefix",
			   "Outputs are PREFIX.xen, PREFIX.dom0, ... (default: the input's name)"),
		OPT_END()
	};
	const char * const split_usage[] = { "perf xen [-i file] split [--prefix prefix]", NULL };
	struct xen_split_stats stats;
	int ret;

	argc = parse_options(argc, argv, split_options, split_usage, 0);
	if (argc)
		usage_with_options(split_usage, split_options);
	if (!prefix)
		prefix = xen_file_name;

	xen_load_names(xen_file_name);
	ret = xen_split(xen_file_name, prefix, &stats);
	if (ret)
		return ret;
	printf("perf xen split: %llu samples in %u file%s", (unsigned long long)stats.samples,
	       stats.files, stats.files == 1 ? "" : "s");
	if (stats.unknown)
		printf(", %llu without a valid domain in %s.unknown",
		       (unsigned long long)stats.unknown, prefix);
	printf("\n");
	if (stats.dropped)
		pr_warning("perf xen split: %llu samples dropped: no event or machine for them\n",
			   (unsigned long long)stats.dropped);
	return 0;
}

static int xen_show_or_set_mode(int argc, const char **argv)
{
	char mode[16];
	int ret = xen_check_host();

	if (ret)
		return ret;
	if (argc > 2) {
		pr_err("perf xen mode: one mode at most\n");
		return -EINVAL;
	}
	if (argc == 2) {
		xen_mode = argv[1];
		return xen_set_mode(xen_mode);
	}
	ret = xen_get_mode(mode, sizeof(mode));
	if (!ret)
		printf("%s\n", mode);
	return ret;
}

int cmd_xen(int argc, const char **argv)
{
	const struct option xen_options[] = {
		OPT_STRING('i', "input", &xen_file_name, "file", "Input file name"),
		OPT_STRING('o', "output", &xen_file_name, "file", "Output file name"),
		OPT_STRING(0, "mode", &xen_mode, "mode",
			   "vPMU mode while recording: self, hv or all (default)"),
		OPT_STRING(0, "xen-syms", &xen_symbol_conf.syms, "file",
			   "Xen's symbols from a xen-syms ELF"),
		OPT_STRING(0, "xen-kallsyms", &xen_symbol_conf.kallsyms, "file",
			   "Xen's symbols from a copy of /proc/xen/xensyms"),
		OPT_CALLBACK(0, "guest-kallsyms", NULL, "domid=file",
			     "a guest's kernel symbols from a copy of its /proc/kallsyms",
			     xen_guest__parse_kallsyms),
		OPT_CALLBACK(0, "guest-vmlinux", NULL, "domid=file",
			     "a guest's kernel symbols from its vmlinux",
			     xen_guest__parse_vmlinux),
		OPT_CALLBACK(0, "guestmount", NULL, "directory",
			     "guests' kernel symbols from DIR/<domid>/proc/kallsyms",
			     xen_guest__parse_guestmount),
		OPT_INCR('v', "verbose", &verbose, "be more verbose"),
		OPT_END()
	};
	const char *const xen_subcommands[] = { "record", "report", "split", "mode", NULL };

	argc = parse_options_subcommand(argc, argv, xen_options, xen_subcommands, xen_usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(xen_usage, xen_options);

	if (!xen_file_name)
		xen_file_name = "perf.data";

	if (!strcmp(argv[0], "record"))
		return xen_record(argc, argv);
	if (!strcmp(argv[0], "report"))
		return xen_report(argc, argv);
	if (!strcmp(argv[0], "split"))
		return xen_split_cmd(argc, argv);
	if (!strcmp(argv[0], "mode"))
		return xen_show_or_set_mode(argc, argv);

	usage_with_options(xen_usage, xen_options);
	return -EINVAL;
}
