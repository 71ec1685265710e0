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

suite=$stock_suite release=$stock_release version=$stock_version
pkg=linux-image-$release-unsigned
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
dest=$top/build/stock-kernel

apt_fetch_unpack "$suite" stock-kernel "$version" "$dest" "$pkg=$version"
for f in vmlinuz System.map config; do
	[ -r "$dest/boot/$f-$release" ] || die "$dest/boot/$f-$release missing from $pkg"
done
