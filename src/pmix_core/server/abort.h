/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abort.h - the ABORT request handler (abort.c).
 */
#ifndef PXC_SRV_ABORT_H
#define PXC_SRV_ABORT_H

#include "internal.h"

/* Handler of ABORT (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_abort(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
