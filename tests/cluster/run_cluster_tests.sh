#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_cluster_tests.sh - srun --mpi=slurmix on the virtual cluster
# (contrib/vcluster.sh): the plugin and the client library of a build
# directory, real Slurm, real Open MPI, python3-pmix and our own PMIx
# programs. Part of `make check`.
#
#   tests/cluster/run_cluster_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .: holds .libs/mpi_slurmix.so and
# .libs/libpmix.so.2), SLURMIX_CTEST_STATE (state dir, default
# /var/lib/slurmix-ctest), SLURMIX_CTEST_PORT (port base, default 23917),
# CI (when "true", missing prerequisites fail instead of skipping).
#
# Starts its own cluster once (4 nodes, TreeWidth 4), restarts it once
# with 8 nodes and TreeWidth 2 (a deep tree), and stops it on any exit
# (trap). Prints "PASS name (time)" / "FAIL name" per case and
# "N passed, M failed"; exits 0, 1 on failures, 77 (skip) when not root
# or srun/mpicc/the build are missing and CI is not "true".
# A CASE-REGEX runs only the cases whose name matches it.
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_CTEST_STATE:-/var/lib/slurmix-ctest}
port=${SLURMIX_CTEST_PORT:-23917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"

cluster() {	# cluster NODES WIDTH
	"$vc" restart -n "$1" -w "$2" --plugin-dir "$build/.libs" \
		--state-dir "$state" --port-base "$port" --mpi-conf "$state/mpi.conf" >/dev/null
}

# slurmstepd processes of this cluster (in our nodes' UTS namespaces).
my_stepds() {
	local f uts=() p u
	for f in "$state"/run/slurmd.*.pid; do
		[ -e "$f" ] && uts+=("$(readlink "/proc/$(cat "$f")/ns/uts" 2>/dev/null)")
	done
	for p in $(pgrep -x slurmstepd); do
		u=$(readlink "/proc/$p/ns/uts" 2>/dev/null) || continue
		for f in "${uts[@]}"; do [ "$u" = "$f" ] && echo "$p"; done
	done
}

# run NAME WANT-REGEX SRUN-ARGS...: srun must succeed and print WANT.
run() {
	local name=$1 want=$2 out rc t0
	shift 2
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 120 srun --mpi=slurmix "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qE "$want" <<<"$out"; then
		ok "$name ($(since "$t0") s)"
	else
		echo "$out" | tail -20
		bad "$name" "(rc $rc)"
	fi
}

# ---- failure cases -------------------------------------------------------

# MPI_Abort(7) in one rank: srun prints the message and exits 7 at once.
abort_case() {	# abort_case NAME SRUN-ARGS...
	local name=$1 out rc t0 t
	shift
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix "$@" 2>&1)
	rc=$?
	t=$(since "$t0")
	if [ $rc -eq 7 ] && grep -qE '^srun: slurmix: rank [0-9]+ \(vn[0-9]+\) called PMIx_Abort' <<<"$out" &&
	   [ "$(echo "$t < 15" | bc)" = 1 ]; then
		ok "$name: exit 7 and the message ($t s)"
	else
		echo "$out" | tail -20
		bad "$name" "(rc $rc, $t s)"
	fi
}

# PMIx_Abort of some ranks (tests/cluster/pmix_abort.c): only those end,
# each survivor gets PMIX_ERR_PROC_REQUESTED_ABORT with the status and
# finishes, srun prints who aborted whom and exits with the (first) status.
abort_ranks_case() {	# abort_ranks_case one|race|stubborn
	local mode=$1 name out rc t0 t okn want=7 codes="5" how=Aborted
	case $mode in
	one) name="PMIx_Abort of rank 1" ;;
	race) name="PMIx_Abort of ranks 1 and 3, racing" want=6 codes="5|6" ;;
	*) name="PMIx_Abort of rank 1, which ignores SIGABRT" how=Killed ;;
	esac
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_abort "$mode" 2>&1)
	rc=$?
	t=$(since "$t0")
	okn=$(grep -c '^RANK [0-9]* OK$' <<<"$out")
	if [[ $rc =~ ^($codes)$ ]] && [ "$okn" -eq "$want" ] && ! grep -q SURVIVED <<<"$out" &&
	   grep -qE "^srun: slurmix: rank [02] \(vn[0-9]+\) called PMIx_Abort\(($codes)\) on rank [13]: rank [02] aborts rank [13]" <<<"$out" &&
	   { [ "$mode" = race ] || grep -q '^REFUSED ok$' <<<"$out"; } &&
	   grep -q "^srun: error: vn1: task 1: $how" <<<"$out" &&
	   [ "$(echo "$t < 15" | bc)" = 1 ]; then
		ok "$name: $okn survivors finished, exit $rc and the message ($t s)"
	else
		echo "$out" | tail -20
		bad "$name" "($okn of $want survivors right, rc $rc, $t s)"
	fi
}

# A whole-step PMIx_Abort (tests/cluster/pmix_jobend.c): every other rank
# first gets PMIX_EVENT_JOB_END with PMIX_EVENT_TERMINATE_JOB, the status,
# the aborting rank and the grace (KillWait=3), as a synchronous event:
# the step ends once all answered; when rank 3 does not, after the grace,
# and the node log names it; with nobody registered, at once.
jobend_case() {	# jobend_case answered|silent|none
	local mode=$1 name out rc t0 t n logs want=7 line
	case $mode in
	answered) name="PMIx_Abort of the step: PMIX_EVENT_JOB_END first, answered"
		line="PMIX_EVENT_JOB_END: 7 processes answered" ;;
	silent) name="PMIx_Abort of the step: PMIX_EVENT_JOB_END, rank 3 does not answer"
		line="PMIX_EVENT_JOB_END: 1 process did not answer .*: rank 3$" ;;
	*) name="PMIx_Abort of the step: PMIX_EVENT_JOB_END with no handler" want=0
		line="PMIX_EVENT_JOB_END: no process has a handler for it" ;;
	esac
	want_case "$name" || return 0
	log_mark
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_jobend "$mode" 2>&1)
	rc=$?
	t=$(since "$t0")
	sleep 1
	logs=$(log_new)
	n=$(grep -c '^JOBEND rank [1-7] terminate=1 status=9 affected=0 exit=9 grace=3$' <<<"$out")
	if [ $rc -eq 9 ] && [ "$n" -eq $want ] && ! grep -q SURVIVED <<<"$out" &&
	   grep -q '^srun: slurmix: rank 0 (vn1) called PMIx_Abort: rank 0 ends the step' <<<"$out" &&
	   grep -q "mpi/slurmix: $line" <<<"$logs"; then
		ok "$name: $n handlers, exit 9 ($t s)"
	else
		echo "$out" | tail -20
		grep JOB_END <<<"$logs" | tail -5
		bad "$name" "($n of $want handlers, rc $rc, $t s)"
	fi
}

# A whole-step PMIx_Abort whose PMIX_EVENT_JOB_END is answered, for node 1,
# by an authenticated peer with an EVENT_ACK whose synchronous part is
# garbage (peer_garbage.py sync-ack): node 0 logs it and counts node 1's
# ranks (2 and 3) as not answering; the step ends as it should (exit 9).
jobend_garbled_ack() {
	local name="PMIx_Abort of the step: a garbled answer to PMIX_EVENT_JOB_END counts as silent" \
		pid rc t0 t n logs ep0 sent bad_ack line
	want_case "$name" || return 0
	rm -f "$bin/jg.key" "$bin/jg.go"
	log_mark
	t0=$(now)
	(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		bash -c '[ "$SLURM_PROCID" = 0 ] && echo "$SLURMIX_STEP_KEY $SLURM_STEP_ID" >jg.key
			for i in $(seq 150); do [ -e jg.go ] && break; sleep 0.1; done
			exec ./pmix_jobend silent' >"$state/jg.out" 2>&1) &
	pid=$!
	for n in $(seq 100); do [ -s "$bin/jg.key" ] && break; sleep 0.1; done
	sleep 0.5	# every stepd listens
	ep0=$(stepd_endpoints | grep '^0:' | head -1)
	(sleep 0.3; touch "$bin/jg.go") &
	# shellcheck disable=SC2046
	sent=$(python3 "$here/peer_garbage.py" sync-ack $(cat "$bin/jg.key") "$ep0" 2>&1)
	wait "$pid"
	rc=$?
	t=$(since "$t0")
	sleep 1
	logs=$(log_new)
	n=$(grep -c '^JOBEND rank [1-7] terminate=1 status=9 ' "$state/jg.out")
	bad_ack=$(grep -c "malformed EVENT_ACK from node 1: its ranks count as silent" <<<"$logs")
	line="PMIX_EVENT_JOB_END: 2 processes did not answer (.*): ranks 2,3$"
	if [ $rc -eq 9 ] && [ "$n" -eq 7 ] && [[ $sent == SENT* ]] && [ "$bad_ack" -ge 1 ] &&
	   grep -q "mpi/slurmix: $line" <<<"$logs" && ! grep -q SURVIVED "$state/jg.out"; then
		ok "$name: logged $bad_ack time(s), ranks 2,3 named, exit 9 ($t s)"
	else
		tail -20 "$state/jg.out"
		grep "JOB_END\|EVENT_ACK" <<<"$logs" | tail -5
		bad "$name" "($n handlers, rc $rc, $bad_ack garbled acks logged, sender: $sent, $t s)"
	fi
	rm -f "$bin/jg.key" "$bin/jg.go"
}

# Rank 3 kills itself while the others fence: every survivor's fence fails
# and every survivor gets the event naming rank 3 with how it ended
# (PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_EXIT_CODE 128 + 9, and
# PMIX_PROC_TERM_STATUS), long before the timeout. With HOW "exit", rank 3
# exits 3 without finalizing: PMIX_ERR_PROC_TERM_WO_SYNC, exit code 3.
killed_pmix() {	# killed_pmix NAME NODES TASKS HOW SRUN-ARGS...
	local name=$1 nn=$2 nt=$3 how=$4 out rc t0 t fe ev want
	shift 4
	want_case "$name" || return 0
	want='^EVENT PROC-ABORTED-BY-SIG affected 3 exit 137$'
	[ "$how" = exit ] && want='^EVENT PROC TERMINATED WITHOUT SYNC affected 3 exit 3$'
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix -N"$nn" -n"$nt" "$@" \
		./pmix_killed 3 "$how" 2>&1)
	rc=$?
	t=$(since "$t0")
	fe=$(grep -c '^FENCE_ERROR' <<<"$out")
	ev=$(grep -c "$want" <<<"$out")
	if [ "$fe" -eq $((nt - 1)) ] && [ "$ev" -eq $((nt - 1)) ] && [ $rc -ne 124 ] &&
	   [ "$(echo "$t < 20" | bc)" = 1 ]; then
		ok "$name: $fe fences failed, $ev events, step ended rc $rc ($t s)"
	else
		echo "$out" | sort | uniq -c | tail -20
		bad "$name" "($fe fence errors, $ev events, rc $rc, $t s)"
	fi
}

