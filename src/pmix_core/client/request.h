/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.h - the request shapes the client's feature files share
 * (request.c), on top of the request engine of conn.h.
 */
#ifndef PXC_CLIENT_REQUEST_H
#define PXC_CLIENT_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

/* INFO[] results of a request, handed to a pmix_info_cbfunc_t together
 * with pxc_request_results_free. */
typedef struct {
	pmix_info_t *info;
	size_t n;
} pxc_results_t;

/* The readiness check of the calls a server process cannot make:
 * PMIX_ERR_NOT_SUPPORTED in a server process, else pxc_client_ready().
 * Any thread. */
pmix_status_t pxc_request_ready(void);

/* PMIX_TIMEOUT (seconds) in info converted to ms, 0 when absent. */
int pxc_request_timeout_ms(const pmix_info_t *info, size_t ninfo);
/* Packs PROC[] procs then INFO[] info into b. PMIX_ERR_BAD_PARAM when an
 * array is NULL with a count, else the pack status. */
pmix_status_t pxc_request_pack_procs_infos(pmix_data_buffer_t *b, const pmix_proc_t *procs,
					   size_t nprocs, const pmix_info_t *info, size_t ninfo);
/* The payload of a collective (fence, connect, disconnect): checks role,
 * arguments, a required collective algorithm (PMIX_ERR_NOT_SUPPORTED: we
 * honour none) and connection (in that order), then initialises b with
 * procs and info. On an error b is left empty. Any thread. */
pmix_status_t pxc_request_coll_prepare(const pmix_proc_t *procs, size_t nprocs,
				       const pmix_info_t *info, size_t ninfo,
				       pmix_data_buffer_t *b);

/* An operation whose reply carries only a status (merge false) or a
 * status and a BLOB to merge into the client store (merge true),
 * reported through cb (may be NULL) in the progress thread. b's bytes are
 * taken. PMIX_SUCCESS when cb will run. Any thread. */
pmix_status_t pxc_request_op_nb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms, bool merge,
				pmix_op_cbfunc_t cb, void *cbdata);
/* Reports st to cb (may be NULL) from the progress thread, without a
 * server. PMIX_SUCCESS when cb will run (or is NULL). Any thread. */
pmix_status_t pxc_request_op_later(pmix_status_t st, pmix_op_cbfunc_t cb, void *cbdata);
/* Reply parser (pxc_parse_f) that merges a BLOB into the client store. */
pmix_status_t pxc_request_parse_merge(pmix_data_buffer_t *reply, void *arg);

/* Frees a malloc'ed pxc_results_t and its infos; NULL-tolerant (the
 * release function handed to a pmix_info_cbfunc_t). Any thread. */
void pxc_request_results_free(void *cbdata);
/* Sends a request whose reply is STATUS, INFO[] results; cb (may be NULL)
 * gets the results in the progress thread, and with them
 * pxc_request_results_free to release them. b's bytes are taken.
 * PMIX_SUCCESS when cb will run. Any thread. */
pmix_status_t pxc_request_results_nb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				     pmix_info_cbfunc_t cb, void *cbdata);
/* The blocking form: *results (when results is not NULL) receives a
 * malloc'ed array of *nresults infos the caller frees with
 * pxc_array_free(..., PMIX_INFO). Any thread but the progress thread. */
pmix_status_t pxc_request_results_call(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				       pmix_info_t **results, size_t *nresults);

#endif
