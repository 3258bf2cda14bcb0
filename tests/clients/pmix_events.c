/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_events.c - event notification between clients and from the host.
 *
 * Usage: pmix_events   (3 ranks or more; run with slurmix-run --keep-going)
 * 1. Every rank registers a handler for a user code and one for the
 *    process-failure codes.
 * 2. Rank 0 notifies the user code to its namespace; every other rank
 *    must receive it within 10 s.
 * 3. The last rank kills itself with SIGKILL; every other rank must get a
 *    failure event naming it (PMIX_EVENT_AFFECTED_PROC) within 10 s, then
 *    finalizes. Rank 0 prints "events ok: user and proc-failure events".
 * The launcher exits 137 (the last rank died of SIGKILL).
 */
#include "pt.h"
#include <pthread.h>
#include <signal.h>

#define USER_CODE (PMIX_EXTERNAL_ERR_BASE - 7)

static volatile int got_user;
static volatile int got_fail = -1; /* rank named by the failure event */
static volatile int fail_code;

static void on_user(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == USER_CODE && source && source->rank == 0)
		got_user = 1;
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_fail(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (!strcmp(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC) {
			fail_code = status;
			got_fail = (int)info[i].value.data.proc->rank;
		}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void register_handlers(void)
{
	pmix_status_t user = USER_CODE;
	pmix_status_t fails[] = { PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_PROC_TERM_WO_SYNC,
				  PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED };

	if (PMIx_Register_event_handler(&user, 1, NULL, 0, on_user, NULL, NULL) < 0)
		PT_FAIL("registering the user handler");
	if (PMIx_Register_event_handler(fails, 4, NULL, 0, on_fail, NULL, NULL) < 0)
		PT_FAIL("registering the failure handler");
}

static void wait_for(volatile int *flag, int unset, const char *what)
{
	for (int i = 0; i < 1000 && *flag == unset; i++)
		usleep(10000);
	if (*flag == unset)
		PT_FAIL("no %s event within 10 s", what);
}

int main(void)
{
	uint32_t n;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	n = pt_get_u32(pt_me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
	if (n < 3)
		PT_FAIL("needs 3 ranks or more");
	register_handlers();
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == 0)
		PT_RC(PMIx_Notify_event(USER_CODE, &pt_me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL,
					NULL));
	else
		wait_for(&got_user, 0, "user");
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == n - 1)
		raise(SIGKILL);
	wait_for(&got_fail, -1, "proc-failure");
	if (got_fail != (int)(n - 1))
		PT_FAIL("failure event names rank %d", got_fail);
	PMIx_Finalize(NULL, 0);
	if (pt_me.rank == 0)
		printf("events ok: user and proc-failure events\n");
	return 0;
}
