#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The emulated PMU of our QEMU, tested without Xen: our lab kernel booted
# natively on out/qemu-system-x86_64 with each CPU model (AMD EPYC, Intel
# Skylake-Client, pmu=on, 2 vCPUs), perf counting and sampling a fixed
# loop (tests/lab/spin.c).  The guest's /init is tests/qemu-pmu/init; the
# verdicts are judge.py's.
# Artifacts: out/qemu-pmu.tap; out/qemu-pmu-VENDOR.{log,results,qemu}.
# Exits non-zero if a test failed; the last line is "N passed, N failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

qemu=$out/qemu-system-x86_64
kernel=$out/bzImage
gen=${KOUT:-$top/build/kernel}/usr/gen_init_cpio
work=$top/build/qemu-pmu
vendors=${QEMU_PMU_VENDORS:-amd intel}
timeout_s=${QEMU_PMU_TIMEOUT:-300}

[ -x "$qemu" ] || die "$qemu missing: run 'make qemu'"
[ -r "$kernel" ] || die "$kernel missing: run 'make kernel'"
[ -x "$out/perf" ] || die "out/perf missing: run 'make perf'"
[ -x "$gen" ] || die "$gen missing: build the kernel first"
file -L /bin/busybox | grep -q 'statically linked' ||
	die "/bin/busybox is not static: run 'make deps' (busybox-static)"

mkdir -p "$work"
gcc -O2 -static -Wall -Wextra -o "$work/spin.tmp" "$top/tests/lab/spin.c"
mv "$work/spin.tmp" "$work/spin"

cat > "$work/initramfs.list" <<EOF
dir /bin 0755 0 0
dir /dev 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
nod /dev/ttyS1 0600 0 0 c 4 65
file /bin/busybox /bin/busybox 0755 0 0
slink /bin/sh busybox 0777 0 0
file /bin/perf $out/perf 0755 0 0
file /bin/spin $work/spin 0755 0 0
file /init $top/tests/qemu-pmu/init 0755 0 0
EOF
"$gen" "$work/initramfs.list" | gzip -n -1 > "$work/initramfs.cpio.gz"

tap=$out/qemu-pmu.tap
body=$work/tap.body
: > "$body"
next=1
for v in $vendors; do
	case $v in
	amd)	cpu=EPYC,-monitor,pmu=on ;;
	# eight general counters, as Skylake without Hyper-Threading
	intel)	cpu=Skylake-Client,-monitor,pmu=on,pmu-gp=8 ;;
	*)	die "unknown vendor $v" ;;
	esac
	log=$out/qemu-pmu-$v.log res=$out/qemu-pmu-$v.results
	rm -f "$log" "$res"
	step "qemu-pmu: booting our kernel natively with -cpu $cpu (timeout ${timeout_s}s)"
	t0=$(date +%s)
	rc=0
	timeout -k 10 "$timeout_s" "$qemu" -M pc -cpu "$cpu" -smp 2 -m 1024 \
		-display none -nodefaults -no-reboot -monitor none \
		-serial "file:$log" -serial "file:$res" \
		-kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
		-append "console=ttyS0 loglevel=5 panic=-1 kunit.enable=0 spin_n=${QEMU_PMU_SPIN:-600000000} sys_n=${QEMU_PMU_SYS:-300000}" \
		2> "$out/qemu-pmu-$v.qemu" || rc=$?
	step "qemu-pmu: $v run took $(($(date +%s) - t0)) s (QEMU exit $rc)"
	{
		[ "$rc" = 0 ] || echo "# $v: QEMU exited with $rc (124: timeout)"
		grep -q '^@@ done' "$res" 2>/dev/null ||
			echo "# $v: the guest did not finish its plan (see $log)"
		if grep -a -q 'Kernel panic\|BUG:\|WARNING:' "$log" 2>/dev/null; then
			echo "# $v: the kernel log has a panic, BUG or WARNING:"
			grep -a -m5 'Kernel panic\|BUG:\|WARNING:' "$log" | sed 's/^/#   /'
		fi
	} >> "$body"
	python3 "$top/tests/qemu-pmu/judge.py" "$v" "${res}" "$next" >> "$body" ||
		echo "# $v: judge.py failed" >> "$body"
	next=$(($(grep -c '^\(not \)\?ok ' "$body") + 1))
done

passed=$(grep -c '^ok ' "$body" || true)
failed=$(grep -c '^not ok ' "$body" || true)
# a run that broke (timeout, panic, judge error) fails even if its
# remaining lines passed
broken=$(grep -c '^# [a-z]*: \(QEMU exited\|the guest did not\|the kernel log\|judge.py\)' "$body" || true)
{
	echo "TAP version 13"
	echo "1..$((passed + failed + broken))"
	grep -v '^# counts ' "$body"
	i=$((passed + failed))
	for _ in $(seq 1 "$broken"); do
		i=$((i + 1))
		echo "not ok $i - a QEMU run broke (see the comments above)"
	done
} > "$tap"
failed=$((failed + broken))
cat "$tap"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
