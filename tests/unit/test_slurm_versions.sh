#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_slurm_versions.sh - the choice of Slurm (docs/slurm-versions.md):
#  - every Slurm symbol the built plugin imports is exported by the
#    libslurmfull.so of the Slurm it was built for (its PluginDir);
#  - configure --with-slurm refuses a missing prefix, a prefix without
#    Slurm headers and a Slurm of an unknown series (21.08, 26.11: fake
#    prefixes whose slurm_version.h says so), each with its message;
#  - slurm_adapter.h stops the compiler on an unknown series;
#  - contrib/slurm-from-source.sh refuses bad arguments, a missing tarball
#    and a tarball that is none, before it builds anything;
#  - contrib/vcluster.sh --slurm refuses a prefix that holds no Slurm, and
#    --plugin-dir one under /tmp (no node's slurmd would see it).
# Needs the build's Makefile (SLURMIX_BUILDDIR) and Slurm's public headers
# of the build (any series); prints PASS/FAIL per check and exits 1 on any
# failure.
set -u
src=${SLURMIX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${SLURMIX_BUILDDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/slurmver.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
# expect_fail NAME REGEX CMD...: CMD must exit non-zero and print REGEX
expect_fail() {
	local name=$1 re=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		bad "$name: exit 0"
		echo "$out" | tail -5
	elif grep -qE -- "$re" <<<"$out"; then
		ok "$name"
	else
		bad "$name: no '$re' in:"
		echo "$out" | tail -5
	fi
}

mkv() { # mkv DIR MAJOR MINOR MICRO: a fake Slurm prefix of that release
	mkdir -p "$1/include/slurm"
	cp "$hdr/slurm.h" "$hdr/slurm_errno.h" "$1/include/slurm/"
	printf '#define SLURM_VERSION_NUMBER 0x%02x%02x%02x\n#define SLURM_VERSION_NUM(a, b, c) (((a) << 16) + ((b) << 8) + (c))\n' \
		"$2" "$3" "$4" >"$1/include/slurm/slurm_version.h"
}

# The Slurm the build is for, from its Makefile.
cppflags=$(sed -n 's/^SLURM_CPPFLAGS = //p' "$build/Makefile")
plugindir=$(sed -n 's/^slurm_plugindir = //p' "$build/Makefile")
hdr=${cppflags#-I}
hdr=${hdr:-/usr/include}/slurm
[ -r "$hdr/slurm.h" ] || { echo "FAIL no Slurm headers at $hdr"; exit 1; }

# 1. imports against the exports of that Slurm's libslurmfull
so=$build/.libs/mpi_slurmix.so
full=$plugindir/libslurmfull.so
if [ -r "$so" ] && [ -r "$full" ]; then
	nm -D --undefined-only "$so" | awk '$2 ~ /slurm/ {print $2}' | sort -u >"$tmp/imports"
	nm -D --defined-only "$full" | awk '{print $3}' | sort -u >"$tmp/exports"
	missing=$(comm -23 "$tmp/imports" "$tmp/exports" | tr '\n' ' ')
	if [ -z "$missing" ]; then
		ok "the plugin's $(wc -l <"$tmp/imports") Slurm imports are in $full"
	else
		bad "imports that $full does not export: $missing"
	fi
else
	echo "SKIP imports check: no $so or $full"
fi

# 2. configure's refusals (one cache file: the compiler checks once)
cfg() { (cd "$tmp/cfg" && "$src/configure" -q --cache-file="$tmp/config.cache" "$@"); }
mkdir -p "$tmp/cfg" "$tmp/empty"
mkv "$tmp/s2108" 21 8 8
mkv "$tmp/s2611" 26 11 0
expect_fail "configure: a missing prefix" "--with-slurm=$tmp/none: no such directory" \
	cfg --with-slurm="$tmp/none"
expect_fail "configure: a prefix without Slurm headers" "no include/slurm/slurm_version.h there" \
	cfg --with-slurm="$tmp/empty"
expect_fail "configure: Slurm 21.08 (before 22.05)" "Slurm 21.08 .* is not a supported series.*22.05 23.02 23.11 24.05 24.11 25.05 25.11 26.05" \
	cfg --with-slurm="$tmp/s2108"
expect_fail "configure: Slurm 26.11 (after 26.05)" "Slurm 26.11 .* is not a supported series" \
	cfg --with-slurm="$tmp/s2611"

# 3. the adapter's own stop
expect_fail "slurm_adapter.h: Slurm 26.11" "has no block for this Slurm series" \
	cc -fsyntax-only -I"$tmp/s2611/include" -I"$src/src/plugin" "$src/src/plugin/slurm_adapter.c"

# 4. slurm-from-source.sh, nothing built
sfs() { SLURMIX_SLURM_ROOT=$tmp/root SLURMIX_SLURM_TARBALLS=$tmp/tarballs bash "$src/contrib/slurm-from-source.sh" "$@"; }
mkdir -p "$tmp/tarballs"
expect_fail "slurm-from-source: no version" "usage: slurm-from-source.sh VERSION" sfs
expect_fail "slurm-from-source: a bad version" "VERSION must look like 26.05.3, not '26.5'" sfs 26.5
expect_fail "slurm-from-source: a version with a path" "VERSION must look like" sfs "../26.05.3"
expect_fail "slurm-from-source: no tarball" "no slurm-26.05.3.tar.\{xz,bz2,gz\} in $tmp/tarballs" sfs 26.05.3
expect_fail "slurm-from-source: a tarball path that does not exist" "tarball '$tmp/nothere.tar.xz' does not exist" \
	sfs 26.05.3 "$tmp/nothere.tar.xz"
head -c 4096 /dev/urandom >"$tmp/tarballs/slurm-26.05.3.tar.xz"
expect_fail "slurm-from-source: a tarball that is none" "cannot unpack" sfs 26.05.3
mkdir -p "$tmp/x/notslurm" && tar cJf "$tmp/tarballs/slurm-26.05.3.tar.xz" -C "$tmp/x" notslurm
expect_fail "slurm-from-source: a tarball without slurm-*/" "holds no slurm-\* directory" sfs 26.05.3
[ ! -e "$tmp/root/26.05.3/.slurmix-built" ] && ok "slurm-from-source: no failed build is taken as built" ||
	bad "slurm-from-source: a failed build left its stamp"

# 5. vcluster.sh --slurm (env reads the state directory, creates nothing)
expect_fail "vcluster --slurm: a missing prefix" "--slurm: no such directory" \
	bash "$src/contrib/vcluster.sh" env --slurm "$tmp/none" --state-dir /var/lib/slurmix-vtest-none
expect_fail "vcluster --slurm: a prefix without Slurm" "no sbin/slurmctld there" \
	bash "$src/contrib/vcluster.sh" env --slurm "$tmp/empty" --state-dir /var/lib/slurmix-vtest-none

mkdir -p "$tmp/plugins"
expect_fail "vcluster --plugin-dir under /tmp" "plugin directory must not be under /tmp" \
	bash "$src/contrib/vcluster.sh" env --plugin-dir "$tmp/plugins" --state-dir /var/lib/slurmix-vtest-none

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
