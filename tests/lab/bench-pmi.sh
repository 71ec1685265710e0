#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One run of make bench's driver comparison, for any dom0 kernel (ours or
# upstream's, so nothing here reads our driver's statistics): in vPMU
# mode XENPMU_BENCH (self, hv or all) perf record -a -e cycles -F 1000 of
# the known loop on every CPU; "task": in self mode, a per-task recording
# of a ping-pong between two processes on CPU0 (two context switches per
# round trip); "none": the loop and the ping-pong, unrecorded.  Prints
# "# bench" lines: seconds, PMIs (VIRQ_XENPMU, /proc/interrupts),
# samples and context switches.

. /etc/xenpmu/lib.sh

mode=${XENPMU_BENCH:-self}
spin_iters=${XENPMU_SPIN_ITERS:-250000000}
trips=${XENPMU_ROUND_TRIPS:-5000}

# VIRQ_XENPMU interrupts of every CPU (the IRQs named pmu0, pmu1, ...)
pmis() {
	awk '$NF ~ /^pmu[0-9]+$/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) n += $i }
		END { print n + 0 }' /proc/interrupts
}

cmd=$(busy_cmd "$spin_iters")

# one_run LABEL SWITCHES COMMAND...: run it, print its figures
one_run() {
	label=$1 switches=$2
	shift 2
	p0=$(pmis)
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > /dev/null 2>&1 || return 1
	t1=$(cut -d' ' -f1 /proc/uptime)
	p1=$(pmis)
	samples=0
	[ -s /tmp/bench.data ] && samples=$(perf script -i /tmp/bench.data -F ip 2> /dev/null | wc -l)
	rm -f /tmp/bench.data
	echo "# bench mode $label seconds $(echo "$t0 $t1" | awk '{ print $2 - $1 }') pmis $((p1 - p0)) samples $samples switches $switches"
}

record="perf record -q -e cycles -F 1000 -o /tmp/bench.data"
rm -f /tmp/bench.data
case $mode in
none)
	one_run none 0 sh -c "$cmd" &&
		one_run none-task $((2 * trips)) taskset -c 0 spin -p "$trips"
	;;
task)
	echo self > /sys/hypervisor/pmu/pmu_mode &&
		one_run task $((2 * trips)) $record -- taskset -c 0 spin -p "$trips"
	;;
*)
	echo "$mode" > /sys/hypervisor/pmu/pmu_mode &&
		one_run "$mode" 0 $record -a -- sh -c "$cmd"
	;;
esac
result=$?
[ $result = 0 ] && echo "ok 1 - bench run in mode $mode" || echo "not ok 1 - bench run in mode $mode"
echo "1..1"
