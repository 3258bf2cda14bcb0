/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * groupev.h - what the client's finalize needs of groupev.c (invitations
 * and joins).
 */
#ifndef PXC_CLIENT_GROUPEV_H
#define PXC_CLIENT_GROUPEV_H

/* The last finalize: pending invitations and joins fail with
 * PMIX_ERR_INIT, the library's group handler is forgotten. Not from the
 * progress thread. */
void pxc_groupev_stop(void);

#endif
