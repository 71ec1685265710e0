// SPDX-License-Identifier: GPL-2.0
/*
 * Expands fields.h into "->name offset size" lines in the assembler output
 * (compile with -S).  Built once with Xen's public headers (XEN_PUBLIC) and
 * once with the kernel's own, using the kernel's compiler flags.
 */
#ifdef XEN_PUBLIC
#include <stddef.h>
#include <stdint.h>
#include <xen/xen.h>
#include <xen/pmu.h>
#else
#include <linux/types.h>
#include <linux/stddef.h>
#include <xen/interface/xen.h>
#include <xen/interface/xenpmu.h>
#endif

#define EMIT(name, a, b) \
	asm volatile("\n.ascii \"->" name " %c0 %c1\"" : : "i" (a), "i" (b))
#define MEMBER(t, f) (((struct t *)0)->f)
#define S(t) EMIT("sizeof:" #t, sizeof(struct t), 0);
#define F(t, f) EMIT(#t "." #f, offsetof(struct t, f), sizeof(MEMBER(t, f)));
#define O(t, f) EMIT(#t "." #f, offsetof(struct t, f), 0);
#define V(c) EMIT("value:" #c, (unsigned long)(c), 0);

void xenpmu_abi_layout(void);
void xenpmu_abi_layout(void)
{
#include "fields.h"
}
