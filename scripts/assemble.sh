#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble build/linux: Debian's linux-source-6.12 committed pristine in its
# own git repository, then one commit per entry of patches/series.  With
# XENPMU_KERNEL=$linux_new (scripts/lib.sh): build/linux-$linux_new from the
# newest kernel's source, where a patch of patches/$linux_new/ replaces the
# patches/ one of its name, and its message, if it has one, is the commit's.
#
#   NAME.patch    a git format-patch file (or a bare diff), applied with
#                 git apply
#   NAME.overlay  files of ours to add or replace: a mail-like header
#                 (From:, Subject:), a body, then a line "---" and the
#                 repository paths (files or directories) it carries
#
# Several entries on one line make one commit (files of ours together with
# the few lines of upstream files that hook them in); its message is the
# first entry's that has a Subject.
#
# The commits are built with a private index, never in the work tree; the
# work tree is then moved from the previous assembly to the new one with one
# checkout, so only files whose content changed get a new mtime and the
# kernel and perf builds stay incremental.
set -euo pipefail

# XENPMU_TOP: another repository to assemble (the tree tooling's own tests).
top=${XENPMU_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$(dirname "$0")/lib.sh"

tarball=$ktarball
tree=$ktree
gitt() { git -C "$tree" "$@"; }

[ -r "$tarball" ] || die "$tarball missing: run 'make deps' (linux-source-$kernel)"

if ! gitt rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	step "unpacking $(basename "$tarball") into ${tree#"$top"/}"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	git -C "$tree.tmp" init -q -b debian
	git -C "$tree.tmp" config user.name "xenpmu assembly"
	git -C "$tree.tmp" config user.email "xenpmu@localhost"
	git -C "$tree.tmp" config core.autocrlf false
	git -C "$tree.tmp" config gc.auto 0
	git -C "$tree.tmp" add -A -f
	ver=$(make -s -C "$tree.tmp" kernelversion 2>/dev/null || echo "$kernel")
	GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
		git -C "$tree.tmp" commit -q -m "Debian linux-source $ver (pristine)"
	git -C "$tree.tmp" tag pristine
	mv "$tree.tmp" "$tree"
fi

# Our files: every path under these directories of the repository.
overlay_roots="arch include kernel lib drivers tools Documentation"
mapfile -t ours < <(cd "$top" && git ls-files -co --exclude-standard -- $overlay_roots)

series=$top/patches/series
[ -f "$series" ] || die "patches/series missing"
mapfile -t entries < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")

# Fingerprint of everything the assembly depends on.
stamp=$( {
	echo "$kernel $tarball $(stat -c %s "$tarball")"
	printf '%s\n' "${entries[@]}"
	for line in "${entries[@]}"; do
		for e in $line; do sha1sum "$(kpatch "$e")"; done
	done
	(cd "$top" && sha1sum "${ours[@]}" /dev/null)
	} | sha1sum | cut -d' ' -f1)
stampfile=$tree/.git/xenpmu-stamp
head=$(gitt rev-parse HEAD)
if [ -f "$stampfile" ] && [ "$(sed -n 1p "$stampfile")" = "$stamp" ] &&
   [ "$(sed -n 2p "$stampfile")" = "$head" ] &&
   [ -z "$(gitt status --porcelain --untracked-files=no)" ]; then
	exit 0
fi

# Refuse to throw away work done inside build/linux.
if [ -f "$stampfile" ] && [ "${FORCE:-0}" != 1 ]; then
	if [ -n "$(gitt status --porcelain --untracked-files=no)" ] ||
	   [ "$(sed -n 2p "$stampfile")" != "$head" ]; then
		die "${tree#"$top"/} has changes of its own: 'make refresh' saves them into the repository (FORCE=1 discards them)"
	fi
fi

step "assembling ${tree#"$top"/} (${#entries[@]} commits on pristine $kernel)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_INDEX_FILE=$work/index
gitt read-tree refs/tags/pristine
parent=$(gitt rev-parse refs/tags/pristine)
declare -A claimed=()
: > "$work/map"

for line in "${entries[@]}"; do
	subject= author= email=
	: > "$work/body"
	for e in $line; do
		f=$(kpatch "$e") own=
		[ -f "$f" ] || die "patches/series names $e, which does not exist"
		[ "$f" = "$top/patches/$e" ] || own=1
		case $e in
		*.patch)
			git mailinfo -k "$work/msg" "$work/diff" < "$f" > "$work/info"
			[ -s "$work/diff" ] || die "$e: no diff in it"
			(cd "$tree" && git apply --cached --whitespace=nowarn "$work/diff") ||
				die "${f#"$top"/} does not apply (run 'make refresh' after fixing it in ${tree#"$top"/})"
			;;
		*.overlay)
			sed '/^---$/q' "$f" | sed '$d' | git mailinfo -k "$work/msg" /dev/null > "$work/info"
			while read -r p; do
				[ -n "$p" ] || continue
				hit=0
				for o in "${ours[@]}"; do
					case $o in
					"$p"|"$p"/*)
						[ -z "${claimed[$o]:-}" ] || die "$o is in two overlay entries"
						claimed[$o]=$e
						h=$(git -C "$tree" hash-object -w "$top/$o")
						m=100644
						[ -x "$top/$o" ] && m=100755
						gitt update-index --add --cacheinfo "$m,$h,$o"
						hit=1
						;;
					esac
				done
				[ $hit = 1 ] || die "$e lists $p, which is not a file of ours"
			done < <(sed '1,/^---$/d' "$f")
			;;
		*)
			die "patches/series: $e is neither .patch nor .overlay"
			;;
		esac
		# The first entry of a line with a Subject gives the commit
		# message; a kernel's own patch with one gives it in any place.
		s=$(sed -n 's/^Subject: //p' "$work/info")
		if [ -n "$s" ] && { [ -z "$subject" ] || [ -n "$own" ]; }; then
			subject=$s
			author=$(sed -n 's/^Author: //p' "$work/info")
			email=$(sed -n 's/^Email: //p' "$work/info")
			cp "$work/msg" "$work/body"
		fi
	done
	[ -n "$subject" ] || die "patches/series: '$line' has no Subject"
	tree_id=$(gitt write-tree)
	parent=$( { echo "$subject"; echo; cat "$work/body"; } |
		GIT_AUTHOR_NAME=${author:-xenpmu} GIT_AUTHOR_EMAIL=${email:-xenpmu@localhost} \
		GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
		git -C "$tree" commit-tree "$tree_id" -p "$parent")
	echo "$parent $line" >> "$work/map"
done

for o in "${ours[@]}"; do
	[ -n "${claimed[$o]:-}" ] || die "$o is in no .overlay entry of patches/series"
done

unset GIT_INDEX_FILE
gitt checkout -q -f -B xenpmu "$parent"
cp "$work/map" "$tree/.git/xenpmu-map"
printf '%s\n%s\n' "$stamp" "$(gitt rev-parse HEAD)" > "$stampfile"
