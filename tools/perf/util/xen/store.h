/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_XEN_STORE_H
#define __PERF_XEN_STORE_H

#include <linux/types.h>

/* dom0's connection to Xen's store (xenstored), as libxenstore opens it. */
#define XEN_STORE_DEV		"/dev/xen/xenbus"
/* The most a message of the store's protocol carries (XENSTORE_PAYLOAD_MAX). */
#define XEN_STORE_PAYLOAD_MAX	4096

/**
 * struct xen_store - one connection to Xen's store
 * @fd: the xenbus device, or a socket speaking the same protocol
 * @req_id: the id of the last request sent
 */
struct xen_store {
	int fd;
	u32 req_id;
};

int xen_store__open(struct xen_store *xs);
void xen_store__close(struct xen_store *xs);
int xen_store__read(struct xen_store *xs, const char *path, char *buf, size_t size,
		    int timeout_ms);
int xen_store__directory(struct xen_store *xs, const char *path, char *buf, size_t size,
			 int timeout_ms);
int xen_store__watch(struct xen_store *xs, const char *path, const char *token,
		     int timeout_ms);
int xen_store__next_event(struct xen_store *xs, char *path, size_t size, int stop_fd);
int xen_store__read_name(struct xen_store *xs, int domid, int timeout_ms);
int xen_store__read_names(struct xen_store *xs, int timeout_ms);
int xen_store__name_path(const char *path);

#endif /* __PERF_XEN_STORE_H */
