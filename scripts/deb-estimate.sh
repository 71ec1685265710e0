#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How long the full-configuration `make deb` builds, on this machine,
# measured on a random sample of its objects: for machines (such as the
# project's own, 2 cores) on which the whole build does not fit in a work
# session.  Nothing here is used by make deb itself.
#
#   1. configure as make deb does (deb.sh --configure), in a build
#      directory of its own, and time `make prepare`;
#   2. list every object `make -n vmlinux modules` compiles (N) and every
#      module it links (M);
#   3. compile a seeded random sample of the objects in BATCHES batches,
#      each one make of single targets with an empty ccache (the cold
#      case), and time each; one more make of a built batch times the
#      fixed cost of a make run;
#   4. link the modules of the sample that are one object each (their
#      .mod.c, .ko and modpost), timed;
#   5. print the estimate: N times the mean cost of an object, with the
#      batches' standard error, and M times the cost of linking a module.
#   Not estimated: the link of vmlinux and the packaging.
#
# Each step keeps its result in build/deb/estimate/, and a second run
# with the same arguments and configuration goes on from the first step
# without one.
#
# usage: deb-estimate.sh [SAMPLE [BATCHES [SEED]]]  (defaults 800, 8, 1)
# Output: out/deb-estimate.txt.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
sample=${1:-800} batches=${2:-8} seed=${3:-1}
tree=$top/build/linux
work=$top/build/deb/estimate
# a build directory of its own, so that a make deb's stays as it is
dout=$work/kernel
report=$out/deb-estimate.txt

