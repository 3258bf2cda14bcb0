/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_jobctl.c - PMIx_Job_control from a task, for the management suite
 * (run_mgmt_tests.sh, docs/jobctl.md). Every rank puts its pid and fences;
 * rank 0 then acts on rank T (the last rank unless given), and every rank
 * fences again before it ends (unless killed).
 *
 *   pmix_jobctl signal [T]   SIGNAL SIGUSR1 to T: T prints "rank T got
 *                            signal 10"; rank 0 "signal STATUS"; any other
 *                            rank the signal reached says so too
 *   pmix_jobctl pause [T]    PAUSE T, T's state from /proc/<pid>/stat
 *                            ("paused state C"), RESUME T ("resumed state C")
 *   pmix_jobctl term [T]     T ignores SIGTERM; TERMINATE T (SIGTERM, and
 *                            SIGKILL after Slurm's KillWait): rank 0 prints
 *                            "term STATUS", T dies of SIGKILL
 *   pmix_jobctl kill [T]     KILL T
 *   pmix_jobctl waitsig SECS every rank waits that long for SIGUSR1 (from
 *                            another step) and prints "rank R got signal
 *                            10" or "rank R no signal"; no fences
 *   pmix_jobctl signal-ns NS R
 *                            rank 0 sends SIGUSR1 to rank R of namespace NS
 *                            (another step of the allocation), prints
 *                            "signal-ns STATUS"
 *   pmix_jobctl refuse       rank 0 prints the status of: PREEMPTIBLE,
 *                            a required unknown directive, two actions, a
 *                            target of another job, of a step of this job
 *                            that does not exist, a rank out of range, no
 *                            action ("refuse WHAT STATUS")
 *
 * The pid of T comes from a PMIx_Get (this test's cluster runs every node
 * on one host, so /proc shows T's state from rank 0's node). Exits 1 when
 * PMIx does not start.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;
static volatile sig_atomic_t got;

static void on_sig(int s)
{
	got = s;
}

static pmix_status_t ctl(pmix_rank_t t, const char *key, const void *val, pmix_data_type_t type,
			 const pmix_info_t *more)
{
	pmix_proc_t target;
	pmix_info_t dirs[2];
	size_t nd = 0;
	pmix_status_t st;

	PMIX_LOAD_PROCID(&target, me.nspace, t);
	PMIX_INFO_LOAD(&dirs[nd++], key, val, type);
	if (more)
		dirs[nd++] = *more;
	st = PMIx_Job_control(&target, 1, dirs, nd, NULL, NULL);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	return st;
}

static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static void refuse(void)
{
	bool yes = true;
	int sig = SIGUSR1;
	pmix_proc_t other;
	pmix_info_t dirs[2], extra;
	pmix_status_t st;

	printf("refuse preemptible %s\n",
	       PMIx_Error_string(ctl(1, PMIX_JOB_CTRL_PREEMPTIBLE, &yes, PMIX_BOOL, NULL)));
	PMIX_INFO_LOAD(&extra, "slurmix.no.such.directive", &yes, PMIX_BOOL);
	extra.flags |= PMIX_INFO_REQD;
	printf("refuse required %s\n",
	       PMIx_Error_string(ctl(1, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT, &extra)));
	PMIX_INFO_LOAD(&extra, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
	printf("refuse two %s\n",
	       PMIx_Error_string(ctl(1, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT, &extra)));
	PMIX_LOAD_PROCID(&other, "slurmix.999999.0", 0);
	PMIX_INFO_LOAD(&dirs[0], PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
	st = PMIx_Job_control(&other, 1, dirs, 1, NULL, NULL);
	printf("refuse other-nspace %s\n", PMIx_Error_string(st));
	{
		char ns[PMIX_MAX_NSLEN + 1], *dot;

		snprintf(ns, sizeof(ns), "%s", me.nspace);
		if ((dot = strrchr(ns, '.')))
			snprintf(dot, sizeof(ns) - (size_t)(dot - ns), ".777");
		PMIX_LOAD_PROCID(&other, ns, 0);
		st = PMIx_Job_control(&other, 1, dirs, 1, NULL, NULL);
		printf("refuse no-such-step %s\n", PMIx_Error_string(st));
	}
	printf("refuse rank %s\n",
	       PMIx_Error_string(ctl(99999, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT, NULL)));
	PMIX_INFO_LOAD(&dirs[0], PMIX_JOB_CTRL_ID, "just an id", PMIX_STRING);
	st = PMIx_Job_control(NULL, 0, dirs, 1, NULL, NULL);
	printf("refuse none %s\n", PMIx_Error_string(st));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pmix_proc_t all, tp;
	pmix_value_t v, *pv = NULL;
	pmix_rank_t t;
	uint32_t size = 0;
	pid_t tpid = 0;
	bool yes = true;
	int sig = SIGUSR1;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (!strcmp(mode, "waitsig")) {
		signal(SIGUSR1, on_sig);
		printf("rank %u waiting\n", me.rank);
		fflush(stdout);
		for (int i = 0; i < (argc > 2 ? atoi(argv[2]) : 10) * 20 && !got; i++)
			usleep(50000);
		if (got)
			printf("rank %u got signal %d\n", me.rank, (int)got);
		else
			printf("rank %u no signal\n", me.rank);
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	if (!strcmp(mode, "signal-ns") && argc > 3) {
		if (me.rank == 0) {
			pmix_proc_t other;
			pmix_info_t d;
			int s = SIGUSR1;

			PMIX_LOAD_PROCID(&other, argv[2], (pmix_rank_t)atoi(argv[3]));
			PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_SIGNAL, &s, PMIX_INT);
			printf("signal-ns %s\n",
			       PMIx_Error_string(PMIx_Job_control(&other, 1, &d, 1, NULL, NULL)));
			PMIX_INFO_DESTRUCT(&d);
		}
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &pv) == PMIX_SUCCESS && pv) {
		size = pv->data.uint32;
		PMIX_VALUE_RELEASE(pv);
	}
	t = argc > 2 ? (pmix_rank_t)atoi(argv[2]) : size - 1;
	signal(SIGUSR1, on_sig);
	if (me.rank == t && !strcmp(mode, "term"))
		signal(SIGTERM, SIG_IGN);
	v.type = PMIX_INT32;
	v.data.int32 = (int32_t)getpid();
	PMIx_Put(PMIX_GLOBAL, "test.pid", &v);
	PMIx_Commit();
	{
		pmix_info_t collect;

		PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
		PMIx_Fence(&all, 1, &collect, 1);
	}
	PMIX_LOAD_PROCID(&tp, me.nspace, t);
	if (PMIx_Get(&tp, "test.pid", NULL, 0, &pv) == PMIX_SUCCESS && pv) {
		tpid = pv->data.int32;
		PMIX_VALUE_RELEASE(pv);
	}
	if (me.rank == 0) {
		if (!strcmp(mode, "signal")) {
			printf("signal %s\n", PMIx_Error_string(ctl(t, PMIX_JOB_CTRL_SIGNAL, &sig,
								    PMIX_INT, NULL)));
		} else if (!strcmp(mode, "pause")) {
			printf("pause %s\n", PMIx_Error_string(ctl(t, PMIX_JOB_CTRL_PAUSE, &yes,
								   PMIX_BOOL, NULL)));
			usleep(300000);
			printf("paused state %c\n", state_of(tpid));
			printf("resume %s\n", PMIx_Error_string(ctl(t, PMIX_JOB_CTRL_RESUME, &yes,
								    PMIX_BOOL, NULL)));
			usleep(300000);
			printf("resumed state %c\n", state_of(tpid));
		} else if (!strcmp(mode, "term")) {
			printf("term %s\n", PMIx_Error_string(ctl(t, PMIX_JOB_CTRL_TERMINATE, &yes,
								  PMIX_BOOL, NULL)));
		} else if (!strcmp(mode, "kill")) {
			printf("kill %s\n", PMIx_Error_string(ctl(t, PMIX_JOB_CTRL_KILL, &yes,
								  PMIX_BOOL, NULL)));
		} else if (!strcmp(mode, "refuse")) {
			refuse();
		}
		fflush(stdout);
	}
	if (me.rank == t && (!strcmp(mode, "term") || !strcmp(mode, "kill"))) {
		for (int i = 0; i < 300; i++) /* 30 s: killed long before */
			usleep(100000);
		printf("rank %u still alive\n", me.rank);
		return 0;
	}
	if (me.rank == t && !strcmp(mode, "signal")) {
		for (int i = 0; i < 100 && !got; i++)
			usleep(50000);
		printf("rank %u got signal %d\n", me.rank, (int)got);
	}
	if (strcmp(mode, "term") && strcmp(mode, "kill"))
		PMIx_Fence(&all, 1, NULL, 0);
	if (me.rank != t && got) /* a signal for another rank reached this one */
		printf("rank %u got signal %d\n", me.rank, (int)got);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
