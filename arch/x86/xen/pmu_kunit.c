// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the Xen PV PMU driver.
 *
 * xen_pmu_abi asks the hypervisor the kernel runs on and checks that its
 * answers land where include/xen/interface/xenpmu.h says they do: Xen
 * writes each reply at fixed offsets, so a wrong layout shows up as a
 * reply in the wrong field or a field that Xen must not touch changing.
 * Its cases that act on the hypervisor (mode_set and the like) are built
 * only with CONFIG_XEN_PMU_KUNIT_HYPERVISOR_TEST.
 *
 * The other suites play the hypervisor's part (Xen 4.17's behaviour, as
 * the hypercall, a trapped MSR read and perf's PMI handler are replaced by
 * static stubs) against a vCPU state of their own, never the real one:
 * each case gets its own (kunit_get_current_test()->priv), and tables are
 * parameterised cases, one result per row.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <asm/apicdef.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <linux/processor.h>
#include <xen/xen.h>
#include <xen/interface/xen.h>
#include <xen/interface/xenpmu.h>
#include <asm/xen/hypercall.h>
#include <asm/xen/page.h>

#include "pmu.h"
#include "../events/perf_event.h"

#define XEN_PMU_TEST_FILL32	0xa5a5a5a5U
#define XEN_PMU_TEST_FILL64	0xa5a5a5a5a5a5a5a5ULL

static void xen_pmu_test_fill(struct xen_pmu_params *xp)
{
	xp->version.maj = XEN_PMU_TEST_FILL32;
	xp->version.min = XEN_PMU_TEST_FILL32;
	xp->val = XEN_PMU_TEST_FILL64;
	xp->vcpu = XEN_PMU_TEST_FILL32;
	xp->pad = XEN_PMU_TEST_FILL32;
}

static bool xen_pmu_test_mode_valid(u64 mode)
{
	return mode == XENPMU_MODE_OFF || mode == XENPMU_MODE_SELF ||
	       mode == XENPMU_MODE_HV || mode == XENPMU_MODE_ALL;
}

/*
 * XENPMU_mode_get writes the whole parameter block: version 0.1, the mode
 * in val and zero in vcpu and pad.  With the vPMU off in Xen it fails with
 * EOPNOTSUPP and writes nothing.
 */
static void xen_pmu_abi_mode_get(struct kunit *test)
{
	struct xen_pmu_params xp;
	int ret;

	xen_pmu_test_fill(&xp);
	ret = HYPERVISOR_xenpmu_op(XENPMU_mode_get, &xp);
	if (ret == -EOPNOTSUPP) {
		kunit_info(test, "vPMU disabled in the hypervisor\n");
		KUNIT_EXPECT_EQ(test, xp.val, XEN_PMU_TEST_FILL64);
		KUNIT_EXPECT_EQ(test, xp.version.maj, XEN_PMU_TEST_FILL32);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, xp.version.maj, XENPMU_VER_MAJ);
	KUNIT_EXPECT_EQ(test, xp.version.min, XENPMU_VER_MIN);
	KUNIT_EXPECT_TRUE_MSG(test, xen_pmu_test_mode_valid(xp.val),
			      "mode %llx", xp.val);
	KUNIT_EXPECT_EQ(test, xp.vcpu, 0);
	KUNIT_EXPECT_EQ(test, xp.pad, 0);
}

/*
 * XENPMU_feature_get writes only val; version, vcpu and pad keep what the
 * caller put there.
 */
static void xen_pmu_abi_feature_get(struct kunit *test)
{
	const u64 known = XENPMU_FEATURE_INTEL_BTS | XENPMU_FEATURE_IPC_ONLY |
			  XENPMU_FEATURE_ARCH_ONLY;
	struct xen_pmu_params xp;
	int ret;

	xen_pmu_test_fill(&xp);
	ret = HYPERVISOR_xenpmu_op(XENPMU_feature_get, &xp);
	if (ret == -EOPNOTSUPP) {
		kunit_info(test, "vPMU disabled in the hypervisor\n");
		KUNIT_EXPECT_EQ(test, xp.val, XEN_PMU_TEST_FILL64);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, xp.val & ~known, 0, "features %llx", xp.val);
	KUNIT_EXPECT_EQ(test, xp.version.maj, XEN_PMU_TEST_FILL32);
	KUNIT_EXPECT_EQ(test, xp.version.min, XEN_PMU_TEST_FILL32);
	KUNIT_EXPECT_EQ(test, xp.vcpu, XEN_PMU_TEST_FILL32);
	KUNIT_EXPECT_EQ(test, xp.pad, XEN_PMU_TEST_FILL32);
}

#if IS_ENABLED(CONFIG_XEN_PMU_KUNIT_HYPERVISOR_TEST)
/*
 * Operations that act on the running hypervisor's vPMU: they set the mode
 * and features Xen already has, and init, finish, lvtpc_set and flush for
 * a page or vCPU the driver does not use, but they are for a lab's dom0,
 * not for every KUNIT_ALL_TESTS run (CONFIG_XEN_PMU_KUNIT_HYPERVISOR_TEST).
 */

/* The vPMU is on in Xen when mode_get works; every case checks both ways. */
static bool xen_pmu_test_vpmu_on(void)
{
	struct xen_pmu_params xp = { .version.maj = XENPMU_VER_MAJ };

	return !HYPERVISOR_xenpmu_op(XENPMU_mode_get, &xp);
}

/* Setting the current mode again is allowed; two mode bits never are. */
static void xen_pmu_abi_mode_set(struct kunit *test)
{
	struct xen_pmu_params xp = { .version.maj = XENPMU_VER_MAJ };
	bool on = xen_pmu_test_vpmu_on();
	u64 mode;

	if (on)
		KUNIT_ASSERT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_mode_get, &xp), 0);
	mode = xp.val;
	xp.val = XENPMU_MODE_SELF | XENPMU_MODE_HV;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_mode_set, &xp),
			on ? -EINVAL : -EOPNOTSUPP);
	xp.val = 8;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_mode_set, &xp),
			on ? -EINVAL : -EOPNOTSUPP);
	xp.val = mode;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_mode_set, &xp),
			on ? 0 : -EOPNOTSUPP);
	/* A major version Xen does not know is refused. */
	xp.version.maj = XENPMU_VER_MAJ + 1;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_mode_set, &xp),
			on ? -EINVAL : -EOPNOTSUPP);
}

static void xen_pmu_abi_feature_set(struct kunit *test)
{
	struct xen_pmu_params xp = { .version.maj = XENPMU_VER_MAJ };
	bool on = xen_pmu_test_vpmu_on();

	xp.val = 8;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_feature_set, &xp),
			on ? -EINVAL : -EOPNOTSUPP);
	if (on)
		KUNIT_ASSERT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_feature_get, &xp), 0);
	else
		xp.val = 0;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_feature_set, &xp),
			on ? 0 : -EOPNOTSUPP);
}

/*
 * init and finish on the real hypervisor, for this vCPU, whose page the
 * driver registered at boot: a second page is refused with EEXIST, a vCPU
 * that does not exist with EINVAL; finish ignores a vCPU that does not
 * exist.
 */
static void xen_pmu_abi_init_finish(struct kunit *test)
{
	struct xen_pmu_params xp = { .version.maj = XENPMU_VER_MAJ };
	bool on = xen_pmu_test_vpmu_on();
	void *page;
	int cpu;

	page = (void *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	cpu = get_cpu();
	xp.val = pfn_to_mfn(virt_to_pfn(page));
	xp.vcpu = cpu;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_init, &xp),
			on ? -EEXIST : -EOPNOTSUPP);
	xp.vcpu = 4096;
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_init, &xp),
			on ? -EINVAL : -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_finish, &xp),
			on ? 0 : -EOPNOTSUPP);
	put_cpu();
	free_page((unsigned long)page);
}

/*
 * lvtpc_set and flush act on the calling vCPU's page: with the vPMU on
 * they succeed, and a flush with no PMI pending is accepted.
 */
static void xen_pmu_abi_lvtpc_flush(struct kunit *test)
{
	bool on = xen_pmu_test_vpmu_on();

	preempt_disable();
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_lvtpc_set, NULL),
			on ? 0 : -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(XENPMU_flush, NULL),
			on ? 0 : -EOPNOTSUPP);
	preempt_enable();
	/* An operation Xen does not have. */
	KUNIT_EXPECT_EQ(test, HYPERVISOR_xenpmu_op(100, NULL),
			on ? -EINVAL : -EOPNOTSUPP);
}

#endif

static int xen_pmu_abi_init(struct kunit *test)
{
	if (!xen_pv_domain() || !xen_initial_domain())
		kunit_skip(test, "needs a Xen PV dom0");
	return 0;
}

static struct kunit_case xen_pmu_abi_cases[] = {
	KUNIT_CASE(xen_pmu_abi_mode_get),
	KUNIT_CASE(xen_pmu_abi_feature_get),
#if IS_ENABLED(CONFIG_XEN_PMU_KUNIT_HYPERVISOR_TEST)
	KUNIT_CASE(xen_pmu_abi_mode_set),
	KUNIT_CASE(xen_pmu_abi_feature_set),
	KUNIT_CASE(xen_pmu_abi_init_finish),
	KUNIT_CASE(xen_pmu_abi_lvtpc_flush),
#endif
	{}
};

static struct kunit_suite xen_pmu_abi_suite = {
	.name = "xen_pmu_abi",
	.init = xen_pmu_abi_init,
	.test_cases = xen_pmu_abi_cases,
};

/* Vendor models and MSR classification */

#define INTEL_LEAF_A(ver, gp, fixed) \
	((struct xen_pmu_cpuid){ .vendor = X86_VENDOR_INTEL, .family = 6, \
		.leaf_a_eax.full = (ver) | (gp) << 8 | 48 << 16, \
		.leaf_a_edx.full = (fixed) | 48 << 5 })
#define AMD_FAMILY(v, fam) ((struct xen_pmu_cpuid){ .vendor = (v), .family = (fam) })
#define INTEL_V3	INTEL_LEAF_A(3, 4, 3)
#define INTEL_V5	INTEL_LEAF_A(5, 8, 4)
#define AMD_K7		AMD_FAMILY(X86_VENDOR_AMD, 0x10)
#define AMD_EXT		AMD_FAMILY(X86_VENDOR_AMD, 0x17)

/* The model of a CPU: its vendor's operations and its banks, or an error */
struct xen_pmu_test_model {
	const char *desc;
	struct xen_pmu_cpuid id;
	int err;
	bool intel;
	unsigned int version, nr_gp, nr_fixed, nr_gp_trap, nr_fixed_trap;
};

