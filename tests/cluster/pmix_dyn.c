/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_dyn.c - a PMIx client for the cluster tests of publish/lookup and
 * connect across steps. Rank 0 (or every rank with "all" first) runs the
 * commands of its argument list in order and prints one line each:
 *   pub KEY VALUE RANGE PERSIST   PMIx_Publish (RANGE: session|ns|dflt,
 *                                 PERSIST: first|proc|session|indef|dflt)
 *   look KEY WAIT RANGE           PMIx_Lookup; WAIT -1: no PMIX_WAIT, else
 *                                 PMIX_WAIT=true with PMIX_TIMEOUT=WAIT s
 *   unpub KEY                     PMIx_Unpublish of KEY
 *   sleep SEC
 *   xconn ME OTHER                connect with the step that publishes
 *                                 "xns.OTHER" (this one publishes
 *                                 "xns.ME"), every rank: Put/Commit a
 *                                 value, PMIx_Connect, Get the other job's
 *                                 size (PMIX_OPTIONAL) and its rank 0's
 *                                 value, PMIx_Fence across both,
 *                                 PMIx_Disconnect (use with "all")
 * Connect attributes, over {own nspace, the other step's} (use with "all";
 * "xfind ME OTHER" first: publish "xns.ME", wait for "xns.OTHER"):
 *   cn TMO ID XCHG                PMIx_Connect with PMIX_TIMEOUT=TMO (0: none),
 *                                 PMIX_CONNECT_ID=ID (-: none),
 *                                 PMIX_CONNECT_XCHG_ONLY (1); prints
 *                                 "cn R <status> <sec> ctx=<id|-> grank=<r|->"
 *   cn2 ID1 ID2                   two PMIx_Connect_nb, ids ID1 then ID2
 *   dc                            PMIx_Disconnect ("dc R <status>")
 *   qcn CLUSTER                   PMIx_Connect naming "CLUSTER:<other>"
 *   cnkill                        rank 0 SIGKILLs itself after 1 s, the
 *                                 others wait for it in PMIx_Connect_nb
 *   regterm                       register for PMIX_ERR_INVALID_TERMINATION
 *   waitterm SEC                  wait up to SEC s for 2 of them; prints
 *                                 "term R <count> <last source nspace>"
 *   regev                         register for PMIX_PROC_HAS_CONNECTED,
 *                                 PMIX_CONNECT_REQUESTED and
 *                                 SLURMIX_PROC_HAS_DISCONNECTED
 *   dcf TMO FLAGS                 PMIx_Disconnect with PMIX_TIMEOUT=TMO and
 *                                 the flags of FLAGS (as cnf); prints
 *                                 "dcf R <status> <sec>"
 *   waitdc N SEC                  wait up to SEC s for N
 *                                 SLURMIX_PROC_HAS_DISCONNECTED; prints
 *                                 "dev R disc=<n> <sec> <sources>" (sources
 *                                 as for waitev, d for a disconnect)
 *   fence                         PMIx_Fence over the own namespace
 *   cnf TMO FLAGS                 PMIx_Connect with PMIX_TIMEOUT=TMO and the
 *                                 flags of FLAGS (e: NOTIFY_EACH, r:
 *                                 NOTIFY_REQ, o: OPTIONAL, -: none); prints
 *                                 "cnf R <status> <sec>"
 *   waitev EACH REQ SEC           wait up to SEC s for EACH HAS_CONNECTED
 *                                 and REQ CONNECT_REQUESTED events; prints
 *                                 "ev R each=<n> req=<n> <sec> <sources>",
 *                                 sources in arrival order as e|r, s|x
 *                                 (same/other nspace) and the rank
 *   cnopt VICTIM TMO              rank VICTIM (all: every rank) SIGKILLs
 *                                 itself after 1 s,
 *                                 the others wait in PMIx_Connect_nb with
 *                                 PMIX_CONNECT_OPTIONAL and PMIX_TIMEOUT=TMO;
 *                                 prints "cnopt R <status> <sec>"
 *   xloc                          node-local keys across namespaces (after
 *                                 xfind): every rank posts its own
 *                                 PMIX_HOSTNAME and PMIX_LOCALITY_STRING
 *                                 as "dyn.hname"/"dyn.loc", connects, then
 *                                 checks the other job's registered
 *                                 values (HOSTNAME OPTIONAL; LOCALITY_STRING
 *                                 IMMEDIATE of the procs on this node, as
 *                                 Open MPI's dpm asks) and
 *                                 its PMIX_LOCAL_PEERS against what its
 *                                 ranks posted; prints "xloc R <n> peers=
 *                                 <LOCAL_PEERS|-> want=<ranks posting our
 *                                 host|-> host=<ok|none|bad> loc=<ok|
 *                                 none|bad> data=<local|fetched>" (none:
 *                                 absent on both sides; local: the other
 *                                 job's posted data came with the connect)
 *   getto RANK KEY TMO LATE       PMIx_Get of KEY of own rank RANK with
 *                                 PMIX_TIMEOUT=TMO; RANK itself sleeps
 *                                 TMO+2 s, or with LATE > 0 commits KEY
 *                                 after LATE s; prints
 *                                 "getto R <status> <sec> [<value>]"
 * Output: "<cmd> <key> <status name> [<value> <nspace>:<rank>]".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_slurmix.h>

static pmix_proc_t me;

static pmix_data_range_t range_of(const char *s)
{
	return !strcmp(s, "ns") ? PMIX_RANGE_NAMESPACE : PMIX_RANGE_SESSION;
}

static int do_pub(char **a)
{
	pmix_info_t info[3];
	size_t n = 1;
	pmix_persistence_t p = !strcmp(a[3], "first") ? PMIX_PERSIST_FIRST_READ :
			       !strcmp(a[3], "proc")  ? PMIX_PERSIST_PROC :
			       !strcmp(a[3], "indef") ? PMIX_PERSIST_INDEF :
							PMIX_PERSIST_SESSION;
	pmix_data_range_t r = range_of(a[2]);
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], a[0], a[1], PMIX_STRING);
	if (strcmp(a[2], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
	if (strcmp(a[3], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_PERSISTENCE, &p, PMIX_PERSIST);
	rc = PMIx_Publish(info, n);
	printf("pub %s %s\n", a[0], PMIx_Error_string(rc));
	return 4;
}

static int do_look(char **a)
{
	pmix_pdata_t pd;
	pmix_info_t info[3];
	size_t n = 0;
	int wait = atoi(a[1]);
	bool yes = true;
	pmix_data_range_t r = range_of(a[2]);
	pmix_status_t rc;

	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_LOAD_KEY(pd.key, a[0]);
	if (wait >= 0) {
		PMIX_INFO_LOAD(&info[n++], PMIX_WAIT, &yes, PMIX_BOOL);
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &wait, PMIX_INT);
	}
	if (strcmp(a[2], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
	rc = PMIx_Lookup(&pd, 1, n ? info : NULL, n);
	if (rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING)
		printf("look %s %s %s %s:%u\n", a[0], PMIx_Error_string(rc), pd.value.data.string,
		       pd.proc.nspace, pd.proc.rank);
	else
		printf("look %s %s\n", a[0], PMIx_Error_string(rc));
	return 3;
}

static int do_unpub(char **a)
{
	char *keys[2] = { a[0], NULL };
	pmix_status_t rc = PMIx_Unpublish(keys, NULL, 0);

	printf("unpub %s %s\n", a[0], PMIx_Error_string(rc));
	return 1;
}

static void show(const char *what, pmix_status_t rc)
{
	printf("%s %u %s\n", what, me.rank, PMIx_Error_string(rc));
	fflush(stdout);
}

static int do_xconn(char **a)
{
	pmix_proc_t procs[2], p0;
	pmix_info_t info[2], opt;
	pmix_pdata_t pd;
	pmix_value_t val, *v = NULL;
	char key[64], mine[PMIX_MAX_NSLEN + 32];
	bool yes = true;
	int wait = 30;
	pmix_status_t rc;

	snprintf(mine, sizeof(mine), "%s:%u", me.nspace, me.rank);
	PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
	PMIx_Put(PMIX_GLOBAL, "dyn.val", &val);
	PMIx_Commit();
	snprintf(key, sizeof(key), "xns.%s", a[0]);
	if (me.rank == 0) {
		PMIX_INFO_LOAD(&info[0], key, me.nspace, PMIX_STRING);
		show("xpub", PMIx_Publish(info, 1));
	}
	PMIX_PDATA_CONSTRUCT(&pd);
	snprintf(pd.key, sizeof(pd.key), "xns.%s", a[1]);
	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &wait, PMIX_INT);
	if ((rc = PMIx_Lookup(&pd, 1, info, 2)) != PMIX_SUCCESS)
		return show("xlook", rc), 2;
	PMIx_Load_procid(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
	PMIx_Load_procid(&procs[1], pd.value.data.string, PMIX_RANK_WILDCARD);
	show("connect", PMIx_Connect(procs, 2, NULL, 0));
	PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	rc = PMIx_Get(&procs[1], PMIX_JOB_SIZE, &opt, 1, &v);
	printf("size %u %s %u\n", me.rank, PMIx_Error_string(rc),
	       rc == PMIX_SUCCESS ? v->data.uint32 : 0);
	PMIx_Load_procid(&p0, procs[1].nspace, 0);
	rc = PMIx_Get(&p0, "dyn.val", NULL, 0, &v);
	printf("val %u %s %s\n", me.rank, PMIx_Error_string(rc),
	       rc == PMIX_SUCCESS ? v->data.string : "-");
	show("fence", PMIx_Fence(procs, 2, NULL, 0));
	show("disconnect", PMIx_Disconnect(procs, 2, NULL, 0));
	return 2;
}

static char other_ns[PMIX_MAX_NSLEN + 1];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int do_xfind(char **a)
{
	pmix_info_t info[2];
	pmix_pdata_t pd;
	char key[64];
	bool yes = true;
	int wait = 30;
	pmix_status_t rc;

	snprintf(key, sizeof(key), "xns.%s", a[0]);
	if (me.rank == 0) {
		PMIX_INFO_LOAD(&info[0], key, me.nspace, PMIX_STRING);
		show("xpub", PMIx_Publish(info, 1));
	}
	PMIX_PDATA_CONSTRUCT(&pd);
	snprintf(pd.key, sizeof(pd.key), "xns.%s", a[1]);
	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &wait, PMIX_INT);
	if ((rc = PMIx_Lookup(&pd, 1, info, 2)) != PMIX_SUCCESS)
		show("xlook", rc);
	else
		snprintf(other_ns, sizeof(other_ns), "%s", pd.value.data.string);
	return 2;
}

static void pair(pmix_proc_t *procs, const char *prefix)
{
	char q[2 * PMIX_MAX_NSLEN];

	snprintf(q, sizeof(q), "%s%s%s", prefix ? prefix : "", prefix ? ":" : "", other_ns);
	PMIx_Load_procid(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
	PMIx_Load_procid(&procs[1], q, PMIX_RANK_WILDCARD);
}

/* The results a connect left under our own proc (local only: absent
 * results must not wait for the server). */
static void show_results(void)
{
	pmix_value_t *v = NULL;
	pmix_info_t opt;
	bool yes = true;
	char ctx[32] = "-", gr[16] = "-";

	PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	if (PMIx_Get(&me, PMIX_GROUP_CONTEXT_ID, &opt, 1, &v) == PMIX_SUCCESS && v) {
		snprintf(ctx, sizeof(ctx), "%zx", v->data.size);
		PMIx_Value_free(v, 1);
	}
	if (PMIx_Get(&me, PMIX_CONNECT_GROUP_RANK, &opt, 1, &v) == PMIX_SUCCESS && v) {
		snprintf(gr, sizeof(gr), "%u", v->data.rank);
		PMIx_Value_free(v, 1);
	}
	printf(" ctx=%s grank=%s", ctx, gr);
}

static int do_cn(char **a)
{
	pmix_proc_t procs[2];
	pmix_info_t info[3];
	size_t n = 0;
	int tmo = atoi(a[0]);
	bool yes = true;
	double t0 = now();
	pmix_status_t rc;

	pair(procs, NULL);
	if (tmo > 0)
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &tmo, PMIX_INT);
	if (strcmp(a[1], "-"))
		PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_ID, a[1], PMIX_STRING);
	if (atoi(a[2]))
		PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_XCHG_ONLY, &yes, PMIX_BOOL);
	if (atoi(a[2])) { /* forget an earlier connect's results */
		size_t zero = 0;
		pmix_value_t val;

		PMIX_VALUE_LOAD(&val, &zero, PMIX_SIZE);
		PMIx_Store_internal(&me, PMIX_GROUP_CONTEXT_ID, &val);
	}
	rc = PMIx_Connect(procs, 2, n ? info : NULL, n);
	printf("cn %u %s %.1f", me.rank, PMIx_Error_string(rc), now() - t0);
	show_results();
	printf("\n");
	return 3;
}

