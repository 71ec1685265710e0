/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_XEN_SPLIT_H
#define __PERF_XEN_SPLIT_H

#include <linux/types.h>
#include <stdbool.h>

/**
 * struct xen_split_stats - what xen_split() wrote
 * @samples: samples written, in all files
 * @unknown: of those, samples without a valid domain (PREFIX.unknown)
 * @sideband: other records, each written to every file
 * @dropped: samples perf could not attribute to an event or a machine
 * @files: files written
 * @xen: whether one of them is PREFIX.xen
 * @xensyms: whether INPUT.xensyms was copied to PREFIX.xen.xensyms
 */
struct xen_split_stats {
	u64 samples;
	u64 unknown;
	u64 sideband;
	u64 dropped;
	unsigned int files;
	bool xen;
	bool xensyms;
};

int xen_copy_file(const char *src, const char *dst);
int xen_split(const char *input, const char *prefix, struct xen_split_stats *stats);

#endif /* __PERF_XEN_SPLIT_H */
