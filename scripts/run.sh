#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot Xen (vpmu=on) with our dom0 on our QEMU's emulated PMU
# (LAB_PMU=amd by default, intel, or none for Debian's QEMU without
# counters), record every CPU with our perf and print the report dom0
# produced.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

"$top/scripts/lab.sh" run run on
res=$out/lab-run.results
st=$out/lab-run.status
. <(grep -E '^(rc|accel|seconds|pmu)=' "$st")
grep -q XENPMU-DONE "$res" ||
	die "dom0 did not finish (QEMU rc=$rc); see out/lab-run.log"
echo
echo "=== perf report recorded in dom0 under Xen (${seconds}s, $accel${pmu:+, emulated PMU $pmu}) ==="
sed -n '/^XENPMU-BEGIN report/,/^XENPMU-END report/p' "$res" | sed '1d;$d'
if [ "$accel" = tcg ] && [ "${pmu:-none}" = none ]; then
	cat <<'EOT'

Note: this run used Debian's QEMU (LAB_PMU=none), whose CPU model has no
performance counters, so Xen's vPMU never raises a PMI: dom0's perf falls
back from "cycles" to the cpu-clock software event and every sample is a
dom0 sample. The default, our QEMU with an emulated PMU (LAB_PMU=amd or
intel), samples hardware cycles of Xen and dom0.
EOT
fi
