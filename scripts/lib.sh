# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the xenpmu scripts (sourced, not run).

die() { echo "xenpmu: error: $*" >&2; exit 1; }
step() { echo "xenpmu: $*" >&2; }

# The build cache lives outside the clone so that a fresh clone still
# finds it; CCACHE_BASEDIR makes hits independent of the clone's path.
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/xenpmu/ccache}
export CCACHE_BASEDIR=$top
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_COMPILERCHECK=content
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
mkdir -p "$CCACHE_DIR"

jobs=${JOBS:-$(nproc)}
# kbuild TREE OUT ARGS...: make in source tree TREE with build directory
# OUT.  Every kbuild run of ours goes through here, so all use the same
# make variables: a run with another HOSTCC rebuilds the host tools, and
# one without LOCALVERSION= gets a "+" on the release from the assembled
# tree's git state, so the next run relinks vmlinux (and make deb's stamp
# never holds).
kbuild() {
	local tree=$1 o=$2
	shift 2
	make -C "$tree" O="$o" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$jobs" "$@"
}
out=$top/out
mkdir -p "$out"

# perf's build options: static, optional libraries off, libelf and libdw on
# (for ELF symbols such as xen-syms); build-perf.sh and series-build.sh
perf_opts=(CC="ccache gcc" HOSTCC="ccache gcc" LDFLAGS=-static prefix=/usr
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 BUILD_BPF_SKEL=0
	NO_LIBBPF=1 NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1
	NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBBABELTRACE=1 NO_CAPSTONE=1
	NO_LIBLLVM=1 NO_LIBPFM4=1 NO_LIBZSTD=1 NO_LZMA=1 NO_JVMTI=1
	NO_LIBDEBUGINFOD=1 NO_SDT=1 NO_JEVENTS=1 NO_SHELLCHECK=1
	NO_LIBCAP=1 NO_LIBBIONIC=1)
