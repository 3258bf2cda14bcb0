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

/* qsort order of procs: namespace (strncmp), then rank; 0 for the same
 * proc. */
int pxc_proc_cmp(const void *a, const void *b);

/* One local participant of a collective (coll.c; group.c reads them). */
typedef struct {
	uint64_t peer_id;
	uint32_t tag;
	pmix_proc_t proc;
	uint32_t upto;      /* FENCE: commits its data covers */
	pmix_info_t *ginfo; /* GROUP construct: its PMIX_GROUP_INFO (a copy) */
	size_t nginfo;
} pxc_coll_member_t;

/* GROUP (group.c, once checked): p joins operation op (pmix_group_operation_t)
 * of group grp over procs, the same collective as every other member's
 * call with the same op and grp. Takes procs and info; replies itself on
 * errors. */
void pxc_coll_join_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, uint8_t op, const char *grp,
			 pmix_proc_t *procs, size_t n, pmix_info_t *info, size_t ninfo);
/* A local proc is gone (lost connection or deregistered): fail every
 * collective that still waits for it. */
void pxc_coll_proc_gone(const pmix_proc_t *proc);
/* A local proc finalized: the collectives that may drop it (an optional
 * connect or group operation, any destruct) no longer wait for it. */
void pxc_coll_proc_finalized(const pmix_proc_t *proc);
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
/* A GROUP construct: the server hands the host's group upcall its node's
 * part (PMIX_BYTE_OBJECT, opaque to the host) under this info key; a host
 * that runs the construct between nodes answers with results holding
 * PXC_GROUP_DATA = the concatenation of every node's part (in any order)
 * and, when PMIX_GROUP_ASSIGN_CONTEXT_ID was asked, PMIX_GROUP_CONTEXT_ID
 * (SIZE), the same on every node. Without PXC_GROUP_DATA in the results
 * the members learn of the local part only. */
#define PXC_GROUP_DATA "slurmix.grp.data"
/* Merges a store blob of posted records into the server's store (a trusted
 * host's data). Progress thread. PMIX_SUCCESS or the unpack error. */
pmix_status_t pxc_server_host_data(const char *data, size_t ndata);

#endif
