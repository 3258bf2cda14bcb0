#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make check wrapper: runs exports_check.sh on the libpmix.so.2 just built.
here=$(cd "$(dirname "$0")" && pwd)
lib=${SLURMIX_BUILDDIR:-.}/.libs/libpmix.so.2
exec bash "$here/exports_check.sh" "$lib"
