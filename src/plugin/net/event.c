/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/event.c - the host's notify_event: events that concern processes
 * whose step daemons are elsewhere.
 *
 * A client's event (range NAMESPACE, SESSION, GLOBAL or CUSTOM; the core
 * has delivered it to this node's clients in range already) goes as
 * EVENT_FWD (tag = event id) to every other stepd that may host a
 * recipient:
 *   NAMESPACE        every other node of the source's step;
 *   SESSION, GLOBAL  every other node of this step and every node of the
 *                    job's other steps (the steps srun's job directory
 *                    lists, fetched through net/xstep.h; a step whose
 *                    stepds do not answer, having ended since, does not
 *                    fail the notification);
 *   CUSTOM           the stepds of the procs of PMIX_EVENT_CUSTOM_RANGE
 *                    (other steps' fetched first, as for a collective);
 *   RM               nobody: the host logs it.
 * Each receiving stepd hands it to its server (pxc_server_notify), which
 * queues it to its local clients in range, and answers EVENT_ACK. The
 * client's PMIx_Notify_event completes once every stepd answered, so the
 * event is queued at every recipient's server by then; a stepd lost on
 * the way, or no answer within SlurmixTimeout, completes it with
 * PMIX_ERR_UNREACH / PMIX_ERR_TIMEOUT and a log line naming the node.
 *
 * The connect events of the core (server/connect.c) that concern procs on
 * other nodes, range CUSTOM:
 * - PMIX_ERR_INVALID_TERMINATION: a connected proc ended without
 *   disconnecting;
 * - PMIX_PROC_HAS_CONNECTED (PMIX_CONNECT_NOTIFY_EACH: a proc joined a
 *   connect), SLURMIX_PROC_HAS_DISCONNECTED (the same for a disconnect)
 *   and PMIX_CONNECT_REQUESTED (PMIX_CONNECT_NOTIFY_REQ: the
 *   first one asked), with the connect's PMIX_CONNECT_ID and PMIX_TIMEOUT,
 * go as PLUG_NET_EVENT (PROC source, PROC[] procs, STATUS code, INFO[] the
 * id and timeout; a message without the last two is an
 * INVALID_TERMINATION) to the stepds hosting the procs, which hand it to
 * pxc_server_invalid_termination / pxc_server_connect_event.
 * Progress thread (the server calls its host there; plug_net too).
 */
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>
#include "pmix_slurmix.h"

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "net/ctx.h"
#include "net/evindex.h"
#include "net/event.h"
#include "net/transport.h"
#include "net/xstep.h"
#include "slurm_adapter.h"

typedef struct {
	uint32_t *peer;
	size_t n, cap;
} peers_t;

static int add_peer(peers_t *p, uint32_t peer)
{
	uint32_t *grown;

	for (size_t i = 0; i < p->n; i++)
		if (p->peer[i] == peer)
			return 0;
	if (p->n == p->cap) {
		if (!(grown = realloc(p->peer, (p->cap * 2 + 8) * sizeof(*grown))))
			return -1;
		p->peer = grown;
		p->cap = p->cap * 2 + 8;
	}
	p->peer[p->n++] = peer;
	return 0;
}

/* The stepds (plug_net peer ids) hosting q, this node excepted. */
static int peers_of(const pmix_proc_t *q, peers_t *p)
{
	int own = PMIx_Check_nspace(q->nspace, plug_net_ctx.nspace);
	plug_xstep_t *x = own ? NULL : plug_xstep_find(q->nspace);
	const plug_map_t *m = own ? plug_net_ctx.map : x && x->ready ? x->map : NULL;
	int rc = 0;

	if (!m) {
		plug_flag("event: no stepd known for %s, not told", q->nspace);
		return 0;
	}
	for (uint32_t node = 0; node < m->nnodes && rc == 0; node++) {
		if (q->rank != PMIX_RANK_WILDCARD &&
		    (q->rank >= m->ntasks || m->node_of[q->rank] != node))
			continue;
		if (own && node == plug_net_ctx.me)
			continue;
		rc = add_peer(p, own ? node : x->peer[node]);
	}
	return rc;
}

static const pmix_data_array_t *custom_range(const pmix_info_t *info, size_t ninfo)
{
	for (size_t i = 0; info && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_CUSTOM_RANGE) &&
		    info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray &&
		    info[i].value.data.darray->type == PMIX_PROC &&
		    info[i].value.data.darray->array)
			return info[i].value.data.darray;
	return NULL;
}

