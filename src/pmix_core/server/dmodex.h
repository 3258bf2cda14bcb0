/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dmodex.h - posted data (dmodex.c; PMIx_server_dmodex_request is in
 * pmix_server.h): the COMMIT and GET request handlers, the requests
 * parked until a commit, and the host's dmodex request with a timeout of
 * its own. Progress thread only unless a function says otherwise.
 */
#ifndef PXC_SERVER_DMODEX_H
#define PXC_SERVER_DMODEX_H

#include <pmix_common.h>
#include <pmix_server.h>
#include "frame.h"

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_peer pxc_peer_t;

/* Request handlers of COMMIT and GET (peer.c's table): 0, or -1 on a
 * malformed request (the connection is closed). */
int pxc_do_commit(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_get(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* Answers parked requests about proc (after a commit or its loss). */
void pxc_parked_wake(const pmix_proc_t *proc);
/* Server finalize: answers every parked request with status. */
void pxc_parked_fail_all(pmix_status_t status);

/* PMIx_server_dmodex_request with the requester's own timeout (seconds,
 * e.g. the PMIX_TIMEOUT of the Get that caused it; <= 0: the server's
 * default): how long to wait for proc to commit before answering
 * PMIX_ERR_TIMEOUT. Any thread; cbfunc runs in the progress thread. */
pmix_status_t pxc_server_dmodex_request_tmo(const pmix_proc_t *proc, int timeout,
					    pmix_dmodex_response_fn_t cbfunc, void *cbdata);

#endif
