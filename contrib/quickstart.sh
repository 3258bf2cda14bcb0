#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Quick start on a fresh Debian 12 machine, as root: installs the build and
# run dependencies, builds and installs slurmix (prefix /usr/local unless
# PREFIX is set), then runs a real Open MPI job on this machine under
# slurmix-run. Safe to run again.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/usr/local}
build=$top/build-quickstart

bash "$top/contrib/install-deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh
mkdir -p "$build" && cd "$build"
[ -f Makefile ] || "$top/configure" --prefix="$prefix" -q
make -j"$(nproc)" >/dev/null
make install >/dev/null
echo "quickstart: installed into $prefix (library in $prefix/lib/slurmix)"

# A real MPI job: build the example with Debian's mpicc, run 4 ranks.
demo=/var/lib/slurmix-demo
mkdir -p "$demo"
mpicc -O2 -o "$demo/ompi_allreduce" "$top/tests/clients/ompi_allreduce.c"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
echo "quickstart: running: slurmix-run -n 4 $demo/ompi_allreduce"
"$prefix/bin/slurmix-run" -n 4 "$demo/ompi_allreduce"
