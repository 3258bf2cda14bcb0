/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_store.c - check suite for common/store.c: put/get/replace/remove,
 * selections, blobs (round trip, malformed blobs merge nothing), a store
 * of 100k records and the latency of a job-level get (printed; asserted
 * under 1 us unless SLURMIX_NO_TIMING is set, e.g. under valgrind).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmix.h>

#include "pack.h"
#include "store.h"
#include "runner.h"

static pmix_value_t *u32v(uint32_t x)
{
	static pmix_value_t v;

	memset(&v, 0, sizeof(v));
	v.type = PMIX_UINT32;
	v.data.uint32 = x;
	return &v;
}

static pmix_value_t *strv(const char *s)
{
	static pmix_value_t v;

	memset(&v, 0, sizeof(v));
	v.type = PMIX_STRING;
	v.data.string = (char *)s;
	return &v;
}

static uint32_t get_u32(pxc_store_t *st, const char *ns, pxc_level_t l, uint32_t id,
			const char *key)
{
	const pmix_value_t *v = pxc_store_get(st, ns, l, id, key, NULL);

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, PMIX_UINT32);
	return v->data.uint32;
}

START_TEST(test_put_get_replace)
{
	pxc_store_t *st = pxc_store_create();
	const pmix_value_t *v;
	uint8_t kind = 99;
	char longkey[600];

	ck_assert_int_eq(pxc_store_put(st, "ns1", PXC_LVL_JOB, 0, "pmix.job.size", u32v(4),
				       PMIX_SCOPE_UNDEF),
			 0);
	ck_assert_int_eq(pxc_store_put(st, "ns1", PXC_LVL_PROC, 3, "pmix.hname", strv("n3"),
				       PMIX_SCOPE_UNDEF),
			 0);
	ck_assert_int_eq(pxc_store_put(st, "ns1", PXC_LVL_PROC, 3, "btl.tcp", strv("addr"),
				       PMIX_REMOTE),
			 0);
	ck_assert_uint_eq(get_u32(st, "ns1", PXC_LVL_JOB, 0, "pmix.job.size"), 4);
	v = pxc_store_get(st, "ns1", PXC_LVL_PROC, 3, "btl.tcp", &kind);
	ck_assert_str_eq(v->data.string, "addr");
	ck_assert_int_eq(kind, PMIX_REMOTE);
	/* the store holds a deep copy */
	ck_assert_ptr_ne(v->data.string, strv("x")->data.string);
	/* misses */
	errno = 0;
	ck_assert_ptr_null(pxc_store_get(st, "ns1", PXC_LVL_PROC, 4, "btl.tcp", NULL));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(pxc_store_get(st, "ns2", PXC_LVL_JOB, 0, "pmix.job.size", NULL));
	ck_assert_ptr_null(pxc_store_get(st, "ns1", PXC_LVL_APP, 0, "pmix.job.size", NULL));
	/* replace */
	ck_assert_int_eq(pxc_store_put(st, "ns1", PXC_LVL_JOB, 0, "pmix.job.size", u32v(8),
				       PMIX_SCOPE_UNDEF),
			 0);
	ck_assert_uint_eq(get_u32(st, "ns1", PXC_LVL_JOB, 0, "pmix.job.size"), 8);
	ck_assert_uint_eq(pxc_store_count(st, "ns1", PXC_LVL_JOB, 0, PXC_KINDS_ALL), 1);
	/* bad addresses */
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	ck_assert_int_eq(pxc_store_put(st, "ns1", PXC_LVL_JOB, 0, longkey, u32v(1), 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pxc_store_put(st, "", PXC_LVL_JOB, 0, "k", u32v(1), 0), -1);
	ck_assert_int_eq(pxc_store_put(st, "ns", PXC_LVL_JOB, 0, "", u32v(1), 0), -1);
	ck_assert_int_eq(pxc_store_put(st, NULL, PXC_LVL_JOB, 0, "k", u32v(1), 0), -1);
	ck_assert_int_eq(pxc_store_put(st, "ns", 9, 0, "k", u32v(1), 0), -1);
	ck_assert_int_eq(pxc_store_put(st, "ns", PXC_LVL_JOB, 0, "k", u32v(1), 8), -1);
	ck_assert(!pxc_store_has_nspace(st, "ns"));
	pxc_store_destroy(st);
	pxc_store_destroy(NULL);
}
END_TEST

static int collect(const char *ns, pxc_level_t l, uint32_t id, const char *key,
		   const pmix_value_t *v, uint8_t kind, void *arg)
{
	char *out = arg;

	(void)v;
	(void)kind;
	sprintf(out + strlen(out), "%s/%d/%u/%s;", ns, (int)l, id, key);
	return strcmp(key, "stop") == 0 ? 7 : 0;
}

static void fill(pxc_store_t *st)
{
	uint32_t r;

	pxc_store_put(st, "a", PXC_LVL_JOB, 0, "j1", u32v(1), PMIX_SCOPE_UNDEF);
	pxc_store_put(st, "a", PXC_LVL_JOB, 0, "j2", u32v(2), PMIX_SCOPE_UNDEF);
	pxc_store_put(st, "a", PXC_LVL_NODE, 1, "pmix.hname", strv("n1"), PMIX_SCOPE_UNDEF);
	for (r = 0; r < 3; r++) {
		pxc_store_put(st, "a", PXC_LVL_PROC, r, "pmix.lrank", u32v(r), PMIX_SCOPE_UNDEF);
		pxc_store_put(st, "a", PXC_LVL_PROC, r, "loc", u32v(r), PMIX_LOCAL);
		pxc_store_put(st, "a", PXC_LVL_PROC, r, "rem", u32v(r), PMIX_REMOTE);
		pxc_store_put(st, "a", PXC_LVL_PROC, r, "glob", u32v(r), PMIX_GLOBAL);
	}
	pxc_store_put(st, "b", PXC_LVL_PROC, 0, "x", u32v(9), PMIX_GLOBAL);
}

START_TEST(test_select_foreach_remove)
{
	pxc_store_t *st = pxc_store_create();
	char out[2048] = "";

	fill(st);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL), 12);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, 1, PXC_KINDS_POSTED), 3);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, PXC_ID_ANY,
					  PXC_KIND_BIT(PMIX_REMOTE)),
			  3);
	ck_assert_uint_eq(pxc_store_count(st, NULL, PXC_LVL_PROC, 0, PXC_KIND_BIT(PMIX_GLOBAL)), 2);
	/* insertion order within a group */
	ck_assert_int_eq(pxc_store_foreach(st, "a", PXC_LVL_PROC, 2, PXC_KINDS_ALL, collect, out),
			 0);
	ck_assert_str_eq(out, "a/1/2/pmix.lrank;a/1/2/loc;a/1/2/rem;a/1/2/glob;");
	/* early stop */
	pxc_store_put(st, "a", PXC_LVL_JOB, 0, "stop", u32v(0), 0);
	out[0] = '\0';
	ck_assert_int_eq(pxc_store_foreach(st, "a", PXC_LVL_JOB, 0, PXC_KINDS_ALL, collect, out),
			 7);
	ck_assert_str_eq(out, "a/0/0/j1;a/0/0/j2;a/0/0/stop;");
	/* remove posted data of rank 1 only */
	pxc_store_remove(st, "a", PXC_LVL_PROC, 1, PXC_KINDS_POSTED);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, 1, PXC_KINDS_ALL), 1);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, 0, PXC_KINDS_ALL), 4);
	/* a whole level, then the namespace */
	pxc_store_remove(st, "a", PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL), 0);
	ck_assert_uint_eq(pxc_store_count(st, "a", PXC_LVL_JOB, 0, PXC_KINDS_ALL), 3);
	pxc_store_remove(st, "a", -1, PXC_ID_ANY, PXC_KINDS_ALL);
	ck_assert(!pxc_store_has_nspace(st, "a"));
	ck_assert(pxc_store_has_nspace(st, "b"));
	pxc_store_remove(st, NULL, -1, PXC_ID_ANY, PXC_KINDS_ALL);
	ck_assert(!pxc_store_has_nspace(st, "b"));
	pxc_store_destroy(st);
}
END_TEST

