// SPDX-License-Identifier: GPL-2.0
/*
 * Xen PV PMU driver.
 *
 * A PV guest cannot touch the PMU itself: every PMU MSR access traps into
 * Xen, and a counter overflow is taken by Xen, which saves the PMU context
 * into a page shared with the guest, marks it PMU_CACHED and raises
 * VIRQ_XENPMU.  From then until XENPMU_flush (the PMI window) the context
 * is the guest's, in that page: this driver serves every PMU MSR access
 * and RDPMC from it, in perf's handler and in whatever perf runs between
 * Xen's PMI and the handler (a tick, a context switch), so that a PMI
 * costs one hypercall and no trap (before the handler, reads only: see
 * xen_pmu_page_ours()).  Outside the window the page is stale; accesses
 * trap, except event-select reads, which a per-CPU shadow of what was
 * last written answers.
 *
 * The vendor model (struct xen_pmu_model) says which MSRs are PMU MSRs and
 * where they live in the page; it is built once from CPUID, and the bank
 * offsets Xen writes at XENPMU_init are checked once against the page and
 * the model, then never read again.  What differs between Intel's and
 * AMD's vPMU is in one table of operations per vendor
 * (struct xen_pmu_vendor_ops); the rest of the driver never asks which
 * vendor it runs on.
 */

#define pr_fmt(fmt) "xen_pmu: " fmt

#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include <asm/apicdef.h>
#include <asm/msr.h>
#include <linux/processor.h>
#include <asm/xen/hypercall.h>
#include <asm/xen/page.h>
#include <xen/xen.h>
#include <xen/interface/version.h>
#include <xen/interface/xen.h>
#include <xen/interface/xenpmu.h>
#include <xen/xen-ops.h>

#include "xen-ops.h"
#include "pmu.h"
#include "../events/perf_event.h"

/* Intel event select bits Xen 4.17 refuses at flush */
#define XEN_PMU_INTEL_SEL_BAD		(GENMASK_ULL(63, 32) |			\
					 ARCH_PERFMON_EVENTSEL_ANY |		\
					 ARCH_PERFMON_EVENTSEL_PIN_CONTROL)
/* Intel FIXED_CTR_CTRL: the bits of one counter Xen 4.17 accepts */
#define XEN_PMU_INTEL_FIXED_OK		(INTEL_FIXED_0_KERNEL | INTEL_FIXED_0_USER | \
					 INTEL_FIXED_0_ENABLE_PMI)
/* AMD event select bits Xen 4.17 accepts at flush; the others are reserved */
#define XEN_PMU_AMD_SEL_OK		(AMD64_RAW_EVENT_MASK |			\
					 ARCH_PERFMON_EVENTSEL_USR |		\
					 ARCH_PERFMON_EVENTSEL_OS |		\
					 ARCH_PERFMON_EVENTSEL_INT |		\
					 ARCH_PERFMON_EVENTSEL_ENABLE |		\
					 AMD64_EVENTSEL_GUESTONLY |		\
					 AMD64_EVENTSEL_HOSTONLY)

static struct xen_pmu_model xen_pmu_model;
/* The running Xen, for messages: "4.20.5-pre" */
static char xen_pmu_xen_name[32];
/* The boot CPU's model reads CPUID leaf 0xA as Xen gives it. */
static bool xen_pmu_probing;
static DEFINE_PER_CPU(struct xen_pmu_cpu, xen_pmu_cpus);

/* True once the boot CPU's vPMU is registered with Xen. */
bool is_xen_pmu;

/* The hypercall, a trapped MSR access and the x86 perf handler are what
 * the KUnit tests replace with a model of the hypervisor and of perf.
 */
VISIBLE_IF_KUNIT int xen_pmu_hypercall(unsigned int op, void *arg)
{
	KUNIT_STATIC_STUB_REDIRECT(xen_pmu_hypercall, op, arg);
	return HYPERVISOR_xenpmu_op(op, arg);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_hypercall);

VISIBLE_IF_KUNIT bool xen_pmu_rdmsr_trap(u32 msr, u64 *val)
{
	int err = 0;

	KUNIT_STATIC_STUB_REDIRECT(xen_pmu_rdmsr_trap, msr, val);
	*val = native_read_msr_safe(msr, &err);
	return !err;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_rdmsr_trap);

VISIBLE_IF_KUNIT int xen_pmu_handle_irq(struct pt_regs *regs)
{
	KUNIT_STATIC_STUB_REDIRECT(xen_pmu_handle_irq, regs);
	if (!x86_pmu.handle_irq)
		return 0;
	return x86_pmu.handle_irq(regs);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_handle_irq);

/* How long handling a PMI took, for perf's sampling-rate limit */
VISIBLE_IF_KUNIT void xen_pmu_took(u64 ns)
{
	KUNIT_STATIC_STUB_REDIRECT(xen_pmu_took, ns);
	perf_sample_event_took(ns);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_took);

/* When this vCPU's runstate last changed: Xen deschedules it in between. */
VISIBLE_IF_KUNIT u64 xen_pmu_sched_stamp(void)
{
	struct vcpu_runstate_info rs;

	KUNIT_STATIC_STUB_REDIRECT(xen_pmu_sched_stamp);
	/* perf's first LVTPC write, at boot, comes with preemption enabled */
	preempt_disable();
	xen_get_runstate_snapshot(&rs);
	preempt_enable();
	return rs.state_entry_time;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_sched_stamp);

/* Xen releases */

/**
 * xen_pmu_xen_release() - the hypervisor's release as XEN_PMU_XEN()
 * @version: XENVER_version's answer: major << 16 | minor
 * @extra: XENVER_extraversion, such as ".7", ".5-pre" or "-rc"
 *
 * A stable branch between two releases (".5-pre") is taken as its last
 * release (.4): a change due in the next one may or may not be in yet.
 *
 * Return: the release, each part capped at 255.
 */
VISIBLE_IF_KUNIT u32 xen_pmu_xen_release(u32 version, const char *extra)
{
	unsigned int patch = 0;

	if (*extra == '.' && isdigit(extra[1])) {
		for (extra++; isdigit(*extra); extra++)
			patch = min(patch * 10 + (*extra - '0'), 255U);
		if (*extra == '-' && patch)
			patch--;
	}
	return XEN_PMU_XEN(min(version >> 16, 255U), min(version & 0xffff, 255U), patch);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_xen_release);

/*
 * Where a vPMU change reached Xen: the first release of each stable branch
 * that has it.  Every branch after the last one listed has it, every
 * branch before the first has not.
 */
static bool xen_pmu_xen_has(u32 xen, const u32 *first, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (xen >> 8 == first[i] >> 8)
			return xen >= first[i];
	return xen > first[n - 1];
}

/* AMD family 1Ah gets the extended bank (Xen commit f29cc14de1d1). */
static const u32 xen_pmu_xen_amd_fam1ah[] = {
	XEN_PMU_XEN(4, 18, 5), XEN_PMU_XEN(4, 19, 2), XEN_PMU_XEN(4, 20, 0),
};

/* Trapped Intel event selects 4-7 reach the vPMU (Xen commit 4e9d9e7cc9a6). */
static const u32 xen_pmu_xen_intel_sel8[] = {
	XEN_PMU_XEN(4, 19, 5), XEN_PMU_XEN(4, 20, 3), XEN_PMU_XEN(4, 21, 1),
	XEN_PMU_XEN(4, 22, 0),
};

/* Helpers of the vendor operations */

static bool xen_pmu_in_bank(u32 msr, u32 base, unsigned int stride,
			    unsigned int n, unsigned int *idx)
{
	u32 d;

	if (!base || msr < base)
		return false;
	d = msr - base;
	if (d % stride || d / stride >= n)
		return false;
	*idx = d / stride;
	return true;
}

