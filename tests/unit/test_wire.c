/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_wire.c - check suite for the progress engine (common/progress.c) and
 * the framing layer (wire/frame.c).
 *
 * Framing tests run a real pxc_conn_t in a progress thread on one end of a
 * socketpair and write raw bytes (good frames, broken headers, truncated
 * frames) to the other end from the test thread; callbacks record what
 * arrived and signal a pxc_sync_t the test waits on with a timeout.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame.h"
#include "pack.h"
#include "progress.h"
#include "runner.h"

/* ---- progress ---- */

struct counter {
	int n;
	int order[64];
	pxc_sync_t sync;
	int want;
};

struct item {
	struct counter *c;
	int id;
};

static void count_item(void *arg)
{
	struct item *it = arg;
	struct counter *c = it->c;

	c->order[c->n++] = it->id;
	if (c->n == c->want)
		pxc_sync_signal(&c->sync, PMIX_SUCCESS);
}

START_TEST(progress_runs_in_order)
{
	pxc_progress_t *pg = pxc_progress_start("t");
	struct counter c = { .want = 32 };
	struct item items[32];

	ck_assert_ptr_nonnull(pg);
	pxc_sync_init(&c.sync);
	for (int i = 0; i < 32; i++) {
		items[i].c = &c;
		items[i].id = i;
		ck_assert_int_eq(pxc_progress_post(pg, count_item, &items[i]), 0);
	}
	ck_assert_int_eq(pxc_sync_wait(&c.sync, 5000), PMIX_SUCCESS);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(c.order[i], i);
	pxc_progress_stop(pg);
	pxc_sync_fini(&c.sync);
}
END_TEST

static void set_flag(void *arg)
{
	*(int *)arg = 1;
}

START_TEST(progress_stop_drains_and_refuses)
{
	pxc_progress_t *pg = pxc_progress_start("t");
	int ran = 0;

	ck_assert_int_eq(pxc_progress_post(pg, set_flag, &ran), 0);
	pxc_progress_stop(pg);
	ck_assert_int_eq(ran, 1);
	ck_assert(!pxc_progress_in_thread(NULL));
}
END_TEST

START_TEST(progress_global_refcount)
{
	pxc_progress_t *a = pxc_progress_acquire();
	pxc_progress_t *b = pxc_progress_acquire();

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(a, b);
	pxc_progress_release();
	ck_assert_ptr_eq(pxc_progress_global(), a);
	pxc_progress_release();
	ck_assert_ptr_null(pxc_progress_global());
}
END_TEST

START_TEST(sync_times_out)
{
	pxc_sync_t s;

	pxc_sync_init(&s);
	ck_assert_int_eq(pxc_sync_wait(&s, 50), PMIX_ERR_TIMEOUT);
	pxc_sync_signal(&s, PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(pxc_sync_wait(&s, 50), PMIX_ERR_NOT_FOUND);
	pxc_sync_fini(&s);
}
END_TEST

/* ---- header codec ---- */

START_TEST(hdr_round_trip)
{
	pxc_wire_hdr_t h = { .len = 1234, .tag = 77, .cmd = 5, .flags = PXC_WIRE_F_REPLY }, g;
	unsigned char raw[PXC_WIRE_HDR_LEN];
	const unsigned char expect[PXC_WIRE_HDR_LEN] = { 0x53, 0x4c, 0x4d, 0x58, 0, 0, 0x04, 0xd2,
							 0,    0,    0,    77,   0, 5, 0,    1 };

	pxc_wire_hdr_encode(&h, raw);
	ck_assert_mem_eq(raw, expect, sizeof(raw));
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, PXC_WIRE_MAX_PAYLOAD, &g), 0);
	ck_assert_uint_eq(g.len, 1234);
	ck_assert_uint_eq(g.tag, 77);
	ck_assert_uint_eq(g.cmd, 5);
	ck_assert_uint_eq(g.flags, PXC_WIRE_F_REPLY);
}
END_TEST

START_TEST(hdr_rejects_bad_magic_and_size)
{
	pxc_wire_hdr_t h = { .len = 100 }, g;
	unsigned char raw[PXC_WIRE_HDR_LEN];

	pxc_wire_hdr_encode(&h, raw);
	raw[0] ^= 0xff;
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, 1000, &g), -1);
	ck_assert_int_eq(errno, EPROTO);
	raw[0] ^= 0xff;
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, 99, &g), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
}
END_TEST

