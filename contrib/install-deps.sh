#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages slurmix needs to build and test, as root.
# Idempotent: does nothing when everything is present already.
set -euo pipefail

PKGS=(
	build-essential autoconf automake libtool pkg-config zlib1g-dev
	libevent-dev libhwloc-dev check
	# PMIx credentials (src/plugin/stepd/cred.c)
	libmunge-dev
	# test-only: OpenPMIx headers (ABI probe), real clients, Slurm, munge
	libpmix-dev openmpi-bin libopenmpi-dev python3-pmix
	# test-only: MPICH (PMI-1 / PMI-2 clients, src/pmix_core/server/pmi.c)
	mpich libmpich-dev
	# test-only: OpenPMIx's tools (pps, pquery, pevent, pattrs) as clients
	libpmix-bin
	slurm-wlm slurmd slurmctld slurm-client libslurm-dev munge
	valgrind procps util-linux iproute2 bc
	# test-only: xmllint, to check the IO forwarding's XML
	libxml2-utils
	# test-only: contrib/slurm-from-source.sh (Slurm's release tarballs are
	# .tar.xz; its build takes munge, hwloc and OpenPMIx from the packages
	# above)
	xz-utils
	# test-only: the layout checks, tests/style (Universal Ctags) and
	# tests/format_check.sh (clang-format 14)
	universal-ctags python3 clang-format
	# test-only: the fuzz targets (tests/fuzz: clang's libFuzzer and sanitizers)
	clang libclang-rt-14-dev
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts the daemons it installs; our tests run their own.
for svc in slurmd slurmctld munge; do
	systemctl stop "$svc" >/dev/null 2>&1 || true
done
echo "install-deps: done"
