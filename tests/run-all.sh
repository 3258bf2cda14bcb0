#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the whole slurmix test suite: builds the tree into ./build (configure
# once, then make), runs `make check` (unit suites, ABI and symbol checks,
# real-client tests), and prints one closing line "N passed, M failed".
# Exits non-zero when anything failed or did not build.
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
echo "$pass passed, $fail failed"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
