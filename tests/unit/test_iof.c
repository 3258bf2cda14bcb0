/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_iof.c - check suite for the IO forwarding engine alone (src/iof):
 * live delivery, the history a late subscriber gets (PMIX_IOF_CACHE_SIZE
 * with DROP_NEWEST / DROP_OLDEST, the dropped count, the same history for
 * a second subscriber), a slow sink's bounded queue, BUFFERING_SIZE and
 * BUFFERING_TIME, the end of a stream after its last byte, unsubscribe
 * flushing, the directives' checks, and the formats (tag, timestamp, XML
 * for any bytes, partial lines of two sources never merged).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

#include "iof/iof.h"
#include "runner.h"

#define NS "test.iof"

/* What a sink got. */
typedef struct {
	sx_iof_buf_t bytes; /* every chunk's data, in order */
	int chunks, completes;
	size_t sizes[4096]; /* each chunk's size */
	uint64_t dropped;
	bool complete_seen_last; /* no bytes after a complete */
	bool after_complete;
	bool take_more; /* what the sink answers */
	pmix_rank_t last_rank;
} got_t;

static bool sink(void *arg, uint32_t id, const sx_iof_chunk_t *c)
{
	got_t *g = arg;

	(void)id;
	if (g->completes && c->n)
		g->after_complete = true;
	ck_assert_int_eq(sx_iof_buf_add(&g->bytes, c->data, c->n), 0);
	if (g->chunks < 4096)
		g->sizes[g->chunks] = c->n;
	g->chunks++;
	g->completes += c->complete;
	g->dropped += c->dropped;
	g->last_rank = c->src->rank;
	return g->take_more;
}

static void got_init(got_t *g)
{
	memset(g, 0, sizeof(*g));
	g->take_more = true;
}

static void got_free(got_t *g)
{
	sx_iof_buf_free(&g->bytes);
}

static pmix_proc_t proc(pmix_rank_t r)
{
	pmix_proc_t p;

	PMIx_Load_procid(&p, NS, r);
	return p;
}

/* n bytes numbered from `from` (byte i is (from + i) * 7 mod 251). */
static char *pattern(size_t from, size_t n)
{
	char *p = malloc(n);

	for (size_t i = 0; i < n; i++)
		p[i] = (char)((from + i) * 7 % 251);
	return p;
}

static sx_iof_opts_t opts(size_t cache, bool newest)
{
	sx_iof_opts_t o = { .cache_size = cache, .drop_newest = newest };

	return o;
}

START_TEST(live_bytes_exact)
{
	sx_iof_t *e = sx_iof_create(65536, 1 << 20);
	pmix_proc_t wild = proc(PMIX_RANK_WILDCARD), p0 = proc(0);
	sx_iof_opts_t o = opts(0, false);
	char *data = pattern(0, 100000);
	uint32_t id;
	got_t g;

	got_init(&g);
	ck_assert_int_eq(sx_iof_subscribe(e, &wild, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g,
					  0, &id),
			 PMIX_SUCCESS);
	ck_assert_uint_ne(id, 0);
	for (size_t at = 0; at < 100000; at += 999)
		ck_assert_int_eq(sx_iof_input(e, &p0, PMIX_FWD_STDOUT_CHANNEL, data + at,
					      at + 999 <= 100000 ? 999 : 100000 - at, 1),
				 PMIX_SUCCESS);
	/* another channel: not subscribed */
	ck_assert_int_eq(sx_iof_input(e, &p0, PMIX_FWD_STDERR_CHANNEL, "err", 3, 1), PMIX_SUCCESS);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 100000);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 100000));
	ck_assert_uint_eq(g.dropped, 0);
	ck_assert_int_eq(g.completes, 0);
	ck_assert_int_eq(sx_iof_close(e, &p0, PMIX_FWD_STDOUT_CHANNEL, 2), PMIX_SUCCESS);
	ck_assert_int_eq(g.completes, 1);
	ck_assert(!g.after_complete);
	/* a closed stream takes no more; bad arguments */
	ck_assert_int_eq(sx_iof_input(e, &p0, PMIX_FWD_STDOUT_CHANNEL, "x", 1, 3),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sx_iof_input(e, &p0, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
				      "x", 1, 3),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sx_iof_input(e, NULL, PMIX_FWD_STDOUT_CHANNEL, "x", 1, 3),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sx_iof_subscribe(e, &wild, 1, 0, &o, false, sink, &g, 0, &id),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sx_iof_subscribe(e, &wild, 0, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g,
					  0, &id),
			 PMIX_ERR_BAD_PARAM);
	free(data);
	got_free(&g);
	sx_iof_destroy(e);
}
END_TEST