static volatile int nb_left;
static pmix_status_t nb_st[2];

static void nb_cb(pmix_status_t st, void *cbdata)
{
	nb_st[(intptr_t)cbdata] = st;
	__atomic_sub_fetch(&nb_left, 1, __ATOMIC_SEQ_CST);
}

static int do_cn2(char **a)
{
	pmix_proc_t procs[2];
	pmix_info_t info[2];

	pair(procs, NULL);
	nb_left = 2;
	for (intptr_t i = 0; i < 2; i++) {
		PMIX_INFO_LOAD(&info[i], PMIX_CONNECT_ID, a[i], PMIX_STRING);
		if (PMIx_Connect_nb(procs, 2, &info[i], 1, nb_cb, (void *)i) != PMIX_SUCCESS)
			nb_st[i] = PMIX_ERROR, nb_left--;
	}
	for (int i = 0; i < 600 && nb_left > 0; i++)
		usleep(100000);
	printf("cn2 %u %s %s\n", me.rank, nb_left ? "HANG" : PMIx_Error_string(nb_st[0]),
	       nb_left ? "HANG" : PMIx_Error_string(nb_st[1]));
	return 2;
}

static int do_dc(void)
{
	pmix_proc_t procs[2];

	pair(procs, NULL);
	show("dc", PMIx_Disconnect(procs, 2, NULL, 0));
	return 0;
}

