/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_group.c - PMIx_Group_construct / _destruct from a task, for the
 * management suite (run_mgmt_tests.sh, docs/groups.md). Every rank of the
 * step takes part unless said otherwise; the output lines are
 * "rank R WHAT ...".
 *
 *   pmix_group basic      Put (no Commit) "grp.endpt" = "ep-R", construct "g1"
 *                         over the job with PMIX_GROUP_ASSIGN_CONTEXT_ID and
 *                         PMIX_GROUP_INFO {PMIX_GROUP_LOCAL_CID = 1000 + R}:
 *                         "construct STATUS cid C members N"; then every other
 *                         rank's LOCAL_CID (qualified by C) and endpoint, with
 *                         PMIX_OPTIONAL: "lcid ok" / "endpt ok" (or what was
 *                         wrong); the process set: "pset yes|no"; the group
 *                         query: "groupq yes|no"; destruct:
 *                         "destruct STATUS"; the same name again: "again
 *                         STATUS cid C2"; destruct: "destruct2 STATUS"
 *   pmix_group fail       the last rank exits without finalizing after a
 *                         fence; the others construct (PMIX_TIMEOUT 20):
 *                         "fail STATUS after S s"
 *   pmix_group optional   the same with PMIX_GROUP_OPTIONAL: "optional
 *                         STATUS members N"
 *   pmix_group notify on|off  construct with(out)
 *                         PMIX_GROUP_NOTIFY_TERMINATION, handler for
 *                         PMIX_GROUP_MEMBER_FAILED; the last rank then exits
 *                         without finalizing; the others wait 4 s: "event
 *                         from L group G" or "no event"
 *   pmix_group xstep NS N this step's ranks and the N ranks of namespace NS
 *                         (another step) construct "gx" over both jobs
 *                         (each nspace WILDCARD) with a context id, after
 *                         a group "gl" of this step alone: "local cid C",
 *                         "xstep STATUS cid C members M"
 *   pmix_group invite     rank 0 (whose own handler for INVITE_ACCEPTED ends
 *                         the chain) invites the whole step (WILDCARD) with a
 *                         context id; every other rank's INVITED handler
 *                         joins (PMIx_Group_join_nb ACCEPT), the last one
 *                         declines: rank 0 "invite STATUS cid C members N";
 *                         the members "complete cid C members N" (their
 *                         CONSTRUCT_COMPLETE event) and "destruct STATUS";
 *                         the last "declined, no complete" (or "complete")
 *   pmix_group invite-silent   the same, but the last rank never answers;
 *                         rank 0's invite has PMIX_TIMEOUT 3: "invite STATUS
 *                         members N after S s"
 *   pmix_group leave      construct "gv" over the step, the last rank leaves
 *                         ("leave STATUS"), the others see PMIX_GROUP_LEFT
 *                         ("left from L") and destruct without it
 *                         ("destruct STATUS")
 *   pmix_group lost-destruct   ranks 0 and 2 (the first of each node under
 *                         -N2 -n4) construct "gd" with NOTIFY_TERMINATION;
 *                         rank 2 then exits without finalizing while rank 3
 *                         lives on beside it; rank 0 hears MEMBER_FAILED and
 *                         destructs (PMIX_TIMEOUT 20): "lost-destruct STATUS
 *                         after S s"
 *   pmix_group refuse     rank 0 alone: "refuse WHAT STATUS" for a wrong
 *                         type, a required unknown directive, an unknown
 *                         group's destruct, an empty name, a caller outside
 *                         the procs, the same name twice
 * Exits 1 when PMIx does not start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;
static uint32_t size;
static volatile int evcount;
static char evtext[256];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void fence(void)
{
	pmix_proc_t all;

	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	PMIx_Fence(&all, 1, NULL, 0);
}

static size_t number(const pmix_info_t *res, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (PMIX_CHECK_KEY(&res[i], key) && res[i].value.type == PMIX_SIZE)
			return res[i].value.data.size;
	return 0;
}

static size_t members(const pmix_info_t *res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
		    res[i].value.type == PMIX_DATA_ARRAY && res[i].value.data.darray)
			return res[i].value.data.darray->size;
	return 0;
}

