#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the real Xen (Debian 12's 4.17 or Debian 13's 4.20) under QEMU with our kernel as PV dom0 and the lab
# initramfs, run one plan and keep the logs:
#   out/lab-NAME.log      QEMU's first serial port: Xen and dom0's console
#   out/lab-NAME.results  second serial port: the plan's output
#   out/lab-NAME.status   how the run ended (rc, seconds, accelerator)
#   out/lab-NAME.qemu     QEMU's own messages
#
# usage: lab.sh NAME PLAN VPMU [extra Xen options]
#   PLAN  check | check-pmi | pmi | soak | bench | guests | coverage | types | run
#         (tests/lab/init);
#   VPMU  on (vpmu=on) | off (no vpmu option)
# Environment (the only place the lab's variables are described):
#   LAB_XEN      4.17 (Debian 12's, default) or 4.20 (Debian 13's,
#                scripts/fetch-xen.sh)
#   LAB_PMU      amd | intel[:N] | none (default amd): under TCG, the CPU
#                model whose counters our QEMU (out/qemu-system-x86_64,
#                qemu/README.md) emulates, Intel's with N general counters
#                (pmu-gp, default 4); none is Debian's QEMU, whose CPU has
#                no counters
#   LAB_CPUS     N[:V]: the machine's CPUs and dom0's vCPUs (default 2:2;
#                V defaults to 2)
#   LAB_PIN      1 | 0 (default 1): pin dom0's vCPUs 1:1 to the CPUs
#   LAB_DOM0     extra dom0 command line (kunit.enable=0, xenpmu_gp=N,
#                xenpmu_fault=panic to see the lab catch a dying dom0, ...)
#   LAB_KERNEL   dom0's kernel (default out/bzImage)
#   LAB_INITRD   dom0's initramfs (default out/initramfs.cpio.gz; the guest
#                lab's out/initramfs-guests.cpio.gz, plan types'
#                out/initramfs-types.cpio.gz, scripts/mkguests.sh)
#   LAB_TIMEOUT  seconds (default 600)
#   LAB_ACCEL    kvm | tcg | auto (default auto)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
name=$1 plan=$2 vpmu=$3
shift 3
xenargs="$*"

for f in xen bzImage initramfs.cpio.gz; do
	[ -r "$out/$f" ] || die "out/$f missing: run 'make lab-images'"
done
kernel=${LAB_KERNEL:-$out/bzImage}
[ -r "$kernel" ] || die "$kernel missing"
initrd=${LAB_INITRD:-$out/initramfs.cpio.gz}
[ -r "$initrd" ] || die "$initrd missing"
case ${LAB_XEN:-4.17} in
4.17)	xen=$out/xen ;;
4.20)	xen=$out/xen-4.20 ;;
*)	die "LAB_XEN=$LAB_XEN: 4.17 (Debian 12) or 4.20 (Debian 13)" ;;
esac
[ -r "$xen" ] || die "$xen missing: run 'make xen'"

# KVM only where it really runs Xen: /dev/kvm can exist and still fail
# (seen here: "KVM internal error" at Xen's first instructions), so the
# probe boots Xen alone under KVM and waits for its banner.
probe_kvm() {
	local p=$out/kvm-probe i
	[ -e /dev/kvm ] || { echo "no /dev/kvm"; return 1; }
	[ -w /dev/kvm ] || { echo "/dev/kvm is not writable"; return 1; }
	rm -f "$p.log" "$p.err"
	timeout -k 5 30 qemu-system-x86_64 -machine pc,accel=kvm -cpu host -smp 1 -m 256 \
		-display none -nodefaults -no-reboot -monitor none -serial "file:$p.log" \
		-kernel "$out/xen" -append "console=com1 com1=115200,8n1" \
		</dev/null 2>"$p.err" &
	local q=$!
	for i in $(seq 1 60); do
		if grep -qa 'Xen version' "$p.log" 2>/dev/null; then
			kill $q 2>/dev/null; wait $q 2>/dev/null
			return 0
		fi
		if grep -qa 'KVM internal error\|failed to initialize kvm\|Could not access KVM' "$p.err" 2>/dev/null ||
		   ! kill -0 $q 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	kill $q 2>/dev/null; wait $q 2>/dev/null
	echo "KVM cannot run Xen here: $(grep -am1 -i 'error\|fail' "$p.err" || echo 'no banner within 30 s')"
	return 1
}

