/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.h - the IOF_PULL request handler (iof.c).
 */
#ifndef PXC_SRV_IOF_H
#define PXC_SRV_IOF_H

#include "internal.h"

/* Handler of IOF_PULL (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_iof_pull(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