/* Constructs grp over procs with the directives; prints nothing. */
static pmix_status_t construct(const char *grp, pmix_proc_t *procs, size_t n, pmix_info_t *dirs,
			       size_t nd, size_t *cid, size_t *nmem)
{
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pmix_status_t st = PMIx_Group_construct(grp, procs, n, dirs, nd, &res, &nres);

	*cid = number(res, nres, PMIX_GROUP_CONTEXT_ID);
	*nmem = members(res, nres);
	if (res)
		PMIX_INFO_FREE(res, nres);
	return st;
}

static pmix_proc_t *job_procs(void)
{
	pmix_proc_t *p = calloc(size, sizeof(*p));

	for (uint32_t r = 0; p && r < size; r++)
		PMIX_LOAD_PROCID(&p[r], me.nspace, r);
	return p;
}

static void check_peers(size_t cid)
{
	pmix_info_t q[2];
	int lok = 1, eok = 1;

	PMIX_INFO_LOAD(&q[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
	PMIX_INFO_SET_QUALIFIER(&q[0]);
	PMIX_INFO_LOAD(&q[1], PMIX_OPTIONAL, NULL, PMIX_BOOL);
	for (uint32_t r = 0; r < size; r++) {
		pmix_proc_t p;
		pmix_value_t *v = NULL;
		char want[32];

		PMIX_LOAD_PROCID(&p, me.nspace, r);
		if (PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, q, 2, &v) != PMIX_SUCCESS ||
		    v->type != PMIX_SIZE || v->data.size != 1000 + r) {
			printf("rank %u lcid of %u wrong\n", me.rank, r);
			lok = 0;
		}
		if (v)
			PMIX_VALUE_RELEASE(v);
		v = NULL;
		snprintf(want, sizeof(want), "ep-%u", r);
		if (r != me.rank && (PMIx_Get(&p, "grp.endpt", &q[1], 1, &v) != PMIX_SUCCESS ||
				     v->type != PMIX_STRING || strcmp(v->data.string, want) != 0)) {
			printf("rank %u endpt of %u wrong\n", me.rank, r);
			eok = 0;
		}
		if (v)
			PMIX_VALUE_RELEASE(v);
	}
	if (lok)
		printf("rank %u lcid ok\n", me.rank);
	if (eok)
		printf("rank %u endpt ok\n", me.rank);
}

/* Whether the answer to query key lists name: as an array of strings
 * (as_array: PMIX_QUERY_GROUP_NAMES), else in a comma-separated string
 * (PMIX_QUERY_PSET_NAMES). */
static int listed(const char *key, const char *name, int as_array)
{
	pmix_query_t q;
	pmix_info_t *res = NULL;
	size_t nres = 0;
	int yes = 0;
	pmix_status_t st;

	PMIX_QUERY_CONSTRUCT(&q);
	PMIX_ARGV_APPEND(st, q.keys, key);
	if (st == PMIX_SUCCESS && PMIx_Query_info(&q, 1, &res, &nres) == PMIX_SUCCESS)
		for (size_t i = 0; i < nres; i++) {
			const pmix_value_t *v = &res[i].value;
			const pmix_data_array_t *da = v->type == PMIX_DATA_ARRAY ? v->data.darray :
										   NULL;

			if (!as_array && v->type == PMIX_STRING && v->data.string)
				yes |= strstr(v->data.string, name) != NULL;
			for (size_t k = 0;
			     as_array && da && da->type == PMIX_STRING && k < da->size; k++)
				yes |= !strcmp(((char **)da->array)[k], name);
		}
	if (res)
		PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_DESTRUCT(&q);
	return yes;
}

static void basic(void)
{
	pmix_value_t v = { .type = PMIX_STRING };
	pmix_proc_t *procs = job_procs();
	pmix_info_t dirs[2], gi;
	pmix_data_array_t da = { .type = PMIX_INFO, .size = 1, .array = &gi };
	size_t lcid = 1000 + me.rank, cid, cid2, n;
	char ep[32];
	pmix_status_t st;

	snprintf(ep, sizeof(ep), "ep-%u", me.rank);
	v.data.string = ep;
	PMIx_Put(PMIX_GLOBAL, "grp.endpt", &v);
	PMIX_INFO_LOAD(&gi, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
	PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
	st = construct("g1", procs, size, dirs, 2, &cid, &n);
	printf("rank %u construct %s cid %zu members %zu\n", me.rank, PMIx_Error_string(st), cid,
	       n);
	if (st == PMIX_SUCCESS) {
		check_peers(cid);
		printf("rank %u pset %s\n", me.rank,
		       listed(PMIX_QUERY_PSET_NAMES, "g1", 0) ? "yes" : "no");
		printf("rank %u groupq %s\n", me.rank,
		       listed(PMIX_QUERY_GROUP_NAMES, "g1", 1) ? "yes" : "no");
		st = PMIx_Group_destruct("g1", NULL, 0);
		printf("rank %u destruct %s\n", me.rank, PMIx_Error_string(st));
		st = construct("g1", procs, size, dirs, 1, &cid2, &n);
		printf("rank %u again %s cid %zu\n", me.rank, PMIx_Error_string(st), cid2);
		st = PMIx_Group_destruct("g1", NULL, 0);
		printf("rank %u destruct2 %s\n", me.rank, PMIx_Error_string(st));
	}
	free(procs);
}

/* The last rank leaves without finalizing; the others construct. */
static void lost_member(int optional)
{
	pmix_proc_t *procs = job_procs();
	pmix_info_t dirs[2];
	int tmo = 20;
	size_t cid, n;
	double t0;
	pmix_status_t st;

	fence();
	if (me.rank == size - 1)
		_exit(0);
	PMIX_INFO_LOAD(&dirs[0], PMIX_TIMEOUT, &tmo, PMIX_INT);
	PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_OPTIONAL, NULL, PMIX_BOOL);
	t0 = now();
	st = construct("gf", procs, size, dirs, optional ? 2 : 1, &cid, &n);
	if (optional)
		printf("rank %u optional %s members %zu\n", me.rank, PMIx_Error_string(st), n);
	else
		printf("rank %u fail %s after %.0f s\n", me.rank, PMIx_Error_string(st),
		       now() - t0);
	free(procs);
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src, pmix_info_t info[],
		     size_t ninfo, pmix_info_t results[], size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const char *g = "?";

	(void)id, (void)status, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING)
			g = info[i].value.data.string;
	if (!evcount++) /* the first: the others' finalize may follow */
		snprintf(evtext, sizeof(evtext), "event from %u group %s", src ? src->rank : 9999,
			 g);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void notify(int on)
{
	pmix_status_t code = PMIX_GROUP_MEMBER_FAILED;
	pmix_proc_t *procs = job_procs();
	pmix_info_t dirs[1];
	size_t cid, n;
	pmix_status_t st;

	PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
	PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_NOTIFY_TERMINATION, NULL, PMIX_BOOL);
	st = construct("gn", procs, size, dirs, on ? 1 : 0, &cid, &n);
	if (st != PMIX_SUCCESS)
		printf("rank %u construct %s\n", me.rank, PMIx_Error_string(st));
	fence();
	if (me.rank == size - 1)
		_exit(0);
	for (int i = 0; i < 40 && !evcount; i++)
		usleep(100000);
	printf("rank %u %s\n", me.rank, evcount ? evtext : "no event");
	free(procs);
}

