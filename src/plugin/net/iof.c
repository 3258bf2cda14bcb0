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
#include "net/ctx.h"
#include "net/iof.h"
#include "pxc_host.h"
#include "slurm_adapter.h"

#define NIO_MAX_QUEUED (4u << 20)
#define NIO_RETRY_MS 20
#define NIO_READY_S 10 /* the longest a pull waits for the asked nodes */
#define NIO_CHANS (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL)

/* A pull waiting for the READY of the nodes it asked. */
typedef struct pending {
	struct pending *next;
	uint32_t tag;
	uint32_t waiting; /* nodes that did not answer yet */
	uint32_t *asked;  /* [nnodes] the request whose READY it waits for */
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	struct event *timer;
} pending_t;

/* A subscription of this node's server forwarding to node `to`. */
typedef struct relay {
	struct relay *next;
	uint32_t id, to;
	bool history; /* being given its history: takes it all */
	struct event *retry;
} relay_t;

static struct {
	plug_net_t *net;
	uint16_t *asked;   /* [ntasks] channels of remote ranks asked for */
	uint32_t *last;    /* [nnodes] the last request to it not answered */
	uint32_t *nrelays; /* [nnodes] relays to it (bounded) */
	pending_t *pending;
	relay_t *relays;
	uint32_t next_tag;
	bool stopped;
} nio;

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
	free(p->asked);
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

/* Node `node` answered request `tag` (any: or will not answer any): the
 * pulls waiting for it. Its answers come in order, so one answers the
 * requests before it too. */
static void node_answered(uint32_t node, uint32_t tag, bool any)
{
	if (any || nio.last[node] == tag)
		nio.last[node] = 0;
	for (pending_t *p = nio.pending, *next; p; p = next) {
		next = p->next;
		if (!p->asked[node] || (!any && p->asked[node] > tag))
			continue;
		p->asked[node] = 0;
		if (!--p->waiting)
			pending_done(p, PMIX_SUCCESS);
	}
}

/* Which ranks of the step procs covers (a byte each), or NULL. */
static unsigned char *covered(const pmix_proc_t procs[], size_t nprocs)
{
	const plug_map_t *map = plug_net_ctx.map;
	unsigned char *c = calloc(map->ntasks ? map->ntasks : 1, 1);

	for (size_t i = 0; c && i < nprocs; i++) {
		if (!PMIx_Check_nspace(procs[i].nspace, plug_net_ctx.nspace))
			continue; /* (another step's: not relayed yet) */
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			memset(c, 1, map->ntasks);
		else if (procs[i].rank < map->ntasks)
			c[procs[i].rank] = 1;
	}
	return c;
}

/* Packs node's ranks of cov whose chans are not asked yet; marks them.
 * The number packed (0: nothing to ask there). */
static uint32_t pack_ask(uint32_t node, const unsigned char *cov, uint16_t chans,
			 pmix_data_buffer_t *b)
{
	const plug_map_t *map = plug_net_ctx.map;
	uint32_t n = 0;

	for (uint32_t k = 0; k < map->count[node]; k++) {
		uint32_t r = map->ranks[map->first[node] + k];
		uint16_t want = chans & (uint16_t)~nio.asked[r];

		if (!cov[r] || !want)
			continue;
		if (!n++)
			pxc_buf_init(b);
		if (pxc_pack(b, &r, 1, PMIX_UINT32) != PMIX_SUCCESS ||
		    pxc_pack(b, &want, 1, PMIX_UINT16) != PMIX_SUCCESS)
			return 0; /* (the caller clears b) */
		nio.asked[r] |= want;
	}
	return n;
}

/* Sends node its IOF_SUB (n entries in body) for pull p. */
static bool ask(pending_t *p, uint32_t node, uint32_t n, pmix_data_buffer_t *body)
{
	pmix_data_buffer_t b;
	bool ok;

	pxc_buf_init(&b);
	ok = pxc_pack(&b, &n, 1, PMIX_UINT32) == PMIX_SUCCESS &&
	     pxc_buf_append(&b, body->base_ptr, body->bytes_used) == 0 &&
	     plug_net_send(nio.net, node, PLUG_NET_IOF_SUB, p->tag, &b) == 0;
	pxc_buf_clear(&b);
	return ok;
}

/* Whether cov covers a rank of node. */
static bool covers_node(const unsigned char *cov, uint32_t node)
{
	const plug_map_t *map = plug_net_ctx.map;

	for (uint32_t k = 0; k < map->count[node]; k++)
		if (cov[map->ranks[map->first[node] + k]])
			return true;
	return false;
}

/* Node was lost: its streams that were asked for end here (nothing more
 * comes), and a next pull asks again. */
static void forget_node_streams(uint32_t node)
{
	const plug_map_t *map = plug_net_ctx.map;

	for (uint32_t k = 0; nio.asked && k < map->count[node]; k++) {
		uint32_t r = map->ranks[map->first[node] + k];
		pmix_proc_t src;

		PMIX_LOAD_PROCID(&src, plug_net_ctx.nspace, r);
		for (uint16_t ch = 1; ch <= 2; ch <<= 1)
			if (nio.asked[r] & ch)
				(void)pxc_server_iof_input(&src, ch, NULL, 0, 0, true);
		nio.asked[r] = 0;
	}
}

