/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof/iof.c - the IO forwarding engine (see iof.h): streams with their
 * histories, subscriptions with their queues, delivery.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iof/iof.h"

#define CHUNK_MAX 65536 /* the most one chunk carries without BUFFERING_SIZE */

typedef struct stream {
	struct stream *next;
	pmix_proc_t src;
	pmix_iof_channel_t ch;
	char *head; /* the first bytes, up to e->hcap */
	size_t nhead;
	char *ring; /* the latest bytes after those, up to e->tcap */
	size_t rstart, rlen;
	uint64_t total; /* every byte it ever had */
	bool head_shut; /* a gap came (sx_iof_skip): the head takes no more */
	bool closed;
} stream_t;

/* One stream of one subscription. */
typedef struct ss {
	struct ss *next;
	stream_t *st;
	sx_iof_buf_t q;     /* raw bytes waiting for the sink */
	sx_iof_buf_t resid; /* an unterminated line (formats) */
	int64_t first_ms;   /* when the oldest waiting byte came */
	uint64_t dropped;   /* not reported yet */
	bool ended;         /* its end went out */
} ss_t;

typedef struct sub {
	struct sub *next;
	uint32_t id;
	pmix_proc_t *procs;
	size_t nprocs;
	pmix_iof_channel_t chans;
	sx_iof_opts_t o;
	size_t limit; /* queue bound per stream */
	sx_iof_sink_f sink;
	void *arg;
	bool hold; /* the sink asked to be left alone */
	ss_t *ss;
} sub_t;

struct sx_iof {
	stream_t *streams;
	sub_t *subs;
	size_t hcap, tcap, queue;
	uint32_t last_id;
};

/* ------------------------------------------------------------- options */

static bool as_size(const pmix_value_t *v, uint64_t *out)
{
	switch (v->type) {
	case PMIX_UINT32: *out = v->data.uint32; return true;
	case PMIX_SIZE: *out = v->data.size; return true;
	case PMIX_UINT64: *out = v->data.uint64; return true;
	case PMIX_INT: *out = (uint64_t)v->data.integer; return v->data.integer >= 0;
	case PMIX_INT32: *out = (uint64_t)v->data.int32; return v->data.int32 >= 0;
	default: return false;
	}
}

pmix_status_t sx_iof_opts_parse(const pmix_info_t *info, size_t ninfo, sx_iof_opts_t *o,
				const char **bad)
{
	bool oldest = false;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; info && i < ninfo; i++) {
		const char *k = info[i].key;
		const pmix_value_t *v = &info[i].value;
		uint64_t n = 0;
		bool *flag = PMIx_Check_key(k, PMIX_IOF_DROP_NEWEST)      ? &o->drop_newest :
			     PMIx_Check_key(k, PMIX_IOF_DROP_OLDEST)      ? &oldest :
			     PMIx_Check_key(k, PMIX_IOF_TAG_OUTPUT)       ? &o->fmt.tag :
			     PMIx_Check_key(k, PMIX_IOF_TIMESTAMP_OUTPUT) ? &o->fmt.timestamp :
			     PMIx_Check_key(k, PMIX_IOF_XML_OUTPUT)       ? &o->fmt.xml :
									    NULL;

		if (flag) {
			pmix_boolean_t b = PMIx_Value_true(v);

			if (b == PMIX_NON_BOOL)
				goto wrong;
			*flag = b == PMIX_BOOL_TRUE;
			continue;
		}
		if (!PMIx_Check_key(k, PMIX_IOF_CACHE_SIZE) &&
		    !PMIx_Check_key(k, PMIX_IOF_BUFFERING_SIZE) &&
		    !PMIx_Check_key(k, PMIX_IOF_BUFFERING_TIME))
			continue; /* not ours */
		if (!as_size(v, &n) || n > UINT32_MAX)
			goto wrong;
		if (PMIx_Check_key(k, PMIX_IOF_CACHE_SIZE))
			o->cache_size = (size_t)n;
		else if (PMIx_Check_key(k, PMIX_IOF_BUFFERING_SIZE))
			o->buf_size = (size_t)n;
		else if (n > 86400)
			goto wrong; /* a day of buffering is no buffering */
		else
			o->buf_time_ms = (uint32_t)n * 1000;
		continue;
wrong:
		if (bad)
			*bad = k;
		return PMIX_ERR_BAD_PARAM;
	}
	if (oldest && o->drop_newest) {
		if (bad)
			*bad = PMIX_IOF_DROP_NEWEST;
		return PMIX_ERR_BAD_PARAM;
	}
	return PMIX_SUCCESS;
}

