#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# event_bench.sh - PMIx event latency and rate under srun --mpi=slurmix on
# the virtual cluster (contrib/vcluster.sh): bench/event_bench.c, ROUNDS
# times (default 5), as -N NODES (default 4) -n 2*NODES --ntasks-per-node=2.
#
#   bench/event_bench.sh [-r ROUNDS] [-b BUILDDIR] [-N NODES] [-o OUTDIR]
#          [--state-dir DIR] [--port-base P] [-- event_bench args]
#
# Prints one Markdown table: medians over the rounds of the one-way time
# of an event to a process on the same node and on another node (median
# and 99th percentile of 1000 ping-pongs each) and of the events per second
# one process sends to another node. Slurm's own --mpi=pmix delivers no
# event across nodes, so there is nothing to set beside it; the same-node
# figure of OpenPMIx is bench/local_bench.sh's business.
# The cluster (STATE_DIR default /var/lib/slurmix-ebench, port base
# default 22917) is started with BUILDDIR/.libs as plugin directory and
# stopped at the end whatever happens. OUTDIR (default
# BUILDDIR/bench/events-<date>) keeps every run's output.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/bench_lib.sh"

ROUNDS=5
BUILD=${SLURMIX_BUILDDIR:-.}
NODES=4
OUTDIR=""
STATE=/var/lib/slurmix-ebench
PORT=22917
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-N) NODES=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	--state-dir) STATE=$2; shift 2 ;;
	--port-base) PORT=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
ARGS=("$@")
vc=$repo/contrib/vcluster.sh
BUILD=$(cd "$BUILD" && pwd) || exit 2
OUTDIR=${OUTDIR:-$BUILD/bench/events-$(date +%Y%m%d-%H%M%S)}
bench_prepare event_bench.sh

trap '"$vc" stop --state-dir "$STATE" >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n "$NODES" -w 4 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" \
	--port-base "$PORT" --mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
eval "$("$vc" env --state-dir "$STATE")"
bin=$STATE/bin
mkdir -p "$bin" && cd "$bin" || exit 1
cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/event_bench" "$here/event_bench.c" \
	-L"$BUILD/.libs" -lpmix -ldl -pthread || { echo "cannot build event_bench" >&2; exit 1; }

group="events, $NODES node(s) x 2 tasks"
echo "# srun --mpi=slurmix -N$NODES -n$((2 * NODES)) --ntasks-per-node=2 event_bench ${ARGS[*]};" \
	"$ROUNDS rounds; output in $OUTDIR" | tee "$OUTDIR/commands.txt"
for r in $(seq "$ROUNDS"); do
	out=$OUTDIR/events.$r.out
	timeout 180 srun --mpi=slurmix -N"$NODES" -n$((2 * NODES)) --ntasks-per-node=2 \
		"$bin/event_bench" "${ARGS[@]}" >"$out" 2>&1
	awk -v g="$group" '$1 == "metric" && NF == 3 { printf "%s\tslurmix\t%s\t%s\n", g, $2, $3 }' \
		"$out" >>"$OUTDIR/results.tsv"
	echo "  round $r/$ROUNDS"
done
{
	echo "| metric | slurmix median |"
	echo "|---|---:|"
	awk -F'\t' '{ v[$3] = v[$3] " " $4 } END {
	for (m in v) {
		n = split(v[m], a, " "); k = 0
		for (i = 1; i <= n; i++) if (a[i] != "failed") b[++k] = a[i]
		if (!k) { print "| " m " | failed |"; continue }
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		printf "| %s | %s%s |\n", m, b[int((k + 1) / 2)], k < n ? " (" k "/" n ")" : ""
	}
}' "$OUTDIR/results.tsv" | sort
} | tee "$OUTDIR/table.md"
