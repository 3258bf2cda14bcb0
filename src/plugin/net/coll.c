/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/coll.c - fence across nodes (the server module's fence_nb).
 *
 * The server aggregates its local participants and calls fence_nb once
 * per fence with its node's blob (store.h: blobs concatenate). Here:
 *   1. participants' nodes = the nodes of the listed ranks (a WILDCARD
 *      rank: every node of the step), sorted; a tree of TreeWidth over
 *      them (lib/tree.c), index 0 = root;
 *   2. fan-in: once the local blob and every child's FANIN are in, the
 *      concatenation goes to the parent in a FANIN;
 *   3. the root sends the whole concatenation down in a FANOUT; each node
 *      forwards it to its children and hands it to the server's cbfunc.
 * A fence instance is identified by (signature of its proc set, sequence
 * number of fences with that signature on this node): every participant
 * sees the fences of one proc set in the same order, so several fences
 * can be in flight. A child's FANIN may arrive before the local fence_nb:
 * the instance is created by whichever comes first.
 *
 * Failures: a timeout (SlurmixTimeout, or the fence's PMIX_TIMEOUT when
 * shorter), a lost parent or missing child, an error status from a
 * neighbour, or a participating task that ended without finalizing
 * (net/lost.c; not for a connect with PMIX_CONNECT_OPTIONAL or a
 * disconnect with PMIX_CONNECT_EARLY_TERM_ALLOWED: the server of the
 * task's node drops it and contributes without it, the others complete)
 * fail the instance: the error is sent up and down the tree (except to
 * whom it came from) and the server's cbfunc gets the status -
 * never a hang. A failed instance stays as a tombstone until its timer, so
 * that late messages of that fence find it failed instead of starting it
 * anew.
 *
 * An optional connect (or a disconnect with EARLY_TERM_ALLOWED) uses no
 * tree, so that no node's loss cuts others off: each participant node
 * sends its own part (CONTRIB) to every other one and completes once it
 * has every other node's part, or knows that node gone: its stepd stops
 * with its last task, or its node went, and its participants ended with
 * it, so they are dropped instead of failing the connect. A lost
 * connection is not enough: the node is asked with a PING first
 * (net/lost.c answers it) and dropped only when that fails too. A node
 * may have no connection to a gone one whose loss would tell:
 * PLUG_COLL_PROBE_MS after the local join, the nodes not heard of get a
 * PING, whose connection fails when nobody listens there any more. Every
 * participant must agree on the flag (a CONTRIB where a tree is expected,
 * or the reverse, fails the instance). A node that sent its part and then
 * went counts for those who got it: the others drop it.
 *
 * Progress thread only (fence_nb is called there, and plug_net's upcalls).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "pmix_slurmix.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "lib/tree.h"
#include "net/coll.h"
#include "net/ctx.h"
#include "net/lost.h"
#include "net/transport.h"
#include "net/xstep.h"
#include "slurm_adapter.h"

typedef struct inst {
	struct inst *next;
	uint64_t sig;
	uint32_t seq;
	int local;                  /* the local fence_nb arrived */
	int optional;               /* a lost task does not fail it; no tree (flat) */
	int saw_contrib, saw_fanin; /* what came before the local call */
	uint32_t tmo_s;             /* its timer, in seconds */
	int sent_up;
	pmix_status_t failed;
	uint32_t parent;       /* node id or PLUG_TREE_NONE */
	uint32_t *kids, nkids; /* node ids; NULL until local (optional: every
				* other participant node) */
	uint32_t *from, nfrom; /* children whose FANIN (CONTRIB) arrived, or
				* gone (optional) */
	pmix_data_buffer_t data;
	pmix_modex_cbfunc_t cbfunc;
	pmix_op_cbfunc_t opcb; /* connect/disconnect: instead of cbfunc */
	void *cbdata;
	struct event *timer;
	pmix_proc_t *procs; /* the fence's proc set, once local */
	size_t nprocs;
	uint32_t *nodes, nnodes; /* the participants, in tree order, once local */
	struct event *probe;     /* optional ones: PING the silent children */
	unsigned char *peer_st;  /* optional ones, [nkids]: PEER_* */
	pmix_data_buffer_t own;  /* optional ones: this node's CONTRIB */
	int done;                /* optional ones: complete, kept until the
				  * timer so that late parts find it */
} inst_t;

#define PLUG_COLL_PROBE_MS 500
/* An optional instance's state of each other participant node. */
#define PEER_SUSPECT 1 /* its connection failed once: asked again */
#define PEER_RESENT 2  /* its part is in, ours was sent again once */

typedef struct sigseq {
	struct sigseq *next;
	uint64_t sig;
	uint32_t next_seq;
} sigseq_t;

static inst_t *insts;
static sigseq_t *sigs;

/* ---- identity ----------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Order-independent: the sum of one hash per proc. */
static uint64_t signature(const pmix_proc_t *procs, size_t n)
{
	uint64_t sig = n;

	for (size_t i = 0; i < n; i++) {
		uint64_t h = 1469598103934665603ull;

		for (const char *c = procs[i].nspace; *c && c < procs[i].nspace + PMIX_MAX_NSLEN;
		     c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		sig += mix(h ^ procs[i].rank);
	}
	return sig;
}

static uint32_t next_seq(uint64_t sig)
{
	sigseq_t *s;

	for (s = sigs; s; s = s->next)
		if (s->sig == sig)
			return s->next_seq++;
	if (!(s = calloc(1, sizeof(*s))))
		return UINT32_MAX;
	s->sig = sig;
	s->next_seq = 1;
	s->next = sigs;
	sigs = s;
	return 0;
}

/* ---- instances ---------------------------------------------------------- */

static void inst_free(inst_t *x)
{
	for (inst_t **p = &insts; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	if (x->timer)
		event_free(x->timer);
	pxc_buf_clear(&x->data);
	pxc_buf_clear(&x->own);
	free(x->peer_st);
	free(x->kids);
	free(x->from);
	free(x->procs);
	free(x->nodes);
	if (x->probe)
		event_free(x->probe);
	free(x);
}

static void on_timeout(int fd, short what, void *arg);

static inst_t *inst_get(uint64_t sig, uint32_t seq)
{
	struct timeval tv = { plug_net_ctx.timeout, 0 };
	inst_t *x;

	for (x = insts; x; x = x->next)
		if (x->sig == sig && x->seq == seq)
			return x;
	if (!(x = calloc(1, sizeof(*x))))
		return NULL;
	x->sig = sig;
	x->seq = seq;
	x->tmo_s = plug_net_ctx.timeout;
	x->parent = PLUG_TREE_NONE;
	pxc_buf_init(&x->data);
	x->timer = evtimer_new(plug_net_base(plug_net_ctx.net), on_timeout, x);
	if (!x->timer || evtimer_add(x->timer, &tv) < 0) {
		if (x->timer)
			event_free(x->timer);
		free(x);
		return NULL;
	}
	x->next = insts;
	insts = x;
	return x;
}

static int send_one(uint32_t to, uint16_t cmd, const inst_t *x, pmix_status_t st)
{
	pmix_data_buffer_t b;
	int rc;

	pxc_buf_init(&b);
	rc = pxc_pack(&b, &x->sig, 1, PMIX_UINT64) != PMIX_SUCCESS ||
			     pxc_pack_u32(&b, x->seq) != PMIX_SUCCESS ||
			     pxc_pack_status(&b, st) != PMIX_SUCCESS ||
			     (st == PMIX_SUCCESS && x->data.bytes_used &&
			      pxc_buf_append(&b, x->data.base_ptr, x->data.bytes_used) < 0) ?
		     -1 :
		     0;
	if (rc == 0)
		rc = plug_net_send(plug_net_ctx.net, to, cmd, 0, &b);
	pxc_buf_clear(&b);
	return rc;
}

/* Hands the result to the server; forgets a completed instance, keeps a
 * failed one as a tombstone until its timer. */
/* A connect's gathered posted data (PXC_CONNECT_DATA) goes into the
 * server's store before the server hears of the completion, so that its
 * reply gives every member the others' data. */
static pmix_status_t with_data(pmix_status_t st, const char *data, size_t ndata)
{
	if (st == PMIX_SUCCESS && ndata)
		st = pxc_server_host_data(data, ndata);
	return st;
}

static void deliver(inst_t *x, pmix_status_t st)
{
	pmix_modex_cbfunc_t cb = x->cbfunc;
	pmix_op_cbfunc_t opcb = x->opcb;

	x->cbfunc = NULL;
	x->opcb = NULL;
	if (cb)
		cb(st, st == PMIX_SUCCESS ? x->data.base_ptr : NULL,
		   st == PMIX_SUCCESS ? x->data.bytes_used : 0, x->cbdata, NULL, NULL);
	else if (opcb)
		opcb(with_data(st, x->data.base_ptr, x->data.bytes_used), x->cbdata);
	if (st == PMIX_SUCCESS && x->optional) /* parts may still come */
		x->done = 1;
	else if (st == PMIX_SUCCESS)
		inst_free(x);
}

/* Fails x everywhere but towards `except`. */
static void fail(inst_t *x, pmix_status_t st, uint32_t except)
{
	if (x->failed)
		return;
	x->failed = st;
	if (x->kids) {
		if (x->parent != PLUG_TREE_NONE && x->parent != except)
			send_one(x->parent, PLUG_NET_FANIN, x, st);
		for (uint32_t i = 0; i < x->nkids; i++)
			if (x->kids[i] != except)
				send_one(x->kids[i], PLUG_NET_FANOUT, x, st);
	}
	if (x->local)
		deliver(x, st);
}

/* The participants disagree on PMIX_CONNECT_OPTIONAL (a tree and no tree
 * cannot meet): x fails at every participant node of nodes[0..n), not
 * only along a tree, so that none completes without the others. */
static void fail_disagreed(inst_t *x, const uint32_t *nodes, uint32_t n, uint32_t culprit)
{
	if (x->failed)
		return;
	if (culprit == UINT32_MAX)
		plug_error("fence %016llx/%u: the participants disagree on PMIX_CONNECT_OPTIONAL "
			   "(parts of the other kind came before this node's call)",
			   (unsigned long long)x->sig, x->seq);
	else
		plug_error("fence %016llx/%u: the participants disagree on PMIX_CONNECT_OPTIONAL "
			   "(node %u)",
			   (unsigned long long)x->sig, x->seq, culprit);
	for (uint32_t i = 0; i < n; i++) /* (to this node: refused, harmless) */
		send_one(nodes[i], PLUG_NET_FANOUT, x, PMIX_ERR_BAD_PARAM);
	x->failed = PMIX_ERR_BAD_PARAM;
	if (x->local)
		deliver(x, PMIX_ERR_BAD_PARAM);
}

static void on_timeout(int fd, short what, void *arg)
{
	inst_t *x = arg;

	(void)fd, (void)what;
	if (x->failed || x->done) { /* tombstone */
		inst_free(x);
		return;
	}
	plug_error("fence %016llx/%u timed out after %u s (local %s, %u of %u children)",
		   (unsigned long long)x->sig, x->seq, x->tmo_s, x->local ? "in" : "missing",
		   x->nfrom, x->nkids);
	fail(x, PMIX_ERR_TIMEOUT, PLUG_TREE_NONE); /* delivers if local */
	inst_free(x);
}

static void fan_out(inst_t *x)
{
	plug_flag("fence %016llx/%u: %zu bytes out to %u children", (unsigned long long)x->sig,
		  x->seq, x->data.bytes_used, x->nkids);
	for (uint32_t i = 0; i < x->nkids; i++)
		if (send_one(x->kids[i], PLUG_NET_FANOUT, x, PMIX_SUCCESS) < 0)
			plug_error("fence %016llx/%u: cannot reach node %u",
				   (unsigned long long)x->sig, x->seq, x->kids[i]);
	deliver(x, PMIX_SUCCESS);
}

static void advance(inst_t *x)
{
	if (!x->local || x->failed || x->done || x->sent_up || x->nfrom < x->nkids)
		return;
	if (x->optional) { /* every part is in */
		plug_flag("fence %016llx/%u: %zu bytes from %u nodes", (unsigned long long)x->sig,
			  x->seq, x->data.bytes_used, x->nkids + 1);
		deliver(x, PMIX_SUCCESS);
		return;
	}
	if (x->parent == PLUG_TREE_NONE) {
		fan_out(x);
		return;
	}
	x->sent_up = 1;
	if (send_one(x->parent, PLUG_NET_FANIN, x, PMIX_SUCCESS) < 0)
		fail(x, PMIX_ERR_UNREACH, PLUG_TREE_NONE);
}

static int is_kid(const inst_t *x, uint32_t node)
{
	for (uint32_t i = 0; i < x->nkids; i++)
		if (x->kids[i] == node)
			return 1;
	return 0;
}

static int arrived(const inst_t *x, uint32_t node)
{
	for (uint32_t i = 0; i < x->nfrom; i++)
		if (x->from[i] == node)
			return 1;
	return 0;
}

/* ---- fence_nb ----------------------------------------------------------- */

/* Sorted participant nodes; my index in *mine. NULL with *st set. */
static uint32_t *part_nodes(const pmix_proc_t *procs, size_t n, uint32_t *count, uint32_t *mine,
			    pmix_status_t *st)
{
	const plug_map_t *m = plug_net_ctx.map;
	unsigned char *in = calloc(m->nnodes, 1);
	uint32_t *list = calloc(m->nnodes, sizeof(*list)), k = 0;

	*st = PMIX_ERR_NOMEM;
	for (size_t i = 0; in && list && i < n; i++) {
		if (!PMIx_Check_nspace(procs[i].nspace, plug_net_ctx.nspace))
			continue; /* see part_peers */
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			memset(in, 1, m->nnodes);
		else if (procs[i].rank < m->ntasks)
			in[m->node_of[procs[i].rank]] = 1;
		else
			goto bad;
	}
	for (uint32_t i = 0; in && list && i < m->nnodes; i++)
		if (in[i]) {
			if (i == plug_net_ctx.me)
				*mine = k;
			list[k++] = i;
		}
	if (!in || !list || !in[plug_net_ctx.me])
		goto bad;
	free(in);
	*count = k;
	return list;
bad:
	*st = in && list ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;
	free(in);
	free(list);
	return NULL;
}

/* Tree neighbours of this node among the participants. */
static int set_tree(inst_t *x, const uint32_t *nodes, uint32_t n, uint32_t mine)
{
	uint32_t w = plug_net_ctx.width, p;

	x->kids = calloc(w, sizeof(*x->kids));
	if (!x->kids || plug_tree_node(mine, n, w, &p, x->kids, &x->nkids) < 0 ||
	    !(x->nodes = malloc(n * sizeof(*nodes))))
		return -1;
	memcpy(x->nodes, nodes, n * sizeof(*nodes));
	x->nnodes = n;
	x->parent = p == PLUG_TREE_NONE ? p : nodes[p];
	for (uint32_t i = 0; i < x->nkids; i++)
		x->kids[i] = nodes[x->kids[i]];
	for (uint32_t i = 0; i < x->nfrom; i++)
		if (!is_kid(x, x->from[i]))
			return plug_error("fence %016llx/%u: FANIN from node %u, not a child",
					  (unsigned long long)x->sig, x->seq, x->from[i]),
			       -1;
	return 0;
}

/* An optional one: every other participant is a "child", nobody a
 * parent; this node's own part goes to each of them. */
static int set_flat(inst_t *x, const uint32_t *nodes, uint32_t n, uint32_t mine, const char *data,
		    size_t ndata)
{
	pmix_data_buffer_t *b = &x->own; /* kept: sent again after a broken link */

	if (!(x->kids = malloc(n * sizeof(*x->kids))) || !(x->nodes = malloc(n * sizeof(*nodes))) ||
	    !(x->peer_st = calloc(n, 1)))
		return -1;
	memcpy(x->nodes, nodes, n * sizeof(*nodes));
	x->nnodes = n;
	for (uint32_t i = 0; i < n; i++)
		if (i != mine)
			x->kids[x->nkids++] = nodes[i];
	for (uint32_t i = 0; i < x->nfrom; i++)
		if (!is_kid(x, x->from[i]))
			return plug_error("fence %016llx/%u: part from node %u, not a participant",
					  (unsigned long long)x->sig, x->seq, x->from[i]),
			       -1;
	pxc_buf_init(b);
	if (pxc_pack(b, &x->sig, 1, PMIX_UINT64) != PMIX_SUCCESS ||
	    pxc_pack_u32(b, x->seq) != PMIX_SUCCESS ||
	    pxc_pack_status(b, PMIX_SUCCESS) != PMIX_SUCCESS ||
	    (ndata && pxc_buf_append(b, data, ndata) < 0))
		return -1;
	for (uint32_t i = 0; i < x->nkids; i++)
		if (plug_net_send(plug_net_ctx.net, x->kids[i], PLUG_NET_CONTRIB, 0, b) < 0)
			plug_flag("fence %016llx/%u: node %u unreachable",
				  (unsigned long long)x->sig, x->seq,
				  x->kids[i]); /* its loss is reported */
	return 0;
}

/* The fence's own PMIX_TIMEOUT (seconds), or 0. */
static int info_timeout(const pmix_info_t *info, size_t ninfo)
{
	for (size_t i = 0; info && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_TIMEOUT) && info[i].value.type == PMIX_INT &&
		    info[i].value.data.integer > 0)
			return info[i].value.data.integer;
	return 0;
}

/* A hash of PMIX_CONNECT_ID (0 without one): two connects of the same
 * procs with different ids are different instances on every node. */
static uint64_t connect_salt(const pmix_info_t *info, size_t ninfo)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; info && i < ninfo; i++) {
		const char *c = info[i].value.data.string;

		if (strncmp(info[i].key, PMIX_CONNECT_ID, PMIX_MAX_KEYLEN) != 0 ||
		    info[i].value.type != PMIX_STRING || !c)
			continue;
		for (; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		return mix(h);
	}
	return 0;
}

/* Who to answer. */
typedef struct {
	int kind;
	int optional;  /* OPTIONAL / EARLY_TERM_ALLOWED */
	uint64_t salt; /* PMIX_CONNECT_ID: tells apart connects of one set */
	pmix_modex_cbfunc_t cbfunc;
	pmix_op_cbfunc_t opcb;
	void *cbdata;
} call_t;

static void answer(const call_t *cl, pmix_status_t st, char *data, size_t ndata)
{
	if (cl->cbfunc)
		cl->cbfunc(st, st == PMIX_SUCCESS ? data : NULL, st == PMIX_SUCCESS ? ndata : 0,
			   cl->cbdata, NULL, NULL);
	else
		cl->opcb(with_data(st, data, ndata), cl->cbdata);
}

static void probe_fire(int fd, short what, void *arg);

/* Records the local call: proc set, callback, a shorter timer (and for an
 * optional one, the probe of silent children). 0/-1. */
static int take_local(inst_t *x, const pmix_proc_t *procs, size_t n, int tmo, const call_t *cl)
{
	x->local = 1;
	x->optional = cl->optional;
	if (cl->optional) {
		struct timeval tv = { 0, PLUG_COLL_PROBE_MS * 1000 };

		if (!(x->probe = evtimer_new(plug_net_base(plug_net_ctx.net), probe_fire, x)) ||
		    evtimer_add(x->probe, &tv) < 0)
			plug_flag("fence %016llx/%u: no probe of silent children",
				  (unsigned long long)x->sig, x->seq);
	}
	x->cbfunc = cl->cbfunc;
	x->opcb = cl->opcb;
	x->cbdata = cl->cbdata;
	if (tmo > 0 && (uint32_t)tmo < plug_net_ctx.timeout) {
		struct timeval tv = { tmo, 0 };

		evtimer_del(x->timer);
		evtimer_add(x->timer, &tv);
		x->tmo_s = (uint32_t)tmo;
	}
	if (!(x->procs = malloc(n * sizeof(*procs))))
		return -1;
	memcpy(x->procs, procs, n * sizeof(*procs));
	x->nprocs = n;
	return 0;
}

/* Sorted participants of a set spanning namespaces: (nspace, node)
 * pairs in nspace order, as plug_net peer ids; every foreign nspace must
 * be known (plug_xstep_need). NULL with *st set. */
static uint32_t *part_peers(const pmix_proc_t *procs, size_t n, uint32_t *count, uint32_t *mine,
			    pmix_status_t *st)
{
	uint32_t *own = NULL, nown = 0, k = 0, cap = 0, *list = NULL, *grown;
	const char **ns = calloc(n, sizeof(*ns));
	size_t nns = 0;

	*st = PMIX_ERR_NOMEM;
	for (size_t i = 0; ns && i < n; i++) { /* distinct nspaces, sorted */
		size_t j = 0;

		while (j < nns && strncmp(ns[j], procs[i].nspace, PMIX_MAX_NSLEN) < 0)
			j++;
		if (j < nns && !strncmp(ns[j], procs[i].nspace, PMIX_MAX_NSLEN))
			continue;
		memmove(&ns[j + 1], &ns[j], (nns - j) * sizeof(*ns));
		ns[j] = procs[i].nspace;
		nns++;
	}
	if (!ns || !(own = part_nodes(procs, n, &nown, mine, st)))
		goto out;
	for (size_t j = 0; j < nns; j++) {
		int me = PMIx_Check_nspace(ns[j], plug_net_ctx.nspace);
		plug_xstep_t *x = me ? NULL : plug_xstep_find(ns[j]);
		uint32_t nn = me ? nown : x && x->ready ? x->map->nnodes : 0;
		unsigned char *in = me ? NULL : calloc(nn ? nn : 1, 1);

		if (!me && !in) {
			*st = x && x->ready ? PMIX_ERR_NOMEM : PMIX_ERR_NOT_FOUND;
			goto out;
		}
		for (size_t i = 0; !me && i < n; i++) {
			if (!PMIx_Check_nspace(procs[i].nspace, ns[j]))
				continue;
			if (procs[i].rank == PMIX_RANK_WILDCARD)
				memset(in, 1, nn);
			else if (procs[i].rank < x->map->ntasks)
				in[x->map->node_of[procs[i].rank]] = 1;
		}
		if (!(grown = realloc(list, (cap += nn + 1) * sizeof(*list)))) {
			free(in);
			goto out;
		}
		list = grown;
		if (me)
			*mine += k;
		for (uint32_t i = 0; i < nn; i++)
			if (me || in[i])
				list[k++] = me ? own[i] : x->peer[i];
		free(in);
	}
	*count = k;
	*st = PMIX_SUCCESS;
out:
	free(ns);
	free(own);
	if (*st != PMIX_SUCCESS) {
		free(list);
		list = NULL;
	}
	return list;
}

static int spans_nspaces(const pmix_proc_t *procs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!PMIx_Check_nspace(procs[i].nspace, plug_net_ctx.nspace))
			return 1;
	return 0;
}

static pmix_status_t coll_start(const pmix_proc_t procs[], size_t nprocs, int tmo, char *data,
				size_t ndata, const call_t *cl);
static void drop_dead_nodes(inst_t *x);

/* A collective waiting for the step information of other nspaces. */
typedef struct {
	pmix_proc_t *procs;
	size_t nprocs;
	int tmo;
	char *data;
	size_t ndata;
	call_t cl;
} pend_t;

static void resume(pmix_status_t st, void *arg)
{
	pend_t *p = arg;

	if (st == PMIX_SUCCESS)
		st = coll_start(p->procs, p->nprocs, p->tmo, p->data, p->ndata, &p->cl);
	if (st != PMIX_SUCCESS)
		answer(&p->cl, st, NULL, 0);
	free(p->procs);
	free(p->data);
	free(p);
}

/* Fetches what is missing first. PMIX_SUCCESS (answered later), or an
 * error (not answered). */
static pmix_status_t wait_steps(const pmix_proc_t procs[], size_t n, int tmo, char *data,
				size_t ndata, const call_t *cl)
{
	pend_t *p = calloc(1, sizeof(*p));
	int rc;

	if (!p || !(p->procs = malloc(n * sizeof(*procs))) ||
	    (ndata && !(p->data = malloc(ndata)))) {
		if (p)
			free(p->procs);
		free(p);
		return PMIX_ERR_NOMEM;
	}
	memcpy(p->procs, procs, n * sizeof(*procs));
	if (ndata)
		memcpy(p->data, data, ndata);
	p->nprocs = n;
	p->ndata = ndata;
	p->tmo = tmo;
	p->cl = *cl;
	rc = plug_xstep_need(procs, n, resume, p);
	if (rc == 0)
		return PMIX_SUCCESS;
	free(p->procs);
	free(p->data);
	free(p);
	return rc == 1 ? PMIX_ERR_WOULD_BLOCK : rc; /* 1: known now */
}

static pmix_status_t coll_start(const pmix_proc_t procs[], size_t nprocs, int tmo, char *data,
				size_t ndata, const call_t *cl)
{
	uint32_t n = 0, mine = 0, *nodes;
	pmix_status_t st;
	inst_t *x;
	uint64_t sig;
	int multi = spans_nspaces(procs, nprocs);

	if (multi && (st = wait_steps(procs, nprocs, tmo, data, ndata, cl)) != PMIX_ERR_WOULD_BLOCK)
		return st;
	nodes = multi ? part_peers(procs, nprocs, &n, &mine, &st) :
			part_nodes(procs, nprocs, &n, &mine, &st);
	if (!nodes)
		return st;
	if (n == 1) { /* only this node: its data is everybody's */
		free(nodes);
		st = !cl->optional && plug_lost_any(procs, nprocs) ? PMIX_ERR_PROC_TERM_WO_SYNC :
								     PMIX_SUCCESS;
		answer(cl, st, data, ndata);
		return PMIX_SUCCESS;
	}
	sig = signature(procs, nprocs) + (uint64_t)cl->kind * 0x5bd1e995ull + cl->salt;
	x = inst_get(sig, next_seq(sig));
	if (!x || x->local) { /* local twice: a sequence clash */
		free(nodes);
		return x ? PMIX_ERR_DUPLICATE_KEY : PMIX_ERR_NOMEM;
	}
	if (take_local(x, procs, nprocs, tmo, cl) < 0 || x->failed) {
		free(nodes);
		if (!x->failed)
			x->failed = PMIX_ERR_NOMEM;
		deliver(x, x->failed);
		return PMIX_SUCCESS;
	}
	if (cl->optional ? x->saw_fanin : x->saw_contrib)
		fail_disagreed(x, nodes, n, UINT32_MAX);
	else if ((cl->optional ? set_flat(x, nodes, n, mine, data, ndata) :
				 set_tree(x, nodes, n, mine)) < 0 ||
		 (ndata && pxc_buf_append(&x->data, data, ndata) < 0))
		fail(x, PMIX_ERR_BAD_PARAM, PLUG_TREE_NONE);
	else if (!cl->optional && plug_lost_any(procs, nprocs))
		fail(x, PMIX_ERR_PROC_TERM_WO_SYNC, PLUG_TREE_NONE);
	else
		drop_dead_nodes(x), advance(x); /* (an optional x is never freed here) */
	free(nodes);
	return PMIX_SUCCESS;
}

pmix_status_t plug_coll_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
			      void *cbdata)
{
	call_t cl = { .kind = PLUG_COLL_FENCE, .cbfunc = cbfunc, .cbdata = cbdata };

	return coll_start(procs, nprocs, info_timeout(info, ninfo), data, ndata, &cl);
}

