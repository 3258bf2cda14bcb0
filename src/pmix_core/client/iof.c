/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.c - PMIx_IOF_pull and PMIx_IOF_deregister for clients (docs/iof.md),
 * and the IOF frames of the server (proto.h).
 *
 * A pull is an IOF_PULL whose reply, with the handler id, comes on the
 * first connection, like the subscription's IOF frames after it: the
 * handler exists in the progress thread before any of its frames is
 * read. The blocking form (no registration callback) waits for that reply
 * and returns the id (>= 0); the other returns at once and its callback
 * runs after the call returned, never inside it. Each frame's bytes go to
 * the handler's output callback in the progress thread (it must not make
 * blocking PMIx calls), or, without one, to this process's stdout (stderr
 * for stderr and stddiag). A deregistration is an IOF_DEREG on the same
 * connection: what the server flushed arrives before its reply, and the
 * handler is gone when its callback runs, so nothing comes after it. An
 * id not pulled here is PMIX_ERR_BAD_PARAM. IOF frames do not count for
 * the event marks (direct.c): the replies that matter come after them on
 * the same connection.
 * A server process's own pulls are not served yet (PMIX_ERR_NOT_SUPPORTED).
 * PMIx_IOF_push is push.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "client/conn.h"
#include "client/iof.h"
#include "client/request.h"
#include "pack.h"
#include "progress.h"
#include "proto.h"
#include "pxc.h"

/* A handler of this process: the server's id and the output callback. */
typedef struct hdlr {
	struct hdlr *next;
	size_t id;
	pmix_iof_cbfunc_t cbfunc;
} hdlr_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hdlr_t *hdlrs;

static hdlr_t *find(size_t id)
{
	for (hdlr_t *h = hdlrs; h; h = h->next)
		if (h->id == id)
			return h;
	return NULL;
}

static void forget(size_t id)
{
	for (hdlr_t **pp = &hdlrs; *pp; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			hdlr_t *h = *pp;

			*pp = h->next;
			free(h);
			return;
		}
}

void pxc_iof_release_all(void)
{
	pthread_mutex_lock(&lock);
	while (hdlrs) {
		hdlr_t *h = hdlrs;

		hdlrs = h->next;
		free(h);
	}
	pthread_mutex_unlock(&lock);
}

/* ---- frames ---- */

static void write_out(pmix_iof_channel_t ch, const char *p, size_t n)
{
	int fd = ch == PMIX_FWD_STDERR_CHANNEL || ch == PMIX_FWD_STDDIAG_CHANNEL ? 2 : 1;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return; /* nowhere to write: dropped */
		p += w;
		n -= (size_t)w;
	}
}

