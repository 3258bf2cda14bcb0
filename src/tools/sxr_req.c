/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_req.c - how host callbacks reach the main thread of slurmix-run: the
 * request structure, deep copies of the server's arguments, the work queue
 * and the sync helper for the main thread's own server calls.
 *
 * Threads: sxr_req_new, the copies and sxr_req_post run in the server's
 * progress thread (inside host callbacks); sxr_host_drain and the run
 * functions of the requests run in the main thread. The queue (qlock) and
 * the eventfd are the only state both touch. The copies exist because a
 * server may free a callback's arguments as soon as the callback returns,
 * long before the main thread gets to the request.
 */
#include "sxr.h"
#include "sxr_req.h"
#include "sxr_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct sxr *queue_ctx; /* set once before the server starts */

void sxr_queue_init(struct sxr *s)
{
	queue_ctx = s;
}

/* ---------------------------------------------------------------- queue */

void sxr_host_post(struct sxr_work *w)
{
	struct sxr *s = queue_ctx;
	uint64_t one = 1;

	w->next = NULL;
	pthread_mutex_lock(&s->qlock);
	if (s->qtail)
		s->qtail->next = w;
	else
		s->qhead = w;
	s->qtail = w;
	pthread_mutex_unlock(&s->qlock);
	if (write(s->qfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		sxr_msg("cannot wake the main thread: %s", strerror(errno));
}

void sxr_host_drain(struct sxr *s)
{
	struct sxr_work *w, *next;
	uint64_t n;

	if (read(s->qfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		sxr_msg("eventfd read: %s", strerror(errno));
	pthread_mutex_lock(&s->qlock);
	w = s->qhead;
	s->qhead = s->qtail = NULL;
	pthread_mutex_unlock(&s->qlock);
	for (; w; w = next) {
		next = w->next;
		w->run(s, w);
	}
}

struct sxr_req *sxr_req_new(sxr_work_f run, const pmix_proc_t *proc)
{
	struct sxr_req *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->w.run = run;
	if (proc)
		r->proc = *proc;
	return r;
}

pmix_status_t sxr_req_post(struct sxr_req *r)
{
	if (!r)
		return PMIX_ERR_NOMEM;
	sxr_host_post(&r->w);
	return PMIX_SUCCESS;
}

void sxr_req_free(struct sxr_req *r)
{
	free(r->msg);
	free(r->data);
	if (r->info)
		PMIX_INFO_FREE(r->info, r->ninfo);
	free(r->procs);
	if (r->apps)
		PMIX_APP_FREE(r->apps, r->napps);
	sxr_argv_free(r->keys);
	if (r->queries)
		PMIX_QUERY_FREE(r->queries, r->nqueries);
	free(r);
}

/* ---------------------------------------------------------------- copies */

int sxr_copy_infos(struct sxr_req *r, const pmix_info_t *in, size_t n)
{
	if (!n || !in)
		return 0;
	PMIX_INFO_CREATE(r->info, n);
	if (!r->info)
		return -1;
	r->ninfo = n;
	for (size_t i = 0; i < n; i++)
		PMIx_Info_xfer(&r->info[i], &in[i]);
	return 0;
}

int sxr_copy_procs(struct sxr_req *r, const pmix_proc_t *procs, size_t n)
{
	if (!n || !procs)
		return 0;
	r->procs = malloc(n * sizeof(*procs));
	if (!r->procs)
		return -1;
	memcpy(r->procs, procs, n * sizeof(*procs));
	r->nprocs = n;
	return 0;
}

int sxr_copy_keys(struct sxr_req *r, char **keys)
{
	if (!keys)
		return 0;
	r->keys = sxr_argv_dup(keys);
	return r->keys ? 0 : -1;
}

static int copy_app(pmix_app_t *out, const pmix_app_t *in)
{
	out->cmd = in->cmd ? strdup(in->cmd) : NULL;
	out->argv = in->argv ? sxr_argv_dup(in->argv) : NULL;
	out->env = in->env ? sxr_argv_dup(in->env) : NULL;
	out->cwd = in->cwd ? strdup(in->cwd) : NULL;
	out->maxprocs = in->maxprocs;
	if (in->ninfo && in->info) {
		PMIX_INFO_CREATE(out->info, in->ninfo);
		if (!out->info)
			return -1;
		out->ninfo = in->ninfo;
		for (size_t i = 0; i < in->ninfo; i++)
			PMIx_Info_xfer(&out->info[i], &in->info[i]);
	}
	return (in->cmd && !out->cmd) || (in->argv && !out->argv) || (in->env && !out->env) ||
			       (in->cwd && !out->cwd) ?
		       -1 :
		       0;
}

int sxr_copy_apps(struct sxr_req *r, const pmix_app_t *apps, size_t n)
{
	int rc = 0;

	if (!n || !apps)
		return 0;
	PMIX_APP_CREATE(r->apps, n);
	if (!r->apps)
		return -1;
	r->napps = n;
	for (size_t i = 0; i < n; i++)
		rc |= copy_app(&r->apps[i], &apps[i]);
	return rc;
}

int sxr_copy_queries(struct sxr_req *r, const pmix_query_t *q, size_t n)
{
	int rc = 0;

	if (!n || !q)
		return 0;
	PMIX_QUERY_CREATE(r->queries, n);
	if (!r->queries)
		return -1;
	r->nqueries = n;
	for (size_t i = 0; i < n; i++) {
		r->queries[i].keys = q[i].keys ? sxr_argv_dup(q[i].keys) : NULL;
		if (q[i].keys && !r->queries[i].keys)
			rc = -1;
		if (q[i].nqual && q[i].qualifiers) {
			PMIX_INFO_CREATE(r->queries[i].qualifiers, q[i].nqual);
			if (!r->queries[i].qualifiers)
				return -1;
			r->queries[i].nqual = q[i].nqual;
			for (size_t k = 0; k < q[i].nqual; k++)
				PMIx_Info_xfer(&r->queries[i].qualifiers[k], &q[i].qualifiers[k]);
		}
	}
	return rc;
}

/* Posts r, or frees it and reports no memory if a copy failed. */
pmix_status_t sxr_req_post_checked(struct sxr_req *r, int copy_rc)
{
	if (copy_rc) {
		sxr_req_free(r);
		return PMIX_ERR_NOMEM;
	}
	return sxr_req_post(r);
}

/* ---------------------------------------------------------------- sync */

void sxr_sync_init(sxr_sync_t *y)
{
	pthread_mutex_init(&y->lock, NULL);
	pthread_cond_init(&y->cond, NULL);
	y->done = 0;
	y->status = PMIX_SUCCESS;
}

void sxr_sync_opcb(pmix_status_t status, void *cbdata)
{
	sxr_sync_t *y = cbdata;

	pthread_mutex_lock(&y->lock);
	y->status = status;
	y->done = 1;
	pthread_cond_broadcast(&y->cond);
	pthread_mutex_unlock(&y->lock);
}

pmix_status_t sxr_sync_wait(sxr_sync_t *y, int seconds)
{
	struct timespec ts;
	pmix_status_t rc;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += seconds;
	pthread_mutex_lock(&y->lock);
	while (!y->done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&y->cond, &y->lock, &ts);
	rc = y->done ? y->status : PMIX_ERR_TIMEOUT;
	pthread_mutex_unlock(&y->lock);
	return rc;
}
