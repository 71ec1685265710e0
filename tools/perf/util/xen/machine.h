/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_XEN_MACHINE_H
#define __PERF_XEN_MACHINE_H

#include <linux/types.h>
#include <stdbool.h>

#include "virt-id.h"

struct machine;
struct machines;
struct perf_sample;
union perf_event;

/*
 * The samples of each Xen domain other than dom0, and Xen's own, belong to
 * a machine whose pid is this base ORed with the domain id: above any real
 * pid, and apart from perf's host (-1) and default guest (0) machines.
 */
#define XEN_MACHINE_PID_BASE	0x40000000
#define XEN_MACHINE_DOMID_MASK	0xffff

/* Name of Xen's kernel dso when its symbols come from a xensyms file. */
#define XEN_KALLSYMS_NAME	"[xen.kallsyms]"

/**
 * struct xen_symbol_conf - where Xen's symbols come from
 * @syms: a xen-syms ELF image (perf report --xen-syms)
 * @kallsyms: a copy of /proc/xen/xensyms (perf report --xen-kallsyms)
 *
 * With neither, hypervisor samples keep their addresses but get no names.
 */
struct xen_symbol_conf {
	const char *syms;
	const char *kallsyms;
};

extern struct xen_symbol_conf xen_symbol_conf;

struct dso;

bool xen_machine__is_domain(const struct machine *machine);
struct dso *xen_machine__whole_kernel_map(struct machine *machine, const char *short_name);
struct machine *xen_machines__findnew_domain(struct machines *machines, u16 domid);
struct machine *xen_machines__find_for_sample(struct machines *machines,
					      const union perf_event *event,
					      const struct perf_sample *sample);
int xen_machine__map_level(const struct machine *machine, u8 cpumode, char *level);

#endif /* __PERF_XEN_MACHINE_H */