pmix_status_t plug_coll_gather(int kind, const pmix_proc_t procs[], size_t nprocs, int tmo,
			       bool optional, uint64_t salt, char *data, size_t ndata,
			       pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	call_t cl = {
		.kind = kind, .optional = optional, .salt = salt, .cbfunc = cbfunc, .cbdata = cbdata
	};

	return coll_start(procs, nprocs, tmo, data, ndata, &cl);
}

pmix_status_t plug_coll_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
				size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	call_t cl = { .kind = PLUG_COLL_CONNECT,
		      .opcb = cbfunc,
		      .cbdata = cbdata,
		      .salt = connect_salt(info, ninfo),
		      .optional = pxc_info_flag(info, ninfo, PMIX_CONNECT_OPTIONAL) };
	const pmix_info_t *d = pxc_info_find(info, ninfo, PXC_CONNECT_DATA);
	char *data = NULL;
	size_t ndata = 0;

	if (d && d->value.type == PMIX_BYTE_OBJECT) {
		data = d->value.data.bo.bytes;
		ndata = d->value.data.bo.size;
	}
	return coll_start(procs, nprocs, info_timeout(info, ninfo), data, ndata, &cl);
}

pmix_status_t plug_coll_disconnect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
				   void *cbdata)
{
	call_t cl = { .kind = PLUG_COLL_DISCONNECT,
		      .opcb = cbfunc,
		      .cbdata = cbdata,
		      .salt = connect_salt(info, ninfo),
		      .optional = pxc_info_flag(info, ninfo, PMIX_CONNECT_EARLY_TERM_ALLOWED) };

	return coll_start(procs, nprocs, info_timeout(info, ninfo), NULL, 0, &cl);
}

