/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/family.c - failures between a spawned step and its parent step;
 * see stepd/family.h.
 *
 * Relays: the event a stepd raises for a lost or aborted rank of its step
 * (net/lost.c: PMIX_ERR_PROC_TERM_WO_SYNC, _ABORTED_BY_SIG or _REQUESTED_ABORT
 * with PMIX_EXIT_CODE) goes, range CUSTOM over the other step's wildcard,
 * through the host's event forwarding (net/event.c: EVENT_FWD to every
 * stepd of that step), to
 *   - the parent step, from the stepd that saw the loss (one copy);
 *   - every child step this stepd spawned (each child was spawned by one
 *     stepd of the parent, so each gets one copy).
 * Each relayed event carries PMIX_EVENT_AFFECTED_PROC and this node's
 * PMIX_HOSTNAME and PMIX_NODEID (its source node). A whole-step
 * PMIx_Abort is relayed at once, with the aborting rank, before Slurm
 * kills the step.
 *
 * Ending: a stepd of a child step that receives such an event from its
 * parent step ends its own step (slurm_kill_job_step: Slurm's SIGTERM,
 * KillWait, SIGKILL), unless told not to (SlurmixSpawnEndWithParent=no,
 * or PMIX_SPAWN_CHILD_SEP at the spawn: SLURMIX_SPAWN_SEP in its env).
 * The child's node 0 first raises PMIX_EVENT_JOB_END with
 * PMIX_EVENT_TERMINATE_JOB at every process of the child step
 * (plug_abort_end_notice, synchronous) and ends the step once they
 * answered, and no sooner than PLUG_FAMILY_GRACE_MS after the failure's
 * event was queued to its clients. The other stepds end it too, after the
 * whole grace and PLUG_FAMILY_BACKSTOP_MS (the RPC is idempotent), so the
 * loss of node 0 does not keep the step alive.
 *
 * Threads: init and register in prefork (job manager thread); everything
 * else in the progress thread, where net/lost.c and net/event.c call
 * their hooks and the network its users' stop; plug_family_stop after that
 * thread is gone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "net/ctx.h"
#include "net/event.h"
#include "net/lost.h"
#include "net/transport.h"
#include "stepd/abort.h"
#include "stepd/family.h"
#include "slurm_adapter.h"

#define PLUG_FAMILY_GRACE_MS 500
#define PLUG_FAMILY_BACKSTOP_MS 3000

static struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t job, step;
	bool has_parent, end;
	pmix_proc_t parent;
	char (*children)[PMIX_MAX_NSLEN + 1];
	size_t nchildren;
	struct event *ending; /* the grace timer, once the parent failed */
	bool grace_over;      /* that timer fired */
	bool notice_out;      /* node 0: PMIX_EVENT_JOB_END not answered yet */
} fam;

static void relay_done(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	if (st != PMIX_SUCCESS)
		plug_flag("family: a relayed event did not reach every stepd: %s",
			  PMIx_Error_string(st));
}

/* The event for rank of this step to every process of step nspace. */
static void relay(const char *nspace, pmix_rank_t rank, pmix_status_t code, int32_t exit_code,
		  bool has_exit)
{
	pmix_proc_t proc, target;
	pmix_data_array_t da = { .type = PMIX_PROC, .size = 1, .array = &target };
	pmix_info_t info[5];
	uint32_t node = plug_net_ctx.me;
	int ec = exit_code;
	size_t n = 0;
	pmix_status_t st;

	PMIx_Load_procid(&proc, fam.nspace, rank);
	PMIx_Load_procid(&target, nspace, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info[n++], PMIX_EVENT_AFFECTED_PROC, &proc, PMIX_PROC);
	PMIx_Info_load(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[n++], PMIX_HOSTNAME, plug_net_ctx.host ? plug_net_ctx.host : "",
		       PMIX_STRING);
	PMIx_Info_load(&info[n++], PMIX_NODEID, &node, PMIX_UINT32);
	if (has_exit)
		PMIx_Info_load(&info[n++], PMIX_EXIT_CODE, &ec, PMIX_INT);
	st = plug_event_notify(code, &proc, PMIX_RANGE_CUSTOM, info, n, relay_done, NULL);
	if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
		plug_error("family: cannot tell step %s of rank %u: %s", nspace, rank,
			   PMIx_Error_string(st));
	else
		plug_flag("family: told step %s that rank %u of %s ended (%s)", nspace, rank,
			  fam.nspace, PMIx_Error_string(code));
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
}

static void lost(pmix_rank_t rank, pmix_status_t code, int32_t exit_code, bool has_exit, bool here)
{
	if (here && fam.has_parent)
		relay(fam.parent.nspace, rank, code, exit_code, has_exit);
	for (size_t i = 0; i < fam.nchildren; i++)
		relay(fam.children[i], rank, code, exit_code, has_exit);
}

