#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# iof_bench.sh - what capturing the tasks' output in the step daemons
# costs (docs/iof.md, "Capture in the step daemon"), and how fast a pull
# gets it: srun --mpi=slurmix with capture on (the default) against the
# same job with SLURMIX_IOF=no, on a virtual cluster of 2 nodes.
#
#   bench/iof_bench.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-m MiB]
#
# Metrics per run:
#   wall_ms (stdout)  srun -N2 -n2 ./iof_gen M*1MiB 0 >/dev/null: each task
#                     writes M MiB (default 1024: 1 GiB per node) to
#                     srun's stdout; the whole srun, wall time

#   pull_ms           tests/cluster/pmix_iofpull live M/16 MiB per rank,
#                     -N2 -n3: rank 0 pulls both other ranks' output (one
#                     on each node) and checks every byte; the whole
#                     srun, wall time (capture on only: with it off there
#                     is nothing to pull)
#   stdin_ms          srun -N2 -n2 sha256sum <M/4 MiB file: srun's stdin
#                     into both tasks through the step daemons (on) or
#                     straight (off); the whole srun, wall time
#   push_ms           the same bytes pushed by slurmix-attach --pid
#                     --stdin all into a SLURMIX_STDIN=push step of the
#                     same shape (its stdin /dev/null); from srun's start
#                     to its end, wall time (on only)
# Runs alternate (on, off, on, ...). Prints a Markdown table of medians
# and ratios on/off (bench_table.py); every run's output stays in OUTDIR
# (default BUILDDIR/bench/iof-<date>). Cluster state dir
# $SLURMIX_IBENCH_STATE (default /var/lib/slurmix-ibench), port base
# $SLURMIX_IBENCH_PORT (default 28917), stopped on exit.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
ROUNDS=5
MIB=1024
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	-m) MIB=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-m MiB]" >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
STATE=${SLURMIX_IBENCH_STATE:-/var/lib/slurmix-ibench}
PORT=${SLURMIX_IBENCH_PORT:-28917}
vc=$repo/contrib/vcluster.sh
OUTDIR=${OUTDIR:-$BUILD/bench/iof-$(date +%Y%m%d-%H%M%S)}
source "$here/bench_lib.sh"
bench_prepare iof_bench
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$STATE/bin" "$STATE/jobdirs" || exit 2

stop_cluster() { "$vc" stop --state-dir "$STATE" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM

chmod 755 "$STATE" "$STATE/bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n 2 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" --port-base "$PORT" \
	--mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
cc -std=gnu11 -O2 -o "$STATE/bin/iof_gen" "$repo/tests/cluster/iof_gen.c" || exit 1
head -c $((MIB / 4 * 1048576)) /dev/urandom >"$STATE/bin/in.dat" || exit 1
want_sum=$(sha256sum <"$STATE/bin/in.dat")
cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$STATE/bin/pmix_iofpull" \
	"$repo/tests/cluster/pmix_iofpull.c" -L"$BUILD/.libs" -lpmix -lpthread || exit 1
srun_env=$("$vc" env --state-dir "$STATE") || exit 1
bytes=$((MIB * 1048576))
pbytes=$((bytes / 16))

# run_one IMPL GROUP ROUND CHECK COMMAND: one timed srun in $STATE/bin;
# CHECK (a bash expression over $rc and $out) says whether it counts.
run_one() {
	local impl=$1 group=$2 r=$3 check=$4 out t0 rc wall iof=yes
	shift 4
	[ "$impl" = off ] && iof=no
	out=$OUTDIR/$impl.${group// /_}.$r.out
	rm -f "$STATE"/bin/f.*
	t0=$(now_ms)
	(eval "$srun_env"; export SLURMIX_JOBDIR_BASE=$STATE/jobdirs SLURMIX_IOF=$iof
	 cd "$STATE/bin" && timeout 600 "$@") >"$out" 2>&1
	rc=$?
	wall=$(($(now_ms) - t0))
	if eval "$check"; then
		sample "$group" "$impl" "${group%% *}_ms" "$wall"
	else
		sample "$group" "$impl" "${group%% *}_ms" failed
		show_failure "$group" "$impl" "$out" "exit $rc"
	fi
}

{
	echo "# iof_bench: $ROUNDS rounds, $MIB MiB per task, $(nproc) CPUs, $(date -u +%FT%TZ)"
	echo "on:  srun --mpi=slurmix (SLURMIX_IOF=yes, the default)"
	echo "off: the same with SLURMIX_IOF=no (the tasks keep Slurm's descriptors)"
} | tee "$OUTDIR/commands.txt"
for r in $(seq "$ROUNDS"); do
	for impl in on off; do
		run_one "$impl" "wall (stdout)" "$r" '[ $rc = 0 ]' \
			sh -c "srun --mpi=slurmix -N2 -n2 ./iof_gen $bytes 0 >/dev/null"
		
	done
	run_one on "pull" "$r" '[ $rc = 0 ] && grep -qa "LIVE ok" "$STATE/bin/f.0"' \
		sh -c "srun --mpi=slurmix -N2 -n3 ./pmix_iofpull live $pbytes 1024 >f.0 2>/dev/null"
	for impl in on off; do
		run_one "$impl" "stdin (srun)" "$r" '[ $rc = 0 ] && [ "$(grep -c "^$want_sum\$" "$out")" = 2 ]' \
			sh -c "srun --mpi=slurmix -N2 -n2 sha256sum <in.dat"
	done
	run_one on "push" "$r" '[ $rc = 0 ] && [ "$(cat "$STATE"/bin/f.[01] | grep -c "^$want_sum\$")" = 2 ]' \
		sh -c "SLURMIX_STDIN=push srun --mpi=slurmix -N2 -n2 sh -c 'sha256sum >f.\$SLURM_PROCID' </dev/null &
			P=\$!; for i in \$(seq 200); do [ -e /tmp/pmix.\$(hostname).tool.\$P ] && break; sleep 0.05; done
			$BUILD/slurmix-attach -q --pid \$P --stdin all <in.dat >/dev/null; a=\$?; wait \$P && [ \$a = 0 ]"
done
rm -f "$STATE"/bin/f.* "$STATE/bin/in.dat"
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" on off | tee "$OUTDIR/table.md"
