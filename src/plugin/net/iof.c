/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/iof.c - IO forwarding between the step daemons of a step (see
 * net/iof.h and docs/iof.md, "Between nodes").
 *
 * A node whose server got a pull (the server's iof_pull upcall) asks each
 * node holding a rank it covers, and not asked before for that rank and
 * channel, with IOF_SUB: those (rank, channels). The asked node makes a
 * subscription of its own in its server (pxc_server_iof_relay): the
 * streams' history goes out first, as IOF_DATA, then IOF_READY, then
 * every new piece as IOF_DATA. The asking node feeds what arrives into
 * its server (pxc_server_iof_input), whose subscriptions take it as they
 * take their own node's output; the pull's own subscription is held
 * until every asked node said READY (or was lost, or the timeout
 * passed), so it gets the remote history with its own cache policy.
 * A stream is asked for once: later pulls on that node find it there.
 * A pull may name another step of the job (a spawned child, a parent):
 * that step's table (net/xstep.h) gives its map and its stepds' transport
 * peers, and they are asked the same way; what they send is taken for
 * that step's namespace. A stepd takes IOF_SUB from another step's stepd
 * (the job key vouches for it) for its own ranks, with the same checks,
 * at most NIO_MAX_FOREIGN_RELAYS relays to other steps in all.
 *
 * Bounds: a relay whose connection has more than NIO_MAX_QUEUED bytes
 * waiting takes nothing more until it drained (checked every
 * NIO_RETRY_MS); meanwhile the asked node's server keeps its bytes
 * within the relay's bound (iof/iof.h), and the tasks never wait.
 * Trust: IOF_DATA is taken only for a rank of the sending node, on a
 * channel asked for; everything else is logged and dropped.
 * Threads: the progress thread, except register.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <pmix.h>

#include "lib/proto.h"
#include "lib/util.h"
#include "net/ctx.h"
#include "net/iof.h"
#include "net/xstep.h"

#include "pxc_host.h"
#include "slurm_adapter.h"

#define NIO_MAX_QUEUED (4u << 20)
#define NIO_RETRY_MS 20
#define NIO_READY_S 10 /* the longest a pull waits for the asked nodes */
#define NIO_CHANS (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL)

/* One answer a pull waits for: READY `tag` from transport peer `peer`. */
typedef struct {
	uint32_t peer, tag;
} wait_t;

/* A pull waiting for the READY of the nodes it asked. */
typedef struct pending {
	struct pending *next;
	uint32_t tag;
	wait_t *w; /* [nw]; peer UINT32_MAX: answered */
	uint32_t nw, waiting;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	struct event *timer;
} pending_t;

/* A step whose streams this node asks for: its own (peer = node), or
 * another step of the job (net/xstep.h: its map and transport peers). */
typedef struct stepq {
	struct stepq *next;
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	const uint32_t *peer; /* [map->nnodes]; NULL: this step */
	uint16_t *asked;      /* [map->ntasks] channels asked for */
	uint32_t *last;       /* [map->nnodes] the last request not answered */
	uint32_t pull;        /* the last pull that asked it (pull_now) */
} stepq_t;

/* A subscription of this node's server forwarding to peer `to`. */
typedef struct relay {
	struct relay *next;
	uint32_t id, to;
	bool history; /* being given its history: takes it all */
	struct event *retry;
} relay_t;

/* A pull that waits for other steps' tables (net/xstep.h). */
typedef struct later {
	pmix_proc_t *procs;
	size_t nprocs;
	uint16_t chans;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
} later_t;

static struct {
	plug_net_t *net;
	stepq_t own;       /* this step */
	stepq_t *others;   /* other steps asked */
	uint32_t *nrelays; /* [nnodes] relays to this step's nodes (bounded) */
	uint32_t nforeign; /* relays to other steps' nodes (bounded) */
	pending_t *pending;
	relay_t *relays;
	uint32_t next_tag;
	bool stopped;
} nio;

#define NIO_MAX_FOREIGN_RELAYS 1024

static uint32_t peer_of(const stepq_t *q, uint32_t node)
{
	return q->peer ? q->peer[node] : node;
}

/* The step and node behind transport peer `peer`, or NULL. */
static stepq_t *step_of_peer(uint32_t peer, uint32_t *node)
{
	if (peer < plug_net_ctx.map->nnodes) {
		*node = peer;
		return &nio.own;
	}
	for (stepq_t *q = nio.others; q; q = q->next)
		for (uint32_t k = 0; k < q->map->nnodes; k++)
			if (q->peer[k] == peer) {
				*node = k;
				return q;
			}
	return NULL;
}

static stepq_t *step_of_nspace(const char *nspace)
{
	plug_xstep_t *x;
	stepq_t *q;

	if (PMIx_Check_nspace(nspace, plug_net_ctx.nspace))
		return &nio.own;
	for (q = nio.others; q; q = q->next)
		if (PMIx_Check_nspace(nspace, q->nspace))
			return q;
	x = plug_xstep_find(nspace);
	if (!x || !x->ready || x->status != PMIX_SUCCESS || !x->map || !x->peer ||
	    !(q = calloc(1, sizeof(*q))))
		return NULL;
	snprintf(q->nspace, sizeof(q->nspace), "%s", x->nspace);
	q->map = x->map;
	q->peer = x->peer;
	q->asked = calloc(x->map->ntasks ? x->map->ntasks : 1, sizeof(*q->asked));
	q->last = calloc(x->map->nnodes ? x->map->nnodes : 1, sizeof(*q->last));
	if (!q->asked || !q->last) {
		free(q->asked);
		free(q->last);
		free(q);
		return NULL;
	}
	q->next = nio.others;
	nio.others = q;
	return q;
}

/* ---- the asking side ---------------------------------------------------- */

static void pending_done(pending_t *p, pmix_status_t st)
{
	for (pending_t **pp = &nio.pending; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	if (p->timer)
		event_free(p->timer);
	free(p->w);
	p->cbfunc(st, p->cbdata);
	free(p);
}

static void pending_timeout(int fd, short what, void *arg)
{
	pending_t *p = arg;

	(void)fd, (void)what;
	plug_error("IOF: %u node%s did not answer a pull within %d s: their output "
		   "history may come late",
		   p->waiting, p->waiting == 1 ? "" : "s", NIO_READY_S);
	pending_done(p, PMIX_SUCCESS);
}

/* Peer `peer` answered request `tag` (any: or will not answer any): the
 * pulls waiting for it. Its answers come in order, so one answers the
 * requests before it too. */
static void node_answered(uint32_t peer, uint32_t tag, bool any)
{
	uint32_t node;
	stepq_t *q = step_of_peer(peer, &node);

	if (q && (any || q->last[node] == tag))
		q->last[node] = 0;
	for (pending_t *p = nio.pending, *next; p; p = next) {
		next = p->next;
		for (uint32_t i = 0; i < p->nw; i++) {
			if (p->w[i].peer != peer || (!any && p->w[i].tag > tag))
				continue;
			p->w[i].peer = UINT32_MAX;
			if (!--p->waiting) {
				pending_done(p, PMIX_SUCCESS);
				break;
			}
		}
	}
}

/* Which ranks of step q procs covers (a byte each), or NULL. */
static unsigned char *covered(const stepq_t *q, const pmix_proc_t procs[], size_t nprocs)
{
	unsigned char *c = calloc(q->map->ntasks ? q->map->ntasks : 1, 1);

	for (size_t i = 0; c && i < nprocs; i++) {
		if (!PMIx_Check_nspace(procs[i].nspace, q->nspace))
			continue;
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			memset(c, 1, q->map->ntasks);
		else if (procs[i].rank < q->map->ntasks)
			c[procs[i].rank] = 1;
	}
	return c;
}

/* Packs node's ranks of cov whose chans are not asked yet; marks them.
 * The number packed (0: nothing to ask there). */
static uint32_t pack_ask(stepq_t *q, uint32_t node, const unsigned char *cov, uint16_t chans,
			 pmix_data_buffer_t *b)
{
	const plug_map_t *map = q->map;
	uint32_t n = 0;

	for (uint32_t k = 0; k < map->count[node]; k++) {
		uint32_t r = map->ranks[map->first[node] + k];
		uint16_t want = chans & (uint16_t)~q->asked[r];

		if (!cov[r] || !want)
			continue;
		if (!n++)
			pxc_buf_init(b);
		if (pxc_pack(b, &r, 1, PMIX_UINT32) != PMIX_SUCCESS ||
		    pxc_pack(b, &want, 1, PMIX_UINT16) != PMIX_SUCCESS)
			return 0; /* (the caller clears b) */
		q->asked[r] |= want;
	}
	return n;
}

/* Sends peer its IOF_SUB (n entries in body) for pull p. */
static bool ask(pending_t *p, uint32_t peer, uint32_t n, pmix_data_buffer_t *body)
{
	pmix_data_buffer_t b;
	bool ok;

	pxc_buf_init(&b);
	ok = pxc_pack(&b, &n, 1, PMIX_UINT32) == PMIX_SUCCESS &&
	     pxc_buf_append(&b, body->base_ptr, body->bytes_used) == 0 &&
	     plug_net_send(nio.net, peer, PLUG_NET_IOF_SUB, p->tag, &b) == 0;
	pxc_buf_clear(&b);
	return ok;
}

/* Whether cov covers a rank of node. */
static bool covers_node(const stepq_t *q, const unsigned char *cov, uint32_t node)
{
	for (uint32_t k = 0; k < q->map->count[node]; k++)
		if (cov[q->map->ranks[q->map->first[node] + k]])
			return true;
	return false;
}

/* A node was lost: its streams that were asked for end here (nothing more
 * comes), and a next pull asks again. */
static void forget_node_streams(stepq_t *q, uint32_t node)
{
	for (uint32_t k = 0; q->asked && k < q->map->count[node]; k++) {
		uint32_t r = q->map->ranks[q->map->first[node] + k];
		pmix_proc_t src;

		PMIX_LOAD_PROCID(&src, q->nspace, r);
		for (uint16_t ch = 1; ch <= 2; ch <<= 1)
			if (q->asked[r] & ch)
				(void)pxc_server_iof_input(&src, ch, NULL, 0, 0, true);
		q->asked[r] = 0;
	}
}

static bool add_wait(pending_t *p, uint32_t peer, uint32_t tag)
{
	wait_t *g = realloc(p->w, (p->nw + 1) * sizeof(*g));

	if (!g)
		return false;
	p->w = g;
	p->w[p->nw++] = (wait_t){ peer, tag };
	p->waiting++;
	return true;
}

/* Asks every node of q that holds a covered stream not asked yet. */
static void ask_step(pending_t *p, stepq_t *q, const pmix_proc_t procs[], size_t nprocs,
		     uint16_t chans)
{
	unsigned char *cov = covered(q, procs, nprocs);

	for (uint32_t node = 0; cov && node < q->map->nnodes; node++) {
		pmix_data_buffer_t body;
		uint32_t n, peer = peer_of(q, node);

		if (q == &nio.own && node == plug_net_ctx.me)
			continue;
		n = pack_ask(q, node, cov, chans, &body);
		if (n && ask(p, peer, n, &body) && add_wait(p, peer, p->tag)) {
			q->last[node] = p->tag;
		} else if (n) {
			plug_error("IOF: cannot ask node %u of %s for its output", node, q->nspace);
		} else if (q->last[node] && covers_node(q, cov, node)) {
			/* asked by an earlier pull that still waits: the history
			 * is not in yet, so this one waits too */
			add_wait(p, peer, q->last[node]);
		}
		if (n)
			pxc_buf_clear(&body);
	}
	free(cov);
}

/* The pull proper, once every step it names is known. */
static pmix_status_t pull_now(const pmix_proc_t procs[], size_t nprocs, uint16_t chans,
			      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct timeval tv = { NIO_READY_S, 0 };
	pending_t *p = calloc(1, sizeof(*p));

	if (!p)
		return PMIX_ERR_NOMEM;
	p->tag = ++nio.next_tag;
	p->cbfunc = cbfunc;
	p->cbdata = cbdata;
	ask_step(p, &nio.own, procs, nprocs, chans);
	nio.own.pull = p->tag;
	for (size_t i = 0; i < nprocs; i++) {
		stepq_t *q = procs[i].nspace[0] ? step_of_nspace(procs[i].nspace) : NULL;

		if (q && q->pull != p->tag) { /* each step once: O(procs x steps) */
			q->pull = p->tag;
			ask_step(p, q, procs, nprocs, chans);
		}
	}
	if (!p->waiting || !(p->timer = evtimer_new(plug_net_base(nio.net), pending_timeout, p))) {
		free(p->w);
		free(p);
		return PMIX_OPERATION_SUCCEEDED;
	}
	evtimer_add(p->timer, &tv);
	p->next = nio.pending;
	nio.pending = p;
	return PMIX_SUCCESS;
}

static void later_cb(pmix_status_t st, void *arg)
{
	later_t *l = arg;

	(void)st; /* what could not be fetched stays unknown: not asked */
	if (nio.stopped ||
	    (st = pull_now(l->procs, l->nprocs, l->chans, l->cbfunc, l->cbdata)) != PMIX_SUCCESS)
		l->cbfunc(st == PMIX_OPERATION_SUCCEEDED || nio.stopped ? PMIX_SUCCESS : st,
			  l->cbdata);
	free(l->procs);
	free(l);
}

pmix_status_t plug_iof_pull(const pmix_proc_t procs[], size_t nprocs,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	uint16_t chans = channels & NIO_CHANS;
	bool others = false;
	later_t *l;
	int rc;

	(void)directives, (void)ndirs;
	if (!nio.net || nio.stopped || !nio.own.asked || !chans || !cbfunc)
		return PMIX_OPERATION_SUCCEEDED;
	for (size_t i = 0; i < nprocs; i++)
		others = others || !PMIx_Check_nspace(procs[i].nspace, plug_net_ctx.nspace);
	if (!others)
		return pull_now(procs, nprocs, chans, cbfunc, cbdata);
	/* other steps of the job: their tables first (net/xstep.h) */
	if (!(l = calloc(1, sizeof(*l))) || !(l->procs = malloc(nprocs * sizeof(*procs)))) {
		free(l);
		return PMIX_ERR_NOMEM;
	}
	/* only this job's steps (slurmix.<job>.<step>): a name that is none
	 * would end the fetch of the others (not asked, logged) */
	for (size_t i = 0; i < nprocs; i++)
		if (plug_nspace_same_job(procs[i].nspace, plug_net_ctx.nspace))
			l->procs[l->nprocs++] = procs[i];
		else
			plug_debug("IOF: %s is no step of this job: not asked", procs[i].nspace);
	l->chans = chans;
	l->cbfunc = cbfunc;
	l->cbdata = cbdata;
	rc = plug_xstep_need(l->procs, l->nprocs, later_cb, l);
	if (rc == 0)
		return PMIX_SUCCESS; /* later_cb answers */
	free(l->procs);
	free(l);
	if (rc < 0)
		plug_debug("IOF: another step's table cannot be had: %s", PMIx_Error_string(rc));
	return pull_now(procs, nprocs, chans, cbfunc, cbdata);
}

/* IOF_DATA from peer `from`. */
static void data_in(uint32_t from, pmix_data_buffer_t *in)
{
	uint32_t rank, node = 0;
	uint16_t ch;
	bool complete;
	uint64_t dropped;
	pmix_byte_object_t bo = { 0 };
	int32_t one = 1;
	pmix_proc_t src;
	pmix_status_t st;
	stepq_t *q = step_of_peer(from, &node);

	if (pxc_unpack(in, &rank, &one, PMIX_UINT32) != PMIX_SUCCESS ||
	    pxc_unpack(in, &ch, &(int32_t){ 1 }, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_unpack(in, &complete, &(int32_t){ 1 }, PMIX_BOOL) != PMIX_SUCCESS ||
	    pxc_unpack(in, &dropped, &(int32_t){ 1 }, PMIX_UINT64) != PMIX_SUCCESS ||
	    pxc_unpack(in, &bo, &(int32_t){ 1 }, PMIX_BYTE_OBJECT) != PMIX_SUCCESS) {
		plug_error("IOF: a broken output message from node %u: dropped", from);
		PMIx_Byte_object_destruct(&bo);
		return;
	}
	if (!q || rank >= q->map->ntasks || q->map->node_of[rank] != node ||
	    (ch != PMIX_FWD_STDOUT_CHANNEL && ch != PMIX_FWD_STDERR_CHANNEL) ||
	    !(q->asked[rank] & ch)) {
		plug_error("IOF: node %u sent output of rank %u channel %u, which it does not "
			   "hold or nobody asked for: dropped",
			   from, rank, (unsigned)ch);
		PMIx_Byte_object_destruct(&bo);
		return;
	}
	/* dropped: the asked node's history had a gap, or its relay had to
	 * drop; counted here as this stream's lost bytes */
	PMIX_LOAD_PROCID(&src, q->nspace, rank);
	st = pxc_server_iof_input(&src, ch, bo.bytes, bo.size, dropped, complete);
	if (st != PMIX_SUCCESS)
		plug_debug("IOF: output of %s:%u not taken: %s", q->nspace, rank,
			   PMIx_Error_string(st));
	PMIx_Byte_object_destruct(&bo);
}

/* ---- the asked side ----------------------------------------------------- */

static relay_t *relay_find(uint32_t id)
{
	for (relay_t *r = nio.relays; r; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static void relay_free(relay_t *r)
{
	pxc_server_iof_relay_stop(r->id);
	if (r->retry)
		event_free(r->retry);
	free(r);
}

static void relay_retry(int fd, short what, void *arg)
{
	relay_t *r = relay_find((uint32_t)(uintptr_t)arg);
	struct timeval tv = { 0, NIO_RETRY_MS * 1000 };

	(void)fd, (void)what;
	if (!r || nio.stopped)
		return;
	if (plug_net_queued(nio.net, r->to) > NIO_MAX_QUEUED) {
		evtimer_add(r->retry, &tv);
		return;
	}
	pxc_server_iof_relay_resume(r->id);
}

static bool relay_sink(void *arg, uint32_t id, const sx_iof_chunk_t *c)
{
	relay_t *r = arg;
	pmix_byte_object_t bo = { .bytes = (char *)c->data, .size = c->n };
	uint32_t rank = c->src->rank;
	uint16_t ch = (uint16_t)c->channel;
	bool complete = c->complete;
	uint64_t dropped = c->dropped;
	pmix_data_buffer_t b;
	struct timeval tv = { 0, NIO_RETRY_MS * 1000 };

	pxc_buf_init(&b);
	if (pxc_pack(&b, &rank, 1, PMIX_UINT32) != PMIX_SUCCESS ||
	    pxc_pack(&b, &ch, 1, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_pack(&b, &complete, 1, PMIX_BOOL) != PMIX_SUCCESS ||
	    pxc_pack(&b, &dropped, 1, PMIX_UINT64) != PMIX_SUCCESS ||
	    pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
	    plug_net_send(nio.net, r->to, PLUG_NET_IOF_DATA, 0, &b) < 0)
		plug_debug("IOF: %zu bytes of rank %u's output for node %u lost", c->n, rank,
			   r->to);
	pxc_buf_clear(&b);
	if (r->history || plug_net_queued(nio.net, r->to) <= NIO_MAX_QUEUED)
		return true;
	if (!r->retry &&
	    !(r->retry = evtimer_new(plug_net_base(nio.net), relay_retry, (void *)(uintptr_t)id)))
		return true; /* (unbounded rather than stuck) */
	evtimer_add(r->retry, &tv);
	return false;
}

/* One relay of the procs in ranks[0..n) with channels chans to `to`. */
static void relay_start(uint32_t to, const uint32_t *ranks, const uint16_t *chans, uint32_t n,
			uint16_t want)
{
	pmix_proc_t *procs = calloc(n ? n : 1, sizeof(*procs));
	relay_t *r = calloc(1, sizeof(*r));
	size_t k = 0;
	pmix_status_t st;

	for (uint32_t i = 0; procs && i < n; i++)
		if (chans[i] == want)
			PMIX_LOAD_PROCID(&procs[k++], plug_net_ctx.nspace, ranks[i]);
	if (!k || !procs || !r) {
		free(procs);
		free(r);
		return;
	}
	r->to = to;
	r->history = true;
	r->next = nio.relays;
	nio.relays = r;
	st = pxc_server_iof_relay(procs, k, want, relay_sink, r, &r->id);
	r->history = false;
	if (st != PMIX_SUCCESS) {
		nio.relays = r->next;
		free(r);
		plug_error("IOF: cannot relay output to node %u: %s", to, PMIx_Error_string(st));
	} else if (to < plug_net_ctx.map->nnodes) {
		nio.nrelays[to]++;
	} else {
		nio.nforeign++;
	}
	free(procs);
}

/* IOF_SUB from node `from`: its relays, then READY (always: a broken
 * request is answered too, so that nobody waits for it). */
static void sub_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	const plug_map_t *map = plug_net_ctx.map;
	uint32_t n = 0, *ranks = NULL, ok = 0;
	uint16_t *chans = NULL;
	int32_t one = 1;
	bool bad = pxc_unpack(in, &n, &one, PMIX_UINT32) != PMIX_SUCCESS ||
		   n > map->count[plug_net_ctx.me];

	if (!bad && n && (!(ranks = calloc(n, sizeof(*ranks))) || !(chans = calloc(n, 2))))
		bad = true;
	for (uint32_t i = 0; !bad && i < n; i++) {
		uint32_t r;
		uint16_t c;

		if (pxc_unpack(in, &r, &(int32_t){ 1 }, PMIX_UINT32) != PMIX_SUCCESS ||
		    pxc_unpack(in, &c, &(int32_t){ 1 }, PMIX_UINT16) != PMIX_SUCCESS) {
			bad = true;
			break;
		}
		if (r >= map->ntasks || map->node_of[r] != plug_net_ctx.me || !(c & NIO_CHANS) ||
		    (c & ~NIO_CHANS)) {
			plug_error("IOF: node %u asked for rank %u channels %u, not held here",
				   from, r, (unsigned)c);
			continue;
		}
		ranks[ok] = r;
		chans[ok++] = c;
	}
	if (bad)
		plug_error("IOF: a broken output request from node %u (%u entries)", from, n);
	else if (from < map->nnodes && nio.nrelays[from] >= 2 * map->count[plug_net_ctx.me] + 3)
		plug_error("IOF: node %u asks for more than this node's streams (%u relays): "
			   "refused",
			   from, nio.nrelays[from]);
	else if (from >= map->nnodes && nio.nforeign >= NIO_MAX_FOREIGN_RELAYS)
		plug_error("IOF: other steps ask for more than %u relays: refused",
			   NIO_MAX_FOREIGN_RELAYS);
	else
		for (uint16_t want = 1; want <= NIO_CHANS; want++)
			relay_start(from, ranks, chans, ok, want);
	free(ranks);
	free(chans);
	if (plug_net_send(nio.net, from, PLUG_NET_IOF_READY, tag, NULL) < 0)
		plug_debug("IOF: cannot answer node %u", from);
}

/* ---- the transport's callbacks ------------------------------------------ */

static void nio_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t node;

	(void)arg;
	/* from this step's other nodes; from another step's stepd (the job
	 * key said so): a request for our streams, or what we asked it for */
	if (from == plug_net_ctx.me || nio.stopped ||
	    (from >= plug_net_ctx.map->nnodes && h->cmd != PLUG_NET_IOF_SUB &&
	     !step_of_peer(from, &node))) {
		plug_error("IOF: message %u from peer %u, which is no other node of this step: "
			   "dropped",
			   (unsigned)h->cmd, from);
		return;
	}
	if (h->cmd == PLUG_NET_IOF_SUB)
		sub_in(from, h->tag, in);
	else if (h->cmd == PLUG_NET_IOF_READY)
		node_answered(from, h->tag, false);
	else
		data_in(from, in);
}

static void nio_peer_lost(void *arg, uint32_t peer)
{
	uint32_t node;
	stepq_t *q;

	(void)arg;
	if (nio.stopped)
		return;
	if ((q = step_of_peer(peer, &node))) {
		node_answered(peer, 0, true);
		forget_node_streams(q, node);
	}
	for (relay_t **pp = &nio.relays; *pp;) {
		relay_t *r = *pp;

		if (r->to != peer) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		relay_free(r);
		if (peer >= plug_net_ctx.map->nnodes && nio.nforeign)
			nio.nforeign--;
	}
	if (peer < plug_net_ctx.map->nnodes)
		nio.nrelays[peer] = 0;
}

static void nio_stop(void *arg)
{
	(void)arg;
	nio.stopped = true;
	while (nio.pending)
		pending_done(nio.pending, PMIX_ERR_UNREACH);
	while (nio.relays) {
		relay_t *r = nio.relays;

		nio.relays = r->next;
		relay_free(r);
	}
	while (nio.others) {
		stepq_t *q = nio.others;

		nio.others = q->next;
		free(q->asked);
		free(q->last);
		free(q);
	}
	free(nio.own.asked);
	free(nio.own.last);
	free(nio.nrelays);
	nio.own.asked = NULL;
	nio.own.last = nio.nrelays = NULL;
}

int plug_iof_net_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "IO forwarding",
			      .first = PLUG_NET_IOF_SUB,
			      .last = PLUG_NET_IOF_DATA,
			      .msg = nio_msg,
			      .peer_lost = nio_peer_lost,
			      .stop = nio_stop };

	free(nio.own.asked);
	free(nio.own.last);
	free(nio.nrelays);
	memset(&nio, 0, sizeof(nio));
	nio.net = n;
	snprintf(nio.own.nspace, sizeof(nio.own.nspace), "%s", plug_net_ctx.nspace);
	nio.own.map = plug_net_ctx.map;
	if (!(nio.own.asked = calloc(plug_net_ctx.map->ntasks ? plug_net_ctx.map->ntasks : 1,
				     sizeof(*nio.own.asked))) ||
	    !(nio.own.last = calloc(plug_net_ctx.map->nnodes, sizeof(*nio.own.last))) ||
	    !(nio.nrelays = calloc(plug_net_ctx.map->nnodes, sizeof(*nio.nrelays))))
		return -1;
	return plug_net_register(n, &u);
}
