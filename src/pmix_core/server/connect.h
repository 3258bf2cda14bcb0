/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * connect.h - connect/disconnect semantics on top of the collectives of
 * coll.c (connect.c): attribute checks, cluster-qualified namespaces,
 * the sets each local client is connected to, group context ids, the
 * connect events, and the host's reports of what other nodes' servers
 * raised. Progress thread only.
 */
#ifndef PXC_CONNECT_H
#define PXC_CONNECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>
#include "frame.h"

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_peer pxc_peer_t;

/* Request handlers for CONNECT / DISCONNECT (peer.c's table): check and
 * rewrite the request, then hand it to coll.c. */
int pxc_cnx_do_connect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_cnx_do_disconnect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

/* Checks the types of the connect attributes (PMIX_CONNECT_*, PMIX_TIMEOUT)
 * and rewrites "cluster:nspace" names of our own cluster to plain ones.
 * PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (a bad type, *why says which),
 * PMIX_ERR_NOT_SUPPORTED (another cluster). own: the caller's nspace. */
pmix_status_t pxc_cnx_check(const char *own, pmix_proc_t *procs, size_t n, const pmix_info_t *info,
			    size_t ninfo, const char **why);

/* Two joins belong to the same operation: same PMIX_CONNECT_ID (or none). */
bool pxc_cnx_same_op(const pmix_info_t *a, size_t na, const pmix_info_t *b, size_t nb);

/* A member joined a CONNECT collective (first: it created it): raises
 * PMIX_PROC_HAS_CONNECTED / PMIX_CONNECT_REQUESTED for the procs of the
 * set when the attributes ask for them (local ones directly, the others
 * through the host's notify_event). */
void pxc_cnx_joined(uint16_t cmd, const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
		    size_t ninfo, const pmix_proc_t *who, bool first);

/* A CONNECT collective over procs ended here (done, failed or timed
 * out): forgets that its CONNECT_REQUESTED was raised. */
void pxc_cnx_ended(uint16_t cmd, const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
		   size_t ninfo);

/* A named proc terminated before joining: may it be dropped from the
 * collective (PMIX_CONNECT_OPTIONAL for connect, EARLY_TERM for
 * disconnect) instead of failing it? */
bool pxc_cnx_may_drop(uint16_t cmd, const pmix_info_t *info, size_t ninfo);

/* After a successful CONNECT / DISCONNECT of member over procs. */
void pxc_cnx_connected(const pmix_proc_t *member, const pmix_proc_t *procs, size_t n,
		       const pmix_info_t *info, size_t ninfo);
void pxc_cnx_disconnected(const pmix_proc_t *member, const pmix_proc_t *procs, size_t n);

/* Packs the INFO[] results of a successful connect for member: a group
 * context id (one per collective coll_id) and the member's rank in the
 * group, unless PMIX_CONNECT_XCHG_ONLY. */
pmix_status_t pxc_cnx_pack_results(uint64_t coll_id, const pmix_proc_t *procs, size_t n,
				   const pmix_info_t *info, size_t ninfo, const pmix_proc_t *member,
				   pmix_data_buffer_t *body);

/* A local client ended (finalized or lost) while connected: the other
 * procs of its sets get PMIX_ERR_INVALID_TERMINATION (unless
 * PMIX_CONNECT_EARLY_TERM_ALLOWED); its records are dropped. */
void pxc_cnx_client_gone(const pmix_proc_t *proc);
/* Raises code (source and PMIX_EVENT_AFFECTED_PROC: src) for procs, range
 * CUSTOM: the local clients among them that registered code itself get it
 * at once (src excepted), the host's notify_event carries it to the
 * others (with info's PMIX_CONNECT_ID and PMIX_TIMEOUT). */
void pxc_cnx_notify_set(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
			size_t n, const pmix_info_t *info, size_t ninfo);
/* Server finalize. */
void pxc_cnx_free_all(void);

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
