/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/abort.h - what a slurmstepd does when one of its clients calls
 * PMIx_Abort: the report (rank, status, message) goes to the agent in
 * srun (srun/abort.c), which prints it, makes the status its exit code
 * and kills the step; or, for an abort of some ranks of the step, the
 * ranks are killed by their own stepds (net/lost.h).
 *
 * Progress thread, except plug_abort_init/stop and
 * plug_abort_launch_failed (job manager thread and plugin fini).
 */
#ifndef PLUG_ABORT_H
#define PLUG_ABORT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_server.h>
#include "net/event.h"

/* Reads srun's agent address and the step key from the launch env.
 * 0, or -1 (no agent: an abort then only kills the step). */
int plug_abort_init(char **env, uint32_t job, uint32_t step, uint32_t node);
/* The server module's abort: reports and answers through cbfunc later
 * (PMIX_SUCCESS), or returns PMIX_OPERATION_SUCCEEDED when done at once.
 * ranks[0..nranks) (valid, distinct ranks of the step; NULL: the whole
 * step) are the ones to abort. */
pmix_status_t plug_abort_report(pmix_rank_t rank, int status, const char *host, const char *msg,
				const pmix_rank_t *ranks, size_t nranks, pmix_op_cbfunc_t cbfunc,
				void *cbdata);
void plug_abort_stop(void);
/* PMIx_Abort of procs[0..n) of other steps of the job (a spawned child, a
 * connected step): sent to their stepds (net/event.c), each of which
 * aborts its local ones as its own (reported to its srun with the caller
 * named). cbfunc (may be NULL) when every stepd took it. Returns as
 * plug_event_notify does. */
pmix_status_t plug_abort_others(const pmix_proc_t *caller, int status, const char *msg,
				const pmix_proc_t *procs, size_t n, pmix_op_cbfunc_t cbfunc,
				void *cbdata);
/* Serve aborts asked by other steps (before the network starts). */
void plug_abort_watch(void);
/* The step could not be set up on this node (prefork failed): the same
 * report with rank PLUG_ABORT_RANK_STEPD (lib/proto.h) and status 1, sent from the
 * calling thread and waited for at most a few seconds, so that srun says
 * why and exits non-zero instead of 0 (Slurm 22.05 gives a step whose
 * every launch failed no exit code). Job manager thread. */
void plug_abort_launch_failed(const char *host, const char *why);

/* Before a step ends because of a failure: PMIX_EVENT_JOB_END with
 * PMIX_EVENT_TERMINATE_JOB at every process of this step, synchronous
 * (net/event.h, plug_event_sync), for the handlers registered for it
 * (PMIX_EVENT_NON_DEFAULT), with PMIX_JOB_TERM_STATUS and PMIX_EXIT_CODE
 * status, PMIX_EVENT_AFFECTED_PROC failed (the first failed process),
 * PMIX_EVENT_TEXT_MESSAGE msg and PMIX_EVENT_ACTION_TIMEOUT the grace:
 * cb runs once all answered or after plug_abort_grace_ms. source must be
 * of this step's namespace (its rank may be the wildcard). 0, or -1
 * (logged; cb will not run). Progress thread. */
int plug_abort_end_notice(const pmix_proc_t *source, const pmix_proc_t *failed, int status,
			  const char *msg, plug_event_sync_f cb, void *cbdata);
/* Slurm's KillWait, at most SlurmixEventTimeout, in ms. */
uint32_t plug_abort_grace_ms(void);
/* The node log line for the outcome of a PMIX_EVENT_JOB_END. */
void plug_abort_end_log(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun);

#endif
