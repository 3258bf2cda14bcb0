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
 *   pmix_jobctl pausev       (4 ranks) ranks 1 and 3 register for
 *                            PMIX_JCTRL_PREEMPT_ALERT: rank 1's handler
 *                            answers after 1 s, having left a mark file;
 *                            rank 3's never answers. Rank 0 pauses 1, 2
 *                            (no handler) and 3 (PMIX_TIMEOUT 4: a 2 s
 *                            wait) in turn: "pausev R STATUS waited
 *                            W mark M state C" (W: "long" for 0.8 s or
 *                            more, else "short"; M: yes/no), and resumes
 *                            each ("resumed R state C")
 *   pmix_jobctl ckpt         (4 ranks) rank 1 registers the event method
 *                            and a PMIX_JCTRL_CHECKPOINT handler (prints
 *                            "rank 1 checkpoint ID"), rank 2 the signal
 *                            method (SIGUSR2: "rank 2 checkpoint signal
 *                            12"), rank 3 none; rank 0 prints "ckpt WHAT
 *                            STATUS" for: 1 and 2, 3, and broken
 *                            registrations of its own
 *   pmix_jobctl cancel       (4 ranks) rank 3 ignores SIGTERM and has a
 *                            silent alert handler; rank 0: TERMINATE 3
 *                            labelled t1, CANCEL t1 ("cancel term
 *                            STATUS"), again ("cancel again STATUS");
 *                            a PAUSE of 3 labelled p1 through _nb, CANCEL
 *                            p1 ("cancel pause STATUS", "pause answered
 *                            STATUS"); 4 s later rank 3 is alive and not
 *                            stopped ("rank 3 state C")
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

static void on_alert(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t results[], size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	bool pause = false;
	char mark[64];
	FILE *f;

	(void)id, (void)status, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_CTRL_PAUSE))
			pause = info[i].value.data.flag;
	if (me.rank != 1 || !pause)
		return; /* never answers */
	sleep(1);
	snprintf(mark, sizeof(mark), "jc_mark.%s",
		 getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "x");
	if ((f = fopen(mark, "w")))
		fclose(f);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_ckpt(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t results[], size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_CTRL_CHECKPOINT) &&
		    info[i].value.type == PMIX_STRING)
			printf("rank %u checkpoint %s\n", me.rank, info[i].value.data.string);
	fflush(stdout);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void handle(pmix_status_t code, pmix_notification_fn_t fn)
{
	PMIx_Register_event_handler(&code, 1, NULL, 0, fn, NULL, NULL);
}

/* Registers this rank's checkpoint method: the event (sig 0) or sig. */
static pmix_status_t ckpt_method(bool event, int sig, pmix_rank_t target)
{
	pmix_info_t m[2], d;
	pmix_data_array_t da = { .type = PMIX_INFO, .size = 0, .array = m };
	pmix_proc_t t;
	pmix_status_t st;

	if (event)
		PMIX_INFO_LOAD(&m[da.size++], PMIX_JOB_CTRL_CHECKPOINT_EVENT, &event, PMIX_BOOL);
	if (sig)
		PMIX_INFO_LOAD(&m[da.size++], PMIX_JOB_CTRL_CHECKPOINT_SIGNAL, &sig, PMIX_INT);
	if (!event && !sig) /* broken: a method we do not know */
		PMIX_INFO_LOAD(&m[da.size++], "slurmix.no.such.method", &sig, PMIX_INT);
	PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_CHECKPOINT_METHOD, &da, PMIX_DATA_ARRAY);
	PMIX_LOAD_PROCID(&t, me.nspace, target);
	st = PMIx_Job_control(&t, 1, &d, 1, NULL, NULL);
	free(d.value.data.darray); /* (the infos are m's) */
	return st;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t pid_of(pmix_rank_t r)
{
	pmix_proc_t p;
	pmix_value_t *pv = NULL;
	pid_t pid = 0;

	PMIX_LOAD_PROCID(&p, me.nspace, r);
	if (PMIx_Get(&p, "test.pid", NULL, 0, &pv) == PMIX_SUCCESS && pv) {
		pid = pv->data.int32;
		PMIX_VALUE_RELEASE(pv);
	}
	return pid;
}

static void pausev(void)
{
	char mark[64];
	bool yes = true;
	int secs = 4;

	snprintf(mark, sizeof(mark), "jc_mark.%s",
		 getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "x");
	for (pmix_rank_t r = 1; r <= 3; r++) {
		pmix_info_t tmo;
		double t0 = now_s(), waited;
		pmix_status_t st;
		bool marked;
		char state;

		PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &secs, PMIX_INT);
		st = ctl(r, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL, r == 3 ? &tmo : NULL);
		waited = now_s() - t0;
		marked = access(mark, F_OK) == 0;
		/* the stop is a signal: the target shows it once it took it */
		state = state_of(pid_of(r));
		for (int i = 0; i < 40 && state != 'T'; i++) {
			usleep(50000);
			state = state_of(pid_of(r));
		}
		printf("pausev %u %s waited %s mark %s state %c\n", r, PMIx_Error_string(st),
		       waited >= 0.8 ? "long" : "short", marked ? "yes" : "no", state);
		unlink(mark);
		ctl(r, PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL, NULL);
		usleep(200000);
		printf("resumed %u state %c\n", r, state_of(pid_of(r)));
	}
}