/* ------------------------------------------------------------- streams */

sx_iof_t *sx_iof_create(size_t history, size_t queue)
{
	sx_iof_t *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->hcap = history / 2;
	e->tcap = history - e->hcap;
	e->queue = queue ? queue : 1;
	return e;
}

static void ss_free(ss_t *s)
{
	sx_iof_buf_free(&s->q);
	sx_iof_buf_free(&s->resid);
	free(s);
}

static void sub_free(sub_t *u)
{
	while (u->ss) {
		ss_t *s = u->ss;

		u->ss = s->next;
		ss_free(s);
	}
	free(u->procs);
	free(u);
}

void sx_iof_destroy(sx_iof_t *e)
{
	if (!e)
		return;
	while (e->subs) {
		sub_t *u = e->subs;

		e->subs = u->next;
		sub_free(u);
	}
	while (e->streams) {
		stream_t *st = e->streams;

		e->streams = st->next;
		free(st->head);
		free(st->ring);
		free(st);
	}
	free(e);
}

static bool one_channel(pmix_iof_channel_t ch)
{
	return ch == PMIX_FWD_STDIN_CHANNEL || ch == PMIX_FWD_STDOUT_CHANNEL ||
	       ch == PMIX_FWD_STDERR_CHANNEL || ch == PMIX_FWD_STDDIAG_CHANNEL;
}

static bool covers(const sub_t *u, const stream_t *st)
{
	if (!(u->chans & st->ch))
		return false;
	for (size_t i = 0; i < u->nprocs; i++)
		if (PMIx_Check_nspace(u->procs[i].nspace, st->src.nspace) &&
		    (u->procs[i].rank == PMIX_RANK_WILDCARD || u->procs[i].rank == st->src.rank))
			return true;
	return false;
}

static ss_t *ss_add_to(sub_t *u, stream_t *st)
{
	ss_t *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->st = st;
	s->next = u->ss;
	u->ss = s;
	return s;
}

static stream_t *stream_get(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch)
{
	stream_t *st;

	for (st = e->streams; st; st = st->next)
		if (st->ch == ch && st->src.rank == src->rank &&
		    PMIx_Check_nspace(st->src.nspace, src->nspace))
			return st;
	if (!(st = calloc(1, sizeof(*st))) || (e->hcap && !(st->head = malloc(e->hcap))) ||
	    (e->tcap && !(st->ring = malloc(e->tcap)))) {
		if (st)
			free(st->head);
		free(st);
		return NULL;
	}
	PMIx_Load_procid(&st->src, src->nspace, src->rank);
	st->ch = ch;
	for (sub_t *u = e->subs; u; u = u->next) /* a new stream: no history */
		if (covers(u, st) && !ss_add_to(u, st)) {
			for (sub_t *v = e->subs; v != u; v = v->next) /* undo: heads */
				if (v->ss && v->ss->st == st) {
					ss_t *s = v->ss;

					v->ss = s->next;
					ss_free(s);
				}
			free(st->head);
			free(st->ring);
			free(st);
			return NULL;
		}
	st->next = e->streams;
	e->streams = st;
	return st;
}

static void history_add(sx_iof_t *e, stream_t *st, const char *p, size_t n)
{
	size_t room = st->head_shut ? 0 : e->hcap - st->nhead, k = n < room ? n : room;

	memcpy(st->head + st->nhead, p, k);
	st->nhead += k;
	st->total += n;
	p += k;
	n -= k;
	if (!n || !e->tcap)
		return;
	if (n >= e->tcap) { /* only the last tcap bytes stay */
		memcpy(st->ring, p + n - e->tcap, e->tcap);
		st->rstart = 0;
		st->rlen = e->tcap;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		st->ring[(st->rstart + st->rlen) % e->tcap] = p[i];
		if (st->rlen < e->tcap)
			st->rlen++;
		else
			st->rstart = (st->rstart + 1) % e->tcap;
	}
}