/* A subscriber after 1 MiB: the first 4096 bytes (DROP_NEWEST), the last
 * 4096 (DROP_OLDEST), everything the history holds (no cache size), each
 * with the rest counted as dropped; a second one gets the same. */
START_TEST(history_late_subscriber)
{
	const size_t total = 1 << 20;
	sx_iof_t *e = sx_iof_create(65536, 1 << 20);
	pmix_proc_t p3 = proc(3), wild = proc(PMIX_RANK_WILDCARD);
	char *data = pattern(0, total);
	sx_iof_opts_t newest = opts(4096, true), oldest = opts(4096, false), all = opts(0, false);
	uint32_t id;
	got_t g;

	for (size_t at = 0; at < total; at += 4000)
		sx_iof_input(e, &p3, PMIX_FWD_STDOUT_CHANNEL, data + at,
			     at + 4000 <= total ? 4000 : total - at, 1);
	for (int twice = 0; twice < 2; twice++) {
		got_init(&g);
		ck_assert_int_eq(sx_iof_subscribe(e, &p3, 1, PMIX_FWD_STDOUT_CHANNEL, &newest,
						  false, sink, &g, 2, &id),
				 PMIX_SUCCESS);
		ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 4096);
		ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 4096));
		ck_assert_uint_eq(g.dropped, total - 4096);
		ck_assert_int_eq(sx_iof_unsubscribe(e, id, 3), PMIX_SUCCESS);
		got_free(&g);
	}
	got_init(&g);
	ck_assert_int_eq(sx_iof_subscribe(e, &wild, 1, PMIX_FWD_ALL_CHANNELS, &oldest, false, sink,
					  &g, 2, &id),
			 PMIX_SUCCESS);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 4096);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data + total - 4096, 4096));
	ck_assert_uint_eq(g.dropped, total - 4096);
	sx_iof_unsubscribe(e, id, 3);
	got_free(&g);
	got_init(&g);
	ck_assert_int_eq(sx_iof_subscribe(e, &p3, 1, PMIX_FWD_STDOUT_CHANNEL, &all, false, sink, &g,
					  2, &id),
			 PMIX_SUCCESS);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 65536);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 32768));
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes) + 32768, data + total - 32768, 32768));
	ck_assert_uint_eq(g.dropped, total - 65536);
	/* then live bytes, none lost */
	sx_iof_input(e, &p3, PMIX_FWD_STDOUT_CHANNEL, "tail", 4, 4);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 65540);
	sx_iof_unsubscribe(e, id, 5);
	got_free(&g);
	/* history bounded: one stream's worth */
	ck_assert_uint_le(sx_iof_bytes(e), 65536);
	free(data);
	sx_iof_destroy(e);
}
END_TEST

/* A short stream is known whole: a cache larger than half the history
 * still gets its exact beginning or end. */
START_TEST(history_short_stream)
{
	sx_iof_t *e = sx_iof_create(1000, 1 << 20);
	pmix_proc_t p = proc(1);
	char *data = pattern(5, 900);
	sx_iof_opts_t newest = opts(800, true), oldest = opts(800, false);
	uint32_t id;
	got_t g;

	sx_iof_input(e, &p, PMIX_FWD_STDERR_CHANNEL, data, 900, 1);
	got_init(&g);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDERR_CHANNEL, &newest, false, sink, &g, 1, &id);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 800);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 800));
	ck_assert_uint_eq(g.dropped, 100);
	sx_iof_unsubscribe(e, id, 1);
	got_free(&g);
	got_init(&g);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDERR_CHANNEL, &oldest, false, sink, &g, 1, &id);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 800);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data + 100, 800));
	sx_iof_unsubscribe(e, id, 1);
	got_free(&g);
	free(data);
	sx_iof_destroy(e);
}
END_TEST

