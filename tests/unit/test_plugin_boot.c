/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_boot.c - check suite for the endpoint reports through
 * Slurm's forwarding RPC (src/plugin/net/boot.c) alone, with Slurm's side
 * played here: plug_slurm_forward records what a step daemon sends,
 * plug_slurm_spooldir is a fresh directory, and the test delivers reports
 * to the step daemon's socket as slurmd's forwarder would (uid, length,
 * data).
 *   leaf_report: a leaf's report carries the job, step and sender under
 *     an HMAC of the job key, and not the key itself;
 *   root_refuses: the root refuses, each with one log line, a report
 *     under a stale key, one of the old form (the key in clear first), one
 *     for another step of the job and one from a node that is not its
 *     child; it takes the right one (its table then reaches the
 *     transport: a queued message goes out), and drops a replay of it
 *     silently (as the sender's own repeats on Slurm 23.02.5-23.11).
 */
#include <arpa/inet.h>
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/auth.h"
#include "lib/proto.h"
#include "lib/sha256.h"
#include "net/boot.h"
#include "net/transport.h"
#include "slurm_adapter.h"
#include "runner.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define JOB 7
#define KIND_A 100
#define WAIT_MS 5000

/* ---- Slurm's side ------------------------------------------------------ */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char spool[64];
static unsigned char *sent; /* what plug_slurm_forward got */
static uint32_t sent_len;
static int bad_reports, msgs;

void plug_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
	pthread_mutex_lock(&lock);
	bad_reports += strstr(line, "endpoints: a bad report through slurmd") != NULL;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

bool plug_debug_flag_mpi(void)
{
	return false;
}

const char *plug_slurm_spooldir(void)
{
	return spool;
}

uid_t plug_slurm_user(void)
{
	return getuid();
}

/* slurmd's success is sure here (Slurm 22.05, 24.05 and later). */
bool plug_slurm_forward_confirmed(void)
{
	return true;
}

int plug_slurm_forward(const char *host, const char *path, const void *data, uint32_t len)
{
	(void)host, (void)path;
	pthread_mutex_lock(&lock);
	free(sent);
	sent = malloc(len);
	memcpy(sent, data, len);
	sent_len = len;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Waits until *v >= want or WAIT_MS pass; returns *v. */
static int wait_for(int *v, int want)
{
	struct timespec ts;
	int got;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&lock);
	while (*v < want && pthread_cond_timedwait(&cond, &lock, &ts) == 0)
		;
	got = *v;
	pthread_mutex_unlock(&lock);
	return got;
}

/* ---- the step daemons ---------------------------------------------------- */

static pxc_progress_t *pg;
static plug_net_t *net[2];
static char *hosts[] = { "h0", "h1" };

static void u_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	(void)arg, (void)from, (void)h, (void)in;
	pthread_mutex_lock(&lock);
	msgs++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static plug_net_t *make_node(uint32_t me)
{
	plug_net_args_t a = { .pg = pg,
			      .key = KEY,
			      .job = JOB,
			      .step = 0,
			      .me = me,
			      .nnodes = 2,
			      .width = 2,
			      .route_host = "127.0.0.1" };

	return plug_net_create(&a);
}

/* Node me's transport, with the endpoint exchange registered. */
static void boot_node(uint32_t me)
{
	plug_boot_args_t b = { .key = KEY,
			       .me = me,
			       .nnodes = 2,
			       .width = 2,
			       .job = JOB,
			       .step = 0,
			       .hosts = hosts,
			       .timeout_s = 5 };

	snprintf(spool, sizeof(spool), "/tmp/slurmix-boot-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(spool));
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-boot"));
	ck_assert_ptr_nonnull(net[me] = make_node(me));
	b.net = net[me];
	b.addr = plug_net_addr(net[me]);
	b.port = plug_net_port(net[me]);
	ck_assert_int_eq(plug_boot_start(&b), 0);
}

static void down(void)
{
	for (int i = 0; i < 2; i++)
		plug_net_stop(net[i]);
	plug_boot_join();
	pxc_progress_stop(pg);
	for (int i = 0; i < 2; i++)
		plug_net_destroy(net[i]);
	rmdir(spool);
}

/* A report of net/boot.c: job, step, from, nonce, records, HMAC under key
 * (NULL: the old form, the key in clear first and no HMAC). */
static void report(pmix_data_buffer_t *b, const char *key, uint32_t step, uint32_t from,
		   uint32_t node, const char *addr, uint32_t port)
{
	unsigned char nonce[32], mac[PLUG_SHA256_LEN];
	pmix_byte_object_t bo = { .bytes = (char *)nonce, .size = sizeof(nonce) };

	pxc_buf_init(b);
	ck_assert_int_eq(plug_auth_random(nonce, sizeof(nonce)), 0);
	if (!key) {
		pxc_pack_str(b, KEY);
		pxc_pack_u32(b, from);
	} else {
		pxc_pack_u32(b, JOB);
		pxc_pack_u32(b, step);
		pxc_pack_u32(b, from);
		pxc_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
	}
	pxc_pack_u32(b, 1);
	pxc_pack_u32(b, node);
	pxc_pack_str(b, addr);
	pxc_pack_u32(b, port);
	if (key) {
		const void *parts[] = { "slurmix boot 1", b->base_ptr };
		size_t lens[] = { 14, b->bytes_used };

		plug_hmac_sha256(key, strlen(key), 2, parts, lens, mac);
		pxc_buf_append(b, mac, sizeof(mac));
	}
}

/* Delivers b to node 0's socket as slurmd does. */
static void deliver(const pmix_data_buffer_t *b)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint32_t hdr[2] = { htonl(0), htonl((uint32_t)b->bytes_used) };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/slurmix.%u.0", spool, JOB);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	ck_assert_int_eq(write(fd, b->base_ptr, b->bytes_used), (ssize_t)b->bytes_used);
	close(fd);
}

START_TEST(t_leaf_report)
{
	pmix_data_buffer_t in;
	unsigned char mac[PLUG_SHA256_LEN];
	uint32_t job = 0, step = 9, from = 0;
	const void *parts[2];
	size_t lens[2];
	int got = 0;

	boot_node(1);
	ck_assert_int_eq(plug_net_start(net[1]), 0); /* a leaf reports at once */
	pthread_mutex_lock(&lock);
	while (!sent && got++ < 50) {
		pthread_mutex_unlock(&lock);
		usleep(100000);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	ck_assert_ptr_nonnull(sent);
	ck_assert_ptr_null(memmem(sent, sent_len, KEY, strlen(KEY)));
	ck_assert_uint_gt(sent_len, sizeof(mac));
	parts[0] = "slurmix boot 1";
	lens[0] = 14;
	parts[1] = sent;
	lens[1] = sent_len - sizeof(mac);
	plug_hmac_sha256(KEY, strlen(KEY), 2, parts, lens, mac);
	ck_assert_mem_eq(mac, sent + sent_len - sizeof(mac), sizeof(mac));
	pxc_buf_init(&in);
	pxc_buf_load_copy(&in, sent, sent_len - sizeof(mac));
	ck_assert_int_eq(pxc_unpack_u32(&in, &job), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_u32(&in, &step), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_u32(&in, &from), PMIX_SUCCESS);
	ck_assert_uint_eq(job, JOB);
	ck_assert_uint_eq(step, 0);
	ck_assert_uint_eq(from, 1);
	pxc_buf_clear(&in);
	down();
}
END_TEST

typedef struct {
	plug_net_t *n;
	int rc;
} send_t;

static void do_send(void *arg)
{
	send_t *s = arg;
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_str(&b, "queued");
	s->rc = plug_net_send(s->n, 1, KIND_A, 0, &b);
	pxc_buf_clear(&b);
}

static void run_send(void *sync)
{
	do_send(((pxc_sync_t *)sync)->arg);
	pxc_sync_signal(sync, PMIX_SUCCESS);
}

START_TEST(t_root_refuses)
{
	plug_net_user_t u = { .name = "test", .first = KIND_A, .last = KIND_A, .msg = u_msg };
	pmix_data_buffer_t good, b;
	send_t s = { 0 };
	const char *a1;
	uint16_t p1;

	boot_node(0);
	ck_assert_ptr_nonnull(net[1] = make_node(1)); /* node 1's transport, no boot */
	ck_assert_int_eq(plug_net_register(net[1], &u), 0);
	ck_assert_int_eq(plug_net_start(net[0]), 0);
	ck_assert_int_eq(plug_net_start(net[1]), 0);
	a1 = plug_net_addr(net[1]);
	p1 = plug_net_port(net[1]);
	/* a message for node 1 waits for the table */
	usleep(200000);
	s.n = net[0];
	ck_assert_int_eq(pxc_progress_call_arg(pg, run_send, &s, WAIT_MS), PMIX_SUCCESS);
	ck_assert_int_eq(s.rc, 0);
	report(&b, "ffffffffffffffffffffffffffffffff", 0, 1, 1, a1, p1); /* a stale key */
	deliver(&b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(wait_for(&bad_reports, 1), 1);
	report(&b, NULL, 0, 1, 1, a1, p1); /* the old form */
	deliver(&b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(wait_for(&bad_reports, 2), 2);
	report(&b, KEY, 1, 1, 1, a1, p1); /* another step's */
	deliver(&b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(wait_for(&bad_reports, 3), 3);
	report(&b, KEY, 0, 0, 1, a1, p1); /* node 0 is no child of itself */
	deliver(&b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(wait_for(&bad_reports, 4), 4);
	ck_assert_int_eq(msgs, 0); /* no table yet */
	report(&good, KEY, 0, 1, 1, a1, p1);
	deliver(&good);
	ck_assert_int_eq(wait_for(&msgs, 1), 1); /* the table came: the message went */
	deliver(&good); /* the same again: a replay (or the sender's repeat) */
	usleep(300000);
	ck_assert_int_eq(bad_reports, 4); /* dropped silently: it changes nothing */
	ck_assert_int_eq(msgs, 1);
	pxc_buf_clear(&good);
	down();
}
END_TEST

static Suite *boot_suite(void)
{
	Suite *s = suite_create("plugin_boot");
	TCase *tc = tcase_create("boot");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_leaf_report);
	tcase_add_test(tc, t_root_refuses);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = boot_suite, .fork = CK_FORK });
}