static int do_qcn(char **a)
{
	pmix_proc_t procs[2];

	pair(procs, a[0]);
	printf("qcn %u %s %s\n", me.rank, a[0], PMIx_Error_string(PMIx_Connect(procs, 2, NULL, 0)));
	return 1;
}

static int do_cnkill(void)
{
	pmix_proc_t procs[2];
	double t0 = now();

	pair(procs, NULL);
	if (me.rank == 0) { /* dies while everybody else waits for it */
		sleep(1);
		raise(SIGKILL);
	}
	nb_left = 1;
	if (PMIx_Connect_nb(procs, 2, NULL, 0, nb_cb, (void *)0) != PMIX_SUCCESS)
		return show("cnkill", PMIX_ERROR), 0;
	for (int i = 0; i < 900 && nb_left > 0; i++)
		usleep(100000);
	printf("cnkill %u %s %.1f\n", me.rank, nb_left ? "HANG" : PMIx_Error_string(nb_st[0]),
	       now() - t0);
	return 0;
}

static volatile int term_count;
static char term_src[PMIX_MAX_NSLEN + 1] = "-";

static void term_hdl(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *res, size_t nres,
		     pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
	(void)id, (void)info, (void)ninfo, (void)res, (void)nres;
	if (st == PMIX_ERR_INVALID_TERMINATION && src) {
		snprintf(term_src, sizeof(term_src), "%s", src->nspace);
		__atomic_add_fetch(&term_count, 1, __ATOMIC_SEQ_CST);
	}
	if (cb)
		cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int do_regterm(void)
{
	pmix_status_t code = PMIX_ERR_INVALID_TERMINATION;

	PMIx_Register_event_handler(&code, 1, NULL, 0, term_hdl, NULL, NULL);
	return 0;
}

static int do_waitterm(char **a)
{
	for (int i = 0; i < atoi(a[0]) * 10 && term_count < 2; i++)
		usleep(100000);
	printf("term %u %d %s\n", me.rank, term_count, term_src);
	return 1;
}

static volatile int ev_each, ev_req, ev_disc;
static char ev_src[256];

static void ev_hdl(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
		   size_t ninfo, pmix_info_t *res, size_t nres,
		   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
	size_t len = strlen(ev_src);

	(void)id, (void)info, (void)ninfo, (void)res, (void)nres;
	if (src && len + 16 < sizeof(ev_src))
		snprintf(ev_src + len, sizeof(ev_src) - len, " %c%c%u",
			 st == PMIX_CONNECT_REQUESTED        ? 'r' :
			 st == SLURMIX_PROC_HAS_DISCONNECTED ? 'd' :
							       'e',
			 PMIx_Check_nspace(src->nspace, me.nspace) ? 's' : 'x', src->rank);
	if (st == PMIX_PROC_HAS_CONNECTED)
		__atomic_add_fetch(&ev_each, 1, __ATOMIC_SEQ_CST);
	else if (st == PMIX_CONNECT_REQUESTED)
		__atomic_add_fetch(&ev_req, 1, __ATOMIC_SEQ_CST);
	else if (st == SLURMIX_PROC_HAS_DISCONNECTED)
		__atomic_add_fetch(&ev_disc, 1, __ATOMIC_SEQ_CST);
	if (cb)
		cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int do_regev(void)
{
	pmix_status_t codes[3] = { PMIX_PROC_HAS_CONNECTED, PMIX_CONNECT_REQUESTED,
				   SLURMIX_PROC_HAS_DISCONNECTED };

	PMIx_Register_event_handler(codes, 3, NULL, 0, ev_hdl, NULL, NULL);
	return 0;
}

/* Loads PMIX_TIMEOUT=tmo and the flags of f into info; how many. */
static size_t cn_info(pmix_info_t *info, int tmo, const char *f)
{
	bool yes = true;
	size_t n = 0;

	PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &tmo, PMIX_INT);
	if (strchr(f, 'e'))
		PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_NOTIFY_EACH, &yes, PMIX_BOOL);
	if (strchr(f, 'r'))
		PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_NOTIFY_REQ, &yes, PMIX_BOOL);
	if (strchr(f, 'o'))
		PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_OPTIONAL, &yes, PMIX_BOOL);
	return n;
}

