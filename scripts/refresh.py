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

With XENPMU_KERNEL=<the newest kernel> (scripts/lib.sh) it works on that
kernel's tree, build/linux-<version>, whose files of ours are the
repository's only as far as that kernel lets them be: nothing is copied
back, and each commit's patch is its diff against its parent with the
line's files of ours as the repository has them.  It is written to
patches/<version>/, or removed from there when it is the patches/ one.
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.environ.get('XENPMU_TOP') or \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def releases(name):
    here = os.path.dirname(os.path.abspath(__file__))
    for line in open(os.path.join(here, 'releases.sh')):
        m = re.match(r'%s=(\S+)' % name, line)
        if m:
            return m.group(1)
    return None


KERNEL = os.environ.get('XENPMU_KERNEL') or '6.12'
if KERNEL == '6.12':
    TREE, KPATCHES = os.path.join(TOP, 'build', 'linux'), None
elif KERNEL == releases('linux_new'):
    TREE, KPATCHES = os.path.join(TOP, 'build', 'linux-' + KERNEL), KERNEL
else:
    sys.exit('xenpmu: error: XENPMU_KERNEL=%s: the series is kept for 6.12 and %s'
             % (KERNEL, releases('linux_new')))
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


def overlay_files(entries, ours):
    """The files of ours that the .overlay entries of a line carry."""
    files = []
    for e in entries:
        if not e.endswith('.overlay'):
            continue
        text = open(os.path.join(TOP, 'patches', e)).read()
        for p in text.split('\n---\n', 1)[1].split():
            files += [o for o in ours if o == p or o.startswith(p + '/')]
    return files


def kernel_patch(commit, entries, ours, message, shared):
    """The patch of a commit of the newest kernel's tree: its diff against
    its parent with the line's files of ours as the repository has them,
    with MESSAGE (the commit's) when it is not None; None when the shared
    patch (patches/, 6.12's) makes the same commit there."""
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(TREE, '.git', 'xenpmu-refresh-index'))

    def gite(*args, stdin=None):
        return subprocess.run(['git'] + list(args), cwd=TREE, check=True, env=env,
                              input=stdin, capture_output=True, text=True).stdout.strip()

    gite('read-tree', commit + '^')
    for o in overlay_files(entries, ours):
        blob = gite('hash-object', '-w', os.path.join(TOP, o))
        mode = '100755' if os.access(os.path.join(TOP, o), os.X_OK) else '100644'
        gite('update-index', '--add', '--cacheinfo', '%s,%s,%s' % (mode, blob, o))
    base = gite('commit-tree', gite('write-tree'), '-p', commit + '^', stdin='base')
    same = False
    if os.path.exists(shared) and (message is None or mail_message(shared) == message):
        try:
            gite('apply', '--cached', shared)
            same = gite('write-tree') == git('rev-parse', commit + '^{tree}').strip()
        except subprocess.CalledProcessError:
            pass
    os.unlink(env['GIT_INDEX_FILE'])
    if same:
        return None
    if message is None:
        return git('diff', base, commit)
    # the commit's author, not the tree's user
    name, email, date = git('log', '-1', '--format=%an%n%ae%n%ad', '--date=raw',
                            commit).splitlines()
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=date)
    step = gite('commit-tree', commit + '^{tree}', '-p', base, stdin=message)
    text = git('format-patch', '-1', '--stdout', '--no-signature', '--zero-commit',
               '-k', step)
    return re.sub(r'^Date: .*\n', '', text, count=1, flags=re.M)


def mail_message(path):
    """The commit message a format-patch file or an .overlay entry gives
    (git mailinfo stops at its '---'), or None."""
    with tempfile.NamedTemporaryFile('r') as msg:
        info = subprocess.run(['git', 'mailinfo', '-k', msg.name, os.devnull],
                              stdin=open(path), capture_output=True, text=True,
                              cwd=TREE).stdout
        m = re.search(r'^Subject: (.*)$', info, re.M)
        return m and (m.group(1) + '\n\n' + msg.read()).strip()


def main():
    mapfile = os.path.join(TREE, '.git', 'xenpmu-map')
    if not os.path.exists(mapfile):
        die("%s was not assembled: run 'make tree'" % os.path.relpath(TREE, TOP))
    ours = set(git('ls-files', '-co', '--exclude-standard', '--', *ROOTS,
                   cwd=TOP).split())
    recorded = {}
    by_subject = {}
    for line in open(mapfile):
        commit, *entries = line.split()
        recorded[commit] = entries
        by_subject[git('log', '-1', '--format=%s', commit).strip()] = entries

    dirty = [f for f in git('diff', '--name-only', 'HEAD').split()
             if KPATCHES or f not in ours]
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
    for f in [] if KPATCHES else sorted(ours):
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
        if KPATCHES:
            if len(patches) != 1:
                die("commit '%s': its line needs one .patch entry for %s's own patch"
                    % (subject, KERNEL))
            # the commit's message, unless the line's overlay gives it
            message = git('log', '-1', '--format=%B', commit).strip()
            if entries[0] != patches[0] and \
               message == mail_message(os.path.join(TOP, 'patches', entries[0])):
                message = None
            path = os.path.join(TOP, 'patches', KPATCHES, patches[0])
            shared = os.path.join(TOP, 'patches', patches[0])
            text = kernel_patch(commit, entries, ours, message, shared)
            if text is None:
                if os.path.exists(path):
                    os.unlink(path)
                    say('removed ' + os.path.relpath(path, TOP))
                    changed += 1
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                changed += write_if_changed(path, text)
            series.append(' '.join(entries))
            continue
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
    if KPATCHES and series != [l.split('#')[0].strip() for l in open(spath)
                               if l.split('#')[0].strip()]:
        die('the commits of %s are not the lines of patches/series, which both '
            'kernels share: add or drop a commit on 6.12 first' % os.path.relpath(TREE, TOP))
    changed += write_if_changed(spath, ''.join(head) + ''.join(l + '\n' for l in series))
    say('refresh: %d file(s) updated' % changed)
    # build/linux now matches the repository; the next assembly rebuilds
    # the commits from it without touching any file.
    stamp = os.path.join(TREE, '.git', 'xenpmu-stamp')
    if os.path.exists(stamp):
        os.unlink(stamp)


if __name__ == '__main__':
    main()
