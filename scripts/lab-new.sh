#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lab-new: the newest kernel's series booted as dom0, with the lab's
# two driver runs.  Its kernel is built whole at the series' last commit in
# series-build's worktree and objects for that kernel (build/series-$linux_new,
# so only what that step did not compile is compiled now), with the lab's
# configuration brought to it; its KUnit module and its perf are laid over
# the lab's initramfs (a second cpio archive, whose files replace the
# first's); then
#
#   new-pmi-amd             real PMIs on the AMD model under Xen 4.17, KUnit
#                           off (make check's pmi-amd)
#   new-xen420-check-intel  KUnit against the running Xen 4.20 and real PMIs
#                           on the Intel model (make check's xen420-check-intel)
#
# each summed up as make check sums up a lab run, and checked to have
# booted that kernel.  7.3's perf brings its own "Parse event definition
# strings" cases for syscalls:* tracepoints, which the lab's configuration
# (no FTRACE_SYSCALLS) does not have: that perf test fails here, and says
# why in its output.  Not part of make check: a second full kernel does not
# fit its 40-minute budget.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
base=$top/build/series-$linux_new
wt=$base/tree
kout=$base/kernel
pout=$base/perf

[ -s "$base/tap" ] || die "run 'make series' first: build/series-$linux_new has no built series"
[ "$(git -C "$wt" rev-parse HEAD)" = "$(git -C "$top/build/linux-$linux_new" rev-parse HEAD)" ] ||
	die "build/series-$linux_new is not at the series' last commit: run 'make series'"
[ -s "$out/initramfs.cpio.gz" ] || die "out/initramfs.cpio.gz missing: run 'make initramfs'"

step "lab-new: dom0 kernel $linux_new (${kout#"$top"/})"
kbuild "$wt" "$kout" -s bzImage modules
rel=$(kbuild "$wt" "$kout" -s kernelrelease)
over=$base/initramfs
rm -rf "$over"
mkdir -p "$over/bin"
kbuild "$wt" "$kout" -s modules_install INSTALL_MOD_PATH="$over" INSTALL_MOD_STRIP=1
[ -x "$pout/perf" ] || make -C "$wt/tools/perf" O="$pout" -j"$jobs" "${perf_opts[@]}" perf
strip -o "$over/bin/perf" "$pout/perf"
initrd=$out/initramfs-$linux_new.cpio.gz
{ cat "$out/initramfs.cpio.gz"
  (cd "$over" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -n -1)
} > "$initrd.tmp"
mv "$initrd.tmp" "$initrd"

rc=0
run() {
	local name=$1 plan=$2
	shift 2
	env LAB_KERNEL="$kout/arch/x86/boot/bzImage" LAB_INITRD="$initrd" "$@" \
		"$top/scripts/lab.sh" "$name" "$plan" on || rc=1
	python3 "$top/scripts/summary.py" --out "$out" --lab "$name" | tee "$out/$name.summary" || rc=1
	grep -qx "kernel: $rel" "$out/lab-$name.results" ||
		{ echo "lab-new: $name did not boot $rel"; rc=1; }
}
run new-pmi-amd pmi LAB_PMU=amd LAB_DOM0="kunit.enable=0 xenpmu_gp=6"
run new-xen420-check-intel check-pmi LAB_XEN=4.20 LAB_PMU=intel:8 LAB_PIN=0 \
	LAB_DOM0="xenpmu_perf=xen xenpmu_gp=8"
exit $rc
