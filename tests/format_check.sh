#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# format_check.sh - every C file of the tree must be formatted as the
# top-level .clang-format says, by clang-format 14 (Debian 12's, the
# version CI has: other versions format differently, so they are not used).
#
# Usage: bash tests/format_check.sh [--check | --diff | --fix] [file...]
#   --check  (default) list the files clang-format would change; exit 1 if any
#   --diff   the same, and show each file's diff
#   --fix    format those files in place
# Without file arguments: every *.c/*.h that git tracks (outside a git
# checkout, such as a release tarball: every one under bench/, src/ and
# tests/). Files in SKIP below are never checked. Paths are relative to the top of the source
# tree (SLURMIX_SRCDIR under make check, otherwise this script's ../).
#
# Exits 77 (automake's SKIP) when clang-format 14 is missing, except under
# CI=true where a missing formatter is a failure, never a silent skip.
# CLANG_FORMAT names the binary to use (default: clang-format-14, then
# clang-format).
set -u

top=${SLURMIX_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
want_major=14

# Files that are not ours to format:
#   attr_table.h, status_table.h  written by common/gen_tables.py
#   abi_names.h                   written by tests/abi/gen_abi_names.py
#   include/*.h                   the public headers keep a layout of
#                                 their own (4-space indents, aligned
#                                 #define columns), written to match the
#                                 ABI table by table
SKIP=(
	src/pmix_core/common/attr_table.h
	src/pmix_core/common/status_table.h
	tests/abi/abi_names.h
	'src/pmix_core/include/*'
)

mode=check
case "${1:-}" in
--check|--diff|--fix) mode=${1#--}; shift ;;
-h|--help) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "format_check: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

skip() {	# missing prerequisite: skip, or fail under CI
	if [ "${CI:-}" = true ]; then
		echo "FAIL format: $* (CI=true: not skipping)"
		exit 1
	fi
	echo "SKIP: format: $*"
	exit 77
}

find_formatter() {
	local c v
	for c in ${CLANG_FORMAT:-clang-format-$want_major clang-format}; do
		command -v "$c" >/dev/null 2>&1 || continue
		v=$("$c" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
		if [ "$v" = "$want_major" ]; then
			echo "$c"
			return 0
		fi
		echo "format_check: $c is version ${v:-unknown}, not $want_major" >&2
	done
	return 1
}

skipped() {
	local pat
	for pat in "${SKIP[@]}"; do
		# shellcheck disable=SC2053  # $pat is a glob on purpose
		[[ $1 == $pat ]] && return 0
	done
	return 1
}

list_files() {
	local gtop
	gtop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)
	# (a tarball unpacked inside some other checkout is not a checkout)
	if [ -n "$gtop" ] && [ "$gtop" = "$(cd "$top" && pwd -P)" ]; then
		git -C "$top" ls-files -- '*.c' '*.h'
	else
		(cd "$top" && find bench src tests -name '*.[ch]' | sort)
	fi
}

cf=$(find_formatter) || skip "no clang-format $want_major (apt-get install clang-format)"
style="--style=file:$top/.clang-format"
"$cf" "$style" --dump-config >/dev/null || { echo "FAIL format: bad $top/.clang-format"; exit 1; }
cd "$top" || exit 1

files=()
while IFS= read -r f; do
	skipped "$f" || files+=("$f")
done < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else list_files; fi)
[ ${#files[@]} -gt 0 ] || [ $# -gt 0 ] || { echo "FAIL format: no files found"; exit 1; }

bad=()
lines=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	out=$("$cf" "$style" "$f" | diff "$f" -)
	[ -z "$out" ] && continue
	bad+=("$f")
	lines=$((lines + $(grep -c '^<' <<<"$out")))
	[ "$mode" = diff ] && printf '%s\n' "--- $f" "$out"
done

if [ ${#bad[@]} -eq 0 ]; then
	echo "PASS format: ${#files[@]} files as .clang-format says ($cf)"
	exit 0
fi
if [ "$mode" = fix ]; then
	"$cf" "$style" -i "${bad[@]}" || exit 1
	echo "format_check: formatted ${#bad[@]} files ($lines lines changed)"
	exit 0
fi
printf '%s\n' "${bad[@]}"
echo "FAIL format: ${#bad[@]} of ${#files[@]} files differ from .clang-format" \
	"($lines lines); fix with: bash tests/format_check.sh --fix"
exit 1
