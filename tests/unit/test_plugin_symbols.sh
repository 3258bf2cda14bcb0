#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_plugin_symbols.sh - mpi_slurmix.so must export exactly the symbols
# Slurm looks up, import no PMIx_* symbol and need no libpmix: slurmd may
# have OpenPMIx's libpmix.so.2 loaded through Slurm's mpi/pmix, and our
# statically linked core must never bind to it (or it to us).
set -u
so="${SLURMIX_BUILDDIR:-.}/.libs/mpi_slurmix.so"
[ -r "$so" ] || { echo "missing $so"; exit 1; }
fail=0
want="fini init mpi_p_client_fini mpi_p_client_prelaunch mpi_p_conf_get
mpi_p_conf_get_printable mpi_p_conf_options mpi_p_conf_set
mpi_p_slurmstepd_prefork mpi_p_slurmstepd_task plugin_id plugin_name
plugin_type plugin_version"
got=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
want=$(echo $want | tr ' ' '\n' | sort)
if [ "$got" != "$want" ]; then
	echo "exported symbols differ:"; diff -u /dev/fd/3 /dev/fd/4 3<<E1 4<<E2
$want
E1
$got
E2
	fail=1
fi
und=$(nm -D --undefined-only "$so" | awk '{print $2}' | grep -E '^(PMIx_|pmix_|pxc_)' || true)
[ -z "$und" ] || { echo "imports PMIx/core symbols: $und"; fail=1; }
if readelf -d "$so" | grep NEEDED | grep -q 'libpmix'; then
	echo "depends on a libpmix"; fail=1
fi
[ $fail = 0 ] && echo "mpi_slurmix.so: $(echo "$got" | wc -l) exports, no PMIx imports"
exit $fail
