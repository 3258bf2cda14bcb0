/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_boot.c - check suite for the endpoint exchange through
 * Slurm's forwarding RPC (src/plugin/net/boot.c) on a real transport,
 * with Slurm's side played by the test: plug_slurm_forward delivers to
 * the test's own socket the way slurmd does (uid, length, data), or
 * "loses" a report while answering success, as slurmd 23.02.5 to 23.11
 * does for a socket it could not reach (plug_slurm_forward_confirmed).
 *  - a leaf whose first report is lost although slurmd said success sends
 *    it again and stops once it has the table; where slurmd's success is
 *    sure it sends once;
 *  - a root takes a child's report once: the repeat is dropped without a
 *    log line, the table is made from the first; a report with a wrong
 *    key is still logged and dropped.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <pmix.h>

#include "pack.h"
#include "progress.h"
#include "pxc.h"
#include "lib/endpoints.h"
#include "net/boot.h"
#include "net/transport.h"
#include "slurm_adapter.h"
#include "runner.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define JOB 7
#define WAIT_MS 5000

/* ---- Slurm, played by the test ------------------------------------------ */

static char spool[64];     /* SlurmdSpoolDir: the stepd's socket is here */
static char parent[96];    /* where the "parent's slurmd" delivers */
static atomic_int lose;    /* reports to lose while answering success */
static atomic_int calls;   /* plug_slurm_forward calls */
static atomic_int bad_log; /* "bad report" log lines */
static bool confirmed;

const char *plug_slurm_spooldir(void)
{
	return spool;
}

uid_t plug_slurm_user(void)
{
	return getuid();
}

bool plug_slurm_forward_confirmed(void)
{
	return confirmed;
}

/* As slurmd: connect to the socket, write uid and length (network
 * order), then the data, close. */
static int deliver(const char *path, const void *data, uint32_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint32_t hdr[2] = { htonl((uint32_t)getuid()), htonl(len) };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = -1;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    write(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) &&
	    write(fd, data, len) == (ssize_t)len)
		rc = 0;
	if (fd >= 0)
		close(fd);
	return rc;
}

int plug_slurm_forward(const char *host, const char *path, const void *data, uint32_t len)
{
	(void)host, (void)path;
	atomic_fetch_add(&calls, 1);
	if (atomic_load(&lose) > 0) {
		atomic_fetch_sub(&lose, 1);
		return 0; /* "delivered" */
	}
	return deliver(parent, data, len);
}

void plug_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(line, "bad report"))
		atomic_fetch_add(&bad_log, 1);
	fprintf(stderr, "%s\n", line);
}

bool plug_debug_flag_mpi(void)
{
	return false;
}

/* ---- one step daemon ------------------------------------------------------ */

static pxc_progress_t *pg;
static plug_net_t *net;
static char *hosts[2] = { "vn1", "vn2" };
static int pfd = -1; /* the test's "parent" socket */

