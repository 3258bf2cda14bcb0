/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_spawn.h - PMIx_Spawn as a new job step of the same allocation
 * (docs/dynamic.md §3).
 *
 * Who does what:
 *   parent stepd  the server's spawn upcall sends SPAWN (key, requestor,
 *                 job info, apps) to its srun on a connection of its own
 *                 and answers the client with SPAWN_RESP (status, nspace);
 *                 with PMIX_NOTIFY_COMPLETION the connection stays open
 *                 until SPAWN_END (exit status of the child srun), which
 *                 becomes PMIX_EVENT_JOB_END for the requestor.
 *   parent srun   turns the request into an srun command line
 *                 (plug_spawn_plan, Slurm-free, plug_spawn_opts.c), forks
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
#ifndef PLUG_SPAWN_H
#define PLUG_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

/* Environment of a child srun (set by the parent srun). */
#define PLUG_SPAWN_AGENT_ENV "SLURMIX_SPAWN_AGENT"	/* parent srun's port */
#define PLUG_SPAWN_ID_ENV "SLURMIX_SPAWN_ID"		/* request number */
#define PLUG_SPAWN_KEY_ENV "SLURMIX_SPAWN_KEY"	/* parent srun's key */
#define PLUG_SPAWN_PARENT_ENV "SLURMIX_PARENT"	/* "<nspace>:<rank>" */
/* The parent step's node list and process map (plug_map text), so that a
 * child stepd knows how many of the parent's tasks share its node. */
#define PLUG_SPAWN_PARENT_NODES_ENV "SLURMIX_PARENT_NODES"
#define PLUG_SPAWN_PARENT_MAP_ENV "SLURMIX_PARENT_MAP"
#define PLUG_SPAWN_NONPMI_ENV "SLURMIX_SPAWN_NONPMI"	/* "1" */
#define PLUG_SPAWN_CWD_ENV "SLURMIX_SPAWN_SESSION_CWD"	/* "1" */
/* Launch environment of the child's stepds (set by the child srun). */
#define PLUG_SPAWNED_ENV "SLURMIX_SPAWNED"		/* "1" */

/* ---- Slurm-free: from a request to an srun command line ---------------- */

typedef struct {
	const char *srun;	/* the srun binary to exec */
	uint32_t job;		/* allocation */
	char **alloc;		/* its nodes, in order, NULL-terminated */
	bool overlap;		/* SlurmixSpawnOverlap */
	const char *mpfile;	/* path for a --multi-prog file (napps > 1) */
	char **env;		/* base environment (the parent srun's) */
} plug_spawn_ctx_t;

typedef struct {
	char **argv;		/* the child srun's argv (NULL-terminated) */
	char **env;		/* its whole environment */
	char *multiprog;	/* contents of ctx->mpfile, or NULL */
	uint32_t ntasks;
	uint32_t timeout;	/* seconds; 0: the default */
	bool notify;		/* PMIX_NOTIFY_COMPLETION */
	bool nonpmi;		/* PMIX_NON_PMI */
	char err[256];		/* why, when the plan failed */
} plug_spawn_plan_t;

/* Builds the plan for a request. PMIX_SUCCESS, or an error status with
 * plan->err set and nothing allocated: PMIX_ERR_NOT_SUPPORTED (a required
 * attribute we cannot honour), PMIX_ERR_BAD_PARAM (malformed request),
 * PMIX_ERR_JOB_FAILED_TO_MAP (a node outside the allocation, nowhere to
 * run). Any thread. */
pmix_status_t plug_spawn_plan(const plug_spawn_ctx_t *ctx, const pmix_info_t *info,
			      size_t ninfo, const pmix_app_t *apps, size_t napps,
			      plug_spawn_plan_t *plan);
/* Frees what a successful plan holds. NULL-safe. */
void plug_spawn_plan_free(plug_spawn_plan_t *plan);

/* ---- parent srun (plug_spawn.c) ---------------------------------------- */

/* srun's prelaunch, before plug_rdv_start: registers the spawn requests'
 * handlers with the agent. 0/-1. Main thread. */
int plug_spawn_srun_init(void);
/* srun's prelaunch, after plug_rdv_start (env: the launch env with the
 * agent's port and key): remembers them for children, and when this srun
 * is itself a spawned one, reports the step to the parent srun and fixes
 * the launch env. 0/-1. Main thread. */
int plug_spawn_srun_start(uint32_t nnodes, char ***env);
/* The step's endpoint table is complete (plug_rdv.c, the agent's progress
 * thread): looks the allocation up ahead of any spawn (not in a spawned
 * srun). */
void plug_spawn_srun_warm(void);
/* client_fini: ends every tracked child srun (SIGTERM, bounded wait,
 * SIGKILL + step cancel) and closes the connections. Idempotent. */
void plug_spawn_srun_stop(void);

/* ---- stepd (plug_spawn_stepd.c) ---------------------------------------------- */

/* Prefork: whether this step was spawned (and PMIX_NON_PMI); node: this
 * node's index, local_tasks: its task count. Requests go through
 * plug_srun_request (plug_req_init must have run). */
void plug_spawn_stepd_init(char **env, uint32_t node, uint32_t local_tasks);
/* The parent of a spawned step (PMIX_PARENT_ID); false when not spawned. */
bool plug_spawn_parent(char **env, pmix_proc_t *parent);
/* The server module's spawn upcall. */
pmix_status_t plug_spawn_host(const pmix_proc_t *proc, const pmix_info_t job_info[],
			      size_t ninfo, const pmix_app_t apps[], size_t napps,
			      pmix_spawn_cbfunc_t cbfunc, void *cbdata);
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
