/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/query.h - the srun side of PMIx_Query_info (docs/query.md): the
 * SLURMQ requests of the step daemons (stepd/query.c, lib/proto.h),
 * answered from slurmctld (cached, one worker thread makes the RPCs) and
 * from the job directory's step files.
 *
 * Threads: init and stop in srun's main thread (prelaunch, fini); the
 * requests in the agent's progress thread.
 */
#ifndef PLUG_SRUN_QUERY_H
#define PLUG_SRUN_QUERY_H

/* Registers the request and starts the worker, before plug_agent_start.
 * 0/-1 (logged; queries then go unanswered). */
#include <stdint.h>

int plug_query_srun_init(uint32_t job);
/* Before plug_agent_stop: stops the worker (waits 2 s at most for an RPC
 * under way; a worker stuck longer is left to srun's exit, with the
 * progress engine it posts to) and forgets the answers; requests after
 * it get PMIX_ERR_UNREACH. Idempotent. */
void plug_query_srun_stop(void);

#endif