/* AND every event select of the page's context with @keep. */
static void xen_pmu_mask_sels(struct xen_pmu_cpu *c, u64 keep)
{
	struct xen_pmu_reg r = { .kind = XEN_PMU_REG_EVNTSEL };

	for (r.idx = 0; r.idx < c->model->nr_gp; r.idx++)
		*c->model->ops->slot(c, &r) &= keep;
	c->shadow_valid = 0;
}

/* Intel */

static int xen_pmu_intel_init(struct xen_pmu_model *m,
			      const struct xen_pmu_cpuid *id)
{
	union cpuid10_eax eax = id->leaf_a_eax;
	union cpuid10_edx edx = id->leaf_a_edx;
	bool sel8 = xen_pmu_xen_has(id->xen, xen_pmu_xen_intel_sel8,
				    ARRAY_SIZE(xen_pmu_xen_intel_sel8));

	/* Xen supports family 6 with perfmon 2..5, shown as 3. */
	if (id->family != 6 || eax.split.version_id < 2)
		return -ENODEV;
	m->name = "Intel architectural perfmon";
	m->version = min_t(unsigned int, eax.split.version_id, 3);
	m->nr_gp = min_t(unsigned int, eax.split.num_counters, XEN_PMU_MAX_GP);
	m->nr_fixed = min_t(unsigned int, edx.split.num_counters_fixed, XEN_PMU_MAX_FIXED);
	m->fixed_width = edx.split.bit_width_fixed;
	if (!m->nr_gp)
		return -ENODEV;
	/*
	 * Trapped accesses reach counters 0-7, event selects 0-3 (0-7 from
	 * the releases in xen_pmu_xen_intel_sel8) and fixed counters 0-2.
	 */
	m->nr_gp_trap = min(m->nr_gp, sel8 ? 8U : 4U);
	m->nr_fixed_trap = min(m->nr_fixed, 3U);
	m->ctr_base = MSR_IA32_PERFCTR0;
	m->sel_base = MSR_P6_EVNTSEL0;
	m->stride = 1;
	m->full_width = MSR_IA32_PMC0;
	return 0;
}

static bool xen_pmu_intel_classify(const struct xen_pmu_model *m, u32 msr,
				   struct xen_pmu_reg *r)
{
	switch (msr) {
	case MSR_CORE_PERF_FIXED_CTR_CTRL:
		r->kind = XEN_PMU_REG_FIXED_CTRL;
		return true;
	case MSR_CORE_PERF_GLOBAL_STATUS:
		r->kind = XEN_PMU_REG_GLOBAL_STATUS;
		return true;
	case MSR_CORE_PERF_GLOBAL_CTRL:
		r->kind = XEN_PMU_REG_GLOBAL_CTRL;
		return true;
	case MSR_CORE_PERF_GLOBAL_OVF_CTRL:
		r->kind = XEN_PMU_REG_GLOBAL_OVF_CTRL;
		return true;
	}
	if (xen_pmu_in_bank(msr, m->ctr_base, 1, m->nr_gp, &r->idx) ||
	    xen_pmu_in_bank(msr, m->full_width, 1, m->nr_gp, &r->idx)) {
		r->kind = XEN_PMU_REG_COUNTER;
		return true;
	}
	if (xen_pmu_in_bank(msr, m->sel_base, 1, m->nr_gp, &r->idx)) {
		r->kind = XEN_PMU_REG_EVNTSEL;
		return true;
	}
	if (xen_pmu_in_bank(msr, MSR_CORE_PERF_FIXED_CTR0, 1, m->nr_fixed, &r->idx)) {
		r->kind = XEN_PMU_REG_FIXED;
		return true;
	}
	return false;
}

/* Intel's page: the fixed counters, then a counter/control pair per counter. */
static void xen_pmu_intel_banks(const struct xen_pmu_model *m,
				const struct xen_pmu_data *page,
				struct xen_pmu_banks *b)
{
	b->a = READ_ONCE(page->pmu.c.intel.fixed_counters);
	b->b = READ_ONCE(page->pmu.c.intel.arch_counters);
	b->a_len = m->nr_fixed * sizeof(u64);
	b->b_len = m->nr_gp * sizeof(struct xen_pmu_cntr_pair);
	b->fixed_part = sizeof(struct xen_pmu_intel_ctxt);
}

static u64 *xen_pmu_intel_slot(struct xen_pmu_cpu *c, const struct xen_pmu_reg *r)
{
	struct xen_pmu_intel_ctxt *intel = &c->page->pmu.c.intel;
	struct xen_pmu_cntr_pair *pairs = (void *)c->page + c->bank_b;

	switch (r->kind) {
	case XEN_PMU_REG_COUNTER:
		return &pairs[r->idx].counter;
	case XEN_PMU_REG_EVNTSEL:
		return &pairs[r->idx].control;
	case XEN_PMU_REG_FIXED:
		return (u64 *)((void *)c->page + c->bank_a) + r->idx;
	case XEN_PMU_REG_FIXED_CTRL:
		return &intel->fixed_ctrl;
	case XEN_PMU_REG_GLOBAL_CTRL:
		return &intel->global_ctrl;
	case XEN_PMU_REG_GLOBAL_STATUS:
		return &intel->global_status;
	case XEN_PMU_REG_GLOBAL_OVF_CTRL:
		return &intel->global_ovf_ctrl;
	default:
		return NULL;
	}
}

/* RDPMC: bit 30 selects the fixed counters. */
static void xen_pmu_intel_pmc(int counter, struct xen_pmu_reg *r)
{
	r->kind = XEN_PMU_REG_COUNTER;
	r->idx = counter;
	if (counter & INTEL_PMC_FIXED_RDPMC_BASE) {
		r->kind = XEN_PMU_REG_FIXED;
		r->idx = counter & ~INTEL_PMC_FIXED_RDPMC_BASE;
	}
}

/* The GLOBAL_OVF_CTRL bits Xen 4.17 accepts at flush. */
static u64 xen_pmu_ovf_mask(const struct xen_pmu_model *m)
{
	u64 mask = GENMASK_ULL(m->nr_gp - 1, 0) | GLOBAL_STATUS_BUFFER_OVF |
		   GLOBAL_STATUS_COND_CHG;

	if (m->nr_fixed)
		mask |= GENMASK_ULL(INTEL_PMC_IDX_FIXED + m->nr_fixed - 1,
				    INTEL_PMC_IDX_FIXED);
	if (m->version > 2)
		mask |= GLOBAL_STATUS_UNC_OVF;
	return mask;
}

/* The GLOBAL_CTRL bits Xen 4.17 accepts at flush. */
static u64 xen_pmu_global_mask(const struct xen_pmu_model *m)
{
	u64 mask = GENMASK_ULL(m->nr_gp - 1, 0);

	if (m->nr_fixed)
		mask |= GENMASK_ULL(INTEL_PMC_IDX_FIXED + m->nr_fixed - 1,
				    INTEL_PMC_IDX_FIXED);
	return mask;
}

static void xen_pmu_intel_sanitize(struct xen_pmu_cpu *c)
{
	const struct xen_pmu_model *m = c->model;
	struct xen_pmu_intel_ctxt *intel = &c->page->pmu.c.intel;
	u64 fixed_ok = 0, *fixed = (u64 *)((void *)c->page + c->bank_a);
	unsigned int i;

	xen_pmu_mask_sels(c, ~XEN_PMU_INTEL_SEL_BAD);
	for (i = 0; i < m->nr_fixed; i++) {
		fixed_ok |= intel_fixed_bits_by_idx(i, XEN_PMU_INTEL_FIXED_OK);
		if (m->fixed_width && m->fixed_width < 64)
			fixed[i] &= GENMASK_ULL(m->fixed_width - 1, 0);
	}
	intel->fixed_ctrl &= fixed_ok;
	intel->global_ctrl &= xen_pmu_global_mask(m);
	intel->global_ovf_ctrl &= xen_pmu_ovf_mask(m);
	intel->pebs_enable = 0;
}

