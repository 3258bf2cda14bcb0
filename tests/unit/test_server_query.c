/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_query.c - protocol tests of queries (query.c): namespaces,
 * the local proc table and process set names come from the server, other
 * keys from the host (and its failure back); the in-process query's
 * partial success. And of credentials (cred.c): the host's credential and
 * infos come back, the host is told the peer's own uid and gid whatever
 * the client claims, the host's failure comes back, no host function is
 * NOT_SUPPORTED, a truncated request closes the connection.
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
#include "server/query.h"

START_TEST(query_answers)
{
	pmix_data_buffer_t b;
	pmix_info_t *res = NULL;
	size_t n = 0;
	int fd;
	pmix_proc_t m = { .nspace = NS, .rank = 0 };

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	ck_assert_int_eq(PMIx_server_define_process_set(&m, 1, "ps1"), PMIX_SUCCESS);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* a host with a query of its own is asked for the namespaces first */
	send_query(fd, 2, PMIX_QUERY_NAMESPACES, NULL);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(res[0].value.data.string, "from-host");
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	send_query(fd, 3, PMIX_QUERY_LOCAL_PROC_TABLE, NS);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(res[0].value.type, PMIX_DATA_ARRAY);
	ck_assert_uint_eq(res[0].value.data.darray->size, 2);
	{
		pmix_proc_info_t *pi = res[0].value.data.darray->array;
		bool found = false;

		for (int i = 0; i < 2; i++)
			found |= pi[i].proc.rank == 0 && pi[i].pid == getpid();
		ck_assert(found);
	}
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	send_query(fd, 4, PMIX_QUERY_PSET_NAMES, NULL);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_str_eq(res[0].value.data.string, "ps1");
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	/* a set's members, by its name */
	{
		pmix_query_t q;
		char *keys[2] = { PMIX_QUERY_PSET_MEMBERSHIP, NULL };
		pmix_info_t qual;
		pmix_proc_t *pm;

		memset(&q, 0, sizeof(q));
		q.keys = keys;
		PMIx_Info_load(&qual, PMIX_PSET_NAME, "ps1", PMIX_STRING);
		q.qualifiers = &qual;
		q.nqual = 1;
		pxc_buf_init(&b);
		pxc_pack_array(&b, &q, 1, PMIX_QUERY);
		rc_send(fd, PXC_CMD_QUERY, 40, &b);
		PMIx_Info_destruct(&qual);
		ck_assert_int_eq(rc_reply(fd, 40, &b), PMIX_SUCCESS);
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(res[0].value.type, PMIX_DATA_ARRAY);
		ck_assert_int_eq(res[0].value.data.darray->type, PMIX_PROC);
		ck_assert_uint_eq(res[0].value.data.darray->size, 1);
		pm = res[0].value.data.darray->array;
		ck_assert_str_eq(pm[0].nspace, NS);
		ck_assert_uint_eq(pm[0].rank, 0);
		pxc_array_free(res, n, PMIX_INFO);
		pxc_buf_clear(&b);
	}
	/* unknown key: the host answers */
	send_query(fd, 5, "test.unknown", NULL);
	ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_str_eq(res[0].value.data.string, "from-host");
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	/* host fails: not supported */
	host.fail_query = 1;
	send_query(fd, 6, "test.unknown", NULL);
	ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	/* one key in two queries, the server answers the first, the failing
	 * host not the second: a partial success, not a success */
	{
		pmix_query_t q[2];
		char *keys[2] = { PMIX_JOB_SIZE, NULL };
		pmix_info_t qual[2];

		memset(q, 0, sizeof(q));
		PMIx_Info_load(&qual[0], PMIX_NSPACE, NS, PMIX_STRING);
		PMIx_Info_load(&qual[1], PMIX_NSPACE, "test.other", PMIX_STRING);
		for (int i = 0; i < 2; i++) {
			q[i].keys = keys;
			q[i].qualifiers = &qual[i];
			q[i].nqual = 1;
		}
		pxc_buf_init(&b);
		pxc_pack_array(&b, q, 2, PMIX_QUERY);
		rc_send(fd, PXC_CMD_QUERY, 9, &b);
		PMIx_Info_destruct(&qual[0]);
		PMIx_Info_destruct(&qual[1]);
		ck_assert_int_eq(rc_reply(fd, 9, &b), PMIX_QUERY_PARTIAL_SUCCESS);
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(res[0].value.type, PMIX_UINT32);
		pxc_array_free(res, n, PMIX_INFO);
		pxc_buf_clear(&b);
	}
	/* ... and when it does not answer them, the server does */
	send_query(fd, 7, PMIX_QUERY_NAMESPACES, NULL);
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(res[0].value.data.string, NS);
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	send_query(fd, 8, PMIX_QUERY_NAMESPACE_INFO, NULL);
	ck_assert_int_eq(rc_reply(fd, 8, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	{
		/* one element per namespace, each an array that names it */
		pmix_data_array_t *da = res[0].value.data.darray, *one;

		ck_assert_int_eq(res[0].value.type, PMIX_DATA_ARRAY);
		ck_assert_uint_eq(da->size, 1);
		one = ((pmix_info_t *)da->array)[0].value.data.darray;
		ck_assert_str_eq(((pmix_info_t *)one->array)[0].key, PMIX_NSPACE);
		ck_assert_str_eq(((pmix_info_t *)one->array)[0].value.data.string, NS);
	}
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	/* in-process query */
	{
		pmix_query_t q;
		char *keys[3] = { PMIX_QUERY_STABLE_ABI_VERSION, "test.unknown", NULL };

		memset(&q, 0, sizeof(q));
		q.keys = keys;
		ck_assert_int_eq(pxc_server_query(&q, 1, &res, &n), PMIX_QUERY_PARTIAL_SUCCESS);
		ck_assert_uint_eq(n, 1);
		PMIx_Info_free(res, n);
	}
	close(fd);
	stop_server();
}
END_TEST

/* --------------------------------------------------------- credentials */

/* Directives claiming another user and group than this process's. */
static void fake_ids(pmix_info_t *i)
{
	load_u32(&i[0], PMIX_USERID, (uint32_t)getuid() + 1000);
	load_u32(&i[1], PMIX_GRPID, (uint32_t)getgid() + 1000);
}

static void free_ids(pmix_info_t *i)
{
	PMIx_Info_destruct(&i[0]);
	PMIx_Info_destruct(&i[1]);
}

/* The u32 of key among res[0..n), or -1. */
static long res_u32(const pmix_info_t *res, size_t n, const char *key)
{
	const pmix_info_t *i = pxc_info_find(res, n, key);

	return i && i->value.type == PMIX_UINT32 ? (long)i->value.data.uint32 : -1;
}

START_TEST(cred_get_validate)
{
	pmix_byte_object_t bo = { NULL, 0 }, bad = { .bytes = "forged", .size = 6 };
	pmix_data_buffer_t b;
	pmix_info_t ids[3], *res = NULL;
	size_t n = 0;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* a get: the host's bytes and infos, whom the client claims to be
	 * replaced by whom the server saw */
	fake_ids(ids);
	PMIx_Info_load(&ids[2], PMIX_USERID, "root", PMIX_STRING);
	rc_cred_send(fd, 2, NULL, ids, 3);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, &bo, &(int32_t){ 1 }, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
	ck_assert_uint_eq(bo.size, FAKE_CRED_LEN);
	ck_assert_mem_eq(bo.bytes, FAKE_CRED, FAKE_CRED_LEN);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(res[0].key, PMIX_CRED_TYPE);
	ck_assert_str_eq(res[0].value.data.string, FAKE_CRED_TYPE);
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_cred, 1);
	ck_assert_int_eq(host.cred_nids, 2);
	ck_assert_int_eq(host.cred_uid, (long)getuid());
	ck_assert_int_eq(host.cred_gid, (long)getgid());
	/* a validation: the host sees the bytes and the peer's own ids */
	rc_cred_send(fd, 3, &bo, ids, 2);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(res_u32(res, n, PMIX_USERID), (long)getuid());
	ck_assert_int_eq(res_u32(res, n, PMIX_GRPID), (long)getgid());
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	ck_assert_uint_eq(host.cred_ngot, FAKE_CRED_LEN);
	ck_assert_mem_eq(host.cred_got, FAKE_CRED, FAKE_CRED_LEN);
	ck_assert_int_eq(host.cred_nids, 2);
	ck_assert_int_eq(host.cred_uid, (long)getuid());
	/* without directives the ids are there too */
	rc_cred_send(fd, 4, &bo, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.cred_nids, 2);
	ck_assert_int_eq(host.cred_gid, (long)getgid());
	/* the host refuses through its callback: its status, no results */
	rc_cred_send(fd, 5, &bad, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_ERR_INVALID_CRED);
	ck_assert_uint_eq(pxc_buf_remaining(&b), 0);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_cred, 4);
	free_ids(ids);
	PMIx_Info_destruct(&ids[2]);
	PMIx_Byte_object_destruct(&bo);
	close(fd);
	stop_server();
}
END_TEST

