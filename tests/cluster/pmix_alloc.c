/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_alloc.c - PMIx_Allocation_request from a task, for the management
 * suite (run_mgmt_tests.sh, docs/alloc.md). Rank 0 acts, every rank
 * fences at start and at the end.
 *
 *   pmix_alloc extend          EXTEND of time, then of nodes: "extend
 *                              STATUS MS" (milliseconds the call took)
 *   pmix_alloc release-time S  RELEASE S seconds: "release-time STATUS
 *                              pmix.alloc.time=T" (the new limit, s)
 *   pmix_alloc release-nodes N RELEASE N nodes: "release-nodes STATUS
 *                              pmix.alloc.nlist=L pmix.alloc.nnodes=K"
 *   pmix_alloc release-list L  RELEASE the nodes of host list L, the same
 *   pmix_alloc new N TMO Q L [spawn] [release] [spawn-early] [long] [limit]
 *                              NEW of N nodes (0: none given), PMIX_TIMEOUT
 *                              TMO, queue Q and node list L ("-": none),
 *                              PMIX_ALLOC_REQ_ID "req-7": "new STATUS
 *                              id=ID reqid=R"; then the event (waited for
 *                              TMO + 20 s at most): "event CODE id=ID
 *                              reqid=R nodes=L nnodes=K text=T", CODE
 *                              ALLOC_COMPLETE or JOB_ALLOC_FAILED; with
 *                              spawn, PMIx_Spawn of "pmix_alloc child" into
 *                              it ("spawn STATUS NSPACE"); with release, a
 *                              RELEASE of it ("release-new STATUS", then
 *                              "after-release :IDS", what squeue still
 *                              shows of it pending or running); with
 *                              spawn-early, that spawn right after the
 *                              id, before the event; with long,
 *                              PMIX_ALLOC_TIME of 10 hours; with limit,
 *                              "new-limit TimeLimit=T" (scontrol's) after
 *                              the event
 *   pmix_alloc flood K L       K PMIx_Allocation_request_nb NEW of node
 *                              list L at once (PMIX_TIMEOUT 3): "flood
 *                              ok=A full=B other=C" (SUCCESS,
 *                              OUT_OF_RESOURCE, else), then "flood-events
 *                              E" (events within 30 s)
 *   pmix_alloc child           a spawned one: "child NSPACE rank R job J"
 *                              (SLURM_JOB_ID) once PMIx_Init succeeded,
 *                              "child-steps :STEPS" (squeue's of job J)
 *   pmix_alloc broken          "broken WHAT STATUS" for bad requests
 *
 * STATUS is PMIx_Error_string's. Exits 1 when PMIx does not start.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char event_line[1024];
static char new_id[32];
static pmix_status_t event_code;
static int nevents, nflood, flood_ok, flood_full, flood_other;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *sval(const pmix_info_t *info, size_t n, const char *key, char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (!PMIx_Check_key(info[i].key, key))
			continue;
		if (info[i].value.type == PMIX_STRING)
			return info[i].value.data.string;
		if (info[i].value.type == PMIX_UINT32) {
			snprintf(buf, len, "%u", info[i].value.data.uint32);
			return buf;
		}
	}
	return "";
}