static void xen_pmu_intel_stop(struct xen_pmu_cpu *c)
{
	c->page->pmu.c.intel.global_ctrl = 0;
	c->page->pmu.c.intel.global_ovf_ctrl = 0;
	c->page->pmu.c.intel.fixed_ctrl = 0;
	xen_pmu_mask_sels(c, 0);
}

VISIBLE_IF_KUNIT const struct xen_pmu_vendor_ops xen_pmu_intel_ops = {
	.init = xen_pmu_intel_init,
	.classify = xen_pmu_intel_classify,
	.banks = xen_pmu_intel_banks,
	.slot = xen_pmu_intel_slot,
	.pmc = xen_pmu_intel_pmc,
	.sanitize = xen_pmu_intel_sanitize,
	.stop = xen_pmu_intel_stop,
};
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_intel_ops);

/* AMD and Hygon */

static int xen_pmu_amd_init(struct xen_pmu_model *m,
			    const struct xen_pmu_cpuid *id)
{
	bool hygon = id->vendor == X86_VENDOR_HYGON;

	if (!hygon && (id->family == 0x10 || id->family == 0x12 ||
		       id->family == 0x14 || id->family == 0x16)) {
		m->name = "AMD K7 bank";
		m->nr_gp = AMD64_NUM_COUNTERS;
		m->ctr_base = MSR_K7_PERFCTR0;
		m->sel_base = MSR_K7_EVNTSEL0;
		m->stride = 1;
	} else if ((!hygon && (id->family == 0x15 || id->family == 0x17 ||
			       id->family == 0x19)) ||
		   (hygon && id->family == 0x18) ||
		   (!hygon && id->family == 0x1a &&
		    xen_pmu_xen_has(id->xen, xen_pmu_xen_amd_fam1ah,
				    ARRAY_SIZE(xen_pmu_xen_amd_fam1ah)))) {
		m->name = hygon ? "Hygon extended bank" : "AMD extended bank";
		m->nr_gp = AMD64_NUM_COUNTERS_CORE;
		m->ctr_base = MSR_F15H_PERF_CTR;
		m->sel_base = MSR_F15H_PERF_CTL;
		m->stride = 2;
		m->legacy_ctr = MSR_K7_PERFCTR0;
		m->legacy_sel = MSR_K7_EVNTSEL0;
	} else {
		/* A family a later Xen has a vPMU for: Xen refuses it too. */
		return !hygon && id->family == 0x1a ? -EOPNOTSUPP : -ENODEV;
	}
	m->nr_gp_trap = m->nr_gp;
	return 0;
}

/* The extended bank's first four registers are also the K7 bank's. */
static bool xen_pmu_amd_classify(const struct xen_pmu_model *m, u32 msr,
				 struct xen_pmu_reg *r)
{
	if (xen_pmu_in_bank(msr, m->ctr_base, m->stride, m->nr_gp, &r->idx) ||
	    xen_pmu_in_bank(msr, m->legacy_ctr, 1, AMD64_NUM_COUNTERS, &r->idx)) {
		r->kind = XEN_PMU_REG_COUNTER;
		return true;
	}
	if (xen_pmu_in_bank(msr, m->sel_base, m->stride, m->nr_gp, &r->idx) ||
	    xen_pmu_in_bank(msr, m->legacy_sel, 1, AMD64_NUM_COUNTERS, &r->idx)) {
		r->kind = XEN_PMU_REG_EVNTSEL;
		return true;
	}
	return false;
}

/* AMD's page: the counters, then the controls. */
static void xen_pmu_amd_banks(const struct xen_pmu_model *m,
			      const struct xen_pmu_data *page,
			      struct xen_pmu_banks *b)
{
	b->a = READ_ONCE(page->pmu.c.amd.counters);
	b->b = READ_ONCE(page->pmu.c.amd.ctrls);
	b->a_len = m->nr_gp * sizeof(u64);
	b->b_len = b->a_len;
	b->fixed_part = sizeof(struct xen_pmu_amd_ctxt);
}

static u64 *xen_pmu_amd_slot(struct xen_pmu_cpu *c, const struct xen_pmu_reg *r)
{
	switch (r->kind) {
	case XEN_PMU_REG_COUNTER:
		return (u64 *)((void *)c->page + c->bank_a) + r->idx;
	case XEN_PMU_REG_EVNTSEL:
		return (u64 *)((void *)c->page + c->bank_b) + r->idx;
	default:
		return NULL;
	}
}

static void xen_pmu_amd_pmc(int counter, struct xen_pmu_reg *r)
{
	r->kind = XEN_PMU_REG_COUNTER;
	r->idx = counter;
}

static void xen_pmu_amd_sanitize(struct xen_pmu_cpu *c)
{
	xen_pmu_mask_sels(c, XEN_PMU_AMD_SEL_OK);
}

static void xen_pmu_amd_stop(struct xen_pmu_cpu *c)
{
	xen_pmu_mask_sels(c, 0);
}

VISIBLE_IF_KUNIT const struct xen_pmu_vendor_ops xen_pmu_amd_ops = {
	.init = xen_pmu_amd_init,
	.classify = xen_pmu_amd_classify,
	.banks = xen_pmu_amd_banks,
	.slot = xen_pmu_amd_slot,
	.pmc = xen_pmu_amd_pmc,
	.sanitize = xen_pmu_amd_sanitize,
	.stop = xen_pmu_amd_stop,
};
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_amd_ops);

/* The vendor model */

/**
 * xen_pmu_model_init() - describe the PMU the running Xen virtualises
 * @m: filled in
 * @id: the boot CPU's vendor, family and CPUID leaf 0xA, and Xen's release
 *
 * What differs between the releases: AMD family 1Ah has the extended bank
 * from Xen 4.20 (and 4.18.5, 4.19.2); Intel event selects 4-7 are reached
 * by trapped accesses from Xen 4.22 (and 4.19.5, 4.20.3, 4.21.1).
 *
 * Return: 0; -EOPNOTSUPP for a CPU that only a later Xen gives a vPMU;
 * -ENODEV for a vendor, family or perfmon version that no Xen does.
 */
VISIBLE_IF_KUNIT int xen_pmu_model_init(struct xen_pmu_model *m,
					const struct xen_pmu_cpuid *id)
{
	const struct xen_pmu_vendor_ops *ops;
	int ret;

	memset(m, 0, sizeof(*m));
	switch (id->vendor) {
	case X86_VENDOR_INTEL:
		ops = &xen_pmu_intel_ops;
		break;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		ops = &xen_pmu_amd_ops;
		break;
	default:
		return -ENODEV;
	}
	ret = ops->init(m, id);
	if (!ret)
		m->ops = ops;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_model_init);

/**
 * xen_pmu_classify() - is @msr a register of the vPMU, and which
 * @m: the vendor model
 * @msr: MSR index
 * @r: the register, when it is one
 *
 * Only registers inside the banks the model declares are classified;
 * anything else is left to trap into Xen.
 *
 * Return: true if @msr is a vPMU register.
 */
VISIBLE_IF_KUNIT bool xen_pmu_classify(const struct xen_pmu_model *m, u32 msr,
				       struct xen_pmu_reg *r)
{
	r->kind = XEN_PMU_REG_NONE;
	r->idx = 0;
	return m->ops && m->ops->classify(m, msr, r);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_classify);

