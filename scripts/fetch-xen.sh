#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 13's Xen 4.20 for the lab, never installed on this machine: the
# hypervisor, its debug symbols and its public headers, downloaded from
# trixie (the machine's own archive URIs, another suite) through a private
# apt state, which checks every file against the signed index, and
# unpacked with dpkg-deb into build/xen-4.20.
# Artifacts: out/xen-4.20 (the hypervisor, uncompressed), and in
# build/xen-4.20: usr/lib/debug/boot/xen-syms-4.20-amd64 and
# usr/include/xen/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"

suite=$xen420_suite version=$xen420_version
pkgs=(xen-hypervisor-4.20-amd64 xen-hypervisor-4.20-amd64-dbg libxen-dev)
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
dest=$top/build/xen-4.20

apt_fetch_unpack "$suite" xen-4.20 "$version" "$dest" "${pkgs[@]/%/=$version}"
gz=$dest/boot/xen-4.20-amd64.gz
[ -r "$gz" ] || die "$gz missing from the package"
if [ ! -s "$out/xen-4.20" ] || [ "$gz" -nt "$out/xen-4.20" ]; then
	gunzip -c "$gz" > "$out/xen-4.20.tmp"
	mv "$out/xen-4.20.tmp" "$out/xen-4.20"
fi
