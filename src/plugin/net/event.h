/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/event.h - events raised in one step daemon for processes whose
 * step daemons are elsewhere (the connect events of the core's
 * connect.c), carried as EVENT to the stepds of the procs concerned: own
 * step by node index, other steps through net/xstep.h. Progress thread.
 */
#ifndef PLUG_NET_EVENT_H
#define PLUG_NET_EVENT_H

#include <pmix_server.h>
#include "net/transport.h"

/* An event for the stepds of the processes in range elsewhere (the
 * connect events to the stepds of the procs concerned; RM logged;
 * anything else NOT_SUPPORTED), to every node that may host one. */
pmix_status_t plug_event_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata);
/* The host's notify_event (a client's event): the same, but the nodes of
 * this step get it only when one of their clients registered for its
 * code (net/evindex.h); the others are kept. PMIX_GROUP_LEFT goes to
 * every node in range: their servers' group records need it. */
pmix_status_t plug_event_notify_client(pmix_status_t code, const pmix_proc_t *source,
				       pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);

/* A synchronous event at every process of this step (range NAMESPACE, on
 * every node): each node's server waits until its recipients' handler
 * chains ended (pxc_server_notify_sync) or timeout_ms passed; cb then
 * runs once with st: PMIX_SUCCESS (every recipient answered),
 * PMIX_ERR_NOT_FOUND (nobody had a handler: no disposition),
 * PMIX_ERR_TIMEOUT (some did not answer, or their step daemon did not:
 * then all of that node's ranks are named) or another failure; how many
 * had a handler; and the procs that did not answer (borrowed for the
 * call). 0 (cb will run) or -1 (it will not). Progress thread. */
typedef void (*plug_event_sync_f)(pmix_status_t st, size_t nhandled, const pmix_proc_t *un,
				  size_t nun, void *cbdata);
int plug_event_sync(pmix_status_t code, const pmix_proc_t *source, const pmix_info_t *info,
		    size_t ninfo, uint32_t timeout_ms, plug_event_sync_f cb, void *cbdata);

/* Takes EVENT messages from the network (before it starts). 0/-1. */
int plug_event_register(plug_net_t *n);
/* fn sees every event from another stepd (EVENT_FWD) just before this
 * stepd's server delivers it; returning true takes it: it is not
 * delivered, the sender hears success, and the watchers added after fn
 * do not see it. At most 4, added before the
 * network starts (the spawn family, stepd/family.c; aborts from other
 * steps, stepd/abort.c). 0, or -1 when full. */
typedef bool (*plug_event_watch_f)(pmix_status_t code, const pmix_proc_t *source,
				   const pmix_info_t *info, size_t ninfo);
int plug_event_watch(plug_event_watch_f fn);

#endif
