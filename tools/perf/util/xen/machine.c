// SPDX-License-Identifier: GPL-2.0
/*
 * Machines for Xen domains: a sample that PERF_SAMPLE_VIRT_ID places in
 * another domain, or in Xen itself, is resolved in a machine of that
 * domain instead of being dropped as a guest sample of an unknown VM.
 * Xen's machine has one kernel map whose symbols come from a xen-syms ELF
 * or from a copy of /proc/xen/xensyms.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../debug.h"
#include "../dso.h"
#include "../event.h"
#include "../machine.h"
#include "../map.h"
#include "../maps.h"
#include "../sample.h"
#include "../symbol.h"
#include "../thread.h"
#include "guest.h"
#include "machine.h"
#include "virt-id.h"

struct xen_symbol_conf xen_symbol_conf;

bool xen_machine__is_domain(const struct machine *machine)
{
	return machine &&
	       (machine->pid & ~XEN_MACHINE_DOMID_MASK) == XEN_MACHINE_PID_BASE;
}

/* Give the kernel dso its symbols now, or make sure it never gets dom0's. */
static void xen_machine__load_symbols(struct machine *machine, struct dso *dso,
				      struct map *map)
{
	const char *file = xen_symbol_conf.syms ?: xen_symbol_conf.kallsyms;

	if (file && access(file, R_OK)) {
		pr_err("Cannot read Xen's symbols from %s: %s\n", file, strerror(errno));
		file = NULL;
	}
	if (file && xen_symbol_conf.syms) {
		if (dso__load_vmlinux(dso, map, file, false) > 0)
			return;
		pr_err("No Xen symbols found in %s\n", file);
	} else if (file) {
		/* loaded on first use, by the guest kernel path of dso__load() */
		machine->kallsyms_filename = strdup(file);
		if (machine->kallsyms_filename)
			return;
	}
	/* Without a source, dso__load() would read dom0's /proc/kallsyms. */
	dso__set_loaded(dso);
}

/**
 * xen_machine__whole_kernel_map - one kernel map over the whole address space
 * @machine: a Xen domain's machine, with its mmap_name set
 * @short_name: the kernel dso's short name
 *
 * Xen's text, and a guest kernel whose symbols come from one file, is one
 * identity map: its addresses are the symbols' own.
 *
 * Return: the kernel dso, with a reference for the caller, or NULL without
 * memory.  The map is machine->vmlinux_map.
 */
struct dso *xen_machine__whole_kernel_map(struct machine *machine, const char *short_name)
{
	struct dso *dso;
	struct map *map;

	dso = machine__findnew_kernel(machine, machine->mmap_name, short_name,
				      DSO_SPACE__KERNEL_GUEST);
	if (!dso)
		return NULL;
	map = map__new2(0, dso);
	if (!map)
		goto out_put_dso;
	map__set_end(map, ~0ULL);
	map__set_mapping_type(map, MAPPING_TYPE__IDENTITY);
	if (maps__insert(machine__kernel_maps(machine), map)) {
		map__put(map);
		goto out_put_dso;
	}
	machine->vmlinux_map = map;
	return dso;
out_put_dso:
	dso__put(dso);
	return NULL;
}

static int xen_machine__create_kernel_map(struct machine *machine)
{
	struct dso *dso;

	free(machine->mmap_name);
	machine->mmap_name = strdup(XEN_KALLSYMS_NAME);
	if (!machine->mmap_name)
		return -ENOMEM;
	dso = xen_machine__whole_kernel_map(machine, "[xen]");
	if (!dso)
		return -ENOMEM;
	xen_machine__load_symbols(machine, dso, machine->vmlinux_map);
	dso__put(dso);
	return 0;
}

/**
 * xen_machines__findnew_domain - the machine of a Xen domain
 * @machines: the session's machines
 * @domid: a domain id other than dom0's, or XEN_VIRT_ID_DOMID_XEN
 *
 * Return: the machine, created on first use, or NULL without memory.
 */
struct machine *xen_machines__findnew_domain(struct machines *machines, u16 domid)
{
	pid_t pid = XEN_MACHINE_PID_BASE | domid;
	struct machine *machine = machines__find(machines, pid);

	if (machine && machine->pid == pid)
		return machine;

	machine = machines__add(machines, pid, "");
	if (!machine)
		return NULL;
	machine->env = machines->host.env;
	if (domid == XEN_VIRT_ID_DOMID_XEN) {
		if (xen_machine__create_kernel_map(machine))
			pr_warning("Cannot create Xen's kernel map, its samples keep their addresses\n");
	} else {
		/* a guest's kernel samples keep their addresses if it fails */
		xen_guest__create_kernel_maps(machine, domid);
	}
	return machine;
}

static bool xen_sample__is_guest(u8 cpumode, u16 domid)
{
	return (cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
		cpumode == PERF_RECORD_MISC_GUEST_USER) &&
	       domid != 0 && domid < XEN_DOMID_FIRST_RESERVED;
}

/**
 * xen_machines__find_for_sample - the machine a Xen sample belongs to
 * @machines: the session's machines
 * @event: the event being delivered
 * @sample: its parsed sample
 *
 * A sample whose PERF_SAMPLE_VIRT_ID and cpumode agree that it ran in Xen
 * (HYPERVISOR, DOMID_XEN) or in another domain (GUEST_*, domid 1 to
 * DOMID_FIRST_RESERVED - 1) goes to that domain's machine.  Its thread
 * there is named after the domain: the pid and tid of such a sample are
 * only those of the dom0 task the PMI interrupted.
 *
 * Return: the machine, or NULL for perf's usual routing.
 */
struct machine *xen_machines__find_for_sample(struct machines *machines,
					      const union perf_event *event,
					      const struct perf_sample *sample)
{
	struct perf_sample_virt_id id;
	struct machine *machine;
	struct thread *thread;
	char name[16];

	if (event->header.type != PERF_RECORD_SAMPLE || sample->virt_id == ~0ULL)
		return NULL;

	id = perf_sample__virt_id(sample->virt_id);
	if (!(sample->cpumode == PERF_RECORD_MISC_HYPERVISOR &&
	      id.domid == XEN_VIRT_ID_DOMID_XEN) &&
	    !xen_sample__is_guest(sample->cpumode, id.domid))
		return NULL;

	machine = xen_machines__findnew_domain(machines, id.domid);
	if (!machine)
		return NULL;

	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (thread && !thread__comm_set(thread)) {
		xen_virt_id__domain_name(id.domid, name, sizeof(name));
		thread__set_comm(thread, name, 0);
	}
	thread__put(thread);
	return machine;
}

/**
 * xen_machine__map_level - how thread__find_map() looks up a Xen domain's address
 * @machine: the machine of the sample's thread
 * @cpumode: the sample's cpumode
 * @level: set to the level shown in the symbol column
 *
 * Return: -1 if @machine is not a Xen domain's, 1 if the address belongs
 * to the machine's kernel maps (Xen, or a guest kernel), 0 for user space.
 */
int xen_machine__map_level(const struct machine *machine, u8 cpumode, char *level)
{
	if (!xen_machine__is_domain(machine))
		return -1;

	switch (cpumode) {
	case PERF_RECORD_MISC_HYPERVISOR:
		*level = 'H';
		return 1;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		*level = 'g';
		return 1;
	default:
		*level = 'u';
		return 0;
	}
}