/* ---- messages from the tree --------------------------------------------- */

static void got_fanin(inst_t *x, uint32_t from, bool contrib, pmix_data_buffer_t *in)
{
	uint32_t *grown;

	if (x->kids && contrib != (bool)x->optional) {
		fail_disagreed(x, x->nodes, x->nnodes, from);
		return;
	}
	if (contrib)
		x->saw_contrib = 1;
	else
		x->saw_fanin = 1;
	if ((x->kids && !is_kid(x, from)) || x->sent_up) {
		plug_error("fence %016llx/%u: unexpected FANIN from node %u",
			   (unsigned long long)x->sig, x->seq, from);
		return;
	}
	if (arrived(x, from) && contrib) { /* sent again after a broken link */
		plug_flag("fence %016llx/%u: part of node %u again", (unsigned long long)x->sig,
			  x->seq, from);
		return;
	}
	if (arrived(x, from))
		return (void)plug_error("fence %016llx/%u: second FANIN from node %u",
					(unsigned long long)x->sig, x->seq, from);
	grown = realloc(x->from, (x->nfrom + 1) * sizeof(*grown));
	if (!grown || pxc_buf_append(&x->data, pxc_buf_read_ptr(in), pxc_buf_remaining(in)) < 0) {
		x->from = grown ? grown : x->from;
		fail(x, PMIX_ERR_NOMEM, PLUG_TREE_NONE);
		return;
	}
	x->from = grown;
	x->from[x->nfrom++] = from;
	advance(x);
}

