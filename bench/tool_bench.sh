#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tool_bench.sh - tools attached to a running step (docs/iof.md, "Tools"),
# on a virtual cluster of 2 nodes:
#
#   bench/tool_bench.sh [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-g GiB]
#
# Groups:
#   attach      PMIx_tool_init (init_us) and a query of the namespaces and
#               the process table (query_us), as tests/cluster/pmix_tool.c
#               times them, through srun (--pid, carried to node 0:
#               impl "srun") against the step daemon of node 1 itself
#               (by namespace, on that node: impl "node"), alternately,
#               ROUNDS x 5 times each on a running 4-rank step (its first
#               attach, which gathers the other node's pids, not counted:
#               first_us);
#   slow reader one task writes GiB GiB (default 10) to srun's stdout
#               (/dev/null); with impl "tool", slurmix-attach --pid reads
#               it through a pipe at 1 MiB/s; with "none", nobody does.
#               stepd_rss_kb and srun_rss_kb are the largest resident
#               sizes seen (every 0.2 s) of node 1's slurmstepd and of
#               srun; wall_ms the srun; tool_mib what the reader got.
# Prints Markdown tables of medians (bench_table.py); every run's output
# stays in OUTDIR (default BUILDDIR/bench/tool-<date>). Cluster state dir
# $SLURMIX_TBENCH_STATE (default /var/lib/slurmix-tbench), port base
# $SLURMIX_TBENCH_PORT (default 31917), stopped on exit.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${SLURMIX_BUILDDIR:-.}
OUTDIR=""
ROUNDS=3
GIB=10
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-b) BUILD=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	-g) GIB=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-b BUILDDIR] [-o OUTDIR] [-g GiB]" >&2; exit 2 ;;
	esac
done
BUILD=$(cd "$BUILD" && pwd)
STATE=${SLURMIX_TBENCH_STATE:-/var/lib/slurmix-tbench}
PORT=${SLURMIX_TBENCH_PORT:-31917}
vc=$repo/contrib/vcluster.sh
OUTDIR=${OUTDIR:-$BUILD/bench/tool-$(date +%Y%m%d-%H%M%S)}
source "$here/bench_lib.sh"
# shellcheck source=tests/cluster/vnode.sh
source "$repo/tests/cluster/vnode.sh"
bench_prepare tool_bench
OUTDIR=$(cd "$OUTDIR" && pwd)
mkdir -p "$STATE/bin" "$STATE/jobdirs" || exit 2
bin=$STATE/bin