/* The MSR a trapped access to @r uses, or 0 if Xen routes none. */
static u32 xen_pmu_reg_msr(const struct xen_pmu_model *m,
			   const struct xen_pmu_reg *r)
{
	switch (r->kind) {
	case XEN_PMU_REG_COUNTER:
		if (r->idx >= m->nr_gp_trap)
			return 0;
		return m->ctr_base + r->idx * m->stride;
	case XEN_PMU_REG_FIXED:
		if (r->idx >= m->nr_fixed_trap)
			return 0;
		return MSR_CORE_PERF_FIXED_CTR0 + r->idx;
	default:
		return 0;
	}
}

/* The shared page */

static bool xen_pmu_bank_ok(u32 off, size_t len, size_t fixed_part)
{
	const size_t ctxt = offsetof(struct xen_pmu_data, pmu.c);

	return off >= fixed_part && IS_ALIGNED(off, sizeof(u64)) &&
	       off <= PAGE_SIZE - ctxt && len <= PAGE_SIZE - ctxt - off;
}

/**
 * xen_pmu_attach() - check the banks Xen declared and take the page
 * @c: the vCPU's state
 * @m: the vendor model
 * @page: the page, after a successful XENPMU_init
 *
 * Return: 0; -ENODATA when Xen declared no banks (it gave this vCPU no
 * vPMU context, e.g. because the mode is off); -ERANGE when a bank does
 * not fit in the page or the banks overlap.
 */
VISIBLE_IF_KUNIT int xen_pmu_attach(struct xen_pmu_cpu *c,
				    const struct xen_pmu_model *m,
				    struct xen_pmu_data *page)
{
	const size_t ctxt = offsetof(struct xen_pmu_data, pmu.c);
	struct xen_pmu_banks b;

	if (!m->ops)
		return -ENODEV;
	/* Each offset is read once: what is checked is what is used. */
	m->ops->banks(m, page, &b);
	if (!b.a && !b.b)
		return -ENODATA;
	if (!xen_pmu_bank_ok(b.a, b.a_len, b.fixed_part) ||
	    !xen_pmu_bank_ok(b.b, b.b_len, b.fixed_part) ||
	    (b.a < b.b + b.b_len && b.b < b.a + b.a_len && b.a_len && b.b_len))
		return -ERANGE;
	c->model = m;
	c->bank_a = ctxt + b.a;
	c->bank_b = ctxt + b.b;
	c->in_pmi = false;
	c->shadow_valid = 0;
	/* XENPMU_init leaves this vCPU's LVTPC masked; so does the mirror. */
	WRITE_ONCE(page->pmu.l.lapic_lvtpc, APIC_LVT_MASKED);
	c->lvtpc_applied = 0;
	c->page = page;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_attach);

/* Where @r lives in the page, or NULL if it has no place there. */
static u64 *xen_pmu_slot(struct xen_pmu_cpu *c, const struct xen_pmu_reg *r)
{
	const struct xen_pmu_model *m = c->model;

	switch (r->kind) {
	case XEN_PMU_REG_COUNTER:
	case XEN_PMU_REG_EVNTSEL:
		if (r->idx >= m->nr_gp)
			return NULL;
		break;
	case XEN_PMU_REG_FIXED:
		if (r->idx >= m->nr_fixed)
			return NULL;
		break;
	default:
		break;
	}
	return m->ops->slot(c, r);
}

/*
 * Is the page's context the one Xen will go on with?  From Xen's PMI for
 * this vCPU (PMU_CACHED) to XENPMU_flush, Xen holds the context in the
 * page and reloads it from there at flush.  In the VIRQ handler that is
 * always so; before it, with event delivery masked so that the handler
 * cannot flush in between, the page's flag tells.  Reads are then served
 * from the page: on AMD, perf's wait for an overflowed counter to be reset
 * (which only the handler does) would otherwise trap 50 times.  Writes go
 * to the page as well.  A trapped one would reach only Xen's own copy,
 * which the flush reloads the page over: perf's tick, which reads a
 * counter and loads the next period, would then take the period as loaded
 * while the counter kept its old value, and the next read would add a
 * period that never elapsed (or, behind the old value, nearly 2^48) to
 * the event's count, from which frequency mode computes every later
 * period.  As on hardware, a counter loaded before the handler runs no
 * longer shows its overflow there (on Intel the status bit still does).
 */
static bool xen_pmu_page_ours(const struct xen_pmu_cpu *c)
{
	return c->in_pmi ||
	       (irqs_disabled() && (READ_ONCE(c->page->pmu.pmu_flags) & PMU_CACHED));
}

/* An access served from the page: count the ones before the handler. */
static void xen_pmu_served(struct xen_pmu_cpu *c, u64 *stat)
{
	(*stat)++;
	if (!c->in_pmi)
		c->stats.pending++;
}

/**
 * xen_pmu_cpu_msr_read() - serve a PMU MSR read without trapping if possible
 * @c: the vCPU's state
 * @msr: MSR index
 * @val: the value, when served
 *
 * Return: true if @val holds the register; false if the caller must read
 * the MSR (a trap into Xen).
 */
VISIBLE_IF_KUNIT bool xen_pmu_cpu_msr_read(struct xen_pmu_cpu *c, u32 msr,
					   u64 *val)
{
	struct xen_pmu_reg r;
	u64 *slot;

	if (!c->page || !xen_pmu_classify(c->model, msr, &r))
		return false;
	if (xen_pmu_page_ours(c)) {
		slot = xen_pmu_slot(c, &r);
		if (slot) {
			/* Like the hardware register, it reads as zero. */
			*val = r.kind == XEN_PMU_REG_GLOBAL_OVF_CTRL ? 0 : READ_ONCE(*slot);
			xen_pmu_served(c, &c->stats.msr_emulated);
			return true;
		}
	} else if (r.kind == XEN_PMU_REG_EVNTSEL &&
		   test_bit(r.idx, &c->shadow_valid)) {
		*val = c->shadow_sel[r.idx];
		c->stats.msr_shadowed++;
		return true;
	}
	c->stats.msr_trapped++;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_msr_read);

/**
 * xen_pmu_cpu_msr_write() - write a PMU MSR into the page if in a PMI
 * @c: the vCPU's state
 * @msr: MSR index
 * @val: the value
 *
 * While the page holds the context (in the PMI window, or with the PMI
 * pending and interrupts off) the write goes to the page, where Xen takes
 * it at XENPMU_flush: GLOBAL_OVF_CTRL writes accumulate (Xen applies only
 * the page's final value) and clear their bits from the cached status, so
 * that perf's handler sees them acknowledged.  Otherwise the write is the
 * caller's to make; an event select is remembered so that reading it back
 * needs no trap.
 *
 * Return: true if the write was served from the page.
 */
VISIBLE_IF_KUNIT bool xen_pmu_cpu_msr_write(struct xen_pmu_cpu *c, u32 msr,
					    u64 val)
{
	struct xen_pmu_intel_ctxt *intel;
	struct xen_pmu_reg r;
	u64 *slot;

	if (!c->page || !xen_pmu_classify(c->model, msr, &r))
		return false;
	if (r.kind == XEN_PMU_REG_EVNTSEL) {
		c->shadow_sel[r.idx] = val;
		__set_bit(r.idx, &c->shadow_valid);
	}
	if (!xen_pmu_page_ours(c)) {
		c->stats.msr_trapped++;
		return false;
	}
	slot = xen_pmu_slot(c, &r);
	if (!slot) {
		c->stats.msr_trapped++;
		return false;
	}
	intel = &c->page->pmu.c.intel;
	switch (r.kind) {
	case XEN_PMU_REG_GLOBAL_OVF_CTRL:
		val &= xen_pmu_ovf_mask(c->model);
		WRITE_ONCE(*slot, READ_ONCE(*slot) | val);
		WRITE_ONCE(intel->global_status, READ_ONCE(intel->global_status) & ~val);
		break;
	case XEN_PMU_REG_GLOBAL_STATUS:
		/* Read-only: Xen ignores the page's copy at flush. */
		break;
	default:
		WRITE_ONCE(*slot, val);
		break;
	}
	xen_pmu_served(c, &c->stats.msr_emulated);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_msr_write);