/* An event waiting for the step information of other nspaces. */
typedef struct {
	pmix_proc_t *procs;
	size_t n;
	pmix_data_buffer_t msg;
} evpend_t;

static void evpend_free(evpend_t *e)
{
	pxc_buf_clear(&e->msg);
	free(e->procs);
	free(e);
}

/* Sends e->msg to the stepds of e->procs (this node excepted). */
static void send_out(evpend_t *e)
{
	peers_t p = { 0 };
	int rc = 0;

	for (size_t i = 0; i < e->n && rc == 0; i++)
		rc = peers_of(&e->procs[i], &p);
	if (rc < 0)
		plug_error("event: out of memory, not sent");
	for (size_t i = 0; i < p.n && rc == 0; i++)
		if (plug_net_send(plug_net_ctx.net, p.peer[i], PLUG_NET_EVENT, 0, &e->msg) < 0)
			plug_flag("event: stepd %u unreachable", p.peer[i]);
	free(p.peer);
}

static void steps_known(pmix_status_t st, void *arg)
{
	evpend_t *e = arg;

	if (st != PMIX_SUCCESS) /* peers_of skips what is unknown */
		plug_flag("event: steps unknown (%s)", PMIx_Error_string(st));
	send_out(e);
	evpend_free(e);
}

static bool wanted(pmix_status_t code)
{
	return code == PMIX_ERR_INVALID_TERMINATION || code == PMIX_PROC_HAS_CONNECTED ||
	       code == PMIX_CONNECT_REQUESTED || code == SLURMIX_PROC_HAS_DISCONNECTED;
}

/* PROC source, PROC[] procs, STATUS code, INFO[] (id and timeout). */
static int pack_event(pmix_data_buffer_t *b, pmix_status_t code, const pmix_proc_t *source,
		      const pmix_data_array_t *da, const pmix_info_t *info, size_t ninfo)
{
	const char *keep[] = { PMIX_CONNECT_ID, PMIX_TIMEOUT };
	pmix_info_t extra[2];
	size_t n = 0;

	for (size_t k = 0; k < 2; k++) {
		const pmix_info_t *i = pxc_info_find(info, ninfo, keep[k]);

		if (i)
			extra[n++] = *i; /* shallow: packed, not freed */
	}
	return pxc_pack_proc(b, source) != PMIX_SUCCESS ||
			       pxc_pack_array(b, da->array, da->size, PMIX_PROC) != PMIX_SUCCESS ||
			       pxc_pack_status(b, code) != PMIX_SUCCESS ||
			       pxc_pack_array(b, n ? extra : NULL, n, PMIX_INFO) != PMIX_SUCCESS ?
		       -1 :
		       0;
}

/* ---- a client's event for other step daemons ---------------------- */

/* Sent to peer[0..n): answered when left reaches 0. */
typedef struct fwd {
	struct fwd *next;
	uint32_t id;
	pmix_status_t code;
	uint32_t *peer; /* UINT32_MAX once that stepd answered */
	size_t n, left;
	pmix_status_t st; /* the first failure, or PMIX_SUCCESS */
	uint32_t strict;  /* peers below this id must answer; the others (the
			   * other steps of a SESSION event, which may have
			   * ended since) may fail without failing it */
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	struct event *timer;
	struct agg *agg; /* a synchronous event's: the answers go there */
} fwd_t;

/* A client's event on its way: packed, and its CUSTOM procs. */
typedef struct {
	pmix_status_t code;
	pmix_proc_t src;
	pmix_data_range_t range;
	pmix_proc_t *procs;
	size_t nprocs;
	pmix_data_buffer_t msg;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	struct agg *agg; /* synchronous: answered there, after wait_ms */
	uint32_t wait_ms;
	bool indexed;  /* a client's: only to the nodes that registered its code */
	bool no_cache; /* PMIX_EVENT_DO_NOT_CACHE: nothing kept for the others */
} outgoing_t;

/* In sending order (new ones at the tail, fwds_last: where the next
 * goes), so that the answers, mostly to the oldest, are found first. */
static fwd_t *fwds, **fwds_last;
static uint32_t last_fwd;

