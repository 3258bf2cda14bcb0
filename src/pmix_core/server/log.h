/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.h - the LOG request handler (log.c).
 */
#ifndef PXC_SRV_LOG_H
#define PXC_SRV_LOG_H

#include "internal.h"

/* Handler of LOG (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_log(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
