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
 * it, and that connections without the job key are dropped. The same case is then played through direct modex
 * (src/plugin/net/dmodex.c): a Get whose owner has no endpoint ends
 * PMIX_ERR_UNREACH at once instead of waiting for its timeout.
 */
#include <arpa/inet.h>
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

/* A raw connection to node 1's listener that sends bytes, then waits
 * until node 1 closes it (so that the bytes were read). */
static void stranger(const char *what, const void *bytes, size_t n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(plug_net_port(net[1])) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char c;

	ck_assert_int_ge(fd, 0);
	inet_pton(AF_INET, plug_net_addr(net[1]), &sa.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
	shutdown(fd, SHUT_WR);
	ck_assert_msg(read(fd, &c, 1) <= 0, "%s: the transport answered", what);
	close(fd);
}

/* A frame of cmd whose payload is the key, node and step of a HELLO. */
static size_t hello_frame(unsigned char *out, size_t max, uint16_t cmd, const char *key,
			  uint32_t node, uint32_t step)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h = { .cmd = cmd };
	size_t n;

	pxc_buf_init(&b);
	pxc_pack_str(&b, key);
	pxc_pack_u32(&b, node);
	pxc_pack_u32(&b, step);
	h.len = (uint32_t)b.bytes_used;
	ck_assert_uint_le(PXC_WIRE_HDR_LEN + b.bytes_used, max);
	pxc_wire_hdr_encode(&h, out);
	memcpy(out + PXC_WIRE_HDR_LEN, b.base_ptr, b.bytes_used);
	n = PXC_WIRE_HDR_LEN + b.bytes_used;
	pxc_buf_clear(&b);
	return n;
}

/* Whoever reaches the listener without the job key is dropped, and
 * nothing of what it sends reaches a user; the step goes on. */
START_TEST(t_strangers_dropped)
{
	unsigned char f[256];
	size_t n;

	two_nodes(0);
	stranger("garbage", "GET / HTTP/1.0\r\n\r\n0123456789abcdef", 34);
	n = hello_frame(f, sizeof(f), PLUG_NET_HELLO, "ffffffffffffffffffffffffffffffff", 0, 0);
	stranger("a wrong key", f, n);
	n = hello_frame(f, sizeof(f), PLUG_NET_HELLO, KEY, 1, 0);
	stranger("node 1 claiming to be itself", f, n);
	n = hello_frame(f, sizeof(f), PLUG_NET_HELLO, KEY, 7, 0);
	stranger("a node the step does not have", f, n);
	n = hello_frame(f, sizeof(f), KIND_A, KEY, 0, 0);
	stranger("a message before any HELLO", f, n);
	ck_assert_int_eq(seen[0].msgs + seen[1].msgs, 0);
	ck_assert_int_eq(send_text(net[0], 1, KIND_A, 3, "still here"), 0);
	ck_assert_int_eq(seen_wait(&seen[0], &seen[0].msgs, 1), 1);
	ck_assert_str_eq(seen[0].last_text, "still here");
	ck_assert_int_eq(seen[0].lost + seen[1].lost + seen[2].lost, 0);
	down();
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
	tcase_add_test(tc, t_lost_inside_send_is_posted);
	tcase_add_test(tc, t_dmodex_unreachable_owner);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = net_suite, .fork = CK_FORK });
}
