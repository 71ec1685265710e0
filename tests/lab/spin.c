// SPDX-License-Identifier: GPL-2.0
/*
 * spin: a fixed amount of work for counting and sampling tests.
 *
 *   spin <iterations>     a CPU-bound user-space loop, xenpmu_spin()
 *   spin -k <n>           n cheap system calls (getppid), xenpmu_syscalls()
 *
 * Built static (gcc -O2 -static) so it runs in any initramfs.  Both
 * functions are noinline so that samples can be attributed to them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* A serial dependency chain: the same instructions on every CPU. */
__attribute__((noinline)) unsigned long xenpmu_spin(unsigned long n)
{
	unsigned long x = 1, i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) unsigned long xenpmu_syscalls(unsigned long n)
{
	unsigned long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	return sum;
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "spin: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long r;

	if (argc == 3 && !strcmp(argv[1], "-k"))
		r = xenpmu_syscalls(number(argv[2]));
	else if (argc == 2)
		r = xenpmu_spin(number(argv[1]));
	else {
		fprintf(stderr, "usage: spin <iterations> | spin -k <syscalls>\n");
		return 2;
	}
	/* keep the result live; print nothing */
	return r == 42 ? 1 : 0;
}
