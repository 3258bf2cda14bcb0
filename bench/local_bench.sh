#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# local_bench.sh - pmix_bench on this machine without Slurm: our server
# (slurmix-run -n N, our libpmix.so.2 in the tasks) against OpenPMIx 4.2 as
# hosted by Debian's Open MPI (mpirun -n N; its ORTE daemon is an OpenPMIx
# server and the tasks load Debian's libpmix.so.2). The runs alternate
# (slurmix, openpmix, slurmix, ...) so that drift in the machine's load
# hits both alike; the table gives medians over the rounds and the ratio
# slurmix/openpmix (below 1: ours is faster). wall_ms is the launcher's
# whole run (start-up of the launcher and the tasks included). Then, unless
# --no-mem, bench/mem_bench (built if missing) on either library: the
# server's heap per registered process, per connected client and per
# posted key (bench/README.md says why it measures that way).
#
#   bench/local_bench.sh [-n N] [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR]
#                        [--no-mem] [-- pmix_bench options]
#
# BUILDDIR (default $SLURMIX_BUILDDIR or .) holds slurmix-run and
# .libs/libpmix.so.2; bench/pmix_bench is built there if missing.
# OUTDIR (default BUILDDIR/bench/local-<date>) keeps every run's output
# and results.tsv. Exit status 0 if every run succeeded.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"

N=4
ROUNDS=5
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
MEM=1
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) N=$2; shift 2 ;;
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	--no-mem) MEM=0; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd) || exit 2
OUTDIR=${OUTDIR:-$BUILD/bench/local-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUTDIR" || exit 2
: >"$OUTDIR/results.tsv"
BENCH=$(find_pmix_bench "$BUILD") || { echo "cannot build pmix_bench" >&2; exit 1; }
[ -x "$BUILD/slurmix-run" ] || { echo "no $BUILD/slurmix-run" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "no mpirun (openmpi-bin)" >&2; exit 1; }

# Neither side may inherit a library path that points at the other's lib.
unset LD_LIBRARY_PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

SXR=("$BUILD/slurmix-run" -n "$N" -t 120 "$BENCH" "$@")
MPR=(timeout 120 mpirun -n "$N" --oversubscribe --bind-to none "$BENCH" "$@")
group="$N processes, one node"
{
	echo "# bench/local_bench.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname) ($(nproc) CPUs)"
	echo "# slurmix:  ${SXR[*]}"
	echo "# openpmix: ${MPR[*]}"
	echo "# $ROUNDS rounds, alternating; output in $OUTDIR"
} | tee "$OUTDIR/commands.txt"

fails=0
for r in $(seq "$ROUNDS"); do
	out=$OUTDIR/sxr.$r.out
	timed "$out" "${SXR[@]}"
	record "$group" slurmix "$RC" "$out" "$WALL" slurmix
	[ "$RC" -eq 0 ] || fails=$((fails + 1))
	out=$OUTDIR/mpirun.$r.out
	timed "$out" "${MPR[@]}"
	record "$group" openpmix "$RC" "$out" "$WALL" OpenPMIx
	[ "$RC" -eq 0 ] || fails=$((fails + 1))
	echo "round $r/$ROUNDS done" >&2
done

# server memory: the same mem_bench binary on either library (bench/README.md)
mem_round() {	# mem_round IMPL LIBPATH ROUND
	local out=$OUTDIR/mem.$1.$3.out
	LD_LIBRARY_PATH=$2 timeout 120 "$MEMB" >"$out" 2>&1
	RC=$?
	if [ "$RC" -eq 0 ]; then
		awk -v g="$mgroup" -v i="$1" '$1 == "mem" { printf "%s\t%s\t%s\t%s\n", g, i, $2, $3 }' \
			"$out" >>"$OUTDIR/results.tsv"
	else
		sample "$mgroup" "$1" per_posted_key failed
		show_failure "$mgroup" "$1" "$out" "exit $RC"
		fails=$((fails + 1))
	fi
}
MEMB=$BUILD/bench/mem_bench
mgroup="server heap bytes (mem_bench: mallinfo2, 256 registered, 8 clients x 100 keys of 8 B)"
if [ "$MEM" -eq 1 ]; then
	[ -x "$MEMB" ] || make -C "$BUILD" bench/mem_bench >/dev/null 2>&1
	if [ -x "$MEMB" ]; then
		echo "# memory: [LD_LIBRARY_PATH=$BUILD/.libs] $MEMB" | tee -a "$OUTDIR/commands.txt"
		for r in $(seq "$ROUNDS"); do
			mem_round slurmix "$BUILD/.libs" "$r"
			mem_round openpmix "" "$r"
		done
	else
		echo "no $MEMB (make bench/mem_bench): memory figures skipped" >&2
	fi
fi

echo
echo "## slurmix-run vs mpirun (OpenPMIx $(pkg-config --modversion pmix 2>/dev/null))"
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" slurmix openpmix slurmix openpmix |
	tee "$OUTDIR/table.md"
[ "$fails" -eq 0 ]
