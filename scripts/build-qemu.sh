#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our QEMU: Debian 12's qemu source package, fetched and verified through
# apt with a private apt state (the machine's own /etc/apt and lists are
# never touched), unpacked with Debian's patches, our series of qemu/
# applied on top, built x86_64-softmmu (TCG only) with ccache.
# Artifact: out/qemu-system-x86_64, also kept in /var/cache/xenpmu/qemu
# (XENPMU_QEMU_CACHE) by what it is built from (firmware from Debian's qemu-system-x86
# and seabios packages: /usr/share/qemu and /usr/share/seabios are baked in
# as its data directories).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
. "$top/scripts/apt.sh"

# The source package we build on (releases.sh); fail clearly if the
# archive dropped it.
version=$qemu_version
upver=${version#*:}; upver=${upver%-*}      # 7.2+dfsg

apt_dir=${XENPMU_APT_DIR:-/var/cache/xenpmu/apt}
dl=$apt_dir/source/$version
src=$top/build/qemu-src
bld=$top/build/qemu
qdir=$top/qemu

# --- fetch -----------------------------------------------------------------

apt_opts=(
	-o Dir::State="$apt_dir/state" -o Dir::Cache="$apt_dir/cache"
	-o Dir::Etc::SourceList="$apt_dir/sources.list"
	-o Dir::Etc::SourceParts="$apt_dir/sources.list.d"
	-q
)

fetch() {
	if [ -f "$dl/.complete" ]; then
		return
	fi
	step "qemu: fetching source package qemu=$version through a private apt state in $apt_dir"
	mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" \
		 "$apt_dir/sources.list.d"
	machine_sources deb-src | grep -v 'packages.cloud.google.com\|nodesource' |
		sort -u > "$apt_dir/sources.list.tmp"
	[ -s "$apt_dir/sources.list.tmp" ] || die "no deb sources found in /etc/apt"
	mv "$apt_dir/sources.list.tmp" "$apt_dir/sources.list"
	apt-get "${apt_opts[@]}" update >&2 || die "private apt-get update failed"
	local have
	have=$(apt-cache "${apt_opts[@]}" showsrc qemu 2>/dev/null | sed -n 's/^Version: //p')
	grep -qxF "$version" <<< "$have" ||
		die "the archive no longer serves qemu $version (it has:" \
		    "$(echo $have)); update \$version in $0"
	rm -rf "$dl.tmp"
	mkdir -p "$dl.tmp"
	# apt checks every file against the hashes of the signed Sources index
	(cd "$dl.tmp" && apt-get "${apt_opts[@]}" source --download-only "qemu=$version" >&2) ||
		die "apt-get source qemu=$version failed"
	touch "$dl.tmp/.complete"
	rm -rf "$dl"
	mv "$dl.tmp" "$dl"
}

# --- unpack and patch --------------------------------------------------------

series_hash() {
	{
		echo "$version"
		(cd "$top" && find qemu -type f -print0 | LC_ALL=C sort -z |
			xargs -0 sha256sum)
	} | sha256sum | cut -d' ' -f1
}

prepare() {
	local want dsc p
	want=$(series_hash)
	if [ -f "$src/.xenpmu-stamp" ] && [ "$(cat "$src/.xenpmu-stamp")" = "$want" ]; then
		return
	fi
	step "qemu: unpacking Debian's qemu $version and applying qemu/series"
	dsc=$(ls "$dl"/qemu_*.dsc) || die "no .dsc in $dl"
	rm -rf "$src" "$src.tmp"
	# The hashes were checked by apt against the signed index; the .dsc
	# itself is signed by the uploader whose key we do not keep.
	dpkg-source --no-check -x "$dsc" "$src.tmp" >&2 ||
		die "dpkg-source -x failed"
	if [ -d "$qdir/overlay" ]; then
		cp -r "$qdir/overlay/." "$src.tmp/"
	fi
	if [ -f "$qdir/series" ]; then
		while read -r p; do
			p=${p%%#*}; p=${p//[[:space:]]/}
			[ -n "$p" ] || continue
			[ -f "$qdir/$p" ] || die "qemu/series names $p, which is missing"
			patch -d "$src.tmp" -p1 --batch --forward --no-backup-if-mismatch \
				-s < "$qdir/$p" >&2 || die "qemu/$p does not apply"
		done < "$qdir/series"
	fi
	echo "$want" > "$src.tmp/.xenpmu-stamp"
	mv "$src.tmp" "$src"
}

# --- configure and build -----------------------------------------------------

configure_args=(
	--target-list=x86_64-softmmu
	--disable-docs --disable-werror --without-default-features
	--disable-tools --disable-guest-agent --disable-debug-info
	--disable-install-blobs
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
	--cc="ccache gcc" --host-cc="ccache gcc" --cxx="ccache g++"
)

build() {
	local want t0 t1
	# A fresh unpack gives every file a new mtime, so ninja rebuilds all
	# of it and ccache serves what did not change; configure again only
	# when its arguments or the version change.
	want="$version ${configure_args[*]}"
	if [ ! -f "$bld/.xenpmu-configured" ] ||
	   [ "$(cat "$bld/.xenpmu-configured")" != "$want" ]; then
		step "qemu: configuring in build/qemu"
		rm -rf "$bld"
		mkdir -p "$bld"
		(cd "$bld" && "$src/configure" "${configure_args[@]}" > configure.log 2>&1) ||
			die "qemu configure failed, see build/qemu/configure.log"
		echo "$want" > "$bld/.xenpmu-configured"
	fi
	step "qemu: ninja -j$jobs (ccache in $CCACHE_DIR)"
	t0=$(date +%s)
	nice ninja -C "$bld" -j"$jobs" qemu-system-x86_64 > "$bld/build.log" 2>&1 || {
		tail -40 "$bld/build.log" >&2
		die "qemu build failed, see build/qemu/build.log"
	}
	t1=$(date +%s)
	if cmp -s "$bld/qemu-system-x86_64" "$out/qemu-system-x86_64"; then
		step "qemu: out/qemu-system-x86_64 up to date ($((t1 - t0)) s)"
		return
	fi
	cp "$bld/qemu-system-x86_64" "$out/qemu-system-x86_64.tmp"
	mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
	step "qemu: built out/qemu-system-x86_64 in $((t1 - t0)) s"
}

# A built binary is kept outside the clone, by everything it is built
# from (source version and our series, configure arguments, compiler and
# the -dev packages it links), so a fresh clone of an unchanged qemu/
# builds nothing, as ccache would make it, without the unpack.
binary_key() {
	{
		series_hash
		echo "${configure_args[*]}"
		gcc --version | head -1
		dpkg-query -W -f='${Package} ${Version}\n' libglib2.0-dev libpixman-1-dev \
			libfdt-dev zlib1g-dev 2>/dev/null
	} | sha256sum | cut -d' ' -f1
}

"$top/scripts/deps.sh"
fetch
keep=${XENPMU_QEMU_CACHE:-/var/cache/xenpmu/qemu}/$(binary_key)
if [ -x "$keep/qemu-system-x86_64" ]; then
	if ! cmp -s "$keep/qemu-system-x86_64" "$out/qemu-system-x86_64"; then
		cp "$keep/qemu-system-x86_64" "$out/qemu-system-x86_64.tmp"
		mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
	fi
	step "qemu: out/qemu-system-x86_64 from the build kept in $keep"
	exit 0
fi
prepare
build
mkdir -p "$keep"
cp "$out/qemu-system-x86_64" "$keep/qemu-system-x86_64.tmp"
mv "$keep/qemu-system-x86_64.tmp" "$keep/qemu-system-x86_64"
