/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/publish.h - PMIx_Publish / Lookup / Unpublish for every step of
 * a job (docs/dynamic.md section 4), the step daemon's half: the server
 * module's publish, lookup and unpublish callbacks forward the request to
 * the step's srun (common/agent_client.h), which serves it from the pub/
 * directory of the job directory on its host (srun/pubdir.h): shared by
 * every step of the allocation, surviving the publishing step.
 */
#ifndef PLUG_STEPD_PUBLISH_H
#define PLUG_STEPD_PUBLISH_H

#include <pmix_server.h>

/* The server module's callbacks (stepd, progress thread). */
pmix_status_t plug_pub_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
			       pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_pub_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
			      size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_pub_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				 size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif
