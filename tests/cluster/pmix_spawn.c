/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_spawn.c - PMIx_Spawn on the virtual cluster (run_cluster_tests.sh).
 * Rank 0 of the parent job spawns, the others wait in a final fence.
 *
 *   pmix_spawn basic N       spawn N children ("child" mode) across nodes;
 *                            each prints CHILD rank/size/nspace,
 *                            PMIX_SPAWNED, PMIX_PARENT_ID and its host
 *   pmix_spawn nested N      the children's rank 0 spawns N grandchildren
 *   pmix_spawn mpmd          two apps (2 + 1 procs) in one spawn
 *   pmix_spawn hostileenv    2 children whose app env sets a huge
 *                            SLURMIX_PARENT_NODES and a broken
 *                            SLURMIX_PARENT_MAP: the spawn still works
 *   pmix_spawn missing       a command that does not exist: error
 *   pmix_spawn badhost       PMIX_HOST outside the allocation: error
 *   pmix_spawn reqd          an unknown attribute marked required: error
 *   pmix_spawn timeout S     children that never call PMIx_Init, with
 *                            PMIX_TIMEOUT=S: error after about S seconds
 *   pmix_spawn notify        PMIX_NOTIFY_COMPLETION: the JOB_END event
 *   pmix_spawn nb N          PMIx_Spawn_nb
 *   pmix_spawn nonpmi        PMIX_NON_PMI: /bin/sleep 1, ready once forked
 *   pmix_spawn cwd           PMIX_SET_SESSION_CWD: children print their cwd
 *   pmix_spawn indexargv     PMIX_INDEX_ARGV: 3 children with one argument
 *                            "x" each print "ARGV rank R argc N last L"
 *                            (their rank appended: argc 4, last R)
 *   pmix_spawn info          the parent and 2 children hold each other's
 *                            job information: rank 0 prints "PINFO spawned
 *                            size N optional <status>" (PMIX_OPTIONAL: its
 *                            own store, no request), each child "CINFO
 *                            parent size N optional <status>"; once the
 *                            children ended (PMIX_NOTIFY_COMPLETION), rank
 *                            0 "PINFO ended size N <status> <seconds>" and
 *                            every other parent rank, told the child's
 *                            nspace, "PINFO rank R ended size N <status>
 *                            <seconds>"
 *   pmix_spawn infogone      the other parent ranks finalize and exit
 *                            at once (their step daemons end); a second
 *                            later rank 0 spawns 2 children, one on each
 *                            node, which print "CINFO parent size N
 *                            optional <status>" as for info: the child
 *                            where the parent's stepd is gone has it too
 *   pmix_spawn ended NS      no spawn: rank 0 asks for the job size of NS,
 *                            a step that ended, which nobody kept:
 *                            "ENDED <status> <seconds>"
 *   pmix_spawn killparent    PMIx_Spawn_nb of children that never start,
 *                            then rank 0 kills itself (SIGKILL) while the
 *                            spawn is pending: the step and the spawn end
 * Prints "SPAWN <status> <nspace> <seconds>" per spawn and OK at the end
 * (rank 0), and exits 0 when everything went as expected. Every child
 * prints "AUTOGROUP child <rank> nice <n>", the spawning rank "AUTOGROUP
 * parent nice <n>" (its autogroup's nice value, sched(7)).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

/* This process's autogroup nice value (sched(7)), or 99 without one. */
static int autogroup_nice(void)
{
	FILE *f = fopen("/proc/self/autogroup", "r");
	int nice = 99;

	if (f) {
		if (fscanf(f, "%*s nice %d", &nice) != 1)
			nice = 99;
		fclose(f);
	}
	return nice;
}

static pmix_proc_t me;
static char self[1024];
static volatile int job_ended;
static char ended_ns[PMIX_MAX_NSLEN + 1];
static int ended_code = -1;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Spawns app(s); returns the status; prints one SPAWN line. */
static pmix_status_t spawn(pmix_info_t *info, size_t ninfo, pmix_app_t *apps, size_t napps,
			   char *ns)
{
	double t0 = now();
	pmix_status_t rc = PMIx_Spawn(info, ninfo, apps, napps, ns);

	printf("SPAWN %s %s %.2f\n", PMIx_Error_string(rc), rc == PMIX_SUCCESS ? ns : "-",
	       now() - t0);
	printf("AUTOGROUP parent nice %d\n", autogroup_nice());
	fflush(stdout);
	return rc;
}

