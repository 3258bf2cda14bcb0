/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/push.c - PMIx_IOF_push between the step daemons (see net/push.h
 * and docs/iof.md, "Pushing stdin").
 *
 * A push names ranks (or WILDCARD) of steps of this job. For each step
 * and each node that holds a target, the bytes go once: into this node's
 * tasks through stepd/input.h, to another node as STDIN (its ranks, or
 * all of that node's), which it answers with STDIN_ACK once its tasks'
 * stdin took them (or refused them). Another step's nodes come from its
 * table (net/xstep.h). The push answers when every part did. One
 * connection per peer keeps a client's pushes in order up to the tasks'
 * queues, which keep them in order too. A part ends when its bytes are in
 * the tasks' stdin (a task that reads slowly holds its push: the pusher
 * waits, as a writer into a pipe does), when they are refused, when the
 * task's stdin ends or the capture stops, or when its node is lost: no
 * timer of its own (the caller's request has one).
 * Trust: STDIN is taken from this step's nodes and from other steps'
 * stepds (the job key vouches for them: a parent feeds its children),
 * for this node's own ranks only; STDIN_ACK only from a peer asked.
 * Threads: the progress thread, except register.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "lib/proto.h"
#include "lib/util.h"
#include "net/ctx.h"
#include "net/push.h"
#include "net/xstep.h"
#include "stepd/input.h"

#include "pxc_host.h"
#include "slurm_adapter.h"

#define PUSH_LOCAL (UINT32_MAX - 1) /* the part for this node's tasks */
#define PUSH_ANSWERED UINT32_MAX
#define PUSH_ALL UINT32_MAX /* STDIN: every rank of the node */

/* One part of a push: a peer (or PUSH_LOCAL) that answers; wild: 0 for
 * named ranks, else 1 + the step's WILDCARD group (done when one part of
 * the group is). */
typedef struct {
	uint32_t peer, wild;
} part_t;

/* A step's WILDCARD: how its parts went. */
typedef struct {
	uint32_t n, ok;
	pmix_status_t err;
} wild_t;

typedef struct op {
	struct op *next;  /* dispatched, waiting for answers */
	struct op *qnext; /* waiting for its turn (np.qhead) */
	uint32_t id;
	pmix_proc_t *targets;
	size_t ntargets;
	char *data;
	size_t len;
	bool complete;
	part_t *parts;
	uint32_t nparts, waiting;
	pmix_status_t err; /* the first error of a named rank's part */
	wild_t *wild;      /* [ntargets]: per step named with WILDCARD */
	uint32_t nwild;
	bool ready; /* its steps are known: it may go (queue order) */
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
} op_t;

static struct {
	plug_net_t *net;
	op_t *ops;
	/* pushes not dispatched yet, in call order: one that waits for
	 * another step's table holds those after it, so that pushes to a
	 * task keep their order */
	op_t *qhead, *qtail;
	uint32_t next_id;
	bool stopped;
} np;

static op_t *op_find(uint32_t id)
{
	for (op_t *o = np.ops; o; o = o->next)
		if (o->id == id)
			return o;
	return NULL;
}

static void op_free(op_t *o)
{
	free(o->targets);
	free(o->data);
	free(o->parts);
	free(o->wild);
	free(o);
}

static pmix_status_t op_status(const op_t *o)
{
	if (o->err != PMIX_SUCCESS)
		return o->err;
	for (uint32_t g = 0; g < o->nwild; g++)
		if (o->wild[g].n && !o->wild[g].ok)
			return o->wild[g].err;
	return PMIX_SUCCESS;
}

/* Unlinks o and answers its caller. */
static void op_done(op_t *o, pmix_status_t st)
{
	for (op_t **pp = &np.ops; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	o->cbfunc(st, o->cbdata);
	op_free(o);
}

/* A part of group wild (see part_t) ended with st. */
static void count(op_t *o, uint32_t wild, pmix_status_t st)
{
	wild_t *w = wild ? &o->wild[wild - 1] : NULL;

	if (w && st == PMIX_SUCCESS)
		w->ok++;
	else if (w && w->err == PMIX_SUCCESS)
		w->err = st;
	else if (!w && st != PMIX_SUCCESS && o->err == PMIX_SUCCESS)
		o->err = st;
}

/* Part k of o ended with st. */
static void part_answered(op_t *o, uint32_t k, pmix_status_t st)
{
	part_t *p = &o->parts[k];

	if (p->peer == PUSH_ANSWERED)
		return;
	p->peer = PUSH_ANSWERED;
	count(o, p->wild, st);
	if (!--o->waiting)
		op_done(o, op_status(o));
}

static bool add_part(op_t *o, uint32_t peer, uint32_t wild)
{
	part_t *g = realloc(o->parts, (o->nparts + 1) * sizeof(*g));

	if (!g)
		return false;
	o->parts = g;
	o->parts[o->nparts++] = (part_t){ peer, wild };
	o->waiting++;
	return true;
}

/* An immediate error of a part (not sent): counted like an answer, but
 * o is not answered here even when it was the last. */
static void part_failed(op_t *o, uint32_t wild, pmix_status_t st)
{
	count(o, wild, st);
}

/* ---- sending ------------------------------------------------------------ */

/* A step that o names: its namespace, map, and peers (NULL: this step). */
typedef struct {
	const char *nspace;
	const plug_map_t *map;
	const uint32_t *peer;
} step_t;

static bool step_of(const char *nspace, step_t *s)
{
	s->nspace = nspace;
	return plug_xstep_route(nspace, &s->map, &s->peer);
}

static void local_done(pmix_status_t st, void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	op_t *o = op_find(id);

	for (uint32_t k = 0; o && k < o->nparts; k++)
		if (o->parts[k].peer == PUSH_LOCAL) {
			part_answered(o, k, st);
			return;
		}
}

static bool send_part(op_t *o, const step_t *s, uint32_t peer, const pmix_rank_t *ranks, uint32_t n)
{
	pmix_byte_object_t bo = { .bytes = o->data, .size = o->len };
	pmix_data_buffer_t b;
	char *ns = (char *)s->nspace;
	bool ok;

	pxc_buf_init(&b);
	ok = pxc_pack(&b, &ns, 1, PMIX_STRING) == PMIX_SUCCESS &&
	     pxc_pack(&b, &n, 1, PMIX_UINT32) == PMIX_SUCCESS &&
	     (n == PUSH_ALL ||
	      pxc_pack(&b, (void *)ranks, (int32_t)n, PMIX_UINT32) == PMIX_SUCCESS) &&
	     pxc_pack(&b, &o->complete, 1, PMIX_BOOL) == PMIX_SUCCESS &&
	     pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT) == PMIX_SUCCESS &&
	     plug_net_send(np.net, peer, PLUG_NET_STDIN, o->id, &b) == 0;
	pxc_buf_clear(&b);
	return ok;
}

/* The part of step s's node `node` (ranks, or all of them). */
static void node_part(op_t *o, const step_t *s, uint32_t node, const pmix_rank_t *ranks, uint32_t n,
		      uint32_t wild)
{
	bool all = wild != 0;
	bool here = !s->peer && node == plug_net_ctx.me;
	uint32_t peer = here ? PUSH_LOCAL : s->peer ? s->peer[node] : node;
	pmix_status_t st;

	if (here) {
		st = plug_input_push(all ? NULL : ranks, n, o->data, o->len, o->complete,
				     local_done, (void *)(uintptr_t)o->id);
		if (st == PMIX_SUCCESS && !add_part(o, peer, wild))
			st = PMIX_ERR_NOMEM; /* (its answer then finds no part: dropped) */
	} else {
		st = add_part(o, peer, wild) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
		if (st == PMIX_SUCCESS && !send_part(o, s, peer, ranks, all ? PUSH_ALL : n)) {
			o->nparts--, o->waiting--;
			st = PMIX_ERR_UNREACH;
		}
	}
	if (st != PMIX_SUCCESS)
		part_failed(o, wild, st);
}

/* The targets of o in step s: every node holding one gets its part. */
static void step_parts(op_t *o, const step_t *s)
{
	const plug_map_t *map = s->map;
	unsigned char *want = calloc(map->ntasks ? map->ntasks : 1, 1);
	pmix_rank_t *ranks = calloc(map->ntasks ? map->ntasks : 1, sizeof(*ranks));
	bool all = false;
	uint32_t wild = 0;

	for (size_t i = 0; want && i < o->ntargets; i++) {
		if (!PMIx_Check_nspace(o->targets[i].nspace, s->nspace))
			continue;
		if (o->targets[i].rank == PMIX_RANK_WILDCARD)
			all = true;
		else if (o->targets[i].rank < map->ntasks)
			want[o->targets[i].rank] = 1;
		else
			part_failed(o, 0, PMIX_ERR_BAD_PARAM);
	}
	if (all) {
		wild = ++o->nwild; /* (o->wild has a place for each target) */
		o->wild[wild - 1].n = 1;
	}
	for (uint32_t node = 0; want && ranks && node < map->nnodes; node++) {
		uint32_t n = 0;

		for (uint32_t k = 0; k < map->count[node]; k++) {
			pmix_rank_t r = map->ranks[map->first[node] + k];

			if (all || want[r])
				ranks[n++] = r;
		}
		if (n)
			node_part(o, s, node, ranks, n, wild);
	}
	if (!want || !ranks)
		part_failed(o, wild, PMIX_ERR_NOMEM);
	free(want);
	free(ranks);
}

/* Sends every part of o: PMIX_SUCCESS (o answers later), or o's status
 * when no part is on its way (o freed). */
static pmix_status_t dispatch(op_t *o)
{
	for (size_t i = 0; i < o->ntargets; i++) {
		step_t s;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = PMIx_Check_nspace(o->targets[j].nspace, o->targets[i].nspace);
		if (seen)
			continue;
		if (!step_of(o->targets[i].nspace, &s)) {
			plug_debug("stdin push: %s is no known step of this job",
				   o->targets[i].nspace);
			part_failed(o, 0, PMIX_ERR_NOT_FOUND);
			continue;
		}
		step_parts(o, &s);
	}
	if (!o->waiting) {
		pmix_status_t st = op_status(o);

		op_free(o);
		return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
	}
	o->next = np.ops;
	np.ops = o;
	return PMIX_SUCCESS;
}

/* Dispatches the queue's ready head pushes, answering those that end at
 * once (never inside plug_push_stdin). */
static void drain(void)
{
	while (np.qhead && np.qhead->ready) {
		op_t *o = np.qhead;
		pmix_op_cbfunc_t cb = o->cbfunc;
		void *cbdata = o->cbdata;
		pmix_status_t st;

		if (!(np.qhead = o->qnext))
			np.qtail = NULL;
		st = dispatch(o);
		if (st != PMIX_SUCCESS)
			cb(st == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : st, cbdata);
	}
}

static void steps_known(pmix_status_t st, void *arg)
{
	op_t *o = arg;

	(void)st;         /* a step that could not be had: NOT_FOUND below */
	if (np.stopped) { /* (no more in the queue) */
		pmix_op_cbfunc_t cb = o->cbfunc;
		void *cbdata = o->cbdata;

		op_free(o);
		cb(PMIX_ERR_UNREACH, cbdata);
		return;
	}
	o->ready = true;
	drain();
}

pmix_status_t plug_push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
			      size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			      const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	op_t *o;
	int rc;

	if (!np.net || np.stopped)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!targets || !ntargets || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	for (size_t i = 0; i < ntargets; i++)
		if (!plug_nspace_same_job(targets[i].nspace, plug_net_ctx.nspace)) {
			plug_debug("stdin push from %s:%u: %s is no step of this job",
				   source ? source->nspace : "?", source ? source->rank : 0,
				   targets[i].nspace);
			return PMIX_ERR_NOT_FOUND;
		}
	if (!(o = calloc(1, sizeof(*o))) || !(o->targets = malloc(ntargets * sizeof(*targets))) ||
	    !(o->wild = calloc(ntargets, sizeof(*o->wild))) ||
	    (bo && bo->size && !(o->data = malloc(bo->size)))) {
		if (o)
			op_free(o);
		return PMIX_ERR_NOMEM;
	}
	memcpy(o->targets, targets, ntargets * sizeof(*targets));
	o->ntargets = ntargets;
	if (bo && bo->size) {
		memcpy(o->data, bo->bytes, bo->size);
		o->len = bo->size;
	}
	o->complete = !o->len || pxc_info_flag(directives, ndirs, PMIX_IOF_COMPLETE);
	o->id = ++np.next_id ? np.next_id : ++np.next_id;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	rc = plug_xstep_need(o->targets, o->ntargets, steps_known, o);
	if (rc < 0)
		plug_debug("stdin push: another step's table cannot be had: %s",
			   PMIx_Error_string(rc));
	if (rc != 0 && !np.qhead)
		return dispatch(o);
	/* behind a push that waits (the head is never ready here: drain
	 * dispatches ready ones at once); steps_known and drain go on */
	o->ready = rc != 0;
	if (np.qtail)
		np.qtail->qnext = o;
	else
		np.qhead = o;
	np.qtail = o;
	return PMIX_SUCCESS;
}