static const struct xen_pmu_test_model xen_pmu_test_models[] = {
	{ "intel v3", INTEL_V3, 0, true, 3, 4, 3, 4, 3 },
	/* perfmon 4 and 5 are shown as 3; banks past what traps reach stay */
	{ "intel v5", INTEL_V5, 0, true, 3, 8, 4, 4, 3 },
	/* absurd counts are clamped */
	{ "intel 255 gp", INTEL_LEAF_A(3, 255, 31), 0, true, 3, XEN_PMU_MAX_GP,
	  XEN_PMU_MAX_FIXED, 4, 3 },
	/* what Xen 4.17 rejects, the model rejects */
	{ "intel v1", INTEL_LEAF_A(1, 4, 0), -ENODEV },
	{ "intel no leaf", INTEL_LEAF_A(0, 0, 0), -ENODEV },
	{ "intel no gp", INTEL_LEAF_A(3, 0, 3), -ENODEV },
	{ "intel family 15", { .vendor = X86_VENDOR_INTEL, .family = 15,
	  .leaf_a_eax.full = 3 | 4 << 8 }, -ENODEV },
	{ "amd 10h", AMD_K7, 0, false, 0, 4, 0, 4, 0 },
	{ "amd 12h", AMD_FAMILY(X86_VENDOR_AMD, 0x12), 0, false, 0, 4, 0, 4, 0 },
	{ "amd 14h", AMD_FAMILY(X86_VENDOR_AMD, 0x14), 0, false, 0, 4, 0, 4, 0 },
	{ "amd 16h", AMD_FAMILY(X86_VENDOR_AMD, 0x16), 0, false, 0, 4, 0, 4, 0 },
	{ "amd 15h", AMD_FAMILY(X86_VENDOR_AMD, 0x15), 0, false, 0, 6, 0, 6, 0 },
	{ "amd 17h", AMD_EXT, 0, false, 0, 6, 0, 6, 0 },
	{ "amd 19h", AMD_FAMILY(X86_VENDOR_AMD, 0x19), 0, false, 0, 6, 0, 6, 0 },
	{ "hygon 18h", AMD_FAMILY(X86_VENDOR_HYGON, 0x18), 0, false, 0, 6, 0, 6, 0 },
	{ "amd 0fh", AMD_FAMILY(X86_VENDOR_AMD, 0xf), -ENODEV },
	{ "amd 18h", AMD_FAMILY(X86_VENDOR_AMD, 0x18), -ENODEV },
	{ "amd 1bh", AMD_FAMILY(X86_VENDOR_AMD, 0x1b), -ENODEV },
	{ "hygon 17h", AMD_FAMILY(X86_VENDOR_HYGON, 0x17), -ENODEV },
	{ "centaur", AMD_FAMILY(X86_VENDOR_CENTAUR, 6), -ENODEV },
	{ "zhaoxin", AMD_FAMILY(X86_VENDOR_ZHAOXIN, 7), -ENODEV },
};

static void xen_pmu_test_model_desc(const struct xen_pmu_test_model *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_model, xen_pmu_test_models, xen_pmu_test_model_desc);

static void xen_pmu_model_vendor(struct kunit *test)
{
	const struct xen_pmu_test_model *t = test->param_value;
	struct xen_pmu_model m;
	struct xen_pmu_reg r;

	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&m, &t->id), t->err);
	if (t->err) {
		/* no model: no MSR is the vPMU's */
		KUNIT_EXPECT_NULL(test, m.ops);
		KUNIT_EXPECT_FALSE(test, xen_pmu_classify(&m, MSR_K7_PERFCTR0, &r));
		KUNIT_EXPECT_FALSE(test, xen_pmu_classify(&m, MSR_IA32_PERFCTR0, &r));
		return;
	}
	KUNIT_EXPECT_PTR_EQ(test, m.ops, t->intel ? &xen_pmu_intel_ops : &xen_pmu_amd_ops);
	KUNIT_EXPECT_EQ(test, m.version, t->version);
	KUNIT_EXPECT_EQ(test, m.nr_gp, t->nr_gp);
	KUNIT_EXPECT_EQ(test, m.nr_fixed, t->nr_fixed);
	KUNIT_EXPECT_EQ(test, m.nr_gp_trap, t->nr_gp_trap);
	KUNIT_EXPECT_EQ(test, m.nr_fixed_trap, t->nr_fixed_trap);
	if (t->intel)
		KUNIT_EXPECT_EQ(test, m.fixed_width, 48);
}

/* One MSR on one model: the vPMU register it is (XEN_PMU_REG_NONE: none) */
struct xen_pmu_test_msr {
	const char *model;
	struct xen_pmu_cpuid id;
	u32 msr;
	enum xen_pmu_reg_kind kind;
	unsigned int idx;
};

static const struct xen_pmu_test_msr xen_pmu_test_msrs[] = {
	{ "intel v3", INTEL_V3, MSR_IA32_PERFCTR0, XEN_PMU_REG_COUNTER, 0 },
	{ "intel v3", INTEL_V3, MSR_IA32_PERFCTR0 + 3, XEN_PMU_REG_COUNTER, 3 },
	{ "intel v3", INTEL_V3, MSR_IA32_PERFCTR0 + 4, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_IA32_PMC0, XEN_PMU_REG_COUNTER, 0 },
	{ "intel v3", INTEL_V3, MSR_IA32_PMC0 + 3, XEN_PMU_REG_COUNTER, 3 },
	{ "intel v3", INTEL_V3, MSR_IA32_PMC0 + 4, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_P6_EVNTSEL0, XEN_PMU_REG_EVNTSEL, 0 },
	{ "intel v3", INTEL_V3, MSR_P6_EVNTSEL0 + 3, XEN_PMU_REG_EVNTSEL, 3 },
	{ "intel v3", INTEL_V3, MSR_P6_EVNTSEL0 + 4, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_FIXED_CTR0, XEN_PMU_REG_FIXED, 0 },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_FIXED_CTR0 + 2, XEN_PMU_REG_FIXED, 2 },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_FIXED_CTR0 + 3, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_FIXED_CTR_CTRL, XEN_PMU_REG_FIXED_CTRL },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_GLOBAL_STATUS, XEN_PMU_REG_GLOBAL_STATUS },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_GLOBAL_CTRL, XEN_PMU_REG_GLOBAL_CTRL },
	{ "intel v3", INTEL_V3, MSR_CORE_PERF_GLOBAL_OVF_CTRL, XEN_PMU_REG_GLOBAL_OVF_CTRL },
	{ "intel v3", INTEL_V3, MSR_IA32_DS_AREA, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_K7_EVNTSEL0, XEN_PMU_REG_NONE },
	{ "intel v3", INTEL_V3, MSR_F15H_PERF_CTR, XEN_PMU_REG_NONE },
	{ "intel v5", INTEL_V5, MSR_IA32_PERFCTR0 + 7, XEN_PMU_REG_COUNTER, 7 },
	{ "intel v5", INTEL_V5, MSR_P6_EVNTSEL0 + 7, XEN_PMU_REG_EVNTSEL, 7 },
	{ "intel v5", INTEL_V5, MSR_CORE_PERF_FIXED_CTR0 + 3, XEN_PMU_REG_FIXED, 3 },
	{ "intel v5", INTEL_V5, MSR_IA32_PERFCTR0 + 8, XEN_PMU_REG_NONE },
	{ "amd k7", AMD_K7, MSR_K7_EVNTSEL0, XEN_PMU_REG_EVNTSEL, 0 },
	{ "amd k7", AMD_K7, MSR_K7_EVNTSEL0 + 3, XEN_PMU_REG_EVNTSEL, 3 },
	{ "amd k7", AMD_K7, MSR_K7_PERFCTR0, XEN_PMU_REG_COUNTER, 0 },
	{ "amd k7", AMD_K7, MSR_K7_PERFCTR0 + 3, XEN_PMU_REG_COUNTER, 3 },
	{ "amd k7", AMD_K7, MSR_K7_PERFCTR0 + 4, XEN_PMU_REG_NONE },
	{ "amd k7", AMD_K7, MSR_F15H_PERF_CTL, XEN_PMU_REG_NONE },
	{ "amd k7", AMD_K7, MSR_F15H_PERF_CTR, XEN_PMU_REG_NONE },
	{ "amd k7", AMD_K7, MSR_IA32_PERFCTR0, XEN_PMU_REG_NONE },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTL, XEN_PMU_REG_EVNTSEL, 0 },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTR, XEN_PMU_REG_COUNTER, 0 },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTL5, XEN_PMU_REG_EVNTSEL, 5 },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTR5, XEN_PMU_REG_COUNTER, 5 },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTR5 + 1, XEN_PMU_REG_NONE },
	{ "amd ext", AMD_EXT, MSR_F15H_PERF_CTR5 + 2, XEN_PMU_REG_NONE },
	/* the K7 bank mirrors counters 0-3 */
	{ "amd ext", AMD_EXT, MSR_K7_EVNTSEL0 + 3, XEN_PMU_REG_EVNTSEL, 3 },
	{ "amd ext", AMD_EXT, MSR_K7_PERFCTR0, XEN_PMU_REG_COUNTER, 0 },
	{ "amd ext", AMD_EXT, MSR_K7_PERFCTR0 + 3, XEN_PMU_REG_COUNTER, 3 },
	/* 0xc0010008/9 follow the K7 bank but are not PMU MSRs */
	{ "amd ext", AMD_EXT, MSR_K7_PERFCTR0 + 4, XEN_PMU_REG_NONE },
	{ "amd ext", AMD_EXT, MSR_K7_PERFCTR0 + 5, XEN_PMU_REG_NONE },
};

static void xen_pmu_test_msr_desc(const struct xen_pmu_test_msr *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s msr %#x", t->model, t->msr);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_msr, xen_pmu_test_msrs, xen_pmu_test_msr_desc);

static void xen_pmu_model_classify(struct kunit *test)
{
	const struct xen_pmu_test_msr *t = test->param_value;
	struct xen_pmu_model m;
	struct xen_pmu_reg r;

	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&m, &t->id), 0);
	KUNIT_ASSERT_EQ(test, xen_pmu_classify(&m, t->msr, &r), t->kind != XEN_PMU_REG_NONE);
	if (t->kind == XEN_PMU_REG_NONE)
		return;
	KUNIT_EXPECT_EQ(test, r.kind, t->kind);
	KUNIT_EXPECT_EQ(test, r.idx, t->idx);
}

/* XENVER_version and XENVER_extraversion to one comparable release */
struct xen_pmu_test_release {
	u32 version;
	const char *extra;
	u32 want;
};

static const struct xen_pmu_test_release xen_pmu_test_releases[] = {
	{ 4 << 16 | 17, ".7", XEN_PMU_XEN(4, 17, 7) },
	/* between two stable releases: the last one */
	{ 4 << 16 | 20, ".5-pre", XEN_PMU_XEN(4, 20, 4) },
	{ 4 << 16 | 22, ".0-rc", XEN_PMU_XEN(4, 22, 0) },
	{ 4 << 16 | 22, "-rc", XEN_PMU_XEN(4, 22, 0) },
	{ 4 << 16 | 21, "", XEN_PMU_XEN(4, 21, 0) },
	{ 4 << 16 | 19, ".12", XEN_PMU_XEN(4, 19, 12) },
	/* what the hypervisor says is not trusted to fit */
	{ 4 << 16 | 19, ".99999", XEN_PMU_XEN(4, 19, 255) },
	{ 0xffffffff, "garbage", XEN_PMU_XEN(255, 255, 0) },
	{ 4 << 16 | 19, ".x", XEN_PMU_XEN(4, 19, 0) },
};

