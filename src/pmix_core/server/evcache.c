/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evcache.c - events for late registrants.
 *
 * Every event the server delivers to its clients (a client's NOTIFY, an
 * event from another node or raised by the host) is kept here, oldest
 * first, unless it carries PMIX_EVENT_DO_NOT_CACHE: its packed EVENT
 * payload, what decides who is in its range, and the peers that got it.
 * When a client registers a handler, the server sends that handler (the
 * EVENT's tag names it, proto.h) every cached event of its codes in range
 * for the client that the client neither got nor raised (an event the
 * server raised in a client's name, PXC_EVENT_RAISED, goes to that
 * client too: a monitor's alert), after the
 * registration's reply: each handler registered later gets each such
 * event once (docs/events.md).
 *
 * Bounds (the host's init info, mpi.conf SlurmixEventCacheBytes and
 * SlurmixEventCacheAge): entries older than the age are dropped, and the
 * oldest go when a new one needs room. Dropping one that nobody on this
 * node had got is a loss: it is counted, logged (at most every 10 s), and
 * reported on the next event the server delivers
 * (SLURMIX_EVENT_CACHE_DROPPED, pmix_slurmix.h). An entry is "got" once a
 * client received it, live or from here.
 *
 * Progress thread only.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "evcache.h"
#include "peer.h"
#include "server/event.h"
#include "proto.h"

#define DEFAULT_BYTES (1024 * 1024)
#define DEFAULT_AGE_S 60
#define LOG_EVERY_MS 10000

struct entry {
	struct entry *next;
	pmix_status_t code;
	pmix_proc_t src;
	pmix_data_range_t range;
	pmix_info_t *custom; /* a CUSTOM range's infos (who is in range) */
	size_t ncustom;
	pmix_data_buffer_t msg;
	uint64_t *sent; /* peers that got it or raised it */
	size_t nsent;
	bool got;
	bool raised; /* by the server for its source (PXC_EVENT_RAISED) */
	long t_ms;
	size_t bytes;
};

static struct {
	struct entry *head, *tail;
	size_t bytes, max_bytes;
	uint32_t max_age_s;
	uint32_t dropped;  /* lost, not yet reported on an event */
	uint32_t unlogged; /* lost, not yet in the log */
	long logged_ms;
} evc = { .max_bytes = DEFAULT_BYTES, .max_age_s = DEFAULT_AGE_S };

void pxc_evcache_config(size_t max_bytes, uint32_t max_age_s)
{
	evc.max_bytes = max_bytes;
	evc.max_age_s = max_age_s;
}

static void entry_free(struct entry *e)
{
	if (e->custom)
		PMIx_Info_free(e->custom, e->ncustom);
	pxc_buf_clear(&e->msg);
	free(e->sent);
	free(e);
}

static void log_losses(bool now)
{
	long t = pxc_now_ms();

	if (!evc.unlogged || (!now && evc.logged_ms && t - evc.logged_ms < LOG_EVERY_MS))
		return;
	pxc_log(PXC_LOG_WARN,
		"server: event cache full (%zu bytes): %u events nobody had received yet were "
		"dropped",
		evc.max_bytes, evc.unlogged);
	evc.unlogged = 0;
	evc.logged_ms = t;
}

static void drop_head(bool lost)
{
	struct entry *e = evc.head;

	if (!(evc.head = e->next))
		evc.tail = NULL;
	evc.bytes -= e->bytes;
	if (lost && !e->got) {
		evc.dropped++;
		evc.unlogged++;
	}
	entry_free(e);
}

static void expire(void)
{
	long limit = pxc_now_ms() - (long)evc.max_age_s * 1000;

	while (evc.head && evc.max_age_s && evc.head->t_ms < limit)
		drop_head(false);
}

static bool copy_custom(struct entry *e, const pmix_info_t *info, size_t ninfo)
{
	if (e->range != PMIX_RANGE_CUSTOM || !ninfo)
		return true;
	if (!(e->custom = PMIx_Info_create(ninfo)))
		return false;
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&e->custom[i], &info[i]);
	e->ncustom = ninfo;
	return true;
}

void pxc_evcache_add(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t range,
		     const pmix_info_t *info, size_t ninfo, const pmix_data_buffer_t *msg,
		     const uint64_t *sent, size_t nsent, bool got)
{
	size_t bytes = sizeof(struct entry) + msg->bytes_used + nsent * sizeof(uint64_t) +
		       (range == PMIX_RANGE_CUSTOM ? msg->bytes_used : 0);
	struct entry *e;
	char *copy = NULL;

	if (!evc.max_bytes || pxc_info_flag(info, ninfo, PMIX_EVENT_DO_NOT_CACHE))
		return;
	expire();
	if (bytes > evc.max_bytes) {
		if (!got) {
			evc.dropped++;
			evc.unlogged++;
		}
		log_losses(false);
		return;
	}
	while (evc.head && evc.bytes + bytes > evc.max_bytes)
		drop_head(true);
	log_losses(false);
	if (!(e = calloc(1, sizeof(*e))))
		return;
	e->code = code;
	if (src)
		e->src = *src;
	e->range = range;
	e->got = got;
	e->raised = pxc_info_flag(info, ninfo, PXC_EVENT_RAISED);
	e->t_ms = pxc_now_ms();
	e->bytes = bytes;
	pxc_buf_init(&e->msg);
	/* an exact copy: the bound counts what the cache really holds */
	if (msg->bytes_used && (copy = malloc(msg->bytes_used))) {
		memcpy(copy, msg->base_ptr, msg->bytes_used);
		pxc_buf_load_take(&e->msg, copy, msg->bytes_used);
	}
	if (!copy_custom(e, info, ninfo) || (msg->bytes_used && !copy) ||
	    (nsent && !(e->sent = malloc(nsent * sizeof(*e->sent))))) {
		entry_free(e);
		return;
	}
	if (nsent)
		memcpy(e->sent, sent, nsent * sizeof(*e->sent));
	e->nsent = nsent;
	if (evc.tail)
		evc.tail->next = e;
	else
		evc.head = e;
	evc.tail = e;
	evc.bytes += bytes;
}

static bool was_sent(const struct entry *e, uint64_t id)
{
	for (size_t i = 0; i < e->nsent; i++)
		if (e->sent[i] == id)
			return true;
	return false;
}

static bool same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
	return a->rank == b->rank && strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0;
}