/* A relayed stream with a gap (the history of another node's engine:
 * its first bytes, what fell out, its latest bytes): the gap counts as
 * the stream's, a live subscriber is told it was dropped, and a late one
 * gets the first bytes with DROP_NEWEST (the head takes nothing after
 * the gap) or the latest with DROP_OLDEST, with the gap in its count. */
START_TEST(relay_gap)
{
	sx_iof_t *e = sx_iof_create(256, 1 << 20);
	pmix_proc_t p = proc(2);
	char *data = pattern(0, 1150);
	sx_iof_opts_t all = opts(0, false), newest = opts(100, true), oldest = opts(50, false);
	uint32_t live, id;
	got_t g, h;

	got_init(&g);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &all, false, sink, &g, 1, &live);
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data, 100, 1);
	ck_assert_int_eq(sx_iof_skip(e, &p, PMIX_FWD_STDOUT_CHANNEL, 1000), PMIX_SUCCESS);
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data + 1100, 50, 1);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 150);
	ck_assert_uint_eq(g.dropped, 1000);
	got_init(&h);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &newest, false, sink, &h, 1, &id);
	ck_assert_uint_eq(sx_iof_buf_size(&h.bytes), 100);
	ck_assert(!memcmp(sx_iof_buf_data(&h.bytes), data, 100));
	ck_assert_uint_eq(h.dropped, 1050);
	sx_iof_unsubscribe(e, id, 1);
	got_free(&h);
	got_init(&h);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &oldest, false, sink, &h, 1, &id);
	ck_assert_uint_eq(sx_iof_buf_size(&h.bytes), 50);
	ck_assert(!memcmp(sx_iof_buf_data(&h.bytes), data + 1100, 50));
	ck_assert_uint_eq(h.dropped, 1100);
	sx_iof_unsubscribe(e, id, 1);
	got_free(&h);
	/* broken: no channel, two channels, an ended stream */
	ck_assert_int_eq(sx_iof_skip(e, &p, 0, 1), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sx_iof_skip(e, &p, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, 1),
			 PMIX_ERR_BAD_PARAM);
	sx_iof_close(e, &p, PMIX_FWD_STDOUT_CHANNEL, 1);
	ck_assert_int_eq(sx_iof_skip(e, &p, PMIX_FWD_STDOUT_CHANNEL, 1), PMIX_ERR_BAD_PARAM);
	sx_iof_unsubscribe(e, live, 1);
	got_free(&g);
	free(data);
	sx_iof_destroy(e);
}
END_TEST

/* A sink that asks to be left alone: the bytes wait within the cache
 * size, the newest (or oldest) beyond it are dropped and counted; resume
 * delivers the rest; the input never waits. */
START_TEST(slow_sink_bounded)
{
	for (int newest = 0; newest < 2; newest++) {
		sx_iof_t *e = sx_iof_create(64, 1 << 20);
		pmix_proc_t p = proc(0);
		sx_iof_opts_t o = opts(1000, newest);
		char *data = pattern(0, 10000);
		uint32_t id;
		got_t g;

		got_init(&g);
		g.take_more = false;
		sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g, 0, &id);
		sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data, 100, 1); /* taken, then hold */
		ck_assert_int_eq(g.chunks, 1);
		for (size_t at = 100; at < 10000; at += 100)
			ck_assert_int_eq(sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data + at,
						      100, 2),
					 PMIX_SUCCESS);
		ck_assert_int_eq(g.chunks, 1);
		ck_assert_uint_le(sx_iof_bytes(e), 64 + 1000);
		g.take_more = true;
		sx_iof_resume(e, id, 3);
		ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 1100);
		ck_assert_uint_eq(g.dropped, 10000 - 1100);
		/* kept: the 1000 after the first 100 (newest dropped), or the
		 * last 1000 (oldest dropped) */
		ck_assert(!memcmp(sx_iof_buf_data(&g.bytes) + 100, data + (newest ? 100 : 9000),
				  1000));
		sx_iof_unsubscribe(e, id, 4);
		ck_assert_int_eq(sx_iof_unsubscribe(e, id, 4), PMIX_ERR_BAD_PARAM);
		free(data);
		got_free(&g);
		sx_iof_destroy(e);
	}
}
END_TEST

