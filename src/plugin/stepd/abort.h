/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_abort.h - what a slurmstepd does when one of its clients calls
 * PMIx_Abort, and what it does when a client leaves without finalizing
 * (plug_abort.c, plug_lost.c).
 *
 * Abort: the report (rank, status, message) goes to the agent in srun,
 * which prints it, makes the status its exit code and kills the step.
 *
 * Lost tasks: a client whose connection ends without PMIx_Finalize (a
 * task killed by a signal, a crash, an exit without finalizing) is lost
 * for the whole step. Its stepd floods LOST (rank, status) over the tree
 * of all nodes; every stepd, once per rank, fails the pending fences that
 * include the rank (PMIX_ERR_PROC_TERM_WO_SYNC, through the tree as usual)
 * and any later fence that includes it, and notifies its local clients
 * with a PMIX_ERR_PROC_TERM_WO_SYNC event (range namespace, source and
 * PMIX_EVENT_AFFECTED_PROC = the lost proc). A rank that called
 * PMIx_Abort is not announced (the step is being killed anyway).
 *
 * Progress thread, except plug_abort_init/stop and plug_lost_init/stop
 * (job manager thread and plugin fini).
 */
#ifndef PLUG_ABORT_H
#define PLUG_ABORT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_server.h>
#include "lib/map.h"

/* Reads srun's agent address and the step key from the launch env.
 * 0, or -1 (no agent: an abort then only kills the step). */
int plug_abort_init(char **env, uint32_t job, uint32_t step, uint32_t node);
/* The server module's abort: reports and answers through cbfunc later
 * (PMIX_SUCCESS), or returns PMIX_OPERATION_SUCCEEDED when done at once. */
pmix_status_t plug_abort_report(pmix_rank_t rank, int status, const char *host,
				const char *msg, pmix_op_cbfunc_t cbfunc, void *cbdata);
void plug_abort_stop(void);
/* The step could not be set up on this node (prefork failed): the same
 * report with rank PLUG_ABORT_RANK_STEPD and status 1, sent from the
 * calling thread and waited for at most a few seconds, so that srun says
 * why and exits non-zero instead of 0 (Slurm 22.05 gives a step whose
 * every launch failed no exit code). Job manager thread. */
#define PLUG_ABORT_RANK_STEPD 0xffffffffu
void plug_abort_launch_failed(const char *host, const char *why);

/* Lost tasks. init: before the server runs (map borrowed until stop). */
int plug_lost_init(const char *nspace, const plug_map_t *map);
/* A local client's connection ended without PMIx_Finalize. */
void plug_lost_local(pmix_rank_t rank);
/* A local client called PMIx_Abort: never announce it as lost. */
void plug_lost_aborted(pmix_rank_t rank);
/* True when one of procs (of our namespace; WILDCARD: any) is lost. */
bool plug_lost_any(const pmix_proc_t *procs, size_t n);
/* True when rank is lost. */
bool plug_lost_rank(pmix_rank_t rank);
/* Job manager thread, after the progress thread stopped using it. */
void plug_lost_stop(void);

/* plug_coll.c: fail the pending fences that include rank. */
void plug_coll_rank_lost(pmix_rank_t rank);

#endif
