#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of the check summary (scripts/summary.py): canned lab runs,
good and broken, must give the right counts, exit code and named cause.
Prints TAP."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'scripts'))
import summary  # noqa: E402

STATUS = 'rc=%s\nseconds=12\naccel=tcg\nplan=check\nvpmu=on\n'
KUNIT_OK = '''KTAP version 1
# Subtest: xen_pmu_abi
1..2
    ok 1 xen_pmu_abi_mode_get
    ok 2 xen_pmu_abi_feature_get
ok 1 xen_pmu_abi
'''
KSFT_OK = '''TAP version 13
1..2
# Starting 2 tests from 1 test cases.
ok 1 global.hypervisor_is_xen
ok 2 global.pmu_mode_matches_boot
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
'''
PERF_OK = ''' 1: Sample parsing                        : Ok
 2: Parse event definition strings        :
 2.1: Test event parsing                  : Ok
 2.2: Test parsing of PMU event aliases   : Skip (no PMU)
'''
LOG = '(XEN) Xen version 4.17.7\n[    0.000000] Linux version 6.12.118-xenpmu\n'


def part(name, body, rc=0):
    return 'XENPMU-BEGIN %s\n%sXENPMU-END %s rc=%d\n' % (name, body, name, rc)


PERFTOOLS_OK = '1..1\nok 1 - perf report --sort domain shows dom0\n'


def results(kunit=KUNIT_OK, ksft=KSFT_OK, perf=PERF_OK, done=True, ksft_rc=0,
            perftools=PERFTOOLS_OK):
    r = part('environment', 'kernel: 6.12.118-xenpmu\n')
    if kunit is not None:
        r += part('kunit', kunit)
    if ksft is not None:
        r += part('kselftest', ksft, ksft_rc)
    if perf is not None:
        r += part('perftest', perf)
    if perftools is not None:
        r += part('perftools', perftools)
    return r + ('XENPMU-DONE\n' if done else '')


PMI_STATUS = 'rc=%s\nseconds=60\naccel=tcg\nplan=pmi\nvpmu=on\npmu=amd\n'
PMI_OK = '1..2\nok 1 - x86 perf found the hardware PMU\nok 2 - self: every CPU takes PMIs\n'


def pmi_results(pmi=PMI_OK):
    r = part('environment', 'kernel: 6.12.118-xenpmu\n')
    r += part('kselftest', KSFT_OK)
    if pmi is not None:
        r += part('pmi', pmi)
    r += part('perftest', PERF_OK)
    return r + 'XENPMU-DONE\n'


GUEST_STATUS = 'rc=%s\nseconds=90\naccel=tcg\nplan=guests\nvpmu=on\npmu=amd\n'
GUEST_EXPECT = ('XENPMU-EXPECT-XEN 1 Cannot change mode while active VPMUs exist\n'
                '1..1\nok 1 - perf xen record refuses cleanly\n')


def guest_results(body):
    return (part('environment', 'x\n') + part('kunit', KUNIT_OK) + part('guests', body) +
            'XENPMU-DONE\n')