static void on_event(size_t id, pmix_status_t code, const pmix_proc_t *src, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	char b[16];

	(void)id, (void)src, (void)results, (void)nresults;
	pthread_mutex_lock(&lock);
	snprintf(event_line, sizeof(event_line),
		 "event %s id=%s reqid=%s nodes=%s nnodes=%s text=%s",
		 code == PMIX_NOTIFY_ALLOC_COMPLETE ? "ALLOC_COMPLETE" :
		 code == PMIX_ERR_JOB_ALLOC_FAILED  ? "JOB_ALLOC_FAILED" :
						      PMIx_Error_string(code),
		 sval(info, ninfo, PMIX_ALLOC_ID, b, sizeof(b)),
		 sval(info, ninfo, PMIX_ALLOC_REQ_ID, b, sizeof(b)),
		 sval(info, ninfo, PMIX_ALLOC_NODE_LIST, b, sizeof(b)),
		 sval(info, ninfo, PMIX_ALLOC_NUM_NODES, b, sizeof(b)),
		 sval(info, ninfo, PMIX_EVENT_TEXT_MESSAGE, b, sizeof(b)));
	event_code = code;
	nevents++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static pmix_status_t req(pmix_alloc_directive_t d, pmix_info_t *in, size_t n, pmix_info_t **res,
			 size_t *nres)
{
	pmix_status_t st = PMIx_Allocation_request(d, in, n, res, nres);

	for (size_t i = 0; i < n; i++)
		PMIX_INFO_DESTRUCT(&in[i]);
	return st;
}

static void extend(void)
{
	pmix_info_t in[1];
	uint32_t t = 600;
	uint64_t nodes = 1;
	double t0 = now_ms();
	pmix_status_t st;

	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_TIME, &t, PMIX_UINT32);
	st = req(PMIX_ALLOC_EXTEND, in, 1, NULL, NULL);
	printf("extend %s %.0f\n", PMIx_Error_string(st), now_ms() - t0);
	t0 = now_ms();
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NUM_NODES, &nodes, PMIX_UINT64);
	st = req(PMIX_ALLOC_EXTEND, in, 1, NULL, NULL);
	printf("extend %s %.0f\n", PMIx_Error_string(st), now_ms() - t0);
}

static void release(const char *what, const char *key, const void *v, pmix_data_type_t t)
{
	pmix_info_t in[1], *res = NULL;
	size_t nres = 0;
	pmix_status_t st;
	char b1[16], b2[16], b3[16];

	PMIX_INFO_LOAD(&in[0], key, v, t);
	st = req(PMIX_ALLOC_RELEASE, in, 1, &res, &nres);
	printf("%s %s pmix.alloc.time=%s pmix.alloc.nlist=%s pmix.alloc.nnodes=%s\n", what,
	       PMIx_Error_string(st), sval(res, nres, PMIX_ALLOC_TIME, b1, sizeof(b1)),
	       sval(res, nres, PMIX_ALLOC_NODE_LIST, b2, sizeof(b2)),
	       sval(res, nres, PMIX_ALLOC_NUM_NODES, b3, sizeof(b3)));
	if (res)
		PMIx_Info_free(res, nres);
}

static void spawn_into(void)
{
	pmix_app_t app;
	pmix_info_t ji;
	char *argv[] = { "./pmix_alloc", "child", NULL }, ns[PMIX_MAX_NSLEN + 1] = "";
	pmix_status_t st;

	PMIX_APP_CONSTRUCT(&app);
	app.cmd = strdup("./pmix_alloc");
	app.argv = PMIx_Argv_copy(argv);
	app.maxprocs = 1;
	PMIX_INFO_LOAD(&ji, PMIX_ALLOC_ID, new_id, PMIX_STRING);
	st = PMIx_Spawn(&ji, 1, &app, 1, ns);
	printf("spawn %s %s\n", PMIx_Error_string(st), ns);
	PMIX_INFO_DESTRUCT(&ji);
	PMIX_APP_DESTRUCT(&app);
}

/* The first line of what the shell command cmd prints (in line, len
 * bytes), or "". */
static void first_line(const char *cmd, char *line, size_t len)
{
	FILE *f = popen(cmd, "r");

	line[0] = '\0';
	if (f) {
		if (!fgets(line, (int)len, f))
			line[0] = '\0';
		pclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
}

/* What squeue prints for args (its lines joined), or "". */
static void squeue_line(const char *what, const char *args)
{
	char cmd[256], line[256];

	snprintf(cmd, sizeof(cmd), "squeue -h %s 2>/dev/null | paste -sd,", args);
	first_line(cmd, line, sizeof(line));
	printf("%s :%s\n", what, line);
}

static void release_new(void)
{
	pmix_info_t in[1];
	char args[64];

	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_ID, new_id, PMIX_STRING);
	printf("release-new %s\n", PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	snprintf(args, sizeof(args), "-t PD,R -j %s -o %%i", new_id);
	squeue_line("after-release", args);
}

/* "new-limit TimeLimit=T" of job id, as scontrol shows it. */
static void show_limit(const char *id)
{
	char cmd[128], line[128];

	snprintf(cmd, sizeof(cmd), "scontrol show job %s | grep -o 'TimeLimit=[^ ]*'", id);
	first_line(cmd, line, sizeof(line));
	printf("new-limit %s\n", line);
}

static void wait_event(int secs)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += secs;
	pthread_mutex_lock(&lock);
	while (!event_line[0] && pthread_cond_timedwait(&cond, &lock, &dl) == 0)
		;
	printf("%s\n", event_line[0] ? event_line : "event none");
	pthread_mutex_unlock(&lock);
}

