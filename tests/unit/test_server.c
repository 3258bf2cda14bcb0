/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server.c - protocol tests of the PMIx server (src/pmix_core/server).
 *
 * Each test (fork mode) starts the real server in the test process with a
 * fake host module whose callbacks count their calls and can be told to
 * fail, then talks to it like our client library would: raw clients over
 * the Unix socket, speaking frame.h/proto.h with pack.h payloads, blocking
 * reads with a poll timeout. Broken input (garbage, bad magic, absurd
 * length, unknown command, truncated payloads, requests before HELLO,
 * unregistered ranks, peers vanishing mid-message or mid-fence) must give
 * an error or a closed connection, and the server must still serve a good
 * client afterwards.
 *
 * A second fake host (keep_module) keeps the pointers every module
 * function is handed and checks them from its own thread long after the
 * upcall returned, then calls back from there, as the Standard allows
 * hosts to do; bad_module calls back twice, late, and after finalize.
 * main() runs the tests with malloc filling freed memory, so that a use
 * after free fails a test without valgrind too.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <hwloc.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_slurmix.h>
#include "pxc.h"
#include "pack.h"
#include "store.h"
#include "frame.h"
#include "proto.h"
#include "server/srv.h"
#include "server/server.h"
#include "runner.h"
#include "fakehost.h"
#include "srvthread.h"
#include "rawclient.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

