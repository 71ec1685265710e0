#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ABI layer: expand tests/abi/fields.h against Xen's public headers (Debian
# 12's libxen-dev, Xen 4.17, and Debian 13's, Xen 4.20, unpacked by
# scripts/fetch-xen.sh) and once against the kernel's own headers, compiled
# with the exact flags kbuild used for arch/x86/xen/pmu_kunit.o, and
# compare every structure size, field offset and size, and constant, for
# each Xen.  Prints TAP.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
kout=${KOUT:-$top/build/kernel}
work=$top/build/abi
mkdir -p "$work"

[ -r /usr/include/xen/pmu.h ] || die "/usr/include/xen/pmu.h missing: run 'make deps' (libxen-dev)"
cmdfile=$kout/arch/x86/xen/.pmu_kunit.o.cmd
[ -r "$cmdfile" ] || die "$cmdfile missing: build the kernel first ('make kernel')"

layout() { grep -o -- '->.*' "$1" | tr -d '"' | sed 's/^->//' | sort; }

xen420=$top/build/xen-4.20/usr/include
[ -r "$xen420/xen/pmu.h" ] || die "$xen420/xen/pmu.h missing: run 'make xen'"
gcc -S -O0 -DXEN_PUBLIC -o "$work/xen.s" "$top/tests/abi/layout.c"
layout "$work/xen.s" > "$work/xen-4.17.txt"
gcc -S -O0 -DXEN_PUBLIC -I "$xen420" -o "$work/xen420.s" "$top/tests/abi/layout.c"
layout "$work/xen420.s" > "$work/xen-4.20.txt"

# Reuse kbuild's command line for a file of ours in arch/x86/xen.
python3 - "$cmdfile" "$top/tests/abi/layout.c" "$work/linux.s" > "$work/cc.sh" <<'PY'
import shlex, sys
cmd = open(sys.argv[1]).read().split(':=', 1)[1].strip()
cmd = cmd.split(' ; ')[0].split('\n')[0]
args = shlex.split(cmd)
keep = []
skip = False
for a in args:
    if skip:
        skip = False
        continue
    if a == '-o':
        skip = True
        continue
    if a in ('-c',) or a.startswith('-Wp,-MMD') or a.endswith('pmu_kunit.c'):
        continue
    keep.append(a)
keep += ['-S', '-o', sys.argv[3], sys.argv[2]]
print(' '.join(shlex.quote(a) for a in keep))
PY
(cd "$kout" && sh "$work/cc.sh")
layout "$work/linux.s" > "$work/linux.txt"

python3 - "$work/linux.txt" "$work/xen-4.17.txt" "$work/xen-4.20.txt" <<'PY'
import os, sys
def load(p):
    d = {}
    for line in open(p):
        name, a, b = line.split()
        d[name] = (int(a), int(b))
    return d
lin = load(sys.argv[1])
rows = []
for path in sys.argv[2:]:
    ver = os.path.basename(path)[len('xen-'):-len('.txt')]
    xen = load(path)
    for n in sorted(set(xen) | set(lin)):
        rows.append((ver, n, xen.get(n), lin.get(n)))
print('1..%d' % len(rows))
for i, (ver, n, x, l) in enumerate(rows, 1):
    if x == l:
        print('ok %d - Xen %s: %s %d %d' % (i, ver, n, x[0], x[1]))
    else:
        print('not ok %d - Xen %s: %s xen=%s linux=%s' % (i, ver, n, x, l))
PY
