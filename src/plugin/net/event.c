/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/event.c - the host's notify_event, for the events of connect
 * (server/connect.c) that concern procs on other nodes, range CUSTOM:
 * - PMIX_ERR_INVALID_TERMINATION: a connected proc ended without
 *   disconnecting;
 * - PMIX_PROC_HAS_CONNECTED (PMIX_CONNECT_NOTIFY_EACH: a proc joined a
 *   connect) and PMIX_CONNECT_REQUESTED (PMIX_CONNECT_NOTIFY_REQ: the
 *   first one asked), with the connect's PMIX_CONNECT_ID and PMIX_TIMEOUT.
 * We carry them to the stepds hosting the procs of the custom range - in
 * this step, or in other steps of the job (net/xstep.c: an nspace not
 * known yet is fetched first, as for a collective; one that cannot be
 * is skipped with a log line) - as PLUG_NET_EVENT (PROC source, PROC[]
 * procs, STATUS code, INFO[] the id and timeout; a message without the
 * last two is an INVALID_TERMINATION). The receiving stepd hands it to
 * pxc_server_invalid_termination / pxc_server_connect_event, which
 * deliver it to their local clients among procs.
 * Any other event or range: PMIX_ERR_NOT_SUPPORTED (the server then
 * delivers it on this node only, as before).
 * Progress thread (the server calls its host there; plug_net too).
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_server.h>
#include "pmix_slurmix.h"

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "net/ctx.h"
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
	       code == PMIX_CONNECT_REQUESTED;
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

pmix_status_t plug_event_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_data_array_t *da = custom_range(info, ninfo);
	evpend_t *e;
	int rc;

	(void)cbfunc, (void)cbdata;
	if (!wanted(code) || range != PMIX_RANGE_CUSTOM || !da || !da->size || !source)
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

int plug_event_register(plug_net_t *n)
{
	plug_net_user_t u = {
		.name = "events", .first = PLUG_NET_EVENT, .last = PLUG_NET_EVENT, .msg = event_msg
	};

	return plug_net_register(n, &u);
}
