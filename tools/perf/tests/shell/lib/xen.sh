#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# For the perf xen shell tests: xen_test_init NAME skips the test (exit
# 2) outside a Xen domain, else makes a scratch directory $dir, removed
# on exit, with $data a perf.data path in it; xen_scratch_init NAME does
# the same in any machine, for tests of files made by xen_perf_data;
# fail MESSAGE records a failure in $err and goes on, so that one run
# reports every failure.

xen_scratch_init() {
	dir=$(mktemp -d "/tmp/perf-$1.XXXXXX") || exit 1
	trap 'rm -rf "$dir"' EXIT
	data=$dir/perf.data
	err=0
}

xen_test_init() {
	if [ "$(cat /sys/hypervisor/type 2> /dev/null)" != xen ]; then
		echo "Skip: not a Xen domain"
		exit 2
	fi
	xen_scratch_init "$1"
}

fail() {
	echo "FAIL: $*"
	err=1
}

# xen_le BYTES HEX: the number HEX (hex digits, no 0x) as BYTES bytes,
# little-endian.
xen_le() {
	_hex=$2
	while [ ${#_hex} -lt $(($1 * 2)) ]; do
		_hex=0$_hex
	done
	_out=
	while [ -n "$_hex" ]; do
		_rest=${_hex%??}
		_out="$_out\\0$(printf %o "0x${_hex#"$_rest"}")"
		_hex=$_rest
	done
	printf '%b' "$_out"
}

# xen_sample CPUMODE DOMID IP: a PERF_RECORD_SAMPLE for xen_perf_data,
# CPUMODE as PERF_RECORD_MISC_*, DOMID in decimal, IP in hex, on pcpu 1
# and vcpu 0 of the domain.
xen_sample() {
	xen_le 4 9; xen_le 2 "$1"; xen_le 2 38		# header: SAMPLE, 56 bytes
	xen_le 8 "$3"					# ip
	xen_le 4 0; xen_le 4 0				# pid, tid
	xen_le 8 3b9aca00				# time
	xen_le 4 1; xen_le 4 0				# cpu
	xen_le 8 1					# period
	xen_le 4 1; xen_le 2 "$(printf %x "$2")"; xen_le 2 0	# virt_id
}

# xen_perf_data FILE RECORDS: a perf.data of one cpu-clock event whose
# samples carry PERF_SAMPLE_VIRT_ID, with the records of the file
# RECORDS (xen_sample's) as its data, and no header features.
xen_perf_data() {
	_size=$(printf %x "$(wc -c < "$2")")
	{
		printf PERFILE2; xen_le 8 68; xen_le 8 98	# header, attr sizes
		xen_le 8 68; xen_le 8 98			# attrs
		xen_le 8 100; xen_le 8 "$_size"			# data
		xen_le 16 0; xen_le 32 0			# event types, features
		# attr: software cpu-clock, IP|TID|TIME|CPU|PERIOD|VIRT_ID
		xen_le 4 1; xen_le 4 88; xen_le 8 0; xen_le 8 fa0
		xen_le 8 2000187; xen_le 32 0; xen_le 32 0; xen_le 32 0; xen_le 8 0
		xen_le 16 0					# its ids: none
		cat "$2"
	} > "$1"
}