static void fwd_link(fwd_t *f)
{
	fwd_t **pp = fwds_last && !*fwds_last && fwds ? fwds_last : &fwds;

	while (*pp)
		pp = &(*pp)->next;
	f->next = NULL;
	*pp = f;
	fwds_last = &f->next;
}

static void agg_node_silent(struct agg *a, uint32_t node);
static void agg_part_done(struct agg *a);

static void fwd_done(fwd_t *f)
{
	for (size_t i = 0; f->agg && i < f->n; i++)
		if (f->peer[i] != UINT32_MAX) /* no answer from that node */
			agg_node_silent(f->agg, f->peer[i]);
	for (fwd_t **pp = &fwds; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			if (fwds_last == &f->next)
				fwds_last = pp;
			break;
		}
	if (f->timer)
		event_free(f->timer);
	if (f->agg)
		agg_part_done(f->agg);
	else if (f->cbfunc)
		f->cbfunc(f->st, f->cbdata);
	free(f->peer);
	free(f);
}

static void fwd_answered(fwd_t *f, size_t i, pmix_status_t st)
{
	if (f->peer[i] == UINT32_MAX)
		return;
	if (f->agg && st != PMIX_SUCCESS) /* lost, unreachable, garbled */
		agg_node_silent(f->agg, f->peer[i]);
	if (st != PMIX_SUCCESS && f->st == PMIX_SUCCESS && f->peer[i] < f->strict)
		f->st = st;
	f->peer[i] = UINT32_MAX;
	if (--f->left == 0)
		fwd_done(f);
}

static void fwd_timeout(int fd, short what, void *arg)
{
	fwd_t *f = arg;

	(void)fd, (void)what;
	plug_error("event %d: %zu of %zu step daemons did not answer in time", f->code, f->left,
		   f->n);
	f->st = PMIX_ERR_TIMEOUT;
	fwd_done(f);
}

/* The other stepds that may host a recipient of o. */
static int targets(const outgoing_t *o, peers_t *p)
{
	const plug_map_t *m = plug_net_ctx.map;
	int rc = 0;

	if (o->range == PMIX_RANGE_CUSTOM) {
		for (size_t i = 0; i < o->nprocs && rc == 0; i++)
			rc = peers_of(&o->procs[i], p);
		return rc;
	}
	if (o->range == PMIX_RANGE_NAMESPACE) {
		pmix_proc_t all = o->src;

		all.rank = PMIX_RANK_WILDCARD;
		return peers_of(&all, p);
	}
	for (uint32_t node = 0; node < m->nnodes && rc == 0; node++) /* SESSION, GLOBAL */
		if (node != plug_net_ctx.me)
			rc = add_peer(p, node);
	for (plug_xstep_t *x = plug_xstep_next(NULL); x && rc == 0; x = plug_xstep_next(x))
		for (uint32_t node = 0; x->ready && node < x->map->nnodes && rc == 0; node++)
			if (x->peer[node] != UINT32_MAX)
				rc = add_peer(p, x->peer[node]);
	return rc;
}

/* The nodes of this step in p that have no handler for o's code
 * (net/evindex.c) leave p, and o is kept for them; so do the ones whose
 * stepd ended (said BYE: nobody there to take it). */
static void skip_unwanted(const outgoing_t *o, peers_t *p)
{
	uint32_t nnodes = plug_net_nnodes(plug_net_ctx.net), *skipped;
	size_t ns = 0, total = p->n;

	if (!o->indexed || o->agg || !p->n || !(skipped = malloc(p->n * sizeof(*skipped))))
		return;
	for (size_t i = 0; i < p->n;)
		if (p->peer[i] < nnodes && plug_net_peer_ended(plug_net_ctx.net, p->peer[i])) {
			p->peer[i] = p->peer[--p->n]; /* its clients are gone */
			total--;
		} else if (p->peer[i] < nnodes && !plug_evindex_wants(p->peer[i], o->code)) {
			skipped[ns++] = p->peer[i];
			p->peer[i] = p->peer[--p->n];
		} else {
			i++;
		}
	if (ns && !o->no_cache)
		plug_evindex_hold(o->code, &o->msg, skipped, ns);
	if (ns)
		plug_flag("event %d: to %zu of %zu step daemons (%zu without a handler%s)", o->code,
			  p->n, total, ns, o->no_cache ? "" : ": kept for them");
	free(skipped);
}