/* cnf / dcf: PMIx_Connect or PMIx_Disconnect with the flags of a[1]. */
static int do_cnf(char **a, bool dc)
{
	pmix_proc_t procs[2];
	pmix_info_t info[4];
	double t0 = now();
	size_t n = cn_info(info, atoi(a[0]), a[1]);
	pmix_status_t rc;

	pair(procs, NULL);
	rc = dc ? PMIx_Disconnect(procs, 2, info, n) : PMIx_Connect(procs, 2, info, n);
	printf("%s %u %s %.1f\n", dc ? "dcf" : "cnf", me.rank, PMIx_Error_string(rc), now() - t0);
	return 2;
}

static int do_waitdc(char **a)
{
	double t0 = now();
	const char *src;

	for (int i = 0; i < atoi(a[1]) * 20 && ev_disc < atoi(a[0]); i++)
		usleep(50000);
	usleep(300000);             /* a surplus would show */
	src = strstr(ev_src, " d"); /* the disconnects come after the connects */
	printf("dev %u disc=%d %.1f%s\n", me.rank, ev_disc, now() - t0, src ? src : "");
	return 2;
}

static int do_waitev(char **a)
{
	double t0 = now();

	for (int i = 0; i < atoi(a[2]) * 20 && (ev_each < atoi(a[0]) || ev_req < atoi(a[1])); i++)
		usleep(50000);
	usleep(300000); /* a surplus would show */
	printf("ev %u each=%d req=%d %.1f%s\n", me.rank, ev_each, ev_req, now() - t0, ev_src);
	return 3;
}