static void xen_pmu_test_release_desc(const struct xen_pmu_test_release *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#x%s", t->version, t->extra);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_release, xen_pmu_test_releases, xen_pmu_test_release_desc);

static void xen_pmu_model_release(struct kunit *test)
{
	const struct xen_pmu_test_release *t = test->param_value;

	KUNIT_EXPECT_EQ(test, xen_pmu_xen_release(t->version, t->extra), t->want);
}

/*
 * What each Xen release gives: one row each side of every boundary, so a
 * model that ignores the release fails on one side.
 */
struct xen_pmu_test_since {
	const char *desc;
	struct xen_pmu_cpuid id;
	int err;
	unsigned int nr_gp_trap;
};

#define INTEL8_ON(maj, min, patch) \
	((struct xen_pmu_cpuid){ .vendor = X86_VENDOR_INTEL, .family = 6, \
		.leaf_a_eax.full = 5 | 8 << 8 | 48 << 16, .leaf_a_edx.full = 3 | 48 << 5, \
		.xen = XEN_PMU_XEN(maj, min, patch) })
#define AMD1A_ON(maj, min, patch) \
	((struct xen_pmu_cpuid){ .vendor = X86_VENDOR_AMD, .family = 0x1a, \
		.xen = XEN_PMU_XEN(maj, min, patch) })

static const struct xen_pmu_test_since xen_pmu_test_sinces[] = {
	{ "intel 8 gp, unknown Xen", INTEL_LEAF_A(5, 8, 3), 0, 4 },
	{ "intel 8 gp, 4.17.7", INTEL8_ON(4, 17, 7), 0, 4 },
	{ "intel 8 gp, 4.19.4", INTEL8_ON(4, 19, 4), 0, 4 },
	{ "intel 8 gp, 4.19.5", INTEL8_ON(4, 19, 5), 0, 8 },
	{ "intel 8 gp, 4.20.2", INTEL8_ON(4, 20, 2), 0, 4 },
	{ "intel 8 gp, 4.20.3", INTEL8_ON(4, 20, 3), 0, 8 },
	{ "intel 8 gp, 4.21.0", INTEL8_ON(4, 21, 0), 0, 4 },
	{ "intel 8 gp, 4.21.1", INTEL8_ON(4, 21, 1), 0, 8 },
	{ "intel 8 gp, 4.22.0", INTEL8_ON(4, 22, 0), 0, 8 },
	{ "intel 8 gp, 4.23.0", INTEL8_ON(4, 23, 0), 0, 8 },
	{ "amd 1ah, unknown Xen", AMD_FAMILY(X86_VENDOR_AMD, 0x1a), -EOPNOTSUPP, 0 },
	{ "amd 1ah, 4.17.7", AMD1A_ON(4, 17, 7), -EOPNOTSUPP, 0 },
	{ "amd 1ah, 4.18.4", AMD1A_ON(4, 18, 4), -EOPNOTSUPP, 0 },
	{ "amd 1ah, 4.18.5", AMD1A_ON(4, 18, 5), 0, 6 },
	{ "amd 1ah, 4.19.1", AMD1A_ON(4, 19, 1), -EOPNOTSUPP, 0 },
	{ "amd 1ah, 4.19.2", AMD1A_ON(4, 19, 2), 0, 6 },
	{ "amd 1ah, 4.20.0", AMD1A_ON(4, 20, 0), 0, 6 },
	{ "amd 1ah, 4.22.0", AMD1A_ON(4, 22, 0), 0, 6 },
};

static void xen_pmu_test_since_desc(const struct xen_pmu_test_since *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_since, xen_pmu_test_sinces, xen_pmu_test_since_desc);

static void xen_pmu_model_since(struct kunit *test)
{
	const struct xen_pmu_test_since *t = test->param_value;
	struct xen_pmu_model m;
	struct xen_pmu_reg r;

	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&m, &t->id), t->err);
	if (t->err)
		return;
	KUNIT_EXPECT_EQ(test, m.nr_gp_trap, t->nr_gp_trap);
	if (t->id.vendor == X86_VENDOR_AMD) {
		KUNIT_EXPECT_EQ(test, m.sel_base, MSR_F15H_PERF_CTL);
		return;
	}
	/* counters 4-7 stay in the bank; their selects trap only where routed */
	KUNIT_EXPECT_EQ(test, m.nr_gp, 8);
	KUNIT_ASSERT_TRUE(test, xen_pmu_classify(&m, MSR_P6_EVNTSEL0 + 7, &r));
	KUNIT_EXPECT_EQ(test, r.kind, XEN_PMU_REG_EVNTSEL);
	KUNIT_EXPECT_EQ(test, r.idx >= m.nr_gp_trap, t->nr_gp_trap == 4);
}

static struct kunit_case xen_pmu_model_cases[] = {
	KUNIT_CASE_PARAM(xen_pmu_model_release, xen_pmu_test_release_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_model_since, xen_pmu_test_since_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_model_vendor, xen_pmu_test_model_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_model_classify, xen_pmu_test_msr_gen_params),
	{}
};

static struct kunit_suite xen_pmu_model_suite = {
	.name = "xen_pmu_model",
	.test_cases = xen_pmu_model_cases,
};

/* What perf's x86 core takes from the guest callbacks in a PMI */
struct xen_pmu_test_seen {
	unsigned int state;
	unsigned long ip;
	bool user;
	struct perf_sample_virt_id id;
};

/*
 * A model of Xen 4.17 behind the hypercall, a model of perf's PMI handler
 * behind xen_pmu_handle_irq(), and a vCPU state of the test's own.
 */
struct xen_pmu_hv {
	struct xen_pmu_model model;
	struct xen_pmu_cpu cpu;
	struct xen_pmu_data *page;
	unsigned int calls[8];		/* hypercalls by op */
	int flush_ret[4];		/* what successive flushes return */
	int init_ret[2];		/* what successive inits return */
	int finish_ret;			/* what finish returns */
	enum { XEN_PMU_HV_BANKS, XEN_PMU_HV_NO_BANKS, XEN_PMU_HV_BAD_BANKS } init_banks;
	unsigned int traps;		/* trapped MSR reads */
	u32 last_trap_msr;
	unsigned int handler_runs;
	unsigned int traps_in_pmi;
	u64 in_pmi_at_flush;
	/* Xen's LVTPC for the vCPU (hw_lapic_lvtpc) and the physical one */
	u32 hw_lvtpc;
	u32 apic_lvtpc;
	bool running;			/* Xen's VPMU_RUNNING */
	bool loaded;			/* the context is in the counters */
	bool all_mode;			/* no context switching */
	u64 stamp;			/* the vCPU's runstate entry time */
	unsigned int lost;		/* trapped writes the flush undid */
	struct xen_pmu_test_seen seen;	/* by xen_pmu_capture_handler() */
};

/* Xen's vector for the PMU interrupt, in every LVTPC it writes */
#define XEN_PMU_HV_VECTOR	0xf9

static struct xen_pmu_hv *xen_pmu_hv(void)
{
	return kunit_get_current_test()->priv;
}

static void xen_pmu_hv_init_page(struct xen_pmu_hv *hv);

/*
 * Xen takes the page's mask bit into its LVTPC and, unless a PMI is
 * pending, into the physical APIC (lvtpc_set, and flush before it
 * reloads the context).
 */
static void xen_pmu_hv_apply_lvtpc(struct xen_pmu_hv *hv)
{
	hv->hw_lvtpc = XEN_PMU_HV_VECTOR | (hv->page->pmu.l.lapic_lvtpc & APIC_LVT_MASKED);
	if (!(hv->page->pmu.pmu_flags & PMU_CACHED))
		hv->apic_lvtpc = hv->hw_lvtpc;
}

/* Xen reloads a context only if it is running; with it, its LVTPC. */
static void xen_pmu_hv_load(struct xen_pmu_hv *hv)
{
	if (!hv->running || (hv->page->pmu.pmu_flags & PMU_CACHED))
		return;
	hv->apic_lvtpc = hv->hw_lvtpc;
	hv->loaded = true;
}

/*
 * The vCPU is descheduled and scheduled again: in self and hv mode Xen
 * saves the context, masking the physical LVTPC, then loads it.
 */
static void xen_pmu_hv_switch(struct xen_pmu_hv *hv)
{
	hv->stamp++;
	if (hv->all_mode)
		return;
	hv->apic_lvtpc = XEN_PMU_HV_VECTOR | APIC_LVT_MASKED;
	hv->loaded = false;
	xen_pmu_hv_load(hv);
}

static u64 xen_pmu_hv_sched_stamp(void)
{
	return xen_pmu_hv()->stamp;
}

static bool xen_pmu_hv_pmi_live(struct xen_pmu_hv *hv)
{
	return hv->loaded && !(hv->apic_lvtpc & APIC_LVT_MASKED);
}

/*
 * A trapped event-select or GLOBAL_CTRL write: AMD sets RUNNING on an
 * enabling write while stopped and clears it on a disabling one while
 * running; Intel recomputes it from GLOBAL_CTRL.  Either loads the context
 * without touching the LVTPC.  Between a PMI and its flush the write is
 * lost.
 */
static void xen_pmu_hv_trapped_write(struct xen_pmu_hv *hv, u32 msr, u64 val)
{
	struct xen_pmu_reg r;

	if (!xen_pmu_classify(&hv->model, msr, &r))
		return;
	/*
	 * With a PMI pending Xen acts on its own copy and stops the counters
	 * again; the flush reloads the page over it.
	 */
	if (hv->page->pmu.pmu_flags & PMU_CACHED) {
		hv->lost++;
		return;
	}
	hv->loaded = true;
	if (hv->model.ops == &xen_pmu_amd_ops && r.kind == XEN_PMU_REG_EVNTSEL)
		hv->running = val & ARCH_PERFMON_EVENTSEL_ENABLE;
	if (r.kind == XEN_PMU_REG_GLOBAL_CTRL)
		hv->running = val;
}

/* What pmu_msr_write() does around a write outside the page. */
static void xen_pmu_hv_wrmsr(struct xen_pmu_hv *hv, u32 msr, u64 val)
{
	bool rearm;

	if (xen_pmu_cpu_msr_write(&hv->cpu, msr, val))
		return;
	rearm = xen_pmu_cpu_may_start(&hv->cpu, msr, val);
	xen_pmu_hv_trapped_write(hv, msr, val);
	if (rearm)
		xen_pmu_cpu_rearm(&hv->cpu);
}

