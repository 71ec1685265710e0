# SPDX-License-Identifier: GPL-2.0
#
# xenpmu: Xen PV PMU support for Linux, built on Debian's linux-source-6.12
# and proven against the real Xen 4.17 under QEMU.  See README.md.

SHELL := /bin/bash
S := scripts
O := out
# The newest kernel, which the series is posted against (scripts/releases.sh)
NEW := $(shell sed -n 's/^linux_new=//p' scripts/releases.sh)

.PHONY: all deps tree tree-new kernel perf selftests initramfs xen lab-images guest-images \
	check run run-guests soak series lab-new static abi harness refresh deb deb-estimate debian-dom0 bench qemu qemu-test clean help

all: lab-images

help:
	@echo "make run      build what is missing, boot Xen + our dom0, profile, print the report"
	@echo "make run-guests  the same with two PV guests running: a report per domain"
	@echo "make check    every test layer, one summary ending in 'N passed, N failed'"
	@echo "make series   the change as format-patch series, checkpatch --strict and a build of"
	@echo "             what each patch touches: on the newest kernel ($(NEW), the one posted) in"
	@echo "             out/series-$(NEW) (out/series-build-$(NEW).tap, with its perf's tests), and"
	@echo "             on 6.12, its backport and the lab's kernel, in out/series (out/series-build.tap)"
	@echo "make lab-new  the $(NEW) series' kernel and perf booted as dom0: make check's pmi-amd"
	@echo "             and xen420-check-intel runs (out/new-*.summary)"
	@echo "make refresh  save edits made inside build/linux back into the repository"
	@echo "             (XENPMU_KERNEL=$(NEW): those made inside build/linux-$(NEW))"
	@echo "make deb      Debian packages of our kernel and perf for a Xen host in out/deb (~4.3 h;"
	@echo "             DEB_CONFIG=lab: the lab's kernel, minutes)"
	@echo "make deb-estimate  how long make deb's full build takes here, from a random sample"
	@echo "             of its objects (~17 min on 2 cores): out/deb-estimate.txt"
	@echo "make debian-dom0  the lab kernel's packages installed in a Debian 13 root with Xen 4.20,"
	@echo "             booted as its dom0 under our QEMU and checked"
	@echo "make soak     60 s at the highest sampling rate in all mode with 100 CPU hotplug cycles"
	@echo "make bench    driver costs, perf report and split speed, build and boot timings"
	@echo "make qemu     our QEMU with an emulated PMU for TCG: out/qemu-system-x86_64"
	@echo "make qemu-test  the emulated PMU, natively (no Xen): out/qemu-pmu.tap"

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/assemble.sh

kernel: tree
	@$(S)/build-kernel.sh

perf: tree
	@$(S)/build-perf.sh

selftests: kernel
	@$(S)/build-selftests.sh

initramfs: perf selftests xen
	@$(S)/mkinitramfs.sh

$(O)/xen: /boot/xen-4.17-amd64.gz
	@mkdir -p $(O)
	gunzip -c $< > $@.tmp && mv $@.tmp $@

/boot/xen-4.17-amd64.gz: | deps

# Debian 12's Xen 4.17 (installed by deps), Debian 13's 4.20 and Debian 12's
# toolstack for the guest lab (fetched, never installed)
xen: deps $(O)/xen
	@$(S)/fetch-xen.sh
	@$(S)/fetch-toolstack.sh

lab-images: kernel initramfs xen

# the guest lab's dom0 and domU initramfs (scripts/mkguests.sh)
guest-images: lab-images
	@$(S)/mkguests.sh

# The newest kernel's tree, build/linux-$(NEW)
tree-new: deps
	@$(S)/fetch-linux.sh
	@XENPMU_KERNEL=$(NEW) $(S)/assemble.sh

series: kernel perf tree-new
	@XENPMU_KERNEL=$(NEW) $(S)/series.sh
	@XENPMU_KERNEL=$(NEW) $(S)/series-build.sh
	@$(S)/series.sh
	@$(S)/series-build.sh

# The newest kernel's series booted in the lab's two driver runs
lab-new: series initramfs xen qemu
	@$(S)/lab-new.sh

static: kernel
	@$(S)/static.sh

abi: kernel
	@$(S)/abi-check.sh > $(O)/abi.tap

harness: deps
	@python3 tests/harness/run.py > $(O)/harness.tap

check:
	@$(S)/check.sh

run: lab-images qemu
	@$(S)/run.sh

run-guests: guest-images qemu
	@$(S)/run.sh guests

refresh:
	@python3 $(S)/refresh.py

deb: tree perf
	@$(S)/deb.sh

deb-estimate: tree
	@$(S)/deb-estimate.sh

debian-dom0: tree perf qemu
	@DEB_CONFIG=lab $(S)/deb.sh
	@$(S)/debian-dom0.sh

soak: lab-images qemu
	@LAB_PMU=$${LAB_PMU:-amd} LAB_DOM0=kunit.enable=0 LAB_TIMEOUT=900 $(S)/lab.sh soak soak on; \
		python3 $(S)/summary.py --out $(O) --lab soak

bench: lab-images qemu
	@$(S)/bench.sh

qemu: deps
	@$(S)/build-qemu.sh

qemu-test: qemu kernel perf
	@tests/qemu-pmu/run.sh

clean:
	rm -rf build $(O)
