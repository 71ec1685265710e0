#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make debian-dom0: our packages (out/deb, make deb DEB_CONFIG=lab) in a
# real Debian 13 (trixie) dom0 with Debian's Xen 4.20, booted under our
# QEMU, checked by a oneshot systemd unit of ours.
#
# 1. The base root: mmdebstrap (Debian's tool, from bookworm) builds a
#    minimal trixie (minbase, systemd, initramfs-tools, xen-system-amd64)
#    from the machine's own archive URIs with the suite replaced
#    (suite_sources in scripts/apt.sh), as a tarball cached in
#    /var/cache/xenpmu/debian-dom0, keyed by the suite, the package list,
#    the sources and mmdebstrap's version.  Outside the clone, like the
#    apt states and ccache: it holds Debian's packages only, nothing of
#    ours, and a fresh clone (CI's is one) would otherwise download and
#    unpack some 200 packages again.  DOM0_REFRESH=1 builds it anew (the
#    archive moves on: security updates, Xen point releases).
# 2. The root: mmdebstrap again, from that tarball, installs our packages
#    as an administrator would (apt-get install ./linux-image-...deb
#    ./xenpmu-perf...deb), so Debian's kernel hooks run (initramfs-tools
#    makes the initrd); then our check unit (tests/dom0/), not part of the
#    packages, and an fstab.  In build/debian-dom0/root.
# 3. The disk: ext4 made from the directory with mke2fs -d: no loop device,
#    no mount.
# 4. The boot: QEMU loads the image's own Xen (boot/xen-4.20-amd64.gz,
#    gunzipped: QEMU's multiboot loader reads no gzip), kernel and initrd
#    from the image's /boot directly, as scripts/lab.sh does (TCG, our
#    emulated AMD PMU): installing a bootloader would need a loop device.
#    The check unit writes TAP to the second serial port and powers off;
#    this script adds what it sees from outside: a clean poweroff
#    (systemd's "reboot: Power down", Xen entering S5 or shutting down for
#    dom0), the file system left clean, no panic, within DOM0_TIMEOUT.
#
# Artifacts: out/debian-dom0.tap (every result), out/debian-dom0.log
# (Xen and dom0 console), out/debian-dom0.results (the unit's TAP),
# out/debian-dom0.qemu, out/debian-dom0.times (seconds of each part);
# build/debian-dom0/{root,disk.img,xen}.
# Environment: DOM0_SUITE (trixie), DOM0_REFRESH=1, DOM0_TIMEOUT (seconds,
# default 900), DOM0_KEEP=1 (keep build/debian-dom0/root).
# usage: debian-dom0.sh [base]  (base: only build or find the cached base)
# Exit status: 0 when every result is ok.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"
"$top/scripts/deps.sh" --dom0
[ "$(id -u)" = 0 ] || die "make debian-dom0 needs root (mmdebstrap's root mode, the root's ownership)"

suite=${DOM0_SUITE:-trixie}
case $suite in
trixie)	xen=4.20 ;;
bookworm) xen=4.17 ;;
*)	die "DOM0_SUITE=$suite: trixie (Xen 4.20) or bookworm (Xen 4.17)" ;;
esac
work=$top/build/debian-dom0
times=$out/debian-dom0.times
: > "$times"
mkdir -p "$work"
timed() { local what=$1 t0=$SECONDS; shift; "$@"; echo "$what $((SECONDS - t0))s" >> "$times"; }

# 1. the base, cached
pkgs=systemd-sysv,udev,kmod,initramfs-tools,zstd,e2fsprogs,xen-system-amd64
suite_sources "$suite" > "$work/sources.list"
key=$( { echo "$suite $pkgs"; cat "$work/sources.list"; dpkg-query -W -f='${Version}' mmdebstrap; } |
	sha1sum | cut -c1-16)
