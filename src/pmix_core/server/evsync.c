/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evsync.c - synchronous events: the host raises an event and waits until
 * every local recipient's handler chain has completed (docs/events.md,
 * "synchronous events").
 *
 * The event goes, like any other (event.c), to the local clients in range
 * that registered for its code, but with PXC_EVENT_SYNC_ID in its infos:
 * the client library strips it, runs the chain and, once the chain has
 * ended (every handler called back, or one said
 * PMIX_EVENT_ACTION_COMPLETE), sends EVENT_DONE with the id and whether
 * any handler of the process took the event (proto.h). The operation ends
 * when every recipient answered or left, or at its timeout, whichever
 * comes first, and the host learns:
 *   PMIX_SUCCESS              every recipient answered, one or more had a
 *                             handler for it;
 *   PMIX_ERR_NOT_FOUND        nobody had a handler (no recipient, or none
 *                             whose chain took it): no disposition, known
 *                             at once when nobody registered;
 *   PMIX_ERR_TIMEOUT          some had not answered at the timeout;
 *   PMIX_ERR_PARTIAL_SUCCESS  some left without answering;
 * with the procs that did not answer. Synchronous events are not cached
 * for late registrants (they are answered now or never) and do not count
 * against the event queue bound (the host raises few).
 * Progress thread, except pxc_server_notify_sync's entry.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "internal.h"
#include "server.h"
#include "proto.h"
#include "peer.h"
#include "server/event.h"
#include "evsync.h"

typedef struct sync_op {
	struct sync_op *next;
	uint32_t id;
	pmix_status_t code;
	pmix_proc_t source;
	pmix_data_range_t range;
	pmix_info_t *info; /* stamped (event.c); the id goes on when sent */
	size_t ninfo;
	int timeout_ms;
	uint64_t *peer; /* 0 once that one answered or left */
	pmix_proc_t *proc;
	size_t n, left, handled;
	bool gone; /* someone left without answering */
	struct event *timer;
	pxc_sync_event_cbfunc_t cbfunc;
	void *cbdata;
} sync_op_t;

static sync_op_t *ops;
static uint32_t last_id;

static void op_free(sync_op_t *o)
{
	if (o->timer)
		event_free(o->timer);
	if (o->info)
		PMIx_Info_free(o->info, o->ninfo);
	free(o->peer);
	free(o->proc);
	free(o);
}

static void op_unlink(sync_op_t *o)
{
	for (sync_op_t **pp = &ops; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			return;
		}
}

/* Ends o: the host hears the outcome and who did not answer. */
static void op_end(sync_op_t *o, pmix_status_t st)
{
	pmix_proc_t *un = NULL;
	size_t nun = 0;

	op_unlink(o);
	if (st == PMIX_SUCCESS && (o->left || o->gone))
		st = o->left ? PMIX_ERR_TIMEOUT : PMIX_ERR_PARTIAL_SUCCESS;
	if (st == PMIX_SUCCESS && !o->handled)
		st = PMIX_ERR_NOT_FOUND;
	if (o->left || o->gone) {
		un = o->proc; /* in place: the ones that did not answer */
		for (size_t i = 0; i < o->n; i++)
			if (o->proc[i].rank != PMIX_RANK_INVALID)
				un[nun++] = o->proc[i];
	}
	if (o->cbfunc)
		o->cbfunc(st, o->handled, un, nun, o->cbdata);
	op_free(o);
}

/* One recipient is done with it: i answered (handled or not), or left. */
static void answered(sync_op_t *o, size_t i, bool handled, bool left)
{
	if (!o->peer[i])
		return;
	o->peer[i] = 0;
	if (left) {
		o->gone = true; /* its proc stays named */
	} else {
		o->proc[i].rank = PMIX_RANK_INVALID; /* not among the unanswered */
		if (handled)
			o->handled++;
	}
	if (--o->left == 0)
		op_end(o, PMIX_SUCCESS);
}

static void timed_out(int fd, short what, void *arg)
{
	sync_op_t *o = arg;

	(void)fd, (void)what;
	op_end(o, PMIX_ERR_TIMEOUT); /* those that answered are not named */
}

