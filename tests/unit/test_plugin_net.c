/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_net.c - check suite for the step daemons' transport
 * (src/plugin/net/transport.c) alone: two transports over loopback in one
 * process, on one progress engine, as nodes 0 and 1 of a step. The test
 * registers message kinds of its own and checks that each reaches its
 * user only, that registration refuses overlaps, that a closed peer is
 * reported to every user, that stop reaches every user once and sends
 * nothing after, and that a peer found unreachable inside plug_net_send
 * is reported from the loop after the send returned, never from inside
 * it, and that connections that do not prove the job key in the
 * handshake of lib/auth.h are dropped and logged once (garbage, the old
 * HELLO with the key in clear, a truncated handshake, a wrong and a stale
 * key, a replayed answer; a peer transport with another key; a listener
 * that answers with a replayed AUTH_OK gets nothing). The same case is then played through direct modex
 * (src/plugin/net/dmodex.c): a Get whose owner has no endpoint ends
 * PMIX_ERR_UNREACH at once instead of waiting for its timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <pmix.h>

#include "pack.h"
#include "progress.h"
#include "pxc.h"
#include "frame.h"
#include "lib/auth.h"
#include "lib/endpoints.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "net/ctx.h"
#include "net/dmodex.h"
#include "net/transport.h"
#include "net/xstep.h"
#include "slurm_adapter.h"
#include "runner.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define KIND_A 100 /* test kinds, above every real one */
#define KIND_B 101
#define KIND_C 102
#define KIND_NOBODY 110
#define WAIT_MS 5000

/* ---- what the users saw (written in the progress thread) ------------- */

typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int msgs, lost, starts, stops;
	uint32_t last_from, last_lost;
	uint16_t last_cmd;
	uint32_t last_tag;
	char last_text[64];
	int lost_inside_send; /* a peer-lost came while a send ran */
	int lost_of[4];       /* peer-losts per peer id */
} seen_t;

static seen_t seen[3];       /* users 0, 1 on node 1 (kinds A, B); 2 on node 0 */
static volatile int in_send; /* the progress thread is inside plug_net_send */

static void seen_init(void)
{
	for (int i = 0; i < 3; i++) {
		memset(&seen[i], 0, sizeof(seen[i]));
		pthread_mutex_init(&seen[i].lock, NULL);
		pthread_cond_init(&seen[i].cond, NULL);
	}
}

#define SEEN_UPDATE(s, stmt)                        \
	do {                                        \
		pthread_mutex_lock(&(s)->lock);     \
		stmt;                               \
		pthread_cond_broadcast(&(s)->cond); \
		pthread_mutex_unlock(&(s)->lock);   \
	} while (0)

/* Waits until *field >= want or WAIT_MS pass; returns the field. */
static int seen_wait(seen_t *s, int *field, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&s->lock);
	while (*field < want && pthread_cond_timedwait(&s->cond, &s->lock, &ts) == 0)
		;
	v = *field;
	pthread_mutex_unlock(&s->lock);
	return v;
}

static void u_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	seen_t *s = arg;
	char *text = NULL;

	pxc_unpack_str(in, &text);
	SEEN_UPDATE(s, (s->msgs++, s->last_from = from, s->last_cmd = h->cmd, s->last_tag = h->tag,
			snprintf(s->last_text, sizeof(s->last_text), "%s", text ? text : "")));
	free(text);
}

static void u_lost(void *arg, uint32_t peer)
{
	seen_t *s = arg;

	SEEN_UPDATE(s, (s->lost++, s->last_lost = peer, s->lost_inside_send += in_send,
			s->lost_of[peer < 4 ? peer : 3]++));
}

static void u_start(void *arg)
{
	seen_t *s = arg;

	SEEN_UPDATE(s, s->starts++);
}

static void u_stop(void *arg)
{
	seen_t *s = arg;

	SEEN_UPDATE(s, s->stops++);
}

/* ---- two nodes -------------------------------------------------------- */

static pxc_progress_t *pg;
static plug_net_t *net[2];

static plug_net_t *make_node(uint32_t me)
{
	plug_net_args_t a = { .pg = pg,
			      .key = KEY,
			      .job = 7,
			      .step = 0,
			      .me = me,
			      .nnodes = 2,
			      .width = 2,
			      .route_host = "127.0.0.1" };

	return plug_net_create(&a);
}

