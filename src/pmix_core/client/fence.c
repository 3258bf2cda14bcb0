/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fence.c - collectives: PMIx_Fence(_nb), PMIx_Connect(_nb),
 * PMIx_Disconnect(_nb), and the generic "status (+ blob)" completion used
 * by several other calls.
 *
 * A fence or connect is one request to the local server, which aggregates
 * the node's participants and lets the host run the collective between
 * nodes. With PMIX_COLLECT_DATA (fence) or always (connect) the reply
 * carries a blob of the participants' data, merged into the client store
 * before the caller hears of completion, so that Gets right after it are
 * local. procs NULL/0 means the caller's whole namespace (the server
 * expands it). A singleton's fence over itself completes at once.
 *
 * Callbacks of the _nb forms run in the progress thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

struct opnb {
	bool merge;
	pmix_op_cbfunc_t cb;
	void *cbdata;
};

pmix_status_t pxc_cli_parse_merge(pmix_data_buffer_t *reply, void *arg)
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

pmix_status_t pxc_client_op_nb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
			       bool merge, pmix_op_cbfunc_t cb, void *cbdata)
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

pmix_status_t pxc_client_op_later(pmix_status_t st, pmix_op_cbfunc_t cb, void *cbdata)
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

/* ---- fence ---- */

/* A singleton (or unconnected tool) can only fence with itself. */
static pmix_status_t alone_fence(const pmix_proc_t *procs, size_t nprocs)
{
	for (size_t i = 0; i < nprocs; i++)
		if (strncmp(procs[i].nspace, pxc_cl.me.nspace, PMIX_MAX_NSLEN) != 0)
			return PMIX_ERR_UNREACH;
	return PMIX_SUCCESS;
}

static pmix_status_t coll_prepare(const pmix_proc_t *procs, size_t nprocs,
				  const pmix_info_t *info, size_t ninfo,
				  pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if ((!procs && nprocs) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_client_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	st = pxc_cli_pack_procs_infos(b, procs, nprocs, info, ninfo);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
			 const pmix_info_t info[], size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = coll_prepare(procs, nprocs, info, ninfo, &b);

	if (st == PMIX_ERR_UNREACH && atomic_load(&pxc_cl.state) == PXC_CONN_ALONE)
		return alone_fence(procs, nprocs);
	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_FENCE, &b, pxc_cli_info_timeout_ms(info, ninfo),
			     pxc_cli_parse_merge, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
			    const pmix_info_t info[], size_t ninfo,
			    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = coll_prepare(procs, nprocs, info, ninfo, &b);

	if (st == PMIX_ERR_UNREACH && atomic_load(&pxc_cl.state) == PXC_CONN_ALONE) {
		st = alone_fence(procs, nprocs);
		return st == PMIX_SUCCESS ? pxc_client_op_later(st, cbfunc, cbdata) : st;
	}
	if (st != PMIX_SUCCESS)
		return st;
	return pxc_client_op_nb(PXC_CMD_FENCE, &b, pxc_cli_info_timeout_ms(info, ninfo),
				true, cbfunc, cbdata);
}

/* ---- connect / disconnect ---- */

/* After the blob, a connect reply carries INFO[] results (the group
 * context id and the caller's group rank, see server/connect.c): they are
 * kept under the caller's own proc, so PMIx_Get(me, PMIX_GROUP_CONTEXT_ID)
 * reads the last connect's. A reply without results is fine. */
static pmix_status_t connect_results(pmix_data_buffer_t *reply)
{
	pmix_info_t *res = NULL;
	size_t n = 0;
	pmix_status_t st;

	if (reply->unpack_ptr >= reply->base_ptr + reply->bytes_used)
		return PMIX_SUCCESS;
	st = pxc_unpack_array(reply, (void **)&res, &n, PMIX_INFO);
	if (st != PMIX_SUCCESS) {
		pxc_error("client: malformed connect results from server (%d)", st);
		return st;
	}
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	for (size_t i = 0; i < n; i++)
		if (pxc_store_put(pxc_cl.store, pxc_cl.me.nspace, PXC_LVL_PROC, pxc_cl.me.rank,
				  res[i].key, &res[i].value, PMIX_SCOPE_UNDEF) < 0)
			st = pxc_errno_status(errno);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	pxc_array_free(res, n, PMIX_INFO);
	return st;
}

static pmix_status_t parse_connect(pmix_data_buffer_t *reply, void *arg)
{
	pmix_status_t st = pxc_cli_parse_merge(reply, arg);

	return st == PMIX_SUCCESS ? connect_results(reply) : st;
}

struct cnb {
	pmix_op_cbfunc_t cb;
	void *cbdata;
};

static void connect_nb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct cnb *o = arg;

	if (st == PMIX_SUCCESS && reply)
		st = parse_connect(reply, NULL);
	if (o->cb)
		o->cb(st, o->cbdata);
	free(o);
}

/* The blocking connect and disconnect: the same request, a different reply. */
static pmix_status_t cnct_call(uint16_t cmd, const pmix_proc_t procs[], size_t nprocs,
			       const pmix_info_t info[], size_t ninfo,
			       pxc_parse_f parse)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	if ((st = coll_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(cmd, &b, pxc_cli_info_timeout_ms(info, ninfo), parse, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
			   const pmix_info_t info[], size_t ninfo)
{
	return cnct_call(PXC_CMD_CONNECT, procs, nprocs, info, ninfo, parse_connect);
}

pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo,
			      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	struct cnb *o;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	if ((st = coll_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	if (!(o = malloc(sizeof(*o)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	o->cb = cbfunc;
	o->cbdata = cbdata;
	st = pxc_client_send(PXC_CMD_CONNECT, &b, pxc_cli_info_timeout_ms(info, ninfo),
			     connect_nb_reply, o);
	if (st != PMIX_SUCCESS)
		free(o);
	return st;
}

pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo)
{
	return cnct_call(PXC_CMD_DISCONNECT, procs, nprocs, info, ninfo, NULL);
}

pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
				 const pmix_info_t info[], size_t ninfo,
				 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	if ((st = coll_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	return pxc_client_op_nb(PXC_CMD_DISCONNECT, &b, pxc_cli_info_timeout_ms(info, ninfo),
				false, cbfunc, cbdata);
}