/* BUFFERING_SIZE: chunks of exactly N bytes, the last shorter at the
 * end; BUFFERING_TIME: a partial buffer once its first byte waited T. */
START_TEST(buffering)
{
	sx_iof_t *e = sx_iof_create(64, 1 << 20);
	pmix_proc_t p = proc(2);
	sx_iof_opts_t o = { .buf_size = 1000 };
	char *data = pattern(0, 10500);
	uint32_t id;
	got_t g;

	got_init(&g);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g, 0, &id);
	for (size_t at = 0; at < 10500; at += 350)
		sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data + at, 350, 1);
	ck_assert_int_eq(g.chunks, 10);
	for (int i = 0; i < 10; i++)
		ck_assert_uint_eq(g.sizes[i], 1000);
	sx_iof_close(e, &p, PMIX_FWD_STDOUT_CHANNEL, 2);
	ck_assert_int_eq(g.chunks, 11);
	ck_assert_uint_eq(g.sizes[10], 500);
	ck_assert_int_eq(g.completes, 1);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 10500));
	sx_iof_unsubscribe(e, id, 3);
	got_free(&g);

	o = (sx_iof_opts_t){ .buf_time_ms = 2000 };
	got_init(&g);
	p = proc(4);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g, 1000, &id);
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, "abc", 3, 1000);
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, "def", 3, 2500);
	ck_assert_int_eq(g.chunks, 0);
	ck_assert_int_eq(sx_iof_tick(e, 2999), 1);
	ck_assert_int_eq(g.chunks, 0);
	ck_assert_int_eq(sx_iof_tick(e, 3000), -1);
	ck_assert_int_eq(g.chunks, 1);
	ck_assert_uint_eq(g.sizes[0], 6);
	/* unsubscribe flushes what waits */
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, "ghi", 3, 3100);
	ck_assert_int_eq(sx_iof_tick(e, 3100), 2000);
	sx_iof_unsubscribe(e, id, 3200);
	ck_assert_int_eq(g.chunks, 2);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 9);
	ck_assert_int_eq(sx_iof_tick(e, 9999), -1);
	free(data);
	got_free(&g);
	sx_iof_destroy(e);
}
END_TEST

/* A reader that keeps up gets one input larger than its bound whole; a
 * size with a time: a short buffer goes when it waited that long, and the
 * timer is not due again before that (it would spin). */
START_TEST(bounds_and_deadlines)
{
	sx_iof_t *e = sx_iof_create(64, 1 << 20);
	pmix_proc_t p = proc(0), q = proc(1);
	sx_iof_opts_t o = opts(4096, false), ob = { .buf_size = 4096, .buf_time_ms = 1000 };
	char *data = pattern(0, 65536);
	uint32_t id, id2;
	got_t g, h;

	got_init(&g);
	sx_iof_subscribe(e, &p, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g, 0, &id);
	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, data, 65536, 1);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 65536);
	ck_assert(!memcmp(sx_iof_buf_data(&g.bytes), data, 65536));
	ck_assert_uint_eq(g.dropped, 0);
	got_init(&h);
	sx_iof_subscribe(e, &q, 1, PMIX_FWD_STDOUT_CHANNEL, &ob, false, sink, &h, 0, &id2);
	sx_iof_input(e, &q, PMIX_FWD_STDOUT_CHANNEL, "hello\n", 6, 0);
	ck_assert_int_eq(sx_iof_tick(e, 999), 1);
	ck_assert_int_eq(h.chunks, 0);
	ck_assert_int_eq(sx_iof_tick(e, 1000), -1);
	ck_assert_int_eq(h.chunks, 1);
	ck_assert_uint_eq(h.sizes[0], 6);
	sx_iof_unsubscribe(e, id, 2000);
	sx_iof_unsubscribe(e, id2, 2000);
	free(data);
	got_free(&g);
	got_free(&h);
	sx_iof_destroy(e);
}
END_TEST

