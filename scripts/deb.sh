#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: Debian packages of our kernel (kbuild's bindeb-pkg) and of our
# perf (scripts/deb-perf.sh), for installing on a Xen host.
#
#   DEB_CONFIG=debian (default)  Debian's own amd64 configuration plus
#       configs/host.config, built in build/deb/kernel; release
#       <version>-xenpmu-amd64.  Hours on 2 cores: not in make check.
#   DEB_CONFIG=lab  the lab's kernel (tinyconfig and the fragments of
#       scripts/build-kernel.sh), packaged from its own build tree
#       build/kernel, so it is not built twice; release <version>-xenpmu.
#       make check packages it (tests/deb/run.sh), and make debian-dom0
#       boots it in a Debian 13 root.
#
# Version of every package: <kernel version>+xenpmu<N>, N the number of
# commits of this repository (no "-": kbuild would take what follows as
# KBUILD_BUILD_VERSION, change the kernel's version string and relink the
# lab's vmlinux).  KDEB_COMPRESS: the packages' compression (default
# gzip; xz costs minutes on a distribution kernel).
# Artifacts: out/deb/ holds this run's packages only: linux-image-<release>,
# linux-headers-<release>, linux-libc-dev, xenpmu-perf; out/deb/release
# (the kernel release), out/deb/version (the packages' version) and
# out/deb/stamp (what they were made of).
#
# usage: deb.sh [--configure]  (--configure: only configure the build
# directory, for scripts/deb-estimate.sh)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
"$top/scripts/deps.sh" --deb
tree=$top/build/linux
[ -d "$tree" ] || die "build/linux missing: run 'make tree'"
config=${DEB_CONFIG:-debian}

case $config in
lab)
	dout=$top/build/kernel
	# exactly the lab's build: configured (and kept up to date) by
	# build-kernel.sh, with its make variables, so nothing is rebuilt
	"$top/scripts/build-kernel.sh" ;;
debian)
	dout=$top/build/deb/kernel
	dconf=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
	[ -r "$dconf" ] || die "$dconf missing (package linux-config-6.12)" ;;
*)	die "DEB_CONFIG=$config: lab or debian" ;;
esac
kmake() { kbuild "$tree" "$dout" "$@"; }

if [ "$config" = debian ]; then
	mkdir -p "$dout"
	xz -dc "$dconf" > "$dout/.config.new"
	KCONFIG_CONFIG=$dout/.config.new "$tree/scripts/kconfig/merge_config.sh" -m -O "$dout" \
		"$dout/.config.new" "$top/configs/host.config" >/dev/null
	# Debian signs with its own keys and builds BTF (pahole): neither
	# is available here.  Debian's DWARF goes to its separate -dbg
	# package; ours would only triple the build's time and disk, so the
	# packages have none (DEB_DEBUG_INFO=1 keeps Debian's choice).  Our
	# release, beside Debian's kernels.
	"$tree/scripts/config" --file "$dout/.config.new" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL --disable DEBUG_INFO_BTF \
		--set-str LOCALVERSION "-xenpmu-amd64"
	[ "${DEB_DEBUG_INFO:-}" = 1 ] ||
		"$tree/scripts/config" --file "$dout/.config.new" \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF4 \
			--disable DEBUG_INFO_DWARF5 --enable DEBUG_INFO_NONE
	# keep .config (and so the build) untouched when nothing changed
	cmp -s "$dout/.config.new" "$dout/.config.in" 2>/dev/null || {
		cp "$dout/.config.new" "$dout/.config.in"
		cp "$dout/.config.new" "$dout/.config"
	}
	rm -f "$dout/.config.new"
	kmake -s olddefconfig >/dev/null
	missing=
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$dout/.config" || missing="$missing $line" ;;
		esac
	done < "$top/configs/host.config"
	[ -z "$missing" ] || die "kernel config lost:$missing (unmet dependencies?)"
fi
[ "${1:-}" = --configure ] && exit 0

release=$(kmake -s kernelrelease)
kversion=$(kmake -s kernelversion)
n=$(git -C "$top" rev-list --count HEAD 2>/dev/null || echo 0)
version=$kversion+xenpmu$n
export KDEB_PKGVERSION=$version KDEB_COMPRESS=${KDEB_COMPRESS:-gzip}
export KDEB_CHANGELOG_DIST=${KDEB_CHANGELOG_DIST:-unstable}
# The maintainer of the generated changelog and control: this
# repository's last author.
export DEBFULLNAME=${DEBFULLNAME:-$(git -C "$top" log -1 --format=%an 2>/dev/null || echo xenpmu)}
export DEBEMAIL=${DEBEMAIL:-$(git -C "$top" log -1 --format=%ae 2>/dev/null || echo xenpmu@localhost)}

# A stamp: out/deb already holds the packages of these inputs when none
# changed (this repository's commit, named in xenpmu-perf's changelog; the
# assembled tree's commit and edits, the kernel's
# configuration, image and modules, our perf, the packaging files, the
# version): a second make deb with nothing changed packages nothing.
# (It holds only while every kbuild run in the build directory goes
# through lib.sh's kbuild, with the same make variables.)
key=$( { echo "$config $release $version"; git -C "$top" rev-parse HEAD 2>/dev/null
	 git -C "$tree" rev-parse HEAD; git -C "$tree" diff HEAD
	 find "$dout" -path "$dout/debian" -prune -o -name '*.ko' -print | sort | xargs -r sha1sum
	 sha1sum "$dout/.config" "$dout/arch/x86/boot/bzImage" "$out/perf" "$top/scripts/deb.sh" \
		"$top/scripts/deb-perf.sh" "$top"/packaging/xenpmu-perf/*; } 2>&1 | sha1sum | cut -d' ' -f1)
if [ "$(cat "$out/deb/stamp" 2>/dev/null)" = "$key" ]; then
	step "deb: out/deb is up to date ($release, $version)"
	exit 0
fi

# bindeb-pkg writes next to the build directory
parent=$(dirname "$dout")
rm -f "$parent"/linux-{image,headers,libc-dev}*_"$version"_*.deb \
	"$parent"/linux-upstream_"$version"_*.{buildinfo,changes}
rm -rf "$out/deb"
mkdir -p "$out/deb"
step "deb: packaging $release ($config configuration) as $version in out/deb"
start=$(date +%s)
kmake bindeb-pkg DPKG_FLAGS="${DPKG_FLAGS:-}" > "$out/deb-kernel.log" 2>&1 ||
	{ tail -30 "$out/deb-kernel.log" >&2; die "bindeb-pkg failed (out/deb-kernel.log)"; }
mv "$parent"/linux-{image,headers,libc-dev}*_"$version"_*.deb "$out/deb/"
rm -f "$parent"/linux-upstream_"$version"_*.{buildinfo,changes}
step "deb: kernel packages in $(( $(date +%s) - start )) s"

"$top/scripts/deb-perf.sh" "$release" "$version"
echo "$release" > "$out/deb/release"
echo "$version" > "$out/deb/version"
echo "$key" > "$out/deb/stamp"
ls -l "$out/deb" >&2