/**
 * xen_pmu_cpu_read_pmc() - emulate RDPMC, which faults in a PV guest
 * @c: the vCPU's state
 * @counter: RDPMC index (Intel: bit 30 selects the fixed counters)
 *
 * Return: the counter, from the page inside a PMI, else by a trapped read
 * of its MSR; 0 for a counter Xen does not provide.
 */
VISIBLE_IF_KUNIT u64 xen_pmu_cpu_read_pmc(struct xen_pmu_cpu *c, int counter)
{
	struct xen_pmu_reg r;
	u64 val = 0, *slot;
	u32 msr;

	if (!c->model)
		return 0;
	c->model->ops->pmc(counter, &r);
	if (c->page && xen_pmu_page_ours(c)) {
		slot = xen_pmu_slot(c, &r);
		if (slot) {
			xen_pmu_served(c, &c->stats.rdpmc_emulated);
			return READ_ONCE(*slot);
		}
	}
	msr = xen_pmu_reg_msr(c->model, &r);
	if (!msr)
		return 0;
	c->stats.rdpmc_trapped++;
	if (!xen_pmu_rdmsr_trap(msr, &val))
		return 0;
	return val;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_read_pmc);

/* Have Xen apply the page's LVTPC to this vCPU's physical APIC now. */
static int xen_pmu_apply_lvtpc(struct xen_pmu_cpu *c)
{
	int ret;

	c->stats.lvtpc++;
	ret = xen_pmu_hypercall(XENPMU_lvtpc_set, NULL);
	if (!ret)
		c->lvtpc_applied = xen_pmu_sched_stamp();
	return ret;
}

/*
 * Xen masks the physical LVTPC whenever it saves this vCPU's vPMU (each
 * time the vCPU is descheduled in self and hv mode) and unmasks it again
 * only when it loads a context that is running.  A context perf stopped
 * and then started again by trapped MSR writes, or one that a mode change
 * left unloaded, is counting with PMIs masked: the page's LVTPC must be
 * applied again, which is needed only if the vCPU was descheduled since
 * Xen last applied it.
 */
static bool xen_pmu_lvtpc_stale(struct xen_pmu_cpu *c)
{
	return !(READ_ONCE(c->page->pmu.l.lapic_lvtpc) & APIC_LVT_MASKED) &&
	       xen_pmu_sched_stamp() != c->lvtpc_applied;
}

/**
 * xen_pmu_cpu_lvtpc() - set the LVTPC mask bit Xen applies to our PMIs
 * @c: the vCPU's state
 * @val: the LVTPC value perf writes; Xen uses only APIC_LVT_MASKED
 *
 * The page's copy mirrors what Xen holds for this vCPU (masked from
 * XENPMU_init on, see xen_pmu_attach()); Xen never writes it.  Outside the
 * PMI window, a write that changes the mask bit, or an unmasked one after
 * Xen may have masked the physical LVTPC behind our back, is passed on;
 * inside it (also before the handler runs), the flush applies the page's
 * value.
 *
 * Return: 0 or the error of XENPMU_lvtpc_set.
 */
VISIBLE_IF_KUNIT int xen_pmu_cpu_lvtpc(struct xen_pmu_cpu *c, u32 val)
{
	u32 old;

	if (!c->page)
		return 0;
	old = READ_ONCE(c->page->pmu.l.lapic_lvtpc);
	WRITE_ONCE(c->page->pmu.l.lapic_lvtpc, val);
	if (xen_pmu_page_ours(c))
		return 0;
	if (!((old ^ val) & APIC_LVT_MASKED) && !xen_pmu_lvtpc_stale(c))
		return 0;
	return xen_pmu_apply_lvtpc(c);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_lvtpc);

/**
 * xen_pmu_cpu_may_start() - may a PMU MSR write outside a PMI start counting
 * @c: the vCPU's state
 * @msr: MSR index
 * @val: the value written
 *
 * An event select with its enable bit, a non-zero Intel GLOBAL_CTRL or
 * FIXED_CTR_CTRL: writes after which Xen's vPMU may be running again
 * without having reloaded our LVTPC.
 *
 * Return: true if xen_pmu_cpu_rearm() is to follow the trapped write.
 */
