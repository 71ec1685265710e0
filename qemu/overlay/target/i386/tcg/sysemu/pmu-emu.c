/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Emulated performance counters for x86 TCG.
 *
 * With "-cpu <model>,pmu=on" under TCG each vCPU gets a small counter
 * bank modelled on real hardware, enough for Linux's and Xen's PMU
 * drivers to count and to sample on counter overflow:
 *
 * - AMD (any AMD model; meant for family 17h, "-cpu EPYC"): six 48-bit
 *   counters, PERF_CTL0-5 at 0xc0010200 + 2i and PERF_CTR0-5 at
 *   0xc0010201 + 2i, with the legacy K7 registers 0xc0010000-3 (event
 *   selects) and 0xc0010004-7 (counters) as aliases of counters 0-3.
 *   CPUID 0x80000001 ECX[23] (PERFCTR_CORE) is set.  An overflow does
 *   not touch the LVTPC mask, as on AMD hardware.
 *
 * - Intel (any Intel model; meant for family 6, "-cpu Skylake-Client"):
 *   architectural perfmon version 2 in CPUID 0xA, four 48-bit general
 *   counters (IA32_PMC0-3 at 0xc1, PERFEVTSEL0-3 at 0x186; "pmu-gp=N"
 *   gives N, 1 to 8, as Skylake without Hyper-Threading has 8) and three
 *   48-bit fixed counters (0x309-0x30b, FIXED_CTR_CTRL 0x38d), with
 *   GLOBAL_STATUS (0x38e), GLOBAL_CTRL (0x38f) and GLOBAL_OVF_CTRL
 *   (0x390).  Version 2 is the highest version whose every feature is
 *   modelled here (version 3 adds AnyThread, version 4 freeze on PMI and
 *   the status set/reset registers); Xen 4.17 accepts 2 to 5.  No PDCM,
 *   so no PERF_CAPABILITIES and no full-width writes: a write through
 *   IA32_PMCx stores its low 32 bits sign-extended to 48 bits.  The
 *   LVTPC mask bit is set when a PMI is delivered, as the SDM says, and
 *   no PMI is raised while GLOBAL_STATUS is 0.
 *
 * What counts: "cycles" (AMD event 0x76; Intel 0x3c umask 0 and 1,
 * fixed counters 1 and 2) advance by one per nanosecond of
 * QEMU_CLOCK_VIRTUAL, a nominal 1 GHz, while the vCPU is not halted in
 * HLT and runs at a CPL the counter selects (USR: CPL > 0, OS: CPL 0;
 * a 64-bit PV Xen guest kernel runs in ring 3 and so counts as USR, as
 * on hardware).  TCG does not count retired instructions without
 * icount, so "instructions" (AMD and Intel event 0xc0, Intel fixed
 * counter 0) are approximated as one per cycle.  Every other event
 * counts nothing.  Edge, invert, counter mask and the host/guest-only
 * bits are ignored; so are PEBS, LBR, BTS, AnyThread and offcore
 * response.
 *
 * Accounting is lazy: the elapsed virtual time since the last account
 * is added to the counters that run at the current CPL whenever the set
 * of running counters, the CPL or the halted state is about to change,
 * and on every PMU register access and RDPMC.  The CPL hook costs one
 * test of env->pmu_emu_counting when no counter runs.
 *
 * Overflow: a QEMU_CLOCK_VIRTUAL timer per vCPU is armed for the
 * earliest moment an interrupt-enabled counter could wrap past 2^48 if
 * it counted without pause; that is a lower bound, so when it fires
 * with nothing wrapped it is simply armed again.  Its callback runs in
 * the main loop and only queues work on the vCPU; the work item runs
 * in the vCPU's thread under the BQL, accounts, and raises the LVTPC
 * through the local APIC.  A wrap found while accounting elsewhere
 * (CPL change, MSR access) queues the same work.  Each vCPU's state is
 * only touched by its own thread (or at reset, with the vCPUs stopped),
 * so the model holds under MTTCG.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "cpu.h"
