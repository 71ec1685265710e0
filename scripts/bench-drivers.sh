#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of make bench (also alone): our driver against upstream 6.12's
# (scripts/build-upstream.sh, the same config) in the same lab, on both
# emulated PMUs, in each vPMU mode: the PMU accesses that reached the
# emulated PMU (QEMU_PMU_EMU_STATS, see qemu/README.md) per PMI and per
# second, beyond those of the same loop unrecorded, and the loop's
# slowdown.  One lab boot per figure (tests/lab/bench-pmi.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"
bench=$out/bench
mkdir -p "$bench"
# Ours against upstream 6.12's driver (scripts/build-upstream.sh, the same
# config), same lab: PMU accesses that reached the emulated PMU (QEMU's
# own count: Xen's, including what it does for each trapped access of
# dom0), less those of the same loop unrecorded, per PMI and per second.
scripts/build-upstream.sh >/dev/null 2>&1 || die "upstream 6.12's kernel does not build"
echo "Ours against upstream 6.12's driver, real Xen 4.17, perf record -a -e cycles -F 1000 of the loop"
echo "(accesses: PMU MSR reads and writes and RDPMCs the emulated PMU saw, beyond the unrecorded loop's):"
printf '%-6s %-8s %-5s %8s %8s %7s %12s %12s %10s\n' vendor driver mode seconds PMIs samples \
	"accesses/PMI" "accesses/s" "loop x"
for v in amd intel; do
	for k in ours upstream; do
		img=$out/bzImage
		[ $k = upstream ] && img=$out/upstream/bzImage
		for m in none self hv all; do
			f=$bench/pmu-$v-$k-$m
			rm -f "$f"
			QEMU_PMU_EMU_STATS=$f LAB_PMU=$v LAB_KERNEL=$img \
				LAB_DOM0="kunit.enable=0 xenpmu_bench=$m" \
				scripts/lab.sh bench-$v-$k-$m bench on >/dev/null 2>&1 || true
			grep -a '^# bench mode' "$out/lab-bench-$v-$k-$m.results" |
				sed "s/^/$v $k /" > "$f.line" || true
			awk '{ n += $3 + $5 + $7 } END { print n + 0 }' "$f" 2>/dev/null > "$f.acc" ||
				echo 0 > "$f.acc"
		done
		base_acc=$(cat "$bench/pmu-$v-$k-none.acc")
		base_s=$(awk '{ print $8 }' "$bench/pmu-$v-$k-none.line")
		for m in self hv all; do
			f=$bench/pmu-$v-$k-$m
			awk -v acc="$(cat "$f.acc")" -v b="$base_acc" -v bs="${base_s:-0}" '
				{ s = $8; p = $10; n = $12
				  if (!p || !s || !bs) { printf "%-6s %-8s %-5s no figures\n", $1, $2, $6; next }
				  printf "%-6s %-8s %-5s %8.2f %8d %7d %12.1f %12.0f %10.2f\n", $1, $2, $6, s, p, n,
					(acc - b) / p, (acc - b) / s, s / bs }' "$f.line"
		done
	done
done
echo "(loop x: the recorded loop's seconds over the unrecorded one's)"