/* ---- connections ---- */

struct rx {
	pxc_progress_t *pg;
	pxc_conn_t *conn;
	int fd;
	int msgs;
	uint16_t last_cmd;
	uint32_t last_tag;
	size_t last_len;
	char last_payload[64];
	int closed_err;
	int closed;
	pxc_sync_t sync;
	int want_msgs;
	size_t max;
};

static void rx_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *p, void *arg)
{
	struct rx *r = arg;
	size_t n = pxc_buf_remaining(p);

	(void)c;
	r->msgs++;
	r->last_cmd = h->cmd;
	r->last_tag = h->tag;
	r->last_len = n;
	if (n)
		memcpy(r->last_payload, pxc_buf_read_ptr(p), n < 64 ? n : 64);
	if (r->msgs == r->want_msgs)
		pxc_sync_signal(&r->sync, PMIX_SUCCESS);
}

static void rx_close(pxc_conn_t *c, int err, void *arg)
{
	struct rx *r = arg;

	r->closed = 1;
	r->closed_err = err;
	pxc_conn_close(c, 0);
	r->conn = NULL;
	pxc_sync_signal(&r->sync, PMIX_ERR_UNREACH);
}

static void rx_open(void *arg)
{
	struct rx *r = arg;

	r->conn = pxc_conn_new(pxc_progress_base(r->pg), r->fd, r->max, rx_msg, rx_close, r);
}

static void rx_shut(void *arg)
{
	struct rx *r = arg;

	pxc_conn_close(r->conn, 0);
	r->conn = NULL;
}

static int rx_setup_max(struct rx *r, int want, size_t max)
{
	int sv[2];

	memset(r, 0, sizeof(*r));
	r->max = max;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	r->fd = sv[0];
	r->want_msgs = want;
	pxc_sync_init(&r->sync);
	r->pg = pxc_progress_start("t");
	ck_assert_int_eq(pxc_progress_post(r->pg, rx_open, r), 0);
	return sv[1];
}

static int rx_setup(struct rx *r, int want)
{
	return rx_setup_max(r, want, 4096);
}

static void rx_teardown(struct rx *r)
{
	pxc_progress_post(r->pg, rx_shut, r);
	pxc_progress_stop(r->pg);
	pxc_sync_fini(&r->sync);
}

static void write_frame(int fd, uint16_t cmd, uint32_t tag, const char *payload, size_t len)
{
	unsigned char raw[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = (uint32_t)len, .tag = tag, .cmd = cmd };

	pxc_wire_hdr_encode(&h, raw);
	ck_assert_int_eq(write(fd, raw, sizeof(raw)), (ssize_t)sizeof(raw));
	if (len)
		ck_assert_int_eq(write(fd, payload, len), (ssize_t)len);
}

START_TEST(conn_delivers_frames)
{
	struct rx r;
	int peer = rx_setup(&r, 3);

	write_frame(peer, 1, 10, "abc", 3);
	write_frame(peer, 2, 11, NULL, 0);
	/* A frame split into single bytes must be reassembled. */
	{
		unsigned char raw[PXC_WIRE_HDR_LEN];
		pxc_wire_hdr_t h = { .len = 5, .tag = 12, .cmd = 3 };

		pxc_wire_hdr_encode(&h, raw);
		for (size_t i = 0; i < sizeof(raw); i++)
			ck_assert_int_eq(write(peer, raw + i, 1), 1);
		ck_assert_int_eq(write(peer, "hello", 5), 5);
	}
	ck_assert_int_eq(pxc_sync_wait(&r.sync, 5000), PMIX_SUCCESS);
	ck_assert_int_eq(r.msgs, 3);
	ck_assert_uint_eq(r.last_cmd, 3);
	ck_assert_uint_eq(r.last_tag, 12);
	ck_assert_uint_eq(r.last_len, 5);
	ck_assert_mem_eq(r.last_payload, "hello", 5);
	rx_teardown(&r);
	close(peer);
}
END_TEST

