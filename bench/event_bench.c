/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_bench.c - how long a PMIx event takes from one process to another,
 * and how many a process can send, under srun (bench/event_bench.sh).
 *
 * Rank 0 plays ping-pong with a peer: it notifies PING with range CUSTOM
 * naming the peer, whose handler notifies PONG back; rank 0 times each
 * round trip and reports half of it. The peer is rank 1 (the same node
 * under a block layout of two or more tasks per node) and the last rank
 * (another node). Then rank 0 sends BURST events to the last rank without
 * waiting for each, and the last rank answers once it has them all: the
 * events per second. Every wait is bounded (WAIT_MS); a phase that times
 * out is reported as "failed". Rank 0 prints "metric NAME VALUE" lines
 * (the format bench_table.py reads) and "info lib <path>".
 * Usage: event_bench [ROUNDS [BURST]]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PING (PMIX_EXTERNAL_ERR_BASE - 11)
#define PONG (PMIX_EXTERNAL_ERR_BASE - 12)
#define DONE (PMIX_EXTERNAL_ERR_BASE - 13)
#define WAIT_MS 10000

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long pongs, pings, dones, burst_want;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Notifies code to proc alone (range CUSTOM). cb NULL: waits for it. */
static pmix_status_t tell(pmix_status_t code, const pmix_proc_t *to, pmix_op_cbfunc_t cb)
{
	pmix_info_t info;
	pmix_data_array_t da = { .type = PMIX_PROC, .size = 1, .array = (void *)to };
	pmix_status_t st;

	PMIx_Info_load(&info, PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	st = PMIx_Notify_event(code, &me, PMIX_RANGE_CUSTOM, &info, 1, cb, NULL);
	return st;
}

static void bump(long *v)
{
	pthread_mutex_lock(&lock);
	++*v;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* Waits until *v >= want, WAIT_MS at most. 0, or -1 on timeout. */
static int wait_for(long *v, long want)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&lock);
	while (*v < want && rc == 0)
		rc = pthread_cond_timedwait(&cond, &lock, &ts);
	rc = *v >= want ? 0 : -1;
	pthread_mutex_unlock(&lock);
	return rc;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == PING) {
		bump(&pings);
		if (!burst_want && source)
			tell(PONG, source, NULL);
		else if (burst_want && pings == burst_want && source)
			tell(DONE, source, NULL);
	} else if (status == PONG) {
		bump(&pongs);
	} else if (status == DONE) {
		bump(&dones);
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Rank 0: rounds of ping-pong with peer; median and p99 of half the round
 * trip, or -1 when a round timed out. */
static void pingpong(const pmix_proc_t *peer, int rounds, double *med, double *p99)
{
	double *t = calloc((size_t)rounds, sizeof(*t)), t0;

	*med = *p99 = -1;
	for (int i = 0; t && i < rounds; i++) {
		t0 = now_us();
		if (tell(PING, peer, NULL) != PMIX_SUCCESS || wait_for(&pongs, i + 1) < 0) {
			free(t);
			return;
		}
		t[i] = (now_us() - t0) / 2;
	}
	if (!t)
		return;
	qsort(t, (size_t)rounds, sizeof(*t), cmp);
	*med = t[rounds / 2];
	*p99 = t[(rounds * 99) / 100];
	free(t);
}

static void print_metric(const char *name, double v)
{
	if (v < 0)
		printf("metric %s failed\n", name);
	else
		printf("metric %s %.1f\n", name, v);
}

static void sent(pmix_status_t st, void *cbdata)
{
	(void)st, (void)cbdata;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	long burst = argc > 2 ? atol(argv[2]) : 10000;
	pmix_status_t codes[] = { PING, PONG, DONE };
	pmix_proc_t wild, near, far;
	pmix_value_t *v = NULL;
	uint32_t size = 0;
	double med, p99, t0;
	Dl_info dl;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || !v ||
	    v->type != PMIX_UINT32 || (size = v->data.uint32) < 3)
		return 2;
	PMIx_Value_free(v, 1);
	PMIx_Load_procid(&near, me.nspace, 1);
	PMIx_Load_procid(&far, me.nspace, size - 1);
	if (PMIx_Register_event_handler(codes, 3, NULL, 0, on_event, NULL, NULL) < 0)
		return 3;
	PMIx_Fence(&wild, 1, NULL, 0);
	if (me.rank == 0) {
		if (dladdr((void *)PMIx_Init, &dl) && dl.dli_fname)
			printf("info lib %s\n", dl.dli_fname);
		pingpong(&near, rounds, &med, &p99);
		print_metric("event_near_us", med);
		print_metric("event_near_p99_us", p99);
		pongs = 0;
		pingpong(&far, rounds, &med, &p99);
		print_metric("event_far_us", med);
		print_metric("event_far_p99_us", p99);
	}
	PMIx_Fence(&wild, 1, NULL, 0);
	pings = 0;
	burst_want = burst;
	PMIx_Fence(&wild, 1, NULL, 0);
	if (me.rank == 0) {
		t0 = now_us();
		for (long i = 0; i < burst; i++)
			if (tell(PING, &far, sent) != PMIX_SUCCESS)
				break;
		print_metric("event_rate_per_s",
			     wait_for(&dones, 1) == 0 ? burst / ((now_us() - t0) / 1e6) : -1);
	}
	PMIx_Fence(&wild, 1, NULL, 0);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
