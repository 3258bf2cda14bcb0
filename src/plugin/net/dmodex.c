/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/dmodex.c - direct modex across nodes (the server module's
 * direct_modex): the server asks for a remote rank's posted data; the
 * request goes straight to the node owning the rank (from the process
 * map) as DMDX_REQ with a request id in the frame tag; that node calls
 * PMIx_server_dmodex_request and answers DMDX_RESP (status + raw blob)
 * with the same tag. Pending requests fail on their timer or when the
 * owner's connection is lost - never a hang. The timer is the request's
 * own PMIX_TIMEOUT (the Get's, which the server hands us) when it has
 * one, else SlurmixTimeout; DMDX_REQ carries that timeout (0: none), so
 * that the owner waits for the rank's commit exactly as long
 * (pxc_server_dmodex_request_tmo) and answers PMIX_ERR_TIMEOUT itself;
 * the requester's timer runs one second longer, so that answer comes
 * first.
 *
 * Another step's job information (a WILDCARD rank: a spawned step asks
 * for its parent's) goes to that step's stepd on this host, else to its
 * first node; any of its nodes has it. When that stepd is gone (its
 * tasks there ended: a spawned step often outlives part of its parent)
 * the request goes to the step's next node, each at most once, before
 * it fails. The resend runs from the request's own timer, made due at
 * once, never from inside the transport's peer-lost callback.
 *
 * Progress thread only. The owner side's answer comes back from the
 * server through a callback that may, in principle, run in any thread: it
 * copies the blob and posts the reply to the progress thread, where it is
 * dropped if the network has stopped meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "net/ctx.h"
#include "net/dmodex.h"
#include "net/transport.h"
#include "net/xstep.h"
#include "slurm_adapter.h"

typedef struct req {
	struct req *next;
	uint32_t id, node;
	pmix_rank_t rank;
	uint32_t tmo; /* the request's own timeout (s), or 0 */
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
	struct event *timer;
	/* another step's WILDCARD: its nspace, the nodes of it tried, and
	 * whether the timer is due for a resend to the next one */
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t tried;
	bool resend;
} req_t;

typedef struct {
	uint32_t node, id;
	pmix_status_t status;
	pmix_data_buffer_t blob;
} answer_t;

static req_t *reqs;
static uint32_t last_id;
static int stopped;

static void req_done(req_t *r, pmix_status_t st, const char *data, size_t n)
{
	for (req_t **p = &reqs; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	event_free(r->timer);
	r->cbfunc(st, st == PMIX_SUCCESS ? data : NULL, st == PMIX_SUCCESS ? n : 0, r->cbdata, NULL,
		  NULL);
	free(r);
}

static bool resend(req_t *r);

static void on_timeout(int fd, short what, void *arg)
{
	req_t *r = arg;

	(void)fd, (void)what;
	if (r->resend) {
		struct timeval tv = { r->tmo ? r->tmo + 1 : plug_net_ctx.timeout, 0 };

		r->resend = false;
		if (resend(r)) { /* the next node gets the whole time */
			evtimer_add(r->timer, &tv);
			return;
		}
		plug_error("direct modex for step %s: none of its nodes answers", r->nspace);
		req_done(r, PMIX_ERR_UNREACH, NULL, 0);
		return;
	}
	if (r->tmo) /* the caller's choice: not an error of ours */
		plug_debug("direct modex for rank %u (node %u): no answer in %u s", r->rank,
			   r->node, r->tmo);
	else
		plug_error("direct modex for rank %u (node %u) timed out", r->rank, r->node);
	req_done(r, PMIX_ERR_TIMEOUT, NULL, 0);
}

/* The peer id owning proc: our own node, or a node of a known other step
 * (a WILDCARD rank: that step's stepd on our host if it has one, else
 * its first node). UINT32_MAX when unknown. */
static uint32_t owner(const pmix_proc_t *proc)
{
	const plug_map_t *m = plug_net_ctx.map;
	plug_xstep_t *x;

	if (PMIx_Check_nspace(proc->nspace, plug_net_ctx.nspace))
		return proc->rank < m->ntasks ? m->node_of[proc->rank] : UINT32_MAX;
	if (!(x = plug_xstep_find(proc->nspace)) || !x->ready)
		return UINT32_MAX;
	if (proc->rank == PMIX_RANK_WILDCARD) {
		for (uint32_t i = 0; plug_net_ctx.host && i < x->map->nnodes; i++)
			if (!strcmp(x->hosts[i], plug_net_ctx.host))
				return x->peer[i];
		return x->peer[0];
	}
	return proc->rank < x->map->ntasks ? x->peer[x->map->node_of[proc->rank]] : UINT32_MAX;
}

/* The request's own PMIX_TIMEOUT in seconds (any integer type), or 0. */
static uint32_t info_timeout(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_TIMEOUT);
	const pmix_value_t *v = i ? &i->value : NULL;
	int64_t t = !v                     ? 0 :
		    v->type == PMIX_INT    ? v->data.integer :
		    v->type == PMIX_INT32  ? v->data.int32 :
		    v->type == PMIX_UINT32 ? v->data.uint32 :
		    v->type == PMIX_UINT   ? v->data.uint :
		    v->type == PMIX_SIZE   ? (int64_t)v->data.size :
					     0;

	return t > 0 && t < 7 * 24 * 3600 ? (uint32_t)t : 0;
}

/* The request (rank, timeout) to r->node. */
static int send_to(req_t *r)
{
	pmix_data_buffer_t b;
	int rc;

	pxc_buf_init(&b);
	rc = pxc_pack_u32(&b, r->rank) == PMIX_SUCCESS && pxc_pack_u32(&b, r->tmo) == PMIX_SUCCESS ?
		     plug_net_send(plug_net_ctx.net, r->node, PLUG_NET_DMODEX_REQ, r->id, &b) :
		     -1;
	pxc_buf_clear(&b);
	return rc;
}

/* Another step's WILDCARD request to the step's next node not tried yet;
 * false when there is none. */
static bool resend(req_t *r)
{
	plug_xstep_t *x = r->nspace[0] ? plug_xstep_find(r->nspace) : NULL;

	while (x && x->ready && x->map && x->peer && r->tried < x->map->nnodes) {
		uint32_t to = x->peer[r->tried++];

		if (to == r->node || to == plug_net_ctx.me)
			continue;
		plug_debug("direct modex for step %s: node %u lost, asking node %u", r->nspace,
			   r->node, to);
		r->node = to;
		if (send_to(r) == 0)
			return true;
	}
	return false;
}

static pmix_status_t send_req(const pmix_proc_t *proc, uint32_t tmo, pmix_modex_cbfunc_t cbfunc,
			      void *cbdata)
{
	struct timeval tv = { tmo ? tmo + 1 : plug_net_ctx.timeout, 0 };
	uint32_t to = owner(proc);
	pmix_data_buffer_t b;
	req_t *r;

	if (to == UINT32_MAX || to == plug_net_ctx.me)
		return PMIX_ERR_NOT_FOUND;
	if (!(r = calloc(1, sizeof(*r))))
		return PMIX_ERR_NOMEM;
	r->id = ++last_id ? last_id : ++last_id;
	r->node = to;
	r->rank = proc->rank;
	r->tmo = tmo;
	r->cbfunc = cbfunc;
	r->cbdata = cbdata;
	if (proc->rank == PMIX_RANK_WILDCARD &&
	    !PMIx_Check_nspace(proc->nspace, plug_net_ctx.nspace))
		snprintf(r->nspace, sizeof(r->nspace), "%s", proc->nspace);
	r->timer = evtimer_new(plug_net_base(plug_net_ctx.net), on_timeout, r);
	pxc_buf_init(&b);
	if (!r->timer || evtimer_add(r->timer, &tv) < 0 ||
	    pxc_pack_u32(&b, proc->rank) != PMIX_SUCCESS || pxc_pack_u32(&b, tmo) != PMIX_SUCCESS)
		goto fail;
	/* In the list before the send: whatever happens to the peer from
	 * now on finds the request. */
	r->next = reqs;
	reqs = r;
	if (plug_net_send(plug_net_ctx.net, r->node, PLUG_NET_DMODEX_REQ, r->id, &b) < 0) {
		reqs = r->next;
		goto fail;
	}
	pxc_buf_clear(&b);
	return PMIX_SUCCESS;
fail:
	pxc_buf_clear(&b);
	if (r->timer)
		event_free(r->timer);
	free(r);
	return PMIX_ERR_UNREACH;
}

/* A request for another step's proc, waiting for its step information. */
typedef struct {
	pmix_proc_t proc;
	uint32_t tmo;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
} dpend_t;

static void resume(pmix_status_t st, void *arg)
{
	dpend_t *p = arg;

	if (st == PMIX_SUCCESS)
		st = send_req(&p->proc, p->tmo, p->cbfunc, p->cbdata);
	if (st != PMIX_SUCCESS)
		p->cbfunc(st, NULL, 0, p->cbdata, NULL, NULL);
	free(p);
}

pmix_status_t plug_dmodex_request(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	uint32_t tmo = info_timeout(info, ninfo);
	dpend_t *p;
	int rc;

	if (PMIx_Check_nspace(proc->nspace, plug_net_ctx.nspace) || !plug_net_ctx.net)
		return send_req(proc, tmo, cbfunc, cbdata);
	if (!(p = calloc(1, sizeof(*p))))
		return PMIX_ERR_NOMEM;
	p->proc = *proc;
	p->tmo = tmo;
	p->cbfunc = cbfunc;
	p->cbdata = cbdata;
	rc = plug_xstep_need(proc, 1, resume, p);
	if (rc == 0)
		return PMIX_SUCCESS;
	free(p);
	return rc == 1 ? send_req(proc, tmo, cbfunc, cbdata) : rc;
}

/* ---- owner side --------------------------------------------------------- */

static void answer_fn(void *arg)
{
	answer_t *a = arg;
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (!stopped && pxc_pack_status(&b, a->status) == PMIX_SUCCESS &&
	    (!a->blob.bytes_used || pxc_buf_append(&b, a->blob.base_ptr, a->blob.bytes_used) == 0))
		plug_net_send(plug_net_ctx.net, a->node, PLUG_NET_DMODEX_RESP, a->id, &b);
	pxc_buf_clear(&b);
	pxc_buf_clear(&a->blob);
	free(a);
}

static void server_answer(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
	answer_t *a = cbdata;

	a->status = status;
	if (status == PMIX_SUCCESS && sz && pxc_buf_load_copy(&a->blob, data, sz) < 0)
		a->status = PMIX_ERR_NOMEM;
	if (pxc_progress_post(pxc_progress_global(), answer_fn, a) < 0) {
		pxc_buf_clear(&a->blob);
		free(a);
	}
}

static void serve(uint32_t from, uint32_t id, pmix_data_buffer_t *in)
{
	answer_t *a;
	pmix_proc_t proc;
	uint32_t rank, tmo = 0;

	if (pxc_unpack_u32(in, &rank) != PMIX_SUCCESS ||
	    (pxc_buf_remaining(in) && pxc_unpack_u32(in, &tmo) != PMIX_SUCCESS) ||
	    (rank != PMIX_RANK_WILDCARD && (rank >= plug_net_ctx.map->ntasks ||
					    plug_net_ctx.map->node_of[rank] != plug_net_ctx.me))) {
		plug_error("bad direct modex request from node %u", from);
		return; /* the requester's timer answers it */
	}
	if (!(a = calloc(1, sizeof(*a))))
		return;
	plug_flag("direct modex: node %u asks for rank %u", from, rank);
	a->node = from;
	a->id = id;
	pxc_buf_init(&a->blob);
	PMIx_Load_procid(&proc, plug_net_ctx.nspace, rank);
	if (pxc_server_dmodex_request_tmo(&proc, tmo < 7 * 24 * 3600 ? (int)tmo : 0, server_answer,
					  a) != PMIX_SUCCESS) {
		a->status = PMIX_ERR_NOT_FOUND;
		answer_fn(a);
	}
}

static void response(uint32_t from, uint32_t id, pmix_data_buffer_t *in)
{
	pmix_status_t st;
	req_t *r;

	for (r = reqs; r && !(r->id == id && r->node == from); r = r->next)
		;
	if (!r)
		return; /* late: already timed out */
	if (pxc_unpack_status(in, &st) != PMIX_SUCCESS) {
		plug_error("malformed direct modex answer from node %u", from);
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	req_done(r, st, pxc_buf_read_ptr(in), pxc_buf_remaining(in));
}

static void dmodex_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	(void)arg;
	if (h->cmd == PLUG_NET_DMODEX_REQ)
		serve(from, h->tag, in);
	else
		response(from, h->tag, in);
}

static void dmodex_peer_lost(void *arg, uint32_t node)
{
	req_t *r, *next;

	(void)arg;
	for (r = reqs; r; r = next) {
		next = r->next;
		if (r->node == node) {
			if (r->nspace[0]) { /* another node of that step may answer */
				struct timeval now = { 0, 0 };

				r->resend = true;
				evtimer_add(r->timer, &now);
				continue;
			}
			plug_error("direct modex for rank %u: node %u lost", r->rank, node);
			req_done(r, PMIX_ERR_UNREACH, NULL, 0);
		}
	}
}

static void dmodex_stop(void *arg)
{
	(void)arg;
	stopped = 1;
	while (reqs)
		req_done(reqs, PMIX_ERR_UNREACH, NULL, 0);
}

int plug_dmodex_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "direct modex",
			      .first = PLUG_NET_DMODEX_REQ,
			      .last = PLUG_NET_DMODEX_RESP,
			      .msg = dmodex_msg,
			      .peer_lost = dmodex_peer_lost,
			      .stop = dmodex_stop };

	stopped = 0;
	return plug_net_register(n, &u);
}
