#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each patch of the series builds on its own.  Every commit of build/linux
# after pristine is checked out in turn in one worktree (build/series/tree),
# so a step changes only the files its commit changes, and what it touches
# is built out of tree with the lab kernel's configuration
# (build/series/kernel) and perf's options (build/series/perf):
#
#   kernel C files   their objects, where the configuration builds them
#                    (build/kernel has the object)
#   kernel headers   in a commit without C files: the configured objects
#                    of the C files that include them
#   perf C files     their objects (perf's single-object targets); the
#                    last commit's perf is linked whole by build-perf.sh
#   tools headers    in a commit without C files: the perf objects that
#                    include them
#   selftests        the test programs, against the commit's own headers
#
# A commit with nothing to build (documentation only) is a skip, never a
# pass.  TAP in out/series-build.tap, the build output in
# out/series-build.log.  The result is kept for the same series and
# configuration: a warm make check does not build it again.
#
# XENPMU_KERNEL=$linux_new (scripts/lib.sh): the same for the newest
# kernel's series (build/linux-$linux_new, build/series-$linux_new,
# out/series-build-$linux_new.*), whose kernel is not built whole: what is
# configured is what the lab's 6.12 configuration builds, and the
# configuration is that one brought to the newest kernel (olddefconfig) at
# every commit.  A last step links perf at the last commit and runs its
# tests of the series ("perf test Xen" and "Sample parsing"), which need
# no Xen.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
tree=$ktree
sfx=${kpatches:+-$kernel}
base=$top/build/series$sfx
wt=$base/tree
kout=$base/kernel
pout=$base/perf
tap=$out/series-build$sfx.tap
log=$out/series-build$sfx.log
gitt() { git -C "$tree" "$@"; }

