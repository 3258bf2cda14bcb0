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

# iof_case NAME CHECK COMMAND...: runs COMMAND in $bin (its output in
# $out, its status in $rc), then CHECK (a bash expression) must be true.
iof_case() {
	local name=$1 check=$2 t0
	shift 2
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 120 "$@" 2>&1)
	rc=$?
	t=$(since "$t0")
	if eval "$check"; then
		ok "$name ($t s)"
	else
		echo "$out" | tail -c 2000 | tail -20
		bad "$name" "(rc $rc, $t s)"
	fi
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

build_programs() {
	cc -std=gnu11 -O2 -Wall -Wextra -o "$gen" "$here/iof_gen.c" || return 1
	for p in pmix_iofpull pmix_iofend; do
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

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
