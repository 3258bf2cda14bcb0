/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fence.c - PMIx_Fence(_nb).
 *
 * A fence is one request to the local server, which aggregates the node's
 * participants and lets the host run the collective between nodes. With
 * PMIX_COLLECT_DATA the reply carries a blob of the participants' data,
 * merged into the client store before the caller hears of completion, so
 * that Gets right after it are local. procs NULL/0 means the caller's
 * whole namespace (the server expands it). A singleton's fence over
 * itself completes at once.
 *
 * Callbacks of PMIx_Fence_nb run in the progress thread.
 */
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"

/* A singleton (or unconnected tool) can only fence with itself. */
static pmix_status_t alone_fence(const pmix_proc_t *procs, size_t nprocs)
{
	for (size_t i = 0; i < nprocs; i++)
		if (strncmp(procs[i].nspace, pxc_cl.me.nspace, PMIX_MAX_NSLEN) != 0)
			return PMIX_ERR_UNREACH;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			 size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = pxc_request_coll_prepare(procs, nprocs, info, ninfo, &b);

	if (st == PMIX_ERR_UNREACH && atomic_load(&pxc_cl.state) == PXC_CONN_ALONE)
		return alone_fence(procs, nprocs);
	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_FENCE, &b, pxc_request_timeout_ms(info, ninfo),
			     pxc_request_parse_merge, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			    size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = pxc_request_coll_prepare(procs, nprocs, info, ninfo, &b);

	if (st == PMIX_ERR_UNREACH && atomic_load(&pxc_cl.state) == PXC_CONN_ALONE) {
		st = alone_fence(procs, nprocs);
		return st == PMIX_SUCCESS ? pxc_request_op_later(st, cbfunc, cbdata) : st;
	}
	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_FENCE, &b, pxc_request_timeout_ms(info, ninfo), true,
				 cbfunc, cbdata);
}