#include "hw/core/cpu.h"
#include "hw/i386/apic.h"
#include "pmu-emu.h"

#define PMU_CTR_BITS        48
#define PMU_CTR_MASK        ((1ULL << PMU_CTR_BITS) - 1)
#define PMU_AMD_GP          6
#define PMU_MAX_GP          8
#define PMU_INTEL_FIXED     3
#define PMU_INTEL_VERSION   2
#define PMU_FIXED_SHIFT     32      /* fixed counter j is bit 32 + j */

#define MSR_AMD_K7_EVNTSEL0 0xc0010000
#define MSR_AMD_K7_PERFCTR0 0xc0010004
#define MSR_AMD_PERF_CTL0   0xc0010200

#define EVTSEL_EVENT        0xffULL
#define EVTSEL_UMASK_SHIFT  8
#define EVTSEL_USR          (1ULL << 16)
#define EVTSEL_OS           (1ULL << 17)
#define EVTSEL_INT          (1ULL << 20)
#define EVTSEL_EN           (1ULL << 22)
#define EVTSEL_AMD_EVENT_HI (0xfULL << 32)

#define FIXED_CTRL_OS       1
#define FIXED_CTRL_USR      2
#define FIXED_CTRL_PMI      8

typedef enum PMUEvent {
    PMU_EVENT_NONE,
    PMU_EVENT_CYCLES,
    PMU_EVENT_INSNS,
} PMUEvent;

struct X86PMUEmu {
    X86CPU *cpu;
    QEMUTimer *timer;
    bool amd;
    unsigned num_gp;

    /* architectural state */
    uint64_t evtsel[PMU_MAX_GP];
    uint64_t gp[PMU_MAX_GP];
    uint64_t fixed[PMU_INTEL_FIXED];
    uint64_t fixed_ctrl;
    uint64_t global_ctrl;
    uint64_t global_status;

    /* derived from the state above: counters by bit (GP i, fixed 32 + j) */
    uint64_t run_usr;       /* counting at CPL > 0 */
    uint64_t run_os;        /* counting at CPL 0 */
    uint64_t pmi_mask;      /* raise a PMI when they wrap */

    int64_t last_ns;        /* QEMU_CLOCK_VIRTUAL of the last account */
    bool halted;            /* in HLT since the last account */
    bool pmi_pending;       /* a PMI-enabled counter wrapped */
    bool work_queued;

    /* what the guest did, for QEMU_PMU_EMU_STATS */
    uint64_t n_rdmsr, n_wrmsr, n_rdpmc, n_pmi;
};

static uint64_t *pmu_counter(X86PMUEmu *pmu, int bit)
{
    return bit >= PMU_FIXED_SHIFT ? &pmu->fixed[bit - PMU_FIXED_SHIFT]
                                  : &pmu->gp[bit];
}

static PMUEvent pmu_gp_event(X86PMUEmu *pmu, uint64_t evtsel)
{
    unsigned event = evtsel & EVTSEL_EVENT;
    unsigned umask = (evtsel >> EVTSEL_UMASK_SHIFT) & 0xff;

    if (pmu->amd) {
        event |= (evtsel & EVTSEL_AMD_EVENT_HI) >> 24;
        switch (event) {
        case 0x76:          /* CPU clocks not halted */
            return PMU_EVENT_CYCLES;
        case 0xc0:          /* retired instructions */
            return PMU_EVENT_INSNS;
        }
        return PMU_EVENT_NONE;
    }
    if (event == 0x3c && (umask == 0 || umask == 1)) {
        /* unhalted core cycles, unhalted reference cycles */
        return PMU_EVENT_CYCLES;
    }
    if (event == 0xc0 && umask == 0) {
        return PMU_EVENT_INSNS;
    }
    return PMU_EVENT_NONE;
}

