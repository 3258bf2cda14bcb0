#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# spawn_bench.sh - MPI_Comm_spawn under srun --mpi=slurmix (a new job step,
# docs/dynamic.md §3) against Open MPI's own mpirun (Debian's openmpi-bin,
# PRRTE-less ORTE with OpenPMIx), both on one node.
#
#   bench/spawn_bench.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]
#
# The program is tests/cluster/ompi_spawn.c: P parents call
# MPI_Comm_spawn for N children, exchange a message with each over the
# intercommunicator, disconnect and finish. Configurations P+N: 1+2 (the
# issue's "whole 1+2 job"), 2+2 and 2+8. Metrics per run:
#   spawn_ms  MPI_Comm_spawn as parent rank 0 measures it (MPI_Wtime
#             around the call: the start of the children plus the
#             connect/accept between the two jobs)
#   job_ms    the whole spawning job, wall time of srun / mpirun
# Runs alternate (slurmix, mpirun, slurmix, ...). srun runs on a virtual
# cluster of its own (STATE dir $SLURMIX_SBENCH_STATE, default
# /var/lib/slurmix-sbench; port base $SLURMIX_SBENCH_PORT, default 26917)
# with one node vn1, stopped on exit; mpirun runs on this host with
# --host localhost:32. As root, mpirun needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (set here). Prints a Markdown table of
# medians and ratios slurmix/mpirun (bench_table.py); every run's output
# stays in OUTDIR (default BUILDDIR/bench/spawn-<date>).
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
ROUNDS=5
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
STATE=${SLURMIX_SBENCH_STATE:-/var/lib/slurmix-sbench}
PORT=${SLURMIX_SBENCH_PORT:-26917}
vc=$repo/contrib/vcluster.sh
OUTDIR=${OUTDIR:-$BUILD/bench/spawn-$(date +%Y%m%d-%H%M%S)}
[ "$(id -u)" -eq 0 ] || { echo "needs root (virtual cluster)" >&2; exit 2; }
[ -e "$BUILD/.libs/mpi_slurmix.so" ] || { echo "no $BUILD/.libs/mpi_slurmix.so" >&2; exit 2; }
command -v mpirun >/dev/null && command -v mpicc >/dev/null ||
	{ echo "needs openmpi-bin and libopenmpi-dev" >&2; exit 2; }
mkdir -p "$OUTDIR" "$STATE/bin" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)
: >"$OUTDIR/results.tsv"
source "$here/bench_lib.sh"

stop_cluster() { "$vc" stop --state-dir "$STATE" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM

chmod 755 "$STATE" "$STATE/bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n 1 -c 32 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" \
	--port-base "$PORT" --mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
prog=$STATE/bin/ompi_spawn
mpicc -O2 -o "$prog" "$repo/tests/cluster/ompi_spawn.c" || exit 1
# The cluster's environment, read once: the timed srun runs start no
# helper script (vcluster.sh env) of their own.
srun_env=$("$vc" env --state-dir "$STATE") || exit 1
mkdir -p "$STATE/jobdirs" || exit 1

# run_one IMPL P N ROUND: one spawning job, its samples in results.tsv.
run_one() {
	local impl=$1 p=$2 n=$3 r=$4 cfg="spawn $2+$3" out t0 rc wall
	out=$OUTDIR/$impl.$p+$n.$r.out
	t0=$(now_ms)
	if [ "$impl" = slurmix ]; then
		(eval "$srun_env"; export SLURMIX_JOBDIR_BASE=$STATE/jobdirs
		 cd "$STATE/bin" && timeout 120 srun --mpi=slurmix -N1 -n"$p" ./ompi_spawn single "$n") \
			>"$out" 2>&1
	else
		(cd "$STATE/bin" && env -u SLURM_CONF OMPI_ALLOW_RUN_AS_ROOT=1 \
			OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_if_include=lo \
			OMPI_MCA_oob_tcp_if_include=lo timeout 120 \
			mpirun -np "$p" --host localhost:32 ./ompi_spawn single "$n") >"$out" 2>&1
	fi
	rc=$?
	wall=$(($(now_ms) - t0))
	if [ $rc -eq 0 ] && grep -q "^spawn ok: children=$n " "$out"; then
		sample "$cfg" "$impl" spawn_ms \
			"$(sed -n 's/^spawn ok: .* spawn_time=\([0-9.]*\)$/\1/p' "$out" |
			   awk '{ printf "%.1f", $1 * 1000 }')"
		sample "$cfg" "$impl" job_ms "$wall"
	else
		sample "$cfg" "$impl" spawn_ms failed
		sample "$cfg" "$impl" job_ms failed
		show_failure "$cfg" "$impl" "$out" "exit $rc"
	fi
}

{
	echo "# spawn_bench: $ROUNDS rounds, $(nproc) CPUs, $(date -u +%FT%TZ)"
	echo "slurmix: srun --mpi=slurmix -N1 -nP ./ompi_spawn single N (one-node virtual cluster)"
	echo "mpirun:  mpirun -np P --host localhost:32 ./ompi_spawn single N ($(mpirun --version 2>&1 | head -1))"
} | tee "$OUTDIR/commands.txt"
for cfg in 1+2 2+2 2+8; do
	for r in $(seq "$ROUNDS"); do
		run_one slurmix "${cfg%+*}" "${cfg#*+}" "$r"
		run_one mpirun "${cfg%+*}" "${cfg#*+}" "$r"
	done
done
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix mpirun | tee "$OUTDIR/table.md"
