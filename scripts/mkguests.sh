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
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
kout=${KOUT:-$top/build/kernel}
gen=$kout/usr/gen_init_cpio
ts=$top/build/toolstack-4.17
work=$top/build/lab
for f in "$out/initramfs.cpio.gz" "$out/bzImage" "$out/perf" "$work/spin"; do
	[ -r "$f" ] || die "$f missing: run 'make lab-images'"
done
[ -x "$ts/usr/lib/xen-4.17/bin/xl" ] || die "$ts missing: run scripts/fetch-toolstack.sh"
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

# What the toolstack runs, and every library they load, the toolstack's
# own from the package and the rest (libc and friends) from this machine
bins=(xl xenstored xenconsoled xen-init-dom0 libxl-save-helper xenpm)
libpath=$ts/usr/lib/x86_64-linux-gnu:$ts/lib/x86_64-linux-gnu
list=$work/toolstack.list
declare -A dirs=()
adddir() {
	local d=$1
	while [ "$d" != / ] && [ -z "${dirs[$d]:-}" ]; do
		dirs[$d]=1
		d=$(dirname "$d")
	done
}
{
	files=()
	for b in "${bins[@]}"; do
		files+=("/usr/lib/xen-4.17/bin/$b=$ts/usr/lib/xen-4.17/bin/$b")
		libs=$(LD_LIBRARY_PATH=$libpath ldd "$ts/usr/lib/xen-4.17/bin/$b") ||
			die "ldd $b failed"
		while read -r lib; do
			[ -n "$lib" ] || continue
			case $lib in
			"$ts"/*) files+=("/usr/lib/x86_64-linux-gnu/$(basename "$lib")=$lib") ;;
			*) files+=("$lib=$(readlink -f "$lib")") ;;
			esac
		done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<< "$libs")
	done
	files+=("/opt/guest/bzImage=$out/bzImage"
		"/opt/guest/stock/vmlinuz=$stock"
		# xl's pthread_cancel loads it at run time
		"/lib/x86_64-linux-gnu/libgcc_s.so.1=$(readlink -f /lib/x86_64-linux-gnu/libgcc_s.so.1)"
		"/opt/guest/initramfs.cpio=$out/guest.cpio"
		"/etc/xenpmu/guests.sh=$top/tests/lab/guests.sh"
		"/etc/xen/xl.conf=$ts/etc/xen/xl.conf")
	declare -A seen=()
	for f in "${files[@]}"; do
		dst=${f%%=*}
		[ -z "${seen[$dst]:-}" ] || continue
		seen[$dst]=1
		adddir "$(dirname "$dst")"
	done
	for d in $(printf '%s\n' "${!dirs[@]}" | sort); do
		echo "dir $d 0755 0 0"
	done
	seen=()
	for f in "${files[@]}"; do
		dst=${f%%=*}
		[ -z "${seen[$dst]:-}" ] || continue
		seen[$dst]=1
		echo "file $dst ${f#*=} 0755 0 0"
	done
} > "$list"
"$gen" "$list" | gzip -n -1 > "$work/toolstack.cpio.gz"
cat "$out/initramfs.cpio.gz" "$work/toolstack.cpio.gz" > "$out/initramfs-guests.cpio.gz.tmp"
mv "$out/initramfs-guests.cpio.gz.tmp" "$out/initramfs-guests.cpio.gz"