/* Recompute which counters run, at which CPL, and which raise a PMI. */
static void pmu_update_config(X86PMUEmu *pmu)
{
    CPUX86State *env = &pmu->cpu->env;
    uint64_t usr = 0, os = 0, pmi = 0;
    unsigned i;

    for (i = 0; i < pmu->num_gp; i++) {
        uint64_t sel = pmu->evtsel[i];

        if (!(sel & EVTSEL_EN) || pmu_gp_event(pmu, sel) == PMU_EVENT_NONE) {
            continue;
        }
        if (!pmu->amd && !(pmu->global_ctrl & BIT_ULL(i))) {
            continue;
        }
        usr |= sel & EVTSEL_USR ? BIT_ULL(i) : 0;
        os |= sel & EVTSEL_OS ? BIT_ULL(i) : 0;
        pmi |= sel & EVTSEL_INT ? BIT_ULL(i) : 0;
    }
    if (!pmu->amd) {
        for (i = 0; i < PMU_INTEL_FIXED; i++) {
            unsigned ctl = (pmu->fixed_ctrl >> (4 * i)) & 0xf;
            uint64_t bit = BIT_ULL(PMU_FIXED_SHIFT + i);

            if (!(pmu->global_ctrl & bit)) {
                continue;
            }
            usr |= ctl & FIXED_CTRL_USR ? bit : 0;
            os |= ctl & FIXED_CTRL_OS ? bit : 0;
            pmi |= ctl & FIXED_CTRL_PMI ? bit : 0;
        }
    }
    pmu->run_usr = usr;
    pmu->run_os = os;
    pmu->pmi_mask = pmi;
    qatomic_set(&env->pmu_emu_counting, (usr | os) != 0);
}

/*
 * Add the virtual time elapsed since the last account to the counters
 * running at the current CPL.  Returns true if a PMI is to be raised.
 */
static bool pmu_account(X86PMUEmu *pmu)
{
    CPUX86State *env = &pmu->cpu->env;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t delta = now - pmu->last_ns;
    uint64_t run;

    pmu->last_ns = now;
    if (delta <= 0 || pmu->halted) {
        return pmu->pmi_pending;
    }
    run = (env->hflags & HF_CPL_MASK) ? pmu->run_usr : pmu->run_os;
    while (run) {
        int bit = ctz64(run);
        uint64_t *ctr = pmu_counter(pmu, bit);
        uint64_t old = *ctr;

        run &= run - 1;
        *ctr = (old + delta) & PMU_CTR_MASK;
        if (*ctr < old || (uint64_t)delta > PMU_CTR_MASK) {
            if (!pmu->amd) {
                pmu->global_status |= BIT_ULL(bit);
            }
            if (pmu->pmi_mask & BIT_ULL(bit)) {
                pmu->pmi_pending = true;
            }
        }
    }
    return pmu->pmi_pending;
}

/* Arm the timer for the earliest possible wrap of a PMI-enabled counter. */
static void pmu_arm_timer(X86PMUEmu *pmu)
{
    uint64_t run = (pmu->run_usr | pmu->run_os) & pmu->pmi_mask;
    uint64_t left = UINT64_MAX;

    if (!run || pmu->halted) {
        timer_del(pmu->timer);
        return;
    }
    while (run) {
        int bit = ctz64(run);

        run &= run - 1;
        left = MIN(left, PMU_CTR_MASK + 1 - *pmu_counter(pmu, bit));
    }
    timer_mod(pmu->timer, pmu->last_ns + left);
}

/* vCPU thread, BQL held: raise the PMI if one is pending. */
static void pmu_deliver(X86PMUEmu *pmu)
{
    X86CPU *cpu = pmu->cpu;

    if (!pmu->pmi_pending) {
        return;
    }
    pmu->pmi_pending = false;
    /* Intel: never a PMI without a status bit to explain it */
    if ((!pmu->amd && !pmu->global_status) || !cpu->apic_state) {
        return;
    }
    pmu->n_pmi++;
    apic_deliver_pmi(cpu->apic_state, !pmu->amd);
}

