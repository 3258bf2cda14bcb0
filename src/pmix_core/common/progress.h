/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.h - the one progress thread of a process, and blocking waits.
 *
 * A progress engine owns a libevent event_base and the thread that
 * dispatches it. Everything that touches sockets, client/peer state, the
 * store or collectives runs in that thread. Other threads never add or
 * delete events themselves: they post a function with pxc_progress_post(),
 * which queues it under a mutex and wakes the loop; the loop swaps the
 * queue out under the lock and runs the functions in order.
 *
 * Blocking API calls post their work and wait on a pxc_sync_t. A blocking
 * call made from inside the progress thread would deadlock, so API code
 * checks pxc_progress_in_thread() first and fails with PMIX_ERR_WOULD_BLOCK.
 */
#ifndef PXC_PROGRESS_H
#define PXC_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <pmix_common.h>

struct event_base;
typedef struct pxc_progress pxc_progress_t;
typedef void (*pxc_work_f)(void *arg);

/* Creates the event base and starts the thread. NULL with errno on failure. */
pxc_progress_t *pxc_progress_start(const char *name);
/* Stops the loop and joins the thread. Work posted before the stop is run
 * by the thread before it exits (so no waiter is left behind); later posts
 * fail with ESHUTDOWN. Frees the event base: every event on it must have
 * been freed by its owner first. Must not be called from the progress
 * thread. NULL-tolerant. */
void pxc_progress_stop(pxc_progress_t *pg);
/* The event base; only the progress thread may use it. */
struct event_base *pxc_progress_base(pxc_progress_t *pg);
/* Queues fn(arg) to run in the progress thread. Any thread, including the
 * progress thread itself (runs on the next loop turn). 0 or -1/ENOMEM,
 * -1/ESHUTDOWN once stopping. */
int pxc_progress_post(pxc_progress_t *pg, pxc_work_f fn, void *arg);
/* True when called from pg's thread. */
bool pxc_progress_in_thread(const pxc_progress_t *pg);

/* The process's single engine, shared by the server, client and tool
 * roles: the first acquire starts it, the last release stops it. Acquire
 * returns NULL with errno on failure. Any thread but the engine's own. */
pxc_progress_t *pxc_progress_acquire(void);
void pxc_progress_release(void);
/* The running engine or NULL. */
pxc_progress_t *pxc_progress_global(void);

/* A one-shot completion that one thread waits on and another signals. */
typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	pmix_status_t status;
	void *arg; /* pxc_progress_call_arg's arg for fn */
} pxc_sync_t;

void pxc_sync_init(pxc_sync_t *s);
void pxc_sync_fini(pxc_sync_t *s);
/* Marks the sync done with status and wakes the waiter. Any thread. */
void pxc_sync_signal(pxc_sync_t *s, pmix_status_t status);
/* Waits until signalled or timeout_ms passes (< 0: no limit). Returns the
 * signalled status, or PMIX_ERR_TIMEOUT. */
pmix_status_t pxc_sync_wait(pxc_sync_t *s, int timeout_ms);

/* Runs fn(sync) in pg's thread and waits up to timeout_ms for fn, or work
 * it started there, to call pxc_sync_signal(sync, status): the usual stop
 * of a module. Returns that status; PMIX_ERR_UNREACH when fn could not be
 * posted (no engine, or stopping: fn did not run), PMIX_ERR_NOMEM; or
 * PMIX_ERR_TIMEOUT, and then the sync is leaked on purpose, since the
 * progress thread may still signal it. Not from pg's own thread. */
pmix_status_t pxc_progress_call(pxc_progress_t *pg, pxc_work_f fn, int timeout_ms);
/* The same, with arg in the sync's arg field for fn to read. */
pmix_status_t pxc_progress_call_arg(pxc_progress_t *pg, pxc_work_f fn, void *arg, int timeout_ms);

#endif
