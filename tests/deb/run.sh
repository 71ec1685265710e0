#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's packaging layer: make deb DEB_CONFIG=lab (scripts/deb.sh,
# the lab's kernel packaged from build/kernel, and xenpmu-perf), then what
# the packages hold, read with dpkg-deb --info and --contents, and
# xenpmu-perf through lintian.  Prints TAP; the packaging log is
# out/deb-build.log.  DEB_TEST_NOBUILD=1 checks out/deb as it is.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/out
deb=$out/deb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1${2:+ # $2}"; }
is() { local what=$1; shift; if "$@" >/dev/null 2>"$work/err"; then ok "$what"; else no "$what" "$(tail -1 "$work/err")"; fi; }

echo "1..17"
# kbuild numbers each link of vmlinux in .version
links() { cat "$top/build/kernel/.version" 2>/dev/null || echo none; }
before=$(links)
if [ "${DEB_TEST_NOBUILD:-}" = 1 ] ||
   DEB_CONFIG=lab "$top/scripts/deb.sh" > "$out/deb-build.log" 2>&1; then
	ok "make deb DEB_CONFIG=lab: the packages built, or up to date by its stamp"
else
	no "make deb DEB_CONFIG=lab: the packages built, or up to date by its stamp" "$(tail -1 "$out/deb-build.log")"
fi
# One kernel build: packaging the lab's kernel after make check's other
# kbuild runs in build/kernel (static, selftests) links nothing again.
[ "$before" != none ] && [ "$(links)" = "$before" ] &&
	ok "the lab kernel was not linked again for its packages (link #$before)" ||
	no "the lab kernel was not linked again for its packages" "link #$before before, #$(links) after"
release=$(cat "$deb/release" 2>/dev/null)
version=$(cat "$deb/version" 2>/dev/null)
: "${release:=missing}" "${version:=missing}"
image=$deb/linux-image-${release}_${version}_amd64.deb
headers=$deb/linux-headers-${release}_${version}_amd64.deb
libc=$deb/linux-libc-dev_${version}_amd64.deb
perf=$deb/xenpmu-perf_${version}_amd64.deb
field() { dpkg-deb --field "$2" "$1" 2>/dev/null; }
# (grep reads to the end: grep -q would stop dpkg-deb with SIGPIPE, and
# pipefail would take that for a failure)
has() { dpkg-deb --contents "$1" 2>/dev/null | awk '{ print $NF }' | grep -xE "$2" >/dev/null; }

# the lab's release: what scripts/build-kernel.sh built
[ "$release" = "$(cat "$top/build/kernel/include/config/kernel.release" 2>/dev/null)" ] &&
	ok "the packaged release $release is the lab kernel's" ||
	no "the packaged release $release is the lab kernel's"
[ "$(field Package "$image")" = "linux-image-$release" ] && [ "$(field Version "$image")" = "$version" ] &&
	ok "linux-image-$release $version" || no "linux-image-$release $version" "$(ls "$deb" 2>&1 | tr '\n' ' ')"
has "$image" "\./boot/vmlinuz-$release" && ok "linux-image has /boot/vmlinuz-$release" ||
	no "linux-image has /boot/vmlinuz-$release"
has "$image" "\./(usr/)?lib/modules/$release/.*/xen_pmu_kunit\.ko" &&
	ok "linux-image has our KUnit module xen_pmu_kunit.ko" || no "linux-image has our KUnit module xen_pmu_kunit.ko"
dpkg-deb --fsys-tarfile "$image" 2>/dev/null | tar -xO "./boot/config-$release" > "$work/config" 2>/dev/null
grep -qx CONFIG_XEN_PMU=y "$work/config" && grep -qx CONFIG_XEN_PMU_KUNIT_TEST=m "$work/config" &&
	grep -qx CONFIG_VIRTIO_BLK=y "$work/config" &&
	ok "its /boot/config: XEN_PMU=y, XEN_PMU_KUNIT_TEST=m, the dom0 disk" ||
	no "its /boot/config: XEN_PMU=y, XEN_PMU_KUNIT_TEST=m, the dom0 disk"
# one kernel build: the packaged image is the lab's bzImage, not a relink
dpkg-deb --fsys-tarfile "$image" 2>/dev/null | tar -xO "./boot/vmlinuz-$release" > "$work/vmlinuz" 2>/dev/null
cmp -s "$work/vmlinuz" "$top/build/kernel/arch/x86/boot/bzImage" &&
	ok "the packaged vmlinuz is the lab build tree's bzImage" ||
	no "the packaged vmlinuz is the lab build tree's bzImage"
# what an external module's build reads: the configuration and the
# exported symbols, ours among them
dpkg-deb --fsys-tarfile "$headers" 2>/dev/null | tar -C "$work" -x \
	"./usr/src/linux-headers-$release/include/config/auto.conf" \
	"./usr/src/linux-headers-$release/Module.symvers" 2>/dev/null
[ "$(field Package "$headers")" = "linux-headers-$release" ] &&
	grep -qx CONFIG_XEN_PMU=y "$work/usr/src/linux-headers-$release/include/config/auto.conf" &&
	grep -q 'xen_pmu' "$work/usr/src/linux-headers-$release/Module.symvers" &&
	ok "linux-headers-$release: auto.conf with XEN_PMU=y, Module.symvers with our exports" ||
	no "linux-headers-$release: auto.conf with XEN_PMU=y, Module.symvers with our exports"
dpkg-deb --fsys-tarfile "$libc" 2>/dev/null | tar -xO ./usr/include/linux/perf_event.h > "$work/perf_event.h" 2>/dev/null
grep -q PERF_SAMPLE_VIRT_ID "$work/perf_event.h" && ok "linux-libc-dev's perf_event.h has PERF_SAMPLE_VIRT_ID" ||
	no "linux-libc-dev's perf_event.h has PERF_SAMPLE_VIRT_ID"

# xenpmu-perf
[ "$(field Package "$perf")" = xenpmu-perf ] && [ "$(field Version "$perf")" = "$version" ] &&
	[ "$(field Architecture "$perf")" = amd64 ] && ok "xenpmu-perf $version amd64" ||
	no "xenpmu-perf $version amd64"
has "$perf" '\./usr/bin/perf-xenpmu' && ! has "$perf" '\./usr/bin/perf' &&
	ok "xenpmu-perf has /usr/bin/perf-xenpmu and not Debian's /usr/bin/perf" ||
	no "xenpmu-perf has /usr/bin/perf-xenpmu and not Debian's /usr/bin/perf"
has "$perf" '\./usr/share/man/man1/perf-xen\.1\.gz' && has "$perf" '\./usr/share/man/man1/perf-xenpmu\.1\.gz' &&
	ok "xenpmu-perf has the man pages perf-xen.1 and perf-xenpmu.1" ||
	no "xenpmu-perf has the man pages perf-xen.1 and perf-xenpmu.1"
dpkg-deb -x "$perf" "$work/perf" 2>/dev/null
man_ok() {
	local page=$work/perf/usr/share/man/man1/$1.1.gz w
	w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >"$work/$1.txt") || return 1
	[ -z "$w" ] || { echo "$w" >&2; return 1; }
	grep -q "^NAME" "$work/$1.txt" && grep -q "$2" "$work/$1.txt"
}
is "perf-xen.1 renders without warnings, with its record and report" man_ok perf-xen 'perf xen report'
p=$work/perf/usr/bin/perf-xenpmu
file "$p" 2>/dev/null | grep -q 'statically linked' && [ -z "$(field Depends "$perf")" ] &&
	ok "perf-xenpmu is static and the package has no library Depends" ||
	no "perf-xenpmu is static and the package has no library Depends"
# perf reads a binary named perf-<word> as "perf <word>" unless <word> is no
# command: perf-xenpmu must run its arguments
"$p" xen -h > "$work/xen-h" 2>&1
grep -q 'Usage: perf xen' "$work/xen-h" && "$p" version 2>&1 | grep -q '^perf version 6\.12' &&
	ok "perf-xenpmu runs 'xen -h' and 'version' as perf does" ||
	no "perf-xenpmu runs 'xen -h' and 'version' as perf does" "$(head -1 "$work/xen-h")"
if "$top/scripts/deps.sh" --lint >&2; then
	lintian --fail-on error,warning "$perf" > "$work/lintian" 2>&1 &&
		ok "lintian: xenpmu-perf has no error or warning" ||
		no "lintian: xenpmu-perf has no error or warning" "$(grep -v 'root privileges' "$work/lintian" | head -3 | tr '\n' ' ')"
else
	no "lintian: xenpmu-perf has no error or warning" "lintian could not be installed"
fi