static int xen_pmu_hv_hypercall(unsigned int op, void *arg)
{
	struct xen_pmu_hv *hv = xen_pmu_hv();
	int ret = 0;

	if (op < ARRAY_SIZE(hv->calls))
		hv->calls[op]++;
	if (op == XENPMU_init) {
		unsigned int n = hv->calls[op] - 1;

		ret = n < ARRAY_SIZE(hv->init_ret) ? hv->init_ret[n] : 0;
		if (!ret && hv->init_banks == XEN_PMU_HV_BANKS)
			xen_pmu_hv_init_page(hv);
		if (!ret && hv->init_banks == XEN_PMU_HV_BAD_BANKS)
			hv->page->pmu.c.amd.ctrls = PAGE_SIZE;
		/* The vCPU's LVTPC starts masked; the APIC is not written. */
		if (!ret)
			hv->hw_lvtpc = XEN_PMU_HV_VECTOR | APIC_LVT_MASKED;
	}
	if (op == XENPMU_lvtpc_set)
		xen_pmu_hv_apply_lvtpc(hv);
	if (op == XENPMU_finish)
		ret = hv->finish_ret;
	if (op == XENPMU_flush) {
		unsigned int n = hv->calls[op] - 1;

		if (n < ARRAY_SIZE(hv->flush_ret))
			ret = hv->flush_ret[n];
		/* Xen takes the context back; a refused one stays cached. */
		if (!ret) {
			hv->page->pmu.pmu_flags &= ~(u64)PMU_CACHED;
			xen_pmu_hv_apply_lvtpc(hv);
			xen_pmu_hv_load(hv);
		} else {
			hv->apic_lvtpc = hv->hw_lvtpc | APIC_LVT_MASKED;
		}
	}
	return ret;
}

static bool xen_pmu_hv_rdmsr_trap(u32 msr, u64 *val)
{
	struct xen_pmu_hv *hv = xen_pmu_hv();

	hv->traps++;
	if (hv->cpu.in_pmi)
		hv->traps_in_pmi++;
	/* Any trapped access loads the context. */
	hv->loaded = true;
	hv->last_trap_msr = msr;
	*val = 0x1234;
	return true;
}

/* What XENPMU_init does to a zeroed page: the vendor bank offsets. */
static void xen_pmu_hv_init_page(struct xen_pmu_hv *hv)
{
	const struct xen_pmu_model *m = &hv->model;

	if (m->ops == &xen_pmu_intel_ops) {
		hv->page->pmu.c.intel.fixed_counters = sizeof(struct xen_pmu_intel_ctxt);
		hv->page->pmu.c.intel.arch_counters =
			sizeof(struct xen_pmu_intel_ctxt) + 8 * m->nr_fixed;
	} else {
		hv->page->pmu.c.amd.counters = sizeof(struct xen_pmu_amd_ctxt);
		hv->page->pmu.c.amd.ctrls = sizeof(struct xen_pmu_amd_ctxt) + 8 * m->nr_gp;
	}
}

static struct xen_pmu_hv *xen_pmu_hv_start(struct kunit *test,
					   const struct xen_pmu_cpuid *id)
{
	struct xen_pmu_hv *hv = kunit_kzalloc(test, sizeof(*hv), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, hv);
	hv->page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hv->page);
	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&hv->model, id), 0);
	test->priv = hv;
	/* As after XENPMU_init: banks declared, the LVTPC masked everywhere. */
	xen_pmu_hv_init_page(hv);
	hv->hw_lvtpc = XEN_PMU_HV_VECTOR | APIC_LVT_MASKED;
	hv->apic_lvtpc = hv->hw_lvtpc;
	KUNIT_ASSERT_EQ(test, xen_pmu_attach(&hv->cpu, &hv->model, hv->page), 0);
	kunit_activate_static_stub(test, xen_pmu_hypercall, xen_pmu_hv_hypercall);
	kunit_activate_static_stub(test, xen_pmu_rdmsr_trap, xen_pmu_hv_rdmsr_trap);
	kunit_activate_static_stub(test, xen_pmu_sched_stamp, xen_pmu_hv_sched_stamp);
	return hv;
}

/*
 * What Xen does at a PMI: the context is the guest's until flush, and the
 * LVTPC masked until then.
 */
static void xen_pmu_hv_pmi(struct xen_pmu_hv *hv)
{
	hv->page->domain_id = DOMID_SELF;
	hv->page->pmu.r.regs.ip = 0xffffffff81000000ULL;
	hv->page->pmu.pmu_flags = PMU_SAMPLE_PV | PMU_CACHED;
	hv->hw_lvtpc |= APIC_LVT_MASKED;
	hv->apic_lvtpc = hv->hw_lvtpc;
	hv->loaded = false;
}

/* u64 at byte offset @off of the page */
static u64 *xen_pmu_hv_at(struct xen_pmu_hv *hv, unsigned int off)
{
	return (u64 *)((char *)hv->page + off);
}

/*
 * Intel perf's PMI handler, as far as the registers go: read the status,
 * disable, read and re-arm the overflowed counters, acknowledge each
 * overflow on its own, write the LVTPC, enable.
 */
static int xen_pmu_fake_intel_handler(struct pt_regs *regs)
{
	struct xen_pmu_hv *hv = xen_pmu_hv();
	struct xen_pmu_cpu *c = &hv->cpu;
	u64 status, v;

	hv->handler_runs++;
	if (!xen_pmu_cpu_msr_read(c, MSR_CORE_PERF_GLOBAL_STATUS, &status))
		return 0;
	xen_pmu_cpu_msr_write(c, MSR_CORE_PERF_GLOBAL_CTRL, 0);
	if (status & BIT_ULL(0)) {
		v = xen_pmu_cpu_read_pmc(c, 0);
		xen_pmu_cpu_msr_write(c, MSR_IA32_PMC0, v - 1000);
		xen_pmu_cpu_msr_write(c, MSR_CORE_PERF_GLOBAL_OVF_CTRL, BIT_ULL(0));
	}
	if (status & BIT_ULL(32)) {
		v = xen_pmu_cpu_read_pmc(c, INTEL_PMC_FIXED_RDPMC_BASE | 0);
		xen_pmu_cpu_msr_write(c, MSR_CORE_PERF_FIXED_CTR0, v - 1000);
		xen_pmu_cpu_msr_write(c, MSR_CORE_PERF_GLOBAL_OVF_CTRL, BIT_ULL(32));
	}
	xen_pmu_cpu_msr_read(c, MSR_CORE_PERF_GLOBAL_STATUS, &status);
	xen_pmu_cpu_lvtpc(c, APIC_DM_NMI);
	xen_pmu_cpu_msr_write(c, MSR_CORE_PERF_GLOBAL_CTRL, 0x700000003ULL);
	return 1;
}

/* AMD perf's handler: for each counter, read it, re-arm it, keep it enabled. */
static int xen_pmu_fake_amd_handler(struct pt_regs *regs)
{
	struct xen_pmu_hv *hv = xen_pmu_hv();
	struct xen_pmu_cpu *c = &hv->cpu;
	unsigned int i;
	u64 sel, v;

	hv->handler_runs++;
	for (i = 0; i < hv->model.nr_gp; i++) {
		u32 msr = hv->model.sel_base + i * hv->model.stride;

		if (!xen_pmu_cpu_msr_read(c, msr, &sel) || !(sel & ARCH_PERFMON_EVENTSEL_ENABLE))
			continue;
		v = xen_pmu_cpu_read_pmc(c, i);
		xen_pmu_cpu_msr_write(c, hv->model.ctr_base + i * hv->model.stride,
				      v - 1000);
	}
	xen_pmu_cpu_lvtpc(c, APIC_DM_NMI);
	return 1;
}

/* perf's PMI handler for the model's vendor */
static void xen_pmu_hv_use_fake_handler(struct kunit *test, struct xen_pmu_hv *hv)
{
	if (hv->model.ops == &xen_pmu_intel_ops)
		kunit_activate_static_stub(test, xen_pmu_handle_irq,
					   xen_pmu_fake_intel_handler);
	else
		kunit_activate_static_stub(test, xen_pmu_handle_irq,
					   xen_pmu_fake_amd_handler);
}

static const struct xen_pmu_cpuid xen_pmu_test_intel = INTEL_LEAF_A(3, 4, 3);
static const struct xen_pmu_cpuid xen_pmu_test_amd = AMD_FAMILY(X86_VENDOR_AMD, 0x17);

/* A PMI on Intel: one flush, no trap, everything from the page. */
static void xen_pmu_window_intel(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_intel);
	struct xen_pmu_intel_ctxt *ctxt = &hv->page->pmu.c.intel;
	struct xen_pmu_cntr_pair *pairs;
	u64 *fixed;

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_intel_handler);
	fixed = xen_pmu_hv_at(hv, hv->cpu.bank_a);
	pairs = (struct xen_pmu_cntr_pair *)xen_pmu_hv_at(hv, hv->cpu.bank_b);
	xen_pmu_hv_pmi(hv);
	ctxt->global_status = BIT_ULL(0) | BIT_ULL(32);
	pairs[0].counter = 5000;
	fixed[0] = 7000;

	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_pmi(&hv->cpu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, hv->handler_runs, 1);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 1);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 0);
	KUNIT_EXPECT_EQ(test, hv->traps, 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.msr_trapped, 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.rdpmc_trapped, 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.pmis, 1);
	/* Both acknowledgements reach Xen, not just the last one. */
	KUNIT_EXPECT_EQ(test, ctxt->global_ovf_ctrl, BIT_ULL(0) | BIT_ULL(32));
	KUNIT_EXPECT_EQ(test, ctxt->global_status, 0);
	KUNIT_EXPECT_EQ(test, pairs[0].counter, 4000);
	KUNIT_EXPECT_EQ(test, fixed[0], 6000);
	KUNIT_EXPECT_EQ(test, ctxt->global_ctrl, 0x700000003ULL);
	KUNIT_EXPECT_EQ(test, hv->page->pmu.l.lapic_lvtpc, APIC_DM_NMI);
	KUNIT_EXPECT_FALSE(test, hv->cpu.in_pmi);
}

static void xen_pmu_window_amd(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	u64 *ctr = xen_pmu_hv_at(hv, hv->cpu.bank_a);
	u64 *sel = xen_pmu_hv_at(hv, hv->cpu.bank_b);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_amd_handler);
	xen_pmu_hv_pmi(hv);
	sel[0] = ARCH_PERFMON_EVENTSEL_ENABLE | 0x76;
	sel[5] = ARCH_PERFMON_EVENTSEL_ENABLE | 0xc0;
	ctr[0] = 10000;
	ctr[5] = 20000;

	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_pmi(&hv->cpu), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 1);
	KUNIT_EXPECT_EQ(test, hv->traps, 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.msr_trapped, 0);
	KUNIT_EXPECT_EQ(test, ctr[0], 9000);
	KUNIT_EXPECT_EQ(test, ctr[5], 19000);
	KUNIT_EXPECT_EQ(test, ctr[1], 0);
}

/* Without PMU_CACHED, Xen did not hand over a context: no flush. */
static void xen_pmu_window_not_cached(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_intel);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_intel_handler);
	hv->page->pmu.pmu_flags = PMU_SAMPLE_PV;
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_pmi(&hv->cpu), IRQ_NONE);
	KUNIT_EXPECT_EQ(test, hv->handler_runs, 0);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.spurious, 1);
}

