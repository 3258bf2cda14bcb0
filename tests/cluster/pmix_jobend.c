/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_jobend.c - a whole-step PMIx_Abort: before the step ends, every
 * process gets PMIX_EVENT_JOB_END with PMIX_EVENT_TERMINATE_JOB, as a
 * synchronous event (docs/events.md, "synchronous events").
 *
 *   pmix_jobend answered  ranks 1.. register a handler for it, print what
 *                         it said ("JOBEND rank R terminate=T status=S
 *                         affected=A exit=E grace=G") and answer;
 *   pmix_jobend silent    the same, but rank 3 never answers;
 *   pmix_jobend none      nobody registers for it.
 * After a fence, rank 0 calls PMIx_Abort(9, ..., NULL, 0). The others
 * sleep ("SURVIVED rank r" if they are not ended within 30 s).
 */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int silent;
static pmix_rank_t my_rank;

static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		   size_t ninfo, pmix_info_t *results, size_t nresults,
		   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	int term = 0, st = -1, ec = -1, grace = -1;
	pmix_rank_t who = PMIX_RANK_UNDEF;

	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (PMIx_Check_key(info[i].key, PMIX_EVENT_TERMINATE_JOB) && v->type == PMIX_BOOL)
			term = v->data.flag;
		else if (PMIx_Check_key(info[i].key, PMIX_JOB_TERM_STATUS) &&
			 v->type == PMIX_STATUS)
			st = v->data.status;
		else if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
			 v->type == PMIX_PROC)
			who = v->data.proc->rank;
		else if (PMIx_Check_key(info[i].key, PMIX_EXIT_CODE) && v->type == PMIX_INT)
			ec = v->data.integer;
		else if (PMIx_Check_key(info[i].key, PMIX_EVENT_ACTION_TIMEOUT) &&
			 v->type == PMIX_INT)
			grace = v->data.integer;
	}
	if (status == PMIX_EVENT_JOB_END) {
		printf("JOBEND rank %u terminate=%d status=%d affected=%u exit=%d grace=%d\n",
		       my_rank, term, st, who, ec, grace);
		fflush(stdout);
	}
	if (silent && my_rank == 3 && status == PMIX_EVENT_JOB_END)
		return; /* never answers */
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
	pmix_status_t code = PMIX_EVENT_JOB_END;
	const char *mode = argc > 1 ? argv[1] : "answered";
	pmix_proc_t me, wild;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 2;
	my_rank = me.rank;
	silent = !strcmp(mode, "silent");
	if (me.rank != 0 && strcmp(mode, "none") &&
	    PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL) < 0)
		return 3;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 4;
	if (me.rank == 0) {
		PMIx_Abort(9, "rank 0 ends the step", NULL, 0);
		return 5;
	}
	sleep(30);
	printf("SURVIVED rank %u\n", me.rank);
	fflush(stdout);
	return 0;
}
