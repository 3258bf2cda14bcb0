/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.h - the client's connection to its server and the request engine
 * (conn.c), shared by the client and the tool.
 *
 * pxc_client_send() queues a request to the progress thread, which tags
 * it, sends it and later completes it through its reply callback, exactly
 * once: with the server's reply, with PMIX_ERR_TIMEOUT when its own timer
 * fires, or with PMIX_ERR_LOST_CONNECTION_TO_SERVER when the connection
 * ends. pxc_client_call() is the blocking form; it refuses to run in the
 * progress thread (PMIX_ERR_WOULD_BLOCK) rather than deadlock. The request
 * shapes the feature files share are in request.h; the process state the
 * engine works on (pxc_cl) and the callback types are in client.h.
 */
#ifndef PXC_CLIENT_CONN_H
#define PXC_CLIENT_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

#include "client.h"

/* PMIX_SUCCESS when the client/tool is initialised and connected;
 * PMIX_ERR_INIT before init, PMIX_ERR_UNREACH after the server was lost
 * or when running without a server. Any thread. */
pmix_status_t pxc_client_ready(void);
/* True between init and finalize (connected or not). */
bool pxc_client_initialized(void);

/* Queues a request (see the file comment). payload's bytes are taken
 * (payload is left empty). cb NULL: fire and forget (tag 0, no reply).
 * timeout_ms > 0 arms a timer in the progress thread. Returns
 * PMIX_SUCCESS (cb will run) or an error (cb will not run). Any thread. */
pmix_status_t pxc_client_send(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms,
			      pxc_reply_f cb, void *arg);
/* Sends and waits for the reply; parse (may be NULL) reads a successful
 * reply into arg. Any thread but the progress thread. */
pmix_status_t pxc_client_call(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms,
			      pxc_parse_f parse, void *arg);

/* Connects to uri ("unix:<path>"), says HELLO as kind with the given
 * identity and info, merges the returned job blob, attaches the socket
 * to the progress thread. Fills pxc_cl.me/server. Caller holds pxc_cl.lock,
 * has started pxc_cl.pg and created the store. */
pmix_status_t pxc_client_connect(const char *uri, uint8_t kind, const pmix_proc_t *claim,
				 const pmix_info_t *info, size_t ninfo);
/* Common set-up/tear-down of the process state for client and tool:
 * start the progress engine and the stores / drop the connection, fail
 * pending requests, stop the engine, free the stores. Caller holds lock. */
pmix_status_t pxc_client_setup(void);
void pxc_client_teardown(void);
/* Drops the connection (tools): pending requests fail, state becomes
 * PXC_CONN_ALONE. Any thread but the progress thread. */
void pxc_client_disconnect(void);

/* Reads a BLOB (byte object holding a store blob) from reply and merges
 * it into the client store. Progress thread (or any thread: takes the
 * write lock). */
pmix_status_t pxc_client_merge_blob(pmix_data_buffer_t *reply);

#endif
