/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.h - IO forwarding on the server's side (iof.c).
 */
#ifndef PXC_SRV_IOF_H
#define PXC_SRV_IOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>
#include "frame.h"
#include "iof/iof.h"

typedef struct pxc_peer pxc_peer_t;

/* Server init info: bytes of history per (process, channel) (UINT32,
 * default 64 KiB; docs/iof.md). */
#define PXC_SERVER_IOF_HISTORY "slurmix.srv.iof.history"
/* Server init info: bytes that may wait per (subscription, stream) for
 * a reader that gave no PMIX_IOF_CACHE_SIZE (UINT32, default 4 MiB):
 * beyond them its oldest bytes are dropped. */
#define PXC_SERVER_IOF_QUEUE "slurmix.srv.iof.queue"

/* Handlers of IOF_PULL and IOF_DEREG (peer.c's table): 0, or -1 on a
 * malformed request (the connection is closed). Progress thread. */
int pxc_do_iof_pull(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_iof_dereg(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* IOF_PUSH: to the host's push_stdin (PMIX_ERR_NOT_SUPPORTED without
 * one), answered with its status. */
int pxc_do_iof_push(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* Server init: history bytes per (process, channel) (PXC_SERVER_IOF_HISTORY)
 * and the queue bound (PXC_SERVER_IOF_QUEUE); finalize: everything
 * forgotten. */
void pxc_iof_config(size_t history, size_t queue);
void pxc_iof_clear(void);
/* A client went: its subscriptions are dropped, nothing sent. */
void pxc_iof_peer_gone(uint64_t peer_id);

/* ---- for the host (pxc_host.h), progress thread ----
 * What another node's process wrote (the host relays it): into the
 * engine as if delivered here, then `lost` bytes that did not come
 * (sx_iof_skip); complete ends the stream. PMIX_SUCCESS,
 * PMIX_ERR_BAD_PARAM (channel, ended stream), PMIX_ERR_INIT, _NOMEM. */
pmix_status_t pxc_server_iof_input(const pmix_proc_t *src, pmix_iof_channel_t channel,
				   const void *data, size_t n, uint64_t lost, bool complete);
/* A subscription of the host's own to channels of procs[0..nprocs): all
 * the history their streams hold goes to sink before this returns, then
 * every new chunk (iof/iof.h's sink: false holds it until
 * pxc_server_iof_relay_resume). *id: its id. PMIX_SUCCESS, _BAD_PARAM,
 * _INIT, _NOMEM. */
pmix_status_t pxc_server_iof_relay(const pmix_proc_t *procs, size_t nprocs,
				   pmix_iof_channel_t channels, sx_iof_sink_f sink, void *arg,
				   uint32_t *id);
void pxc_server_iof_relay_resume(uint32_t id);
/* Forgets it; its sink is not called again. */
void pxc_server_iof_relay_stop(uint32_t id);

#endif