static void new_alloc(int argc, char **argv)
{
	pmix_status_t codes[] = { PMIX_NOTIFY_ALLOC_COMPLETE, PMIX_ERR_JOB_ALLOC_FAILED };
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
	int tmo = argc > 3 ? atoi(argv[3]) : 10;
	pmix_info_t in[6], *res = NULL;
	size_t k = 0, nres = 0;
	pmix_status_t st;
	char b[16];
	bool spawn = false, rel = false, early = false, lng = false, limit = false;
	uint32_t ten_hours = 36000;

	for (int i = 6; i < argc; i++) {
		spawn |= !strcmp(argv[i], "spawn");
		rel |= !strcmp(argv[i], "release");
		early |= !strcmp(argv[i], "spawn-early");
		lng |= !strcmp(argv[i], "long");
		limit |= !strcmp(argv[i], "limit");
	}
	if (lng)
		PMIX_INFO_LOAD(&in[k++], PMIX_ALLOC_TIME, &ten_hours, PMIX_UINT32);
	PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
	if (n)
		PMIX_INFO_LOAD(&in[k++], PMIX_ALLOC_NUM_NODES, &n, PMIX_UINT64);
	PMIX_INFO_LOAD(&in[k++], PMIX_TIMEOUT, &tmo, PMIX_INT);
	PMIX_INFO_LOAD(&in[k++], PMIX_ALLOC_REQ_ID, "req-7", PMIX_STRING);
	if (argc > 4 && strcmp(argv[4], "-"))
		PMIX_INFO_LOAD(&in[k++], PMIX_ALLOC_QUEUE, argv[4], PMIX_STRING);
	if (argc > 5 && strcmp(argv[5], "-"))
		PMIX_INFO_LOAD(&in[k++], PMIX_ALLOC_NODE_LIST, argv[5], PMIX_STRING);
	st = req(PMIX_ALLOC_NEW, in, k, &res, &nres);
	snprintf(new_id, sizeof(new_id), "%s", sval(res, nres, PMIX_ALLOC_ID, b, sizeof(b)));
	printf("new %s id=%s reqid=%s\n", PMIx_Error_string(st), new_id,
	       sval(res, nres, PMIX_ALLOC_REQ_ID, b, sizeof(b)));
	fflush(stdout);
	if (res)
		PMIx_Info_free(res, nres);
	if (st != PMIX_SUCCESS)
		return;
	if (early)
		spawn_into();
	wait_event(tmo + 20);
	if (limit)
		show_limit(new_id);
	fflush(stdout);
	if (spawn && event_code == PMIX_NOTIFY_ALLOC_COMPLETE)
		spawn_into();
	fflush(stdout);
	if (rel)
		release_new();
}

static void flooded(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *cbdata,
		    pmix_release_cbfunc_t rel, void *relcbdata)
{
	(void)info, (void)ninfo, (void)cbdata;
	pthread_mutex_lock(&lock);
	flood_ok += st == PMIX_SUCCESS;
	flood_full += st == PMIX_ERR_OUT_OF_RESOURCE;
	flood_other += st != PMIX_SUCCESS && st != PMIX_ERR_OUT_OF_RESOURCE;
	nflood++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	if (rel)
		rel(relcbdata);
}

