#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# slurm-from-source.sh - build and install a Slurm release from its source
# tarball into a prefix of its own, for testing slurmix on Slurm series that
# Debian does not package.
#
#   contrib/slurm-from-source.sh VERSION [TARBALL]
#
# VERSION is a release such as 26.05.3.  TARBALL defaults to
# slurm-VERSION.tar.xz (or .tar.bz2) in $SLURMIX_SLURM_TARBALLS, which
# defaults to ../shared/deps beside this repository.  The prefix is
# $SLURMIX_SLURM_ROOT/VERSION (default root /opt/slurmix-slurm).
#
# Cached by version: when the prefix holds a finished install of the same
# tarball built with the same options, nothing is done.  The last line on
# standard output is the prefix, so callers can say
#   prefix=$(contrib/slurm-from-source.sh 26.05.3 | tail -n1)
# Dependencies are Debian packages only (contrib/install-deps.sh: libmunge-dev,
# libhwloc-dev, libpmix-dev, ...).  Building takes minutes; the log of a build
# is kept in PREFIX/build.log.
set -euo pipefail
export LC_ALL=C

PROG=${0##*/}
top=$(cd "$(dirname "$0")/.." && pwd)

die() {
	echo "$PROG: $*" >&2
	exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $PROG VERSION [TARBALL]"
version=$1
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] ||
	die "VERSION must look like 26.05.3, not '$version'"

tarball=${2:-}
if [ -z "$tarball" ]; then
	dir=${SLURMIX_SLURM_TARBALLS:-$top/../shared/deps}
	for ext in tar.xz tar.bz2 tar.gz; do
		if [ -f "$dir/slurm-$version.$ext" ]; then
			tarball=$dir/slurm-$version.$ext
			break
		fi
	done
	[ -n "$tarball" ] ||
		die "no slurm-$version.tar.{xz,bz2,gz} in $dir (give the tarball as second argument or set SLURMIX_SLURM_TARBALLS)"
fi
[ -f "$tarball" ] || die "tarball '$tarball' does not exist"
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

root=${SLURMIX_SLURM_ROOT:-/opt/slurmix-slurm}
prefix=$root/$version

# What makes a build: the tarball's content and the options below.  A change
# of either builds again.
pmix_dir=/usr/lib/x86_64-linux-gnu/pmix2
[ -f "$pmix_dir/include/pmix_server.h" ] || pmix_dir=/usr
# --enable-multiple-slurmd: the virtual cluster (contrib/vcluster.sh) runs
# every slurmd on this machine against one munged, so each job credential
# reaches that munged once per node; without it cred/munge refuses the
# second decode as a replay (_verify_signature: failed decode) and a
# multi-node launch fails with "Header lengths are longer than data
# received" on every node but one.
conf_opts=(
	--prefix="$prefix" --sysconfdir="$prefix/etc"
	--with-munge --with-hwloc --with-pmix="$pmix_dir" --enable-multiple-slurmd
	--disable-sview --disable-slurmrestd --disable-x11 --disable-pam
	--without-rpath --disable-static
)
stamp_want="$(sha256sum <"$tarball" | cut -d' ' -f1) ${conf_opts[*]}"
stamp=$prefix/.slurmix-built

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ] &&
	[ -x "$prefix/sbin/slurmctld" ] && [ -f "$prefix/include/slurm/slurm_version.h" ]; then
	echo "$PROG: Slurm $version already built in $prefix" >&2
	echo "$prefix"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || [ -w "$root" ] || [ -w "$(dirname "$root")" ] ||
	die "cannot write $root (run as root or set SLURMIX_SLURM_ROOT)"

work=$(mktemp -d "${TMPDIR:-/var/tmp}/slurm-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the compiler's temporary files too: nothing in /tmp that others may clean
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
start=$(date +%s)
echo "$PROG: building Slurm $version from $tarball into $prefix" >&2
tar xf "$tarball" -C "$work" 2>"$work/tar.err" ||
	die "cannot unpack $tarball: $(head -n2 "$work/tar.err" | tr '\n' ' ')"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm-*' | head -n1)
[ -n "$src" ] || die "tarball '$tarball' holds no slurm-* directory"
# only now: a bad tarball leaves an earlier build in place
rm -rf "$prefix"
mkdir -p "$prefix"
log=$prefix/build.log
jobs=${SLURMIX_SLURM_JOBS:-$(nproc)}
if ! (cd "$src" && ./configure "${conf_opts[@]}" &&
	make -j"$jobs" && make install) >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "building Slurm $version failed; the log is $log"
fi
# The virtual cluster brings its own slurm.conf; nothing else is needed
# under etc/.
mkdir -p "$prefix/etc"
echo "$stamp_want" >"$stamp"
echo "$PROG: Slurm $version built in $(($(date +%s) - start)) s" >&2
echo "$prefix"
