#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# side_by_side.sh - the same PMIx benchmark binary under srun --mpi=slurmix
# (our plugin and libpmix.so.2) and srun --mpi=pmix (Slurm's own plugin and
# OpenPMIx 4.2), on the virtual cluster (contrib/vcluster.sh).
#
#   bench/side_by_side.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]
#          [--configs "1x2 4x2 16x2"] [--no-hello] [--running]
#          [--state-dir DIR] [--port-base P] [-- pmix_bench options]
#
# For every configuration NODESxTASKS (tasks per node) it runs pmix_bench
# ROUNDS times (default 5) under each plugin, alternately (slurmix, pmix,
# slurmix, ...): srun --mpi=M -N NODES -n NODES*TASKS --ntasks-per-node=TASKS.
# Then, unless --no-hello, the wall time of an Open MPI hello
# (tests/cluster/ompi_hello.c) with srun -N4 -n8 --ntasks-per-node=2 under
# both, and of --mpi=none /bin/true as the floor, again alternately. It
# prints one Markdown table per configuration: medians over the rounds and
# the ratio slurmix/pmix (below 1: ours is faster). A metric that fails (for
# instance fences across nodes before the plugin supports them) shows as
# "failed"; the script goes on.
#
# Slurm: the one of SLURMIX_VCLUSTER_SLURM (a prefix, e.g. of
# contrib/slurm-from-source.sh; its commands first in PATH), else Debian's.
#
# Cluster: without --running it starts its own (STATE_DIR default
# /var/lib/slurmix-bench, port base default 21917, as many nodes as the
# largest configuration, TreeWidth 4) with BUILDDIR/.libs as plugin
# directory and SlurmixClientLibDir, and stops it at the end whatever
# happens. With --running it uses the cluster of --state-dir as it is
# (it must have been started with --plugin-dir BUILDDIR/.libs).
# BUILDDIR (default $SLURMIX_BUILDDIR or .) must hold .libs/mpi_slurmix.so
# and .libs/libpmix.so.2; bench/pmix_bench is built there if missing.
# OUTDIR (default BUILDDIR/bench/cluster-<date>) keeps every run's output.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/bench_lib.sh"

ROUNDS=5
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
CONFIGS="1x2 4x2 16x2"
HELLO=1
RUNNING=0
STATE=/var/lib/slurmix-bench
PORT=21917
CMDLINE="$0 $*"
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	--configs) CONFIGS=$2; shift 2 ;;
	--no-hello) HELLO=0; shift ;;
	--running) RUNNING=1; shift ;;
	--state-dir) STATE=$2; shift 2 ;;
	--port-base) PORT=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
BENCH_ARGS=("$@")
vc=$repo/contrib/vcluster.sh
if [ -n "${SLURMIX_VCLUSTER_SLURM:-}" ]; then
	export PATH=$SLURMIX_VCLUSTER_SLURM/bin:$SLURMIX_VCLUSTER_SLURM/sbin:$PATH