/* Sends o's message to its stepds. 1 when there was nobody to send it to
 * (done: o's callback is the caller's), 0 when o's callback will run once
 * they answered, or an error status. */
static int send_fwd(outgoing_t *o)
{
	peers_t p = { 0 };
	uint32_t ms = o->agg ? o->wait_ms : plug_net_ctx.timeout * 1000;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	fwd_t *f;

	if (targets(o, &p) < 0 || !(f = calloc(1, sizeof(*f)))) {
		free(p.peer);
		return PMIX_ERR_NOMEM;
	}
	skip_unwanted(o, &p);
	if (!p.n) {
		free(p.peer);
		free(f);
		return 1;
	}
	f->id = ++last_fwd ? last_fwd : ++last_fwd;
	f->code = o->code;
	f->peer = p.peer;
	f->n = f->left = p.n;
	f->cbfunc = o->cbfunc;
	f->cbdata = o->cbdata;
	f->agg = o->agg;
	f->strict = o->range == PMIX_RANGE_SESSION || o->range == PMIX_RANGE_GLOBAL ?
			    plug_net_nnodes(plug_net_ctx.net) :
			    UINT32_MAX;
	if (!(f->timer = evtimer_new(plug_net_base(plug_net_ctx.net), fwd_timeout, f)) ||
	    evtimer_add(f->timer, &tv) < 0) {
		if (f->timer)
			event_free(f->timer);
		free(f->peer);
		free(f);
		return PMIX_ERR_NOMEM;
	}
	fwd_link(f);
	f->left++; /* held while sending: a failed send cannot finish it early */
	for (size_t i = 0; i < f->n; i++)
		if (plug_net_send(plug_net_ctx.net, f->peer[i], PLUG_NET_EVENT_FWD, f->id,
				  &o->msg) < 0) {
			plug_error("event %d: step daemon %u unreachable", o->code, f->peer[i]);
			fwd_answered(f, i, PMIX_ERR_UNREACH);
		}
	if (--f->left == 0)
		fwd_done(f);
	return 0;
}

static void outgoing_free(outgoing_t *o)
{
	pxc_buf_clear(&o->msg);
	free(o->procs);
	free(o);
}

/* The other steps of a CUSTOM range, or of the job, are known (or cannot
 * be). */
static void steps_ready(pmix_status_t st, void *arg)
{
	outgoing_t *o = arg;
	int rc;

	if (st != PMIX_SUCCESS) /* peers_of skips what is unknown */
		plug_flag("event: steps unknown (%s)", PMIx_Error_string(st));
	rc = send_fwd(o);
	if (rc != 0 && o->cbfunc)
		o->cbfunc(rc == 1 ? PMIX_SUCCESS : rc, o->cbdata);
	outgoing_free(o);
}

