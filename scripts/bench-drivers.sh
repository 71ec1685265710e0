#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of make bench (also alone): our driver against upstream 6.12's
# (scripts/build-upstream.sh, the same config) in the same lab, on both
# emulated PMUs, in each vPMU mode: the PMU accesses that reached the
# emulated PMU (QEMU_PMU_EMU_STATS, see qemu/README.md) per PMI, per
# second and per context switch, beyond those of the same work
# unrecorded, and the slowdown.  One lab boot per figure
# (tests/lab/bench-pmi.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"
bench=$out/bench
mkdir -p "$bench"
scripts/build-upstream.sh >/dev/null 2>&1 || die "upstream 6.12's kernel does not build"
echo "Ours against upstream 6.12's driver, real Xen 4.17: perf record -a -e cycles -F 1000 of the loop"
echo "on every CPU per mode; task: a per-task recording (self mode) of a ping-pong on one CPU."
echo "accesses: PMU MSR reads, writes and RDPMCs the emulated PMU saw, beyond the unrecorded run's"
printf '%-6s %-8s %-5s %8s %8s %7s %13s %11s %14s %7s\n' vendor driver mode seconds PMIs samples \
	"accesses/PMI" "accesses/s" "accesses/switch" "slower"
for v in amd intel; do
	for k in ours upstream; do
		img=$out/bzImage
		[ $k = upstream ] && img=$out/upstream/bzImage
		for m in none self hv all task; do
			f=$bench/pmu-$v-$k-$m
			rm -f "$f"
			QEMU_PMU_EMU_STATS=$f LAB_PMU=$v LAB_KERNEL=$img \
				LAB_DOM0="kunit.enable=0 xenpmu_bench=$m" \
				scripts/lab.sh bench-$v-$k-$m bench on >/dev/null 2>&1 || true
			grep -a '^# bench mode' "$out/lab-bench-$v-$k-$m.results" > "$f.lines" || true
			awk '{ n += $3 + $5 + $7 } END { print n + 0 }' "$f" 2>/dev/null > "$f.acc" ||
				echo 0 > "$f.acc"
		done
		none=$bench/pmu-$v-$k-none
		for m in self hv all task; do
			f=$bench/pmu-$v-$k-$m
			base=none
			[ $m = task ] && base=none-task
			awk -v v=$v -v k=$k -v acc="$(cat "$f.acc")" -v b="$(cat "$none.acc")" \
			    -v bs="$(awk -v l=$base '$4 == l { print $6 }' "$none.lines")" '
				{ m = $4; s = $6; p = $8; n = $10; sw = $12
				  if (!s || !bs || (!p && m != "task")) { printf "%-6s %-8s %-5s no figures\n", v, k, m; next }
				  printf "%-6s %-8s %-5s %8.2f %8d %7d %13s %11.0f %14s %7.2f\n", v, k, m, s, p, n,
					p ? sprintf("%.1f", (acc - b) / p) : "-", (acc - b) / s,
					sw ? sprintf("%.1f", (acc - b) / sw) : "-", s / bs }' "$f.lines"
		done
	done
done
echo "(slower: the recorded run's seconds over the unrecorded one's)"
