/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/worker.c - see stepd/worker.h. The queue, the flags and the
 * decision between posting and dropping a finished piece are under one
 * lock, so a piece the thread finishes while the stop gives up on it is
 * dropped, never posted to a progress engine that may be gone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdlib.h>

#include "pxc_host.h"
#include "lib/util.h"
#include "stepd/worker.h"
#include "slurm_adapter.h"

#define WORKER_STOP_MS 2000
#define WORKER_MAX \
	1024 /* pieces queued at most (a client looping on a
			 * stuck call gets refusals, not our memory) */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started, stop, done, closed, orphan;
	plug_work_t *head, **tail;
	size_t queued;
} wk = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void finished(void *arg)
{
	plug_work_t *w = arg;

	w->done(w);
}

/* Under wk.lock: hands w to the progress thread, or drops it. */
static void hand_back(plug_work_t *w)
{
	if (wk.orphan || pxc_progress_post(pxc_progress_global(), finished, w) < 0)
		w->drop(w);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wk.lock);
	while (!wk.stop) {
		plug_work_t *w = wk.head;

		if (!w) {
			pthread_cond_wait(&wk.cond, &wk.lock);
			continue;
		}
		if (!(wk.head = w->next))
			wk.tail = &wk.head;
		wk.queued--;
		pthread_mutex_unlock(&wk.lock);
		w->run(w);
		pthread_mutex_lock(&wk.lock);
		hand_back(w);
	}
	wk.done = true;
	pthread_cond_broadcast(&wk.cond);
	pthread_mutex_unlock(&wk.lock);
	return NULL;
}

int plug_worker_submit(plug_work_t *w)
{
	int e = 0;

	pthread_mutex_lock(&wk.lock);
	if (wk.closed || wk.queued >= WORKER_MAX) {
		pthread_mutex_unlock(&wk.lock);
		return -1;
	}
	if (!wk.started) {
		wk.head = NULL;
		wk.tail = &wk.head;
		if ((e = plug_thread_start(&wk.thread, worker, NULL))) {
			pthread_mutex_unlock(&wk.lock);
			plug_error("cannot start the step daemon's worker thread: %d", e);
			return -1;
		}
		wk.started = true;
	}
	w->next = NULL;
	w->cancelled = false;
	*wk.tail = w;
	wk.tail = &w->next;
	wk.queued++;
	pthread_cond_signal(&wk.cond);
	pthread_mutex_unlock(&wk.lock);
	return 0;
}

void plug_worker_stop(void)
{
	plug_work_t *left;
	bool done, started;

	pthread_mutex_lock(&wk.lock);
	wk.closed = true;
	wk.stop = true;
	started = wk.started;
	pthread_cond_broadcast(&wk.cond);
	done = !started || plug_wait_flag(&wk.cond, &wk.lock, &wk.done, WORKER_STOP_MS);
	left = started ? wk.head : NULL;
	wk.head = NULL;
	wk.tail = &wk.head;
	wk.queued = 0;
	while (left) {
		plug_work_t *w = left;

		left = w->next;
		w->cancelled = true;
		hand_back(w);
	}
	if (!done)
		wk.orphan = true; /* what it finishes from now on is dropped */
	pthread_mutex_unlock(&wk.lock);
	if (!started)
		return;
	if (!done) {
		plug_error("the step daemon's worker thread did not end in %d ms: left",
			   WORKER_STOP_MS);
		pthread_detach(wk.thread);
		return;
	}
	pthread_join(wk.thread, NULL);
}