static void got_fanout(inst_t *x, uint32_t from, pmix_data_buffer_t *in)
{
	if (!x->sent_up || from != x->parent) {
		plug_error("fence %016llx/%u: unexpected FANOUT from node %u",
			   (unsigned long long)x->sig, x->seq, from);
		return;
	}
	pxc_buf_clear(&x->data);
	if (pxc_buf_load_copy(&x->data, pxc_buf_read_ptr(in), pxc_buf_remaining(in)) < 0) {
		fail(x, PMIX_ERR_NOMEM, PLUG_TREE_NONE);
		return;
	}
	fan_out(x);
}

static void coll_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint64_t sig;
	uint32_t seq;
	int32_t one = 1;
	pmix_status_t st;
	inst_t *x;

	(void)arg;
	if (pxc_unpack(in, &sig, &one, PMIX_UINT64) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &seq) != PMIX_SUCCESS ||
	    pxc_unpack_status(in, &st) != PMIX_SUCCESS) {
		plug_error("malformed fence message from node %u", from);
		return;
	}
	if (!(x = inst_get(sig, seq)) || x->failed || x->done)
		return;
	if (st != PMIX_SUCCESS)
		fail(x, st, from);
	else if (h->cmd == PLUG_NET_FANIN || h->cmd == PLUG_NET_CONTRIB)
		got_fanin(x, from, h->cmd == PLUG_NET_CONTRIB, in);
	else
		got_fanout(x, from, in);
}

