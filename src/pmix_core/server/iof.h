/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.h - IO forwarding on the server's side (iof.c).
 */
#ifndef PXC_SRV_IOF_H
#define PXC_SRV_IOF_H

#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>
#include "frame.h"

typedef struct pxc_peer pxc_peer_t;

/* Server init info: bytes of history per (process, channel) (UINT32,
 * default 64 KiB; docs/iof.md). */
#define PXC_SERVER_IOF_HISTORY "slurmix.srv.iof.history"

/* Handlers of IOF_PULL and IOF_DEREG (peer.c's table): 0, or -1 on a
 * malformed request (the connection is closed). Progress thread. */
int pxc_do_iof_pull(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_iof_dereg(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* Server init: history bytes per (process, channel) (PXC_SERVER_IOF_HISTORY);
 * finalize: everything forgotten. */
void pxc_iof_config(size_t history);
void pxc_iof_clear(void);
/* A client went: its subscriptions are dropped, nothing sent. */
void pxc_iof_peer_gone(uint64_t peer_id);

#endif