# Rank 0 notifies an event of its own with RANGE: every rank in range, on
# every node, gets it exactly once with its payload and source, nobody
# else does (a custom range names the last rank only, not the sender), and
# rank 0's PMIx_Notify_event completes with success.
event_case() {	# event_case RANGE NTASKS SRUN-ARGS...
	local range=$1 nt=$2 name="PMIx_Notify_event range $1 across nodes" out rc t0 t okn
	shift 2
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix "$@" ./pmix_event "$range" 2>&1)
	rc=$?
	t=$(since "$t0")
	okn=$(echo "$out" | grep -c '^OK$')
	if [ $rc -eq 0 ] && [ "$okn" -eq "$nt" ] && grep -q '^NOTIFIED SUCCESS$' <<<"$out"; then
		ok "$name ($*: $okn ranks right, $t s)"
	else
		echo "$out" | grep -v '^OK$' | sort | tail -20
		bad "$name" "($okn of $nt ranks right, rc $rc, $t s)"
	fi
}

# Notify-then-fence, ROUNDS times: every recipient must have its event
# when the fence that follows the notification's completion returns there
# (docs/events.md, "order").
event_order() {	# event_order ROUNDS
	local name="PMIx_Notify_event then fence: the event comes first, $1 rounds" out rc t0 t okn
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 120 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		./pmix_event order "$1" 2>&1)
	rc=$?
	t=$(since "$t0")
	okn=$(grep -c '^OK$' <<<"$out")
	if [ $rc -eq 0 ] && [ "$okn" -eq 8 ]; then
		ok "$name (8 ranks on 4 nodes, $t s)"
	else
		grep -v '^OK$' <<<"$out" | sort | tail -20
		bad "$name" "($okn of 8 ranks right, rc $rc, $t s)"
	fi
}

# A burst: every one of 8 ranks on 4 nodes notifies N events at once; all
# arrive at every other rank, in order per sender, none fails; the step
# daemons' peak memory (VmHWM, sampled) is reported (docs/events.md,
# "capacity"). The suite runs 8 x 12500, the 100,000 of the contract
# (SLURMIX_BURST sets N).
event_burst() {	# event_burst N
	local name="PMIx_Notify_event burst: $((8 * $1)) events from 8 ranks, all arrive" pid out okn t0 t
	local peak=0 p v
	want_case "$name" || return 0
	t0=$(now)
	# a notification's answer may wait long behind the others on the
	# 2-CPU cluster: SlurmixTimeout (the answer's timeout) well above it
	(cd "$bin" && SLURMIX_TIMEOUT=600 timeout 400 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_event burst "$1" >"$state/burst.out" 2>&1) &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		for p in $(my_stepds); do
			v=$(awk '/^VmHWM/ { print $2 }' "/proc/$p/status" 2>/dev/null)
			[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
		done
		sleep 0.5
	done
	wait "$pid"
	t=$(since "$t0")
	out=$(cat "$state/burst.out")
	okn=$(grep -c '^OK$' <<<"$out")
	if [ "$okn" -eq 8 ]; then
		ok "$name ($t s; step daemons' peak memory $((peak / 1024)) MiB)"
	else
		grep -v '^OK$' <<<"$out" | sort | tail -20
		bad "$name" "($okn of 8 ranks right, $t s)"
	fi
}

# pmix_event MODE on 8 ranks of 4 nodes: every rank prints OK, rank 0
# NOTIFIED SUCCESS for each of its N notifications.
event_mode() {	# event_mode MODE N NAME
	local mode=$1 nn=$2 name=$3 out rc t0 t okn
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		./pmix_event "$mode" 2>&1)
	rc=$?
	t=$(since "$t0")
	okn=$(grep -c '^OK$' <<<"$out")
	if [ $rc -eq 0 ] && [ "$okn" -eq 8 ] &&
	   [ "$(grep -c '^NOTIFIED SUCCESS$' <<<"$out")" = "$nn" ]; then
		ok "$name (8 ranks on 4 nodes, $t s)"
	else
		grep -v '^OK$' <<<"$out" | sort | tail -20
		bad "$name" "($okn of 8 ranks right, rc $rc, $t s)"
	fi
}

# An event notified before anyone registered: every rank that registers
# afterwards gets it once from its step daemon's cache (docs/events.md,
# "late registrants"); the notifier does not.
event_late() {
	event_mode late 1 "PMIx_Notify_event before anyone registered: each late handler gets it once"
}

# pmix_event ARGS on 8 ranks of 4 nodes; sets the caller's out, rc, t
# (seconds), logs (what the node logs got meanwhile) and okn (OK lines).
event_logged() {	# event_logged ARGS...
	log_mark
	t0=$(now)
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		./pmix_event "$@" 2>&1)
	rc=$?
	t=$(since "$t0")
	sleep 0.3
	logs=$(log_new)
	okn=$(grep -c '^OK$' <<<"$out")
}

# Routing by registration (docs/events.md "routing"): only the last rank
# (on the last node) has a handler when rank 0 notifies; the notifier's
# stepd sends the event to that node alone and keeps it for the other two,
# which get it once their ranks register (each once, in the test).
event_sparse() {
	local name="PMIx_Notify_event goes only to the nodes with a handler; the others get it when they register" \
		out rc t0 t okn logs to kept
	want_case "$name" || return 0
	mpi_debug_on
	event_logged sparse
	to=$(grep -c "event -3007: to 1 of 3 step daemons (2 without a handler: kept for them)" \
		<<<"$logs")
	kept=$(grep -c "events: node [12] registered: 1 kept event sent there" <<<"$logs")
	if [ $rc -eq 0 ] && [ "$okn" -eq 8 ] && grep -q '^NOTIFIED SUCCESS$' <<<"$out" &&
	   [ "$to" -eq 1 ] && [ "$kept" -eq 2 ]; then
		ok "$name (8 ranks on 4 nodes: sent to 1 node, kept for 2, $t s)"
	else
		grep -v '^OK$' <<<"$out" | sort | tail -20
		grep "events: \|event -3007" <<<"$logs" | tail -10
		bad "$name" "($okn of 8 ranks right, rc $rc, $to sent lines, $kept kept lines, $t s)"
	fi
}

# More events than the caches hold (SLURMIX_EVENT_CACHE_BYTES=8192: 40 of
# 1 KiB each), notified before anyone registered: every other rank gets
# the last few, the first of them reporting the losses
# (SLURMIX_EVENT_CACHE_DROPPED > 0: on rank 0's node from its server's
# cache, on the others from the notifier's stepd, which kept them for
# nodes without a handler), and the node logs say so.
event_overflow() {
	local name="PMIx_Notify_event: cache overflow reported on the next event and in the logs" \
		out rc t0 t okn logs kept told
	want_case "$name" || return 0
	SLURMIX_EVENT_CACHE_BYTES=8192 event_logged overflow 40
	kept=$(grep -cE "events: [0-9]+ (more )?events? kept for nodes without a handler dropped" \
		<<<"$logs")
	told=$(grep -c "events: node 0 dropped [0-9]* events kept for this node" <<<"$logs")
	if [ $rc -eq 0 ] && [ "$okn" -eq 8 ] && [ "$kept" -ge 1 ] && [ "$told" -eq 3 ]; then
		ok "$name (8 ranks on 4 nodes: $(grep -m1 '^OVERFLOW rank 7' <<<"$out"), $t s)"
	else
		grep -v '^OK$' <<<"$out" | sort | tail -20
		bad "$name" "($okn of 8 ranks right, $kept+$told log lines, rc $rc, $t s)"
	fi
}

# The root of the tree of all nodes ends (its ranks exit) before rank 2
# registers: no other node can learn of that registration, so the nodes
# next to the break stop withholding, and rank 4's event reaches rank 2
# (docs/events.md, "routing").
event_degrade() {
	event_mode degrade 1 "PMIx_Notify_event: a broken tree link does not hide a registration"
}

# PMIX_EVENT_AFFECTED_PROC at registration: every handler asked for the
# events affecting the last rank; of rank 0's two events (affecting rank 1,
# then the last rank) each of the 8 ranks, on 4 nodes, gets the second only.
event_affected() {
	event_mode affected 2 "PMIx_Notify_event: a handler for one affected proc gets only its events"
}

# The same with Open MPI: the step must end quickly, with an error.
killed_ompi() {
	local name="ompi rank 3 SIGKILL -N4 -n8" out rc t0 t
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 60 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./ompi_killed 3 2>&1)
	rc=$?
	t=$(since "$t0")
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(echo "$t < 20" | bc)" = 1 ]; then
		ok "$name: step ended rc $rc ($t s)"
	else
		echo "$out" | tail -20
		bad "$name" "(rc $rc, $t s)"
	fi
}

# A fence that one rank never joins (it finalizes): the others fail after
# SLURMIX_TIMEOUT.
fence_timeout() {
	local name="unjoinable fence times out" out cnt t0
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TIMEOUT=5 timeout 90 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_fail 2>&1)
	cnt=$(echo "$out" | grep -c "^FENCE_ERROR")
	if [ "$cnt" -eq 7 ]; then
		ok "$name: 7 ranks failed ($(since "$t0") s, SLURMIX_TIMEOUT=5)"
	else
		echo "$out" | tail
		bad "$name" "($cnt errors)"
	fi
}

# SIGKILL to every slurmstepd of virtual node NODE.
kill_stepds_of() {	# kill_stepds_of NODE
	local uts p
	uts=$(readlink "/proc/$(cat "$state/run/slurmd.$1.pid")/ns/uts")
	for p in $(pgrep -x slurmstepd); do
		[ "$(readlink "/proc/$p/ns/uts" 2>/dev/null)" = "$uts" ] && kill -9 "$p"
	done
}

