#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the tree tooling (scripts/assemble.sh, scripts/refresh.py) on a
# small repository and "linux-source" tarball of their own.  Prints TAP.
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XENPMU_TOP=$work/repo LINUX_TARBALL=$work/linux-source.tar.xz
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
tree=$XENPMU_TOP/build/linux
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { local what=$1; shift; if "$@" >/dev/null 2>"$work/err"; then ok "$what"; else no "$what # $(tail -1 "$work/err")"; fi; }
fails() { local what=$1; shift; if "$@" >/dev/null 2>"$work/err"; then no "$what # succeeded"; else ok "$what"; fi; }
assemble() { "$here/scripts/assemble.sh"; }
refresh() { python3 "$here/scripts/refresh.py"; }
mtime() { stat -c %Y.%y "$tree/$1"; }

# The "upstream" source.
mkdir -p "$work/src/linux-source-6.12/arch/x86" "$work/src/linux-source-6.12/drivers"
printf 'config X86\n\tbool\n' > "$work/src/linux-source-6.12/arch/x86/Kconfig"
printf 'obj-y += a.o\n' > "$work/src/linux-source-6.12/arch/x86/Makefile"
printf 'unrelated\n' > "$work/src/linux-source-6.12/drivers/other.c"
# a checkpatch that counts its runs and finds an error in "BAD"
mkdir -p "$work/src/linux-source-6.12/scripts"
cat > "$work/src/linux-source-6.12/scripts/checkpatch.pl" <<'EOT'
#!/bin/sh
echo run >> "$CHECKPATCH_RUNS"
for f; do :; done
grep -q BAD "$f" && { echo "ERROR: BAD"; echo "total: 1 errors, 0 warnings, 0 checks, 1 lines checked"; exit 1; }
echo "total: 0 errors, 0 warnings, 0 checks, 1 lines checked"
EOT
chmod +x "$work/src/linux-source-6.12/scripts/checkpatch.pl"
# a get_maintainer.pl that names one maintainer and the placeholder author
cat > "$work/src/linux-source-6.12/scripts/get_maintainer.pl" <<'EOT'
print "Some Maintainer <sm\@example.org>\nxenpmu developers <xenpmu\@localhost>\n";
EOT
export CHECKPATCH_RUNS=$work/checkpatch-runs XENPMU_CHECKPATCH_CACHE=$work/checkpatch-cache
runs() { cat "$CHECKPATCH_RUNS" 2>/dev/null | wc -l; }
series() { "$here/scripts/series.sh"; }
tar -C "$work/src" -cJf "$LINUX_TARBALL" linux-source-6.12

# Our repository: one file of ours plus the line that builds it.
mkdir -p "$XENPMU_TOP/arch/x86" "$XENPMU_TOP/patches"
git -C "$XENPMU_TOP" init -q
printf 'int ours;\n' > "$XENPMU_TOP/arch/x86/ours.c"
cat > "$XENPMU_TOP/patches/ours.overlay" <<'EOT'
From: t <t@t>
Subject: x86: add ours

Body.
---
arch/x86/ours.c
EOT
cat > "$XENPMU_TOP/patches/ours.patch" <<'EOT'
diff --git a/arch/x86/Makefile b/arch/x86/Makefile
--- a/arch/x86/Makefile
+++ b/arch/x86/Makefile
@@ -1 +1,2 @@
 obj-y += a.o
+obj-y += ours.o
EOT
printf 'ours.overlay ours.patch\n' > "$XENPMU_TOP/patches/series"
printf 'Subject: [PATCH 00/NN] x86: ours, all of it\n\nWhy ours.\n' > "$XENPMU_TOP/patches/cover-letter.txt"

echo "1..21"
check "assembles pristine plus one commit per line" assemble
[ "$(git -C "$tree" rev-list --count refs/tags/pristine..HEAD)" = 1 ] &&
	grep -q 'ours.o' "$tree/arch/x86/Makefile" && cmp -s "$tree/arch/x86/ours.c" "$XENPMU_TOP/arch/x86/ours.c" &&
	[ "$(git -C "$tree" log -1 --format=%s)" = "x86: add ours" ] &&
	ok "the commit has the overlay's message, file and patch" || no "the commit has the overlay's message, file and patch"

