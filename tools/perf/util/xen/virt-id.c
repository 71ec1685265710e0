// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_VIRT_ID on a Xen host: the domains' names and labels, as
 * perf xen record saw them in Xen's store, for the domain sort key
 * (sort.c) and perf script's fields.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/kernel.h>
#include <linux/stringify.h>
#include <linux/zalloc.h>
#include <string.h>
#include <linux/perf_event.h>

#include "../debug.h"
#include "../sample.h"
#include "virt-id.h"

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

/*
 * The guests' names, from Xen's store as perf xen record saw them: a short
 * array, since a host runs tens of domains, not thousands.
 */
struct xen_domain_name {
	u16 domid;
	const char *type;
	char name[XEN_VIRT_ID_NAME_MAX + 1];
};

/* The guest types of Xen's toolstack (libxl's /libxl/<domid>/type). */
static const char * const xen_domain_types[] = { "pv", "pvh", "hvm" };

static struct xen_domain_name *xen_names;
static unsigned int xen_nr_names, xen_names_alloc;

static struct xen_domain_name *xen_domain_name__find(u16 domid)
{
	unsigned int i;

	for (i = 0; i < xen_nr_names; i++) {
		if (xen_names[i].domid == domid)
			return &xen_names[i];
	}
	return NULL;
}

/**
 * xen_virt_id__set_domain_name - name a guest in reports
 * @domid: the guest, 1 to XEN_DOMID_FIRST_RESERVED - 1
 * @name: 1 to XEN_VIRT_ID_NAME_MAX printable characters, no blank and no
 *	'/', not "." or "..": it ends split file names and names directories
 *
 * A name comes from Xen's store, where a guest may write its own: it is
 * checked here, once for every use.  A later name for the same id replaces the earlier one.
 *
 * Return: 0, -EINVAL for a bad id or name, -ENOMEM.
 */
int xen_virt_id__set_domain_name(u16 domid, const char *name)
{
	struct xen_domain_name *dn;
	size_t i, len = strlen(name);

	if (domid == 0 || domid >= XEN_DOMID_FIRST_RESERVED ||
	    !len || len > XEN_VIRT_ID_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!isgraph((unsigned char)name[i]) || name[i] == '/')
			return -EINVAL;
	}

	dn = xen_domain_name__find(domid);
	if (!dn) {
		if (xen_nr_names == xen_names_alloc) {
			unsigned int n = xen_names_alloc ? 2 * xen_names_alloc : 16;
			void *p = reallocarray(xen_names, n, sizeof(*xen_names));

			if (!p)
				return -ENOMEM;
			xen_names = p;
			xen_names_alloc = n;
		}
		dn = &xen_names[xen_nr_names++];
		dn->domid = domid;
		dn->type = NULL;
	}
	memcpy(dn->name, name, len + 1);
	return 0;
}

/**
 * xen_virt_id__set_domain_type - say which type of guest a named guest is
 * @domid: a guest named by xen_virt_id__set_domain_name()
 * @type: "pv", "pvh" or "hvm"
 *
 * Return: 0, -ENOENT for a guest without a name, -EINVAL for another type.
 */
int xen_virt_id__set_domain_type(u16 domid, const char *type)
{
	struct xen_domain_name *dn = xen_domain_name__find(domid);
	size_t i;

	if (!dn)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(xen_domain_types); i++) {
		if (!strcmp(type, xen_domain_types[i])) {
			dn->type = xen_domain_types[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* The type of guest @domid ("pv", "pvh", "hvm"), or NULL if not known. */
const char *xen_virt_id__domain_type_of(u16 domid)
{
	struct xen_domain_name *dn = xen_domain_name__find(domid);

	return dn ? dn->type : NULL;
}

/* The name given to @domid, or NULL. */
const char *xen_virt_id__domain_name_of(u16 domid)
{
	struct xen_domain_name *dn = xen_domain_name__find(domid);

	return dn ? dn->name : NULL;
}

/* Step through the named guests: 0 with *@pos from 0 up, -ENOENT at the end. */
int xen_virt_id__next_domain(unsigned int *pos, u16 *domid)
{
	if (*pos >= xen_nr_names)
		return -ENOENT;
	*domid = xen_names[(*pos)++].domid;
	return 0;
}

/* The id of the domain named @name (the last one set), or -ENOENT. */
int xen_virt_id__find_domain(const char *name)
{
	unsigned int i = xen_nr_names;

	while (i--) {
		if (!strcmp(xen_names[i].name, name))
			return xen_names[i].domid;
	}
	return -ENOENT;
}

void xen_virt_id__forget_domain_names(void)
{
	zfree(&xen_names);
	xen_nr_names = 0;
	xen_names_alloc = 0;
}

/* "d7 web01" for a named guest, else as xen_virt_id__domain_name(). */
int xen_virt_id__domain_label(u16 domid, char *bf, size_t size)
{
	const char *name = xen_virt_id__domain_name_of(domid);

	if (!name)
		return xen_virt_id__domain_name(domid, bf, size);
	return scnprintf(bf, size, "d%u %s", domid, name);
}

/**
 * xen_virt_id__read_names - name guests from "DOMID NAME [TYPE]" lines
 * @fp: the lines, as xen_virt_id__write_names() writes them
 * @what: where they come from, for the warning about bad lines
 *
 * Lines that are not a guest's id and a valid name are skipped and
 * counted in one warning.
 *
 * Return: the names set, or -ENOMEM.
 */
int xen_virt_id__read_names(FILE *fp, const char *what)
{
	char line[XEN_VIRT_ID_NAME_MAX + 24], name[XEN_VIRT_ID_NAME_MAX + 1], type[8];
	unsigned int domid, bad = 0;
	int n = 0, fields, err;
	char end;

	while (fgets(line, sizeof(line), fp)) {
		if (!strchr(line, '\n') && !feof(fp)) {
			int c;

			while ((c = fgetc(fp)) != EOF && c != '\n')
				;
			bad++;
			continue;
		}
		fields = sscanf(line, "%u %" __stringify(XEN_VIRT_ID_NAME_MAX) "s %7s %c",
				&domid, name, type, &end);
		if (fields < 2 || fields > 3 || (u16)domid != domid) {
			bad++;
			continue;
		}
		err = xen_virt_id__set_domain_name(domid, name);
		if (err == -ENOMEM)
			return err;
		if (!err && fields == 3)
			err = xen_virt_id__set_domain_type(domid, type);
		if (err)
			bad++;
		else
			n++;
	}
	if (bad)
		pr_warning("%s: %u line%s without a guest's id and name ignored\n",
			   what, bad, bad == 1 ? "" : "s");
	return n;
}

/* The names known, one "DOMID NAME [TYPE]" line each; 0 or -errno. */
int xen_virt_id__write_names(FILE *fp)
{
	unsigned int i;

	for (i = 0; i < xen_nr_names; i++) {
		const struct xen_domain_name *dn = &xen_names[i];

		if (fprintf(fp, "%u %s%s%s\n", dn->domid, dn->name, dn->type ? " " : "",
			    dn->type ?: "") < 0)
			return -errno;
	}
	return 0;
}

/* perf script's domid, pcpu and vcpu fields: "DOM:dom0 PCPU:003 VCPU:001 " */
int xen_virt_id__fprintf(u64 virt_id, FILE *fp, bool domid, bool pcpu, bool vcpu)
{
	struct perf_sample_virt_id id = perf_sample__virt_id(virt_id);
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

/* The domain column's width for a sample of this domain */
unsigned int xen_virt_id__domain_width(u16 domid)
{
	char name[XEN_VIRT_ID_NAME_MAX + 16];

	return xen_virt_id__domain_label(domid, name, sizeof(name));
}