[ -f "$top/build/kernel/.config" ] || die "build the kernel first (make kernel)"
[ -x "$top/build/perf/perf" ] || die "build perf first (make perf)"
mapfile -t commits < <(gitt rev-list --reverse refs/tags/pristine..HEAD)
[ ${#commits[@]} -gt 0 ] || die "build/linux has no series (make tree)"

key=$( { printf '%s\n' "${commits[@]}"; cat "$top/build/kernel/.config" "$0"
	 echo "${perf_opts[*]}"; } |
	sha1sum | cut -d' ' -f1)
if [ -s "$base/tap" ] && [ "$(cat "$base/stamp" 2>/dev/null)" = "$key" ]; then
	cp "$base/tap" "$tap"
	step "series-build: each patch already built for this series"
	exit 0
fi
rm -f "$base/stamp" "$base/tap" "$tap"
mkdir -p "$base" "$kout" "$pout"

# One worktree, moved from commit to commit
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	gitt worktree prune
	gitt worktree add -q --detach "$wt" "${commits[0]}"
fi
# config: the lab's configuration for the worktree's commit, again at every
# commit that changes a Kconfig file (a symbol it adds must not have been
# dropped by an earlier commit's olddefconfig)
config() {
	cp "$top/build/kernel/.config" "$kout/.config"
	kbuild "$wt" "$kout" -s olddefconfig >/dev/null
}

# kernel_objs FILE...: the configured objects of kernel C files
kernel_objs() {
	local f
	for f; do
		[ -f "$top/build/kernel/${f%.c}.o" ] && echo "${f%.c}.o"
	done
	return 0
}

# users DIR HEADER: the C files under DIR of the worktree that include
# HEADER by its include path, or, for a header beside them outside the
# include directories (arch/x86/xen/xen-ops.h), by its name
users() {
	local inc=${2#include/}
	inc=${inc#uapi/}
	inc=${inc#tools/include/uapi/}
	if [ "$inc" = "$2" ] && [ "${2#tools/}" = "$2" ]; then
		git -C "$wt" grep -l -e "#include \"${2##*/}\"" -- "${2%/*}/*.c" || true
		return
	fi
	git -C "$wt" grep -l -e "#include <$inc>" -e "#include \"$inc\"" -- "$1/*.c" || true
}

: > "$log"
i=0
n=${#commits[@]}
[ -n "$kpatches" ] && n=$((n + 1))
{
	echo "1..$n"
	for c in "${commits[@]}"; do
		i=$((i + 1))
		subject=$(gitt log -1 --format=%s "$c")
		git -C "$wt" checkout -q --detach "$c"
		mapfile -t files < <(gitt diff-tree -r --no-commit-id --name-only --diff-filter=AM "$c")
		if [ $i = 1 ] || printf '%s\n' "${files[@]}" | grep -q '/Kconfig'; then
			config
		fi
		kc=() kh=() pc=() ph=() st=()
		for f in "${files[@]}"; do
			case $f in
			tools/testing/selftests/*) st=(1) ;;
			tools/perf/*.c) pc+=("$f") ;;
			tools/*.h) ph+=("$f") ;;
			tools/*|Documentation/*|MAINTAINERS) ;;
			*.c) kc+=("$f") ;;
			*.h) kh+=("$f") ;;
			esac
		done
		if [ ${#kc[@]} = 0 ]; then
			for h in "${kh[@]}"; do mapfile -t -O ${#kc[@]} kc < <(users . "$h"); done
		fi
		if [ ${#pc[@]} = 0 ]; then
			for h in "${ph[@]}"; do mapfile -t -O ${#pc[@]} pc < <(users tools/perf "$h"); done
		fi
		mapfile -t ko < <(kernel_objs "${kc[@]}" | sort -u)
		po=()
		for f in "${pc[@]}"; do
			f=${f#tools/perf/}
			# perf's single-object targets do not reach arch/
			case $f in arch/*) continue ;; esac
			[ -f "$top/build/perf/${f%.c}.o" ] && po+=("${f%.c}.o")
		done
		what=() ok=1
		printf '### %s %s\n' "$i" "$subject" >> "$log"
		if [ ${#ko[@]} -gt 0 ]; then
			kbuild "$wt" "$kout" "${ko[@]}" >> "$log" 2>&1 || ok=0
			what+=("${ko[@]}")
		fi
		if [ $ok = 1 ] && [ ${#po[@]} -gt 0 ]; then
			# prepare first: each object target runs it, and in
			# parallel they would generate the same headers at once
			{ make -C "$wt/tools/perf" O="$pout" -j"$jobs" "${perf_opts[@]}" prepare \
				"$pout/libsymbol/libsymbol.a" &&
			  make -C "$wt/tools/perf" O="$pout" -j"$jobs" "${perf_opts[@]}" "${po[@]}"
			} >> "$log" 2>&1 || ok=0
			what+=("${po[@]/#/perf:}")
		fi
		if [ $ok = 1 ] && [ ${#st[@]} -gt 0 ]; then
			KTREE=$wt KOUT=$kout SOUT=$base/selftests "$top/scripts/build-selftests.sh" \
				>> "$log" 2>&1 || ok=0
			what+=(selftests/xen/pmu)
		fi
		if [ ${#what[@]} = 0 ]; then
			echo "ok $i - $subject # SKIP nothing to build (${files[*]})"
		elif [ $ok = 1 ]; then
			echo "ok $i - $subject: ${what[*]}"
		else
			echo "not ok $i - $subject: ${what[*]} # does not build (${log#"$top"/})"
		fi
	done
	# The newest kernel's perf, which no other step builds: linked at
	# the last commit, and its tests of the series run
	if [ -n "$kpatches" ]; then
		i=$((i + 1))
		what="perf at the last commit: links, 'perf test Xen' and 'Sample parsing' pass"
		printf '### %s perf\n' "$i" >> "$log"
		if ! make -C "$wt/tools/perf" O="$pout" -j"$jobs" "${perf_opts[@]}" perf >> "$log" 2>&1; then
			echo "not ok $i - $what # perf does not link (${log#"$top"/})"
		else
			res=$( (cd "$base" && timeout 600 "$pout/perf" test Xen "Sample parsing") 2>&1)
			echo "$res" >> "$log"
			failed=$(echo "$res" | sed -n 's/^Failed tests *: *//p')
			passed=$(echo "$res" | sed -n 's/^Passed subtests *: *//p')
			if [ "$failed" = 0 ] && [ "${passed:-0}" -gt 0 ]; then
				echo "ok $i - $what: $passed subtests"
			else
				echo "not ok $i - $what # ${failed:-no} failed, ${passed:-no} subtests passed (${log#"$top"/})"
			fi
		fi
	fi
} > "$tap.tmp"
mv "$tap.tmp" "$tap"
if ! grep -q '^not ok' "$tap"; then
	cp "$tap" "$base/tap"
	echo "$key" > "$base/stamp"
fi
step "series-build $kernel: $(grep -c '^ok' "$tap") of $n ok (${tap#"$top"/})"
