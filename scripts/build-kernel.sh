#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the lab kernel out of tree in build/kernel: tinyconfig plus the
# fragments in configs/ (KFRAGMENTS overrides the list), with ccache.
# One kernel serves the lab, the packages (make deb DEB_CONFIG=lab) and
# the Debian dom0 booted from a disk (configs/dom0-disk.config).
# Artifacts: out/bzImage, out/vmlinux, out/kernel.config, out/modules/
# (KTREE, KOUT and KIMAGES: another source tree, build directory and
# artifact directory).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel}
frags=${KFRAGMENTS:-"$top/configs/lab.config $top/configs/debug.config $top/configs/dom0-disk.config"}
kmake() { kbuild "$tree" "$kout" "$@"; }

mkdir -p "$kout"
fp=$(cat $frags | sha1sum | cut -d' ' -f1)
if [ ! -f "$kout/.config" ] || [ "$(cat "$kout/.xenpmu-frags" 2>/dev/null)" != "$fp" ]; then
	step "configuring the kernel: tinyconfig + $(for f in $frags; do basename "$f"; done | tr '\n' ' ')"
	kmake -s tinyconfig >/dev/null
	KCONFIG_CONFIG=$kout/.config "$tree/scripts/kconfig/merge_config.sh" -m -O "$kout" \
		"$kout/.config" $frags >/dev/null
	kmake -s olddefconfig >/dev/null
	# Every option a fragment asks for must have survived olddefconfig.
	missing=
	for f in $frags; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=n) opt=${line%%=*}
				grep -q "^$opt=" "$kout/.config" && missing="$missing $line" ;;
			CONFIG_*=*) grep -qxF "$line" "$kout/.config" || missing="$missing $line" ;;
			esac
		done < "$f"
	done
	[ -z "$missing" ] || die "kernel config lost:$missing (unmet dependencies?)"
	echo "$fp" > "$kout/.xenpmu-frags"
fi
images=${KIMAGES:-$out}
mkdir -p "$images"
rm -rf "$images/bzImage" "$images/vmlinux" "$images/modules"
step "building the kernel in ${kout#"$top"/}"
kmake bzImage modules
cp "$kout/arch/x86/boot/bzImage" "$images/bzImage"
cp "$kout/vmlinux" "$images/vmlinux"
cp "$kout/.config" "$images/kernel.config"
# The modules (our KUnit suites), installed as a distribution would, with
# their modules.dep, for dom0's initramfs: out/modules/lib/modules/<release>
if grep -q '^CONFIG_MODULES=y' "$kout/.config"; then
	kmake -s INSTALL_MOD_PATH="$images/modules" INSTALL_MOD_STRIP=1 modules_install
fi
