/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_killed.c - a task killed by a signal in the middle of a fence.
 * Every rank registers an event handler for PMIX_ERR_PROC_TERM_WO_SYNC
 * (and the other "proc ended" codes), then rank VICTIM (default 3) sends
 * itself SIGKILL after a second while the others enter a wildcard fence.
 * Each survivor prints "FENCE_ERROR <status>" (or "FENCE_OK", wrong), then
 * waits at most 10 s for the event and prints
 * "EVENT <status> affected <rank>" (or "NO_EVENT"), and finalizes.
 * Usage: pmix_killed [VICTIM]
 */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int got;
static volatile pmix_status_t got_code;
static volatile pmix_rank_t got_rank = PMIX_RANK_UNDEF;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC)
			got_rank = info[i].value.data.proc->rank;
	got_code = status;
	got = 1;
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = { PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_ABORTED,
				  PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_LOST_CONNECTION };
	int victim = argc > 1 ? atoi(argv[1]) : 3;
	pmix_proc_t me, wild;
	pmix_status_t st;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	st = PMIx_Register_event_handler(codes, 4, NULL, 0, on_event, NULL, NULL);
	if (st < 0) {
		printf("REGISTER_FAILED %s\n", PMIx_Error_string(st));
		return 1;
	}
	if ((int)me.rank == victim) {
		sleep(1);
		raise(SIGKILL);
	}
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	st = PMIx_Fence(&wild, 1, NULL, 0);
	printf(st == PMIX_SUCCESS ? "FENCE_OK\n" : "FENCE_ERROR %s\n", PMIx_Error_string(st));
	for (int i = 0; i < 100 && !got; i++)
		usleep(100000);
	if (got)
		printf("EVENT %s affected %d\n", PMIx_Error_string(got_code), (int)got_rank);
	else
		printf("NO_EVENT\n");
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
