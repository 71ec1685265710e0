#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Soak (make soak, not part of make check): perf record -a at perf's
# highest allowed sampling rate in all mode on every CPU, for 60 s and at
# least as long as 100 offline/online cycles of the last CPU take.  Afterwards PMIs must
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
pmis0() { awk 'NR > 1 && $1 == 0 { print $3 }' "$stats"; }
t0=$(cut -d' ' -f1 /proc/uptime)
perf record -q -a -e cycles -F "$rate" --sample-virt-id -o /tmp/soak.data -- sleep 3600 > /tmp/soak.log 2>&1 &
rpid=$!
# The cycles start once the recording samples (CPU0 takes PMIs), 20 s at most
p=$(pmis0)
i=0
while [ "$(pmis0)" = "$p" ] && [ $i -lt 40 ]; do
	sleep 0.5
	i=$((i + 1))
done
i=0
while [ $i -lt 100 ]; do
	echo 0 > /sys/devices/system/cpu/cpu$last/online
	echo 1 > /sys/devices/system/cpu/cpu$last/online
	i=$((i + 1))
	sleep 0.2
done
t1=$(cut -d' ' -f1 /proc/uptime)
# and the recording lasts 60 s at least
while [ "$(echo "$t0" "$(cut -d' ' -f1 /proc/uptime)" | awk '{ print ($2 - $1 < 60) }')" = 1 ]; do
	sleep 1
done
kill -INT $rpid
wait $rpid
t2=$(cut -d' ' -f1 /proc/uptime)
echo "# 100 hotplug cycles of cpu$last in $(echo "$t0 $t1" | awk '{ print $2 - $1 }') s; recording of $(echo "$t0 $t2" | awk '{ print $2 - $1 }') s"
[ -s /tmp/soak.data ] && perf report -i /tmp/soak.data --stdio -q --sort domain > /tmp/soak.report 2> /dev/null &&
	grep -q . /tmp/soak.report
result $? "perf record -a -F $rate in all mode for 60 s with 100 hotplug cycles: written and readable"
sed 's/^/# /' /tmp/soak.report
# samples and lost samples (PERF_RECORD_LOST, LOST_SAMPLES; none listed: 0)
perf report -i /tmp/soak.data --stats 2> /dev/null > /tmp/soak.stats
grep -m1 'SAMPLE events' /tmp/soak.stats | sed 's/^ */# /'
echo "# lost: $(awk '/LOST/ { n += $3 } END { print n + 0 }' /tmp/soak.stats) (PERF_RECORD_LOST, LOST_SAMPLES events)"
dmesg | grep 'perf: interrupt took too long' | tail -1 | sed 's/^/# /'
echo "# perf_event_max_sample_rate at the end: $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
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
killall spin 2> /dev/null
echo self > /sys/hypervisor/pmu/pmu_mode
echo "1..$n"
