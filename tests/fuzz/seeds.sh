#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/seeds.sh - remakes fuzz_server's seed corpus from real
# traffic: our PMIx test clients (tests/clients) and Open MPI's, run under
# slurmix-run with tests/fuzz/record.c between each task and its server,
# then merged (libFuzzer -merge: the inputs that add coverage) into
# tests/fuzz/corpus/fuzz_server. Needs a built tree (SLURMIX_BUILDDIR,
# default build/) and tests/fuzz/run.sh's fuzz build (for the merge).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${SLURMIX_BUILDDIR:-$top/build}
fz=${SLURMIX_FUZZ_DIR:-$build/fuzz}
# (in /tmp: the paths the clients send end up in the seeds)
work=$(mktemp -d /tmp/sxseed.XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

cc -O1 -o "$work/record" "$here/record.c"
mkdir -p "$work/rec" "$work/tmp"
for c in basic fence pubsub spawn events misc iof push abort; do
	cc -std=gnu11 -O1 -I"$top/tests/clients" -I"$top/src/pmix_core/include" \
		-o "$work/pmix_$c" "$top/tests/clients/pmix_$c.c" -L"$build/.libs" -lpmix -lpthread
done
if command -v mpicc >/dev/null; then
	for p in ompi_allreduce ompi_spawn; do
		mpicc -O1 -o "$work/$p" "$top/tests/clients/$p.c"
	done
fi
cd "$work"
run() { # slurmix-run's options, then the program and its arguments
	local n=$1 p=$2
	shift 2
	LD_LIBRARY_PATH=$build/.libs timeout 60 "$build/slurmix-run" --tmpdir "$work/tmp" \
		$n "$work/record" "$work/rec" "$work/$p" "$@" >/dev/null 2>&1 || true
}
run "-n 2" pmix_basic 2
run "-n 2" pmix_fence 2
run "-n 3" pmix_pubsub
run "-n 2" pmix_spawn
run "-n 3 --keep-going" pmix_events
run "-n 3" pmix_misc
run "-n 3" pmix_iof
SLURMIX_STDIN=push run "-n 3" pmix_push
run "-n 3" pmix_abort
[ -x ompi_allreduce ] && run "-n 2" ompi_allreduce
[ -x ompi_spawn ] && run "-n 2" ompi_spawn
rm -f rec/*.sock
echo "seeds: $(ls rec | wc -l) connections recorded"
mkdir -p "$here/corpus/fuzz_server"
"$fz/fuzz_server" -merge=1 "$here/corpus/fuzz_server" rec 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
echo "seeds: $(ls "$here/corpus/fuzz_server" | wc -l) inputs in tests/fuzz/corpus/fuzz_server"
