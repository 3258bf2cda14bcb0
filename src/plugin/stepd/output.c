/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/output.c - the tasks' captured output to the step's PMIx server
 * (see stepd/output.h, docs/iof.md).
 *
 * The capture thread (stepd/capture.c) hands each piece to
 * PMIx_server_IOF_deliver, which copies it and passes it to the progress
 * thread. At most OUT_INFLIGHT bytes are on their way: past that the
 * capture thread waits for the server (a busy progress thread slows the
 * tasks a little, as a slow srun would), but never longer than
 * OUT_STALL_MS; after such a wait nothing waits again until the server
 * caught up to half the bound, and a piece it cannot take meanwhile is
 * not given to it (logged once) and goes to Slurm's side all the same;
 * the bytes missed are given as SLURMIX_IOF_DROPPED before the
 * channel's next piece, so the pulls are told. A subscriber that does
 * not read never slows anything: the server's engine keeps its bytes
 * within that subscriber's own bounds.
 *
 * A channel's end (PMIX_IOF_COMPLETE) is delivered the same way; its
 * completion, in the progress thread, marks the channel ended, and
 * plug_output_when_ended() waiters (a lost task's event, stepd/step.c)
 * then go: the end reached the server's subscriptions before them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_slurmix.h>

#include "stepd/capture.h"
#include "stepd/output.h"
#include "pxc_host.h"
#include "slurm_adapter.h"

#define OUT_INFLIGHT (4u << 20)
#define OUT_STALL_MS 1000
/* At the step's end: the longest the tasks' pipes may take to be written
 * out (Slurm does not wait for --output files). */
#define OUT_DRAIN_MS 3000

typedef struct waiter {
	struct waiter *next;
	uint32_t ltask;
	void (*fn)(void *);
	void *arg;
	struct event *timer;
} waiter_t;

/* One piece on its way to the server. */
typedef struct {
	size_t n;
	uint32_t ltask;
	int fd;
	bool eof;
	unsigned gen;
} piece_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;

static struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	uint32_t nodeid, n;
	unsigned gen;      /* which start a late completion belongs to */
	bool on, stopping; /* (lock) */
	bool stalled;      /* (lock) a wait for the server timed out */
	size_t inflight;   /* (lock) */
	uint64_t skipped;  /* bytes not given to the server (capture thread) */
	uint64_t *lost;    /* [2 n] of them, per channel, not told yet (capture thread) */
	unsigned *ended;   /* [n] channels whose end was delivered (progress) */
	waiter_t *waiters; /* (progress thread) */
	pxc_progress_t *pg;
	sx_iof_fmt_t fmt; /* the lines to srun (plug_output_fmt_t) */
	sx_iof_buf_t *fb; /* [4 n]: per channel its held tail, its output (capture thread) */
} out;

static pmix_rank_t rank_of(uint32_t ltask)
{
	return out.map->ranks[out.map->first[out.nodeid] + ltask];
}

static bool all_ended(uint32_t ltask)
{
	unsigned c = plug_capture_channels(ltask);

	return (c & ~out.ended[ltask]) == 0;
}

static void waiter_free(waiter_t *w)
{
	if (w->timer)
		event_free(w->timer);
	free(w);
}

/* Progress thread: the waiters of ltask whose channels all ended go. */
static void wake_waiters(uint32_t ltask)
{
	for (waiter_t **pp = &out.waiters; *pp;) {
		waiter_t *w = *pp;

		if (w->ltask != ltask || !all_ended(ltask)) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		w->fn(w->arg);
		waiter_free(w);
	}
}

static void delivered(pmix_status_t st, void *cbdata)
{
	piece_t *p = cbdata;
	bool mine;

	(void)st;
	pthread_mutex_lock(&lock);
	mine = out.on && p->gen == out.gen;
	if (p->gen == out.gen) {
		out.inflight -= p->n;
		if (out.inflight <= OUT_INFLIGHT / 2)
			out.stalled = false;
		pthread_cond_broadcast(&drained);
	}
	pthread_mutex_unlock(&lock);
	if (mine && p->eof) {
		out.ended[p->ltask] |= p->fd == 1 ? PLUG_CAPTURE_STDOUT : PLUG_CAPTURE_STDERR;
		wake_waiters(p->ltask);
	}
	free(p);
}

/* Capture thread: room for n more bytes on their way, waiting for the
 * server at most OUT_STALL_MS; false: the server is that far behind. Once
 * a wait timed out, no piece waits again until the server caught up to
 * half the bound (stalled): Slurm's side is never slowed by more than
 * one such wait. */