# After kill_stepds_of NODE: the job goes, and what a SIGKILLed slurmstepd
# cannot remove (its step directory, its endpoints socket in the spool
# directory) is taken away, so that later "nothing left" checks see only
# what other cases leave.
after_killed_stepd() {	# after_killed_stepd NODE SRUN-PID
	scancel --state=running -u root >/dev/null 2>&1
	wait "$2" 2>/dev/null
	sleep 1
	rm -rf "$state"/nodes/"$1"/tmp/slurmix.* "$state"/nodes/"$1"/spool/slurmix.*
}

# Kill the step daemon of the last node while the others wait in a fence.
stepd_killed() {
	local name="killed step daemon" pid cnt
	want_case "$name" || return 0
	(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 90 srun --mpi=slurmix -N4 -n8 \
		--ntasks-per-node=2 ./pmix_fail >"$state/killed.out" 2>&1) &
	pid=$!
	sleep 3
	kill_stepds_of vn4
	sleep 5
	cnt=$(grep -c "^FENCE_ERROR" "$state/killed.out")
	if [ "$cnt" -ge 6 ]; then
		ok "$name: $cnt ranks failed within 5 s"
	else
		cat "$state/killed.out"
		bad "$name" "($cnt errors after 5 s)"
	fi
	after_killed_stepd vn4 "$pid"
}

# A step daemon killed while the others fence: the fence fails, and every
# other node's ranks get PMIX_EVENT_NODE_DOWN naming the node and its
# ranks (docs/events.md); a node whose tasks simply ended raises nothing.
node_down() {
	local name="step daemon killed during a fence: NODE_DOWN at the other nodes" pid cnt t0 t
	if want_case "$name"; then
		t0=$(now)
		# each task's lines in a file of its own, which it writes itself:
		# through srun, lines of several tasks may come in pieces
		rm -f "$state"/nodedown.*
		(cd "$bin" && SLURMIX_TIMEOUT=100 timeout 90 srun --mpi=slurmix -N4 -n8 \
			--ntasks-per-node=2 --output="$state/nodedown.%t" ./pmix_killed stepd \
			>"$state/nodedown.out" 2>&1) &
		pid=$!
		sleep 2
		kill_stepds_of vn4
		for _ in $(seq 40); do
			[ "$(cat "$state"/nodedown.[0-9]* 2>/dev/null | grep -c "^NODE_DOWN")" -ge 6 ] &&
				break
			sleep 0.25
		done
		t=$(since "$t0")
		cnt=$(cat "$state"/nodedown.[0-9]* | grep -c "^NODE_DOWN host vn4 node 3 procs 6,7$")
		if [ "$cnt" = 6 ] &&
		   [ "$(cat "$state"/nodedown.[0-9]* | grep -c "^FENCE_ERROR")" = 6 ]; then
			ok "$name: 6 ranks told, their fences failed ($t s after the start)"
		else
			cat "$state"/nodedown.*
			bad "$name" "($cnt of 6 ranks told)"
		fi
		after_killed_stepd vn4 "$pid"
	fi
	name="a node whose tasks ended normally is no lost node"
	want_case "$name" || return 0
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		./pmix_killed early 2>&1)
	cnt=$(grep -c "^NO_NODE_DOWN$" <<<"$out")
	if [ "$cnt" = 6 ]; then
		ok "$name (6 ranks, no event)"
	else
		echo "$out" | tail -10
		bad "$name" "($cnt of 6 ranks without the event)"
	fi
}

# Rank 0 of the strangers' job pokes srun's rendezvous/abort port: garbage,
# malformed ABORT and REGISTER frames. srun must log and drop them and keep
# its exit code.
poke_srun='import os, socket, struct
def frame(cmd, body):
    return struct.pack(">IIIHH", 0x534c4d58, len(body), 0, cmd, 0) + body
for data in (b"junk" * 9, frame(4, b""), frame(4, b"\x07" * 30), frame(2, b"\xff" * 8)):
    s = socket.create_connection(("127.0.0.1", int(os.environ["SLURMIX_SRUN_PORT"])))
    s.sendall(data)
    s.close()'

