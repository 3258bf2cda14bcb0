#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/run.sh SECONDS - builds every fuzz target (libFuzzer, with
# AddressSanitizer and UndefinedBehaviorSanitizer, clang from Debian's
# packages) and runs each for its share of SECONDS (at least 1 s each),
# starting from its seed corpus in tests/fuzz/corpus/TARGET (which holds
# the inputs of every finding fixed: they run first, as regression cases).
# Prints one line per target, "TARGET execs=N crashes=C leaks=L", and
# exits non-zero on any finding or build failure. Findings are kept in
# $FUZZ/findings/TARGET, new inputs in $FUZZ/corpus/TARGET, where FUZZ is
# $SLURMIX_FUZZ_DIR (default: build/fuzz of the tree, or
# $SLURMIX_BUILDDIR/fuzz). docs/fuzzing.md says more.
set -uo pipefail
total=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fz=${SLURMIX_FUZZ_DIR:-${SLURMIX_BUILDDIR:-$top/build}/fuzz}
all="fuzz_unpack fuzz_plugin_lib fuzz_server"
# which run (all are built): SLURMIX_FUZZ_TARGETS, default all
targets=${SLURMIX_FUZZ_TARGETS:-$all}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

die() { echo "fuzz: $*"; echo "fuzz: build failed"; exit 2; }
command -v clang >/dev/null || die "no clang (apt-get install clang)"
mkdir -p "$fz" || die "cannot make $fz"
cd "$fz" || exit 2
# the core, built once with the sanitizers and coverage (a tree of its own)
if [ ! -f Makefile ]; then
	"$top/configure" -q CC=clang CFLAGS="-g -O1 -fsanitize=fuzzer-no-link $san -Wno-error" \
		>configure.log 2>&1 || { tail -20 configure.log; die "configure"; }
fi
make -j"${SLURMIX_JOBS:-2}" libpxc.la >make.log 2>&1 || { tail -30 make.log; die "make"; }
inc="-D_GNU_SOURCE -I$top/src/pmix_core/include -I$top/src/pmix_core/common \
-I$top/src/pmix_core/wire -I$top/src/pmix_core -I$top/src -I$top/src/plugin -I$fz"
libs=".libs/libpxc.a -levent_core -levent_pthreads -levent -lhwloc -lz -lpthread"
lib=$top/src/plugin/lib
declare -A extra=(
	[fuzz_plugin_lib]="$lib/map.c $lib/util.c $lib/endpoints.c $lib/spawn_plan.c $lib/alloc_req.c $lib/srun_io.c"
	# the server removes what a client registered for cleanup: only
	# inside its own directory here (fuzz_server.c, "Confinement")
	[fuzz_server]="-Wl,--wrap=unlink,--wrap=unlinkat,--wrap=rmdir,--wrap=remove"
)
for t in $all; do
	# shellcheck disable=SC2086
	clang -g -O1 -fsanitize=fuzzer $san $inc "$here/$t.c" ${extra[$t]:-} $libs -o "$t" \
		>"$t.build.log" 2>&1 || { cat "$t.build.log"; die "$t"; }
done

n=$(wc -w <<<"$targets")
each=$((total / n))
[ "$each" -ge 1 ] || each=1
bad=0
for t in $targets; do
	mkdir -p "corpus/$t" "findings/$t"
	rm -f "findings/$t"/*
	seeds=$here/corpus/$t
	[ -d "$seeds" ] || seeds=
	# fuzz_server: at most 1000 inputs a second of its share (the open
	# stall of docs/fuzzing.md comes after 10^5 inputs; longer runs by hand)
	runs=
	[ "$t" = fuzz_server ] && runs="-runs=$((each * 1000))"
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		"./$t" -max_total_time="$each" $runs -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="findings/$t/" "corpus/$t" $seeds >"$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t.log" | tail -1)
	crashes=$(find "findings/$t" -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
	leaks=$(find "findings/$t" -name 'leak-*' | wc -l)
	if [ "$rc" -ne 0 ] && [ $((crashes + leaks)) -eq 0 ]; then
		crashes=1 # it ended badly without an artifact: say so
		tail -30 "$t.log"
	fi
	[ $((crashes + leaks)) -eq 0 ] || { bad=1; grep -m1 -A12 "ERROR" "$t.log"; }
	echo "$t execs=${execs:-0} crashes=$crashes leaks=$leaks"
done
exit $bad
