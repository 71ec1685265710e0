#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build everything, run every layer, print one summary.
# A failing step does not stop the others; the summary names it.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"
errors=()
# Every lab run started, for the summary: one whose results are missing
# is a failure.  A run that cannot start is one whose prerequisite step
# failed, and that step is an error of its own.
labs=()
: > "$out/check-times.txt"

# run NAME TIMEOUT COMMAND...: output in out/check-NAME.log
run() {
	local name=$1 limit=$2 t0 rc
	shift 2
	step "check: $name"
	t0=$(date +%s)
	timeout -k 10 "$limit" "$@" > "$out/check-$name.log" 2>&1
	rc=$?
	echo "$name $(( $(date +%s) - t0 ))s rc=$rc" >> "$out/check-times.txt"
	if [ $rc != 0 ]; then
		[ $rc = 124 ] && errors+=("step $name timed out after ${limit}s") ||
			errors+=("step $name failed (rc=$rc, out/check-$name.log)")
		tail -15 "$out/check-$name.log" >&2
	fi
	return $rc
}

# lab NAME PLAN VPMU [VAR=VALUE...]: a lab run (scripts/lab.sh, whose
# head describes the variables), 900 s at most unless LAB_TIMEOUT says
lab() {
	local name=$1 plan=$2 vpmu=$3 limit=900 v
	shift 3
	for v; do case $v in LAB_TIMEOUT=*) limit=$(( ${v#*=} + 60 )) ;; esac; done
	labs+=("$name")
	run lab-$name $limit env "$@" scripts/lab.sh "$name" "$plan" "$vpmu"
}

kernel=
rm -f "$out"/{checkpatch,series-build,static,abi,harness,treetools,qemu-pmu,deb}.tap "$out"/lab-* \
	"$out"/{checkpatch,series-build}-"$linux_new".tap

run deps 900 scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
run harness 300 sh -c 'python3 tests/harness/run.py > out/harness.tap'
run treetools 300 sh -c 'tests/tree/run.sh > out/treetools.tap'
if run tree 900 scripts/assemble.sh; then
	run series 900 scripts/series.sh
	# Debian 12's Xen 4.17 and Debian 13's 4.20, Debian 12's
	# toolstack (fetched through apt)
	run xen 600 make -s xen
	if run kernel 3600 scripts/build-kernel.sh; then
		kernel=1
		run static 900 scripts/static.sh
		run abi 300 sh -c 'scripts/abi-check.sh > out/abi.tap'
		run selftests 600 scripts/build-selftests.sh
	fi
	run perf 1800 scripts/build-perf.sh && perf=1 || perf=
	# Each patch of the series builds on its own: out/series-build.tap
	[ -n "$kernel" ] && [ -n "$perf" ] && run series-build 1800 scripts/series-build.sh
	# The newest kernel's series, the one posted (6.12's above is its
	# backport): assembled, checkpatch --strict per patch, each patch's
	# objects built, and its perf linked and its tests run
	new=(env XENPMU_KERNEL="$linux_new")
	if run fetch-linux 600 scripts/fetch-linux.sh &&
	   run tree-"$linux_new" 900 "${new[@]}" scripts/assemble.sh; then
		run series-"$linux_new" 900 "${new[@]}" scripts/series.sh
		[ -n "$kernel" ] && [ -n "$perf" ] &&
			run series-build-"$linux_new" 1800 "${new[@]}" scripts/series-build.sh
	fi
	# The packages of the lab's kernel (make deb DEB_CONFIG=lab, from
	# build/kernel) and of our perf, and what they hold: out/deb.tap
	[ -n "$kernel" ] && [ -n "$perf" ] && run deb 900 sh -c 'tests/deb/run.sh > out/deb.tap'
	run qemu 2400 scripts/build-qemu.sh && qemu=1 || qemu=
	# The emulated PMU natively, without Xen: out/qemu-pmu.tap
	[ -n "$qemu" ] && run qemu-pmu 900 tests/qemu-pmu/run.sh
	if run initramfs 300 scripts/mkinitramfs.sh; then
		# Debian's QEMU: a CPU without counters, vPMU on and off
		lab check-vpmu-on check on LAB_PMU=none
		lab check-vpmu-off check off LAB_PMU=none LAB_DOM0=xenpmu_perf=xen
		# Ours: real PMIs, on a kernel with KUnit off as in production
		if [ -n "$qemu" ]; then
			# The general counters perf gets (xenpmu_gp): AMD's six;
			# of the Intel model's eight, the four whose event
			# selects Xen 4.17 routes when they trap
			lab pmi-amd pmi on LAB_PMU=amd LAB_DOM0="kunit.enable=0 xenpmu_gp=6"
			lab pmi-intel pmi on LAB_PMU=intel:8 LAB_DOM0="kunit.enable=0 xenpmu_gp=4"
			# Debian 13's Xen 4.20: the check plan (KUnit on) on our
			# QEMU, then real PMIs in self mode with dom0's vCPUs not
			# pinned, on the Intel model's eight counters, all of
			# which 4.20.3 and later route; and the check plan with
			# the vPMU off
			lab xen420-check-intel check-pmi on LAB_XEN=4.20 LAB_PMU=intel:8 \
				LAB_PIN=0 LAB_DOM0="xenpmu_perf=xen xenpmu_gp=8"
			lab xen420-vpmu-off check off LAB_XEN=4.20 LAB_PMU=none \
				LAB_DOM0=xenpmu_perf=xen
			if run guest-images 300 scripts/mkguests.sh; then
				# Guests under Xen 4.17 with Debian's toolstack,
				# profiled from dom0 in all mode, and KUnit
				# against the real Xen with counters
				# (tests/lab/guests.sh)
				lab guests-amd guests on LAB_PMU=amd \
					LAB_INITRD=out/initramfs-guests.cpio.gz
				# A PVH, an HVM and a stock-kernel guest
				# profiled from dom0 (guests.sh types): on AMD
				# the PVH and HVM guests' samples are Xen's
				lab types-amd types on LAB_PMU=amd LAB_DOM0=kunit.enable=0 \
					LAB_TIMEOUT=840 LAB_INITRD=out/initramfs-types.cpio.gz
				# Every pCPU or the gap shown: 4 pCPUs, dom0
				# with 2 vCPUs, then with 4 (guests.sh coverage)
				lab coverage-amd coverage on LAB_PMU=amd LAB_CPUS=4:2 \
					LAB_DOM0=kunit.enable=0 LAB_INITRD=out/initramfs-guests.cpio.gz
				lab coverage-amd-4 coverage on LAB_PMU=amd LAB_CPUS=4:4 \
					LAB_DOM0=kunit.enable=0 LAB_INITRD=out/initramfs-guests.cpio.gz
			fi
		fi
	fi
fi

args=()
for e in "${errors[@]}"; do args+=(--error "$e"); done
for l in "${labs[@]}"; do args+=(--lab "$l"); done
python3 scripts/summary.py --out "$out" \
	--tap checkpatch=out/checkpatch.tap --tap series-build=out/series-build.tap \
	--tap checkpatch-"$linux_new"=out/checkpatch-"$linux_new".tap \
	--tap series-build-"$linux_new"=out/series-build-"$linux_new".tap \
	--tap static=out/static.tap \
	--tap abi=out/abi.tap --tap harness=out/harness.tap \
	--tap treetools=out/treetools.tap --tap qemu-pmu=out/qemu-pmu.tap \
	--tap deb=out/deb.tap \
	"${args[@]}" | tee "$out/summary.txt"