/* A stream that ended before the subscription: its history, then its
 * end; one that never wrote: its end alone. */
START_TEST(ended_before)
{
	sx_iof_t *e = sx_iof_create(1024, 1 << 20);
	pmix_proc_t p = proc(0), q = proc(1), wild = proc(PMIX_RANK_WILDCARD);
	sx_iof_opts_t o = opts(0, false);
	uint32_t id;
	got_t g;

	sx_iof_input(e, &p, PMIX_FWD_STDOUT_CHANNEL, "last words\n", 11, 1);
	sx_iof_close(e, &p, PMIX_FWD_STDOUT_CHANNEL, 2);
	sx_iof_close(e, &q, PMIX_FWD_STDOUT_CHANNEL, 2);
	got_init(&g);
	sx_iof_subscribe(e, &wild, 1, PMIX_FWD_STDOUT_CHANNEL, &o, false, sink, &g, 3, &id);
	ck_assert_int_eq(g.completes, 2);
	ck_assert_uint_eq(sx_iof_buf_size(&g.bytes), 11);
	ck_assert(!g.after_complete);
	sx_iof_unsubscribe(e, id, 4);
	got_free(&g);
	sx_iof_destroy(e);
}
END_TEST

START_TEST(directives)
{
	pmix_info_t info[4];
	sx_iof_opts_t o;
	const char *bad = NULL;
	uint32_t n = 4096, t = 2;
	bool yes = true;

	PMIx_Info_load(&info[0], PMIX_IOF_CACHE_SIZE, &n, PMIX_UINT32);
	PMIx_Info_load(&info[1], PMIX_IOF_DROP_NEWEST, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[2], PMIX_IOF_BUFFERING_TIME, &t, PMIX_UINT32);
	PMIx_Info_load(&info[3], PMIX_IOF_XML_OUTPUT, &yes, PMIX_BOOL);
	ck_assert_int_eq(sx_iof_opts_parse(info, 4, &o, &bad), PMIX_SUCCESS);
	ck_assert_uint_eq(o.cache_size, 4096);
	ck_assert(o.drop_newest && o.fmt.xml && !o.fmt.tag);
	ck_assert_uint_eq(o.buf_time_ms, 2000);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_IOF_CACHE_SIZE, "big", PMIX_STRING);
	ck_assert_int_eq(sx_iof_opts_parse(info, 4, &o, &bad), PMIX_ERR_BAD_PARAM);
	ck_assert_str_eq(bad, PMIX_IOF_CACHE_SIZE);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_IOF_DROP_OLDEST, &yes, PMIX_BOOL);
	ck_assert_int_eq(sx_iof_opts_parse(info, 4, &o, &bad), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_IOF_TAG_OUTPUT, &n, PMIX_UINT32); /* not a flag */
	ck_assert_int_eq(sx_iof_opts_parse(info, 4, &o, &bad), PMIX_ERR_BAD_PARAM);
	ck_assert_str_eq(bad, PMIX_IOF_TAG_OUTPUT);
	for (int i = 0; i < 4; i++)
		PMIx_Info_destruct(&info[i]);
	ck_assert_int_eq(sx_iof_opts_parse(NULL, 0, &o, NULL), PMIX_SUCCESS);
	ck_assert_uint_eq(o.cache_size, 0);
}
END_TEST

static char *out_str(const sx_iof_buf_t *b)
{
	char *s = malloc(sx_iof_buf_size(b) + 1);

	memcpy(s, sx_iof_buf_data(b), sx_iof_buf_size(b));
	s[sx_iof_buf_size(b)] = 0;
	return s;
}

/* Tagged lines of two sources: each source's partial line waits for its
 * own rest, never for another's. */