/* Acknowledgements outside what Xen validates never reach the page. */
static void xen_pmu_window_ovf_mask(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_intel);
	struct xen_pmu_intel_ctxt *ctxt = &hv->page->pmu.c.intel;
	u64 v;

	hv->page->pmu.pmu_flags = PMU_CACHED;
	hv->cpu.in_pmi = true;
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_msr_write(&hv->cpu, MSR_CORE_PERF_GLOBAL_OVF_CTRL,
						      BIT_ULL(55) | BIT_ULL(59) | BIT_ULL(4) |
						      BIT_ULL(3) | BIT_ULL(35) | BIT_ULL(63)));
	KUNIT_EXPECT_EQ(test, ctxt->global_ovf_ctrl, BIT_ULL(3) | BIT_ULL(63));
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_msr_read(&hv->cpu, MSR_CORE_PERF_GLOBAL_OVF_CTRL, &v));
	KUNIT_EXPECT_EQ(test, v, 0);
	hv->cpu.in_pmi = false;
}

/* A refused context is sanitised and flushed again. */
static void xen_pmu_flush_recovers(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_intel);
	struct xen_pmu_intel_ctxt *ctxt = &hv->page->pmu.c.intel;
	struct xen_pmu_cntr_pair *pairs =
		(struct xen_pmu_cntr_pair *)xen_pmu_hv_at(hv, hv->cpu.bank_b);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_intel_handler);
	hv->flush_ret[0] = -EIO;
	xen_pmu_hv_pmi(hv);
	pairs[1].control = ARCH_PERFMON_EVENTSEL_ENABLE | ARCH_PERFMON_EVENTSEL_ANY |
			   BIT_ULL(33) | 0x3c;
	ctxt->pebs_enable = 1;
	ctxt->fixed_ctrl = 0xfff;

	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 2);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.flush_errors, 1);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.flush_recovered, 1);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.stopped, 0);
	KUNIT_EXPECT_EQ(test, pairs[1].control, ARCH_PERFMON_EVENTSEL_ENABLE | 0x3c);
	KUNIT_EXPECT_EQ(test, ctxt->pebs_enable, 0);
	KUNIT_EXPECT_EQ(test, ctxt->fixed_ctrl, 0xbbb);
	KUNIT_EXPECT_EQ(test, hv->page->pmu.pmu_flags & PMU_CACHED, 0);
}

/* Refused twice: every counter is stopped, which Xen accepts. */
static void xen_pmu_flush_stops(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	u64 *sel = xen_pmu_hv_at(hv, hv->cpu.bank_b);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_amd_handler);
	hv->flush_ret[0] = -EIO;
	hv->flush_ret[1] = -EIO;
	xen_pmu_hv_pmi(hv);
	sel[2] = ARCH_PERFMON_EVENTSEL_ENABLE | 0x76;

	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 3);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.flush_errors, 2);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.stopped, 1);
	KUNIT_EXPECT_EQ(test, sel[2], 0);
	KUNIT_EXPECT_EQ(test, hv->page->pmu.pmu_flags & PMU_CACHED, 0);
}

/* Other errors are counted and reported, not retried. */
static void xen_pmu_flush_einval(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_fake_amd_handler);
	hv->flush_ret[0] = -EINVAL;
	xen_pmu_hv_pmi(hv);
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 1);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.flush_errors, 1);
	KUNIT_EXPECT_FALSE(test, hv->cpu.in_pmi);
}

/*
 * LVTPC: the page mirrors Xen's mask, masked from XENPMU_init on; only a
 * change of the mask bit outside a PMI costs a hypercall.
 */
static void xen_pmu_lvtpc(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);

	KUNIT_EXPECT_EQ(test, hv->page->pmu.l.lapic_lvtpc, APIC_LVT_MASKED);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI | APIC_LVT_MASKED), 0);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 0);
	xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 1);
	KUNIT_EXPECT_EQ(test, hv->page->pmu.l.lapic_lvtpc, APIC_DM_NMI);
	xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 1);
	xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI | APIC_LVT_MASKED);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 2);
	KUNIT_EXPECT_TRUE(test, hv->apic_lvtpc & APIC_LVT_MASKED);
	hv->cpu.in_pmi = true;
	xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI);
	hv->cpu.in_pmi = false;
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 2);
	KUNIT_EXPECT_EQ(test, hv->page->pmu.l.lapic_lvtpc, APIC_DM_NMI);
}

static const struct xen_pmu_cpuid * const xen_pmu_lvtpc_vendors[] = {
	&xen_pmu_test_intel, &xen_pmu_test_amd,
};

static void xen_pmu_lvtpc_vendor_desc(const struct xen_pmu_cpuid * const *id,
				      char *desc)
{
	strscpy(desc, (*id)->vendor == X86_VENDOR_INTEL ? "intel" : "amd",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_lvtpc_vendor, xen_pmu_lvtpc_vendors,
		  xen_pmu_lvtpc_vendor_desc);

static struct xen_pmu_hv *xen_pmu_lvtpc_start(struct kunit *test)
{
	const struct xen_pmu_cpuid * const *id = test->param_value;

	return xen_pmu_hv_start(test, *id);
}

/* perf's enable_all, without the LVTPC write of x86_pmu_enable() */
static void xen_pmu_lvtpc_enable_all(struct xen_pmu_hv *hv)
{
	xen_pmu_hv_wrmsr(hv, hv->model.sel_base, ARCH_PERFMON_EVENTSEL_ENABLE | 0x76);
	if (hv->model.ops == &xen_pmu_intel_ops)
		xen_pmu_hv_wrmsr(hv, MSR_CORE_PERF_GLOBAL_CTRL, 1);
}

/* perf's pmu enable with events added: the LVTPC first, then the counters. */
static void xen_pmu_lvtpc_perf_enable(struct xen_pmu_hv *hv)
{
	xen_pmu_cpu_lvtpc(&hv->cpu, APIC_DM_NMI);
	xen_pmu_lvtpc_enable_all(hv);
}

static void xen_pmu_lvtpc_perf_disable(struct xen_pmu_hv *hv)
{
	if (hv->model.ops == &xen_pmu_intel_ops)
		xen_pmu_hv_wrmsr(hv, MSR_CORE_PERF_GLOBAL_CTRL, 0);
	else
		xen_pmu_hv_wrmsr(hv, hv->model.sel_base, 0x76);
}

/*
 * A vCPU fresh from XENPMU_init takes PMIs once perf unmasks the LVTPC:
 * Xen holds it masked, whatever the zeroed page said.
 */
static void xen_pmu_lvtpc_after_init(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_lvtpc_start(test);

	KUNIT_EXPECT_FALSE(test, xen_pmu_hv_pmi_live(hv));
	xen_pmu_lvtpc_perf_enable(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 1);
}

/* Each PMI masks the LVTPC; perf's unmask in the handler reaches Xen at flush. */
static void xen_pmu_lvtpc_after_pmi(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_lvtpc_start(test);

	xen_pmu_hv_use_fake_handler(test, hv);
	xen_pmu_lvtpc_perf_enable(hv);
	xen_pmu_hv_pmi(hv);
	hv->page->pmu.c.intel.global_status = BIT_ULL(0);
	KUNIT_EXPECT_FALSE(test, xen_pmu_hv_pmi_live(hv));
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 1);
}

/*
 * perf stops the counters, the vCPU is descheduled (Xen masks the LVTPC
 * and, the context not running, does not unmask it when the vCPU comes
 * back), perf starts them again by trapped writes: the driver must apply
 * the LVTPC again.  Without a deschedule in between, that costs nothing.
 */
static void xen_pmu_lvtpc_restart(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_lvtpc_start(test);

	xen_pmu_lvtpc_perf_enable(hv);
	xen_pmu_lvtpc_perf_disable(hv);
	xen_pmu_lvtpc_perf_enable(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 1);
	/* Descheduled while running: Xen reloads the LVTPC itself. */
	xen_pmu_hv_switch(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));

	xen_pmu_lvtpc_perf_disable(hv);
	xen_pmu_hv_switch(hv);
	KUNIT_EXPECT_FALSE(test, xen_pmu_hv_pmi_live(hv));
	xen_pmu_lvtpc_enable_all(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 2);
	/* With events added, perf's own LVTPC write re-applies it. */
	xen_pmu_lvtpc_perf_disable(hv);
	xen_pmu_hv_switch(hv);
	xen_pmu_lvtpc_perf_enable(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_lvtpc_set], 3);
}

/*
 * A vCPU descheduled in hv mode, the mode then set to all: Xen no longer
 * loads contexts, so the vCPU comes back with its counters stopped and its
 * LVTPC masked until the driver's resync after the mode change.
 */
static void xen_pmu_lvtpc_mode_all(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_lvtpc_start(test);

	xen_pmu_lvtpc_perf_enable(hv);
	hv->running = false;	/* as a disabling write leaves it on AMD */
	xen_pmu_hv_switch(hv);
	hv->all_mode = true;
	KUNIT_EXPECT_FALSE(test, xen_pmu_hv_pmi_live(hv));
	xen_pmu_cpu_resync(&hv->cpu);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
	/* All mode switches nothing: the LVTPC stays as applied. */
	xen_pmu_hv_switch(hv);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));
}

/* Counter 0 and its event select in the page, where Xen put them. */
static u64 *xen_pmu_hv_counter0(struct xen_pmu_hv *hv)
{
	if (hv->model.ops == &xen_pmu_intel_ops)
		return xen_pmu_hv_at(hv, hv->cpu.bank_b);
	return xen_pmu_hv_at(hv, hv->cpu.bank_a);
}

static u64 *xen_pmu_hv_control0(struct xen_pmu_hv *hv)
{
	if (hv->model.ops == &xen_pmu_intel_ops)
		return xen_pmu_hv_at(hv, hv->cpu.bank_b + sizeof(u64));
	return xen_pmu_hv_at(hv, hv->cpu.bank_b);
}

/*
 * What perf's tick does to a sampling counter: read it (AMD also waits,
 * reading its MSR, for an overflowed counter to be reset), stop it, load
 * the next period, start it.
 */
static u64 xen_pmu_pending_tick(struct xen_pmu_hv *hv, u64 on)
{
	u64 v = 0;
	int i;

	if (hv->model.ops == &xen_pmu_amd_ops)
		for (i = 0; i < 50; i++)
			xen_pmu_cpu_msr_read(&hv->cpu, hv->model.ctr_base, &v);
	v = xen_pmu_cpu_read_pmc(&hv->cpu, 0);
	xen_pmu_hv_wrmsr(hv, hv->model.sel_base, on & ~ARCH_PERFMON_EVENTSEL_ENABLE);
	xen_pmu_hv_wrmsr(hv, hv->model.ctr_base, 0xffff00000000ULL);
	xen_pmu_hv_wrmsr(hv, hv->model.sel_base, on);
	return v;
}