# CPU seconds the whole machine spent busy so far (/proc/stat, all CPUs)
busy() { awk '/^cpu /{ printf "%.2f\n", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
now() { date +%s.%N; }
# timed FILE COMMAND...: run it, append "wall cpu" (seconds) to FILE
timed() {
	local f=$1 t0 c0
	shift
	t0=$(now) c0=$(busy)
	"$@" || true
	echo "$(echo "$(now) - $t0" | bc) $(echo "$(busy) - $c0" | bc)" >> "$f"
}

DEB_CONFIG=debian "$top/scripts/deb.sh" --configure
key="$sample $batches $seed $(sha1sum < "$top/build/deb/kernel/.config")"
if [ "$(cat "$work/key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$work"
	mkdir -p "$dout"
	cp "$top/build/deb/kernel/.config" "$dout/.config"
	echo "$key" > "$work/key"
fi
# An empty ccache: every compile misses, as in a first build.
export CCACHE_DIR=$work/ccache
mkdir -p "$CCACHE_DIR"
kmake() { kbuild "$tree" "$dout" "$@"; }
kmake -s olddefconfig > /dev/null

if [ ! -s "$work/prepare.time" ]; then
	step "deb-estimate: make prepare"
	timed "$work/prepare.time" kmake -s prepare > "$work/prepare.log" 2>&1
fi

if [ ! -s "$work/objects" ]; then
	step "deb-estimate: listing what make vmlinux modules compiles"
	kmake -n vmlinux modules > "$work/plan" 2> "$work/plan.err" || true
	# every compile's object; the modules that modules.order lists
	grep -o ' -c -o [^ ]*\.o ' "$work/plan" | awk '{ print $3 }' | sort -u > "$work/objects.tmp"
	grep 'modules\.order' "$work/plan" | grep -o 'echo [^ ;]*\.o' | awk '{ print $2 }' |
		sort -u > "$work/modules"
	rm -f "$work/plan"
	mv "$work/objects.tmp" "$work/objects"
fi
total=$(wc -l < "$work/objects")
nmod=$(wc -l < "$work/modules")
[ "$total" -gt "$sample" ] || die "only $total objects listed (see $work/plan.err)"

if [ ! -s "$work/sample" ]; then
	# a seeded random sample, dealt out to the batches in turn
	python3 -c 'import random, sys
random.seed(int(sys.argv[2]))
objs = open(sys.argv[1]).read().split()
print("\n".join(random.sample(objs, int(sys.argv[3]))))' \
		"$work/objects" "$seed" "$sample" > "$work/sample.tmp"
	split -n r/"$batches" -d "$work/sample.tmp" "$work/batch."
	mv "$work/sample.tmp" "$work/sample"
fi

# built LIST: how many of its files exist in the build directory
built() { local o n=0; while read -r o; do [ -f "$dout/$o" ] && n=$((n + 1)); done < "$1"; echo $n; }

for b in "$work"/batch.??; do
	[ -s "$b.time" ] && continue
	step "deb-estimate: compiling ${b##*/} ($(wc -l < "$b") objects)"
	timed "$b.time.tmp" kmake -k $(cat "$b") > "$b.log" 2>&1
	echo "$(wc -l < "$b") $(built "$b") $(cat "$b.time.tmp")" > "$b.time"
	rm -f "$b.time.tmp"
done
# the fixed cost of one make run: the last batch again, all built
[ -s "$work/fixed.time" ] || timed "$work/fixed.time" kmake -k $(cat "$b") > /dev/null 2>&1

# The modules of one object each whose object the sample built: link them
# (modpost over them, their .mod.c and .ko).  A single-target make of an
# object compiles it without -DMODULE, so the first make of the .ko files
# compiles their objects again; the second, timed, with the ccache empty
# again, only links.  Without
# vmlinux, modpost cannot resolve the kernel's symbols: a warning then.
if [ ! -s "$work/modules.time" ]; then
	grep -xFf "$work/modules" "$work/sample" | while read -r o; do
		[ -f "$dout/$o" ] && echo "${o%.o}.ko"
	done > "$work/kos"
	step "deb-estimate: linking $(wc -l < "$work/kos") modules"
	kmake -k KBUILD_MODPOST_WARN=1 $(cat "$work/kos") > "$work/kos.log" 2>&1 || true
	while read -r k; do rm -f "$dout/$k" "$dout/${k%.ko}.mod.o" "$dout/${k%.ko}.mod.c"; done < "$work/kos"
	rm -rf "$CCACHE_DIR" && mkdir -p "$CCACHE_DIR"	# cold again
	timed "$work/modules.time.tmp" kmake -k KBUILD_MODPOST_WARN=1 $(cat "$work/kos") \
		> "$work/kos.log" 2>&1
	echo "$(wc -l < "$work/kos") $(built "$work/kos") $(cat "$work/modules.time.tmp")" > "$work/modules.time"
	rm -f "$work/modules.time.tmp"
fi

python3 - "$work" "$total" "$nmod" "$jobs" "$sample" "$seed" <<'EOF' | tee "$report"
import glob
import math
import sys

work = sys.argv[1]
total, nmod, jobs, sample = map(int, sys.argv[2:6])
seed = sys.argv[6]
def floats(name):
    return [list(map(float, l.split())) for l in open(f"{work}/{name}") if l.strip()]
rows = [floats(f[len(work) + 1:])[0] for f in sorted(glob.glob(f"{work}/batch.??.time"))]
prep_wall, prep_cpu = floats("prepare.time")[0]
fixed = floats("fixed.time")[0][0]
mods, mods_built, mods_wall, _ = floats("modules.time")[0]
files = sum(r[0] for r in rows)
built = sum(r[1] for r in rows)
# wall seconds per object in each batch, the fixed cost of a make taken off
rates = [(r[2] - fixed) / r[0] for r in rows]
cpu = [r[3] / r[0] for r in rows]
k = len(rates)
mean = sum(rates) / k
sd = math.sqrt(sum((x - mean) ** 2 for x in rates) / (k - 1)) if k > 1 else float("nan")
se = sd / math.sqrt(k)
compile_s = total * mean + fixed
per_mod = (mods_wall - fixed) / mods if mods else float("nan")
link_s = nmod * per_mod
print(f"full Debian configuration, make -j{jobs}, ccache empty; sample of {sample} (seed {seed})")
print(f"make prepare: {prep_wall:.0f} s wall, {prep_cpu:.0f} s CPU")
print(f"objects make vmlinux modules compiles: {total}; modules it links: {nmod}")
print(f"sample: {int(files)} objects in {k} batches, {int(built)} built "
      f"({int(files - built)} not made as single targets)")
print(f"fixed cost of a make run: {fixed:.1f} s")
for r, x in zip(rows, rates):
    print(f"  batch: {int(r[0])} objects, {r[2]:.0f} s wall, {r[3]:.0f} s CPU, {x:.3f} s/object")
print(f"wall per object: {mean:.3f} s (standard error {se:.3f}); "
      f"CPU per object: {sum(cpu) / k:.3f} s")
print(f"modules linked: {int(mods_built)} of {int(mods)} in {mods_wall:.0f} s, "
      f"{per_mod:.3f} s each")
print(f"estimate: prepare {prep_wall:.0f} s + compiling {compile_s / 60:.0f} min "
      f"(+/- {total * se / 60:.0f} min, one standard error) + modules {link_s / 60:.0f} min "
      f"= {(prep_wall + compile_s + link_s) / 60:.0f} min, without vmlinux's link and the packaging")
EOF
