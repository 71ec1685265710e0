#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the driver's hypercalls and traps per PMI and per perf
# context-switch operation (read from its own counters by the xen_pmu_bench
# KUnit suite, under the KUnit model of Xen, in the lab's dom0), and the
# timings of the lab itself.  Prints tables; nothing here is a timed test.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"

t() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc; }

noop=$(t make -s lab-images)
touch build/linux/arch/x86/xen/pmu.c
incr=$(t make -s lab-images)
scripts/lab.sh bench check on >/dev/null 2>&1 || true
. <(grep -E '^(seconds|accel)=' out/lab-bench.status)
boot=$(grep -a -m1 'XENPMU-BEGIN environment' out/lab-bench.results >/dev/null && echo "$seconds" || echo "failed")

echo "Hypercalls and traps per operation (xen_pmu_bench, KUnit model of Xen 4.17):"
printf '%-8s %-12s %10s %8s %22s\n' vendor operation hypercalls traps "traps without shadow"
grep -a 'xen_pmu_bench: .*hypercalls' out/lab-bench.results | sed 's/.*xen_pmu_bench: //' |
	awk '{ gsub(/[()]/, ""); printf "%-8s %-12s %10s %8s %22s\n", $1, $2, $4, $6, $10 }'
echo
printf '%-44s %10s\n' "measure" "seconds"
printf '%-44s %10.1f\n' "make lab-images, nothing to do" "$noop"
printf '%-44s %10.1f\n' "make lab-images after touching pmu.c" "$incr"
printf '%-44s %10s\n' "lab check run, QEMU start to power-off ($accel)" "$boot"
