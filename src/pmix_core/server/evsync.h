/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evsync.h - synchronous events (evsync.c): the host raises an event and
 * learns when every local recipient's handler chain has ended.
 */
#ifndef PXC_SRV_EVSYNC_H
#define PXC_SRV_EVSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>
#include "frame.h"

typedef struct pxc_peer pxc_peer_t;

/* The outcome of a synchronous event: st (evsync.c's comment:
 * PMIX_SUCCESS, PMIX_ERR_NOT_FOUND for no disposition, PMIX_ERR_TIMEOUT,
 * PMIX_ERR_PARTIAL_SUCCESS), how many recipients had a handler for it,
 * and the procs that did not answer (borrowed for the call). */
typedef void (*pxc_sync_event_cbfunc_t)(pmix_status_t st, size_t nhandled,
					const pmix_proc_t *unanswered, size_t nunanswered,
					void *cbdata);

/* Raises code from source (NULL: the server) with range and info at the
 * local clients in range that registered for it, and calls cbfunc in the
 * progress thread once each has answered or left, or after timeout_ms
 * (> 0; never an endless wait). The event names its source node like any
 * (pxc_event_stamp). PMIX_SUCCESS when cbfunc will run; PMIX_ERR_BAD_PARAM
 * (no cbfunc, timeout_ms <= 0), PMIX_ERR_INIT, PMIX_ERR_NOMEM (it will
 * not). Any thread. */
pmix_status_t pxc_server_notify_sync(pmix_status_t code, const pmix_proc_t *source,
				     pmix_data_range_t range, const pmix_info_t info[],
				     size_t ninfo, int timeout_ms, pxc_sync_event_cbfunc_t cbfunc,
				     void *cbdata);

/* EVENT_DONE from a client (peer.c's table): 0, or -1 when malformed. */
int pxc_do_event_done(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* A peer is gone: it answers nothing more (its proc stays unanswered). */
void pxc_evsync_peer_gone(uint64_t peer_id);
/* Teardown: every open one ends with PMIX_ERR_INIT. */
void pxc_evsync_clear(void);

#endif