static int add_user(plug_net_t *n, seen_t *s, uint16_t first, uint16_t last)
{
	plug_net_user_t u = { .name = "test",
			      .first = first,
			      .last = last,
			      .msg = u_msg,
			      .peer_lost = u_lost,
			      .start = u_start,
			      .stop = u_stop,
			      .arg = s };

	return plug_net_register(n, &u);
}

/* Work for the progress thread: one closure at a time. */
typedef struct {
	void (*fn)(void *);
	void *arg;
} job_t;

static void run_job(void *sync)
{
	job_t *j = ((pxc_sync_t *)sync)->arg;

	j->fn(j->arg);
	pxc_sync_signal(sync, PMIX_SUCCESS);
}

static void in_loop(void (*fn)(void *), void *arg)
{
	job_t j = { fn, arg };

	ck_assert_int_eq(pxc_progress_call_arg(pg, run_job, &j, WAIT_MS), PMIX_SUCCESS);
}

/* The table: node i at addr[i]:port[i]. */
typedef struct {
	char *addr[2];
	uint32_t port[2];
} table_t;

static void give_table(void *arg)
{
	table_t *t = arg;
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	ck_assert_int_eq(plug_endpoints_pack(&b, 2, t->addr, t->port), 0);
	plug_net_table_in(net[0], &b, false); /* the root: it sends it down */
	pxc_buf_clear(&b);
}

/* Nodes 0 and 1 up, with users: node 1 takes A (user 0) and B (user 1),
 * node 0 takes C (user 2). bad_addr: node 1's entry in the table points
 * at an address nobody can reach (for the unreachable cases). */
static void two_nodes(int bad_addr)
{
	table_t t;

	seen_init();
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	ck_assert_ptr_nonnull(net[0] = make_node(0));
	ck_assert_ptr_nonnull(net[1] = make_node(1));
	ck_assert_int_eq(add_user(net[1], &seen[0], KIND_A, KIND_A), 0);
	ck_assert_int_eq(add_user(net[1], &seen[1], KIND_B, KIND_B), 0);
	ck_assert_int_eq(add_user(net[0], &seen[2], KIND_C, KIND_C), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	ck_assert_int_eq(plug_net_start(net[1]), 0);
	ck_assert_int_eq(seen_wait(&seen[2], &seen[2].starts, 1), 1);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].starts, 1), 1);
	t.addr[0] = (char *)plug_net_addr(net[0]);
	t.port[0] = plug_net_port(net[0]);
	t.addr[1] = bad_addr ? "255.255.255.255" : (char *)plug_net_addr(net[1]);
	t.port[1] = bad_addr ? 9 : plug_net_port(net[1]);
	in_loop(give_table, &t);
}

static void down(void)
{
	plug_net_stop(net[0]);
	plug_net_stop(net[1]);
	pxc_progress_stop(pg);
	plug_net_destroy(net[0]);
	plug_net_destroy(net[1]);
}

typedef struct {
	plug_net_t *n;
	uint32_t to;
	uint16_t cmd;
	uint32_t tag;
	const char *text;
	int rc;
} send_t;

static void do_send(void *arg)
{
	send_t *s = arg;
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (s->text)
		pxc_pack_str(&b, s->text);
	in_send = 1;
	s->rc = plug_net_send(s->n, s->to, s->cmd, s->tag, s->text ? &b : NULL);
	in_send = 0;
	pxc_buf_clear(&b);
}

static int send_text(plug_net_t *n, uint32_t to, uint16_t cmd, uint32_t tag, const char *text)
{
	send_t s = { n, to, cmd, tag, text, -2 };

	in_loop(do_send, &s);
	return s.rc;
}

/* ---- cases ------------------------------------------------------------ */