static int do_cnopt(char **a)
{
	pmix_proc_t procs[2];
	pmix_info_t info[4];
	double t0 = now();

	pair(procs, NULL);
	if (!strcmp(a[0], "all") || me.rank == (pmix_rank_t)atoi(a[0])) { /* dies before joining */
		sleep(1);
		raise(SIGKILL);
	}
	nb_left = 1;
	if (PMIx_Connect_nb(procs, 2, info, cn_info(info, atoi(a[1]), "o"), nb_cb, (void *)0) !=
	    PMIX_SUCCESS)
		return show("cnopt", PMIX_ERROR), 2;
	for (int i = 0; i < 600 && nb_left > 0; i++)
		usleep(50000);
	printf("cnopt %u %s %.1f\n", me.rank, nb_left ? "HANG" : PMIx_Error_string(nb_st[0]),
	       now() - t0);
	return 2;
}

/* A string value of proc's key (info: one flag or none), or NULL. */
static char *get_str(const pmix_proc_t *p, const char *key, const char *flag)
{
	pmix_value_t *v = NULL;
	pmix_info_t info;
	bool yes = true;
	char *s = NULL;

	if (flag)
		PMIX_INFO_LOAD(&info, flag, &yes, PMIX_BOOL);
	if (PMIx_Get(p, key, flag ? &info : NULL, flag ? 1 : 0, &v) == PMIX_SUCCESS && v &&
	    v->type == PMIX_STRING && v->data.string)
		s = strdup(v->data.string);
	if (v)
		PMIx_Value_free(v, 1);
	return s;
}

