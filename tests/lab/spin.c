// SPDX-License-Identifier: GPL-2.0
/*
 * spin: a fixed amount of work for counting and sampling tests.
 *
 *   spin <iterations>     a CPU-bound user-space loop, xenpmu_spin()
 *   spin -k <n>           n cheap system calls (getppid), xenpmu_syscalls()
 *   spin -p <n>           n round trips of a byte between this process and
 *                         a child over two pipes, xenpmu_pingpong(): two
 *                         context switches each when both share a CPU
 *   spin -c <cpu> ...     any of the above, bound to one CPU first (as
 *                         taskset does, for an initramfs without it)
 *
 * Built static (gcc -O2 -static) so it runs in any initramfs.  Both
 * functions are noinline so that samples can be attributed to them.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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

__attribute__((noinline)) unsigned long xenpmu_pingpong(unsigned long n)
{
	int to_child[2], to_parent[2], status;
	unsigned long i;
	char b = 0;
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent)) {
		perror("spin: pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("spin: fork");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (pid == 0) {
			if (read(to_child[0], &b, 1) != 1 || write(to_parent[1], &b, 1) != 1)
				_exit(1);
		} else if (write(to_child[1], &b, 1) != 1 || read(to_parent[0], &b, 1) != 1) {
			perror("spin: pipe round trip");
			exit(1);
		}
	}
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "spin: the ping-pong child failed\n");
		exit(1);
	}
	return i;
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

	if (argc >= 3 && !strcmp(argv[1], "-c")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(number(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("spin: sched_setaffinity");
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc == 3 && !strcmp(argv[1], "-k"))
		r = xenpmu_syscalls(number(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "-p"))
		r = xenpmu_pingpong(number(argv[2]));
	else if (argc == 2)
		r = xenpmu_spin(number(argv[1]));
	else {
		fprintf(stderr, "usage: spin [-c <cpu>] <iterations> | -k <syscalls> | -p <round trips>\n");
		return 2;
	}
	/* keep the result live; print nothing */
	return r == 42 ? 1 : 0;
}
