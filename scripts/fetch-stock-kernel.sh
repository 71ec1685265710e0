#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A stock Debian kernel for the guest lab: Debian 13's cloud kernel, the
# flavour made for virtual machines, as a distribution ships it (its own
# configuration, KASLR in HVM and PVH boots), never installed on this
# machine: downloaded from trixie through a private apt state
# (scripts/apt.sh) and unpacked with dpkg-deb into build/stock-kernel.
# Artifacts: build/stock-kernel/boot/{vmlinuz,System.map,config}-$release.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"

suite=trixie
release=6.12.118+deb13-cloud-amd64
version=6.12.118-1
pkg=linux-image-$release-unsigned
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
debs=$apt_dir/debs/stock-kernel-$version
dest=$top/build/stock-kernel

if [ ! -f "$debs/.complete" ]; then
	step "stock kernel: downloading $pkg $version from $suite through a private apt state in $apt_dir"
	apt_download "$suite" "$debs" "$pkg=$version"
fi
if [ "$(cat "$dest/.xenpmu-version" 2>/dev/null)" != "$release" ]; then
	rm -rf "$dest"
	mkdir -p "$dest"
	dpkg-deb -x "$debs/${pkg}_${version}_amd64.deb" "$dest"
	echo "$release" > "$dest/.xenpmu-version"
fi
for f in vmlinuz System.map config; do
	[ -r "$dest/boot/$f-$release" ] || die "$dest/boot/$f-$release missing from $pkg"
done
