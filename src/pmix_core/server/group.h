/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.h - the GROUP request handler (group.c).
 */
#ifndef PXC_SRV_GROUP_H
#define PXC_SRV_GROUP_H

#include "internal.h"

/* Handler of GROUP (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
