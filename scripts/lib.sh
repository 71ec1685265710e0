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

# The versions and pins of everything fetched or built on
. "$(dirname "${BASH_SOURCE[0]}")/releases.sh"

# The kernel the series is assembled on, XENPMU_KERNEL: 6.12 (the default,
# the kernel of the lab, build/linux) or $linux_new (build/linux-$linux_new).
# patches/series and the files of ours are the same for both; a patch of
# patches/$linux_new/ takes the place of the patches/ one of its name on
# $linux_new.  ktree: the assembled tree; kpatches: the directory of the
# kernel's own patches (none for 6.12); ktarball: its source.
kernel=${XENPMU_KERNEL:-6.12}
case $kernel in
6.12)
	ktree=$top/build/linux kpatches= ktarball=${LINUX_TARBALL:-$linux_tarball} ;;
"$linux_new")
	ktree=$top/build/linux-$linux_new kpatches=$linux_new
	ktarball=${LINUX_TARBALL:-$top/build/linux-src/usr/src/linux-source-$linux_new.tar.xz} ;;
*)
	die "XENPMU_KERNEL=$kernel: the series is kept for 6.12 and $linux_new" ;;
esac
# kpatch NAME: the file of patches/series entry NAME for this kernel
kpatch() {
	if [ -n "$kpatches" ] && [ -f "$top/patches/$kpatches/$1" ]; then
		echo "$top/patches/$kpatches/$1"
	else
		echo "$top/patches/$1"
	fi
}

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
	NO_LIBCAP=1 NO_LIBBIONIC=1 NO_RUST=1)

# Xen's command line in every boot of ours under QEMU, before the boot's
# own options.  spec-ctrl=eager-fpu: with Xen's lazy FPU switch (its
# default on AMD), user processes of PV domains that share a pCPU under TCG
# now and then run with another context's vector registers (README.md,
# the guest lab).
xen_base_cmd="console=com1 com1=115200,8n1 dom0_mem=1024M loglvl=all guest_loglvl=all smap=0 spec-ctrl=eager-fpu"

# boot_xen NAME=VALUE... [-- QEMU-ARGS...]: Xen under QEMU with a dom0,
# until it powers off or the time is up; QEMU's exit status.
#   qemu cpu smp    the QEMU binary, its -machine/-cpu arguments, CPUs
#   xen xen_cmd     Xen's image and command line
#   dom0 dom0_cmd initrd   dom0's kernel, command line and initramfs
#   log results     the first serial port (Xen and dom0's console), the
#                   second (a plan's output)
#   qerr timeout    QEMU's own messages; seconds
# Every lab boot (lab.sh) and the Debian dom0's (debian-dom0.sh) are this.
boot_xen() {
	local qemu= cpu= smp=2 xen= xen_cmd= dom0= dom0_cmd= initrd= log= results= qerr= timeout=600
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case ${1%%=*} in
		qemu|cpu|smp|xen|xen_cmd|dom0|dom0_cmd|initrd|log|results|qerr|timeout)
			local "$1" ;;
		*)	die "boot_xen: $1" ;;
		esac
		shift
	done
	[ "${1:-}" != -- ] || shift
	# shellcheck disable=SC2086 # cpu is a list of arguments
	timeout -k 10 "$timeout" "$qemu" $cpu -smp "$smp" -m 2048 \
		-display none -nodefaults -no-reboot -monitor none \
		-serial "file:$log" -serial "file:$results" "$@" \
		-kernel "$xen" -append "$xen_cmd" \
		-initrd "$dom0 $dom0_cmd,$initrd" </dev/null 2>"$qerr"
}
