#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the project needs, only those missing.
set -euo pipefail

pkgs=(
	build-essential bc bison flex cpio kmod xz-utils gzip file python3 perl
	libelf-dev libdw-dev zlib1g-dev libssl-dev liblzma-dev libbz2-dev libzstd-dev
	pkg-config ccache sparse git python3-ply python3-git
	linux-source-6.12 linux-config-6.12
	xen-hypervisor-4.17-amd64 xen-hypervisor-4.17-amd64-dbg libxen-dev
	qemu-system-x86 busybox-static
	libglib2.0-dev libpixman-1-dev libfdt-dev meson ninja-build python3-venv dpkg-dev
)
# Flag sets: --deb (make deb: kbuild's bindeb-pkg, perf's man page with
# asciidoc and xmlto as perf's Documentation/Makefile does), --dom0 (make
# debian-dom0: a Debian root built with Debian's mmdebstrap, a disk image
# from a directory with mke2fs -d), --bench
for flag in "$@"; do
	case $flag in
	--deb)	pkgs+=(debhelper rsync dpkg-dev fakeroot asciidoc-base xmlto docbook-xsl) ;;
	--dom0)	pkgs+=(mmdebstrap e2fsprogs) ;;
	--lint)	pkgs+=(lintian) ;;
	--bench) pkgs+=(time valgrind) ;;
	*)	echo "xenpmu: error: deps.sh: unknown flag $flag" >&2; exit 1 ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

echo "xenpmu: installing ${missing[*]}" >&2
[ "$(id -u)" = 0 ] || { echo "xenpmu: error: need root to install: ${missing[*]}" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