/*
 * A tick or a context switch of perf's that Xen's PMI came in the middle
 * of, with interrupts off: until the flush Xen keeps the context in the
 * page, so reads and writes are served from it and cost no trap.  A write
 * that trapped would be lost (the flush reloads the page over Xen's copy)
 * and the counter would keep its old value under the period perf loaded:
 * the next read adds a period that never elapsed to the event's count.
 * With interrupts on, the handler could flush in between: accesses trap.
 */
static void xen_pmu_pending_pmi(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_lvtpc_start(test);
	u64 on = ARCH_PERFMON_EVENTSEL_ENABLE | ARCH_PERFMON_EVENTSEL_INT | 0x76;
	unsigned long flags;
	u64 v;

	xen_pmu_hv_use_fake_handler(test, hv);
	xen_pmu_lvtpc_perf_enable(hv);
	xen_pmu_hv_pmi(hv);
	/* The counter wrapped: Xen saved it with the enable bit still set. */
	*xen_pmu_hv_counter0(hv) = 0x40;
	*xen_pmu_hv_control0(hv) = on;
	local_irq_save(flags);
	v = xen_pmu_pending_tick(hv, on);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, v, 0x40);
	KUNIT_EXPECT_EQ(test, hv->traps, 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.pending,
			hv->model.ops == &xen_pmu_amd_ops ? 54 : 4);
	KUNIT_EXPECT_EQ(test, hv->lost, 0);
	/* The flush loads the period perf wrote, not the wrapped value. */
	KUNIT_EXPECT_EQ(test, *xen_pmu_hv_counter0(hv), 0xffff00000000ULL);
	KUNIT_EXPECT_EQ(test, *xen_pmu_hv_control0(hv), on);
	/* The handler runs once interrupts are on and flushes the page. */
	hv->page->pmu.c.intel.global_status = BIT_ULL(0);
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_flush], 1);
	KUNIT_EXPECT_TRUE(test, xen_pmu_hv_pmi_live(hv));

	xen_pmu_hv_pmi(hv);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 0), 0x1234);
	KUNIT_EXPECT_EQ(test, hv->traps, 1);
}

static unsigned int xen_pmu_took_calls;

static void xen_pmu_count_took(u64 ns)
{
	xen_pmu_took_calls++;
}

/*
 * Each PMI handled tells perf how long it took (perf lowers its highest
 * sampling rate when PMIs take too much of the CPU, as x86's NMI handler
 * has it do); a VIRQ without a context is not a PMI.
 */
static void xen_pmu_pmi_took(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);

	xen_pmu_took_calls = 0;
	kunit_activate_static_stub(test, xen_pmu_took, xen_pmu_count_took);
	xen_pmu_hv_use_fake_handler(test, hv);
	xen_pmu_hv_pmi(hv);
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, xen_pmu_took_calls, 1);
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, xen_pmu_took_calls, 1);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.spurious, 1);
}

/* Outside the window: counters trap, written event selects do not. */
static void xen_pmu_outside_window(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	u64 v = 0;

	KUNIT_EXPECT_FALSE(test, xen_pmu_cpu_msr_read(&hv->cpu, MSR_F15H_PERF_CTL, &v));
	KUNIT_EXPECT_FALSE(test, xen_pmu_cpu_msr_write(&hv->cpu, MSR_F15H_PERF_CTL, 0x430076));
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_msr_read(&hv->cpu, MSR_F15H_PERF_CTL, &v));
	KUNIT_EXPECT_EQ(test, v, 0x430076);
	/* The K7 alias is the same register. */
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_msr_read(&hv->cpu, MSR_K7_EVNTSEL0, &v));
	KUNIT_EXPECT_EQ(test, v, 0x430076);
	KUNIT_EXPECT_FALSE(test, xen_pmu_cpu_msr_read(&hv->cpu, MSR_F15H_PERF_CTR, &v));
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.msr_shadowed, 2);
	/* RDPMC by a trapped read of the counter's MSR. */
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 5), 0x1234);
	KUNIT_EXPECT_EQ(test, hv->last_trap_msr, MSR_F15H_PERF_CTR5);
	KUNIT_EXPECT_EQ(test, hv->traps, 1);
	/* A stale page is never read outside the window. */
	*xen_pmu_hv_at(hv, hv->cpu.bank_a) = 0xdead;
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 0), 0x1234);
	KUNIT_EXPECT_EQ(test, hv->traps, 2);
}

/* Intel counters that traps cannot reach read as 0 outside the window. */
static void xen_pmu_outside_window_intel(struct kunit *test)
{
	struct xen_pmu_cpuid id = INTEL_LEAF_A(3, 8, 4);
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &id);

	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 2), 0x1234);
	KUNIT_EXPECT_EQ(test, hv->last_trap_msr, MSR_IA32_PERFCTR0 + 2);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, INTEL_PMC_FIXED_RDPMC_BASE | 1),
			0x1234);
	KUNIT_EXPECT_EQ(test, hv->last_trap_msr, MSR_CORE_PERF_FIXED_CTR0 + 1);
	KUNIT_EXPECT_EQ(test, hv->traps, 2);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 6), 0);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, INTEL_PMC_FIXED_RDPMC_BASE | 3), 0);
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_read_pmc(&hv->cpu, 100), 0);
	KUNIT_EXPECT_EQ(test, hv->traps, 2);
}

static struct kunit_case xen_pmu_window_cases[] = {
	KUNIT_CASE(xen_pmu_window_intel),
	KUNIT_CASE(xen_pmu_window_amd),
	KUNIT_CASE(xen_pmu_window_not_cached),
	KUNIT_CASE(xen_pmu_window_ovf_mask),
	KUNIT_CASE(xen_pmu_flush_recovers),
	KUNIT_CASE(xen_pmu_flush_stops),
	KUNIT_CASE(xen_pmu_flush_einval),
	KUNIT_CASE(xen_pmu_lvtpc),
	KUNIT_CASE_PARAM(xen_pmu_lvtpc_after_init, xen_pmu_lvtpc_vendor_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_lvtpc_after_pmi, xen_pmu_lvtpc_vendor_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_lvtpc_restart, xen_pmu_lvtpc_vendor_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_lvtpc_mode_all, xen_pmu_lvtpc_vendor_gen_params),
	KUNIT_CASE_PARAM(xen_pmu_pending_pmi, xen_pmu_lvtpc_vendor_gen_params),
	KUNIT_CASE(xen_pmu_pmi_took),
	KUNIT_CASE(xen_pmu_outside_window),
	KUNIT_CASE(xen_pmu_outside_window_intel),
	{}
};

static struct kunit_suite xen_pmu_window_suite = {
	.name = "xen_pmu_window",
	.test_cases = xen_pmu_window_cases,
};

/* Hostile shared-page contents */

/* Bank offsets Xen may write into the page, on the Intel v3 model */
struct xen_pmu_test_offsets {
	const char *desc;
	u32 a, b;
	int ret;
};

static const struct xen_pmu_test_offsets xen_pmu_test_offsetss[] = {
	{ "no context", 0, 0, -ENODATA },
	{ "what Xen writes", 64, 88, 0 },
	{ "outside the page", 0xfffffff0, 88, -ERANGE },
	{ "second outside the page", 64, 0x7fffffff, -ERANGE },
	{ "inside the fixed part", 8, 88, -ERANGE },
	{ "misaligned", 65, 88, -ERANGE },
	{ "overlapping banks", 64, 64, -ERANGE },
	{ "bank ends past the page", 64, PAGE_SIZE - 96 - 8, -ERANGE },
	{ "bank ends at the page end", 64, PAGE_SIZE - 96 - 64, 0 },
};

static void xen_pmu_test_offsets_desc(const struct xen_pmu_test_offsets *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_offsets, xen_pmu_test_offsetss, xen_pmu_test_offsets_desc);

static void xen_pmu_hostile_offsets(struct kunit *test)
{
	const struct xen_pmu_test_offsets *t = test->param_value;
	struct xen_pmu_data *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct xen_pmu_cpuid id = INTEL_V3;
	struct xen_pmu_model m;
	struct xen_pmu_cpu c = {};

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&m, &id), 0);
	page->pmu.c.intel.fixed_counters = t->a;
	page->pmu.c.intel.arch_counters = t->b;
	KUNIT_EXPECT_EQ(test, xen_pmu_attach(&c, &m, page), t->ret);
	if (t->ret)
		KUNIT_EXPECT_NULL(test, c.page);
}

/* Offsets changed after attach are never used. */
static void xen_pmu_hostile_late_offsets(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	unsigned int bank_a = hv->cpu.bank_a;

	hv->page->pmu.c.amd.counters = 0x7ffffff0;
	hv->page->pmu.c.amd.ctrls = 0x7ffffff8;
	hv->cpu.in_pmi = true;
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_msr_write(&hv->cpu, MSR_F15H_PERF_CTR5, 42));
	hv->cpu.in_pmi = false;
	KUNIT_EXPECT_EQ(test, hv->cpu.bank_a, bank_a);
	KUNIT_EXPECT_EQ(test, *xen_pmu_hv_at(hv, bank_a + 5 * 8), 42);
}

/* Absurd counter counts cannot make the banks reach past the page. */
static void xen_pmu_hostile_counts(struct kunit *test)
{
	struct xen_pmu_data *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct xen_pmu_cpuid id = INTEL_LEAF_A(3, 255, 31);
	struct xen_pmu_model m;
	struct xen_pmu_cpu c = {};

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, xen_pmu_model_init(&m, &id), 0);
	page->pmu.c.intel.fixed_counters = 64;
	page->pmu.c.intel.arch_counters = PAGE_SIZE - 96 - 16 * 4;
	KUNIT_EXPECT_EQ(test, xen_pmu_attach(&c, &m, page), -ERANGE);
	page->pmu.c.intel.arch_counters = PAGE_SIZE - 96 - 16 * XEN_PMU_MAX_GP;
	KUNIT_EXPECT_EQ(test, xen_pmu_attach(&c, &m, page), 0);
}

static struct kunit_case xen_pmu_hostile_cases[] = {
	KUNIT_CASE_PARAM(xen_pmu_hostile_offsets, xen_pmu_test_offsets_gen_params),
	KUNIT_CASE(xen_pmu_hostile_late_offsets),
	KUNIT_CASE(xen_pmu_hostile_counts),
	{}
};

static struct kunit_suite xen_pmu_hostile_suite = {
	.name = "xen_pmu_hostile",
	.test_cases = xen_pmu_hostile_cases,
};

/* XENPMU_init and XENPMU_finish: every answer of Xen's has an outcome. */

static struct xen_pmu_hv *xen_pmu_life_start(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);

	/* Start from a vCPU with no page and a page Xen has not seen. */
	memset(&hv->cpu, 0, sizeof(hv->cpu));
	memset(hv->page, 0, PAGE_SIZE);
	return hv;
}

/* What XENPMU_init (twice at most) and XENPMU_finish answer, and the outcome */
struct xen_pmu_test_life {
	const char *desc;
	int init_ret[2];
	int banks;
	int finish_ret;
	int ret;
	unsigned int inits, finishes;
};

