/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_event.c - the host's notify_event, for one event only:
 * PMIX_ERR_INVALID_TERMINATION, which the core server raises when a
 * connected proc ends without disconnecting (server/connect.c) and hands
 * to us for the procs it is connected to on other nodes. We carry it to
 * the stepds hosting them - in this step, or in other steps of the job,
 * known since the connect (plug_xstep.c; a step not known is skipped with
 * a log line) - as PLUG_NET_EVENT (PROC source, PROC[] procs); the
 * receiving stepd hands it to pxc_server_invalid_termination, which
 * delivers it to its local clients among procs that registered the code.
 * Any other event or range: PMIX_ERR_NOT_SUPPORTED (the server then
 * delivers it on this node only, as before).
 * Progress thread (the server calls its host there; plug_net too).
 */
#include <stdlib.h>
#include <string.h>
#include <pmix_server.h>

#include "pack.h"
#include "plug_coll.h"
#include "plug_net.h"
#include "slurm_adapter.h"
#include "server/server.h"

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
	int own = PMIx_Check_nspace(q->nspace, plug_coll_ctx.nspace);
	plug_xstep_t *x = own ? NULL : plug_xstep_find(q->nspace);
	const plug_map_t *m = own ? plug_coll_ctx.map : x && x->ready ? x->map : NULL;
	int rc = 0;

	if (!m) {
		plug_flag("event: no stepd known for %s, not told", q->nspace);
		return 0;
	}
	for (uint32_t node = 0; node < m->nnodes && rc == 0; node++) {
		if (q->rank != PMIX_RANK_WILDCARD &&
		    (q->rank >= m->ntasks || m->node_of[q->rank] != node))
			continue;
		if (own && node == plug_coll_ctx.me)
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

pmix_status_t plug_event_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_data_array_t *da = custom_range(info, ninfo);
	const pmix_proc_t *procs = da ? da->array : NULL;
	peers_t p = { 0 };
	pmix_data_buffer_t b;
	int rc = 0;

	(void)cbfunc, (void)cbdata;
	if (code != PMIX_ERR_INVALID_TERMINATION || range != PMIX_RANGE_CUSTOM || !da || !source)
		return PMIX_ERR_NOT_SUPPORTED;
	for (size_t i = 0; i < da->size && rc == 0; i++)
		rc = peers_of(&procs[i], &p);
	pxc_buf_init(&b);
	if (rc == 0 && (pxc_pack_proc(&b, source) != PMIX_SUCCESS ||
			pxc_pack_array(&b, procs, da->size, PMIX_PROC) != PMIX_SUCCESS))
		rc = -1;
	for (size_t i = 0; i < p.n && rc == 0; i++)
		if (plug_net_send(p.peer[i], PLUG_NET_EVENT, 0, &b) < 0)
			plug_flag("event: stepd %u unreachable", p.peer[i]);
	pxc_buf_clear(&b);
	free(p.peer);
	return rc == 0 ? PMIX_OPERATION_SUCCEEDED : PMIX_ERR_NOMEM;
}

void plug_event_msg(uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t src, *procs = NULL;
	size_t n = 0;

	(void)h;
	if (pxc_unpack_proc(in, &src) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&procs, &n, PMIX_PROC) != PMIX_SUCCESS) {
		plug_error("malformed EVENT from node %u: dropped", from);
		return;
	}
	pxc_server_invalid_termination(&src, procs, n);
	pxc_array_free(procs, n, PMIX_PROC);
}