fi
BUILD=$(cd "$BUILD" && pwd) || exit 2
OUTDIR=${OUTDIR:-$BUILD/bench/cluster-$(date +%Y%m%d-%H%M%S)}
bench_prepare side_by_side.sh
BENCH=$(find_pmix_bench "$BUILD") || { echo "cannot build pmix_bench" >&2; exit 1; }
case $BENCH in /tmp/*) echo "pmix_bench must not live under /tmp" >&2; exit 1 ;; esac

maxnodes=4
for c in $CONFIGS; do [ "${c%x*}" -gt "$maxnodes" ] && maxnodes=${c%x*}; done

# ---- the cluster -------------------------------------------------------
started=0
stop_cluster() {
	[ "$started" -eq 1 ] && "$vc" stop --state-dir "$STATE" >/dev/null 2>&1
	started=0
}
trap 'stop_cluster' EXIT
trap 'exit 130' INT TERM

if [ "$RUNNING" -eq 0 ]; then
	printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
	started=1
	"$vc" restart -n "$maxnodes" -w 4 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" \
		--port-base "$PORT" --mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
		{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
fi
eval "$("$vc" env --state-dir "$STATE")"
unset LD_LIBRARY_PATH	# --mpi=pmix tasks must load Debian's libpmix.so.2
bin=$STATE/bin
mkdir -p "$bin" && cd "$bin" || exit 1

# ---- runs ----------------------------------------------------------------
SRUN=(timeout 120 srun)
{
	echo "# $CMDLINE"
	echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname) ($(nproc) CPUs); cluster $STATE" \
		"($(sinfo -h -o %D 2>/dev/null) nodes, TreeWidth $(scontrol show config 2>/dev/null |
		awk '$1 == "TreeWidth" { print $3 }')); output in $OUTDIR"
	echo "# Slurm: $(slurmd -V 2>/dev/null) ($(command -v srun))"
	echo "# pmix_bench: ${SRUN[*]} --mpi={slurmix,pmix} -N<nodes> -n<nodes*tasks>" \
		"--ntasks-per-node=<tasks> $BENCH -t 20 ${BENCH_ARGS[*]}; $ROUNDS rounds, alternating"
} | tee "$OUTDIR/commands.txt"

bench_config() {	# bench_config NODES TASKS_PER_NODE
	local n=$1 t=$2 r mpi out lib group
	group="pmix_bench, $n node(s) x $t tasks"
	for r in $(seq "$ROUNDS"); do
		for mpi in slurmix pmix; do
			out=$OUTDIR/bench.${n}x$t.$mpi.$r.out
			timed "$out" "${SRUN[@]}" --mpi=$mpi -N"$n" -n$((n * t)) --ntasks-per-node="$t" \
				"$BENCH" -t 20 "${BENCH_ARGS[@]}"
			[ $mpi = slurmix ] && lib=slurmix || lib=OpenPMIx
			record "$group" $mpi "$RC" "$out" "$WALL" "$lib"
		done
		echo "  ${n}x$t round $r/$ROUNDS" >&2
	done
}

hello() {	# Open MPI hello under both plugins, /bin/true as the floor
	local r mpi out floor group="Open MPI hello, srun -N4 -n8 --ntasks-per-node=2 (wall ms)"
	mpicc -O2 -o "$bin/ompi_hello" "$repo/tests/cluster/ompi_hello.c" || return 1
	echo "# hello: ${SRUN[*]} --mpi={slurmix,pmix} -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4;" \
		"floor: --mpi=none ... /bin/true" | tee -a "$OUTDIR/commands.txt"
	for r in $(seq "$ROUNDS"); do
		out=$OUTDIR/true.$r.out
		timed "$out" "${SRUN[@]}" --mpi=none -N4 -n8 --ntasks-per-node=2 /bin/true
		record_wall "$group" "srun --mpi=none /bin/true (floor)" "$RC" "$out" "$WALL"
		floor=$([ "$RC" -eq 0 ] && echo "$WALL")
		for mpi in slurmix pmix; do
			out=$OUTDIR/hello.$mpi.$r.out
			timed "$out" "${SRUN[@]}" --mpi=$mpi -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4
			record_wall "$group" $mpi "$RC" "$out" "$WALL" OK
			if [ "$RC" -eq 0 ] && grep -qx OK "$out" && [ -n "$floor" ]; then
				sample "$group" $mpi above_floor_ms $((WALL - floor))
			else
				sample "$group" $mpi above_floor_ms failed
			fi
		done
		echo "  hello round $r/$ROUNDS" >&2
	done
}

for c in $CONFIGS; do
	bench_config "${c%x*}" "${c#*x}"
done
[ "$HELLO" -eq 1 ] && hello
stop_cluster

echo
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix pmix | tee "$OUTDIR/table.md"
