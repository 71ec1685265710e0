// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_VIRT_ID in perf: where each sample ran on a Xen host, and
 * the domain, pcpu and vcpu sort keys.
 */
#include <stdio.h>
#include <linux/kernel.h>
#include <string.h>
#include <linux/perf_event.h>

#include "../hist.h"
#include "../sort.h"
#include "virt-id.h"

struct xen_virt_id xen_virt_id__unpack(u64 virt_id)
{
	struct perf_sample_virt_id raw;
	struct xen_virt_id id;

	memcpy(&raw, &virt_id, sizeof(raw));
	id.pcpu = raw.pcpu;
	id.domid = raw.domid;
	id.vcpu = raw.vcpu;
	return id;
}

/* "xen", "dom0", "d<N>", or "-" when the sample does not say. */
int xen_virt_id__domain_name(u16 domid, char *bf, size_t size)
{
	if (domid == XEN_VIRT_ID_DOMID_XEN)
		return scnprintf(bf, size, "xen");
	if (domid == 0)
		return scnprintf(bf, size, "dom0");
	if (domid == (u16)~0)
		return scnprintf(bf, size, "-");
	return scnprintf(bf, size, "d%u", domid);
}

/* perf script's domid, pcpu and vcpu fields: "DOM:dom0 PCPU:003 VCPU:001 " */
int xen_virt_id__fprintf(u64 virt_id, FILE *fp, bool domid, bool pcpu, bool vcpu)
{
	struct xen_virt_id id = xen_virt_id__unpack(virt_id);
	char name[16];
	int printed = 0;

	if (domid) {
		xen_virt_id__domain_name(id.domid, name, sizeof(name));
		printed += fprintf(fp, "DOM:%-5s ", name);
	}
	if (pcpu) {
		if (id.pcpu == (u32)~0)
			printed += fprintf(fp, "PCPU:  - ");
		else
			printed += fprintf(fp, "PCPU:%03u ", id.pcpu);
	}
	if (vcpu) {
		if (id.vcpu == (u16)~0)
			printed += fprintf(fp, "VCPU:  - ");
		else
			printed += fprintf(fp, "VCPU:%03u ", id.vcpu);
	}
	return printed;
}

static int64_t sort__xen_domain_cmp(struct hist_entry *left, struct hist_entry *right)
{
	u16 l = xen_virt_id__unpack(left->virt_id).domid;
	u16 r = xen_virt_id__unpack(right->virt_id).domid;

	return (int64_t)r - l;
}

static int hist_entry__xen_domain_snprintf(struct hist_entry *he, char *bf,
					   size_t size, unsigned int width)
{
	char name[16];

	xen_virt_id__domain_name(xen_virt_id__unpack(he->virt_id).domid, name, sizeof(name));
	return scnprintf(bf, size, "%-*.*s", width, width, name);
}

struct sort_entry sort_xen_domain = {
	.se_header	= "Domain",
	.se_cmp		= sort__xen_domain_cmp,
	.se_snprintf	= hist_entry__xen_domain_snprintf,
	.se_width_idx	= HISTC_XEN_DOMAIN,
};

/* A cpu number, right-aligned, or "-" when the sample does not say. */
static int id_snprintf(char *bf, size_t size, unsigned int width, u32 val, bool known)
{
	if (!known)
		return scnprintf(bf, size, "%*s", width, "-");
	return scnprintf(bf, size, "%*u", width, val);
}

static int64_t sort__xen_pcpu_cmp(struct hist_entry *left, struct hist_entry *right)
{
	return (int64_t)xen_virt_id__unpack(right->virt_id).pcpu -
	       xen_virt_id__unpack(left->virt_id).pcpu;
}

static int hist_entry__xen_pcpu_snprintf(struct hist_entry *he, char *bf,
					 size_t size, unsigned int width)
{
	u32 pcpu = xen_virt_id__unpack(he->virt_id).pcpu;

	return id_snprintf(bf, size, width, pcpu, pcpu != (u32)~0);
}

struct sort_entry sort_xen_pcpu = {
	.se_header	= "PCPU",
	.se_cmp		= sort__xen_pcpu_cmp,
	.se_snprintf	= hist_entry__xen_pcpu_snprintf,
	.se_width_idx	= HISTC_XEN_PCPU,
};

static int64_t sort__xen_vcpu_cmp(struct hist_entry *left, struct hist_entry *right)
{
	return (int64_t)xen_virt_id__unpack(right->virt_id).vcpu -
	       xen_virt_id__unpack(left->virt_id).vcpu;
}

static int hist_entry__xen_vcpu_snprintf(struct hist_entry *he, char *bf,
					 size_t size, unsigned int width)
{
	u16 vcpu = xen_virt_id__unpack(he->virt_id).vcpu;

	return id_snprintf(bf, size, width, vcpu, vcpu != (u16)~0);
}

struct sort_entry sort_xen_vcpu = {
	.se_header	= "VCPU",
	.se_cmp		= sort__xen_vcpu_cmp,
	.se_snprintf	= hist_entry__xen_vcpu_snprintf,
	.se_width_idx	= HISTC_XEN_VCPU,
};