START_TEST(cred_host_fails)
{
	pmix_byte_object_t bo = { .bytes = FAKE_CRED, .size = FAKE_CRED_LEN };
	pmix_data_buffer_t b;
	pmix_info_t ids[2];
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	host.fail_cred = 1;
	fake_ids(ids);
	rc_cred_send(fd, 2, NULL, ids, 2);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_NO_PERMISSIONS);
	ck_assert_uint_eq(pxc_buf_remaining(&b), 0);
	pxc_buf_clear(&b);
	rc_cred_send(fd, 3, &bo, ids, 2);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_ERR_NO_PERMISSIONS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_cred, 2);
	ck_assert_int_eq(host.cred_uid, (long)getuid());
	/* the connection still serves */
	host.fail_cred = 0;
	rc_cred_send(fd, 4, &bo, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	free_ids(ids);
	close(fd);
	stop_server();
}
END_TEST

START_TEST(cred_no_module)
{
	pmix_server_module_t none = { .query = full_module.query };
	pmix_byte_object_t bo = { .bytes = FAKE_CRED, .size = FAKE_CRED_LEN };
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&none, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_cred_send(fd, 2, NULL, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	rc_cred_send(fd, 3, &bo, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_cred, 0);
	close(fd);
	stop_server();
}
END_TEST

/* Requests cut short: each closes its connection, the host hears nothing
 * and the server serves the next client. */
START_TEST(cred_truncated)
{
	pmix_byte_object_t bo = { .bytes = FAKE_CRED, .size = FAKE_CRED_LEN };
	pmix_data_buffer_t b, full;
	int fd;

	ck_assert_int_eq(start_server(&full_module, true), PMIX_SUCCESS);
	register_job(2);
	/* GET_CRED without its INFO[] */
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_send(fd, PXC_CMD_GET_CRED, 2, NULL);
	ck_assert(rc_closed(fd));
	close(fd);
	/* VALIDATE_CRED with the credential only */
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT);
	rc_send(fd, PXC_CMD_VALIDATE_CRED, 2, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	/* VALIDATE_CRED cut inside the credential's bytes (a tool's) */
	fd = rc_hello_kind(PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF, PMIX_SUCCESS);
	pxc_buf_init(&full);
	pxc_pack(&full, &bo, 1, PMIX_BYTE_OBJECT);
	pxc_buf_init(&b);
	pxc_buf_append(&b, full.base_ptr, full.bytes_used - 4);
	pxc_buf_clear(&full);
	rc_send(fd, PXC_CMD_VALIDATE_CRED, 2, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	ck_assert_int_eq(host.n_cred, 0);
	/* the server carries on; a tool is named by its own ids too */
	fd = rc_hello_kind(PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF, PMIX_SUCCESS);
	rc_cred_send(fd, 3, &bo, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.cred_uid, (long)getuid());
	close(fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "query", query_answers },
		{ "cred_get_validate", cred_get_validate },
		{ "cred_host_fails", cred_host_fails },
		{ "cred_no_module", cred_no_module },
		{ "cred_truncated", cred_truncated },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
