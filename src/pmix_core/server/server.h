/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.h - the small helpers of server.c that every file of server/ uses:
 * posting work to the progress thread, blocking waits, the API operations
 * that complete through a callback, ids, timeouts, buffers and timers.
 * (PMIx_server_init / finalize, server.c's API, are in pmix_server.h.)
 *
 * pxc_srv_post is the only way from a host thread into server state
 * (internal.h); the other functions say which thread may call them.
 * What a host may use beyond pmix_server.h is gathered by pxc_host.h.
 */
#ifndef PXC_SERVER_H
#define PXC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_server.h>
#include "progress.h"

struct event;

/* Runs fn(arg) in the progress thread: directly when already there, else
 * posted. 0, or -1 with errno (ESHUTDOWN when the server is not running;
 * the caller still owns arg then). Any thread. */
int pxc_srv_post(pxc_work_f fn, void *arg);
/* Like pxc_srv_post and waits (bounded) for fn to signal s. Returns the
 * signalled status. Any thread. */
pmix_status_t pxc_srv_call_wait(pxc_work_f fn, void *arg, pxc_sync_t *s);
/* Common head of the API operations that complete through a pmix_op_cbfunc_t:
 * with a cbfunc the call returns PMIX_SUCCESS at once and cbfunc runs later
 * in the progress thread; without one the call blocks until done and
 * returns the status. */
typedef struct {
	pxc_sync_t sync;
	bool blocking;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	void (*free_fn)(void *op); /* frees the op (async case) */
} pxc_apiop_t;
/* Runs fn(op) in the progress thread as described above. On an error
 * return the caller still owns op. Any thread. */
pmix_status_t pxc_apiop_run(pxc_apiop_t *op, pxc_work_f fn);
/* Completes op from fn: signals the blocked caller, or calls cbfunc and
 * frees op. Progress thread. */
void pxc_apiop_done(pxc_apiop_t *op, pmix_status_t status);
/* A fresh id (never 0). Progress thread. */
uint64_t pxc_srv_new_id(void);
/* Seconds from PMIX_TIMEOUT in info (> 0), else the default. */
int pxc_srv_timeout(const pmix_info_t *info, size_t ninfo);
/* The value of an integer of any integral type, -1 when v holds none. */
long pxc_srv_value_long(const pmix_value_t *v);
/* Initialises buf empty with room for cap bytes (no regrowth up to
 * there). 0, or -1/ENOMEM (buf is then empty and valid). */
int pxc_srv_buf_reserve(pmix_data_buffer_t *buf, size_t cap);
/* Arms a one-shot timer of sec seconds calling fn(arg); NULL on failure. */
struct event *pxc_srv_timer(int sec, void (*fn)(int, short, void *), void *arg);
void pxc_srv_timer_free(struct event *ev);

#endif