accel=${LAB_ACCEL:-auto}
qemu=qemu-system-x86_64
why=
if [ "$accel" = auto ]; then
	if why=$(probe_kvm); then accel=kvm; else accel=tcg; fi
fi
if [ "$accel" = kvm ]; then
	cpu="-machine pc,accel=kvm -cpu host,pmu=on"
	what="KVM (-enable-kvm -cpu host,pmu=on): Xen gets the host's PMU as KVM exposes it"
else
	# MONITOR makes Xen's idle loop fault under TCG; see DESIGN.md.
	case ${LAB_PMU:-amd} in
	amd)	qemu=$out/qemu-system-x86_64 model=EPYC,-monitor,pmu=on
		what="software emulation (TCG) with our emulated PMU, AMD family 17h (-cpu $model${why:+; $why})" ;;
	intel|intel:*)
		gp=${LAB_PMU#intel}
		qemu=$out/qemu-system-x86_64 model=Skylake-Client,-monitor,pmu=on${gp:+,pmu-gp=${gp#:}}
		what="software emulation (TCG) with our emulated PMU, Intel Skylake (-cpu $model${why:+; $why})" ;;
	none)	model=EPYC,-monitor
		what="software emulation (TCG, Debian's QEMU, -cpu $model${why:+; $why}): no hardware performance counters, no PMIs; only software events can sample" ;;
	*)	die "LAB_PMU=${LAB_PMU}: amd, intel[:N] or none" ;;
	esac
	cpu="-machine pc,accel=tcg -cpu $model"
	if [ "$qemu" != qemu-system-x86_64 ]; then
		[ -x "$qemu" ] || die "$qemu missing: run 'make qemu'"
		cpu="$cpu -L /usr/share/qemu -L /usr/share/seabios"
	fi
fi

[ "$vpmu" = on ] && xenargs="vpmu=on $xenargs"
log=$out/lab-$name.log
res=$out/lab-$name.results
status=$out/lab-$name.status
rm -f "$log" "$res" "$status"

pin=
[ "${LAB_PIN:-1}" = 1 ] && pin=dom0_vcpus_pin
cpus=${LAB_CPUS:-2}
vcpus=2
case $cpus in *:*) vcpus=${cpus#*:} cpus=${cpus%%:*} ;; esac
xen_cmd="$xen_base_cmd dom0_max_vcpus=$vcpus $pin $xenargs"
dom0_cmd="console=hvc0 earlyprintk=xen panic=-1 oops=panic xenpmu_plan=$plan xenpmu_vpmu=$vpmu xenpmu_pinned=${LAB_PIN:-1}${LAB_DOM0:+ $LAB_DOM0}"

step "lab $name: Xen [$xen_cmd], $what"
start=$(date +%s)
qerr=$out/lab-$name.qemu
rc=0
boot_xen qemu="$qemu" cpu="$cpu" smp="$cpus" xen="$xen" xen_cmd="$xen_cmd" \
	dom0="$kernel" dom0_cmd="$dom0_cmd" initrd="$initrd" log="$log" results="$res" \
	qerr="$qerr" timeout="${LAB_TIMEOUT:-600}" &
q=$!
# A KVM emulation failure stops the guest without ending QEMU: end it now.
while kill -0 $q 2>/dev/null; do
	if grep -qa 'KVM internal error' "$qerr" 2>/dev/null; then
		# boot_xen runs in a subshell: end its timeout, which ends QEMU
		pkill -P $q 2>/dev/null
		break
	fi
	sleep 1
done
wait $q || rc=$?
secs=$(( $(date +%s) - start ))
printf 'rc=%s\nseconds=%s\naccel=%s\nplan=%s\nvpmu=%s\npmu=%s\nxen=%s\nwhy=%s\n' "$rc" "$secs" "$accel" "$plan" "$vpmu" "$([ "$accel" = tcg ] && echo "${LAB_PMU:-amd}" | cut -d: -f1)" "${LAB_XEN:-4.17}" "$why" > "$status"
step "lab $name: QEMU exited with $rc after ${secs}s (log: out/lab-$name.log)"
