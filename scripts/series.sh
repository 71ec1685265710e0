#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the assembled change as a git format-patch series in out/series/,
# with its cover letter (patches/cover-letter.txt) and each patch's Cc
# lines from get_maintainer.pl, and run checkpatch --strict over every
# patch.  TAP in out/checkpatch.tap,
# checkpatch's full report in out/checkpatch.log.  A patch whose report
# is in the cache (below) is not checked again.
#
# XENPMU_KERNEL (scripts/lib.sh) picks the tree: the newest kernel's series,
# the one posted, goes to out/series-$linux_new/ (out/checkpatch-$linux_new.*);
# 6.12's, its backport, to out/series/ with "PATCH 6.12" in its subjects.
set -euo pipefail

# XENPMU_TOP: another repository (the tree tooling's own tests).
top=${XENPMU_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$(dirname "$0")/lib.sh"
tree=$ktree
if [ -n "$kpatches" ]; then
	sdir=$out/series-$kernel ctap=$out/checkpatch-$kernel.tap clog=$out/checkpatch-$kernel.log
	prefix=PATCH
else
	sdir=$out/series ctap=$out/checkpatch.tap clog=$out/checkpatch.log
	prefix="PATCH 6.12"
fi
rm -rf "$sdir"
git -C "$tree" format-patch -q --cover-letter --subject-prefix="$prefix" -o "$sdir" \
	refs/tags/pristine..HEAD
mapfile -t pl < <(ls "$sdir"/*.patch | grep -v '/0000-cover-letter.patch$')

# Cc: what get_maintainer.pl says for each patch (MAINTAINERS only: the
# tree has no history to ask), never the placeholder author; the cover
# letter goes to all of them.
ccs() {
	(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree --nofixes "$@" 2>/dev/null) | grep -v 'xenpmu@localhost'
}
add_cc() {
	local f=$1
	shift
	awk -v cc="$(printf 'Cc: %s\n' "$@")" \
		'!done && /^Subject: / { print cc; done = 1 } { print }' "$f" > "$f.tmp"
	mv "$f.tmp" "$f"
}
for p in "${pl[@]}"; do
	mapfile -t cc < <(ccs "$p")
	add_cc "$p" "${cc[@]}"
done
# The cover letter: subject and text from patches/cover-letter.txt, with
# git's shortlog and diffstat below them
cover=$sdir/0000-cover-letter.patch
letter=$top/patches/cover-letter.txt
[ -r "$letter" ] || die "patches/cover-letter.txt missing"
subject=$(sed -n '1s/^Subject: \[PATCH 00\/NN\] //p' "$letter")
[ -n "$subject" ] || die "patches/cover-letter.txt: line 1 is not 'Subject: [PATCH 00/NN] ...'"
awk -v subject="$subject" -v letter="$letter" '
	/^From: / && !from++ { print "From: xenpmu developers <xenpmu@localhost>"; next }
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline l < letter) > 0) if (n++ > 1) print l
		next }
	{ print }' "$cover" > "$cover.tmp"
mv "$cover.tmp" "$cover"
grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$cover" && die "the cover letter kept git's template"
mapfile -t cc < <(ccs "${pl[@]}")
add_cc "$cover" "${cc[@]}"
: > "$clog"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# checkpatch's reports by what they depend on (the patch, the options,
# checkpatch and its data files), outside the clone like the ccache: a
# patch that did not change is not checked again.  Reports of a run that
# did not finish are not kept.
cache=${XENPMU_CHECKPATCH_CACHE:-/var/cache/xenpmu/checkpatch}
mkdir -p "$cache"
tool=$( (cd "$tree" && cat scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch 2>/dev/null || true) | sha1sum | cut -d' ' -f1)

# checkpatch_one N PATCH: its report in $work/N
checkpatch_one() {
	# The assembled tree is a tarball with no upstream history, so
	# checkpatch cannot look up the commits a Fixes: tag names: they
	# were checked against mainline when the tags were written.
	local opts=(--ignore UNKNOWN_COMMIT_ID) key
	# perf test shows line 2 of a shell test as its description, so
	# perf's shell tests (upstream's too) carry the SPDX tag on line
	# 3: a patch of only those (and MAINTAINERS) skips that one rule.
	grep '^diff --git ' "$2" | awk '{ sub(/^a\//, "", $3); print $3 }' |
		grep -qv -e '^tools/perf/tests/shell/.*\.sh$' -e '^MAINTAINERS$' ||
		opts+=(--ignore SPDX_LICENSE_TAG)
	# (line 1 names the commit, which changes with any commit before it)
	key=$( { echo "$tool ${opts[*]} ${2##*/}"; tail -n +2 "$2"; } | sha1sum | cut -d' ' -f1)
	if [ -s "$cache/$key" ]; then
		cp "$cache/$key" "$work/$1"
		return
	fi
	(cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --showfile \
		"${opts[@]}" "$2" > "$work/$1" 2>&1 || true)
	if grep -q '^total: ' "$work/$1" && ! grep -q '^Traceback' "$work/$1"; then
		cp "$work/$1" "$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key"
	fi
}

# One checkpatch per CPU at a time
i=0
for p in "${pl[@]}"; do
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	checkpatch_one $i "$p" &
done
wait
{
	echo "1..${#pl[@]}"
	i=0
	for p in "${pl[@]}"; do
		i=$((i + 1))
		r=$(cat "$work/$i")
		printf '### %s\n%s\n' "$(basename "$p")" "$r" >> "$clog"
		total=$(echo "$r" | grep -E '^total: ' | tail -1)
		if echo "$r" | grep -q '^Traceback'; then
			echo "not ok $i - $(basename "$p") # a checkpatch helper crashed (out/checkpatch.log)"
		elif echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			echo "ok $i - $(basename "$p")"
		else
			echo "not ok $i - $(basename "$p") # ${total:-checkpatch did not run}"
		fi
	done
} > "$ctap"
grep -c '^ok' "$ctap" | xargs -I{} echo "xenpmu: series: ${#pl[@]} patches in ${sdir#"$top"/}, {} checkpatch --strict clean" >&2
