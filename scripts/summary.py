#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Gather every layer of `make check` into one summary.

usage: summary.py [--tap NAME=FILE]... [--lab NAME]... [--error TEXT]...
                  [--out DIR]

--tap NAME=FILE  a layer that wrote TAP (checkpatch, static, abi, ...)
--lab NAME       a lab run: out/lab-NAME.{status,log,results}, whose
                 results hold parts between XENPMU-BEGIN/XENPMU-END lines

Prints one line per suite and a final "N passed, N failed, N skipped".
Exits 1 when a test failed, a layer produced no results, a lab run timed
out, panicked or did not finish its plan; each cause is named.
"""
import argparse
import os
import re
import sys

RESULT = re.compile(r'^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*?)\s*$')
DIRECTIVE = re.compile(r'\s+#\s*(SKIP|TODO|XFAIL)\b\s*(.*)$', re.I)
ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
PERF_RESULT = re.compile(r'^\s*(\d+(?:\.\d+)?):\s+(.*?)\s*:\s*(Ok\b|FAILED!|Skip\b)(.*)$')

KUNIT_BEGIN = re.compile(r'# Subtest: xen_pmu_')
KUNIT_END = re.compile(r'^(\[[^]]*\] )?(not ok|ok) \d+ xen_pmu_\w+\s*$')

# Each lab plan and the parts of it that must report tests.
PLAN_PARTS = {
    'check': [('kunit', 'ktap'), ('kselftest', 'ktap'), ('perftest', 'perf'),
              ('perftools', 'ktap')],
    'check-pmi': [('kunit', 'ktap'), ('kselftest', 'ktap'), ('perftest', 'perf'),
                  ('perftools', 'ktap'), ('pmi', 'ktap')],
    'pmi': [('kselftest', 'ktap'), ('pmi', 'ktap'), ('perftest', 'perf')],
    'soak': [('soak', 'ktap')],
    'bench': [('bench', 'ktap')],
    'guests': [('kunit', 'ktap'), ('guests', 'ktap')],
    'coverage': [('coverage', 'ktap')],
    'types': [('types', 'ktap')],
    'run': [],
}
EXPECT_XEN = re.compile(r'XENPMU-EXPECT-XEN (\d+) (.*)')
# A guest's console, as a plan prints it: the guest's, not dom0's or Xen's;
# each plan judges its guests by its own results.
GUEST_CONSOLE = re.compile(r'^# \S+ console: ')
PANIC = [
    (re.compile(r'Kernel panic - not syncing:?\s*(.*)'), 'dom0 kernel panic'),
    (re.compile(r'\(XEN\) Panic on CPU \d+'), 'Xen panic'),
    (re.compile(r'\(XEN\) .*Domain 0 crashed'), 'Xen reports dom0 crashed'),
    (re.compile(r'BUG: KASAN: (.*)'), 'KASAN report'),
    (re.compile(r'UBSAN: (.*)'), 'UBSAN report'),
    (re.compile(r'WARNING: possible (recursive|circular) locking'), 'lockdep report'),
    (re.compile(r'BUG: KFENCE: (.*)'), 'KFENCE report'),
    (re.compile(r'watchdog: BUG: soft lockup - (.*)'), 'soft lockup'),
    (re.compile(r'BUG: (.*)'), 'kernel BUG'),
    (re.compile(r'WARNING: CPU: \d+ PID: \d+ at (.*)'), 'kernel WARNING'),
    (re.compile(r'Oops: (.*)'), 'kernel oops'),
    (re.compile(r'rcu: INFO: (rcu_\w+ (self-)?detected (stall|stalls).*)'), 'RCU stall'),
    (re.compile(r'\(XEN\) Xen (WARN|BUG) at (.*)'), 'Xen warning'),
    (re.compile(r'\(XEN\) .*VPMU: (.*)(fail|[Cc]annot)(.*)'), 'Xen vPMU error'),
    (re.compile(r'xen_pmu: (.*)(failed|refused|outside)(.*)'), 'xen_pmu error'),
]


class Suite:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []
        self.problems = []

    def total(self):
        return self.passed + self.failed + self.skipped


def parse_tap(lines, suite):
    """Count the leaf results of (K)TAP: a result line whose subtests were
    already counted is the parent's summary and is not counted again."""
    stack = []          # indents of result lines seen, innermost last
    prefix = []         # names of enclosing subtests, by indent
    plans = []
    for raw in lines:
        line = raw.rstrip('\n')
        m = re.match(r'^(\s*)(?:#\s*)?Subtest:\s*(.*)$', line)
        if m:
            indent = len(m.group(1))
            prefix = [p for p in prefix if p[0] < indent] + [(indent, m.group(2))]
            continue
        m = re.match(r'^(\s*)1\.\.(\d+)', line)
        if m:
            plans.append((len(m.group(1)), int(m.group(2))))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        deeper = [i for i in stack if i > indent]
        stack = [i for i in stack if i <= indent] + [indent]
        if deeper:
            prefix = [p for p in prefix if p[0] < indent]
            continue
        desc = m.group(4)
        d = DIRECTIVE.search(desc)
        directive = d.group(1).upper() if d else ''
        if d:
            desc = desc[:d.start()]
        name = '.'.join([p[1] for p in prefix if p[0] <= indent] + [desc]) if indent else desc
        if directive == 'SKIP':
            suite.skipped += 1
        elif m.group(2) == 'ok' or directive in ('TODO', 'XFAIL'):
            suite.passed += 1
        else:
            suite.failed += 1
            suite.failures.append(name)
    top = [n for i, n in plans if i == 0]
    if top and len(plans) == 1 and suite.total() < top[0]:
        suite.problems.append('plan says %d tests, %d reported' % (top[0], suite.total()))