static const struct xen_pmu_test_life xen_pmu_test_lives[] = {
	{ "ok", { 0 }, XEN_PMU_HV_BANKS, 0, 0, 1, 0 },
	/* Xen still holds an old page: it is released and replaced */
	{ "eexist", { -EEXIST }, XEN_PMU_HV_BANKS, 0, 0, 2, 1 },
	{ "eopnotsupp", { -EOPNOTSUPP, -EOPNOTSUPP }, XEN_PMU_HV_BANKS, 0, -EOPNOTSUPP, 1, 0 },
	{ "enoent", { -ENOENT, -ENOENT }, XEN_PMU_HV_BANKS, 0, -ENOENT, 1, 0 },
	{ "einval", { -EINVAL, -EINVAL }, XEN_PMU_HV_BANKS, 0, -EINVAL, 1, 0 },
	{ "enomem", { -ENOMEM, -ENOMEM }, XEN_PMU_HV_BANKS, 0, -ENOMEM, 1, 0 },
	{ "eperm", { -EPERM, -EPERM }, XEN_PMU_HV_BANKS, 0, -EPERM, 1, 0 },
	/* accepted, but no context or bad banks: the page is given back */
	{ "no banks", { 0 }, XEN_PMU_HV_NO_BANKS, 0, -ENODATA, 1, 1 },
	{ "bad banks", { 0 }, XEN_PMU_HV_BAD_BANKS, 0, -ERANGE, 1, 1 },
	/* ... and if Xen will not take it back, it must not be freed */
	{ "bad banks, finish fails", { 0 }, XEN_PMU_HV_BAD_BANKS, -EINVAL, -EBUSY, 1, 1 },
};

static void xen_pmu_test_life_desc(const struct xen_pmu_test_life *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_life, xen_pmu_test_lives, xen_pmu_test_life_desc);

static void xen_pmu_life_init(struct kunit *test)
{
	const struct xen_pmu_test_life *t = test->param_value;
	struct xen_pmu_hv *hv = xen_pmu_life_start(test);

	hv->init_ret[0] = t->init_ret[0];
	hv->init_ret[1] = t->init_ret[1];
	hv->init_banks = t->banks;
	hv->finish_ret = t->finish_ret;
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_register(&hv->cpu, &hv->model, 1, hv->page), t->ret);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_init], t->inits);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_finish], t->finishes);
	if (t->ret)
		KUNIT_EXPECT_NULL(test, hv->cpu.page);
	else
		KUNIT_EXPECT_PTR_EQ(test, hv->cpu.page, hv->page);
}

/* finish gives the page back once */
static void xen_pmu_life_finish(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_life_start(test);

	KUNIT_ASSERT_EQ(test, xen_pmu_cpu_register(&hv->cpu, &hv->model, 1, hv->page), 0);
	KUNIT_EXPECT_PTR_EQ(test, xen_pmu_cpu_unregister(&hv->cpu, 1), hv->page);
	KUNIT_EXPECT_NULL(test, hv->cpu.page);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_finish], 1);
	KUNIT_EXPECT_NULL(test, xen_pmu_cpu_unregister(&hv->cpu, 1));
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_finish], 1);
}

/* A page Xen refuses to release is not handed back to be freed. */
static void xen_pmu_life_finish_fails(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_life_start(test);

	KUNIT_ASSERT_EQ(test, xen_pmu_cpu_register(&hv->cpu, &hv->model, 1, hv->page), 0);
	hv->finish_ret = -EINVAL;
	KUNIT_EXPECT_NULL(test, xen_pmu_cpu_unregister(&hv->cpu, 1));
	KUNIT_EXPECT_NULL(test, hv->cpu.page);
	KUNIT_EXPECT_EQ(test, hv->calls[XENPMU_finish], 1);
}

static struct kunit_case xen_pmu_life_cases[] = {
	KUNIT_CASE_PARAM(xen_pmu_life_init, xen_pmu_test_life_gen_params),
	KUNIT_CASE(xen_pmu_life_finish),
	KUNIT_CASE(xen_pmu_life_finish_fails),
	{}
};

static struct kunit_suite xen_pmu_life_suite = {
	.name = "xen_pmu_lifecycle",
	.test_cases = xen_pmu_life_cases,
};

/*
 * Sample attribution: simulated PMIs from Xen, from dom0 on the receiving
 * vCPU and on another one, and from PV and HVM domUs, through the real
 * PMI path; perf's handler is replaced by one that records, inside the
 * window, what perf's x86 core would take from the guest callbacks.
 */
struct xen_pmu_test_sample {
	const char *name;
	u16 domid;
	u64 flags;
	u8 cpl;
	u64 ip;
	u32 pcpu;
	u32 vcpu;
	/* expected */
	u16 cpumode;
	u16 want_domid;
	u16 want_vcpu;
};

static int xen_pmu_capture_handler(struct pt_regs *regs)
{
	struct xen_pmu_hv *hv = xen_pmu_hv();

	hv->seen.state = xen_pmu_cpu_guest_state(&hv->cpu);
	/* perf_instruction_pointer(): the provider's IP for guest states. */
	hv->seen.ip = hv->seen.state ? xen_pmu_cpu_guest_ip(&hv->cpu) : regs->ip;
	hv->seen.user = user_mode(regs);
	KUNIT_EXPECT_TRUE(kunit_get_current_test(),
			  xen_pmu_cpu_virt_id(&hv->cpu, &hv->seen.id));
	return 1;
}

/* perf_misc_flags() of x86, from the guest state and the regs. */
static u16 xen_pmu_test_cpumode(unsigned int state, bool user)
{
	if (state & PERF_GUEST_HYPERVISOR)
		return PERF_RECORD_MISC_HYPERVISOR;
	if (state)
		return state & PERF_GUEST_USER ? PERF_RECORD_MISC_GUEST_USER :
						 PERF_RECORD_MISC_GUEST_KERNEL;
	return user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
}

static const struct xen_pmu_test_sample xen_pmu_test_samples[] = {
	{ "xen", DOMID_XEN, PMU_SAMPLE_PV, 0, 0xffff82d040201234ULL, 1, 0,
	  PERF_RECORD_MISC_HYPERVISOR, DOMID_XEN, 0 },
	{ "xen-idle", DOMID_IDLE, PMU_SAMPLE_PV, 0, 0xffff82d040205678ULL, 1, 1,
	  PERF_RECORD_MISC_HYPERVISOR, DOMID_XEN, 1 },
	{ "dom0-kernel", DOMID_SELF, PMU_SAMPLE_PV, 0, 0xffffffff81001000ULL, 1, 1,
	  PERF_RECORD_MISC_KERNEL, 0, 1 },
	{ "dom0-user", DOMID_SELF, PMU_SAMPLE_PV | PMU_SAMPLE_USER, 0, 0x401000, 1, 1,
	  PERF_RECORD_MISC_USER, 0, 1 },
	{ "dom0-other-vcpu", 0, PMU_SAMPLE_PV, 0, 0xffffffff81002000ULL, 0, 0,
	  PERF_RECORD_MISC_KERNEL, 0, 0 },
	{ "pv-domU-user", 5, PMU_SAMPLE_PV | PMU_SAMPLE_USER, 0, 0x402000, 1, 2,
	  PERF_RECORD_MISC_GUEST_USER, 5, 2 },
	{ "pv-domU-kernel", 5, PMU_SAMPLE_PV, 0, 0xffffffff81003000ULL, 1, 2,
	  PERF_RECORD_MISC_GUEST_KERNEL, 5, 2 },
	{ "hvm-domU-user", 7, 0, 3, 0x7f0000001000ULL, 0, 3,
	  PERF_RECORD_MISC_GUEST_USER, 7, 3 },
	{ "hvm-domU-kernel", 7, 0, 0, 0xffffffff81004000ULL, 0, 3,
	  PERF_RECORD_MISC_GUEST_KERNEL, 7, 3 },
};

static void xen_pmu_test_sample_desc(const struct xen_pmu_test_sample *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_sample, xen_pmu_test_samples, xen_pmu_test_sample_desc);

static void xen_pmu_attr_samples(struct kunit *test)
{
	const struct xen_pmu_test_sample *t = test->param_value;
	struct xen_pmu_hv *hv;
	struct xen_pmu_data *d;

	if (!xen_initial_domain())
		kunit_skip(test, "attribution applies to dom0");
	hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_capture_handler);
	d = hv->page;
	xen_pmu_hv_pmi(hv);
	d->domain_id = t->domid;
	d->pmu.pmu_flags = t->flags | PMU_CACHED;
	d->pmu.r.regs.cpl = t->cpl;
	d->pmu.r.regs.cs = 0xe033;
	d->pmu.r.regs.ip = t->ip;
	d->pcpu_id = t->pcpu;
	d->vcpu_id = t->vcpu;
	KUNIT_ASSERT_EQ(test, xen_pmu_cpu_pmi(&hv->cpu), IRQ_HANDLED);

	KUNIT_EXPECT_EQ(test, xen_pmu_test_cpumode(hv->seen.state, hv->seen.user), t->cpumode);
	KUNIT_EXPECT_EQ(test, hv->seen.ip, t->ip);
	KUNIT_EXPECT_EQ(test, hv->seen.id.pcpu, t->pcpu);
	KUNIT_EXPECT_EQ(test, hv->seen.id.domid, t->want_domid);
	KUNIT_EXPECT_EQ(test, hv->seen.id.vcpu, t->want_vcpu);
	/* x86 takes no callchain for a guest state: only dom0's have one. */
	KUNIT_EXPECT_EQ(test, !hv->seen.state,
			t->cpumode == PERF_RECORD_MISC_KERNEL ||
			t->cpumode == PERF_RECORD_MISC_USER);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.bad_samples, 0);
}

/* Outside the window: our own domain and vCPU, physical CPU unknown. */
static void xen_pmu_attr_outside(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	struct perf_sample_virt_id id;
	int cpu;

	xen_pmu_hv_pmi(hv);
	hv->page->domain_id = 5;
	cpu = get_cpu();
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_virt_id(&hv->cpu, &id));
	put_cpu();
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_guest_state(&hv->cpu), 0);
	KUNIT_EXPECT_EQ(test, id.pcpu, U32_MAX);
	KUNIT_EXPECT_EQ(test, id.domid, xen_initial_domain() ? 0 : U16_MAX);
	KUNIT_EXPECT_EQ(test, id.vcpu, cpu);
	/* Without a vPMU page at all, the same. */
	hv->cpu.page = NULL;
	KUNIT_EXPECT_TRUE(test, xen_pmu_cpu_virt_id(&hv->cpu, &id));
	KUNIT_EXPECT_EQ(test, id.pcpu, U32_MAX);
}

/* A vCPU id that cannot be valid is reported unknown and counted. */
static void xen_pmu_attr_bad_vcpu(struct kunit *test)
{
	struct xen_pmu_hv *hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);

	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_capture_handler);
	xen_pmu_hv_pmi(hv);
	hv->page->domain_id = 5;
	hv->page->vcpu_id = 0x12345;
	xen_pmu_cpu_pmi(&hv->cpu);
	KUNIT_EXPECT_EQ(test, hv->seen.id.vcpu, U16_MAX);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.bad_samples, 1);
}

