/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc.h - the ALLOC request handler (alloc.c).
 */
#ifndef PXC_SRV_ALLOC_H
#define PXC_SRV_ALLOC_H

#include "internal.h"

/* Handler of ALLOC (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_alloc(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
