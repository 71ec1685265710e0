#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ABI layer: expand tests/abi/fields.h once against Xen's public headers
# (libxen-dev) and once against the kernel's own headers, compiled with the
# exact flags kbuild used for arch/x86/xen/pmu_kunit.o, and compare every
# structure size, field offset and size, and constant.  Prints TAP.
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

gcc -S -O0 -DXEN_PUBLIC -o "$work/xen.s" "$top/tests/abi/layout.c"
layout "$work/xen.s" > "$work/xen.txt"

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

python3 - "$work/xen.txt" "$work/linux.txt" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p):
        name, a, b = line.split()
        d[name] = (int(a), int(b))
    return d
xen, lin = load(sys.argv[1]), load(sys.argv[2])
names = sorted(set(xen) | set(lin))
print('1..%d' % len(names))
for i, n in enumerate(names, 1):
    x, l = xen.get(n), lin.get(n)
    if x == l:
        print('ok %d - %s %d %d' % (i, n, x[0], x[1]))
    else:
        print('not ok %d - %s xen=%s linux=%s' % (i, n, x, l))
PY