static void up(uint32_t me)
{
	plug_net_args_t a = { .key = KEY, .job = JOB, .me = me, .nnodes = 2, .width = 4 };
	plug_boot_args_t b = { .key = KEY, .job = JOB, .me = me, .nnodes = 2, .width = 4 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	atomic_store(&calls, 0);
	atomic_store(&bad_log, 0);
	snprintf(spool, sizeof(spool), "/tmp/boot-test.%d", (int)getpid());
	ck_assert(mkdir(spool, 0700) == 0 || errno == EEXIST);
	snprintf(parent, sizeof(parent), "%s/parent", spool);
	unlink(parent);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", parent);
	ck_assert_int_ge(pfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), 0);
	ck_assert_int_eq(bind(pfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(pfd, 16), 0);
	ck_assert_ptr_nonnull(pg = pxc_progress_start("test-boot"));
	a.pg = pg;
	a.route_host = "127.0.0.1";
	ck_assert_ptr_nonnull(net = plug_net_create(&a));
	b.net = net;
	b.addr = plug_net_addr(net);
	b.port = plug_net_port(net);
	b.hosts = hosts;
	b.timeout_s = 10;
	ck_assert_int_eq(plug_boot_start(&b), 0);
	ck_assert_int_eq(plug_net_start(net), 0);
}

static void down(void)
{
	char path[192];

	plug_net_stop(net);
	plug_boot_join();
	pxc_progress_stop(pg);
	plug_net_destroy(net);
	close(pfd);
	unlink(parent);
	snprintf(path, sizeof(path), "%s/slurmix.%d.0", spool, JOB);
	ck_assert_int_ne(access(path, F_OK), 0); /* join removed the socket */
	rmdir(spool);
}

/* One report from the "parent" socket within WAIT_MS: its sender's node
 * id and record count, or -1. */
static int take_report(uint32_t *from, uint32_t *n)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	uint32_t hdr[2], len;
	pmix_data_buffer_t in;
	char *data, *key = NULL;
	ssize_t got = 0, r;
	int fd, rc = -1;

	setsockopt(pfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((fd = accept(pfd, NULL, NULL)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (read(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr) || (len = ntohl(hdr[1])) > 65536 ||
	    !(data = malloc(len))) {
		close(fd);
		return -1;
	}
	while (got < (ssize_t)len && (r = read(fd, data + got, len - (size_t)got)) > 0)
		got += r;
	close(fd);
	pxc_buf_init(&in);
	pxc_buf_load_take(&in, data, len);
	if (got == (ssize_t)len && !pxc_unpack_str(&in, &key) && key && !strcmp(key, KEY) &&
	    !pxc_unpack_u32(&in, from) && !pxc_unpack_u32(&in, n))
		rc = 0;
	free(key);
	pxc_buf_clear(&in);
	return rc;
}

/* True when nothing is waiting on the "parent" socket for ms. */
static bool no_report_for(int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	int fd;

	setsockopt(pfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((fd = accept(pfd, NULL, NULL)) < 0)
		return true;
	close(fd);
	return false;
}

static bool wait_table(void)
{
	for (int i = 0; i < WAIT_MS / 10; i++) {
		if (plug_net_table_seen(net))
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- the leaf --------------------------------------------------------- */

static void table_in(void *sync)
{
	pmix_data_buffer_t b;
	char *addr[2] = { "127.0.0.1", "127.0.0.1" };
	uint32_t port[2] = { 9, plug_net_port(net) };

	pxc_buf_init(&b);
	plug_endpoints_pack(&b, 2, addr, port);
	plug_net_table_in(net, &b, false);
	pxc_buf_clear(&b);
	pxc_sync_signal(sync, PMIX_SUCCESS);
}

START_TEST(t_leaf_repeats_a_lost_report)
{
	uint32_t from = 9, n = 0;
	int c;

	confirmed = false;
	atomic_store(&lose, 1);
	up(1);
	ck_assert_int_eq(take_report(&from, &n), 0); /* the second send */
	ck_assert_uint_eq(from, 1);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_ge(atomic_load(&calls), 2);
	ck_assert_int_eq(pxc_progress_call_arg(pg, table_in, NULL, WAIT_MS), PMIX_SUCCESS);
	ck_assert(plug_net_table_seen(net));
	while (!no_report_for(300)) /* repeats sent before the table came */
		;
	c = atomic_load(&calls);
	ck_assert(no_report_for(1200)); /* and none after it */
	ck_assert_int_eq(atomic_load(&calls), c);
	down();
}
END_TEST

START_TEST(t_leaf_sends_once_when_sure)
{
	uint32_t from = 9, n = 0;

	confirmed = true;
	atomic_store(&lose, 0);
	up(1);
	ck_assert_int_eq(take_report(&from, &n), 0);
	ck_assert_uint_eq(from, 1);
	ck_assert(no_report_for(1200));
	ck_assert_int_eq(atomic_load(&calls), 1);
	down();
}
END_TEST

/* ---- the root ----------------------------------------------------------- */

/* Node 1's report, as its stepd sends it, with key k. */
static void report(const char *k, pmix_data_buffer_t *b)
{
	pxc_buf_init(b);
	ck_assert(!pxc_pack_str(b, k) && !pxc_pack_u32(b, 1) && !pxc_pack_u32(b, 1) &&
		  !pxc_pack_u32(b, 1) && !pxc_pack_str(b, "127.0.0.1") && !pxc_pack_u32(b, 9));
}

START_TEST(t_root_takes_a_repeat_once)
{
	pmix_data_buffer_t b;
	char sock[192];

	confirmed = false;
	up(0);
	snprintf(sock, sizeof(sock), "%s/slurmix.%d.0", spool, JOB);
	report("ffffffffffffffffffffffffffffffff", &b);
	ck_assert_int_eq(deliver(sock, b.base_ptr, (uint32_t)b.bytes_used), 0);
	pxc_buf_clear(&b);
	for (int i = 0; i < 200 && atomic_load(&bad_log) < 1; i++)
		usleep(10000);
	ck_assert_int_eq(atomic_load(&bad_log), 1); /* a wrong key: logged */
	ck_assert(!plug_net_table_seen(net));
	report(KEY, &b);
	ck_assert_int_eq(deliver(sock, b.base_ptr, (uint32_t)b.bytes_used), 0);
	ck_assert(wait_table()); /* the first good one makes the table */
	ck_assert_int_eq(deliver(sock, b.base_ptr, (uint32_t)b.bytes_used), 0);
	ck_assert_int_eq(deliver(sock, b.base_ptr, (uint32_t)b.bytes_used), 0);
	pxc_buf_clear(&b);
	usleep(300000);
	ck_assert_int_eq(atomic_load(&bad_log), 1); /* the repeats: silent */
	ck_assert_int_eq(atomic_load(&calls), 0);   /* the root sends nothing */
	down();
}
END_TEST

static Suite *boot_suite(void)
{
	Suite *s = suite_create("plugin_boot");
	TCase *tc = tcase_create("boot");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_leaf_repeats_a_lost_report);
	tcase_add_test(tc, t_leaf_sends_once_when_sure);
	tcase_add_test(tc, t_root_takes_a_repeat_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = boot_suite, .fork = CK_FORK });
}
