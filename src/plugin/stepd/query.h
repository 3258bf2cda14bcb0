/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/query.h - the server module's query (docs/query.md): what the
 * core does not answer itself, answered on this node or asked of the
 * step's srun (srun/query.h), with a per-node cache in front.
 *
 * Threads: the stepd's progress thread; plug_query_stepd_stop after the
 * server and the agent client stopped.
 */
#ifndef PLUG_STEPD_QUERY_H
#define PLUG_STEPD_QUERY_H

#include <pmix_server.h>

pmix_status_t plug_query_host(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
			      pmix_info_cbfunc_t cbfunc, void *cbdata);
/* Forgets the cached answers. */
void plug_query_stepd_stop(void);

#endif
