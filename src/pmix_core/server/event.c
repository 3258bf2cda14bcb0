/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.c - event registration and delivery on the server side.
 *
 * REGEVENTS records, per connection, the codes a client wants (empty =
 * all); matching codes to handlers is the client library's business. The
 * host's register_events is told first when it has one, every code
 * list (none = all) included: the codes take effect and the client gets
 * its answer once the host called back (a host that routes other nodes'
 * events by registration, as the Slurm plugin does, knows by then; its
 * failure does not change our answer). An event reaches a local client
 * when it registered the code (or everything) and is in the event's
 * range:
 *   PROC_LOCAL          nobody else (the source's own library handles it)
 *   NAMESPACE           clients of the source's namespace
 *   CUSTOM              the procs of PMIX_EVENT_CUSTOM_RANGE
 *   anything else       every local client and tool
 * NOTIFY from a client is delivered to the other local clients in range
 * and to the server process's own handlers, and handed to the host's
 * notify_event when the range goes beyond this node; the client's
 * PMIx_Notify_event completes when the host calls back (the event is
 * queued at every recipient's server), or at once when the host declines
 * it (PMIX_ERR_NOT_SUPPORTED: this node only). Every event this server
 * originates (a client's NOTIFY, or pxc_server_notify in the host
 * process) names its source node: PMIX_HOSTNAME, PMIX_NODEID when the host
 * gave one at init, and PMIX_EVENT_TIMESTAMP; one that arrives with them
 * (from another node) keeps them. Events raised inside
 * the server process (pxc_server_notify) are never sent back to the host.
 * Progress thread, except pxc_server_notify's entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "upcall.h"
#include "server.h"
#include "proto.h"
#include "common/event.h"
#include "server/event.h"
#include "peer.h"
#include "evcache.h"
#include "evqueue.h"
#include "group.h"
#include "pmix_slurmix.h"

/* ------------------------------------------------------------ REGEVENTS */

/* Takes the handler id (PXC_REG_HDLR_ID, proto.h) out of a registration's
 * infos: the id (0 when absent or not a SIZE below 2^31). */
static uint32_t take_hdlr_id(pmix_info_t *info, size_t *ninfo)
{
	pmix_info_t t;
	uint32_t id = 0;

	if (!pxc_info_take(info, ninfo, PXC_REG_HDLR_ID, &t))
		return 0;
	if (t.value.type == PMIX_SIZE && t.value.data.size > 0 && t.value.data.size < 0x80000000u)
		id = (uint32_t)t.value.data.size;
	PMIx_Info_destruct(&t);
	return id;
}

/* Records codes (n of them; none = every code) as p's. PMIX_SUCCESS or
 * PMIX_ERR_NOMEM. */
static pmix_status_t record_codes(pxc_peer_t *p, const pmix_status_t *codes, size_t n)
{
	pmix_status_t *grown;

	if (n == 0) {
		p->ev_all = true;
		return PMIX_SUCCESS;
	}
	if (p->nev_codes + n >= 4096 ||
	    !(grown = realloc(p->ev_codes, (p->nev_codes + n) * sizeof(*grown))))
		return PMIX_ERR_NOMEM;
	memcpy(grown + p->nev_codes, codes, n * sizeof(*codes));
	p->ev_codes = grown;
	p->nev_codes += n;
	return PMIX_SUCCESS;
}

/* The codes become p's, p gets its answer, then the cached events of
 * them for its handler hdlr (after the reply: the handler exists by the
 * time these come). */
static void regevents_finish(pxc_peer_t *p, uint32_t tag, const pmix_status_t *codes, size_t n,
			     uint32_t hdlr)
{
	pmix_status_t st = record_codes(p, codes, n);

	pxc_peer_reply(p, PXC_CMD_REGEVENTS, tag, st, NULL);
	if (st == PMIX_SUCCESS && hdlr)
		pxc_evcache_replay(p, codes, n, hdlr);
}

/* The host took the registration (or failed to: events from elsewhere
 * may then miss this client until it registers again; ours is still a
 * success, for this node's events). */
static void regevents_told(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pxc_peer_t *p = r->peer_id ? pxc_peer_find(r->peer_id) : NULL;

	if (res->status != PMIX_SUCCESS && res->status != PMIX_OPERATION_SUCCEEDED)
		pxc_debug("register_events: the host answered %d", res->status);
	if (p)
		regevents_finish(p, r->tag, r->a.codes, r->a.ncodes, (uint32_t)(uintptr_t)r->ctx);
}

int pxc_do_regevents(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_status_t *codes = NULL;
	pmix_info_t *info = NULL;
	size_t n = 0, ninfo = 0, nalloc;
	pxc_upcall_t *r;
	uint32_t hdlr;

	if (pxc_unpack_array(in, (void **)&codes, &n, PMIX_STATUS) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		free(codes);
		return -1;
	}
	nalloc = ninfo;
	hdlr = take_hdlr_id(info, &ninfo);
	if (n > 4096) {
		free(codes);
		pxc_array_free(info, nalloc, PMIX_INFO);
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	}
	/* The host first (it may route events from elsewhere here only
	 * once it knows): the answer and the codes wait for it. */
	if (pxc_srv.module.register_events &&
	    (r = pxc_upcall_new(p, h->tag, PXC_CMD_REGEVENTS, regevents_told))) {
		r->ctx = (void *)(uintptr_t)hdlr;
		r->a.codes = codes;
		r->a.ncodes = n;
		r->a.info = info;
		r->a.ninfo = ninfo; /* what take_hdlr_id emptied needs no destructing */
		pxc_upcall_after_call(r, pxc_srv.module.register_events(r->a.codes, r->a.ncodes,
									r->a.info, r->a.ninfo,
									pxc_upcall_cb_op,
									PXC_UPCALL_CBDATA(r)));
		return 0;
	}
	regevents_finish(p, h->tag, codes, n, hdlr);
	free(codes);
	pxc_array_free(info, nalloc, PMIX_INFO);
	return 0;
}

/* ------------------------------------------------------------- delivery */

static bool wanted(const pxc_peer_t *p, pmix_status_t code)
{
	if (p->ev_all)
		return true;
	for (size_t i = 0; i < p->nev_codes; i++)
		if (p->ev_codes[i] == code)
			return true;
	return false;
}

bool pxc_event_in_range(const pxc_peer_t *p, const pmix_proc_t *src, pmix_data_range_t range,
			const pmix_info_t *info, size_t ninfo)
{
	switch (range) {
	case PMIX_RANGE_PROC_LOCAL: return false;
	case PMIX_RANGE_NAMESPACE: /* a tool watches the jobs of its server */
		return p->kind == PXC_PEER_TOOL ||
		       strncmp(p->proc.nspace, src->nspace, PMIX_MAX_NSLEN) == 0;
	case PMIX_RANGE_CUSTOM: return pxc_event_custom_has(info, ninfo, &p->proc);
	default: return true;
	}
}

bool pxc_event_recipient(const pxc_peer_t *p, pmix_status_t code, const pmix_proc_t *src,
			 pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
	return p->hello && !p->finalized && wanted(p, code) &&
	       pxc_event_in_range(p, src, range, info, ninfo);
}

static pmix_status_t pack_event(pmix_data_buffer_t *msg, pmix_status_t code, const pmix_proc_t *src,
				pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
	pmix_status_t st;

	pxc_buf_init(msg);
	st = pxc_pack_status(msg, code);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_proc(msg, src);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(msg, &range, 1, PMIX_DATA_RANGE);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(msg, info, ninfo, PMIX_INFO);
	return st;
}

/* The infos of an event with SLURMIX_EVENT_CACHE_DROPPED added (the
 * cache's losses the recipient was not told of, dropped > 0); NULL on
 * ENOMEM. */
static pmix_info_t *with_dropped(const pmix_info_t *info, size_t ninfo, uint32_t dropped)
{
	pmix_info_t *out = PMIx_Info_create(ninfo + 1);

	if (!out)
		return NULL;
	for (size_t k = 0; k < ninfo; k++)
		PMIx_Info_xfer(&out[k], &info[k]);
	PMIx_Info_load(&out[ninfo], SLURMIX_EVENT_CACHE_DROPPED, &dropped, PMIX_UINT32);
	return out;
}

int pxc_event_with_dropped(const pmix_data_buffer_t *msg, uint32_t dropped, pmix_data_buffer_t *out)
{
	pmix_data_buffer_t in = { 0 };
	pmix_status_t code, st;
	pmix_proc_t src;
	pmix_data_range_t range;
	pmix_info_t *info = NULL, *rep = NULL;
	size_t ninfo = 0;
	int32_t one = 1;

	if (pxc_buf_load_copy(&in, msg->base_ptr, msg->bytes_used) < 0)
		return -1;
	st = pxc_unpack_status(&in, &code);
	if (st == PMIX_SUCCESS)
		st = pxc_unpack_proc(&in, &src);
	if (st == PMIX_SUCCESS)
		st = pxc_unpack(&in, &range, &one, PMIX_DATA_RANGE);
	if (st == PMIX_SUCCESS)
		st = pxc_unpack_array(&in, (void **)&info, &ninfo, PMIX_INFO);
	if (st == PMIX_SUCCESS && !(rep = with_dropped(info, ninfo, dropped)))
		st = PMIX_ERR_NOMEM;
	if (st == PMIX_SUCCESS &&
	    (st = pack_event(out, code, &src, range, rep, ninfo + 1)) != PMIX_SUCCESS)
		pxc_buf_clear(out);
	if (rep)
		PMIx_Info_free(rep, ninfo + 1);
	pxc_array_free(info, ninfo, PMIX_INFO);
	pxc_buf_clear(&in);
	return st == PMIX_SUCCESS ? 0 : -1;
}

/* Sends EVENT to every local peer in range except skip, and keeps it for
 * late registrants (evcache.c); each recipient gets with it the cache's
 * losses it was not told of yet. Returns how many got it; with ids, *ids gets
 * their peer ids (malloc'ed, NULL when none or out of memory). */
static size_t deliver(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
		      const pmix_info_t *info, size_t ninfo, const pxc_peer_t *skip, uint64_t **ids)
{
	pmix_data_buffer_t msg, rep = { 0 };
	uint32_t total = pxc_evcache_dropped(), rep_owed = 0;
	size_t count = 0, nsent = 0, npeers = 0;
	uint64_t *sent;
	pmix_status_t st;

	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		npeers++;
	sent = calloc(npeers + 1, sizeof(*sent));
	st = pack_event(&msg, code, src, range, info, ninfo);
	if (skip && sent)
		sent[nsent++] = skip->id;
	for (pxc_peer_t *p = pxc_srv.peers; st == PMIX_SUCCESS && p; p = p->next) {
		uint32_t owed = total - p->ev_lost_seen; /* losses it was not told of */
		const pmix_data_buffer_t *out = &msg;

		if (p == skip || !pxc_event_recipient(p, code, src, range, info, ninfo))
			continue;
		if (owed && owed != rep_owed) { /* (most recipients owe the same) */
			pxc_buf_clear(&rep);
			rep_owed = pxc_event_with_dropped(&msg, owed, &rep) == 0 ? owed : 0;
		}
		if (owed && owed == rep_owed)
			out = &rep;
		if (pxc_peer_send_event(p, out) == 0) {
			count++;
			if (out == &rep)
				p->ev_lost_seen = total;
			if (sent && nsent <= npeers)
				sent[nsent++] = p->id;
		}
	}
	pxc_buf_clear(&rep);
	if (st == PMIX_SUCCESS && sent) /* kept as notified, without a report */
		pxc_evcache_add(code, src, range, info, ninfo, &msg, sent, nsent, count > 0);
	if (ids && sent && count) {
		size_t off = skip ? 1 : 0;

		memmove(sent, sent + off, count * sizeof(*sent));
		*ids = sent;
		sent = NULL;
	} else if (ids) {
		*ids = NULL;
	}
	free(sent);
	pxc_buf_clear(&msg);
	return count;
}

/* The server process's own handlers (client/event.c). */
static void deliver_self(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
			 const pmix_info_t *info, size_t ninfo)
{
	if (range == PMIX_RANGE_PROC_LOCAL)
		return;
	pxc_event_local_deliver(code, src, range, info, ninfo);
}

/* ---------------------------------------------------------------- stamp */

/* Every event names its source node: unless the event already carries
 * them (it came from another node), *info gains this node's
 * PMIX_HOSTNAME, its PMIX_NODEID (when the host gave one) and
 * PMIX_EVENT_TIMESTAMP (now). *info is replaced by a new array the caller
 * frees with pxc_array_free; on ENOMEM it stays as it was. (event.h) */
void pxc_event_stamp(pmix_info_t **info, size_t *ninfo)
{
	const bool has = pxc_info_find(*info, *ninfo, PMIX_EVENT_TIMESTAMP) != NULL;
	size_t n = *ninfo;
	pmix_info_t *out;
	time_t now = time(NULL);

	if (has || !(out = PMIx_Info_create(n + 3)))
		return;
	for (size_t k = 0; k < n; k++)
		PMIx_Info_xfer(&out[k], &(*info)[k]);
	if (!pxc_info_find(*info, *ninfo, PMIX_HOSTNAME))
		PMIx_Info_load(&out[n++], PMIX_HOSTNAME, pxc_srv.hostname, PMIX_STRING);
	if (pxc_srv.has_nodeid && !pxc_info_find(*info, *ninfo, PMIX_NODEID))
		PMIx_Info_load(&out[n++], PMIX_NODEID, &pxc_srv.nodeid, PMIX_UINT32);
	PMIx_Info_load(&out[n++], PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
	pxc_array_free(*info, *ninfo, PMIX_INFO);
	*info = out;
	*ninfo = n;
}

/* --------------------------------------------------------------- NOTIFY */

static bool beyond_node(pmix_data_range_t range)
{
	return range != PMIX_RANGE_LOCAL && range != PMIX_RANGE_PROC_LOCAL;
}

/* The host is done with a client's event (queued at every recipient's
 * server, or it could not be): the client's PMIx_Notify_event completes.
 * Not sending it on (NOT_SUPPORTED) leaves it delivered on this node only,
 * which is still a success for the client. */
static void done_notify(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_status_t st = res->status;

	if (st == PMIX_OPERATION_SUCCEEDED || st == PMIX_ERR_NOT_SUPPORTED)
		st = PMIX_SUCCESS;
	if (r->peer_id)
		pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, NULL);
	pxc_evq_done((size_t)(uintptr_t)r->ctx); /* what waited may go now */
}

/* A client's notification, from its NOTIFY to its answer. */
typedef struct {
	uint64_t peer_id;
	uint32_t tag;
	uint16_t cmd;
	size_t bytes; /* the request's, for the bound (evqueue.c) */
	pmix_status_t code;
	pmix_proc_t src;
	pmix_data_range_t range;
	pmix_info_t *info;
	size_t ninfo;
	void (*freed)(uint64_t key); /* pxc_event_raise's */
	uint64_t key;
} notif_t;

static void notif_free(void *arg)
{
	notif_t *n = arg;

	if (n->freed)
		n->freed(n->key);
	pxc_array_free(n->info, n->ninfo, PMIX_INFO);
	free(n);
}

/* Hands a client's event to the host's notify_event; the request takes
 * n's infos, and answers the client when the host calls back, or at once
 * when it declines. The bytes (counted since notif_run) count against the
 * bound until then. */
static void tell_host_notify(notif_t *n)
{
	pxc_peer_t *p = n->peer_id ? pxc_peer_find(n->peer_id) : NULL;
	pxc_upcall_t *r = pxc_upcall_new(p, n->tag, n->cmd, done_notify);

	if (!r) {
		if (p)
			pxc_peer_reply(p, n->cmd, n->tag, pxc_upcall_new_status(), NULL);
		pxc_evq_done(n->bytes);
		return;
	}
	r->peer_id = p ? p->id : 0; /* a notifier that left hears nothing */
	r->ctx = (void *)(uintptr_t)n->bytes;
	r->a.proc = n->src;
	r->a.info = n->info;
	r->a.ninfo = n->ninfo;
	n->info = NULL;
	n->ninfo = 0;
	pxc_upcall_after_call(r,
			      pxc_srv.module.notify_event(n->code, &r->a.proc, n->range, r->a.info,
							  r->a.ninfo, pxc_upcall_cb_op,
							  PXC_UPCALL_CBDATA(r)));
}

/* Delivered here, and the local recipients have room: on to the host, or
 * answered. */
static void notif_continue(void *arg)
{
	notif_t *n = arg;

	if (pxc_srv.running && beyond_node(n->range) && pxc_srv.module.notify_event) {
		tell_host_notify(n);
	} else {
		if (n->peer_id)
			pxc_peer_reply_id(n->peer_id, n->cmd, n->tag,
					  pxc_srv.running ? PMIX_SUCCESS : PMIX_ERR_INIT, NULL);
		pxc_evq_done(n->bytes);
	}
	notif_free(n);
}

/* Its turn (evqueue.c): delivered to this node's clients in range. From
 * here until its answer its bytes count against the bound, the wait for
 * the local recipients' room included (so that a burst of local
 * notifications waits in the notifier, not here). */
static void notif_run(void *arg)
{
	notif_t *n = arg;
	pxc_peer_t *p = n->peer_id ? pxc_peer_find(n->peer_id) : NULL;
	uint64_t *ids = NULL;
	size_t count;

	pxc_evq_taken(n->bytes);
	pxc_event_stamp(&n->info, &n->ninfo);
	count = deliver(n->code, &n->src, n->range, n->info, n->ninfo, p, &ids);
	deliver_self(n->code, &n->src, n->range, n->info, n->ninfo);
	pxc_evq_when_drained(ids, ids ? count : 0, notif_continue, n);
	free(ids);
}

int pxc_do_notify(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	notif_t *n = calloc(1, sizeof(*n));
	int32_t one = 1;

	if (!n)
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	if (pxc_unpack_status(in, &n->code) != PMIX_SUCCESS ||
	    pxc_unpack_proc(in, &n->src) != PMIX_SUCCESS ||
	    pxc_unpack(in, &n->range, &one, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&n->info, &n->ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		notif_free(n);
		return -1;
	}
	/* A client speaks for itself only, and not as a server (nor as one
	 * raising an event in its name). */
	if (p->kind == PXC_PEER_CLIENT)
		n->src = p->proc;
	for (pmix_info_t t; pxc_info_take(n->info, &n->ninfo, PXC_GROUP_FROM_SERVER, &t) ||
			    pxc_info_take(n->info, &n->ninfo, PXC_EVENT_RAISED, &t);)
		PMIx_Info_destruct(&t);
	n->peer_id = p->id;
	n->tag = h->tag;
	n->cmd = h->cmd;
	n->bytes = h->len;
	pxc_evq_submit(p, n->bytes, notif_run, n, notif_free);
	return 0;
}

/* An event the server raises for a local client (a monitor's alert):
 * the path of a client's NOTIFY without a notifier to answer (peer_id 0,
 * so the source's own connection gets it too), marked PXC_EVENT_RAISED so
 * that the source does not take it for its own notification (a client's
 * NOTIFY cannot carry that mark: pxc_do_notify takes it out). Its bound
 * counts the infos' keys and a fixed head (the event is small). */
bool pxc_event_raise(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
		     const pmix_info_t *info, size_t ninfo, void (*freed)(uint64_t key),
		     uint64_t key)
{
	notif_t *n = calloc(1, sizeof(*n));
	bool yes = true;

	if (!n || !(n->info = PMIx_Info_create(ninfo + 1))) {
		free(n);
		pxc_error("server: event %d of %s:%u lost: out of memory", code, src->nspace,
			  src->rank);
		return false;
	}
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&n->info[i], &info[i]);
	PMIx_Info_load(&n->info[ninfo], PXC_EVENT_RAISED, &yes, PMIX_BOOL);
	n->ninfo = ninfo + 1;
	n->code = code;
	n->src = *src;
	n->range = range;
	n->cmd = PXC_CMD_NOTIFY;
	n->bytes = 256 + ninfo * (PMIX_MAX_KEYLEN + 64);
	n->freed = freed;
	n->key = key;
	pxc_evq_submit(NULL, n->bytes, notif_run, n, notif_free);
	return true;
}

/* ---------------------------------------------------- pxc_server_notify */

typedef struct {
	pmix_status_t code;
	pmix_proc_t source;
	pmix_data_range_t range;
	pmix_info_t *info;
	size_t ninfo;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
} notop_t;

/* Delivered, and the recipients have room: the host hears it is done. */
static void notify_done(void *arg)
{
	notop_t *o = arg;

	if (o->cbfunc)
		o->cbfunc(pxc_srv.running ? PMIX_SUCCESS : PMIX_ERR_INIT, o->cbdata);
	if (o->info)
		PMIx_Info_free(o->info, o->ninfo);
	free(o);
}

static void notify_fn(void *arg)
{
	notop_t *o = arg;
	uint64_t *ids = NULL;
	size_t count = 0;

	if (pxc_srv.running && o->code == PMIX_GROUP_LEFT) /* from another node */
		pxc_grp_left(&o->source, o->info, o->ninfo);
	if (pxc_srv.running) {
		count = deliver(o->code, &o->source, o->range, o->info, o->ninfo, NULL, &ids);
		deliver_self(o->code, &o->source, o->range, o->info, o->ninfo);
	}
	pxc_evq_when_drained(ids, ids ? count : 0, notify_done, o);
	free(ids);
}

pmix_status_t pxc_server_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	notop_t *o = calloc(1, sizeof(*o));

	if (!o)
		return PMIX_ERR_NOMEM;
	o->code = code;
	if (source)
		o->source = *source;
	else
		o->source = pxc_srv.me;
	o->range = range;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	if (info && ninfo) {
		o->info = PMIx_Info_create(ninfo);
		o->ninfo = o->info ? ninfo : 0;
		for (size_t i = 0; i < o->ninfo; i++)
			PMIx_Info_xfer(&o->info[i], &info[i]);
	}
	pxc_event_stamp(&o->info, &o->ninfo);
	if (pxc_srv_post(notify_fn, o) < 0) {
		if (o->info)
			PMIx_Info_free(o->info, o->ninfo);
		free(o);
		return PMIX_ERR_INIT;
	}
	return PMIX_SUCCESS;
}

void pxc_server_events_lost(uint32_t n)
{
	pxc_evcache_lost(n);
}
