#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf statically from the assembled tree into build/perf, with the
# options in lib.sh (perf_opts).
# Artifact: out/perf.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$top/build/linux
pout=$top/build/perf
mkdir -p "$pout"

rm -f "$out/perf"
step "building perf in build/perf"
make -C "$tree/tools/perf" O="$pout" -j"$jobs" "${perf_opts[@]}" ${PERF_EXTRA:-} perf > "$out/perf-build.log" 2>&1 ||
	{ tail -30 "$out/perf-build.log" >&2; die "perf build failed (out/perf-build.log)"; }
file "$pout/perf" | grep -q 'statically linked' ||
	die "perf is not statically linked (see out/perf-build.log)"
cp "$pout/perf" "$out/perf"