# Strangers poke the step daemons' listeners while a job runs: garbage, a
# frame that is not a hello, a HELLO with a malformed body, a FANIN without
# a hello, a LOST without a hello, a connection that says nothing. The job
# must still succeed.
strangers() {
	local name="strangers on the step daemons' ports" pid py rc ports="" np dropped p srun_bad boot_bad
	want_case "$name" || return 0
	(cd "$bin" && timeout 90 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		bash -c '[ "$SLURM_PROCID" = 0 ] && python3 -c "$0"; sleep 3; exec ./pmix_modex 5' \
		"$poke_srun" >"$state/strangers.out" 2>&1) &
	pid=$!
	sleep 1.5
	for p in $(my_stepds); do
		ports="$ports $(ss -ltnpH 2>/dev/null | grep "pid=$p," |
			grep -oE '127\.0\.0\.1:[0-9]+' | cut -d: -f2)"
	done
	# the endpoints sockets slurmd delivers to (net/boot.h): broken
	# deliveries from root, as slurmd's forwarder would write them
	python3 - "$state"/nodes/*/spool/slurmix.* <<'PY' &
import socket, struct, sys
for path in sys.argv[1:]:
    for data in (b"\x00\x00", struct.pack(">II", 0, 0), struct.pack(">II", 0, 0xffffffff),
                 struct.pack(">II", 0, 40) + b"\xff" * 40,
                 struct.pack(">II", 12345, 8) + b"\x00" * 8,
                 struct.pack(">II", 0, 64) + b"\x01" * 10):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.sendall(data)
        s.close()
PY
	python3 - $ports <<'PY' &
import socket, struct, sys, time
def frame(cmd, body):
    return struct.pack(">IIIHH", 0x534c4d58, len(body), 0, cmd, 0) + body
idle = []
for port in sys.argv[1:]:
    for data in (b"garbage" * 10, frame(10, b"\x01\x02"), frame(1, b"\xff" * 40),
                 frame(1, b""), frame(11, b""), frame(30, b"\x00\x00\x00\x03")):
        s = socket.create_connection(("127.0.0.1", int(port)))
        s.sendall(data)
        s.close()
    idle.append(socket.create_connection(("127.0.0.1", int(port))))
time.sleep(4)
PY
	py=$!
	wait "$pid"
	rc=$?
	wait "$py"
	np=$(echo $ports | wc -w)
	dropped=$(cat "$state"/log/slurmd.*.log | grep -c "mpi/slurmix: peer .*dropped")
	boot_bad=$(cat "$state"/log/slurmd.*.log | grep -c "mpi/slurmix: endpoints: a bad report")
	srun_bad=$(grep -c "mpi/slurmix: bad abort report" "$state/strangers.out")
	if [ $rc -eq 0 ] && grep -qx OK "$state/strangers.out" && [ "$np" -gt 0 ] &&
	   [ "$dropped" -ge $((5 * np)) ] && [ "$srun_bad" -ge 2 ] && [ "$boot_bad" -ge $((6 * np)) ]; then
		ok "$name: $np ports, $dropped dropped with a log line, srun dropped $srun_bad, $boot_bad bad endpoint reports dropped, job OK"
	else
		cat "$state/strangers.out"
		bad "$name" "(rc $rc, ports '$ports', $dropped dropped)"
	fi
}

# The server of a step accepts only the step's user (and root): a root job
# refuses slurmixtest, a slurmixtest job refuses nobody - at the socket
# (its directory is the user's, 0700) and at PMIx_Init with the step's
# environment copied into the node's mount namespace. The job of the
# unprivileged user itself runs.
security() {
	local name="other users cannot connect" ns env uri r1 r2 r3 r4 out
	want_case "$name" || return 0
	"$vc" adduser --state-dir "$state" >/dev/null || { bad "$name" "(adduser)"; return; }
	mkdir -p "$state/sec" && chmod 1777 "$state/sec" && rm -f "$state"/sec/*
	ns=/proc/$(cat "$state/run/slurmd.vn1.pid")/ns/mnt
	env="env | grep -E '^(PMIX_|SLURMIX_|LD_LIBRARY_PATH=)' > $state/sec/\$(id -un).env; sleep 4"
	probe() {	# probe USER ENVFILE: PMIx_Init as USER with that env on vn1
		nsenter --mount="$ns" runuser -u "$1" -- env -i $(cat "$2") \
			timeout 20 "$bin/pmix_probe" 2>&1
	}
	raw() {		# raw USER ENVFILE: plain connect() to the socket
		uri=$(sed -n 's/^SLURMIX_PMIX_SERVER_URI=unix:\/tmp//p' "$2")
		runuser -u "$1" -- python3 -c "
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$state/nodes/vn1/tmp$uri'); print('CONNECTED')
except OSError as e:
    print('REFUSED', e.strerror)"
	}
	(cd "$bin" && timeout 30 srun --mpi=slurmix -N1 -n1 -w vn1 bash -c "$env") &
	sleep 2.5
	r1=$(raw slurmixtest "$state/sec/root.env")
	r2=$(probe slurmixtest "$state/sec/root.env")
	wait
	(runuser -u slurmixtest -- bash -c "eval \"\$('$vc' env --state-dir '$state')\"; cd '$bin';
		timeout 30 srun --mpi=slurmix -N1 -n1 -w vn1 bash -c \"$env\"") &
	sleep 2.5
	r3=$(raw nobody "$state/sec/slurmixtest.env")
	r4=$(probe nobody "$state/sec/slurmixtest.env")
	wait
	out=$(runuser -u slurmixtest -- bash -c "eval \"\$('$vc' env --state-dir '$state')\"; cd '$bin';
		timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 ./pmix_modex 3" 2>&1)
	if [[ $r1 == REFUSED* && $r2 == INIT_FAILED* && $r3 == REFUSED* &&
	      $r4 == INIT_FAILED* && $out == *OK* ]]; then
		ok "$name: socket '$r1', PMIx_Init '$r2'; user's own job OK"
	else
		echo "root job, slurmixtest: raw '$r1' probe '$r2'"
		echo "slurmixtest job, nobody: raw '$r3' probe '$r4'"
		echo "$out" | tail -5
		bad "$name"
	fi
}

# Nothing of the plugin outlives its steps: no step directory in the
# nodes' /tmp, nothing in the spool directories, no slurmstepd left.
no_leftovers() {	# no_leftovers LABEL
	local name="nothing left after the steps ($1)" left procs i
	want_case "$name" || return 0
	for i in $(seq 20); do
		procs=$(my_stepds)
		[ -z "$procs" ] && break
		sleep 0.25
	done
	left=$(ls -d "$state"/nodes/*/tmp/slurmix.* "$state"/nodes/*/spool/*slurmix* 2>/dev/null)
	if [ -z "$left" ] && [ -z "$procs" ]; then
		ok "$name"
	else
		bad "$name" "(files: $left; slurmstepd: $procs)"
	fi
}

declare -A log_size
log_mark() {	# remember the size of every node log
	local f
	for f in "$state"/log/slurmd.vn*.log; do log_size[$f]=$(stat -c %s "$f"); done
}
log_new() {	# what the node logs got since log_mark
	local f
	for f in "$state"/log/slurmd.vn*.log; do tail -c +$((${log_size[$f]:-0} + 1)) "$f"; done
}

# Quiet by default (no plugin line in the node logs for a good job), and
# detailed with DebugFlags=MPI (Slurm logs debug flags at level verbose).
logging() {
	local name="logging: quiet by default, detailed with DebugFlags=MPI" before after n1 n2
	want_case "$name" || return 0
	log_mark
	(cd "$bin" && timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4 >/dev/null 2>&1)
	sleep 0.5
	n1=$(log_new | grep -c slurmix)
	mpi_debug_on
	log_mark
	(cd "$bin" && timeout 60 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4 >/dev/null 2>&1)
	sleep 0.5
	n2=$(log_new | grep -c "MPI: slurmix: ")
	if [ "$n1" -eq 0 ] && [ "$n2" -ge 8 ]; then
		ok "$name ($n1 lines by default, $n2 with the flag)"
	else
		bad "$name" "($n1 lines by default, $n2 with the flag)"
	fi
}

# ---- steps of one allocation (docs/dynamic.md) ----------------------------

# Broken requests to srun's agent from inside a task (which knows the
# port and the job key): a bad key is dropped with a log line; good key +
# garbage, an unknown step, a command without a handler get an error
# reply (a SPAWN_NODE readiness report with a garbled info blob too: this
# srun spawned nothing); STEPLIST ignores what follows the key and answers
# the list; publish/lookup still work afterwards.
poke_requests='from poke_agent import *
key = KEY
# ABORT reports naming ranks, broken after a good head: no rank, fewer
# ranks than said, junk after them (srun drops each, kills nothing)
head = pstr(key) + u32(0) + u32(0) + struct.pack(">HIi", 9, 1, 5) + pstr("h") + pstr("m")
for cmd, body in ((4, head + u32(0)), (4, head + u32(2) + u32(0)), (4, head + u32(1) + u32(0) + b"\x01"),
                  (40, pstr("0" * 32) + pstr("slurmix.1.0")), (42, pstr(key) + b"\xff" * 9),
                  (41, pstr(key) + b"\x00\x01"), (43, pstr(key)), (40, pstr(key) + pstr("slurmix.999999.0")),
                  (40, pstr(key) + pstr("x" * 300)), (55, pstr(key)),
                  (49, pstr("0" * 32)), (49, pstr(key) + b"\xff" * 9),
                  (48, pstr(key) + u32(0) + b"\xff" * 9)):
    send(cmd, body)'

srun_requests_broken() {
	local name="broken requests to srun" out
	want_case "$name" || return 0
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N1 -n1 \
		bash -c 'python3 -c "$0"; exec ./pmix_dyn pub r1 v dflt dflt look r1 -1 dflt' \
		"$poke_requests" 2>&1)
	if grep -qx "closed 40" <<<"$out" && grep -qx "closed 49" <<<"$out" &&
	   [ "$(grep -cx "closed 4" <<<"$out")" = 3 ] &&
	   [ "$(grep -c "bad abort report from a step daemon" <<<"$out")" = 3 ] &&
	   [ "$(grep -cE '^reply (40|41|42|43|55) status -[0-9]+$' <<<"$out")" = 6 ] &&
	   grep -qx "reply 49 status 0" <<<"$out" && grep -qE '^reply 48 status -[0-9]+$' <<<"$out" &&
	   grep -q "request 40 with a bad key: dropped" <<<"$out" &&
	   grep -q "request 49 with a bad key: dropped" <<<"$out" &&
	   grep -qE '^look r1 SUCCESS v ' <<<"$out"; then
		ok "$name: bad keys dropped, 7 error replies, 3 broken abort reports dropped, STEPLIST with junk answered, job OK"
	else
		echo "$out"
		bad "$name"
	fi
}

# dyn NAME SCRIPT: runs SCRIPT (bash, in $bin) under salloc -N4 -n16; it
# leaves out.* files that the caller checks. Prints the time taken.
dyn() {
	local t0 rc
	t0=$(now)
	printf '#!/bin/bash\nexport SLURMIX_TIMEOUT=30\nS="srun --mpi=slurmix --overlap"\nrm -f out.* port.txt\n%s\nwait\n' "$2" >"$bin/dyn.sh"
	chmod +x "$bin/dyn.sh"
	(cd "$bin" && timeout 120 salloc -N4 -n16 ./dyn.sh >/dev/null 2>&1)
	rc=$?
	dyn_t=$(since "$t0")
	return $rc
}

# has FILE LINE...: every LINE is a line of FILE.
has() {
	local f=$1 l
	shift
	for l in "$@"; do grep -qxF "$l" "$bin/$f" || { echo "missing in $f: $l"; cat "$bin/$f"; return 1; }; done
}

dyn_cases() {
	local name how
	name="publish/lookup across two sruns"
	if want_case "$name"; then
		dyn "$name" '$S -N2 -n2 ./pmix_dyn pub a1 va dflt dflt pub a2 vn ns dflt pub a3 vf dflt first sleep 2 look b1 10 dflt pub a1 vx dflt dflt >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn look a1 10 dflt look a2 -1 dflt look a3 10 dflt look a3 -1 dflt pub b1 vb dflt dflt look a2 -1 ns >out.B 2>&1 &
wait
$S -N1 -n1 ./pmix_dyn look a1 -1 dflt unpub a1 look b1 -1 dflt unpub b1 look b1 -1 dflt >out.C 2>&1
$S -N1 -n1 ./pmix_dyn look nokey 2 dflt >out.D 2>&1'
		# A publishes a1 (session), a2 (namespace), a3 (first read); B waits
		# for a1 and a3, cannot see a2, gets a3 only once; A waits for B's
		# b1 and cannot publish a1 twice; C, after both ended, still finds
		# them and cannot unpublish what it does not own; D times out.
		if has out.A "pub a1 SUCCESS" "pub a2 SUCCESS" "pub a3 SUCCESS" "pub a1 DUPLICATE KEY" &&
		   grep -qE '^look b1 SUCCESS vb slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.A" &&
		   has out.B "look a2 NOT-FOUND" "look a3 NOT-FOUND" "pub b1 SUCCESS" &&
		   grep -qE '^look a1 SUCCESS va slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.B" &&
		   grep -qE '^look a3 SUCCESS vf slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.B" &&
		   grep -qE '^look a1 SUCCESS va slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.C" &&
		   has out.C "unpub a1 NOT-FOUND" "unpub b1 NOT-FOUND" &&
		   [ "$(grep -c '^look b1 SUCCESS vb' "$bin/out.C")" = 2 ] &&
		   has out.D "look nokey TIMEOUT"; then
			ok "$name: wait, FIRST_READ, NAMESPACE range, duplicate, after the steps ended, own entries only, 2 s timeout ($dyn_t s)"
		else
			head -20 "$bin"/out.*
			bad "$name"
		fi
	fi
	# Two waiting lookups in a row in one srun: its watch on the directory
	# goes when the first is answered and must come back for the second
	# (a lost wake-up would end it by its 10 s timeout).
	name="two PMIX_WAIT lookups in a row"
	if want_case "$name"; then
		dyn "$name" '$S -N1 -n1 -w vn1 ./pmix_dyn look w1 10 dflt look w2 10 dflt >out.A 2>&1 &
$S -N1 -n1 -w vn2 ./pmix_dyn sleep 1 pub w1 v1 dflt dflt sleep 1 pub w2 v2 dflt dflt >out.B 2>&1 &'
		if grep -qE '^look w1 SUCCESS v1 ' "$bin/out.A" && grep -qE '^look w2 SUCCESS v2 ' "$bin/out.A" &&
		   [ "$(echo "$dyn_t < 8" | bc)" = 1 ]; then
			ok "$name ($dyn_t s)"
		else
			head -20 "$bin"/out.*
			bad "$name"
		fi
	fi
	name="PMIx connect, Get, fence, disconnect across two sruns"
	if want_case "$name"; then
		dyn "$name" '$S -N2 -n4 -w vn1,vn2 ./pmix_dyn all xconn A B >out.A 2>&1 &
$S -N2 -n3 -w vn2,vn3 ./pmix_dyn all xconn B A >out.B 2>&1 &'
		if [ "$(grep -cE '^(connect|fence|disconnect) [0-9] SUCCESS$' "$bin/out.A")" = 12 ] &&
		   [ "$(grep -cE '^(connect|fence|disconnect) [0-9] SUCCESS$' "$bin/out.B")" = 9 ] &&
		   [ "$(grep -c '^size [0-9] SUCCESS 3$' "$bin/out.A")" = 4 ] &&
		   [ "$(grep -c '^size [0-9] SUCCESS 4$' "$bin/out.B")" = 3 ] &&
		   [ "$(grep -cE '^val [0-9] SUCCESS slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.A")" = 4 ] &&
		   [ "$(grep -cE '^val [0-9] SUCCESS slurmix\.[0-9]+\.[0-9]+:0$' "$bin/out.B")" = 3 ]; then
			ok "$name ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# PMIx_Connect attributes (docs/dynamic.md 5): a disconnect before any
	# connect is INVALID_OPERATION; a connect gives both sides one group
	# context id and group ranks 0..3; two Connect_nb with different
	# PMIX_CONNECT_IDs started in opposite orders both complete;
	# XCHG_ONLY assigns no id; "ourcluster:nspace" works, another cluster
	# is NOT_SUPPORTED; a set connected once can be disconnected twice.
	name="PMIx connect attributes: CONNECT_ID, XCHG_ONLY, cluster:nspace, INVALID_OPERATION"
	if want_case "$name"; then
		dyn "$name" 'CL=$(scontrol show config | sed -n "s/^ClusterName *= *//p")