START_TEST(init_finalize_leaves_nothing)
{
	int before = count_fds();
	char dir[256];
	struct stat st;

	ck_assert_int_eq(start_server(&full_module, true), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_role, PXC_ROLE_SERVER);
	snprintf(dir, sizeof(dir), "%s", pxc_srv.dir);
	ck_assert_int_eq(stat(pxc_srv.sockpath, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_ptr_nonnull(pxc_srv.rdv[0]);
	ck_assert_int_eq(access(pxc_srv.rdv[0], R_OK), 0);
	register_job(2);
	int fd = rc_hello(0, PMIX_SUCCESS, NULL);
	stop_server();
	ck_assert(rc_closed(fd));
	close(fd);
	ck_assert_int_ne(stat(dir, &st), 0);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(pxc_role, PXC_ROLE_NONE);
	/* and again: a second init in the same process works */
	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	stop_server();
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

START_TEST(init_long_tmpdir_fails_cleanly)
{
	char longdir[200];
	pmix_info_t info;

	memset(longdir, 'x', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	PMIx_Info_load(&info, PMIX_SERVER_TMPDIR, longdir, PMIX_STRING);
	ck_assert_int_ne(PMIx_server_init(NULL, &info, 1), PMIX_SUCCESS);
	PMIx_Info_destruct(&info);
	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	stop_server();
}
END_TEST

START_TEST(userid_chowns_dir)
{
	pmix_info_t info[3];
	uint32_t uid = 65534;
	struct stat st;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srvtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_USERID, &uid, PMIX_UINT32);
	PMIx_Info_load(&info[2], PMIX_GRPID, &uid, PMIX_UINT32);
	ck_assert_int_eq(PMIx_server_init(NULL, info, 3), PMIX_SUCCESS);
	ck_assert_int_eq(stat(pxc_srv.dir, &st), 0);
	if (geteuid() == 0) {
		ck_assert_uint_eq(st.st_uid, 65534);
		ck_assert_int_eq(stat(pxc_srv.sockpath, &st), 0);
		ck_assert_uint_eq(st.st_uid, 65534);
		ck_assert_int_eq(st.st_mode & 0777, 0600);
	}
	stop_server();
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&info[i]);
}
END_TEST

START_TEST(setup_fork_env)
{
	char **env = NULL;
	pmix_proc_t p;
	bool uri = false, ns = false, prefix = false;

	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	PMIx_Load_procid(&p, NS, 3);
	ck_assert_int_eq(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
	for (int i = 0; env[i]; i++) {
		uri |= strncmp(env[i], PXC_ENV_URI "=unix:/", strlen(PXC_ENV_URI) + 7) == 0;
		ns |= strcmp(env[i], "PMIX_NAMESPACE=" NS) == 0;
		prefix |= strncmp(env[i], "PMIX_INSTALL_PREFIX", 19) == 0;
		ck_assert(strcmp(env[i], "PMIX_RANK=3") == 0 || strncmp(env[i], "PMIX_RANK=", 10));
		free(env[i]);
	}
	free(env);
	ck_assert(uri && ns && !prefix);
	stop_server();
}
END_TEST

START_TEST(register_and_hello_blob)
{
	pxc_store_t *job = pxc_store_create();
	pmix_info_t node[3], pdata[3], info[2];
	pmix_data_array_t nda = { .type = PMIX_INFO, .size = 3, .array = node };
	pmix_data_array_t pda = { .type = PMIX_INFO, .size = 3, .array = pdata };
	pmix_rank_t r1 = 1;
	uint16_t lr = 1;
	const pmix_value_t *v;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	/* a second registration merges: node array by hostname, proc data */
	PMIx_Info_load(&node[0], PMIX_HOSTNAME, HOST, PMIX_STRING);
	PMIx_Info_load(&node[1], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
	load_u32(&node[2], PMIX_NODE_SIZE, 2);
	PMIx_Info_load(&pdata[0], PMIX_RANK, &r1, PMIX_PROC_RANK);
	PMIx_Info_load(&pdata[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
	PMIx_Info_load(&pdata[2], PMIX_LOCALITY_STRING, "NM0:SK0", PMIX_STRING);
	PMIx_Info_load(&info[0], PMIX_NODE_INFO_ARRAY, &nda, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[1], PMIX_PROC_DATA, &pda, PMIX_DATA_ARRAY);
	ck_assert_int_eq(reg_nspace(NS, -1, info, 2, NULL, NULL), PMIX_SUCCESS);
	for (int i = 0; i < 3; i++) {
		PMIx_Info_destruct(&node[i]);
		PMIx_Info_destruct(&pdata[i]);
	}
	PMIx_Info_destruct(&info[0]);	/* Info_load deep-copied the arrays */
	PMIx_Info_destruct(&info[1]);
	fd = rc_hello(1, PMIX_SUCCESS, job);
	ck_assert_int_eq(host.n_connected, 1);
	ck_assert_str_eq(sval(job, NS, PXC_LVL_JOB, 0, "test.jobkey"), "jobval");
	ck_assert_str_eq(sval(job, NS, PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS), "0,1");
	v = pxc_store_get(job, NS, PXC_LVL_JOB, 0, PMIX_NODE_SIZE, NULL);
	ck_assert(v && v->type == PMIX_UINT32 && v->data.uint32 == 2);
	v = pxc_store_get(job, NS, PXC_LVL_PROC, 1, PMIX_LOCAL_RANK, NULL);
	ck_assert(v && v->type == PMIX_UINT16 && v->data.uint16 == 1);
	/* derived from the maps */
	ck_assert_str_eq(sval(job, NS, PXC_LVL_PROC, 2, PMIX_HOSTNAME), "other");
	ck_assert_str_eq(sval(job, NS, PXC_LVL_PROC, 0, PMIX_HOSTNAME), HOST);
	v = pxc_store_get(job, NS, PXC_LVL_PROC, 3, PMIX_NODEID, NULL);
	ck_assert(v && v->type == PMIX_UINT32 && v->data.uint32 == 1);
	v = pxc_store_get(job, NS, PXC_LVL_JOB, 0, PMIX_LOCAL_SIZE, NULL);
	ck_assert(v && v->data.uint32 == 2);
	close(fd);
	pxc_store_destroy(job);
	stop_server();
}
END_TEST

/* After a broken peer, a good client still works. */
static void good_client_works(void)
{
	int fd = rc_hello(1, PMIX_SUCCESS, NULL);
	pxc_store_t *st;

	ck_assert_int_eq(rc_get(fd, 99, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &st), PMIX_SUCCESS);
	pxc_store_destroy(st);
	close(fd);
	usleep(20000);	/* let the server see the close before the next HELLO */
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
	bad = rchan_open(1, PMIX_ERR_NO_PERMISSIONS);	/* rank 1 is not connected */
	ck_assert(rc_closed(bad));
	close(bad);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	rc0 = rchan_open(0, PMIX_SUCCESS);
	bad = rchan_open(0, PMIX_ERR_NO_PERMISSIONS);	/* one channel per connection */
	ck_assert(rc_closed(bad));
	close(bad);
	rchan_get_size(fd0, 5 | PXC_TAG_REPLY_CHANNEL);
	ck_assert_int_eq(rc_reply(rc0, 5 | PXC_TAG_REPLY_CHANNEL, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rchan_get_size(fd0, 6);				/* plain tag: first connection */
	ck_assert_int_eq(rc_reply(fd0, 6, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_recv(rc0, &h, &b, 200), -1);	/* nothing came there */
	rchan_get_size(rc0, 7);				/* a request on the channel */
	ck_assert(rc_closed(rc0));
	close(rc0);
	rchan_get_size(fd0, 8 | PXC_TAG_REPLY_CHANNEL);	/* no channel: first connection */
	ck_assert_int_eq(rc_reply(fd0, 8 | PXC_TAG_REPLY_CHANNEL, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc0 = rchan_open(0, PMIX_SUCCESS);		/* a new one after that */
	close(fd0);					/* ends with the first connection */
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
	pxc_pack_u32(&b, 1);		/* GET wants a PROC first */
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

START_TEST(host_failures_propagate)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	pmix_info_t info;
	int fd;

	host.fail_connected = 1;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_ERR_NO_PERMISSIONS, NULL);
	ck_assert(rc_closed(fd));
	close(fd);
	host.fail_connected = 0;
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* publish */
	PMIx_Info_load(&info, "svc", "port", PMIX_STRING);
	host.fail_publish = 1;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_DUPLICATE_KEY);
	pxc_buf_clear(&b);
	host.fail_publish = 0;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 3, &b);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
	/* lookup */
	{
		char *keys[1] = { "svc" };
		pmix_pdata_t *pd = NULL;
		size_t n = 0;

		pxc_buf_init(&b);
		pxc_pack_array(&b, keys, 1, PMIX_STRING);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_LOOKUP, 4, &b);
		ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&pd, &n, PMIX_PDATA), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(pd[0].value.data.string, "port-1");
		pxc_array_free(pd, n, PMIX_PDATA);
		pxc_buf_clear(&b);
	}
	/* spawn fails */
	{
		pmix_app_t app;

		memset(&app, 0, sizeof(app));
		app.cmd = "true";
		app.maxprocs = 1;
		host.fail_spawn = 1;
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		pxc_pack_array(&b, &app, 1, PMIX_APP);
		rc_send(fd, PXC_CMD_SPAWN, 5, &b);
		ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_ERR_JOB_FAILED_TO_LAUNCH);
		pxc_buf_clear(&b);
		host.fail_spawn = 0;
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		pxc_pack_array(&b, &app, 1, PMIX_APP);
		rc_send(fd, PXC_CMD_SPAWN, 6, &b);
		ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_SUCCESS);
		char *ns = NULL;
		ck_assert_int_eq(pxc_unpack_str(&b, &ns), PMIX_SUCCESS);
		ck_assert_str_eq(ns, "child.ns");
		free(ns);
		pxc_buf_clear(&b);
	}
	/* abort fails */
	host.fail_abort = 1;
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, "bye");
	pxc_pack_array(&b, NULL, 0, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 7, &b);
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_ERROR);
	pxc_buf_clear(&b);
	/* log: no host log -> not supported */
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_LOG, 8, &b);
	ck_assert_int_eq(rc_reply(fd, 8, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	close(fd);
	stop_server();
	(void)none;
}
END_TEST

START_TEST(null_module_not_supported)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&none, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	/* group */
	{
		uint8_t op = 0;

		pxc_buf_init(&b);
		pxc_pack(&b, &op, 1, PMIX_UINT8);
		pxc_pack_str(&b, "grp");
		pxc_pack_array(&b, NULL, 0, PMIX_PROC);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_GROUP, 3, &b);
		ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_ERR_NOT_SUPPORTED);
		pxc_buf_clear(&b);
	}
	/* remote GET without direct_modex: not found */
	ck_assert_int_eq(rc_get(fd, 4, NS, 3, "k", NULL), PMIX_ERR_NOT_FOUND);
	close(fd);
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

START_TEST(cleanup_is_safe)
{
	char top[128], path[256], outside[128];
	pmix_info_t info[2];
	pmix_data_buffer_t b;
	struct stat st;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	snprintf(top, sizeof(top), "%s/sess", tmpdir);
	snprintf(outside, sizeof(outside), "%s/outside", tmpdir);
	ck_assert_int_eq(mkdir(top, 0700), 0);
	ck_assert_int_eq(mkdir(outside, 0700), 0);
	snprintf(path, sizeof(path), "%s/victim", outside);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/sub", top);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sub/f", top);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/link", top);
	ck_assert_int_eq(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/keep.me", top);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	if (geteuid() == 0) {	/* a file of another user stays */
		snprintf(path, sizeof(path), "%s/theirs", top);
		close(open(path, O_CREAT | O_WRONLY, 0600));
		ck_assert_int_eq(chown(path, 4242, 4242), 0);
	}
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP_DIR, top, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_CLEANUP_RECURSIVE, NULL, PMIX_BOOL);
	pack_procs_info(&b, NULL, 0, info, 2);
	rc_send(fd, PXC_CMD_JOBCTL, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_CLEANUP_IGNORE, "keep.*", PMIX_STRING);
	pack_procs_info(&b, NULL, 0, info, 1);
	rc_send(fd, PXC_CMD_JOBCTL, 3, &b);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	/* relative and ".." paths are refused */
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP, "/tmp/../etc/passwd", PMIX_STRING);
	pack_procs_info(&b, NULL, 0, info, 1);
	rc_send(fd, PXC_CMD_JOBCTL, 4, &b);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	close(fd);
	usleep(20000);
	{ pmix_nspace_t n; PMIx_Load_nspace(n, NS); PMIx_server_deregister_nspace(n, NULL, NULL); }
	snprintf(path, sizeof(path), "%s/sub", top);
	ck_assert_int_ne(lstat(path, &st), 0);		/* removed */
	snprintf(path, sizeof(path), "%s/link", top);
	ck_assert_int_ne(lstat(path, &st), 0);		/* link removed */
	snprintf(path, sizeof(path), "%s/victim", outside);
	ck_assert_int_eq(lstat(path, &st), 0);		/* target untouched */
	snprintf(path, sizeof(path), "%s/keep.me", top);
	ck_assert_int_eq(lstat(path, &st), 0);		/* ignored */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", top);
		ck_assert_int_eq(lstat(path, &st), 0);
	}
	stop_server();
	ck_assert_int_eq(system("rm -rf /tmp/srvtest.*"), 0);
}
END_TEST

