/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.h - the GROUP request handler and the groups of this server's
 * clients (group.c), and what coll.c asks of them.
 */
#ifndef PXC_SRV_GROUP_H
#define PXC_SRV_GROUP_H

#include "internal.h"
#include "coll.h"

/* Handler of GROUP (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

/* A member's group info from its construct directives (the entries of
 * PMIX_GROUP_INFO, and PMIX_GROUP_ENDPT_DATA): copies into *out. */
pmix_status_t pxc_grp_member_info(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
				  size_t *nout);
/* This node's part of a construct (group.c's top) appended to out. 0/-1. */
int pxc_grp_local_part(const pxc_coll_member_t *m, size_t n, pmix_data_buffer_t *out);

/* A group operation as coll.c holds it. */
typedef struct {
	uint8_t op; /* pmix_group_operation_t */
	const char *grp;
	const pmix_proc_t *procs;
	size_t nprocs;
	const pmix_info_t *info; /* the first local member's directives */
	size_t ninfo;
	const pxc_coll_member_t *members; /* the local members */
	size_t nmembers;
} pxc_grp_op_t;
/* The operation ended with st (res: the host's results; local: this
 * node's part): records the group, fills the store, answers every local
 * member. */
void pxc_grp_finish(const pxc_grp_op_t *o, pmix_status_t st, const pmix_info_t *res, size_t nres,
		    const char *local, size_t nlocal);
/* The info a server adds to the PMIX_GROUP_LEFT it raises (BOOL): only
 * those change another server's records; a client's own NOTIFY loses it
 * (server/event.c). */
#define PXC_GROUP_FROM_SERVER "slurmix.grp.server"
/* The host delivers PMIX_GROUP_LEFT from another node (server/event.c):
 * who is out of the group PMIX_GROUP_ID of info names. Progress thread. */
void pxc_grp_left(const pmix_proc_t *who, const pmix_info_t *info, size_t ninfo);
/* A local client ended (finalize or lost). */
void pxc_grp_client_gone(const pmix_proc_t *proc);
/* Calls fn for each group this server's clients are in (name, members),
 * until it returns false. Progress thread. */
typedef bool (*pxc_grp_visit_f)(const char *name, const pmix_proc_t *members, size_t n, void *arg);
void pxc_grp_foreach(pxc_grp_visit_f fn, void *arg);
/* Server finalize: forgets every group. */
void pxc_grp_free_all(void);

#endif
