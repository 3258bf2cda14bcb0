/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_killed.c - a task killed by a signal in the middle of a fence.
 * Every rank registers an event handler for PMIX_ERR_PROC_TERM_WO_SYNC
 * (and the other "proc ended" codes), then rank VICTIM (default 3) sends
 * itself SIGKILL (with "exit": exits 3 without finalizing) after a second
 * while the others enter a wildcard fence. Each survivor prints
 * "FENCE_ERROR <status>" (or "FENCE_OK", wrong), then waits at most 10 s
 * for the event and prints "EVENT <status> affected <rank> exit <code>"
 * (exit -1 without PMIX_EXIT_CODE; " (no PMIX_PROC_TERM_STATUS)" after it
 * when that is missing or not the event's code) or "NO_EVENT", and
 * finalizes.
 * Usage: pmix_killed [VICTIM [exit]]
 *
 * Lost step daemons (the test kills one, or a node ends early):
 *   pmix_killed stepd   ranks 6 and 7 (the last node of -N4 -n8) sleep,
 *                       the others enter a wildcard fence (the test kills
 *                       the last node's slurmstepd meanwhile): each prints
 *                       "FENCE_ERROR <status>", then, within 10 s,
 *                       "NODE_DOWN host <h> node <id> procs <r,...>" (or
 *                       "NO_NODE_DOWN")
 *   pmix_killed early   after a fence, ranks 0 and 1 (the first node)
 *                       finalize and exit; the others wait 2 s and must
 *                       print "NO_NODE_DOWN" (a node that ended normally
 *                       is no lost node)
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
static volatile int got_exit = -1, got_term;
static volatile int down;
static char down_text[512];

static void on_down(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	char host[256] = "?", procs[256] = "";
	uint32_t node = 9999;

	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; status == PMIX_EVENT_NODE_DOWN && i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (PMIx_Check_key(info[i].key, PMIX_HOSTNAME) && v->type == PMIX_STRING)
			snprintf(host, sizeof(host), "%s", v->data.string);
		else if (PMIx_Check_key(info[i].key, PMIX_NODEID) && v->type == PMIX_UINT32)
			node = v->data.uint32;
		else if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROCS) &&
			 v->type == PMIX_DATA_ARRAY && v->data.darray &&
			 v->data.darray->type == PMIX_PROC)
			for (size_t k = 0; k < v->data.darray->size; k++) {
				const pmix_proc_t *p = (const pmix_proc_t *)v->data.darray->array +
						       k;
				size_t len = strlen(procs);

				snprintf(procs + len, sizeof(procs) - len, "%s%u", k ? "," : "",
					 p->rank);
			}
	}
	if (status == PMIX_EVENT_NODE_DOWN && !down++)
		snprintf(down_text, sizeof(down_text), "host %s node %u procs %s", host, node,
			 procs);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* The lost-stepd modes. */
static int nodes(const pmix_proc_t *me, int early)
{
	pmix_status_t code = PMIX_EVENT_NODE_DOWN, st;
	pmix_proc_t wild;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_down, NULL, NULL) < 0)
		return 1;
	if (early) {
		if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
			return 3;
		if (me->rank < 2) {
			PMIx_Finalize(NULL, 0);
			return 0;
		}
		sleep(2);
	} else if (me->rank >= 6) {
		sleep(30);
		return 0;
	} else {
		st = PMIx_Fence(&wild, 1, NULL, 0);
		printf(st == PMIX_SUCCESS ? "FENCE_OK\n" : "FENCE_ERROR %s\n",
		       PMIx_Error_string(st));
		for (int i = 0; i < 100 && !down; i++)
			usleep(100000);
	}
	if (down)
		printf("NODE_DOWN %s\n", down_text);
	else
		printf("NO_NODE_DOWN\n");
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC)
			got_rank = info[i].value.data.proc->rank;
		else if (PMIx_Check_key(info[i].key, PMIX_EXIT_CODE) &&
			 info[i].value.type == PMIX_INT)
			got_exit = info[i].value.data.integer;
		else if (PMIx_Check_key(info[i].key, PMIX_PROC_TERM_STATUS) &&
			 info[i].value.type == PMIX_STATUS)
			got_term = info[i].value.data.status == status;
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
	if (argc > 1 && (!strcmp(argv[1], "stepd") || !strcmp(argv[1], "early")))
		return nodes(&me, !strcmp(argv[1], "early"));
	st = PMIx_Register_event_handler(codes, 4, NULL, 0, on_event, NULL, NULL);
	if (st < 0) {
		printf("REGISTER_FAILED %s\n", PMIx_Error_string(st));
		return 1;
	}
	if ((int)me.rank == victim) {
		sleep(1);
		if (argc > 2 && !strcmp(argv[2], "exit"))
			exit(3); /* without finalizing */
		raise(SIGKILL);
	}
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	st = PMIx_Fence(&wild, 1, NULL, 0);
	printf(st == PMIX_SUCCESS ? "FENCE_OK\n" : "FENCE_ERROR %s\n", PMIx_Error_string(st));
	for (int i = 0; i < 100 && !got; i++)
		usleep(100000);
	if (got)
		printf("EVENT %s affected %d exit %d%s\n", PMIx_Error_string(got_code),
		       (int)got_rank, got_exit, got_term ? "" : " (no PMIX_PROC_TERM_STATUS)");
	else
		printf("NO_EVENT\n");
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