START_TEST(locality_strings)
{
	hwloc_topology_t t;
	pmix_cpuset_t cs = { .source = "hwloc" };
	char *loc = NULL, *str = NULL;

	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	cs.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_set(cs.bitmap, hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0)->os_index);
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_SUCCESS);
	ck_assert_int_eq(strncmp(loc, "NM", 2), 0);
	ck_assert_ptr_nonnull(strstr(loc, ":HT0"));
	ck_assert_int_eq(PMIx_server_generate_cpuset_string(&cs, &str), PMIX_SUCCESS);
	ck_assert_int_eq(strncmp(str, "hwloc:", 6), 0);
	free(loc);
	free(str);
	hwloc_bitmap_free(cs.bitmap);
	hwloc_topology_destroy(t);
	cs.source = "other";
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_ERR_BAD_PARAM);
	stop_server();
}
END_TEST

/* A host's PMIX_TOPOLOGY2 is what the locality strings are computed
 * from (a synthetic 2-package machine here, unlike this one), not a
 * discovery of the server's own; the server keeps its own copy. */
START_TEST(locality_host_topology)
{
	hwloc_topology_t t;
	pmix_topology_t topo = { .source = "hwloc" };
	pmix_cpuset_t cs = { .source = "hwloc" };
	pmix_info_t info[2];
	char *loc = NULL;

	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:1"), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	topo.topology = t;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srvtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
	ck_assert_int_eq(PMIx_server_init(NULL, info, 2), PMIX_SUCCESS);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	hwloc_topology_destroy(t);		/* the server's copy lives on */
	cs.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_set(cs.bitmap, 3);
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_SUCCESS);
	ck_assert_ptr_nonnull(strstr(loc, "SK1:"));
	ck_assert_ptr_nonnull(strstr(loc, ":CR3:HT3"));
	free(loc);
	hwloc_bitmap_free(cs.bitmap);
	stop_server();
}
END_TEST

