/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Xen PV PMU driver: internal interface between pmu.c and its KUnit tests.
 */
#ifndef __XEN_PMU_H__
#define __XEN_PMU_H__

#include <linux/interrupt.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <kunit/visibility.h>
#include <xen/interface/xen.h>
#include <xen/interface/xenpmu.h>

/* Largest banks any Xen 4.17 vendor model can declare. */
#define XEN_PMU_MAX_GP		8
#define XEN_PMU_MAX_FIXED	4

/* What a PMU MSR is, once classified. */
enum xen_pmu_reg_kind {
	XEN_PMU_REG_NONE,
	XEN_PMU_REG_COUNTER,		/* general-purpose counter value */
	XEN_PMU_REG_EVNTSEL,		/* general-purpose event select */
	XEN_PMU_REG_FIXED,		/* Intel fixed counter value */
	XEN_PMU_REG_FIXED_CTRL,		/* Intel FIXED_CTR_CTRL */
	XEN_PMU_REG_GLOBAL_CTRL,	/* Intel GLOBAL_CTRL */
	XEN_PMU_REG_GLOBAL_STATUS,	/* Intel GLOBAL_STATUS */
	XEN_PMU_REG_GLOBAL_OVF_CTRL,	/* Intel GLOBAL_OVF_CTRL */
};

/**
 * struct xen_pmu_reg - a classified PMU register
 * @kind: which register
 * @idx: counter index for per-counter kinds, else 0
 */
struct xen_pmu_reg {
	enum xen_pmu_reg_kind kind;
	unsigned int idx;
};

/* A Xen release as one number that orders releases: 4.20.3 is 0x041403. */
#define XEN_PMU_XEN(major, minor, patch)	((major) << 16 | (minor) << 8 | (patch))

/**
 * struct xen_pmu_cpuid - what the vendor model is built from
 * @vendor: X86_VENDOR_* of the boot CPU
 * @family: x86 family of the boot CPU
 * @leaf_a_eax: CPUID 0xA EAX (Intel architectural perfmon)
 * @leaf_a_edx: CPUID 0xA EDX
 * @xen: the hypervisor's release, XEN_PMU_XEN(); 0 is taken as the oldest
 *	(4.17)
 */
struct xen_pmu_cpuid {
	u8 vendor;
	u8 family;
	union cpuid10_eax leaf_a_eax;
	union cpuid10_edx leaf_a_edx;
	u32 xen;
};

struct xen_pmu_vendor_ops;

/**
 * struct xen_pmu_model - the PMU this Xen release virtualises for this domain
 * @ops: the vendor's operations; NULL until the model is built
 * @name: for messages
 * @version: Intel architectural perfmon version as Xen exposes it (<= 3)
 * @nr_gp: general-purpose counters in Xen's bank
 * @nr_fixed: Intel fixed counters in Xen's bank
 * @nr_gp_trap: general-purpose counters reachable by trapped MSR accesses
 * @nr_fixed_trap: fixed counters reachable by trapped MSR accesses
 * @ctr_base: MSR of counter 0
 * @sel_base: MSR of event select 0
 * @stride: MSR distance between consecutive counters (and selects)
 * @legacy_ctr: AMD families with the extended bank: the K7 counter MSR
 *	aliasing counter 0 (four aliases), else 0
 * @legacy_sel: the K7 event select MSR aliasing select 0, else 0
 * @full_width: Intel: the full-width counter alias of counter 0, else 0
 * @fixed_width: Intel: fixed counter width in bits
 *
 * Every PMU MSR access is classified against this one description; the
 * page offsets come from Xen at XENPMU_init (struct xen_pmu_cpu).
 */
struct xen_pmu_model {
	const struct xen_pmu_vendor_ops *ops;
	const char *name;
	unsigned int version;
	unsigned int nr_gp;
	unsigned int nr_fixed;
	unsigned int nr_gp_trap;
	unsigned int nr_fixed_trap;
	u32 ctr_base;
	u32 sel_base;
	unsigned int stride;
	u32 legacy_ctr;
	u32 legacy_sel;
	u32 full_width;
	unsigned int fixed_width;
};

