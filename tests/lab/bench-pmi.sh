#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One run of make bench's driver comparison, for any dom0 kernel (ours or
# upstream's, so nothing here reads our driver's statistics): in vPMU
# mode XENPMU_BENCH (self, hv or all) perf record -a -e cycles -F 1000 of
# the known loop on every CPU; with "none", the same loop unrecorded.
# Prints "# bench" lines: seconds, PMIs (VIRQ_XENPMU, /proc/interrupts)
# and samples.

mode=${XENPMU_BENCH:-self}
spin_iters=${XENPMU_SPIN_ITERS:-250000000}
ncpu=$(grep -c ^processor /proc/cpuinfo)

# VIRQ_XENPMU interrupts of every CPU (the IRQs named pmu0, pmu1, ...)
pmis() {
	awk '$NF ~ /^pmu[0-9]+$/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) n += $i }
		END { print n + 0 }' /proc/interrupts
}

cmd=
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	cmd="$cmd taskset -c $cpu spin $spin_iters &"
	cpu=$((cpu + 1))
done
cmd="$cmd wait"

if [ "$mode" != none ]; then
	echo "$mode" > /sys/hypervisor/pmu/pmu_mode || exit 1
fi
p0=$(pmis)
t0=$(cut -d' ' -f1 /proc/uptime)
if [ "$mode" = none ]; then
	sh -c "$cmd"
else
	perf record -q -a -e cycles -F 1000 -o /tmp/bench.data -- sh -c "$cmd" > /dev/null 2>&1 ||
		exit 1
fi
t1=$(cut -d' ' -f1 /proc/uptime)
p1=$(pmis)
samples=0
[ "$mode" = none ] || samples=$(perf script -i /tmp/bench.data -F ip 2> /dev/null | wc -l)
echo "# bench mode $mode seconds $(echo "$t0 $t1" | awk '{ print $2 - $1 }') pmis $((p1 - p0)) samples $samples"
echo "ok 1 - bench run in mode $mode"
echo "1..1"
