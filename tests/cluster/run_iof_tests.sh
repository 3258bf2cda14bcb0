#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_iof_tests.sh - IO forwarding under srun --mpi=slurmix on the virtual
# cluster (docs/iof.md): the tasks' output captured in the step daemons
# with Slurm's handling of it unchanged, PMIx_IOF_pull of it on any node,
# its end before the termination event. Part of `make check`, beside
# run_cluster_tests.sh and built the same way:
#
#   tests/cluster/run_iof_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .), SLURMIX_ITEST_STATE (state
# dir, default /var/lib/slurmix-itest), SLURMIX_ITEST_PORT (port base,
# default 27917), CI (when "true", missing prerequisites fail).
#
# One cluster of 3 nodes, stopped on any exit. Prints "PASS name (time)" /
# "FAIL name" per case and "N passed, M failed"; exits 0, 1 on failures,
# 77 (skip) when not root or srun/mpicc/the build are missing and CI is
# not "true".
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_ITEST_STATE:-/var/lib/slurmix-itest}
port=${SLURMIX_ITEST_PORT:-27917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"

S="srun --mpi=slurmix"
gen=$bin/iof_gen
attach=$build/slurmix-attach

# iof_case NAME CHECK COMMAND...: runs COMMAND in $bin (its output in
# $out, its status in $rc), then CHECK (a bash expression) must be true.
iof_case() {
	local name=$1 check=$2 t0
	shift 2
	want_case "$name" || return 0
	log_mark_now
	t0=$(now)
	out=$(cd "$bin" && timeout 120 "$@" 2>&1)
	rc=$?
	t=$(since "$t0")
	if eval "$check"; then
		ok "$name ($t s)"
	else
		echo "$out" | tail -c 2000 | tail -20
		bad "$name" "(rc $rc, $t s)$(why_failed)"
	fi
}

# why_failed: after a failed case, the lines that tell why, on the FAIL
# line itself (CI shows only those lines of a suite's log): srun's own
# errors from $out and the step daemons' errors logged since the case
# began ($log_mark: the slurmd logs' sizes then).
why_failed() {
	local e f n=0
	e=$(grep -a -E '^srun: (error|Job step)|slurmstepd: error' <<<"$out" | tail -3)
	for f in "$state"/log/slurmd.*.log; do
		[ -f "$f" ] || continue
		e+=$'\n'$(tail -c +"$((${log_mark[$n]:-0} + 1))" "$f" | grep -a -E 'error|Killed|signal' |
			tail -2 | sed "s|^|${f##*/}: |")
		n=$((n + 1))
	done
	e=$(sed '/^$/d' <<<"$e" | head -8 | tr '\n' ';' | tr -s ' ' | cut -c1-600)
	[ -n "$e" ] && printf ' [%s]' "$e"
}

# log_mark_now: remembers the slurmd logs' sizes (why_failed reads what
# came after).
log_mark_now() {
	local f
	log_mark=()
	for f in "$state"/log/slurmd.*.log; do
		[ -f "$f" ] && log_mark+=("$(stat -c %s "$f")")
	done
}

# same FILE RANK CH OUT ERR: FILE holds exactly what iof_gen OUT ERR wrote
# on channel CH (1 or 2) as rank RANK.
same() {
	if [ "$3" = 1 ]; then
		cmp -s "$1" <("$gen" "$4" "$5" "$2" 2>/dev/null)
	else
		cmp -s "$1" <("$gen" "$4" "$5" "$2" 2>&1 >/dev/null)
	fi
}

# all_same PATTERN FIRST NTASKS OUT ERR: PATTERN.R.out and PATTERN.R.err
# of every rank R from FIRST are what it wrote (with FIRST 1: rank 0
# printed a verdict instead).
all_same() {
	local r
	for r in $(seq "$2" $(($3 - 1))); do
		same "$bin/$1.$r.out" "$r" 1 "$4" "$5" && same "$bin/$1.$r.err" "$r" 2 "$4" "$5" ||
			{ echo "rank $r differs"; return 1; }
	done
}

# label_same FILE NTASKS N: each task's labelled lines in FILE (srun -l)
# hold exactly the N lines "iof_gen lines N" wrote as that rank. Slurm's
# labelling itself breaks a line where its buffers end (with or without
# slurmix, differently each run), so labels and newlines are left out of
# the comparison.
label_same() {
	local r
	for r in $(seq 0 $(($2 - 1))); do
		cmp -s <(grep -a "^$r: " "$1" | sed "s/^$r: //" | tr -d '\n') \
			<("$gen" lines "$3" "$r" | tr -d '\n') || { echo "task $r differs"; return 1; }
	done
}

capture_cases() {
	# 64 MiB of every byte value with a partial last line, one task:
	# srun's stdout and stderr are exactly what it wrote
	iof_case "capture: 64 MiB binary on srun's stdout, byte-exact" \
		'[ $rc = 0 ] && same "$bin/big.out" 0 1 67108864 100001 && same "$bin/big.err" 0 2 67108864 100001' \
		bash -c "$S -n1 ./iof_gen 67108864 100001 >big.out 2>big.err"
	rm -f "$bin"/big.*
	# --output/--error with %j and %t: Slurm's files, which the tasks
	# write themselves (not relayed: Slurm does not wait for them)
	iof_case "capture: --output/--error %j.%t files -N3 -n5, byte-exact" \
		'[ $rc = 0 ] && all_same "f.$(cat "$bin/f.job")" 0 5 1048576 5000' \
		bash -c "$S -N3 -n5 --output=f.%j.%t.out --error=f.%j.%t.err ./iof_gen 1048576 5000 &&
			ls f.*.0.out | sed 's/^f\.\([0-9]*\)\..*/\1/' >f.job"
	rm -f "$bin"/f.*
	# --label: each task's lines, labelled
	iof_case "capture: --label -N2 -n4, every task's lines" \
		'[ $rc = 0 ] && label_same "$bin/l.out" 4 20000 && [ "$(grep -ac "^[0-3]: rank" "$bin/l.out")" -ge 80000 ]' \
		bash -c "$S -l -N2 -n4 ./iof_gen lines 20000 >l.out"
	rm -f "$bin"/l.*
	# --output without --error: Slurm's one file for both; their order
	# stays
	iof_case "capture: stdout and stderr into one --output file keep their order" \
		'[ $rc = 0 ] && cmp -s "$bin/m.0" <(for i in $(seq 0 1999); do echo "out $i"; echo "err $i"; done)' \
		$S -n1 --output=m.%t ./iof_gen mix 2000
	rm -f "$bin"/m.*
	# srun -u gives the task a terminal as stdout: left alone
	iof_case "capture: -u keeps the terminal (isatty) and the bytes" \
		'[ $rc = 0 ] && grep -qx "tty 0=0 1=1 2=0" <<<"$out" && same "$bin/u.out" 0 1 1048576 1000 &&
		 same "$bin/u.err" 0 2 1048576 1000' \
		bash -c "$S -u -n1 ./iof_gen tty && $S -u -n1 ./iof_gen 1048576 1000 >u.out 2>u.err"
	rm -f "$bin"/u.*
	iof_case "capture: --pty keeps the terminal (isatty)" \
		'[ $rc = 0 ] && grep -q "tty 0=1 1=1 2=1" <<<"$out"' \
		script -qec "$S --pty -n1 ./iof_gen tty" /dev/null
	iof_case "capture: a pipe otherwise (isatty false)" \
		'[ $rc = 0 ] && grep -qx "tty 0=0 1=0 2=0" <<<"$out"' \
		$S -n1 ./iof_gen tty
}

pull_cases() {
	# rank 0 pulls every rank's stdout and stderr, on 3 nodes, before
	# they write: every byte, in order, and each end
	iof_case "pull: every byte of every rank, -N3 -n5 cyclic" \
		'[ $rc = 0 ] && grep -qa "LIVE ok streams=8 bytes=4198400" "$bin/p.out"' \
		bash -c "$S -N3 -n5 -m cyclic ./pmix_iofpull live 1048576 1024 >p.out 2>p.err"
	rm -f "$bin"/p.*
	# after 1 MiB per stream: CACHE_SIZE 4096 with DROP_NEWEST gives the
	# first 4096 bytes, DROP_OLDEST the last 4096, the rest reported
	# dropped; a second subscriber the same (other nodes' streams too)
	iof_case "pull: late subscribers, CACHE_SIZE 4096, DROP_NEWEST/OLDEST, -N3 -n5" \
		'[ $rc = 0 ] && grep -qa "CACHE ok streams=8" "$bin/c.out"' \
		bash -c "$S -N3 -n5 ./pmix_iofpull cache 1048576 10000 >c.out 2>c.err"
	grep -ao "BAD [^\n]*" "$bin"/c.out 2>/dev/null | head -3
	rm -f "$bin"/c.*
	# SlurmixIOF=no: the tasks keep Slurm's descriptors (the output is
	# whole: rank 1 writes to --output files, left to it), and a pull
	# gets nothing
	iof_case "pull: SLURMIX_IOF=no captures nothing, the output is whole" \
		'[ $rc = 1 ] && grep -q "BAD LIVE: 0 of 2 ends" "$bin/n.0.out" && all_same n 1 2 4096 100' \
		env SLURMIX_IOF=no IOFPULL_WAIT_S=2 $S -N1 -n2 --output=n.%t.out --error=n.%t.err \
			./pmix_iofpull live 4096 100
	rm -f "$bin"/n.*
	# the end of a lost task's stream before its termination event, with
	# a child that keeps its stdout open 300 ms after it exited
	iof_case "end of stream before the termination event" \
		'grep -qx "ORDER first=complete lines=101 late=1" <<<"$out"' \
		$S -N1 -n2 ./pmix_iofend
}

# per_rank FILE N LINES: FILE holds, for each rank R < N, exactly the
# lines "rank R line 0".."rank R line LINES-1" in order (after an
# optional prefix), whatever the interleaving of the ranks.
per_rank() {
	local r
	for r in $(seq 0 $(($2 - 1))); do
		cmp -s <(grep -ao "rank $r line [0-9]*" "$1") \
			<(for i in $(seq 0 $(($3 - 1))); do echo "rank $r line $i"; done) ||
			{ echo "rank $r differs in $1"; return 1; }
	done
}

# Tools attach to a running step (docs/iof.md, "Tools"): through srun
# by its pid (srun's host), by namespace / the system file / with no
# option on a node of the step; every task's pid in the process table,
# the other node's too; other users and broken attach requests refused;
# an ended step answers UNREACH at once and leaves no file.
tool_cases() {
	local name="tool: attach by srun's pid and on a node; others refused; the end" t0 P ns
	local host r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 garbage left key step ep0 sock
	want_case "$name" || return 0
	"$vc" adduser --state-dir "$state" >/dev/null || { bad "$name" "(adduser)"; return; }
	host=$(hostname)
	t0=$(now)
	rm -f "$bin"/t.*
	(cd "$bin" && TICK_KEY=$bin/t.key exec $S -N2 -n4 ./tick.sh 80 0.05 >t.out 2>t.err) &
	P=$!
	wait_file "/tmp/pmix.$host.tool.$P" && wait_file "$bin/t.key"
	r1=$("$bin/pmix_tool" pid "$P" 2>&1)
	ns=$(sed -n 's/^NAMESPACES \([^,]*\).*/\1/p' <<<"$r1")
	read -r key step <"$bin/t.key"
	r2=$(vn_exec "$state" 2 "$bin/pmix_tool" nspace "$ns" 2>&1)
	r3=$(vn_exec "$state" 2 "$bin/pmix_tool" any 2>&1)
	r4=$(vn_exec "$state" 1 "$bin/pmix_tool" system 2>&1)
	sock=$(sed 's/^unix://' "/tmp/pmix.$host.tool.$P")
	# a rendezvous file others may write is not taken (a planted one),
	# the same file 0600 is
	printf 'unix:%s\n' "$sock" >"/tmp/pmix.$host.tool.999999"
	chmod 0666 "/tmp/pmix.$host.tool.999999"
	r10=$("$bin/pmix_tool" pid 999999 2>&1)
	chmod 0600 "/tmp/pmix.$host.tool.999999"
	r11=$("$bin/pmix_tool" pid 999999 2>&1)
	rm -f "/tmp/pmix.$host.tool.999999"
	r5=$(runuser -u slurmixtest -- "$bin/pmix_tool" pid "$P" 2>&1)
	r6=$(runuser -u slurmixtest -- "$bin/pmix_tool" uri "unix:$sock" 2>&1)
	r7=$(vn_exec "$state" 1 runuser -u slurmixtest -- "$bin/pmix_tool" nspace "$ns" 2>&1)
	ep0=$(stepd_endpoints | grep '^0:' | head -1)
	garbage=$(python3 "$here/peer_garbage.py" tool-attach "$key" "$step" 0 "$ep0" 2>&1)
	r8=$("$bin/pmix_tool" pid "$P" 2>&1) # still served
	wait "$P"
	r9=$("$bin/pmix_tool" pid "$P" 2>&1)
	# the step daemons remove theirs in their fini, which may still run
	# when srun has ended: 5 s for them
	for _ in $(seq 50); do
		left=$(ls /tmp/pmix."$host".tool."$P" /tmp/pmix."$host".tool."$ns" "$sock" \
			"$state"/nodes/*/tmp/pmix.* 2>/dev/null)
		[ -z "$left" ] && break
		sleep 0.1
	done
	if grep -q "^INIT ok" <<<"$r1" && grep -q "^PROCTABLE $ns n=4" <<<"$r1" &&
	   [ "$(grep -c "^PROC [0-2] vn1 [1-9]" <<<"$r1")" = 3 ] &&
	   [ "$(grep -c "^PROC 3 vn2 [1-9]" <<<"$r1$r2")" = 2 ] &&
	   grep -q "^INIT ok" <<<"$r2" && grep -q "^NAMESPACES $ns" <<<"$r2" &&
	   grep -q "^INIT ok" <<<"$r3" && grep -q "^INIT ok" <<<"$r4" &&
	   grep -q "^PROCTABLE $ns n=4" <<<"$r4" &&
	   ! grep -q "^INIT ok" <<<"$r5$r6$r7" && grep -q "^INIT " <<<"$r5" &&
	   ! grep -q "^INIT ok" <<<"$r10" && grep -q "^INIT ok" <<<"$r11" &&
	   [ "$garbage" = "ATTACH refused=5 of 5" ] && grep -q "^INIT ok" <<<"$r8" &&
	   [[ $r9 =~ INIT\ [A-Z_-]*UNREACH[A-Z_-]*\ ms=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -lt 1000 ] &&
	   [ -z "$left" ] && per_rank "$bin/t.out" 4 80; then
		ok "$name ($(since "$t0") s; after the end: ${r9#INIT })"
	else
		printf 'pid: %s\nnode nspace: %s\nnode any: %s\nsystem: %s\n' "$r1" "$r2" "$r3" "$r4"
		printf 'other user: %s | %s | %s\ngarbage: %s\nafter: %s | %s\nleft: %s\n' \
			"$r5" "$r6" "$r7" "$garbage" "$r8" "$r9" "$left"
		printf 'planted 0666: %s\n0600: %s\n' "$r10" "$r11"
		bad "$name"
	fi
	rm -f "$bin"/t.*
}

# slurmix-attach prints a running step's output, what came before it
# attached and then live, by srun's pid and by JOBID.STEP on a node of
# the step, filtered and tagged on request, and ends with the step.
attach_cases() {
	local name="slurmix-attach: history and live, by --pid and by JOBID.STEP on a node" t0 P
	local a b c ra rb rc_ ns bad_usage
	want_case "$name" || return 0
	t0=$(now)
	rm -f "$bin"/a.*
	(cd "$bin" && TICK_KEY=$bin/a.key exec $S -N2 -n4 ./tick.sh 60 0.05 >a.out 2>a.err) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P" && wait_file "$bin/a.key"
	sleep 1 # a good part of the output is history by now
	read -r _ step <"$bin/a.key"
	ns=$(sed -n 's/^SLURMIX_STEP=//p' "$bin/a.key.env")
	timeout 30 "$attach" --pid "$P" >"$bin/a.att" 2>"$bin/a.atterr" &
	a=$!
	timeout 30 "$attach" --pid "$P" --ranks 1 --tag -o >"$bin/a.r1" 2>/dev/null &
	b=$!
	vn_exec "$state" 2 timeout 30 "$attach" -q "${ns#slurmix.}" >"$bin/a.node" 2>/dev/null &
	c=$!
	wait "$P"
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	wait "$c"; rc_=$?
	# bad usage: 2, whatever the step
	"$attach" >/dev/null 2>&1; bad_usage=$?
	"$attach" -w soon 1.0 >/dev/null 2>&1; bad_usage+=$?
	"$attach" --pid 0 >/dev/null 2>&1; bad_usage+=$?
	"$attach" 1.0.0 >/dev/null 2>&1; bad_usage+=$?
	if [ "$ra$rb$rc_" = 000 ] && [ "$bad_usage" = 2222 ] && per_rank "$bin/a.att" 4 60 &&
	   per_rank "$bin/a.node" 4 60 &&
	   [ "$(grep -ac "rank [0-3] err" "$bin/a.atterr")" = 4 ] &&
	   [ "$(grep -ac "^\[slurmix\.${ns#slurmix.},1\]<stdout>: rank 1 line" "$bin/a.r1")" = 60 ] &&
	   [ "$(wc -l <"$bin/a.r1")" = 60 ]; then
		ok "$name ($(since "$t0") s)"
	else
		echo "rc $ra $rb $rc_, bad usage $bad_usage"
		head -3 "$bin/a.att" "$bin/a.atterr" "$bin/a.r1" "$bin/a.node" 2>&1
		bad "$name"
	fi
	rm -f "$bin"/a.*
}

# slurmix-attach exits with the step's status: the first failure's exit
# code, 128 + the signal of a killed task, 0 when all went well (tasks
# that are no PMIx clients: only the step daemons' pidfds tell).
status_cases() {
	local name="slurmix-attach: exits with the step's status (3, 137, 0), as srun does" t0 want
	local got="" srun_rc="" P a how
	want_case "$name" || return 0
	t0=$(now)
	for how in 3 kill 0; do
		rm -f "$bin"/s.*
		(cd "$bin" && exec $S -N2 -n4 bash -c "./tick.sh 20 0.05 >/dev/null
			[ \$SLURM_PROCID = 2 ] && { [ $how = kill ] && kill -9 \$\$; exit $how; }; exit 0" \
			>s.out 2>&1) &
		P=$!
		wait_file "/tmp/pmix.$(hostname).tool.$P"
		timeout 30 "$attach" -q --pid "$P" >/dev/null 2>&1 &
		a=$!
		wait "$P"
		srun_rc+="$? "
		wait "$a"
		got+="$? "
	done
	want="3 137 0 "
	if [ "$got" = "$want" ] && [ "$srun_rc" = "$want" ]; then
		ok "$name ($(since "$t0") s)"
	else
		bad "$name" "(slurmix-attach: $got srun: $srun_rc want: $want)"
	fi
	rm -f "$bin"/s.*
}

# slurmix-attach | head -1 ends when head does, not with the step (fails
# when slurmix-attach ignores the closed pipe: it would last the step's
# 5 s).
pipe_case() {
	local name="slurmix-attach | head -1 ends at once" t0 P a t
	want_case "$name" || return 0
	(cd "$bin" && exec $S -N1 -n2 ./tick.sh 100 0.05 >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	t0=$(now)
	a=$(timeout 30 "$attach" -q --pid "$P" | head -1)
	t=$(since "$t0")
	if [[ $a == "rank "* ]] && kill -0 "$P" 2>/dev/null &&
	   awk -v t="$t" 'BEGIN { exit !(t < 3) }'; then
		ok "$name ($t s, the step still running)"
	else
		bad "$name" "(got '$a' after $t s)"
	fi
	wait "$P"
}

# OpenPMIx's own tools (Debian's libpmix-bin), unmodified, on our library
# (src/pmix_core/compat/ptools.c): pps lists the step (it ignores its
# --pid and takes the first server it finds), pquery --pid gives the
# namespaces, the process table and the job size, pevent sends an event,
# pattrs lists the client's functions and a function's attributes (from
# the library's tables), and --pid the host's functions and attributes
# (the step daemon's registrations, docs/query.md); --help prints their
# usage, a bad option fails (254).
ptools_cases() {
	local name="OpenPMIx's pps, pquery, pevent, pattrs on our library" t0 P ns r1 r2 r3 r4 r5 r6
	want_case "$name" || return 0
	command -v pps >/dev/null || skip "no pps (apt-get install libpmix-bin)"
	t0=$(now)
	(cd "$bin" && exec $S -N2 -n4 ./tick.sh 60 0.05 >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	export LD_LIBRARY_PATH=$build/.libs
	r1=$(timeout 20 pps 2>&1)
	ns=$(sed -n 's/^Active nspaces: //p' <<<"$r1")
	r2=$(timeout 20 pquery --pid "$P" PMIX_QUERY_NAMESPACES \
		"PMIX_QUERY_PROC_TABLE[PMIX_NSPACE=$ns]" 2>&1)
	r3=$(timeout 20 pquery --pid "$P" "PMIX_JOB_SIZE[PMIX_NSPACE=$ns]" 2>&1)
	r4=$(timeout 20 pevent --pid "$P" --event -25 --range 3 2>&1; echo "rc=$?")
	r5=$(timeout 20 pattrs --client-fns 2>&1; timeout 20 pattrs --client PMIx_Get 2>&1
		# one function a call: pattrs 4.2.2 prints every function with the
		# first one's count of attributes
		timeout 20 pattrs --pid "$P" --host PMIx_Spawn 2>&1
		timeout 20 pattrs --pid "$P" --host PMIx_Log 2>&1
		timeout 20 pattrs --pid "$P" --host-fns 2>&1; echo "rc=$?")
	r6=$(timeout 20 pps --help 2>&1 | head -3; timeout 20 pps --bogus >/dev/null 2>&1; echo "rc=$?")
	unset LD_LIBRARY_PATH
	wait "$P"
	if [[ $ns == slurmix.* ]] && grep -q "^  PMIX_STRING: $ns" <<<"$r2" &&
	   grep -q "ARRAY of 4 PMIX_PROC_INFO \[PROC: $ns:0 HOST: vn1" <<<"$r2" &&
	   grep -q "PROC: $ns:3 HOST: vn2 EXE: NULL PID: [1-9]" <<<"$r2" &&
	   grep -q "^  PMIX_UINT32: 4" <<<"$r3" && grep -q "^rc=0" <<<"$r4" &&
	   grep -q "^CLIENT SUPPORTED FUNCTIONS" <<<"$r5" && grep -qx "PMIx_Get_nb" <<<"$r5" &&
	   grep -qx "PMIx_Get:" <<<"$r5" && grep -qE "^ +PMIX_TIMEOUT +pmix.timeout +PMIX_INT$" <<<"$r5" &&
	   grep -q "^HOST SUPPORTED ATTRIBUTES" <<<"$r5" && grep -qx "PMIx_Spawn:" <<<"$r5" &&
	   grep -qE "^ +PMIX_HOST +pmix.host +PMIX_STRING$" <<<"$r5" && grep -qx "PMIx_Log:" <<<"$r5" &&
	   grep -q "^HOST SUPPORTED FUNCTIONS:" <<<"$r5" &&
	   grep -qP "^\tPMIx_Job_control$" <<<"$r5" && grep -q "^Usage: pps" <<<"$r6" &&
	   grep -q "^rc=254" <<<"$r6"; then
		ok "$name ($(since "$t0") s)"
	else
		printf 'pps: %s\npquery: %s\n%s\npevent: %s\npattrs: %s\nhelp: %s\n' "$r1" "$r2" \
			"$r3" "$r4" "$r5" "$r6" | cut -c1-200
		bad "$name"
	fi
}

# A parent pulls its spawned children's output (another step's streams):
# every byte of each child's stdout (history: they wrote before the
# pull), then each stream's end. Fails when the pull covers its own step
# only (it gets nothing).
child_case() {
	local name="pull: a parent gets its spawned children's output, -N2" r
	want_case "$name|spawn: " || return 0
	rm -f "$bin"/ch.*
	iof_case "$name" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3 stray=0" <<<"$out" && child_same &&
		 grep -q "rank 2 line 299" <<<"$out"' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch
	rm -f "$bin"/ch.*
	# PMIX_FWD_STDOUT false: nothing of the children's stdout on srun's
	# output (the first case shows it is there otherwise), their stderr
	# still, the pull gets all
	iof_case "spawn: PMIX_FWD_STDOUT false silences the children for srun, not for a pull" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3 stray=0" <<<"$out" && child_same &&
		 ! grep -q "rank [0-2] line" <<<"$out" && [ "$(grep -c "^childerr" <<<"$out")" = 3 ]' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch quiet
	rm -f "$bin"/ch.*
	# under the parent's --output and --label: the children's lines go
	# into the parent's file (appended, not cut), tagged with their own
	# nspace and rank, never read as the parent's "0: "; their stderr
	# with them, as the parent's goes; nothing of them on the terminal.
	# Fails when the child srun gets the parent's terminal (before) or
	# Slurm's labels (tried)
	iof_case "spawn: children's output into the parent's --output file, tagged under --label" \
		'[ $rc = 0 ] && grep -q "^0: CHILDIOF ok ranks=3 ends=3 stray=0" "$bin/sp.out" && child_same &&
		 tagged_same "$bin/sp.out" stdout && [ "$(grep -c "^\[slurmix\.[0-9.]*,[0-2]\]<stderr>: childerr\$" "$bin/sp.out")" = 3 ] &&
		 ! grep -q "^[0-9]*: rank" "$bin/sp.out" && ! grep -q "rank [0-2] line" <<<"$out"' \
		$S -l -N2 -n2 --output=sp.out ./pmix_iofchild 3 300 ch
	rm -f "$bin"/ch.* "$bin"/sp.out
	# PMIX_TIMESTAMP_OUTPUT with PMIX_MERGE_STDERR_STDOUT: every child
	# line on srun's stdout, stamped, the stderr ones too, none on srun's
	# stderr. Fails with the attributes ignored (tried)
	iof_case "spawn: PMIX_TIMESTAMP_OUTPUT and MERGE_STDERR_STDOUT on srun's stdout" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3" "$bin/st.out" &&
		 [ "$(grep -Ec "^\[20[0-9-]+T[0-9:.]+Z\] rank [0-2] line [0-9]+ " "$bin/st.out")" = 900 ] &&
		 [ "$(grep -Ec "^\[20[0-9-]+T[0-9:.]+Z\] childerr\$" "$bin/st.out")" = 3 ] &&
		 ! grep -q childerr "$bin/st.err"' \
		bash -c "$S -N2 -n2 ./pmix_iofchild 3 300 ch stamp >st.out 2>st.err"
	rm -f "$bin"/ch.* "$bin"/st.*
	# PMIX_OUTPUT_TO_FILE: per child rank a .stdout file with exactly its
	# bytes and a .stderr file with its stderr, named for its nspace
	iof_case "spawn: PMIX_OUTPUT_TO_FILE gives each child its .stdout and .stderr files" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3 stray=0" <<<"$out" && child_same &&
		 for r in 0 1 2; do cmp -s "$(ls "$bin"/ch-f.slurmix.*.$r.stdout)" "$bin/ch.$r" &&
		 [ "$(cat "$bin"/ch-f.slurmix.*.$r.stderr)" = childerr ] || { echo "rank $r files"; false; }; done &&
		 ! grep -q "rank [0-2] line\|childerr" <<<"$out"' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch file
	rm -f "$bin"/ch.* "$bin"/ch-f.*
	# PMIX_IOF_FILE_PATTERN: the name as given, %n and %r its nspace and
	# rank, one file per rank with both channels (one stream: the pull's
	# stdout has the stderr line too, as the file). Fails with the
	# pattern flag ignored (the spawn is refused: a name with %)
	iof_case "spawn: PMIX_OUTPUT_TO_FILE with PMIX_IOF_FILE_PATTERN, one file per rank" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3 stray=0" <<<"$out" &&
		 for r in 0 1 2; do f=$(ls "$bin"/ch-p.slurmix.*.$r) && cmp -s "$f" "$bin/ch.$r" &&
		 cmp -s <(grep -v "^childerr\$" "$f") <("$gen" lines 300 "$r") &&
		 [ "$(grep -c "^childerr\$" "$f")" = 1 ] ||
		 { echo "rank $r file"; false; }; done && ! grep -q "rank [0-2] line\|childerr" <<<"$out"' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch pattern
	rm -f "$bin"/ch.* "$bin"/ch-p.*
	# PMIX_OUTPUT_TO_DIRECTORY, a relative name: the step daemons make
	# <dir>/<nspace>/rank.<R>/ (as the user) for Slurm's files stdout
	# and stderr. Fails with the directories not made (the launch fails)
	iof_case "spawn: PMIX_OUTPUT_TO_DIRECTORY gives <dir>/<nspace>/rank.<R>/stdout and stderr" \
		'[ $rc = 0 ] && grep -q "CHILDIOF ok ranks=3 ends=3 stray=0" <<<"$out" && child_same &&
		 for r in 0 1 2; do d=$(ls -d "$bin"/ch-d/slurmix.*/rank.$r) && cmp -s "$d/stdout" "$bin/ch.$r" &&
		 [ "$(cat "$d/stderr")" = childerr ] && [ "$(stat -c %U "$d")" = "$(id -un)" ] ||
		 { echo "rank $r directory"; false; }; done && ! grep -q "rank [0-2] line\|childerr" <<<"$out"' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch dir
	rm -rf "$bin"/ch.* "$bin"/ch-d
	# PMIX_IOF_XML_OUTPUT: each child line one element on srun's output,
	# which parse (xmllint) and give back each rank's bytes; the
	# parent's own line plain. Fails with the attribute ignored (tried)
	iof_case "spawn: PMIX_IOF_XML_OUTPUT, each child line an element that parses" \
		'[ $rc = 0 ] && grep -q "^CHILDIOF ok ranks=3 ends=3" <<<"$out" && child_same &&
		 { echo "<o>"; grep "^<std" <<<"$out"; echo "</o>"; } | xmllint --noout - &&
		 [ "$(grep -c "^<stderr nspace=\"slurmix\.[0-9.]*\" rank=\"[0-2]\">childerr</stderr>\$" <<<"$out")" = 3 ] &&
		 for r in 0 1 2; do cmp -s <(sed -n "s|^<stdout nspace=\"slurmix\.[0-9.]*\" rank=\"$r\">\(.*\)</stdout>\$|\1|p" <<<"$out") \
		 <("$gen" lines 300 "$r") || { echo "xml rank $r"; false; }; done' \
		$S -N2 -n2 ./pmix_iofchild 3 300 ch xml
	rm -f "$bin"/ch.*
}

# tagged_same FILE CHANNEL: each child rank's lines in FILE tagged
# "[nspace,rank]<CHANNEL>: " are exactly what "iof_gen lines 300" wrote
# as that rank.
tagged_same() {
	local r
	for r in 0 1 2; do
		cmp -s <(grep -a "^\[slurmix\.[0-9.]*,$r\]<$2>: " "$1" | sed "s/^[^]]*\]<$2>: //") \
			<("$gen" lines 300 "$r") || { echo "tagged child $r differs"; return 1; }
	done
}

# stdin: srun's own passes through the step daemons unchanged; pushes
# (PMIx_IOF_push) reach the tasks byte-exact and end their input.
# since_mark: what the slurmd logs got since the case began (log_mark_now).
since_mark() {
	local f n=0
	for f in "$state"/log/slurmd.*.log; do
		[ -f "$f" ] || continue
		tail -c +"$((${log_mark[$n]:-0} + 1))" "$f"
		n=$((n + 1))
	done
}

stdin_cases() {
	local sum0
	# the step's own variables with words they do not know: each logged
	# and left out, the rest still done (the tag), neither reaches the
	# tasks (their own sruns do not inherit them)
	iof_case "broken SLURMIX_STDIN and SLURMIX_IOF_FORMAT: logged, the rest done, not inherited" \
		'[ $rc = 0 ] && grep -qx "\[slurmix\.[0-9]*\.0,0\]<stdout>: hi 0" <<<"$out" &&
		 since_mark | grep -q "SLURMIX_STDIN=bogus: not srun or push" &&
		 since_mark | grep -q "SLURMIX_IOF_FORMAT=tag,,bogus: \"bogus\" is not"' \
		env SLURMIX_STDIN=bogus SLURMIX_IOF_FORMAT=tag,,bogus $S -n1 \
		sh -c 'echo hi $(env | grep -c "^SLURMIX_\(STDIN\|IOF_FORMAT\)=")'
	head -c 5000000 /dev/urandom >"$bin/in.dat"
	sum0=$(sha256sum <"$bin/in.dat")
	iof_case "stdin: srun's stdin reaches every task byte-exact with its end, -N2 -n3" \
		'[ $rc = 0 ] && [ "$(grep -c "^$sum0\$" <<<"$out")" = 3 ]' \
		bash -c "$S -N2 -n3 sha256sum <in.dat && $S -n2 cat </dev/null"
	rm -f "$bin/in.dat"
	push_case
	refused_case
	rm -f "$bin"/cp.*
	iof_case "stdin: a parent pushes into its spawned children (PMIX_FWD_STDIN, WILDCARD)" \
		'[ $rc = 0 ] && grep -q "CHILDPUSH ok files=3" <<<"$out" && children_got 3 "$(sha256sum <"$bin/cp.want")"' \
		$S -N2 -n2 ./pmix_iofpush 3 5000000 cp all
	rm -f "$bin"/cp.*
	iof_case "stdin: PMIX_STDIN_TGT 1: rank 1 gets the pushes, rank 0 refuses them" \
		'[ $rc = 0 ] && grep -q "CHILDPUSH ok" <<<"$out" &&
		 [ "$(cat "$bin/cp.1")" = "$(sha256sum <"$bin/cp.want")" ] &&
		 [ "$(cat "$bin/cp.0")" = "$(sha256sum </dev/null)" ]' \
		$S -N2 -n2 ./pmix_iofpush 3 1000000 cp tgt
	rm -f "$bin"/cp.*
}

# children_got N SUM: every child's file holds SUM.
children_got() {
	local r
	for r in $(seq 0 $(($1 - 1))); do
		[ "$(cat "$bin/cp.$r" 2>/dev/null)" = "$2" ] || { echo "child $r: $(cat "$bin/cp.$r" 2>&1)"; return 1; }
	done
}

# slurmix-attach --stdin: 256 MiB into ranks 0 and 1 (node 1 through
# srun, node 2 over the network) of a held step, then 3 MiB into every
# rank of another; each task's sha256 of its stdin is the data's.
push_case() {
	local name="stdin: 256 MiB pushed into ranks 0,1 and 3 MiB to WILDCARD, byte-exact" t0 P a b want want2
	want_case "$name" || return 0
	t0=$(now)
	rm -f "$bin"/sp.*
	head -c 268435456 /dev/urandom >"$bin/sp.dat"
	want=$(sha256sum <"$bin/sp.dat")
	(cd "$bin" && SLURMIX_STDIN=push exec $S -N2 -n2 bash -c 'sha256sum >sp.$SLURM_PROCID' \
		</dev/null >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	timeout 100 "$attach" -q --pid "$P" --stdin 0,1 <"$bin/sp.dat" >/dev/null
	a=$?
	wait "$P"
	head -c 3000000 "$bin/sp.dat" >"$bin/sp.small"
	want2=$(sha256sum <"$bin/sp.small")
	(cd "$bin" && SLURMIX_STDIN=push exec $S -N2 -n3 bash -c 'sha256sum >sp.w.$SLURM_PROCID' \
		</dev/null >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	timeout 60 "$attach" -q --pid "$P" --stdin all <"$bin/sp.small" >/dev/null
	b=$?
	wait "$P"
	if [ "$a$b" = 00 ] && [ "$(cat "$bin/sp.0")" = "$want" ] && [ "$(cat "$bin/sp.1")" = "$want" ] &&
	   [ "$(cat "$bin"/sp.w.[012] | sort -u)" = "$want2" ]; then
		ok "$name ($(since "$t0") s)"
	else
		echo "attach rc $a $b; want $want / $want2"
		cat "$bin"/sp.[01] "$bin"/sp.w.* 2>&1
		bad "$name"
	fi
	rm -f "$bin"/sp.*
}

# A push that cannot be: at once, with a status that says why (exit 4):
# a rank whose stdin is /dev/null (srun --input=0's other tasks), a stdin
# that srun's end ended (no SLURMIX_STDIN=push).
refused_case() {
	local name="stdin: refused at once: /dev/null (NOT-SUPPORTED), ended (IOF COMPLETE)" t0 P r1 r2 e1 e2
	want_case "$name" || return 0
	t0=$(now)
	(cd "$bin" && exec $S -N2 -n2 --input=0 sleep 5 </dev/null >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	e1=$(echo hi | timeout 20 "$attach" --pid "$P" --stdin 1 2>&1 >/dev/null)
	r1=$?
	wait "$P"
	(cd "$bin" && exec $S -N2 -n2 sleep 5 </dev/null >/dev/null 2>&1) &
	P=$!
	wait_file "/tmp/pmix.$(hostname).tool.$P"
	sleep 0.5
	e2=$(echo hi | timeout 20 "$attach" --pid "$P" --stdin 0 2>&1 >/dev/null)
	r2=$?
	wait "$P"
	if [ "$r1$r2" = 44 ] && grep -q NOT-SUPPORTED <<<"$e1" && grep -q "IOF COMPLETE" <<<"$e2" &&
	   awk -v t="$(since "$t0")" 'BEGIN { exit !(t < 14) }'; then
		ok "$name ($(since "$t0") s)"
	else
		bad "$name" "(rc $r1 $r2: $e1 / $e2)"
	fi
}

child_same() {
	local r
	for r in 0 1 2; do
		cmp -s "$bin/ch.$r" <("$gen" lines 300 "$r") || { echo "child $r differs"; return 1; }
	done
}

build_programs() {
	cc -std=gnu11 -O2 -Wall -Wextra -o "$gen" "$here/iof_gen.c" || return 1
	cc -std=gnu11 -O2 -Wall -Wextra -I"$repo/src/pmix_core/include" -o "$bin/pmix_tool" \
		"$here/pmix_tool.c" -L"$build/.libs" -Wl,-rpath,"$build/.libs" -lpmix || return 1
	# tick.sh LINES DELAY [STATUS]: "rank R line I" every DELAY s, a line
	# on stderr, then exit STATUS; with TICK_KEY, rank 0 leaves the job
	# key and step there first (and the step's SLURMIX_STEP in .env)
	cat >"$bin/tick.sh" <<-'EOF'
	#!/bin/bash
	if [ -n "${TICK_KEY:-}" ] && [ "$SLURM_PROCID" = 0 ]; then
		echo "SLURMIX_STEP=slurmix.$SLURMIX_STEP" >"$TICK_KEY.env"
		echo "$SLURMIX_STEP_KEY $SLURM_STEP_ID" >"$TICK_KEY"
	fi
	for ((i = 0; i < $1; i++)); do echo "rank $SLURM_PROCID line $i"; sleep "$2"; done
	echo "rank $SLURM_PROCID err" >&2
	exit "${3:-0}"
	EOF
	chmod 755 "$bin/tick.sh"
	for p in pmix_iofpull pmix_iofend pmix_iofchild pmix_iofpush; do
		cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/$p" "$here/$p.c" \
			-L"$build/.libs" -lpmix -lpthread || return 1
	done
}

# ---- main ----------------------------------------------------------------
t_all=$(now)
command -v script >/dev/null || skip "no script(1) (apt-get install bsdutils)"
mkdir -p "$bin"
chmod 755 "$state" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
"$vc" restart -n 3 --plugin-dir "$build/.libs" --state-dir "$state" --port-base "$port" \
	--mpi-conf "$state/mpi.conf" >/dev/null || { echo "FAIL cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
export SLURMIX_JOBDIR_BASE=$state/jobdirs
mkdir -p "$SLURMIX_JOBDIR_BASE"
build_programs || { echo "FAIL cannot build the test programs"; exit 1; }

capture_cases
pull_cases
child_case
stdin_cases
tool_cases
attach_cases
status_cases
pipe_case
ptools_cases

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
