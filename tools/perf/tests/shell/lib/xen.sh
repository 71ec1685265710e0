#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# For the perf xen shell tests: xen_test_init NAME skips the test (exit
# 2) outside a Xen domain, else makes a scratch directory $dir, removed
# on exit, with $data a perf.data path in it; fail MESSAGE records a
# failure in $err and goes on, so that one run reports every failure.

xen_test_init() {
	if [ "$(cat /sys/hypervisor/type 2> /dev/null)" != xen ]; then
		echo "Skip: not a Xen domain"
		exit 2
	fi
	dir=$(mktemp -d "/tmp/perf-$1.XXXXXX") || exit 1
	trap 'rm -rf "$dir"' EXIT
	data=$dir/perf.data
	err=0
}

fail() {
	echo "FAIL: $*"
	err=1
}