static void post_str(const char *key, const char *s)
{
	pmix_value_t val;

	PMIX_VALUE_LOAD(&val, s ? s : "-", PMIX_STRING);
	PMIx_Put(PMIX_GLOBAL, key, &val);
	PMIX_VALUE_DESTRUCT(&val);
}

/* 2 when registered and posted agree, 1 when both are absent, 0 else. */
static int same(char *reg, char *posted)
{
	int ok = !posted ? 0 : !strcmp(posted, "-") ? !reg : reg && !strcmp(reg, posted) ? 2 : 0;

	free(reg);
	free(posted);
	return ok;
}

static const char *verdict(uint32_t n, int all)
{
	return !n || !all ? "bad" : all == 2 ? "ok" : "none";
}

static int do_xloc(void)
{
	pmix_proc_t procs[2], p;
	pmix_value_t *v = NULL;
	pmix_info_t opt;
	bool yes = true;
	char *host = get_str(&me, PMIX_HOSTNAME, NULL), *loc, *peers, want[1024] = "";
	int hok = 2, lok = 2, k;
	uint32_t n = 0, local_data = 0;

	post_str("dyn.hname", host);
	loc = get_str(&me, PMIX_LOCALITY_STRING, NULL);
	post_str("dyn.loc", loc);
	free(loc);
	PMIx_Commit();
	pair(procs, NULL);
	show("xlcn", PMIx_Connect(procs, 2, NULL, 0));
	PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	if (PMIx_Get(&procs[1], PMIX_JOB_SIZE, &opt, 1, &v) == PMIX_SUCCESS && v) {
		n = v->data.uint32;
		PMIx_Value_free(v, 1);
	}
	peers = get_str(&procs[1], PMIX_LOCAL_PEERS, PMIX_OPTIONAL);
	for (uint32_t r = 0; r < n && r < 64; r++) {
		char *ph;
		bool here;

		PMIx_Load_procid(&p, other_ns, r);
		/* the connect brought the other job's posted data along:
		 * an OPTIONAL Get (never asks the server) finds it */
		ph = get_str(&p, "dyn.hname", PMIX_OPTIONAL);
		local_data += ph != NULL;
		if (!ph)
			ph = get_str(&p, "dyn.hname", NULL);
		here = host && ph && !strcmp(host, ph);
		if (here)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%u",
				 want[0] ? "," : "", r);
		k = same(get_str(&p, PMIX_HOSTNAME, PMIX_OPTIONAL), ph); /* frees ph */
		hok = k < hok ? k : hok;
		/* a locality string says where a proc runs on the asker's
		 * node: only those of the same node must agree */
		if (here) {
			k = same(get_str(&p, PMIX_LOCALITY_STRING, PMIX_IMMEDIATE),
				 get_str(&p, "dyn.loc", NULL));
			lok = k < lok ? k : lok;
		}
	}
	printf("xloc %u %u peers=%s want=%s host=%s loc=%s data=%s\n", me.rank, n,
	       peers ? peers : "-", want[0] ? want : "-", verdict(n, hok), verdict(n, lok),
	       n && local_data == n && n <= 64 ? "local" : "fetched");
	free(peers);
	free(host);
	show("xldc", PMIx_Disconnect(procs, 2, NULL, 0));
	return 0;
}