static int same_as(const char *ns, pxc_level_t l, uint32_t id, const char *key,
		   const pmix_value_t *v, uint8_t kind, void *arg)
{
	uint8_t k2;
	const pmix_value_t *w = pxc_store_get(arg, ns, l, id, key, &k2);

	if (!w || k2 != kind ||
	    PMIx_Value_compare((pmix_value_t *)v, (pmix_value_t *)w) != PMIX_EQUAL)
		return 1;
	return 0;
}

START_TEST(test_blob_round_trip)
{
	pxc_store_t *a = pxc_store_create(), *b = pxc_store_create();
	pmix_data_buffer_t buf;

	fill(a);
	pxc_buf_init(&buf);
	ck_assert_int_eq(pxc_store_pack(a, NULL, -1, PXC_ID_ANY, PXC_KINDS_ALL, &buf), 0);
	ck_assert_int_eq(pxc_store_unpack(b, &buf), PMIX_SUCCESS);
	ck_assert_uint_eq(pxc_buf_remaining(&buf), 0);
	ck_assert_int_eq(pxc_store_foreach(a, NULL, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL,
					   same_as, b),
			 0);
	ck_assert_int_eq(pxc_store_foreach(a, NULL, PXC_LVL_JOB, PXC_ID_ANY, PXC_KINDS_ALL, same_as,
					   b),
			 0);
	ck_assert_int_eq(pxc_store_foreach(b, NULL, PXC_LVL_NODE, PXC_ID_ANY, PXC_KINDS_ALL,
					   same_as, a),
			 0);
	ck_assert_uint_eq(pxc_store_count(b, "a", PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL), 12);
	pxc_buf_clear(&buf);
	pxc_store_destroy(b);

	/* selection: posted REMOTE+GLOBAL of rank 2 */
	b = pxc_store_create();
	ck_assert_int_eq(pxc_store_pack(a, "a", PXC_LVL_PROC, 2,
					PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL),
					&buf),
			 0);
	ck_assert_int_eq(pxc_store_unpack(b, &buf), PMIX_SUCCESS);
	ck_assert_uint_eq(pxc_store_count(b, NULL, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL), 2);
	ck_assert_uint_eq(get_u32(b, "a", PXC_LVL_PROC, 2, "rem"), 2);
	/* merging replaces */
	pxc_store_put(a, "a", PXC_LVL_PROC, 2, "rem", u32v(77), PMIX_REMOTE);
	pxc_buf_clear(&buf);
	pxc_store_pack(a, "a", PXC_LVL_PROC, 2, PXC_KIND_BIT(PMIX_REMOTE), &buf);
	ck_assert_int_eq(pxc_store_unpack(b, &buf), PMIX_SUCCESS);
	ck_assert_uint_eq(get_u32(b, "a", PXC_LVL_PROC, 2, "rem"), 77);
	/* an empty blob */
	pxc_buf_clear(&buf);
	ck_assert_int_eq(pxc_store_pack(a, "zz", -1, PXC_ID_ANY, PXC_KINDS_ALL, &buf), 0);
	ck_assert_uint_eq(buf.bytes_used, 0);
	ck_assert_int_eq(pxc_store_unpack(b, &buf), PMIX_SUCCESS);
	pxc_buf_clear(&buf);
	pxc_store_destroy(a);
	pxc_store_destroy(b);
}
END_TEST

