/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_monitor.c - PMIx_Process_monitor from a task, for the management
 * suite (run_mgmt_tests.sh, docs/monitor.md). Every rank registers one
 * handler for PMIX_MONITOR_HEARTBEAT_ALERT, PMIX_MONITOR_FILE_ALERT and
 * CUSTOM_CODE and fences; rank 0 then monitors itself, and every rank
 * prints the alerts it got ("rank R alert CODE src S id ID", or "rank R no
 * alert") before the last fence. Periods are 1 s.
 *
 *   pmix_monitor beats GAP DROPS N   heartbeat monitor "hb" (blocking
 *                            form), DROPS as given; rank 0 beats N times
 *                            every GAP seconds (PMIx_Heartbeat), prints
 *                            "rank 0 alerts while beating K", stops; every
 *                            rank waits up to 8 s more for the alert
 *   pmix_monitor cancel      monitors "c1" (default code) and "c2" (code
 *                            CUSTOM_CODE, the _nb form), DROPS 0; cancels
 *                            "c1" ("cancel c1 STATUS", by the _nb form) and
 *                            "nope" ("cancel nope STATUS"); everyone
 *                            waits 4 s: only c2 may fire
 *   pmix_monitor file PATH   rank 0 creates PATH and monitors its size
 *                            (check 1 s, DROPS 1, id "file"); appends every
 *                            0.3 s for 3.5 s ("rank 0 alerts while growing
 *                            K"), then stops; the others wait up to 8 s
 *   pmix_monitor refuse PATH rank 0 prints "refuse WHAT STATUS" for a
 *                            relative path, PATH (not the caller's), a zero
 *                            period, an unknown cancel id
 *
 * Exits 1 when PMIx does not start.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#define CUSTOM_CODE (-12001)
#define MAX_ALERTS 16

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	pmix_status_t code;
	pmix_rank_t src;
	char id[32];
} alerts[MAX_ALERTS];
static int nalerts;

static void on_alert(size_t hdlr, pmix_status_t status, const pmix_proc_t *source,
		     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)hdlr, (void)results, (void)nresults;
	pthread_mutex_lock(&lock);
	if (nalerts < MAX_ALERTS) {
		alerts[nalerts].code = status;
		alerts[nalerts].src = source ? source->rank : PMIX_RANK_UNDEF;
		snprintf(alerts[nalerts].id, sizeof(alerts[0].id), "-");
		for (size_t i = 0; i < ninfo; i++)
			if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_ID) &&
			    info[i].value.type == PMIX_STRING)
				snprintf(alerts[nalerts].id, sizeof(alerts[0].id), "%s",
					 info[i].value.data.string);
		nalerts++;
	}
	pthread_mutex_unlock(&lock);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int count(void)
{
	int n;

	pthread_mutex_lock(&lock);
	n = nalerts;
	pthread_mutex_unlock(&lock);
	return n;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Waits up to secs for the first alert (all of them when all is set). */
static void wait_alert(double secs, bool all)
{
	for (double t = 0; (all || count() == 0) && t < secs; t += 0.1)
		nap(0.1);
}

static void report(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nalerts; i++)
		printf("rank %u alert %d src %u id %s\n", me.rank, alerts[i].code, alerts[i].src,
		       alerts[i].id);
	if (!nalerts)
		printf("rank %u no alert\n", me.rank);
	pthread_mutex_unlock(&lock);
	fflush(stdout);
}

static pmix_status_t beat_monitor(const char *id, uint32_t drops, pmix_status_t code)
{
	pmix_info_t mon, dirs[3];
	uint32_t one = 1;
	pmix_status_t st;

	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
	PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &drops, PMIX_UINT32);
	PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_ID, id, PMIX_STRING);
	st = PMIx_Process_monitor(&mon, code, dirs, 3, NULL, NULL);
	PMIX_INFO_DESTRUCT(&dirs[2]);
	return st;
}

static int beats(double gap, uint32_t drops, int n)
{
	if (me.rank == 0) {
		if (beat_monitor("hb", drops, PMIX_SUCCESS) != PMIX_SUCCESS)
			return 2;
		for (int i = 0; i < n; i++) {
			nap(gap);
			PMIx_Heartbeat();
		}
		printf("rank 0 alerts while beating %d\n", count());
	}
	wait_alert(8 + (me.rank ? gap * n : 0), false);
	return 0;
}

/* The _nb forms' answers. */
static volatile int nb_done;
static volatile pmix_status_t nb_status;

static void nb_cb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
		  pmix_release_cbfunc_t rel, void *relcbdata)
{
	(void)info, (void)ninfo, (void)cbdata;
	nb_status = st;
	if (rel)
		rel(relcbdata);
	__atomic_store_n(&nb_done, 1, __ATOMIC_RELEASE);
}