/* The EVENT: o's infos and PXC_EVENT_SYNC_ID. 0, or -1 (msg empty). */
static int pack_sync(pmix_data_buffer_t *msg, const sync_op_t *o)
{
	pmix_info_t *all = PMIx_Info_create(o->ninfo + 1);
	int rc;

	pxc_buf_init(msg);
	if (!all)
		return -1;
	for (size_t i = 0; i < o->ninfo; i++)
		PMIx_Info_xfer(&all[i], &o->info[i]);
	PMIx_Info_load(&all[o->ninfo], PXC_EVENT_SYNC_ID, &o->id, PMIX_UINT32);
	rc = pxc_pack_status(msg, o->code) != PMIX_SUCCESS ||
			     pxc_pack_proc(msg, &o->source) != PMIX_SUCCESS ||
			     pxc_pack(msg, &o->range, 1, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
			     pxc_pack_array(msg, all, o->ninfo + 1, PMIX_INFO) != PMIX_SUCCESS ?
		     -1 :
		     0;
	PMIx_Info_free(all, o->ninfo + 1);
	if (rc < 0)
		pxc_buf_clear(msg);
	return rc;
}

/* A fresh id, never 0. */
static uint32_t new_id(void)
{
	if (++last_id == 0)
		last_id = 1;
	return last_id;
}

static void start(void *arg)
{
	sync_op_t *o = arg;
	pmix_data_buffer_t msg;
	size_t npeers = 0;
	struct timeval tv = { o->timeout_ms / 1000, (o->timeout_ms % 1000) * 1000 };

	if (!pxc_srv.running) {
		op_end(o, PMIX_ERR_INIT);
		return;
	}
	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		npeers++;
	o->id = new_id();
	if (!(o->peer = calloc(npeers + 1, sizeof(*o->peer))) ||
	    !(o->proc = calloc(npeers + 1, sizeof(*o->proc))) || pack_sync(&msg, o) < 0) {
		op_end(o, PMIX_ERR_NOMEM);
		return;
	}
	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next) {
		if (!pxc_event_recipient(p, o->code, &o->source, o->range, o->info, o->ninfo))
			continue;
		if (pxc_peer_send_event_tag(p, 0, &msg) == 0) {
			o->peer[o->n] = p->id;
			o->proc[o->n++] = p->proc;
		}
	}
	pxc_buf_clear(&msg);
	o->left = o->n;
	if (!o->n) {
		op_end(o, PMIX_SUCCESS); /* nobody: no disposition */
		return;
	}
	o->next = ops;
	ops = o;
	if (!(o->timer = evtimer_new(pxc_srv.base, timed_out, o)) || evtimer_add(o->timer, &tv) < 0)
		op_end(o, PMIX_ERR_NOMEM); /* never a wait without an end */
}

pmix_status_t pxc_server_notify_sync(pmix_status_t code, const pmix_proc_t *source,
				     pmix_data_range_t range, const pmix_info_t info[],
				     size_t ninfo, int timeout_ms, pxc_sync_event_cbfunc_t cbfunc,
				     void *cbdata)
{
	sync_op_t *o;

	if (timeout_ms <= 0 || !cbfunc || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if (!(o = calloc(1, sizeof(*o))) || (ninfo && !(o->info = PMIx_Info_create(ninfo)))) {
		free(o);
		return PMIX_ERR_NOMEM;
	}
	o->code = code;
	o->source = source ? *source : pxc_srv.me;
	o->range = range;
	o->timeout_ms = timeout_ms;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&o->info[i], &info[i]);
	o->ninfo = ninfo;
	pxc_event_stamp(&o->info, &o->ninfo);
	if (pxc_srv_post(start, o) < 0) {
		op_free(o);
		return PMIX_ERR_INIT;
	}
	return PMIX_SUCCESS;
}

int pxc_do_event_done(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t id;
	bool handled;
	int32_t one = 1;

	(void)h;
	if (pxc_unpack(in, &id, &one, PMIX_UINT32) != PMIX_SUCCESS ||
	    pxc_unpack(in, &handled, &one, PMIX_BOOL) != PMIX_SUCCESS)
		return -1;
	for (sync_op_t *o = ops; o; o = o->next) {
		if (o->id != id)
			continue;
		for (size_t i = 0; i < o->n; i++)
			if (o->peer[i] == p->id) {
				answered(o, i, handled, false); /* may free o */
				return 0;
			}
		break;
	}
	pxc_debug("server: EVENT_DONE %u from %s:%u for nothing waiting", id, p->proc.nspace,
		  p->proc.rank);
	return 0;
}

void pxc_evsync_peer_gone(uint64_t peer_id)
{
	sync_op_t *o, *next;

	for (o = ops; o; o = next) {
		next = o->next;
		for (size_t i = 0; i < o->n; i++)
			if (o->peer[i] == peer_id) {
				answered(o, i, false, true); /* may free o */
				break;
			}
	}
}

void pxc_evsync_clear(void)
{
	while (ops)
		op_end(ops, PMIX_ERR_INIT);
}
