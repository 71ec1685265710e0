#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the driver's hypercalls and traps per PMI and per perf
# context-switch operation (read from its own counters by the xen_pmu_cost
# KUnit suite, under the KUnit model of Xen, in the lab's dom0); perf
# report --sort domain against --sort cpu and perf xen split throughput over
# a generated file of $BENCH_SAMPLES (default 1,000,000) samples; and the
# timings of the lab itself.  Prints tables; nothing here is a timed test.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
cd "$top"

t() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc; }

# "CPU-seconds max-RSS-MiB" of one run of a command, its output discarded.
cpu_rss() {
	local f
	f=$(mktemp)
	/usr/bin/time -f '%U %S %M' -o "$f" "$@" >/dev/null 2>&1
	awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$f"
	rm -f "$f"
}

min() { sort -g | head -n1; }

# Instructions one run of a command executes (callgrind), its output discarded.
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p'
}

scripts/deps.sh --bench

noop=$(t make -s lab-images)
touch build/linux/arch/x86/xen/pmu.c
incr=$(t make -s lab-images)
scripts/lab.sh bench check on >/dev/null 2>&1 || true
. <(grep -E '^(seconds|accel)=' out/lab-bench.status)
boot=$(grep -a -m1 'XENPMU-BEGIN environment' out/lab-bench.results >/dev/null && echo "$seconds" || echo "failed")

# perf: the same file reported by domain and by cpu, runs interleaved so
# that a slow spell of this machine hits both; the least of $runs each.
perf=$top/out/perf
bench=$top/out/bench
samples=${BENCH_SAMPLES:-1000000}
runs=7
mkdir -p "$bench"
data=$bench/perf.data
# Made again when the sample count or the generator changes.
stamp="$samples $(md5sum < scripts/gen-perf-data.py)"
if [ ! -s "$data" ] || [ "$(cat "$data.stamp" 2>/dev/null)" != "$stamp" ]; then
	python3 scripts/gen-perf-data.py "$data" "$samples"
	echo "$stamp" > "$data.stamp"
fi
syms=(--kallsyms "$data.kallsyms" --xen-kallsyms "$data.xensyms")
by_domain=("$perf" report -i "$data" --stdio -q --sort domain "${syms[@]}")
by_cpu=("$perf" report -i "$data" --stdio -q --sort cpu "${syms[@]}")
xen_split=("$perf" xen -i "$data" split --prefix "$bench/split")
# A report that names no domain or a split that writes no file is not a figure.
"${by_domain[@]}" 2>/dev/null | grep -qw xen || die "perf report --sort domain failed on $data"
rm -f "$bench"/split.*
"${xen_split[@]}" >/dev/null 2>&1 && [ -s "$bench/split.xen" ] && [ -s "$bench/split.d2" ] ||
	die "perf xen split failed on $data"
dom=() cpu=() spl=()
for _ in $(seq $runs); do
	dom+=("$(cpu_rss "${by_domain[@]}")")
	cpu+=("$(cpu_rss "${by_cpu[@]}")")
	spl+=("$(cpu_rss "${xen_split[@]}")")
done
# Instructions do not vary with the load of this machine as seconds do;
# both runs side by side on its two cores.
instructions "${by_domain[@]}" > "$bench/ir.domain" &
instructions "${by_cpu[@]}" > "$bench/ir.cpu"
wait
dom_ir=$(cat "$bench/ir.domain") cpu_ir=$(cat "$bench/ir.cpu")
[ -n "$dom_ir" ] && [ -n "$cpu_ir" ] || die "callgrind counted nothing"
read -r dom_s dom_m < <(printf '%s\n' "${dom[@]}" | min)
read -r cpu_s cpu_m < <(printf '%s\n' "${cpu[@]}" | min)
read -r spl_s spl_m < <(printf '%s\n' "${spl[@]}" | min)

echo "perf over $samples generated samples (scripts/gen-perf-data.py; seconds: least CPU time of $runs runs):"
printf '%-30s %16s %10s %10s\n' command instructions seconds "RSS MiB"
printf '%-30s %16s %10.2f %10s\n' "perf report --sort domain" "$dom_ir" "$dom_s" "$dom_m"
printf '%-30s %16s %10.2f %10s\n' "perf report --sort cpu" "$cpu_ir" "$cpu_s" "$cpu_m"
printf '%-30s %16s %10.2f %10s\n' "perf xen split" "" "$spl_s" "$spl_m"
printf 'domain/cpu ratio (target <= 1.05): %.3f in instructions, %.3f in seconds\n' \
	"$(echo "${dom_ir//,/} / ${cpu_ir//,/}" | bc -l)" "$(echo "$dom_s / $cpu_s" | bc -l)"
printf 'perf xen split: %.0f samples/s\n' "$(echo "$samples / $spl_s" | bc -l)"
echo

echo "Hypercalls and traps per operation (KUnit suite xen_pmu_cost, a model of Xen 4.17:"
echo "each row is a case that passes only with these figures):"
grep -a -E '^ *(not )?ok [0-9]+ (amd|intel) [a-z_]+( without shadow)?: [0-9]+ hypercalls' \
	out/lab-bench.results | sed -E 's/^ *//; s/^ok [0-9]+ /ok  /'
echo
# The same figures from the real Xen: the driver's statistics over
# perf record -a -e cycles -F 1000 of the loop on every CPU, per vPMU mode,
# on each emulated PMU (tests/lab/pmi.sh, KUnit off).
echo "Hypercalls and traps per PMI and per second, real Xen 4.17 (pmi plan, both CPUs summed):"
printf '%-6s %-5s %8s %8s %7s %10s %10s %10s %10s\n' vendor mode seconds PMIs "PMIs/s" \
	"traps/PMI" "traps/s" "hcalls/PMI" "lvtpc/s"
for v in amd intel; do
	LAB_PMU=$v LAB_DOM0=kunit.enable=0 scripts/lab.sh bench-pmi-$v pmi on >/dev/null 2>&1 || true
	awk -v v=$v '
		/^# (self|hv|all): recorded for/ { secs[$2] = $5 }
		/^# (self|hv|all) cpu[0-9]+: pmis/ {
			m = $2; pmis[m] += $5; traps[m] += $15; lvtpc[m] += $17 }
		END { n = split("self hv all", ms, " ")
			for (i = 1; i <= n; i++) { m = ms[i]; s = secs[m ":"]
				if (!pmis[m] || !s) { printf "%-6s %-5s no figures\n", v, m; continue }
				printf "%-6s %-5s %8.2f %8d %7.0f %10.2f %10.0f %10.3f %10.1f\n", v, m, s,
					pmis[m], pmis[m] / s, traps[m] / pmis[m], traps[m] / s,
					(pmis[m] + lvtpc[m]) / pmis[m], lvtpc[m] / s } }' \
		out/lab-bench-pmi-$v.results
done
echo "(hypercalls: one XENPMU_flush per PMI plus the XENPMU_lvtpc_set calls;"
echo " traps: PMU MSR accesses outside the PMI window (msr_trapped), each one a trap into Xen)"
echo

scripts/bench-drivers.sh
echo
printf '%-44s %10s\n' "measure" "seconds"
printf '%-44s %10.1f\n' "make lab-images, nothing to do" "$noop"
printf '%-44s %10.1f\n' "make lab-images after touching pmu.c" "$incr"
printf '%-44s %10s\n' "lab check run, QEMU start to power-off ($accel)" "$boot"