/* Many frames in one burst, a frame of several MiB (the read buffer grows
 * to hold it, then is released), then the peer closes: every frame
 * arrives whole and in order, and the end is reported only after the last
 * one. */
struct order {
	uint32_t next;
	int bad;
	int ended_after;
	pxc_sync_t sync;
};

static void ord_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *p, void *arg)
{
	struct order *o = arg;
	size_t n = pxc_buf_remaining(p);
	const unsigned char *b = (const unsigned char *)pxc_buf_read_ptr(p);

	(void)c;
	if (h->tag != o->next++)
		o->bad++;
	for (size_t i = 0; i < n; i++)
		if (b[i] != (unsigned char)(h->tag + i))
			return (void)o->bad++;
}

static void ord_close(pxc_conn_t *c, int err, void *arg)
{
	struct order *o = arg;

	o->ended_after = (int)o->next;
	pxc_conn_close(c, 0);
	pxc_sync_signal(&o->sync, err ? PMIX_ERROR : PMIX_SUCCESS);
}

struct ord_open {
	struct order *o;
	pxc_progress_t *pg;
	int fd;
};

static void ord_open_fn(void *arg)
{
	struct ord_open *a = arg;

	ck_assert_ptr_nonnull(
		pxc_conn_new(pxc_progress_base(a->pg), a->fd, 8u << 20, ord_msg, ord_close, a->o));
}

static void ord_frame(int fd, uint32_t tag, size_t len)
{
	unsigned char *buf = malloc(PXC_WIRE_HDR_LEN + len);
	pxc_wire_hdr_t h = { .len = (uint32_t)len, .tag = tag, .cmd = 4 };
	size_t off = 0;

	pxc_wire_hdr_encode(&h, buf);
	for (size_t i = 0; i < len; i++)
		buf[PXC_WIRE_HDR_LEN + i] = (unsigned char)(tag + i);
	while (off < PXC_WIRE_HDR_LEN + len) {
		ssize_t w = write(fd, buf + off, PXC_WIRE_HDR_LEN + len - off);

		ck_assert_int_gt(w, 0);
		off += (size_t)w;
	}
	free(buf);
}

START_TEST(conn_burst_large_then_eof)
{
	struct order o = { 0 };
	struct ord_open a = { .o = &o };
	uint32_t tag = 0;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pxc_sync_init(&o.sync);
	a.fd = sv[0];
	a.pg = pxc_progress_start("t");
	ck_assert_int_eq(pxc_progress_post(a.pg, ord_open_fn, &a), 0);
	for (int i = 0; i < 300; i++)
		ord_frame(sv[1], tag++, (size_t)(i % 37));
	ord_frame(sv[1], tag++, 5u << 20); /* 5 MiB */
	for (int i = 0; i < 50; i++)
		ord_frame(sv[1], tag++, 100);
	ord_frame(sv[1], tag++, 40000);
	close(sv[1]);
	ck_assert_int_eq(pxc_sync_wait(&o.sync, 10000), PMIX_SUCCESS);
	ck_assert_int_eq(o.bad, 0);
	ck_assert_uint_eq(o.next, tag);
	ck_assert_int_eq(o.ended_after, (int)tag);
	pxc_progress_stop(a.pg);
	pxc_sync_fini(&o.sync);
}
END_TEST

START_TEST(conn_bad_magic_closes)
{
	struct rx r;
	int peer = rx_setup(&r, 1);

	ck_assert_int_eq(write(peer, "GARBAGE-GARBAGE-GARBAGE", 23), 23);
	ck_assert_int_eq(pxc_sync_wait(&r.sync, 5000), PMIX_ERR_UNREACH);
	ck_assert_int_eq(r.closed, 1);
	ck_assert_int_eq(r.closed_err, EPROTO);
	ck_assert_int_eq(r.msgs, 0);
	rx_teardown(&r);
	close(peer);
}
END_TEST

START_TEST(conn_absurd_length_closes)
{
	struct rx r;
	int peer = rx_setup(&r, 1);
	unsigned char raw[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = 0x7fffffff, .tag = 1, .cmd = 1 };

	pxc_wire_hdr_encode(&h, raw);
	ck_assert_int_eq(write(peer, raw, sizeof(raw)), (ssize_t)sizeof(raw));
	ck_assert_int_eq(pxc_sync_wait(&r.sync, 5000), PMIX_ERR_UNREACH);
	ck_assert_int_eq(r.closed_err, EMSGSIZE);
	rx_teardown(&r);
	close(peer);
}
END_TEST

