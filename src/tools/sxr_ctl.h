/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_ctl.h - the host requests of slurmix-run that look at or act on the
 * running jobs (sxr_ctl.c): query, job control and log, which sxr_host.c
 * puts in its pmix_server_module_t, and the events the launcher raises
 * when a task ends abnormally.
 *
 * Threads: sxr_host_query, sxr_host_job_control and sxr_host_log are
 * server callbacks, run in the server's progress thread: they copy their
 * arguments into a request, post it and return; the main thread runs the
 * request and calls cbfunc. sxr_notify_proc_event runs in the main thread.
 */
#ifndef SXR_CTL_H
#define SXR_CTL_H

#include "sxr.h"

/* Server callbacks (progress thread): query and job control return
 * PMIX_SUCCESS once the request is posted (cbfunc follows), or an error
 * (cbfunc is not called); log reports a failure through cbfunc (if any). */
pmix_status_t sxr_host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
			     pmix_info_cbfunc_t cbfunc, void *cbdata);
pmix_status_t sxr_host_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
				   size_t ntargets, const pmix_info_t directives[], size_t ndirs,
				   pmix_info_cbfunc_t cbfunc, void *cbdata);
void sxr_host_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
		  const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
		  void *cbdata);
/* Main thread: raises event code about proc who, if the server is up. */
void sxr_notify_proc_event(struct sxr *s, pmix_status_t code, const pmix_proc_t *who);

#endif
