#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# exports_check.sh LIB - check that a libpmix.so.2 exports what existing
# binaries need.
#
# Every name in pmix_exports.txt must be a function defined and exported
# by LIB (nm type T).  Every PMIx symbol left undefined by Debian's Open
# MPI PMIx component, by the python3-pmix module and by OpenPMIx's tools
# of libpmix-bin (pps, pquery, pevent, plookup, pattrs: they also take
# internal pmix_* names, src/pmix_core/compat/ptools.c) must be defined
# by LIB too (those files are skipped when not installed).  Prints the
# missing names; exits non-zero if there are any.
set -u

lib=${1:?usage: exports_check.sh path/to/libpmix.so.2}
here=$(cd "$(dirname "$0")" && pwd)
CONSUMERS=${PMIX_CONSUMERS:-"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pmix_ext3x.so
/usr/lib/python3/dist-packages/pmix.cpython-311-x86_64-linux-gnu.so
/usr/bin/pps /usr/bin/pquery /usr/bin/pevent /usr/bin/plookup /usr/bin/pattrs"}

if [ ! -f "$lib" ]; then
    echo "exports: $lib not found" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort -u > "$work/defined"
nm -D --defined-only "$lib" | awk '{ print $3 }' | sort -u > "$work/any"
grep -Ev '^(#|$)' "$here/pmix_exports.txt" | sort -u > "$work/wanted"

missing=0
comm -23 "$work/wanted" "$work/defined" > "$work/miss"
n=$(wc -l < "$work/miss")
if [ "$n" -ne 0 ]; then
    echo "exports: $n functions of pmix_exports.txt not exported by $lib:"
    sed 's/^/    /' "$work/miss"
    missing=$((missing + n))
fi
echo "exports: $(wc -l < "$work/wanted") listed functions checked"

for consumer in $CONSUMERS; do
    [ -f "$consumer" ] || { echo "exports: skipping $consumer (not installed)"; continue; }
    nm -D --undefined-only "$consumer" | awk '{ print $2 }' |
        sed 's/@.*//' | grep -i '^pmix' | sort -u > "$work/needed"
    comm -23 "$work/needed" "$work/any" > "$work/miss"
    n=$(wc -l < "$work/miss")
    echo "exports: $(wc -l < "$work/needed") symbols needed by $(basename "$consumer"), $n missing"
    sed 's/^/    /' "$work/miss"
    missing=$((missing + n))
done

[ "$missing" -eq 0 ]
