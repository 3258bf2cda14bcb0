#!/bin/bash
# test_fence.sh - fences and direct modex across nodes with mpi/slurmix on
# the virtual cluster (contrib/vcluster.sh).
#
#   tests/cluster/test_fence.sh            (from the build directory)
#
# Starts its own cluster (state dir $SLURMIX_FENCE_STATE, default
# /var/lib/slurmix-fence-test; port base $SLURMIX_FENCE_PORT, default
# 19917) with the plugin and client library of the build directory
# ($SLURMIX_BUILDDIR, default .), builds the test programs into the state
# dir, then runs:
#   4 nodes, TreeWidth 4: Open MPI hello and allreduce; PMIx fences with and
#     without data, direct modex, fences over a 2-node subset (pmix_modex),
#     block and cyclic layouts; a fence that cannot complete fails after
#     SLURMIX_TIMEOUT; a killed step daemon fails the fence at once;
#     strangers sending garbage or no hello to the daemons are dropped;
#   8 nodes, TreeWidth 2: the same programs over a deeper tree;
# checks that no step directory is left in the nodes' /tmp, stops the
# cluster and prints "N passed, M failed". Exit 77 (skip) without root,
# srun or mpicc.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${SLURMIX_BUILDDIR:-.}" && pwd)
state=${SLURMIX_FENCE_STATE:-/var/lib/slurmix-fence-test}
port=${SLURMIX_FENCE_PORT:-19917}
vc=$repo/contrib/vcluster.sh
bin=$state/bin
pass=0
failn=0

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v srun >/dev/null && command -v mpicc >/dev/null || { echo "SKIP: no srun/mpicc"; exit 77; }
[ -e "$build/.libs/mpi_slurmix.so" ] && [ -e "$build/.libs/libpmix.so.2" ] ||
	{ echo "SKIP: no mpi_slurmix.so/libpmix.so.2 in $build/.libs"; exit 77; }

ok()   { echo "PASS: $*"; pass=$((pass + 1)); }
bad()  { echo "FAIL: $*"; failn=$((failn + 1)); }

cluster() {	# cluster NODES WIDTH
	"$vc" restart -n "$1" -w "$2" --plugin-dir "$build/.libs" \
		--state-dir "$state" --port-base "$port" --mpi-conf "$state/mpi.conf" >/dev/null
}

