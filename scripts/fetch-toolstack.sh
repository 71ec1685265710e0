#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 12's Xen toolstack for the guest lab, never installed on this
# machine, downloaded through a private apt state (scripts/apt.sh) and
# unpacked with dpkg-deb:
#   build/toolstack-4.17    xl, xenstored, xenconsoled, hvmloader and
#                           their libraries, at the version of the
#                           installed hypervisor
#   build/device-model      what an HVM guest needs beside them: Debian's
#                           QEMU for Xen (qemu-system-xen), SeaBIOS,
#                           QEMU's option ROMs and keymaps, and the
#                           libraries that QEMU loads, but for those any
#                           machine with gcc has (libc, libstdc++, libgcc,
#                           zlib, liblzma, libbz2)
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
ts=$top/build/toolstack-4.17
apt_fetch_unpack "$suite" toolstack "$version" "$ts" "${xen_pkgs[@]/%/=$version}" libyajl2
[ -x "$ts/usr/lib/xen-4.17/bin/xl" ] || die "xl missing from the toolstack's packages"
[ -r "$ts/usr/lib/xen-4.17/boot/hvmloader" ] || die "hvmloader missing from the toolstack's packages"

# The device model at the newest version of the suite: the toolstack's
# libraries above are its Xen libraries
dm_pkgs=(qemu-system-xen qemu-system-data seabios libfdt1 libglib2.0-0 libpixman-1-0
	 libspice-server1 libjpeg62-turbo libusb-1.0-0 libopus0 libgstreamer1.0-0
	 libgstreamer-plugins-base1.0-0 liborc-0.4-0 liblz4-1 libsasl2-2 libssl3
	 libudev1 libunwind8 libdw1 libelf1 libffi8 libpcre2-8-0)
dm=$top/build/device-model
apt_fetch_unpack "$suite" device-model "$suite-$device_model_key" "$dm" "${dm_pkgs[@]}"
for f in usr/libexec/xen-qemu-system-i386 usr/share/seabios/bios-256k.bin \
	 usr/share/qemu/linuxboot.bin usr/share/qemu/keymaps/en-us; do
	[ -r "$dm/$f" ] || die "$f missing from the device model's packages"
done
