/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_XEN_GUEST_H
#define __PERF_XEN_GUEST_H

#include <linux/types.h>

struct machine;
struct option;

/**
 * struct xen_guest_syms - where one domain's kernel symbols come from
 * @domid: the domain, 1 to XEN_DOMID_FIRST_RESERVED - 1
 * @kallsyms: a copy of its /proc/kallsyms (--guest-kallsyms DOMID=FILE)
 * @vmlinux: its kernel's ELF image (--guest-vmlinux DOMID=FILE)
 */
struct xen_guest_syms {
	u16 domid;
	char *kallsyms;
	char *vmlinux;
};

/**
 * struct xen_guest_conf - the guests' kernel symbols of a perf report
 * @guests: the domains named by --guest-kallsyms and --guest-vmlinux
 * @nr_guests: entries in @guests
 * @guestmount: a directory with DIR/<domid>/proc/kallsyms, and optionally
 *	DIR/<domid>/proc/modules, for the domains not in @guests
 */
struct xen_guest_conf {
	struct xen_guest_syms *guests;
	unsigned int nr_guests;
	const char *guestmount;
};

extern struct xen_guest_conf xen_guest_conf;

int xen_guest_conf__add(const char *arg, bool vmlinux);
int xen_guest_conf__set_guestmount(const char *dir);
void xen_guest_conf__exit(void);

int xen_guest__parse_kallsyms(const struct option *opt, const char *arg, int unset);
int xen_guest__parse_vmlinux(const struct option *opt, const char *arg, int unset);
int xen_guest__parse_guestmount(const struct option *opt, const char *arg, int unset);

int xen_guest__create_kernel_maps(struct machine *machine, u16 domid);

#endif /* __PERF_XEN_GUEST_H */
