#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static layer for our kernel files: a W=1 compile and a sparse pass (C=2)
# of each C file, with the lab kernel's configuration, and kernel-doc -Wall
# over every C file and header.  Any diagnostic fails the file.  TAP in out/static.tap, the compiler's
# output in out/static.log.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$top/build/linux
kout=${KOUT:-$top/build/kernel}
kmake() { kbuild "$tree" "$kout" "$@"; }

# check NAME MAKE-ARGS...: one TAP line; any diagnostic fails it.
check() {
	local name=$1 r st
	shift
	i=$((i + 1))
	r=$(kmake "$@" 2>&1) && st=0 || st=$?
	printf '### %s\n%s\n' "$name" "$r" >> "$out/static.log"
	if [ $st = 0 ] && ! echo "$r" | grep -qE 'warning:|error:'; then
		echo "ok $i - $name"
	else
		echo "not ok $i - $name # $(echo "$r" | grep -m1 -E 'warning:|error:' || echo "make exited $st")"
	fi
}

mapfile -t files < <(cd "$top" && git ls-files -co --exclude-standard -- arch kernel drivers lib | grep '\.c$')
mapfile -t docs < <(cd "$top" && git ls-files -co --exclude-standard -- arch kernel drivers lib include | grep '\.[ch]$')
: > "$out/static.log"
{
	echo "1..$(( ${#files[@]} * 2 + ${#docs[@]} ))"
	i=0
	for f in "${docs[@]}"; do
		i=$((i + 1))
		r=$(cd "$tree" && perl scripts/kernel-doc -none -Wall "$f" 2>&1) && st=0 || st=$?
		printf '### kernel-doc %s\n%s\n' "$f" "$r" >> "$out/static.log"
		if [ $st = 0 ] && [ -z "$r" ]; then
			echo "ok $i - kernel-doc $f"
		else
			echo "not ok $i - kernel-doc $f # $(echo "$r" | head -1)"
		fi
	done
	for f in "${files[@]}"; do
		o=${f%.c}
		# A .s target: same flags, and the kernel's own .o stays as it is.
		check "W=1 $f" W=1 "$o.s"
		check "sparse $f" C=2 CHECK=sparse "$o.o"
	done
} > "$out/static.tap"
