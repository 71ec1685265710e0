#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The newest kernel source Debian's archive has ($linux_new in
# scripts/releases.sh), the one the series is posted against: its
# linux-source package, downloaded from its suite through a private apt
# state (scripts/apt.sh) and unpacked with dpkg-deb into build/linux-src,
# never installed.  Artifact: the tarball,
# build/linux-src/usr/src/linux-source-$linux_new.tar.xz.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"

suite=$linux_new_suite version=$linux_new_version
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
dest=$top/build/linux-src

apt_fetch_unpack "$suite" "linux-source-$linux_new" "$version" "$dest" \
	"linux-source-$linux_new=$version"
[ -r "$dest/usr/src/linux-source-$linux_new.tar.xz" ] ||
	die "linux-source-$linux_new.tar.xz missing from its package"
