/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.h - QUERY (query.c): the request handler, and PMIx_Query_info
 * inside a server process.
 */
#ifndef PXC_SERVER_QUERY_H
#define PXC_SERVER_QUERY_H

#include <stddef.h>
#include <pmix_common.h>
#include "frame.h"

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_peer pxc_peer_t;

/* Handler of QUERY (peer.c's table): 0, or -1 on a malformed request (the
 * connection is closed). Progress thread. */
int pxc_do_query(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

/* PMIx_Query_info inside a server process: answers from what the server
 * knows (the same keys as a client's QUERY, without the host's query).
 * On success (PMIX_SUCCESS or PMIX_QUERY_PARTIAL_SUCCESS) *results is a
 * malloc'ed array of *nresults infos the caller frees with PMIX_INFO_FREE.
 * Any thread but the progress thread; PMIX_ERR_INIT when no server is
 * running. */
pmix_status_t pxc_server_query(pmix_query_t queries[], size_t nqueries, pmix_info_t **results,
			       size_t *nresults);

#endif