VISIBLE_IF_KUNIT bool xen_pmu_cpu_may_start(struct xen_pmu_cpu *c, u32 msr,
					    u64 val)
{
	struct xen_pmu_reg r;

	if (!c->page || xen_pmu_page_ours(c) || !xen_pmu_classify(c->model, msr, &r))
		return false;
	switch (r.kind) {
	case XEN_PMU_REG_EVNTSEL:
		return val & ARCH_PERFMON_EVENTSEL_ENABLE;
	case XEN_PMU_REG_GLOBAL_CTRL:
	case XEN_PMU_REG_FIXED_CTRL:
		return val;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_may_start);

/**
 * xen_pmu_cpu_rearm() - after a write that may start counting
 * @c: the vCPU's state
 *
 * Applies the page's LVTPC again if Xen may have masked it since.
 */
VISIBLE_IF_KUNIT void xen_pmu_cpu_rearm(struct xen_pmu_cpu *c)
{
	if (c->page && !xen_pmu_page_ours(c) && xen_pmu_lvtpc_stale(c))
		xen_pmu_apply_lvtpc(c);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_rearm);

/**
 * xen_pmu_cpu_resync() - bring Xen's vPMU state back after a mode change
 * @c: the vCPU's state
 *
 * Entering all mode, Xen stops switching vPMU contexts: a context it saved
 * before stays unloaded, its counters stopped and the LVTPC masked, until
 * a trapped access loads it.  Make one (a read of counter 0, which loads
 * the context) and apply the LVTPC; with a PMI pending, the flush that
 * ends it does both.
 */
VISIBLE_IF_KUNIT void xen_pmu_cpu_resync(struct xen_pmu_cpu *c)
{
	struct xen_pmu_reg r = { .kind = XEN_PMU_REG_COUNTER };
	u64 val;

	if (!c->page || xen_pmu_page_ours(c))
		return;
	c->stats.msr_trapped++;
	xen_pmu_rdmsr_trap(xen_pmu_reg_msr(c->model, &r), &val);
	if (!(READ_ONCE(c->page->pmu.l.lapic_lvtpc) & APIC_LVT_MASKED))
		xen_pmu_apply_lvtpc(c);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_resync);

/*
 * Hand the context back to Xen.  A context Xen refuses (-EIO) leaves the
 * vCPU with its counters stopped and its PMIs masked, so it is never left
 * like that: first the context is put within Xen's rules and flushed
 * again; if Xen still refuses it, every counter is stopped, which Xen
 * accepts, and the loss is reported.
 */
static void xen_pmu_flush(struct xen_pmu_cpu *c)
{
	int ret;

	c->stats.flushes++;
	ret = xen_pmu_hypercall(XENPMU_flush, NULL);
	if (!ret) {
		/* The flush applied the page's LVTPC. */
		c->lvtpc_applied = xen_pmu_sched_stamp();
		return;
	}
	c->stats.flush_errors++;
	if (ret == -EIO) {
		/* Within what Xen 4.17 validates at flush */
		c->model->ops->sanitize(c);
		c->stats.flushes++;
		ret = xen_pmu_hypercall(XENPMU_flush, NULL);
		if (!ret) {
			c->stats.flush_recovered++;
			pr_warn_ratelimited("CPU%u: Xen refused the PMU context; flushed it again within Xen's limits\n",
					    smp_processor_id());
			return;
		}
		c->stats.flush_errors++;
		/* Every counter stopped: a context Xen must accept */
		c->model->ops->stop(c);
		c->stats.flushes++;
		c->stats.stopped++;
		ret = xen_pmu_hypercall(XENPMU_flush, NULL);
		if (!ret) {
			pr_err_ratelimited("CPU%u: Xen refused the PMU context twice; counters of this CPU stopped\n",
					   smp_processor_id());
			return;
		}
		c->stats.flush_errors++;
	}
	pr_err_ratelimited("CPU%u: XENPMU_flush failed (%d); this CPU gets no more PMIs\n",
			   smp_processor_id(), ret);
}

/* Ids Xen can report for an interrupted context. */
static bool xen_pmu_domid_valid(u16 domid)
{
	return domid < DOMID_FIRST_RESERVED || domid == DOMID_SELF ||
	       domid == DOMID_XEN || domid == DOMID_IDLE;
}

static void xen_pmu_convert_regs(const struct xen_pmu_data *d, u64 flags,
				 struct pt_regs *regs)
{
	const struct xen_pmu_regs *xr = &d->pmu.r.regs;
	bool user;

	regs->ip = READ_ONCE(xr->ip);
	regs->sp = READ_ONCE(xr->sp);
	regs->cs = READ_ONCE(xr->cs);
	if (flags & PMU_SAMPLE_PV)
		user = flags & PMU_SAMPLE_USER;
	else
		user = READ_ONCE(xr->cpl) & 3;
	regs->cs = user ? regs->cs | 3 : regs->cs & ~3;
}

/**
 * xen_pmu_cpu_pmi() - handle VIRQ_XENPMU for one vCPU
 * @c: the vCPU's state
 *
 * Without PMU_CACHED Xen has not handed over a context: nothing is read
 * from the page and nothing is flushed (a flush would reload stale values).
 *
 * Return: IRQ_HANDLED if perf found an overflow.
 */
VISIBLE_IF_KUNIT irqreturn_t xen_pmu_cpu_pmi(struct xen_pmu_cpu *c)
{
	struct xen_pmu_data *d = c->page;
	struct pt_regs regs = {};
	irqreturn_t ret = IRQ_NONE;
	u64 flags, start;
	u32 vcpu;

	if (!d)
		return IRQ_NONE;
	flags = READ_ONCE(d->pmu.pmu_flags);
	if (!(flags & PMU_CACHED)) {
		c->stats.spurious++;
		return IRQ_NONE;
	}
	c->stats.pmis++;
	c->flags = flags;
	c->domid = READ_ONCE(d->domain_id);
	c->pcpu = READ_ONCE(d->pcpu_id);
	vcpu = READ_ONCE(d->vcpu_id);
	c->vcpu = vcpu < U16_MAX ? vcpu : U16_MAX;
	if (!xen_pmu_domid_valid(c->domid) || vcpu >= U16_MAX) {
		c->stats.bad_samples++;
		if (!xen_pmu_domid_valid(c->domid))
			c->domid = U16_MAX;	/* unknown */
	}
	xen_pmu_convert_regs(d, flags, &regs);
	start = local_clock();
	c->in_pmi = true;
	if (xen_pmu_handle_irq(&regs))
		ret = IRQ_HANDLED;
	xen_pmu_flush(c);
	c->in_pmi = false;
	/*
	 * As x86's NMI handler does: perf lowers its highest sampling rate
	 * when handling PMIs takes too much of the CPU.  Without it a high
	 * rate on a slow vCPU (or under a loaded Xen) leaves it nothing else.
	 */
	xen_pmu_took(local_clock() - start);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_pmi);

/* Hooks for the rest of arch/x86/xen */

bool pmu_msr_read(unsigned int msr, u64 *val, int *err)
{
	return xen_pmu_cpu_msr_read(this_cpu_ptr(&xen_pmu_cpus), msr, val);
}

bool pmu_msr_write(unsigned int msr, u32 low, u32 high, int *err)
{
	struct xen_pmu_cpu *c = this_cpu_ptr(&xen_pmu_cpus);
	u64 val = ((u64)high << 32) | low;

	if (xen_pmu_cpu_msr_write(c, msr, val))
		return true;
	if (!xen_pmu_cpu_may_start(c, msr, val))
		return false;
	/* The trapped write first, then the LVTPC: see xen_pmu_lvtpc_stale(). */
	if (err)
		*err = native_write_msr_safe(msr, low, high);
	else
		native_write_msr(msr, low, high);
	xen_pmu_cpu_rearm(c);
	return true;
}

unsigned long long xen_read_pmc(int counter)
{
	return xen_pmu_cpu_read_pmc(this_cpu_ptr(&xen_pmu_cpus), counter);
}

int pmu_apic_update(u32 val)
{
	return xen_pmu_cpu_lvtpc(this_cpu_ptr(&xen_pmu_cpus), val);
}

static void xen_pmu_resync_this_cpu(void *unused)
{
	xen_pmu_cpu_resync(this_cpu_ptr(&xen_pmu_cpus));
}

/**
 * xen_pmu_mode_changed() - the vPMU mode was set: re-arm every vCPU
 *
 * Called after a successful XENPMU_mode_set.  Every online vCPU makes Xen
 * load its context and apply its LVTPC again (xen_pmu_cpu_resync()), so
 * that a recording goes on sampling across the change.
 */
void xen_pmu_mode_changed(void)
{
	if (is_xen_pmu)
		on_each_cpu(xen_pmu_resync_this_cpu, NULL, 1);
}

irqreturn_t xen_pmu_irq_handler(int irq, void *dev_id)
{
	return xen_pmu_cpu_pmi(this_cpu_ptr(&xen_pmu_cpus));
}

/*
 * Xen routes trapped accesses of Intel event selects 0-3 (0-7 from the
 * releases in xen_pmu_xen_intel_sel8) and fixed counters 0-2 to the vPMU:
 * show perf no more than that, so that it never programs a counter that
 * works in a PMI and faults outside it.  Before the model is built, the
 * fewest any release routes.
 */
void xen_pmu_cpuid(unsigned int leaf, unsigned int *ax, unsigned int *dx)
{
	union cpuid10_eax eax = { .full = *ax };
	union cpuid10_edx edx = { .full = *dx };
	bool built = xen_pmu_model.ops;

	if (leaf != 0xa || boot_cpu_data.x86_vendor != X86_VENDOR_INTEL || xen_pmu_probing)
		return;
	/* What trapped accesses reach: the model's, once it is built */
	eax.split.num_counters = min_t(unsigned int, eax.split.num_counters,
				       built ? xen_pmu_model.nr_gp_trap : 4);
	edx.split.num_counters_fixed = min_t(unsigned int, edx.split.num_counters_fixed,
					     built ? xen_pmu_model.nr_fixed_trap : 3);
	*ax = eax.full;
	*dx = edx.full;
}

/* Perf guest callbacks: only a PMI from Xen describes another context. */

/* Our own domain id: dom0's is 0; a domU does not know its own. */
static u16 xen_pmu_own_domid(void)
{
	return xen_initial_domain() ? 0 : U16_MAX;
}

/**
 * xen_pmu_cpu_guest_state() - perf's guest state of the current sample
 * @c: the vCPU's state
 *
 * Samples of our own domain, on this vCPU or another one, are ordinary
 * host samples; so is anything outside the PMI window.  Samples of the
 * hypervisor (DOMID_XEN, and the idle domain, which is Xen running) are
 * PERF_GUEST_HYPERVISOR; those of other domains are guest samples.
 *
 * Return: 0 for a host sample, else PERF_GUEST_ACTIVE and the mode bits.
 */
VISIBLE_IF_KUNIT unsigned int xen_pmu_cpu_guest_state(struct xen_pmu_cpu *c)
{
	unsigned int state = PERF_GUEST_ACTIVE;

	if (!c->page || !c->in_pmi || c->domid == DOMID_SELF ||
	    c->domid == xen_pmu_own_domid())
		return 0;
	if (c->domid == DOMID_XEN || c->domid == DOMID_IDLE)
		return PERF_GUEST_ACTIVE | PERF_GUEST_HYPERVISOR;
	/* An id Xen cannot have meant: say nothing we do not know. */
	if (c->domid >= DOMID_FIRST_RESERVED)
		return 0;
	if (c->flags & PMU_SAMPLE_PV) {
		if (c->flags & PMU_SAMPLE_USER)
			state |= PERF_GUEST_USER;
	} else if (READ_ONCE(c->page->pmu.r.regs.cpl) & 3) {
		state |= PERF_GUEST_USER;
	}
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_guest_state);

/**
 * xen_pmu_cpu_guest_ip() - the IP of a sample of another context
 * @c: the vCPU's state
 *
 * Return: the interrupted IP Xen reported, or 0 outside the PMI window.
 */
VISIBLE_IF_KUNIT unsigned long xen_pmu_cpu_guest_ip(struct xen_pmu_cpu *c)
{
	if (!c->page || !c->in_pmi)
		return 0;
	return READ_ONCE(c->page->pmu.r.regs.ip);
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_guest_ip);

/**
 * xen_pmu_cpu_virt_id() - PERF_SAMPLE_VIRT_ID of the current sample
 * @c: the vCPU's state
 * @id: filled in; a field that is not known is all ones
 *
 * Inside the PMI window: the physical CPU (dom0 only: Xen gives other
 * domains their vCPU number there), the interrupted domain (our own id
 * for DOMID_SELF, DOMID_XEN for Xen and for its idle domain) and its vCPU.
 * Outside it (software events, tracepoints): our own domain and vCPU,
 * physical CPU unknown.
 *
 * Return: true.
 */
VISIBLE_IF_KUNIT bool xen_pmu_cpu_virt_id(struct xen_pmu_cpu *c,
					  struct perf_sample_virt_id *id)
{
	if (!c->page || !c->in_pmi) {
		id->pcpu = U32_MAX;
		id->domid = xen_pmu_own_domid();
		/* A PV domain's CPU numbers are its vCPU ids. */
		id->vcpu = smp_processor_id();
		return true;
	}
	id->pcpu = xen_initial_domain() ? c->pcpu : U32_MAX;
	if (c->domid == DOMID_SELF)
		id->domid = xen_pmu_own_domid();
	else if (c->domid == DOMID_IDLE)
		id->domid = DOMID_XEN;
	else
		id->domid = c->domid;
	id->vcpu = c->vcpu;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_virt_id);

static unsigned int xen_guest_state(void)
{
	return xen_pmu_cpu_guest_state(this_cpu_ptr(&xen_pmu_cpus));
}

static unsigned long xen_get_guest_ip(void)
{
	return xen_pmu_cpu_guest_ip(this_cpu_ptr(&xen_pmu_cpus));
}

static bool xen_get_virt_id(struct perf_sample_virt_id *id)
{
	return xen_pmu_cpu_virt_id(this_cpu_ptr(&xen_pmu_cpus), id);
}

static struct perf_guest_info_callbacks xen_guest_cbs = {
	.state = xen_guest_state,
	.get_ip = xen_get_guest_ip,
	.get_virt_id = xen_get_virt_id,
};

/* Lifecycle */

static int xen_pmu_register(int cpu, struct xen_pmu_data *page)
{
	struct xen_pmu_params xp = {
		.version.maj = XENPMU_VER_MAJ,
		.version.min = XENPMU_VER_MIN,
		.val = pfn_to_mfn(virt_to_pfn(page)),
		.vcpu = cpu,
	};

	return xen_pmu_hypercall(XENPMU_init, &xp);
}

static int xen_pmu_unregister(int cpu)
{
	struct xen_pmu_params xp = {
		.version.maj = XENPMU_VER_MAJ,
		.version.min = XENPMU_VER_MIN,
		.vcpu = cpu,
	};

	return xen_pmu_hypercall(XENPMU_finish, &xp);
}

/**
 * xen_pmu_cpu_register() - register a vCPU's page with Xen and take it
 * @c: the vCPU's state
 * @m: the vendor model
 * @cpu: the vCPU
 * @page: a zeroed page
 *
 * A page Xen still holds from before (EEXIST: a resume without finish) is
 * replaced.  A page Xen accepted but declared no or bad banks in is given
 * back.
 *
 * Return: 0; Xen's error; -ENODATA or -ERANGE from xen_pmu_attach(); or
 * -EBUSY when Xen would not take the page back and may still write it: the
 * caller must not free it then.
 */
VISIBLE_IF_KUNIT int xen_pmu_cpu_register(struct xen_pmu_cpu *c,
					  const struct xen_pmu_model *m,
					  int cpu, struct xen_pmu_data *page)
{
	int ret;

	ret = xen_pmu_register(cpu, page);
	if (ret == -EEXIST) {
		ret = xen_pmu_unregister(cpu);
		if (!ret)
			ret = xen_pmu_register(cpu, page);
	}
	if (ret)
		return ret;
	ret = xen_pmu_attach(c, m, page);
	if (ret && xen_pmu_unregister(cpu))
		return -EBUSY;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_register);

/**
 * xen_pmu_cpu_unregister() - give a vCPU's page back to the kernel
 * @c: the vCPU's state
 * @cpu: the vCPU
 *
 * Return: the page, to free; NULL if there was none or if Xen refused to
 * let it go and may still write into it.
 */
VISIBLE_IF_KUNIT struct xen_pmu_data *xen_pmu_cpu_unregister(struct xen_pmu_cpu *c,
							     int cpu)
{
	struct xen_pmu_data *page = c->page;
	int ret;

	if (!page)
		return NULL;
	c->page = NULL;
	c->in_pmi = false;
	c->shadow_valid = 0;
	ret = xen_pmu_unregister(cpu);
	if (ret) {
		pr_err("CPU%d: XENPMU_finish failed: %d; its page stays with Xen\n",
		       cpu, ret);
		return NULL;
	}
	return page;
}
EXPORT_SYMBOL_IF_KUNIT(xen_pmu_cpu_unregister);

static void xen_pmu_init_failed(int cpu, int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		pr_info_once("vPMU disabled by the hypervisor (Xen needs vpmu=on); software events only\n");
		break;
	case -ENOENT:
		pr_info_once("the hypervisor gives this domain no vPMU; software events only\n");
		break;
	case -EINVAL:
		pr_err("CPU%d: the hypervisor refused the PMU page (EINVAL)\n", cpu);
		break;
	case -ENOMEM:
		pr_err("CPU%d: the hypervisor could not map the PMU page (ENOMEM)\n", cpu);
		break;
	case -ENODATA:
		pr_info_once("the hypervisor set up no vPMU context (vPMU mode off?); software events only\n");
		break;
	case -ERANGE:
		pr_err("CPU%d: the hypervisor declared PMU banks outside the shared page; vPMU not used\n",
		       cpu);
		break;
	case -EBUSY:
		pr_err("CPU%d: the hypervisor declared bad PMU banks and kept the page\n", cpu);
		break;
	default:
		pr_err("CPU%d: XENPMU_init failed: %d\n", cpu, err);
		break;
	}
}

