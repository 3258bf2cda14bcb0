/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monitor.h - MONITOR: heartbeat and file monitors run by the server
 * itself (monitor.c; docs/monitor.md). Progress thread.
 */
#ifndef PXC_SERVER_MONITOR_H
#define PXC_SERVER_MONITOR_H

#include <stdint.h>
#include "internal.h"

/* Server init info (UINT32 > 0, default 1000): how many milliseconds a
 * second of PMIX_MONITOR_HEARTBEAT_TIME / PMIX_MONITOR_FILE_CHECK_TIME
 * lasts. For the unit tests, which run monitors faster. */
#define PXC_SERVER_MONITOR_UNIT_MS "slurmix.srv.monitor.unit"

/* How many monitors one client may have at a time. */
#define PXC_MONITOR_MAX_PER_CLIENT 64

/* Handler of MONITOR (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). */
int pxc_do_monitor(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* Stops and frees every monitor of the peer with id peer_id (its
 * FINALIZE, or its connection's end): none fires afterwards. */
void pxc_monitor_peer_gone(uint64_t peer_id);
/* The length of a monitor second, from the server's init (0: 1000 ms). */
void pxc_monitor_config(uint32_t unit_ms);
/* How many monitors run (for the tests). */
size_t pxc_monitor_count(void);
/* Teardown: every monitor stopped and freed. */
void pxc_monitor_clear(void);

#endif
