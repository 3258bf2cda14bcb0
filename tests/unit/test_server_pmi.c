/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_pmi.c - protocol tests of PMI-1 / PMI-2 (server/pmi.c): the
 * real server in the test process (tests/lib/srvthread.h) with the fake
 * host, a task played over a socketpair handed over with
 * pxc_server_pmi_add. A PMI rank and a PMIx rank of one job see each
 * other's keys through a fence; broken requests get rc=-1 and the
 * connection (and the server) carry on; a broken PMI-2 length closes the
 * connection after its error reply; a task that leaves without finalize
 * is a lost client; node attributes wait for their put.
 */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"
#include "server/nspace.h"
#include "server/pmi.h"
#include "server/pmi_wire.h"

/* A task's end of a PMI connection for rank (the preamble written). */
static int pmi_open(pmix_rank_t rank)
{
	pmix_proc_t p;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	PMIx_Load_procid(&p, NS, rank);
	ck_assert_int_eq(pxc_server_pmi_add(sv[0], -1, &p), 0);
	ck_assert_int_eq(pxc_pmi_preamble_write(sv[1], getpid()), 0);
	return sv[1];
}

/* Reads one reply into out (PMI-1: a line without its newline; PMI-2: the
 * body); "" when the connection closed. */
static void pmi_read(int fd, int v2, char *out, size_t cap)
{
	size_t n = 0, want = v2 ? 6 : 0;
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	for (;;) {
		ssize_t r;

		ck_assert_msg(poll(&pf, 1, TMO) == 1, "no reply");
		r = read(fd, out + n, v2 ? (n < 6 ? 6 - n : want - n) : 1);
		if (r <= 0) {
			out[0] = '\0';
			return;
		}
		n += (size_t)r;
		ck_assert_uint_lt(n, cap);
		if (!v2 && out[n - 1] == '\n') {
			out[n - 1] = '\0';
			return;
		}
		if (v2 && n == 6) {
			out[6] = '\0';
			want = 6 + (size_t)atoi(out);
		}
		if (v2 && n == want && n > 6) {
			memmove(out, out + 6, n - 6);
			out[n - 6] = '\0';
			return;
		}
	}
}

static char reply[70000];

/* One PMI-1 request (line with its newline); the reply line. */
static const char *v1(int fd, const char *line)
{
	write_all(fd, line, strlen(line));
	pmi_read(fd, 0, reply, sizeof(reply));
	return reply;
}

static void v2_send(int fd, const char *body)
{
	char len[24];

	snprintf(len, sizeof(len), "%6zu", strlen(body));
	write_all(fd, len, 6);
	write_all(fd, body, strlen(body));
}

static const char *v2(int fd, const char *body)
{
	v2_send(fd, body);
	pmi_read(fd, 1, reply, sizeof(reply));
	return reply;
}

static void init(int fd, int version)
{
	char line[64];

	snprintf(line, sizeof(line), "cmd=init pmi_version=%d pmi_subversion=0\n", version);
	ck_assert_msg(strstr(v1(fd, line), "cmd=response_to_init rc=0") == reply, "%s", reply);
}

