#!/bin/sh
# perf xen split by domain and re-read
# SPDX-License-Identifier: GPL-2.0
#
# In a Xen PV dom0: record every CPU with the domain field, split the
# recording with perf xen split and read the outputs back.  Software
# events are sampled outside Xen's PMIs, so every sample is dom0's: the
# split must give perf.data.dom0 alone, with every sample, and reports
# of it must equal those of the input.  A file without the field must be
# refused, leaving nothing behind.

shelldir=$(dirname "$0")
# shellcheck source=lib/xen.sh
. "${shelldir}"/lib/xen.sh

xen_test_init xen-split

if ! perf record --sample-virt-id -a -e cpu-clock -o "$data" -- sleep 0.3 \
		> "$dir/record.log" 2>&1; then
	cat "$dir/record.log"
	if grep -q PERF_SAMPLE_VIRT_ID "$dir/record.log"; then
		echo "Skip: this kernel has no PERF_SAMPLE_VIRT_ID"
		exit 2
	fi
	echo "FAIL: perf record --sample-virt-id -a"
	exit 1
fi

nr=$(perf script -i "$data" -F domid 2> /dev/null | wc -l)
[ "$nr" -gt 0 ] || fail "no samples recorded"

if ! perf xen -i "$data" split > "$dir/split.out" 2> "$dir/split.err"; then
	cat "$dir/split.err"
	fail "perf xen split"
fi
grep -q "^perf xen split: $nr samples in 1 file\$" "$dir/split.out" ||
	fail "split summary: $(cat "$dir/split.out"), expected $nr samples in 1 file"
outputs=$(cd "$dir" && echo perf.data.*)
[ "$outputs" = perf.data.dom0 ] || fail "outputs: $outputs, expected perf.data.dom0 alone"

# Every sample is in dom0's file, and only dom0's.
perf script -i "$data.dom0" -F domid > "$dir/dom0.script" 2> "$dir/dom0.err" ||
	fail "perf script cannot read perf.data.dom0: $(head -3 "$dir/dom0.err")"
[ "$(wc -l < "$dir/dom0.script")" -eq "$nr" ] ||
	fail "perf.data.dom0 has $(wc -l < "$dir/dom0.script") samples, the input $nr"
! grep -qv 'DOM:dom0' "$dir/dom0.script" || fail "a sample in perf.data.dom0 is not dom0's"

# Side-band records and features came along: the reports are the same.
for sort in domain comm,dso,sym; do
	perf report -i "$data" --stdio -q --sort "$sort" > "$dir/in.rep" 2> /dev/null
	perf report -i "$data.dom0" --stdio -q --sort "$sort" > "$dir/out.rep" 2> /dev/null
	[ -s "$dir/in.rep" ] && cmp -s "$dir/in.rep" "$dir/out.rep" ||
		fail "perf report --sort $sort differs between the input and perf.data.dom0"
done
perf report -i "$data.dom0" --stdio -q --sort domain 2> /dev/null |
	grep -Eq '^ +100\.00% +dom0 *$' || fail "perf.data.dom0 is not 100% dom0"
for key in hostname 'os release' arch nrcpus; do
	[ "$(perf report -i "$data" --header-only 2> /dev/null | grep "^# $key")" = \
	  "$(perf report -i "$data.dom0" --header-only 2> /dev/null | grep "^# $key")" ] ||
		fail "header '$key' not copied"
done

# --prefix names the outputs.
perf xen -i "$data" split --prefix "$dir/by-domain" > /dev/null 2>&1 &&
	[ -s "$dir/by-domain.dom0" ] || fail "split --prefix: no $dir/by-domain.dom0"

# A recording without the field is refused, and nothing is written.
perf record -a -e cpu-clock -o "$dir/plain.data" -- sleep 0.1 > /dev/null 2>&1 ||
	fail "perf record without the field"
if perf xen -i "$dir/plain.data" split > /dev/null 2> "$dir/plain.err"; then
	fail "split of a file without the domain field succeeded"
fi
grep -q 'has no domain field' "$dir/plain.err" || fail "no reason given: $(cat "$dir/plain.err")"
[ ! -e "$dir/plain.data.dom0" ] || fail "output left behind by a refused split"

exit $err
