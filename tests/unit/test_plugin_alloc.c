/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_alloc.c - plug_alloc_parse (src/plugin/lib/alloc_req.c):
 * the directives (EXTEND NO_PERMISSIONS, REAQUIRE and EXTERNAL
 * NOT_SUPPORTED, unknown BAD_PARAM), each attribute taken from the types
 * a program may pass, wrong types and ranges refused, an unknown
 * attribute ignored unless required, a RELEASE that releases nothing;
 * plug_alloc_id_parse.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include <pmix_common.h>

#include "lib/alloc_req.h"
#include "runner.h"

static char err[160];

static pmix_status_t parse1(pmix_alloc_directive_t d, pmix_info_t *i, plug_alloc_req_t *r)
{
	return plug_alloc_parse(d, i, i ? 1 : 0, r, err, sizeof(err));
}

START_TEST(directives)
{
	plug_alloc_req_t r;
	pmix_info_t i;

	PMIx_Info_load(&i, PMIX_ALLOC_TIME, &(uint32_t){ 600 }, PMIX_UINT32);
	ck_assert_int_eq(parse1(PMIX_ALLOC_NEW, NULL, &r), PMIX_SUCCESS);
	ck_assert_int_eq(r.directive, PMIX_ALLOC_NEW);
	ck_assert_int_eq(parse1(PMIX_ALLOC_EXTEND, &i, &r), PMIX_ERR_NO_PERMISSIONS);
	ck_assert(strstr(err, "Slurm"));
	ck_assert_int_eq(parse1(PMIX_ALLOC_REAQUIRE, &i, &r), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(parse1(PMIX_ALLOC_EXTERNAL, &i, &r), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(parse1(0, &i, &r), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(parse1(77, &i, &r), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(parse1(PMIX_ALLOC_RELEASE, &i, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.time_s, 600);
	/* releasing nothing, or a count and a list at once */
	ck_assert_int_eq(parse1(PMIX_ALLOC_RELEASE, NULL, &r), PMIX_ERR_BAD_PARAM);
	ck_assert(strstr(err, "nothing to release"));
	{
		pmix_info_t two[2];

		PMIx_Info_load(&two[0], PMIX_ALLOC_NUM_NODES, &(uint64_t){ 1 }, PMIX_UINT64);
		PMIx_Info_load(&two[1], PMIX_ALLOC_NODE_LIST, "vn4", PMIX_STRING);
		ck_assert_int_eq(plug_alloc_parse(PMIX_ALLOC_RELEASE, two, 2, &r, err, sizeof(err)),
				 PMIX_ERR_BAD_PARAM);
		ck_assert_int_eq(plug_alloc_parse(PMIX_ALLOC_NEW, two, 2, &r, err, sizeof(err)),
				 PMIX_SUCCESS);
		ck_assert_uint_eq(r.nnodes, 1);
		ck_assert_str_eq(r.nodelist, "vn4");
		PMIx_Info_destruct(&two[0]);
		PMIx_Info_destruct(&two[1]);
	}
	ck_assert_int_eq(plug_alloc_parse(PMIX_ALLOC_NEW, NULL, 2, &r, err, sizeof(err)),
			 PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&i);
}
END_TEST

START_TEST(attributes)
{
	plug_alloc_req_t r;
	pmix_info_t in[9];
	size_t n = 0;

	PMIx_Info_load(&in[n++], PMIX_ALLOC_NUM_NODES, &(uint64_t){ 2 }, PMIX_UINT64);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_NUM_CPUS, &(int){ 3 }, PMIX_INT);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_TIME, &(uint16_t){ 120 }, PMIX_UINT16);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_QUEUE, "vc", PMIX_STRING);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_REQ_ID, "mine", PMIX_STRING);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_ID, "4711", PMIX_STRING);
	PMIx_Info_load(&in[n++], PMIX_TIMEOUT, &(int){ 5 }, PMIX_INT);
	PMIx_Info_load(&in[n++], PMIX_USERID, &(uint32_t){ 0 }, PMIX_UINT32);
	PMIx_Info_load(&in[n++], PMIX_ALLOC_MEM_SIZE, &(float){ 1.5f }, PMIX_FLOAT);
	ck_assert_int_eq(plug_alloc_parse(PMIX_ALLOC_NEW, in, n, &r, err, sizeof(err)),
			 PMIX_SUCCESS);
	ck_assert_uint_eq(r.nnodes, 2);
	ck_assert_uint_eq(r.ncpus, 3);
	ck_assert_uint_eq(r.time_s, 120);
	ck_assert_str_eq(r.queue, "vc");
	ck_assert_str_eq(r.reqid, "mine");
	ck_assert_str_eq(r.allocid, "4711");
	ck_assert_uint_eq(r.timeout_s, 5);
	/* an attribute we do not honour, marked required */
	PMIX_INFO_REQUIRED(&in[n - 1]);
	ck_assert_int_eq(plug_alloc_parse(PMIX_ALLOC_NEW, in, n, &r, err, sizeof(err)),
			 PMIX_ERR_NOT_SUPPORTED);
	ck_assert(strstr(err, PMIX_ALLOC_MEM_SIZE));
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&in[i]);
}
END_TEST