/* Still waiting: the children not heard of are asked whether they are
 * there; a child whose stepd is gone shows as a lost peer. */
static void probe_fire(int fd, short what, void *arg)
{
	inst_t *x = arg;

	(void)fd, (void)what;
	for (uint32_t i = 0; !x->failed && x->kids && i < x->nkids; i++)
		if (!arrived(x, x->kids[i]))
			plug_net_send(plug_net_ctx.net, x->kids[i], PLUG_NET_PING, 0, NULL);
}

/* An optional instance lost its connection to node. A closed
 * connection proves little (a broken frame closes one, and what was
 * queued on it is gone): the node is asked again over a fresh one, with
 * this node's part once more; only when that fails too is it gone.
 * True when that was all (nothing dropped). */
static bool flat_peer_lost(inst_t *x, uint32_t node)
{
	uint32_t k;

	for (k = 0; k < x->nkids && x->kids[k] != node; k++)
		;
	if (k == x->nkids || !x->peer_st)
		return true;    /* not a participant */
	if (arrived(x, node)) { /* it may still wait for ours */
		if (!(x->peer_st[k] & PEER_RESENT)) {
			x->peer_st[k] |= PEER_RESENT;
			plug_net_send(plug_net_ctx.net, node, PLUG_NET_CONTRIB, 0, &x->own);
		}
		return true;
	}
	if (x->peer_st[k] & PEER_SUSPECT)
		return false;
	x->peer_st[k] |= PEER_SUSPECT;
	return plug_net_send(plug_net_ctx.net, node, PLUG_NET_CONTRIB, 0, &x->own) == 0;
}