void pxc_iof_handle_msg(uint32_t tag, pmix_data_buffer_t *payload)
{
	pmix_proc_t src;
	uint16_t ch;
	pmix_byte_object_t bo = { NULL, 0 };
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	int32_t one = 1;
	pmix_iof_cbfunc_t cb = NULL;
	hdlr_t *h;
	bool known;

	if (pxc_unpack_proc(payload, &src) != PMIX_SUCCESS ||
	    pxc_unpack(payload, &ch, &one, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_unpack(payload, &bo, &one, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
	    pxc_unpack_array(payload, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_error("client: malformed IOF from server dropped");
		free(bo.bytes);
		return;
	}
	pthread_mutex_lock(&lock);
	h = find(tag);
	known = h != NULL;
	cb = h ? h->cbfunc : NULL;
	pthread_mutex_unlock(&lock);
	if (!known)
		pxc_debug("client: IOF for handler %u, not ours (any more): dropped", tag);
	else if (cb)
		cb(tag, ch, &src, &bo, info, ninfo);
	else
		write_out(ch, bo.bytes, bo.size);
	free(bo.bytes);
	pxc_array_free(info, ninfo, PMIX_INFO);
}

/* ---- pull ---- */

typedef struct {
	pthread_mutex_t m;
	pxc_sync_t sync; /* the blocking form */
	bool blocking, returned, done;
	pmix_status_t st;
	size_t id;
	pmix_iof_cbfunc_t cbfunc;
	pmix_hdlr_reg_cbfunc_t regcb;
	void *regcbdata;
} pull_t;

static void pull_free(pull_t *p)
{
	pthread_mutex_destroy(&p->m);
	free(p);
}

static void pull_report(void *arg)
{
	pull_t *p = arg;

	p->regcb(p->st, p->id, p->regcbdata);
	pull_free(p);
}

/* The reply (progress thread): the handler exists before its frames. */
static void pulled(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	pull_t *p = arg;
	hdlr_t *h = NULL;
	int32_t one = 1;
	bool now;

	if (st == PMIX_SUCCESS && pxc_unpack(reply, &p->id, &one, PMIX_SIZE) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && !(h = calloc(1, sizeof(*h))))
		st = PMIX_ERR_NOMEM;
	if (h) {
		h->id = p->id;
		h->cbfunc = p->cbfunc;
		pthread_mutex_lock(&lock);
		h->next = hdlrs;
		hdlrs = h;
		pthread_mutex_unlock(&lock);
	}
	p->st = st;
	if (p->blocking) {
		pxc_sync_signal(&p->sync, st);
		return;
	}
	pthread_mutex_lock(&p->m);
	p->done = true;
	now = p->returned; /* else the caller reports it, after returning */
	pthread_mutex_unlock(&p->m);
	if (now)
		pull_report(p);
}

/* A request's bound: its PMIX_TIMEOUT, else the library's default. */
static int wait_ms(const pmix_info_t *info, size_t ninfo)
{
	int ms = pxc_request_timeout_ms(info, ninfo);

	return ms > 0 ? ms : pxc_default_timeout() * 1000;
}

static pmix_status_t check_args(const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t directives[], size_t ndirs,
				pmix_iof_channel_t channel)
{
	if (!procs || !nprocs || (!directives && ndirs) || !(channel & PMIX_FWD_ALL_CHANNELS))
		return PMIX_ERR_BAD_PARAM;
	if (channel & PMIX_FWD_STDIN_CHANNEL)
		return PMIX_ERR_NOT_SUPPORTED; /* stdin is pushed, not pulled */
	return pxc_request_ready();
}

pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
			    pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = check_args(procs, nprocs, directives, ndirs, channel);
	pull_t *p;
	bool now;

	if (st != PMIX_SUCCESS)
		return st;
	if (!(p = calloc(1, sizeof(*p))))
		return PMIX_ERR_NOMEM;
	pthread_mutex_init(&p->m, NULL);
	p->blocking = !regcbfunc;
	p->cbfunc = cbfunc;
	p->regcb = regcbfunc;
	p->regcbdata = regcbdata;
	if (p->blocking &&
	    pxc_progress_in_thread(pxc_cl.pg)) { /* a blocking call there would hang */
		pull_free(p);
		return PMIX_ERR_WOULD_BLOCK;
	}
	if (p->blocking)
		pxc_sync_init(&p->sync);
	pxc_buf_init(&b);
	st = pxc_pack_array(&b, procs, nprocs, PMIX_PROC);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(&b, &channel, 1, PMIX_UINT16);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&b, directives, ndirs, PMIX_INFO);
	if (st == PMIX_SUCCESS) /* the request's timer ends even a silent server's wait */
		st = pxc_client_send(PXC_CMD_IOF_PULL, &b, wait_ms(directives, ndirs), pulled, p);
	pxc_buf_clear(&b);
	if (st != PMIX_SUCCESS) {
		if (p->blocking)
			pxc_sync_fini(&p->sync);
		pull_free(p);
		return st;
	}
	if (p->blocking) { /* the request ends (reply, timer, lost server) */
		st = pxc_sync_wait(&p->sync, -1);
		pxc_sync_fini(&p->sync);
		if (st == PMIX_SUCCESS)
			st = p->id <= INT32_MAX ? (pmix_status_t)p->id : PMIX_ERR_OUT_OF_RESOURCE;
		pull_free(p);
		return st;
	}
	pthread_mutex_lock(&p->m);
	p->returned = true;
	now = p->done;
	pthread_mutex_unlock(&p->m);
	if (now && pxc_progress_post(pxc_cl.pg, pull_report, p) != 0)
		pull_report(p); /* (no engine: report here, after all) */
	return PMIX_SUCCESS;
}

/* ---- deregister ---- */

typedef struct {
	size_t id;
	pxc_sync_t sync;
	bool blocking;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
} dereg_t;

static void deregistered(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	dereg_t *d = arg;

	(void)reply;
	pthread_mutex_lock(&lock);
	forget(d->id); /* the flushed frames came before this reply */
	pthread_mutex_unlock(&lock);
	if (d->blocking) {
		pxc_sync_signal(&d->sync, st);
		return;
	}
	if (d->cbfunc)
		d->cbfunc(st, d->cbdata);
	free(d);
}

pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[], size_t ndirs,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = (!directives && ndirs) ? PMIX_ERR_BAD_PARAM : pxc_request_ready();
	dereg_t *d;
	bool ours;

	if (st != PMIX_SUCCESS)
		return st;
	pthread_mutex_lock(&lock);
	ours = find(iofhdlr) != NULL;
	pthread_mutex_unlock(&lock);
	if (!ours)
		return PMIX_ERR_BAD_PARAM;
	if (!cbfunc && pxc_progress_in_thread(pxc_cl.pg))
		return PMIX_ERR_WOULD_BLOCK;
	if (!(d = calloc(1, sizeof(*d))))
		return PMIX_ERR_NOMEM;
	*d = (dereg_t){ .id = iofhdlr, .blocking = !cbfunc, .cbfunc = cbfunc, .cbdata = cbdata };
	if (d->blocking)
		pxc_sync_init(&d->sync);
	pxc_buf_init(&b);
	st = pxc_pack(&b, &iofhdlr, 1, PMIX_SIZE);
	if (st == PMIX_SUCCESS)
		st = pxc_client_send(PXC_CMD_IOF_DEREG, &b, wait_ms(directives, ndirs),
				     deregistered, d);
	pxc_buf_clear(&b);
	if (st == PMIX_SUCCESS && d->blocking)
		st = pxc_sync_wait(&d->sync, -1);
	if (d->blocking)
		pxc_sync_fini(&d->sync);
	if (d->blocking || st != PMIX_SUCCESS)
		free(d);
	return st;
}
