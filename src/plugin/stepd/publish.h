/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_pub.h - PMIx_Publish / Lookup / Unpublish for every step of a job
 * (docs/dynamic.md section 4).
 *
 * stepd side: the server module's publish, lookup and unpublish callbacks
 * forward the request to the step's srun (plug_srun_request), which
 * serves it from the pub/ directory of the job directory on its host:
 * shared by every step of the allocation, surviving the publishing step.
 *
 * srun side (srun's progress thread): handlers of PLUG_NET_PUBLISH,
 * LOOKUP and UNPUBLISH (plug_rdv.c), PMIX_WAIT lookups woken by inotify
 * on pub/ (polling when inotify is not available), each with its own
 * timer; at srun's end its step's PROC/APP-persistent entries are removed
 * and pending lookups are answered PMIX_ERR_UNREACH.
 */
#ifndef PLUG_PUB_H
#define PLUG_PUB_H

#include <pmix_server.h>

/* The server module's callbacks (stepd, progress thread). */
pmix_status_t plug_pub_publish(const pmix_proc_t *proc, const pmix_info_t info[],
			       size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_pub_lookup(const pmix_proc_t *proc, char **keys,
			      const pmix_info_t info[], size_t ninfo,
			      pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_pub_unpublish(const pmix_proc_t *proc, char **keys,
				 const pmix_info_t info[], size_t ninfo,
				 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* srun: registers the handlers with plug_rdv (before plug_rdv_start). */
void plug_pub_srun_init(void);

#endif
