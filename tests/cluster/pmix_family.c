/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_family.c - failures between a spawned step and its parent
 * (run_spawn_tests.sh). Rank 0 of the parent spawns 2 children running
 * this program in a child mode; every process registers for
 * PMIX_ERR_PROC_TERM_WO_SYNC, _ABORTED_BY_SIG and _REQUESTED_ABORT first and
 * prints "GOT <who> <code> <nspace>:<rank> <delay>" (code: the number)
 * for each such event
 * about a proc of the other step (who: PARENT r or CHILD r; delay: seconds
 * since the failing process printed "FAILING <time>").
 *
 *   pmix_family childfail    child rank 1 exits 3 without finalizing; every
 *                            parent rank must get the event (10 s at
 *                            most), prints "PARENT r OK" and finishes
 *   pmix_family parentabort  parent rank 0 calls PMIx_Abort(9) for the
 *                            whole step once the children run; the
 *                            children must get the event, then
 *                            PMIX_EVENT_JOB_END ("JOBEND CHILD r
 *                            terminate=1 affected=<parent>:0"), and end
 *                            (not print "CHILD r ALIVE" 10 s later)
 *   pmix_family parentdeath  parent rank 1 kills itself (SIGKILL, -402); the
 *                            children must get the event and end
 *   pmix_family sep          as parentabort, spawned with
 *                            PMIX_SPAWN_CHILD_SEP: the children get the
 *                            event and stay ("CHILD r ALIVE" after 3 s)
 *   pmix_family abortchild   parent rank 0 calls PMIx_Abort(4) of child
 *                            rank 1 alone ("ABORTED <status>"): child 1
 *                            is aborted, child 0 gets the event ("OWN
 *                            CHILD 0 <code> <proc>"; srun's
 *                            --kill-on-bad-exit then ends it), every
 *                            parent rank gets the event and finishes
 *                            ("PARENT r OK")
 */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "pmix_slurmix.h"

static pmix_proc_t me;
static const char *who = "PARENT";
static volatile int got;
static const char *stamp_file;

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* The failing process writes its time to a file beside the program (all
 * virtual nodes see the same directory). */
static void failing(void)
{
	FILE *f = fopen(stamp_file, "w");

	if (f) {
		fprintf(f, "%.6f\n", now());
		fclose(f);
	}
	printf("FAILING %s %u\n", who, me.rank);
	fflush(stdout);
}

static double since_failure(void)
{
	FILE *f = fopen(stamp_file, "r");
	double t = 0;

	if (f) {
		if (fscanf(f, "%lf", &t) != 1)
			t = 0;
		fclose(f);
	}
	return t ? now() - t : -1;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const pmix_proc_t *aff = NULL;

	(void)id, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC)
			aff = info[i].value.data.proc;
	if (aff && PMIx_Check_nspace(aff->nspace, me.nspace) && aff->rank != me.rank) {
		printf("OWN %s %u %d %s:%u\n", who, me.rank, status, aff->nspace, aff->rank);
		fflush(stdout);
	}
	if (aff && source && !PMIx_Check_nspace(aff->nspace, me.nspace)) {
		printf("GOT %s %u %d %s:%u %.3f\n", who, me.rank, status, aff->nspace, aff->rank,
		       since_failure());
		fflush(stdout);
		/* a parent counts the failing child (rank 1); its other child
		 * may be ended after it (--kill-on-bad-exit) and told too */
		if (strcmp(who, "PARENT") || aff->rank == 1)
			got++;
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* A child's PMIX_EVENT_JOB_END (its step is about to end with its
 * parent's): "JOBEND CHILD r terminate=T affected=<nspace>:<rank>". */
static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		   size_t ninfo, pmix_info_t *results, size_t nresults,
		   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	const pmix_proc_t *aff = NULL;
	int term = 0;

	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC)
			aff = info[i].value.data.proc;
		else if (PMIx_Check_key(info[i].key, PMIX_EVENT_TERMINATE_JOB) &&
			 info[i].value.type == PMIX_BOOL)
			term = info[i].value.data.flag;
	if (status == PMIX_EVENT_JOB_END) {
		printf("JOBEND CHILD %u terminate=%d affected=%s:%u\n", me.rank, term,
		       aff ? aff->nspace : "?", aff ? aff->rank : 9999);
		fflush(stdout);
	}
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int child(const char *mode)
{
	pmix_status_t end = PMIX_EVENT_JOB_END;
	pmix_proc_t wild;

	who = "CHILD";
	if (PMIx_Register_event_handler(&end, 1, NULL, 0, on_end, NULL, NULL) < 0)
		return 3;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (!strcmp(mode, "childfail")) {
		if (me.rank == 1) {
			usleep(300000);
			failing();
			_exit(3);
		}
		sleep(2);
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	if (!strcmp(mode, "abortchild")) {
		sleep(me.rank == 1 ? 20 : 3); /* rank 1 is aborted meanwhile */
		printf("CHILD %u %s\n", me.rank, me.rank == 1 ? "SURVIVED" : "DONE");
		fflush(stdout);
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	/* the parent fails: wait for its event, then stay a while */
	for (int t = 0; !got && t < 1000; t++)
		usleep(10000);
	sleep(!strcmp(mode, "sep") ? 3 : 10);
	printf("CHILD %u ALIVE\n", me.rank);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}

static int parent(const char *mode, const char *self)
{
	pmix_proc_t wild;
	pmix_app_t app;
	pmix_info_t sep;
	bool yes = true;
	char ns[PMIX_MAX_NSLEN + 1] = "";
	pmix_status_t st = PMIX_SUCCESS;

	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (me.rank == 0) {
		char *argv[] = { (char *)self, "child", (char *)mode, NULL };

		memset(&app, 0, sizeof(app));
		app.cmd = (char *)self;
		app.argv = argv;
		app.maxprocs = 2;
		PMIx_Info_load(&sep, PMIX_SPAWN_CHILD_SEP, &yes, PMIX_BOOL);
		st = PMIx_Spawn(&sep, !strcmp(mode, "sep") ? 1 : 0, &app, 1, ns);
		printf("SPAWN %s %s\n", PMIx_Error_string(st), ns);
		fflush(stdout);
		app.cmd = NULL;
		app.argv = NULL;
	}
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS || st != PMIX_SUCCESS)
		return 3;
	if (!strcmp(mode, "abortchild") && me.rank == 0) {
		pmix_proc_t one;

		sleep(1); /* the children run */
		PMIx_Load_procid(&one, ns, 1);
		failing();
		st = PMIx_Abort(4, "the parent aborts child 1", &one, 1);
		printf("ABORTED %s\n", PMIx_Error_string(st));
		fflush(stdout);
	}
	if (!strcmp(mode, "childfail") || !strcmp(mode, "abortchild")) {
		for (int t = 0; !got && t < 1000; t++)
			usleep(10000);
		printf("PARENT %u %s\n", me.rank, got == 1 ? "OK" : "WRONG");
		fflush(stdout);
		PMIx_Fence(&wild, 1, NULL, 0);
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	sleep(1); /* the children run and listen */
	if (me.rank == 0 && strcmp(mode, "parentdeath")) {
		failing();
		PMIx_Abort(9, "the parent aborts", NULL, 0);
	} else if (me.rank == 1 && !strcmp(mode, "parentdeath")) {
		failing();
		kill(getpid(), SIGKILL);
	} else if (!strcmp(mode, "parentdeath")) {
		sleep(3); /* the survivor finishes */
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	sleep(30);
	return 0;
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = { PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_REQUESTED_ABORT,
				  PMIX_ERR_PROC_ABORTED_BY_SIG };
	static char file[4096];
	const char *mode;

	if (argc < 2)
		return 2;
	mode = !strcmp(argv[1], "child") && argc > 2 ? argv[2] : argv[1];
	snprintf(file, sizeof(file), "%s.failed", argv[0]);
	stamp_file = file;
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 2;
	if (PMIx_Register_event_handler(codes, 3, NULL, 0, on_event, NULL, NULL) < 0)
		return 3;
	return !strcmp(argv[1], "child") ? child(mode) : parent(mode, argv[0]);
}