/* ---- invite, join, leave ---- */

static volatile int invited, completed, left, left_from = -1;
static char invited_grp[PMIX_MAX_NSLEN + 1];
static pmix_proc_t invited_by;
static size_t done_cid, done_members;

static void on_group_event(size_t id, pmix_status_t status, const pmix_proc_t *src,
			   pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
			   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)results, (void)nresults;
	if (status == PMIX_GROUP_INVITED && src) {
		for (size_t i = 0; i < ninfo; i++)
			if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) &&
			    info[i].value.type == PMIX_STRING)
				snprintf(invited_grp, sizeof(invited_grp), "%s",
					 info[i].value.data.string);
		invited_by = *src;
		invited = 1;
	} else if (status == PMIX_GROUP_CONSTRUCT_COMPLETE) {
		done_cid = number(info, ninfo, PMIX_GROUP_CONTEXT_ID);
		done_members = members(info, ninfo);
		completed = 1;
	} else if (status == PMIX_GROUP_LEFT && src) {
		left_from = (int)src->rank;
		left = 1;
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void wait_for(volatile int *flag, int tenths)
{
	for (int i = 0; i < tenths && !*flag; i++)
		usleep(100000);
}

static void invite(int silent)
{
	pmix_status_t codes[] = { PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE };
	int last = me.rank == size - 1;
	pmix_proc_t all;
	pmix_info_t dirs[2], *res = NULL;
	size_t nres = 0;
	int tmo = 3;
	double t0;
	pmix_status_t st;

	if (!(silent && last))
		PMIx_Register_event_handler(codes, 2, NULL, 0, on_group_event, NULL, NULL);
	if (me.rank == 0) { /* a handler of its own ends the answers' chains */
		pmix_status_t acc = PMIX_GROUP_INVITE_ACCEPTED;

		PMIx_Register_event_handler(&acc, 1, NULL, 0, on_group_event, NULL, NULL);
	}
	fence();
	if (me.rank == 0) {
		PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
		PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
		PMIX_INFO_LOAD(&dirs[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
		t0 = now();
		st = PMIx_Group_invite("gi", &all, 1, dirs, silent ? 2 : 1, &res, &nres);
		if (silent)
			printf("rank 0 invite %s members %zu after %.0f s\n", PMIx_Error_string(st),
			       members(res, nres), now() - t0);
		else
			printf("rank 0 invite %s cid %zu members %zu\n", PMIx_Error_string(st),
			       number(res, nres, PMIX_GROUP_CONTEXT_ID), members(res, nres));
		if (res)
			PMIX_INFO_FREE(res, nres);
	} else if (!(silent && last)) {
		wait_for(&invited, 100);
		if (invited)
			PMIx_Group_join_nb(invited_grp, &invited_by,
					   last ? PMIX_GROUP_DECLINE : PMIX_GROUP_ACCEPT, NULL, 0,
					   NULL, NULL);
	}
	if (last) {
		sleep(2);
		printf("rank %u %s\n", me.rank, completed ? "complete" : "declined, no complete");
	} else {
		wait_for(&completed, 100);
		printf("rank %u complete cid %zu members %zu\n", me.rank, done_cid, done_members);
		st = PMIx_Group_destruct("gi", NULL, 0);
		printf("rank %u destruct %s\n", me.rank, PMIx_Error_string(st));
	}
	fence();
}

static void leave(void)
{
	pmix_status_t code = PMIX_GROUP_LEFT;
	pmix_proc_t *procs = job_procs();
	pmix_info_t tmo;
	int t = 10;
	size_t cid, n;
	pmix_status_t st;

	PMIx_Register_event_handler(&code, 1, NULL, 0, on_group_event, NULL, NULL);
	st = construct("gv", procs, size, NULL, 0, &cid, &n);
	printf("rank %u construct %s\n", me.rank, PMIx_Error_string(st));
	fence();
	if (me.rank == size - 1) {
		printf("rank %u leave %s\n", me.rank,
		       PMIx_Error_string(PMIx_Group_leave("gv", NULL, 0)));
	} else {
		wait_for(&left, 100);
		printf("rank %u left from %d\n", me.rank, left_from);
		PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &t, PMIX_INT);
		st = PMIx_Group_destruct("gv", &tmo, 1);
		printf("rank %u destruct %s\n", me.rank, PMIx_Error_string(st));
	}
	fence();
	free(procs);
}

static void lost_destruct(void)
{
	pmix_status_t code = PMIX_GROUP_MEMBER_FAILED;
	pmix_proc_t two[2];
	pmix_info_t dir;
	int tmo = 20;
	size_t cid, n;
	double t0;
	pmix_status_t st;

	PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
	PMIX_LOAD_PROCID(&two[0], me.nspace, 0);
	PMIX_LOAD_PROCID(&two[1], me.nspace, 2);
	if (me.rank == 0 || me.rank == 2) {
		PMIX_INFO_LOAD(&dir, PMIX_GROUP_NOTIFY_TERMINATION, NULL, PMIX_BOOL);
		st = construct("gd", two, 2, &dir, 1, &cid, &n);
		printf("rank %u construct %s\n", me.rank, PMIx_Error_string(st));
	}
	fence();
	if (me.rank == 2)
		_exit(0);
	if (me.rank == 0) {
		for (int i = 0; i < 50 && !evcount; i++)
			usleep(100000);
		PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, &tmo, PMIX_INT);
		t0 = now();
		st = PMIx_Group_destruct("gd", &dir, 1);
		printf("rank 0 %s, lost-destruct %s after %.0f s\n", evcount ? evtext : "no event",
		       PMIx_Error_string(st), now() - t0);
	} else {
		sleep(6); /* rank 3 keeps rank 2's step daemon alive meanwhile */
	}
}

static void xstep(const char *ns, uint32_t nother)
{
	pmix_proc_t *mine = job_procs(), both[2];
	pmix_info_t dir;
	size_t cid, n;
	pmix_status_t st;

	PMIX_INFO_LOAD(&dir, PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
	st = construct("gl", mine, size, &dir, 1, &cid, &n);
	printf("rank %u local %s cid %zu\n", me.rank, PMIx_Error_string(st), cid);
	PMIX_LOAD_PROCID(&both[0], me.nspace, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&both[1], ns, PMIX_RANK_WILDCARD);
	st = construct("gx", both, 2, &dir, 1, &cid, &n);
	printf("rank %u xstep %s cid %zu members %zu of %u\n", me.rank, PMIx_Error_string(st), cid,
	       n, size + nother);
	free(mine);
}

static void refuse(void)
{
	pmix_proc_t self = me, other;
	pmix_info_t d;
	size_t cid, n;

	PMIX_INFO_LOAD(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID, "yes", PMIX_STRING);
	printf("refuse type %s\n", PMIx_Error_string(construct("gr", &self, 1, &d, 1, &cid, &n)));
	PMIX_INFO_DESTRUCT(&d);
	PMIX_INFO_LOAD(&d, "slurmix.no.such", NULL, PMIX_BOOL);
	PMIX_INFO_REQUIRED(&d);
	printf("refuse required %s\n",
	       PMIx_Error_string(construct("gr", &self, 1, &d, 1, &cid, &n)));
	printf("refuse unknown %s\n", PMIx_Error_string(PMIx_Group_destruct("nosuch", NULL, 0)));
	printf("refuse empty %s\n", PMIx_Error_string(construct("", &self, 1, NULL, 0, &cid, &n)));
	PMIX_LOAD_PROCID(&other, me.nspace, me.rank + 1);
	printf("refuse outside %s\n",
	       PMIx_Error_string(construct("gr", &other, 1, NULL, 0, &cid, &n)));
	printf("refuse first %s\n",
	       PMIx_Error_string(construct("gr", &self, 1, NULL, 0, &cid, &n)));
	printf("refuse twice %s\n",
	       PMIx_Error_string(construct("gr", &self, 1, NULL, 0, &cid, &n)));
	printf("refuse destruct %s\n", PMIx_Error_string(PMIx_Group_destruct("gr", NULL, 0)));
}

int main(int argc, char **argv)
{
	pmix_value_t *v = NULL;
	pmix_proc_t wild;
	const char *mode = argc > 1 ? argv[1] : "basic";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
		return 1;
	size = v->data.uint32;
	PMIX_VALUE_RELEASE(v);
	if (!strcmp(mode, "basic"))
		basic();
	else if (!strcmp(mode, "fail") || !strcmp(mode, "optional"))
		lost_member(!strcmp(mode, "optional"));
	else if (!strcmp(mode, "notify"))
		notify(argc > 2 && !strcmp(argv[2], "on"));
	else if (!strcmp(mode, "xstep") && argc > 3)
		xstep(argv[2], (uint32_t)atoi(argv[3]));
	else if (!strcmp(mode, "invite") || !strcmp(mode, "invite-silent"))
		invite(!strcmp(mode, "invite-silent"));
	else if (!strcmp(mode, "leave"))
		leave();
	else if (!strcmp(mode, "lost-destruct"))
		lost_destruct();
	else if (!strcmp(mode, "refuse") && me.rank == 0)
		refuse();
	PMIx_Finalize(NULL, 0);
	return 0;
}