START_TEST(t_kinds_reach_their_user)
{
	two_nodes(0);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 5, "to A"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 1), 1);
	ck_assert_uint_eq(seen[0].last_from, 0);
	ck_assert_uint_eq(seen[0].last_cmd, KIND_A);
	ck_assert_uint_eq(seen[0].last_tag, 5);
	ck_assert_str_eq(seen[0].last_text, "to A");
	ck_assert_int_eq(send_text(net[0], 1, KIND_B, 6, "to B"), 0);
	ck_assert_int_eq(seen_wait(&seen[1], &seen[1].msgs, 1), 1);
	ck_assert_str_eq(seen[1].last_text, "to B");
	/* the other way, on the connection node 0 opened or one of its own */
	ck_assert_int_eq(send_text(net[1], 0, KIND_C, 7, "to C"), 0);
	ck_assert_int_eq(seen_wait(&seen[2], &seen[2].msgs, 1), 1);
	ck_assert_uint_eq(seen[2].last_from, 1);
	ck_assert_str_eq(seen[2].last_text, "to C");
	/* a kind nobody registered is dropped; the connection goes on */
	ck_assert_int_eq(send_text(net[0], 1, KIND_NOBODY, 0, "lost"), 0);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 8, "again"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 2), 2);
	ck_assert_str_eq(seen[0].last_text, "again");
	ck_assert_int_eq(seen[1].msgs, 1);
	ck_assert_int_eq(seen[0].lost + seen[1].lost + seen[2].lost, 0);
	/* nobody: oneself, a peer that does not exist */
	ck_assert_int_eq(send_text(net[0], 0, KIND_A, 0, "me"), -1);
	ck_assert_int_eq(send_text(net[0], 5, KIND_A, 0, "nobody"), -1);
	down();
}
END_TEST

START_TEST(t_register_refuses)
{
	seen_init();
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	ck_assert_ptr_nonnull(net[0] = make_node(0));
	ck_assert_int_eq(add_user(net[0], &seen[0], KIND_A, KIND_B), 0);
	ck_assert_int_eq(add_user(net[0], &seen[1], KIND_B, KIND_C), -1); /* overlap */
	ck_assert_int_eq(add_user(net[0], &seen[1], KIND_A, KIND_A), -1);
	ck_assert_int_eq(add_user(net[0], &seen[1], 2, 3), -1);           /* the transport's own */
	ck_assert_int_eq(add_user(net[0], &seen[1], KIND_C, KIND_B), -1); /* backwards */
	ck_assert_int_eq(add_user(net[0], &seen[1], 0, 0), 0);            /* no kinds: fine */
	ck_assert_int_eq(add_user(net[0], &seen[2], KIND_C, KIND_C), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	ck_assert_int_eq(add_user(net[0], &seen[1], KIND_NOBODY, KIND_NOBODY), -1); /* late */
	plug_net_stop(net[0]);
	pxc_progress_stop(pg);
	plug_net_destroy(net[0]);
}
END_TEST

START_TEST(t_bad_arguments)
{
	plug_net_args_t a = {
		.key = KEY, .me = 0, .nnodes = 2, .width = 2, .route_host = "127.0.0.1"
	};

	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	ck_assert_ptr_null(plug_net_create(&a)); /* no engine */
	a.pg = pg;
	a.key = "short";
	ck_assert_ptr_null(plug_net_create(&a));
	a.key = KEY;
	a.me = 2;
	ck_assert_ptr_null(plug_net_create(&a)); /* not a node of the step */
	a.me = 0;
	a.width = 0;
	ck_assert_ptr_null(plug_net_create(&a));
	a.width = 2;
	a.route_host = "no such host.invalid.";
	ck_assert_ptr_null(plug_net_create(&a));
	plug_net_destroy(NULL);
	plug_net_stop(NULL);
	pxc_progress_stop(pg);
}
END_TEST

START_TEST(t_peer_lost_reaches_every_user)
{
	two_nodes(0);
	ck_assert_int_eq(send_text(net[1], 0, KIND_C, 1, "hello"), 0);
	ck_assert_int_eq(seen_wait(&seen[2], &seen[2].msgs, 1), 1);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 1, "hello"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 1), 1);
	plug_net_stop(net[0]); /* node 0 goes away: node 1 loses it */
	ck_assert_int_eq(seen[2].stops, 1);
	ck_assert_int_ge(seen_wait(&seen[0], &seen[0].lost, 1), 1);
	ck_assert_int_ge(seen_wait(&seen[1], &seen[1].lost, 1), 1);
	ck_assert_uint_eq(seen[0].last_lost, 0);
	ck_assert_uint_eq(seen[1].last_lost, 0);
	ck_assert_int_eq(seen[2].lost, 0); /* stopped: nobody to tell */
	ck_assert_int_eq(seen[0].lost_inside_send + seen[1].lost_inside_send, 0);
	down();
}
END_TEST

