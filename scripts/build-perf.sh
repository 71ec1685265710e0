#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf statically from the assembled tree into build/perf, optional
# libraries off, libelf and libdw on (for ELF symbols such as xen-syms).
# Artifact: out/perf.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$top/build/linux
pout=$top/build/perf
mkdir -p "$pout"

rm -f "$out/perf"
step "building perf in build/perf"
make -C "$tree/tools/perf" O="$pout" -j"$jobs" \
	CC="ccache gcc" HOSTCC="ccache gcc" LDFLAGS=-static prefix=/usr \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 BUILD_BPF_SKEL=0 \
	NO_LIBBPF=1 NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 \
	NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBBABELTRACE=1 NO_CAPSTONE=1 \
	NO_LIBLLVM=1 NO_LIBPFM4=1 NO_LIBZSTD=1 NO_LZMA=1 NO_JVMTI=1 \
	NO_LIBDEBUGINFOD=1 NO_SDT=1 NO_JEVENTS=1 NO_SHELLCHECK=1 \
	NO_LIBCAP=1 NO_LIBBIONIC=1 ${PERF_EXTRA:-} perf > "$out/perf-build.log" 2>&1 ||
	{ tail -30 "$out/perf-build.log" >&2; die "perf build failed (out/perf-build.log)"; }
file "$pout/perf" | grep -q 'statically linked' ||
	die "perf is not statically linked (see out/perf-build.log)"
cp "$pout/perf" "$out/perf"
