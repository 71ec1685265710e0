#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot Xen (vpmu=on) with our dom0 on our QEMU's emulated PMU
# (LAB_PMU=amd by default, intel, or none for Debian's QEMU without
# counters), record every CPU with our perf and print the report dom0
# produced.  "run.sh guests" (make run-guests): the guest lab instead
# (tests/lab/guests.sh), with its per-domain reports.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

if [ "${1:-}" = guests ]; then
	LAB_PMU=${LAB_PMU:-amd} LAB_DOM0=kunit.enable=0 \
		LAB_INITRD=$out/initramfs-guests.cpio.gz "$top/scripts/lab.sh" run-guests guests on
	res=$out/lab-run-guests.results
	. <(grep -E '^(rc|accel|seconds|pmu)=' "$out/lab-run-guests.status")
	grep -q XENPMU-DONE "$res" ||
		die "dom0 did not finish (QEMU rc=$rc); see out/lab-run-guests.log"
	echo
	echo "=== perf xen report in dom0 with guests (${seconds}s, $accel, emulated PMU $pmu) ==="
	sed -n 's/^# \(xl info\|domain ids\|samples of\|pCPU\)/\1/p' "$res"
	echo
	echo "--- perf xen report --sort domain"
	sed -n 's/^# report: //p' "$res"
	echo
	echo "--- perf xen report --sort domain,sym --guestmount (the guests' symbols)"
	sed -n 's/^# report-sym: //p' "$res"
	echo
	grep -E '^(not )?ok ' "$res" | awk '$1 == "ok" { p++ } $1 == "not" { f++; print }
		END { printf "guest lab: %d passed, %d failed\n", p, f }'
	exit 0
fi

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
