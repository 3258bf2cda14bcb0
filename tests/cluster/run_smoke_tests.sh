#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_smoke_tests.sh - the smoke job (tests/cluster/smoke.sh) on a virtual
# cluster of its own: plain srun on every node, then an Open MPI job under
# srun --mpi=slurmix, with the plugin and client library of a build
# directory. The short check every supported Slurm series gets
# (docs/slurm-versions.md); part of `make check`, and run by
# tests/run-all.sh against each Slurm built from source.
#
#   tests/cluster/run_smoke_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .), SLURMIX_VCLUSTER_SLURM (the
# prefix of the Slurm to run; default Debian's), SLURMIX_STEST_STATE (state
# dir, default /var/lib/slurmix-stest), SLURMIX_STEST_PORT (port base,
# default 26917), CI. Prints "PASS name (time)" / "FAIL name" and
# "N passed, M failed"; exits 0, 1 on failures, 77 (skip) as the other
# cluster drivers (tests/cluster/common.sh).
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_STEST_STATE:-/var/lib/slurmix-stest}
port=${SLURMIX_STEST_PORT:-26917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"

t_all=$(now)
mkdir -p "$state"
chmod 755 "$state"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
"$vc" restart -n 4 -w 4 --plugin-dir "$build/.libs" --state-dir "$state" \
	--port-base "$port" --mpi-conf "$state/mpi.conf" >/dev/null ||
	{ echo "FAIL cannot start the virtual cluster"; echo "0 passed, 1 failed"; exit 1; }

name="smoke -N4 -n8 slurmix (Slurm ${srun_slurm:-?})"
if want_case "$name"; then
	t0=$(now)
	if out=$(SLURMIX_VCLUSTER_DIR=$state timeout 300 "$here/smoke.sh" 4 slurmix 2>&1) &&
		grep -qx PASS <<<"$out"; then
		ok "$name ($(since "$t0") s)"
	else
		echo "$out" | tail -20
		bad "$name"
	fi
fi

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