$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B dc cn 20 - 0 cn2 x y cn 20 - 1 qcn $CL qcn nocluster dc dc >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all xfind B A dc cn 20 - 0 cn2 y x cn 20 - 1 qcn $CL qcn nocluster dc dc >out.B 2>&1 &'
		local good=1 f ctx
		ctx=$(cat "$bin/out.A" "$bin/out.B" | grep -E '^cn [01] SUCCESS .* grank=[0-3]$' |
			grep -v 'ctx=0 ' | sed 's/.*ctx=\([0-9a-f]*\).*/\1/' | sort -u)
		for f in out.A out.B; do
			[ "$(grep -cE '^dc [01] INVALID-OPERATION$' "$bin/$f")" = 2 ] &&
			[ "$(grep -cE '^dc [01] SUCCESS$' "$bin/$f")" = 4 ] &&
			[ "$(grep -cE '^cn2 [01] SUCCESS SUCCESS$' "$bin/$f")" = 2 ] &&
			[ "$(grep -cE '^cn [01] SUCCESS [0-9.]+ ctx=0 ' "$bin/$f")" = 2 ] &&
			[ "$(grep -cE '^qcn [01] slurmix SUCCESS$' "$bin/$f")" = 2 ] &&
			[ "$(grep -cE '^qcn [01] nocluster NOT-SUPPORTED$' "$bin/$f")" = 2 ] || good=0
		done
		if [ $good = 1 ] && [ "$(echo "$ctx" | wc -w)" = 1 ] && [ "$ctx" != 0 ] &&
		   [ "$(cat "$bin"/out.[AB] | grep -E '^cn [01] SUCCESS .* grank=[0-3]$' |
			grep -v 'ctx=0 ' | sed 's/.*grank=//' | sort | tr -d '\n')" = 0123 ]; then
			ok "$name ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# B's ranks finalize while connected to A: each A rank (registered for
	# the code) gets PMIX_ERR_INVALID_TERMINATION from both, across steps
	name="finalize while connected: PMIX_ERR_INVALID_TERMINATION across steps"
	if want_case "$name"; then
		dyn "$name" '$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B regterm cn 20 - 0 waitterm 20 >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all xfind B A cn 20 - 0 >out.B 2>&1 &'
		if [ "$(grep -cE '^term [01] 2 slurmix\.[0-9]+\.[0-9]+$' "$bin/out.A")" = 2 ] &&
		   [ "$(grep -cE '^cn [01] SUCCESS ' "$bin/out.B")" = 2 ]; then
			ok "$name ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# kill -9 of one side while both wait in PMIx_Connect: the other side
	# gets an error (at the latest at its PMIX_TIMEOUT of 15 s), no hang
	name="kill -9 of one side during PMIx_Connect: an error, not a hang"
	if want_case "$name"; then
		dyn "$name" '$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B cn 15 - 0 >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all xfind B A cnkill >out.B 2>&1 &'
		local secs
		secs=$(sed -n 's/^cn [01] [A-Z][A-Z -]* \([0-9.]*\) ctx=.*/\1/p' "$bin/out.A")
		if [ "$(echo "$secs" | wc -w)" = 2 ] &&
		   [ "$(grep -cE '^cn [01] SUCCESS ' "$bin/out.A")" = 0 ] &&
		   ! grep -q HANG "$bin/out.B" &&
		   [ "$(for x in $secs; do echo "$x < 20" | bc; done | sort -u)" = 1 ]; then
			ok "$name: $(sed -n 's/^cn [01] \(.*\) [0-9.]* ctx=.*/\1/p' "$bin/out.A" | sort -u) after $(echo $secs) s ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# A connect whose PMIX_TIMEOUT (3 s) is shorter than SlurmixTimeout,
	# with a peer step that never joins: it fails after its own 3 s, and
	# the step daemons' log says so (not SlurmixTimeout's 30 s)
	name="PMIx_Connect with its own PMIX_TIMEOUT: the log names it"
	if want_case "$name"; then
		log_mark
		# (A stays 2 s after its own error: the step daemons' timer of the
		# connect, started a little after the server's, then fires too)
		dyn "$name" '$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B cn 3 - 0 sleep 2 >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all xfind B A sleep 6 >out.B 2>&1 &'
		local own other
		own=$(log_new | grep -c 'timed out after 3 s')
		other=$(log_new | grep -c 'timed out after 30 s')
		if [ "$(grep -cE '^cn [01] (TIMEOUT|UNREACH)' "$bin/out.A")" = 2 ] &&
		   [ "$own" -ge 1 ] && [ "$other" = 0 ]; then
			ok "$name: $own log lines ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			log_new | grep 'timed out' | head -5
			bad "$name"
		fi
	fi
	# SESSION across two sruns of one job that never met: every rank of
	# the listening step gets the other step's event, and the notifier's
	# PMIx_Notify_event completes with success
	name="PMIx_Notify_event range session across two steps"
	if want_case "$name"; then
		rm -f "$bin/ev.ready"
		dyn "$name" '$S -N2 -n4 -w vn1,vn2 ./pmix_event listen ev.ready >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_event tell ev.ready >out.B 2>&1 &'
		if [ "$(grep -cx OK "$bin/out.A")" = 4 ] && grep -qx 'NOTIFIED SUCCESS' "$bin/out.B"; then
			ok "$name: 4 ranks of the other step got it ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# CUSTOM across two sruns: rank 0 of B names rank 3 of A (on vn2):
	# rank 3 gets it, the other three A ranks do not
	name="PMIx_Notify_event range custom across two steps: the named rank only"
	if want_case "$name"; then
		rm -f "$bin/ev.ready"
		dyn "$name" '$S -N2 -n4 -w vn1,vn2 ./pmix_event listenc ev.ready >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_event tellc ev.ready >out.B 2>&1 &'
		if [ "$(grep -cx OK "$bin/out.A")" = 4 ] && grep -qx 'NOTIFIED SUCCESS' "$bin/out.B" &&
		   grep -qE '^RANK 3 GOT 1 FROM slurmix' "$bin/out.A"; then
			ok "$name: rank 3 of the other step got it, ranks 0-2 did not ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# NOTIFY_EACH / NOTIFY_REQ across nodes and steps (one proc per node):
	# B waits for A's PMIX_CONNECT_REQUESTED (exactly one per proc, source
	# an A rank) before it joins; every proc gets PMIX_PROC_HAS_CONNECTED
	# from each of the 3 others, and then, disconnecting with NOTIFY_EACH,
	# SLURMIX_PROC_HAS_DISCONNECTED from each of the 3 others (which may
	# come while a B rank still waits 300 ms for surplus connect events:
	# the A side can be that much faster)
	name="PMIx connect NOTIFY_EACH, NOTIFY_REQ across nodes"
	if want_case "$name"; then
		dyn "$name" '$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all regev fence xfind A B cnf 20 re waitev 3 0 5 dcf 20 e waitdc 3 5 >out.A 2>&1 &
$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all regev fence xfind B A waitev 0 1 10 cnf 20 e waitev 3 1 5 dcf 20 e waitdc 3 5 >out.B 2>&1 &'
		local wt first last
		# each B rank's first line: after its wait for CONNECT_REQUESTED;
		# its last: after its connect
		first=$(awk '/^ev /{ if (!seen[$2]++) print }' "$bin/out.B")
		last=$(awk '/^ev /{ l[$2] = $0 } END { for (r in l) print l[r] }' "$bin/out.B")
		wt=$(echo "$first" | sed -n 's/^ev [01] each=[0-3] req=1 \([0-9.]*\) .*/\1/p')
		if [ "$(grep -cE '^cnf [01] SUCCESS ' "$bin/out.A")" = 2 ] &&
		   [ "$(grep -cE '^cnf [01] SUCCESS ' "$bin/out.B")" = 2 ] &&
		   [ "$(cat "$bin"/out.A "$bin"/out.B | grep -cE '^dcf [01] SUCCESS ')" = 4 ] &&
		   [ "$(cat "$bin"/out.A "$bin"/out.B | grep -cE '^dev [01] disc=3 [0-9.]+( d[sx][01]){3}$')" = 4 ] &&
		   [ "$(grep -cE '^ev [01] each=3 req=[01] ' "$bin/out.A")" = 2 ] &&
		   [ "$(echo "$last" | grep -cE '^ev [01] each=3 req=1 [0-9.]+( e[sx][01])*( rx[01])( e[sx][01])*( d[sx][01])*$')" = 2 ] &&
		   [ "$(echo "$first" | grep -cE '^ev [01] each=[0-3] req=1 [0-9.]+( e[sx][01])*( rx[01])( e[sx][01])*$')" = 2 ] &&
		   [ "$(echo "$wt" | wc -w)" = 2 ] &&
		   [ "$(for x in $wt; do echo "$x < 5" | bc; done | sort -u)" = 1 ]; then
			ok "$name: CONNECT_REQUESTED after $(echo $wt) s ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	# PMIX_CONNECT_OPTIONAL: a rank dies before joining; the connect
	# completes for the others, long before its PMIX_TIMEOUT of 20 s: B's
	# rank 3 (vn4, beside rank 2), B's rank 1 (alone on vn4: its step
	# daemon ends with it and its participants are dropped, net/coll.c;
	# before, the 3 others failed with UNREACH), and A's rank 0 (alone on
	# vn1, the first participant node: the root of a tree, which is why
	# an optional connect has none; with one, the others failed), and all
	# of B (two nodes gone at once: each is asked again on its own)
	local secs bargs victim nb avictim na
	for victim in 3 1 A0 all; do
		avictim=99 na=2
		if [ $victim = all ]; then
			name="PMIx connect OPTIONAL: every participant of the other step killed"
			bargs="-N2 -n2 -w vn3,vn4" nb=0
		elif [ $victim = 3 ]; then
			name="PMIx connect OPTIONAL: a participant killed on another node is dropped"
			bargs="-N2 -n4 -w vn3,vn4 --ntasks-per-node=2 -O" nb=3
		elif [ $victim = 1 ]; then
			name="PMIx connect OPTIONAL: a node's only participant killed"
			bargs="-N2 -n2 -w vn3,vn4" nb=1
		else
			name="PMIx connect OPTIONAL: the first node's only participant killed"
			bargs="-N2 -n2 -w vn3,vn4" nb=2 victim=99 avictim=0 na=1
		fi
		want_case "$name" || continue
		dyn "$name" "\$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B cnopt $avictim 20 >out.A 2>&1 &
