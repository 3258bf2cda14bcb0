#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# query_bench.sh - PMIx_Query_info(PMIX_TIME_REMAINING) from every rank at
# once (docs/query.md), on a virtual cluster of 4 nodes:
#
#   bench/query_bench.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-n "8 64 128"]
#
# For each rank count N, alternately:
#   slurmix   srun --mpi=slurmix: tests/cluster/pmix_query -f -T (a fence,
#             then every rank asks once);
#   pmix      the same program under Slurm's own --mpi=pmix (OpenPMIx 4.2
#             has no answer: "answered" 0);
#   libslurm  what a rank does without it: bench/slurm_rem.c, each rank
#             calls slurm_get_rem_time itself (srun --mpi=none).
# Metrics: rpcs (slurmctld RPCs of the query: sdiag's REQUEST_JOB_INFO_SINGLE
# plus REQUEST_JOB_END_TIME around the run, minus those of the same srun
# running /bin/true, in one allocation), query_us (the slowest rank's
# query), answered (ranks that got a remaining time), wall_ms (the srun).
# Prints Markdown tables of medians and ratios (bench_table.py); every
# run's output stays in OUTDIR (default BUILDDIR/bench/query-<date>).
# Cluster state dir $SLURMIX_QBENCH_STATE (default /var/lib/slurmix-qbench),
# port base $SLURMIX_QBENCH_PORT (default 33917), stopped on exit.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
ROUNDS=5
COUNTS="8 64 128"
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	-n) COUNTS=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-n COUNTS]" >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
STATE=${SLURMIX_QBENCH_STATE:-/var/lib/slurmix-qbench}
PORT=${SLURMIX_QBENCH_PORT:-33917}
vc=$repo/contrib/vcluster.sh
OUTDIR=${OUTDIR:-$BUILD/bench/query-$(date +%Y%m%d-%H%M%S)}
source "$here/bench_lib.sh"
bench_prepare query_bench
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$STATE/bin" "$STATE/jobdirs" || exit 2
bin=$STATE/bin

stop_cluster() { "$vc" stop --state-dir "$STATE" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM

chmod 755 "$STATE" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n 4 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" --port-base "$PORT" \
	--mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
# OpenPMIx's headers and library, no rpath (as pmix_bench): under
# --mpi=slurmix the plugin's LD_LIBRARY_PATH picks our libpmix.so.2
inc=$(sed -n 's/^openpmix_includedir = //p' "$BUILD/Makefile" 2>/dev/null)
cc -std=gnu11 -O2 -I"${inc:-/usr/lib/x86_64-linux-gnu/pmix2/include}" -o "$bin/pmix_query" \
	"$repo/tests/cluster/pmix_query.c" -lpmix || exit 1
cc -std=gnu11 -O2 -o "$bin/slurm_rem" "$here/slurm_rem.c" -lslurm || exit 1
eval "$("$vc" env --state-dir "$STATE")" || exit 1
unset LD_LIBRARY_PATH
export SLURMIX_JOBDIR_BASE=$STATE/jobdirs
cat >"$bin/one.sh" <<'EOF'
#!/bin/bash
# one.sh MPI N PROGRAM...: the RPCs of a srun running /bin/true, then of
# the program, in this allocation
rpcs() {
	sdiag | awk '$1 == "REQUEST_JOB_INFO_SINGLE" || $1 == "REQUEST_JOB_END_TIME" {
		for (i = 2; i <= NF; i++) if ($i ~ /^count:/) { sub("count:", "", $i); s += $i } }
		END { print s + 0 }'
}
mpi=$1 n=$2
shift 2
srun --mpi="$mpi" -N4 -n4 true
a=$(rpcs); srun --mpi="$mpi" --overcommit -N4 -n"$n" true
b=$(rpcs); t0=$(date +%s%N); srun --mpi="$mpi" --overcommit -N4 -n"$n" "$@"; rc=$?
t1=$(date +%s%N); c=$(rpcs)
echo "rpcs $((c - b - (b - a)))"
echo "wall_ms $(((t1 - t0) / 1000000))"
exit $rc
EOF
chmod 755 "$bin/one.sh"

{
	echo "# query_bench: $ROUNDS rounds, ranks $COUNTS on 4 nodes, $(nproc) CPUs, $(date -u +%FT%TZ)"
	echo "slurmix: salloc -N4 one.sh slurmix N ./pmix_query -f -T -r all pmix.time.remaining"
	echo "pmix: the same with --mpi=pmix (Slurm's mpi/pmix, OpenPMIx 4.2)"
	echo "libslurm: salloc -N4 one.sh none N ./slurm_rem (slurm_get_rem_time in each rank)"
} | tee "$OUTDIR/commands.txt"

# run_one IMPL N: one allocation, one sample of each metric
run_one() {
	local impl=$1 n=$2 out mpi prog g="PMIX_TIME_REMAINING from $2 ranks on 4 nodes" v
	out=$OUTDIR/$impl.$n.$r.out
	case $impl in
	slurmix | pmix) mpi=$impl prog=(./pmix_query -f -T -r all pmix.time.remaining) ;;
	libslurm) mpi=none prog=(./slurm_rem) ;;
	esac
	(cd "$bin" && timeout 300 salloc -N4 -n4 --overcommit -t 30 ./one.sh "$mpi" "$n" "${prog[@]}") \
		>"$out" 2>&1
	v=$(grep -cE '^rank [0-9]+ (pmix.time.remaining=[0-9]|query_us [0-9]+ left [0-9])' "$out")
	sample "$g" "$impl" answered "$v"
	for m in rpcs wall_ms; do
		v=$(sed -n "s/^$m //p" "$out")
		sample "$g" "$impl" "$m" "${v:-failed}"
	done
	v=$(awk '$1 == "rank" && $3 == "query_us" && $4 > m { m = $4 } END { print m + 0 }' "$out")
	sample "$g" "$impl" query_us "$v"
	[ -n "$(sed -n 's/^rpcs //p' "$out")" ] || show_failure "$g" "$impl" "$out" "no result"
}

for n in $COUNTS; do
	for r in $(seq "$ROUNDS"); do
		for impl in slurmix pmix libslurm; do
			run_one "$impl" "$n"
		done
		echo "  $n ranks round $r/$ROUNDS" >&2
	done
done
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix libslurm | tee "$OUTDIR/table.md"
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix pmix | tee -a "$OUTDIR/table.md"