static void coll_peer_lost(void *arg, uint32_t node)
{
	inst_t *x, *next;

	(void)arg;
	for (x = insts; x; x = next) {
		next = x->next;
		if (x->failed || x->done || !x->kids)
			continue;
		if (x->optional && flat_peer_lost(x, node))
			continue;
		/* an optional connect drops the procs of a node that is gone:
		 * they ended (its stepd stops with its last task, or its node
		 * went); no other node's part goes through it */
		if (x->optional && is_kid(x, node) && !arrived(x, node)) {
			uint32_t *grown;

			grown = realloc(x->from, (x->nfrom + 1) * sizeof(*grown));

			plug_info("fence %016llx/%u: node %u gone, its participants dropped",
				  (unsigned long long)x->sig, x->seq, node);
			if (!grown) {
				fail(x, PMIX_ERR_NOMEM, PLUG_TREE_NONE);
				continue;
			}
			x->from = grown;
			x->from[x->nfrom++] = node;
			advance(x); /* may free x */
			continue;
		}
		if ((node == x->parent && x->sent_up) || (is_kid(x, node) && !arrived(x, node))) {
			plug_error("fence %016llx/%u: node %u lost", (unsigned long long)x->sig,
				   x->seq, node);
			fail(x, PMIX_ERR_UNREACH, node);
		}
	}
}