sleep 0.2
\$S $bargs ./pmix_dyn all xfind B A cnopt $victim 20 >out.B 2>&1 &"
		secs=$(cat "$bin/out.A" "$bin/out.B" | sed -n 's/^cnopt [0-2] SUCCESS \([0-9.]*\)$/\1/p')
		if [ "$(grep -cE '^cnopt [01] SUCCESS ' "$bin/out.A")" = "$na" ] &&
		   [ "$(grep -cE '^cnopt [012] SUCCESS ' "$bin/out.B")" = "$nb" ] &&
		   [ "$(for x in $secs; do echo "$x < 10" | bc; done | sort -u)" = 1 ]; then
			ok "$name: $((nb + na)) connected after $(echo $secs) s ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	done
	# One side asks for PMIX_CONNECT_OPTIONAL, the other does not: the two
	# ways of completing cannot meet, so every participant fails at once
	# (PMIX_ERR_BAD_PARAM, a log line) instead of waiting 20 s
	name="PMIx connect OPTIONAL on one side only: a clear error at once"
	if want_case "$name"; then
		dyn "$name" "\$S -N2 -n2 -w vn1,vn2 ./pmix_dyn all xfind A B cnopt 99 20 >out.A 2>&1 &
\$S -N2 -n2 -w vn3,vn4 ./pmix_dyn all xfind B A cn 20 - 0 >out.B 2>&1 &"
		secs=$(cat "$bin/out.A" "$bin/out.B" | sed -n 's/^cn\(opt\)\? [01] BAD-PARAM \([0-9.]*\).*$/\2/p')
		if [ "$(echo "$secs" | wc -w)" = 4 ] &&
		   [ "$(for x in $secs; do echo "$x < 10" | bc; done | sort -u)" = 1 ]; then
			ok "$name: 4 failed after $(echo $secs) s ($dyn_t s)"
		else
			head -30 "$bin"/out.*
			bad "$name"
		fi
	fi
	for how in port.txt -; do
		name="ompi connect/accept across two sruns ($how)"
		want_case "$name" || continue
		dyn "$name" "\$S -N2 -n4 -w vn1,vn2 ./ompi_connect accept $how >out.A 2>&1 &
\$S -N2 -n3 -w vn2,vn3 ./ompi_connect connect $how >out.B 2>&1 &"
		if has out.A "accept ok local=4 remote=3 sum=7" &&
		   has out.B "connect ok local=3 remote=4 sum=7"; then
			ok "$name ($dyn_t s)"
		else
			bad "$name"
		fi
	done
	name="ompi connect/accept, two one-node sruns on one node"
	if want_case "$name"; then
		dyn "$name" '$S -N1 -n2 -w vn1 ./ompi_connect accept port.txt >out.A 2>&1 &
$S -N1 -n2 -w vn1 ./ompi_connect connect port.txt >out.B 2>&1 &'
		if has out.A "accept ok local=2 remote=2 sum=4" &&
		   has out.B "connect ok local=2 remote=2 sum=4"; then
			ok "$name ($dyn_t s)"
		else
			bad "$name"
		fi
	fi
}

# Direct modex honours the Get's own PMIX_TIMEOUT, not SlurmixTimeout
# (here 3 s): a Get (PMIX_TIMEOUT 2) of a key that rank 1 (another node)
# never commits fails after 2 s; a Get (PMIX_TIMEOUT 10) of a key rank 1
# commits about 5 s later gets it (before: TIMEOUT after 3 s)
get_timeout() {
	local name="remote PMIx_Get with its own PMIX_TIMEOUT" out t u
	want_case "$name" || return 0
	out=$(cd "$bin" && SLURMIX_TIMEOUT=3 timeout 60 srun --mpi=slurmix -N2 -n2 \
		./pmix_dyn all getto 1 nokey 2 0 getto 1 late 10 3 2>&1)
	t=$(echo "$out" | sed -n 's/^getto 0 TIMEOUT \([0-9.]*\) -$/\1/p')
	u=$(echo "$out" | sed -n 's/^getto 0 SUCCESS \([0-9.]*\) late$/\1/p')
	if [ -n "$t" ] && [ "$(echo "$t > 1.5 && $t < 2.9" | bc)" = 1 ] &&
	   [ -n "$u" ] && [ "$(echo "$u > 3.5 && $u < 8" | bc)" = 1 ]; then
		ok "$name: TIMEOUT after $t s, a late commit after $u s"
	else
		echo "$out" | tail -20
		bad "$name"
	fi
}

# ---- broken input from inside the job (helper "robust") -------------------


