/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * direct.h - blocking calls and fire-and-forget requests made in the
 * caller's thread, with the reply channel (direct.c); conn.c's request
 * engine uses them and falls back to the progress thread when they
 * decline.
 */
#ifndef PXC_CLIENT_DIRECT_H
#define PXC_CLIENT_DIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

#include "client.h"

/* Direct requests and the reply channel (direct.c). attach/detach: the
 * progress thread, when the connection comes and before it is freed.
 * set/close_channel: the connecting / tearing-down caller. send: any
 * thread; 0, or -1 with errno EAGAIN (use the progress thread) or another
 * (the connection broke). call: true when the blocking call was made
 * there, its status in *result; false: make it the plain way. */
void pxc_direct_attach(pxc_conn_t *c);
void pxc_direct_detach(void);
void pxc_direct_set_channel(int fd);
void pxc_direct_close_channel(void);
/* The progress thread handled an EVENT (or lost the connection): wakes
 * a caller waiting for an event mark. */
void pxc_direct_event_seen(void);
/* Waits until mark events were handled, the connection is lost, or the
 * deadline (pxc_now_ms; -1: 10 s) passed; returns at once in a handler. */
void pxc_direct_wait_events(uint32_t mark, long deadline);
int pxc_direct_send(uint16_t cmd, uint32_t tag, const pmix_data_buffer_t *b);
bool pxc_direct_call(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms, pxc_parse_f parse,
		     void *arg, pmix_status_t *result);

#endif
