#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_mgmt_tests.sh - the management calls under srun --mpi=slurmix on the
# virtual cluster: PMIx_Query_info answered from Slurm (docs/query.md) and
# the job, app, node and proc keys (docs/keys.md), checked against what
# squeue, scontrol, sinfo and sdiag say. Part of
# `make check`, beside run_cluster_tests.sh and built the same way:
#
#   tests/cluster/run_mgmt_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .), SLURMIX_MTEST_STATE (state
# dir, default /var/lib/slurmix-mtest), SLURMIX_MTEST_PORT (port base,
# default 29917), CI (when "true", missing prerequisites fail).
#
# One cluster of 4 nodes, stopped on any exit. Prints "PASS name (time)" /
# "FAIL name" per case and "N passed, M failed"; exits 0, 1 on failures,
# 77 (skip) when not root or srun/mpicc/the build are missing and CI is
# not "true".
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_MTEST_STATE:-/var/lib/slurmix-mtest}
port=${SLURMIX_MTEST_PORT:-29917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"

S="srun --mpi=slurmix"

# mcase NAME CHECK SCRIPT: runs SCRIPT (bash, in $bin, under
# salloc -N4 -n16 -t 10; its output in $out, its status in $rc), then
# CHECK (a bash expression) must be true.
mcase() {
	local name=$1 check=$2 t0
	want_case "$name" || return 0
	printf '#!/bin/bash\nS="%s"\n. ./lib.sh\n%s\n' "$S" "$3" >"$bin/case.sh"
	chmod +x "$bin/case.sh"
	t0=$(now)
	out=$(cd "$bin" && timeout 120 salloc -N4 -n16 -t 10 ./case.sh 2>&1)
	rc=$?
	t=$(since "$t0")
	if eval "$check"; then
		ok "$name ($t s)"
	else
		echo "$out" | tail -c 3000 | tail -25
		bad "$name" "(rc $rc, $t s)"
	fi
}

# The value printed by pmix_query for rank R and KEY (the first one).
val() { sed -n "s/^rank $1 $2=//p" <<<"$out" | head -1; }
# squeue's %L (days-hh:mm:ss, hh:mm:ss or mm:ss) in seconds.
left_s() {
	awk '{ d = 0; t = $0; if (split(t, a, "-") == 2) { d = a[1]; t = a[2] }
		n = split(t, p, ":"); s = n == 3 ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2]
		print d * 86400 + s }' <<<"$1"
}

