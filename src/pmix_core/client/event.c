/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.c - event handlers: PMIx_Register_event_handler,
 * PMIx_Deregister_event_handler, PMIx_Notify_event, EVENT messages from the
 * server and pxc_event_local_deliver() for the server module.
 *
 * Handlers live in three ordered lists under ev_lock: single-code,
 * multi-code and default (no codes). Within a list, PMIX_EVENT_HDLR_FIRST
 * (or FIRST_IN_CATEGORY) goes to the front, PREPEND after the "first"
 * ones, APPEND (the default) before the "last" ones, LAST at the end;
 * PMIX_EVENT_HDLR_BEFORE/AFTER place a handler next to a named one.
 *
 * Delivering an event takes a snapshot of the matching handlers and runs
 * them one at a time in the event thread: each handler gets the event,
 * the results accumulated so far and the chain callback; when it calls
 * back (from any thread, now or later) the next step is queued again.
 * PMIX_EVENT_ACTION_COMPLETE ends the chain. A handler registered with
 * PMIX_EVENT_RETURN_OBJECT finds that object as the last info
 * (PMIX_EVENT_RETURN_OBJECT, a pointer).
 *
 * The event thread: in a client or tool, handlers run in a thread of
 * their own (started at the first event, joined at the last finalize), not
 * in the progress thread, so that a handler may make blocking PMIx calls
 * that need the server (PMIx_Get of a remote key, PMIx_Fence, ...), a
 * common pattern in real programs. In a server process the server's own
 * handlers run in the progress thread (the server module owns that
 * process's lifetime), where blocking calls fail with PMIX_ERR_WOULD_BLOCK.
 *
 * Registration completes asynchronously like OpenPMIx's: the REGEVENTS
 * reply (or, without a server, the next progress-loop turn) calls the
 * pmix_hdlr_reg_cbfunc_t with the handler id; with cbfunc NULL the call
 * blocks and returns the id (>= 1) or an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "request.h"
#include "event.h"
#include "server/server.h"

enum { CAT_SINGLE, CAT_MULTI, CAT_DEFAULT, NCAT };
enum { POS_FIRST, POS_PREPEND, POS_APPEND, POS_LAST };

struct hdlr {
	struct hdlr *next;
	size_t id;
	int pos;
	pmix_status_t *codes;
	size_t ncodes;
	char *name;
	pmix_notification_fn_t fn;
	void *obj;
	bool has_obj;
};

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hdlr *lists[NCAT];
static size_t next_id = 1;

/* ---- registry ---- */

static void hdlr_free(struct hdlr *h)
{
	if (h) {
		free(h->codes);
		free(h->name);
		free(h);
	}
}

static const char *info_str(const pmix_info_t *i)
{
	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* Where to link h in list: returns the link pointer to insert at. */
static struct hdlr **insert_point(struct hdlr **list, const struct hdlr *h,
				  const char *before, const char *after)
{
	struct hdlr **pp;

	for (pp = list; *pp; pp = &(*pp)->next) {
		if (before && (*pp)->name && strcmp((*pp)->name, before) == 0)
			return pp;
		if (after && (*pp)->name && strcmp((*pp)->name, after) == 0)
			return &(*pp)->next;
	}
	for (pp = list; *pp; pp = &(*pp)->next) {
		if (h->pos == POS_FIRST)
			break;
		if (h->pos == POS_PREPEND && (*pp)->pos != POS_FIRST)
			break;
		if (h->pos == POS_APPEND && (*pp)->pos == POS_LAST)
			break;
	}
	return pp;
}

static int position(const pmix_info_t *info, size_t ninfo)
{
	if (pxc_info_flag(info, ninfo, PMIX_EVENT_HDLR_FIRST) ||
	    pxc_info_flag(info, ninfo, PMIX_EVENT_HDLR_FIRST_IN_CATEGORY))
		return POS_FIRST;
	if (pxc_info_flag(info, ninfo, PMIX_EVENT_HDLR_LAST) ||
	    pxc_info_flag(info, ninfo, PMIX_EVENT_HDLR_LAST_IN_CATEGORY))
		return POS_LAST;
	if (pxc_info_flag(info, ninfo, PMIX_EVENT_HDLR_PREPEND))
		return POS_PREPEND;
	return POS_APPEND;
}

static struct hdlr *hdlr_new(const pmix_status_t *codes, size_t ncodes,
			     const pmix_info_t *info, size_t ninfo,
			     pmix_notification_fn_t fn)
{
	struct hdlr *h = calloc(1, sizeof(*h));
	const pmix_info_t *i;

	if (!h)
		return NULL;
	if (ncodes && !(h->codes = malloc(ncodes * sizeof(*codes)))) {
		free(h);
		return NULL;
	}
	if (ncodes)
		memcpy(h->codes, codes, ncodes * sizeof(*codes));
	h->ncodes = ncodes;
	h->fn = fn;
	h->pos = position(info, ninfo);
	if (info_str(i = pxc_info_find(info, ninfo, PMIX_EVENT_HDLR_NAME)))
		h->name = strdup(info_str(i));
	if ((i = pxc_info_find(info, ninfo, PMIX_EVENT_RETURN_OBJECT))) {
		h->has_obj = true;
		h->obj = i->value.data.ptr;
	}
	return h;
}

/* Links h and gives it an id; PMIX_ERR_EVENT_REGISTRATION when a second
 * handler asks to be FIRST or LAST of its category. */
static pmix_status_t hdlr_link(struct hdlr *h, const pmix_info_t *info, size_t ninfo)
{
	int cat = h->ncodes == 0 ? CAT_DEFAULT : h->ncodes == 1 ? CAT_SINGLE : CAT_MULTI;
	const char *before = info_str(pxc_info_find(info, ninfo, PMIX_EVENT_HDLR_BEFORE));
	const char *after = info_str(pxc_info_find(info, ninfo, PMIX_EVENT_HDLR_AFTER));
	struct hdlr **pp;

	pthread_mutex_lock(&ev_lock);
	for (struct hdlr *o = lists[cat]; o; o = o->next) {
		if ((h->pos == POS_FIRST || h->pos == POS_LAST) && o->pos == h->pos) {
			pthread_mutex_unlock(&ev_lock);
			return PMIX_ERR_EVENT_REGISTRATION;
		}
	}
	pp = insert_point(&lists[cat], h, before, after);
	h->next = *pp;
	*pp = h;
	h->id = next_id++;
	pthread_mutex_unlock(&ev_lock);
	return PMIX_SUCCESS;
}

static bool hdlr_unlink(size_t id)
{
	struct hdlr **pp, *h;

	pthread_mutex_lock(&ev_lock);
	for (int c = 0; c < NCAT; c++) {
		for (pp = &lists[c]; (h = *pp); pp = &h->next) {
			if (h->id == id) {
				*pp = h->next;
				pthread_mutex_unlock(&ev_lock);
				hdlr_free(h);
				return true;
			}
		}
	}
	pthread_mutex_unlock(&ev_lock);
	return false;
}

void pxc_event_release_all(void)
{
	struct hdlr *h;

	pthread_mutex_lock(&ev_lock);
	for (int c = 0; c < NCAT; c++) {
		while ((h = lists[c])) {
			lists[c] = h->next;
			hdlr_free(h);
		}
	}
	pthread_mutex_unlock(&ev_lock);
}

/* ---- the chain ---- */

struct snap {
	size_t id;
	pmix_notification_fn_t fn;
	void *obj;
	bool has_obj;
};

struct chain {
	struct chain *qnext;	/* event-thread queue link */
	pmix_status_t code;
	pmix_proc_t source;
	pmix_info_t *info;	/* ninfo + 1 slots (the last for the return object) */
	size_t ninfo;
	struct snap *h;
	size_t nh, next;
	pmix_info_t *results;
	size_t nresults;
};

static void infos_free(pmix_info_t *info, size_t n)
{
	for (size_t i = 0; info && i < n; i++)
		PMIx_Value_destruct(&info[i].value);
	free(info);
}

static void chain_free(struct chain *c)
{
	infos_free(c->info, c->ninfo + 1);
	infos_free(c->results, c->nresults);
	free(c->h);
	free(c);
}

static bool hdlr_matches(const struct hdlr *h, pmix_status_t code)
{
	for (size_t i = 0; i < h->ncodes; i++)
		if (h->codes[i] == code)
			return true;
	return h->ncodes == 0;
}

static size_t chain_snapshot(struct chain *c, bool nondefault)
{
	size_t n = 0;

	pthread_mutex_lock(&ev_lock);
	for (int cat = 0; cat < NCAT; cat++)
		for (struct hdlr *h = lists[cat]; h; h = h->next)
			n++;
	c->h = n ? calloc(n, sizeof(*c->h)) : NULL;
	for (int cat = 0; c->h && cat < NCAT; cat++) {
		if (cat == CAT_DEFAULT && nondefault)
			break;
		for (struct hdlr *h = lists[cat]; h; h = h->next) {
			if (!hdlr_matches(h, c->code))
				continue;
			c->h[c->nh++] = (struct snap){ h->id, h->fn, h->obj, h->has_obj };
		}
	}
	pthread_mutex_unlock(&ev_lock);
	return c->nh;
}

static void chain_step(void *arg);

/* ---- the event thread ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chain *head, *tail;
	pthread_t thr;
	bool running, stop;
} evq = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* True while the calling thread is the current event thread (a thread
 * detached by a finalize from inside a handler stops being it). Caller
 * holds evq.lock. */
static bool evq_mine(void)
{
	return evq.running && pthread_equal(evq.thr, pthread_self());
}

static void *evq_main(void *arg)
{
	struct chain *c;

	(void)arg;
	pthread_mutex_lock(&evq.lock);
	for (;;) {
		while (!evq.head && !evq.stop && evq_mine())
			pthread_cond_wait(&evq.cond, &evq.lock);
		if (!evq_mine() || !(c = evq.head))
			break;
		if (!(evq.head = c->qnext))
			evq.tail = NULL;
		pthread_mutex_unlock(&evq.lock);
		chain_step(c);
		pthread_mutex_lock(&evq.lock);
	}
	pthread_mutex_unlock(&evq.lock);
	return NULL;
}

/* Queues the next step of c. 0, or -1 when it cannot run (c not queued). */
static int evq_post(struct chain *c)
{
	pxc_progress_t *pg = pxc_progress_global();
	int rc = 0;

	if (pxc_role == PXC_ROLE_SERVER)
		return pg ? pxc_progress_post(pg, chain_step, c) : -1;
	pthread_mutex_lock(&evq.lock);
	if (evq.stop)
		rc = -1;
	else if (!evq.running && pthread_create(&evq.thr, NULL, evq_main, NULL) != 0)
		rc = -1;
	else
		evq.running = true;
	if (rc == 0) {
		c->qnext = NULL;
		if (evq.tail)
			evq.tail->qnext = c;
		else
			evq.head = c;
		evq.tail = c;
		pthread_cond_signal(&evq.cond);
	}
	pthread_mutex_unlock(&evq.lock);
	return rc;
}

void pxc_event_thread_stop(void)
{
	struct chain *drop = NULL, *c;
	pthread_t thr;

	pthread_mutex_lock(&evq.lock);
	if (!evq.running) {
		pthread_mutex_unlock(&evq.lock);
		return;
	}
	thr = evq.thr;
	if (pthread_equal(thr, pthread_self())) {
		/* finalize from inside a handler: the thread ends when the
		 * handler returns; chains still queued are dropped */
		pthread_detach(thr);
		drop = evq.head;
		evq.head = evq.tail = NULL;
		evq.running = false;
		pthread_mutex_unlock(&evq.lock);
		while ((c = drop)) {
			drop = c->qnext;
			chain_free(c);
		}
		return;
	}
	evq.stop = true;
	pthread_cond_signal(&evq.cond);
	pthread_mutex_unlock(&evq.lock);
	pthread_join(thr, NULL);
	pthread_mutex_lock(&evq.lock);
	evq.running = false;
	evq.stop = false;
	pthread_mutex_unlock(&evq.lock);
}

static void chain_next(struct chain *c, bool done)
{
	if (done || c->next >= c->nh || evq_post(c) != 0)
		chain_free(c);
}

static void chain_cb(pmix_status_t status, pmix_info_t *results, size_t nresults,
		     pmix_op_cbfunc_t cbfunc, void *thiscbdata, void *notification_cbdata)
{
	struct chain *c = notification_cbdata;
	pmix_info_t *r;

	if (results && nresults &&
	    (r = realloc(c->results, (c->nresults + nresults) * sizeof(*r)))) {
		c->results = r;
		for (size_t i = 0; i < nresults; i++) {
			memset(&r[c->nresults], 0, sizeof(*r));
			if (PMIx_Info_xfer(&r[c->nresults], &results[i]) == PMIX_SUCCESS)
				c->nresults++;
		}
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, thiscbdata);
	chain_next(c, status == PMIX_EVENT_ACTION_COMPLETE);
}

static void chain_step(void *arg)
{
	struct chain *c = arg;
	struct snap *s;
	size_t n = c->ninfo;

	if (c->next >= c->nh) {
		chain_free(c);
		return;
	}
	s = &c->h[c->next++];
	if (s->has_obj) {
		snprintf(c->info[n].key, sizeof(c->info[n].key), "%s", PMIX_EVENT_RETURN_OBJECT);
		c->info[n].flags = PMIX_INFO_ARRAY_END;
		c->info[n].value.type = PMIX_POINTER;
		c->info[n].value.data.ptr = s->obj;
		n++;
	}
	s->fn(s->id, c->code, &c->source, c->info, n, c->results, c->nresults,
	      chain_cb, c);
}

void pxc_event_local_deliver(pmix_status_t code, const pmix_proc_t *source,
			     pmix_data_range_t range, const pmix_info_t *info,
			     size_t ninfo)
{
	struct chain *c;

	(void)range;
	if (!pxc_progress_global() || !(c = calloc(1, sizeof(*c))))
		return;
	c->code = code;
	if (source)
		c->source = *source;
	if (!(c->info = calloc(ninfo + 1, sizeof(*c->info)))) {
		free(c);
		return;
	}
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Info_xfer(&c->info[c->ninfo], &info[i]) == PMIX_SUCCESS)
			c->ninfo++;
	if (chain_snapshot(c, pxc_info_flag(info, ninfo, PMIX_EVENT_NON_DEFAULT)) == 0 ||
	    evq_post(c) != 0)
		chain_free(c);
}

/* ---- messages from the server ---- */

void pxc_event_handle_msg(pmix_data_buffer_t *payload)
{
	pmix_status_t code;
	pmix_proc_t source;
	pmix_data_range_t range;
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	int32_t n = 1;

	if (pxc_unpack_status(payload, &code) != PMIX_SUCCESS ||
	    pxc_unpack_proc(payload, &source) != PMIX_SUCCESS ||
	    pxc_unpack(payload, &range, &n, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_unpack_array(payload, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_error("client: malformed EVENT from server dropped");
		return;
	}
	/* Our own notifications were delivered locally when raised. */
	if (!(source.rank == pxc_cl.me.rank &&
	      strncmp(source.nspace, pxc_cl.me.nspace, PMIX_MAX_NSLEN) == 0))
		pxc_event_local_deliver(code, &source, range, info, ninfo);
	pxc_array_free(info, ninfo, PMIX_INFO);
}

void pxc_event_lost_connection(void)
{
	pxc_event_local_deliver(PMIX_ERR_LOST_CONNECTION_TO_SERVER, &pxc_cl.server,
				PMIX_RANGE_PROC_LOCAL, NULL, 0);
}

/* ---- registration API ---- */

struct reg {
	size_t id;
	pmix_hdlr_reg_cbfunc_t cb;
	void *cbdata;
};

static void reg_done(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct reg *r = arg;

	(void)reply;
	if (st != PMIX_SUCCESS)
		hdlr_unlink(r->id);
	if (r->cb)
		r->cb(st, r->id, r->cbdata);
	free(r);
}

static void reg_later(void *arg)
{
	reg_done(PMIX_SUCCESS, NULL, arg);
}

static pmix_status_t send_regevents(const pmix_status_t *codes, size_t ncodes,
				    const pmix_info_t *info, size_t ninfo,
				    struct reg *r, bool wait)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	pxc_buf_init(&b);
	if ((st = pxc_pack_array(&b, codes, ncodes, PMIX_STATUS)) == PMIX_SUCCESS)
		st = pxc_pack_array(&b, info, ninfo, PMIX_INFO);
	if (st == PMIX_SUCCESS && wait)
		st = pxc_client_call(PXC_CMD_REGEVENTS, &b, 0, NULL, NULL);
	else if (st == PMIX_SUCCESS)
		st = pxc_client_send(PXC_CMD_REGEVENTS, &b, 0, reg_done, r);
	pxc_buf_clear(&b);
	return st;
}

static pmix_status_t register_async(struct hdlr *h, const pmix_info_t *info, size_t ninfo,
				    pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
	struct reg *r = malloc(sizeof(*r));
	pmix_status_t st = PMIX_ERR_UNREACH;

	if (!r)
		return PMIX_ERR_NOMEM;
	*r = (struct reg){ h->id, cbfunc, cbdata };
	if (pxc_client_ready() == PMIX_SUCCESS && pxc_role != PXC_ROLE_SERVER)
		st = send_regevents(h->codes, h->ncodes, info, ninfo, r, false);
	else if (pxc_progress_global() &&
		 pxc_progress_post(pxc_progress_global(), reg_later, r) == 0)
		st = PMIX_SUCCESS;
	if (st != PMIX_SUCCESS)
		free(r);
	return st;
}

pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
					  pmix_info_t info[], size_t ninfo,
					  pmix_notification_fn_t evhdlr,
					  pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
	struct hdlr *h;
	pmix_status_t st;
	bool wait;

	if (!evhdlr || (!codes && ncodes) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_NONE || !pxc_progress_global())
		return PMIX_ERR_INIT;
	if (!(h = hdlr_new(codes, ncodes, info, ninfo, evhdlr)))
		return PMIX_ERR_NOMEM;
	if ((st = hdlr_link(h, info, ninfo)) != PMIX_SUCCESS) {
		hdlr_free(h);
		return st;
	}
	if (cbfunc)
		st = register_async(h, info, ninfo, cbfunc, cbdata);
	else {
		wait = !pxc_progress_in_thread(pxc_progress_global());
		st = PMIX_SUCCESS;
		if (pxc_client_ready() == PMIX_SUCCESS && pxc_role != PXC_ROLE_SERVER)
			st = wait ? send_regevents(codes, ncodes, info, ninfo, NULL, true)
				  : register_async(h, info, ninfo, NULL, NULL);
	}
	if (st != PMIX_SUCCESS) {
		hdlr_unlink(h->id);
		return st;
	}
	return cbfunc ? PMIX_SUCCESS : (pmix_status_t)h->id;
}

pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
					    void *cbdata)
{
	if (pxc_role == PXC_ROLE_NONE)
		return PMIX_ERR_INIT;
	if (!hdlr_unlink(evhdlr_ref))
		return PMIX_ERR_NOT_FOUND;
	return pxc_client_op_later(PMIX_SUCCESS, cbfunc, cbdata);
}