static bool xen_pmu_model_boot(void)
{
	struct xen_pmu_cpuid id = {
		.vendor = boot_cpu_data.x86_vendor,
		.family = boot_cpu_data.x86,
	};
	struct xen_extraversion extra = {};
	unsigned int ebx, ecx;
	int version, err;

	version = HYPERVISOR_xen_version(XENVER_version, NULL);
	if (HYPERVISOR_xen_version(XENVER_extraversion, &extra))
		extra.extraversion[0] = '\0';
	extra.extraversion[sizeof(extra.extraversion) - 1] = '\0';
	id.xen = xen_pmu_xen_release(version, extra.extraversion);
	snprintf(xen_pmu_xen_name, sizeof(xen_pmu_xen_name), "%u.%u%s",
		 version >> 16, version & 0xffff, extra.extraversion);

	if (id.vendor == X86_VENDOR_INTEL && boot_cpu_data.cpuid_level >= 0xa) {
		/* all of Xen's bank, not what xen_pmu_cpuid() leaves perf */
		xen_pmu_probing = true;
		cpuid(0xa, &id.leaf_a_eax.full, &ebx, &ecx, &id.leaf_a_edx.full);
		xen_pmu_probing = false;
	}
	/*
	 * Xen empties leaf 0xA when the vPMU is off, and in all mode for
	 * every domain but dom0: say so rather than blame the model.
	 */
	if (id.vendor == X86_VENDOR_INTEL && !id.leaf_a_eax.split.version_id) {
		pr_info("the hypervisor gives this domain no vPMU (CPUID leaf 0xA is empty: vpmu off, or all mode in a domain other than dom0); software events only\n");
		return false;
	}
	err = xen_pmu_model_init(&xen_pmu_model, &id);
	if (err == -EOPNOTSUPP) {
		pr_info("Xen %s has no vPMU for %s family %#x (later releases do); software events only\n",
			xen_pmu_xen_name, boot_cpu_data.x86_vendor_id, id.family);
		return false;
	}
	if (err) {
		pr_info("no vPMU model for %s family %#x; software events only\n",
			boot_cpu_data.x86_vendor_id, id.family);
		return false;
	}
	return true;
}