no_leftovers() {	# no step directory left on any node
	local left
	sleep 0.5
	left=$(ls -d "$state"/nodes/*/tmp/slurmix.* 2>/dev/null)
	[ -z "$left" ] && ok "$1: nothing left in the nodes' /tmp" ||
		bad "$1: left behind: $left"
}

run() {	# run NAME WANT-REGEX SRUN-ARGS...: srun must succeed, print WANT
	local name=$1 want=$2 out t0 t1
	shift 2
	t0=$(date +%s.%N)
	out=$(cd "$bin" && timeout 120 srun --mpi=slurmix "$@" 2>&1)
	local rc=$?
	t1=$(date +%s.%N)
	if [ $rc -eq 0 ] && echo "$out" | grep -qE "$want"; then
		ok "$name ($(printf '%.2f' "$(echo "$t1 - $t0" | bc)") s)"
	else
		echo "$out" | tail -20
		bad "$name (rc $rc)"
	fi
}

# A fence that one rank never joins: every other rank gets an error.
fence_timeout() {	# fence_timeout NODES
	local n=$1 out cnt
	out=$(cd "$bin" && SLURMIX_TIMEOUT=5 timeout 90 srun --mpi=slurmix -N"$n" \
		-n$((2 * n)) --ntasks-per-node=2 ./pmix_fail 2>&1)
	cnt=$(echo "$out" | grep -c "^FENCE_ERROR")
	[ "$cnt" -eq $((2 * n - 1)) ] && ok "unjoinable fence fails on all $cnt ranks" ||
		{ echo "$out" | tail; bad "unjoinable fence: $cnt errors"; }
}

# Kill the step daemon of the last node while the others wait in a fence.
stepd_killed() {
	local out pid uts p cnt
	(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 90 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_fail >"$state/killed.out" 2>&1) &
	pid=$!
	sleep 3
	uts=$(readlink "/proc/$(cat "$state/run/slurmd.vn4.pid")/ns/uts")
	for p in $(pgrep -f 'slurmstepd: \['); do
		[ "$(readlink "/proc/$p/ns/uts" 2>/dev/null)" = "$uts" ] && kill -9 "$p"
	done
	sleep 5
	cnt=$(grep -c "^FENCE_ERROR" "$state/killed.out")
	[ "$cnt" -ge 6 ] && ok "killed step daemon: $cnt ranks failed within 5 s" ||
		{ cat "$state/killed.out"; bad "killed step daemon: $cnt errors after 5 s"; }
	scancel --state=running -u root >/dev/null 2>&1
	wait "$pid" 2>/dev/null
}

# Strangers poke the step daemons' listeners while a job runs: garbage, a
# frame that is not a hello, a HELLO with a malformed body, a FANIN without
# a hello, a connection that says nothing. The job must still succeed.
strangers() {
	local pid ports
	(cd "$bin" && timeout 90 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		bash -c 'sleep 3; exec ./pmix_modex 5' >"$state/strangers.out" 2>&1) &
	pid=$!
	sleep 1.5
	ports=$(ss -ltnp 2>/dev/null | grep slurmstepd | grep -oE '127\.0\.0\.1:[0-9]+' | cut -d: -f2)
	(python3 - $ports <<'PY'
import socket, struct, sys, time
def frame(cmd, body):
    return struct.pack(">IIIHH", 0x534c4d58, len(body), 0, cmd, 0) + body
idle = []
for port in sys.argv[1:]:
    for data in (b"garbage" * 10, frame(10, b"\x01\x02"), frame(1, b"\xff" * 40),
                 frame(1, b""), frame(11, b"")):
        s = socket.create_connection(("127.0.0.1", int(port)))
        s.sendall(data)
        s.close()
    idle.append(socket.create_connection(("127.0.0.1", int(port))))
time.sleep(4)
PY
	) &
	local py=$!
	wait "$pid"
	local rc=$?
	wait "$py"
	local np dropped
	np=$(echo $ports | wc -w)
	dropped=$(cat "$state"/log/slurmd.*.log | grep -c "mpi/slurmix: peer .*dropped")
	if [ $rc -eq 0 ] && grep -qx OK "$state/strangers.out" && [ "$np" -gt 0 ] &&
	   [ "$dropped" -ge $((4 * np)) ]; then
		ok "strangers on $np step daemon ports: $dropped dropped with a log line, job OK"
	else
		cat "$state/strangers.out"
		bad "strangers (rc $rc, ports '$ports', $dropped dropped)"
	fi
}

mkdir -p "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
cluster 4 4 || { echo "FAIL: cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
mpicc -O2 -o "$bin/ompi_hello" "$here/ompi_hello.c" &&
mpicc -O2 -o "$bin/ompi_allreduce" "$here/ompi_allreduce.c" &&
for p in pmix_modex pmix_fail; do
	cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/$p" "$here/$p.c" \
		-L"$build/.libs" -lpmix || exit 1
done || { "$vc" stop --state-dir "$state" >/dev/null; echo "FAIL: build"; exit 1; }

run "ompi_hello -N4 -n8" '^OK$' -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4
run "ompi_allreduce -N4 -n8" '^OK$' -N4 -n8 --ntasks-per-node=2 ./ompi_allreduce 20
run "pmix_modex -N4 -n8 block" '^OK$' -N4 -n8 --ntasks-per-node=2 ./pmix_modex 10
run "pmix_modex -N4 -n8 cyclic" '^OK$' -N4 -n8 -m cyclic ./pmix_modex 10
run "pmix_modex -N3 -n7 uneven" '^OK$' -N3 -n7 ./pmix_modex 4
fence_timeout 4
strangers
no_leftovers "4 nodes"
stepd_killed

cluster 8 2 || { echo "FAIL: cannot start 8 nodes"; exit 1; }
run "ompi_hello -N8 -n16 TreeWidth=2" '^OK$' -N8 -n16 --ntasks-per-node=2 ./ompi_hello 16 8
run "ompi_allreduce -N8 -n16 TreeWidth=2" '^OK$' -N8 -n16 --ntasks-per-node=2 ./ompi_allreduce 20
run "pmix_modex -N8 -n16 cyclic TreeWidth=2" '^OK$' -N8 -n16 -m cyclic ./pmix_modex 10
run "pmix_modex -N5 -n5 TreeWidth=2" '^OK$' -N5 -n5 ./pmix_modex 10
no_leftovers "8 nodes"

"$vc" stop --state-dir "$state" >/dev/null
echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