/* A PMI-1 rank and a PMIx rank of NS put, fence, and read each other. */
START_TEST(pmi1_shares_keys_with_pmix)
{
	pmix_data_buffer_t b;
	pxc_store_t *st;
	int fd, px;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = pmi_open(0);
	px = rc_hello(1, PMIX_SUCCESS, NULL);
	init(fd, 1);
	ck_assert_str_eq(v1(fd, "cmd=get_my_kvsname\n"), "cmd=my_kvsname rc=0 kvsname=" NS);
	ck_assert_str_eq(v1(fd, "cmd=get_maxes\n"),
			 "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024");
	ck_assert_str_eq(v1(fd, "cmd=get_universe_size\n"), "cmd=universe_size rc=0 size=4");
	ck_assert_str_eq(v1(fd, "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=0");
	ck_assert_str_eq(v1(fd, "cmd=put kvsname=" NS " key=pmi.key value=from-pmi\n"),
			 "cmd=put_result rc=0");
	rc_commit(px, 1, "pmix.key", "from-pmix", PMIX_GLOBAL);
	rc_fence_send(px, 5, true, 0);
	ck_assert_str_eq(v1(fd, "cmd=barrier_in\n"), "cmd=barrier_out rc=0");
	ck_assert_int_eq(rc_reply(px, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_str_eq(v1(fd, "cmd=get kvsname=" NS " key=pmix.key\n"),
			 "cmd=get_result rc=0 value=from-pmix");
	ck_assert_str_eq(v1(fd, "cmd=get kvsname=" NS " key=pmi.key\n"),
			 "cmd=get_result rc=0 value=from-pmi");
	ck_assert_int_eq(rc_get(px, 6, NS, 0, "pmi.key", &st), PMIX_SUCCESS);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 0, "pmi.key"), "from-pmi");
	pxc_store_destroy(st);
	ck_assert_str_eq(v1(fd, "cmd=get kvsname=" NS " key=nosuch\n"),
			 "cmd=get_result rc=-1 msg=key_not_found");
	ck_assert_str_eq(v1(fd, "cmd=finalize\n"), "cmd=finalize_ack rc=0");
	close(fd);
	close(px);
	stop_server();
}
END_TEST

/* Two PMI-1 ranks: the barrier is a collecting fence (each gets the
 * other's key). */
START_TEST(pmi1_two_ranks)
{
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = pmi_open(0);
	fd1 = pmi_open(1);
	init(fd0, 1);
	init(fd1, 1);
	ck_assert_str_eq(v1(fd0, "cmd=put key=k0 value=v0\n"), "cmd=put_result rc=0");
	ck_assert_str_eq(v1(fd1, "cmd=put key=k1 value=v1\n"), "cmd=put_result rc=0");
	write_all(fd0, "cmd=barrier_in\n", 15);
	ck_assert_str_eq(v1(fd1, "cmd=barrier_in\n"), "cmd=barrier_out rc=0");
	pmi_read(fd0, 0, reply, sizeof(reply));
	ck_assert_str_eq(reply, "cmd=barrier_out rc=0");
	ck_assert_str_eq(v1(fd0, "cmd=get key=k1\n"), "cmd=get_result rc=0 value=v1");
	ck_assert_str_eq(v1(fd1, "cmd=get key=k0\n"), "cmd=get_result rc=0 value=v0");
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* Broken PMI-1 requests: rc=-1 each, and the connection works after. */
START_TEST(pmi1_broken)
{
	static const char *bad[] = {
		"cmd=nosuch\n",
		"no=cmd\n",
		"cmd=put key\n",
		"cmd=put kvsname=" NS " value=x\n",
		"cmd=put kvsname=" NS " key=k\n",
		"cmd=put kvsname=other key=k value=v\n",
		"cmd=get kvsname=" NS "\n",
		"cmd=init pmi_version=1 pmi_subversion=1\n",
		"cmd=publish_name service=s\n",
		"cmd=abort exitcode=x\n",
		"mcmd=other\nendcmd\n",
		"cmd=spawn\n",
	};
	char *big = malloc(PXC_PMI_MAX_LINE * 2 + 64);
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = pmi_open(0);
	ck_assert_str_eq(v1(fd, "cmd=get_maxes\n"),
			 "cmd=response_to_init rc=-1 msg=the_first_request_must_be_init");
	ck_assert_str_eq(v1(fd, "cmd=init pmi_version=3 pmi_subversion=0\n"),
			 "cmd=response_to_init rc=-1 "
			 "msg=init_needs_pmi_version_1_or_2_and_pmi_subversion");
	init(fd, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(strstr(v1(fd, bad[i]), " rc=-1 msg=") != NULL, "%s -> %s", bad[i],
			      reply);
	/* over-long line, oversized value and key */
	memset(big, 'x', PXC_PMI_MAX_LINE * 2);
	memcpy(big, "cmd=put key=a value=", 20);
	strcpy(big + PXC_PMI_MAX_LINE * 2, "\n");
	ck_assert_str_eq(v1(fd, big), "cmd=error rc=-1 msg=line_too_long");
	snprintf(big, 2000, "cmd=put key=a value=%01100d\n", 0);
	ck_assert_str_eq(v1(fd, big), "cmd=put_result rc=-1 msg=value_too_long");
	snprintf(big, 2000, "cmd=put key=%0300d value=v\n", 0);
	ck_assert_str_eq(v1(fd, big), "cmd=put_result rc=-1 msg=key_too_long");
	ck_assert_str_eq(v1(fd, "cmd=put key=a value=b\n"), "cmd=put_result rc=0");
	ck_assert_str_eq(v1(fd, "cmd=get key=a\n"), "cmd=get_result rc=0 value=b");
	close(fd);
	free(big);
	stop_server();
}
END_TEST

/* PMI-2: fullinit, put/fence/get, node attributes, broken requests. */
START_TEST(pmi2_basic_and_broken)
{
	int fd, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = pmi_open(0);
	fd1 = pmi_open(1);
	init(fd, 2);
	ck_assert_str_eq(v2(fd, "cmd=fullinit;pmirank=0;thrid=t1;"),
			 "cmd=fullinit-response;thrid=t1;rc=0;pmi-version=2;pmi-subversion=0;"
			 "rank=0;size=4;appnum=0;debugged=FALSE;pmiverbose=FALSE;");
	ck_assert_str_eq(v2(fd, "cmd=fullinit;pmirank=3;"),
			 "cmd=fullinit-response;rc=-1;errmsg=pmirank is not this task's rank;");
	ck_assert_str_eq(v2(fd, "cmd=job-getid;"), "cmd=job-getid-response;rc=0;jobid=" NS ";");
	ck_assert_str_eq(v2(fd, "cmd=kvs-put;key=k0;value=a;;b;"), "cmd=kvs-put-response;rc=0;");
	ck_assert_str_eq(v2(fd, "cmd=nosuch;"), "cmd=error;rc=-1;errmsg=unknown command;");
	ck_assert_str_eq(v2(fd, "cmd=kvs-get;srcid=9;key=k;"),
			 "cmd=kvs-get-response;rc=-1;errmsg=srcid is not a rank of the job;");
	ck_assert_str_eq(v2(fd, "cmd=kvs-put;key;"),
			 "cmd=error;rc=-1;errmsg=a word without key=value;");
	ck_assert_str_eq(v2(fd, "cmd=spawn;ncmds=1;"),
			 "cmd=spawn-response;rc=-1;errmsg=fewer commands than ncmds;");
	ck_assert_str_eq(v2(fd, "cmd=job-connect;jobid=x;"),
			 "cmd=job-connect-response;rc=-1;errmsg=not supported;");
	/* node attributes: a waiting get is answered by the put */
	init(fd1, 2);
	v2_send(fd1, "cmd=info-getnodeattr;key=na;wait=TRUE;");
	usleep(50000);
	ck_assert_str_eq(v2(fd, "cmd=info-putnodeattr;key=na;value=nv;"),
			 "cmd=info-putnodeattr-response;rc=0;");
	pmi_read(fd1, 1, reply, sizeof(reply));
	ck_assert_str_eq(reply, "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=nv;");
	ck_assert_str_eq(v2(fd1, "cmd=info-getnodeattr;key=other;"),
			 "cmd=info-getnodeattr-response;rc=0;found=FALSE;");
	/* a broken length: the error, then the end of the connection */
	write_all(fd1, "xxxxxxcmd=kvs-fence;", 20);
	pmi_read(fd1, 1, reply, sizeof(reply));
	ck_assert_str_eq(reply, "cmd=error;rc=-1;errmsg=a PMI-2 message without a valid length;");
	pmi_read(fd1, 1, reply, sizeof(reply));
	ck_assert_str_eq(reply, "");
	/* the other connection and the server carry on */
	ck_assert_str_eq(v2(fd, "cmd=kvs-get;key=k0;"),
			 "cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;");
	close(fd);
	close(fd1);
	stop_server();
}
END_TEST

/* A PMI task that closes without finalize is a lost client; one that
 * finalized is not. */
START_TEST(pmi_lost_client)
{
	pmix_proc_t p0, p1;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	PMIx_Load_procid(&p0, NS, 0);
	PMIx_Load_procid(&p1, NS, 1);
	fd0 = pmi_open(0);
	fd1 = pmi_open(1);
	init(fd0, 1);
	init(fd1, 1);
	ck_assert_str_eq(v1(fd1, "cmd=finalize\n"), "cmd=finalize_ack rc=0");
	close(fd0);
	close(fd1);
	for (int i = 0; i < 100 && host.n_finalized < 2; i++)
		usleep(20000);
	ck_assert_int_eq(host.n_finalized, 2);
	ck_assert(pxc_server_client_lost(&p0));
	ck_assert(!pxc_server_client_lost(&p1));
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "pmi1_shares_keys", pmi1_shares_keys_with_pmix },
		{ "pmi1_two_ranks", pmi1_two_ranks },
		{ "pmi1_broken", pmi1_broken },
		{ "pmi2", pmi2_basic_and_broken },
		{ "pmi_lost", pmi_lost_client },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
