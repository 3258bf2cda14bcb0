#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_pmi_tests.sh - PMI-1 / PMI-2 under srun --mpi=slurmix on the virtual
# cluster (docs/pmi.md): Debian's MPICH (its simple PMI-1 client) and a
# client that speaks the wire itself (pmi_poke.py). Part of `make check`,
# beside the other drivers and built the same way:
#
#   tests/cluster/run_pmi_tests.sh [CASE-REGEX]
#
# Environment: SLURMIX_BUILDDIR (default .), SLURMIX_PTEST_STATE (state
# dir, default /var/lib/slurmix-ptest), SLURMIX_PTEST_PORT (port base,
# default 31917), CI (when "true", missing prerequisites fail).
#
# One cluster of 4 nodes, stopped on any exit. Prints "PASS name (time)" /
# "FAIL name" per case and "N passed, M failed"; exits 0, 1 on failures,
# 77 (skip) when not root or srun/mpicc/mpicc.mpich/the build are missing
# and CI is not "true".
here=$(cd "$(dirname "$0")" && pwd)
state=${SLURMIX_PTEST_STATE:-/var/lib/slurmix-ptest}
port=${SLURMIX_PTEST_PORT:-31917}
# shellcheck source=tests/cluster/common.sh
. "$here/common.sh"
command -v mpicc.mpich >/dev/null || skip "no mpicc.mpich (apt-get install mpich libmpich-dev)"

S="srun --mpi=slurmix"

mpich_cases() {
	check_case "MPICH hello -N2 -n4: one job of 4 ranks, not singletons" \
		'[ $rc = 0 ] && [ "$(count "^rank [0-3] of 4 on vn[12]$")" = 4 ] &&
		 [ "$(count "of 1 on")" = 0 ] && grep -qx OK <<<"$out"' \
		$S -N2 -n4 ./mpich_hello 4 2
	check_case "MPICH hello -N2 -n4 cyclic" \
		'[ $rc = 0 ] && [ "$(count "^rank [0-3] of 4 on vn[12]$")" = 4 ] && grep -qx OK <<<"$out"' \
		$S -N2 -n4 -m cyclic ./mpich_hello 4 2
	check_case "MPICH hello -N3 -n7 uneven" \
		'[ $rc = 0 ] && [ "$(count "^rank [0-6] of 7 on vn[123]$")" = 7 ] && grep -qx OK <<<"$out"' \
		$S -N3 -n7 ./mpich_hello 7 3
	check_case "MPICH allreduce -N2 -n4" \
		'[ $rc = 0 ] && grep -qx OK <<<"$out"' \
		$S -N2 -n4 ./mpich_allreduce 50
	check_case "Open MPI hello still PMIx with PMI_FD set" \
		'[ $rc = 0 ] && [ "$(count "^rank [0-3] of 4 on vn[12]$")" = 4 ] && grep -qx OK <<<"$out"' \
		$S -N2 -n4 ./ompi_hello 4 2
}

wire_cases() {
	check_case "PMI-1 put/barrier/get across nodes, PMI_process_mapping" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-3]$")" = 4 ] &&
		 [ "$(count "^MAPPING \(vector,\(0,2,2\)\)$")" = 4 ]' \
		$S -N2 -n4 --ntasks-per-node=2 ./pmi_poke.py fence1
	check_case "PMI-1 cyclic mapping in Slurm's vector format" \
		'[ $rc = 0 ] && [ "$(count "^MAPPING \(vector,\(0,2,1\)\)$")" = 4 ]' \
		$S -N2 -n4 --ntasks-per-node=2 -m cyclic ./pmi_poke.py fence1
	check_case "PMI-2 fence across nodes, kvs-get by srcid, job and node attributes" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-5]$")" = 6 ]' \
		$S -N3 -n6 ./pmi_poke.py fence2
	check_case "PMI-2 fence across nodes waits for a late rank" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-3]$")" = 4 ]' \
		$S -N2 -n4 --ntasks-per-node=2 ./pmi_poke.py fwait2
	check_case "PMI-1 broken requests get errors, the step lives" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-3]$")" = 4 ] && [ "$(count "FAIL")" = 0 ]' \
		$S -N2 -n4 ./pmi_poke.py broken1
	check_case "PMI-2 broken requests get errors, the step lives" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-3]$")" = 4 ] && [ "$(count "FAIL")" = 0 ]' \
		$S -N2 -n4 ./pmi_poke.py broken2
	check_case "PMI-2 broken length: error, connection closed, the step daemon lives" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [01]$")" = 2 ]' \
		$S -N2 -n2 ./pmi_poke.py badlen2
	check_case "PMI-2 name-publish / lookup / unpublish" \
		'[ $rc = 0 ] && [ "$(count "^DONE rank [0-3]$")" = 4 ]' \
		$S -N2 -n4 ./pmi_poke.py pubsub2
}

