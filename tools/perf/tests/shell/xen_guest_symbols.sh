#!/bin/sh
# perf xen report names each guest's kernel functions
# SPDX-License-Identifier: GPL-2.0
#
# A recording made here with kernel samples of d1 and d2 at the same
# address, and a kallsyms copy per guest with functions of its own:
# perf xen report must name each domain's function in that domain's rows
# alone, from --guest-kallsyms and from a --guestmount directory, and
# show addresses without them.  Options naming dom0, a reserved domain, a
# missing file or no domain id must fail with a message that says so,
# and hostile kallsyms files must not crash the report.

shelldir=$(dirname "$0")
# shellcheck source=lib/xen.sh
. "${shelldir}"/lib/xen.sh

xen_scratch_init xen-guest-symbols

# PERF_RECORD_MISC_KERNEL, _GUEST_KERNEL and _GUEST_USER
{
	for _ in 1 2 3; do
		xen_sample 4 1 ffffffff81000180
	done
	for _ in 1 2; do
		xen_sample 4 2 ffffffff81000180
	done
	xen_sample 4 2 ffffffff81000204
	xen_sample 5 1 ffffffff81000180
	xen_sample 1 0 ffffffff81000180
} > "$dir/records"
xen_perf_data "$data" "$dir/records"

for n in one two; do
	cat > "$dir/kallsyms.$n" <<EOT
ffffffff81000000 T _stext
ffffffff81000100 T guest_${n}_kernel_spin
ffffffff81000200 t guest_${n}_idle
ffffffff81000300 T _etext
EOT
done
mkdir -p "$dir/mnt/1/proc" "$dir/mnt/2/proc"
cp "$dir/kallsyms.one" "$dir/mnt/1/proc/kallsyms"
cp "$dir/kallsyms.two" "$dir/mnt/2/proc/kallsyms"

report() {
	perf xen -i "$data" report --stdio -q --sort domain,sym "$@" 2> "$dir/report.err"
}

# check NAME REPORT: each guest's functions in its rows, and nowhere else.
check() {
	grep -Eq '^ +37\.50% +d1 +\[g\] guest_one_kernel_spin *$' "$2" ||
		fail "$1: no d1 row for guest_one_kernel_spin"
	grep -Eq '^ +25\.00% +d2 +\[g\] guest_two_kernel_spin *$' "$2" ||
		fail "$1: no d2 row for guest_two_kernel_spin"
	grep -Eq '^ +12\.50% +d2 +\[g\] guest_two_idle *$' "$2" ||
		fail "$1: no d2 row for guest_two_idle"
	! grep -E ' d1 ' "$2" | grep -q 'guest_two' || fail "$1: d2's function in d1's rows"
	! grep -E ' d2 ' "$2" | grep -q 'guest_one' || fail "$1: d1's function in d2's rows"
	! grep -E ' dom0 ' "$2" | grep -q 'guest_' || fail "$1: a guest's function in dom0's rows"
	grep -Eq ' d1 +\[u\] 0x0*ffffffff81000180' "$2" ||
		fail "$1: d1's user space sample named or missing"
}

if ! report > "$dir/plain.out"; then
	cat "$dir/report.err"
	fail "perf xen report of the recording"
fi
grep -Eq '^ +[0-9.]+% +d1 +\[g\] 0x0*ffffffff81000180 *$' "$dir/plain.out" ||
	fail "without symbols, d1's kernel samples do not show their address"
! grep -q guest_ "$dir/plain.out" || fail "a guest function named without guest symbols"

report --guest-kallsyms 1="$dir/kallsyms.one" --guest-kallsyms d2="$dir/kallsyms.two" \
	> "$dir/kallsyms.out" || fail "perf xen report --guest-kallsyms: $(cat "$dir/report.err")"
check --guest-kallsyms "$dir/kallsyms.out"

report --guestmount "$dir/mnt" > "$dir/mount.out" ||
	fail "perf xen report --guestmount: $(cat "$dir/report.err")"
check --guestmount "$dir/mount.out"

# Options before "report" are perf xen's, and the same.
perf xen -i "$data" --guest-kallsyms 1="$dir/kallsyms.one" report --stdio -q \
	--sort domain,sym 2> /dev/null | grep -Eq ' d1 +\[g\] guest_one_kernel_spin' ||
	fail "perf xen --guest-kallsyms before report"

# refused OPTION MESSAGE: the report fails, and says MESSAGE.
refused() {
	if report "$1" > /dev/null; then
		fail "$1 accepted"
	elif ! grep -q "$2" "$dir/report.err"; then
		fail "$1: $(head -1 "$dir/report.err"), expected '$2'"
	fi
}
refused --guest-kallsyms=0="$dir/kallsyms.one" "dom0's kernel symbols are the host's"
refused --guest-kallsyms=32752="$dir/kallsyms.one" "domain id 32752 is not a guest's"
refused --guest-vmlinux=x1="$dir/kallsyms.one" "'x1' is not a domain id"
refused --guest-kallsyms="$dir/kallsyms.one" "is not DOMID=FILE"
refused --guest-kallsyms=1 "is not DOMID=FILE"
refused --guest-kallsyms=1="$dir/missing" "cannot read d1's kallsyms $dir/missing"
refused --guest-vmlinux=2="$dir" "cannot read d2's vmlinux $dir: Is a directory"
refused --guestmount="$dir/missing" "cannot read the directory $dir/missing"

# A guestmount without the domain's kallsyms: a warning, and addresses.
mkdir "$dir/empty"
perf xen -i "$data" report --stdio --sort domain,sym --guestmount "$dir/empty" \
	2> "$dir/report.err" | grep '%' > "$dir/empty.out" ||
	fail "--guestmount of an empty directory"
grep '%' "$dir/plain.out" > "$dir/plain.rows"
grep -q "Cannot read d1's kernel symbols from $dir/empty/1/proc/kallsyms" "$dir/report.err" ||
	fail "no warning for $dir/empty/1/proc/kallsyms: $(head -1 "$dir/report.err")"
cmp -s "$dir/plain.rows" "$dir/empty.out" ||
	fail "--guestmount of an empty directory named something"

# Hostile files: random bytes, and lines that are nearly kallsyms.
head -c 65536 /dev/urandom > "$dir/random"
{
	echo "ffffffffffffffff T at_the_top"
	echo "0 T at_zero"
	echo "ffffffff81000100 T in_no_module	[no_such_module]"
	echo "ffffffff81000150 T unterminated	["
	echo "ffffffff81000160"
	echo "zzzz T not_hex"
	printf 'ffffffff81000170 T %0800d\n' 0
	printf 'ffffffff81000180 T no_newline'
} > "$dir/hostile"
for f in random hostile; do
	report --guest-kallsyms 1="$dir/$f" --guest-vmlinux 1="$dir/$f" > /dev/null ||
		fail "perf xen report with a $f kallsyms: $(tail -1 "$dir/report.err")"
done

exit $err
