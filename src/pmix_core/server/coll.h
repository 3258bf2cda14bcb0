/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.h - local aggregation of the collectives FENCE, CONNECT and
 * DISCONNECT (coll.c): the request handlers, what the rest of the server
 * tells it, and the connect data a host hands back. Progress thread only.
 */
#ifndef PXC_SERVER_COLL_H
#define PXC_SERVER_COLL_H

#include <stddef.h>
#include <pmix_common.h>
#include "frame.h"

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_peer pxc_peer_t;

/* Request handlers of FENCE, and of CONNECT / DISCONNECT once connect.c
 * checked them: 0, or -1 on a malformed request (the connection is
 * closed). */
int pxc_do_fence(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_connect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_disconnect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* A local proc is gone (lost connection or deregistered): fail every
 * collective that still waits for it. */
void pxc_coll_proc_gone(const pmix_proc_t *proc);
/* Server finalize: fails every collective with status. */
void pxc_coll_fail_all(pmix_status_t status);

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

#endif