START_TEST(t_stop)
{
	two_nodes(0);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 1, "before"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 1), 1);
	plug_net_stop(net[1]);
	ck_assert_int_eq(seen[0].stops, 1);
	ck_assert_int_eq(seen[1].stops, 1);
	plug_net_stop(net[1]); /* idempotent */
	ck_assert_int_eq(seen[0].stops, 1);
	ck_assert_int_eq(send_text(net[1], 0, KIND_C, 1, "after"), -1);
	ck_assert_int_eq(seen[2].msgs, 0);
	down();
	ck_assert_int_eq(seen[2].stops, 1);
}
END_TEST

/* ---- the handshake (lib/auth.h) from outside ------------------------- */

static int auth_logs; /* lines lib/auth.c logged */

static void count_log(const char *line)
{
	fprintf(stderr, "auth: %s\n", line);
	__atomic_add_fetch(&auth_logs, 1, __ATOMIC_SEQ_CST);
}

static int logs_now(void)
{
	return __atomic_load_n(&auth_logs, __ATOMIC_SEQ_CST);
}

static int dial(uint16_t port, const char *addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { WAIT_MS / 1000, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int read_all(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* One frame of cmd with len payload bytes. */
static void put_frame(int fd, uint16_t cmd, const void *data, size_t len)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .cmd = cmd, .len = (uint32_t)len };

	pxc_wire_hdr_encode(&h, hdr);
	ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	if (len)
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
}

/* Reads a frame of cmd with exactly len payload bytes into out: 0, or -1
 * (closed, or another frame). */
static int get_frame(int fd, uint16_t cmd, unsigned char *out, size_t len)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;

	if (read_all(fd, hdr, sizeof(hdr)) < 0 || pxc_wire_hdr_decode(hdr, 1 << 20, &h) < 0 ||
	    h.cmd != cmd || h.len != len)
		return -1;
	return read_all(fd, out, len);
}

/* Until the peer closes fd: 1 when it did without sending more. */
static int closed_quietly(int fd)
{
	char c;

	return read(fd, &c, 1) == 0;
}

/* A connection to node 1 whose first bytes are these (no handshake): it
 * gets its challenge, then the connection closes, logged once. */
static void stranger(const char *what, const void *bytes, size_t n)
{
	unsigned char nonce[PLUG_AUTH_NONCE];
	int fd = dial(plug_net_port(net[1]), plug_net_addr(net[1])), before = logs_now();

	ck_assert_int_eq(get_frame(fd, PLUG_NET_AUTH_CHALLENGE, nonce, sizeof(nonce)), 0);
	ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
	ck_assert_msg(closed_quietly(fd), "%s: the transport answered", what);
	ck_assert_int_eq(logs_now(), before + 1);
	close(fd);
}

/* A handshake with node 1 as a connector holding key and claiming node,
 * step. Returns 1 when AUTH_OK came with the right MAC (and fd is left
 * open in *fdp), 0 when the connection closed without one. If msg_out is
 * set, the AUTH sent (or, with replay set, the AUTH to send instead of
 * one made for this challenge) is copied there / taken from there. */
static int handshake(const char *key, uint32_t node, uint32_t step, unsigned char *msg, int replay,
		     int *fdp)
{
	plug_auth_claim_t cl = { PLUG_NET_HELLO, node, step };
	unsigned char na[PLUG_AUTH_NONCE], nc[PLUG_AUTH_NONCE], m[PLUG_AUTH_MSG];
	unsigned char mac[PLUG_AUTH_MAC];
	int fd = dial(plug_net_port(net[1]), plug_net_addr(net[1])), ok;

	ck_assert_int_eq(get_frame(fd, PLUG_NET_AUTH_CHALLENGE, na, sizeof(na)), 0);
	ck_assert_int_eq(plug_auth_answer(key, &cl, na, nc, m), 0);
	if (replay)
		memcpy(m, msg, sizeof(m));
	else if (msg)
		memcpy(msg, m, sizeof(m));
	put_frame(fd, PLUG_NET_AUTH, m, sizeof(m));
	ok = get_frame(fd, PLUG_NET_AUTH_OK, mac, sizeof(mac)) == 0;
	if (ok)
		ck_assert(plug_auth_acceptor_ok(key, &cl, na, nc, mac));
	else
		ck_assert(closed_quietly(fd));
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return ok;
}

