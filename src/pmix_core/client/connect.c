/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * connect.c - PMIx_Connect(_nb), PMIx_Disconnect(_nb).
 *
 * Like a fence, a connect or disconnect is one request to the local
 * server, which aggregates the node's participants and lets the host run
 * the collective between nodes (server/connect.c). A connect's reply
 * always carries a blob of the participants' data, merged into the client
 * store before the caller hears of completion, then the connect's results
 * (group context id, the caller's group rank). procs must name at least
 * one proc.
 *
 * Callbacks of the _nb forms run in the progress thread.
 */
#include <errno.h>
#include <stdlib.h>

#include "client.h"
#include "conn.h"
#include "request.h"

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
	pmix_status_t st = pxc_request_parse_merge(reply, arg);

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

/* The payload of a connect or disconnect, which must name procs. */
static pmix_status_t connect_prepare(const pmix_proc_t *procs, size_t nprocs,
				     const pmix_info_t *info, size_t ninfo, pmix_data_buffer_t *b)
{
	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	return pxc_request_coll_prepare(procs, nprocs, info, ninfo, b);
}

/* The blocking connect and disconnect: the same request, a different reply. */
static pmix_status_t cnct_call(uint16_t cmd, const pmix_proc_t procs[], size_t nprocs,
			       const pmix_info_t info[], size_t ninfo, pxc_parse_f parse)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((st = connect_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(cmd, &b, pxc_request_timeout_ms(info, ninfo), parse, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			   size_t ninfo)
{
	return cnct_call(PXC_CMD_CONNECT, procs, nprocs, info, ninfo, parse_connect);
}

pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	struct cnb *o;
	pmix_status_t st;

	if ((st = connect_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	if (!(o = malloc(sizeof(*o)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	o->cb = cbfunc;
	o->cbdata = cbdata;
	st = pxc_client_send(PXC_CMD_CONNECT, &b, pxc_request_timeout_ms(info, ninfo),
			     connect_nb_reply, o);
	if (st != PMIX_SUCCESS)
		free(o);
	return st;
}

pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo)
{
	return cnct_call(PXC_CMD_DISCONNECT, procs, nprocs, info, ninfo, NULL);
}

pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
				 size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((st = connect_prepare(procs, nprocs, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_DISCONNECT, &b, pxc_request_timeout_ms(info, ninfo), false,
				 cbfunc, cbdata);
}
