/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.c - the shapes of request the client's feature files share: the
 * readiness check of the API calls, packing of "procs, infos" payloads,
 * PMIX_TIMEOUT in ms, replies carrying only a status (optionally with a
 * blob to merge into the client store), replies carrying INFO[] results,
 * and completions reported later without a server.
 *
 * Everything here only builds on the request engine of conn.c
 * (pxc_client_send / pxc_client_call): a helper packs or parses, the
 * engine carries. Callbacks handed to the _nb helpers run in the progress
 * thread. Result arrays handed to a pmix_info_cbfunc_t belong to the
 * library until the caller invokes the release function it was given
 * (pxc_request_results_free).
 */
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"

/* ---- readiness, payloads, timeouts ---- */

pmix_status_t pxc_request_ready(void)
{
	return pxc_role == PXC_ROLE_SERVER ? PMIX_ERR_NOT_SUPPORTED : pxc_client_ready();
}

int pxc_request_timeout_ms(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_TIMEOUT);
	long s = 0;

	if (!i)
		return 0;
	switch (i->value.type) {
	case PMIX_INT: s = i->value.data.integer; break;
	case PMIX_UINT: s = i->value.data.uint; break;
	case PMIX_INT32: s = i->value.data.int32; break;
	case PMIX_UINT32: s = i->value.data.uint32; break;
	case PMIX_SIZE: s = (long)i->value.data.size; break;
	default: break;
	}
	if (s <= 0)
		return 0;
	return s > 2000000 ? 2000000000 : (int)(s * 1000);
}

pmix_status_t pxc_request_pack_procs_infos(pmix_data_buffer_t *b, const pmix_proc_t *procs,
					   size_t nprocs, const pmix_info_t *info, size_t ninfo)
{
	pmix_status_t st;

	if ((!procs && nprocs) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	st = pxc_pack_array(b, procs, nprocs, PMIX_PROC);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, ninfo, PMIX_INFO);
	return st;
}

/* Collectives run over the host's one tree: an algorithm the caller
 * requires (PMIX_COLLECTIVE_ALGO marked required, or with
 * PMIX_COLLECTIVE_ALGO_REQD) is one we do not honour. */
static bool algo_required(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *a = pxc_info_find(info, ninfo, PMIX_COLLECTIVE_ALGO);

	return a &&
	       (PMIx_Info_is_required(a) || pxc_info_flag(info, ninfo, PMIX_COLLECTIVE_ALGO_REQD));
}

