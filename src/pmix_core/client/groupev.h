/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * groupev.h - what the client's finalize needs of groupev.c (invitations
 * and joins).
 */
#ifndef PXC_CLIENT_GROUPEV_H
#define PXC_CLIENT_GROUPEV_H

#include <stddef.h>
#include <pmix_common.h>

/* The last finalize: pending invitations and joins fail with
 * PMIX_ERR_INIT, the library's group handler is forgotten. Not from the
 * progress thread. */
void pxc_groupev_stop(void);
/* An EVENT from the server (progress thread): the invitation answers and
 * membership updates the pending invites and joins wait for. */
void pxc_groupev_event(pmix_status_t code, const pmix_proc_t *src, const pmix_info_t *info,
		       size_t ninfo);

#endif
