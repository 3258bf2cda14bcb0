/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cred.h - the GET_CRED and VALIDATE_CRED request handlers (cred.c).
 */
#ifndef PXC_SRV_CRED_H
#define PXC_SRV_CRED_H

#include "internal.h"

/* Handlers of GET_CRED and VALIDATE_CRED (peer.c's table): 0, or -1 on a
 * malformed request (the connection is closed). Progress thread. */
int pxc_do_get_cred(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_validate_cred(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
