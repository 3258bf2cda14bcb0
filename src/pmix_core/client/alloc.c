/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc.c - PMIx_Allocation_request(_nb).
 *
 * The client only carries the request: the directive and its infos go to
 * the server (server/alloc.c), which hands them to the host's allocate
 * with the caller's uid and gid. The reply carries INFO[] results (for a
 * new allocation, its PMIX_ALLOC_ID; a grant that comes later is an
 * event, PMIX_NOTIFY_ALLOC_COMPLETE). The wait for the reply is bounded
 * by the request's PMIX_TIMEOUT, else the library's default; but a NEW
 * request's PMIX_TIMEOUT is how long its grant may take (the host's
 * business), so the wait for its reply (the id, as soon as the resource
 * manager took the request) is ALLOC_ANSWER_MS, whatever PMIX_TIMEOUT.
 * Callbacks run in the progress thread. Not available in a server
 * process.
 */
#include "client.h"
#include "request.h"

#define ALLOC_ANSWER_MS 600000 /* a NEW request's wait for its reply */

static int answer_ms(pmix_alloc_directive_t d, const pmix_info_t *info, size_t ninfo)
{
	return d == PMIX_ALLOC_NEW ? ALLOC_ANSWER_MS : pxc_request_timeout_ms(info, ninfo);
}

static pmix_status_t alloc_prepare(pmix_alloc_directive_t directive, const pmix_info_t *info,
				   size_t ninfo, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!info && ninfo)
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack(b, &directive, 1, PMIX_UINT8)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, ninfo, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive, pmix_info_t *info,
				      size_t ninfo, pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (results)
		*results = NULL;
	if (nresults)
		*nresults = 0;
	if (results && !nresults)
		return PMIX_ERR_BAD_PARAM;
	if ((st = alloc_prepare(directive, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_request_results_call(PXC_CMD_ALLOC, &b, answer_ms(directive, info, ninfo), results,
				      nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive, pmix_info_t *info,
					 size_t ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((st = alloc_prepare(directive, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	return pxc_request_results_nb(PXC_CMD_ALLOC, &b, answer_ms(directive, info, ninfo), cbfunc,
				      cbdata);
}