static void pmu_work(CPUState *cs, run_on_cpu_data data)
{
    X86PMUEmu *pmu = data.host_ptr;

    pmu->work_queued = false;
    pmu_account(pmu);
    pmu_deliver(pmu);
    pmu_arm_timer(pmu);
}

/* vCPU thread, any context: have the PMI raised at the next exit. */
static void pmu_kick(X86PMUEmu *pmu)
{
    if (!pmu->work_queued) {
        pmu->work_queued = true;
        async_run_on_cpu(CPU(pmu->cpu), pmu_work, RUN_ON_CPU_HOST_PTR(pmu));
    }
}

/* Main-loop thread: a counter may have wrapped; look at it in the vCPU. */
static void pmu_timer_cb(void *opaque)
{
    X86PMUEmu *pmu = opaque;

    async_run_on_cpu(CPU(pmu->cpu), pmu_work, RUN_ON_CPU_HOST_PTR(pmu));
}

static void pmu_account_and_kick(X86PMUEmu *pmu)
{
    if (pmu_account(pmu)) {
        pmu_kick(pmu);
    }
}

/*
 * With QEMU_PMU_EMU_STATS=FILE in the environment, each vCPU's PMU MSR
 * reads and writes, RDPMCs and PMIs are appended to FILE at exit, one
 * line per vCPU: what the guest (a hypervisor and its guests together)
 * cost the PMU, e.g. to compare drivers running the same workload.
 */
static void pmu_write_stats(void)
{
    const char *path = getenv("QEMU_PMU_EMU_STATS");
    CPUState *cs;
    FILE *f;

    f = path ? fopen(path, "a") : NULL;
    if (!f) {
        return;
    }
    CPU_FOREACH(cs) {
        X86PMUEmu *pmu = X86_CPU(cs)->env.pmu_emu;

        if (pmu) {
            fprintf(f, "cpu%d rdmsr %" PRIu64 " wrmsr %" PRIu64
                    " rdpmc %" PRIu64 " pmi %" PRIu64 "\n", cs->cpu_index,
                    pmu->n_rdmsr, pmu->n_wrmsr, pmu->n_rdpmc, pmu->n_pmi);
        }
    }
    fclose(f);
}

void x86_pmu_emu_realize(X86CPU *cpu)
{
    static bool stats_registered;
    CPUX86State *env = &cpu->env;
    X86PMUEmu *pmu = g_new0(X86PMUEmu, 1);

    if (!stats_registered && getenv("QEMU_PMU_EMU_STATS")) {
        stats_registered = true;
        atexit(pmu_write_stats);
    }

    pmu->cpu = cpu;
    pmu->amd = IS_AMD_CPU(env);
    pmu->num_gp = pmu->amd ? PMU_AMD_GP :
                  MIN(MAX(cpu->pmu_emu_gp, 1), PMU_MAX_GP);
    if (!pmu->amd && pmu->num_gp != cpu->pmu_emu_gp) {
        warn_report("pmu-gp=%u: the Intel model has 1 to %u general counters; %u",
                    cpu->pmu_emu_gp, PMU_MAX_GP, pmu->num_gp);
    }
    pmu->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, pmu_timer_cb, pmu);
    env->pmu_emu = pmu;
}