/* Memory: server store bytes per registered process and per posted key. */
START_TEST(memory_figures)
{
	const int nprocs = 1000, nkeys = 200;
	pmix_info_t *info = PMIx_Info_create(nprocs);
	size_t b0, b1, b2;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	b0 = pxc_store_bytes(pxc_srv.store);
	for (int r = 0; r < nprocs; r++) {
		pmix_info_t *pd = PMIx_Info_create(6);
		pmix_data_array_t da = { .type = PMIX_INFO, .size = 6, .array = pd };
		pmix_rank_t rank = (pmix_rank_t)r;
		uint16_t lr = (uint16_t)r;
		uint32_t nid = 0;

		PMIx_Info_load(&pd[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
		PMIx_Info_load(&pd[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
		PMIx_Info_load(&pd[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
		PMIx_Info_load(&pd[3], PMIX_NODEID, &nid, PMIX_UINT32);
		PMIx_Info_load(&pd[4], PMIX_HOSTNAME, "node0001", PMIX_STRING);
		PMIx_Info_load(&pd[5], PMIX_LOCALITY_STRING, "NM0:SK0:L30:L20:L10:CR0:HT0", PMIX_STRING);
		PMIx_Info_load(&info[r], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
		PMIx_Info_free(pd, 6);
	}
	ck_assert_int_eq(reg_nspace("mem.ns", nprocs, info, nprocs, NULL, NULL),
			 PMIX_SUCCESS);
	PMIx_Info_free(info, nprocs);
	b1 = pxc_store_bytes(pxc_srv.store);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	{
		pxc_store_t *st = pxc_store_create();
		pmix_data_buffer_t blob, b;
		pmix_byte_object_t bo;
		char key[32], val[64];

		for (int k = 0; k < nkeys; k++) {
			snprintf(key, sizeof(key), "btl.tcp.4.1.%d", k);
			memset(val, 'a' + k % 26, sizeof(val));
			bo.bytes = val;
			bo.size = sizeof(val);
			pmix_value_t v = { .type = PMIX_BYTE_OBJECT };
			v.data.bo = bo;
			pxc_store_put(st, NS, PXC_LVL_PROC, 0, key, &v, PMIX_GLOBAL);
		}
		pxc_buf_init(&blob);
		pxc_store_pack(st, NS, -1, PXC_ID_ANY, PXC_KINDS_ALL, &blob);
		pxc_buf_init(&b);
		pxc_pack_blob(&b, &blob);
		rc_send(fd, PXC_CMD_COMMIT, 0, &b);
		pxc_buf_clear(&blob);
		pxc_store_destroy(st);
	}
	/* a GET after the COMMIT is answered after it: the store is then updated */
	ck_assert_int_eq(rc_get(fd, 9, NS, 0, "btl.tcp.4.1.0", NULL), PMIX_SUCCESS);
	b2 = pxc_store_bytes(pxc_srv.store);
	fprintf(stderr, "server memory: %.1f bytes per registered process (6 keys), "
		"%.1f bytes per posted key (64-byte value)\n",
		(double)(b1 - b0) / nprocs, (double)(b2 - b1) / nkeys);
	ck_assert_uint_gt(b1, b0);
	ck_assert_uint_gt(b2, b1);
	close(fd);
	stop_server();
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
	for (char *e = strtok_r(envbuf, "\n", &save); e; e = strtok_r(NULL, "\n", &save))
	{
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

#define LIFE_KEY "life.key"

#define LIFE_VAL "life-value-0123456789abcdef"

static void life_info(pmix_info_t *i)
{
	PMIx_Info_load(i, LIFE_KEY, LIFE_VAL, PMIX_STRING);
}

static void send_two_infos(int fd, uint16_t cmd, uint32_t tag, const pmix_info_t *info)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_array(&b, info, 1, PMIX_INFO);
	pxc_pack_array(&b, info, 1, PMIX_INFO);
	rc_send(fd, cmd, tag, &b);
}

/* Sends, without waiting for the replies, every client request that a
 * server hands to a host module function, each carrying data the host
 * may keep. Returns how many. */
static int send_all_upcalls(int fd)
{
	pmix_data_buffer_t b;
	pmix_info_t info;
	pmix_proc_t proc;
	char *keys[1] = { LIFE_KEY };
	pmix_app_t app;
	pmix_status_t code = -12345;
	pmix_data_range_t range = PMIX_RANGE_SESSION;
	uint8_t op = 0;

	life_info(&info);
	PMIx_Load_procid(&proc, NS, 1);
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, LIFE_VAL);
	pxc_pack_array(&b, &proc, 1, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 10, &b);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 11, &b);
	for (int i = 0; i < 2; i++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, keys, 1, PMIX_STRING);
		pxc_pack_array(&b, &info, 1, PMIX_INFO);
		rc_send(fd, i ? PXC_CMD_UNPUBLISH : PXC_CMD_LOOKUP, 12 + (uint32_t)i, &b);
	}
	memset(&app, 0, sizeof(app));
	app.cmd = LIFE_VAL;
	app.maxprocs = 1;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	pxc_pack_array(&b, &app, 1, PMIX_APP);
	rc_send(fd, PXC_CMD_SPAWN, 14, &b);
	send_two_infos(fd, PXC_CMD_LOG, 15, &info);
	pxc_buf_init(&b);
	pxc_pack(&b, &op, 1, PMIX_UINT8);
	pxc_pack_str(&b, LIFE_VAL);
	pxc_pack_array(&b, &proc, 1, PMIX_PROC);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_GROUP, 16, &b);
	send_query(fd, 17, "life.query", NS);	/* a key left to the host */
	pack_procs_info(&b, &proc, 1, &info, 1);
	rc_send(fd, PXC_CMD_JOBCTL, 18, &b);
	pxc_buf_init(&b);
	pxc_pack_status(&b, code);
	pxc_pack_proc(&b, &proc);
	pxc_pack(&b, &range, 1, PMIX_DATA_RANGE);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_NOTIFY, 19, &b);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_REGEVENTS, 20, &b);
	PMIx_Load_procid(&proc, NS, 3);		/* remote: direct modex */
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &proc);
	pxc_pack_str(&b, "k.r");
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_GET, 21, &b);
	PMIx_Info_destruct(&info);
	return 12;
}

