#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pmi_bench.sh - PMI-2 under srun --mpi=slurmix (server/pmi.c) against
# Slurm's own srun --mpi=pmi2, side by side on a virtual cluster of its own.
#
#   bench/pmi_bench.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]
#
# Two programs, each run alternately under both (slurmix, pmi2, ...):
#   Debian's MPICH (mpicc.mpich) tests/cluster/ompi_hello.c, -N2 -n4:
#     job_ms     the whole srun, wall time
#   bench/pmi2_fence.c (the PMI-2 wire on PMI_FD, no PMI library), -N2 -n4:
#     fence_us             median of 50 empty kvs-fences (rank 0)
#     put_fence_get_us     median of 50 kvs-put + kvs-fence + kvs-get of
#                          the next rank's key (rank 0)
#     job_ms               the whole srun
# STATE dir $SLURMIX_PBENCH_STATE (default /var/lib/slurmix-pbench), port
# base $SLURMIX_PBENCH_PORT (default 32917); the cluster is stopped on exit.
# Prints a Markdown table of medians and ratios slurmix/pmi2
# (bench_table.py); every run's output stays in OUTDIR (default
# BUILDDIR/bench/pmi-<date>).
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
ROUNDS=7
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
STATE=${SLURMIX_PBENCH_STATE:-/var/lib/slurmix-pbench}
PORT=${SLURMIX_PBENCH_PORT:-32917}
vc=$repo/contrib/vcluster.sh
OUTDIR=${OUTDIR:-$BUILD/bench/pmi-$(date +%Y%m%d-%H%M%S)}
source "$here/bench_lib.sh"
bench_prepare pmi_bench
command -v mpicc.mpich >/dev/null || { echo "needs mpich and libmpich-dev" >&2; exit 2; }
OUTDIR=$(cd "$OUTDIR" && pwd)

stop_cluster() { "$vc" stop --state-dir "$STATE" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM

mkdir -p "$STATE/bin" "$STATE/jobdirs" && chmod 755 "$STATE" "$STATE/bin" || exit 2
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n 2 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" \
	--port-base "$PORT" --mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
export TMPDIR=$OUTDIR	# the compilers' scratch files
mpicc.mpich -O2 -o "$STATE/bin/mpich_hello" "$repo/tests/cluster/ompi_hello.c" || exit 1
cc -O2 -o "$STATE/bin/pmi2_fence" "$here/pmi2_fence.c" || exit 1
srun_env=$("$vc" env --state-dir "$STATE") || exit 1

# run_one GROUP IMPL ROUND WANT PROGRAM...: one srun -N2 -n4, its samples.
run_one() {
	local group=$1 impl=$2 r=$3 want=$4 out t0 rc wall m
	shift 4
	out=$OUTDIR/${group// /_}.$impl.$r.out
	t0=$(now_ms)
	(eval "$srun_env"; export SLURMIX_JOBDIR_BASE=$STATE/jobdirs
	 cd "$STATE/bin" && timeout 120 srun --mpi="$impl" -N2 -n4 --ntasks-per-node=2 "$@") \
		>"$out" 2>&1
	rc=$?
	wall=$(($(now_ms) - t0))
	if [ $rc -ne 0 ] || ! grep -qx "$want" "$out"; then
		sample "$group" "$impl" job_ms failed
		show_failure "$group" "$impl" "$out" "exit $rc"
		return 0
	fi
	sample "$group" "$impl" job_ms "$wall"
	for m in fence_us put_fence_get_us; do
		grep -q "^metric pmi2_$m " "$out" &&
			sample "$group" "$impl" "$m" "$(sed -n "s/^metric pmi2_$m //p" "$out")"
	done
}

{
	echo "# pmi_bench: $ROUNDS rounds, $(nproc) CPUs, $(date -u +%FT%TZ)"
	echo "slurmix: srun --mpi=slurmix -N2 -n4 --ntasks-per-node=2 PROGRAM (two-node virtual cluster)"
	echo "pmi2:    srun --mpi=pmi2 -N2 -n4 --ntasks-per-node=2 PROGRAM (Slurm $(eval "$srun_env"; srun --version | cut -d" " -f2))"
} | tee "$OUTDIR/commands.txt"
for r in $(seq "$ROUNDS"); do
	for impl in slurmix pmi2; do
		run_one "MPICH hello" "$impl" "$r" OK ./mpich_hello 4 2
		run_one "PMI-2 fence" "$impl" "$r" OK ./pmi2_fence 50
	done
done
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix pmi2 | tee "$OUTDIR/table.md"