static struct kunit_case xen_pmu_attr_cases[] = {
	KUNIT_CASE_PARAM(xen_pmu_attr_samples, xen_pmu_test_sample_gen_params),
	KUNIT_CASE(xen_pmu_attr_outside),
	KUNIT_CASE(xen_pmu_attr_bad_vcpu),
	{}
};

static struct kunit_suite xen_pmu_attr_suite = {
	.name = "xen_pmu_attribution",
	.test_cases = xen_pmu_attr_cases,
};

/* Ids Xen cannot report are counted and reported as unknown. */
static void xen_pmu_hostile_ids(struct kunit *test)
{
	static const u16 bad[] = { DOMID_IO, DOMID_COW, 0x7ff4, 0x8000, 0xffff };
	struct xen_pmu_hv *hv;
	unsigned int seen = 0;
	size_t i;

	if (!xen_initial_domain())
		kunit_skip(test, "guest state applies to dom0 only");
	hv = xen_pmu_hv_start(test, &xen_pmu_test_amd);
	kunit_activate_static_stub(test, xen_pmu_handle_irq, xen_pmu_capture_handler);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		xen_pmu_hv_pmi(hv);
		hv->page->domain_id = bad[i];
		hv->page->pmu.pmu_flags |= PMU_SAMPLE_USER;
		xen_pmu_cpu_pmi(&hv->cpu);
		KUNIT_EXPECT_EQ(test, hv->seen.id.domid, U16_MAX);
		KUNIT_EXPECT_EQ(test, hv->seen.state, 0);
		seen++;
	}
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.bad_samples, seen);
	/* A real other domain is a guest sample inside the window only. */
	xen_pmu_hv_pmi(hv);
	hv->page->domain_id = 3;
	hv->page->pmu.pmu_flags |= PMU_SAMPLE_USER;
	hv->cpu.domid = 3;
	hv->cpu.flags = hv->page->pmu.pmu_flags;
	hv->cpu.in_pmi = true;
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_guest_state(&hv->cpu),
			PERF_GUEST_ACTIVE | PERF_GUEST_USER);
	hv->cpu.in_pmi = false;
	KUNIT_EXPECT_EQ(test, xen_pmu_cpu_guest_state(&hv->cpu), 0);
	KUNIT_EXPECT_EQ(test, hv->cpu.stats.bad_samples, seen);
}

static struct kunit_case xen_pmu_hostile_ids_cases[] = {
	KUNIT_CASE(xen_pmu_hostile_ids),
	{}
};

static struct kunit_suite xen_pmu_hostile_ids_suite = {
	.name = "xen_pmu_hostile_ids",
	.test_cases = xen_pmu_hostile_ids_cases,
};

/*
 * Hypercalls and traps per PMI and per perf context-switch operation, with
 * the event-select shadow and without it (the shadow forgotten before
 * every access), as perf's x86 core issues the accesses: one row each,
 * with what it costs.  make bench prints the rows.
 */
#define XEN_PMU_COST_EVENTS	4
/* An event select as perf writes it: cycles, enabled */
#define XEN_PMU_COST_SEL	(ARCH_PERFMON_EVENTSEL_ENABLE | 0x76)

enum xen_pmu_cost_op {
	XEN_PMU_COST_PMI,
	XEN_PMU_COST_DISABLE_ALL,
	XEN_PMU_COST_ENABLE_ALL,
	XEN_PMU_COST_ADD,
	XEN_PMU_COST_DEL,
};

static const char * const xen_pmu_cost_op_names[] = {
	"pmi", "disable_all", "enable_all", "add_event", "del_event",
};

struct xen_pmu_test_cost {
	bool intel;
	enum xen_pmu_cost_op op;
	bool no_shadow;
	unsigned int hypercalls;
	unsigned int traps;
};

static const struct xen_pmu_test_cost xen_pmu_test_costs[] = {
	/* the target: one hypercall and no trap per PMI */
	{ false, XEN_PMU_COST_PMI, false, 1, 0 },
	{ false, XEN_PMU_COST_PMI, true, 1, 0 },
	/* on AMD the shadow saves the read of each enabled select */
	{ false, XEN_PMU_COST_DISABLE_ALL, false, 0, XEN_PMU_COST_EVENTS },
	{ false, XEN_PMU_COST_DISABLE_ALL, true, 0, 2 * XEN_PMU_COST_EVENTS },
	{ false, XEN_PMU_COST_ENABLE_ALL, false, 0, XEN_PMU_COST_EVENTS },
	{ false, XEN_PMU_COST_ADD, false, 0, 2 },
	{ false, XEN_PMU_COST_DEL, false, 0, 2 },
	{ true, XEN_PMU_COST_PMI, false, 1, 0 },
	{ true, XEN_PMU_COST_PMI, true, 1, 0 },
	{ true, XEN_PMU_COST_DISABLE_ALL, false, 0, 1 },
	{ true, XEN_PMU_COST_DISABLE_ALL, true, 0, 1 },
	{ true, XEN_PMU_COST_ENABLE_ALL, false, 0, 1 },
	{ true, XEN_PMU_COST_ADD, false, 0, 2 },
	{ true, XEN_PMU_COST_DEL, false, 0, 2 },
};

static void xen_pmu_test_cost_desc(const struct xen_pmu_test_cost *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s%s: %u hypercalls, %u traps",
		 t->intel ? "intel" : "amd", xen_pmu_cost_op_names[t->op],
		 t->no_shadow ? " without shadow" : "", t->hypercalls, t->traps);
}

KUNIT_ARRAY_PARAM(xen_pmu_test_cost, xen_pmu_test_costs, xen_pmu_test_cost_desc);

static u64 xen_pmu_cost_hypercalls(struct xen_pmu_hv *hv)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hv->calls); i++)
		n += hv->calls[i];
	return n;
}

static u64 xen_pmu_cost_traps(struct xen_pmu_hv *hv)
{
	return hv->cpu.stats.msr_trapped + hv->cpu.stats.rdpmc_trapped;
}

static u32 xen_pmu_cost_sel(struct xen_pmu_hv *hv, unsigned int i)
{
	return hv->model.sel_base + i * hv->model.stride;
}

/* perf's enable_all: Intel sets GLOBAL_CTRL, AMD each enable bit */
static void xen_pmu_cost_enable_all(struct xen_pmu_hv *hv)
{
	unsigned int i;

	if (hv->model.ops == &xen_pmu_intel_ops) {
		xen_pmu_cpu_msr_write(&hv->cpu, MSR_CORE_PERF_GLOBAL_CTRL,
				      GENMASK_ULL(XEN_PMU_COST_EVENTS - 1, 0));
		return;
	}
	for (i = 0; i < XEN_PMU_COST_EVENTS; i++)
		xen_pmu_cpu_msr_write(&hv->cpu, xen_pmu_cost_sel(hv, i), XEN_PMU_COST_SEL);
}

/* perf's disable_all: Intel clears GLOBAL_CTRL, AMD reads and clears each enable bit */
static void xen_pmu_cost_disable_all(struct xen_pmu_hv *hv, bool no_shadow)
{
	unsigned int i;
	u64 v;

	if (hv->model.ops == &xen_pmu_intel_ops) {
		xen_pmu_cpu_msr_write(&hv->cpu, MSR_CORE_PERF_GLOBAL_CTRL, 0);
		return;
	}
	for (i = 0; i < XEN_PMU_COST_EVENTS; i++) {
		if (no_shadow)
			hv->cpu.shadow_valid = 0;
		if (!xen_pmu_cpu_msr_read(&hv->cpu, xen_pmu_cost_sel(hv, i), &v))
			v = XEN_PMU_COST_SEL;	/* what the trap would return */
		xen_pmu_cpu_msr_write(&hv->cpu, xen_pmu_cost_sel(hv, i),
				      v & ~ARCH_PERFMON_EVENTSEL_ENABLE);
	}
}

static void xen_pmu_cost(struct kunit *test)
{
	const struct xen_pmu_test_cost *t = test->param_value;
	struct xen_pmu_hv *hv;
	u64 calls, traps;
	u32 ctr0;

	hv = xen_pmu_hv_start(test, t->intel ? &xen_pmu_test_intel : &xen_pmu_test_amd);
	xen_pmu_hv_use_fake_handler(test, hv);
	ctr0 = t->intel ? MSR_IA32_PMC0 : hv->model.ctr_base;
	/* Every operation starts with the events enabled. */
	xen_pmu_cost_enable_all(hv);
	calls = xen_pmu_cost_hypercalls(hv);
	traps = xen_pmu_cost_traps(hv);
	switch (t->op) {
	case XEN_PMU_COST_PMI:
		if (t->no_shadow)
			hv->cpu.shadow_valid = 0;
		xen_pmu_hv_pmi(hv);
		hv->page->pmu.c.intel.global_status = BIT_ULL(0);
		xen_pmu_cpu_pmi(&hv->cpu);
		break;
	case XEN_PMU_COST_DISABLE_ALL:
		xen_pmu_cost_disable_all(hv, t->no_shadow);
		break;
	case XEN_PMU_COST_ENABLE_ALL:
		xen_pmu_cost_enable_all(hv);
		break;
	case XEN_PMU_COST_ADD:
		/* the period, then the enable bit */
		xen_pmu_cpu_msr_write(&hv->cpu, ctr0, -100000ULL);
		xen_pmu_cpu_msr_write(&hv->cpu, xen_pmu_cost_sel(hv, 0), XEN_PMU_COST_SEL);
		break;
	case XEN_PMU_COST_DEL:
		/* disabled, then its count read */
		xen_pmu_cpu_msr_write(&hv->cpu, xen_pmu_cost_sel(hv, 0),
				      XEN_PMU_COST_SEL & ~ARCH_PERFMON_EVENTSEL_ENABLE);
		xen_pmu_cpu_read_pmc(&hv->cpu, 0);
		break;
	}
	KUNIT_EXPECT_EQ(test, xen_pmu_cost_hypercalls(hv) - calls, t->hypercalls);
	KUNIT_EXPECT_EQ(test, xen_pmu_cost_traps(hv) - traps, t->traps);
}

static struct kunit_case xen_pmu_cost_cases[] = {
	KUNIT_CASE_PARAM(xen_pmu_cost, xen_pmu_test_cost_gen_params),
	{}
};

static struct kunit_suite xen_pmu_cost_suite = {
	.name = "xen_pmu_cost",
	.test_cases = xen_pmu_cost_cases,
};

kunit_test_suites(&xen_pmu_abi_suite, &xen_pmu_model_suite,
		  &xen_pmu_window_suite,
		  &xen_pmu_hostile_suite,
		  &xen_pmu_life_suite,
		  &xen_pmu_attr_suite,
		  &xen_pmu_hostile_ids_suite,
		  &xen_pmu_cost_suite);

MODULE_DESCRIPTION("KUnit tests for the Xen PV PMU driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
