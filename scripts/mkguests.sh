#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest lab's images, beside the fast lab's (which stay as they are):
#   out/guest.cpio               a domU's initramfs: busybox, the known
#                                loop, our perf, tests/lab/guest-init
#   out/initramfs-guests.cpio.gz dom0's: out/initramfs.cpio.gz followed by
#                                a second archive (the kernel unpacks
#                                both) with Debian's Xen toolstack
#                                (scripts/fetch-toolstack.sh), the shared
#                                libraries it needs from this machine,
#                                the guests' kernels (the lab's bzImage,
#                                Debian 13's stock cloud kernel from
#                                scripts/fetch-stock-kernel.sh) and
#                                initramfs, and tests/lab/guests.sh
#   out/initramfs-types.cpio.gz  dom0's for plan types: the above followed
#                                by a third archive with what an HVM guest
#                                needs (build/device-model, from
#                                scripts/fetch-toolstack.sh): QEMU as the
#                                device model, its libraries, hvmloader,
#                                SeaBIOS, QEMU's direct-boot option ROM
#                                and its one keymap
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
kout=${KOUT:-$top/build/kernel}
gen=$kout/usr/gen_init_cpio
ts=$top/build/toolstack-4.17
dm=$top/build/device-model
work=$top/build/lab
for f in "$out/initramfs.cpio.gz" "$out/bzImage" "$out/perf" "$work/spin"; do
	[ -r "$f" ] || die "$f missing: run 'make lab-images'"
done
[ -x "$ts/usr/lib/xen-4.17/bin/xl" ] && [ -x "$dm/usr/libexec/xen-qemu-system-i386" ] ||
	die "$ts or $dm missing: run scripts/fetch-toolstack.sh"
"$top/scripts/fetch-stock-kernel.sh"
stock=$(echo "$top"/build/stock-kernel/boot/vmlinuz-*)
[ -r "$stock" ] || die "no stock kernel in build/stock-kernel"

# The domU's initramfs
list=$work/guest.list
{
	for d in /bin /dev /proc /sys /tmp /sys/kernel /sys/kernel/debug; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /bin/perf $out/perf 0755 0 0"
	echo "file /bin/spin $work/spin 0755 0 0"
	echo "file /init $top/tests/lab/guest-init 0755 0 0"
} > "$list"
# Not compressed: under software emulation the guest unpacks it 3 s sooner
"$gen" "$list" > "$out/guest.cpio.tmp"
mv "$out/guest.cpio.tmp" "$out/guest.cpio"

# libs BIN: "DEST=SOURCE" for every library BIN loads, those of the
# fetched packages (the toolstack's, the device model's) from there, the
# rest (libc and friends) from this machine; fails if one is missing
# (run it in a command substitution, whose status set -e sees)
libpath=$dm/usr/lib/x86_64-linux-gnu:$dm/lib/x86_64-linux-gnu
libpath+=:$ts/usr/lib/x86_64-linux-gnu:$ts/lib/x86_64-linux-gnu
libs() {
	local out lib
	out=$(LD_LIBRARY_PATH=$libpath ldd "$1") || die "ldd $1 failed"
	! grep 'not found' <<< "$out" >&2 || die "$1: a library it loads is missing"
	while read -r lib; do
		case $lib in
		"$ts"/* | "$dm"/*) echo "/usr/lib/x86_64-linux-gnu/$(basename "$lib")=$lib" ;;
		*) echo "$lib=$(readlink -f "$lib")" ;;
		esac
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<< "$out")
}

# cpio_of LIST OUTPUT FILE...: an archive of FILE (DEST=SOURCE, the first
# of each DEST) with every directory above them
cpio_of() {
	local list=$1 output=$2 f dst d
	shift 2
	local -A dirs=() seen=()
	for f; do
		d=$(dirname "${f%%=*}")
		while [ "$d" != / ] && [ -z "${dirs[$d]:-}" ]; do
			dirs[$d]=1
			d=$(dirname "$d")
		done
	done
	{
		for d in $(printf '%s\n' "${!dirs[@]}" | sort); do
			echo "dir $d 0755 0 0"
		done
		for f; do
			dst=${f%%=*}
			[ -z "${seen[$dst]:-}" ] || continue
			seen[$dst]=1
			echo "file $dst ${f#*=} 0755 0 0"
		done
	} > "$list"
	"$gen" "$list" | gzip -n -1 > "$output"
}

# What the toolstack runs, and every library they load
bins=(xl xenstored xenconsoled xen-init-dom0 libxl-save-helper xenpm)
files=()
for b in "${bins[@]}"; do
	files+=("/usr/lib/xen-4.17/bin/$b=$ts/usr/lib/xen-4.17/bin/$b")
	deps=$(libs "$ts/usr/lib/xen-4.17/bin/$b")
	mapfile -t -O "${#files[@]}" files <<< "$deps"
done
files+=("/opt/guest/bzImage=$out/bzImage"
       "/opt/guest/stock/vmlinuz=$stock"
       # xl's pthread_cancel loads it at run time
       "/lib/x86_64-linux-gnu/libgcc_s.so.1=$(readlink -f /lib/x86_64-linux-gnu/libgcc_s.so.1)"
       "/opt/guest/initramfs.cpio=$out/guest.cpio"
       "/etc/xenpmu/guests.sh=$top/tests/lab/guests.sh"
       "/etc/xen/xl.conf=$ts/etc/xen/xl.conf")
cpio_of "$work/toolstack.list" "$work/toolstack.cpio.gz" "${files[@]}"
cat "$out/initramfs.cpio.gz" "$work/toolstack.cpio.gz" > "$out/initramfs-guests.cpio.gz.tmp"
mv "$out/initramfs-guests.cpio.gz.tmp" "$out/initramfs-guests.cpio.gz"

# An HVM guest's device model and firmware, at the paths libxl and QEMU
# look for them: QEMU's option ROM for a direct kernel boot (under Xen
# the one without fw_cfg DMA), and its keymap, which it loads without a
# display too
qemu=/usr/libexec/xen-qemu-system-i386
files=("$qemu=$dm$qemu"
       "/usr/lib/xen-4.17/boot/hvmloader=$ts/usr/lib/xen-4.17/boot/hvmloader")
for f in seabios/bios-256k.bin qemu/linuxboot.bin qemu/keymaps/en-us; do
	files+=("/usr/share/$f=$(readlink -f "$dm/usr/share/$f")")
done
deps=$(libs "$dm$qemu")
mapfile -t -O "${#files[@]}" files <<< "$deps"
cpio_of "$work/device-model.list" "$work/device-model.cpio.gz" "${files[@]}"
cat "$out/initramfs-guests.cpio.gz" "$work/device-model.cpio.gz" > "$out/initramfs-types.cpio.gz.tmp"
mv "$out/initramfs-types.cpio.gz.tmp" "$out/initramfs-types.cpio.gz"
