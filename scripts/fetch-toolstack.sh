#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 12's Xen toolstack for the guest lab, never installed on this
# machine: xl, xenstored, xenconsoled and their libraries, at the version
# of the installed hypervisor, downloaded through a private apt state
# (scripts/apt.sh) and unpacked with dpkg-deb into build/toolstack-4.17.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"

suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
version=$(dpkg-query -W -f='${Version}' xen-hypervisor-4.17-amd64 2>/dev/null) ||
	die "xen-hypervisor-4.17-amd64 is not installed: run 'make deps'"
xen_pkgs=(xen-utils-4.17 xen-utils-common xenstore-utils libxenmisc4.17 libxencall1
	  libxenevtchn1 libxenforeignmemory1 libxengnttab1 libxenstore4
	  libxentoollog1 libxenhypfs1 libxendevicemodel1 libxentoolcore1)
apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}-$suite
debs=$apt_dir/debs/toolstack-$version
dest=$top/build/toolstack-4.17

if [ ! -f "$debs/.complete" ]; then
	step "toolstack: downloading xen-utils-4.17 $version and its libraries from $suite through a private apt state in $apt_dir"
	apt_download "$suite" "$debs" "${xen_pkgs[@]/%/=$version}" libyajl2
fi
if [ "$(cat "$dest/.xenpmu-version" 2>/dev/null)" != "$version" ]; then
	rm -rf "$dest"
	mkdir -p "$dest"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$dest"
	done
	echo "$version" > "$dest/.xenpmu-version"
fi
[ -x "$dest/usr/lib/xen-4.17/bin/xl" ] || die "xl missing from $debs"
