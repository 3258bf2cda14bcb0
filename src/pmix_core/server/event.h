/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.h - the REGEVENTS and NOTIFY request handlers (server/event.c),
 * and pxc_server_notify: PMIx_Notify_event inside a server process.
 */
#ifndef PXC_SRV_EVENT_H
#define PXC_SRV_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>
#include "frame.h"

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_peer pxc_peer_t;

/* Handlers (peer.c's table): 0, or -1 on a malformed request (the
 * connection is closed). Progress thread. */
int pxc_do_regevents(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
int pxc_do_notify(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

/* Whether client p is among the recipients of an event from src with
 * range (info: the event's, for a CUSTOM range). Progress thread. */
/* An EVENT payload msg (as delivered and cached) again, with
 * SLURMIX_EVENT_CACHE_DROPPED = dropped added to its infos, into out
 * (initialized here). 0, or -1 (out empty). */
int pxc_event_with_dropped(const pmix_data_buffer_t *msg, uint32_t dropped,
			   pmix_data_buffer_t *out);
bool pxc_event_in_range(const pxc_peer_t *p, const pmix_proc_t *src, pmix_data_range_t range,
			const pmix_info_t *info, size_t ninfo);
/* Whether peer p gets such an event: connected (HELLO done, not
 * finalized), registered for code (or for every event), in range.
 * Progress thread. */
bool pxc_event_recipient(const pxc_peer_t *p, pmix_status_t code, const pmix_proc_t *src,
			 pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);

/* Adds the source node's PMIX_HOSTNAME, PMIX_NODEID and
 * PMIX_EVENT_TIMESTAMP to an event's infos unless it has a timestamp
 * already (it came from another node): *info (freed with pxc_array_free)
 * is replaced by a new array; on ENOMEM it stays. Any thread. */
void pxc_event_stamp(pmix_info_t **info, size_t *ninfo);

/* Server init infos (PMIx_server_init) bounding the cache of events for
 * late registrants (evcache.c): bytes (UINT32, 0: no cache; default 1 MiB)
 * and age in seconds (UINT32, 0: unbounded; default 60). */
#define PXC_SERVER_EVCACHE_BYTES "slurmix.srv.evcache.bytes"
#define PXC_SERVER_EVCACHE_AGE "slurmix.srv.evcache.age"
/* Server init info: the bound of the event traffic (evqueue.c), bytes
 * (UINT32, 0: none; default 256 KiB). */
#define PXC_SERVER_EVENT_QUEUE_BYTES "slurmix.srv.evqueue.bytes"

/* Delivers an event raised by the host process (PMIx_Notify_event) to the
 * local clients in range that registered for code, and to the process's
 * own handlers (pxc_event_local_deliver, common/event.h). Never sent back
 * to the host. cbfunc (may be NULL) runs in the progress thread once the
 * event is queued to every recipient. Returns PMIX_SUCCESS when cbfunc will run, or
 * an error (cbfunc not called; PMIX_ERR_INIT when no server is running).
 * Any thread. */
pmix_status_t pxc_server_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Raises an event for local client src (a monitor's alert, server/
 * monitor.c) as if src had notified it without waiting for an answer:
 * delivered to the local clients in range that registered for code, src
 * included, and to the process's own handlers, then handed to the host's
 * notify_event when range goes beyond the node. Copies info. It waits its
 * turn in the event queue (evqueue.c); freed(key), when not NULL, runs
 * once it left the queue (handed on, or dropped), so the caller can keep
 * one at a time. false (nothing raised, freed not called) on ENOMEM.
 * Progress thread. */
bool pxc_event_raise(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
		     const pmix_info_t *info, size_t ninfo, void (*freed)(uint64_t key),
		     uint64_t key);

/* The host learnt that n events meant for clients of this node were lost
 * before they reached it (kept elsewhere for late registrants, and dropped
 * there for room or age): they count as the event cache's losses,
 * reported (SLURMIX_EVENT_CACHE_DROPPED) on the next event a client here
 * gets. The host logs them. Progress thread. */
void pxc_server_events_lost(uint32_t n);

#endif
