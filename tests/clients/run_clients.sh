#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_clients.sh - real clients under slurmix-run, against our libpmix.so.2.
#
# Run by `make check` (TESTS_ENVIRONMENT gives SLURMIX_SRCDIR and
# SLURMIX_BUILDDIR; OPENPMIX_INCLUDE names OpenPMIx's headers). Builds into
# $SLURMIX_BUILDDIR/tests/clients:
#   - our PMIx test programs twice: against our headers (*.ours) and against
#     OpenPMIx's (*.opmix), both linked with and run on our library;
#   - the Open MPI programs with Debian's mpicc (ompi_*), if mpicc exists;
# then runs each case under slurmix-run with a time limit and checks exit
# codes and output. One line per case: "PASS name", "FAIL name (why)" or
# "SKIP name (why)"; the last line is "N passed, M failed". Exits 1 if any
# case failed. Session directories go to the build dir and must be gone
# after every case. CLIENTS="basic spawn" limits the PMIx programs.
set -u

SRC=${SLURMIX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${SLURMIX_BUILDDIR:-$PWD}
OPMIX_INC=${OPENPMIX_INCLUDE:-/usr/lib/x86_64-linux-gnu/pmix2/include}
[ -n "$OPMIX_INC" ] || OPMIX_INC=/usr/lib/x86_64-linux-gnu/pmix2/include
RUN=$BUILD/slurmix-run
LIBDIR=$BUILD/.libs
OUT=$BUILD/tests/clients
TMP=$OUT/tmp
LIMIT=${CLIENT_TIMEOUT:-60}
CC=${CC:-cc}
PY=/usr/bin/python3
CLIENTS=${CLIENTS:-basic fence pubsub spawn events abort misc iof push}
pass=0
fail=0

# Open MPI over loopback only (the other interface does not route here).
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

mkdir -p "$OUT" "$TMP"
cd "$OUT" || exit 1

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1 ($2)"; fail=$((fail + 1)); }
skip() { echo "SKIP $1 ($2)"; }

# run NAME [slurmix-run args...]: runs with output in NAME.out / NAME.err,
# sets $rc; fails the case (returns 1) if the session dir was left behind.
run() {
	local name=$1
	shift
	timeout -k 5 "$LIMIT" "$RUN" --tmpdir "$TMP" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	if [ -n "$(ls -A "$TMP")" ]; then
		ko "$name" "session directory left in $TMP: $(ls "$TMP" | head -1)"
		rm -rf "${TMP:?}"/*
		return 1
	fi
	return 0
}

# expect NAME RC [stdout-grep] [stderr-grep]: checks the last run.
expect() {
	local name=$1 want=$2 out=${3:-} err=${4:-}
	if [ "$rc" = 124 ] && [ "$want" != 124 ]; then
		ko "$name" "timed out after ${LIMIT}s: $(tail -1 "$name.err")"
	elif [ "$rc" != "$want" ]; then
		ko "$name" "exit $rc, expected $want: $(grep -v '^CLIENT' "$name.err" | tail -1)"
	elif [ -n "$out" ] && ! grep -q -- "$out" "$name.out"; then
		ko "$name" "no \"$out\" in stdout: $(head -c 200 "$name.out")"
	elif [ -n "$err" ] && ! grep -q -- "$err" "$name.err"; then
		ko "$name" "no \"$err\" in stderr: $(tail -1 "$name.err")"
	else
		ok "$name"
	fi
}

count() { grep -c -- "$2" "$1.out"; }

#----------------------------------------------------------------------
# build

if [ ! -x "$RUN" ] || [ ! -e "$LIBDIR/libpmix.so.2" ]; then
	echo "FAIL build (slurmix-run or .libs/libpmix.so.2 missing in $BUILD)"
	echo "0 passed, 1 failed"
	exit 1
fi

build_pmix() { # name flavour include-dir
	$CC -std=gnu11 -O1 -g -Wall -Wextra -I"$SRC/tests/clients" -I"$3" \
		-o "$OUT/pmix_$1.$2" "$SRC/tests/clients/pmix_$1.c" \
		-L"$LIBDIR" -lpmix -lpthread >"build_$1.$2.log" 2>&1
}

for c in $CLIENTS; do
	build_pmix "$c" ours "$SRC/src/pmix_core/include" ||
		ko "build pmix_$c.ours" "$(head -3 "build_$c.ours.log" | tr '\n' ' ')"
	if [ -r "$OPMIX_INC/pmix.h" ]; then
		build_pmix "$c" opmix "$OPMIX_INC" ||
			ko "build pmix_$c.opmix" "$(head -3 "build_$c.opmix.log" | tr '\n' ' ')"
	fi
done

have_mpi=0
if command -v mpicc >/dev/null; then
	have_mpi=1
	for p in ompi_allreduce ompi_spawn ompi_abort; do
		mpicc -O1 -o "$OUT/$p" "$SRC/tests/clients/$p.c" >"build_$p.log" 2>&1 ||
			ko "build $p" "$(head -3 "build_$p.log" | tr '\n' ' ')"
	done
fi

#----------------------------------------------------------------------
# the launcher itself (no PMIx in the tasks)

run usage-np0 -n 0 /bin/true && expect usage-np0 2 "" "invalid number of tasks"
run usage-no-n /bin/true && expect usage-no-n 2 "" "number of tasks is required"
run usage-bad-opt -n 1 --bogus /bin/true && expect usage-bad-opt 2 "" "Usage"
run usage-no-prog -n 1 && expect usage-no-prog 2 "" "no program"
run missing-prog -n 2 ./no-such-program && expect missing-prog 127 "" "cannot execute"
printf '#!/nonexistent/interpreter\n' >badinterp.sh && chmod +x badinterp.sh
run exec-fails -n 3 ./badinterp.sh && expect exec-fails 127 "" "cannot execute .*badinterp.sh"
run true -n 3 /bin/true && expect true 0
if run mpmd -n 2 sh -c 'echo A$PMIX_RANK' : -n 1 sh -c 'echo B$PMIX_RANK' : sh -c 'echo C$PMIX_RANK'; then
	got=$(sort mpmd.out | tr '\n' ' ')
	[ "$rc" = 0 ] && [ "$got" = "A0 A1 B2 C3 C4 " ] && ok mpmd || ko mpmd "exit $rc, output: $got"
fi
run usage-mpmd -n 2 /bin/true : && expect usage-mpmd 2 "" "bad program list"
run exit3 -n 2 sh -c 'exit 3' && expect exit3 3 "" "exited with status 3"
run segv -n 2 sh -c 'kill -SEGV $$' && expect segv 139 "" "killed by signal 11 (SIGSEGV)"
if run env -n 2 -x SXR_TEST=abc sh -c 'echo "$SXR_TEST:$PMIX_RANK:$PMIX_NAMESPACE"'; then
	if [ "$rc" = 0 ] && [ "$(grep -c '^abc:[01]:slurmix-run\.' env.out)" = 2 ]; then
		ok env
	else
		ko env "exit $rc, output: $(tr '\n' ' ' <env.out)"
	fi
fi
lib=$(cd "$LIBDIR" && pwd -P)
if run libpath -n 1 sh -c 'echo "$LD_LIBRARY_PATH"'; then
	case $(cat libpath.out) in
	"$lib"*) ok libpath ;;
	*) ko libpath "LD_LIBRARY_PATH=$(cat libpath.out), expected $lib first" ;;
	esac
fi
t0=$(date +%s)
if run timeout -n 2 --timeout 1 sleep 30; then
	if [ $(($(date +%s) - t0)) -gt 10 ]; then
		ko timeout "took $(($(date +%s) - t0)) s"
	else
		expect timeout 124 "" "timeout after 1 seconds"
	fi
fi

# SIGTERM to slurmix-run: forwarded, tasks gone, session dir removed.
"$RUN" --tmpdir "$TMP" -n 2 sh -c 'echo $$; exec sleep 30' >sigterm.out 2>sigterm.err &
lpid=$!
for _ in $(seq 50); do [ "$(wc -l <sigterm.out)" -ge 2 ] && break; sleep 0.1; done
kill -TERM $lpid
wait $lpid
rc=$?
alive=0
for p in $(cat sigterm.out); do kill -0 "$p" 2>/dev/null && alive=1; done
if [ "$alive" = 1 ]; then
	ko sigterm "tasks still alive after slurmix-run ended"
elif [ -n "$(ls -A "$TMP")" ]; then
	ko sigterm "session directory left"
	rm -rf "${TMP:?}"/*
else
	expect sigterm 143 "" "received SIGTERM"
fi

#----------------------------------------------------------------------
# our PMIx clients, each built against both header sets

pmix_case() { # client flavour
	local c=$1 f=$2 bin=$OUT/pmix_$1.$2 name="pmix_$1.$2"
	[ -x "$bin" ] || { ko "$name" "not built"; return; }
	case $c in
	basic) run "$name" -n 4 "$bin" 4 && expect "$name" 0 "basic ok: size 4"
		run "$name-nofinalize" -n 3 "$bin" 3 nofinalize && expect "$name-nofinalize" 1 "" \
			"rank 0 of slurmix-run\.[0-9]* (pid [0-9]*) exited with status 0 without calling PMIx_Finalize"
		run "$name-mpmd" -n 2 "$bin" 5 : -n 3 "$bin" 5 appnum=1 &&
			expect "$name-mpmd" 0 "basic ok: size 5" ;;
	fence) run "$name" -n 4 "$bin" 4 && expect "$name" 0 "fence ok: size 4" ;;
	pubsub) run "$name" -n 3 "$bin" && expect "$name" 0 "pubsub ok" ;;
	spawn)
		if run "$name" -n 2 "$bin"; then
			if [ "$rc" = 0 ] && [ "$(count "$name" '^child [01] ok')" != 2 ]; then
				ko "$name" "children did not both report"
			else
				expect "$name" 0 "spawn ok: children=2"
			fi
		fi ;;
	events) run "$name" -n 3 --keep-going "$bin" &&
		expect "$name" 137 "events ok" "was killed by signal 9" ;;
	misc) run "$name" -n 3 "$bin" && expect "$name" 0 "misc ok" "pmix_misc log line" ;;
	iof) # rank 0 pulls what rank 1 writes; slurmix-run's stdout has it too
		if run "$name" -n 3 "$bin"; then
			if [ "$rc" = 0 ] && [ "$(count "$name" '^line [0-9]* of rank 1$')" != 200 ]; then
				ko "$name" "slurmix-run's stdout lacks rank 1's lines"
			else
				expect "$name" 0 "iof ok: 3690 bytes" "rank 1 to err"
			fi
		fi ;;
	push) # rank 0 pushes 3 MiB into ranks 1 and 2; without the mode, refused
		if SLURMIX_STDIN=push run "$name" -n 3 "$bin"; then
			if [ "$rc" = 0 ] && [ "$(count "$name" '^push ok rank [12] bytes 3145735$')" != 2 ]; then
				ko "$name" "ranks 1 and 2 did not both get every byte"
			else
				expect "$name" 0 "push ok rank 2"
			fi
		fi
		run "$name.refused" -n 3 "$bin" refused </dev/null &&
			expect "$name.refused" 0 "push refused ok" ;;
	abort) run "$name" -n 3 "$bin" &&
		expect "$name" 5 "" "rank 1 of slurmix-run\.[0-9]* called abort: pmix_abort test" ;;
	esac
}

for c in $CLIENTS; do
	pmix_case "$c" ours
	[ -r "$OPMIX_INC/pmix.h" ] && pmix_case "$c" opmix
done

#----------------------------------------------------------------------
# Open MPI (Debian's 4.1, its ext3x component loading our libpmix.so.2)

if [ "$have_mpi" = 1 ]; then
	run ompi_allreduce -n 4 "$OUT/ompi_allreduce" &&
		expect ompi_allreduce 0 "allreduce size=4 sum=10"
	if run ompi_spawn -n 2 "$OUT/ompi_spawn"; then
		if [ "$rc" = 0 ] && [ "$(count ompi_spawn '^child [01] of 2: parents=2')" != 2 ]; then
			ko ompi_spawn "children did not both report"
		else
			expect ompi_spawn 0 "spawn ok: children=2 replies=1100,1101"
		fi
	fi
	run ompi_abort -n 4 "$OUT/ompi_abort" &&
		expect ompi_abort 7 "" "rank 3 of slurmix-run\.[0-9]* called abort"
else
	skip ompi "mpicc not found"
fi

#----------------------------------------------------------------------
# python3-pmix (Debian's module, only importable by /usr/bin/python3)

if [ -x "$PY" ] && "$PY" -c 'import pmix' >/dev/null 2>&1; then
	run python -n 3 "$PY" "$SRC/tests/clients/py_basic.py" 3 &&
		expect python 0 "python ok: size 3"
else
	skip python "/usr/bin/python3 cannot import pmix"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