/* Every upcall's arguments stay valid until the host calls back, even
 * when the requester is gone by then. */
START_TEST(host_keeps_args)
{
	static const char *const all[] = {
		"tool", "connected", "abort", "publish", "lookup", "unpublish", "spawn",
		"log", "group", "query", "jobctl", "notify", "regevents", "dmodex",
		"finalized",
	};
	pmix_data_buffer_t b;
	pmix_info_t info;
	int fd, n = 0;

	keeper.keep_ms = 150;
	ck_assert_int_eq(start_server(&keep_module, true), PMIX_SUCCESS);
	register_job(2);
	life_info(&info);
	fd = rc_connect();
	pack_hello_info(&b, PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF, &info, 1);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	close(fd);
	n++;
	fd = rc_connect();
	pack_hello_info(&b, PXC_PEER_CLIENT, NS, 0, &info, 1);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
	n++;
	n += send_all_upcalls(fd);
	keeper_wait_kept(n);
	/* the requester vanishes while the host still holds everything */
	close(fd);
	n++;			/* client_finalized for the lost client */
	keeper_drain(n);
	ck_assert_msg(keeper.bad == 0, "the host saw changed arguments: %s", keeper.bad_what);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ck_assert_msg(keeper_saw(all[i]), "no %s upcall (saw %s)", all[i], keeper.seen);
	stop_server();
}
END_TEST