/* ------------------------------------------------------------ queueing */

/* n more bytes for s, within u's bound and by u's drop policy. */
static int ss_queue(sub_t *u, ss_t *s, const char *p, size_t n, int64_t now_ms)
{
	size_t have = sx_iof_buf_size(&s->q), room = u->limit > have ? u->limit - have : 0;

	if (!n)
		return 0;
	if (!have)
		s->first_ms = now_ms;
	if (n <= room)
		return sx_iof_buf_add(&s->q, p, n);
	if (u->o.drop_newest) {
		s->dropped += n - room;
		return sx_iof_buf_add(&s->q, p, room);
	}
	if (n >= u->limit) { /* the oldest go: what waited, and the front of these */
		s->dropped += have + (n - u->limit);
		sx_iof_buf_eat(&s->q, have);
		s->first_ms = now_ms;
		return sx_iof_buf_add(&s->q, p + n - u->limit, u->limit);
	}
	s->dropped += n - room;
	sx_iof_buf_eat(&s->q, n - room);
	return sx_iof_buf_add(&s->q, p, n);
}

/* The ring's bytes [from, from + n) in order, queued for s. */
static int queue_ring(sx_iof_t *e, sub_t *u, ss_t *s, size_t from, size_t n, int64_t now_ms)
{
	const stream_t *st = s->st;
	int rc = 0;

	while (n && rc == 0) {
		size_t at = (st->rstart + from) % e->tcap, k = e->tcap - at < n ? e->tcap - at : n;

		rc = ss_queue(u, s, st->ring + at, k, now_ms);
		from += k;
		n -= k;
	}
	return rc;
}

/* A new subscription's share of the history of s's stream. */
static int queue_history(sx_iof_t *e, sub_t *u, ss_t *s, int64_t now_ms)
{
	const stream_t *st = s->st;
	bool whole = st->total == st->nhead + st->rlen; /* nothing fell out */
	size_t c = u->o.cache_size, given = 0, k;
	int rc = 0;

	if (!c) { /* all of it, the gap counted */
		rc = ss_queue(u, s, st->head, st->nhead, now_ms) |
		     queue_ring(e, u, s, 0, st->rlen, now_ms);
		given = st->nhead + st->rlen;
	} else if (u->o.drop_newest) { /* the first c bytes */
		k = c < st->nhead ? c : st->nhead;
		rc = ss_queue(u, s, st->head, k, now_ms);
		given = k;
		if (whole && c > k) {
			k = c - k < st->rlen ? c - k : st->rlen;
			rc |= queue_ring(e, u, s, 0, k, now_ms);
			given += k;
		}
	} else { /* the last c bytes */
		size_t tail = c < st->rlen ? c : st->rlen;

		if (whole && c > tail) {
			k = c - tail < st->nhead ? c - tail : st->nhead;
			rc = ss_queue(u, s, st->head + st->nhead - k, k, now_ms);
			given = k;
		}
		rc |= queue_ring(e, u, s, st->rlen - tail, tail, now_ms);
		given += tail;
	}
	s->dropped += st->total - given;
	return rc;
}

/* --------------------------------------------------------------- output */

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How many waiting bytes of s go now (0: none yet). */
static size_t chunk_len(const sub_t *u, const ss_t *s, bool flush, int64_t now_ms)
{
	size_t have = sx_iof_buf_size(&s->q);
	bool all = flush || s->st->closed;
	bool due = u->o.buf_time_ms && now_ms - s->first_ms >= (int64_t)u->o.buf_time_ms;

	if (!have)
		return 0;
	if (u->o.buf_size) /* (with a time too: what waited that long goes) */
		return have >= u->o.buf_size ? u->o.buf_size : all || due ? have : 0;
	if (u->o.buf_time_ms && !all && have < u->limit && !due)
		return 0;
	return have < CHUNK_MAX ? have : CHUNK_MAX;
}

/* Hands s's waiting bytes to u's sink while it takes them (all of them
 * with flush), then its end when it ended. */