/* Whoever reaches the listener without proving the job key is dropped,
 * logged once, and nothing of what it sends reaches a user; the step goes
 * on. The key never travels: what a connector sends is a MAC of the
 * acceptor's fresh challenge, so a captured answer fails on a new one. */
START_TEST(t_strangers_dropped)
{
	unsigned char f[256], captured[PLUG_AUTH_MSG], na[PLUG_AUTH_NONCE];
	pmix_data_buffer_t b;
	int before, fd;

	plug_auth_set_log(count_log);
	two_nodes(0);
	stranger("garbage", "GET / HTTP/1.0\r\n\r\n0123456789abcdef", 34);
	/* the old HELLO, key in clear, instead of the handshake */
	pxc_buf_init(&b);
	pxc_pack_str(&b, KEY);
	pxc_pack_u32(&b, 0);
	pxc_pack_u32(&b, 0);
	{
		pxc_wire_hdr_t h = { .cmd = PLUG_NET_HELLO, .len = (uint32_t)b.bytes_used };

		pxc_wire_hdr_encode(&h, f);
		memcpy(f + PXC_WIRE_HDR_LEN, b.base_ptr, b.bytes_used);
		stranger("the old HELLO with the key in clear", f, PXC_WIRE_HDR_LEN + b.bytes_used);
		h.cmd = KIND_A;
		pxc_wire_hdr_encode(&h, f);
		stranger("a message before any handshake", f, PXC_WIRE_HDR_LEN + b.bytes_used);
	}
	pxc_buf_clear(&b);
	{ /* a truncated AUTH (40 of its 76 bytes) */
		pxc_wire_hdr_t h = { .cmd = PLUG_NET_AUTH, .len = 40 };

		pxc_wire_hdr_encode(&h, f);
		memset(f + PXC_WIRE_HDR_LEN, 7, 40);
		stranger("a truncated handshake", f, PXC_WIRE_HDR_LEN + 40);
	}
	before = logs_now();
	ck_assert_int_eq(handshake("ffffffffffffffffffffffffffffffff", 0, 0, NULL, 0, NULL), 0);
	ck_assert_int_eq(logs_now(), before + 1); /* a wrong key, logged once */
	ck_assert_int_eq(handshake("0123456789abcdef0123456789abcdee", 0, 0, NULL, 0, NULL), 0);
	ck_assert_int_eq(logs_now(), before + 2); /* a stale key (one bit off) */
	/* an answer made for one challenge, replayed on a new connection */
	fd = dial(plug_net_port(net[1]), plug_net_addr(net[1]));
	ck_assert_int_eq(get_frame(fd, PLUG_NET_AUTH_CHALLENGE, na, sizeof(na)), 0);
	{
		plug_auth_claim_t cl = { PLUG_NET_HELLO, 0, 0 };
		unsigned char nc[PLUG_AUTH_NONCE];

		ck_assert_int_eq(plug_auth_answer(KEY, &cl, na, nc, captured), 0);
	}
	close(fd); /* a peer that left in its handshake: no log line */
	ck_assert_int_eq(handshake(KEY, 0, 0, captured, 1, NULL), 0);
	ck_assert_int_eq(logs_now(), before + 3);
	/* the key, but claims no node may have: proved, then dropped */
	ck_assert_int_eq(handshake(KEY, 1, 0, NULL, 0, &fd), 1);
	ck_assert(closed_quietly(fd));
	close(fd);
	ck_assert_int_eq(handshake(KEY, 7, 0, NULL, 0, &fd), 1);
	ck_assert(closed_quietly(fd));
	close(fd);
	ck_assert_int_eq(seen[0].msgs + seen[1].msgs, 0);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 3, "still here"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 1), 1);
	ck_assert_str_eq(seen[0].last_text, "still here");
	ck_assert_int_eq(seen[0].lost + seen[1].lost + seen[2].lost, 0);
	down();
	plug_auth_set_log(NULL);
}
END_TEST

/* A step daemon whose key is not the step's (another job's, or a stale
 * one): neither end takes anything from the other, each logs once, and
 * node 0 finds node 1 lost instead of talking to it. */