static bool room_for(size_t n)
{
	struct timespec until;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += OUT_STALL_MS / 1000;
	pthread_mutex_lock(&lock);
	while (!out.stalled && out.inflight && out.inflight + n > OUT_INFLIGHT && !out.stopping)
		if (pthread_cond_timedwait(&drained, &lock, &until) == ETIMEDOUT)
			out.stalled = true;
	ok = !out.inflight || out.inflight + n <= OUT_INFLIGHT;
	if (ok)
		out.inflight += n;
	pthread_mutex_unlock(&lock);
	return ok;
}

/* Hands the server one piece of ltask's channel fd (bytes, an end, or
 * nothing but `lost` bytes before what comes next). */
static void deliver(uint32_t ltask, int fd, const void *data, size_t n, bool eof, uint64_t lost)
{
	pmix_proc_t src;
	pmix_byte_object_t bo = { .bytes = (char *)data, .size = n };
	pmix_info_t info[2];
	size_t ni = 0;
	bool yes = true;
	piece_t *p = calloc(1, sizeof(*p));
	pmix_status_t st;

	if (!p) {
		pthread_mutex_lock(&lock);
		out.inflight -= n;
		pthread_mutex_unlock(&lock);
		return;
	}
	p->n = n;
	p->ltask = ltask;
	p->fd = fd;
	p->eof = eof;
	p->gen = out.gen;
	PMIX_LOAD_PROCID(&src, out.nspace, rank_of(ltask));
	if (eof)
		PMIx_Info_load(&info[ni++], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	if (lost)
		PMIx_Info_load(&info[ni++], SLURMIX_IOF_DROPPED, &lost, PMIX_UINT64);
	st = PMIx_server_IOF_deliver(&src,
				     fd == 1 ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL,
				     n ? &bo : NULL, ni ? info : NULL, ni, delivered, p);
	for (size_t i = 0; i < ni; i++)
		PMIx_Info_destruct(&info[i]);
	if (st != PMIX_SUCCESS) {
		pthread_mutex_lock(&lock);
		out.inflight -= n;
		pthread_mutex_unlock(&lock);
		free(p);
		plug_debug("rank %u: PMIx_server_IOF_deliver: %s", src.rank, PMIx_Error_string(st));
	}
}

static void on_output(void *arg, uint32_t ltask, int fd, const void *data, size_t n, bool eof)
{
	uint64_t *lost = &out.lost[2 * ltask + (fd == 2)];

	(void)arg;
	if (n && !room_for(n)) {
		if (!out.skipped)
			plug_error("the step's PMIx server is too far behind: output of rank %u "
				   "is not all kept for PMIx_IOF_pull (srun gets it all the same; "
				   "the pulls are told how much they miss)",
				   rank_of(ltask));
		out.skipped += n;
		*lost += n;
		return;
	}
	if (*lost) { /* the bytes that did not go, before these */
		deliver(ltask, fd, NULL, 0, false, *lost);
		*lost = 0;
	}
	deliver(ltask, fd, data, n, eof, 0);
}

/* Capture thread: a piece of task ltask's fd formatted for srun. */
static int format_piece(void *arg, uint32_t ltask, int fd, const char *raw, size_t n, bool eof,
			const char **o, size_t *on)
{
	sx_iof_buf_t *resid = &out.fb[4 * ltask + 2 * (fd == 2)], *done = resid + 1;
	pmix_proc_t src;
	struct timespec ts;

	(void)arg;
	PMIx_Load_procid(&src, out.nspace, rank_of(ltask));
	sx_iof_buf_eat(done, sx_iof_buf_size(done));
	clock_gettime(CLOCK_REALTIME, &ts);
	if (sx_iof_format(&out.fmt, resid, &src,
			  fd == 2 ? PMIX_FWD_STDERR_CHANNEL : PMIX_FWD_STDOUT_CHANNEL, raw, n, eof,
			  (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, done) < 0)
		return -1;
	*o = sx_iof_buf_data(done);
	*on = sx_iof_buf_size(done);
	return 0;
}

/* The formatter for fmt, if it changes anything. */
static void format_start(uint32_t ntasks, const plug_output_fmt_t *fmt)
{
	unsigned how = fmt && fmt->merge ? PLUG_CAPTURE_MERGE : 0;

	out.fmt = (sx_iof_fmt_t){ .tag = fmt && fmt->tag,
				  .timestamp = fmt && fmt->timestamp,
				  .xml = fmt && fmt->xml };
	if (sx_iof_fmt_any(&out.fmt) && !(out.fb = calloc(4 * (size_t)ntasks, sizeof(*out.fb)))) {
		plug_error("no memory for the output's tags: it goes to srun untagged");
		out.fmt = (sx_iof_fmt_t){ 0 };
	}
	if (out.fb || (fmt && fmt->files)) /* a file too: its lines are tagged the same */
		how |= PLUG_CAPTURE_FILES;
	plug_capture_format(how, out.fb ? format_piece : NULL, NULL);
}

static void format_stop(void)
{
	for (uint32_t i = 0; out.fb && i < 4 * out.n; i++)
		sx_iof_buf_free(&out.fb[i]);
	free(out.fb);
	out.fb = NULL;
	plug_capture_format(0, NULL, NULL);
}

int plug_output_start(const char *nspace, const plug_map_t *map, uint32_t nodeid, uint32_t ntasks,
		      int ack_ms, const plug_output_fmt_t *fmt)
{
	if (!ntasks)
		return 0;
	if (!(out.ended = calloc(ntasks, sizeof(*out.ended))) ||
	    !(out.lost = calloc(2 * (size_t)ntasks, sizeof(*out.lost)))) {
		free(out.ended);
		out.ended = NULL;
		return plug_error("no memory for the output capture: tasks run uncaptured"), -1;
	}
	snprintf(out.nspace, sizeof(out.nspace), "%s", nspace);
	out.map = map;
	out.nodeid = nodeid;
	out.n = ntasks;
	out.pg = pxc_progress_global();
	pthread_mutex_lock(&lock);
	out.on = true;
	out.stopping = out.stalled = false;
	out.inflight = 0;
	out.gen++;
	pthread_mutex_unlock(&lock);
	format_start(ntasks, fmt);
	if (plug_capture_start(ntasks, ack_ms, on_output, NULL) < 0) {
		plug_error("cannot capture the tasks' output (%s): they run uncaptured",
			   strerror(errno));
		plug_output_stop();
		return -1;
	}
	return 0;
}

void plug_output_task(uint32_t ltask)
{
	plug_capture_task(ltask);
}

static void waiter_timeout(int fd, short what, void *arg)
{
	waiter_t *w = arg;

	(void)fd, (void)what;
	for (waiter_t **pp = &out.waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			plug_info("rank %u: its output did not end in time: its end may come "
				  "after its termination event",
				  rank_of(w->ltask));
			w->fn(w->arg);
			waiter_free(w);
			return;
		}
}

void plug_output_when_ended(pmix_rank_t rank, int ms, void (*fn)(void *), void *arg)
{
	int lr = out.map ? plug_map_local_rank(out.map, rank) : -1;
	waiter_t *w;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	if (!out.ended || lr < 0 || (uint32_t)lr >= out.n || out.map->node_of[rank] != out.nodeid ||
	    all_ended((uint32_t)lr) || !(w = calloc(1, sizeof(*w)))) {
		fn(arg);
		return;
	}
	w->ltask = (uint32_t)lr;
	w->fn = fn;
	w->arg = arg;
	if (!(w->timer = evtimer_new(pxc_progress_base(out.pg), waiter_timeout, w))) {
		free(w);
		fn(arg);
		return;
	}
	evtimer_add(w->timer, &tv);
	w->next = out.waiters;
	out.waiters = w;
}

/* In the progress thread (serialized with delivered()), arg its sync; or
 * with NULL once that thread is gone. */
static void finish(void *arg)
{
	while (out.waiters) { /* their events go now */
		waiter_t *w = out.waiters;

		out.waiters = w->next;
		w->fn(w->arg);
		waiter_free(w);
	}
	pthread_mutex_lock(&lock);
	out.on = false;
	pthread_mutex_unlock(&lock);
	free(out.ended);
	out.ended = NULL;
	if (arg)
		pxc_sync_signal(arg, PMIX_SUCCESS);
}

void plug_output_stop(void)
{
	pmix_status_t st;

	pthread_mutex_lock(&lock);
	out.stopping = true;
	pthread_cond_broadcast(&drained);
	pthread_mutex_unlock(&lock);
	/* the waiters first (and no more ends marked), in the progress
	 * thread, while the capture still answers for its channels */
	st = out.pg ? pxc_progress_call(out.pg, finish, 10000) : PMIX_ERR_UNREACH;
	if (st == PMIX_ERR_UNREACH)
		finish(NULL); /* (did not run there) */
	else if (st != PMIX_SUCCESS)
		plug_error("output capture: the progress thread did not stop it (%s)",
			   PMIx_Error_string(st));
	if (plug_capture_stop(OUT_DRAIN_MS) < 0) /* what the pipes still hold goes out */
		return;                          /* its thread still runs, with what it uses */
	format_stop();
	free(out.lost);
	out.lost = NULL;
	if (out.skipped)
		plug_info("%llu bytes of output were not kept for PMIx_IOF_pull",
			  (unsigned long long)out.skipped);
	out.map = NULL;
	out.skipped = 0;
	out.pg = NULL;
}
