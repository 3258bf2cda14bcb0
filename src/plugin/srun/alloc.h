/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/alloc.h - the srun side of PMIx_Allocation_request (docs/alloc.md):
 * the ALLOC requests of the step daemons (stepd/alloc.c, lib/proto.h 52)
 * made into Slurm RPCs as the user by one worker thread: a new
 * allocation (slurm_allocate_resources, its grant watched until it comes
 * or the request's time is up), a shrink of this job or of one this srun
 * obtained (slurm_update_job), the release of one this srun obtained
 * (slurm_kill_job). Whatever this srun obtained and still holds is
 * released at its end; should srun end without releasing, each new job's
 * time limit still ends it at this job's end at the latest (when this
 * job has a limit).
 *
 * Threads: init and stop in srun's main thread (prelaunch, fini); the
 * requests and plug_alloc_srun_nodes in the agent's progress thread.
 */
#ifndef PLUG_SRUN_ALLOC_H
#define PLUG_SRUN_ALLOC_H

#include <stdint.h>

/* Registers the request and starts the worker for job, before
 * plug_agent_start. 0/-1 (logged; requests then get NOT_SUPPORTED). */
int plug_alloc_srun_init(uint32_t job);
/* Before plug_agent_stop, after the spawned steps ended: the worker
 * cancels every allocation this srun obtained and still holds, then
 * stops (10 s at most; a worker stuck longer is left to srun's exit).
 * Idempotent. */
void plug_alloc_srun_stop(void);
/* The nodes of granted allocation id if this srun obtained it: a
 * malloc()ed NULL-terminated array of malloc()ed names; NULL otherwise,
 * errno EAGAIN when it is one of this srun's still pending, else ENOENT.
 * Progress thread. */
char **plug_alloc_srun_nodes(uint32_t id);

#endif