pmix_status_t pxc_request_coll_prepare(const pmix_proc_t *procs, size_t nprocs,
				       const pmix_info_t *info, size_t ninfo, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if ((!procs && nprocs) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if (algo_required(info, ninfo))
		return PMIX_ERR_NOT_SUPPORTED;
	if ((st = pxc_client_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	st = pxc_request_pack_procs_infos(b, procs, nprocs, info, ninfo);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

/* ---- "STATUS (+ BLOB)" replies ---- */

struct opnb {
	bool merge;
	pmix_op_cbfunc_t cb;
	void *cbdata;
};

pmix_status_t pxc_request_parse_merge(pmix_data_buffer_t *reply, void *arg)
{
	(void)arg;
	return pxc_client_merge_blob(reply);
}

static void opnb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct opnb *o = arg;

	if (st == PMIX_SUCCESS && o->merge && reply)
		st = pxc_client_merge_blob(reply);
	if (o->cb)
		o->cb(st, o->cbdata);
	free(o);
}

pmix_status_t pxc_request_op_nb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms, bool merge,
				pmix_op_cbfunc_t cb, void *cbdata)
{
	struct opnb *o = malloc(sizeof(*o));
	pmix_status_t st;

	if (!o) {
		pxc_buf_clear(b);
		return PMIX_ERR_NOMEM;
	}
	o->merge = merge;
	o->cb = cb;
	o->cbdata = cbdata;
	st = pxc_client_send(cmd, b, timeout_ms, opnb_reply, o);
	if (st != PMIX_SUCCESS)
		free(o);
	return st;
}

struct later {
	pmix_status_t st;
	pmix_op_cbfunc_t cb;
	void *cbdata;
};

static void later_run(void *arg)
{
	struct later *l = arg;

	l->cb(l->st, l->cbdata);
	free(l);
}

pmix_status_t pxc_request_op_later(pmix_status_t st, pmix_op_cbfunc_t cb, void *cbdata)
{
	struct later *l;

	if (!cb)
		return PMIX_SUCCESS;
	if (!pxc_progress_global())
		return PMIX_ERR_INIT;
	if (!(l = malloc(sizeof(*l))))
		return PMIX_ERR_NOMEM;
	l->st = st;
	l->cb = cb;
	l->cbdata = cbdata;
	if (pxc_progress_post(pxc_progress_global(), later_run, l) != 0) {
		free(l);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

/* ---- "STATUS, INFO[] results" replies ---- */

void pxc_request_results_free(void *cbdata)
{
	pxc_results_t *r = cbdata;

	if (r) {
		pxc_array_free(r->info, r->n, PMIX_INFO);
		free(r);
	}
}

struct infonb {
	pmix_info_cbfunc_t cb;
	void *cbdata;
};

static pmix_status_t unpack_results(pmix_status_t st, pmix_data_buffer_t *reply, pxc_results_t *r)
{
	pmix_status_t ust;

	if (!reply || (st != PMIX_SUCCESS && st != PMIX_QUERY_PARTIAL_SUCCESS) ||
	    pxc_buf_remaining(reply) == 0)
		return st;
	ust = pxc_unpack_array(reply, (void **)&r->info, &r->n, PMIX_INFO);
	if (ust == PMIX_SUCCESS && pxc_buf_remaining(reply) > 0) /* a group's data */
		ust = pxc_client_merge_blob(reply);
	if (ust != PMIX_SUCCESS) { /* no results with an error */
		pxc_array_free(r->info, r->n, PMIX_INFO);
		r->info = NULL;
		r->n = 0;
	}
	return ust == PMIX_SUCCESS ? st : ust;
}

static void infonb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct infonb *q = arg;
	pxc_results_t *r = calloc(1, sizeof(*r));

	if (!r)
		st = PMIX_ERR_NOMEM;
	else
		st = unpack_results(st, reply, r);
	if (q->cb)
		q->cb(st, r ? r->info : NULL, r ? r->n : 0, q->cbdata, pxc_request_results_free, r);
	else
		pxc_request_results_free(r);
	free(q);
}

pmix_status_t pxc_request_results_nb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				     pmix_info_cbfunc_t cb, void *cbdata)
{
	struct infonb *q = malloc(sizeof(*q));
	pmix_status_t st;

	if (!q) {
		pxc_buf_clear(b);
		return PMIX_ERR_NOMEM;
	}
	q->cb = cb;
	q->cbdata = cbdata;
	if ((st = pxc_client_send(cmd, b, timeout_ms, infonb_reply, q)) != PMIX_SUCCESS)
		free(q);
	return st;
}

struct infocall {
	pmix_info_t **out;
	size_t *nout;
};

static pmix_status_t parse_infos(pmix_data_buffer_t *reply, void *arg)
{
	struct infocall *c = arg;
	pxc_results_t r = { NULL, 0 };
	pmix_status_t st = unpack_results(PMIX_SUCCESS, reply, &r);

	if (c->out) {
		*c->out = r.info;
		*c->nout = r.n;
	} else {
		pxc_array_free(r.info, r.n, PMIX_INFO);
	}
	return st;
}

pmix_status_t pxc_request_results_call(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				       pmix_info_t **results, size_t *nresults)
{
	struct infocall c = { results, nresults };

	if (results) {
		*results = NULL;
		*nresults = 0;
	}
	return pxc_client_call(cmd, b, timeout_ms, parse_infos, &c);
}