START_TEST(conn_truncated_then_eof)
{
	struct rx r;
	int peer = rx_setup(&r, 1);
	unsigned char raw[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = 100, .tag = 1, .cmd = 1 };

	pxc_wire_hdr_encode(&h, raw);
	ck_assert_int_eq(write(peer, raw, sizeof(raw)), (ssize_t)sizeof(raw));
	ck_assert_int_eq(write(peer, "partial", 7), 7);
	close(peer);
	ck_assert_int_eq(pxc_sync_wait(&r.sync, 5000), PMIX_ERR_UNREACH);
	ck_assert_int_eq(r.closed, 1);
	ck_assert_int_eq(r.closed_err, 0);
	ck_assert_int_eq(r.msgs, 0);
	rx_teardown(&r);
}
END_TEST

/* A frame larger than the socket buffer: the first part goes out at once
 * from pxc_conn_send, the rest through the bufferevent; the peer must read
 * one intact frame. Then a small frame behind it keeps its order. */
struct big_send {
	struct rx *r;
	pmix_data_buffer_t payload;
	int rc1, rc2;
};

static void big_send_fn(void *arg)
{
	struct big_send *b = arg;
	pmix_data_buffer_t small;

	b->rc1 = pxc_conn_send(b->r->conn, 7, 70, 0, &b->payload);
	pxc_buf_init(&small);
	pxc_buf_append(&small, "tail", 4);
	b->rc2 = pxc_conn_send(b->r->conn, 8, 80, 0, &small);
	pxc_buf_clear(&small);
}

static void read_full(int fd, void *dst, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)dst + got, len - got);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
}

START_TEST(conn_sends_big_frame_in_order)
{
	struct rx r;
	int peer = rx_setup_max(&r, 1, 8u << 20);
	struct big_send b = { .r = &r };
	size_t len = 4u << 20;
	unsigned char raw[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;
	char *body = malloc(len), *got = malloc(len);

	for (size_t i = 0; i < len; i++)
		body[i] = (char)(i * 7);
	pxc_buf_init(&b.payload);
	pxc_buf_append(&b.payload, body, len);
	ck_assert_int_eq(pxc_progress_post(r.pg, big_send_fn, &b), 0);
	read_full(peer, raw, sizeof(raw));
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, 8u << 20, &h), 0);
	ck_assert_uint_eq(h.len, len);
	ck_assert_uint_eq(h.tag, 70);
	read_full(peer, got, len);
	ck_assert_mem_eq(got, body, len);
	read_full(peer, raw, sizeof(raw));
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, 8u << 20, &h), 0);
	ck_assert_uint_eq(h.tag, 80);
	read_full(peer, got, 4);
	ck_assert_mem_eq(got, "tail", 4);
	ck_assert_int_eq(b.rc1, 0);
	ck_assert_int_eq(b.rc2, 0);
	rx_teardown(&r);
	pxc_buf_clear(&b.payload);
	free(body);
	free(got);
	close(peer);
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tp = tcase_create("progress");
	TCase *th = tcase_create("header");
	TCase *tc = tcase_create("conn");

	tcase_set_timeout(tp, 20);
	tcase_set_timeout(th, 20);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tp, progress_runs_in_order);
	tcase_add_test(tp, progress_stop_drains_and_refuses);
	tcase_add_test(tp, progress_global_refcount);
	tcase_add_test(tp, sync_times_out);
	tcase_add_test(th, hdr_round_trip);
	tcase_add_test(th, hdr_rejects_bad_magic_and_size);
	tcase_add_test(tc, conn_delivers_frames);
	tcase_add_test(tc, conn_burst_large_then_eof);
	tcase_add_test(tc, conn_bad_magic_closes);
	tcase_add_test(tc, conn_absurd_length_closes);
	tcase_add_test(tc, conn_truncated_then_eof);
	tcase_add_test(tc, conn_sends_big_frame_in_order);
	suite_add_tcase(s, tp);
	suite_add_tcase(s, th);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = wire_suite });
}
