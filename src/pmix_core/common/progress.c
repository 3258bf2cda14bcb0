/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.c - the process's progress thread and the posting queue.
 *
 * One thread dispatches one event_base. Other threads post work items to a
 * mutex-protected singly linked queue and activate a persistent user event;
 * its callback swaps the whole queue out under the lock and runs the items
 * in posting order outside it. The event_base is created with libevent's
 * pthread support enabled only so that event_active() from another thread
 * is safe; no other thread ever adds or deletes events.
 *
 * Stop: a "stopping" flag is set under the lock (later posts fail with
 * ESHUTDOWN), the loop is told to exit after draining the queue, the thread
 * is joined. Items posted before the stop always run exactly once.
 *
 * The global engine (pxc_progress_acquire) is reference counted under a
 * mutex: the server, the client and the tool roles share it.
 */
#include "progress.h"
#include "pxc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include <event2/thread.h>

struct work {
	struct work *next;
	pxc_work_f fn;
	void *arg;
};

struct pxc_progress {
	struct event_base *base;
	struct event *wake;
	pthread_t thread;
	pthread_mutex_t lock;
	struct work *head, *tail;
	bool stopping;
	bool exit_loop;
	char name[16];
};

static pthread_once_t evthread_once = PTHREAD_ONCE_INIT;
static int evthread_rc;

static void evthread_setup(void)
{
	evthread_rc = evthread_use_pthreads();
}

static struct work *queue_take(pxc_progress_t *pg, bool *exit_loop)
{
	struct work *w;

	pthread_mutex_lock(&pg->lock);
	w = pg->head;
	pg->head = pg->tail = NULL;
	*exit_loop = pg->exit_loop;
	pthread_mutex_unlock(&pg->lock);
	return w;
}

static void run_items(struct work *w)
{
	while (w) {
		struct work *next = w->next;

		w->fn(w->arg);
		free(w);
		w = next;
	}
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	pxc_progress_t *pg = arg;
	bool exit_loop;

	(void)fd;
	(void)what;
	run_items(queue_take(pg, &exit_loop));
	if (exit_loop)
		event_base_loopbreak(pg->base);
}

/* libevent writes with writev(): a peer that went away would raise
 * SIGPIPE, whose default action kills the process (slurmstepd included).
 * Blocked in this thread, the write fails with EPIPE instead. The signal
 * is thread-directed, so other threads keep their own disposition. */
static void block_sigpipe(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *thread_main(void *arg)
{
	pxc_progress_t *pg = arg;
	bool exit_loop = false;

	pthread_setname_np(pthread_self(), pg->name);
	block_sigpipe();
	while (!exit_loop) {
		event_base_loop(pg->base, EVLOOP_NO_EXIT_ON_EMPTY);
		pthread_mutex_lock(&pg->lock);
		exit_loop = pg->exit_loop;
		pthread_mutex_unlock(&pg->lock);
	}
	/* Items posted between the last wake and the stop still run. */
	run_items(queue_take(pg, &exit_loop));
	return NULL;
}

static void progress_free(pxc_progress_t *pg)
{
	if (pg->wake)
		event_free(pg->wake);
	if (pg->base)
		event_base_free(pg->base);
	pthread_mutex_destroy(&pg->lock);
	free(pg);
}

pxc_progress_t *pxc_progress_start(const char *name)
{
	pxc_progress_t *pg;
	int rc;

	pthread_once(&evthread_once, evthread_setup);
	if (evthread_rc != 0 || !(pg = calloc(1, sizeof(*pg)))) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&pg->lock, NULL);
	snprintf(pg->name, sizeof(pg->name), "%s", name ? name : "pxc-progress");
	pg->base = event_base_new();
	if (pg->base)
		pg->wake = event_new(pg->base, -1, EV_PERSIST, wake_cb, pg);
	if (!pg->wake || event_add(pg->wake, NULL) != 0) {
		progress_free(pg);
		errno = ENOMEM;
		return NULL;
	}
	rc = pthread_create(&pg->thread, NULL, thread_main, pg);
	if (rc != 0) {
		progress_free(pg);
		errno = rc;
		return NULL;
	}
	return pg;
}