cache=${XENPMU_CACHE:-/var/cache/xenpmu}/debian-dom0
base=$cache/$suite-$key.tar
mkdir -p "$cache"
[ "${DOM0_REFRESH:-}" = 1 ] && rm -f "$base"
build_base() {
	step "debian-dom0: mmdebstrap $suite ($pkgs) into $base"
	mmdebstrap --mode=root --variant=minbase --format=tar --include="$pkgs" \
		"$suite" "$base.tmp" "$work/sources.list" > "$out/debian-dom0-base.log" 2>&1 ||
		{ tail -20 "$out/debian-dom0-base.log" >&2; die "mmdebstrap failed (out/debian-dom0-base.log)"; }
	mv "$base.tmp" "$base"
	# older bases of this suite
	find "$cache" -name "$suite-*.tar" ! -name "$(basename "$base")" -delete
}
if [ -s "$base" ]; then
	step "debian-dom0: base $suite from the cache ($base)"
	echo "mmdebstrap-base 0s (cached)" >> "$times"
else
	timed mmdebstrap-base build_base
fi

[ "${1:-}" = base ] && exit 0
deb=$out/deb
release=$(cat "$deb/release" 2>/dev/null) || die "out/deb has no packages: run 'make deb DEB_CONFIG=lab'"
version=$(cat "$deb/version")
image=$deb/linux-image-${release}_${version}_amd64.deb
perfdeb=$deb/xenpmu-perf_${version}_amd64.deb
[ -r "$image" ] && [ -r "$perfdeb" ] || die "out/deb lacks $(basename "$image") or $(basename "$perfdeb")"
qemu=$out/qemu-system-x86_64
[ -x "$qemu" ] || die "$qemu missing: run 'make qemu'"

# 2. the root: our packages installed with apt from the files, our unit
root=$work/root
rm -rf "$root" "$work/disk.img"
cat > "$work/xenpmu-expect" <<EOF
release=$release
version=$version
xen=$xen
EOF
install_root() {
	step "debian-dom0: apt-get install ./$(basename "$image") ./$(basename "$perfdeb") in $suite"
	mmdebstrap --mode=root --variant=custom --format=directory \
		--skip=update,cleanup/apt/lists \
		--setup-hook="tar-in $base /" \
		--customize-hook='mkdir -p "$1/tmp/xenpmu"' \
		--customize-hook="copy-in $image $perfdeb /tmp/xenpmu" \
		--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/xenpmu/$(basename "$image") /tmp/xenpmu/$(basename "$perfdeb")" \
		--customize-hook='rm -rf "$1/tmp/xenpmu"' \
		--customize-hook="copy-in $top/tests/dom0/xenpmu-check /usr/local/sbin" \
		--customize-hook="copy-in $top/tests/dom0/xenpmu-check.service /etc/systemd/system" \
		--customize-hook="copy-in $work/xenpmu-expect /etc" \
		--customize-hook='chroot "$1" systemctl enable xenpmu-check.service' \
		--customize-hook='echo "/dev/vda / ext4 errors=remount-ro 0 1" > "$1/etc/fstab"' \
		--customize-hook='echo xenpmu-dom0 > "$1/etc/hostname"' \
		"$suite" "$root" "$work/sources.list" > "$out/debian-dom0-root.log" 2>&1 ||
		{ tail -20 "$out/debian-dom0-root.log" >&2; die "installing our packages failed (out/debian-dom0-root.log)"; }
}
timed install-packages install_root
for f in "boot/vmlinuz-$release" "boot/initrd.img-$release" "boot/xen-$xen-amd64.gz"; do
	[ -s "$root/$f" ] || die "the root has no /$f (out/debian-dom0-root.log)"
done

# 3. the disk, from the directory
make_disk() {
	local mb
	mb=$(( $(du -sm "$root" | cut -f1) * 5 / 4 + 256 ))
	step "debian-dom0: ext4 disk of ${mb} MiB from build/debian-dom0/root (mke2fs -d)"
	mke2fs -q -t ext4 -L xenpmu-root -d "$root" "$work/disk.img" "${mb}M"
}
timed disk make_disk
gunzip -c "$root/boot/xen-$xen-amd64.gz" > "$work/xen"
cp "$root/boot/vmlinuz-$release" "$root/boot/initrd.img-$release" "$work/"
[ "${DOM0_KEEP:-}" = 1 ] || rm -rf "$root"

