/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evqueue.c - back-pressure for events: when the event machinery is
 * full, new notifications wait; nothing is dropped (docs/events.md,
 * "capacity").
 *
 * Two bounds, both the host's PXC_SERVER_EVENT_QUEUE_BYTES (mpi.conf
 * SlurmixEventQueueBytes):
 *   - the bytes of client notifications under way: from their turn
 *     (delivered here, waiting for the local recipients' room, handed to
 *     the host) until answered (queued at every recipient's server): a
 *     notification that would go over waits, and so does every later one
 *     (FIFO, so order is kept); its notifier's connection is paused
 *     meanwhile, so that its further requests wait in its own socket and
 *     process, not here;
 *   - the bytes queued for sending on a client's connection: an event
 *     delivered to a client over it is not acknowledged (to the remote
 *     notifier's server, or to the local notifier) until that client has
 *     read enough, checked every EVQ_POLL_MS.
 * So a slow reader slows its notifiers (not a tool: its events wait on its
 * connection, bounded by the server's output bound, and hold nobody), and
 * a stepd's memory for events
 * stays within a few times the bound. A client that reads nothing for the
 * default timeout (SlurmixTimeout) no longer holds anyone: its events are
 * acknowledged anyway, with a log line.
 *
 * Progress thread only.
 */
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "internal.h"
#include "evqueue.h"
#include "peer.h"
#include "proto.h"

#define EVQ_POLL_MS 5

typedef struct waiting {
	struct waiting *next;
	uint64_t peer_id;
	size_t bytes;
	void (*run)(void *);
	void (*drop)(void *);
	void *item;
} waiting_t;

typedef struct drain {
	struct drain *next;
	uint64_t *ids;
	size_t n;
	long deadline; /* pxc_now_ms: waits no longer than the default timeout */
	void (*fn)(void *);
	void *arg;
} drain_t;

static struct {
	size_t max, inflight;
	waiting_t *head, *tail;
	drain_t *drains, **drains_tail; /* FIFO: none overtakes another */
	struct event *poll;
} evq;

void pxc_evq_config(size_t max_bytes)
{
	evq.max = max_bytes;
}

static void set_paused(uint64_t peer_id, bool on)
{
	pxc_peer_t *p = pxc_peer_find(peer_id);

	if (p)
		pxc_conn_pause(p->conn, on);
}

static bool fits(size_t bytes)
{
	return !evq.max || !evq.inflight || evq.inflight + bytes <= evq.max;
}

void pxc_evq_submit(pxc_peer_t *p, size_t bytes, void (*run)(void *item), void *item,
		    void (*drop)(void *item))
{
	waiting_t *w;

	if (!evq.head && fits(bytes)) {
		run(item);
		return;
	}
	if (!(w = calloc(1, sizeof(*w)))) {
		run(item); /* no memory to wait: go over the bound */
		return;
	}
	*w = (waiting_t){
		.peer_id = p ? p->id : 0, .bytes = bytes, .run = run, .drop = drop, .item = item
	};
	if (evq.tail)
		evq.tail->next = w;
	else
		evq.head = w;
	evq.tail = w;
	if (p)
		pxc_conn_pause(p->conn, true);
	pxc_debug("server: %zu bytes of events in flight: a notification waits", evq.inflight);
}

void pxc_evq_taken(size_t bytes)
{
	evq.inflight += bytes;
}

void pxc_evq_done(size_t bytes)
{
	static bool running; /* a run that ends at once comes back here */

	evq.inflight -= bytes < evq.inflight ? bytes : evq.inflight;
	if (running)
		return; /* the loop below goes on with what now fits */
	running = true;
	while (evq.head && fits(evq.head->bytes)) {
		waiting_t *w = evq.head;

		if (!(evq.head = w->next))
			evq.tail = NULL;
		if (w->peer_id)
			set_paused(w->peer_id, false);
		w->run(w->item);
		free(w);
	}
	running = false;
}

/* ---- drains ------------------------------------------------------------- */

bool pxc_evq_full(const pxc_peer_t *p)
{
	return evq.max && p && pxc_conn_queued(p->conn) > evq.max;
}

static bool drained(const drain_t *d)
{
	for (size_t i = 0; i < d->n; i++) {
		pxc_peer_t *p = d->ids[i] ? pxc_peer_find(d->ids[i]) : NULL;

		/* a tool that reads slowly holds nobody: it watches */
		if (p && p->kind != PXC_PEER_TOOL && pxc_conn_queued(p->conn) > evq.max)
			return false;
	}
	return true;
}

static void arm(void);

/* The waits end in the order they began (what follows one, its
 * notification's next step, keeps the order of the notifications): the
 * head first, and the others behind it only after it. */
static void poll_fn(int fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	while (evq.drains) {
		drain_t *d = evq.drains;
		bool done = drained(d);

		if (!done && pxc_now_ms() < d->deadline)
			break;
		if (!done)
			pxc_error("server: a client has read none of its events for %d s: "
				  "acknowledged anyway",
				  pxc_default_timeout());
		if (!(evq.drains = d->next))
			evq.drains_tail = NULL;
		d->fn(d->arg);
		free(d->ids);
		free(d);
	}
	arm();
}

static void arm(void)
{
	struct timeval tv = { 0, EVQ_POLL_MS * 1000 };

	if (!evq.drains)
		return;
	if (!evq.poll && !(evq.poll = evtimer_new(pxc_srv.base, poll_fn, NULL)))
		return;
	if (!evtimer_pending(evq.poll, NULL))
		evtimer_add(evq.poll, &tv);
}

void pxc_evq_when_drained(const uint64_t *ids, size_t n, void (*fn)(void *arg), void *arg)
{
	drain_t *d;

	if (!evq.max || (!n && !evq.drains)) {
		fn(arg);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!d || !d->ids) {
		free(d);
		fn(arg); /* no memory to wait: do not wait */
		return;
	}
	if (n)
		memcpy(d->ids, ids, n * sizeof(*ids));
	d->n = n;
	d->deadline = pxc_now_ms() + (long)pxc_default_timeout() * 1000;
	d->fn = fn;
	d->arg = arg;
	if (!evq.drains && drained(d)) {
		free(d->ids);
		free(d);
		fn(arg);
		return;
	}
	*(evq.drains ? evq.drains_tail : &evq.drains) = d; /* behind the others */
	evq.drains_tail = &d->next;
	arm();
}

size_t pxc_evq_waiting(void)
{
	size_t n = 0;

	for (waiting_t *w = evq.head; w; w = w->next)
		n++;
	return n;
}

size_t pxc_evq_draining(void)
{
	size_t n = 0;

	for (drain_t *d = evq.drains; d; d = d->next)
		n++;
	return n;
}

void pxc_evq_clear(void)
{
	while (evq.head) {
		waiting_t *w = evq.head;

		evq.head = w->next;
		if (w->drop)
			w->drop(w->item);
		free(w);
	}
	evq.tail = NULL;
	while (evq.drains) {
		drain_t *d = evq.drains;

		evq.drains = d->next;
		d->fn(d->arg);
		free(d->ids);
		free(d);
	}
	evq.drains_tail = NULL;
	if (evq.poll)
		event_free(evq.poll);
	evq.poll = NULL;
	evq.inflight = 0;
}