static bool code_in(pmix_status_t code, const pmix_status_t *codes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (codes[i] == code)
			return true;
	return n == 0;
}

size_t pxc_evcache_replay(pxc_peer_t *p, const pmix_status_t *codes, size_t n, uint32_t hdlr)
{
	size_t count = 0;

	expire();
	for (struct entry *e = evc.head; e; e = e->next) {
		pmix_data_buffer_t rep = { 0 };
		bool told;

		if (!code_in(e->code, codes, n) || was_sent(e, p->id) ||
		    (!e->raised && same_proc(&e->src, &p->proc)) ||
		    !pxc_event_in_range(p, &e->src, e->range, e->custom, e->ncustom))
			continue;
		/* the first one sent reports the losses p was not told of */
		told = evc.dropped != p->ev_lost_seen &&
		       pxc_event_with_dropped(&e->msg, evc.dropped - p->ev_lost_seen, &rep) == 0;
		if (pxc_peer_send_event_tag(p, hdlr, told ? &rep : &e->msg) == 0) {
			e->got = true;
			count++;
			if (told)
				p->ev_lost_seen = evc.dropped;
		}
		pxc_buf_clear(&rep);
	}
	return count;
}

uint32_t pxc_evcache_dropped(void)
{
	return evc.dropped;
}

void pxc_evcache_lost(uint32_t n)
{
	evc.dropped += n; /* (differences are taken modulo 2^32) */
}

void pxc_evcache_clear(void)
{
	while (evc.head)
		drop_head(false);
	log_losses(true);
	evc.dropped = 0;
	evc.logged_ms = 0;
}