void x86_pmu_emu_reset(CPUX86State *env)
{
    X86PMUEmu *pmu = env->pmu_emu;

    timer_del(pmu->timer);
    memset(pmu->evtsel, 0, sizeof(pmu->evtsel));
    memset(pmu->gp, 0, sizeof(pmu->gp));
    memset(pmu->fixed, 0, sizeof(pmu->fixed));
    pmu->fixed_ctrl = 0;
    pmu->global_status = 0;
    /* as on hardware: every counter enabled globally at reset */
    pmu->global_ctrl = pmu->amd ? 0 :
        MAKE_64BIT_MASK(0, pmu->num_gp) |
        MAKE_64BIT_MASK(PMU_FIXED_SHIFT, PMU_INTEL_FIXED);
    pmu->halted = false;
    pmu->pmi_pending = false;
    pmu->last_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    pmu_update_config(pmu);
}

void x86_pmu_emu_cpl_change(CPUX86State *env)
{
    pmu_account_and_kick(env->pmu_emu);
}

void x86_pmu_emu_hlt(CPUX86State *env)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (pmu) {
        pmu_account_and_kick(pmu);
        pmu->halted = true;
    }
}

void x86_pmu_emu_exec_enter(CPUX86State *env)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (pmu->halted) {
        pmu_account(pmu);       /* the halted time counts nothing */
        pmu->halted = false;
        pmu_arm_timer(pmu);
    }
}

/* The counter bit of a PMU MSR, and whether it is the event select. */
static bool pmu_decode_msr(X86PMUEmu *pmu, uint32_t msr, int *bit,
                           bool *is_ctl)
{
    if (pmu->amd) {
        if (msr >= MSR_AMD_PERF_CTL0 &&
            msr < MSR_AMD_PERF_CTL0 + 2 * PMU_AMD_GP) {
            *bit = (msr - MSR_AMD_PERF_CTL0) / 2;
            *is_ctl = !(msr & 1);
            return true;
        }
        if (msr >= MSR_AMD_K7_EVNTSEL0 && msr < MSR_AMD_K7_EVNTSEL0 + 8) {
            *bit = (msr - MSR_AMD_K7_EVNTSEL0) & 3;
            *is_ctl = msr < MSR_AMD_K7_PERFCTR0;
            return true;
        }
        return false;
    }
    if (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + pmu->num_gp) {
        *bit = msr - MSR_P6_PERFCTR0;
        *is_ctl = false;
        return true;
    }
    if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + pmu->num_gp) {
        *bit = msr - MSR_P6_EVNTSEL0;
        *is_ctl = true;
        return true;
    }
    if (msr >= MSR_CORE_PERF_FIXED_CTR0 &&
        msr < MSR_CORE_PERF_FIXED_CTR0 + PMU_INTEL_FIXED) {
        *bit = PMU_FIXED_SHIFT + msr - MSR_CORE_PERF_FIXED_CTR0;
        *is_ctl = false;
        return true;
    }
    return false;
}

static bool pmu_rdmsr(X86PMUEmu *pmu, uint32_t msr, uint64_t *val)
{
    bool is_ctl;
    int bit;

    if (pmu_decode_msr(pmu, msr, &bit, &is_ctl)) {
        pmu_account_and_kick(pmu);
        *val = is_ctl ? pmu->evtsel[bit] : *pmu_counter(pmu, bit);
        return true;
    }
    if (pmu->amd) {
        return false;
    }
    switch (msr) {
    case MSR_CORE_PERF_FIXED_CTR_CTRL:
        *val = pmu->fixed_ctrl;
        return true;
    case MSR_CORE_PERF_GLOBAL_STATUS:
        pmu_account_and_kick(pmu);
        *val = pmu->global_status;
        return true;
    case MSR_CORE_PERF_GLOBAL_CTRL:
        *val = pmu->global_ctrl;
        return true;
    case MSR_CORE_PERF_GLOBAL_OVF_CTRL:
        *val = 0;
        return true;
    }
    return false;
}