query_cases() {
	# TIME_REMAINING against squeue: each of 8 ranks on 4 nodes within 2 s
	# of %L taken right after (plus the seconds between)
	mcase "query PMIX_TIME_REMAINING within 2 s of squeue %L" '
		[ $rc -eq 0 ] && [ "$(grep -c "^rank [0-9] pmix.time.remaining=" <<<"$out")" = 8 ] &&
		L=$(sed -n "s/^L //p" <<<"$out") && G=$(sed -n "s/^gap //p" <<<"$out") &&
		awk -v L="$(left_s "$L")" -v g="$G" "/^rank [0-9] pmix.time.remaining=/ {
			sub(/.*=/, \"\"); d = \$0 - L; if (d < 0) d = -d; if (d > 2 + g) bad = 1; n++ }
			END { exit bad || n != 8 }" <<<"$out"' '
t0=$(date +%s)
$S -N4 -n8 ./pmix_query -f -r all pmix.time.remaining
echo "L $(squeue -h -j $SLURM_JOB_ID -o %L)"
echo "gap $(($(date +%s) - t0))"'

	# 64 ranks on 4 nodes ask at once (after a fence): slurmctld serves
	# one REQUEST_JOB_INFO_SINGLE for them (two if a round started between
	# them); what a srun asks itself (its own job's submission time, the
	# ended jobs' directories) is counted from one that asks nothing
	mcase "query PMIX_TIME_REMAINING from 64 ranks: at most 2 slurmctld RPCs" '
		[ $rc -eq 0 ] && [ "$(grep -c "^rank [0-9]* pmix.time.remaining=[1-9]" <<<"$out")" = 64 ] &&
		d=$(sed -n "s/^rpcs //p" <<<"$out") && echo "REQUEST_JOB_INFO_SINGLE for 64 ranks: $d" &&
		[ "$d" -ge 1 ] && [ "$d" -le 2 ]' '
$S -N1 -n1 true
a=$(rpcs REQUEST_JOB_INFO_SINGLE); $S -N4 -n64 --overcommit ./pmix_query -f
b=$(rpcs REQUEST_JOB_INFO_SINGLE); $S -N4 -n64 --overcommit ./pmix_query -f -r all pmix.time.remaining
c=$(rpcs REQUEST_JOB_INFO_SINGLE)
echo "rpcs $((c - b - (b - a)))"'

	# the same question twice: one RPC; twice with REFRESH_CACHE: two
	mcase "query PMIX_QUERY_REFRESH_CACHE asks slurmctld again, the cache does not" '
		[ $rc -eq 0 ] && [ "$(grep -c "^rank 0 pmix.time.remaining=" <<<"$out")" = 4 ] &&
		[ "$(sed -n "s/^cached //p" <<<"$out")" = 1 ] &&
		[ "$(sed -n "s/^refreshed //p" <<<"$out")" = 2 ]' '
$S -N1 -n1 true
a=$(rpcs REQUEST_JOB_INFO_SINGLE); $S -N1 -n1 ./pmix_query
b=$(rpcs REQUEST_JOB_INFO_SINGLE); $S -N1 -n1 ./pmix_query -t 2 -s 500 pmix.time.remaining
c=$(rpcs REQUEST_JOB_INFO_SINGLE); $S -N1 -n1 ./pmix_query -t 2 -s 500 pmix.time.remaining@refresh
d=$(rpcs REQUEST_JOB_INFO_SINGLE)
echo "cached $((c - b - (b - a)))"; echo "refreshed $((d - c - (b - a)))"'

	# the time limit lowered while a rank runs: its next REFRESH_CACHE
	# query sees the new end at once (libslurm's slurm_get_end_time would
	# keep the old one for 60 s in that srun)
	mcase "query PMIX_TIME_REMAINING follows a lowered time limit" '
		[ $rc -eq 0 ] && [ "$(sed -n "s/^rank 0 pmix.time.remaining=//p" <<<"$out" | head -1)" -gt 500 ] &&
		L=$(left_s "$(sed -n "s/^L //p" <<<"$out")") &&
		v=$(sed -n "s/^rank 0 pmix.time.remaining=//p" <<<"$out" | tail -1) &&
		[ "$L" -le 180 ] && [ $((v - L)) -le 3 ] && [ $((L - v)) -le 3 ]' '
$S -N1 -n1 ./pmix_query -t 2 -s 3000 pmix.time.remaining@refresh &
sleep 1.5
scontrol update JobId=$SLURM_JOB_ID TimeLimit=3
wait
echo "L $(squeue -h -j $SLURM_JOB_ID -o %L)"'

	# the queues, this allocation and its steps as Slurm sees them
	mcase "query QUEUE_LIST, QUEUE_STATUS, ALLOC_STATUS, JOB_STATUS as Slurm says" '
		[ $rc -eq 0 ] && [ "$(val 1 pmix.qry.qlst)" = "$(sed -n "s/^parts //p" <<<"$out")" ] &&
		[ "$(val 1 pmix.query.alloc)" = "$(sed -n "s/^state //p" <<<"$out")" ] &&
		[ "$(val 1 pmix.qry.jst)" = SUCCESS ] &&
		[ "$(sed -n "s/^rank 0 pmix.qry.jst=//p" <<<"$out" | tail -1)" = "JOB ENDED" ] &&
		grep -qx "rank 1 pmix.qry.qst={pmix.alloc.queue={pmix.alloc.queue=vc;slurmix.queue.state=UP;pmix.num.nodes=$(sed -n "s/^nodes //p" <<<"$out");slurmix.queue.running=[1-9][0-9]*;slurmix.queue.pending=[0-9]*}}" <<<"$out" &&
		grep -qx "rank 1 status SUCCESS" <<<"$out"' '
echo "parts $(scontrol show partition -o | sed "s/^PartitionName=\([^ ]*\).*/\1/" | paste -sd,)"
echo "state $(squeue -h -j $SLURM_JOB_ID -o %T)"
echo "nodes $(sinfo -h -p vc -o %D)"
$S -N2 -n2 ./pmix_query -r 1 pmix.qry.qlst,pmix.query.alloc,pmix.qry.jst pmix.qry.qst@pmix.alloc.queue=vc
$S -N1 -n1 ./pmix_query "pmix.qry.jst@pmix.nspace=slurmix.$SLURM_JOB_ID.0"'

	# a second step of the allocation is seen from a rank on another node,
	# with its size, nodes and command line
	mcase "query NAMESPACES and NAMESPACE_INFO: every step of the allocation" '
		[ $rc -eq 0 ] && J=$(sed -n "s/^job //p" <<<"$out") &&
		[ "$(val 1 pmix.qry.ns)" = "slurmix.$J.0,slurmix.$J.1" ] &&
		grep -q "^rank 1 pmix.qry.nsinfo={pmix.qry.nsinfo={pmix.nspace=slurmix.$J.0;pmix.jobid=$J.0;pmix.nlist=vn4;pmix.job.size=1;pmix.cmd.line=srun --mpi=slurmix --overlap -w vn4 -N1 -n1 sleep 6};pmix.qry.nsinfo={pmix.nspace=slurmix.$J.1;pmix.jobid=$J.1;pmix.nlist=vn\[1-2\];pmix.job.size=2;" <<<"$out"' '
echo "job $SLURM_JOB_ID"
$S --overlap -w vn4 -N1 -n1 sleep 6 &
sleep 1
$S --overlap -w vn[1-2] -N2 -n2 ./pmix_query -r 1 pmix.qry.ns pmix.qry.nsinfo
wait'

	# answered on the node: what spawn honours (pmix.mapper is refused),
	# no debugger attribute, the memory of the step daemon and the tasks;
	# an unknown key beside them: a partial success with the others
	mcase "query SPAWN_SUPPORT, DEBUG_SUPPORT, MEMORY_USAGE; an unknown key: partial success" '
		[ $rc -eq 0 ] && grep -qx "rank 0 status QUERY-PARTIAL-SUCCESS" <<<"$out" &&
		grep -qE "^rank 0 pmix.qry.spawn=(.*,)?pmix.host,.*pmix.wdir" <<<"$out" &&
		! grep -q "pmix.mapper" <<<"$out" && grep -qx "rank 0 pmix.qry.debug=" <<<"$out" &&
		grep -qE "^rank 0 pmix.qry.mem=\{pmix.dmn.mem=[0-9.]*[1-9][0-9.]*;pmix.cl.mem.avg=[0-9.]*[1-9][0-9.]*\}$" <<<"$out" &&
		! grep -q "slurmix.no.such" <<<"$out"' '
$S -N2 -n4 ./pmix_query pmix.qry.spawn,pmix.qry.debug,pmix.qry.mem,slurmix.no.such.key'

	mcase "query from python3-pmix -N4 -n8" '
		[ $rc -eq 0 ] && grep -qE "^python query ok: left [0-9]+ s, namespaces 1, host functions [1-9][0-9]+$" <<<"$out"' '
$S -N4 -n8 /usr/bin/python3 ./py_query.py 600 vc'

	# PMIX_QUERY_ATTRIBUTE_SUPPORT from a task on another node than node 0:
	# the host level from the step daemon's registrations (spawn's from the
	# planner's table, without what it refuses; log without e-mail), the
	# client level answered in the task, an unknown function absent; a
	# level qualifier of the wrong type refused (docs/query.md)
	mcase "query PMIX_QUERY_ATTRIBUTE_SUPPORT: host and client levels" '
		[ $rc -eq 0 ] && grep -qx "rank 1 status SUCCESS" <<<"$out" &&
		grep -qE "^rank 1 pmix.host.fns=(.*,)?PMIx_Spawn,(.*,)?PMIx_Job_control(,|$)" <<<"$out" &&
		grep -qE "^rank 1 pmix.host.attrs=\{PMIx_Spawn=\[(.*,)?PMIX_HOST/pmix.host/PMIX_STRING,.*\];PMIx_Log=\[.*PMIX_LOG_STDERR/.*\];PMIx_Job_control=\[.*PMIX_JOB_CTRL_PAUSE/pmix.jctrl.pause/PMIX_BOOL.*\]\}$" <<<"$out" &&
		grep -qE "^rank 1 pmix.client.attrs=\{PMIx_Get=\[.*PMIX_TIMEOUT/pmix.timeout/PMIX_INT.*\]\}$" <<<"$out" &&
		! grep -qE "PMIX_MAPPER|PMIX_LOG_EMAIL|PMIx_Nope" <<<"$out" &&
		grep -qx "rank 0 status BAD-PARAM" <<<"$out"' '
$S -N2 -n2 ./pmix_query -r 1 "pmix.qry.attrs@pmix.host.fns@pmix.host.attrs=PMIx_Log,PMIx_Nope,PMIx_Job_control,PMIx_Spawn@pmix.client.attrs=PMIx_Get"
$S -N1 -n1 ./pmix_query "pmix.qry.attrs@pmix.host.attrs#=3"'

	# broken query requests to srun: a bad key is dropped, broken
	# payloads get an error reply, srun goes on answering
	mcase "query: broken SLURMQ requests to srun" '
		[ $rc -eq 0 ] && grep -qx "closed 50" <<<"$out" &&
		[ "$(grep -cE "^reply 50 status -[0-9]+$" <<<"$out")" = 4 ] &&
		grep -qx "reply 50 status 0" <<<"$out" &&
		[ "$(grep -c "malformed query request from a step daemon" <<<"$out")" -ge 3 ] &&
		grep -qE "^rank 0 pmix.time.remaining=[1-9]" <<<"$out"' "
\$S -N1 -n1 bash -c 'python3 -c \"\$0\"; exec ./pmix_query pmix.time.remaining' '$poke_slurmq'"
}

# Job, app, node and proc keys (docs/keys.md) against Slurm's view: a
# step of one rank on each of vn2 and vn3 of a 4-node allocation; rank 1
# asks about vn2, rank 0 about rank 1
keys_cases() {
	mcase "keys: job, app, node and proc levels as Slurm says" '
		[ $rc -eq 0 ] && J=$(sed -n "s/^job //p" <<<"$out") && A=$(sed -n "s/^alloc //p" <<<"$out") &&
		M=$(sed -n "s/^mem //p" <<<"$out") && has_all \
			"rank 1 get pmix.nlist=vn2,vn3" "rank 1 get pmix.session.id=$J" \
			"rank 1 get pmix.alist=$A" "rank 1 get pmix.num.anodes=4" \
			"rank 1 get pmix.nspace=slurmix.$J.0" "rank 1 get pmix.pmem=$M" \
			"rank 1 get pmix.local.size=1" "rank 1 get pmix.lpeers=0" \
			"rank 1 get pmix.app.size=2" "rank 1 get pmix.pmem NOT-FOUND" \
			"rank 0 get pmix.procid=slurmix.$J.1:1" "rank 0 get pmix.reinc=0" \
			"rank 0 get pmix.hname=vn3" "rank 1 get pmix.wdir=$bin" &&
		grep -qE "^rank 1 get pmix.lcpus=[0-9,-]+$" <<<"$out" &&
		grep -qx "rank 1 get pmix.app.argv=./pmix_query -g -r 1 pmix.nlist .* pmix.wdir pmix.app.argv@pmix.app.info@pmix.appnum#=0" <<<"$out"' '
echo "job $SLURM_JOB_ID"
echo "alloc $(scontrol show hostnames "$SLURM_JOB_NODELIST" | paste -sd,)"
echo "mem $(awk "/^MemTotal:/ { printf \"%.0f\", \$2 * 1024 }" /proc/meminfo)"
$S -w vn[2-3] -N2 -n2 ./pmix_query -g -r 1 pmix.nlist pmix.session.id \
	pmix.alist pmix.num.anodes pmix.nspace pmix.pmem pmix.lcpus \
	"pmix.local.size@pmix.node.info@pmix.hname=vn2" "pmix.lpeers@pmix.node.info@pmix.nodeid#=0" \
	"pmix.app.size@pmix.app.info@pmix.appnum#=0" "pmix.pmem@pmix.node.info@pmix.hname=vn2" \
	pmix.wdir "pmix.app.argv@pmix.app.info@pmix.appnum#=0"
$S -w vn[2-3] -N2 -n2 ./pmix_query -g -r 0 -p 1 pmix.procid pmix.reinc pmix.hname'
}

# PMIx credentials with MUNGE (docs/credentials.md): made on one node,
# validated on another with the maker's uid and gid; refused when
# tampered with, expired, not ours, of another user, or of another type
cred_cases() {
	mcase "credentials: made by rank 0, validated on 3 other nodes (blocking and _nb)" '
		[ $rc -eq 0 ] && U=$(id -u) && G=$(id -g) && grep -qx "rank 0 get SUCCESS" <<<"$out" &&
		[ "$(grep -cx "rank [123] validate SUCCESS uid=$U gid=$G type=munge" <<<"$out")" = 3 ]' '
$S -N4 -n4 ./pmix_cred xfer'

	mcase "credentials: tampered, expired, not ours, another user, another type: refused" '
		[ $rc -eq 0 ] && has_all "ok rank 0 validate SUCCESS uid=0 gid=0 type=munge" \
			"tampered rank 0 validate INVALID-CREDENTIAL" "expired rank 0 validate INVALID-CREDENTIAL" \
			"junk rank 0 validate INVALID-CREDENTIAL" "user-made rank 0 validate INVALID-CREDENTIAL" \
			"other-user rank 0 validate NO-PERMISSIONS" "type rank 0 validate NOT-SUPPORTED" \
			"get-type rank 0 get NOT-SUPPORTED" "get-munge rank 0 get SUCCESS" \
			"bad-ttl rank 0 get BAD-PARAM"' '
rm -f cred.*
$S -N1 -n1 -w vn1 ./pmix_cred get cred.ok >/dev/null
$S -N1 -n1 -w vn1 ./pmix_cred get cred.short 1 >/dev/null
chmod 644 cred.ok
printf "hello" >cred.junk
munge -n -s "slurmix-cred 1 0 0 x 0" -o cred.user 2>/dev/null || munge -n -s x >cred.user
sleep 2.5
for c in "ok cred.ok" "tampered cred.ok tamper" "expired cred.short" "junk cred.junk" \
	"user-made cred.user" "type cred.ok none-such"; do
	set -- $c
	$S -N1 -n1 -w vn2 ./pmix_cred check $2 $3 | sed "s/^/$1 /"
done
# a job of its own (a user may not start steps in root'"'"'s job)
runuser -u slurmixtest -- env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
	SLURMIX_JOBDIR_BASE="$SLURMIX_JOBDIR_BASE" srun --mpi=slurmix -N1 -n1 ./pmix_cred check cred.ok |
	sed "s/^/other-user /"
$S -N1 -n1 ./pmix_cred get cred.x 0 none-such | sed "s/^/get-type /"
$S -N1 -n1 ./pmix_cred get cred.y 0 munge,other | sed "s/^/get-munge /"
$S -N1 -n1 ./pmix_cred get cred.z 99999 | sed "s/^/bad-ttl /"
rm -f cred.*'
}

# PMIx_Log (docs/log.md): into the rank's own stream (so --label and
# --error files show it as the task's), formatted, aggregated as Open MPI
# 5's help messages need, to syslog and the step daemon's log, ONCE,
# refusals
log_cases() {
	# a regular file the task holds itself (--error without --label):
	# refused, never written by root
	mcase "log: PMIX_LOG_STDERR/STDOUT in the rank's own stream (--label); a file: refused" '
		[ $rc -eq 0 ] && has_all "0: hello 0" "1: hello 1" "2: hello 2" "3: hello 3" \
			"0: out 0" "3: out 3" "rank 0 log NOT-SUPPORTED" "rank 1 log NOT-SUPPORTED" &&
		[ "$(grep -c "hello" <<<"$out")" = 4 ] && ! grep -q "to file" <<<"$out"' '
rm -f err.*
$S -N2 -n4 --label ./pmix_log stderr "hello %r" 2>&1 >/dev/null
$S -N2 -n4 --label ./pmix_log stdout "out %r" | grep -v " log "
$S -N2 -n2 --error=err.%t ./pmix_log stderr "to file %r"
cat err.0 err.1; rm -f err.*'

	mcase "log: PMIX_LOG_TAG_OUTPUT, _GENERATE_TIMESTAMP, _XML_OUTPUT" '
		[ $rc -eq 0 ] && J=$(sed -n "s/^job //p" <<<"$out") &&
		grep -qx "\[slurmix.$J.0,0\]<stderr>: tagged" <<<"$out" &&
		grep -qE "^\[20[0-9-]+T[0-9:.]+Z\] stamped$" <<<"$out" &&
		grep -qx "<stderr nspace=\"slurmix.$J.2\" rank=\"0\">in xml</stderr>" <<<"$out"' '
echo "job $SLURM_JOB_ID"
$S -N1 -n1 ./pmix_log stderr tagged tag 2>&1 >/dev/null
$S -N1 -n1 ./pmix_log stderr stamped ts 2>&1 >/dev/null
$S -N1 -n1 ./pmix_log stderr "in xml" xml 2>&1 >/dev/null'

	# 8 ranks on 4 nodes send the same help message: printed once, then
	# one line with the count; every rank told success (else Open MPI 5
	# prints it itself)
	mcase "log: an Open MPI 5 style aggregated help message printed once with its count" '
		[ $rc -eq 0 ] && [ "$(grep -cx "An MPI help message" <<<"$out")" = 1 ] &&
		[ "$(grep -cx "slurmix: 7 more processes sent this message (help-mpi.txt topic)" <<<"$out")" = 1 ] &&
		[ "$(grep -cx "rank [0-7] log SUCCESS" <<<"$out")" = 8 ]' '
$S -N4 -n8 ./pmix_log agg help-mpi.txt topic "An MPI help message"'

	# syslog (a listener on /dev/log for the case), the job record in the
	# slurmd log, ONCE, e-mail and a bad value
	mcase "log: syslog, global syslog, job record, ONCE, e-mail, a bad value" '
		[ $rc -eq 0 ] && J=$(sed -n "s/^job //p" <<<"$out") && has_all \
			"rank 0 log SUCCESS" "once rank 0 log SUCCESS" "email rank 0 log NOT-SUPPORTED" \
			"bad rank 0 log BAD-PARAM" &&
		{ grep -qx "system syslog" <<<"$out" ||
		  { grep -q "slurmix\[slurmix.$J.0:0\]: local line 0" <<<"$out" &&
		    grep -q "slurmix\[slurmix.$J.1:0\]: global line 0" <<<"$out"; }; } &&
		[ "$(grep -c "^once only$" <<<"$out")" = 1 ] &&
		grep -q "job record of slurmix.$J.2:0: recorded 0" "$state"/log/slurmd.*.log' '
echo "job $SLURM_JOB_ID"
rm -f syslog.txt
# a machine with a syslog of its own: its /dev/log is left alone
sys=0
[ -e /dev/log ] && sys=1 && echo "system syslog"
[ $sys = 1 ] || { python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(\"/dev/log\")
s.settimeout(8)
with open(\"syslog.txt\", \"w\") as f:
    try:
        while True:
            f.write(s.recv(65536).decode(errors=\"replace\") + \"\\n\"); f.flush()
    except socket.timeout:
        pass
" & L=$!; }
sleep 0.5
$S -N1 -n1 ./pmix_log syslog "local line %r"
$S -N1 -n1 ./pmix_log gsyslog "global line %r" | sed "s/^/g/"
$S -N1 -n1 ./pmix_log jobrec "recorded %r" | sed "s/^/j/"
$S -N1 -n1 ./pmix_log once "once only" 2>&1 | sed "s/^rank/once rank/"
$S -N1 -n1 ./pmix_log email "no mail" | sed "s/^/email /"
$S -N1 -n1 ./pmix_log bad | sed "s/^/bad /"
sleep 0.5
if [ $sys = 0 ]; then kill $L 2>/dev/null; wait $L 2>/dev/null; rm -f /dev/log; fi
cat syslog.txt 2>/dev/null; rm -f syslog.txt'

	mcase "log: broken LOG requests to srun" '
		[ $rc -eq 0 ] && grep -qx "closed 51" <<<"$out" &&
		[ "$(grep -cE "^reply 51 status -[0-9]+$" <<<"$out")" = 4 ] &&
		grep -qx "reply 51 status 0" <<<"$out" && grep -qx "through" <<<"$out" &&
		grep -qx "rank 0 log SUCCESS" <<<"$out"' "
\$S -N1 -n1 bash -c 'python3 -c \"\$0\"; exec ./pmix_log stderr through 2>&1' '$poke_log'"
}

# PMIx_Job_control (docs/jobctl.md): rank 0 acts on the last rank, on
# another node; its state is read from /proc (one host: every node's
# processes are visible)
jobctl_cases() {
	# rank 3 on another node; rank 0 itself, whose node holds ranks 1 and
	# 2 too (one process group for all of them, as Slurm makes it)
	mcase "job control: SIGNAL reaches a rank on another node, and only it; the caller itself" '
		[ $rc -eq 0 ] && has_all "signal SUCCESS" "rank 3 got signal 10" "self rank 0 got signal 10" &&
		[ "$(grep -c "got signal" <<<"$out")" = 2 ]' '
$S -w vn[1-2] -N2 -n4 -m block --distribution=block ./pmix_jobctl signal
$S -w vn1 -N1 -n3 ./pmix_jobctl signal 0 | sed "s/^rank/self rank/"'

	mcase "job control: PAUSE stops a rank on another node (state T), RESUME continues it" '
		[ $rc -eq 0 ] && has_all "pause SUCCESS" "paused state T" "resume SUCCESS" &&
		grep -qE "^resumed state [SR]$" <<<"$out"' '
$S -N2 -n4 ./pmix_jobctl pause'

	# PAUSE tells the handlers first (PMIX_JCTRL_PREEMPT_ALERT): rank 1's
	# answers after 1 s (its mark is there before the stop; without the
	# wait it is not, tried), rank 2 has none (no wait), rank 3's never
	# answers (stopped at the wait's end, 2 s: half its PMIX_TIMEOUT)
	mcase "job control: PAUSE waits for the alert handlers, or for its wait's end" '
		[ $rc -eq 0 ] && has_all "pausev 1 SUCCESS waited long mark yes state T" \
			"pausev 2 SUCCESS waited short mark no state T" \
			"pausev 3 SUCCESS waited long mark no state T" &&
		[ "$(grep -cE "^resumed [123] state [SR]$" <<<"$out")" = 3 ]' '
$S -N2 -n4 ./pmix_jobctl pausev'

	# checkpoints by the registered method: rank 1 an event, rank 2 a
	# signal, rank 3 none
	mcase "job control: CHECKPOINT by each rank's method (event, signal, none), broken methods" '
		[ $rc -eq 0 ] && has_all "rank 1 method SUCCESS" "rank 2 method SUCCESS" \
			"ckpt methods SUCCESS" "rank 1 checkpoint ck1" "rank 2 checkpoint signal 12" \
			"ckpt none NOT-SUPPORTED" "ckpt bad-method BAD-PARAM" \
			"ckpt other-target BAD-PARAM" "ckpt bad-signal BAD-PARAM"' '
$S -N2 -n4 ./pmix_jobctl ckpt'

	# CANCEL of a TERMINATE's SIGKILL (rank 3 ignores SIGTERM: it lives)
	# and of a PAUSE still waiting for rank 3's silent handler
	mcase "job control: CANCEL of a pending TERMINATE and PAUSE" '
		[ $rc -eq 0 ] && has_all "cancel terminate SUCCESS" "cancel term SUCCESS" \
			"cancel again NOT-FOUND" "cancel pause SUCCESS" \
			"pause answered JOB CANCELED" &&
		grep -qE "^rank 3 state [SR]$" <<<"$out"' '
$S -N2 -n4 ./pmix_jobctl cancel'

	# the rank ignores SIGTERM: SIGKILL after KillWait (3 s here)
	mcase "job control: TERMINATE (SIGTERM ignored, SIGKILL after KillWait) and KILL" '
		has_all "term SUCCESS" "kill SUCCESS" && ! grep -q "still alive" <<<"$out" &&
		[ "$(grep -c "task 3: Killed\|task 3: .*signal 9\|tasks\? 3.*Killed" <<<"$out")" -ge 1 ]' '
$S -N2 -n4 ./pmix_jobctl term
$S -N2 -n4 ./pmix_jobctl kill'

	# step 0 waits on vn3 and vn4; step 1 (another srun of the
	# allocation) signals step 0's rank 1 only
	mcase "job control: SIGNAL to a rank of another step of the allocation" '
		[ $rc -eq 0 ] && has_all "signal-ns SUCCESS" "rank 1 got signal 10" "rank 0 no signal"' '
$S --overlap -w vn[3-4] -N2 -n2 ./pmix_jobctl waitsig 6 &
sleep 1.5
$S --overlap -w vn1 -N1 -n1 ./pmix_jobctl signal-ns slurmix.$SLURM_JOB_ID.0 1
wait'

	mcase "job control: refused directives and targets" '
		[ $rc -eq 0 ] && has_all "refuse preemptible NOT-SUPPORTED" \
			"refuse ckpt-timeout-alone BAD-PARAM" "refuse cancel-twice BAD-PARAM" \
			"refuse required NOT-SUPPORTED" "refuse two BAD-PARAM" \
			"refuse other-nspace NOT-SUPPORTED" "refuse no-such-step NOT-FOUND" \
			"refuse rank BAD-PARAM" \
			"refuse none NOT-SUPPORTED"' '
$S -N2 -n2 ./pmix_jobctl refuse'
}

# Allocation requests (docs/alloc.md). EXTEND: refused by the step daemon
# at once; RELEASE of time and nodes as scontrol then shows them (a node
# where a step runs is kept: Slurm would kill the step); NEW: granted,
# the event, a spawn into it, released at srun's end or on request; one
# that cannot be granted in its time: the error event, nothing left.
alloc_cases() {
	mcase "alloc EXTEND: NO_PERMISSIONS at once, the job unchanged" '
		[ $rc -eq 0 ] && [ "$(grep -c "^extend NO-PERMISSIONS [0-9]*$" <<<"$out")" = 2 ] &&
		awk "/^extend / { if (\$3 > 500) bad = 1 } END { exit bad }" <<<"$out" &&
		has_all "limit TimeLimit=00:10:00" "nodes NumNodes=4"' '
$S -N1 -n1 ./pmix_alloc extend
echo "limit $(scontrol show job $SLURM_JOB_ID | grep -o "TimeLimit=[^ ]*")"
echo "nodes $(scontrol show job $SLURM_JOB_ID | grep -o "NumNodes=[^ ]*")"'

	mcase "alloc RELEASE of time: scontrol shows the lower TimeLimit" '
		[ $rc -eq 0 ] && grep -q "^release-time SUCCESS pmix.alloc.time=420 " <<<"$out" &&
		has_all "limit TimeLimit=00:07:00"' '
$S -N1 -n1 ./pmix_alloc release-time 180
echo "limit $(scontrol show job $SLURM_JOB_ID | grep -o "TimeLimit=[^ ]*")"'

	# a step runs on vn3 meanwhile: vn3 is not released, and the step ends
	# well; a count releases the last nodes without a step (vn4); then a
	# time release, which slurmctld defers after a shrink until the
	# resized job is recorded (never without slurmdbd, as here)
	mcase "alloc RELEASE of nodes: scontrol shows fewer, a node with a step is kept" '
		[ $rc -eq 0 ] && grep -q "^release-list BAD-PARAM" <<<"$out" &&
		grep -q "a step of the job runs there" <<<"$out" &&
		grep -q "^release-nodes SUCCESS .*pmix.alloc.nlist=vn\[1-3\] pmix.alloc.nnodes=3$" <<<"$out" &&
		grep -qE "^release-time (SUCCESS|RESOURCE-BUSY) " <<<"$out" &&
		has_all "nodes NodeList=vn[1-3] NumNodes=3" "vn3 step ended 0"' '
$S --overlap -w vn3 -N1 -n1 sleep 5 &
sleep 1.5
$S --overlap -w vn1 -N1 -n1 ./pmix_alloc release-list vn3
$S --overlap -w vn1 -N1 -n1 ./pmix_alloc release-nodes 1
echo "nodes $(scontrol show job $SLURM_JOB_ID | grep -o " NodeList=[^ ]*\|NumNodes=[^ ]*" | paste -sd" " | sed "s/^ //")"
$S --overlap -w vn1 -N1 -n1 ./pmix_alloc release-time 120
wait %1; echo "vn3 step ended $?"'

	mcase "alloc RELEASE of a node list: scontrol shows the rest" '
		[ $rc -eq 0 ] && grep -q "^release-list SUCCESS .*pmix.alloc.nlist=vn\[1,3-4\] pmix.alloc.nnodes=3$" <<<"$out" &&
		has_all "nodes NodeList=vn[1,3-4] NumNodes=3"' '
$S -w vn1 -N1 -n1 ./pmix_alloc release-list vn2
echo "nodes $(scontrol show job $SLURM_JOB_ID | grep -o " NodeList=[^ ]*\|NumNodes=[^ ]*" | paste -sd" " | sed "s/^ //")"'

	# granted at once here (the partition shares its nodes); the child
	# runs in the new job (a step of it); nothing of it is left once srun
	# ended, or once released; its time limit is at most what is left of
	# this job's (10 min), asked 10 hours or nothing
	mcase "alloc NEW: id, ALLOC_COMPLETE event, a spawn into it; released at the end or at once" '
		[ $rc -eq 0 ] && X=$(sed -n "s/^new SUCCESS id=\([0-9]*\) reqid=req-7$/\1/p" <<<"$out" | head -1) &&
		[ "$(grep -cE "^new-limit TimeLimit=00:(09|10):00$" <<<"$out")" = 2 ] &&
		[ -n "$X" ] && [ "$X" != "$(sed -n "s/^job //p" <<<"$out")" ] &&
		grep -qE "^event ALLOC_COMPLETE id=$X reqid=req-7 nodes=vn[1-4] nnodes=1 text=$" <<<"$out" &&
		has_all "spawn SUCCESS slurmix.$X.0" "child slurmix.$X.0 rank 0 job $X" \
			"child-steps :$X.0" "left :" "release-new SUCCESS" "after-release :"' '
echo "job $SLURM_JOB_ID"
$S -N1 -n1 ./pmix_alloc new 1 20 - - spawn long limit
for i in $(seq 50); do [ -z "$(squeue -h -t PD,R,CG -n slurmix-alloc -o %i)" ] && break; sleep 0.2; done
echo "left :$(squeue -h -t PD,R,CG -n slurmix-alloc -o %i | paste -sd,)"
$S -N1 -n1 ./pmix_alloc new 1 20 - - release limit'

	# vn4 drained: a NEW that asks for it waits, and is cancelled at its
	# 3 s timeout; a spawn into it meanwhile is RESOURCE_BUSY; an unknown
	# partition is refused by Slurm at once; 20 at once from one client:
	# the step daemon takes 16
	mcase "alloc NEW not granted in its time: JOB_ALLOC_FAILED event, nothing pending; a bad queue" '
		[ $rc -eq 0 ] && X=$(sed -n "s/^new SUCCESS id=\([0-9]*\) reqid=req-7$/\1/p" <<<"$out") &&
		grep -q "^spawn RESOURCE-BUSY $" <<<"$out" && grep -q "allocation $X is not granted yet" <<<"$out" &&
		has_all "flood ok=16 full=4 other=0" "flood-events 16" &&
		[ -n "$X" ] && grep -q "^event JOB_ALLOC_FAILED id=$X reqid=req-7 nodes= nnodes= text=not granted in time: cancelled" <<<"$out" &&
		t=$(sed -n "s/^took //p" <<<"$out") && [ "$t" -ge 3 ] && [ "$t" -le 9 ] &&
		has_all "pending " "new FAILED TO OBTAIN ALLOCATION id= reqid="' '
scontrol update NodeName=vn4 State=DRAIN Reason=alloc-test
t0=$(date +%s)
$S -w vn1 -N1 -n1 ./pmix_alloc new 1 3 - vn4 spawn-early
echo "took $(($(date +%s) - t0))"
$S -w vn1 -N1 -n1 ./pmix_alloc flood 20 vn4
echo "pending $(squeue -h -t PD,R -n slurmix-alloc -o %i | paste -sd,)"
scontrol update NodeName=vn4 State=RESUME
$S -N1 -n1 ./pmix_alloc new 1 5 no-such-queue -'

	mcase "alloc: broken requests refused" '
		[ $rc -eq 0 ] && has_all "broken nodes-string BAD-PARAM" "broken directive BAD-PARAM" \
			"broken reaquire NOT-SUPPORTED" "broken external NOT-SUPPORTED" \
			"broken required NOT-SUPPORTED" "broken nothing BAD-PARAM" \
			"broken other-job NO-PERMISSIONS" "broken own-node BAD-PARAM" \
			"broken not-ours BAD-PARAM" "broken under-a-minute BAD-PARAM" \
			"broken huge-list BAD-PARAM" \
			"spawn NO-PERMISSIONS " "limit TimeLimit=00:10:00 NumNodes=4" &&
		grep -q "more nodes than the job has" <<<"$out"' '
$S -N1 -n1 ./pmix_alloc broken
echo "limit $(scontrol show job $SLURM_JOB_ID | grep -o "TimeLimit=[^ ]*\|NumNodes=[^ ]*" | paste -sd" ")"'

	# ALLOC requests (lib/proto.h 52) straight to srun's agent; srun goes
	# on answering (a good release after them)
	mcase "alloc: broken ALLOC requests to srun" '
		[ $rc -eq 0 ] && grep -qx "closed 52" <<<"$out" &&
		[ "$(grep -cE "^reply 52 status -[0-9]+$" <<<"$out")" = 7 ] &&
		[ "$(grep -c "malformed allocation request from a step daemon" <<<"$out")" -ge 4 ] &&
		grep -q "^release-time SUCCESS pmix.alloc.time=540 " <<<"$out"' "
\$S -N1 -n1 bash -c 'python3 -c \"\$0\"; exec ./pmix_alloc release-time 60' '$poke_alloc'"

	# 200 NEW at once straight to srun: 64 taken, the rest
	# OUT_OF_RESOURCE, none left after srun; 64 whose requesters leave at
	# once: cancelled, their records forgotten after the grace (20 s)
	mcase "alloc: 200 NEW at once to srun: 64 held, none left; gone requesters cancelled" '
		[ $rc -eq 0 ] && has_all "many ok 64 full 136 other 0" "held 64" "left 0" \
			"gone-held 0" "reply 52 status -29" "reply 52 status 0" "end-left 0" &&
		grep -q "its requester gave up waiting: cancelled" <<<"$out"' "
\$S -N1 -n1 python3 -c '$poke_many'
echo \"left \$(squeue -h -n slurmix-alloc -t PD,R,CG -o %i | wc -l)\"
\$S -N1 -n1 python3 -c '$poke_gone'
for i in \$(seq 50); do [ -z \"\$(squeue -h -n slurmix-alloc -t PD,R,CG -o %i)\" ] && break; sleep 0.2; done
echo \"end-left \$(squeue -h -n slurmix-alloc -t PD,R,CG -o %i | wc -l)\""
}

# NEW requests straight to srun's agent from 200 threads at once, then
# how many jobs srun holds
poke_many='from poke_agent import *
import subprocess, threading
new = pstr(KEY) + proc("x", 0) + u8(1) + u32(30) + size(0)
got = []
def one():
    s = socket.create_connection(("127.0.0.1", int(os.environ["SLURMIX_SRUN_PORT"])))
    s.settimeout(60)
    s.sendall(frame(52, new))
    r = s.recv(100)
    s.close()
    got.append(struct.unpack(">i", r[22:26])[0] if len(r) >= 26 else None)
ts = [threading.Thread(target=one) for i in range(200)]
[t.start() for t in ts]
[t.join() for t in ts]
print("many ok", got.count(0), "full", got.count(-29), "other", len(got) - got.count(0) - got.count(-29))
q = subprocess.run(["squeue", "-h", "-n", "slurmix-alloc", "-t", "PD,R", "-o", "%i"], capture_output=True, text=True)
print("held", len(q.stdout.split()))'

# 64 NEW requests whose senders close at once; once srun cancelled them
# all, one more is refused (the records wait for a WAIT) until the grace
# passed
poke_gone='from poke_agent import *
import subprocess, time
new = pstr(KEY) + proc("x", 0) + u8(1) + u32(30) + size(0)
for i in range(64):
    s = socket.create_connection(("127.0.0.1", int(os.environ["SLURMIX_SRUN_PORT"])))
    s.sendall(frame(52, new))
    s.close()
def held():
    q = subprocess.run(["squeue", "-h", "-n", "slurmix-alloc", "-t", "PD,R", "-o", "%i"], capture_output=True, text=True)
    return len(q.stdout.split())
time.sleep(2)
for i in range(40):
    if not held():
        break
    time.sleep(0.5)
print("gone-held", held())
send(52, new)
time.sleep(23)
send(52, new)'

# ALLOC requests (lib/proto.h 52) straight to srun's agent: a bad key, no
# payload, a truncated one, a NEW without a timeout, a WAIT for a bad id
# and for an unknown one, an EXTEND, a huge info count
poke_alloc='from poke_agent import *
key = KEY
me = proc("x", 0)
for body in (pstr("0" * 32) + me + u8(1), pstr(key), pstr(key) + me + u8(1) + b"\xff" * 3,
             pstr(key) + me + u8(1) + u32(0) + size(0), pstr(key) + me + u8(0) + pstr("1x"),
             pstr(key) + me + u8(0) + pstr("12345"), pstr(key) + me + u8(2) + u32(5) + size(0),
             pstr(key) + me + u8(3) + u32(5) + size(0x7fffffff)):
    send(52, body)'

# LOG requests (lib/proto.h 51) straight to srun's agent: a bad key, no
# payload, a truncated one, a priority out of range, a wrong channel type,
# and a good one
poke_log='from poke_agent import *
key = KEY
me = proc("x", 0)
i32 = lambda v: struct.pack(">HIi", 9, 1, v)
for body in (pstr("0" * 32) + me, pstr(key), pstr(key) + me + pstr("stderr") + b"\xff" * 3,
             pstr(key) + me + pstr("stderr") + i32(99) + pstr("") + pstr("") + pstr("m\n"),
             pstr(key) + me + u32(1) + i32(3) + pstr("") + pstr("") + pstr("m\n"),
             pstr(key) + me + pstr("stdout") + i32(3) + pstr("") + pstr("") + pstr("")):
    send(51, body)'

# has_all LINE...: every LINE is a line of $out.
has_all() {
	local l
	for l in "$@"; do grep -qxF "$l" <<<"$out" || { echo "missing: $l"; return 1; }; done
}

# SLURMQ requests (lib/proto.h 50) straight to srun's agent: a bad key,
# no payload, a truncated one, a huge count, junk after a good head, and
# one good (empty) query
poke_slurmq='from poke_agent import *
key = KEY
me = proc("x", 0)
for body in (pstr("0" * 32) + u32(0), pstr(key), pstr(key) + u32(0) + b"\xff" * 5,
             pstr(key) + u32(0) + me + size(0x7fffffff), pstr(key) + u32(1) + b"\x00" * 40,
             pstr(key) + u32(0) + me + size(0)):
    send(50, body)'

# PMIx_Process_monitor (docs/monitor.md): heartbeat and file monitors run
# by the step daemon's server; alerts to the requester and to the ranks on
# other nodes that registered; the must-not-fire cases (beats within the
# drops, a cancelled monitor, a growing file); refusals
monitor_cases() {
	mcase "monitor heartbeat: alert after the beats stop, to the requester and to ranks on another node" '
		[ $rc -eq 0 ] && has_all "rank 0 alerts while beating 0" "rank 0 alert -109 src 0 id hb" \
			"rank 1 alert -109 src 0 id hb" "rank 2 alert -109 src 0 id hb" \
			"rank 3 alert -109 src 0 id hb" && [ "$(grep -c " alert " <<<"$out")" = 4 ]' '
$S -N2 -n4 -m block ./pmix_monitor beats 0.5 1 4'

	# a beat every 2 s against a 1 s period: one period in two has no
	# beat, within DROPS 2 (an ignored DROPS fires while beating)
	mcase "monitor heartbeat: beats within the allowed drops do not fire, stopping does" '
		[ $rc -eq 0 ] && has_all "rank 0 alerts while beating 0" "rank 0 alert -109 src 0 id hb" \
			"rank 1 alert -109 src 0 id hb" && [ "$(grep -c " alert " <<<"$out")" = 2 ]' '
$S -N2 -n2 ./pmix_monitor beats 2 2 3'

	mcase "monitor cancel: a cancelled monitor never fires; the other raises the requested code" '
		[ $rc -eq 0 ] && has_all "cancel c1 SUCCESS" "cancel nope NOT-FOUND" \
			"rank 0 alert -12001 src 0 id c2" "rank 1 alert -12001 src 0 id c2" &&
		! grep -q "id c1\|alert -109" <<<"$out" && [ "$(grep -c " alert " <<<"$out")" = 2 ]' '
$S -N2 -n2 ./pmix_monitor cancel'

	mcase "monitor file: no alert while the file grows, FILE_ALERT once it stops" '
		[ $rc -eq 0 ] && has_all "rank 0 alerts while growing 0" "rank 0 alert -110 src 0 id file" \
			"rank 1 alert -110 src 0 id file" && [ "$(grep -c " alert " <<<"$out")" = 2 ]' '
rm -f mon.file
$S -N2 -n2 ./pmix_monitor file "$PWD/mon.file"
rm -f mon.file'

	# a job of the test user watching a file of root: refused, as a
	# relative path, a zero period and an unknown id are
	mcase "monitor refused: relative path, a file of another user, zero period, unknown id" '
		[ $rc -eq 0 ] && has_all "refuse relative BAD-PARAM" "refuse file NO-PERMISSIONS" \
			"refuse zero-period BAD-PARAM" "refuse unknown-cancel NOT-FOUND"' '
echo root >mon.root
runuser -u slurmixtest -- env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
	SLURMIX_JOBDIR_BASE="$SLURMIX_JOBDIR_BASE" srun --mpi=slurmix -N2 -n2 \
	./pmix_monitor refuse "$PWD/mon.root"
rm -f mon.root'
}

build_programs() {
	cp "$here/poke_agent.py" "$bin/" || return 1
	local p
	for p in pmix_query pmix_cred pmix_log pmix_jobctl pmix_group pmix_monitor pmix_alloc; do
		cc -std=gnu11 -O2 -I"$repo/src/pmix_core/include" -o "$bin/$p" "$here/$p.c" \
			-L"$build/.libs" -lpmix -lpthread || return 1
	done
	cp "$here/py_query.py" "$here/py_group.py" "$bin/"
	# for the case scripts: how many times slurmctld served the RPC
	# named $1 (sdiag's counts by message type)
	cat >"$bin/lib.sh" <<'EOF'
rpcs() {
	sdiag | awk -v m="$1" '$1 == m { for (i = 2; i <= NF; i++) if ($i ~ /^count:/) {
		sub("count:", "", $i); print $i; f = 1 } } END { if (!f) print 0 }'
}
EOF
}

# PMIx_Group_construct / _destruct (docs/groups.md) over 2-4 nodes
group_cases() {
	# 8 ranks on 4 nodes: one context id for all, every member's
	# PMIX_GROUP_INFO and posted (uncommitted) data at every other, the
	# process set, destruct, the same name again with a new id
	mcase "groups: construct over 4 nodes: one context id, group info and endpoints everywhere, a process set, the group query; destruct; the name again" '
		[ $rc -eq 0 ] && [ "$(grep -c "^rank [0-7] construct SUCCESS cid [1-9][0-9]* members 8$" <<<"$out")" = 8 ] &&
		[ "$(sed -n "s/^rank [0-7] construct SUCCESS cid \([0-9]*\) .*/\1/p" <<<"$out" | sort -u | wc -l)" = 1 ] &&
		[ "$(grep -c "^rank [0-7] lcid ok$" <<<"$out")" = 8 ] &&
		[ "$(grep -c "^rank [0-7] endpt ok$" <<<"$out")" = 8 ] &&
		[ "$(grep -c "^rank [0-7] pset yes$" <<<"$out")" = 8 ] &&
		[ "$(grep -c "^rank [0-7] groupq yes$" <<<"$out")" = 8 ] &&
		[ "$(grep -c "^rank [0-7] destruct SUCCESS$" <<<"$out")" = 8 ] &&
		[ "$(grep -c "^rank [0-7] destruct2 SUCCESS$" <<<"$out")" = 8 ] &&
		c1=$(sed -n "s/^rank 0 construct SUCCESS cid \([0-9]*\) .*/\1/p" <<<"$out") &&
		c2=$(sed -n "s/^rank 0 again SUCCESS cid \([0-9]*\)$/\1/p" <<<"$out") &&
		[ -n "$c2" ] && [ "$c1" != "$c2" ] &&
		[ "$(grep -c "^rank [0-7] again SUCCESS cid $c2$" <<<"$out")" = 8 ]' '
$S -N4 -n8 ./pmix_group basic'

	# the last rank (on the last node) is gone before the construct: the
	# others hear of it well before the construct'"'"'s 20 s timeout; with
	# PMIX_GROUP_OPTIONAL they go on without it
	mcase "groups: a member gone during construct fails it for the others within the timeout; OPTIONAL drops it" '
		[ "$(grep -cE "^rank [0-2] fail [A-Z -]+ after ([0-9]|1[0-5]) s$" <<<"$out")" = 3 ] &&
		! grep -q "^rank [0-2] fail SUCCESS" <<<"$out" &&
		[ "$(grep -c "^rank [0-2] optional SUCCESS members 3$" <<<"$out")" = 3 ]' '
$S -N4 -n4 ./pmix_group fail
$S -N4 -n4 ./pmix_group optional'

	# NOTIFY_TERMINATION: the others get MEMBER_FAILED from rank 3, with
	# the group id; without it, nothing (must not fire)
	mcase "groups: NOTIFY_TERMINATION gives MEMBER_FAILED across nodes; without it no event" '
		[ "$(grep -c "^rank [0-2] event from 3 group gn$" <<<"$out")" = 3 ] &&
		[ "$(grep -c "^off rank [0-2] no event$" <<<"$out")" = 3 ] && ! grep -q "construct" <<<"$out"' '
$S -N2 -n4 ./pmix_group notify on
$S -N2 -n4 ./pmix_group notify off | sed "s/^/off /"'

	# ranks 0 and 2 of -N2 -n4; rank 2 dies, rank 3 keeps its node'"'"'s
	# step daemon: rank 0'"'"'s destruct goes on without it, not to the timeout
	mcase "groups: a member dies beside a live task; the other destructs at once" '
		grep -qE "^rank 0 event from 2 group gd, lost-destruct SUCCESS after [0-3] s$" <<<"$out"' '
$S -N2 -n4 ./pmix_group lost-destruct'

	# two steps of the allocation: one group over both; each step'"'"'s own
	# group first: three different ids, the shared one the same in both
	mcase "groups: a group across two steps; context ids unique across the allocation" '
		[ $rc -eq 0 ] && [ "$(grep -c "^[AB] rank [0-9] xstep SUCCESS cid [1-9][0-9]* members 4 of 4$" <<<"$out")" = 4 ] &&
		[ "$(sed -n "s/^[AB] rank [0-9] xstep SUCCESS cid \([0-9]*\) .*/\1/p" <<<"$out" | sort -u | wc -l)" = 1 ] &&
		[ "$(sed -n "s/^\([AB]\) rank [0-9] local SUCCESS cid \([0-9]*\)$/\1 \2/p" <<<"$out" | sort -u | wc -l)" = 2 ] &&
		[ "$(sed -n "s/^[AB] rank [0-9] \(local\|xstep\) SUCCESS cid \([0-9]*\).*/\2/p" <<<"$out" | sort -u | wc -l)" = 3 ]' '
$S --overlap -w vn[1-2] -N2 -n2 ./pmix_group xstep slurmix.$SLURM_JOB_ID.1 2 | sed "s/^/A /" &
sleep 1
$S --overlap -w vn[3-4] -N2 -n2 ./pmix_group xstep slurmix.$SLURM_JOB_ID.0 2 | sed "s/^/B /"
wait'

	# rank 0 invites 4 ranks on 2 nodes: two join, the last declines;
	# then one that never answers, and the invite's 3 s timeout
	mcase "groups: invite and join across nodes (a decline left out); a silent invitee and the timeout" '
		[ $rc -eq 0 ] && grep -qE "^rank 0 invite SUCCESS cid [1-9][0-9]* members 3$" <<<"$out" &&
		c=$(sed -n "s/^rank 0 invite SUCCESS cid \([0-9]*\) .*/\1/p" <<<"$out") &&
		[ "$(grep -c "^rank [0-2] complete cid $c members 3$" <<<"$out")" = 3 ] &&
		[ "$(grep -c "^rank [0-2] destruct SUCCESS$" <<<"$out")" = 3 ] &&
		grep -qx "rank 3 declined, no complete" <<<"$out" &&
		grep -qE "^silent rank 0 invite SUCCESS members 3 after [3-5] s$" <<<"$out" &&
		[ "$(grep -c "^silent rank [0-2] destruct SUCCESS$" <<<"$out")" = 3 ]' '
$S -N2 -n4 ./pmix_group invite
$S -N2 -n4 ./pmix_group invite-silent | sed "s/^/silent /"'

	mcase "groups: a member leaves; the others hear PMIX_GROUP_LEFT and destruct without it" '
		[ $rc -eq 0 ] && grep -qx "rank 3 leave SUCCESS" <<<"$out" &&
		[ "$(grep -c "^rank [0-2] left from 3$" <<<"$out")" = 3 ] &&
		[ "$(grep -c "^rank [0-2] destruct SUCCESS$" <<<"$out")" = 3 ]' '
$S -N2 -n4 ./pmix_group leave'

	mcase "groups: refused requests" '
		[ $rc -eq 0 ] && has_all "refuse type BAD-PARAM" \
			"refuse required NOT-SUPPORTED" "refuse unknown NOT-FOUND" \
			"refuse empty BAD-PARAM" "refuse outside BAD-PARAM" \
			"refuse first SUCCESS" "refuse twice EXISTS" \
			"refuse destruct SUCCESS"' '
$S -N1 -n2 ./pmix_group refuse'

	mcase "groups: python3-pmix constructs and destructs a group over 2 nodes" '
		[ $rc -eq 0 ] && [ "$(grep -c "^python group ok cid [1-9][0-9]* members 4$" <<<"$out")" = 4 ]' '
$S -N2 -n4 /usr/bin/python3 ./py_group.py'
}

# ---- main ----------------------------------------------------------------
t_all=$(now)
command -v sdiag >/dev/null || skip "no sdiag (apt-get install slurm-client)"
mkdir -p "$bin"
chmod 755 "$state" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
"$vc" restart -n 4 --plugin-dir "$build/.libs" --state-dir "$state" --port-base "$port" \
	--mpi-conf "$state/mpi.conf" >/dev/null || { echo "FAIL cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
export SLURMIX_JOBDIR_BASE=$state/jobdirs
mkdir -p "$SLURMIX_JOBDIR_BASE"
build_programs || { echo "FAIL cannot build the test programs"; exit 1; }
"$vc" adduser --state-dir "$state" >/dev/null || { echo "FAIL cannot add the test user"; exit 1; }

query_cases
keys_cases
cred_cases
log_cases
jobctl_cases
group_cases
monitor_cases
alloc_cases

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
