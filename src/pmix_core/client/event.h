/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.h - the process's own event handlers, for the other modules.
 *
 * Every process role (client, tool, server) keeps its registered event
 * handlers in the client module (event.c). The server module calls
 * pxc_event_local_deliver() to run the server process's own handlers for
 * an event it raised or received from the host.
 */
#ifndef PXC_EVENT_H
#define PXC_EVENT_H

#include <pmix_common.h>

/* Runs the handler chain of this process for one event: handlers
 * registered for code first (single-code, then multi-code), then the
 * default ones (unless info holds PMIX_EVENT_NON_DEFAULT). Copies its
 * arguments; the chain runs later, in the progress thread of a server
 * process, in the event thread of a client or tool (the handlers'
 * callbacks may come from any thread). Does nothing when no progress
 * engine runs or no handler matches. Any thread. */
void pxc_event_local_deliver(pmix_status_t code, const pmix_proc_t *source,
			     pmix_data_range_t range, const pmix_info_t *info,
			     size_t ninfo);

#endif
