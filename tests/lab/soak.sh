#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Soak (make soak, not part of make check): 60 s of perf record -a at
# perf's highest allowed sampling rate in all mode on every CPU, with 100
# offline/online cycles of the last CPU during it.  Afterwards PMIs must
# equal flushes with no flush error, and every CPU must still sample in a
# new recording.  Prints TAP and the figures.

stats=/sys/kernel/debug/xen/pmu/stats
ncpu=$(grep -c ^processor /proc/cpuinfo)
last=$((ncpu - 1))
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
sum() {
	awk -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ s += $col[name] } END { print s + 0 }' "$stats"
}

echo all > /sys/hypervisor/pmu/pmu_mode
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo "# perf_event_max_sample_rate $rate"
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	taskset -c $cpu spin 100000000000 &
	cpu=$((cpu + 1))
done
perf record -q -a -e cycles -F "$rate" -o /tmp/soak.data -- sleep 60 > /tmp/soak.log 2>&1 &
rpid=$!
i=0
while [ $i -lt 100 ]; do
	echo 0 > /sys/devices/system/cpu/cpu$last/online
	echo 1 > /sys/devices/system/cpu/cpu$last/online
	taskset -c $last spin 100000000000 &
	i=$((i + 1))
	sleep 0.4
done
wait $rpid
result $? "60 s perf record -a -F $rate in all mode with 100 hotplug cycles"
perf report -i /tmp/soak.data --stdio -q --sort domain 2> /dev/null | sed 's/^/# /'
perf report -D -i /tmp/soak.data 2> /dev/null | grep -E 'LOST|SAMPLE events' | tail -3 | sed 's/^/# /'
sed 's/^/# /' "$stats"
[ "$(sum pmis)" = "$(sum flushes)" ] && [ "$(sum flush_errors)" = 0 ]
result $? "PMIs = flushes, no flush error"
b0=$(mktemp)
cp "$stats" "$b0"
perf record -q -a -e cycles -F 1000 -o /tmp/soak2.data -- sleep 2 > /dev/null 2>&1
bad=0
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	a=$(awk -v c=$cpu 'NR > 1 && $1 == c { print $3 }' "$b0")
	b=$(awk -v c=$cpu 'NR > 1 && $1 == c { print $3 }' "$stats")
	echo "# cpu$cpu: $((b - a)) PMIs in the last recording"
	[ $((b - a)) -gt 0 ] || bad=1
	cpu=$((cpu + 1))
done
result $bad "every CPU still samples at the end"
pkill spin
echo self > /sys/hypervisor/pmu/pmu_mode
echo "1..$n"