# name, files (suffix -> text), expected exit code, expected text
CASES = [
    ('real-PMI run passes', {'status': PMI_STATUS % 0, 'log': LOG, 'results': pmi_results()},
     0, ['pmi@t:', '6 passed, 0 failed, 1 skipped', 'emulated PMU: amd']),
    ('real-PMI run without its pmi part fails', {
        'status': PMI_STATUS % 0, 'log': LOG, 'results': pmi_results(pmi=None)},
     1, ['pmi@t: no output']),
    ('a CPU without PMIs fails', {
        'status': PMI_STATUS % 0, 'log': LOG,
        'results': pmi_results(pmi=PMI_OK.replace('ok 2', 'not ok 2'))},
     1, ['self: every CPU takes PMIs']),
    ('Xen warning fails', {
        'status': PMI_STATUS % 0,
        'log': LOG + '(XEN) Xen WARN at vpmu.c:123\n', 'results': pmi_results()},
     1, ['Xen warning']),
    ('driver errors a KUnit case provokes do not fail', {
        'status': STATUS % 0,
        'log': LOG + '[    4.0]     # Subtest: xen_pmu_window\n'
               '[    4.1] xen_pmu: CPU0: XENPMU_flush failed (-22); this CPU gets no more PMIs\n'
               '[    4.2] ok 5 xen_pmu_window\n',
        'results': results()},
     0, ['7 passed, 0 failed, 1 skipped']),
    ('an RCU stall fails', {
        'status': PMI_STATUS % 0,
        'log': LOG + '[   39.0] rcu: INFO: rcu_sched self-detected stall on CPU\n',
        'results': pmi_results()},
     1, ['RCU stall']),
    ('refused flush fails', {
        'status': PMI_STATUS % 0,
        'log': LOG + '[    3.0] xen_pmu: CPU1: XENPMU_flush failed (-22); this CPU gets no more PMIs\n',
        'results': pmi_results()},
     1, ['xen_pmu error']),
    ('good run passes', {'status': STATUS % 0, 'log': LOG, 'results': results()},
     0, ['7 passed, 0 failed, 1 skipped']),
    ('failing KUnit case fails', {
        'status': STATUS % 0, 'log': LOG,
        'results': results(kunit=KUNIT_OK.replace('    ok 2', '    not ok 2').replace('\nok 1 xen', '\nnot ok 1 xen'))},
     1, ['FAILED: xen_pmu_abi.xen_pmu_abi_feature_get', '6 passed, 1 failed']),
    ('dom0 panic fails', {
        'status': STATUS % 0,
        'log': LOG + '[    3.1] Kernel panic - not syncing: sysrq triggered crash\n',
        'results': part('environment', 'x\n')},
     1, ['dom0 kernel panic: ', 'dom0 did not finish its plan', 'kunit@t: no output',
         '0 passed, 6 failed']),
    ('Xen panic fails', {
        'status': STATUS % 0, 'log': LOG + '(XEN) Panic on CPU 0:\n', 'results': ''},
     1, ['Xen panic']),
    ('timeout fails', {'status': STATUS % 124, 'log': LOG, 'results': results(done=False)},
     1, ['timed out after 12 s', 'did not finish']),
    ('missing part fails', {'status': STATUS % 0, 'log': LOG, 'results': results(ksft=None)},
     1, ['kselftest@t: no output']),
    ('empty layer fails', {'status': STATUS % 0, 'log': LOG, 'results': results(kunit='')},
     1, ['kunit@t: produced no results']),
    ('truncated TAP fails', {
        'status': STATUS % 0, 'log': LOG,
        'results': results(ksft=KSFT_OK.replace('ok 2 global.pmu_mode_matches_boot\n', ''))},
     1, ['plan says 2 tests, 1 reported']),
    ('non-zero exit without a failed case fails', {
        'status': STATUS % 0, 'log': LOG, 'results': results(ksft_rc=1)},
     1, ['kselftest@t: exited with 1']),
    ('KASAN report fails', {
        'status': STATUS % 0, 'log': LOG + 'BUG: KASAN: slab-out-of-bounds in f\n',
        'results': results()},
     1, ['KASAN report']),
    ('lab that did not run fails', {}, 1, ['lab t: did not run']),
    ('kernel WARNING fails', {
        'status': STATUS % 0,
        'log': LOG + '[    2.0] WARNING: CPU: 1 PID: 1 at arch/x86/xen/pmu.c:42 f+0x1/0x2\n',
        'results': results()},
     1, ['kernel WARNING: ', 'arch/x86/xen/pmu.c:42']),
    ('sleeping in atomic context fails', {
        'status': STATUS % 0,
        'log': LOG + '[    2.0] BUG: sleeping function called from invalid context at mm/slub.c:1\n',
        'results': results()},
     1, ['kernel BUG: ']),
    ('coloured perf test failure fails', {
        'status': STATUS % 0, 'log': LOG,
        'results': results(perf=PERF_OK + '\x1b[m  5: PERF_RECORD_* events  :\x1b[31m FAILED!\n\x1b[m\n')},
     1, ['FAILED: PERF_RECORD_* events']),
    ('KVM emulation failure fails', {
        'status': STATUS % 0, 'log': LOG, 'results': results(),
        'qemu': 'KVM internal error. Suberror: 1\n'},
     1, ['QEMU: KVM internal error']),
    ('an expected Xen refusal does not fail', {
        'status': GUEST_STATUS % 0,
        'log': LOG + '(XEN) d0v1 VPMU: Cannot change mode while active VPMUs exist\n',
        'results': guest_results(GUEST_EXPECT)},
     0, ['guests@t:', '3 passed, 0 failed']),
    ('a second, unexpected, Xen refusal fails', {
        'status': GUEST_STATUS % 0,
        'log': LOG + '(XEN) d0v1 VPMU: Cannot change mode while active VPMUs exist\n' * 2,
        'results': guest_results(GUEST_EXPECT)},
     1, ['Xen vPMU error']),
    ('a Xen refusal nobody expected fails', {
        'status': GUEST_STATUS % 0,
        'log': LOG + '(XEN) d0v1 VPMU: Cannot change mode while active VPMUs exist\n',
        'results': guest_results('1..1\nok 1 - xl list shows Domain-0\n')},
     1, ['Xen vPMU error']),
    ('software emulation is said', {'status': STATUS % 0, 'log': LOG, 'results': results()},
     0, ['software-emulated CPU']),
    ('a failing case of plan types fails', {
        'status': (GUEST_STATUS % 0).replace('plan=guests', 'plan=types'), 'log': LOG,
        'results': part('environment', 'x\n') +
                   part('types', '1..2\nok 1 - p1 created\nnot ok 2 - p1 has no sample\n') +
                   'XENPMU-DONE\n'},
     1, ['types@t:', '1 passed, 1 failed']),
    ("a guest console's panic in the results is not dom0's", {
        'status': GUEST_STATUS % 0, 'log': LOG,
        'results': guest_results('1..1\nok 1 - xl list shows Domain-0\n'
                                 '# p1 console: [ 35.9] Kernel panic - not syncing: Fatal exception\n')},
     0, ['guests@t:', '3 passed, 0 failed']),
    ("a panic in the results that is no guest console's is dom0's", {
        'status': GUEST_STATUS % 0, 'log': LOG,
        'results': guest_results('1..1\nok 1 - xl list shows Domain-0\n'
                                 '[ 35.9] Kernel panic - not syncing: Fatal exception\n')},
     1, ['dom0 kernel panic']),
]


def main():
    print('1..%d' % (len(CASES) + 1))
    n = 0
    for name, files, want_rc, want in CASES:
        n += 1
        with tempfile.TemporaryDirectory() as d:
            for suffix, text in files.items():
                with open(os.path.join(d, 'lab-t.' + suffix), 'w') as f:
                    f.write(text)
            lines, rc = summary.summarize([], ['t'], d)
        text = '\n'.join(lines)
        missing = [w for w in want if w not in text]
        if rc == want_rc and not missing:
            print('ok %d - %s' % (n, name))
        else:
            print('not ok %d - %s # rc=%d (want %d), missing %s' % (n, name, rc, want_rc, missing))
            for l in lines:
                print('#   ' + l)
    # A TAP layer whose file is missing is an error, not a pass.
    n += 1
    lines, rc = summary.summarize(['abi=/nonexistent/abi.tap'], [], '/nonexistent')
    ok = rc == 1 and any('no results file' in l for l in lines)
    print('%s %d - missing TAP file fails' % ('ok' if ok else 'not ok', n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