/* ---- the receiving side ------------------------------------------------- */

typedef struct {
	uint32_t from, tag;
} ack_t;

static void send_ack(uint32_t from, uint32_t tag, pmix_status_t st)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pxc_pack(&b, &st, 1, PMIX_STATUS) != PMIX_SUCCESS ||
	    plug_net_send(np.net, from, PLUG_NET_STDIN_ACK, tag, &b) < 0)
		plug_debug("stdin push: cannot answer peer %u", from);
	pxc_buf_clear(&b);
}

static void acked(pmix_status_t st, void *arg)
{
	ack_t *a = arg;

	if (!np.stopped)
		send_ack(a->from, a->tag, st);
	free(a);
}

/* One item of type into dst, exactly n of them (a message that holds
 * fewer is broken). */
static bool unpack_n(pmix_data_buffer_t *in, void *dst, int32_t n, pmix_data_type_t type)
{
	int32_t got = n;

	return pxc_unpack(in, dst, &got, type) == PMIX_SUCCESS && got == n;
}

/* STDIN from peer `from`: into this node's tasks, then the answer. */
static void stdin_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	const plug_map_t *map = plug_net_ctx.map;
	char *ns = NULL;
	uint32_t n = 0;
	pmix_rank_t *ranks = NULL;
	bool complete = false;
	pmix_byte_object_t bo = { 0 };
	pmix_status_t st = PMIX_ERR_BAD_PARAM;
	ack_t *a = NULL;

	if (!unpack_n(in, &ns, 1, PMIX_STRING) || !unpack_n(in, &n, 1, PMIX_UINT32) ||
	    (n != PUSH_ALL &&
	     (n == 0 || n > map->count[plug_net_ctx.me] || !(ranks = calloc(n, sizeof(*ranks))) ||
	      !unpack_n(in, ranks, (int32_t)n, PMIX_UINT32))) ||
	    !unpack_n(in, &complete, 1, PMIX_BOOL) || !unpack_n(in, &bo, 1, PMIX_BYTE_OBJECT))
		plug_error("stdin push: a broken message from peer %u: refused", from);
	else if (!ns || !PMIx_Check_nspace(ns, plug_net_ctx.nspace))
		plug_error("stdin push: peer %u pushes to %s, not this step: refused", from,
			   ns ? ns : "?");
	else if (!(a = malloc(sizeof(*a))))
		st = PMIX_ERR_NOMEM;
	else {
		*a = (ack_t){ from, tag };
		st = plug_input_push(n == PUSH_ALL ? NULL : ranks, n == PUSH_ALL ? 0 : n, bo.bytes,
				     bo.size, complete || !bo.size, acked, a);
		if (st == PMIX_ERR_BAD_PARAM)
			plug_error(
				"stdin push: peer %u names ranks not on this node (or twice): refused",
				from);
	}
	if (st != PMIX_SUCCESS) {
		free(a);
		send_ack(from, tag, st);
	}
	free(ns);
	free(ranks);
	PMIx_Byte_object_destruct(&bo);
}

