/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/input.c - pushes into this node's tasks' stdin (see
 * stepd/input.h, docs/iof.md "Pushing stdin").
 *
 * One push is one copy of the bytes, shared by the tasks it goes to; the
 * capture thread ends each task's part (plug_capture_in_f), and the last
 * part posts the push's status to the progress thread, where its
 * callback runs. A part may also end in plug_capture_stop's caller (the
 * capture stopped: -ECANCELED), which posts the same way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "stepd/capture.h"
#include "stepd/input.h"
#include "pxc_host.h"
#include "slurm_adapter.h"

typedef struct {
	char *data;
	uint32_t left; /* parts not ended (lock) */
	uint32_t ok;   /* parts written (lock) */
	bool all;      /* for all the node's ranks */
	pmix_status_t err;
	plug_input_done_f done;
	void *arg;
} push_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	const plug_map_t *map;
	uint32_t nodeid;
} in;

static pmix_status_t status_of(int e)
{
	switch (e) {
	case 0: return PMIX_SUCCESS;
	case -EPIPE: return PMIX_ERR_IOF_COMPLETE;
	case -ENOBUFS: return PMIX_ERR_OUT_OF_RESOURCE;
	case -ENOMEM: return PMIX_ERR_NOMEM;
	case -ECANCELED: return PMIX_ERR_UNREACH;
	default: return PMIX_ERR_NOT_SUPPORTED;
	}
}

/* The push's status: for all ranks, success when one took it. */
static pmix_status_t final_status(const push_t *p)
{
	if (p->all)
		return p->ok ? PMIX_SUCCESS : p->err;
	return p->err;
}

static void report(void *arg)
{
	push_t *p = arg;

	p->done(final_status(p), p->arg);
	free(p->data);
	free(p);
}

/* One part ended (e as capture.h says); false while others are to come. */
static bool part_ended(push_t *p, int e)
{
	bool last;

	pthread_mutex_lock(&lock);
	if (!e)
		p->ok++;
	else if (p->err == PMIX_SUCCESS)
		p->err = status_of(e);
	last = --p->left == 0;
	pthread_mutex_unlock(&lock);
	return last;
}

static void in_done(void *arg, uint32_t ltask, void *token, int status)
{
	push_t *p = token;

	(void)arg, (void)ltask;
	if (!part_ended(p, status))
		return;
	if (pxc_progress_post(pxc_progress_global(), report, p) != 0) {
		plug_debug("stdin push: no progress thread for its answer: dropped");
		free(p->data);
		free(p);
	}
}

void plug_input_start(const plug_map_t *map, uint32_t nodeid, bool hold)
{
	in.map = map;
	in.nodeid = nodeid;
	plug_capture_input(hold, in_done, NULL);
}

/* In the progress thread, where every push comes from: none after it.
 * arg: the call's sync (NULL when called here). */
static void input_off(void *arg)
{
	memset(&in, 0, sizeof(in));
	if (arg)
		pxc_sync_signal(arg, PMIX_SUCCESS);
}

void plug_input_stop(void)
{
	pmix_status_t st = pxc_progress_call(pxc_progress_global(), input_off, 10000);

	if (st == PMIX_ERR_UNREACH) /* (no progress thread: no push either) */
		input_off(NULL);
	else if (st != PMIX_SUCCESS)
		plug_error("stdin pushes: the progress thread did not stop them (%s)",
			   PMIx_Error_string(st));
	/* the capture's end callback stays: a push it still holds ends
	 * through it when the capture stops (or never, if abandoned) */
}

/* The local tasks of ranks (NULL: all) into lt; their count, or -1 for a
 * rank not on this node. */
static int64_t local_tasks(const pmix_rank_t *ranks, uint32_t nranks, uint32_t *lt)
{
	uint32_t count = in.map->count[in.nodeid];

	if (!ranks) {
		for (uint32_t k = 0; k < count; k++)
			lt[k] = k;
		return count;
	}
	for (uint32_t i = 0; i < nranks; i++) {
		int l = ranks[i] < in.map->ntasks && in.map->node_of[ranks[i]] == in.nodeid ?
				plug_map_local_rank(in.map, ranks[i]) :
				-1;

		if (l < 0 || (uint32_t)l >= count)
			return -1;
		lt[i] = (uint32_t)l;
	}
	return nranks;
}

pmix_status_t plug_input_push(const pmix_rank_t *ranks, uint32_t nranks, const void *data, size_t n,
			      bool complete, plug_input_done_f done, void *arg)
{
	uint32_t count = in.map ? in.map->count[in.nodeid] : 0, *lt, taken = 0;
	int64_t nt;
	push_t *p;
	bool last;

	if (!in.map || !count)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!(lt = calloc(ranks ? (nranks ? nranks : 1) : count, sizeof(*lt))))
		return PMIX_ERR_NOMEM;
	if ((nt = local_tasks(ranks, nranks, lt)) <= 0) {
		free(lt);
		return nt < 0 ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_SUPPORTED;
	}
	if (!(p = calloc(1, sizeof(*p))) || (n && !(p->data = malloc(n)))) {
		free(p);
		free(lt);
		return PMIX_ERR_NOMEM;
	}
	if (n)
		memcpy(p->data, data, n);
	/* one part more than the tasks: this call's, so that the thread
	 * cannot end the push before the call is through */
	p->left = (uint32_t)nt + 1;
	p->all = !ranks;
	p->done = done;
	p->arg = arg;
	for (int64_t k = 0; k < nt; k++) {
		int e = plug_capture_push(lt[k], p->data, n, complete, p);

		if (e)
			part_ended(p, e); /* refused: never the last part */
		else
			taken++;
	}
	free(lt);
	pthread_mutex_lock(&lock);
	last = --p->left == 0;
	pthread_mutex_unlock(&lock);
	if (!taken) { /* every task refused it: answered now */
		pmix_status_t st = p->err;

		free(p->data);
		free(p);
		return st;
	}
	if (last && pxc_progress_post(pxc_progress_global(), report, p) != 0) {
		free(p->data); /* (every part ended: nothing uses it) */
		free(p);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}