START_TEST(test_blob_malformed)
{
	pxc_store_t *a = pxc_store_create(), *b = pxc_store_create();
	pmix_data_buffer_t full, cut;
	pmix_info_t info;
	uint8_t lvl = 7, kind = 0;
	size_t len;

	fill(a);
	pxc_buf_init(&full);
	pxc_buf_init(&cut);
	pxc_store_pack(a, NULL, -1, PXC_ID_ANY, PXC_KINDS_ALL, &full);
	/* truncated anywhere but at a record boundary: nothing merged */
	for (len = 1; len < full.bytes_used; len++) {
		pmix_status_t rc;

		pxc_buf_load_copy(&cut, full.base_ptr, len);
		rc = pxc_store_unpack(b, &cut);
		if (rc == PMIX_SUCCESS) { /* a record boundary */
			pxc_store_remove(b, NULL, -1, PXC_ID_ANY, PXC_KINDS_ALL);
			continue;
		}
		ck_assert_uint_eq(pxc_buf_remaining(&cut), len);
		ck_assert(!pxc_store_has_nspace(b, "a"));
		ck_assert(!pxc_store_has_nspace(b, "b"));
		pxc_buf_clear(&cut);
	}
	/* a bad level after a good record: nothing merged */
	pxc_buf_clear(&cut);
	pxc_store_pack(a, "b", -1, PXC_ID_ANY, PXC_KINDS_ALL, &cut);
	memset(&info, 0, sizeof(info));
	strcpy(info.key, "k");
	info.value = *u32v(1);
	pxc_pack_str(&cut, "c");
	pxc_pack(&cut, &lvl, 1, PMIX_UINT8);
	pxc_pack_u32(&cut, 0);
	pxc_pack(&cut, &kind, 1, PMIX_UINT8);
	pxc_pack(&cut, &info, 1, PMIX_INFO);
	ck_assert_int_eq(pxc_store_unpack(b, &cut), PMIX_ERR_UNPACK_FAILURE);
	ck_assert(!pxc_store_has_nspace(b, "b"));
	/* wrong item type */
	pxc_buf_clear(&cut);
	pxc_pack_u32(&cut, 5);
	ck_assert_int_eq(pxc_store_unpack(b, &cut), PMIX_ERR_PACK_MISMATCH);
	/* empty key */
	pxc_buf_clear(&cut);
	info.key[0] = '\0';
	lvl = 0;
	pxc_pack_str(&cut, "c");
	pxc_pack(&cut, &lvl, 1, PMIX_UINT8);
	pxc_pack_u32(&cut, 0);
	pxc_pack(&cut, &kind, 1, PMIX_UINT8);
	pxc_pack(&cut, &info, 1, PMIX_INFO);
	ck_assert_int_eq(pxc_store_unpack(b, &cut), PMIX_ERR_UNPACK_FAILURE);
	ck_assert_uint_eq(pxc_store_count(b, NULL, PXC_LVL_JOB, PXC_ID_ANY, PXC_KINDS_ALL), 0);
	pxc_buf_clear(&cut);
	pxc_buf_clear(&full);
	pxc_store_destroy(a);
	pxc_store_destroy(b);
}
END_TEST

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