/* STDIN_ACK from peer `from` for push `tag`. */
static void ack_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	pmix_status_t st;
	op_t *o = op_find(tag);

	if (!unpack_n(in, &st, 1, PMIX_STATUS)) {
		plug_error("stdin push: a broken answer from peer %u: taken as a failure", from);
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	for (uint32_t k = 0; o && k < o->nparts; k++)
		if (o->parts[k].peer == from) {
			part_answered(o, k, st);
			return;
		}
	plug_debug("stdin push: peer %u answers push %u, which waits for no answer of it", from,
		   tag);
}

/* ---- the transport's callbacks ------------------------------------------ */

static void np_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	(void)arg;
	if (np.stopped || from == plug_net_ctx.me)
		return;
	if (h->cmd == PLUG_NET_STDIN)
		stdin_in(from, h->tag, in);
	else
		ack_in(from, h->tag, in);
}

static void np_peer_lost(void *arg, uint32_t peer)
{
	(void)arg;
	for (op_t *o = np.ops, *next; o; o = next) {
		next = o->next; /* (o may be answered and freed) */
		for (uint32_t k = 0; k < o->nparts; k++)
			if (o->parts[k].peer == peer) {
				part_answered(o, k, PMIX_ERR_UNREACH);
				break;
			}
	}
}

static void np_stop(void *arg)
{
	(void)arg;
	np.stopped = true;
	while (np.ops)
		op_done(np.ops, PMIX_ERR_UNREACH);
	while (np.qhead) { /* not dispatched: the ready ones end here, the
			    * others when their steps_known comes */
		op_t *o = np.qhead;

		np.qhead = o->qnext;
		if (o->ready) {
			o->cbfunc(PMIX_ERR_UNREACH, o->cbdata);
			op_free(o);
		}
	}
	np.qtail = NULL;
}

int plug_push_net_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "stdin push",
			      .first = PLUG_NET_STDIN,
			      .last = PLUG_NET_STDIN_ACK,
			      .msg = np_msg,
			      .peer_lost = np_peer_lost,
			      .stop = np_stop };

	memset(&np, 0, sizeof(np));
	np.net = n;
	return plug_net_register(n, &u);
}
