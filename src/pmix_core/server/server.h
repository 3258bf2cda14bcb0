/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.h - what the rest of the core may ask of the PMIx server when the
 * process is a server (pxc_role == PXC_ROLE_SERVER): PMIx_Notify_event,
 * PMIx_Get and PMIx_Query_info called inside the host's own process.
 *
 * All functions may be called from any thread except the progress thread
 * where they say so; they return PMIX_ERR_INIT when no server is running.
 */
#ifndef PXC_SERVER_H
#define PXC_SERVER_H

#include <stdbool.h>
#include <pmix_common.h>
#include <pmix_server.h>

/* Delivers an event raised by the host process (PMIx_Notify_event) to the
 * local clients in range that registered for code, and to the process's
 * own handlers (pxc_event_local_deliver, common/event.h). Never sent back
 * to the host. cbfunc (may be NULL) runs in the progress thread once the
 * event is queued to every recipient. Returns PMIX_SUCCESS when cbfunc will run, or
 * an error (cbfunc not called). Any thread. */
pmix_status_t pxc_server_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata);

/* PMIx_Get inside a server process: looks key up in the server's store
 * (registered info with rank WILDCARD or the proc's rank, then data posted
 * by the proc), without waiting. key NULL is not supported here. On success
 * *val is a malloc'ed copy the caller frees with PMIX_VALUE_RELEASE.
 * PMIX_ERR_NOT_FOUND when absent. Any thread but the progress thread
 * (PMIX_ERR_WOULD_BLOCK there). */
pmix_status_t pxc_server_get_local(const pmix_proc_t *proc, const char *key,
				   const pmix_info_t *info, size_t ninfo, pmix_value_t **val);

/* PMIx_Query_info inside a server process: answers from what the server
 * knows (the same keys as a client's QUERY, without the host's query).
 * On success (PMIX_SUCCESS or PMIX_QUERY_PARTIAL_SUCCESS) *results is a
 * malloc'ed array of *nresults infos the caller frees with PMIX_INFO_FREE.
 * Any thread but the progress thread. */
pmix_status_t pxc_server_query(pmix_query_t queries[], size_t nqueries, pmix_info_t **results,
			       size_t *nresults);

/* True when proc is a local client of this server whose connection ended
 * without PMIx_Finalize: lets a host tell, inside its client_finalized
 * upcall (which the server also makes for such a client), a task that
 * died from one that finalized. Progress thread only (where the server
 * calls the host's module). */
bool pxc_server_client_lost(const pmix_proc_t *proc);

/* Our hosts (the Slurm plugin) and our server, for a CONNECT over several
 * namespaces: the server hands the host's connect upcall the local
 * participants' posted PMIX_REMOTE/PMIX_GLOBAL records as a store blob
 * (PMIX_BYTE_OBJECT) under this info key; a host that gathers the blobs
 * of every node (like a collecting fence) gives the concatenation to
 * pxc_server_host_data before it calls the connect's callback, so the
 * server's reply gives every member the others' data and no direct modex
 * across namespaces follows. Other hosts ignore the key. */
#define PXC_CONNECT_DATA "slurmix.cnct.data"
/* Merges a store blob of posted records into the server's store (a trusted
 * host's data). Progress thread. PMIX_SUCCESS or the unpack error. */
pmix_status_t pxc_server_host_data(const char *data, size_t ndata);

/* PMIx_server_dmodex_request with the requester's own timeout (seconds,
 * e.g. the PMIX_TIMEOUT of the Get that caused it; <= 0: the server's
 * default): how long to wait for proc to commit before answering
 * PMIX_ERR_TIMEOUT. Any thread; cbfunc runs in the progress thread. */
pmix_status_t pxc_server_dmodex_request_tmo(const pmix_proc_t *proc, int timeout,
					    pmix_dmodex_response_fn_t cbfunc, void *cbdata);

/* A host's report that src, connected to procs, ended without
 * disconnecting (another node's server raised it, connect.c): delivers
 * PMIX_ERR_INVALID_TERMINATION to the local clients among procs that
 * registered that code explicitly. Progress thread only. */
void pxc_server_invalid_termination(const pmix_proc_t *src, const pmix_proc_t *procs,
				    size_t nprocs);

/* A host's report of a connect event from another server (connect.c
 * raised it there and handed it to the host's notify_event):
 * PMIX_PROC_HAS_CONNECTED or PMIX_CONNECT_REQUESTED (source: the joiner
 * or asker) for the local clients among procs that registered for it;
 * info: the PMIX_CONNECT_ID and PMIX_TIMEOUT that came with it. A
 * CONNECT_REQUESTED is raised once per connect of a set (the first to
 * arrive, local or remote). Other codes are ignored. Progress thread
 * only. */
void pxc_server_connect_event(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
			      size_t nprocs, const pmix_info_t *info, size_t ninfo);

#endif