/* True when the fence's proc set includes rank (of our namespace). */
static int involves(const inst_t *x, pmix_rank_t rank)
{
	for (size_t i = 0; i < x->nprocs; i++)
		if (PMIx_Check_nspace(x->procs[i].nspace, plug_net_ctx.nspace) &&
		    (x->procs[i].rank == rank || x->procs[i].rank == PMIX_RANK_WILDCARD))
			return 1;
	return 0;
}

/* An optional instance of this step's procs: true when every participant
 * rank on node is lost (its stepd lives on for other tasks, but none of
 * them will join). */
static int node_all_lost(const inst_t *x, uint32_t node)
{
	const plug_map_t *m = plug_net_ctx.map;
	int any = 0;

	for (uint32_t r = 0; m && r < m->ntasks; r++) {
		if (m->node_of[r] != node || !involves(x, r))
			continue;
		if (!plug_lost_rank(r))
			return 0;
		any = 1;
	}
	return any;
}

/* Drops the children of an optional instance whose participants are all
 * lost, as if their node had gone; the caller advances x then (an
 * optional instance stays allocated, done or failed, until its timer). */
static void drop_dead_nodes(inst_t *x)
{
	uint32_t *grown;

	if (!x->optional || !x->kids || x->failed || x->done || spans_nspaces(x->procs, x->nprocs))
		return;
	for (uint32_t k = 0; k < x->nkids; k++) {
		if (arrived(x, x->kids[k]) || !node_all_lost(x, x->kids[k]))
			continue;
		if (!(grown = realloc(x->from, (x->nfrom + 1) * sizeof(*grown)))) {
			fail(x, PMIX_ERR_NOMEM, PLUG_TREE_NONE);
			return;
		}
		plug_info("fence %016llx/%u: node %u's participants are gone, dropped",
			  (unsigned long long)x->sig, x->seq, x->kids[k]);
		x->from = grown;
		x->from[x->nfrom++] = x->kids[k];
	}
}

