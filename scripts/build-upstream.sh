#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Upstream 6.12's Xen PMU driver, for make bench to compare with ours:
# Debian's pristine linux-source-6.12 (the tag build/linux starts from,
# checked out as a worktree in build/linux-upstream) built with the lab's
# configuration less the options of our own, in build/kernel-upstream.
# Artifacts: out/upstream/bzImage, vmlinux, kernel.config.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$top/build/linux
wt=$top/build/linux-upstream
git -C "$tree" rev-parse -q --verify refs/tags/pristine >/dev/null ||
	die "build/linux has no pristine tag: run 'make tree'"
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	step "checking out the pristine tree in build/linux-upstream"
	rm -rf "$wt"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" pristine
fi
# Options Kconfig of the pristine tree does not know are ours.
frag=$top/build/upstream.config
cat "$top/configs/lab.config" "$top/configs/debug.config" "$top/configs/dom0-disk.config" |
	grep -v -E '^CONFIG_XEN_PMU(_|=)' > "$frag.tmp"
cmp -s "$frag.tmp" "$frag" 2>/dev/null && rm -f "$frag.tmp" || mv "$frag.tmp" "$frag"
KTREE=$wt KOUT=$top/build/kernel-upstream KIMAGES=$out/upstream KFRAGMENTS=$frag \
	"$top/scripts/build-kernel.sh"