START_TEST(format_tag_lines)
{
	sx_iof_t *e = sx_iof_create(1024, 1 << 20);
	pmix_proc_t p3 = proc(3), p5 = proc(5), wild = proc(PMIX_RANK_WILDCARD);
	sx_iof_opts_t o = { .fmt.tag = true };
	uint32_t id;
	got_t g;
	char *s;

	got_init(&g);
	sx_iof_subscribe(e, &wild, 1, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, &o, false,
			 sink, &g, 0, &id);
	sx_iof_input(e, &p3, PMIX_FWD_STDOUT_CHANNEL, "abc", 3, 1);
	sx_iof_input(e, &p5, PMIX_FWD_STDOUT_CHANNEL, "def\nxy", 6, 1);
	sx_iof_input(e, &p3, PMIX_FWD_STDOUT_CHANNEL, "123\n", 4, 1);
	sx_iof_input(e, &p3, PMIX_FWD_STDERR_CHANNEL, "oops\n", 5, 1);
	sx_iof_close(e, &p5, PMIX_FWD_STDOUT_CHANNEL, 2); /* its partial line comes out */
	s = out_str(&g.bytes);
	ck_assert_str_eq(s, "[" NS ",5]<stdout>: def\n"
			    "[" NS ",3]<stdout>: abc123\n"
			    "[" NS ",3]<stderr>: oops\n"
			    "[" NS ",5]<stdout>: xy");
	free(s);
	sx_iof_unsubscribe(e, id, 3);
	got_free(&g);
	sx_iof_destroy(e);
}
END_TEST

START_TEST(format_timestamp)
{
	sx_iof_fmt_t f = { .timestamp = true, .tag = true };
	sx_iof_buf_t out = { 0 }, resid = { 0 };
	pmix_proc_t p = proc(0);
	char *s;

	ck_assert_int_eq(sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, "hi\n", 3, false,
				       1764657600123LL, &out),
			 0);
	s = out_str(&out);
	ck_assert_str_eq(s, "[2025-12-02T06:40:00.123Z] [" NS ",0]<stdout>: hi\n");
	free(s);
	sx_iof_buf_free(&out);
	sx_iof_buf_free(&resid);
}
END_TEST

/* Decodes base64 (no checks beyond the alphabet) into out. */
static size_t unbase64(const char *s, size_t n, unsigned char *out)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t k = 0;
	uint32_t v = 0;
	int bits = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		v = v << 6 | (uint32_t)(strchr(tbl, s[i]) - tbl);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(v >> bits);
		}
	}
	return k;
}

/* XML: text escaped, other bytes in base64, the exact bytes recoverable,
 * nothing a parser would refuse (no raw < & or control byte in text). */
START_TEST(format_xml)
{
	sx_iof_fmt_t f = { .xml = true };
	sx_iof_buf_t out = { 0 }, resid = { 0 };
	pmix_proc_t p = proc(7);
	unsigned char bin[256], back[256];
	const char *b64, *end;
	char *s;

	ck_assert_int_eq(sx_iof_format(&f, &resid, &p, PMIX_FWD_STDERR_CHANNEL, "a<b>&\"c'\r\n", 10,
				       false, 0, &out),
			 0);
	s = out_str(&out);
	ck_assert_str_eq(s, "<stderr nspace=\"" NS "\" rank=\"7\">a&lt;b&gt;&amp;&quot;c&apos;"
			    "&#13;</stderr>\n");
	free(s);
	sx_iof_buf_eat(&out, sx_iof_buf_size(&out));
	for (int i = 0; i < 256; i++)
		bin[i] = (unsigned char)(i == '\n' ? 0 : i);
	ck_assert_int_eq(sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, (char *)bin, 256,
				       true, 0, &out),
			 0);
	s = out_str(&out);
	ck_assert_ptr_nonnull(strstr(s, "nl=\"0\" encoding=\"base64\">"));
	b64 = strchr(s, '>') + 1;
	end = strstr(b64, "</stdout>\n");
	ck_assert_ptr_nonnull(end);
	ck_assert_uint_eq(unbase64(b64, (size_t)(end - b64), back), 256);
	ck_assert(!memcmp(back, bin, 256));
	free(s);
	/* valid UTF-8 stays text; a lone continuation byte or an overlong
	 * form does not */
	sx_iof_buf_eat(&out, sx_iof_buf_size(&out));
	sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, "caf\xc3\xa9\n\x80\n\xc0\xaf\n", 11,
		      false, 0, &out);
	s = out_str(&out);
	ck_assert_ptr_nonnull(strstr(s, ">caf\xc3\xa9</stdout>"));
	ck_assert_ptr_nonnull(strstr(s, "encoding=\"base64\">gA==</stdout>"));
	ck_assert_ptr_nonnull(strstr(s, "encoding=\"base64\">wK8=</stdout>"));
	free(s);
	sx_iof_buf_free(&out);
	sx_iof_buf_free(&resid);
}
END_TEST