static bool pmu_wrmsr(X86PMUEmu *pmu, uint32_t msr, uint64_t val)
{
    uint64_t valid = MAKE_64BIT_MASK(0, pmu->num_gp) |
                     MAKE_64BIT_MASK(PMU_FIXED_SHIFT, PMU_INTEL_FIXED);
    bool is_ctl;
    int bit;

    if (pmu_decode_msr(pmu, msr, &bit, &is_ctl)) {
        /* count up to now with the old settings */
        pmu_account(pmu);
        if (is_ctl) {
            pmu->evtsel[bit] = val;
        } else if (!pmu->amd && bit < PMU_FIXED_SHIFT) {
            /* no full-width writes: bits 31:0, sign-extended */
            *pmu_counter(pmu, bit) = (uint64_t)(int32_t)val & PMU_CTR_MASK;
        } else {
            *pmu_counter(pmu, bit) = val & PMU_CTR_MASK;
        }
    } else if (pmu->amd) {
        return false;
    } else {
        switch (msr) {
        case MSR_CORE_PERF_FIXED_CTR_CTRL:
            pmu_account(pmu);
            pmu->fixed_ctrl = val & MAKE_64BIT_MASK(0, 4 * PMU_INTEL_FIXED);
            break;
        case MSR_CORE_PERF_GLOBAL_STATUS:
            /* read-only */
            return true;
        case MSR_CORE_PERF_GLOBAL_CTRL:
            pmu_account(pmu);
            pmu->global_ctrl = val & valid;
            break;
        case MSR_CORE_PERF_GLOBAL_OVF_CTRL:
            pmu_account(pmu);
            pmu->global_status &= ~val;
            break;
        default:
            return false;
        }
    }
    pmu_update_config(pmu);
    if (pmu->pmi_pending) {
        pmu_kick(pmu);
    }
    /* a value about to wrap just makes the timer fire soon */
    pmu_arm_timer(pmu);
    return true;
}

static bool pmu_rdpmc(X86PMUEmu *pmu, uint32_t ecx, uint64_t *val)
{
    uint32_t index = ecx & ~(1U << 30);

    if (pmu->amd) {
        if (ecx >= PMU_AMD_GP) {
            return false;
        }
        pmu_account_and_kick(pmu);
        *val = pmu->gp[ecx];
        return true;
    }
    if (ecx & (1U << 30)) {
        if (index >= PMU_INTEL_FIXED) {
            return false;
        }
        pmu_account_and_kick(pmu);
        *val = pmu->fixed[index];
        return true;
    }
    if (index >= pmu->num_gp) {
        return false;
    }
    pmu_account_and_kick(pmu);
    *val = pmu->gp[index];
    return true;
}

bool x86_pmu_emu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (!pmu || !pmu_rdmsr(pmu, msr, val)) {
        return false;
    }
    pmu->n_rdmsr++;
    return true;
}

bool x86_pmu_emu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (!pmu || !pmu_wrmsr(pmu, msr, val)) {
        return false;
    }
    pmu->n_wrmsr++;
    return true;
}

bool x86_pmu_emu_rdpmc(CPUX86State *env, uint32_t ecx, uint64_t *val)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (!pmu || !pmu_rdpmc(pmu, ecx, val)) {
        return false;
    }
    pmu->n_rdpmc++;
    return true;
}

void x86_pmu_emu_cpuid(CPUX86State *env, uint32_t index, uint32_t count,
                       uint32_t *eax, uint32_t *ebx,
                       uint32_t *ecx, uint32_t *edx)
{
    X86PMUEmu *pmu = env->pmu_emu;

    if (!pmu) {
        return;
    }
    if (index == 0xa && !pmu->amd) {
        /* version, counters, width, length of the EBX vector */
        *eax = PMU_INTEL_VERSION | (pmu->num_gp << 8) |
               (PMU_CTR_BITS << 16) | (7 << 24);
        *ebx = 0;           /* every architectural event available */
        *ecx = 0;
        *edx = PMU_INTEL_FIXED | (PMU_CTR_BITS << 5);
    } else if (index == 0x80000001 && pmu->amd) {
        *ecx |= CPUID_EXT3_PERFCORE;
    }
}
