/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_peer.c - protocol tests of connections (peer.c): broken
 * input (garbage, bad magic, absurd length, unknown command, truncated
 * payloads, requests before HELLO, unregistered ranks, forged COMMITs,
 * peers vanishing mid-message) must give an error or a closed connection,
 * and the server must still serve a good client afterwards; reply
 * channels; a tool's HELLO gets its identity from the host; and the real
 * client library, in forked children, against the real server.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakehost.h"
#include "pxc_host.h"
#include "server/server.h"
#include "rawclient.h"
#include "srvthread.h"

/* After a broken peer, a good client still works. */
static void good_client_works(void)
{
	int fd = rc_hello(1, PMIX_SUCCESS, NULL);
	pxc_store_t *st;

	ck_assert_int_eq(rc_get(fd, 99, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &st), PMIX_SUCCESS);
	pxc_store_destroy(st);
	close(fd);
	usleep(20000); /* let the server see the close before the next HELLO */
}

/* A reply channel (proto.h): only for a connected identity, once; the
 * replies to tags with PXC_TAG_REPLY_CHANNEL go there, the others on the
 * first connection; a request on it closes it; it ends with the first. */
static int rchan_open(pmix_rank_t rank, pmix_status_t want)
{
	return rc_hello_kind(PXC_PEER_REPLY, NS, rank, want);
}