/* k NEW requests at once: the step daemon takes so many per client. */
static void flood(int k, const char *list)
{
	pmix_status_t codes[] = { PMIX_NOTIFY_ALLOC_COMPLETE, PMIX_ERR_JOB_ALLOC_FAILED };
	pmix_info_t in[2];
	int tmo = 3;
	struct timespec dl;

	PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
	PMIX_INFO_LOAD(&in[0], PMIX_TIMEOUT, &tmo, PMIX_INT);
	PMIX_INFO_LOAD(&in[1], PMIX_ALLOC_NODE_LIST, list, PMIX_STRING);
	for (int i = 0; i < k; i++) {
		pmix_status_t st = PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, in, 2, flooded, NULL);

		if (st != PMIX_SUCCESS)
			flooded(st, NULL, 0, NULL, NULL, NULL);
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 30;
	pthread_mutex_lock(&lock);
	while (nflood < k && pthread_cond_timedwait(&cond, &lock, &dl) == 0)
		;
	printf("flood ok=%d full=%d other=%d\n", flood_ok, flood_full, flood_other);
	while (nevents < flood_ok && pthread_cond_timedwait(&cond, &lock, &dl) == 0)
		;
	printf("flood-events %d\n", nevents);
	pthread_mutex_unlock(&lock);
	PMIX_INFO_DESTRUCT(&in[0]);
	PMIX_INFO_DESTRUCT(&in[1]);
}

/* Each bad request alone. */
static void broken(void)
{
	pmix_info_t in[2];
	uint64_t one = 1;
	uint32_t big = 99999;

	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NUM_NODES, "2", PMIX_STRING);
	printf("broken nodes-string %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_NEW, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_TIME, &big, PMIX_UINT32);
	printf("broken directive %s\n", PMIx_Error_string(req(77, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_TIME, &big, PMIX_UINT32);
	printf("broken reaquire %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_REAQUIRE, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_TIME, &big, PMIX_UINT32);
	printf("broken external %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_EXTERNAL, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
	PMIX_INFO_LOAD(&in[1], PMIX_ALLOC_MEM_SIZE, &(float){ 1.0f }, PMIX_FLOAT);
	PMIX_INFO_REQUIRED(&in[1]);
	printf("broken required %s\n", PMIx_Error_string(req(PMIX_ALLOC_NEW, in, 2, NULL, NULL)));
	printf("broken nothing %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, NULL, 0, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_ID, "999999", PMIX_STRING);
	printf("broken other-job %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NODE_LIST, getenv("SLURMD_NODENAME"), PMIX_STRING);
	printf("broken own-node %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NODE_LIST, "vn99", PMIX_STRING);
	printf("broken not-ours %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_TIME, &(uint32_t){ 30 }, PMIX_UINT32);
	printf("broken under-a-minute %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	/* counted, never expanded: more names than the job has */
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NODE_LIST, "vn[1-60000],x[1-60000]", PMIX_STRING);
	printf("broken huge-list %s\n",
	       PMIx_Error_string(req(PMIX_ALLOC_RELEASE, in, 1, NULL, NULL)));
	snprintf(new_id, sizeof(new_id), "999999");
	spawn_into(); /* an allocation this step did not obtain */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (!strcmp(mode, "child")) {
		char args[64];

		printf("child %s rank %u job %s\n", me.nspace, me.rank,
		       getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "?");
		snprintf(args, sizeof(args), "-s -j %s -o %%i",
			 getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "0");
		squeue_line("child-steps", args);
		return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
	}
	PMIx_Fence(NULL, 0, NULL, 0);
	if (me.rank == 0) {
		uint32_t v = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
		uint64_t n = v;

		if (!strcmp(mode, "extend"))
			extend();
		else if (!strcmp(mode, "release-time"))
			release(mode, PMIX_ALLOC_TIME, &v, PMIX_UINT32);
		else if (!strcmp(mode, "release-nodes"))
			release(mode, PMIX_ALLOC_NUM_NODES, &n, PMIX_UINT64);
		else if (!strcmp(mode, "release-list"))
			release(mode, PMIX_ALLOC_NODE_LIST, argc > 2 ? argv[2] : "", PMIX_STRING);
		else if (!strcmp(mode, "new"))
			new_alloc(argc, argv);
		else if (!strcmp(mode, "broken"))
			broken();
		else if (!strcmp(mode, "flood"))
			flood((int)v, argc > 3 ? argv[3] : "");
		else
			rc = 2;
	}
	PMIx_Fence(NULL, 0, NULL, 0);
	PMIx_Finalize(NULL, 0);
	return rc;
}
