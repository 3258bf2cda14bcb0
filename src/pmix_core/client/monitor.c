/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monitor.c - PMIx_Process_monitor(_nb), and so PMIx_Heartbeat (a macro
 * of pmix.h sending PMIX_SEND_HEARTBEAT through the _nb form without a
 * callback).
 *
 * The client only carries the request: the monitor info, the error code
 * and the directives go to the server (server/monitor.c), which runs the
 * monitors and raises their alerts as events; the reply carries a status
 * and INFO[] results. Callbacks run in the progress thread. Not available
 * in a server process.
 */
#include "client.h"
#include "request.h"

static pmix_status_t monitor_prepare(const pmix_info_t *monitor, pmix_status_t error,
				     const pmix_info_t *dirs, size_t ndirs, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!monitor || (!dirs && ndirs))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, monitor, 1, PMIX_INFO)) == PMIX_SUCCESS &&
	    (st = pxc_pack_status(b, error)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, dirs, ndirs, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error,
				   const pmix_info_t directives[], size_t ndirs,
				   pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (results && !nresults)
		return PMIX_ERR_BAD_PARAM;
	if ((st = monitor_prepare(monitor, error, directives, ndirs, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_request_results_call(PXC_CMD_MONITOR, &b,
				      pxc_request_timeout_ms(directives, ndirs), results, nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error,
				      const pmix_info_t directives[], size_t ndirs,
				      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = monitor_prepare(monitor, error, directives, ndirs, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_results_nb(PXC_CMD_MONITOR, &b,
				      pxc_request_timeout_ms(directives, ndirs), cbfunc, cbdata);
}
