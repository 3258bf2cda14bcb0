/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.c - the process's own event handlers, whatever its role (client,
 * tool or server): the registry and the delivery of one event down the
 * chain of matching handlers.
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
 * (PMIX_EVENT_RETURN_OBJECT, a pointer). A handler registered with
 * PMIX_EVENT_AFFECTED_PROC or _PROCS gets only the events whose affected
 * procs include one of those (an event that names none is not for it).
 *
 * The event thread: in a client or tool, handlers run in a thread of
 * their own (started at the first event, joined at the last finalize), not
 * in the progress thread, so that a handler may make blocking PMIx calls
 * that need the server (PMIx_Get of a remote key, PMIx_Fence, ...), a
 * common pattern in real programs. In a server process the server's own
 * handlers run in the progress thread (the server module owns that
 * process's lifetime), where blocking calls fail with PMIX_ERR_WOULD_BLOCK.
 *
 * The PMIx API on top (registration, notification, events from the
 * server) is the client module's (client/event.c); the server module
 * delivers to this process's handlers through pxc_event_local_deliver.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxc.h"
#include "progress.h"
#include "common/event.h"

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
	pmix_proc_t *affected; /* PMIX_EVENT_AFFECTED_PROC(S) at registration */
	size_t naffected;
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
		free(h->affected);
		free(h);
	}
}

static const char *info_str(const pmix_info_t *i)
{
	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* Where to link h in list: returns the link pointer to insert at. */
static struct hdlr **insert_point(struct hdlr **list, const struct hdlr *h, const char *before,
				  const char *after)
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

/* The procs of PMIX_EVENT_AFFECTED_PROC (one) or PMIX_EVENT_AFFECTED_PROCS
 * (an array) in info: a borrowed pointer and their number, or NULL. */
static const pmix_proc_t *affected_of(const pmix_info_t *info, size_t ninfo, size_t *n)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_EVENT_AFFECTED_PROC);
	const pmix_data_array_t *da;

	*n = 0;
	if (i && i->value.type == PMIX_PROC && i->value.data.proc) {
		*n = 1;
		return i->value.data.proc;
	}
	i = pxc_info_find(info, ninfo, PMIX_EVENT_AFFECTED_PROCS);
	if (!i || i->value.type != PMIX_DATA_ARRAY || !(da = i->value.data.darray) ||
	    da->type != PMIX_PROC || !da->array || !da->size)
		return NULL;
	*n = da->size;
	return da->array;
}

/* A handler registered for some affected procs sees only the events that
 * name one of them (a wildcard rank stands for its namespace). */
static bool affects(const struct hdlr *h, const pmix_proc_t *ev, size_t nev)
{
	if (!h->naffected)
		return true;
	for (size_t i = 0; i < h->naffected; i++)
		for (size_t k = 0; k < nev; k++)
			if (PMIx_Check_nspace(h->affected[i].nspace, ev[k].nspace) &&
			    (h->affected[i].rank == PMIX_RANK_WILDCARD ||
			     ev[k].rank == PMIX_RANK_WILDCARD || h->affected[i].rank == ev[k].rank))
				return true;
	return false;
}

static struct hdlr *hdlr_new(const pmix_status_t *codes, size_t ncodes, const pmix_info_t *info,
			     size_t ninfo, pmix_notification_fn_t fn)
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
	{
		size_t n;
		const pmix_proc_t *a = affected_of(info, ninfo, &n);

		if (n && !(h->affected = malloc(n * sizeof(*a)))) {
			hdlr_free(h);
			return NULL;
		}
		if (n)
			memcpy(h->affected, a, n * sizeof(*a));
		h->naffected = n;
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

pmix_status_t pxc_event_hdlr_add(const pmix_status_t *codes, size_t ncodes, const pmix_info_t *info,
				 size_t ninfo, pmix_notification_fn_t fn, size_t *id)
{
	struct hdlr *h = hdlr_new(codes, ncodes, info, ninfo, fn);
	pmix_status_t st;

	if (!h)
		return PMIX_ERR_NOMEM;
	if ((st = hdlr_link(h, info, ninfo)) != PMIX_SUCCESS) {
		hdlr_free(h);
		return st;
	}
	*id = h->id;
	return PMIX_SUCCESS;
}

bool pxc_event_hdlr_remove(size_t id)
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
	struct chain *qnext; /* event-thread queue link */
	pmix_status_t code;
	pmix_proc_t source;
	pmix_info_t *info; /* ninfo + 1 slots (the last for the return object) */
	size_t ninfo;
	struct snap *h;
	size_t nh, next;
	pmix_info_t *results;
	size_t nresults;
	void (*delivered)(void);                /* once: its first handler returned, or it ended */
	void (*ended)(bool handled, void *arg); /* once: the chain ended */
	void *ended_arg;
};

static void infos_free(pmix_info_t *info, size_t n)
{
	for (size_t i = 0; info && i < n; i++)
		PMIx_Value_destruct(&info[i].value);
	free(info);
}