/* ---- notify ---- */

static pmix_status_t notify_server(pmix_status_t code, const pmix_proc_t *source,
				   pmix_data_range_t range, const pmix_info_t *info,
				   size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	pxc_buf_init(&b);
	if ((st = pxc_pack_status(&b, code)) == PMIX_SUCCESS &&
	    (st = pxc_pack_proc(&b, source)) == PMIX_SUCCESS &&
	    (st = pxc_pack(&b, &range, 1, PMIX_DATA_RANGE)) == PMIX_SUCCESS &&
	    (st = pxc_pack_array(&b, info, ninfo, PMIX_INFO)) == PMIX_SUCCESS)
		return pxc_client_op_nb(PXC_CMD_NOTIFY, &b, 0, false, cbfunc, cbdata);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t info[],
				size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_proc_t src;

	if (!info && ninfo)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_SERVER)
		return pxc_server_notify(status, source, range, info, ninfo, cbfunc, cbdata);
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	src = source ? *source : pxc_cl.me;
	if (range != PMIX_RANGE_RM)
		pxc_event_local_deliver(status, &src, range, info, ninfo);
	if (range == PMIX_RANGE_PROC_LOCAL || pxc_client_ready() != PMIX_SUCCESS)
		return pxc_client_op_later(PMIX_SUCCESS, cbfunc, cbdata);
	return notify_server(status, &src, range, info, ninfo, cbfunc, cbdata);
}
