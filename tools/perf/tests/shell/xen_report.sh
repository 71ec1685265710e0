#!/bin/sh
# perf xen record and report by domain
# SPDX-License-Identifier: GPL-2.0
#
# In a Xen PV dom0: perf xen mode shows the vPMU mode; perf xen record
# records in mode all, puts the mode back and keeps Xen's symbols next to
# the data; perf xen report gives a domain-first view.  With Xen's vPMU
# off, each of them must refuse and say how to boot Xen.

shelldir=$(dirname "$0")
# shellcheck source=lib/xen.sh
. "${shelldir}"/lib/xen.sh

xen_test_init xen-report

if ! mode=$(cat /sys/hypervisor/pmu/pmu_mode 2> /dev/null); then
	perf xen mode > "$dir/mode.out" 2>&1 && fail "perf xen mode succeeded with the vPMU off"
	grep -q "vPMU is off" "$dir/mode.out" || fail "perf xen mode: $(cat "$dir/mode.out")"
	perf xen -o "$data" record -e cpu-clock -- true > "$dir/record.log" 2>&1 &&
		fail "perf xen record succeeded with the vPMU off"
	grep -q "vpmu=1" "$dir/record.log" || fail "perf xen record: $(cat "$dir/record.log")"
	[ ! -e "$data" ] || fail "perf xen record wrote $data with the vPMU off"
	perf xen mode all > "$dir/mode.out" 2>&1 && fail "perf xen mode all succeeded"
	grep -q "vPMU is off" "$dir/mode.out" || fail "perf xen mode all: $(cat "$dir/mode.out")"
	exit $err
fi

[ "$(perf xen mode 2> /dev/null)" = "$mode" ] || fail "perf xen mode does not show $mode"

if ! perf xen -o "$data" record -e cpu-clock -- sleep 0.3 > "$dir/record.log" 2>&1; then
	cat "$dir/record.log"
	fail "perf xen record"
fi
[ "$mode" = all ] || grep -q "vPMU mode all (was $mode)" "$dir/record.log" ||
	fail "perf xen record did not switch the vPMU to all"
[ "$(cat /sys/hypervisor/pmu/pmu_mode)" = "$mode" ] ||
	fail "vPMU mode $(cat /sys/hypervisor/pmu/pmu_mode) after recording, was $mode"
# without -c or -F: a fixed period, said and recorded
period=$(sed -n 's/^perf xen: sampling every \([0-9]*\) events (-c).*/\1/p' "$dir/record.log")
[ -n "$period" ] || fail "perf xen record did not say which period it chose"
perf evlist -v -i "$data" 2> /dev/null | grep -Eq "sample_freq \}: $period(,|$)" ||
	fail "the recording's period is not $period: $(perf evlist -v -i "$data" 2>&1)"
perf evlist -v -i "$data" 2> /dev/null | grep -q 'freq: 1' &&
	fail "perf xen record recorded in frequency mode"
# -F is passed on, with a warning in all mode (perf xen record's own);
# -c silently
perf xen -o "$data.F" record -e cpu-clock -F 100 -- true > "$dir/record-F.log" 2>&1 ||
	fail "perf xen record -F 100: $(cat "$dir/record-F.log")"
grep -q 'perf xen: -F in all mode' "$dir/record-F.log" ||
	fail "perf xen record -F 100 gave no warning in all mode"
perf xen -o "$data.c" record -e cpu-clock -c 5000000 -- true > "$dir/record-c.log" 2>&1 ||
	fail "perf xen record -c 5000000: $(cat "$dir/record-c.log")"
grep -q 'sampling every\|-F in all mode' "$dir/record-c.log" &&
	fail "perf xen record -c 5000000 changed or warned about the period"
rm -f "$data.F" "$data.F.xensyms" "$data.F.domains" "$data.c" "$data.c.xensyms" "$data.c.domains"
grep -Eq '^[0-9a-f]+ [A-Za-z] [A-Za-z_]' "$data.xensyms" 2> /dev/null ||
	fail "Xen's symbols not kept in $data.xensyms"

perf xen -i "$data" report --stdio > "$dir/report.out" 2> /dev/null || fail "perf xen report"
grep -Eq '^# +Overhead +Domain +VCPU +Command' "$dir/report.out" ||
	fail "perf xen report is not domain first"
grep -Eq '^ +[0-9.]+% +dom0 +[0-9]+ ' "$dir/report.out" || fail "no dom0 line in perf xen report"
perf xen -i "$data" report --stdio -q --sort domain 2> /dev/null |
	grep -Eq '^ +100\.00% +dom0 *$' || fail "software events are not all dom0's"

exit $err
