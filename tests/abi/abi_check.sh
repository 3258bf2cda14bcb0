#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# abi_check.sh - compare our public PMIx headers with OpenPMIx 4.2's.
#
# 1. Builds abi_probe.c twice, against our headers and against the
#    OpenPMIx headers, runs both and diffs the outputs: every type size,
#    struct member offset, constant and attribute key listed in
#    abi_names.h must exist in both with the same value.
# 2. Checks the reverse direction with the preprocessor and the compiler:
#    every PMIX_*/PMIx_* macro, enum constant, typedef and PMIx_* function
#    that the OpenPMIx headers declare must exist in ours (minus SKIP
#    below), and every callback typedef and function prototype of theirs
#    must be compatible with ours (they are re-declared after our headers;
#    the compiler rejects any mismatch).
#
# Usage: bash tests/abi/abi_check.sh [openpmix-include-dir]
# Exits 0 only when no difference was found.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ours="$top/src/pmix_core/include"
theirs=${1:-${OPENPMIX_INCLUDE:-/usr/lib/x86_64-linux-gnu/pmix2/include}}
CC=${CC:-gcc}

# Names of theirs we deliberately do not provide.
#   include guards:        ours are named SLURMIX_PMIX_*_H
#   PMIX_HAVE_VISIBILITY:  an OpenPMIx configure result, not API
SKIP='^(PMIx_COMMON_H|PMIx_DEPRECATED_H|PMIx_H|PMIx_SERVER_API_H|PMIx_TOOL_API_H|PMIx_VERSION_H|PMIX_HAVE_VISIBILITY)$'

if [ ! -f "$theirs/pmix_common.h" ]; then
    echo "abi: OpenPMIx headers not found in $theirs" >&2
    exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# --- 0. our headers build on their own, as C and C++ ------------------
# Each header alone, warnings as errors, with the layout _Static_asserts
# enabled; then every convenience macro, against both header sets.
CXX=${CXX:-g++}
for h in pmix_common.h pmix.h pmix_server.h pmix_tool.h pmix_version.h; do
    printf '#include <%s>\n#include <%s>\nint pxc_abi_one;\n' "$h" "$h" > "$work/one.c"
    cp "$work/one.c" "$work/one.cc"
    if ! $CC -std=gnu11 -Wall -Wextra -Werror -pedantic -DPXC_ABI_ASSERTS \
            -fsyntax-only -I"$ours" "$work/one.c"; then
        echo "abi: $h does not build on its own as C"; fail=1
    fi
    if command -v "$CXX" > /dev/null &&
       ! $CXX -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I"$ours" "$work/one.cc"; then
        echo "abi: $h does not build on its own as C++"; fail=1
    fi
done
if ! $CC -std=gnu11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$ours" \
        "$here/macro_use.c"; then
    echo "abi: convenience macros do not build against our headers"; fail=1
fi
if ! $CC -std=gnu11 -w -fsyntax-only -I"$theirs" "$here/macro_use.c"; then
    echo "abi: macro_use.c does not build against OpenPMIx headers"; fail=1
fi

# --- 1. forward comparison ---------------------------------------------
for side in ours theirs; do
    inc=$ours; [ $side = theirs ] && inc=$theirs
    if ! $CC -std=gnu11 -w -I"$inc" -I"$here" -o "$work/probe.$side" \
            "$here/abi_probe.c" 2> "$work/cc.$side"; then
        echo "abi: probe does not build against $side headers:" >&2
        grep -m 20 error "$work/cc.$side" >&2
        exit 1
    fi
    "$work/probe.$side" > "$work/out.$side" || exit 1
done
total=$(wc -l < "$work/out.ours")
ndiff=$(diff "$work/out.ours" "$work/out.theirs" | grep -c '^<')
if [ "$ndiff" -ne 0 ]; then
    echo "abi: differences (< ours, > OpenPMIx):"
    diff "$work/out.ours" "$work/out.theirs" | grep '^[<>]'
    fail=1
fi
echo "abi: $total names compared, $ndiff differ"

# --- 2. reverse: everything of theirs exists in ours --------------------
inc_all='#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>'
for side in ours theirs; do
    inc=$ours; [ $side = theirs ] && inc=$theirs
    echo "$inc_all" | $CC -E -dM -I"$inc" -x c - |
        sed -n 's/^#define \(PMI[Xx][A-Za-z0-9_]*\).*/\1/p' | sort -u > "$work/macros.$side"
    echo "$inc_all" | $CC -E -P -I"$inc" -x c - > "$work/pp.$side"
    # enum constants, typedef names, PMIx_ function names
    tr '\n' ' ' < "$work/pp.$side" |
        grep -o 'typedef enum *{[^}]*}' | grep -o 'PMIX_[A-Z0-9_]*' |
        sort -u > "$work/enums.$side"
    tr '\n' ' ' < "$work/pp.$side" | grep -o '} *pmix_[a-z0-9_]*_t *;\|typedef [a-z0-9_ ]* pmix_[a-z0-9_]*_t *[;[]\|(\* *pmix_[a-z0-9_]*_t *)' |
        grep -o 'pmix_[a-z0-9_]*_t' | sort -u > "$work/types.$side"
    grep -o '\bPMIx_[A-Za-z0-9_]* *(' "$work/pp.$side" | tr -d ' (' |
        sort -u > "$work/funcs.$side"
done
missing=0
for kind in macros enums types funcs; do
    comm -23 "$work/$kind.theirs" "$work/$kind.ours" | grep -Ev "$SKIP" > "$work/miss.$kind"
    n=$(wc -l < "$work/miss.$kind")
    if [ "$n" -ne 0 ]; then
        echo "abi: $n $kind of OpenPMIx missing from ours:"
        sed 's/^/    /' "$work/miss.$kind"
        missing=$((missing + n))
    fi
done
nmac=$(grep -cEv "$SKIP" "$work/macros.theirs")
echo "abi: $nmac OpenPMIx macros, $(wc -l < "$work/enums.theirs") enum constants," \
     "$(wc -l < "$work/types.theirs") types, $(wc -l < "$work/funcs.theirs") functions checked, $missing missing"
[ "$missing" -eq 0 ] || fail=1

# --- 3. their prototypes and callback types, re-declared after ours ------
# Declarations are taken from their preprocessed headers: one per ';'
# record, keeping function-pointer typedefs and PMIx_ prototypes, and
# skipping static inline bodies.
tr '\n' ' ' < "$work/pp.theirs" | sed 's/static inline[^{]*{/\n&/g' |
    awk 'BEGIN { RS = ";" }
         {
             gsub(/[ \t]+/, " ")
             sub(/^[ }]*/, "")
             if ($0 ~ /^typedef [^{]*\( *\* *pmix_[a-z0-9_]*_t *\)/) print $0 ";"
             else if ($0 ~ /__attribute__\(\(__visibility__\("default"\)\)\)[^{]*PMIx_[A-Za-z0-9_]* *\(/ && $0 !~ /[{}=]/)
                 print $0 ";"
         }' > "$work/decls.h"
ndecl=$(wc -l < "$work/decls.h")
{ echo "$inc_all"; cat "$work/decls.h"; } > "$work/decls.c"
if $CC -std=gnu11 -fsyntax-only -Werror -I"$ours" "$work/decls.c" 2> "$work/decls.err"; then
    echo "abi: $ndecl OpenPMIx prototypes and callback types compatible"
else
    echo "abi: OpenPMIx declarations that conflict with ours:"
    grep -E 'error' "$work/decls.err" | head -40
    fail=1
fi

exit $fail
