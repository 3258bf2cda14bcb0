/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.h - the SPAWN request handler (spawn.c).
 */
#ifndef PXC_SRV_SPAWN_H
#define PXC_SRV_SPAWN_H

#include "internal.h"

/* Handler of SPAWN (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). Progress thread. */
int pxc_do_spawn(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
