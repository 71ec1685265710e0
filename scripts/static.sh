#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static layer for the kernel side of the series: a W=1 compile and a
# sparse pass (C=2) of each C file the series adds or changes, with the lab
# kernel's configuration, and kernel-doc -Wall over those C files and
# headers.  A diagnostic on a line the series added fails the file; one on
# upstream's own lines (kernel/events/core.c has sparse errors of its own)
# does not.  Last, the Xen code that calls the driver's hooks is built with
# CONFIG_XEN_PMU=n (build/kernel-nopmu), where the hooks are stubs.  TAP in
# out/static.tap, the tools' output in out/static.log.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$top/build/linux
kout=${KOUT:-$top/build/kernel}
kmake() { kbuild "$tree" "$kout" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every line the series added, as PATH:LINE
git -C "$tree" diff -U0 --no-color refs/tags/pristine HEAD -- arch kernel drivers lib include |
	awk '/^\+\+\+ b\//	{ f = substr($2, 3); next }
	     /^@@ /		{ split($3, r, ","); n = (r[2] == "" ? 1 : r[2]);
				  for (l = substr(r[1], 2); n-- > 0; l++) print f ":" l }' \
	> "$work/added"

# ours: the diagnostics of a tool's output on lines the series added
ours() {
	sed -e "s|$tree/||" -e "s|^\./||" |
		awk -v added="$work/added" '
			BEGIN { while ((getline l < added) > 0) a[l] = 1 }
			/(warning|error):/ { split($0, p, ":"); if ((p[1] ":" p[2]) in a) print }'
}

# check NAME MAKE-ARGS...: one TAP line; a diagnostic of ours fails it.
check() {
	local name=$1 r st d
	shift
	i=$((i + 1))
	r=$(kmake "$@" 2>&1) && st=0 || st=$?
	printf '### %s\n%s\n' "$name" "$r" >> "$out/static.log"
	d=$(echo "$r" | ours)
	if [ $st = 0 ] && [ -z "$d" ]; then
		echo "ok $i - $name"
	else
		echo "not ok $i - $name # $(echo "${d:-make exited $st}" | head -1)"
	fi
}

# The kernel files the series adds or changes
mapfile -t changed < <(git -C "$tree" diff --name-only --diff-filter=AM refs/tags/pristine HEAD -- \
	arch kernel drivers lib include)
mapfile -t files < <(printf '%s\n' "${changed[@]}" | grep '\.c$')
mapfile -t docs < <(printf '%s\n' "${changed[@]}" | grep '\.[ch]$')
: > "$out/static.log"
{
	echo "1..$(( ${#files[@]} * 2 + ${#docs[@]} + 1 ))"
	i=0
	for f in "${docs[@]}"; do
		i=$((i + 1))
		r=$(cd "$tree" && perl scripts/kernel-doc -none -Wall "$f" 2>&1) || true
		printf '### kernel-doc %s\n%s\n' "$f" "$r" >> "$out/static.log"
		d=$(echo "$r" | ours)
		if [ -z "$d" ]; then
			echo "ok $i - kernel-doc $f"
		else
			echo "not ok $i - kernel-doc $f # $(echo "$d" | head -1)"
		fi
	done
	for f in "${files[@]}"; do
		o=${f%.c}
		# A .s target: same flags, and the kernel's own .o stays as it is.
		check "W=1 $f" W=1 "$o.s"
		check "sparse $f" C=2 CHECK=sparse "$o.o"
	done
	# The lab's configuration without the driver
	nopmu=$top/build/kernel-nopmu
	mkdir -p "$nopmu"
	cp "$kout/.config" "$nopmu/.config"
	"$tree/scripts/config" --file "$nopmu/.config" --disable XEN_PMU
	kbuild "$tree" "$nopmu" -s olddefconfig >> "$out/static.log" 2>&1
	if grep -q '^CONFIG_XEN_PMU=y' "$nopmu/.config"; then
		i=$((i + 1))
		echo "not ok $i - CONFIG_XEN_PMU=n # olddefconfig turned it on again"
	else
		kout=$nopmu check "CONFIG_XEN_PMU=n: arch/x86/xen/ and drivers/xen/sys-hypervisor.o" \
			arch/x86/xen/ drivers/xen/sys-hypervisor.o
	fi
} > "$out/static.tap"