def parse_perf(lines, suite):
    for line in lines:
        m = PERF_RESULT.match(ANSI.sub('', line))
        if not m:
            continue
        if m.group(3) == 'Ok':
            suite.passed += 1
        elif m.group(3) == 'Skip':
            suite.skipped += 1
        else:
            suite.failed += 1
            suite.failures.append(m.group(2))


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read().splitlines()
    except OSError:
        return None


def parts_of(lines):
    parts = {}
    cur = None
    for line in lines:
        m = re.match(r'^XENPMU-BEGIN (\S+)', line)
        if m:
            cur = m.group(1)
            parts[cur] = {'lines': [], 'rc': None}
            continue
        m = re.match(r'^XENPMU-END (\S+) rc=(\d+)', line)
        if m and cur == m.group(1):
            parts[cur]['rc'] = int(m.group(2))
            cur = None
            continue
        if cur:
            parts[cur]['lines'].append(line)
    return parts


def lab(name, outdir, suites, causes, notes):
    base = os.path.join(outdir, 'lab-' + name)
    status = read(base + '.status')
    if status is None:
        causes.append('lab %s: did not run (no %s.status)' % (name, base))
        return
    st = dict(l.split('=', 1) for l in status if '=' in l)
    log = read(base + '.log') or []
    results = read(base + '.results') or []
    notes.append('lab %s: Xen %s, %s, vpmu=%s, plan %s, %s s, QEMU exit %s' %
                 (name, st.get('xen', '4.17'), st.get('accel'), st.get('vpmu'),
                  st.get('plan'), st.get('seconds'), st.get('rc')))
    if st.get('pmu'):
        notes.append('lab %s: emulated PMU: %s' % (name, st['pmu']))
    if st.get('accel') == 'tcg' and st.get('pmu') in (None, '', 'none'):
        notes.append('lab %s: software-emulated CPU%s: no hardware counters, '
                     'hardware-PMU cases cannot apply and are not counted' %
                     (name, ' (%s)' % st['why'] if st.get('why') else ''))
    for line in read(base + '.qemu') or []:
        if 'KVM internal error' in line:
            causes.append('lab %s: QEMU: %s' % (name, line.strip()))
    rc = st.get('rc', '?')
    if rc in ('124', '137'):
        causes.append('lab %s: timed out after %s s' % (name, st.get('seconds')))
    elif rc != '0':
        causes.append('lab %s: QEMU exited with %s' % (name, rc))
    # A plan that provokes a refusal of Xen's on purpose says so first:
    # "XENPMU-EXPECT-XEN N TEXT" allows N Xen vPMU errors containing TEXT.
    allowed = {}
    for line in results:
        m = EXPECT_XEN.search(line)
        if m:
            allowed[m.group(2).strip()] = allowed.get(m.group(2).strip(), 0) + int(m.group(1))
    in_kunit = False
    for line in log + [r for r in results if not GUEST_CONSOLE.match(r)]:
        if EXPECT_XEN.search(line):
            continue
        # KUnit suites of ours provoke the driver's error messages on
        # purpose (against their model of Xen): those are not the driver's.
        if KUNIT_BEGIN.search(line):
            in_kunit = True
        elif KUNIT_END.search(line):
            in_kunit = False
        for pat, what in PANIC:
            m = pat.search(line)
            if m and in_kunit and what == 'xen_pmu error':
                break
            if m and what == 'Xen vPMU error':
                text = next((t for t, n in allowed.items() if n > 0 and t in line), None)
                if text:
                    allowed[text] -= 1
                    break
            if m:
                causes.append('lab %s: %s: %s' % (name, what, line.strip()[:160]))
                break
    if not log:
        causes.append('lab %s: empty console log: Xen did not start' % name)
    if not any('XENPMU-DONE' in l for l in results + log):
        causes.append('lab %s: dom0 did not finish its plan' % name)
    parts = parts_of(results if any('XENPMU-BEGIN' in l for l in results) else log)
    for part, kind in PLAN_PARTS.get(st.get('plan'), []):
        s = Suite('%s@%s' % (part, name))
        suites.append(s)
        p = parts.get(part)
        if p is None:
            s.problems.append('no output')
            continue
        (parse_tap if kind == 'ktap' else parse_perf)(p['lines'], s)
        if p['rc'] is None:
            s.problems.append('part did not end')
        elif p['rc'] != 0 and not s.failed:
            s.problems.append('exited with %d' % p['rc'])


