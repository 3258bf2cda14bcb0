/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_query.c - protocol tests of queries (query.c): namespaces,
 * the local proc table and process set names come from the server, other
 * keys from the host (and its failure back); the in-process query's
 * partial success.
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

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "query", query_answers },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
