/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobctl.c - PMIx_Job_control(_nb).
 *
 * The client only carries the request: targets and directives go to the
 * server (server/jobctl.c), which records cleanups itself and hands the
 * other directives to the host. The reply carries INFO[] results.
 * PMIx_Job_control_nb accepts a NULL cbfunc (Open MPI registers its
 * cleanup that way) and then returns once the request is queued.
 * Callbacks run in the progress thread. Not available in a server process.
 */
#include "client.h"
#include "request.h"

static pmix_status_t procs_infos_prepare(const pmix_proc_t *procs, size_t nprocs,
					 const pmix_info_t *info, size_t ninfo,
					 pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_request_pack_procs_infos(b, procs, nprocs, info, ninfo)) != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
			       const pmix_info_t directives[], size_t ndirs, pmix_info_t **results,
			       size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((results && !nresults) ||
	    (st = procs_infos_prepare(targets, ntargets, directives, ndirs, &b)) != PMIX_SUCCESS)
		return results && !nresults ? PMIX_ERR_BAD_PARAM : st;
	st = pxc_request_results_call(PXC_CMD_JOBCTL, &b, pxc_request_timeout_ms(directives, ndirs),
				      results, nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
				  const pmix_info_t directives[], size_t ndirs,
				  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((st = procs_infos_prepare(targets, ntargets, directives, ndirs, &b)) != PMIX_SUCCESS)
		return st;
	return pxc_request_results_nb(PXC_CMD_JOBCTL, &b, pxc_request_timeout_ms(directives, ndirs),
				      cbfunc, cbdata);
}
