#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the whole slurmix test suite: builds the tree into ./build (configure
# once, then make), runs `make check` (unit suites, ABI and symbol checks,
# real-client tests, the cluster suites on the installed Slurm), then the
# cluster suites again on each Slurm of SLURMIX_OTHER_SLURM built from its
# release tarball (below), and prints one closing line "N passed, M failed"
# that counts all of them. Exits non-zero when anything failed or did not
# build.
#
# SLURMIX_OTHER_SLURM: "VERSION:SUITES ..." (default below; empty: none).
# For each, contrib/slurm-from-source.sh builds that Slurm (cached by
# version; tarballs from SLURMIX_SLURM_TARBALLS, default ../shared/deps),
# the plugin is built against it in build-slurm-VERSION, and the suites
# (cluster, spawn, smoke: tests/cluster/run_SUITE_tests.sh) run on a
# virtual cluster of that Slurm, each counted as one test. A missing
# tarball is a failure under CI=true, else skipped; VERSION? (optional)
# is skipped without its tarball even under CI=true. The default runs the
# smoke job on every other supported series whose tarball is there
# (docs/slurm-versions.md).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SLURMIX_BUILD_DIR:-$top/build}
jobs=${SLURMIX_JOBS:-2}

fail_build() {
	echo "run-all: $1 failed; see above"
	echo "0 passed, 1 failed"
	exit 1
}

cd "$top" || exit 1
[ -x configure ] || ./autogen.sh || fail_build autogen
mkdir -p "$build" && cd "$build" || exit 1
[ -f Makefile ] || "$top/configure" --prefix="$build/inst" -q || fail_build configure
make -j"$jobs" >make.log 2>&1 || { tail -50 make.log; fail_build make; }
make -j"$jobs" check >check.log 2>&1
rc=$?
# Show each test's own summary (check's "Checks: ..." lines, scripts' PASS/FAIL).
for log in $(find . -name '*.log' -path '*tests*' | sort); do
	echo "== ${log#./}"
	grep -E '^(PASS|FAIL|SKIP|[0-9]+%: Checks|.*Checks: )|passed, .* failed|^abi:|^exports:' "$log" | head -40
done
pass=$(sed -n 's/^# PASS: *//p' check.log | tail -1)
fail=$(sed -n 's/^# FAIL: *//p' check.log | tail -1)
err=$(sed -n 's/^# ERROR: *//p' check.log | tail -1)
xpass=$(sed -n 's/^# XPASS: *//p' check.log | tail -1)
pass=${pass:-0}
fail=$(( ${fail:-0} + ${err:-0} + ${xpass:-0} ))
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	tail -30 check.log
	fail=1
fi

other_slurm() {	# other_slurm VERSION[?] SUITE,...
	local v=${1%\?} suites=$2 t0 prefix bdir s drc
	local tb=${SLURMIX_SLURM_TARBALLS:-$top/../shared/deps}
	if ! ls "$tb/slurm-$v".tar.* >/dev/null 2>&1; then
		if [ "$1" != "$v" ]; then
			echo "== Slurm $v: no tarball in $tb, not tested"
		elif [ "${CI:-}" = true ]; then
			echo "FAIL no slurm-$v tarball in $tb"
			fail=$((fail + 1))
		else
			echo "SKIP no slurm-$v tarball in $tb"
		fi
		return
	fi
	echo "== Slurm $v (from source): $suites"
	t0=$(date +%s)
	if ! prefix=$(bash "$top/contrib/slurm-from-source.sh" "$v" | tail -n1); then
		echo "FAIL building Slurm $v"
		fail=$((fail + 1))
		return
	fi
	echo "run-all: Slurm $v ready in $(($(date +%s) - t0)) s"
	bdir=$build-slurm-$v
	mkdir -p "$bdir"
	if ! (cd "$bdir" && { [ -f Makefile ] || "$top/configure" --prefix="$bdir/inst" -q \
		--with-slurm="$prefix"; } && make -j"$jobs" mpi_slurmix.la libpmix.la) \
		>"$bdir/make.log" 2>&1; then
		tail -30 "$bdir/make.log"
		echo "FAIL building the plugin for Slurm $v"
		fail=$((fail + 1))
		return
	fi
	for s in ${suites//,/ }; do
		SLURMIX_BUILDDIR=$bdir SLURMIX_VCLUSTER_SLURM=$prefix \
			bash "$top/tests/cluster/run_${s}_tests.sh" >"$bdir/$s.log" 2>&1
		drc=$?
		grep -E '^(PASS|FAIL|SKIP)|passed, .* failed' "$bdir/$s.log" | head -200
		if [ "$drc" -eq 0 ]; then
			pass=$((pass + 1))
		elif [ "$drc" -eq 77 ] && [ "${CI:-}" != true ]; then
			echo "SKIP $s suite on Slurm $v"
		else
			echo "FAIL $s suite on Slurm $v (exit $drc; log $bdir/$s.log)"
			fail=$((fail + 1))
		fi
	done
}
read -ra others <<<"${SLURMIX_OTHER_SLURM-26.05.3:cluster,spawn 24.11.7:smoke 25.11.7?:smoke \
25.05.8?:smoke 24.05.8?:smoke 23.11.11?:smoke 23.02.8?:smoke}"
for o in "${others[@]}"; do
	other_slurm "${o%%:*}" "${o#*:}"
done

echo "$pass passed, $fail failed"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
