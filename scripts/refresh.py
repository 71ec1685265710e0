#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn work done inside build/linux back into the repository.

- Files of ours (the repository's files under the overlay roots) are
  copied back from build/linux's work tree, committed there or not.
- Each commit after pristine maps to its line of patches/series (recorded
  by the assembly, or matched by subject after an amend or rebase).  The
  upstream part of the commit is written back to the line's .patch entry:
  as a whole git format-patch file when that entry gives the commit its
  message, as a bare diff when an .overlay entry does.  A commit with a
  new subject becomes a new .patch line at its place in the series.
- Uncommitted changes to upstream files are refused: commit them first.
"""
import os
import re
import subprocess
import sys

TOP = os.environ.get('XENPMU_TOP') or \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.path.join(TOP, 'build', 'linux')
ROOTS = ['arch', 'include', 'kernel', 'lib', 'drivers', 'tools', 'Documentation']


def git(*args, cwd=TREE):
    return subprocess.run(['git'] + list(args), cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def die(msg):
    sys.exit('xenpmu: error: ' + msg)


def say(msg):
    print('xenpmu: ' + msg, file=sys.stderr)


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return False
    with open(path, 'w') as f:
        f.write(text)
    say('saved ' + os.path.relpath(path, TOP))
    return True


def main():
    mapfile = os.path.join(TREE, '.git', 'xenpmu-map')
    if not os.path.exists(mapfile):
        die("build/linux was not assembled: run 'make tree'")
    ours = set(git('ls-files', '-co', '--exclude-standard', '--', *ROOTS,
                   cwd=TOP).split())
    recorded = {}
    by_subject = {}
    for line in open(mapfile):
        commit, *entries = line.split()
        recorded[commit] = entries
        by_subject[git('log', '-1', '--format=%s', commit).strip()] = entries

    dirty = [f for f in git('diff', '--name-only', 'HEAD').split() if f not in ours]
    if dirty:
        die('uncommitted changes to upstream files: %s; commit them in '
            'build/linux (a new commit becomes a new patch; '
            "'git commit --fixup' and 'git rebase -i --autosquash pristine' "
            'amend one)' % ' '.join(dirty))
    new_files = git('ls-files', '-o', '--exclude-standard').split()
    if new_files:
        say('not saved (new files: add them to the repository and to an '
            '.overlay entry): ' + ' '.join(new_files))

    changed = 0
    for f in sorted(ours):
        src, dst = os.path.join(TREE, f), os.path.join(TOP, f)
        if os.path.exists(src):
            data = open(src, 'rb').read()
            if open(dst, 'rb').read() != data:
                open(dst, 'wb').write(data)
                say('saved ' + f)
                changed += 1

    series = []
    for commit in git('rev-list', '--reverse', 'refs/tags/pristine..HEAD').split():
        subject = git('log', '-1', '--format=%s', commit).strip()
        files = git('diff-tree', '-r', '--no-commit-id', '--name-only', commit).split()
        upstream = [f for f in files if f not in ours]
        entries = list(recorded.get(commit) or by_subject.get(subject) or [])
        if not entries:
            if not upstream:
                die("commit '%s' only changes files of ours: fold it into "
                    'their commit or add an .overlay entry' % subject)
            name = re.sub(r'[^a-z0-9]+', '-', subject.lower()).strip('-')[:60] + '.patch'
            say('new patch ' + name)
            entries = [name]
        patches = [e for e in entries if e.endswith('.patch')]
        if upstream and not patches:
            patches = [re.sub(r'\.overlay$', '.patch', entries[0])]
            entries.append(patches[0])
        if len(patches) > 1 and upstream:
            die("commit '%s' comes from several .patch entries; "
                'cannot split it back' % subject)
        for p in patches:
            path = os.path.join(TOP, 'patches', p)
            if not upstream:
                if os.path.exists(path):
                    os.unlink(path)
                    say('removed patches/' + p)
                entries.remove(p)
                continue
            if entries[0] == p:
                text = git('format-patch', '-1', '--stdout', '--no-signature',
                           '--zero-commit', '-k', commit, '--', *upstream)
                # The date is the assembly's; keep files stable across refreshes.
                text = re.sub(r'^Date: .*\n', '', text, count=1, flags=re.M)
            else:
                text = git('diff', '%s^' % commit, commit, '--', *upstream)
            changed += write_if_changed(path, text)
        series.append(' '.join(entries))

    spath = os.path.join(TOP, 'patches', 'series')
    head = [l for l in open(spath) if l.startswith('#')]
    changed += write_if_changed(spath, ''.join(head) + ''.join(l + '\n' for l in series))
    say('refresh: %d file(s) updated' % changed)
    # build/linux now matches the repository; the next assembly rebuilds
    # the commits from it without touching any file.
    stamp = os.path.join(TREE, '.git', 'xenpmu-stamp')
    if os.path.exists(stamp):
        os.unlink(stamp)


if __name__ == '__main__':
    main()