/**
 * struct xen_pmu_stats - per-CPU counters of the driver's work
 * @pmis: VIRQ_XENPMU handled with a context from Xen
 * @spurious: VIRQ_XENPMU without a cached context (not flushed)
 * @flushes: XENPMU_flush hypercalls
 * @flush_errors: flushes Xen refused
 * @flush_recovered: refused contexts that a sanitised retry got accepted
 * @stopped: contexts Xen kept refusing: counters of this CPU stopped
 * @msr_emulated: PMU MSR accesses served from the shared page
 * @msr_shadowed: PMU MSR reads answered by the write shadow (no trap)
 * @msr_trapped: PMU MSR accesses left to trap into Xen
 * @rdpmc_emulated: RDPMC served from the shared page
 * @rdpmc_trapped: RDPMC emulated by a trapped MSR read
 * @lvtpc: XENPMU_lvtpc_set hypercalls
 * @bad_samples: samples whose ids from Xen could not be valid
 * @pending: accesses served from the page (of @msr_emulated and
 *	@rdpmc_emulated) while Xen held a PMI for this vCPU, before
 *	VIRQ_XENPMU was handled
 */
struct xen_pmu_stats {
	u64 pmis;
	u64 spurious;
	u64 flushes;
	u64 flush_errors;
	u64 flush_recovered;
	u64 stopped;
	u64 msr_emulated;
	u64 msr_shadowed;
	u64 msr_trapped;
	u64 rdpmc_emulated;
	u64 rdpmc_trapped;
	u64 lvtpc;
	u64 bad_samples;
	u64 pending;
};

/**
 * struct xen_pmu_cpu - one vCPU's view of its vPMU
 * @model: the vendor model
 * @page: the page shared with Xen, or NULL
 * @bank_a: byte offset in @page of the first bank (Intel fixed counters,
 *	AMD counters), validated at attach time
 * @bank_b: byte offset of the second bank (Intel counter/control pairs,
 *	AMD controls)
 * @in_pmi: in the VIRQ_XENPMU handler, until its XENPMU_flush
 * @flags: pmu_flags of the PMI being handled, read once
 * @domid: domain_id of the PMI being handled, read once; U16_MAX if it
 *	cannot be valid
 * @pcpu: pcpu_id of the PMI being handled
 * @vcpu: vcpu_id of the PMI being handled, U16_MAX if it cannot be valid
 * @shadow_valid: bitmap of @shadow_sel entries that hold what was last
 *	written
 * @shadow_sel: event selects as last written
 * @lvtpc_applied: this vCPU's runstate entry time when Xen last applied
 *	the page's LVTPC to the physical APIC (lvtpc_set, flush); a later
 *	entry time means the vCPU was descheduled since, and Xen's vPMU
 *	save then left the physical LVTPC masked
 * @stats: counters, see struct xen_pmu_stats
 *
 * The offsets Xen wrote into the page are read once, checked against the
 * page size and the bank sizes of @model, and never read again: a page
 * that changes later cannot make the driver index outside it.
 */
struct xen_pmu_cpu {
	const struct xen_pmu_model *model;
	struct xen_pmu_data *page;
	unsigned int bank_a;
	unsigned int bank_b;
	bool in_pmi;
	u64 flags;
	u16 domid;
	u16 vcpu;
	u32 pcpu;
	unsigned long shadow_valid;
	u64 shadow_sel[XEN_PMU_MAX_GP];
	u64 lvtpc_applied;
	struct xen_pmu_stats stats;
};

/**
 * struct xen_pmu_banks - the banks Xen declares in a vCPU's page
 * @a: offset of the first bank from the start of the vendor context
 * @b: offset of the second bank
 * @a_len: size of the first bank for the model's counters
 * @b_len: size of the second bank
 * @fixed_part: size of the vendor context before the banks
 */