void pxc_progress_stop(pxc_progress_t *pg)
{
	if (!pg)
		return;
	pthread_mutex_lock(&pg->lock);
	pg->stopping = true;
	pg->exit_loop = true;
	pthread_mutex_unlock(&pg->lock);
	event_active(pg->wake, EV_READ, 0);
	pthread_join(pg->thread, NULL);
	progress_free(pg);
}

struct event_base *pxc_progress_base(pxc_progress_t *pg)
{
	return pg->base;
}

int pxc_progress_post(pxc_progress_t *pg, pxc_work_f fn, void *arg)
{
	struct work *w = malloc(sizeof(*w));

	if (!w) {
		errno = ENOMEM;
		return -1;
	}
	w->next = NULL;
	w->fn = fn;
	w->arg = arg;
	pthread_mutex_lock(&pg->lock);
	if (pg->stopping) {
		pthread_mutex_unlock(&pg->lock);
		free(w);
		errno = ESHUTDOWN;
		return -1;
	}
	if (pg->tail)
		pg->tail->next = w;
	else
		pg->head = w;
	pg->tail = w;
	pthread_mutex_unlock(&pg->lock);
	event_active(pg->wake, EV_READ, 0);
	return 0;
}

bool pxc_progress_in_thread(const pxc_progress_t *pg)
{
	return pg && pthread_equal(pthread_self(), pg->thread);
}

/* ---- the process-wide engine ---- */

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static pxc_progress_t *global_pg;
static unsigned global_refs;

pxc_progress_t *pxc_progress_acquire(void)
{
	pxc_progress_t *pg;

	pthread_mutex_lock(&global_lock);
	if (!global_pg)
		global_pg = pxc_progress_start("slurmix-pmix");
	if (global_pg)
		global_refs++;
	pg = global_pg;
	pthread_mutex_unlock(&global_lock);
	return pg;
}

void pxc_progress_release(void)
{
	pxc_progress_t *pg = NULL;

	pthread_mutex_lock(&global_lock);
	if (global_refs > 0 && --global_refs == 0) {
		pg = global_pg;
		global_pg = NULL;
	}
	pthread_mutex_unlock(&global_lock);
	pxc_progress_stop(pg);
}

pxc_progress_t *pxc_progress_global(void)
{
	pxc_progress_t *pg;

	pthread_mutex_lock(&global_lock);
	pg = global_pg;
	pthread_mutex_unlock(&global_lock);
	return pg;
}

/* ---- one-shot completions ---- */

void pxc_sync_init(pxc_sync_t *s)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	s->done = false;
	s->status = PMIX_SUCCESS;
}

void pxc_sync_fini(pxc_sync_t *s)
{
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
}

void pxc_sync_signal(pxc_sync_t *s, pmix_status_t status)
{
	pthread_mutex_lock(&s->lock);
	s->status = status;
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

pmix_status_t pxc_sync_wait(pxc_sync_t *s, int timeout_ms)
{
	struct timespec dl;
	pmix_status_t rc;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	while (!s->done && err != ETIMEDOUT)
		err = timeout_ms < 0 ? pthread_cond_wait(&s->cond, &s->lock) :
				       pthread_cond_timedwait(&s->cond, &s->lock, &dl);
	rc = s->done ? s->status : PMIX_ERR_TIMEOUT;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

pmix_status_t pxc_progress_call(pxc_progress_t *pg, pxc_work_f fn, int timeout_ms)
{
	return pxc_progress_call_arg(pg, fn, NULL, timeout_ms);
}

pmix_status_t pxc_progress_call_arg(pxc_progress_t *pg, pxc_work_f fn, void *arg, int timeout_ms)
{
	pxc_sync_t *s = pg ? calloc(1, sizeof(*s)) : NULL;
	pmix_status_t st;

	if (!s)
		return pg ? PMIX_ERR_NOMEM : PMIX_ERR_UNREACH;
	pxc_sync_init(s);
	s->arg = arg;
	if (pxc_progress_post(pg, fn, s) < 0)
		st = PMIX_ERR_UNREACH;
	else if ((st = pxc_sync_wait(s, timeout_ms)) == PMIX_ERR_TIMEOUT)
		return st; /* stuck: leak rather than free under it */
	pxc_sync_fini(s);
	free(s);
	return st;
}