/* Random bytes of every value, lines of every length, in XML: xmllint
 * takes the document (libxml2-utils; without it only under CI=true is
 * that a failure). */
START_TEST(format_xml_validates)
{
	sx_iof_fmt_t f = { .xml = true, .timestamp = true };
	sx_iof_buf_t out = { 0 }, resid = { 0 };
	pmix_proc_t p;
	char path[] = "/tmp/test_iof.XXXXXX", cmd[128];
	unsigned char *raw = malloc(65536);
	uint32_t x = 12345;
	FILE *fp;
	int fd;

	if (access("/usr/bin/xmllint", X_OK) != 0) {
		const char *ci = getenv("CI");

		ck_assert_msg(!ci || strcmp(ci, "true"), "no xmllint (libxml2-utils)");
		free(raw);
		return;
	}
	PMIx_Load_procid(&p, "ns&<\"'>", 1);
	for (int i = 0; i < 65536; i++) {
		x = x * 1103515245 + 12345;
		raw[i] = (unsigned char)(x >> 16);
		if (x % 97 == 0)
			raw[i] = '\n';
	}
	ck_assert_int_eq(sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, (char *)raw, 65536,
				       true, 1764657600123LL, &out),
			 0);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(fp = fdopen(fd, "w"));
	fputs("<iof>\n", fp);
	fwrite(sx_iof_buf_data(&out), 1, sx_iof_buf_size(&out), fp);
	fputs("</iof>\n", fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "/usr/bin/xmllint --noout %s", path);
	ck_assert_int_eq(system(cmd), 0);
	unlink(path);
	free(raw);
	sx_iof_buf_free(&out);
	sx_iof_buf_free(&resid);
}
END_TEST

/* An unterminated line longer than the bound goes out anyway. */
START_TEST(format_long_line)
{
	sx_iof_fmt_t f = { .tag = true };
	sx_iof_buf_t out = { 0 }, resid = { 0 };
	pmix_proc_t p = proc(0);
	char *big = malloc(SX_IOF_LINE_MAX);

	memset(big, 'z', SX_IOF_LINE_MAX);
	sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, big, SX_IOF_LINE_MAX - 1, false, 0,
		      &out);
	ck_assert_uint_eq(sx_iof_buf_size(&out), 0);
	sx_iof_format(&f, &resid, &p, PMIX_FWD_STDOUT_CHANNEL, big, 1, false, 0, &out);
	ck_assert_uint_gt(sx_iof_buf_size(&out), SX_IOF_LINE_MAX);
	ck_assert_uint_eq(sx_iof_buf_size(&resid), 0);
	free(big);
	sx_iof_buf_free(&out);
	sx_iof_buf_free(&resid);
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "live_bytes_exact", live_bytes_exact },
		{ "history_late_subscriber", history_late_subscriber },
		{ "history_short_stream", history_short_stream },
		{ "relay_gap", relay_gap },
		{ "slow_sink_bounded", slow_sink_bounded },
		{ "buffering", buffering },
		{ "ended_before", ended_before },
		{ "bounds_and_deadlines", bounds_and_deadlines },
		{ "directives", directives },
		{ "format_tag_lines", format_tag_lines },
		{ "format_timestamp", format_timestamp },
		{ "format_xml", format_xml },
		{ "format_long_line", format_long_line },
		{ "format_xml_validates", format_xml_validates },
	};

	return unit_main(argc, argv,
			 &(struct unit_spec){ .name = "iof",
					      .tests = tests,
					      .ntests = sizeof(tests) / sizeof(tests[0]),
					      .timeout = 60 });
}
