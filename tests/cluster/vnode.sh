# SPDX-License-Identifier: BSD-3-Clause
# vnode.sh - the nodes of a virtual cluster (contrib/vcluster.sh) as a
# test or benchmark on this machine reaches them (sourced, not run; by
# tests/cluster/common.sh and bench/tool_bench.sh).

# vn_exec STATE K CMD...: CMD in node vnK's mount and UTS namespaces (its
# /tmp, its hostname) of the cluster in state directory STATE, as a
# program on that node sees them.
vn_exec() {
	local pid
	pid=$(cat "$1/run/slurmd.vn$2.pid")
	shift 2
	nsenter --mount="/proc/$pid/ns/mnt" --uts="/proc/$pid/ns/uts" "$@"
}

# wait_file FILE: until FILE exists (10 s at most).
wait_file() {
	local i
	for i in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}
