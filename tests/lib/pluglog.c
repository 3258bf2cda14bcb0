/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pluglog.c - the plugin logs through Slurm (slurm_adapter.h); in the
 * plugin's unit tests its log lines go to stderr instead, and Slurm's
 * DebugFlags=MPI is off. Link it into a test of plugin code that logs and
 * does not check what it logs.
 */
#include <stdarg.h>
#include <stdio.h>

#include "slurm_adapter.h"

void plug_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool plug_debug_flag_mpi(void)
{
	return false;
}