static pmix_status_t forward(pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
			     const pmix_info_t info[], size_t ninfo, bool indexed,
			     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_data_array_t *da = custom_range(info, ninfo);
	outgoing_t *o;
	int rc = 1;

	if (range == PMIX_RANGE_CUSTOM && (!da || !da->size))
		return PMIX_OPERATION_SUCCEEDED; /* nobody */
	if (!(o = calloc(1, sizeof(*o))))
		return PMIX_ERR_NOMEM;
	o->code = code;
	o->src = *source;
	o->range = range;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	o->indexed = indexed;
	for (size_t i = 0; info && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_DO_NOT_CACHE))
			o->no_cache = PMIx_Info_true(&info[i]) == PMIX_BOOL_TRUE;
	pxc_buf_init(&o->msg);
	if ((range == PMIX_RANGE_CUSTOM && !(o->procs = malloc(da->size * sizeof(*o->procs)))) ||
	    pxc_pack_status(&o->msg, code) != PMIX_SUCCESS ||
	    pxc_pack_proc(&o->msg, source) != PMIX_SUCCESS ||
	    pxc_pack(&o->msg, &range, 1, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_pack_array(&o->msg, info, ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		outgoing_free(o);
		return PMIX_ERR_NOMEM;
	}
	if (o->procs) {
		memcpy(o->procs, da->array, da->size * sizeof(*o->procs));
		o->nprocs = da->size;
		rc = plug_xstep_need(o->procs, o->nprocs, steps_ready, o);
		if (rc == 0)
			return PMIX_SUCCESS; /* steps_ready sends it */
	} else if (range == PMIX_RANGE_SESSION || range == PMIX_RANGE_GLOBAL) {
		if (plug_xstep_all(steps_ready, o) == 0)
			return PMIX_SUCCESS; /* steps_ready sends it */
		plug_flag("event: the job's steps unknown, the known ones get it");
	}
	rc = send_fwd(o);
	outgoing_free(o);
	return rc == 1 ? PMIX_OPERATION_SUCCEEDED : rc == 0 ? PMIX_SUCCESS : rc;
}

static pmix_status_t notify(pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
			    pmix_info_t info[], size_t ninfo, bool indexed, pmix_op_cbfunc_t cbfunc,
			    void *cbdata)
{
	const pmix_data_array_t *da = custom_range(info, ninfo);
	evpend_t *e;
	int rc;

	if (!source)
		return PMIX_ERR_BAD_PARAM;
	if (range == PMIX_RANGE_RM) {
		plug_info("event %s from %s:%u for the resource manager", PMIx_Error_string(code),
			  source->nspace, source->rank);
		return PMIX_OPERATION_SUCCEEDED;
	}
	if (range == PMIX_RANGE_NAMESPACE || range == PMIX_RANGE_SESSION ||
	    range == PMIX_RANGE_GLOBAL || (range == PMIX_RANGE_CUSTOM && !wanted(code)))
		return plug_net_ctx.net ?
			       forward(code, source, range, info, ninfo, indexed, cbfunc, cbdata) :
			       PMIX_ERR_NOT_SUPPORTED;
	if (!wanted(code) || range != PMIX_RANGE_CUSTOM || !da || !da->size)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!(e = calloc(1, sizeof(*e))) || !(e->procs = malloc(da->size * sizeof(*e->procs)))) {
		free(e);
		return PMIX_ERR_NOMEM;
	}
	memcpy(e->procs, da->array, da->size * sizeof(*e->procs));
	e->n = da->size;
	pxc_buf_init(&e->msg);
	if (pack_event(&e->msg, code, source, da, info, ninfo) < 0) {
		evpend_free(e);
		return PMIX_ERR_NOMEM;
	}
	rc = plug_net_ctx.net ? plug_xstep_need(e->procs, e->n, steps_known, e) : 1;
	if (rc == 0)
		return PMIX_OPERATION_SUCCEEDED; /* sent once they are known */
	if (rc < 0)
		plug_flag("event: steps unknown (%s)", PMIx_Error_string(rc));
	send_out(e);
	evpend_free(e);
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t plug_event_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return notify(code, source, range, info, ninfo, false, cbfunc, cbdata);
}

pmix_status_t plug_event_notify_client(pmix_status_t code, const pmix_proc_t *source,
				       pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	/* a member's leave changes the group records of every member's node
	 * (server/group.c), with a handler there or not */
	bool indexed = code != PMIX_GROUP_LEFT;

	return notify(code, source, range, info, ninfo, indexed, cbfunc, cbdata);
}

/* ---- synchronous events of this step -------------------------------- */

/* The answers of every node to one synchronous event. */
struct agg {
	pmix_status_t st; /* the worst answer (PMIX_ERR_TIMEOUT first) */
	size_t nhandled;
	pmix_proc_t *un; /* who did not answer */
	size_t nun, cap;
	int parts; /* this node's server and the other nodes, still out */
	plug_event_sync_f cb;
	void *cbdata;
};

static void agg_add(struct agg *a, pmix_status_t st, size_t nhandled, const pmix_proc_t *un,
		    size_t nun)
{
	pmix_proc_t *grown;

	a->nhandled += nhandled;
	if (st != PMIX_SUCCESS && st != PMIX_ERR_NOT_FOUND && a->st != PMIX_ERR_TIMEOUT)
		a->st = st;
	if (nun && a->nun + nun > a->cap &&
	    (grown = realloc(a->un, (a->nun + nun) * sizeof(*grown)))) {
		a->un = grown;
		a->cap = a->nun + nun;
	}
	for (size_t i = 0; i < nun && a->nun < a->cap; i++)
		a->un[a->nun++] = un[i];
}

