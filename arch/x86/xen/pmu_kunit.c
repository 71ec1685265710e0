// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the Xen PV PMU interface.
 *
 * The xen_pmu_abi suite asks the hypervisor the kernel runs on and checks
 * that its answers land where include/xen/interface/xenpmu.h says they do:
 * Xen writes each reply at fixed offsets, so a wrong layout shows up as a
 * reply in the wrong field or a field that Xen must not touch changing.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <xen/xen.h>
#include <xen/interface/xen.h>
#include <xen/interface/xenpmu.h>
#include <asm/xen/hypercall.h>

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

static int xen_pmu_abi_init(struct kunit *test)
{
	if (!xen_pv_domain() || !xen_initial_domain())
		kunit_skip(test, "needs a Xen PV dom0");
	return 0;
}

static struct kunit_case xen_pmu_abi_cases[] = {
	KUNIT_CASE(xen_pmu_abi_mode_get),
	KUNIT_CASE(xen_pmu_abi_feature_get),
	{}
};

static struct kunit_suite xen_pmu_abi_suite = {
	.name = "xen_pmu_abi",
	.init = xen_pmu_abi_init,
	.test_cases = xen_pmu_abi_cases,
};

kunit_test_suite(xen_pmu_abi_suite);

MODULE_DESCRIPTION("KUnit tests for the Xen PV PMU interface");
MODULE_LICENSE("GPL");
