/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.h - internals shared by the files of the client and tool module,
 * and client.c's finalize.
 *
 * One pxc_client_t per process (pxc_cl) describes the connection of a
 * client or tool to its server. It has three kinds of fields:
 *   - set up under `lock` by init/finalize (refs, pg, me, server, mode);
 *   - owned by the progress thread (conn, pending requests, next tag):
 *     no other thread touches them, they post work instead;
 *   - the key-value store and the not-yet-committed puts, guarded by
 *     store_lock (a rwlock) so that PMIx_Get's fast path runs in the
 *     caller's thread without a hand-off to the progress thread.
 * `state` is read without a lock (atomic) by API calls that want to fail
 * fast once the server is gone.
 *
 * pxc_cl is defined in conn.c, whose request engine (conn.h) works on it;
 * the callback types of that engine are here because direct.h uses them
 * too. The request shapes the feature files share are in request.h.
 */
#ifndef PXC_CLIENT_H
#define PXC_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc.h"
#include "progress.h"
#include "store.h"
#include "pack.h"
#include "frame.h"
#include "proto.h"

enum {
	PXC_CONN_NONE = 0, /* not initialised */
	PXC_CONN_UP,       /* connected to a server */
	PXC_CONN_LOST,     /* the server went away: calls fail fast */
	PXC_CONN_ALONE,    /* singleton or unconnected tool: no server */
};

/* Reply callback: runs once in the progress thread. reply is positioned
 * after the status (NULL when the status did not come from the server). */
typedef void (*pxc_reply_f)(pmix_status_t status, pmix_data_buffer_t *reply, void *arg);
/* Reply parser of a blocking call: runs on a successful reply, in the
 * caller's thread or the progress thread; returns the call's status. */
typedef pmix_status_t (*pxc_parse_f)(pmix_data_buffer_t *reply, void *arg);

struct pxc_req;

typedef struct {
	pthread_mutex_t lock;
	int refs; /* PMIx_Init / PMIx_tool_init count */
	bool is_tool;
	pxc_progress_t *pg;
	atomic_int state;
	pmix_proc_t me;
	pmix_proc_t server;
	char hostname[256];
	char *uri; /* the server's address, "unix:<path>" */
	/* progress thread only */
	pxc_conn_t *conn;
	struct pxc_req *pending;
	uint32_t next_tag;
	/* direct requests (conn.c): txconn is conn while caller threads may
	 * write into it (guarded by tx_lock); queued counts requests posted
	 * to the progress thread and not written yet (while any is, requests
	 * go that way too, to stay in order); rfd is the reply channel
	 * (proto.h) or -1, read by one blocking caller at a time, the one
	 * holding fast_lock, which also guards rb and fast_tag. */
	pthread_mutex_t tx_lock;
	pxc_conn_t *txconn;
	atomic_uint queued;
	pthread_mutex_t fast_lock;
	atomic_int rfd;
	atomic_bool rbroken; /* the channel failed: calls go the plain way */
	pxc_rbuf_t rb;
	uint32_t fast_tag;
	/* EVENTs read from this connection (ev_recv) and handled (ev_seen);
	 * a blocking caller whose reply came after an event mark, or after
	 * ev_recv events on the plain path, waits on ev_cond (under ev_lock)
	 * until ev_seen reaches it (direct.c). */
	atomic_uint ev_recv;
	atomic_uint ev_seen;
	pthread_mutex_t ev_lock;
	pthread_cond_t ev_cond;
	/* guarded by store_lock */
	pthread_rwlock_t store_lock;
	pxc_store_t *store;
	pxc_store_t *uncommitted;
} pxc_client_t;

extern pxc_client_t pxc_cl;

/* Fills a proc id (nspace truncated to PMIX_MAX_NSLEN). */
static inline void pxc_proc_load(pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
	size_t n = ns ? strnlen(ns, PMIX_MAX_NSLEN) : 0;

	memset(p->nspace, 0, sizeof(p->nspace));
	memcpy(p->nspace, ns ? ns : "", n);
	p->rank = r;
}

/* Last-reference finalize shared by PMIx_Finalize and PMIx_tool_finalize. */
pmix_status_t pxc_client_finalize_common(const pmix_info_t *info, size_t ninfo);

/* Destructs and frees one malloc'ed value. NULL-tolerant. */
static inline void pxc_value_release(pmix_value_t *v)
{
	if (v) {
		PMIx_Value_destruct(v);
		free(v);
	}
}

/* True for PMIx reserved keys ("pmix" prefix). */
static inline bool pxc_key_reserved(const char *key)
{
	return key && key[0] == 'p' && key[1] == 'm' && key[2] == 'i' && key[3] == 'x';
}

#endif