# An authenticated peer (it has the job key, as any task of the job does)
# sends broken LOST, FANIN, FANOUT, CONTRIB, DMDX_REQ/RESP, EVENT,
# EVENT_FWD/ACK, HOLD, EVREG, EVLOST and unknown messages to every step
# daemon (peer_garbage.py), claiming another node
# of the step and a stepd of another step. Each stepd must log them, drop
# them (or the connection) and keep serving: the tasks' fences and direct
# modex afterwards succeed. Per endpoint (two connections) at least: 20
# malformed LOST, 18 malformed FANIN/FANOUT/CONTRIB, 2 unexpected FANOUT, 8 bad
# DMDX_REQ, 10 malformed EVENT, 12 malformed EVENT_FWD, 4 malformed
# synchronous EVENT_FWD, 2 malformed abort requests, 4 malformed EVENT_ACK,
# 10 malformed HOLD (one with a job information blob that does not
# unpack), 5 malformed EVREG (and 5 refused from another step), 6
# malformed EVLOST, 6 broken IOF_SUB and 4 that ask for what the node does
# not hold (another step may ask for this step's output: its requests
# are checked the same way), 2 broken IOF_DATA and 1 for a rank the
# sender does not hold, 4 IOF_READY/IOF_DATA refused from another step
# that was not asked, 12 broken STDIN, 2 STDIN for another step and 2
# for a rank out of range, 4 broken STDIN_ACK, 2 unknown commands in the
# node logs.
auth_garbage() {
	local name="authenticated peer sends broken messages" pid rc eps sent t0 n
	local lost coll fout dmdx ev unk tbl fwd ack nd sfwd hold kab reg oreg elost isub iask idat ihold iother exits
	local sin sother sranks sack
	want_case "$name" || return 0
	rm -f "$bin/robust.key" "$bin/robust.go"
	log_mark
	t0=$(now)
	(cd "$bin" && timeout 90 srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 \
		bash -c '[ "$SLURM_PROCID" = 0 ] && echo "$SLURM_JOB_ID" >robust.job &&
				echo "$SLURMIX_STEP_KEY $SLURM_STEP_ID" >robust.key
			for i in $(seq 150); do [ -e robust.go ] && break; sleep 0.2; done
			exec ./pmix_modex 5' >"$state/auth.out" 2>&1) &
	pid=$!
	for n in $(seq 100); do [ -s "$bin/robust.key" ] && break; sleep 0.1; done
	sleep 0.5	# every stepd listens, the early links are up
	eps=$(stepd_endpoints)
	# shellcheck disable=SC2046
	sent=$(SLURMIX_GARBAGE_JOB=$(cat "$bin/robust.job") \
		python3 "$here/peer_garbage.py" $(cat "$bin/robust.key") 4 $eps 2>&1)
	touch "$bin/robust.go"
	wait "$pid"
	rc=$?
	sleep 0.5
	lost=$(log_new | grep -c "malformed LOST message from node")
	coll=$(log_new | grep -c "malformed fence message from node")
	fout=$(log_new | grep -c "unexpected FANOUT from node")
	dmdx=$(log_new | grep -c "bad direct modex request from node")
	ev=$(log_new | grep -c "malformed EVENT from node")
	fwd=$(log_new | grep -c "malformed EVENT_FWD from node")
	sfwd=$(log_new | grep -c "malformed synchronous EVENT_FWD from node")
	hold=$(log_new | grep -c "malformed HOLD message from node")
	kab=$(log_new | grep -c "malformed abort request from")
	ack=$(log_new | grep -c "malformed EVENT_ACK from node")
	unk=$(log_new | grep -c "unknown message 99 from node")
	tbl=$(log_new | grep -c "endpoint table from node .* dropped")
	nd=$(log_new | grep -c "malformed NODE_DOWN message from node")
	reg=$(log_new | grep -c "malformed EVREG from node")
	oreg=$(log_new | grep -c "EVREG from a step daemon of another step")
	elost=$(log_new | grep -c "malformed EVLOST from node")
	isub=$(log_new | grep -c "IOF: a broken output request from node")
	iask=$(log_new | grep -c "IOF: node [0-9]* asked for rank")
	idat=$(log_new | grep -c "IOF: a broken output message from node")
	ihold=$(log_new | grep -c "which it does not hold or nobody asked for")
	iother=$(log_new | grep -c "IOF: message 2[234] from peer [0-9]*, which is no other node")
	exits=$(log_new | grep -c "malformed \(EXITS\|PIDS\) message from node")
	sin=$(log_new | grep -c "stdin push: a broken message from peer")
	sother=$(log_new | grep -c "stdin push: peer [0-9]* pushes to slurmix.999999999.3, not this step")
	sranks=$(log_new | grep -c "stdin push: peer [0-9]* names ranks not on this node")
	sack=$(log_new | grep -c "stdin push: a broken answer from peer")
	jctl=$(log_new | grep -c "job control: a broken request from node")
	n=$(echo $eps | wc -w)
	if [ $rc -eq 0 ] && grep -qx OK "$state/auth.out" && [ "$n" -ge 4 ] &&
	   [[ $sent == SENT* ]] && [ "$lost" -ge $((20 * n)) ] && [ "$coll" -ge $((18 * n)) ] &&
	   [ "$fout" -ge $((2 * n)) ] && [ "$dmdx" -ge $((8 * n)) ] && [ "$ev" -ge $((10 * n)) ] &&
	   [ "$fwd" -ge $((12 * n)) ] && [ "$sfwd" -ge $((4 * n)) ] && [ "$ack" -ge $((4 * n)) ] &&
	   [ "$hold" -ge $((10 * n)) ] && [ "$kab" -ge $((2 * n)) ] &&
	   [ "$unk" -ge $((2 * n)) ] && [ "$tbl" -ge $((4 * n)) ] && [ "$nd" -ge $((6 * n)) ] &&
	   [ "$reg" -ge $((5 * n)) ] && [ "$oreg" -ge $((5 * n)) ] && [ "$elost" -ge $((6 * n)) ] &&
	   [ "$isub" -ge $((6 * n)) ] && [ "$iask" -ge $((4 * n)) ] && [ "$idat" -ge $((2 * n)) ] &&
	   [ "$ihold" -ge "$n" ] && [ "$iother" -ge $((4 * n)) ] && [ "$exits" -ge $((6 * n)) ] &&
	   [ "$sin" -ge $((12 * n)) ] && [ "$sother" -ge $((2 * n)) ] && [ "$sranks" -ge $((2 * n)) ] &&
	   [ "$sack" -ge $((4 * n)) ] && [ "$jctl" -ge $((24 * n)) ]; then
		ok "$name: $n stepds, ${sent#SENT } messages; logged $lost LOST, $coll fence," \
			"$fout FANOUT, $dmdx dmdx, $ev EVENT, $fwd+$sfwd EVENT_FWD, $ack EVENT_ACK, $tbl TABLE," \
			"$nd NODE_DOWN, $hold HOLD, $kab abort, $reg+$oreg EVREG, $elost EVLOST," \
			"$isub+$iask IOF_SUB, $idat+$ihold IOF_DATA, $iother IOF from another step," \
			"$exits EXITS/PIDS, $sin+$sother+$sranks STDIN, $sack STDIN_ACK, $jctl JOBCTL," \
			"$unk unknown;" \
			"job OK ($(since "$t0") s)"
	else
		tail -20 "$state/auth.out"
		echo "sender: $sent; endpoints: $eps"
		bad "$name" "(rc $rc; $lost LOST, $coll fence, $fout FANOUT, $dmdx dmdx, $ev EVENT," \
			"$fwd+$sfwd EVENT_FWD, $ack EVENT_ACK, $tbl TABLE, $nd NODE_DOWN, $hold HOLD," \
			"$reg+$oreg EVREG, $isub+$iask IOF_SUB, $idat+$ihold IOF_DATA, $iother IOF other," \
			"$exits EXITS, $sin+$sother+$sranks STDIN, $sack STDIN_ACK, $unk unknown)"
	fi
	rm -f "$bin/robust.key" "$bin/robust.go" "$bin/robust.job"
}

# SLURMIX_PROC_MAP (the process map srun gives the step daemons). A user's
# own value does not reach them: srun's prelaunch overwrites it (the job
# runs and the tasks see srun's map). A user who changes srun itself can
# send anything (srun runs as the user; srun_map_shim.so stands in for
# that): a map that does not parse, one that disagrees with the step's
# counts, one that puts this node's ranks on another node - the step fails
# at once with the reason in the node log, nothing is left behind.
proc_map_env() {
	local name="user's SLURMIX_PROC_MAP is overwritten by srun" out rc
	want_case "$name" || return 0
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N2 -n4 --ntasks-per-node=2 \
		--export=ALL,SLURMIX_PROC_MAP=garbage,SLURMIX_STEP=9.9 \
		bash -c 'echo "MAP=$SLURMIX_PROC_MAP"; exec ./pmix_modex 3' 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qx OK <<<"$out" &&
	   [ "$(echo "$out" | grep -cx 'MAP=1;4;0-1|2-3')" = 4 ]; then
		ok "$name (tasks see srun's map, job OK)"
	else
		echo "$out" | tail
		bad "$name" "(rc $rc)"
	fi
}

# proc_map_bad LABEL MAP LOG-REGEX OUT-REGEX [task]: the map reaches the
# step daemons of "-N2 -n4"; the node logs must give the reason
# (LOG-REGEX), srun's output must show the failure (OUT-REGEX, 4 lines:
# one per task), never OK, srun must exit non-zero, no hang, no step
# directory or slurmstepd left. A step daemon whose set-up failed tells
# srun ("the step could not be set up on <node>"), which exits 1: srun
# 22.05 alone exits 0 when every launch failed (no task ever ran). With
# "task" the set-up succeeds and the tasks fail in the task hook (exit 1).
proc_map_bad() {
	local name="broken SLURMIX_PROC_MAP from a modified srun: $1" out rc t0 t logged left fails
	want_case "$name" || return 0
	log_mark
	t0=$(now)
	out=$(cd "$bin" && SLURMIX_TEST_PROC_MAP=$2 LD_PRELOAD="$bin/srun_map_shim.so" \
		timeout 60 srun --mpi=slurmix -N2 -n4 --ntasks-per-node=2 ./pmix_modex 3 2>&1)
	rc=$?
	t=$(since "$t0")
	sleep 0.5
	logged=$(log_new | grep -cE "$3")
	fails=$(echo "$out" | grep -cE "$4")
	for n in $(seq 20); do [ -z "$(my_stepds)" ] && break; sleep 0.25; done
	left=$(ls -d "$state"/nodes/*/tmp/slurmix.* 2>/dev/null; my_stepds)
	if [ $rc -ne 124 ] && [ $rc -ne 0 ] &&
	   { [ -n "${5:-}" ] || grep -q "slurmix: the step could not be set up on vn" <<<"$out"; } &&
	   ! grep -qx OK <<<"$out" && [ "$fails" -eq 4 ] &&
	   [ "$logged" -ge 1 ] && [ -z "$left" ] && [ "$(echo "$t < 20" | bc)" = 1 ]; then
		ok "$name: rc $rc in $t s, $fails task failures, $logged log lines, nothing left"
	else
		echo "$out" | tail
		bad "$name" "(rc $rc, $t s, $fails task failures, $logged log lines, left: $left)"
	fi
}

robust_cases() {
	local launch="launch failed" map="mpi/slurmix: .*SLURMIX_PROC_MAP"
	auth_garbage
	proc_map_env
	proc_map_bad "garbage" "garbage" "$map" "$launch"
	proc_map_bad "empty" "" "$map" "$launch"
	proc_map_bad "wrong task count" "1;8;0-3|4-7" "$map is not for 4 tasks" "$launch"
	proc_map_bad "2^24 tasks" "1;16777215;0-16777214" "$map is not for 4 tasks" "$launch"
	proc_map_bad "wrong tasks per node" "1;4;0-2|3" "process map .* disagrees" "$launch"
	# counts agree, ranks swapped between the nodes: each task fails in the
	# task hook (no log line of ours after fork; Slurm's own)
	proc_map_bad "ranks of the other node" "1;4;2-3|0-1" \
		"Unable to configure MPI plugin" "Unable to configure MPI plugin: Invalid argument" task
}

# Each task's PMIX_CPUSET and PMIX_LOCALITY_STRING follow its binding
# (--cpu-bind mask_cpu / map_cpu as the task plugin passes it; task/none
# here does not apply it but still hands it to the step), every local peer
# sees the same string as the task itself, and without a binding every
# task gets the step daemon's CPUs.
locality_case() {	# locality_case NAME EXPECTED-"rank cpuset" SRUN-ARGS...
	local name=$1 want=$2 out rc t0 r c rc_pair
	shift 2
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix "$@" ./pmix_loc 2>/dev/null)
	rc=$?
	for rc_pair in $want; do
		r=${rc_pair%%=*} c=${rc_pair#*=}
		grep -qE "^LOC $r hwloc:$c NM" <<<"$out" || rc=1
	done
	# the string a task reports for itself is the one its peers get
	echo "$out" | awk '$1 == "LOC" { own[$2] = $4 } $1 == "PEER" { seen[$3] = seen[$3] " " $4 }
		END { for (r in seen) { n = split(seen[r], s, " "); for (i = 1; i <= n; i++)
			if (s[i] != own[r]) bad = 1 }; exit bad }' || rc=1
	if [ $rc -eq 0 ] && ! grep -q FAIL <<<"$out"; then
		ok "$name ($(since "$t0") s)"
	else
		echo "$out" | tail -12
		bad "$name" "(rc $rc)"
	fi
}

# DebugFlags=MPI and SlurmdDebug=verbose (the logging case turns them on;
# a case run alone turns them on itself).
mpi_debug_on() {
	if ! grep -q '^DebugFlags=MPI' "$state/etc/slurm.conf" ||
	   ! grep -q '^SlurmdDebug=verbose' "$state/etc/slurm.conf"; then
		sed -i -e 's/^SlurmdDebug=.*/SlurmdDebug=verbose/' -e '/^DebugFlags=/d' \
			"$state/etc/slurm.conf"
		echo "DebugFlags=MPI" >>"$state/etc/slurm.conf"
		scontrol reconfigure >/dev/null && sleep 1
	fi
}

# ---- the end of a step and its CPU share (stepd/reap.c, stepd/weight.c) ----

# Every task's exit code still reaches srun when the stepd no longer waits
# Slurm's 100 ms for more exits: six tasks on two nodes end within a few
# ms with codes 0..5 (each task runs a PMIx client that finalizes, then
# exits with its code); srun exits 5 and names each failed task's code.
# Then the exits spread over half a second, one task killed by SIGKILL.
step_end_codes() {
	local name="exit codes of every task with the fast step end" out rc c
	want_case "$name" || return 0
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N2 -n6 --ntasks-per-node=3 \
		sh -c './pmix_probe >/dev/null; exit $SLURM_PROCID' 2>&1)
	rc=$?
	for c in 1 2 3 4 5; do
		grep -qE "task[s]? [0-9,-]*\b$c\b[0-9,-]*: Exited with exit code $c" <<<"$out" || rc=99
	done
	# the same with exits spread over 0.5 s and one task killed
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N2 -n6 --ntasks-per-node=3 \
		sh -c './pmix_probe >/dev/null; sleep 0.$SLURM_PROCID; [ $SLURM_PROCID = 4 ] && kill -9 $$
			exit $SLURM_PROCID' 2>&1)
	c=$?
	grep -q "task 4: Killed" <<<"$out" && grep -q "task 5: Exited with exit code 5" <<<"$out" &&
		[ $c -ne 0 ] || rc=98
	if [ $rc -eq 5 ]; then
		ok "$name"
	else
		echo "$out" | tail -12
		bad "$name" "(rc $rc)"
	fi
}

# Four PMIx tasks on one node that finalize and end at once: srun returns
# at least 50 ms sooner than with SLURMIX_FAST_STEP_END=no (Slurm's pause
# is 100 ms; medians of 5 alternating runs each), and the stepd logs the
# cut (DebugFlags=MPI). Tasks that do not use PMIx keep the pause: no
# such line for /bin/true.
step_end_time() {
	local name="fast step end saves Slurm's reaping pause" r f t0 mf ms fast="" slow="" cut plain
	want_case "$name" || return 0
	mpi_debug_on
	for r in 1 2 3 4 5; do
		for f in yes no; do
			t0=$(date +%s%N)
			(cd "$bin" && SLURMIX_FAST_STEP_END=$f timeout 60 \
				srun --mpi=slurmix -N1 -n4 ./pmix_probe) >/dev/null 2>&1 ||
				{ bad "$name" "(srun failed)"; return; }
			t0=$((($(date +%s%N) - t0) / 1000000))
			if [ $f = yes ]; then fast+=" $t0"; else slow+=" $t0"; fi
		done
	done
	mf=$(printf '%s\n' $fast | sort -n | sed -n 3p)
	ms=$(printf '%s\n' $slow | sort -n | sed -n 3p)
	log_mark
	(cd "$bin" && timeout 60 srun --mpi=slurmix -N1 -n4 ./pmix_probe) >/dev/null 2>&1
	sleep 0.3
	cut=$(log_new | grep -c "pause cut short")
	log_mark
	(cd "$bin" && timeout 60 srun --mpi=slurmix -N1 -n4 /bin/true) >/dev/null 2>&1
	sleep 0.3
	plain=$(log_new | grep -c "pause cut short")
	if [ $((ms - mf)) -ge 50 ] && [ "$cut" = 1 ] && [ "$plain" = 0 ]; then
		ok "$name: $mf ms against $ms ms; cut for PMIx tasks, not for /bin/true"
	else
		bad "$name" "($mf ms against $ms ms; cut logged $cut, for /bin/true $plain)"
	fi
}

# slurm.conf SrunPortRange (firewalled submit hosts): srun's agent, which
# the step daemons connect to, listens on a port of the range, and the job
# works. The range is removed again afterwards.
srun_port_range() {
	local name="srun's agent honours SrunPortRange" lo=$((port + 1000)) hi=$((port + 1099)) out p bad_ports=0
	want_case "$name" || return 0
	echo "SrunPortRange=$lo-$hi" >>"$state/etc/slurm.conf"
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N2 -n4 sh -c \
		'echo "PORT $SLURMIX_SRUN_PORT"; ./ompi_hello 4 2' 2>&1)
	sed -i '/^SrunPortRange=/d' "$state/etc/slurm.conf"
	for p in $(echo "$out" | sed -n 's/^PORT //p'); do
		[ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ] || bad_ports=1
	done
	if [ "$(echo "$out" | grep -c '^PORT [0-9]')" = 4 ] && [ $bad_ports = 0 ] &&
	   grep -q '^OK$' <<<"$out"; then
		ok "$name: port $(echo "$out" | sed -n 's/^PORT //p' | head -1) in $lo-$hi, job OK"
	else
		echo "$out" | tail -10
		bad "$name"
	fi
}