pmix_status_t plug_iof_pull(const pmix_proc_t procs[], size_t nprocs,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const plug_map_t *map = plug_net_ctx.map;
	uint16_t chans = channels & NIO_CHANS;
	unsigned char *cov;
	pending_t *p;
	struct timeval tv = { NIO_READY_S, 0 };

	(void)directives, (void)ndirs;
	if (!nio.net || nio.stopped || !nio.asked || !chans || !cbfunc)
		return PMIX_OPERATION_SUCCEEDED;
	if (!(cov = covered(procs, nprocs)) || !(p = calloc(1, sizeof(*p))) ||
	    !(p->asked = calloc(map->nnodes, sizeof(*p->asked)))) {
		free(cov);
		if (cov)
			free(p);
		return PMIX_ERR_NOMEM;
	}
	p->tag = ++nio.next_tag;
	p->cbfunc = cbfunc;
	p->cbdata = cbdata;
	for (uint32_t node = 0; node < map->nnodes; node++) {
		pmix_data_buffer_t body;
		uint32_t n;

		if (node == plug_net_ctx.me)
			continue;
		n = pack_ask(node, cov, chans, &body);
		if (n && ask(p, node, n, &body)) {
			p->asked[node] = nio.last[node] = p->tag;
			p->waiting++;
		} else if (n) {
			plug_error("IOF: cannot ask node %u for its output (the network is "
				   "down)",
				   node);
		} else if (nio.last[node] && covers_node(cov, node)) {
			/* asked by an earlier pull that still waits: the history
			 * is not in yet, so this one waits too */
			p->asked[node] = nio.last[node];
			p->waiting++;
		}
		if (n)
			pxc_buf_clear(&body);
	}
	free(cov);
	if (!p->waiting || !(p->timer = evtimer_new(plug_net_base(nio.net), pending_timeout, p))) {
		free(p->asked);
		free(p);
		return PMIX_OPERATION_SUCCEEDED;
	}
	evtimer_add(p->timer, &tv);
	p->next = nio.pending;
	nio.pending = p;
	return PMIX_SUCCESS;
}

/* IOF_DATA from node `from`. */
static void data_in(uint32_t from, pmix_data_buffer_t *in)
{
	const plug_map_t *map = plug_net_ctx.map;
	uint32_t rank;
	uint16_t ch;
	bool complete;
	uint64_t dropped;
	pmix_byte_object_t bo = { 0 };
	int32_t one = 1;
	pmix_proc_t src;
	pmix_status_t st;

	if (pxc_unpack(in, &rank, &one, PMIX_UINT32) != PMIX_SUCCESS ||
	    pxc_unpack(in, &ch, &(int32_t){ 1 }, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_unpack(in, &complete, &(int32_t){ 1 }, PMIX_BOOL) != PMIX_SUCCESS ||
	    pxc_unpack(in, &dropped, &(int32_t){ 1 }, PMIX_UINT64) != PMIX_SUCCESS ||
	    pxc_unpack(in, &bo, &(int32_t){ 1 }, PMIX_BYTE_OBJECT) != PMIX_SUCCESS) {
		plug_error("IOF: a broken output message from node %u: dropped", from);
		PMIx_Byte_object_destruct(&bo);
		return;
	}
	if (rank >= map->ntasks || map->node_of[rank] != from ||
	    (ch != PMIX_FWD_STDOUT_CHANNEL && ch != PMIX_FWD_STDERR_CHANNEL) ||
	    !(nio.asked[rank] & ch)) {
		plug_error("IOF: node %u sent output of rank %u channel %u, which it does not "
			   "hold or nobody asked for: dropped",
			   from, rank, (unsigned)ch);
		PMIx_Byte_object_destruct(&bo);
		return;
	}
	/* dropped: the asked node's history had a gap, or its relay had to
	 * drop; counted here as this stream's lost bytes */
	PMIX_LOAD_PROCID(&src, plug_net_ctx.nspace, rank);
	st = pxc_server_iof_input(&src, ch, bo.bytes, bo.size, dropped, complete);
	if (st != PMIX_SUCCESS)
		plug_debug("IOF: output of rank %u not taken: %s", rank, PMIx_Error_string(st));
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
	} else {
		nio.nrelays[to]++;
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
	else if (nio.nrelays[from] >= 2 * map->count[plug_net_ctx.me] + 3)
		plug_error("IOF: node %u asks for more than this node's streams (%u relays): "
			   "refused",
			   from, nio.nrelays[from]);
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
	(void)arg;
	if (from >= plug_net_ctx.map->nnodes || from == plug_net_ctx.me || nio.stopped) {
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
	(void)arg;
	if (peer >= plug_net_ctx.map->nnodes || nio.stopped)
		return;
	node_answered(peer, 0, true);
	forget_node_streams(peer);
	for (relay_t **pp = &nio.relays; *pp;) {
		relay_t *r = *pp;

		if (r->to != peer) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		relay_free(r);
	}
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
	free(nio.asked);
	free(nio.last);
	free(nio.nrelays);
	nio.asked = NULL;
	nio.last = nio.nrelays = NULL;
}

int plug_iof_net_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "IO forwarding",
			      .first = PLUG_NET_IOF_SUB,
			      .last = PLUG_NET_IOF_DATA,
			      .msg = nio_msg,
			      .peer_lost = nio_peer_lost,
			      .stop = nio_stop };

	free(nio.asked);
	free(nio.last);
	free(nio.nrelays);
	memset(&nio, 0, sizeof(nio));
	nio.net = n;
	if (!(nio.asked = calloc(plug_net_ctx.map->ntasks ? plug_net_ctx.map->ntasks : 1,
				 sizeof(*nio.asked))) ||
	    !(nio.last = calloc(plug_net_ctx.map->nnodes, sizeof(*nio.last))) ||
	    !(nio.nrelays = calloc(plug_net_ctx.map->nnodes, sizeof(*nio.nrelays))))
		return -1;
	return plug_net_register(n, &u);
}