/* Node's step daemon did not answer: every rank of it did not. */
static void agg_node_silent(struct agg *a, uint32_t node)
{
	const plug_map_t *m = plug_net_ctx.map;

	for (uint32_t r = 0; m && r < m->ntasks; r++)
		if (m->node_of[r] == node) {
			pmix_proc_t p;

			PMIx_Load_procid(&p, plug_net_ctx.nspace, r);
			agg_add(a, PMIX_ERR_TIMEOUT, 0, &p, 1);
		}
	if (!m)
		a->st = PMIX_ERR_TIMEOUT;
}

static void agg_part_done(struct agg *a)
{
	pmix_status_t st = a->st;

	if (--a->parts > 0)
		return;
	if (st == PMIX_SUCCESS && a->nun)
		st = PMIX_ERR_TIMEOUT;
	if (st == PMIX_SUCCESS && !a->nhandled)
		st = PMIX_ERR_NOT_FOUND;
	a->cb(st, a->nhandled, a->un, a->nun, a->cbdata);
	free(a->un);
	free(a);
}

/* This node's recipients are done. */
static void agg_local(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
		      void *cbdata)
{
	agg_add(cbdata, st, nhandled, un, nun);
	agg_part_done(cbdata);
}

int plug_event_sync(pmix_status_t code, const pmix_proc_t *source, const pmix_info_t *info,
		    size_t ninfo, uint32_t timeout_ms, plug_event_sync_f cb, void *cbdata)
{
	struct agg *a = calloc(1, sizeof(*a));
	outgoing_t *o = calloc(1, sizeof(*o));
	pmix_info_t *all = PMIx_Info_create(ninfo + 1);
	pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
	pmix_proc_t src = *source;
	int rc = -1, rc2;

	if (!a || !o || !all || !timeout_ms || timeout_ms > 3600000)
		goto out;
	a->cb = cb;
	a->cbdata = cbdata;
	a->parts = 2; /* the local answer may come at once: not before ours */
	if (pxc_server_notify_sync(code, &src, range, info, ninfo, (int)timeout_ms, agg_local, a) !=
	    PMIX_SUCCESS)
		goto out;
	rc = 0; /* from here cb runs */
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&all[i], &info[i]);
	PMIx_Info_load(&all[ninfo], PLUG_EVENT_SYNC_KEY, &timeout_ms, PMIX_UINT32);
	o->code = code;
	o->src = src;
	o->range = range;
	o->agg = a;
	o->wait_ms = timeout_ms + 2000; /* their answer after theirs */
	pxc_buf_init(&o->msg);
	if (!plug_net_ctx.net || pxc_pack_status(&o->msg, code) != PMIX_SUCCESS ||
	    pxc_pack_proc(&o->msg, &src) != PMIX_SUCCESS ||
	    pxc_pack(&o->msg, &range, 1, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_pack_array(&o->msg, all, ninfo + 1, PMIX_INFO) != PMIX_SUCCESS) {
		a->st = plug_net_ctx.net ? PMIX_ERR_NOMEM : PMIX_SUCCESS; /* no net: one node */
		agg_part_done(a);
	} else if ((rc2 = send_fwd(o)) != 0) { /* 1: no other node; else an error */
		if (rc2 != 1)
			a->st = PMIX_ERR_UNREACH; /* the other nodes did not get it */
		agg_part_done(a);
	}
	a = NULL;
out:
	if (all)
		PMIx_Info_free(all, ninfo + 1);
	if (o)
		outgoing_free(o);
	free(a);
	return rc;
}

static void event_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t src, *procs = NULL;
	pmix_info_t *info = NULL;
	pmix_status_t code = PMIX_ERR_INVALID_TERMINATION;
	size_t n = 0, ninfo = 0;

	(void)arg, (void)h;
	if (pxc_unpack_proc(in, &src) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&procs, &n, PMIX_PROC) != PMIX_SUCCESS ||
	    (pxc_buf_remaining(in) &&
	     (pxc_unpack_status(in, &code) != PMIX_SUCCESS || !wanted(code) ||
	      pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS))) {
		plug_error("malformed EVENT from node %u: dropped", from);
		pxc_array_free(procs, n, PMIX_PROC);
		return;
	}
	if (code == PMIX_ERR_INVALID_TERMINATION)
		pxc_server_invalid_termination(&src, procs, n);
	else
		pxc_server_connect_event(code, &src, procs, n, info, ninfo);
	pxc_array_free(procs, n, PMIX_PROC);
	pxc_array_free(info, ninfo, PMIX_INFO);
}

