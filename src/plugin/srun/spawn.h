/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/spawn.h - PMIx_Spawn as a new job step of the same allocation
 * (docs/dynamic.md §3): the parent and child srun's half. The stepd half
 * is stepd/spawn.h, the planning lib/spawn_plan.h, the environment
 * between them lib/proto.h.
 *
 * Who does what:
 *   parent stepd  the server's spawn upcall sends SPAWN (key, requestor,
 *                 job info, apps) to its srun on a connection of its own
 *                 and answers the client with SPAWN_RESP (status, nspace);
 *                 with PMIX_NOTIFY_COMPLETION the connection stays open
 *                 until SPAWN_END (exit status of the child srun), which
 *                 becomes PMIX_EVENT_JOB_END for the requestor.
 *   parent srun   turns the request into an srun command line
 *                 (plug_spawn_plan, Slurm-free, lib/spawn_plan.c), forks
 *                 and execs it with SLURMIX_SPAWN_* in its environment,
 *                 and tracks it until READY, failure or timeout; on
 *                 failure it stops the child srun (SIGTERM, then SIGKILL
 *                 and slurm_kill_job_step) before answering.
 *   child srun    reports SPAWN_STEP (its job and step id) to the parent
 *                 srun from prelaunch, counts READY from its stepds and
 *                 then sends SPAWN_READY on the same connection.
 *   child stepd   registers its nspace with PMIX_SPAWNED/PMIX_PARENT_ID
 *                 and sends READY to its srun once every local task
 *                 connected to the server (PMIX_NON_PMI: at the end of
 *                 prefork, before the tasks are forked).
 *
 * Threads: everything but plug_spawn_plan and the prelaunch/prefork hooks
 * runs in the process's one progress thread (srun: the rendezvous agent's;
 * stepd: the PMIx server's).
 */
#ifndef PLUG_SRUN_SPAWN_H
#define PLUG_SRUN_SPAWN_H

#include <stdint.h>

/* srun's prelaunch, before plug_agent_start: registers the spawn requests'
 * handlers with the agent. 0/-1. Main thread. */
int plug_spawn_srun_init(void);
/* srun's prelaunch, after plug_agent_start (env: the launch env with the
 * agent's port and key): remembers them for children, and when this srun
 * is itself a spawned one, reports the step to the parent srun and fixes
 * the launch env. 0/-1. Main thread. */
int plug_spawn_srun_start(uint32_t nnodes, char ***env);
/* The step's endpoint table is complete (srun/agent.c, the agent's progress
 * thread): looks the allocation up ahead of any spawn (not in a spawned
 * srun). */
void plug_spawn_srun_warm(void);
/* client_fini: ends every tracked child srun (SIGTERM, bounded wait,
 * SIGKILL + step cancel) and closes the connections. Idempotent. */
void plug_spawn_srun_stop(void);

#endif