static void deliver(sub_t *u, ss_t *s, bool flush, int64_t now_ms)
{
	sx_iof_buf_t out = { 0 };

	while ((flush || !u->hold) && !s->ended) {
		size_t len = chunk_len(u, s, flush, now_ms);
		bool last = sx_iof_buf_size(&s->q) == len && (s->st->closed || flush);
		sx_iof_chunk_t c = { .src = &s->st->src, .channel = s->st->ch };
		int rc;

		if (!len && !(s->st->closed && !sx_iof_buf_size(&s->q)) &&
		    !(flush && sx_iof_buf_size(&s->resid)))
			break; /* nothing to send yet */
		rc = sx_iof_format(&u->o.fmt, &s->resid, &s->st->src, s->st->ch,
				   sx_iof_buf_data(&s->q), len, last, wall_ms(), &out);
		sx_iof_buf_eat(&s->q, len);
		if (rc < 0) /* out of memory: these bytes are lost to u */
			s->dropped += len;
		s->first_ms = now_ms;
		c.complete = s->st->closed && !sx_iof_buf_size(&s->q);
		c.data = sx_iof_buf_data(&out);
		c.n = sx_iof_buf_size(&out);
		c.dropped = s->dropped;
		if (c.n || c.complete || c.dropped) {
			s->dropped = 0;
			s->ended = c.complete;
			if (!u->sink(u->arg, u->id, &c))
				u->hold = true;
		}
		sx_iof_buf_eat(&out, sx_iof_buf_size(&out));
		if (!len)
			break; /* an end or a flushed line: done */
	}
	sx_iof_buf_free(&out);
}