static void set_app(pmix_app_t *a, const char *cmd, int n, const char *mode, const char *arg)
{
	PMIx_App_construct(a);
	a->cmd = strdup(cmd);
	PMIx_Argv_append_nosize(&a->argv, cmd);
	if (mode)
		PMIx_Argv_append_nosize(&a->argv, mode);
	if (arg)
		PMIx_Argv_append_nosize(&a->argv, arg);
	a->maxprocs = n;
	a->cwd = getcwd(NULL, 0);
}

/* The job size of nspace: PMIX_OPTIONAL (the store only) or asked. */
static uint32_t size_of(const char *nspace, bool optional, pmix_status_t *st, double *secs)
{
	pmix_info_t opt;
	pmix_value_t *v = NULL;
	pmix_proc_t wild;
	uint32_t size = 0;
	bool yes = true;
	double t0 = now();

	PMIx_Load_procid(&wild, nspace, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	*st = PMIx_Get(&wild, PMIX_JOB_SIZE, optional ? &opt : NULL, optional ? 1 : 0, &v);
	*secs = now() - t0;
	if (*st == PMIX_SUCCESS && v && v->type == PMIX_UINT32)
		size = v->data.uint32;
	if (v)
		PMIx_Value_free(v, 1);
	PMIx_Info_destruct(&opt);
	return size;
}

static int child(const char *mode, const char *arg)
{
	pmix_value_t *v = NULL;
	pmix_proc_t wild;
	bool spawned = false;
	char parent[300] = "none", host[256] = "?";
	uint32_t size = 0;

	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_SPAWNED, NULL, 0, &v) == PMIX_SUCCESS && v) {
		spawned = v->type == PMIX_BOOL && v->data.flag;
		PMIx_Value_free(v, 1);
	}
	if (PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS && v) {
		if (v->type == PMIX_PROC)
			snprintf(parent, sizeof(parent), "%s:%u", v->data.proc->nspace,
				 v->data.proc->rank);
		PMIx_Value_free(v, 1);
	}
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v) {
		size = v->data.uint32;
		PMIx_Value_free(v, 1);
	}
	gethostname(host, sizeof(host));
	if (!strcmp(mode, "childinfo")) {
		pmix_status_t st = PMIX_ERR_NOT_FOUND;
		double secs;
		uint32_t psize = 0;

		if (strcmp(parent, "none")) {
			*strrchr(parent, ':') = 0;
			psize = size_of(parent, true, &st, &secs);
		}
		printf("CINFO parent size %u optional %s\n", psize, PMIx_Error_string(st));
		fflush(stdout);
		return st != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "child") && getenv("SPAWN_SHOW_CWD")) {
		char cwd[1024] = "?";

		printf("CWD %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		printf("TASKENV parent='%s' spawned='%s'\n",
		       getenv("SLURMIX_PARENT") ? getenv("SLURMIX_PARENT") : "(unset)",
		       getenv("SLURMIX_SPAWNED") ? getenv("SLURMIX_SPAWNED") : "(unset)");
	}
	printf("CHILD %s rank %u of %u ns %s spawned %d parent %s host %s app %s\n", mode, me.rank,
	       size, me.nspace, spawned, parent, host,
	       getenv("SPAWN_APP") ? getenv("SPAWN_APP") : "first");
	printf("AUTOGROUP child %u nice %d\n", me.rank, autogroup_nice());
	fflush(stdout);
	if (!strcmp(mode, "childspawn") && me.rank == 0) {
		pmix_app_t app;
		char ns[PMIX_MAX_NSLEN + 1];

		set_app(&app, self, atoi(arg), "child", NULL);
		if (spawn(NULL, 0, &app, 1, ns) != PMIX_SUCCESS)
			return 1;
		PMIx_App_destruct(&app);
	}
	return spawned ? 0 : 1;
}

static void on_end(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
		   size_t ninfo, pmix_info_t *res, size_t nres,
		   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
	(void)id, (void)st, (void)res, (void)nres;
	snprintf(ended_ns, sizeof(ended_ns), "%s", src ? src->nspace : "?");
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EXIT_CODE))
			ended_code = info[i].value.data.integer;
	job_ended = 1;
	if (cb)
		cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static volatile int nb_done;
static pmix_status_t nb_status;
static char nb_ns[PMIX_MAX_NSLEN + 1];

static void nb_cb(pmix_status_t st, pmix_nspace_t ns, void *cbdata)
{
	(void)cbdata;
	nb_status = st;
	snprintf(nb_ns, sizeof(nb_ns), "%s", ns ? ns : "");
	nb_done = 1;
}

