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

suite=trixie
version=4.20.4+63-g7abfd2bce2-0+deb13u1
pkgs=(xen-hypervisor-4.20-amd64 xen-hypervisor-4.20-amd64-dbg libxen-dev)
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
debs=$apt_dir/debs/$version
dest=$top/build/xen-4.20

if [ ! -f "$debs/.complete" ]; then
	step "xen 4.20: downloading ${pkgs[*]} $version from $suite through a private apt state in $apt_dir"
	apt_download "$suite" "$debs" "${pkgs[@]/%/=$version}"
fi

if [ "$(cat "$dest/.xenpmu-version" 2>/dev/null)" != "$version" ]; then
	rm -rf "$dest"
	mkdir -p "$dest"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$dest"
	done
	echo "$version" > "$dest/.xenpmu-version"
fi
gz=$dest/boot/xen-4.20-amd64.gz
[ -r "$gz" ] || die "$gz missing from the package"
if [ ! -s "$out/xen-4.20" ] || [ "$gz" -nt "$out/xen-4.20" ]; then
	gunzip -c "$gz" > "$out/xen-4.20.tmp"
	mv "$out/xen-4.20.tmp" "$out/xen-4.20"
fi