spawn_cases() {
	check_case "PMI-1 spawn (two mcmds): a new step, preput pair, PMI_SPAWNED" \
		'[ $rc = 0 ] && [ "$(count "^CHILD rank [01] of 2 spawned 1 args from cmd [12]$")" = 2 ] &&
		 [ "$(count "^DONE rank [01]$")" = 4 ] && [ "$(count "FAIL")" = 0 ]' \
		$S -N2 -n2 ./pmi_poke.py spawn1
	check_case "PMI-2 spawn (two commands, wdir): spawner-jobid, preput pair" \
		'[ $rc = 0 ] && [ "$(count "^CHILD rank [0-2] of 3 args")" = 3 ] &&
		 [ "$(count "^CHILD rank [0-2] of 3 args second$")" = 1 ] &&
		 [ "$(count "^DONE rank [0-2]$")" = 5 ] && [ "$(count "FAIL")" = 0 ]' \
		$S -N2 -n2 ./pmi_poke.py spawn2
	rm -f "$bin/looked"
	check_case "PMI-2 name-lookup of another step's name-publish (allocation-wide)" \
		'[ $rc = 0 ] && [ "$(count "^LOOKUP port-of-[0-9]+$")" = 1 ] && [ "$(count "FAIL")" = 0 ] &&
		 [ "$(count "^DONE rank 0$")" = 2 ]' \
		salloc -N2 -n2 bash -c "$S -N1 -n1 ./pmi_poke.py pub2 looked & sleep 1; $S -N1 -n1 ./pmi_poke.py look2 looked; wait"
}

no_leftovers() {
	local name="nothing left: no step, no file" left
	want_case "$name" || return 0
	sleep 1
	left=$(ls -d "$state"/nodes/*/tmp/slurmix.* 2>/dev/null)
	if [ -z "$left" ] && [ -z "$(steps_left)" ]; then
		ok "$name"
	else
		bad "$name" "(files: $left; steps: $(steps_left))"
	fi
}

build_programs() {
	cp "$here/pmi_poke.py" "$bin/" && chmod 755 "$bin/pmi_poke.py" || return 1
	mpicc.mpich -O2 -o "$bin/mpich_hello" "$here/ompi_hello.c" || return 1
	mpicc.mpich -O2 -o "$bin/mpich_allreduce" "$here/ompi_allreduce.c" || return 1
	mpicc -O2 -o "$bin/ompi_hello" "$here/ompi_hello.c" || return 1
}

# ---- main ----------------------------------------------------------------
t_all=$(now)
mkdir -p "$bin"
chmod 755 "$state" "$bin"
printf 'SlurmixClientLibDir=%s\nSlurmixTimeout=60\n' "$build/.libs" >"$state/mpi.conf"
"$vc" restart -n 4 -w 4 --plugin-dir "$build/.libs" --state-dir "$state" \
	--port-base "$port" --mpi-conf "$state/mpi.conf" >/dev/null ||
	{ echo "FAIL cannot start the virtual cluster"; exit 1; }
eval "$("$vc" env --state-dir "$state")"
export SLURMIX_JOBDIR_BASE=$state/jobdirs	# not the host's shared /tmp
mkdir -p "$SLURMIX_JOBDIR_BASE"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
build_programs || { echo "FAIL cannot build the test programs"; exit 1; }

mpich_cases
wire_cases
spawn_cases
no_leftovers

echo "$pass passed, $failn failed ($(since "$t_all") s)"
[ "$failn" -eq 0 ] || { printf 'failed: %s\n' "${failed_names[@]}"; exit 1; }
exit 0