START_TEST(t_peer_with_a_wrong_key)
{
	plug_net_args_t a = { .job = 7,
			      .me = 1,
			      .nnodes = 2,
			      .width = 2,
			      .route_host = "127.0.0.1",
			      .key = "fedcba9876543210fedcba9876543210" };
	table_t t;

	plug_auth_set_log(count_log);
	seen_init();
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	a.pg = pg;
	ck_assert_ptr_nonnull(net[0] = make_node(0));
	ck_assert_ptr_nonnull(net[1] = plug_net_create(&a));
	ck_assert_int_eq(add_user(net[1], &seen[0], KIND_A, KIND_A), 0);
	ck_assert_int_eq(add_user(net[0], &seen[2], KIND_C, KIND_C), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	ck_assert_int_eq(plug_net_start(net[1]), 0);
	ck_assert_int_eq(seen_wait(&seen[2], &seen[2].starts, 1), 1);
	t.addr[0] = (char *)plug_net_addr(net[0]);
	t.port[0] = plug_net_port(net[0]);
	t.addr[1] = (char *)plug_net_addr(net[1]);
	t.port[1] = plug_net_port(net[1]);
	in_loop(give_table, &t); /* node 0 dials its child, node 1 */
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 1, "secret"), 0);
	ck_assert_int_ge(seen_wait(&seen[2], &seen[2].lost_of[1], 1), 1);
	ck_assert_int_eq(seen[0].msgs, 0);
	ck_assert_int_ge(logs_now(), 1);
	down();
	plug_auth_set_log(NULL);
}
END_TEST

/* A listener that is no step daemon of the step (it does not hold the
 * key, or replays an old AUTH_OK): node 0's handshake fails, it sends
 * nothing after its AUTH and reports node 1 lost. */
typedef struct {
	int lfd;
	int after; /* bytes that came after the AUTH */
	int got_auth;
} fake_t;

static void *fake_acceptor(void *arg)
{
	fake_t *fk = arg;
	unsigned char na[PLUG_AUTH_NONCE] = { 1 }, m[PLUG_AUTH_MSG], mac[PLUG_AUTH_MAC];
	int fd = accept(fk->lfd, NULL, NULL);
	char c;

	if (fd < 0)
		return NULL;
	put_frame(fd, PLUG_NET_AUTH_CHALLENGE, na, sizeof(na));
	fk->got_auth = get_frame(fd, PLUG_NET_AUTH, m, sizeof(m)) == 0;
	/* a MAC for another nonce_c: what a replayed AUTH_OK is */
	memset(mac, 0, sizeof(mac));
	{
		plug_auth_claim_t cl = { PLUG_NET_HELLO, 0, 0 };
		unsigned char old[PLUG_AUTH_NONCE] = { 2 };

		plug_auth_mac(KEY, 'A', na, old, &cl, mac);
	}
	put_frame(fd, PLUG_NET_AUTH_OK, mac, sizeof(mac));
	while (read(fd, &c, 1) == 1)
		fk->after++;
	close(fd);
	return NULL;
}

/* The blocking connector (a step daemon's launch-failure report): with
 * the key it is through; with another key it fails, and the acceptor
 * logs it once. */
