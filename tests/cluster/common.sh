# SPDX-License-Identifier: BSD-3-Clause
# common.sh - shared by the cluster test drivers (sourced, not run).
# Expects: $here (the driver's folder) and $state (its cluster's state
# directory) set by the driver, and the driver's arguments (a CASE-REGEX,
# or none) still in place. Sets $repo, $build (SLURMIX_BUILDDIR, default .)
# and $only; provides the prerequisite checks (skip, or fail under
# CI=true), PASS/FAIL counting, case selection, timing, and stopping the
# driver's cluster on exit.
set -uo pipefail
export LC_ALL=C

repo=$(cd "$here/../.." && pwd)
build=$(cd "${SLURMIX_BUILDDIR:-.}" && pwd)
only=${1:-}
vc=$repo/contrib/vcluster.sh
# shellcheck source=tests/cluster/vnode.sh
. "$here/vnode.sh"
bin=$state/bin
pass=0
failn=0
failed_names=()

skip() {	# missing prerequisite: skip, or fail under CI
	if [ "${CI:-}" = true ]; then
		echo "FAIL prerequisites: $* (CI=true: not skipping)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# A Slurm of its own prefix (contrib/slurm-from-source.sh): the virtual
# cluster runs it (contrib/vcluster.sh reads SLURMIX_VCLUSTER_SLURM too),
# and its commands come first in PATH.
if [ -n "${SLURMIX_VCLUSTER_SLURM:-}" ]; then
	export PATH=$SLURMIX_VCLUSTER_SLURM/bin:$SLURMIX_VCLUSTER_SLURM/sbin:$PATH
fi

[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v srun >/dev/null || skip "no srun (apt-get install slurm-client slurmd slurmctld)"
# Slurm loads a plugin built for its exact release only.
plugin_slurm=$(sed -n 's/^slurm_version_str = //p' "$build/Makefile" 2>/dev/null)
# (srun --version needs a configuration: read the release srun was
# installed with from the slurm_version.h beside it)
srun_slurm=$(sed -n 's/^#define SLURM_VERSION_NUMBER //p' \
	"$(dirname "$(command -v srun)")/../include/slurm/slurm_version.h" 2>/dev/null)
[ -z "$srun_slurm" ] || srun_slurm=$(printf '%d.%02d.%d' $((srun_slurm >> 16)) \
	$(((srun_slurm >> 8) & 255)) $((srun_slurm & 255)))
[ -z "$plugin_slurm" ] || [ "$plugin_slurm" = "$srun_slurm" ] ||
	skip "the plugin in $build is built for Slurm $plugin_slurm, srun is ${srun_slurm:-unknown} (set SLURMIX_VCLUSTER_SLURM to that Slurm's prefix)"
command -v mpicc >/dev/null || skip "no mpicc (apt-get install libopenmpi-dev)"
[ -e "$build/.libs/mpi_slurmix.so" ] && [ -e "$build/.libs/libpmix.so.2" ] ||
	skip "no mpi_slurmix.so/libpmix.so.2 in $build/.libs"

ok()  { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; failn=$((failn + 1)); failed_names+=("$1"); }
want_case() { [ -z "$only" ] || [[ "$1" =~ $only ]]; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# Node index (vnK -> K-1) and listening ports of each of our stepds, as
# "NODE:PORT" words.
stepd_endpoints() {
	local k uts p port
	for k in $(seq 1 8); do
		[ -e "$state/run/slurmd.vn$k.pid" ] || continue
		uts=$(readlink "/proc/$(cat "$state/run/slurmd.vn$k.pid")/ns/uts")
		for p in $(pgrep -x slurmstepd); do
			[ "$(readlink "/proc/$p/ns/uts" 2>/dev/null)" = "$uts" ] || continue
			for port in $(ss -ltnpH 2>/dev/null | grep "pid=$p," |
				grep -oE '127\.0\.0\.1:[0-9]+' | cut -d: -f2); do
				echo "$((k - 1)):$port"
			done
		done
	done
}

# Steps of the cluster's jobs still known to slurmctld.
steps_left() { squeue -s -h -o '%i' 2>/dev/null; }

# check_case NAME CHECK CMD...: runs CMD in $bin, then CHECK (a bash
# expression over $out, $rc, $t) must be true; no step may be left.
check_case() {
	local name=$1 check=$2 t0 left
	shift 2
	want_case "$name" || return 0
	t0=$(now)
	out=$(cd "$bin" && timeout 120 "$@" 2>&1)
	rc=$?
	t=$(since "$t0")
	sleep 0.3
	left=$(steps_left)
	if [ -z "$left" ] && eval "$check"; then
		ok "$name ($t s)"
	else
		echo "$out" | tail -25
		[ -n "$left" ] && echo "steps left: $left"
		bad "$name" "(rc $rc, $t s)"
	fi
}

# count REGEX: lines of $out that match.
count() { echo "$out" | grep -cE "$1"; }

stop_cluster() { "$vc" stop --state-dir "$state" >/dev/null 2>&1; }
trap stop_cluster EXIT
trap 'exit 130' INT TERM
