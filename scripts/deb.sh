#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: Debian packages (bindeb-pkg) of the assembled kernel, built
# from Debian's own amd64 configuration plus configs/host.config, for
# installing on a real Xen host.  Packages land in build/ (kbuild's choice)
# and are copied to out/deb/.  Hours on 2 cores; never run in CI.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
"$top/scripts/deps.sh" --deb
tree=$top/build/linux
dout=$top/build/deb/kernel
dconf=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -r "$dconf" ] || die "$dconf missing (package linux-config-6.12)"
kmake() { make -C "$tree" O="$dout" CC="ccache gcc" -j"$jobs" "$@"; }

mkdir -p "$dout" "$out/deb"
xz -dc "$dconf" > "$dout/.config"
KCONFIG_CONFIG=$dout/.config "$tree/scripts/kconfig/merge_config.sh" -m -O "$dout" \
	"$dout/.config" "$top/configs/host.config" >/dev/null
# Debian signs with its own keys and builds BTF: neither is available here.
"$tree/scripts/config" --file "$dout/.config" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--disable MODULE_SIG_ALL --disable DEBUG_INFO_BTF \
	--set-str LOCALVERSION "-xenpmu"
kmake olddefconfig >/dev/null
start=$(date +%s)
kmake bindeb-pkg
cp "$top"/build/deb/*.deb "$out/deb/"
step "deb: $(( $(date +%s) - start )) s; packages in out/deb/"
