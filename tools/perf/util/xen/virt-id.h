/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_XEN_VIRT_ID_H
#define __PERF_XEN_VIRT_ID_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* First domain id Xen reserves for itself (DOMID_FIRST_RESERVED). */
#define XEN_DOMID_FIRST_RESERVED	0x7ff0

/* Xen's id for the hypervisor itself in PERF_SAMPLE_VIRT_ID's domid. */
#define XEN_VIRT_ID_DOMID_XEN	0x7ff2

int xen_virt_id__domain_name(u16 domid, char *bf, size_t size);

/* Longest domain name kept, as Xen's store gives it, without the NUL. */
#define XEN_VIRT_ID_NAME_MAX	64

int xen_virt_id__set_domain_name(u16 domid, const char *name);
const char *xen_virt_id__domain_name_of(u16 domid);
int xen_virt_id__set_domain_type(u16 domid, const char *type);
const char *xen_virt_id__domain_type_of(u16 domid);
int xen_virt_id__find_domain(const char *name);
int xen_virt_id__next_domain(unsigned int *pos, u16 *domid);
void xen_virt_id__forget_domain_names(void);
int xen_virt_id__domain_label(u16 domid, char *bf, size_t size);
unsigned int xen_virt_id__domain_width(u16 domid);
int xen_virt_id__read_names(FILE *fp, const char *what);
int xen_virt_id__write_names(FILE *fp);
int xen_virt_id__fprintf(u64 virt_id, FILE *fp, bool domid, bool pcpu, bool vcpu);

#endif /* __PERF_XEN_VIRT_ID_H */
