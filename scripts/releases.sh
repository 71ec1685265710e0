# SPDX-License-Identifier: GPL-2.0
# The releases the project builds on and fetches: every version and pin,
# in one place (sourced by lib.sh).  Changing one here is the whole change;
# each fetch keys its cache on these values.

# The kernel the series applies to: Debian 12's linux-source-6.12 (the
# same 6.12 Debian 13 runs), installed by make deps
linux_tarball=/usr/src/linux-source-6.12.tar.xz

# The newest kernel Debian's archive has, which the series is posted
# against: experimental's linux-source-7.3 (scripts/fetch-linux.sh, never
# installed); 6.12 above is its backport, the kernel of every lab run
linux_new=7.3
linux_new_suite=experimental
linux_new_version=7.3~rc7-1~exp1

# Debian 13's Xen 4.20 for the lab (scripts/fetch-xen.sh); Debian 12's
# 4.17 is the installed xen-hypervisor-4.17-amd64 (scripts/deps.sh)
xen420_suite=trixie
xen420_version=4.20.4+63-g7abfd2bce2-0+deb13u1

# Debian 13's stock cloud kernel, a guest of the plan types
# (scripts/fetch-stock-kernel.sh)
stock_suite=trixie
stock_release=6.12.118+deb13-cloud-amd64
stock_version=6.12.118-1

# The QEMU source our emulated PMU is built on (scripts/build-qemu.sh)
qemu_version=1:7.2+dfsg-7+deb12u18

# The HVM device model (scripts/fetch-toolstack.sh): bookworm keeps only
# its newest qemu-system-xen, so the cache key is a generation to bump
# rather than a pinned version
device_model_key=1
