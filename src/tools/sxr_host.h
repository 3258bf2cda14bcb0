/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_host.h - the host side of the PMIx server in slurmix-run
 * (sxr_host.c): starting the server with our pmix_server_module_t, and
 * finding a job or a task by name.
 *
 * Threads: the main thread only. The module's callbacks are not declared
 * here: the server calls them, in its progress thread, through the table
 * sxr_host_init hands it.
 */
#ifndef SXR_HOST_H
#define SXR_HOST_H

#include "sxr.h"

/* Starts the PMIx server (sets up the work queue first); 0, or -1 with a
 * message. */
int sxr_host_init(struct sxr *s);
/* Returns the task rank of namespace nspace, or NULL; s keeps it. */
struct sxr_task *sxr_find_task(struct sxr *s, const char *nspace, pmix_rank_t rank);
/* Returns the job of namespace nspace, or NULL; s keeps it. */
struct sxr_job *sxr_find_job(struct sxr *s, const char *nspace);

#endif
