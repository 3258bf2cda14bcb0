/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.h - the REGEVENTS and NOTIFY request handlers (server/event.c).
 * pxc_server_notify, for code outside server/, is in server.h.
 */
#ifndef PXC_SRV_EVENT_H
#define PXC_SRV_EVENT_H

#include "internal.h"

/* Handlers (peer.c's table): 0, or -1 on a malformed request (the
 * connection is closed). Progress thread. */
int pxc_do_regevents(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_notify(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
