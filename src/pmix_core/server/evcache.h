/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evcache.h - the server's cache of events for late registrants
 * (server/evcache.c; the contract is docs/events.md, "late registrants").
 * Progress thread.
 */
#ifndef PXC_SRV_EVCACHE_H
#define PXC_SRV_EVCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

typedef struct pxc_peer pxc_peer_t;

/* Bounds of the cache: bytes (0: no cache) and age in seconds (0: none). */
void pxc_evcache_config(size_t max_bytes, uint32_t max_age_s);
/* Keeps a copy of an event the server delivered: msg is its packed EVENT
 * payload, sent[0..nsent) the peers that got it or raised it, got whether
 * a client got it. */
void pxc_evcache_add(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
		     const pmix_info_t *info, size_t ninfo, const pmix_data_buffer_t *msg,
		     const uint64_t *sent, size_t nsent, bool got);
/* Sends p, for its handler hdlr (the EVENT's tag), every cached event of
 * codes[0..n) (n 0: every code) in range for p that p did not get and did
 * not raise. Returns how many. */
size_t pxc_evcache_replay(pxc_peer_t *p, const pmix_status_t *codes, size_t n, uint32_t hdlr);
/* Events the cache dropped for room before anyone on this node got them,
 * since the server started (each client is told of what it was not told
 * of yet: pxc_peer_t's ev_lost_seen, event.c). */
uint32_t pxc_evcache_dropped(void);
/* n more losses to report (pxc_server_events_lost). */
void pxc_evcache_lost(uint32_t n);
/* Empties the cache (server teardown). */
void pxc_evcache_clear(void);

#endif