void plug_coll_rank_lost(pmix_rank_t rank)
{
	inst_t *x, *next;

	for (x = insts; x; x = next) {
		next = x->next;
		if (x->local && x->optional && involves(x, rank)) {
			drop_dead_nodes(x);
			advance(x);
			continue;
		}
		if (x->local && !x->failed && !x->optional && involves(x, rank)) {
			plug_error("fence %016llx/%u: rank %u is gone", (unsigned long long)x->sig,
				   x->seq, rank);
			fail(x, PMIX_ERR_PROC_TERM_WO_SYNC, PLUG_TREE_NONE);
		}
	}
}

static void coll_stop(void *arg)
{
	(void)arg;
	plug_xstep_stop(); /* answers the collectives waiting for it */
	while (insts) {
		inst_t *x = insts;

		if (x->cbfunc)
			deliver(x, PMIX_ERR_UNREACH);
		inst_free(x);
	}
	while (sigs) {
		sigseq_t *s = sigs;

		sigs = s->next;
		free(s);
	}
}

int plug_coll_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "collectives",
			      .first = PLUG_NET_FANIN,
			      .last = PLUG_NET_CONTRIB,
			      .msg = coll_msg,
			      .peer_lost = coll_peer_lost,
			      .stop = coll_stop };

	plug_lost_watch(plug_coll_rank_lost);
	return plug_net_register(n, &u);
}
