/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/alloc.h - the server module's allocate (docs/alloc.md): a
 * client's PMIx_Allocation_request checked here (lib/alloc_req.h: an
 * EXTEND is refused at once), then made by the step's srun
 * (srun/alloc.h), which holds the user's credentials for slurmctld; for a
 * new allocation, its grant (or failure) delivered to the requester as an
 * event.
 *
 * Threads: the stepd's progress thread (the module call and the agent
 * client's callbacks); what is under way ends with the agent client's
 * stop (PMIX_ERR_UNREACH), before the server finalizes.
 */
#ifndef PLUG_STEPD_ALLOC_H
#define PLUG_STEPD_ALLOC_H

#include <pmix_server.h>

pmix_status_t plug_alloc_host(const pmix_proc_t *client, pmix_alloc_directive_t directive,
			      const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
			      void *cbdata);

#endif
