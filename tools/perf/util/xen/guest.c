// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols of Xen guests: dom0 records the samples of every domain,
 * but only the guest itself knows its kernel's functions.  A copy of a
 * guest's /proc/kallsyms, its vmlinux, or a directory per domain id as
 * perf kvm's --guestmount gives them to the machine of that domain.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "../debug.h"
#include "../dso.h"
#include "../machine.h"
#include "../map.h"
#include "../maps.h"
#include "../symbol.h"
#include "guest.h"
#include "machine.h"
#include "virt-id.h"

struct xen_guest_conf xen_guest_conf;

/* 0 if @path is a regular file or, with @dir, a directory we may read. */
static int xen_guest__check_path(const char *path, bool dir)
{
	struct stat st;

	if (stat(path, &st) || access(path, R_OK))
		return -errno;
	if (dir && !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (!dir && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	return 0;
}

static struct xen_guest_syms *xen_guest_conf__find(u16 domid)
{
	unsigned int i;

	for (i = 0; i < xen_guest_conf.nr_guests; i++) {
		if (xen_guest_conf.guests[i].domid == domid)
			return &xen_guest_conf.guests[i];
	}
	return NULL;
}

/* The domain id of "[d]DOMID", or -1 after saying what is wrong with it. */
static int xen_guest__parse_domid(const char *opt, const char *s, size_t len)
{
	unsigned long id = 0;
	size_t i;

	if (len && s[0] == 'd') {
		s++;
		len--;
	}
	if (!len || len > 5)
		goto out_bad;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto out_bad;
		id = id * 10 + s[i] - '0';
	}
	if (id == 0) {
		pr_err("%s: dom0's kernel symbols are the host's: use --kallsyms or --vmlinux\n",
		       opt);
		return -1;
	}
	if (id >= XEN_DOMID_FIRST_RESERVED) {
		pr_err("%s: domain id %lu is not a guest's, give one from 1 to %u\n",
		       opt, id, XEN_DOMID_FIRST_RESERVED - 1);
		return -1;
	}
	return id;
out_bad:
	pr_err("%s: '%.*s' is not a domain id, give DOMID=FILE, e.g. 1=kallsyms.d1\n",
	       opt, (int)len, s);
	return -1;
}

/**
 * xen_guest_conf__add - name the file of one guest's kernel symbols
 * @arg: "DOMID=FILE" or "dDOMID=FILE", DOMID from 1 to XEN_DOMID_FIRST_RESERVED - 1
 * @vmlinux: FILE is the guest kernel's ELF image, else a copy of its /proc/kallsyms
 *
 * Return: 0, or -EINVAL after saying why @arg is refused: not DOMID=FILE,
 * dom0 or a reserved domain id, a file that cannot be read, or a domain
 * given the same kind of file twice.
 */
int xen_guest_conf__add(const char *arg, bool vmlinux)
{
	const char *opt = vmlinux ? "--guest-vmlinux" : "--guest-kallsyms";
	const char *eq = arg ? strchr(arg, '=') : NULL;
	struct xen_guest_syms *syms, *guests;
	const char *file;
	char *copy;
	int domid, err;

	if (!eq || !eq[1]) {
		pr_err("%s: '%s' is not DOMID=FILE, e.g. 1=kallsyms.d1\n", opt, arg ?: "");
		return -EINVAL;
	}
	domid = xen_guest__parse_domid(opt, arg, eq - arg);
	if (domid < 0)
		return -EINVAL;

	file = eq + 1;
	err = xen_guest__check_path(file, false);
	if (err) {
		pr_err("%s: cannot read d%d's %s %s: %s\n", opt, domid,
		       vmlinux ? "vmlinux" : "kallsyms", file, strerror(-err));
		return -EINVAL;
	}

	syms = xen_guest_conf__find(domid);
	if (!syms) {
		guests = realloc(xen_guest_conf.guests,
				 (xen_guest_conf.nr_guests + 1) * sizeof(*guests));
		if (!guests)
			return -ENOMEM;
		xen_guest_conf.guests = guests;
		syms = &guests[xen_guest_conf.nr_guests++];
		memset(syms, 0, sizeof(*syms));
		syms->domid = domid;
	}
	if (vmlinux ? syms->vmlinux : syms->kallsyms) {
		pr_err("%s: d%d given twice\n", opt, domid);
		return -EINVAL;
	}
	copy = strdup(file);
	if (!copy)
		return -ENOMEM;
	if (vmlinux)
		syms->vmlinux = copy;
	else
		syms->kallsyms = copy;
	return 0;
}

/**
 * xen_guest_conf__set_guestmount - a directory of the guests' /proc files
 * @dir: with DIR/<domid>/proc/kallsyms, and DIR/<domid>/proc/modules if
 *	the guest has modules, for each domain to name
 *
 * Return: 0, or -EINVAL after saying why @dir cannot be used.
 */
int xen_guest_conf__set_guestmount(const char *dir)
{
	int err = xen_guest__check_path(dir, true);

	if (err) {
		pr_err("--guestmount: cannot read the directory %s: %s\n", dir, strerror(-err));
		return -EINVAL;
	}
	xen_guest_conf.guestmount = dir;
	return 0;
}

/* Forget every guest symbol source, as before any option. */
void xen_guest_conf__exit(void)
{
	unsigned int i;

	for (i = 0; i < xen_guest_conf.nr_guests; i++) {
		zfree(&xen_guest_conf.guests[i].kallsyms);
		zfree(&xen_guest_conf.guests[i].vmlinux);
	}
	zfree(&xen_guest_conf.guests);
	xen_guest_conf.nr_guests = 0;
	xen_guest_conf.guestmount = NULL;
}

int xen_guest__parse_kallsyms(const struct option *opt __maybe_unused, const char *arg,
			      int unset)
{
	return unset ? 0 : xen_guest_conf__add(arg, false);
}

int xen_guest__parse_vmlinux(const struct option *opt __maybe_unused, const char *arg,
			     int unset)
{
	return unset ? 0 : xen_guest_conf__add(arg, true);
}

int xen_guest__parse_guestmount(const struct option *opt __maybe_unused, const char *arg,
				int unset)
{
	if (unset) {
		xen_guest_conf.guestmount = NULL;
		return 0;
	}
	return xen_guest_conf__set_guestmount(arg);
}

/* The name of a guest's kernel dso, like perf kvm's but with the domain's name. */
static int xen_guest__set_mmap_name(struct machine *machine, u16 domid)
{
	char name[16];

	xen_virt_id__domain_name(domid, name, sizeof(name));
	free(machine->mmap_name);
	if (asprintf(&machine->mmap_name, "[guest.kernel.kallsyms.%s]", name) < 0) {
		machine->mmap_name = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Load the kernel's symbols now, to say at once when a file has none. */
static int xen_guest__load(struct map *map, u16 domid, const char *file)
{
	struct dso *dso = map__dso(map);
	struct symbol *last;

	if (dso__load(dso, map) <= 0 || !dso__first_symbol(dso)) {
		pr_err("No kernel symbols of d%u found in %s\n", domid, file);
		return -ENOENT;
	}
	/*
	 * A last symbol near the top of the address space ends past it,
	 * wrapped below its start: it, and the map that ends with it, would
	 * hide every other symbol.
	 */
	last = dso__last_symbol(dso);
	if (last && last->end < last->start) {
		last->end = ~0ULL;
		map__set_end(map, ~0ULL);
	}
	return 0;
}

/*
 * One kernel map over the whole address space, as Xen's, with the symbols
 * of a vmlinux or of a kallsyms copy: a file names no module.
 */
static int xen_guest__create_files_map(struct machine *machine, u16 domid,
				       const struct xen_guest_syms *syms)
{
	struct dso *dso;
	struct map *map;
	int err;

	err = xen_guest__set_mmap_name(machine, domid);
	if (err)
		return err;
	dso = xen_machine__whole_kernel_map(machine, "[guest.kernel]");
	if (!dso)
		return -ENOMEM;
	map = machine->vmlinux_map;

	if (syms->vmlinux) {
		err = dso__load_vmlinux(dso, map, syms->vmlinux, false) > 0 ? 0 : -ENOENT;
		if (!err)
			goto out_put_dso;
		pr_err("No kernel symbols of d%u found in %s\n", domid, syms->vmlinux);
	}
	if (syms->kallsyms) {
		/* dso__load_guest_kernel_sym() reads it */
		machine->kallsyms_filename = strdup(syms->kallsyms);
		if (machine->kallsyms_filename) {
			err = xen_guest__load(map, domid, syms->kallsyms);
			goto out_put_dso;
		}
		err = -ENOMEM;
	}
	/* Else dso__load() would read dom0's /proc/kallsyms for this guest. */
	dso__set_loaded(dso);
out_put_dso:
	dso__put(dso);
	return err;
}

/* DIR/@dir and its proc/kallsyms; -ENAMETOOLONG after saying so. */
static int xen_guest__guestmount_paths(u16 domid, const char *dir, char *root,
				       char *kallsyms)
{
	if (snprintf(root, PATH_MAX, "%s/%s", xen_guest_conf.guestmount, dir) >= PATH_MAX ||
	    snprintf(kallsyms, PATH_MAX, "%s/proc/kallsyms", root) >= PATH_MAX) {
		pr_err("--guestmount: path of d%u too long\n", domid);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * DIR/<domid>, else DIR/<name> for a guest whose name the recording kept,
 * is the guest's root as perf kvm's --guestmount makes it: perf's own
 * guest kernel maps read its proc/kallsyms and proc/modules.
 */
static int xen_guest__create_guestmount_maps(struct machine *machine, u16 domid)
{
	char root[PATH_MAX], kallsyms[PATH_MAX], id[8], *root_dir;
	const char *name = xen_virt_id__domain_name_of(domid);
	struct map *map;
	int err;

	snprintf(id, sizeof(id), "%u", domid);
	err = xen_guest__guestmount_paths(domid, id, root, kallsyms);
	if (err)
		return err;
	err = xen_guest__check_path(kallsyms, false);
	if (err == -ENOENT && name) {
		err = xen_guest__guestmount_paths(domid, name, root, kallsyms);
		if (err)
			return err;
		err = xen_guest__check_path(kallsyms, false);
	}
	if (err) {
		pr_warning("Cannot read d%u's kernel symbols from %s: %s\n", domid, kallsyms,
			   strerror(-err));
		return err;
	}

	root_dir = strdup(root);
	if (!root_dir)
		return -ENOMEM;
	free(machine->root_dir);
	machine->root_dir = root_dir;
	err = xen_guest__set_mmap_name(machine, domid);
	if (err)
		return err;
	if (machine__create_kernel_maps(machine) < 0) {
		pr_err("Cannot create d%u's kernel maps from %s\n", domid, root);
		return -ENOMEM;
	}
	/* Before a sample loads a module's map: kallsyms gives modules their symbols. */
	map = machine__kernel_map(machine);
	return map ? xen_guest__load(map, domid, kallsyms) : -ENOENT;
}

/**
 * xen_guest__create_kernel_maps - give a guest domain's machine its kernel symbols
 * @machine: the new machine of domain @domid
 * @domid: a guest's domain id
 *
 * The domain's --guest-vmlinux, else its --guest-kallsyms, else
 * --guestmount's DIR/<domid>/proc/kallsyms, else DIR/<name>/proc/kallsyms
 * for a guest named by xen_virt_id__set_domain_name().  Without any, or when they
 * fail, the domain's kernel samples keep their addresses; they never get
 * dom0's names.
 *
 * Return: 0, or a negative errno after saying what went wrong.
 */
int xen_guest__create_kernel_maps(struct machine *machine, u16 domid)
{
	const struct xen_guest_syms *syms = xen_guest_conf__find(domid);

	if (syms)
		return xen_guest__create_files_map(machine, domid, syms);
	if (xen_guest_conf.guestmount)
		return xen_guest__create_guestmount_maps(machine, domid);
	return 0;
}
