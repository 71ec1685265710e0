/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Emulated performance counters for x86 TCG: the hooks the rest of
 * QEMU calls.  The model is described in tcg/sysemu/pmu-emu.c.
 */

#ifndef I386_PMU_EMU_H
#define I386_PMU_EMU_H

typedef struct X86PMUEmu X86PMUEmu;

#if defined(CONFIG_TCG) && !defined(CONFIG_USER_ONLY)

/* Create the PMU of a vCPU (TCG, pmu=on); called at realize time. */
void x86_pmu_emu_realize(X86CPU *cpu);

/* CPU reset: every register to its reset value, counting stopped. */
void x86_pmu_emu_reset(CPUX86State *env);

/* The CPL is about to change (env->hflags still holds the old one). */
void x86_pmu_emu_cpl_change(CPUX86State *env);

/* HLT: the vCPU stops counting cycles until it runs again. */
void x86_pmu_emu_hlt(CPUX86State *env);

/* cpu_exec is entered: the vCPU runs (again). */
void x86_pmu_emu_exec_enter(CPUX86State *env);

/* PMU MSRs: true if @msr is one of ours (with pmu=on under TCG). */
bool x86_pmu_emu_rdmsr(CPUX86State *env, uint32_t msr, uint64_t *val);
bool x86_pmu_emu_wrmsr(CPUX86State *env, uint32_t msr, uint64_t val);

/* RDPMC with counter index @ecx; false if the index is invalid (#GP). */
bool x86_pmu_emu_rdpmc(CPUX86State *env, uint32_t ecx, uint64_t *val);

/* Adjust a CPUID leaf for the emulated PMU. */
void x86_pmu_emu_cpuid(CPUX86State *env, uint32_t index, uint32_t count,
                       uint32_t *eax, uint32_t *ebx,
                       uint32_t *ecx, uint32_t *edx);

#endif

#endif
