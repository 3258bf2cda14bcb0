/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_abort.c - PMIx_Abort of some ranks of the step: exactly those end.
 *
 *   pmix_abort one      rank 0 first tries two aborts that must be
 *                       refused with BAD_PARAM (a namespace that is no
 *                       step of the job, a rank the step does not have),
 *                       then calls PMIx_Abort(5, ..., {rank 1}) and goes
 *                       on;
 *   pmix_abort race     rank 0 aborts {rank 1} with 5 and rank 2 aborts
 *                       {rank 3} with 6, at the same moment;
 *   pmix_abort stubborn as one, but rank 1 ignores SIGABRT (it must be
 *                       killed all the same).
 * Every rank registers for PMIX_ERR_PROC_REQUESTED_ABORT first. An aborted
 * rank sleeps (it must be killed: "SURVIVED rank r" if it is not within
 * 20 s). Every other rank waits (10 s at most) for one event per aborted
 * rank, naming it (PMIX_EVENT_AFFECTED_PROC) with its status
 * (PMIX_EXIT_CODE), fences with the other survivors, works 2 s more (its
 * last output must not be lost) and prints "RANK r OK" (or "RANK r WRONG
 * ..."). Rank 0 prints "REFUSED ok" when the
 * two refusals came right.
 */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int events, bad_events;
static volatile int seen[2]; /* ranks 1 and 3 */

static void on_abort(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	pmix_rank_t who = PMIX_RANK_UNDEF;
	int code = -1;

	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC)
			who = info[i].value.data.proc->rank;
		else if (PMIx_Check_key(info[i].key, PMIX_EXIT_CODE) &&
			 info[i].value.type == PMIX_INT)
			code = info[i].value.data.integer;
	}
	if (status == PMIX_ERR_PROC_REQUESTED_ABORT) {
		events++;
		if (who == 1 && code == 5)
			seen[0]++;
		else if (who == 3 && code == 6)
			seen[1]++;
		else
			bad_events++;
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void wait_for(volatile int *v, int want, int ms)
{
	for (int t = 0; *v < want && t < ms; t += 10)
		usleep(10000);
}

/* The two aborts that must change nothing. */
static int refusals(const pmix_proc_t *me, uint32_t size)
{
	pmix_proc_t p;
	pmix_status_t a, b;

	PMIx_Load_procid(&p, "not.a.step.of.ours", 0);
	a = PMIx_Abort(3, "must be refused", &p, 1);
	PMIx_Load_procid(&p, me->nspace, size + 10);
	b = PMIx_Abort(3, "must be refused", &p, 1);
	printf("REFUSED %s\n", a == PMIX_ERR_BAD_PARAM && b == PMIX_ERR_BAD_PARAM ? "ok" : "WRONG");
	return 0;
}

int main(int argc, char **argv)
{
	pmix_status_t code = PMIX_ERR_PROC_REQUESTED_ABORT, st = PMIX_SUCCESS;
	int race = argc > 1 && !strcmp(argv[1], "race");
	int stubborn = argc > 1 && !strcmp(argv[1], "stubborn");
	pmix_proc_t me, wild, target, *alive;
	pmix_value_t *v = NULL;
	uint32_t size, n = 0;
	int want, aborted;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 2;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || !v)
		return 2;
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	if (size < 4 || !(alive = calloc(size, sizeof(*alive))))
		return 2;
	/* before the fence: rank 0 aborts rank 1 right after it */
	if (stubborn && me.rank == 1)
		signal(SIGABRT, SIG_IGN);
	if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_abort, NULL, NULL) < 0 ||
	    PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	aborted = me.rank == 1 || (race && me.rank == 3);
	want = race ? 2 : 1;
	if (me.rank == 0 && !race)
		refusals(&me, size);
	if (me.rank == 0 || (race && me.rank == 2)) {
		PMIx_Load_procid(&target, me.nspace, me.rank + 1);
		st = PMIx_Abort(me.rank ? 6 : 5,
				me.rank ? "rank 2 aborts rank 3" : "rank 0 aborts rank 1", &target,
				1);
	}
	if (aborted) {
		sleep(20);
		printf("SURVIVED rank %u\n", me.rank);
		fflush(stdout);
		return 0;
	}
	wait_for(&events, want, 10000);
	for (uint32_t r = 0; r < size; r++)
		if (!(r == 1 || (race && r == 3)))
			PMIx_Load_procid(&alive[n++], me.nspace, r);
	if (PMIx_Fence(alive, n, NULL, 0) != PMIX_SUCCESS)
		return 3;
	sleep(2); /* output at the end must still reach srun */
	if (st == PMIX_SUCCESS && events == want && !bad_events && seen[0] == 1 &&
	    seen[1] == (race ? 1 : 0))
		printf("RANK %u OK\n", me.rank);
	else
		printf("RANK %u WRONG abort %s, %d events (%d wrong), rank 1 %d, rank 3 %d\n",
		       me.rank, PMIx_Error_string(st), events, bad_events, seen[0], seen[1]);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	free(alive);
	return 0;
}
