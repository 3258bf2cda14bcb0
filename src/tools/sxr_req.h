/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_req.h - how host callbacks reach the main thread of slurmix-run
 * (sxr_req.c): the request a callback fills, the copies of the server's
 * arguments, the work queue, and the sync helper with which the main
 * thread waits for its own server calls.
 *
 * Threads: sxr_req_new, sxr_req_free (of a request not posted), the copies,
 * sxr_req_post*, sxr_host_post run in the server's progress thread;
 * sxr_queue_init runs once before the server starts; sxr_host_drain, and
 * the run function of each request, run in the main thread, which then
 * owns the request and frees it. The queue (qlock) and the eventfd are the
 * only state both threads touch.
 */
#ifndef SXR_REQ_H
#define SXR_REQ_H

#include "sxr.h"

/* Everything a host callback may need to hand to the main thread. The
 * arrays are our own deep copies: a server may free its arguments as soon
 * as the callback returns. */
struct sxr_req {
	struct sxr_work w;
	pmix_proc_t proc;
	int status;
	char *msg;
	char *data;
	size_t ndata;
	pmix_info_t *info;
	size_t ninfo;
	pmix_proc_t *procs;
	size_t nprocs;
	pmix_app_t *apps;
	size_t napps;
	char **keys;
	pmix_query_t *queries;
	size_t nqueries;
	union {
		pmix_op_cbfunc_t op;
		pmix_modex_cbfunc_t modex;
		pmix_lookup_cbfunc_t lookup;
		pmix_spawn_cbfunc_t spawn;
		pmix_info_cbfunc_t info;
	} cb;
	void *cbdata;
};

/* Once, before the server starts: the launcher whose queue requests go to. */
void sxr_queue_init(struct sxr *s);
/* Progress thread: allocate, copy arguments into, and post a request.
 * sxr_req_new returns a zeroed request that runs run, for proc (if
 * given), or NULL. */
struct sxr_req *sxr_req_new(sxr_work_f run, const pmix_proc_t *proc);
/* Posts r (the main thread takes it); PMIX_ERR_NOMEM if r is NULL. */
pmix_status_t sxr_req_post(struct sxr_req *r);
/* Posts r, or frees it and returns PMIX_ERR_NOMEM if copy_rc != 0. */
pmix_status_t sxr_req_post_checked(struct sxr_req *r, int copy_rc);
/* Frees r and every copy it holds. */
void sxr_req_free(struct sxr_req *r);
/* Deep copies into r (freed by sxr_req_free); 0, or -1 if out of memory. */
int sxr_copy_infos(struct sxr_req *r, const pmix_info_t *in, size_t n);
int sxr_copy_procs(struct sxr_req *r, const pmix_proc_t *procs, size_t n);
int sxr_copy_keys(struct sxr_req *r, char **keys);
int sxr_copy_apps(struct sxr_req *r, const pmix_app_t *apps, size_t n);
int sxr_copy_queries(struct sxr_req *r, const pmix_query_t *q, size_t n);
/* Queues w and wakes the main thread. */
void sxr_host_post(struct sxr_work *w);
/* Main thread: runs every posted request. */
void sxr_host_drain(struct sxr *s);

/* Waits (main thread) for an op callback: returns its status. */
typedef struct sxr_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	pmix_status_t status;
} sxr_sync_t;
void sxr_sync_init(sxr_sync_t *y);
/* The op callback to hand the server, with y as cbdata; any thread. */
void sxr_sync_opcb(pmix_status_t status, void *cbdata);
/* Returns the callback's status, or PMIX_ERR_TIMEOUT after seconds. */
pmix_status_t sxr_sync_wait(sxr_sync_t *y, int seconds);

#endif