series >/dev/null 2>&1
grep -qx 'ok 1 - 0001-x86-add-ours.patch' "$XENPMU_TOP/out/checkpatch.tap" && [ "$(runs)" = 1 ] &&
	ok "make series: the patch checked once, clean" || no "make series: the patch checked once, clean # $(runs) runs"
c=$XENPMU_TOP/out/series/0000-cover-letter.patch
grep -qx 'Subject: \[PATCH 6.12 0/1\] x86: ours, all of it' "$c" && grep -qx 'Why ours.' "$c" &&
	grep -qx 'Cc: Some Maintainer <sm@example.org>' "$c" &&
	grep -qx 'Cc: Some Maintainer <sm@example.org>' "$XENPMU_TOP/out/series/0001-x86-add-ours.patch" &&
	! grep -q 'Cc: xenpmu\|\*\*\* .* HERE' "$c" "$XENPMU_TOP/out/series/0001-x86-add-ours.patch" &&
	ok "the cover letter is ours, and get_maintainer.pl's Cc lines are on every mail" ||
	no "the cover letter is ours, and get_maintainer.pl's Cc lines are on every mail"
series >/dev/null 2>&1
grep -qx 'ok 1 - 0001-x86-add-ours.patch' "$XENPMU_TOP/out/checkpatch.tap" && [ "$(runs)" = 1 ] &&
	ok "a second make series takes the unchanged patch's report from the cache" ||
	no "a second make series takes the unchanged patch's report from the cache # $(runs) runs"
printf 'int ours; /* BAD */\n' > "$XENPMU_TOP/arch/x86/ours.c"
assemble >/dev/null 2>&1
series >/dev/null 2>&1
grep -q '^not ok 1 - 0001-x86-add-ours.patch # total: 1 errors' "$XENPMU_TOP/out/checkpatch.tap" &&
	[ "$(runs)" = 2 ] && ok "a changed patch is checked again, and its error reported" ||
	no "a changed patch is checked again, and its error reported # $(runs) runs"
printf 'int ours;\n' > "$XENPMU_TOP/arch/x86/ours.c"
assemble >/dev/null 2>&1

sleep 1.1
m1=$(mtime arch/x86/ours.c) m2=$(mtime drivers/other.c) m3=$(mtime arch/x86/Makefile)
head=$(git -C "$tree" rev-parse HEAD)
assemble >/dev/null 2>&1
[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] && ok "a second assembly is a no-op" || no "a second assembly is a no-op"

printf 'int ours = 1;\n' > "$XENPMU_TOP/arch/x86/ours.c"
assemble >/dev/null 2>&1
[ "$(mtime arch/x86/ours.c)" != "$m1" ] && [ "$(mtime drivers/other.c)" = "$m2" ] &&
	[ "$(mtime arch/x86/Makefile)" = "$m3" ] && grep -q 'ours = 1' "$tree/arch/x86/ours.c" &&
	ok "an edited file of ours is the only file touched" || no "an edited file of ours is the only file touched"

printf 'int ours = 2;\n' > "$tree/arch/x86/ours.c"
fails "an edit inside build/linux is not overwritten" assemble
check "refresh saves an edit to a file of ours" refresh
grep -q 'ours = 2' "$XENPMU_TOP/arch/x86/ours.c" && ok "the file of ours came back" || no "the file of ours came back"

printf 'obj-y += more.o\n' >> "$tree/arch/x86/Makefile"
fails "refresh refuses an uncommitted upstream edit" refresh
git -C "$tree" commit -qa --fixup=HEAD &&
	GIT_SEQUENCE_EDITOR=true git -C "$tree" rebase -q -i --autosquash refs/tags/pristine
check "refresh exports a fixed-up commit" refresh
grep -q '^+obj-y += more.o' "$XENPMU_TOP/patches/ours.patch" && ! grep -q '^Subject' "$XENPMU_TOP/patches/ours.patch" &&
	[ "$(cat "$XENPMU_TOP/patches/series")" = "ours.overlay ours.patch" ] &&
	ok "the upstream part went to ours.patch as a bare diff" || no "the upstream part went to ours.patch as a bare diff"

# A file of ours that no entry carries, and an entry naming a file that is not ours.
printf 'x\n' > "$XENPMU_TOP/arch/x86/stray.c"
fails "a file of ours in no entry is an error" assemble
rm "$XENPMU_TOP/arch/x86/stray.c"
printf 'arch/x86/missing.c\n' >> "$XENPMU_TOP/patches/ours.overlay"
fails "an entry naming a file that is not ours is an error" assemble
sed -i '$d' "$XENPMU_TOP/patches/ours.overlay"