static void rchan_get_size(int fd, uint32_t tag)
{
	rc_get_send(fd, tag, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
}

START_TEST(reply_channel)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	int fd0, rc0, bad;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	bad = rchan_open(1, PMIX_ERR_NO_PERMISSIONS); /* rank 1 is not connected */
	ck_assert(rc_closed(bad));
	close(bad);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	rc0 = rchan_open(0, PMIX_SUCCESS);
	bad = rchan_open(0, PMIX_ERR_NO_PERMISSIONS); /* one channel per connection */
	ck_assert(rc_closed(bad));
	close(bad);
	rchan_get_size(fd0, 5 | PXC_TAG_REPLY_CHANNEL);
	ck_assert_int_eq(rc_reply(rc0, 5 | PXC_TAG_REPLY_CHANNEL, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rchan_get_size(fd0, 6); /* plain tag: first connection */
	ck_assert_int_eq(rc_reply(fd0, 6, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_recv(rc0, &h, &b, 200), -1); /* nothing came there */
	rchan_get_size(rc0, 7);                          /* a request on the channel */
	ck_assert(rc_closed(rc0));
	close(rc0);
	rchan_get_size(fd0, 8 | PXC_TAG_REPLY_CHANNEL); /* no channel: first connection */
	ck_assert_int_eq(rc_reply(fd0, 8 | PXC_TAG_REPLY_CHANNEL, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc0 = rchan_open(0, PMIX_SUCCESS); /* a new one after that */
	close(fd0);                        /* ends with the first connection */
	ck_assert(rc_closed(rc0));
	close(rc0);
	stop_server();
}
END_TEST

START_TEST(robust_broken_input)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	/* garbage */
	fd = rc_connect();
	write_all(fd, "hello, this is not a frame at all....", 36);
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* bad magic */
	fd = rc_connect();
	h = (pxc_wire_hdr_t){ .len = 0, .tag = 1, .cmd = PXC_CMD_HELLO };
	pxc_wire_hdr_encode(&h, hdr);
	hdr[0] ^= 0xff;
	write_all(fd, hdr, sizeof(hdr));
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* absurd length */
	fd = rc_connect();
	h = (pxc_wire_hdr_t){ .len = 0xfffffff0u, .tag = 1, .cmd = PXC_CMD_HELLO };
	pxc_wire_hdr_encode(&h, hdr);
	write_all(fd, hdr, sizeof(hdr));
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* request before HELLO */
	fd = rc_connect();
	rc_fence_send(fd, 2, false, 0);
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* truncated HELLO payload */
	fd = rc_connect();
	pxc_buf_init(&b);
	pxc_pack_u32(&b, PXC_PROTO_VERSION);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* HELLO for an unregistered rank */
	fd = rc_connect();
	pack_hello(&b, PXC_PEER_CLIENT, NS, 7);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_ERR_NO_PERMISSIONS);
	pxc_buf_clear(&b);
	ck_assert(rc_closed(fd));
	close(fd);
	good_client_works();
	/* unknown command and truncated payload after a good HELLO */
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_send(fd, 999, 5, NULL);
	ck_assert(rc_closed(fd));
	close(fd);
	usleep(20000);
	good_client_works();
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_u32(&b, 1); /* GET wants a PROC first */
	rc_send(fd, PXC_CMD_GET, 5, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	usleep(20000);
	good_client_works();
	/* a COMMIT that writes another proc's data */
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_commit(fd, 1, "k.forged", "x", PMIX_GLOBAL);
	ck_assert(rc_closed(fd));
	close(fd);
	usleep(20000);
	good_client_works();
	/* disconnect in the middle of a message */
	fd = rc_connect();
	pack_hello(&b, PXC_PEER_CLIENT, NS, 0);
	h = (pxc_wire_hdr_t){ .len = (uint32_t)b.bytes_used, .tag = 1, .cmd = PXC_CMD_HELLO };
	pxc_wire_hdr_encode(&h, hdr);
	write_all(fd, hdr, sizeof(hdr));
	write_all(fd, b.base_ptr, b.bytes_used / 2);
	pxc_buf_clear(&b);
	close(fd);
	usleep(20000);
	good_client_works();
	stop_server();
}
END_TEST

START_TEST(tool_gets_identity)
{
	pmix_data_buffer_t b;
	pmix_proc_t me;
	int fd;

	ck_assert_int_eq(start_server(&full_module, true), PMIX_SUCCESS);
	fd = rc_connect();
	pack_hello(&b, PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_proc(&b, &me), PMIX_SUCCESS);
	ck_assert_str_eq(me.nspace, "host.tool");
	ck_assert_uint_eq(me.rank, 7);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_tool, 1);
	close(fd);
	stop_server();
}
END_TEST

/* A connection the host accepted itself (srun's tool proxy) becomes a
 * tool, never a client: a client's HELLO on it is refused (the broken
 * variant, adopting it as any peer, would serve rank 0), a tool's is
 * served; without tool support the host's descriptor is closed. */
struct adopt {
	int fd, rc;
	pxc_sync_t done;
};

static void adopt_fn(void *arg)
{
	struct adopt *a = arg;

	a->rc = pxc_server_tool_adopt(a->fd, getuid(), getgid(), 4242);
	pxc_sync_signal(&a->done, PMIX_SUCCESS);
}

static int adopted(bool expect_ok)
{
	int sv[2];
	struct adopt a;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	a.fd = sv[0];
	pxc_sync_init(&a.done);
	ck_assert_int_eq(pxc_srv_call_wait(adopt_fn, &a, &a.done), PMIX_SUCCESS);
	pxc_sync_fini(&a.done);
	ck_assert_int_eq(a.rc, expect_ok ? 0 : -1);
	return sv[1];
}

START_TEST(proxied_tool_only)
{
	pmix_data_buffer_t b;
	pmix_proc_t me;
	char c;
	int fd;

	ck_assert_int_eq(start_server(&full_module, true), PMIX_SUCCESS);
	register_job(2); /* rank 0 is registered: refused all the same */
	fd = adopted(true);
	pack_hello(&b, PXC_PEER_CLIENT, NS, 0);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_ERR_NO_PERMISSIONS);
	pxc_buf_clear(&b);
	close(fd);
	fd = adopted(true);
	pack_hello(&b, PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF);
	rc_send(fd, PXC_CMD_HELLO, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_proc(&b, &me), PMIX_SUCCESS);
	ck_assert_str_eq(me.nspace, "host.tool");
	pxc_buf_clear(&b);
	close(fd);
	good_client_works();
	stop_server();
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	fd = adopted(false);
	ck_assert_int_eq(read(fd, &c, 1), 0); /* closed by the server */
	close(fd);
	stop_server();
}
END_TEST

/* A rendezvous file (rendezvous.c): made 0600; a killed server's (its
 * socket does not answer) is replaced; a live one's is left (EEXIST). */
START_TEST(rendezvous_stale)
{
	char dir[] = "/tmp/rdvtest.XXXXXX", path[128], sock[128], buf[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat sb;
	FILE *f;
	int l;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pmix.h.tool.1", dir);
	snprintf(sock, sizeof(sock), "%s/s", dir);
	ck_assert_int_eq(pxc_rdv_create(path, "unix:/nonexistent/s", getuid(), getgid()), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	/* a dead server's: replaced */
	ck_assert_int_eq(pxc_rdv_create(path, "unix:/x/y", getuid(), getgid()), 0);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "unix:/x/y\n");
	/* a live one's: left */
	strcpy(sa.sun_path, sock);
	ck_assert_int_ge(l = socket(AF_UNIX, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 4), 0);
	unlink(path);
	snprintf(buf, sizeof(buf), "unix:%s", sock);
	ck_assert_int_eq(pxc_rdv_create(path, buf, getuid(), getgid()), 0);
	ck_assert_int_eq(pxc_rdv_create(path, "unix:/x/y", getuid(), getgid()), -1);
	ck_assert_int_eq(errno, EEXIST);
	close(l);
	/* a link planted there is never followed */
	unlink(path);
	ck_assert_int_eq(symlink("/nonexistent", path), 0);
	ck_assert_int_eq(pxc_rdv_create(path, "unix:/x/y", getuid(), getgid()), 0);
	ck_assert_int_eq(lstat(path, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	unlink(path);
	unlink(sock);
	rmdir(dir);
}
END_TEST

/* PXC_SERVER_RDV_DEFER: no rendezvous file until the host publishes
 * them (the stepd does once its step is registered), then the pid's file
 * is there, and it goes with the server. */
START_TEST(rendezvous_deferred)
{
	char dir[] = "/tmp/rdvdefer.XXXXXX", path[512], host[256] = "";
	pmix_info_t extra[2];
	bool yes = true;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/pmix.%s.tool.%d", dir, host, (int)getpid());
	PMIx_Info_load(&extra[0], PXC_SERVER_RDV_DEFER, &yes, PMIX_BOOL);
	PMIx_Info_load(&extra[1], PXC_SERVER_RDV_DIR, dir, PMIX_STRING);
	ck_assert_int_eq(start_server_with(&full_module, true, extra, 2), PMIX_SUCCESS);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(pxc_server_rdv_publish(), 0);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(pxc_server_rdv_publish(), 0); /* once */
	stop_server();
	ck_assert_int_eq(access(path, F_OK), -1);
	PMIx_Info_destruct(&extra[0]);
	PMIx_Info_destruct(&extra[1]);
	rmdir(dir);
}
END_TEST

/* The real client library against the real server: children forked
 * before the server starts (so they hold no threads), handed their
 * environment through a pipe. */
static int real_client_main(int rfd)
{
	char envbuf[4096], *save = NULL;
	ssize_t n = read(rfd, envbuf, sizeof(envbuf) - 1);
	pmix_proc_t me, peer, wild;
	pmix_value_t v, *got = NULL;
	pmix_info_t coll;
	int rc = 0;

	if (n <= 0)
		return 10;
	envbuf[n] = '\0';
	for (char *e = strtok_r(envbuf, "\n", &save); e; e = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(e, '=');

		if (eq) {
			*eq = '\0';
			setenv(e, eq + 1, 1);
		}
	}
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 11;
	v.type = PMIX_UINT32;
	v.data.uint32 = 100 + me.rank;
	if (PMIx_Put(PMIX_GLOBAL, "test.k", &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
		rc = 12;
	PMIx_Info_load(&coll, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	if (!rc && PMIx_Fence(NULL, 0, &coll, 1) != PMIX_SUCCESS)
		rc = 13;
	PMIx_Load_procid(&peer, me.nspace, 1 - me.rank);
	if (!rc && (PMIx_Get(&peer, "test.k", NULL, 0, &got) != PMIX_SUCCESS ||
		    got->data.uint32 != 101 - me.rank))
		rc = 14;
	if (got)
		PMIx_Value_free(got, 1);
	got = NULL;
	/* a key posted after the peer's data was fetched: asked alone */
	v.data.uint32 = 200 + me.rank;
	if (!rc && (PMIx_Put(PMIX_LOCAL, "test.k2", &v) != PMIX_SUCCESS ||
		    PMIx_Commit() != PMIX_SUCCESS || PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS))
		rc = 18;
	if (!rc && (PMIx_Get(&peer, "test.k2", NULL, 0, &got) != PMIX_SUCCESS ||
		    got->data.uint32 != 201 - me.rank))
		rc = 19;
	if (got)
		PMIx_Value_free(got, 1);
	got = NULL;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (!rc && (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got) != PMIX_SUCCESS ||
		    got->data.uint32 != 4))
		rc = 15;
	if (got)
		PMIx_Value_free(got, 1);
	if (!rc && PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
		rc = 16;
	if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS && !rc)
		rc = 17;
	return rc;
}

START_TEST(real_clients)
{
	int pipes[2][2], status;
	pid_t kids[2];

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pipe(pipes[i]), 0);
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			close(pipes[i][1]);
			alarm(20);
			_exit(real_client_main(pipes[i][0]));
		}
		close(pipes[i][0]);
	}
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	for (int i = 0; i < 2; i++) {
		char **env = NULL, buf[4096] = "";
		pmix_proc_t p;

		PMIx_Load_procid(&p, NS, (pmix_rank_t)i);
		ck_assert_int_eq(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
		for (int k = 0; env[k]; k++) {
			strncat(buf, env[k], sizeof(buf) - strlen(buf) - 2);
			strcat(buf, "\n");
			free(env[k]);
		}
		free(env);
		write_all(pipes[i][1], buf, strlen(buf));
		close(pipes[i][1]);
	}
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(waitpid(kids[i], &status, 0), kids[i]);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	ck_assert_int_eq(host.n_fence, 3);
	ck_assert_int_eq(host.n_finalized, 2);
	stop_server();
}
END_TEST

/* True when the server closes fd within ms (EOF after any replies);
 * false when it stays open (rc_closed cannot tell: a timeout counts as
 * closed there). */
static bool eof_within(int fd, int ms)
{
	char buf[4096];

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, ms) <= 0)
			return false;
		if ((r = read(fd, buf, sizeof(buf))) <= 0)
			return true;
	}
}

/* The limits of peer.h: requests waiting for the host (the one over
 * answered PMIX_ERR_OUT_OF_RESOURCE at once, the others later, then room
 * again), a connection without HELLO closed at its deadline (one that
 * said HELLO kept), connections held (one over closed at once; room
 * again once one ends), a message over the size closing its connection
 * only. Without each limit the matching check fails (tried). */
START_TEST(limits)
{
	pmix_info_t extra[4];
	pmix_data_buffer_t b;
	char *big = calloc(1, 70000);
	int a, c, d, e, f;

	signal(SIGPIPE, SIG_IGN); /* a closed connection fails a check instead */
	load_u32(&extra[0], PXC_SERVER_MAX_PEERS, 3);
	load_u32(&extra[1], PXC_SERVER_MAX_PENDING, 2);
	load_u32(&extra[2], PXC_SERVER_MAX_MESSAGE, 65536);
	load_u32(&extra[3], PXC_SERVER_HELLO_MS, 1000);
	keeper.keep_ms = 600;
	ck_assert_int_eq(start_server_with(&keep_module, false, extra, 4), PMIX_SUCCESS);
	register_job(2);
	a = rc_hello(0, PMIX_SUCCESS, NULL);
	/* pending: the third of three held queries is refused at once */
	send_query(a, 11, PMIX_TIME_REMAINING, NULL);
	send_query(a, 12, PMIX_TIME_REMAINING, NULL);
	send_query(a, 13, PMIX_TIME_REMAINING, NULL);
	ck_assert_int_eq(rc_reply(a, 13, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	ck_assert_int_ne(rc_reply(a, 11, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	ck_assert_int_ne(rc_reply(a, 12, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	send_query(a, 14, PMIX_TIME_REMAINING, NULL); /* room again */
	ck_assert_int_ne(rc_reply(a, 14, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	/* connections: a, c (no HELLO), d (no HELLO); e is one too many */
	c = rc_connect();
	d = rc_connect();
	e = rc_connect();
	ck_assert(eof_within(e, 2000));
	close(e);
	/* the deadline: c and d go, a (it said HELLO) stays */
	ck_assert(eof_within(c, 5000));
	ck_assert(eof_within(d, 5000));
	close(c);
	close(d);
	f = rc_hello(1, PMIX_SUCCESS, NULL); /* room again */
	send_query(a, 15, PMIX_TIME_REMAINING, NULL);
	ck_assert_int_ne(rc_reply(a, 15, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	/* a message over 64 KiB (a well-formed query) closes its
	 * connection, not f's */
	memset(big, 'k', 69999);
	send_query(a, 9, big, NULL);
	ck_assert(eof_within(a, 1500));
	send_query(f, 16, PMIX_TIME_REMAINING, NULL);
	ck_assert_int_ne(rc_reply(f, 16, &b), PMIX_ERR_OUT_OF_RESOURCE);
	pxc_buf_clear(&b);
	close(a);
	close(f);
	free(big);
	keeper_drain(4);
	for (int i = 0; i < 4; i++)
		PMIx_Info_destruct(&extra[i]);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "robust", robust_broken_input },
		{ "reply_channel", reply_channel },
		{ "tool", tool_gets_identity },
		{ "proxied_tool_only", proxied_tool_only },
		{ "rendezvous_stale", rendezvous_stale },
		{ "rendezvous_deferred", rendezvous_deferred },
		{ "real_clients", real_clients },
		{ "limits", limits },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