static pmix_status_t nb_wait(pmix_status_t st)
{
	for (int i = 0;
	     st == PMIX_SUCCESS && !__atomic_load_n(&nb_done, __ATOMIC_ACQUIRE) && i < 100; i++)
		nap(0.05);
	if (st == PMIX_SUCCESS)
		st = nb_done ? nb_status : PMIX_ERR_TIMEOUT;
	nb_done = 0;
	return st;
}

static pmix_status_t cancel_nb(const char *id)
{
	pmix_info_t mon;
	pmix_status_t st;

	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
	st = nb_wait(PMIx_Process_monitor_nb(&mon, PMIX_SUCCESS, NULL, 0, nb_cb, NULL));
	PMIX_INFO_DESTRUCT(&mon);
	return st;
}

static int cancel(void)
{
	if (me.rank == 0) {
		pmix_info_t mon, dirs[3];
		uint32_t one = 1, zero = 0;

		if (beat_monitor("c1", 0, PMIX_SUCCESS) != PMIX_SUCCESS)
			return 2;
		PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
		PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
		PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &zero, PMIX_UINT32);
		PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_ID, "c2", PMIX_STRING);
		if (nb_wait(PMIx_Process_monitor_nb(&mon, CUSTOM_CODE, dirs, 3, nb_cb, NULL)) !=
		    PMIX_SUCCESS)
			return 2;
		PMIX_INFO_DESTRUCT(&dirs[2]);
		printf("cancel c1 %s\n", PMIx_Error_string(cancel_nb("c1")));
		printf("cancel nope %s\n", PMIx_Error_string(cancel_nb("nope")));
	}
	wait_alert(4, true);
	return 0;
}

static int file(const char *path)
{
	if (me.rank == 0) {
		pmix_info_t mon, dirs[4];
		uint32_t one = 1;
		bool yes = true;
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

		if (fd < 0)
			return 2;
		PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
		PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_FILE_SIZE, &yes, PMIX_BOOL);
		PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_FILE_CHECK_TIME, &one, PMIX_UINT32);
		PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_FILE_DROPS, &one, PMIX_UINT32);
		PMIX_INFO_LOAD(&dirs[3], PMIX_MONITOR_ID, "file", PMIX_STRING);
		if (PMIx_Process_monitor(&mon, PMIX_SUCCESS, dirs, 4, NULL, NULL) != PMIX_SUCCESS)
			return 2;
		for (int i = 0; i < 12; i++) {
			nap(0.3);
			if (write(fd, "x", 1) != 1)
				return 2;
		}
		close(fd);
		printf("rank 0 alerts while growing %d\n", count());
		PMIX_INFO_DESTRUCT(&mon);
		PMIX_INFO_DESTRUCT(&dirs[3]);
	}
	wait_alert(8, false);
	return 0;
}

static void refuse_one(const char *what, const pmix_info_t *mon, const pmix_info_t *dirs, size_t n)
{
	printf("refuse %s %s\n", what,
	       PMIx_Error_string(PMIx_Process_monitor(mon, PMIX_SUCCESS, dirs, n, NULL, NULL)));
}

static int refuse(const char *path)
{
	pmix_info_t mon, dirs[2];
	uint32_t one = 1, zero = 0;
	bool yes = true;

	if (me.rank != 0)
		return 0;
	PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_FILE_SIZE, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_FILE_CHECK_TIME, &one, PMIX_UINT32);
	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, "relative/file", PMIX_STRING);
	refuse_one("relative", &mon, dirs, 2);
	PMIX_INFO_DESTRUCT(&mon);
	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
	refuse_one("file", &mon, dirs, 2);
	PMIX_INFO_DESTRUCT(&mon);
	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_TIME, &zero, PMIX_UINT32);
	refuse_one("zero-period", &mon, &dirs[1], 1);
	PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, "nope", PMIX_STRING);
	refuse_one("unknown-cancel", &mon, NULL, 0);
	PMIX_INFO_DESTRUCT(&mon);
	return 0;
}

int main(int argc, char **argv)
{
	pmix_status_t codes[] = { PMIX_MONITOR_HEARTBEAT_ALERT, PMIX_MONITOR_FILE_ALERT,
				  CUSTOM_CODE };
	pmix_proc_t all;
	int rc = 2;

	if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Register_event_handler(codes, 3, NULL, 0, on_alert, NULL, NULL) < 0 ||
	    PMIx_Fence(&all, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (strcmp(argv[1], "beats") == 0 && argc == 5)
		rc = beats(atof(argv[2]), (uint32_t)atoi(argv[3]), atoi(argv[4]));
	else if (strcmp(argv[1], "cancel") == 0)
		rc = cancel();
	else if (strcmp(argv[1], "file") == 0 && argc == 3)
		rc = file(argv[2]);
	else if (strcmp(argv[1], "refuse") == 0 && argc == 3)
		rc = refuse(argv[2]);
	if (strcmp(argv[1], "refuse") != 0)
		report();
	PMIx_Fence(&all, 1, NULL, 0);
	PMIx_Finalize(NULL, 0);
	return rc;
}
