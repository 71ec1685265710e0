#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: timings of the lab itself (the driver and tools issues add
# their own figures here).  Prints a table; nothing here is a test.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"

t() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc; }

noop=$(t make -s lab-images)
touch arch/x86/xen/pmu_kunit.c
incr=$(t make -s lab-images)
scripts/lab.sh bench check on >/dev/null 2>&1 || true
. <(grep -E '^(seconds|accel)=' out/lab-bench.status)
boot=$(grep -a -m1 'XENPMU-BEGIN environment' out/lab-bench.results >/dev/null && echo "$seconds" || echo "failed")

printf '%-44s %10s\n' "measure" "seconds"
printf '%-44s %10.1f\n' "make lab-images, nothing to do" "$noop"
printf '%-44s %10.1f\n' "make lab-images after touching one driver file" "$incr"
printf '%-44s %10s\n' "lab check run, QEMU start to power-off ($accel)" "$boot"