stop_cluster() { "$vc" stop --state-dir "$STATE" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM

chmod 755 "$STATE" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$BUILD/.libs" >"$OUTDIR/mpi.conf"
"$vc" restart -n 2 --plugin-dir "$BUILD/.libs" --state-dir "$STATE" --port-base "$PORT" \
	--mpi-conf "$OUTDIR/mpi.conf" >"$OUTDIR/vcluster.out" 2>&1 ||
	{ cat "$OUTDIR/vcluster.out" >&2; echo "cannot start the cluster" >&2; exit 1; }
cc -std=gnu11 -O2 -o "$bin/iof_gen" "$repo/tests/cluster/iof_gen.c" || exit 1
cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/pmix_tool" \
	"$repo/tests/cluster/pmix_tool.c" -L"$BUILD/.libs" -Wl,-rpath,"$BUILD/.libs" -lpmix || exit 1
cat >"$bin/idle.sh" <<'EOF'
#!/bin/sh
sleep "$1"
EOF
chmod 755 "$bin/idle.sh"
eval "$("$vc" env --state-dir "$STATE")" || exit 1
export SLURMIX_JOBDIR_BASE=$STATE/jobdirs
host=$(hostname)

# The slurmstepd of our step on node vnK (not the extern one).
stepd_of() {
	local uts p
	uts=$(readlink "/proc/$(cat "$STATE/run/slurmd.vn$1.pid")/ns/uts")
	for p in $(pgrep -x slurmstepd); do
		[ "$(readlink "/proc/$p/ns/uts" 2>/dev/null)" = "$uts" ] || continue
		grep -q "slurmix" "/proc/$p/maps" 2>/dev/null && echo "$p"
	done | head -1
}

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# tool_sample IMPL OUT: one pmix_tool run's init_ms and query_ms
tool_sample() {
	local i q
	i=$(sed -n 's/^INIT ok ms=[0-9]* us=\([0-9]*\)$/\1/p' "$2")
	q=$(sed -n 's/^QUERY us=\([0-9]*\)$/\1/p' "$2")
	if [ -n "$i" ] && [ -n "$q" ]; then
		sample attach "$1" init_us "$i"
		sample attach "$1" query_us "$q"
	else
		sample attach "$1" init_us failed
		show_failure attach "$1" "$2" "no INIT ok"
	fi
}

{
	echo "# tool_bench: $ROUNDS rounds, $GIB GiB for the slow reader, $(nproc) CPUs, $(date -u +%FT%TZ)"
	echo "attach srun: pmix_tool pid <srun pid> (srun's host; carried to node 0)"
	echo "attach node: pmix_tool nspace <step> in node vn2's namespaces (its stepd)"
	echo "slow reader tool: slurmix-attach --pid <srun pid> | 1 MiB/s reader; none: no tool"
} | tee "$OUTDIR/commands.txt"

for r in $(seq "$ROUNDS"); do
	(cd "$bin" && exec srun --mpi=slurmix -N2 -n4 ./idle.sh 30 >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$host.tool.$P" || { echo "no rendezvous file" >&2; kill "$P"; continue; }
	ns=$(cd "$bin" && ./pmix_tool pid "$P" 2>&1 | tee "$OUTDIR/first.$r.out" |
		sed -n 's/^NAMESPACES \([^,]*\).*/\1/p')
	sample attach srun first_us "$(sed -n 's/^INIT ok ms=[0-9]* us=//p' "$OUTDIR/first.$r.out")"
	vn_exec "$STATE" 2 "$bin/pmix_tool" nspace "$ns" >/dev/null 2>&1 # node 1's first
	for i in 1 2 3 4 5; do
		"$bin/pmix_tool" pid "$P" >"$OUTDIR/srun.$r.$i.out" 2>&1
		tool_sample srun "$OUTDIR/srun.$r.$i.out"
		vn_exec "$STATE" 2 "$bin/pmix_tool" nspace "$ns" >"$OUTDIR/node.$r.$i.out" 2>&1
		tool_sample node "$OUTDIR/node.$r.$i.out"
	done
	scancel "${ns#slurmix.}" >/dev/null 2>&1 || kill "$P"
	wait "$P" 2>/dev/null
done

bytes=$((GIB * 1073741824))
for r in $(seq "$ROUNDS"); do
	for impl in tool none; do
		out=$OUTDIR/slow.$impl.$r
		t0=$(now_ms)
		(cd "$bin" && exec srun --mpi=slurmix -N1 -n1 -w vn1 ./iof_gen "$bytes" 0 >/dev/null 2>"$out.err") &
		P=$!
		wait_file "/tmp/pmix.$host.tool.$P"
		if [ "$impl" = tool ]; then
			"$BUILD/slurmix-attach" -q --pid "$P" 2>"$out.att" | python3 -c '
import sys, time
n, t0 = 0, time.time()
while True:
    b = sys.stdin.buffer.read1(65536)
    if not b:
        break
    n += len(b)
    ahead = n / 1048576.0 - (time.time() - t0)   # 1 MiB/s
    if ahead > 0:
        time.sleep(ahead)
print(n)' >"$out.read" &
			A=$!
		fi
		srss=0 rrss=0
		while kill -0 "$P" 2>/dev/null; do
			s=$(stepd_of 1)
			[ -n "$s" ] && v=$(rss_kb "$s") && [ "${v:-0}" -gt "$srss" ] && srss=$v
			v=$(rss_kb "$P") && [ "${v:-0}" -gt "$rrss" ] && rrss=$v
			sleep 0.2
		done
		wait "$P"
		rc=$?
		wall=$(($(now_ms) - t0))
		[ "$impl" = tool ] && { wait "$A"; sample "slow reader" tool tool_mib \
			$(($(cat "$out.read" 2>/dev/null || echo 0) / 1048576)); }
		if [ "$rc" = 0 ]; then
			sample "slow reader" "$impl" wall_ms "$wall"
			sample "slow reader" "$impl" stepd_rss_kb "$srss"
			sample "slow reader" "$impl" srun_rss_kb "$rrss"
		else
			sample "slow reader" "$impl" wall_ms failed
			show_failure "slow reader" "$impl" "$out.err" "exit $rc"
		fi
	done
done
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" srun node | tee "$OUTDIR/table.md"
python3 "$here/bench_table.py" "$OUTDIR/results.tsv" tool none | tee -a "$OUTDIR/table.md"