START_TEST(t_blocking_connector)
{
	plug_auth_claim_t cl = { PLUG_NET_HELLO, 0, 9 }; /* a stepd of another step */
	int fd, before;

	plug_auth_set_log(count_log);
	two_nodes(0);
	fd = dial(plug_net_port(net[1]), plug_net_addr(net[1]));
	ck_assert_int_eq(plug_auth_connect_fd(fd, "test", KEY, &cl, pxc_now_ms() + WAIT_MS), 0);
	close(fd);
	before = logs_now();
	fd = dial(plug_net_port(net[1]), plug_net_addr(net[1]));
	ck_assert_int_eq(plug_auth_connect_fd(fd, "test", "ffffffffffffffffffffffffffffffff", &cl,
					      pxc_now_ms() + WAIT_MS),
			 -1);
	close(fd);
	ck_assert_int_eq(logs_now(), before + 1);
	/* a listener that answers with a replayed AUTH_OK: refused, logged */
	{
		struct sockaddr_in sa = { .sin_family = AF_INET };
		socklen_t sl = sizeof(sa);
		fake_t fk = { 0 };
		pthread_t th;

		fk.lfd = socket(AF_INET, SOCK_STREAM, 0);
		inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
		ck_assert_int_eq(bind(fk.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		ck_assert_int_eq(listen(fk.lfd, 4), 0);
		ck_assert_int_eq(getsockname(fk.lfd, (struct sockaddr *)&sa, &sl), 0);
		ck_assert_int_eq(pthread_create(&th, NULL, fake_acceptor, &fk), 0);
		fd = dial(ntohs(sa.sin_port), "127.0.0.1");
		errno = 0;
		ck_assert_int_eq(plug_auth_connect_fd(fd, "test", KEY, &cl, pxc_now_ms() + WAIT_MS),
				 -1);
		ck_assert_int_eq(errno, EACCES);
		close(fd);
		pthread_join(th, NULL);
		close(fk.lfd);
		ck_assert_int_eq(fk.got_auth, 1);
		ck_assert_int_eq(logs_now(), before + 2);
	}
	down();
	plug_auth_set_log(NULL);
}
END_TEST

START_TEST(t_acceptor_must_prove_the_key)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	fake_t fk = { 0 };
	pthread_t th;
	table_t t;
	char port_addr[] = "127.0.0.1";

	plug_auth_set_log(count_log);
	seen_init();
	fk.lfd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, port_addr, &sa.sin_addr);
	ck_assert_int_eq(bind(fk.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fk.lfd, 4), 0);
	ck_assert_int_eq(getsockname(fk.lfd, (struct sockaddr *)&sa, &sl), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, fake_acceptor, &fk), 0);
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	ck_assert_ptr_nonnull(net[0] = make_node(0));
	ck_assert_ptr_nonnull(net[1] = make_node(1)); /* never reached */
	ck_assert_int_eq(add_user(net[0], &seen[2], KIND_C, KIND_C), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	ck_assert_int_eq(plug_net_start(net[1]), 0); /* so that down() stops it */
	ck_assert_int_eq(seen_wait(&seen[2], &seen[2].starts, 1), 1);
	t.addr[0] = (char *)plug_net_addr(net[0]);
	t.port[0] = plug_net_port(net[0]);
	t.addr[1] = port_addr;
	t.port[1] = ntohs(sa.sin_port);
	in_loop(give_table, &t);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 1, "secret"), 0);
	ck_assert_int_ge(seen_wait(&seen[2], &seen[2].lost_of[1], 1), 1);
	pthread_join(th, NULL);
	ck_assert_int_eq(fk.got_auth, 1);
	ck_assert_int_eq(fk.after, 0); /* "secret" never went */
	ck_assert_int_eq(logs_now(), 1);
	close(fk.lfd);
	down();
	plug_auth_set_log(NULL);
}
END_TEST

/* A peer id for node 0 of another step, known by id only (no endpoint). */
typedef struct {
	plug_net_t *n;
	uint32_t id;
} foreign_t;

static void make_foreign(void *arg)
{
	foreign_t *f = arg;

	f->id = plug_net_peer(f->n, 9, 0, NULL, 0);
}

/* A send that finds its peer unreachable at once: an address the kernel
 * refuses to connect to (the broadcast address), or another step's stepd
 * known only by id. The users hear of it after the send returned. */
START_TEST(t_lost_inside_send_is_posted)
{
	foreign_t f;

	two_nodes(1);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 1, "unreachable"), 0);
	ck_assert_int_ge(seen_wait(&seen[2], &seen[2].lost_of[1], 1), 1);
	f.n = net[0];
	in_loop(make_foreign, &f);
	ck_assert_uint_eq(f.id, 2); /* after the step's own nodes */
	ck_assert_int_eq(send_text(net[0], f.id, KIND_A, 1, "nowhere"), 0);
	ck_assert_int_ge(seen_wait(&seen[2], &seen[2].lost_of[2], 1), 1);
	ck_assert_int_eq(seen[2].lost_of[0], 0);
	ck_assert_int_eq(seen[2].lost_inside_send, 0);
	down();
}
END_TEST

/* ---- direct modex over the transport ---------------------------------- */

/* Another step (slurmix.7.9, one node, one rank), as net/xstep.c would
 * know it once fetched: its only stepd is the foreign peer. */
static plug_xstep_t other;
static uint32_t other_node_of[1], other_count[1] = { 1 }, other_first[1], other_ranks[1];
static plug_map_t other_map = { 1, 1, other_node_of, other_count, other_first, other_ranks };
static char *other_hosts[] = { "elsewhere", NULL };
static uint32_t other_peer[1];