struct xen_pmu_banks {
	u32 a;
	u32 b;
	size_t a_len;
	size_t b_len;
	size_t fixed_part;
};

/**
 * struct xen_pmu_vendor_ops - what differs between Xen's vendor vPMUs
 * @init: fill in the model for this CPU and Xen release; 0, -ENODEV or
 *	-EOPNOTSUPP as xen_pmu_model_init()
 * @classify: which vPMU register @msr is, if any
 * @banks: read the bank offsets Xen declared in @page, and their sizes
 * @slot: where a classified register, inside the model's banks, lives in
 *	the page; NULL if the vendor has none
 * @pmc: the register an RDPMC index reads
 * @sanitize: put the page's context within what Xen validates at flush
 * @stop: stop every counter of the page's context
 */
struct xen_pmu_vendor_ops {
	int (*init)(struct xen_pmu_model *m, const struct xen_pmu_cpuid *id);
	bool (*classify)(const struct xen_pmu_model *m, u32 msr,
			 struct xen_pmu_reg *r);
	void (*banks)(const struct xen_pmu_model *m,
		      const struct xen_pmu_data *page, struct xen_pmu_banks *b);
	u64 *(*slot)(struct xen_pmu_cpu *c, const struct xen_pmu_reg *r);
	void (*pmc)(int counter, struct xen_pmu_reg *r);
	void (*sanitize)(struct xen_pmu_cpu *c);
	void (*stop)(struct xen_pmu_cpu *c);
};

#if IS_ENABLED(CONFIG_KUNIT)
extern const struct xen_pmu_vendor_ops xen_pmu_intel_ops;
extern const struct xen_pmu_vendor_ops xen_pmu_amd_ops;
int xen_pmu_hypercall(unsigned int op, void *arg);
bool xen_pmu_rdmsr_trap(u32 msr, u64 *val);
int xen_pmu_handle_irq(struct pt_regs *regs);
u64 xen_pmu_sched_stamp(void);
void xen_pmu_took(u64 ns);
u32 xen_pmu_xen_release(u32 version, const char *extra);
int xen_pmu_model_init(struct xen_pmu_model *m, const struct xen_pmu_cpuid *id);
bool xen_pmu_classify(const struct xen_pmu_model *m, u32 msr,
		      struct xen_pmu_reg *r);
int xen_pmu_attach(struct xen_pmu_cpu *c, const struct xen_pmu_model *m,
		   struct xen_pmu_data *page);
bool xen_pmu_cpu_msr_read(struct xen_pmu_cpu *c, u32 msr, u64 *val);
bool xen_pmu_cpu_msr_write(struct xen_pmu_cpu *c, u32 msr, u64 val);
u64 xen_pmu_cpu_read_pmc(struct xen_pmu_cpu *c, int counter);
int xen_pmu_cpu_lvtpc(struct xen_pmu_cpu *c, u32 val);
bool xen_pmu_cpu_may_start(struct xen_pmu_cpu *c, u32 msr, u64 val);
void xen_pmu_cpu_rearm(struct xen_pmu_cpu *c);
void xen_pmu_cpu_resync(struct xen_pmu_cpu *c);
irqreturn_t xen_pmu_cpu_pmi(struct xen_pmu_cpu *c);
unsigned int xen_pmu_cpu_guest_state(struct xen_pmu_cpu *c);
unsigned long xen_pmu_cpu_guest_ip(struct xen_pmu_cpu *c);
bool xen_pmu_cpu_virt_id(struct xen_pmu_cpu *c, struct perf_sample_virt_id *id);
int xen_pmu_cpu_register(struct xen_pmu_cpu *c, const struct xen_pmu_model *m,
			 int cpu, struct xen_pmu_data *page);
struct xen_pmu_data *xen_pmu_cpu_unregister(struct xen_pmu_cpu *c, int cpu);
#endif

#endif /* __XEN_PMU_H__ */
