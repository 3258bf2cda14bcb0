#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Quick start on a fresh Debian 12 machine, as root: installs the build and
# run dependencies, builds and installs slurmix (prefix /usr/local unless
# PREFIX is set; the Slurm plugin mpi_slurmix.so goes into Slurm's
# PluginDir), runs a real Open MPI job under slurmix-run, then starts a
# virtual Slurm cluster of 4 nodes on this machine (contrib/vcluster.sh)
# and runs the same kind of job with `srun --mpi=slurmix -N4 -n8`.
# The cluster keeps running afterwards; `contrib/vcluster.sh stop` ends it.
# Safe to run again.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/usr/local}
build=$top/build-quickstart
vc=$top/contrib/vcluster.sh

bash "$top/contrib/install-deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh
mkdir -p "$build" && cd "$build"
[ -f Makefile ] || "$top/configure" --prefix="$prefix" -q
make -j"$(nproc)" >/dev/null
make install >/dev/null
plugindir=$(sed -n 's/^slurm_plugindir = //p' Makefile)
echo "quickstart: installed into $prefix (library in $prefix/lib/slurmix," \
	"plugin $plugindir/mpi_slurmix.so)"

# Programs must live outside /tmp: every virtual node has its own /tmp.
demo=/var/lib/slurmix-demo
mkdir -p "$demo"
mpicc -O2 -o "$demo/ompi_allreduce" "$top/tests/clients/ompi_allreduce.c"
mpicc -O2 -o "$demo/ompi_hello" "$top/tests/cluster/ompi_hello.c"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

echo "quickstart: running: slurmix-run -n 4 $demo/ompi_allreduce"
"$prefix/bin/slurmix-run" -n 4 "$demo/ompi_allreduce"

# slurmd reads the mpi plugins when it starts: restart after an install.
echo "quickstart: starting a virtual cluster of 4 nodes: $vc restart -n 4"
"$vc" restart -n 4
eval "$("$vc" env)"
cd "$demo"
echo "quickstart: running: srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4"
srun --mpi=slurmix -N4 -n8 --ntasks-per-node=2 ./ompi_hello 8 4
echo "quickstart: done. Try more with:"
echo "  eval \"\$($vc env)\"; cd $demo; srun --mpi=slurmix -N4 -n8 ./ompi_hello"
echo "  $vc stop        # ends the virtual cluster"