plug_xstep_t *plug_xstep_find(const char *nspace)
{
	return strcmp(nspace, other.nspace) ? NULL : &other;
}

int plug_xstep_need(const pmix_proc_t *procs, size_t n, plug_xstep_cb_f cb, void *arg)
{
	(void)procs, (void)n, (void)cb, (void)arg;
	return 1; /* known */
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	pmix_status_t st;
} got = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

static void modex_done(pmix_status_t st, const char *data, size_t ndata, void *cbdata,
		       pmix_release_cbfunc_t rel, void *relarg)
{
	(void)data, (void)ndata, (void)cbdata, (void)rel, (void)relarg;
	pthread_mutex_lock(&got.lock);
	got.done++;
	got.st = st;
	pthread_cond_broadcast(&got.cond);
	pthread_mutex_unlock(&got.lock);
}

static void ask(void *arg)
{
	pmix_proc_t proc;
	pmix_info_t info;
	int tmo = 10;
	pmix_status_t *rc = arg;

	PMIx_Load_procid(&proc, other.nspace, 0);
	PMIx_Info_load(&info, PMIX_TIMEOUT, &tmo, PMIX_INT);
	*rc = plug_dmodex_request(&proc, &info, 1, modex_done, NULL);
}

/* The Get's owner has no endpoint: the request ends PMIX_ERR_UNREACH at
 * once, not PMIX_ERR_TIMEOUT after its own 10 s. */
START_TEST(t_dmodex_unreachable_owner)
{
	static uint32_t node_of[2] = { 0, 1 }, count[2] = { 1, 1 }, first[2] = { 0, 1 },
			ranks[2] = { 0, 1 };
	static plug_map_t map = { 2, 2, node_of, count, first, ranks };
	pmix_status_t rc = PMIX_ERROR;
	foreign_t f;
	struct timespec ts;
	long t0 = pxc_now_ms();

	seen_init();
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-net"));
	ck_assert_ptr_nonnull(net[0] = make_node(0));
	snprintf(plug_net_ctx.nspace, sizeof(plug_net_ctx.nspace), "slurmix.7.0");
	plug_net_ctx.map = &map;
	plug_net_ctx.me = 0;
	plug_net_ctx.width = 2;
	plug_net_ctx.timeout = 300;
	plug_net_ctx.host = "here";
	plug_net_ctx.net = net[0];
	ck_assert_int_eq(plug_dmodex_register(net[0]), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	f.n = net[0];
	in_loop(make_foreign, &f);
	snprintf(other.nspace, sizeof(other.nspace), "slurmix.7.9");
	other.step = 9;
	other.map = &other_map;
	other.hosts = other_hosts;
	other_peer[0] = f.id;
	other.peer = other_peer;
	other.ready = 1;
	in_loop(ask, &rc);
	ck_assert_int_eq(rc, PMIX_SUCCESS);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&got.lock);
	while (!got.done && pthread_cond_timedwait(&got.cond, &got.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&got.lock);
	ck_assert_msg(got.done == 1, "no answer in %d ms (the request waits for its timeout)",
		      WAIT_MS);
	ck_assert_int_eq(got.st, PMIX_ERR_UNREACH);
	ck_assert_int_lt(pxc_now_ms() - t0, WAIT_MS);
	plug_net_stop(net[0]);
	pxc_progress_stop(pg);
	plug_net_destroy(net[0]);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("plugin_net");
	TCase *tc = tcase_create("transport");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_kinds_reach_their_user);
	tcase_add_test(tc, t_register_refuses);
	tcase_add_test(tc, t_bad_arguments);
	tcase_add_test(tc, t_peer_lost_reaches_every_user);
	tcase_add_test(tc, t_stop);
	tcase_add_test(tc, t_strangers_dropped);
	tcase_add_test(tc, t_peer_with_a_wrong_key);
	tcase_add_test(tc, t_blocking_connector);
	tcase_add_test(tc, t_acceptor_must_prove_the_key);
	tcase_add_test(tc, t_lost_inside_send_is_posted);
	tcase_add_test(tc, t_dmodex_unreachable_owner);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = net_suite, .fork = CK_FORK });
}