static void chain_free(struct chain *c)
{
	if (c->delivered)
		c->delivered();
	if (c->ended)
		c->ended(c->nh > 0, c->ended_arg);
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

/* A chain of the one handler id (a cached event for a late registrant),
 * when it still exists and takes the event. */
static size_t chain_snapshot_one(struct chain *c, size_t id)
{
	size_t nev;
	const pmix_proc_t *ev = affected_of(c->info, c->ninfo, &nev);

	pthread_mutex_lock(&ev_lock);
	for (int cat = 0; cat < NCAT && !c->nh; cat++)
		for (struct hdlr *h = lists[cat]; h && !c->nh; h = h->next) {
			if (h->id != id || !hdlr_matches(h, c->code) || !affects(h, ev, nev) ||
			    !(c->h = calloc(1, sizeof(*c->h))))
				continue;
			c->h[c->nh++] = (struct snap){ h->id, h->fn, h->obj, h->has_obj };
		}
	pthread_mutex_unlock(&ev_lock);
	return c->nh;
}

static size_t chain_snapshot(struct chain *c, bool nondefault)
{
	size_t n = 0, nev;
	const pmix_proc_t *ev = affected_of(c->info, c->ninfo, &nev);

	pthread_mutex_lock(&ev_lock);
	for (int cat = 0; cat < NCAT; cat++)
		for (struct hdlr *h = lists[cat]; h; h = h->next)
			n++;
	c->h = n ? calloc(n, sizeof(*c->h)) : NULL;
	for (int cat = 0; c->h && cat < NCAT; cat++) {
		if (cat == CAT_DEFAULT && nondefault)
			break;
		for (struct hdlr *h = lists[cat]; h; h = h->next) {
			if (!hdlr_matches(h, c->code) || !affects(h, ev, nev))
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
	void (*delivered)(void);
	struct snap *s;
	size_t n = c->ninfo;

	if (c->next >= c->nh) {
		chain_free(c);
		return;
	}
	s = &c->h[c->next++];
	delivered = c->delivered; /* c may be gone when fn returns */
	c->delivered = NULL;
	if (s->has_obj) {
		snprintf(c->info[n].key, sizeof(c->info[n].key), "%s", PMIX_EVENT_RETURN_OBJECT);
		c->info[n].flags = PMIX_INFO_ARRAY_END;
		c->info[n].value.type = PMIX_POINTER;
		c->info[n].value.data.ptr = s->obj;
		n++;
	}
	s->fn(s->id, c->code, &c->source, c->info, n, c->results, c->nresults, chain_cb, c);
	if (delivered)
		delivered();
}

bool pxc_event_custom_has(const pmix_info_t *info, size_t ninfo, const pmix_proc_t *p)
{
	const pmix_info_t *cr = pxc_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
	const pmix_data_array_t *da;

	if (!cr || cr->value.type != PMIX_DATA_ARRAY || !(da = cr->value.data.darray) ||
	    da->type != PMIX_PROC || !da->array)
		return false;
	for (size_t i = 0; i < da->size; i++) {
		const pmix_proc_t *q = (const pmix_proc_t *)da->array + i;

		if (strncmp(q->nspace, p->nspace, PMIX_MAX_NSLEN) == 0 &&
		    (q->rank == p->rank || q->rank == PMIX_RANK_WILDCARD))
			return true;
	}
	return false;
}

void pxc_event_local_deliver_then(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
				  void (*delivered)(void))
{
	pxc_event_local_deliver_to(0, code, source, range, info, ninfo, delivered, NULL, NULL);
}

void pxc_event_local_deliver_to(size_t id, pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
				void (*delivered)(void), void (*ended)(bool handled, void *arg),
				void *ended_arg)
{
	struct chain *c;

	(void)range;
	if (!pxc_progress_global() || !(c = calloc(1, sizeof(*c)))) {
		if (delivered)
			delivered();
		if (ended)
			ended(false, ended_arg);
		return;
	}
	c->code = code;
	c->delivered = delivered;
	c->ended = ended;
	c->ended_arg = ended_arg;
	if (source)
		c->source = *source;
	if (!(c->info = calloc(ninfo + 1, sizeof(*c->info)))) {
		free(c);
		if (delivered)
			delivered();
		if (ended)
			ended(false, ended_arg);
		return;
	}
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Info_xfer(&c->info[c->ninfo], &info[i]) == PMIX_SUCCESS)
			c->ninfo++;
	if ((id ? chain_snapshot_one(c, id) :
		  chain_snapshot(c, pxc_info_flag(info, ninfo, PMIX_EVENT_NON_DEFAULT))) == 0 ||
	    evq_post(c) != 0)
		chain_free(c);
}

void pxc_event_local_deliver(pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
			     const pmix_info_t *info, size_t ninfo)
{
	pxc_event_local_deliver_then(code, source, range, info, ninfo, NULL);
}

bool pxc_event_thread_is_self(void)
{
	bool mine;

	pthread_mutex_lock(&evq.lock);
	mine = evq_mine();
	pthread_mutex_unlock(&evq.lock);
	return mine;
}