# The newest kernel: its own tarball, where the 6.12 patch does not apply
new=$(sed -n 's/^linux_new=//p' "$here/scripts/releases.sh")
mkdir -p "$work/src/linux-source-$new"
cp -a "$work/src/linux-source-6.12/." "$work/src/linux-source-$new/"
printf 'obj-y += a.o b.o\n' > "$work/src/linux-source-$new/arch/x86/Makefile"
tar -C "$work/src" -cJf "$work/linux-new.tar.xz" "linux-source-$new"
newtree=$XENPMU_TOP/build/linux-$new
knew() { env XENPMU_KERNEL="$new" LINUX_TARBALL="$work/linux-new.tar.xz" "$@"; }
fails "on $new, the 6.12 patch that does not apply is an error" knew "$here/scripts/assemble.sh"
mkdir -p "$XENPMU_TOP/patches/$new"
cat > "$XENPMU_TOP/patches/$new/ours.patch" <<'EOT'
diff --git a/arch/x86/Makefile b/arch/x86/Makefile
--- a/arch/x86/Makefile
+++ b/arch/x86/Makefile
@@ -1 +1,2 @@
 obj-y += a.o b.o
+obj-y += ours.o
EOT
knew "$here/scripts/assemble.sh" >/dev/null 2>&1
[ "$(cat "$newtree/arch/x86/Makefile")" = "$(printf 'obj-y += a.o b.o\nobj-y += ours.o')" ] &&
	cmp -s "$newtree/arch/x86/ours.c" "$XENPMU_TOP/arch/x86/ours.c" &&
	[ "$(git -C "$newtree" log -1 --format=%s)" = "x86: add ours" ] &&
	ok "on $new, patches/$new/ours.patch takes ours.patch's place, with the shared file and message" ||
	no "on $new, patches/$new/ours.patch takes ours.patch's place, with the shared file and message"
# an edit of a file of ours on the newest kernel only goes to its patch
cp "$XENPMU_TOP/patches/ours.patch" "$work/shared.patch"
cp "$XENPMU_TOP/arch/x86/ours.c" "$work/ours.c"
printf 'int ours_new;\n' > "$newtree/arch/x86/ours.c"
git -C "$newtree" commit -qa --amend --no-edit
knew python3 "$here/scripts/refresh.py" >/dev/null 2>&1
grep -q '^+int ours_new;' "$XENPMU_TOP/patches/$new/ours.patch" &&
	grep -q '^+obj-y += ours.o' "$XENPMU_TOP/patches/$new/ours.patch" &&
	cmp -s "$work/ours.c" "$XENPMU_TOP/arch/x86/ours.c" && cmp -s "$work/shared.patch" "$XENPMU_TOP/patches/ours.patch" &&
	ok "refresh on $new: an edit of a file of ours goes to patches/$new, the shared file and patch stay" ||
	no "refresh on $new: an edit of a file of ours goes to patches/$new, the shared file and patch stay"
knew "$here/scripts/assemble.sh" >/dev/null 2>&1
grep -qx 'int ours_new;' "$newtree/arch/x86/ours.c" && cmp -s "$work/ours.c" "$tree/arch/x86/ours.c" &&
	ok "the re-assembled $new tree has its edit, 6.12's has not" ||
	no "the re-assembled $new tree has its edit, 6.12's has not"
# where the 6.12 patch makes the same commit, the kernel's own one goes
printf 'obj-y += a.o\n' > "$work/src/linux-source-$new/arch/x86/Makefile"
tar -C "$work/src" -cJf "$work/linux-new.tar.xz" "linux-source-$new"
rm -rf "$newtree"
{ echo '# the same change, written apart'; cat "$XENPMU_TOP/patches/ours.patch"; } \
	> "$XENPMU_TOP/patches/$new/ours.patch"
knew "$here/scripts/assemble.sh" >/dev/null 2>&1
knew python3 "$here/scripts/refresh.py" > "$work/refresh.log" 2>&1
[ ! -e "$XENPMU_TOP/patches/$new/ours.patch" ] &&
	ok "refresh on $new removes a patch that 6.12's makes the same" ||
	no "refresh on $new removes a patch that 6.12's makes the same # $(tail -1 "$work/refresh.log")"
