/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_spawn.h - PMIx_Spawn in slurmix-run (sxr_spawn.c).
 *
 * sxr_host.c's spawn callback copies the request and posts it; the main
 * thread, which owns the jobs, runs it here.
 */
#ifndef SXR_SPAWN_H
#define SXR_SPAWN_H

#include "sxr.h"

/* Main thread: checks the request, then starts the apps as a new namespace
 * (sxr_job_launch), or nothing at all. Borrows its arguments, and reports
 * through cbfunc (if given) before it returns: the new namespace, or the
 * error with an empty one. */
void sxr_spawn_run(struct sxr *s, const pmix_proc_t *requestor, const pmix_info_t *info,
		   size_t ninfo, const pmix_app_t *apps, size_t napps, pmix_spawn_cbfunc_t cbfunc,
		   void *cbdata);

#endif
