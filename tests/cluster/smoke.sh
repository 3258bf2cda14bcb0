#!/bin/bash
# smoke.sh - check that the virtual cluster runs plain and MPI jobs.
#
#   tests/cluster/smoke.sh [NODES] [MPI]
#
# Expects a running cluster of at least NODES nodes (default 4), started with
# contrib/vcluster.sh.  Builds tests/cluster/ompi_hello.c with mpicc into
# STATE_DIR/bin (tasks cannot see this machine's /tmp), then runs
#   srun -N NODES -n 2*NODES hostname          (every node answers)
#   srun --mpi=MPI -N NODES -n 2*NODES ompi_hello   (size and distinct hosts)
# MPI defaults to pmix (Slurm's own plugin); use slurmix for ours.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
nodes=${1:-4}
mpi=${2:-pmix}
ntasks=$((2 * nodes))
state=${SLURMIX_VCLUSTER_DIR:-/var/lib/slurmix-vcluster}

eval "$("$repo/contrib/vcluster.sh" env --state-dir "$state")"
bin=$state/bin
mkdir -p "$bin"
mpicc -O2 -Wall -o "$bin/ompi_hello" "$here/ompi_hello.c"
cd "$bin"

fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== srun -N$nodes -n$ntasks hostname"
got=$(timeout 60 srun -N"$nodes" -n"$ntasks" hostname | sort -u | tr '\n' ' ')
want=$(for i in $(seq "$nodes"); do echo "vn$i"; done | sort | tr '\n' ' ')
echo "$got"
[ "$got" = "$want" ] || fail "expected hosts '$want', got '$got'"

echo "== srun --mpi=$mpi -N$nodes -n$ntasks --ntasks-per-node=2 ompi_hello"
out=$(timeout 120 srun --mpi="$mpi" -N"$nodes" -n"$ntasks" --ntasks-per-node=2 \
      ./ompi_hello "$ntasks" "$nodes") || { echo "$out"; fail "ompi_hello failed"; }
echo "$out" | tail -2
grep -qx OK <<<"$out" || fail "ompi_hello did not print OK"
echo "PASS"
