# SPDX-License-Identifier: BSD-3-Clause
# bench_lib.sh - shell helpers shared by bench/side_by_side.sh and
# bench/local_bench.sh (sourced, not run).
#
# Both scripts run pmix_bench (and other commands) alternately under two
# implementations, keep every run's output in OUTDIR, and append one line
# per sample to OUTDIR/results.tsv:  GROUP IMPL METRIC VALUE  (tab-separated,
# VALUE a number, "failed" or "n/a"); bench_table.py turns that file into
# Markdown tables of medians and ratios.
#
# A run that fails never stops a script: its metrics are recorded as
# "failed" (every metric pmix_bench knows when it printed nothing), and the
# first lines of its output are shown once per group and implementation.

BENCH_METRICS="init_us start_init_ms get_job_ns fence_us modex_fence_us modex_get_us dmodex_get_us clock_ns"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# bench_prepare NAME: what every benchmark on the virtual cluster checks
# first (root; the plugin and library in $BUILD/.libs) and its output
# directory $OUTDIR with an empty results.tsv. Exits the script with a
# message naming NAME when a check fails.
bench_prepare() {
	local f
	[ "$(id -u)" -eq 0 ] || { echo "$1: needs root (the virtual cluster)" >&2; exit 77; }
	for f in .libs/mpi_slurmix.so .libs/libpmix.so.2; do
		[ -e "$BUILD/$f" ] || { echo "$1: no $BUILD/$f" >&2; exit 1; }
	done
	mkdir -p "$OUTDIR" || exit 2
	: >"$OUTDIR/results.tsv"
}

# sample GROUP IMPL METRIC VALUE: one line of results.tsv
sample() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$OUTDIR/results.tsv"; }

# show_failure GROUP IMPL OUTFILE WHY: print a failure once per group+impl
show_failure() {
	local tag="$OUTDIR/.shown.$1.$2"
	echo "  $2 failed ($4), output in $3" >&2
	[ -e "$tag" ] && return 0
	: >"$tag"
	sed -n '1,12p' "$3" | sed 's/^/    | /' >&2
}

# record GROUP IMPL RC OUTFILE WALL_MS LIBREGEX: parse one pmix_bench run.
# The run counts only if it exited 0 and rank 0 says it loaded a library
# matching LIBREGEX (guards against the wrong libpmix.so.2 being picked).
# Metrics measured by rank 0 only (a collective failed) are recorded under
# "<metric> (rank 0 only)", so they never mix with the max over ranks.
record() {
	local group=$1 impl=$2 rc=$3 out=$4 wall=$5 libre=$6 why="" m suffix=""
	if ! grep -q '^info lib ' "$out"; then
		why="no output from rank 0 (exit $rc)"
	elif ! grep '^info lib ' "$out" | grep -qE "$libre"; then
		why="wrong library: $(grep -m1 '^info lib ' "$out")"
	fi
	if [ -n "$why" ]; then
		for m in $BENCH_METRICS wall_ms; do sample "$group" "$impl" "$m" failed; done
		show_failure "$group" "$impl" "$out" "$why"
		return 0
	fi
	grep -q '^info note rank 0 only' "$out" && suffix=" (rank 0 only)"
	awk -v g="$group" -v i="$impl" -v s="$suffix" \
		'$1 == "metric" && NF == 3 { printf "%s\t%s\t%s%s\t%s\n", g, i, $2, s, $3 }' \
		"$out" >>"$OUTDIR/results.tsv"
	if [ "$rc" -eq 0 ]; then
		sample "$group" "$impl" wall_ms "$wall"
	else
		sample "$group" "$impl" wall_ms failed
		show_failure "$group" "$impl" "$out" "exit $rc"
	fi
}

# record_wall GROUP IMPL RC OUTFILE WALL_MS [WANT]: a run that counts by its
# wall time only; it must exit 0 (and print a line WANT if given).
record_wall() {
	local group=$1 impl=$2 rc=$3 out=$4 wall=$5 want=${6:-}
	if [ "$rc" -eq 0 ] && { [ -z "$want" ] || grep -qx "$want" "$out"; }; then
		sample "$group" "$impl" wall_ms "$wall"
	else
		sample "$group" "$impl" wall_ms failed
		show_failure "$group" "$impl" "$out" "exit $rc"
	fi
}

# timed OUTFILE CMD...: run CMD (stdout+stderr to OUTFILE); sets RC, WALL
timed() {
	local out=$1 t0
	shift
	t0=$(now_ms)
	"$@" >"$out" 2>&1
	RC=$?
	WALL=$(($(now_ms) - t0))
}

# find_pmix_bench BUILDDIR: path of pmix_bench, building it if needed
# (make target bench/pmix_bench; plain cc if the Makefile has no such target)
find_pmix_bench() {
	local build=$1 src
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pmix_bench.c
	if [ ! -x "$build/bench/pmix_bench" ]; then
		make -C "$build" bench/pmix_bench >/dev/null 2>&1 ||
			{ mkdir -p "$build/bench" && cc -std=gnu11 -O2 -Wall \
				-I/usr/lib/x86_64-linux-gnu/pmix2/include \
				-o "$build/bench/pmix_bench" "$src" -lpmix -lm; } || return 1
	fi
	echo "$build/bench/pmix_bench"
}