START_TEST(test_many_records)
{
	pxc_store_t *st = pxc_store_create(), *copy = pxc_store_create();
	static const char *jobkeys[] = { "pmix.job.size",   "pmix.univ.size", "pmix.max.size",
					 "pmix.local.size", "pmix.num.nodes", "pmix.lpeers",
					 "pmix.tmpdir",     "pmix.nsdir" };
	char key[64];
	pmix_data_buffer_t buf;
	size_t nrec = 0, i, iters = 1000000;
	uint32_t r, k;
	double t0, per_get, per_put;
	volatile uint32_t sink = 0;

	t0 = now_ns();
	for (i = 0; i < 8; i++, nrec++)
		pxc_store_put(st, "slurmix.1234.0", PXC_LVL_JOB, 0, jobkeys[i], u32v(i), 0);
	for (r = 0; r < 10000; r++)
		for (k = 0; k < 10; k++, nrec++) {
			snprintf(key, sizeof(key), "btl.tcp.%u", k);
			pxc_store_put(st, "slurmix.1234.0", PXC_LVL_PROC, r, key, u32v(r + k),
				      PMIX_REMOTE);
		}
	per_put = (now_ns() - t0) / nrec;
	ck_assert_uint_eq(nrec, 100008);
	ck_assert_uint_eq(pxc_store_count(st, "slurmix.1234.0", PXC_LVL_PROC, 9999, PXC_KINDS_ALL),
			  10);
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		sink += pxc_store_get(st, "slurmix.1234.0", PXC_LVL_JOB, 0, jobkeys[i & 7], NULL)
				->data.uint32;
	per_get = (now_ns() - t0) / iters;
	printf("store: %zu records, put %.0f ns, job-level get %.1f ns, %zu bytes held\n", nrec,
	       per_put, per_get, pxc_store_bytes(st));
	if (!getenv("SLURMIX_NO_TIMING"))
		ck_assert_msg(per_get < 1000.0, "get took %.1f ns", per_get);
	ck_assert_uint_gt(pxc_store_bytes(st), nrec * 40);
	/* the whole store through a blob */
	pxc_buf_init(&buf);
	ck_assert_int_eq(pxc_store_pack(st, NULL, -1, PXC_ID_ANY, PXC_KINDS_ALL, &buf), 0);
	ck_assert_int_eq(pxc_store_unpack(copy, &buf), PMIX_SUCCESS);
	ck_assert_uint_eq(get_u32(copy, "slurmix.1234.0", PXC_LVL_PROC, 4321, "btl.tcp.7"), 4328);
	ck_assert_uint_eq(pxc_store_count(copy, NULL, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL),
			  100000);
	pxc_buf_clear(&buf);
	pxc_store_remove(st, "slurmix.1234.0", -1, PXC_ID_ANY, PXC_KINDS_ALL);
	ck_assert(!pxc_store_has_nspace(st, "slurmix.1234.0"));
	pxc_store_destroy(st);
	pxc_store_destroy(copy);
	(void)sink;
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("all");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_put_get_replace);
	tcase_add_test(tc, test_select_foreach_remove);
	tcase_add_test(tc, test_blob_round_trip);
	tcase_add_test(tc, test_blob_malformed);
	tcase_add_test(tc, test_many_records);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = store_suite, .fork = CK_FORK });
}
