#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab's dom0 initramfs: busybox, our static perf and its Xen shell
# tests, our kselftests and tests/lab/init, packed with the kernel's
# gen_init_cpio (no root needed).
# Artifact: out/initramfs.cpio.gz.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
kout=${KOUT:-$top/build/kernel}
gen=$kout/usr/gen_init_cpio
busybox=/bin/busybox
[ -x "$gen" ] || die "$gen missing: build the kernel first"
file -L "$busybox" | grep -q 'statically linked' ||
	die "$busybox is not static: run 'make deps' (busybox-static)"
[ -x "$out/perf" ] || die "out/perf missing: run 'make perf'"
xen_syms=/usr/lib/debug/boot/xen-syms-4.17-amd64
[ -r "$xen_syms" ] || die "$xen_syms missing: run 'make deps' (xen-hypervisor-4.17-amd64-dbg)"
xen_syms_420=$top/build/xen-4.20/usr/lib/debug/boot/xen-syms-4.20-amd64
[ -r "$xen_syms_420" ] || die "$xen_syms_420 missing: run 'make xen'"
# Its symbol table is what perf reads; the DWARF (20 MB) stays out.
mkdir -p "$top/build/lab"
if [ ! -s "$top/build/lab/xen-syms-4.20-amd64" ] ||
   [ "$xen_syms_420" -nt "$top/build/lab/xen-syms-4.20-amd64" ]; then
	objcopy --strip-debug "$xen_syms_420" "$top/build/lab/xen-syms-4.20-amd64"
fi
xen_syms_420=$top/build/lab/xen-syms-4.20-amd64

rm -f "$out/initramfs.cpio.gz"
# The lab's known loop (tests/lab/spin.c), static like everything here
mkdir -p "$top/build/lab"
ccache gcc -O2 -static -o "$top/build/lab/spin" "$top/tests/lab/spin.c" ||
	die "tests/lab/spin.c does not build"
list=$top/build/initramfs.list
{
	for d in /bin /dev /lib /proc /sys /tmp /etc /etc/xenpmu /opt /opt/selftests \
		 /opt/selftests/xen /opt/selftests/xen/pmu /usr /usr/bin /usr/share \
		 /usr/share/doc /usr/share/doc/perf-tip \
		 /usr/lib /usr/lib/debug /usr/lib/debug/boot /usr/libexec \
		 /usr/libexec/perf-core /usr/libexec/perf-core/tests \
		 /usr/libexec/perf-core/tests/shell \
		 /usr/libexec/perf-core/tests/shell/lib; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /bin/perf $out/perf 0755 0 0"
	echo "file /usr/share/doc/perf-tip/tips.txt $top/build/linux/tools/perf/Documentation/tips.txt 0644 0 0"
	# Xen's own symbols, where Debian puts them, for the tests that check
	# them against /proc/xen/xensyms of the Xen the lab runs
	echo "file /usr/lib/debug/boot/xen-syms-4.17-amd64 $xen_syms 0644 0 0"
	echo "file /usr/lib/debug/boot/xen-syms-4.20-amd64 $xen_syms_420 0644 0 0"
	# Our perf shell tests, where perf test looks for them (its exec path)
	for t in "$top"/build/linux/tools/perf/tests/shell/xen_*.sh; do
		echo "file /usr/libexec/perf-core/tests/shell/$(basename "$t") $t 0755 0 0"
	done
	# what they source; not executable, so perf test does not run it
	echo "file /usr/libexec/perf-core/tests/shell/lib/xen.sh" \
	     "$top/build/linux/tools/perf/tests/shell/lib/xen.sh 0644 0 0"
	echo "file /init $top/tests/lab/init 0755 0 0"
	echo "file /etc/xenpmu/perf-tests $top/tests/lab/perf-tests 0644 0 0"
	echo "file /etc/xenpmu/perf-tests-xen $top/tests/lab/perf-tests-xen 0644 0 0"
	echo "file /etc/xenpmu/perf-virt-id.sh $top/tests/lab/perf-virt-id.sh 0755 0 0"
	echo "file /etc/xenpmu/lib.sh $top/tests/lab/lib.sh 0644 0 0"
	echo "file /etc/xenpmu/pmi.sh $top/tests/lab/pmi.sh 0755 0 0"
	echo "file /etc/xenpmu/soak.sh $top/tests/lab/soak.sh 0755 0 0"
	echo "file /etc/xenpmu/bench-pmi.sh $top/tests/lab/bench-pmi.sh 0755 0 0"
	echo "file /etc/xenpmu/perf-tests-pmi $top/tests/lab/perf-tests-pmi 0644 0 0"
	echo "file /bin/spin $top/build/lab/spin 0755 0 0"
	# The kernel's modules (our KUnit suites), as modules_install laid
	# them out, for modprobe
	if [ -d "$out/modules/lib/modules" ]; then
		(cd "$out/modules" && find lib -mindepth 1 | sort) | while read -r m; do
			if [ -d "$out/modules/$m" ]; then
				echo "dir /$m 0755 0 0"
			elif [ -f "$out/modules/$m" ]; then
				echo "file /$m $out/modules/$m 0644 0 0"
			fi
		done
	fi
	for t in "$top"/build/selftests/xen/pmu/*; do
		[ -x "$t" ] && [ -f "$t" ] || continue
		echo "file /opt/selftests/xen/pmu/$(basename "$t") $t 0755 0 0"
	done
} > "$list"
"$gen" "$list" | gzip -n -1 > "$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