pmix_status_t sx_iof_input(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch,
			   const void *bytes, size_t n, int64_t now_ms)
{
	stream_t *st;
	int rc = 0;

	if (!e || !src || !one_channel(ch) || (n && !bytes))
		return PMIX_ERR_BAD_PARAM;
	if (!(st = stream_get(e, src, ch)))
		return PMIX_ERR_NOMEM;
	if (st->closed)
		return PMIX_ERR_BAD_PARAM;
	if (!n)
		return PMIX_SUCCESS;
	history_add(e, st, bytes, n);
	for (sub_t *u = e->subs; u; u = u->next)
		for (ss_t *s = u->ss; s; s = s->next) {
			if (s->st != st)
				continue;
			/* a reader that keeps up gets it all, in pieces of its
			 * bound; one that does not, what its policy keeps */
			for (size_t off = 0, k; off < n; off += k) {
				k = u->hold || n - off <= u->limit ? n - off : u->limit;
				rc |= ss_queue(u, s, (const char *)bytes + off, k, now_ms);
				deliver(u, s, false, now_ms);
			}
		}
	return rc ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

/* The stream of (src, ch) in *st, made if new: PMIX_SUCCESS, _BAD_PARAM
 * (no such channel), _NOMEM. */
static pmix_status_t stream_of(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch,
			       stream_t **st)
{
	if (!e || !src || !one_channel(ch))
		return PMIX_ERR_BAD_PARAM;
	return (*st = stream_get(e, src, ch)) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t sx_iof_skip(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch, uint64_t n)
{
	stream_t *st;
	pmix_status_t rc = stream_of(e, src, ch, &st);

	if (rc != PMIX_SUCCESS)
		return rc;
	if (st->closed)
		return PMIX_ERR_BAD_PARAM;
	if (!n)
		return PMIX_SUCCESS;
	st->total += n;
	st->head_shut = true;
	for (sub_t *u = e->subs; u; u = u->next)
		for (ss_t *s = u->ss; s; s = s->next)
			if (s->st == st)
				s->dropped += n;
	return PMIX_SUCCESS;
}

pmix_status_t sx_iof_close(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch,
			   int64_t now_ms)
{
	stream_t *st;
	pmix_status_t rc = stream_of(e, src, ch, &st);

	if (rc != PMIX_SUCCESS)
		return rc;
	if (st->closed)
		return PMIX_SUCCESS;
	st->closed = true;
	for (sub_t *u = e->subs; u; u = u->next)
		for (ss_t *s = u->ss; s; s = s->next)
			if (s->st == st)
				deliver(u, s, false, now_ms);
	return PMIX_SUCCESS;
}

/* --------------------------------------------------------- subscriptions */

static sub_t *sub_find(sx_iof_t *e, uint32_t id)
{
	for (sub_t *u = e->subs; u; u = u->next)
		if (u->id == id)
			return u;
	return NULL;
}

pmix_status_t sx_iof_subscribe(sx_iof_t *e, const pmix_proc_t *procs, size_t nprocs,
			       pmix_iof_channel_t chans, const sx_iof_opts_t *o, bool held,
			       sx_iof_sink_f sink, void *arg, int64_t now_ms, uint32_t *id)
{
	sub_t *u;
	int rc = 0;

	if (!e || !procs || !nprocs || !(chans & PMIX_FWD_ALL_CHANNELS) || !sink || !o || !id)
		return PMIX_ERR_BAD_PARAM;
	if (!(u = calloc(1, sizeof(*u))) || !(u->procs = malloc(nprocs * sizeof(*procs)))) {
		free(u);
		return PMIX_ERR_NOMEM;
	}
	memcpy(u->procs, procs, nprocs * sizeof(*procs));
	u->nprocs = nprocs;
	u->chans = chans;
	u->o = *o;
	u->limit = o->cache_size ? o->cache_size : e->queue;
	if (u->o.buf_size > u->limit) /* a chunk never larger than what may wait */
		u->o.buf_size = u->limit;
	u->sink = sink;
	u->arg = arg;
	u->hold = held;
	do
		u->id = ++e->last_id;
	while (!u->id || sub_find(e, u->id));
	for (stream_t *st = e->streams; st && rc == 0; st = st->next) {
		ss_t *s;

		if (!covers(u, st))
			continue;
		rc = (s = ss_add_to(u, st)) ? queue_history(e, u, s, now_ms) : -1;
	}
	if (rc) {
		sub_free(u);
		return PMIX_ERR_NOMEM;
	}
	u->next = e->subs;
	e->subs = u;
	*id = u->id;
	for (ss_t *s = u->ss; s; s = s->next)
		deliver(u, s, false, now_ms);
	return PMIX_SUCCESS;
}

pmix_status_t sx_iof_unsubscribe(sx_iof_t *e, uint32_t id, int64_t now_ms)
{
	sub_t *u = e ? sub_find(e, id) : NULL;

	if (!u)
		return PMIX_ERR_BAD_PARAM;
	for (ss_t *s = u->ss; s; s = s->next)
		deliver(u, s, true, now_ms);
	sx_iof_cancel(e, id);
	return PMIX_SUCCESS;
}

void sx_iof_cancel(sx_iof_t *e, uint32_t id)
{
	for (sub_t **pp = e ? &e->subs : NULL; pp && *pp; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			sub_t *u = *pp;

			*pp = u->next;
			sub_free(u);
			return;
		}
}

void sx_iof_resume(sx_iof_t *e, uint32_t id, int64_t now_ms)
{
	sub_t *u = e ? sub_find(e, id) : NULL;

	if (!u)
		return;
	u->hold = false;
	for (ss_t *s = u->ss; s && !u->hold; s = s->next)
		deliver(u, s, false, now_ms);
}

int64_t sx_iof_tick(sx_iof_t *e, int64_t now_ms)
{
	int64_t next = -1;

	for (sub_t *u = e ? e->subs : NULL; u; u = u->next) {
		if (!u->o.buf_time_ms)
			continue;
		for (ss_t *s = u->ss; s; s = s->next) {
			int64_t left;

			if (!u->hold)
				deliver(u, s, false, now_ms);
			if (u->hold || !sx_iof_buf_size(&s->q))
				continue; /* (held: its resume comes first) */
			left = s->first_ms + u->o.buf_time_ms - now_ms;
			left = left < 0 ? 0 : left;
			next = next < 0 || left < next ? left : next;
		}
	}
	return next;
}

size_t sx_iof_bytes(const sx_iof_t *e)
{
	size_t n = 0;

	for (const stream_t *st = e ? e->streams : NULL; st; st = st->next)
		n += st->nhead + st->rlen;
	for (const sub_t *u = e ? e->subs : NULL; u; u = u->next)
		for (const ss_t *s = u->ss; s; s = s->next)
			n += sx_iof_buf_size(&s->q) + sx_iof_buf_size(&s->resid);
	return n;
}
