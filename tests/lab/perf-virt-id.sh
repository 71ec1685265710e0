#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf tools and PERF_SAMPLE_VIRT_ID in the lab's dom0: record every CPU
# with --sample-virt-id and check the domain, pcpu and vcpu sort keys and
# perf report -D.  Software events are sampled outside any PMI from Xen,
# so every sample is dom0's own, on one of its vCPUs, pcpu unknown.
# Prints TAP.

data=/tmp/perf.virt-id.data
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

echo "1..7"
perf record --sample-virt-id -a -e cpu-clock -o "$data" -- sleep 0.5 > /tmp/rec.log 2>&1
result $? "perf record --sample-virt-id -a"

report=$(perf report -i "$data" --stdio --sort domain 2> /dev/null)
echo "$report" | grep -Eq '^ +[0-9.]+% +dom0 *$'
result $? "perf report --sort domain shows dom0"
! echo "$report" | grep -Eq '^ +[0-9.]+% +(xen|d[0-9]+|-) *$'
result $? "no sample is another domain's"

ncpu=$(grep -c ^processor /proc/cpuinfo)
perf report -i "$data" --stdio --sort pcpu,vcpu 2> /dev/null |
	awk -v n="$ncpu" '/^ +[0-9.]+%/ { lines++; if ($2 != "-" || $3 < 0 || $3 >= n) bad++ }
		END { exit !(lines > 0 && bad == 0) }'
result $? "--sort pcpu,vcpu: pcpu unknown, vcpu a CPU of dom0"

perf report -D -i "$data" 2> /dev/null | grep -q ' \.\. virt id: pcpu -1 domid 0 vcpu '
result $? "perf report -D shows the virt id"
script=$(perf script -i "$data" -F comm,domid,pcpu,vcpu 2> /dev/null)
bad=$(echo "$script" | grep -Ev '^ *DOM:dom0 +PCPU: +- +VCPU:[0-9]+ ')
[ -n "$script" ] && [ -z "$bad" ]
result $? "perf script -F domid,pcpu,vcpu: every sample dom0's, pcpu unknown"
[ -z "$bad" ] || echo "$bad" | head -3 | sed 's/^/# /'
echo "$script" | head -2 | sed 's/^/# /'

perf record -a -e cpu-clock -o "$data" -- sleep 0.1 > /dev/null 2>&1
perf script -i "$data" -F comm,domid > /tmp/script.out 2>&1
[ $? != 0 ] && grep -q 'sample-virt-id' /tmp/script.out
result $? "perf script -F domid on a file without the field says how to get it"
rm -f "$data" "$data.old"
