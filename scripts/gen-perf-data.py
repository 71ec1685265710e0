#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a perf.data file of N samples with PERF_SAMPLE_VIRT_ID, for make bench.

usage: gen-perf-data.py OUTPUT [N]

The samples are spread, with a fixed seed, over Xen (hypervisor mode),
dom0's kernel and user space, and the kernels and user space of d1 and
d2, on 4 physical CPUs, like a perf xen record of a busy host whose dom0
has 4 vcpus pinned one to each: the cpu and the domain fields then take
4 values each, so that --sort cpu and --sort domain build histograms of
the same shape and their times compare the keys alone.  Side-band
records (comm, mmap) and a finished-round record every 10,000 samples
are there as perf record writes them.  Also writes OUTPUT.xensyms and
OUTPUT.kallsyms, symbol files for Xen and dom0's kernel, so that reports
resolve names from the files alone and not from the machine they run on.
"""
import random
import struct
import sys

PERF_RECORD_MMAP, PERF_RECORD_COMM, PERF_RECORD_SAMPLE = 1, 3, 9
PERF_RECORD_FINISHED_ROUND = 68
MISC_KERNEL, MISC_USER, MISC_HYPERVISOR = 1, 2, 3
MISC_GUEST_KERNEL, MISC_GUEST_USER = 4, 5

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_CPU = 1 << 0, 1 << 1, 1 << 2, 1 << 7
SAMPLE_PERIOD, SAMPLE_VIRT_ID = 1 << 8, 1 << 25
SAMPLE_TYPE = (SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | SAMPLE_PERIOD |
               SAMPLE_VIRT_ID)

ATTR_SIZE = 136                 # PERF_ATTR_SIZE_VER8
FILE_ATTR_SIZE = ATTR_SIZE + 16  # attr, then the ids section
HEADER_SIZE = 104
HOSTNAME, OSRELEASE, ARCH, NRCPUS = 3, 4, 6, 7

DOMID_XEN = 0x7ff2
XEN_TEXT = 0xffff82d040200000
KERNEL_TEXT = 0xffffffff81000000
NR_SYMS = 2000
SYM_SIZE = 0x100
APP_BASE = 0x400000
NR_PCPUS = 4


def attr():
    a = struct.pack('<IIQQQQQIIQQ', 1, ATTR_SIZE, 0, 4000, SAMPLE_TYPE, 0,
                    0, 0, 0, 0, 0)     # software cpu-clock, freq off, no flags
    return a + bytes(ATTR_SIZE - len(a))


def string_feature(s):
    b = s.encode() + b'\0'
    n = (len(b) + 63) // 64 * 64
    return struct.pack('<I', n) + b + bytes(n - len(b))


def comm(pid, name):
    b = name.encode()[:15] + b'\0'
    b += bytes(16 - len(b))
    return struct.pack('<IHHII', PERF_RECORD_COMM, 0, 8 + 8 + 16, pid, pid) + b


def mmap(pid, start, length, path):
    b = path.encode() + b'\0'
    b += bytes(-len(b) % 8)
    return struct.pack('<IHHIIQQQ', PERF_RECORD_MMAP, MISC_USER, 8 + 32 + len(b),
                       pid, pid, start, length, 0) + b


SAMPLE = struct.Struct('<IHHQIIQIIQIHH')

# (weight, cpumode, domid, ip base, pids)
WHO = [
    (30, MISC_HYPERVISOR, DOMID_XEN, XEN_TEXT, [0]),
    (25, MISC_KERNEL, 0, KERNEL_TEXT, [0, 101, 102]),
    (15, MISC_USER, 0, APP_BASE, [101, 102]),
    (15, MISC_GUEST_KERNEL, 1, KERNEL_TEXT, [0]),
    (5, MISC_GUEST_USER, 1, APP_BASE, [0]),
    (10, MISC_GUEST_KERNEL, 2, KERNEL_TEXT, [0]),
]


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    rnd = random.Random(4017)
    weights = [w[0] for w in WHO]

    data = bytearray()
    data += comm(101, 'bench-a') + comm(102, 'bench-b')
    data += mmap(101, APP_BASE, 0x100000, '/nonexistent/bench-a')
    data += mmap(102, APP_BASE, 0x100000, '/nonexistent/bench-b')
    time = 1000000000
    for i in range(n):
        _, mode, domid, base, pids = rnd.choices(WHO, weights)[0]
        pcpu = rnd.randrange(NR_PCPUS)
        if domid == DOMID_XEN:
            vcpu = 0xffff
        else:
            vcpu = pcpu if domid == 0 else pcpu % 2
        pid = rnd.choice(pids)
        ip = base + rnd.randrange(NR_SYMS * SYM_SIZE if base != APP_BASE else 0x100000)
        time += 250000
        data += SAMPLE.pack(PERF_RECORD_SAMPLE, mode, SAMPLE.size, ip, pid, pid, time,
                            pcpu, 0, 250000, pcpu, domid, vcpu)
        if i % 10000 == 9999:
            data += struct.pack('<IHH', PERF_RECORD_FINISHED_ROUND, 0, 8)

    features = [(HOSTNAME, string_feature('xenpmu-bench')),
                (OSRELEASE, string_feature('6.12.0-xenpmu')),
                (ARCH, string_feature('x86_64')),
                (NRCPUS, struct.pack('<II', NR_PCPUS, NR_PCPUS))]
    attrs_off = HEADER_SIZE
    data_off = attrs_off + FILE_ATTR_SIZE
    feat_off = data_off + len(data)
    table = bytearray()
    body = bytearray()
    pos = feat_off + 16 * len(features)
    for _, f in features:
        table += struct.pack('<QQ', pos + len(body), len(f))
        body += f
    bits = 0
    for bit, _ in features:
        bits |= 1 << bit
    header = b'PERFILE2' + struct.pack('<QQ', HEADER_SIZE, FILE_ATTR_SIZE)
    header += struct.pack('<QQQQQQ', attrs_off, FILE_ATTR_SIZE, data_off, len(data), 0, 0)
    header += struct.pack('<Q', bits) + bytes(24)
    assert len(header) == HEADER_SIZE
    with open(out, 'wb') as f:
        f.write(header)
        f.write(attr() + struct.pack('<QQ', 0, 0))
        f.write(data)
        f.write(table)
        f.write(body)

    for path, base in ((out + '.xensyms', XEN_TEXT), (out + '.kallsyms', KERNEL_TEXT)):
        with open(path, 'w') as f:
            for s in range(NR_SYMS):
                f.write('%016x T bench_fn_%d\n' % (base + s * SYM_SIZE, s))


if __name__ == '__main__':
    main()