def summarize(taps, labs, outdir, errors=()):
    suites, causes, notes = [], list(errors), []
    for spec in taps:
        name, path = spec.split('=', 1)
        s = Suite(name)
        suites.append(s)
        lines = read(path)
        if lines is None:
            s.problems.append('no results file %s' % path)
            continue
        parse_tap(lines, s)
    for name in labs:
        lab(name, outdir, suites, causes, notes)
    out = []
    tp = tf = ts = 0
    for s in suites:
        if s.total() == 0 and not s.problems:
            s.problems.append('produced no results')
        line = '%-28s %3d passed, %3d failed, %3d skipped' % (
            s.name + ':', s.passed, s.failed, s.skipped)
        if s.failures:
            line += '  FAILED: ' + ', '.join(s.failures[:8])
        out.append(line)
        for p in s.problems:
            causes.append('%s: %s' % (s.name, p))
        tp, tf, ts = tp + s.passed, tf + s.failed, ts + s.skipped
    out += notes
    for c in causes:
        out.append('error: ' + c)
    # Each cause (a crash, a timeout, a layer with no results) counts as a
    # failure of its own, so the last line never reads "0 failed" then.
    out.append('%d passed, %d failed, %d skipped' % (tp, tf + len(causes), ts))
    return out, 1 if (tf or causes) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tap', action='append', default=[])
    ap.add_argument('--lab', action='append', default=[])
    ap.add_argument('--out', default='out')
    ap.add_argument('--error', action='append', default=[],
                    help='a failure found by the caller (a build step)')
    a = ap.parse_args()
    lines, rc = summarize(a.tap, a.lab, a.out, a.error)
    print('\n'.join(lines))
    return rc


if __name__ == '__main__':
    sys.exit(main())
