/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.c - PMIx_Group_construct(_nb), PMIx_Group_destruct(_nb),
 * PMIx_Group_leave(_nb); invite and join are groupev.c.
 *
 * The client carries the request (operation, group id, procs,
 * directives) to the server, which runs it with the other members'
 * servers through the host (server/group.c). A construct commits the
 * caller's puts first, so that they reach the other members with it; its
 * reply carries INFO[] results (context id, membership) and a blob of the
 * members' data, merged into the client store before the caller hears
 * of completion (PMIx_Get with PMIX_GROUP_CONTEXT_ID as a qualifier reads
 * a member's PMIX_GROUP_INFO). Callbacks run in the progress thread. Not
 * available in a server process.
 */
#include "client.h"
#include "conn.h"
#include "request.h"

static pmix_status_t group_prepare(uint8_t op, const char *grp, const pmix_proc_t *procs,
				   size_t nprocs, const pmix_info_t *info, size_t ninfo,
				   pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!grp || (!procs && nprocs) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	/* what the caller put goes with the construct (sent before it) */
	if (op == PMIX_GROUP_CONSTRUCT && (st = PMIx_Commit()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack(b, &op, 1, PMIX_UINT8)) == PMIX_SUCCESS &&
	    (st = pxc_pack_str(b, grp)) == PMIX_SUCCESS)
		st = pxc_request_pack_procs_infos(b, procs, nprocs, info, ninfo);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t directives[], size_t ndirs,
				   pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	st = group_prepare(PMIX_GROUP_CONSTRUCT, grp, procs, nprocs, directives, ndirs, &b);
	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_request_results_call(PXC_CMD_GROUP, &b, pxc_request_timeout_ms(directives, ndirs),
				      results, nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	st = group_prepare(PMIX_GROUP_CONSTRUCT, grp, procs, nprocs, info, ninfo, &b);
	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_results_nb(PXC_CMD_GROUP, &b, pxc_request_timeout_ms(info, ninfo),
				      cbfunc, cbdata);
}

/* Destruct and leave: a reply with the status only. */
static pmix_status_t status_call(uint8_t op, const char *grp, const pmix_info_t *info, size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = group_prepare(op, grp, NULL, 0, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_GROUP, &b, pxc_request_timeout_ms(info, ninfo), NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

static pmix_status_t status_nb(uint8_t op, const char *grp, const pmix_info_t *info, size_t ninfo,
			       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = group_prepare(op, grp, NULL, 0, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_GROUP, &b, pxc_request_timeout_ms(info, ninfo), false,
				 cbfunc, cbdata);
}

pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[], size_t ninfo)
{
	return status_call(PMIX_GROUP_DESTRUCT, grp, info, ninfo);
}

pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return status_nb(PMIX_GROUP_DESTRUCT, grp, info, ninfo, cbfunc, cbdata);
}

pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t info[], size_t ninfo)
{
	return status_call(PXC_GROUP_OP_LEAVE, grp, info, ninfo);
}

pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t info[], size_t ninfo,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return status_nb(PXC_GROUP_OP_LEAVE, grp, info, ninfo, cbfunc, cbdata);
}