/**
 * xen_pmu_init() - register a vCPU's PMU page with Xen
 * @cpu: the vCPU, not necessarily the calling one
 *
 * Called for the boot CPU at SMP preparation, for each other CPU before it
 * is brought up, and for every CPU on resume.  Other CPUs are registered
 * only once the boot CPU's vPMU works.
 */
void xen_pmu_init(int cpu)
{
	struct xen_pmu_cpu *c = per_cpu_ptr(&xen_pmu_cpus, cpu);
	struct xen_pmu_data *page;
	int ret;

	BUILD_BUG_ON(sizeof(struct xen_pmu_data) > PAGE_SIZE);
	if (!xen_pv_domain() || (cpu && !is_xen_pmu) || c->page)
		return;
	if (!cpu && !is_xen_pmu && !xen_pmu_model.ops && !xen_pmu_model_boot())
		return;

	page = (struct xen_pmu_data *)get_zeroed_page(GFP_KERNEL);
	if (!page) {
		pr_err("CPU%d: no memory for the PMU page\n", cpu);
		return;
	}
	ret = xen_pmu_cpu_register(c, &xen_pmu_model, cpu, page);
	if (ret) {
		xen_pmu_init_failed(cpu, ret);
		if (ret != -EBUSY)
			free_page((unsigned long)page);
		return;
	}
	if (!is_xen_pmu) {
		is_xen_pmu = true;
		/*
		 * Xen hides PERFCTR_CORE from PV guests, but on the families
		 * with the extended bank it keeps six counters in the page and
		 * routes their MSRs when they trap: let perf use all six.  The
		 * bit has no static_cpu_has() user, so unlike the capabilities
		 * alternatives depend on it may be forced this late: for the
		 * boot CPU, its copy in cpu_data(0), and the CPUs to come.
		 */
		if (xen_pmu_model.legacy_ctr) {
			set_cpu_cap(&boot_cpu_data, X86_FEATURE_PERFCTR_CORE);
			set_cpu_cap(&cpu_data(0), X86_FEATURE_PERFCTR_CORE);
			set_bit(X86_FEATURE_PERFCTR_CORE, (unsigned long *)cpu_caps_set);
		}
		if (xen_pmu_model.nr_gp_trap < xen_pmu_model.nr_gp)
			pr_info("Xen %s: %s: %u of the CPU's %u counters (event selects 4-7 need Xen 4.22, 4.21.1, 4.20.3 or 4.19.5), %u fixed\n",
				xen_pmu_xen_name, xen_pmu_model.name,
				xen_pmu_model.nr_gp_trap, xen_pmu_model.nr_gp,
				xen_pmu_model.nr_fixed_trap);
		else
			pr_info("Xen %s: %s: %u counters, %u fixed\n",
				xen_pmu_xen_name, xen_pmu_model.name,
				xen_pmu_model.nr_gp_trap, xen_pmu_model.nr_fixed_trap);
	}
}

/**
 * xen_pmu_finish() - unregister a vCPU's PMU page
 * @cpu: the vCPU
 *
 * Called when a CPU goes offline, before suspend and at reboot.
 */
void xen_pmu_finish(int cpu)
{
	struct xen_pmu_data *page;

	page = xen_pmu_cpu_unregister(per_cpu_ptr(&xen_pmu_cpus, cpu), cpu);
	if (page)
		free_page((unsigned long)page);
}

/* debugfs: /sys/kernel/debug/xen/pmu/stats */

static int xen_pmu_stats_show(struct seq_file *s, void *unused)
{
	int cpu;

	seq_puts(s, "cpu registered pmis spurious flushes flush_errors flush_recovered stopped ");
	seq_puts(s, "msr_emulated msr_shadowed msr_trapped rdpmc_emulated rdpmc_trapped lvtpc bad_samples pending\n");
	for_each_possible_cpu(cpu) {
		const struct xen_pmu_cpu *c = per_cpu_ptr(&xen_pmu_cpus, cpu);
		const struct xen_pmu_stats *st = &c->stats;

		seq_printf(s, "%d %d %llu %llu %llu %llu %llu %llu ", cpu, !!c->page,
			   st->pmis, st->spurious, st->flushes, st->flush_errors,
			   st->flush_recovered, st->stopped);
		seq_printf(s, "%llu %llu %llu %llu %llu %llu %llu %llu\n",
			   st->msr_emulated, st->msr_shadowed, st->msr_trapped,
			   st->rdpmc_emulated, st->rdpmc_trapped, st->lvtpc,
			   st->bad_samples, st->pending);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xen_pmu_stats);

static int __init xen_pmu_late_init(void)
{
	struct dentry *xen, *dir;

	if (!xen_pv_domain())
		return 0;
	/* CR4.PCE belongs to Xen: RDPMC in user space faults in PV. */
	x86_pmu.attr_rdpmc = 0;
	/* Samples say where they ran, with the vPMU or without it. */
	perf_register_guest_info_callbacks(&xen_guest_cbs);

	if (IS_ENABLED(CONFIG_XEN_DEBUG_FS))
		xen = xen_init_debugfs();
	else
		xen = debugfs_create_dir("xen", NULL);
	dir = debugfs_create_dir("pmu", xen);
	debugfs_create_file("stats", 0400, dir, NULL, &xen_pmu_stats_fops);
	return 0;
}
late_initcall(xen_pmu_late_init);