/* Each broken value alone: BAD_PARAM, naming its key. */
START_TEST(broken)
{
	const struct {
		const char *key;
		pmix_data_type_t t;
		const void *v;
	} bad[] = {
		{ PMIX_ALLOC_NUM_NODES, PMIX_STRING, "2" },
		{ PMIX_ALLOC_NUM_NODES, PMIX_INT, &(int){ -1 } },
		{ PMIX_ALLOC_NUM_NODES, PMIX_UINT64, &(uint64_t){ 0 } },
		{ PMIX_ALLOC_NUM_NODES, PMIX_UINT64, &(uint64_t){ 1ull << 33 } },
		{ PMIX_ALLOC_NUM_CPUS, PMIX_BOOL, &(bool){ true } },
		{ PMIX_ALLOC_TIME, PMIX_INT64, &(int64_t){ -60 } },
		{ PMIX_ALLOC_TIME, PMIX_DOUBLE, &(double){ 60 } },
		{ PMIX_TIMEOUT, PMIX_INT, &(int){ PLUG_ALLOC_TIMEOUT_MAX + 1 } },
		{ PMIX_ALLOC_NODE_LIST, PMIX_INT, &(int){ 3 } },
		{ PMIX_ALLOC_NODE_LIST, PMIX_STRING, "" },
		{ PMIX_ALLOC_QUEUE, PMIX_UINT32, &(uint32_t){ 1 } },
		{ PMIX_ALLOC_REQ_ID, PMIX_BOOL, &(bool){ false } },
		{ PMIX_ALLOC_ID, PMIX_STRING, "12x" },
		{ PMIX_ALLOC_ID, PMIX_STRING, "0" },
		{ PMIX_ALLOC_ID, PMIX_STRING, "99999999999" },
		{ PMIX_ALLOC_ID, PMIX_UINT32, &(uint32_t){ 12 } },
	};
	plug_alloc_req_t r;
	pmix_info_t i;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		PMIx_Info_load(&i, bad[k].key, bad[k].v, bad[k].t);
		ck_assert_msg(parse1(PMIX_ALLOC_NEW, &i, &r) == PMIX_ERR_BAD_PARAM, "case %zu", k);
		ck_assert_msg(strstr(err, bad[k].key), "case %zu: %s", k, err);
		PMIx_Info_destruct(&i);
	}
}
END_TEST

START_TEST(ids)
{
	uint32_t id = 0;

	ck_assert_int_eq(plug_alloc_id_parse("42", &id), 0);
	ck_assert_uint_eq(id, 42);
	ck_assert_int_eq(plug_alloc_id_parse("4294967293", &id), 0);
	ck_assert_int_eq(plug_alloc_id_parse("4294967294", &id), -1);
	ck_assert_int_eq(plug_alloc_id_parse("", &id), -1);
	ck_assert_int_eq(plug_alloc_id_parse(NULL, &id), -1);
	ck_assert_int_eq(plug_alloc_id_parse("-1", &id), -1);
	ck_assert_int_eq(plug_alloc_id_parse(" 1", &id), -1);
}
END_TEST

static Suite *alloc_suite(void)
{
	Suite *s = suite_create("plugin_alloc");
	TCase *t = tcase_create("parse");

	tcase_add_test(t, directives);
	tcase_add_test(t, attributes);
	tcase_add_test(t, broken);
	tcase_add_test(t, ids);
	suite_add_tcase(s, t);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = alloc_suite, .fork = CK_FORK });
}
