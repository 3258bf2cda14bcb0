/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/evindex.c - the registration index (docs/events.md, "routing").
 *
 * Each stepd of a step knows, per other node of the step, the event codes
 * some client there registered for (or that one registered for every
 * code, as Open MPI's default handler does). A client's event of this
 * step goes only to the nodes that want its code (net/event.c); a node
 * that does not is not sent it, and the event is kept here instead.
 *
 * A registration that adds codes for this node (the host's
 * register_events, which the core calls before it answers the client)
 * floods EVREG (u32 origin node, BOOL every code, STATUS[] codes) over the
 * tree of all nodes: each stepd records the codes for the origin, sends
 * the origin the kept events of those codes (EVENT_FWD, tag 0: its server
 * delivers them to its clients in range, the new registrant among them,
 * and caches them for later ones) and passes EVREG on to its other
 * neighbours. The index only grows: a deregistration withdraws nothing,
 * so a node is at worst sent an event it does not deliver.
 *
 * Order: the EVREG goes out before the registration is answered, and the
 * whole-step fence travels the same tree behind it, on the same
 * connections: a node that enters a fence after a registration elsewhere
 * has that registration in its index when the fence returns, so an event
 * it notifies after that fence goes to the registrant's node directly. A
 * registration that crosses an event in flight, or that reaches a node
 * only after a fence over fewer nodes (another tree), finds the event
 * kept and gets it from there: once, but not ordered against that fence.
 *
 * What is kept is bounded like the event cache of the servers
 * (SlurmixEventCacheBytes, SlurmixEventCacheAge): an event dropped from
 * here before every node it was kept for registered is counted and logged
 * (at most every 10 s); a later registrant on such a node misses it, and
 * learns of it: when the node registers, EVLOST (u32 count) goes to it
 * before the kept events, and its server reports the count on the next
 * event a client there gets (pxc_server_events_lost), as its own cache
 * reports its own losses.
 * PMIX_EVENT_DO_NOT_CACHE events are not kept (net/event.c).
 *
 * EVREG is not sent again: when a link of the tree of all nodes breaks
 * (a neighbour's stepd ended, or the connection failed and what was
 * queued on it was lost), the nodes beyond it may miss registrations, so
 * the nodes on each side stop withholding: the two ends flood an EVREG of
 * origin UINT32_MAX through their parts of the tree, and every node that
 * gets it sends its events to every node that may host a recipient from
 * then on, and what it kept to its nodes now. A node whose stepd ended
 * (said BYE) is forgotten by what was kept.
 *
 * Progress thread. The index lives for the step (freed at the network's
 * stop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/tree.h"
#include "net/ctx.h"
#include "net/evindex.h"
#include "net/transport.h"
#include "slurm_adapter.h"

#define EVINDEX_MAX_CODES 4096 /* per node: beyond, it counts as every code */
#define DROP_LOG_S 10

typedef struct {
	bool all;
	pmix_status_t *codes;
	size_t n;
} codeset_t;

typedef struct held {
	struct held *next;
	pmix_status_t code;
	pmix_data_buffer_t msg;
	uint32_t *nodes; /* still not sent to */
	size_t n;
	long at; /* pxc_now_ms when kept */
} held_t;

static struct {
	codeset_t *node; /* [nnodes]: what each node registered; [me]: what
			  * this node told the others */
	uint32_t nnodes;
	held_t *held, **held_tail; /* oldest first */
	size_t held_bytes;
	uint32_t hold_bytes, hold_age;
	uint32_t dropped; /* kept events dropped unsent since the last log */
	uint32_t *lost;   /* [nnodes]: dropped before that node registered */
	bool degraded;    /* a tree link broke: nothing is withheld */
	long dropped_log;
} ix;

static bool has(const codeset_t *c, pmix_status_t code)
{
	if (c->all)
		return true;
	for (size_t i = 0; i < c->n; i++)
		if (c->codes[i] == code)
			return true;
	return false;
}

/* Adds codes to c; the ones that were new go to *fresh (n_fresh of them;
 * NULL allowed when only adding). Beyond the bound, or out of memory, c
 * becomes every code (nothing is missed that way). */
static void add_codes(codeset_t *c, const pmix_status_t *codes, size_t n, pmix_status_t *fresh,
		      size_t *n_fresh)
{
	pmix_status_t *grown;

	for (size_t i = 0; i < n && !c->all; i++) {
		if (has(c, codes[i]))
			continue;
		if (c->n >= EVINDEX_MAX_CODES ||
		    !(grown = realloc(c->codes, (c->n + 1) * sizeof(*grown)))) {
			c->all = true;
			break;
		}
		c->codes = grown;
		c->codes[c->n++] = codes[i];
		if (fresh)
			fresh[(*n_fresh)++] = codes[i];
	}
}

static bool ready(void)
{
	return ix.node && plug_net_ctx.net && plug_net_ctx.me < ix.nnodes;
}

bool plug_evindex_wants(uint32_t node, pmix_status_t code)
{
	if (!ready() || node >= ix.nnodes || ix.degraded)
		return true; /* not indexed: nothing is withheld */
	return has(&ix.node[node], code);
}

/* ------------------------------------------------------- kept events */

/* Unlinks and frees the kept event *pp (pp: the link that points to it). */
static void held_unlink(held_t **pp)
{
	held_t *h = *pp;

	*pp = h->next;
	if (ix.held_tail == &h->next)
		ix.held_tail = pp;
	ix.held_bytes -= h->msg.bytes_used;
	pxc_buf_clear(&h->msg);
	free(h->nodes);
	free(h);
}

/* An event kept for nodes[0..n) is dropped unsent. */
static void note_dropped(const uint32_t *nodes, size_t n)
{
	long now = pxc_now_ms();

	for (size_t i = 0; ix.lost && i < n; i++)
		if (nodes[i] < ix.nnodes && ix.lost[nodes[i]] < UINT32_MAX)
			ix.lost[nodes[i]]++;
	ix.dropped++;
	if (now - ix.dropped_log < DROP_LOG_S * 1000)
		return;
	plug_error("events: %u event%s kept for nodes without a handler dropped (bounds "
		   "SlurmixEventCacheBytes/Age); a handler registered there later misses %s",
		   ix.dropped, ix.dropped == 1 ? "" : "s", ix.dropped == 1 ? "it" : "them");
	ix.dropped = 0;
	ix.dropped_log = now;
}

/* Drops the oldest kept events while over the bounds (room: bytes about
 * to be added). */
static void held_trim(size_t room)
{
	long now = pxc_now_ms();

	while (ix.held && (ix.held_bytes + room > ix.hold_bytes ||
			   (ix.hold_age && now - ix.held->at > (long)ix.hold_age * 1000))) {
		if (ix.held->n)
			note_dropped(ix.held->nodes, ix.held->n);
		held_unlink(&ix.held);
	}
}

void plug_evindex_hold(pmix_status_t code, const pmix_data_buffer_t *msg, const uint32_t *nodes,
		       size_t n)
{
	held_t *h;

	if (!ready() || !n || !msg->bytes_used || !ix.hold_bytes)
		return; /* (no cache: late registrants get nothing, by choice) */
	held_trim(msg->bytes_used);
	if (msg->bytes_used > ix.hold_bytes || !(h = calloc(1, sizeof(*h))))
		goto lost;
	pxc_buf_init(&h->msg);
	if (!(h->nodes = malloc(n * sizeof(*h->nodes))) ||
	    pxc_buf_append(&h->msg, msg->base_ptr, msg->bytes_used) < 0) {
		free(h->nodes);
		free(h);
		goto lost;
	}
	memcpy(h->nodes, nodes, n * sizeof(*nodes));
	h->n = n;
	h->code = code;
	h->at = pxc_now_ms();
	*ix.held_tail = h;
	ix.held_tail = &h->next;
	ix.held_bytes += h->msg.bytes_used;
	return;
lost:
	note_dropped(nodes, n);
}

/* Takes node out of the kept events of c's codes (NULL: every code),
 * sending each of them there first with send (oldest first). Returns how
 * many went. */
static size_t held_take(uint32_t node, const codeset_t *c, bool send)
{
	size_t sent = 0;

	for (held_t **pp = &ix.held; *pp;) {
		held_t *h = *pp;
		size_t i;

		for (i = 0; i < h->n && h->nodes[i] != node; i++)
			;
		if (i < h->n && (!c || has(c, h->code))) {
			int rc = send ? plug_net_send(plug_net_ctx.net, node, PLUG_NET_EVENT_FWD, 0,
						      &h->msg) :
					0;

			if (rc < 0)
				plug_flag("events: node %u unreachable for a kept event", node);
			sent += send && rc == 0;
			h->nodes[i] = h->nodes[--h->n];
		}
		if (h->n == 0)
			held_unlink(pp);
		else
			pp = &h->next;
	}
	return sent;
}

/* node registered codes (c: what it has now): the kept events it wants
 * go to it, oldest first. */
static void send_held(uint32_t node, const codeset_t *c)
{
	size_t sent = 0;
	pmix_data_buffer_t b;

	held_trim(0);
	if (ix.lost && ix.lost[node]) { /* first: the next event there reports it */
		pxc_buf_init(&b);
		if (pxc_pack_u32(&b, ix.lost[node]) == PMIX_SUCCESS &&
		    plug_net_send(plug_net_ctx.net, node, PLUG_NET_EVLOST, 0, &b) == 0)
			ix.lost[node] = 0;
		pxc_buf_clear(&b);
	}
	sent = held_take(node, c, true);
	if (sent)
		plug_flag("events: node %u registered: %zu kept event%s sent there", node, sent,
			  sent == 1 ? "" : "s");
}

/* ------------------------------------------------------------- EVREG */

static int pack_evreg(pmix_data_buffer_t *b, uint32_t origin, bool all, const pmix_status_t *codes,
		      size_t n)
{
	pxc_buf_init(b);
	return pxc_pack_u32(b, origin) == PMIX_SUCCESS &&
			       pxc_pack(b, &all, 1, PMIX_BOOL) == PMIX_SUCCESS &&
			       pxc_pack_array(b, codes, n, PMIX_STATUS) == PMIX_SUCCESS ?
		       0 :
		       -1;
}

pmix_status_t plug_evindex_register_events(pmix_status_t *codes, size_t ncodes,
					   const pmix_info_t info[], size_t ninfo,
					   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	codeset_t *mine;
	pmix_status_t *fresh = NULL;
	size_t nfresh = 0;
	pmix_data_buffer_t b;
	bool all;

	(void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
	if (!ready() || ix.nnodes < 2)
		return PMIX_OPERATION_SUCCEEDED; /* nobody else to tell */
	mine = &ix.node[plug_net_ctx.me];
	if (mine->all)
		return PMIX_OPERATION_SUCCEEDED;
	all = ncodes == 0 || !codes;
	if (!all && (fresh = malloc(ncodes * sizeof(*fresh))))
		add_codes(mine, codes, ncodes, fresh, &nfresh);
	else
		all = true;
	all = all || mine->all; /* past the bound: every code from now on */
	if (!all && nfresh == 0) {
		free(fresh);
		return PMIX_OPERATION_SUCCEEDED; /* told already */
	}
	mine->all = mine->all || all;
	if (pack_evreg(&b, plug_net_ctx.me, all, all ? NULL : fresh, all ? 0 : nfresh) == 0) {
		plug_net_flood(plug_net_ctx.net, PLUG_NET_EVREG, PLUG_TREE_NONE, &b);
		plug_flag("events: registered here: %s%zu new code%s told to the step",
			  all ? "every code; " : "", all ? 0 : nfresh, nfresh == 1 ? "" : "s");
	} else {
		plug_error("events: out of memory: this node's registration not told");
	}
	pxc_buf_clear(&b);
	free(fresh);
	return PMIX_OPERATION_SUCCEEDED;
}

static void degrade(uint32_t from);

static void evreg_in(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_status_t *codes = NULL;
	size_t n = 0;
	uint32_t origin;
	int32_t one = 1;
	bool all = false;
	pmix_data_buffer_t fwd;
	codeset_t *c;

	(void)arg, (void)h;
	if (!ready())
		return;
	if (from >= ix.nnodes) {
		plug_error("EVREG from a step daemon of another step (peer %u): dropped", from);
		return;
	}
	if (pxc_unpack_u32(in, &origin) != PMIX_SUCCESS ||
	    pxc_unpack(in, &all, &one, PMIX_BOOL) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&codes, &n, PMIX_STATUS) != PMIX_SUCCESS ||
	    (origin == UINT32_MAX && (!all || n)) ||
	    (origin != UINT32_MAX && (origin >= ix.nnodes || origin == plug_net_ctx.me)) ||
	    (!all && n == 0)) {
		plug_error("malformed EVREG from node %u: dropped", from);
		free(codes);
		return;
	}
	if (origin == UINT32_MAX) { /* a tree link broke elsewhere */
		degrade(from);
		return;
	}
	c = &ix.node[origin];
	if (all)
		c->all = true;
	else
		add_codes(c, codes, n, NULL, NULL);
	/* on along the tree first: the kept events go to origin directly */
	if (pack_evreg(&fwd, origin, all, codes, n) == 0)
		plug_net_flood(plug_net_ctx.net, PLUG_NET_EVREG, from, &fwd);
	pxc_buf_clear(&fwd);
	free(codes);
	send_held(origin, c);
}

static void evlost_in(uint32_t from, pmix_data_buffer_t *in)
{
	uint32_t n;

	if (!ready() || from >= ix.nnodes || pxc_unpack_u32(in, &n) != PMIX_SUCCESS || n == 0 ||
	    pxc_buf_remaining(in)) {
		plug_error("malformed EVLOST from node %u: dropped", from);
		return;
	}
	plug_error("events: node %u dropped %u event%s kept for this node's late registrants "
		   "(SlurmixEventCacheBytes/Age): reported on the next event here",
		   from, n, n == 1 ? "" : "s");
	pxc_server_events_lost(n);
}

static void evindex_in(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	if (h->cmd == PLUG_NET_EVLOST)
		evlost_in(from, in);
	else
		evreg_in(arg, from, h, in);
}

static bool tree_neighbour(uint32_t node)
{
	uint32_t w = plug_net_ctx.width ? plug_net_ctx.width : 1, parent, nkids = 0, *kids;
	bool yes = false;

	if (!(kids = calloc(w, sizeof(*kids))))
		return true; /* unknown: assume the worst */
	if (plug_tree_node(plug_net_ctx.me, ix.nnodes, w, &parent, kids, &nkids) == 0) {
		yes = parent == node;
		for (uint32_t i = 0; i < nkids; i++)
			yes = yes || kids[i] == node;
	}
	free(kids);
	return yes;
}

/* Withhold nothing any more (a tree link broke, next to this node or,
 * said the message from `from`, elsewhere): what was kept goes out, and
 * the others of this side of the break are told. */
static void degrade(uint32_t from)
{
	pmix_data_buffer_t b;

	if (ix.degraded)
		return;
	ix.degraded = true;
	plug_flag("events: a link of the tree broke (%s node %u): every node gets this node's "
		  "events from now on",
		  from == plug_net_ctx.me ? "here, to" : "told by", from);
	for (uint32_t node = 0; node < ix.nnodes; node++)
		if (node != plug_net_ctx.me)
			held_take(node, NULL, !plug_net_peer_ended(plug_net_ctx.net, node));
	if (pack_evreg(&b, UINT32_MAX, true, NULL, 0) == 0)
		plug_net_flood(plug_net_ctx.net, PLUG_NET_EVREG, from, &b);
	pxc_buf_clear(&b);
}

static void evindex_peer_lost(void *arg, uint32_t peer)
{
	(void)arg;
	if (!ready() || peer >= ix.nnodes)
		return;
	if (plug_net_peer_ended(plug_net_ctx.net, peer))
		held_take(peer, NULL, false);
	if (tree_neighbour(peer))
		degrade(peer);
}

static void evindex_stop(void *arg)
{
	(void)arg;
	if (ix.dropped) /* not logged yet (at most one line every 10 s) */
		plug_error("events: %u more event%s kept for nodes without a handler dropped",
			   ix.dropped, ix.dropped == 1 ? "" : "s");
	while (ix.held)
		held_unlink(&ix.held);
	for (uint32_t i = 0; ix.node && i < ix.nnodes; i++)
		free(ix.node[i].codes);
	free(ix.node);
	free(ix.lost);
	memset(&ix, 0, sizeof(ix));
}

int plug_evindex_net_register(plug_net_t *n, uint32_t hold_bytes, uint32_t hold_age)
{
	plug_net_user_t u = { .name = "event index",
			      .first = PLUG_NET_EVREG,
			      .last = PLUG_NET_EVLOST,
			      .msg = evindex_in,
			      .peer_lost = evindex_peer_lost,
			      .stop = evindex_stop };

	evindex_stop(NULL);
	ix.nnodes = plug_net_nnodes(n);
	ix.hold_bytes = hold_bytes;
	ix.hold_age = hold_age;
	ix.held_tail = &ix.held;
	if (!(ix.node = calloc(ix.nnodes ? ix.nnodes : 1, sizeof(*ix.node))) ||
	    !(ix.lost = calloc(ix.nnodes ? ix.nnodes : 1, sizeof(*ix.lost))))
		return -1;
	return plug_net_register(n, &u);
}