static void ckpt(void)
{
	pmix_proc_t t[2];
	pmix_info_t d;
	pmix_status_t st;

	PMIX_LOAD_PROCID(&t[0], me.nspace, 1);
	PMIX_LOAD_PROCID(&t[1], me.nspace, 2);
	PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_CHECKPOINT, "ck1", PMIX_STRING);
	st = PMIx_Job_control(t, 2, &d, 1, NULL, NULL);
	printf("ckpt methods %s\n", PMIx_Error_string(st));
	PMIX_LOAD_PROCID(&t[0], me.nspace, 3);
	st = PMIx_Job_control(t, 1, &d, 1, NULL, NULL);
	printf("ckpt none %s\n", PMIx_Error_string(st));
	PMIX_INFO_DESTRUCT(&d);
	printf("ckpt bad-method %s\n", PMIx_Error_string(ckpt_method(false, 0, 0)));
	printf("ckpt other-target %s\n", PMIx_Error_string(ckpt_method(true, 0, 1)));
	printf("ckpt bad-signal %s\n", PMIx_Error_string(ckpt_method(false, 99999, 0)));
}

static volatile int nb_done;
static pmix_status_t nb_st;

static void nb_cb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
		  pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
	(void)info, (void)ninfo, (void)cbdata;
	nb_st = st;
	nb_done = 1;
	if (release_fn)
		release_fn(release_cbdata);
}

static void cancel(void)
{
	pmix_proc_t t;
	pmix_info_t d[2], c;
	bool yes = true;
	pmix_status_t st;

	PMIX_LOAD_PROCID(&t, me.nspace, 3);
	PMIX_INFO_LOAD(&d[0], PMIX_JOB_CTRL_TERMINATE, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&d[1], PMIX_JOB_CTRL_ID, "t1", PMIX_STRING);
	st = PMIx_Job_control(&t, 1, d, 2, NULL, NULL);
	printf("cancel terminate %s\n", PMIx_Error_string(st));
	PMIX_INFO_LOAD(&c, PMIX_JOB_CTRL_CANCEL, "t1", PMIX_STRING);
	printf("cancel term %s\n", PMIx_Error_string(PMIx_Job_control(&t, 1, &c, 1, NULL, NULL)));
	printf("cancel again %s\n", PMIx_Error_string(PMIx_Job_control(&t, 1, &c, 1, NULL, NULL)));
	PMIX_INFO_DESTRUCT(&d[1]);
	PMIX_INFO_DESTRUCT(&c);
	PMIX_INFO_LOAD(&d[0], PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&d[1], PMIX_JOB_CTRL_ID, "p1", PMIX_STRING);
	st = PMIx_Job_control_nb(&t, 1, d, 2, nb_cb, NULL);
	usleep(500000); /* the pause waits for rank 3's silent handler */
	PMIX_INFO_LOAD(&c, PMIX_JOB_CTRL_CANCEL, "p1", PMIX_STRING);
	printf("cancel pause %s\n", PMIx_Error_string(PMIx_Job_control(&t, 1, &c, 1, NULL, NULL)));
	for (int i = 0; i < 100 && !nb_done; i++)
		usleep(50000);
	printf("pause answered %s\n", nb_done ? PMIx_Error_string(nb_st) : "never");
	PMIX_INFO_DESTRUCT(&d[1]);
	PMIX_INFO_DESTRUCT(&c);
	sleep(4); /* past KillWait (3 s) and the pause's wait */
	printf("rank 3 state %c\n", state_of(pid_of(3)));
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
	PMIX_INFO_LOAD(&extra, PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT, &sig, PMIX_INT);
	printf("refuse ckpt-timeout-alone %s\n",
	       PMIx_Error_string(ctl(1, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT, &extra)));
	PMIX_INFO_LOAD(&extra, PMIX_JOB_CTRL_CANCEL, "x", PMIX_STRING);
	printf("refuse cancel-twice %s\n",
	       PMIx_Error_string(ctl(1, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL, &extra)));
	PMIX_INFO_DESTRUCT(&extra);
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
	if (!strcmp(mode, "pausev") && (me.rank == 1 || me.rank == 3))
		handle(PMIX_JCTRL_PREEMPT_ALERT, on_alert);
	if (!strcmp(mode, "cancel") && me.rank == 3) {
		signal(SIGTERM, SIG_IGN);
		handle(PMIX_JCTRL_PREEMPT_ALERT, on_alert);
	}
	if (!strcmp(mode, "ckpt") && me.rank == 1) {
		handle(PMIX_JCTRL_CHECKPOINT, on_ckpt);
		printf("rank 1 method %s\n", PMIx_Error_string(ckpt_method(true, 0, 1)));
	}
	if (!strcmp(mode, "ckpt") && me.rank == 2) {
		signal(SIGUSR2, on_sig);
		printf("rank 2 method %s\n", PMIx_Error_string(ckpt_method(false, SIGUSR2, 2)));
	}
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
		} else if (!strcmp(mode, "pausev")) {
			pausev();
		} else if (!strcmp(mode, "ckpt")) {
			ckpt();
		} else if (!strcmp(mode, "cancel")) {
			cancel();
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
	if (!strcmp(mode, "ckpt") && me.rank == 2 && got)
		printf("rank 2 checkpoint signal %d\n", (int)got);
	else if (me.rank != t && got) /* a signal for another rank reached this one */
		printf("rank %u got signal %d\n", me.rank, (int)got);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
