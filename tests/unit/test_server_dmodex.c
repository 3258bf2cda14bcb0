/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_dmodex.c - protocol tests of GET and direct modex
 * (dmodex.c): local GETs parked until the data is committed, remote ones
 * through the host's direct_modex and then cached, concurrent GETs of one
 * remote proc merged into one upcall, PXC_GET_KEY_ONLY, and the host's own
 * PMIx_server_dmodex_request waiting for the commit.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"

START_TEST(get_local_and_parked)
{
	pxc_store_t *st;
	int fd0, fd1;
	pmix_data_buffer_t b;
	pmix_proc_t p;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	/* rank 0 asks for rank 1's key before rank 1 committed: parked */
	PMIx_Load_procid(&p, NS, 1);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, "k.local");
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd0, PXC_CMD_GET, 11, &b);
	usleep(100000);
	rc_commit(fd1, 1, "k.local", "l1", PMIX_LOCAL);
	ck_assert_int_eq(rc_reply(fd0, 11, &b), PMIX_SUCCESS);
	st = blob_store(&b);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.local"), "l1");
	pxc_store_destroy(st);
	pxc_buf_clear(&b);
	/* committed without the key: not found */
	ck_assert_int_eq(rc_get(fd0, 12, NS, 1, "k.none", NULL), PMIX_ERR_NOT_FOUND);
	/* registered info of the namespace */
	ck_assert_int_eq(rc_get(fd0, 13, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &st), PMIX_SUCCESS);
	ck_assert_ptr_nonnull(pxc_store_get(st, NS, PXC_LVL_JOB, 0, PMIX_JOB_SIZE, NULL));
	pxc_store_destroy(st);
	/* unknown namespace: host direct_modex, which fails */
	host.fail_dmodex = 1;
	ck_assert_int_eq(rc_get(fd0, 14, "nobody", PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL),
			 PMIX_ERR_NOT_FOUND);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(get_remote_dmodex_cached)
{
	pxc_store_t *st = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };
	int fd0;

	v.data.string = "remote-val";
	pxc_store_put(st, NS, PXC_LVL_PROC, 3, "k.r", &v, PMIX_REMOTE);
	pxc_buf_init(&host.dmodex_blob);
	pxc_store_pack(st, NS, -1, PXC_ID_ANY, PXC_KINDS_ALL, &host.dmodex_blob);
	pxc_store_destroy(st);
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(rc_get(fd0, 5, NS, 3, "k.r", &st), PMIX_SUCCESS);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.r"), "remote-val");
	pxc_store_destroy(st);
	ck_assert_int_eq(host.n_dmodex, 1);
	ck_assert_int_eq(rc_get(fd0, 6, NS, 3, "k.r", &st), PMIX_SUCCESS);
	pxc_store_destroy(st);
	ck_assert_int_eq(host.n_dmodex, 1); /* cached */
	close(fd0);
	stop_server();
}
END_TEST

static pxc_sync_t dm_sync;

static size_t dm_size;

static pxc_store_t *dm_store;

static void dm_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
	pmix_data_buffer_t b;

	(void)cbdata;
	dm_size = sz;
	if (status == PMIX_SUCCESS) {
		pxc_buf_init(&b);
		pxc_buf_load_copy(&b, data, sz);
		dm_store = pxc_store_create();
		pxc_store_unpack(dm_store, &b);
		pxc_buf_clear(&b);
	}
	pxc_sync_signal(&dm_sync, status);
}

START_TEST(dmodex_request_waits_for_commit)
{
	pmix_proc_t p;
	int fd0;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_sync_init(&dm_sync);
	PMIx_Load_procid(&p, NS, 0);
	ck_assert_int_eq(PMIx_server_dmodex_request(&p, dm_cb, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_sync_wait(&dm_sync, 200), PMIX_ERR_TIMEOUT); /* waits */
	rc_commit(fd0, 0, "k.remote", "r0", PMIX_REMOTE);
	rc_commit(fd0, 0, "k.local", "l0", PMIX_LOCAL);
	ck_assert_int_eq(pxc_sync_wait(&dm_sync, TMO), PMIX_SUCCESS);
	ck_assert_str_eq(sval(dm_store, NS, PXC_LVL_PROC, 0, "k.remote"), "r0");
	ck_assert_ptr_null(sval(dm_store, NS, PXC_LVL_PROC, 0, "k.local"));
	pxc_store_destroy(dm_store);
	close(fd0);
	stop_server();
}
END_TEST

static pmix_status_t rc_get_info(int fd, uint32_t tag, const char *ns, pmix_rank_t rank,
				 const char *key, bool key_only, pxc_store_t **out)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;
	pmix_info_t info;
	pmix_status_t st;
	bool yes = true;

	PMIx_Load_procid(&p, ns, rank);
	PMIx_Info_load(&info, PXC_GET_KEY_ONLY, &yes, PMIX_BOOL);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, key);
	pxc_pack_array(&b, &info, key_only ? 1 : 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_GET, tag, &b);
	st = rc_reply(fd, tag, &b);
	*out = st == PMIX_SUCCESS ? blob_store(&b) : NULL;
	pxc_buf_clear(&b);
	return st;
}

