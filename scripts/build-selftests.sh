#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build our kselftests statically (they run in the initramfs) against the
# assembled tree's uapi headers.  Output: build/selftests/xen/pmu/.
# (KTREE, KOUT, SOUT: another source tree, kernel build directory and
# output directory.)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel}
sout=${SOUT:-$top/build/selftests/xen/pmu}

kbuild "$tree" "$kout" -s headers >/dev/null
rm -rf "$sout"	# never pack a binary a failed build left behind
mkdir -p "$sout"
step "building kselftests (xen/pmu)"
make -s -C "$tree/tools/testing/selftests/xen/pmu" OUTPUT="$sout" \
	CC="ccache gcc" KHDR_INCLUDES="-isystem $kout/usr/include" \
	LDFLAGS=-static