# The step daemons take slurmd's cached topology (SlurmdSpoolDir/
# hwloc_topo_whole.xml) instead of discovering it again, and the tasks'
# locality strings stay right: one "from slurmd's cache" line per node
# (DebugFlags=MPI), pmix_loc sees its own CPUs.
# slurmd up to Slurm 24.11 caches its topology in its spool directory; the
# step daemons of a later Slurm, which writes none, discover it.
topology_cache() {
	local name="topology from slurmd's cache" out n how="from slurmd's cache"
	want_case "$name" || return 0
	[ -e "$state/nodes/vn1/spool/hwloc_topo_whole.xml" ] || how=discovered
	mpi_debug_on
	log_mark
	out=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N2 -n2 ./pmix_loc 2>&1)
	sleep 0.3
	n=$(log_new | grep -c "topology $how")
	if [ "$n" = 2 ] && grep -qE "^LOC 1 hwloc:$own_cpus NM" <<<"$out" &&
	   ! grep -q FAIL <<<"$out"; then
		ok "$name: 2 step daemons, topology $how, locality OK"
	else
		echo "$out" | tail -5
		bad "$name" "($n log lines)"
	fi
}

# SlurmixTaskWeight weighs only spawned steps (run_spawn_tests.sh checks
# those): a plain step of 4 tasks keeps its autogroup's nice value 0.
task_weight() {
	local name="a plain step keeps the default CPU share" a
	want_case "$name" || return 0
	a=$(cd "$bin" && timeout 60 srun --mpi=slurmix -N1 -n4 cat /proc/self/autogroup 2>&1 |
		sed -n 's/.* nice //p' | sort -u | tr '\n' ' ')
	if [ "$a" = "0 " ]; then
		ok "$name: 4 tasks, autogroup nice 0"
	else
		bad "$name" "(4 tasks: '$a')"
	fi
}

build_programs() {
	cp "$here/poke_agent.py" "$bin/" || return 1
	local p
	for p in ompi_hello ompi_allreduce ompi_ring ompi_killed; do
		mpicc -O2 -o "$bin/$p" "$here/$p.c" || return 1
	done
	mpicc -O2 -o "$bin/ompi_abort" "$repo/tests/clients/ompi_abort.c" || return 1
	mpicc -O2 -o "$bin/ompi_connect" "$here/ompi_connect.c" || return 1
	for p in pmix_modex pmix_fail pmix_killed pmix_probe pmix_dyn pmix_loc pmix_event \
		pmix_abort pmix_jobend; do
		cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/$p" "$here/$p.c" \
			-L"$build/.libs" -lpmix || return 1
	done
	cp "$repo/tests/clients/py_basic.py" "$bin/"
	cc -std=gnu11 -O2 -shared -fPIC -o "$bin/srun_map_shim.so" "$here/srun_map_shim.c" -ldl || return 1
}

# ---- main ----------------------------------------------------------------
t_all=$(now)
mkdir -p "$bin"
chmod 755 "$state" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
cluster 4 4 || { echo "FAIL cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
# the job directories of our sruns (docs/dynamic.md 1): not the host's
# /tmp, which other clusters on this machine (same job ids) share
export SLURMIX_JOBDIR_BASE=$state/jobdirs
mkdir -p "$SLURMIX_JOBDIR_BASE"
build_programs || { echo "FAIL cannot build the test programs"; exit 1; }

run "ompi_hello -N4 -n8 block" '^OK$' -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4
run "ompi_hello -N4 -n8 cyclic" '^OK$' -N4 -n8 -m cyclic ./ompi_hello 8 4
run "ompi_hello -N3 -n7 uneven" '^OK$' -N3 -n7 ./ompi_hello 7 3
run "ompi_hello -N1 -n4 one node" '^OK$' -N1 -n4 ./ompi_hello 4 1
run "ompi_allreduce -N4 -n8" '^OK$' -N4 -n8 --ntasks-per-node=2 ./ompi_allreduce 20
run "ompi_ring -N4 -n8 block" '^OK$' -N4 -n8 --ntasks-per-node=2 ./ompi_ring 10
run "ompi_ring -N3 -n7 cyclic uneven" '^OK$' -N3 -n7 -m cyclic ./ompi_ring 10
run "pmix_modex -N4 -n8 block" '^OK$' -N4 -n8 --ntasks-per-node=2 ./pmix_modex 10
run "pmix_modex -N4 -n8 cyclic" '^OK$' -N4 -n8 -m cyclic ./pmix_modex 10
run "pmix_modex -N3 -n7 uneven" '^OK$' -N3 -n7 ./pmix_modex 4
for r in namespace session global custom; do
	event_case "$r" 8 -N4 -n8 --ntasks-per-node=2
done
event_order 1000
event_late
event_affected
event_degrade
event_overflow
event_burst "${SLURMIX_BURST:-12500}"	# 8 x 12500: the 100,000 of docs/events.md
own_cpus=$(cd "$bin" && srun -N1 -n1 sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status' 2>/dev/null)
locality_case "locality strings, no binding" "0=$own_cpus 1=$own_cpus" -N1 -n2
locality_case "locality strings, mask_cpu" "0=0 1=1" -N1 -n2 --cpu-bind=mask_cpu:0x1,0x2
# 3 tasks on each node (-n4 with --ntasks-per-node=3 is 3+1 in Slurm 22.05,
# 2+2 in 26.05): the map wraps on both nodes
locality_case "locality strings, map_cpu -N2 -n6" "0=1 1=0 2=1 3=1 4=0 5=1" -N2 -n6 \
	--ntasks-per-node=3 --cpu-bind=map_cpu:1,0
run "python3-pmix -N4 -n8" '^python ok: size 8$' -N4 -n8 --ntasks-per-node=2 \
	/usr/bin/python3 ./py_basic.py 8
run "python3-pmix -N3 -n7 cyclic" '^python ok: size 7$' -N3 -n7 -m cyclic \
	/usr/bin/python3 ./py_basic.py 7
abort_case "MPI_Abort(7) -N4 -n8" -N4 -n8 --ntasks-per-node=2 ./ompi_abort
abort_case "MPI_Abort(7) -N1 -n2 one node" -N1 -n2 ./ompi_abort 0
killed_pmix "pmix rank 3 SIGKILL in a fence -N4 -n8" 4 8 kill --ntasks-per-node=2
killed_pmix "pmix rank 3 exits without finalizing in a fence -N4 -n8" 4 8 exit --ntasks-per-node=2
abort_ranks_case one
abort_ranks_case race
abort_ranks_case stubborn
jobend_case answered
jobend_case silent
jobend_case none
jobend_garbled_ack
killed_ompi
fence_timeout
strangers
security
no_leftovers "4 nodes"
logging
event_sparse	# after logging: it turns DebugFlags=MPI on
stepd_killed
node_down
srun_requests_broken
get_timeout
step_end_codes
step_end_time
task_weight
srun_port_range
topology_cache
dyn_cases
robust_cases
no_leftovers "steps of one allocation"

if want_case "TreeWidth=2|8 nodes"; then
	cluster 8 2 || { echo "FAIL cannot start 8 nodes"; exit 1; }
	run "ompi_hello -N8 -n16 TreeWidth=2" '^OK$' -N8 -n16 --ntasks-per-node=2 ./ompi_hello 16 8
	run "ompi_allreduce -N8 -n16 TreeWidth=2" '^OK$' -N8 -n16 --ntasks-per-node=2 ./ompi_allreduce 20
	run "ompi_ring -N8 -n15 cyclic TreeWidth=2" '^OK$' -N8 -n15 -m cyclic ./ompi_ring 5
	run "pmix_modex -N8 -n16 cyclic TreeWidth=2" '^OK$' -N8 -n16 -m cyclic ./pmix_modex 10
	run "pmix_modex -N5 -n5 TreeWidth=2" '^OK$' -N5 -n5 ./pmix_modex 10
	run "python3-pmix -N8 -n16 TreeWidth=2" '^python ok: size 16$' -N8 -n16 \
		--ntasks-per-node=2 /usr/bin/python3 ./py_basic.py 16
	killed_pmix "pmix rank 3 SIGKILL -N8 -n16 TreeWidth=2" 8 16 kill --ntasks-per-node=2
	abort_case "MPI_Abort(7) -N8 -n16 TreeWidth=2" -N8 -n16 --ntasks-per-node=2 ./ompi_abort 5
	no_leftovers "8 nodes"
fi

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
