/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.h - the process's own event handlers (common/event.c): the
 * registry and chain delivery, shared by every role.
 */
#ifndef PXC_COMMON_EVENT_H
#define PXC_COMMON_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>

/* Registers fn for codes[0..ncodes) (none: a default handler), placed by
 * the PMIX_EVENT_HDLR_* attributes of info; copies what it keeps. On
 * PMIX_SUCCESS *id is the handler's id (>= 1); PMIX_ERR_NOMEM, or
 * PMIX_ERR_EVENT_REGISTRATION when a second handler asks to be FIRST or
 * LAST of its category. Any thread. */
pmix_status_t pxc_event_hdlr_add(const pmix_status_t *codes, size_t ncodes, const pmix_info_t *info,
				 size_t ninfo, pmix_notification_fn_t fn, size_t *id);
/* Removes the handler id; false when there is none. Chains already
 * running keep their snapshot. Any thread. */
bool pxc_event_hdlr_remove(size_t id);
/* Removes every handler (last finalize). Any thread. */
void pxc_event_release_all(void);
/* Joins the event thread (running queued chains first); from inside a
 * handler, detaches it and drops the queued chains. Any thread. */
void pxc_event_thread_stop(void);

/* True when PMIX_EVENT_CUSTOM_RANGE in info names p (or p's namespace's
 * wildcard); false without a well-formed one. Any thread. */
bool pxc_event_custom_has(const pmix_info_t *info, size_t ninfo, const pmix_proc_t *p);
/* Runs the handler chain of this process for one event: handlers
 * registered for code first (single-code, then multi-code), then the
 * default ones (unless info holds PMIX_EVENT_NON_DEFAULT). Copies its
 * arguments; the chain runs later, in the progress thread of a server
 * process, in the event thread of a client or tool (the handlers'
 * callbacks may come from any thread). Does nothing when no progress
 * engine runs or no handler matches. Any thread. */
void pxc_event_local_deliver(pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
			     const pmix_info_t *info, size_t ninfo);
/* The same, and calls delivered() exactly once: when the chain's first
 * handler has returned (in the thread that ran it), or at once (or when
 * the chain is dropped) when no handler runs. Events are counted with
 * it in the order they came (client/direct.c). */
void pxc_event_local_deliver_then(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
				  void (*delivered)(void));
/* The same, for the one handler id when id is not 0 (nothing when it is
 * gone or does not take the event): a cached event sent to a late
 * registrant; and, when ended is not NULL, calls ended(handled, arg)
 * exactly once when the chain has ended (every handler called back, one
 * said PMIX_EVENT_ACTION_COMPLETE, or the chain was dropped), handled
 * telling whether any handler matched: a synchronous event's answer. */
void pxc_event_local_deliver_to(size_t id, pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
				void (*delivered)(void), void (*ended)(bool handled, void *arg),
				void *ended_arg);
/* True when the caller is the client's event thread (in a handler). */
bool pxc_event_thread_is_self(void);

#endif