void plug_family_aborted(pmix_rank_t rank, int status)
{
	lost(rank, PMIX_ERR_PROC_REQUESTED_ABORT, status, true, true);
}

static void end_now(void)
{
	plug_info("the parent step %s failed: ending step %u.%u", fam.parent.nspace, fam.job,
		  fam.step);
	plug_slurm_kill_step(fam.job, fam.step, SIGKILL);
}

static void grace_over(int fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	fam.grace_over = true;
	if (!fam.notice_out)
		end_now();
}

/* The child step's processes answered PMIX_EVENT_JOB_END (or the grace
 * passed). */
static void notice_done(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
			void *cbdata)
{
	(void)cbdata;
	plug_abort_end_log(st, nhandled, un, nun);
	fam.notice_out = false;
	if (fam.grace_over)
		end_now();
}

/* Node 0 tells the step it ends: the failed parent process and its exit
 * code (1 when the event has none). */
static void notice(const pmix_proc_t *source, const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *aff = pxc_info_find(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
	const pmix_info_t *ec = pxc_info_find(info, ninfo, PMIX_EXIT_CODE);
	const pmix_proc_t *failed = aff && aff->value.type == PMIX_PROC && aff->value.data.proc ?
					    aff->value.data.proc :
					    source;
	pmix_proc_t self;

	PMIx_Load_procid(&self, fam.nspace, PMIX_RANK_WILDCARD);
	fam.notice_out = plug_abort_end_notice(&self, failed,
					       ec && ec->value.type == PMIX_INT ?
						       ec->value.data.integer :
						       1,
					       "the parent step failed", notice_done, NULL) == 0;
}

/* An event from another stepd, about to be delivered here (never taken). */
static bool event_in(pmix_status_t code, const pmix_proc_t *source, const pmix_info_t *info,
		     size_t ninfo)
{
	uint32_t ms = plug_net_ctx.me == 0 ? PLUG_FAMILY_GRACE_MS :
					     plug_abort_grace_ms() + PLUG_FAMILY_BACKSTOP_MS;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct event_base *base;

	if (pxc_info_find(info, ninfo, PLUG_ABORT_KILL_KEY))
		return false; /* an abort of named procs (stepd/abort.c), not a failure */
	if (!fam.has_parent || !fam.end || fam.ending || !source ||
	    !PMIx_Check_nspace(source->nspace, fam.parent.nspace) ||
	    (code != PMIX_ERR_PROC_TERM_WO_SYNC && code != PMIX_ERR_PROC_REQUESTED_ABORT &&
	     code != PMIX_ERR_PROC_ABORTED_BY_SIG))
		return false;
	base = plug_net_ctx.net ? plug_net_base(plug_net_ctx.net) : NULL;
	if (!base || !(fam.ending = evtimer_new(base, grace_over, NULL)) ||
	    evtimer_add(fam.ending, &tv) < 0) {
		end_now();
		return false;
	}
	if (plug_net_ctx.me == 0)
		notice(source, info, ninfo);
	return false;
}

void plug_family_init(const char *nspace, uint32_t job, uint32_t step, const pmix_proc_t *parent,
		      bool end)
{
	memset(&fam, 0, sizeof(fam));
	snprintf(fam.nspace, sizeof(fam.nspace), "%s", nspace);
	fam.job = job;
	fam.step = step;
	if (parent) {
		fam.parent = *parent;
		fam.has_parent = true;
	}
	fam.end = end;
	plug_lost_relay(lost);
	if (plug_event_watch(event_in) < 0)
		plug_error("family: cannot watch events: a failed parent does not end this step");
}

void plug_family_child(const char *nspace)
{
	char(*grown)[PMIX_MAX_NSLEN + 1];

	if (fam.nchildren >= 4096 ||
	    !(grown = realloc(fam.children, (fam.nchildren + 1) * sizeof(*grown)))) {
		plug_error("family: too many spawned steps to follow; %s is not told of "
			   "failures",
			   nspace);
		return;
	}
	fam.children = grown;
	snprintf(fam.children[fam.nchildren++], PMIX_MAX_NSLEN + 1, "%s", nspace);
}

/* The network goes down (progress thread): the grace timer goes. */
static void net_stop(void *arg)
{
	(void)arg;
	if (fam.ending)
		event_free(fam.ending);
	fam.ending = NULL;
}

int plug_family_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "spawn family", .stop = net_stop };

	return plug_net_register(n, &u);
}

void plug_family_stop(void)
{
	free(fam.children);
	memset(&fam, 0, sizeof(fam));
}