/* Concurrent GETs of one remote proc make one direct_modex; later GETs of
 * its other keys are answered from the server's cache; a GET marked
 * PXC_GET_KEY_ONLY gets that record only. */
START_TEST(get_dmodex_merged)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;
	pxc_store_t *st;
	int fd0, fd1, n;

	remote_blob();
	keeper.keep_ms = 1;
	ck_assert_int_eq(start_server(&keep_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	keeper.keep_ms = 200;
	PMIx_Load_procid(&p, NS, 3);
	for (int i = 0; i < 3; i++) {
		pxc_buf_init(&b);
		pxc_pack_proc(&b, &p);
		pxc_pack_str(&b, i == 2 ? "k.g" : "k.r");
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(i == 1 ? fd1 : fd0, PXC_CMD_GET, 5 + (uint32_t)i, &b);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rc_reply(i == 1 ? fd1 : fd0, 5 + (uint32_t)i, &b), PMIX_SUCCESS);
		st = blob_store(&b);
		ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.r"), "remote-val");
		ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.g"), "global-val");
		pxc_store_destroy(st);
		pxc_buf_clear(&b);
	}
	ck_assert_int_eq(host.n_dmodex, 1);
	/* cached now */
	ck_assert_int_eq(rc_get(fd1, 8, NS, 3, "k.g", NULL), PMIX_SUCCESS);
	ck_assert_int_eq(host.n_dmodex, 1);
	/* the whole proc, or the one record */
	ck_assert_int_eq(rc_get_info(fd1, 9, NS, 3, "k.g", false, &st), PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 3), 2);
	pxc_store_destroy(st);
	ck_assert_int_eq(rc_get_info(fd1, 10, NS, 3, "k.g", true, &st), PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 3), 1);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.g"), "global-val");
	pxc_store_destroy(st);
	/* a local proc's data: the same, and its LOCAL records (no fence
	 * brings them) come along */
	rc_commit(fd1, 1, "k.a", "a1", PMIX_GLOBAL);
	rc_commit(fd1, 1, "k.b", "b1", PMIX_LOCAL);
	rc_commit(fd1, 1, "k.c", "c1", PMIX_REMOTE);
	/* a round trip on fd1: its COMMITs are in before fd0 asks */
	ck_assert_int_eq(rc_get(fd1, 16, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL),
			 PMIX_SUCCESS);
	ck_assert_int_eq(rc_get_info(fd0, 11, NS, 1, "k.b", false, &st), PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 1), 2); /* k.c is not for local peers */
	pxc_store_destroy(st);
	ck_assert_int_eq(rc_get_info(fd0, 12, NS, 1, "k.b", true, &st), PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 1), 1);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.b"), "b1");
	pxc_store_destroy(st);
	rc_commit(fd1, 1, "k.d", "d1", PMIX_GLOBAL);
	ck_assert_int_eq(rc_get(fd1, 17, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL),
			 PMIX_SUCCESS);
	ck_assert_int_eq(rc_get_info(fd0, 15, NS, 1, "k.d", true, &st), PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 1), 2);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.d"), "d1");
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.b"), "b1");
	pxc_store_destroy(st);
	ck_assert_int_eq(rc_get_info(fd0, 13, NS, 1, "k.none", true, &st), PMIX_ERR_NOT_FOUND);
	/* a new GET after the cache was refreshed: the host is asked again */
	keeper.keep_ms = 1;
	ck_assert_int_eq(rc_get(fd0, 14, NS, 3, "k.missing", NULL), PMIX_SUCCESS);
	ck_assert_int_eq(host.n_dmodex, 2);
	n = keeper.nkept;
	close(fd0);
	close(fd1);
	keeper_wait_kept(n + 2); /* client_finalized of both */
	keeper_drain(n + 2);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "get_local", get_local_and_parked },
		{ "get_remote", get_remote_dmodex_cached },
		{ "dmodex", dmodex_request_waits_for_commit },
		{ "get_dmodex_merged", get_dmodex_merged },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