# 4. the boot
log=$out/debian-dom0.log res=$out/debian-dom0.results qerr=$out/debian-dom0.qemu
rm -f "$log" "$res"
xen_cmd="$xen_base_cmd dom0_max_vcpus=2 dom0_vcpus_pin vpmu=on"
dom0_cmd="root=/dev/vda ro console=hvc0 earlyprintk=xen"
step "debian-dom0: booting Xen $xen with dom0 $release from the disk (TCG, -cpu EPYC,-monitor,pmu=on)"
t0=$SECONDS rc=0
boot_xen qemu="$qemu" cpu="-machine pc,accel=tcg -cpu EPYC,-monitor,pmu=on -L /usr/share/qemu -L /usr/share/seabios" \
	xen="$work/xen" xen_cmd="$xen_cmd" dom0="$work/vmlinuz-$release" dom0_cmd="$dom0_cmd" \
	initrd="$work/initrd.img-$release" log="$log" results="$res" qerr="$qerr" \
	timeout="${DOM0_TIMEOUT:-900}" -- \
	-drive "file=$work/disk.img,if=none,id=root,format=raw" -device virtio-blk-pci,drive=root || rc=$?
echo "boot-to-poweroff $((SECONDS - t0))s rc=$rc" >> "$times"

# every result: the unit's, then what is seen from outside
tap=$out/debian-dom0.tap
{
	plan=$(grep -m1 -aE '^1\.\.[0-9]+' "$res" 2>/dev/null | cut -d. -f3 | tr -d '\r')
	n=${plan:-14}
	echo "1..$((n + 5))"
	i=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"ok "*|"not ok "*) i=$((i + 1)); echo "$line" ;;
		"# "*) echo "$line" ;;
		esac
	done < <(cat "$res" 2>/dev/null)
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		echo "not ok $i - check unit result $i # not reported (see out/debian-dom0.log)"
	done
	k=$n
	r() { k=$((k + 1)); if [ "$1" = 0 ]; then echo "ok $k - $2"; else echo "not ok $k - $2${3:+ # $3}"; fi; }
	grep -aq XENPMU-DONE "$res" 2>/dev/null
	r $? "the check unit ran to its end"
	[ $rc = 0 ]
	r $? "QEMU ended by itself within ${DOM0_TIMEOUT:-900} s" "rc=$rc"
	grep -aq 'reboot: Power down' "$log" && grep -aqE '\(XEN\) (Entering ACPI S5 state|Hardware Dom0 shutdown)' "$log"
	r $? "clean poweroff: dom0's 'reboot: Power down', then Xen's S5 or dom0 shutdown"
	e2fsck -fn "$work/disk.img" > "$out/debian-dom0.fsck" 2>&1 &&
		dumpe2fs -h "$work/disk.img" 2>/dev/null | grep -q '^Filesystem state: *clean$'
	r $? "the root file system was left clean (e2fsck -fn)"
	! grep -aE 'Kernel panic|\(XEN\) Panic|BUG: |Oops: |WARNING: CPU: ' "$log" | head -3 | grep -q .
	r $? "no panic, BUG, oops or WARNING on the console" "$(grep -am1 -E 'Kernel panic|\(XEN\) Panic|BUG: |Oops: |WARNING: CPU: ' "$log")"
} > "$tap"
echo "image $(du -m --apparent-size "$work/disk.img" | cut -f1)MiB" >> "$times"
step "debian-dom0: $(grep -c '^ok ' "$tap") ok, $(grep -c '^not ok ' "$tap") not ok (out/debian-dom0.tap); $(tr '\n' ' ' < "$times")"
! grep -q '^not ok ' "$tap"
