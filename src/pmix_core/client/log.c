/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c - PMIx_Log(_nb): the application's log records (not the library's
 * own logging, which is common/log.c).
 *
 * The client only carries the data and the directives to the server,
 * which hands them to the host's log (server/log.c). The reply carries a
 * status. Callbacks run in the progress thread. Not available in a
 * server process.
 */
#include "client.h"
#include "conn.h"
#include "request.h"

static pmix_status_t log_prepare(const pmix_info_t *data, size_t ndata, const pmix_info_t *dirs,
				 size_t ndirs, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!data || !ndata || (!dirs && ndirs))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, data, ndata, PMIX_INFO)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, dirs, ndirs, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
		       size_t ndirs)
{
	pmix_data_buffer_t b;
	pmix_status_t st = log_prepare(data, ndata, directives, ndirs, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_LOG, &b, pxc_request_timeout_ms(directives, ndirs), NULL,
			     NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
			  size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = log_prepare(data, ndata, directives, ndirs, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_LOG, &b, pxc_request_timeout_ms(directives, ndirs), false,
				 cbfunc, cbdata);
}
