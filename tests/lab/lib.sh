# SPDX-License-Identifier: GPL-2.0
# Shared by the lab's dom0 scripts (sourced, not run).

# busy_cmd ITERATIONS: the known loop pinned on every CPU, as one command
# line (for perf record or sh -c)
busy_cmd() {
	cmd=
	cpu=0
	n=$(grep -c ^processor /proc/cpuinfo)
	while [ $cpu -lt "$n" ]; do
		cmd="$cmd taskset -c $cpu spin $1 &"
		cpu=$((cpu + 1))
	done
	echo "$cmd wait"
}