static int do_getto(char **a)
{
	pmix_proc_t who;
	pmix_info_t info;
	pmix_value_t *v = NULL, val;
	int tmo = atoi(a[2]);
	double t0 = now();
	pmix_status_t rc;

	if (me.rank == (pmix_rank_t)atoi(a[0])) { /* commits late or never */
		if (atoi(a[3]) <= 0)
			return sleep((unsigned)tmo + 2), 4;
		sleep((unsigned)atoi(a[3]));
		PMIX_VALUE_LOAD(&val, "late", PMIX_STRING);
		PMIx_Put(PMIX_GLOBAL, a[1], &val);
		PMIx_Commit();
		return sleep(3), 4;
	}
	PMIx_Load_procid(&who, me.nspace, (pmix_rank_t)atoi(a[0]));
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &tmo, PMIX_INT);
	rc = PMIx_Get(&who, a[1], &info, 1, &v);
	printf("getto %u %s %.1f %s\n", me.rank, PMIx_Error_string(rc), now() - t0,
	       rc == PMIX_SUCCESS && v && v->type == PMIX_STRING ? v->data.string : "-");
	return 4;
}

int main(int argc, char **argv)
{
	int i = 1, all = argc > 1 && !strcmp(argv[1], "all");
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS) {
		printf("init %s\n", PMIx_Error_string(rc));
		return 1;
	}
	i += all;
	while ((all || me.rank == 0) && i < argc) {
		char *c = argv[i++];

		if (!strcmp(c, "pub") && i + 4 <= argc)
			i += do_pub(&argv[i]);
		else if (!strcmp(c, "look") && i + 3 <= argc)
			i += do_look(&argv[i]);
		else if (!strcmp(c, "unpub") && i + 1 <= argc)
			i += do_unpub(&argv[i]);
		else if (!strcmp(c, "xconn") && i + 2 <= argc)
			i += do_xconn(&argv[i]);
		else if (!strcmp(c, "xfind") && i + 2 <= argc)
			i += do_xfind(&argv[i]);
		else if (!strcmp(c, "cn") && i + 3 <= argc)
			i += do_cn(&argv[i]);
		else if (!strcmp(c, "cn2") && i + 2 <= argc)
			i += do_cn2(&argv[i]);
		else if (!strcmp(c, "dc"))
			i += do_dc();
		else if (!strcmp(c, "qcn") && i + 1 <= argc)
			i += do_qcn(&argv[i]);
		else if (!strcmp(c, "regterm"))
			i += do_regterm();
		else if (!strcmp(c, "waitterm") && i + 1 <= argc)
			i += do_waitterm(&argv[i]);
		else if (!strcmp(c, "regev"))
			i += do_regev();
		else if (!strcmp(c, "fence"))
			show("fence", PMIx_Fence(NULL, 0, NULL, 0));
		else if (!strcmp(c, "cnf") && i + 2 <= argc)
			i += do_cnf(&argv[i], false);
		else if (!strcmp(c, "waitev") && i + 3 <= argc)
			i += do_waitev(&argv[i]);
		else if (!strcmp(c, "dcf") && i + 2 <= argc)
			i += do_cnf(&argv[i], true);
		else if (!strcmp(c, "waitdc") && i + 2 <= argc)
			i += do_waitdc(&argv[i]);
		else if (!strcmp(c, "cnopt") && i + 2 <= argc)
			i += do_cnopt(&argv[i]);
		else if (!strcmp(c, "getto") && i + 4 <= argc)
			i += do_getto(&argv[i]);
		else if (!strcmp(c, "xloc"))
			i += do_xloc();
		else if (!strcmp(c, "cnkill"))
			i += do_cnkill();
		else if (!strcmp(c, "sleep") && i + 1 <= argc)
			sleep((unsigned)atoi(argv[i++]));
		else
			return printf("bad command %s\n", c), 2;
		fflush(stdout);
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