/* ---- the receiving side ------------------------------------------- */

#define MAX_WATCHERS 4
static plug_event_watch_f watchers[MAX_WATCHERS];
static size_t nwatchers;

int plug_event_watch(plug_event_watch_f fn)
{
	for (size_t i = 0; i < nwatchers; i++)
		if (watchers[i] == fn)
			return 0;
	if (nwatchers == MAX_WATCHERS)
		return -1;
	watchers[nwatchers++] = fn;
	return 0;
}

/* True when a watcher took the event. */
static bool watched(pmix_status_t code, const pmix_proc_t *src, const pmix_info_t *info,
		    size_t ninfo)
{
	for (size_t i = 0; i < nwatchers; i++)
		if (watchers[i](code, src, info, ninfo))
			return true; /* the later ones do not see it */
	return false;
}

typedef struct {
	uint32_t from, id;
} ack_t;

static void send_ack(uint32_t to, uint32_t id, pmix_status_t st)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) == PMIX_SUCCESS)
		plug_net_send(plug_net_ctx.net, to, PLUG_NET_EVENT_ACK, id, &b);
	pxc_buf_clear(&b);
}

/* The server queued the event to its clients in range. */
static void queued(pmix_status_t st, void *cbdata)
{
	ack_t *a = cbdata;

	send_ack(a->from, a->id, st);
	free(a);
}

/* The ACK of a synchronous event: status, how many had a handler, who
 * did not answer. */
static void send_sync_ack(uint32_t to, uint32_t id, pmix_status_t st, size_t nhandled,
			  const pmix_proc_t *un, size_t nun)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) == PMIX_SUCCESS &&
	    pxc_pack_u32(&b, (uint32_t)nhandled) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, un, nun, PMIX_PROC) == PMIX_SUCCESS)
		plug_net_send(plug_net_ctx.net, to, PLUG_NET_EVENT_ACK, id, &b);
	pxc_buf_clear(&b);
}

/* A synchronous event's recipients here are done. */
static void sync_answered(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
			  void *cbdata)
{
	ack_t *a = cbdata;

	send_sync_ack(a->from, a->id, st, nhandled, un, nun);
	free(a);
}

/* The wait of a synchronous EVENT_FWD (taken out of info): 0 when it is
 * none, -1 when its value is wrong. */
static int64_t take_sync_ms(pmix_info_t *info, size_t *ninfo)
{
	pmix_info_t t;
	int64_t ms = -1;

	if (!pxc_info_take(info, ninfo, PLUG_EVENT_SYNC_KEY, &t))
		return 0;
	if (t.value.type == PMIX_UINT32 && t.value.data.uint32 > 0 &&
	    t.value.data.uint32 <= 3600000)
		ms = t.value.data.uint32;
	PMIx_Info_destruct(&t);
	return ms;
}

static void sync_in(uint32_t from, uint32_t id, pmix_status_t code, const pmix_proc_t *src,
		    pmix_data_range_t range, const pmix_info_t *info, size_t ninfo, int ms)
{
	ack_t *a = malloc(sizeof(*a));

	if (!a) {
		send_sync_ack(from, id, PMIX_ERR_NOMEM, 0, NULL, 0);
		return;
	}
	*a = (ack_t){ from, id };
	if (pxc_server_notify_sync(code, src, range, info, ninfo, ms, sync_answered, a) !=
	    PMIX_SUCCESS) {
		free(a);
		send_sync_ack(from, id, PMIX_ERR_INIT, 0, NULL, 0);
	}
}

