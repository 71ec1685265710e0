#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The xenpmu-perf package (part of make deb, scripts/deb.sh): our static
# perf (out/perf, scripts/build-perf.sh) as /usr/bin/perf-xenpmu, so that it
# installs on Debian 12 and 13 beside Debian's linux-perf (/usr/bin/perf).
# perf takes a binary named perf-<word> that is no perf command for a
# renamed perf and runs its arguments ("perf-xenpmu xen record" is "perf xen
# record"); a name perf-<command>, such as perf-xen, would run that command.
# Man pages: perf-xen.1 built from tools/perf/Documentation/perf-xen.txt as
# perf's Documentation/Makefile does (asciidoc, xmlto), and our
# perf-xenpmu.1 (packaging/xenpmu-perf/).  Staged in build/deb-perf and
# built with dpkg-deb (no debian/rules: nothing to compile).  The version has no
# Debian revision (scripts/deb.sh), so the package is native-style:
# usr/share/doc/xenpmu-perf/changelog.gz.
# usage: deb-perf.sh RELEASE VERSION
# Artifact: out/deb/xenpmu-perf_VERSION_amd64.deb
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
release=$1 version=$2
src=$top/packaging/xenpmu-perf
tree=$top/build/linux
stage=$top/build/deb-perf
root=$stage/root
doc=$root/usr/share/doc/xenpmu-perf
[ -x "$out/perf" ] || die "out/perf missing: run 'make perf'"
# Static: no library Depends.  A dynamic perf would need them (dpkg-shlibdeps).
file "$out/perf" | grep -q 'statically linked' ||
	die "out/perf is not statically linked: the package declares no library dependencies"

rm -rf "$stage"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$doc" \
	"$root/usr/share/lintian/overrides" "$stage/man"
install -m 0755 "$out/perf" "$root/usr/bin/perf-xenpmu"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/perf-xenpmu"

# perf's own man page rules; PATH: asciidoc is a Python script of
# Debian's python3, whatever python3 comes first in PATH
PATH=/usr/bin:/bin:$PATH make -s -C "$tree/tools/perf/Documentation" \
	OUTPUT="$stage/man/" PERF_VERSION="$version" "$stage/man/perf-xen.1" \
	> "$stage/man.log" 2>&1 || { cat "$stage/man.log" >&2; die "perf-xen.1: asciidoc/xmlto failed"; }
gzip -9n < "$stage/man/perf-xen.1" > "$root/usr/share/man/man1/perf-xen.1.gz"
gzip -9n < "$src/perf-xenpmu.1" > "$root/usr/share/man/man1/perf-xenpmu.1.gz"

cp "$src/copyright" "$doc/copyright"
cp "$src/lintian-overrides" "$root/usr/share/lintian/overrides/xenpmu-perf"
maint="${DEBFULLNAME:-xenpmu} <${DEBEMAIL:-xenpmu@localhost}>"
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "xenpmu-perf ($version) unstable; urgency=medium"
	echo
	echo "  * perf of the xenpmu tree for Linux $release (commit $commit)."
	echo
	echo " -- $maint  $(date -R)"
} | gzip -9n > "$doc/changelog.gz"

# The Debian 12 libraries linked in, found by their symbols in the binary
# (Built-Using: bookworm's lintian does not know Static-Built-Using yet)
built_using=
sym_pkgs='__libc_start_main:libc6-dev elf_begin:libelf-dev dwfl_begin:libdw-dev inflate:zlib1g-dev BZ2_bzDecompress:libbz2-dev lzma_code:liblzma-dev ZSTD_decompress:libzstd-dev'
syms=$(nm "$out/perf" 2>/dev/null | awk '$2 == "T" { print $3 }')
for sp in $sym_pkgs; do
	grep -qx "${sp%%:*}" <<<"$syms" || continue
	s=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' "${sp#*:}")
	case ", $built_using, " in *", $s, "*) ;; *) built_using=${built_using:+$built_using, }$s ;; esac
done
[ -n "$built_using" ] || die "no static library found in out/perf (not stripped?)"

cat > "$root/DEBIAN/control" <<EOF
Package: xenpmu-perf
Version: $version
Architecture: amd64
Maintainer: $maint
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Recommends: xen-utils-common
Suggests: binutils
Built-Using: $built_using
Section: devel
Priority: optional
Description: perf with Xen PV PMU support, as perf-xenpmu
 The Linux perf tool of the xenpmu kernel tree (Linux $release) with the
 perf xen command: from a Xen PV dom0 it sets the hypervisor's vPMU mode,
 records every CPU with the physical CPU, domain and vCPU of each sample,
 keeps Xen's symbols with the recording, reports domain first (Xen, dom0,
 each guest) and splits a recording per domain.
 .
 Installed as /usr/bin/perf-xenpmu beside Debian's linux-perf.  Sampling
 by domain needs the xenpmu kernel as dom0 and Xen booted with vpmu=on.
EOF
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
mkdir -p "$out/deb"
dpkg-deb --root-owner-group -Z"${KDEB_COMPRESS:-gzip}" --build "$root" \
	"$out/deb/xenpmu-perf_${version}_amd64.deb" >/dev/null
step "deb: out/deb/xenpmu-perf_${version}_amd64.deb"