/* Rank 0 of the parent. Returns 0 when the outcome is the expected one. */
static int parent(const char *mode, const char *arg)
{
	pmix_app_t apps[2];
	pmix_info_t *info = NULL;
	char ns[PMIX_MAX_NSLEN + 1];
	pmix_status_t rc;
	int n = arg ? atoi(arg) : 4;
	bool yes = true;

	if (!strcmp(mode, "basic") || !strcmp(mode, "nested")) {
		set_app(&apps[0], self, n, !strcmp(mode, "basic") ? "child" : "childspawn",
			!strcmp(mode, "basic") ? NULL : "2");
		return spawn(NULL, 0, apps, 1, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "nb")) {
		set_app(&apps[0], self, n, "child", NULL);
		if (PMIx_Spawn_nb(NULL, 0, apps, 1, nb_cb, NULL) != PMIX_SUCCESS)
			return 1;
		for (int i = 0; i < 6000 && !nb_done; i++)
			usleep(10000);
		printf("SPAWN_NB %s %s\n", PMIx_Error_string(nb_status), nb_ns);
		return !nb_done || nb_status != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "mpmd")) {
		set_app(&apps[0], self, 2, "child", NULL);
		set_app(&apps[1], self, 1, "child", NULL);
		PMIx_Argv_append_nosize(&apps[1].env, "SPAWN_APP=second");
		return spawn(NULL, 0, apps, 2, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "hostileenv")) { /* the app's env overrides the parent's map */
		set_app(&apps[0], self, 2, "child", NULL);
		PMIx_Argv_append_nosize(&apps[0].env,
					"SLURMIX_PARENT_NODES=vn[1-65000],vm[1-65000]");
		PMIx_Argv_append_nosize(&apps[0].env, "SLURMIX_PARENT_MAP=1;2;garbage");
		return spawn(NULL, 0, apps, 1, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "missing")) {
		set_app(&apps[0], "/nonexistent/no_such_program", 2, NULL, NULL);
		return spawn(NULL, 0, apps, 1, ns) == PMIX_SUCCESS;
	}
	if (!strcmp(mode, "badhost") || !strcmp(mode, "reqd")) {
		set_app(&apps[0], self, 2, "child", NULL);
		info = PMIx_Info_create(1);
		if (!strcmp(mode, "badhost"))
			PMIx_Info_load(&info[0], PMIX_HOST, "vn1,vnNOPE", PMIX_STRING);
		else
			PMIx_Info_load(&info[0], "slurmix.test.unknown", &yes, PMIX_BOOL);
		info[0].flags |= PMIX_INFO_REQD;
		rc = spawn(info, 1, apps, 1, ns);
		return !strcmp(mode, "reqd") ? rc != PMIX_ERR_NOT_SUPPORTED : rc == PMIX_SUCCESS;
	}
	if (!strcmp(mode, "nonpmi")) { /* a program that is no PMIx client */
		set_app(&apps[0], "/bin/sleep", 2, "1", NULL);
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], "pmix.nonpmi", &yes, PMIX_BOOL);
		return spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "cwd")) {
		set_app(&apps[0], self, 2, "child", NULL);
		PMIx_Argv_append_nosize(&apps[0].env, "SPAWN_SHOW_CWD=1");
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_SET_SESSION_CWD, &yes, PMIX_BOOL);
		return spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "indexargv")) {
		set_app(&apps[0], self, 3, "child", "x");
		PMIx_Argv_append_nosize(&apps[0].env, "SPAWN_SHOW_ARGV=1");
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_INDEX_ARGV, &yes, PMIX_BOOL);
		return spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS;
	}
	if (!strcmp(mode, "timeout")) {
		set_app(&apps[0], "/bin/sleep", 2, "600", NULL);
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_TIMEOUT, &n, PMIX_INT);
		rc = spawn(info, 1, apps, 1, ns);
		return rc == PMIX_SUCCESS;
	}
	if (!strcmp(mode, "killparent")) {
		set_app(&apps[0], "/bin/sleep", 2, "600", NULL);
		if (PMIx_Spawn_nb(NULL, 0, apps, 1, nb_cb, NULL) != PMIX_SUCCESS)
			return 1;
		sleep(3); /* the child srun is starting its step */
		printf("KILLING %d\n", nb_done);
		fflush(stdout);
		raise(SIGKILL);
		return 1;
	}
	if (!strcmp(mode, "info")) {
		pmix_status_t code = PMIX_EVENT_JOB_END, st;
		pmix_value_t val = { .type = PMIX_STRING };
		uint32_t size;
		double secs;

		PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
		set_app(&apps[0], self, 2, "childinfo", NULL);
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
		if (spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS)
			return 1;
		size = size_of(ns, true, &st, &secs);
		printf("PINFO spawned size %u optional %s\n", size, PMIx_Error_string(st));
		for (int i = 0; i < 3000 && !job_ended; i++)
			usleep(10000);
		usleep(500000); /* the children's step daemons are gone */
		size = size_of(ns, false, &st, &secs);
		printf("PINFO ended size %u %s %.3f\n", size, PMIx_Error_string(st), secs);
		fflush(stdout);
		val.data.string = ns;
		PMIx_Put(PMIX_GLOBAL, "test.child.ns", &val);
		PMIx_Commit();
		return !job_ended;
	}
	if (!strcmp(mode, "infogone")) {
		pmix_status_t code = PMIX_EVENT_JOB_END;

		PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
		sleep(1); /* the other ranks and their nodes' step daemons are gone */
		set_app(&apps[0], self, 2, "childinfo", NULL);
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
		if (spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS)
			return 1;
		for (int i = 0; i < 3000 && !job_ended; i++)
			usleep(10000);
		return !job_ended;
	}
	if (!strcmp(mode, "ended") && arg) {
		pmix_status_t st;
		double secs;

		size_of(arg, false, &st, &secs);
		printf("ENDED %s %.3f\n", PMIx_Error_string(st), secs);
		return st != PMIX_ERR_NOT_FOUND;
	}
	if (!strcmp(mode, "notify")) {
		pmix_status_t code = PMIX_EVENT_JOB_END;

		PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
		set_app(&apps[0], self, 2, "child", NULL);
		info = PMIx_Info_create(1);
		PMIx_Info_load(&info[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
		if (spawn(info, 1, apps, 1, ns) != PMIX_SUCCESS)
			return 1;
		for (int i = 0; i < 3000 && !job_ended; i++)
			usleep(10000);
		printf("JOB_END %d %s code %d\n", job_ended, ended_ns, ended_code);
		return !job_ended || strcmp(ended_ns, ns);
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 1;
}

int main(int argc, char **argv)
{
	pmix_proc_t wild;
	int bad = 0;

	if (argc < 2)
		return fprintf(stderr, "usage: %s MODE [ARG]\n", argv[0]), 2;
	if (!realpath(argv[0], self))
		snprintf(self, sizeof(self), "%s", argv[0]);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return printf("INIT_FAILED\n"), 1;
	if (!strcmp(argv[1], "child") || !strcmp(argv[1], "childspawn") ||
	    !strcmp(argv[1], "childinfo")) {
		if (getenv("SPAWN_SHOW_ARGV")) {
			printf("ARGV rank %u argc %d last %s\n", me.rank, argc, argv[argc - 1]);
			fflush(stdout);
		}
		bad = child(argv[1], argc > 2 ? argv[2] : NULL);
		PMIx_Finalize(NULL, 0);
		return bad;
	}
	if (!strcmp(argv[1], "infogone")) { /* no final fence: the others go at once */
		bad = me.rank == 0 ? parent(argv[1], NULL) : 0;
		if (me.rank == 0 && !bad)
			printf("OK\n");
		PMIx_Finalize(NULL, 0);
		return bad;
	}
	if (me.rank == 0)
		bad = parent(argv[1], argc > 2 ? argv[2] : NULL);
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		bad = 1;
	if (!strcmp(argv[1], "info") && me.rank != 0) { /* the ended child, from elsewhere */
		pmix_proc_t zero;
		pmix_value_t *v = NULL;
		pmix_status_t st = PMIX_ERR_NOT_FOUND;
		uint32_t size = 0;
		double secs = 0;

		PMIx_Load_procid(&zero, me.nspace, 0);
		if (PMIx_Get(&zero, "test.child.ns", NULL, 0, &v) == PMIX_SUCCESS && v &&
		    v->type == PMIX_STRING)
			size = size_of(v->data.string, false, &st, &secs);
		if (v)
			PMIx_Value_free(v, 1);
		printf("PINFO rank %u ended size %u %s %.3f\n", me.rank, size,
		       PMIx_Error_string(st), secs);
		fflush(stdout);
	}
	if (me.rank == 0 && !bad)
		printf("OK\n");
	PMIx_Finalize(NULL, 0);
	return bad;
}
