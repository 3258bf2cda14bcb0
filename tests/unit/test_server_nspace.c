/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_nspace.c - protocol tests of namespaces (nspace.c, map.c,
 * jobctl.c): a second registration merges node and proc data, and the maps
 * give every rank its hostname, node id and the local size in the blob
 * HELLO hands out; a cleanup directory registered through job control goes
 * with the namespace, without following a symlink out of it and sparing
 * ignored and other users' files; the store's bytes per registered process
 * and per posted key (printed).
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"
#include "server/peer.h"

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
	PMIx_Info_destruct(&info[0]); /* Info_load deep-copied the arrays */
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
	if (geteuid() == 0) { /* a file of another user stays */
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
	{
		pmix_nspace_t n;
		PMIx_Load_nspace(n, NS);
		PMIx_server_deregister_nspace(n, NULL, NULL);
	}
	snprintf(path, sizeof(path), "%s/sub", top);
	ck_assert_int_ne(lstat(path, &st), 0); /* removed */
	snprintf(path, sizeof(path), "%s/link", top);
	ck_assert_int_ne(lstat(path, &st), 0); /* link removed */
	snprintf(path, sizeof(path), "%s/victim", outside);
	ck_assert_int_eq(lstat(path, &st), 0); /* target untouched */
	snprintf(path, sizeof(path), "%s/keep.me", top);
	ck_assert_int_eq(lstat(path, &st), 0); /* ignored */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", top);
		ck_assert_int_eq(lstat(path, &st), 0);
	}
	stop_server();
	ck_assert_int_eq(system("rm -rf /tmp/srvtest.*"), 0);
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
		PMIx_Info_load(&pd[5], PMIX_LOCALITY_STRING, "NM0:SK0:L30:L20:L10:CR0:HT0",
			       PMIX_STRING);
		PMIx_Info_load(&info[r], PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
		PMIx_Info_free(pd, 6);
	}
	ck_assert_int_eq(reg_nspace("mem.ns", nprocs, info, nprocs, NULL, NULL), PMIX_SUCCESS);
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
	fprintf(stderr,
		"server memory: %.1f bytes per registered process (6 keys), "
		"%.1f bytes per posted key (64-byte value)\n",
		(double)(b1 - b0) / nprocs, (double)(b2 - b1) / nkeys);
	ck_assert_uint_gt(b1, b0);
	ck_assert_uint_gt(b2, b1);
	close(fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "register", register_and_hello_blob },
		{ "cleanup", cleanup_is_safe },
		{ "memory", memory_figures },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