static void send_coll(int fd, uint16_t cmd, uint32_t tag, bool collect)
{
	pmix_info_t info[3];
	pmix_data_buffer_t b;
	pmix_proc_t proc;
	int t = 1;
	size_t n = 0;

	PMIx_Load_procid(&proc, NS, 0);
	life_info(&info[n++]);
	PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &t, PMIX_INT);
	if (collect)
		PMIx_Info_load(&info[n++], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	pack_procs_info(&b, &proc, 1, info, n);
	rc_send(fd, cmd, tag, &b);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
}

/* A collective that times out while the host still holds its procs and
 * info (the host calls back later). */
START_TEST(host_keeps_coll_args)
{
	pmix_data_buffer_t b;
	int fd;

	keeper.keep_ms = 1;
	ck_assert_int_eq(start_server(&keep_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_commit(fd, 0, "k.g", "g0", PMIX_GLOBAL);
	keeper.keep_ms = 1500;
	send_coll(fd, PXC_CMD_FENCE, 2, true);
	send_coll(fd, PXC_CMD_CONNECT, 3, false);
	send_coll(fd, PXC_CMD_DISCONNECT, 4, false);
	for (int i = 0; i < 3; i++) {		/* in any order */
		pxc_wire_hdr_t h;
		pmix_status_t st;

		ck_assert_int_eq(rc_recv(fd, &h, &b, TMO), 0);
		ck_assert(h.tag >= 2 && h.tag <= 4 && (h.flags & PXC_WIRE_F_REPLY));
		ck_assert_int_eq(pxc_unpack_status(&b, &st), PMIX_SUCCESS);
		ck_assert_int_eq(st, PMIX_ERR_TIMEOUT);
		pxc_buf_clear(&b);
	}
	keeper_drain(4);
	ck_assert_msg(keeper.bad == 0, "the host saw changed arguments: %s", keeper.bad_what);
	ck_assert(keeper_saw("fence") && keeper_saw("connect") && keeper_saw("disconnect"));
	keeper.keep_ms = 1;
	close(fd);
	keeper_drain(5);
	stop_server();
}
END_TEST

static void send_publish(int fd, uint32_t tag)
{
	pmix_data_buffer_t b;
	pmix_info_t info;

	life_info(&info);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, tag, &b);
	PMIx_Info_destruct(&info);
}

START_TEST(host_calls_back_badly)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	pxc_store_t *st;
	int fd;

	remote_blob();
	keeper.keep_ms = 100;
	ck_assert_int_eq(start_server(&bad_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* twice each: the first answer counts, the second is dropped */
	send_publish(fd, 2);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc_fence_send(fd, 3, true, 0);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_get(fd, 4, NS, 3, "k.r", &st), PMIX_SUCCESS);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.r"), "remote-val");
	pxc_store_destroy(st);
	keeper_drain(3);
	ck_assert_int_eq(rc_recv(fd, &h, &b, 300), -1);	/* no second reply */
	ck_assert_int_eq(rc_get(fd, 5, NS, 3, "k.g", NULL), PMIX_SUCCESS);
	/* a callback held across finalize and a new server */
	host.hold = 1;
	host.hold_status = PMIX_ERR_DUPLICATE_KEY;
	keeper.keep_ms = 400;
	send_publish(fd, 6);
	keeper_wait_kept(4);
	close(fd);
	stop_server();
	ck_assert_int_eq(start_server(&bad_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	host.hold_status = PMIX_SUCCESS;
	keeper.keep_ms = 600;
	send_publish(fd, 7);	/* the stale answer (DUPLICATE) comes first */
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	keeper_drain(5);
	/* and one that comes after the last finalize */
	keeper.keep_ms = 200;
	send_publish(fd, 8);
	keeper_wait_kept(6);
	close(fd);
	stop_server();
	keeper_drain(6);
}
END_TEST

/* A host that deregisters a client from inside client_finalized (a
 * finalizing one and a lost one), and one that deregisters the whole
 * namespace there. */
static pmix_status_t d_finalized(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{
	pmix_nspace_t ns;

	(void)so; (void)cb; (void)cbd;
	host.n_finalized++;
	if (host.dereg_ns) {
		PMIx_Load_nspace(ns, p->nspace);
		PMIx_server_deregister_nspace(ns, NULL, NULL);
	} else {
		PMIx_server_deregister_client(p, NULL, NULL);
	}
	return PMIX_OPERATION_SUCCEEDED;
}

static void dm_cb_count(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
	(void)data; (void)sz;
	*(pmix_status_t *)cbdata = status;
}

START_TEST(host_deregisters_in_upcall)
{
	pmix_server_module_t mod = { .client_finalized = d_finalized };
	pmix_data_buffer_t b;
	pmix_proc_t p;
	pmix_status_t dst = 1;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	/* rank 1 waits for rank 0's data, which never comes */
	PMIx_Load_procid(&p, NS, 0);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, "k.never");
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd1, PXC_CMD_GET, 3, &b);
	/* and the host waits for a proc nobody registered */
	PMIx_Load_procid(&p, "nobody.yet", 0);
	ck_assert_int_eq(PMIx_server_dmodex_request(&p, dm_cb_count, &dst), PMIX_SUCCESS);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd0, PXC_CMD_FINALIZE, 5, &b);
	ck_assert_int_eq(rc_reply(fd0, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert(rc_closed(fd0));
	close(fd0);
	/* its parked GET is answered: rank 0 is gone */
	ck_assert_int_eq(rc_reply(fd1, 3, &b), PMIX_ERR_NOT_FOUND);
	pxc_buf_clear(&b);
	/* rank 1 vanishes; the host drops the namespace in the upcall */
	host.dereg_ns = 1;
	close(fd1);
	usleep(100000);
	ck_assert_int_eq(host.n_finalized, 2);
	/* the server carries on */
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(rc_get(fd0, 7, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL),
			 PMIX_SUCCESS);
	close(fd0);
	stop_server();
	ck_assert_int_eq(dst, PMIX_ERR_INIT);	/* failed at finalize */
}
END_TEST

/* Requests a host cannot sensibly get, and requests repeated. */
START_TEST(robust_host_requests)
{
	pmix_data_buffer_t b;
	char *keys[2] = { "a", NULL };
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* lookup of no key, of a NULL key */
	for (uint32_t n = 0; n < 2; n++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, n ? keys + 1 : keys, n ? 1 : 0, PMIX_STRING);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_LOOKUP, 2 + n, &b);
		ck_assert_int_eq(rc_reply(fd, 2 + n, &b), PMIX_ERR_BAD_PARAM);
		pxc_buf_clear(&b);
	}
	/* abort without a message: the host gets "" */
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, NULL);
	pxc_pack_array(&b, NULL, 0, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 4, &b);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_abort, 1);
	ck_assert_int_eq(host.abort_msg_null, 0);
	/* FINALIZE twice: the host hears of it once */
	for (uint32_t t = 5; t < 7; t++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_FINALIZE, t, &b);
		ck_assert_int_eq(rc_reply(fd, t, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
	}
	ck_assert_int_eq(host.n_finalized, 1);
	close(fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "init", init_finalize_leaves_nothing },
		{ "longtmp", init_long_tmpdir_fails_cleanly },
		{ "userid", userid_chowns_dir },
		{ "setup_fork", setup_fork_env },
		{ "register", register_and_hello_blob },
		{ "robust", robust_broken_input },
		{ "reply_channel", reply_channel },
		{ "locality_host_topology", locality_host_topology },
		{ "host_fail", host_failures_propagate },
		{ "null_module", null_module_not_supported },
		{ "tool", tool_gets_identity },
		{ "cleanup", cleanup_is_safe },
		{ "locality", locality_strings },
		{ "memory", memory_figures },
		{ "real_clients", real_clients },
		{ "host_keeps_args", host_keeps_args },
		{ "host_keeps_coll_args", host_keeps_coll_args },
		{ "host_calls_back_badly", host_calls_back_badly },
		{ "host_deregisters", host_deregisters_in_upcall },
		{ "robust_host_requests", robust_host_requests },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