static void fwd_in(uint32_t from, uint32_t id, pmix_data_buffer_t *in)
{
	pmix_status_t code, st;
	pmix_proc_t src;
	pmix_data_range_t range = PMIX_RANGE_UNDEF;
	pmix_info_t *info = NULL;
	size_t ninfo = 0, nalloc;
	int32_t one = 1;
	int64_t sync_ms;
	ack_t *a;

	if (pxc_unpack_status(in, &code) != PMIX_SUCCESS ||
	    pxc_unpack_proc(in, &src) != PMIX_SUCCESS ||
	    pxc_unpack(in, &range, &one, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS ||
	    (range != PMIX_RANGE_NAMESPACE && range != PMIX_RANGE_SESSION &&
	     range != PMIX_RANGE_GLOBAL && range != PMIX_RANGE_CUSTOM)) {
		plug_error("malformed EVENT_FWD from node %u: dropped", from);
		pxc_array_free(info, ninfo, PMIX_INFO);
		send_ack(from, id, PMIX_ERR_BAD_PARAM);
		return;
	}
	nalloc = ninfo;
	if ((sync_ms = take_sync_ms(info, &ninfo)) < 0) {
		plug_error("malformed synchronous EVENT_FWD from node %u: dropped", from);
		send_ack(from, id, PMIX_ERR_BAD_PARAM); /* too short for it: garbled */
	} else if (sync_ms > 0) {
		sync_in(from, id, code, &src, range, info, ninfo, (int)sync_ms);
	}
	if (sync_ms != 0) {
		pxc_array_free(info, nalloc, PMIX_INFO);
		return;
	}
	if (watched(code, &src, info, ninfo)) {
		send_ack(from, id, PMIX_SUCCESS);
		pxc_array_free(info, ninfo, PMIX_INFO);
		return;
	}
	if (!(a = malloc(sizeof(*a)))) {
		st = PMIX_ERR_NOMEM;
	} else {
		a->from = from;
		a->id = id;
		st = pxc_server_notify(code, &src, range, info, ninfo, queued, a);
		if (st != PMIX_SUCCESS)
			free(a);
	}
	if (st != PMIX_SUCCESS)
		send_ack(from, id, st);
	pxc_array_free(info, ninfo, PMIX_INFO);
}

/* The rest of a synchronous event's ACK: into f's answers, or -1. */
static int sync_ack(fwd_t *f, pmix_status_t st, pmix_data_buffer_t *in)
{
	pmix_proc_t *un = NULL;
	size_t nun = 0;
	uint32_t nhandled;

	if (pxc_unpack_u32(in, &nhandled) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&un, &nun, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	agg_add(f->agg, st, nhandled, un, nun);
	pxc_array_free(un, nun, PMIX_PROC);
	return 0;
}

static void ack_in(uint32_t from, uint32_t id, pmix_data_buffer_t *in)
{
	pmix_status_t st;

	if (pxc_unpack_status(in, &st) != PMIX_SUCCESS) {
		plug_error("malformed EVENT_ACK from node %u: dropped", from);
		return; /* the timer answers */
	}
	for (fwd_t *f = fwds; f; f = f->next)
		if (f->id == id) {
			for (size_t i = 0; i < f->n; i++)
				if (f->peer[i] == from) {
					if (f->agg && sync_ack(f, st, in) < 0) {
						plug_error("malformed EVENT_ACK from node %u: "
							   "its ranks count as silent",
							   from);
						st = PMIX_ERR_BAD_PARAM;
					} else if (f->agg) {
						st = PMIX_SUCCESS; /* counted in f->agg */
					}
					fwd_answered(f, i, st);
					return;
				}
			break;
		}
}

static void event_in(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	if (h->cmd == PLUG_NET_EVENT)
		event_msg(arg, from, h, in);
	else if (h->cmd == PLUG_NET_EVENT_FWD)
		fwd_in(from, h->tag, in);
	else
		ack_in(from, h->tag, in);
}

static void event_peer_lost(void *arg, uint32_t peer)
{
	fwd_t *f, *next;

	(void)arg;
	for (f = fwds; f; f = next) {
		next = f->next;
		for (size_t i = 0; i < f->n; i++)
			if (f->peer[i] == peer) {
				plug_error("event %d: step daemon %u lost before it took it",
					   f->code, peer);
				fwd_answered(f, i, PMIX_ERR_UNREACH); /* may free f */
				break;
			}
	}
}

static void event_stop(void *arg)
{
	(void)arg;
	while (fwds) {
		fwds->st = PMIX_ERR_UNREACH;
		fwd_done(fwds);
	}
}

int plug_event_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "events",
			      .first = PLUG_NET_EVENT,
			      .last = PLUG_NET_EVENT_ACK,
			      .msg = event_in,
			      .peer_lost = event_peer_lost,
			      .stop = event_stop };

	return plug_net_register(n, &u);
}
