/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pubsub.h - the PUBLISH, LOOKUP, UNPUBLISH request handlers (pubsub.c).
 */
#ifndef PXC_SRV_PUBSUB_H
#define PXC_SRV_PUBSUB_H

#include "internal.h"

/* Handlers (peer.c's table): 0, or -1 on a malformed request (the
 * connection is closed). Progress thread. */
int pxc_do_publish(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_lookup(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_unpublish(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
