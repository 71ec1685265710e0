/* SPDX-License-Identifier: MIT */
/*
 * Xen PV performance monitoring interface (HYPERVISOR_xenpmu_op) as
 * implemented by Xen 4.17.  The layout must match Xen's public pmu.h byte
 * for byte; the xenpmu lab checks every structure size and field offset
 * against the headers Xen installs.  The x86 parts of the shared page
 * (struct xen_pmu_arch) live in <asm/xen/interface.h>.
 */
#ifndef __XEN_PUBLIC_XENPMU_H__
#define __XEN_PUBLIC_XENPMU_H__

#include "xen.h"

/* Interface version reported by XENPMU_mode_get; only maj is checked. */
#define XENPMU_VER_MAJ		0
#define XENPMU_VER_MIN		1

/*
 * Operations of HYPERVISOR_xenpmu_op(op, struct xen_pmu_params *).
 * The get/set operations are reserved to the control domain; init,
 * finish, lvtpc_set and flush may be used by any PV domain.
 */
#define XENPMU_mode_get		0	/* val <- mode, version <- 0.1 */
#define XENPMU_mode_set		1	/* val -> mode */
#define XENPMU_feature_get	2	/* val <- feature mask */
#define XENPMU_feature_set	3	/* val -> feature mask */
#define XENPMU_init		4	/* vcpu, val = frame of the shared page */
#define XENPMU_finish		5	/* vcpu */
#define XENPMU_lvtpc_set	6	/* load the page's lapic_lvtpc mask bit */
#define XENPMU_flush		7	/* hand the page's context back to Xen */

/* The argument of every operation that takes one. */
struct xen_pmu_params {
	struct {
		uint32_t maj;
		uint32_t min;
	} version;
	uint64_t val;
	uint32_t vcpu;
	uint32_t pad;
};

/*
 * Modes (exactly zero or one bit):
 * OFF   no domain has a vPMU;
 * SELF  every domain with a vPMU samples itself;
 * HV    as SELF, and dom0's samples include the time Xen runs for it;
 * ALL   only dom0 has a vPMU and receives every sample of the host:
 *       its own, Xen's and every other domain's.
 */
#define XENPMU_MODE_OFF		0
#define XENPMU_MODE_SELF	1
#define XENPMU_MODE_HV		2
#define XENPMU_MODE_ALL		4

/*
 * Features, all Intel only (AMD ignores them):
 * INTEL_BTS  branch trace store;
 * IPC_ONLY   only the events needed for instructions-per-cycle;
 * ARCH_ONLY  only the architectural events of CPUID leaf 0xA.
 */
#define XENPMU_FEATURE_INTEL_BTS	1
#define XENPMU_FEATURE_IPC_ONLY		2
#define XENPMU_FEATURE_ARCH_ONLY	4

/*
 * The per-vCPU page shared with Xen.  At a PMI Xen writes the ids of the
 * interrupted context and the register state, saves the counters into
 * pmu.c, sets PMU_CACHED and raises VIRQ_XENPMU; the guest owns the
 * context until XENPMU_flush.  Everything in it is untrusted input.
 *
 * vcpu_id    vCPU that was interrupted;
 * pcpu_id    physical CPU that took the PMI (vcpu_id for an unprivileged
 *            guest);
 * domain_id  interrupted domain: DOMID_SELF, DOMID_XEN, or (ALL mode) the
 *            id of another domain, including 0 for another dom0 vCPU.
 */
struct xen_pmu_data {
	uint32_t vcpu_id;
	uint32_t pcpu_id;
	domid_t domain_id;
	uint8_t pad[6];
	struct xen_pmu_arch pmu;
};

#endif /* __XEN_PUBLIC_XENPMU_H__ */
