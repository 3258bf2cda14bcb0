/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/spawn.h - the step daemon's half of PMIx_Spawn (srun/spawn.h has
 * the design): the server's spawn upcall goes to the step's srun as a
 * request (common/agent_client.h); a spawned step's stepds tell their
 * srun once every local task has started. Progress thread, except the
 * prefork and task hooks.
 */
#ifndef PLUG_STEPD_SPAWN_H
#define PLUG_STEPD_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_server.h>
#include "net/transport.h"

/* Prefork: whether this step was spawned (and PMIX_NON_PMI); node: this
 * node's index, local_tasks: its task count. Requests go through
 * plug_agent_request (plug_agent_client_init must have run). */
void plug_spawn_stepd_init(char **env, uint32_t node, uint32_t local_tasks);
/* The parent of a spawned step (PMIX_PARENT_ID); false when not spawned. */
bool plug_spawn_parent(char **env, pmix_proc_t *parent);
/* Takes HOLD messages from the network (before it starts). 0/-1. */
int plug_spawn_net_register(plug_net_t *n);
/* The server module's spawn upcall. */
pmix_status_t plug_spawn_host(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
			      const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
			      void *cbdata);
/* A local client connected (client_connected upcall); end of prefork
 * (tasks about to be forked). Progress thread / job manager thread. */
void plug_spawn_client_connected(void);
void plug_spawn_prefork_done(void);
/* In the forked task (the task hook): blanks SLURMIX_PARENT/SPAWNED (a
 * task's own srun is no spawned one), and for PMIX_SET_SESSION_CWD (when
 * SLURMIX_SPAWN_SESSION_CWD=1 in env) changes to the step's session
 * directory dir (PMIX_TMPDIR). 0/-1. */
int plug_spawn_task_env(char ***env, const char *dir);

#endif
