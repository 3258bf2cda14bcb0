#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_spawn_tests.sh - PMIx_Spawn / MPI_Comm_spawn under srun --mpi=slurmix
# on the virtual cluster (docs/dynamic.md §3). Part of `make check`, beside
# run_cluster_tests.sh and built the same way:
#
#   tests/cluster/run_spawn_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .), SLURMIX_STEST_STATE (state
# dir, default /var/lib/slurmix-stest), SLURMIX_STEST_PORT (port base,
# default 25917), CI (when "true", missing prerequisites fail).
#
# One cluster of 4 nodes (8 CPUs each), stopped on any exit. Prints
# "PASS name (time)" / "FAIL name" per case and "N passed, M failed";
# exits 0, 1 on failures, 77 (skip) when not root or srun/mpicc/the build
# are missing and CI is not "true".
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_STEST_STATE:-/var/lib/slurmix-stest}
port=${SLURMIX_STEST_PORT:-25917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"

spawn_case() { check_case "$@"; }

S="srun --mpi=slurmix"
# files_gone SEC: within SEC seconds no step directory (with its sockets)
# is left on any node and no spawn file in the job directories.
files_gone() {
	local i
	for i in $(seq $(($1 * 4))); do
		[ -z "$(ls -d "$state"/nodes/*/tmp/slurmix.* "$SLURMIX_JOBDIR_BASE"/*/job.*/spawn.* 2>/dev/null)" ] &&
			return 0
		sleep 0.25
	done
	ls -d "$state"/nodes/*/tmp/slurmix.* "$SLURMIX_JOBDIR_BASE"/*/job.*/spawn.* 2>/dev/null
	return 1
}

pmix_cases() {
	spawn_case "PMIx_Spawn 4 children across 2 nodes" \
		'[ $rc = 0 ] && [ "$(count "^CHILD child rank [0-3] of 4 ns slurmix\.[0-9]+\.[0-9]+ spawned 1 parent slurmix\.[0-9]+\.[0-9]+:0 host vn[12] app first$")" = 4 ] &&
		 [ "$(count "host vn1")" = 2 ] && [ "$(count "host vn2")" = 2 ] &&
		 [ "$(count "^SPAWN SUCCESS slurmix")" = 1 ] && [ "$(count "^OK$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn basic 4
	# SlurmixTaskWeight: a spawned step's autogroup weighs its tasks over
	# the parent's on each node (2 over 1 here: nice -3); the parent step
	# keeps the default (nice 0).
	local agnice=-3
	[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] || agnice=0
	spawn_case "task weight: the spawned step weighs its tasks over the parent's" \
		'[ $rc = 0 ] && [ "$(count "^AUTOGROUP child [0-3] nice $agnice$")" = 4 ] &&
		 [ "$(count "^AUTOGROUP parent nice 0$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn basic 4
	# The parent's node list and map reach the child stepds through the
	# environment, which the spawning app can override: a 130000-name list
	# and a broken map must not hurt (stepd finds its node without
	# expanding the list; a bad map means "unknown").
	spawn_case "hostile SLURMIX_PARENT_NODES/MAP in the app's environment" \
		'[ $rc = 0 ] && [ "$(count "^CHILD child rank [01] of 2 .* spawned 1 ")" = 2 ] &&
		 [ "$(count "^SPAWN SUCCESS")" = 1 ] && [ "$(echo "$t < 10" | bc)" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn hostileenv
	# 200 children: the child step's job information is more than srun's
	# 64 KiB frames take, so it stays out of the readiness report (the
	# parent's server fetches it); the spawn still works
	spawn_case "PMIx_Spawn 200 children (job information too big to travel with READY)" \
		'[ $rc = 0 ] && [ "$(count "^CHILD child rank [0-9]+ of 200 ")" = 200 ] && [ "$(count "^OK$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn basic 200
	spawn_case "PMIx_Spawn_nb" \
		'[ $rc = 0 ] && [ "$(count "^CHILD child .* spawned 1 ")" = 3 ] && [ "$(count "^SPAWN_NB SUCCESS")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn nb 3
	spawn_case "nested PMIx_Spawn (grandchildren)" \
		'[ $rc = 0 ] && [ "$(count "^CHILD childspawn .* spawned 1 ")" = 2 ] &&
		 [ "$(count "^CHILD child .* spawned 1 parent slurmix\.[0-9]+\.1:0 ")" = 2 ] &&
		 [ "$(count "^SPAWN SUCCESS")" = 2 ]' \
		$S -N2 -n2 ./pmix_spawn nested 2
	spawn_case "MPMD: two apps, own env" \
		'[ $rc = 0 ] && [ "$(count "^CHILD child rank [01] of 3 .* app first$")" = 2 ] &&
		 [ "$(count "^CHILD child rank 2 of 3 .* app second$")" = 1 ] && ! grep -q "Unable to open" <<<"$out"' \
		$S -N2 -n2 ./pmix_spawn mpmd
	spawn_case "spawned-job information at once, both ways, and after the children ended" \
		'[ $rc = 0 ] && [ "$(count "^PINFO spawned size 2 optional SUCCESS$")" = 1 ] &&
		 [ "$(count "^CINFO parent size 2 optional SUCCESS$")" = 2 ] &&
		 [ "$(count "^PINFO ended size 2 SUCCESS ")" = 1 ] &&
		 [ "$(count "^PINFO rank 1 ended size 2 SUCCESS ")" = 1 ] &&
		 echo "after the end: $(awk "/^PINFO.*ended/ { print \$NF }" <<<"$out" | tr "\n" " ")s"' \
		$S -N2 -n2 ./pmix_spawn info
	# the parent's step daemon on a child's node has ended (its ranks
	# there finished): the child's prefetch of the parent's job
	# information goes to the parent's other node. Fails when the request
	# fails with the first node it asked (tried: NOT-FOUND on that node)
	spawn_case "a child gets its parent's job information where the parent's stepd ended" \
		'[ $rc = 0 ] && [ "$(count "^CINFO parent size 2 optional SUCCESS$")" = 2 ] &&
		 [ "$(count "^SPAWN SUCCESS")" = 1 ] && grep -qx OK <<<"$out"' \
		$S -N2 -n2 ./pmix_spawn infogone
	# (its srun leaves ended.<step> in the job directory: without it the
	# step file is waited for 20 s, as for a step still starting)
	spawn_case "the job information of an ended step nobody kept: NOT_FOUND at once" \
		'[ $rc = 0 ] && grep -qE "^ENDED NOT-FOUND [0-4]\.[0-9]+$" <<<"$out"' \
		salloc -N1 -n1 bash -c "$S -n1 true; $S -n1 ./pmix_spawn ended slurmix.\$SLURM_JOB_ID.0"
	spawn_case "PMIX_NOTIFY_COMPLETION: JOB_END to the parent" \
		'[ $rc = 0 ] && [ "$(count "^JOB_END 1 slurmix\.[0-9]+\.1 code 0$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn notify
	spawn_case "PMIX_NON_PMI: ready once forked (/bin/sleep)" \
		'[ $rc = 0 ] && grep -qE "^SPAWN SUCCESS slurmix\.[0-9]+\.1 0\.[0-9]+$" <<<"$out"' \
		$S -N2 -n2 ./pmix_spawn nonpmi
	spawn_case "PMIX_SET_SESSION_CWD; tasks do not inherit the parent link" \
		'[ $rc = 0 ] && [ "$(count "^CWD /tmp/slurmix\.[0-9]+\.1\.[01]/job$")" = 2 ] &&
		 [ "$(count "^TASKENV parent=.. spawned=..$")" = 2 ]' \
		$S -N2 -n2 ./pmix_spawn cwd
	# each child's rank after its arguments (without the attribute, or
	# with %t not substituted, the last word is "x": tried)
	spawn_case "PMIX_INDEX_ARGV: each child gets its rank as its last argument" \
		'[ $rc = 0 ] && [ "$(count "^ARGV rank ([0-2]) argc 4 last \\1$")" = 3 ]' \
		$S -N2 -n2 ./pmix_spawn indexargv
	spawn_case "missing executable: error, parent continues" \
		'[ $rc = 0 ] && [ "$(count "^SPAWN JOB FAILED TO LAUNCH -")" = 1 ] && [ "$(count "^OK$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn missing
	spawn_case "PMIX_HOST outside the allocation: error" \
		'[ $rc = 0 ] && [ "$(count "^SPAWN JOB FAILED TO MAP -")" = 1 ] && [ "$(count "not in job [0-9]+.s allocation")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn badhost
	spawn_case "unknown required attribute: NOT_SUPPORTED" \
		'[ $rc = 0 ] && [ "$(count "^SPAWN NOT-SUPPORTED -")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn reqd
	spawn_case "PMIX_TIMEOUT=3: children never start, step cancelled" \
		'[ $rc = 0 ] && grep -qE "^SPAWN TIMEOUT - (3|4)\.[0-9]+$" <<<"$out" && [ "$(count "^OK$")" = 1 ]' \
		$S -N2 -n2 ./pmix_spawn timeout 3
	# rank 0 dies (SIGKILL) while its spawn is pending: the other rank's
	# fence fails, the step ends, srun stops the spawn; no step is left
	# (spawn_case), no srun nor file either (no_leftovers, at the end)
	spawn_case "parent killed during PMIx_Spawn: step and spawn cleaned up" \
		'[ $rc != 0 ] && [ "$(count "^KILLING 0$")" = 1 ] && [ "$(count "^(SPAWN|OK)")" = 0 ] &&
		 [ "$(echo "$t < 60" | bc)" = 1 ] && files_gone 15' \
		$S -N2 -n2 ./pmix_spawn killparent
}

# Failures between a spawned step and its parent (tests/cluster/pmix_family.c):
# the event reaches the other step, and a failed parent ends its children
# (docs/events.md, "failures"). The figures: seconds from the failure to
# the event at the other step.
family_cases() {
	spawn_case "child task exits without finalizing: every parent rank gets the event" \
		'[ $rc = 0 ] && [ "$(count "^PARENT [01] OK$")" = 2 ] &&
		 [ "$(count "^GOT PARENT [01] -200 slurmix\.[0-9]+\.[0-9]+:1 ")" = 2 ] &&
		 echo "delay $(echo "$out" | awk "/^GOT PARENT .*:1 / { print \$NF }" | sort -n | tail -1) s"' \
		$S -N2 -n2 ./pmix_family childfail
	spawn_case "parent aborts: the children get the event and end at once" \
		'[ $rc = 9 ] && [ "$(count "^GOT CHILD [01] -8 slurmix\.[0-9]+\.[0-9]+:0 ")" = 2 ] &&
		 [ "$(count "^JOBEND CHILD [01] terminate=1 affected=slurmix\.[0-9]+\.[0-9]+:0$")" = 2 ] &&
		 [ "$(count "ALIVE")" = 0 ] && [ "$(echo "$t < 8" | bc)" = 1 ] &&
		 echo "delay $(echo "$out" | awk "/^GOT CHILD/ { print \$NF }" | sort -n | tail -1) s"' \
		$S -N2 -n2 ./pmix_family parentabort
	spawn_case "parent task killed: the children get the event and end at once" \
		'[ $rc != 0 ] && [ "$(count "^GOT CHILD [01] -402 slurmix\.[0-9]+\.[0-9]+:1 ")" = 2 ] &&
		 [ "$(count "^JOBEND CHILD [01] terminate=1 affected=slurmix\.[0-9]+\.[0-9]+:1$")" = 2 ] &&
		 [ "$(count "ALIVE")" = 0 ] && [ "$(echo "$t < 10" | bc)" = 1 ] &&
		 echo "delay $(echo "$out" | awk "/^GOT CHILD/ { print \$NF }" | sort -n | tail -1) s"' \
		$S -N2 -n2 ./pmix_family parentdeath
	# (the child step runs with srun --kill-on-bad-exit, docs/dynamic.md
	# §3: its other rank ends too, after it got the event)
	spawn_case "PMIx_Abort of a spawned child's rank: the parent step unharmed, both told" \
		'[ $rc = 0 ] && [ "$(count "^ABORTED SUCCESS$")" = 1 ] && [ "$(count "^PARENT [01] OK$")" = 2 ] &&
		 [ "$(count "^GOT PARENT [01] -8 slurmix\.[0-9]+\.[0-9]+:1 ")" = 2 ] &&
		 [ "$(count "^OWN CHILD 0 -8 slurmix\.[0-9]+\.[0-9]+:1$")" = 1 ] &&
		 [ "$(count "SURVIVED")" = 0 ] && [ "$(count "task 1: Aborted")" = 1 ] &&
		 grep -qE "^srun: slurmix: rank 0 \(vn[0-9]+\) called PMIx_Abort\(4\) on rank 1: the parent aborts child 1 \(from slurmix\.[0-9]+\.[0-9]+:0\)" <<<"$out" &&
		 echo "delay $(echo "$out" | awk "/^GOT PARENT .*:1 / { print \$NF }" | sort -n | tail -1) s"' \
		$S -N2 -n2 ./pmix_family abortchild
	spawn_case "parent aborts, PMIX_SPAWN_CHILD_SEP: the children get the event and stay" \
		'[ $rc = 9 ] && [ "$(count "^GOT CHILD [01] -8 ")" = 2 ] &&
		 [ "$(count "^CHILD [01] ALIVE$")" = 2 ] && [ "$(count "^JOBEND")" = 0 ]' \
		$S -N2 -n2 ./pmix_family sep
}

ompi_cases() {
	spawn_case "MPI_Comm_spawn: 2 parents on 2 nodes, 4 children" \
		'[ $rc = 0 ] && grep -qE "^spawn ok: children=4 hosts=vn1,vn1,vn2,vn2 " <<<"$out"' \
		$S -N2 -n2 ./ompi_spawn single 4
	spawn_case "MPI_Comm_spawn_multiple" \
		'[ $rc = 0 ] && grep -qE "^spawn ok: children=4 hosts=vn1,vn1,vn2,vn2 " <<<"$out"' \
		$S -N2 -n2 ./ompi_spawn multiple 4
	spawn_case "MPI_Comm_spawn, parent fills every CPU (-N2 -n16)" \
		'[ $rc = 0 ] && grep -qE "^spawn ok: children=4 " <<<"$out"' \
		$S -N2 -n16 ./ompi_spawn single 4
	spawn_case "MPI_Comm_spawn: a child spawns a grandchild" \
		'[ $rc = 0 ] && grep -qE "^spawn ok: children=4 " <<<"$out" && [ "$(count "^grandchild answered 42$")" = 1 ]' \
		$S -N2 -n2 ./ompi_spawn nested 4
	spawn_case "MPI_Comm_spawn in salloc -N4: children on all 4 nodes" \
		'[ $rc = 0 ] && grep -qE "^spawn ok: children=4 hosts=vn1,vn2,vn3,vn4 " <<<"$out"' \
		salloc -N4 -n8 $S -n2 ./ompi_spawn single 4
}

# Node-local keys of another step (docs/dynamic.md 5): after PMIx_Connect
# each rank sees the other step's PMIX_LOCAL_PEERS of its own node (none
# where that step has no rank) and the other ranks' PMIX_HOSTNAME and
# PMIX_LOCALITY_STRING as they see them themselves, and the other ranks'
# posted data came with the connect (no direct modex) (pmix_dyn xloc). A on
# vn1 (ranks 0,1) and vn2 (2,3), B on vn2 (0,1) and vn3 (2).
xstep_keys() {
	# publish keys of this run only; a first srun settles the job directory
	# (job ids restart with the cluster: two sruns that both find a stale
	# job.<id> at once may end up with different keys)
	local a=A$$ b=B$$
	spawn_case "node-local keys of another step after PMIx_Connect" \
		'[ $rc = 0 ] && [ "$(count "^[AB] xloc [0-9] [34] peers=([0-9,-]+) want=\1 host=ok loc=(ok|none) data=local$")" = 7 ] &&
		 [ "$(count "^A xloc [01] 3 peers=- ")" = 2 ] && [ "$(count "^A xloc [23] 3 peers=0,1 ")" = 2 ] &&
		 [ "$(count "^B xloc [01] 4 peers=2,3 ")" = 2 ] && [ "$(count "^B xloc 2 4 peers=- ")" = 1 ]' \
		salloc -N3 -n12 bash -c "$S --overlap -N1 -n1 true
			$S --overlap -N2 -n4 -w vn1,vn2 ./pmix_dyn all xfind $a $b xloc | sed 's/^/A /' &
			$S --overlap -N2 -n3 -w vn2,vn3 ./pmix_dyn all xfind $b $a xloc | sed 's/^/B /' & wait"
}

# Good key, broken payloads for every spawn request: error replies, srun
# keeps going, and a spawn still works afterwards.
poke_spawn='from poke_agent import *
key = KEY
for cmd, body in ((44, pstr(key) + b"\xff" * 9), (44, pstr(key)), (45, pstr(key) + b"\x00"),
                  (46, pstr(key) + b"\x01\x02"), (47, pstr(key) + b"\x00" * 12),
                  (47, pstr(key) + u32(1) + u32(1) + b"\xde\xad"),
                  (48, pstr(key) + b"\x00" * 4)):
    send(cmd, body)'

broken_requests() {
	spawn_case "broken spawn requests to srun" \
		'[ $rc = 0 ] && [ "$(count "^reply 4[4-8] status -[0-9]+$")" = 7 ] && [ "$(count "^SPAWN SUCCESS")" = 1 ]' \
		$S -N1 -n1 bash -c 'python3 -c "$0"; exec ./pmix_spawn basic 2' "$poke_spawn"
}

# Stale SLURMIX_SPAWN_* in a user's srun environment: a dead parent agent
# only costs a log line; malformed values fail the launch with a message.
stale_env() {
	spawn_case "stale SLURMIX_SPAWN_* in srun's environment" \
		'[ $rc = 0 ] && [ "$(count "^OK$")" = 1 ] && [ "$(count "did not take our")" -ge 1 ]' \
		env SLURMIX_SPAWN_AGENT=1 SLURMIX_SPAWN_ID=5 \
		SLURMIX_SPAWN_KEY=00000000000000000000000000000000 $S -N1 -n1 ./pmix_spawn basic 1
	spawn_case "malformed SLURMIX_SPAWN_* in srun's environment" \
		'[ $rc != 0 ] && [ "$(count "mpi/slurmix: spawn: bad SLURMIX_SPAWN_AGENT")" = 1 ]' \
		env SLURMIX_SPAWN_AGENT=1 SLURMIX_SPAWN_ID=x $S -N1 -n1 true
}

no_leftovers() {
	local name="nothing left: no step, no srun, no file" left procs
	want_case "$name" || return 0
	sleep 1
	left=$(ls -d "$state"/nodes/*/tmp/slurmix.* "$SLURMIX_JOBDIR_BASE"/*/job.*/spawn.* 2>/dev/null)
	procs=$(pgrep -f "srun --mpi=slurmix --jobid" 2>/dev/null)
	if [ -z "$left" ] && [ -z "$procs" ] && [ -z "$(steps_left)" ]; then
		ok "$name"
	else
		bad "$name" "(files: $left; sruns: $procs; steps: $(steps_left))"
	fi
}

build_programs() {
	cp "$here/poke_agent.py" "$bin/" || return 1
	mpicc -O2 -o "$bin/ompi_spawn" "$here/ompi_spawn.c" || return 1
	cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/pmix_spawn" \
		"$here/pmix_spawn.c" -L"$build/.libs" -lpmix || return 1
	cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/pmix_dyn" \
		"$here/pmix_dyn.c" -L"$build/.libs" -lpmix || return 1
	cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/pmix_family" \
		"$here/pmix_family.c" -L"$build/.libs" -lpmix || return 1
}

# ---- main ----------------------------------------------------------------
t_all=$(now)
mkdir -p "$bin"
chmod 755 "$state" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
"$vc" restart -n 4 -w 4 --plugin-dir "$build/.libs" --state-dir "$state" \
	--port-base "$port" --mpi-conf "$state/mpi.conf" >/dev/null ||
	{ echo "FAIL cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
export SLURMIX_JOBDIR_BASE=$state/jobdirs	# not the host's shared /tmp
mkdir -p "$SLURMIX_JOBDIR_BASE"
build_programs || { echo "FAIL cannot build the test programs"; exit 1; }

pmix_cases
family_cases
ompi_cases
xstep_keys
broken_requests
stale_env
no_leftovers

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
