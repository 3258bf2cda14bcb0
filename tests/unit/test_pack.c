/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pack.c - check suite for common/pack.c.
 *
 * Round trips of every data type (checked by re-encoding the decoded
 * elements and comparing bytes, plus field checks where a symmetric bug
 * could hide), exact bytes of a few items written by hand, and broken
 * input: truncation at every offset, absurd counts, unknown types, type
 * mismatch, nesting beyond the limit. Run under valgrind to see that
 * failures leak nothing.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <hwloc.h>
#include <pmix.h>

#include "pack.h"
#include "types.h"
#include "runner.h"

/* ---- helpers ---- */

static void bytes_eq(const pmix_data_buffer_t *b, const unsigned char *exp, size_t n)
{
	ck_assert_uint_eq(b->bytes_used, n);
	ck_assert_int_eq(memcmp(b->base_ptr, exp, n), 0);
}

/* Packs n elements, unpacks them into a fresh array, re-packs that array
 * and checks both encodings are byte-identical. Returns the decoded array
 * (caller frees with pxc_array_free). */
static void *round_trip(const void *src, int32_t n, pmix_data_type_t type, size_t elsz)
{
	pmix_data_buffer_t b1, b2;
	void *dst = calloc(n ? n : 1, elsz);
	int32_t m = n;

	pxc_buf_init(&b1);
	pxc_buf_init(&b2);
	ck_assert_int_eq(pxc_pack(&b1, src, n, type), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b1, dst, &m, type), PMIX_SUCCESS);
	ck_assert_int_eq(m, n);
	ck_assert_uint_eq(pxc_buf_remaining(&b1), 0);
	ck_assert_int_eq(pxc_pack(&b2, dst, n, type), PMIX_SUCCESS);
	ck_assert_uint_eq(b1.bytes_used, b2.bytes_used);
	ck_assert_int_eq(memcmp(b1.base_ptr, b2.base_ptr, b1.bytes_used), 0);
	pxc_buf_clear(&b1);
	pxc_buf_clear(&b2);
	return dst;
}

static void value_round_trip(const pmix_value_t *v)
{
	pmix_value_t *out = round_trip(v, 1, PMIX_VALUE, sizeof(*v));

	ck_assert_int_eq(out->type, v->type);
	pxc_array_free(out, 1, PMIX_VALUE);
}

/* ---- exact bytes ---- */

START_TEST(test_bytes_scalars)
{
	pmix_data_buffer_t b;
	uint32_t u32 = 0x01020304;
	int16_t i16 = -2;
	double d = 1.0;
	bool t[2] = { true, false };
	size_t sz = 5;
	static const unsigned char exp[] = {
		0x00, 0x0e, 0, 0, 0, 1, 0x01, 0x02, 0x03, 0x04,             /* UINT32 */
		0x00, 0x08, 0, 0, 0, 1, 0xff, 0xfe,                         /* INT16 */
		0x00, 0x11, 0, 0, 0, 1, 0x3f, 0xf0, 0,    0,    0, 0, 0, 0, /* DOUBLE */
		0x00, 0x01, 0, 0, 0, 2, 1,    0,                            /* BOOL x2 */
		0x00, 0x04, 0, 0, 0, 1, 0,    0,    0,    0,    0, 0, 0, 5, /* SIZE */
	};

	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack(&b, &u32, 1, PMIX_UINT32), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(&b, &i16, 1, PMIX_INT16), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(&b, &d, 1, PMIX_DOUBLE), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(&b, t, 2, PMIX_BOOL), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(&b, &sz, 1, PMIX_SIZE), PMIX_SUCCESS);
	bytes_eq(&b, exp, sizeof(exp));
	pxc_buf_clear(&b);
}
END_TEST

START_TEST(test_bytes_strings_info)
{
	pmix_data_buffer_t b;
	const char *s[2] = { "ab", NULL };
	pmix_info_t info;
	pmix_proc_t proc;
	static const unsigned char exp[] = {
		0x00, 0x03, 0,    0, 0, 2, 0, 0, 0, 2, 'a', 'b', 0xff, 0xff, 0xff, 0xff,
		0x00, 0x18, 0,    0, 0, 1, 0, 0, 0, 1, 'k', 0,   0,    0,    0x01, /* INFO k, REQD */
		0x00, 0x0c, 0x07,                                                  /*  UINT8 7 */
		0x00, 0x16, 0,    0, 0, 1, 0, 0, 0, 2, 'n', 's', 0xff, 0xff, 0xff, 0xfe,
	};
	uint8_t seven = 7;

	memset(&info, 0, sizeof(info));
	PMIx_Info_load(&info, "k", &seven, PMIX_UINT8);
	info.flags = PMIX_INFO_REQD;
	memset(&proc, 0, sizeof(proc));
	strcpy(proc.nspace, "ns");
	proc.rank = PMIX_RANK_WILDCARD;
	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack(&b, s, 2, PMIX_STRING), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(&b, &info, 1, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack_proc(&b, &proc), PMIX_SUCCESS);
	bytes_eq(&b, exp, sizeof(exp));
	pxc_buf_clear(&b);
}
END_TEST

/* An info that arrives marked PMIX_INFO_PERSISTENT still owns its decoded
 * value (freeing it frees the value: valgrind sees no leak). */
START_TEST(test_info_persistent_from_wire)
{
	pmix_data_buffer_t b;
	pmix_info_t in, *out = NULL;
	size_t n = 0;

	PMIx_Info_load(&in, "k", "a string", PMIX_STRING);
	in.flags |= PMIX_INFO_PERSISTENT;
	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack_array(&b, &in, 1, PMIX_INFO), PMIX_SUCCESS);
	in.flags &= ~(uint32_t)PMIX_INFO_PERSISTENT;
	PMIx_Info_destruct(&in);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&out, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert(!(out[0].flags & PMIX_INFO_PERSISTENT));
	ck_assert_str_eq(out[0].value.data.string, "a string");
	pxc_array_free(out, n, PMIX_INFO);
	pxc_buf_clear(&b);
}
END_TEST

/* ---- scalars ---- */

START_TEST(test_scalars_round_trip)
{
	struct {
		pmix_data_type_t t;
		size_t sz;
	} types[] = {
		{ PMIX_BOOL, sizeof(bool) },
		{ PMIX_BYTE, 1 },
		{ PMIX_SIZE, sizeof(size_t) },
		{ PMIX_PID, sizeof(pid_t) },
		{ PMIX_INT, sizeof(int) },
		{ PMIX_INT8, 1 },
		{ PMIX_INT16, 2 },
		{ PMIX_INT32, 4 },
		{ PMIX_INT64, 8 },
		{ PMIX_UINT, sizeof(unsigned) },
		{ PMIX_UINT8, 1 },
		{ PMIX_UINT16, 2 },
		{ PMIX_UINT32, 4 },
		{ PMIX_UINT64, 8 },
		{ PMIX_FLOAT, 4 },
		{ PMIX_DOUBLE, 8 },
		{ PMIX_TIMEVAL, sizeof(struct timeval) },
		{ PMIX_TIME, sizeof(time_t) },
		{ PMIX_STATUS, 4 },
		{ PMIX_PERSIST, 1 },
		{ PMIX_SCOPE, 1 },
		{ PMIX_DATA_RANGE, 1 },
		{ PMIX_COMMAND, 1 },
		{ PMIX_INFO_DIRECTIVES, 4 },
		{ PMIX_DATA_TYPE, 2 },
		{ PMIX_PROC_STATE, 1 },
		{ PMIX_PROC_RANK, 4 },
		{ PMIX_ALLOC_DIRECTIVE, 1 },
		{ PMIX_IOF_CHANNEL, 2 },
		{ PMIX_JOB_STATE, 1 },
		{ PMIX_LINK_STATE, 1 },
		{ PMIX_DEVTYPE, 8 },
		{ PMIX_LOCTYPE, 2 },
		{ PMIX_STOR_MEDIUM, 8 },
		{ PMIX_STOR_ACCESS, 8 },
		{ PMIX_STOR_PERSIST, 8 },
		{ PMIX_STOR_ACCESS_TYPE, 2 },
	};
	unsigned char src[3 * 16];
	size_t i, j;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		unsigned char *out;

		ck_assert_uint_eq(pxc_type_size(types[i].t), types[i].sz);
		for (j = 0; j < sizeof(src); j++)
			src[j] = (unsigned char)(j * 37 + i + 1);
		if (types[i].t == PMIX_BOOL)
			src[0] = src[1] = src[2] = 1;
		if (types[i].t == PMIX_SIZE || types[i].t == PMIX_TIMEVAL) {
			memset(src, 0, sizeof(src));
			src[0] = 0x55;
			src[9] = 7;
			src[17] = 9;
		}
		out = round_trip(src, 3, types[i].t, types[i].sz);
		ck_assert_msg(memcmp(out, src, 3 * types[i].sz) == 0, "type %d", (int)types[i].t);
		free(out);
	}
}
END_TEST

START_TEST(test_float_values)
{
	float f[3] = { 1.5f, -0.0f, 3.25e10f };
	double d[2] = { -2.75, 1e-300 };
	float *fo = round_trip(f, 3, PMIX_FLOAT, sizeof(float));
	double *dd = round_trip(d, 2, PMIX_DOUBLE, sizeof(double));

	ck_assert(fo[0] == 1.5f && fo[2] == 3.25e10f);
	ck_assert(dd[0] == -2.75 && dd[1] == 1e-300);
	free(fo);
	free(dd);
}
END_TEST

START_TEST(test_pointer)
{
	void *p[2] = { &p, NULL };
	void **out = round_trip(p, 2, PMIX_POINTER, sizeof(void *));

	ck_assert_ptr_null(out[0]);
	free(out);
}
END_TEST

START_TEST(test_strings_and_regex)
{
	char *s[4] = { "hello", NULL, "", "x,y" };
	char **o = round_trip(s, 4, PMIX_STRING, sizeof(char *));
	char *re[1] = { "slurmix:n[1-4]" };

	ck_assert_str_eq(o[0], "hello");
	ck_assert_ptr_null(o[1]);
	ck_assert_str_eq(o[2], "");
	pxc_array_free(o, 4, PMIX_STRING);
	o = round_trip(re, 1, PMIX_REGEX, sizeof(char *));
	ck_assert_str_eq(o[0], re[0]);
	pxc_array_free(o, 1, PMIX_REGEX);
}
END_TEST

/* ---- values of every type ---- */

static pmix_info_t *make_infos(size_t n, int depth);

static void fill_value(pmix_value_t *v, pmix_data_type_t t, int depth)
{
	static uint32_t coords[3] = { 1, 2, 3 };
	pmix_proc_t proc = { "ns.1", 3 };
	pmix_byte_object_t bo = { "abc\0def", 7 };
	pmix_envar_t env = { "PATH", "/bin", ':' };
	pmix_coord_t coord = { PMIX_COORD_LOGICAL_VIEW, coords, 3 };
	pmix_proc_info_t pinfo = { { "ns.2", 7 }, "host", "exe", 1234, 3, PMIX_PROC_STATE_RUNNING };
	pmix_device_distance_t dd = { "uuid", "eth0", PMIX_DEVTYPE_NETWORK, 1, 9 };
	pmix_endpoint_t ep = { "u", "ib0", { "\1\2\3", 3 } };
	pmix_geometry_t geo = { 4, "gu", "gos", &coord, 1 };
	pmix_data_array_t da = { PMIX_INFO, 2, NULL };
	uint64_t raw[4] = { 0x0102030405060708ull, 0x1112131415161718ull, 0, 0 };
	pmix_nspace_t ns = "ns.nspace";

	memset(v, 0, sizeof(*v));
	switch (t) {
	case PMIX_STRING: PMIx_Value_load(v, "str", t); break;
	case PMIX_PROC: PMIx_Value_load(v, &proc, t); break;
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT: PMIx_Value_load(v, &bo, t); break;
	case PMIX_REGEX:
		v->type = t;
		v->data.bo.bytes = strdup("slurmix:a[1-2]");
		v->data.bo.size = strlen(v->data.bo.bytes) + 1;
		break;
	case PMIX_ENVAR: PMIx_Value_load(v, &env, t); break;
	case PMIX_COORD: PMIx_Value_load(v, &coord, t); break;
	case PMIX_PROC_INFO: PMIx_Value_load(v, &pinfo, t); break;
	case PMIX_DEVICE_DIST: PMIx_Value_load(v, &dd, t); break;
	case PMIX_ENDPOINT: PMIx_Value_load(v, &ep, t); break;
	case PMIX_GEOMETRY: PMIx_Value_load(v, &geo, t); break;
	case PMIX_PROC_NSPACE: PMIx_Value_load(v, ns, t); break;
	case PMIX_DATA_ARRAY:
		da.array = make_infos(2, depth + 1);
		PMIx_Value_load(v, &da, t);
		pxc_array_free(da.array, 2, PMIX_INFO);
		break;
	default: PMIx_Value_load(v, raw, t); break;
	}
	ck_assert_int_eq(v->type, t);
}

/* Infos of assorted types; each level nests a data array of infos. */
static pmix_info_t *make_infos(size_t n, int depth)
{
	pmix_info_t *info = calloc(n, sizeof(*info));
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(info[i].key, sizeof(info[i].key), "key.%d.%zu", depth, i);
		if (depth < 3 && i == 0)
			fill_value(&info[i].value, PMIX_DATA_ARRAY, depth);
		else
			fill_value(&info[i].value, i % 2 ? PMIX_STRING : PMIX_UINT32, depth);
	}
	return info;
}

START_TEST(test_values_every_type)
{
	static const pmix_data_type_t types[] = {
		PMIX_UNDEF,
		PMIX_BOOL,
		PMIX_BYTE,
		PMIX_STRING,
		PMIX_SIZE,
		PMIX_PID,
		PMIX_INT,
		PMIX_INT8,
		PMIX_INT16,
		PMIX_INT32,
		PMIX_INT64,
		PMIX_UINT,
		PMIX_UINT8,
		PMIX_UINT16,
		PMIX_UINT32,
		PMIX_UINT64,
		PMIX_FLOAT,
		PMIX_DOUBLE,
		PMIX_TIMEVAL,
		PMIX_TIME,
		PMIX_STATUS,
		PMIX_PROC,
		PMIX_BYTE_OBJECT,
		PMIX_PERSIST,
		PMIX_SCOPE,
		PMIX_DATA_RANGE,
		PMIX_PROC_STATE,
		PMIX_PROC_INFO,
		PMIX_DATA_ARRAY,
		PMIX_PROC_RANK,
		PMIX_COMPRESSED_STRING,
		PMIX_ALLOC_DIRECTIVE,
		PMIX_IOF_CHANNEL,
		PMIX_ENVAR,
		PMIX_COORD,
		PMIX_REGEX,
		PMIX_JOB_STATE,
		PMIX_LINK_STATE,
		PMIX_GEOMETRY,
		PMIX_DEVICE_DIST,
		PMIX_ENDPOINT,
		PMIX_DEVTYPE,
		PMIX_LOCTYPE,
		PMIX_COMPRESSED_BYTE_OBJECT,
		PMIX_PROC_NSPACE,
	};
	pmix_value_t v;
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		fill_value(&v, types[i], 0);
		value_round_trip(&v);
		PMIx_Value_destruct(&v);
	}
}
END_TEST

/* Values boxing the struct types that fill_value does not cover. */
START_TEST(test_values_boxed_structs)
{
	char *desc[] = { "d", NULL };
	pmix_regattr_t ra = { "NAME", "pmix.name", PMIX_STRING, desc };
	pmix_cpuset_t cs = { "hwloc", NULL };
	pmix_topology_t tp = { "other", NULL };
	pmix_disk_stats_t dk = { "sdb", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	pmix_node_stats_t nd;
	pmix_data_buffer_t db;
	pmix_value_t v;

	cs.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(cs.bitmap, 2, 5);
	memset(&nd, 0, sizeof(nd));
	nd.node = "nn";
	nd.diskstats = &dk;
	nd.ndiskstats = 1;
	pxc_buf_init(&db);
	pxc_pack_u32(&db, 3);
	{
		struct {
			pmix_data_type_t t;
			const void *e;
		} cases[] = {
			{ PMIX_REGATTR, &ra },    { PMIX_PROC_CPUSET, &cs },
			{ PMIX_TOPO, &tp },       { PMIX_DISK_STATS, &dk },
			{ PMIX_NODE_STATS, &nd }, { PMIX_DATA_BUFFER, &db },
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			memset(&v, 0, sizeof(v));
			ck_assert_int_eq(PMIx_Value_load(&v, cases[i].e, cases[i].t), PMIX_SUCCESS);
			ck_assert_msg(pxc_type_boxed(cases[i].t), "type %d", (int)cases[i].t);
			value_round_trip(&v);
			PMIx_Value_destruct(&v);
		}
	}
	hwloc_bitmap_free(cs.bitmap);
	pxc_buf_clear(&db);
}
END_TEST

START_TEST(test_value_fields)
{
	pmix_value_t v, *o;

	fill_value(&v, PMIX_PROC_INFO, 0);
	o = round_trip(&v, 1, PMIX_VALUE, sizeof(v));
	ck_assert_str_eq(o->data.pinfo->proc.nspace, "ns.2");
	ck_assert_uint_eq(o->data.pinfo->proc.rank, 7);
	ck_assert_str_eq(o->data.pinfo->hostname, "host");
	ck_assert_int_eq(o->data.pinfo->pid, 1234);
	ck_assert_int_eq(o->data.pinfo->exit_code, 3);
	ck_assert_int_eq(PMIx_Value_compare(&v, o), PMIX_EQUAL);
	pxc_array_free(o, 1, PMIX_VALUE);
	PMIx_Value_destruct(&v);

	fill_value(&v, PMIX_ENVAR, 0);
	o = round_trip(&v, 1, PMIX_VALUE, sizeof(v));
	ck_assert_str_eq(o->data.envar.value, "/bin");
	ck_assert_int_eq(o->data.envar.separator, ':');
	pxc_array_free(o, 1, PMIX_VALUE);
	PMIx_Value_destruct(&v);

	fill_value(&v, PMIX_REGEX, 0);
	v.data.bo.size--; /* without the NUL: accepted too */
	o = round_trip(&v, 1, PMIX_VALUE, sizeof(v));
	ck_assert_str_eq(o->data.bo.bytes, "slurmix:a[1-2]");
	ck_assert_uint_eq(o->data.bo.size, strlen("slurmix:a[1-2]") + 1);
	pxc_array_free(o, 1, PMIX_VALUE);
	PMIx_Value_destruct(&v);

	fill_value(&v, PMIX_BYTE_OBJECT, 0);
	o = round_trip(&v, 1, PMIX_VALUE, sizeof(v));
	ck_assert_uint_eq(o->data.bo.size, 7);
	ck_assert_int_eq(memcmp(o->data.bo.bytes, "abc\0def", 7), 0);
	pxc_array_free(o, 1, PMIX_VALUE);
	PMIx_Value_destruct(&v);
}
END_TEST

START_TEST(test_nested_infos)
{
	pmix_info_t *in = make_infos(4, 0), *out;
	pmix_data_array_t *da;
	size_t i;

	out = round_trip(in, 4, PMIX_INFO, sizeof(pmix_info_t));
	for (i = 0; i < 4; i++) {
		ck_assert_str_eq(out[i].key, in[i].key);
		ck_assert_int_eq(PMIx_Value_compare(&in[i].value, &out[i].value), PMIX_EQUAL);
	}
	/* three levels down */
	da = out[0].value.data.darray;
	da = ((pmix_info_t *)da->array)[0].value.data.darray;
	da = ((pmix_info_t *)da->array)[0].value.data.darray;
	ck_assert_uint_eq(da->size, 2);
	ck_assert_str_eq(((pmix_info_t *)da->array)[1].value.data.string, "str");
	pxc_array_free(out, 4, PMIX_INFO);
	pxc_array_free(in, 4, PMIX_INFO);
}
END_TEST

START_TEST(test_empty_and_null)
{
	pmix_data_array_t da[3] = { { PMIX_UNDEF, 0, NULL },
				    { PMIX_INFO, 0, NULL },
				    { PMIX_STRING, 2, NULL } };
	pmix_value_t v[3];
	pmix_data_array_t *o;
	pmix_value_t *ov;
	pmix_info_t none[1];
	int32_t n = 1;
	pmix_data_buffer_t b;

	o = round_trip(da, 2, PMIX_DATA_ARRAY, sizeof(*da));
	ck_assert_ptr_null(o[1].array);
	ck_assert_uint_eq(o[1].size, 0);
	free(o);
	/* a boxed value with a NULL pointer, a NULL string */
	memset(v, 0, sizeof(v));
	v[0].type = PMIX_DATA_ARRAY;
	v[1].type = PMIX_STRING;
	v[2].type = PMIX_PROC;
	ov = round_trip(v, 3, PMIX_VALUE, sizeof(*v));
	ck_assert_ptr_null(ov[0].data.darray);
	ck_assert_ptr_null(ov[1].data.string);
	pxc_array_free(ov, 3, PMIX_VALUE);
	/* an item of zero elements */
	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack(&b, NULL, 0, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, none, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_int_eq(n, 0);
	pxc_buf_clear(&b);
}
END_TEST

/* Every type's emptiest element (zeroed: NULL strings, an empty nspace)
 * alone in a buffer reads back: the decoder's smallest width for a type
 * (checked against the bytes left before anything is allocated) must not
 * exceed its real smallest encoding (it did for PMIX_PROC_STATS, found
 * by fuzzing: 86 bytes asked for, 85 written). */
START_TEST(test_smallest_elements)
{
	for (pmix_data_type_t t = 1; t < 80; t++) {
		size_t sz = pxc_type_size(t);
		pmix_data_buffer_t b;
		void *zero, *back;
		int32_t n = 1;

		if (!sz || t == PMIX_POINTER)
			continue;
		zero = calloc(1, sz);
		back = calloc(1, sz);
		pxc_buf_init(&b);
		if (pxc_pack(&b, zero, 1, t) == PMIX_SUCCESS) {
			ck_assert_msg(pxc_unpack(&b, back, &n, t) == PMIX_SUCCESS,
				      "type %u: its smallest element does not read back", t);
			pxc_array_free(back, 1, t);
		} else {
			free(back);
		}
		pxc_buf_clear(&b);
		free(zero);
	}
}
END_TEST

START_TEST(test_apps_queries_pdata)
{
	char *argv[] = { "a.out", "-x", NULL }, *env[] = { "A=1", NULL };
	char *keys[] = { "pmix.qry.ns", "pmix.qry.psets", NULL };
	pmix_app_t app[2];
	pmix_query_t q;
	pmix_pdata_t pd;
	pmix_app_t *oa;
	pmix_query_t *oq;
	pmix_pdata_t *op;

	memset(app, 0, sizeof(app));
	app[0].cmd = "a.out";
	app[0].argv = argv;
	app[0].env = env;
	app[0].cwd = "/tmp";
	app[0].maxprocs = 4;
	app[0].info = make_infos(3, 1);
	app[0].ninfo = 3;
	oa = round_trip(app, 2, PMIX_APP, sizeof(*app));
	ck_assert_str_eq(oa[0].argv[1], "-x");
	ck_assert_ptr_null(oa[0].argv[2]);
	ck_assert_str_eq(oa[0].env[0], "A=1");
	ck_assert_int_eq(oa[0].maxprocs, 4);
	ck_assert_uint_eq(oa[0].ninfo, 3);
	ck_assert_ptr_null(oa[1].cmd);
	ck_assert_ptr_null(oa[1].argv);
	pxc_array_free(oa, 2, PMIX_APP);
	pxc_array_free(app[0].info, 3, PMIX_INFO);

	q.keys = keys;
	q.qualifiers = make_infos(2, 2);
	q.nqual = 2;
	oq = round_trip(&q, 1, PMIX_QUERY, sizeof(q));
	ck_assert_str_eq(oq->keys[1], "pmix.qry.psets");
	ck_assert_uint_eq(oq->nqual, 2);
	ck_assert_str_eq(oq->qualifiers[1].key, "key.2.1");
	pxc_array_free(oq, 1, PMIX_QUERY);
	pxc_array_free(q.qualifiers, 2, PMIX_INFO);

	memset(&pd, 0, sizeof(pd));
	strcpy(pd.proc.nspace, "pub");
	pd.proc.rank = 2;
	strcpy(pd.key, "port");
	PMIx_Value_load(&pd.value, "tcp://x", PMIX_STRING);
	op = round_trip(&pd, 1, PMIX_PDATA, sizeof(pd));
	ck_assert_str_eq(op->key, "port");
	ck_assert_str_eq(op->value.data.string, "tcp://x");
	pxc_array_free(op, 1, PMIX_PDATA);
	PMIx_Value_destruct(&pd.value);
}
END_TEST

START_TEST(test_stats_regattr_dbuf)
{
	pmix_disk_stats_t dk[2];
	pmix_net_stats_t net;
	pmix_node_stats_t nd;
	pmix_proc_stats_t ps;
	pmix_regattr_t ra;
	char *desc[] = { "one", "two", NULL };
	pmix_data_buffer_t db, *odb;
	pmix_node_stats_t *ond;
	pmix_proc_stats_t *ops;
	pmix_regattr_t *ora;
	void *o;

	memset(dk, 0, sizeof(dk));
	dk[0].disk = "sda";
	dk[1].weighted_milliseconds_io = 77;
	memset(&net, 0, sizeof(net));
	net.net_interface = "eth0";
	net.num_send_errs = 5;
	memset(&nd, 0, sizeof(nd));
	nd.node = "n1";
	nd.la = 0.5f;
	nd.mapped = 12.0f;
	nd.diskstats = dk;
	nd.ndiskstats = 2;
	nd.netstats = &net;
	nd.nnetstats = 1;
	ond = round_trip(&nd, 1, PMIX_NODE_STATS, sizeof(nd));
	ck_assert(ond->mapped == 12.0f);
	ck_assert_uint_eq(ond->diskstats[1].weighted_milliseconds_io, 77);
	ck_assert_uint_eq(ond->netstats[0].num_send_errs, 5);
	pxc_array_free(ond, 1, PMIX_NODE_STATS);

	memset(&ps, 0, sizeof(ps));
	ps.node = "n2";
	ps.cmd = "cmd";
	ps.state = 'R';
	ps.sample_time.tv_sec = 99;
	ps.processor = 3;
	ps.pss = 1.25f;
	ops = round_trip(&ps, 1, PMIX_PROC_STATS, sizeof(ps));
	ck_assert_int_eq(ops->state, 'R');
	ck_assert_int_eq(ops->sample_time.tv_sec, 99);
	ck_assert(ops->pss == 1.25f);
	pxc_array_free(ops, 1, PMIX_PROC_STATS);

	memset(&ra, 0, sizeof(ra));
	ra.name = "PMIX_X";
	strcpy(ra.string, "pmix.x");
	ra.type = PMIX_UINT32;
	ra.description = desc;
	ora = round_trip(&ra, 1, PMIX_REGATTR, sizeof(ra));
	ck_assert_str_eq(ora->string, "pmix.x");
	ck_assert_str_eq(ora->description[1], "two");
	pxc_array_free(ora, 1, PMIX_REGATTR);

	pxc_buf_init(&db);
	ck_assert_int_eq(pxc_pack_str(&db, "inner"), PMIX_SUCCESS);
	odb = round_trip(&db, 1, PMIX_DATA_BUFFER, sizeof(db));
	{
		char *s = NULL;

		ck_assert_int_eq(pxc_unpack_str(odb, &s), PMIX_SUCCESS);
		ck_assert_str_eq(s, "inner");
		free(s);
	}
	pxc_array_free(odb, 1, PMIX_DATA_BUFFER);
	pxc_buf_clear(&db);
	o = round_trip(&net, 1, PMIX_NET_STATS, sizeof(net));
	pxc_array_free(o, 1, PMIX_NET_STATS);
}
END_TEST

START_TEST(test_hwloc)
{
	hwloc_topology_t topo;
	pmix_topology_t t = { "hwloc", NULL }, *ot;
	pmix_cpuset_t c = { "hwloc", NULL }, *oc;
	char *x1 = NULL, *x2 = NULL;
	int l1, l2;

	ck_assert_int_eq(hwloc_topology_init(&topo), 0);
	ck_assert_int_eq(hwloc_topology_load(topo), 0);
	t.topology = topo;
	ot = round_trip(&t, 1, PMIX_TOPO, sizeof(t));
	ck_assert_ptr_nonnull(ot->topology);
	ck_assert_int_eq(hwloc_get_nbobjs_by_type(ot->topology, HWLOC_OBJ_PU),
			 hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
	ck_assert_int_eq(hwloc_topology_export_xmlbuffer(topo, &x1, &l1, 0), 0);
	ck_assert_int_eq(hwloc_topology_export_xmlbuffer(ot->topology, &x2, &l2, 0), 0);
	ck_assert_str_eq(x1, x2);
	hwloc_free_xmlbuffer(topo, x1);
	hwloc_free_xmlbuffer(ot->topology, x2);
	pxc_array_free(ot, 1, PMIX_TOPO);
	hwloc_topology_destroy(topo);

	c.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_list_sscanf(c.bitmap, "0-3,8,100");
	oc = round_trip(&c, 1, PMIX_PROC_CPUSET, sizeof(c));
	ck_assert(hwloc_bitmap_isequal(oc->bitmap, c.bitmap));
	pxc_array_free(oc, 1, PMIX_PROC_CPUSET);
	hwloc_bitmap_free(c.bitmap);
}
END_TEST

START_TEST(test_unsupported_types)
{
	pmix_data_buffer_t b;
	int x = 0;
	pmix_value_t v;

	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack(&b, &x, 1, PMIX_KVAL), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(pxc_pack(&b, &x, 1, 4999), PMIX_ERR_UNKNOWN_DATA_TYPE);
	memset(&v, 0, sizeof(v));
	v.type = 4999;
	ck_assert_int_eq(pxc_pack(&b, &v, 1, PMIX_VALUE), PMIX_ERR_UNKNOWN_DATA_TYPE);
	ck_assert_uint_eq(b.bytes_used, 0); /* rolled back */
	pxc_buf_clear(&b);
}
END_TEST

/* ---- broken input ---- */

/* A buffer of several items of assorted types. */
static void multi_item(pmix_data_buffer_t *b)
{
	pmix_info_t *info = make_infos(3, 1);
	char *s[2] = { "alpha", NULL };
	uint64_t u = 42;
	pmix_proc_t p = { "nsx", 5 };

	pxc_buf_init(b);
	ck_assert_int_eq(pxc_pack(b, s, 2, PMIX_STRING), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(b, info, 3, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack(b, &u, 1, PMIX_UINT64), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack_array(b, &p, 1, PMIX_PROC), PMIX_SUCCESS);
	pxc_array_free(info, 3, PMIX_INFO);
}

/* Unpacks the items of multi_item in order; returns how many succeeded.
 * A failure must leave the read position where it was. */
static int unpack_items(pmix_data_buffer_t *b, pmix_status_t *last)
{
	char *s[2];
	pmix_info_t info[3];
	uint64_t u;
	pmix_proc_t *p;
	size_t np;
	int32_t n;
	const char *pos;
	int ok = 0;

#define STEP(call, cleanup)                                         \
	do {                                                        \
		pos = pxc_buf_read_ptr(b);                          \
		*last = (call);                                     \
		if (*last != PMIX_SUCCESS) {                        \
			ck_assert_ptr_eq(pxc_buf_read_ptr(b), pos); \
			return ok;                                  \
		}                                                   \
		cleanup;                                            \
		ok++;                                               \
	} while (0)
	n = 2;
	STEP(pxc_unpack(b, s, &n, PMIX_STRING), pxc_elems_destruct(s, 2, PMIX_STRING));
	n = 3;
	STEP(pxc_unpack(b, info, &n, PMIX_INFO), pxc_elems_destruct(info, 3, PMIX_INFO));
	n = 1;
	STEP(pxc_unpack(b, &u, &n, PMIX_UINT64), (void)0);
	STEP(pxc_unpack_array(b, (void **)&p, &np, PMIX_PROC), pxc_array_free(p, np, PMIX_PROC));
#undef STEP
	return ok;
}

START_TEST(test_truncated_everywhere)
{
	pmix_data_buffer_t full, cut;
	pmix_status_t last;
	size_t len;

	multi_item(&full);
	pxc_buf_init(&cut);
	ck_assert_int_eq(pxc_buf_load_copy(&cut, full.base_ptr, full.bytes_used), 0);
	ck_assert_int_eq(unpack_items(&cut, &last), 4);
	pxc_buf_clear(&cut);
	for (len = 0; len < full.bytes_used; len++) {
		ck_assert_int_eq(pxc_buf_load_copy(&cut, full.base_ptr, len), 0);
		ck_assert_int_lt(unpack_items(&cut, &last), 4);
		ck_assert_msg(last == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, "len %zu: status %d",
			      len, last);
		pxc_buf_clear(&cut);
	}
	pxc_buf_clear(&full);
}
END_TEST

/* Every single-byte corruption of the multi-item buffer fails cleanly or
 * decodes to something that frees cleanly (valgrind checks the rest). */
START_TEST(test_corrupted_bytes)
{
	pmix_data_buffer_t full, bad;
	pmix_status_t last;
	size_t i;

	multi_item(&full);
	pxc_buf_init(&bad);
	for (i = 0; i < full.bytes_used; i++) {
		ck_assert_int_eq(pxc_buf_load_copy(&bad, full.base_ptr, full.bytes_used), 0);
		bad.base_ptr[i] ^= 0xa5;
		(void)unpack_items(&bad, &last);
		pxc_buf_clear(&bad);
	}
	pxc_buf_clear(&full);
}
END_TEST

START_TEST(test_absurd_counts)
{
	static const unsigned char many_ints[] = { 0x00, 0x09, 0x80, 0, 0, 0, 1, 2, 3, 4 };
	static const unsigned char huge_str[] = { 0x00, 0x03, 0,    0,    0,  1,
						  0xff, 0xff, 0xff, 0xf0, 'a' };
	static const unsigned char huge_darray[] = { 0x00, 0x27, 0, 0, 0, 1, 0x00, 0x18, 0x40, 0,
						     0,    0,    0, 0, 0, 0, 1,    2,    3 };
	static const unsigned char huge_array[] = { 0x00, 0x04, 0, 0, 0,    1,    0, 0, 1, 0,
						    0,    0,    0, 0, 0x00, 0x16, 0, 0, 0, 0 };
	pmix_data_buffer_t b;
	int32_t x[4], n = 4;
	char *s;
	pmix_data_array_t da;
	void *arr;
	size_t na;

	pxc_buf_init(&b);
	pxc_buf_load_copy(&b, many_ints, sizeof(many_ints));
	ck_assert_int_eq(pxc_unpack(&b, x, &n, PMIX_INT32),
			 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
	pxc_buf_load_copy(&b, huge_str, sizeof(huge_str));
	n = 1;
	ck_assert_int_eq(pxc_unpack(&b, &s, &n, PMIX_STRING),
			 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
	pxc_buf_load_copy(&b, huge_darray, sizeof(huge_darray));
	n = 1;
	ck_assert_int_eq(pxc_unpack(&b, &da, &n, PMIX_DATA_ARRAY),
			 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
	pxc_buf_load_copy(&b, huge_array, sizeof(huge_array));
	ck_assert_int_eq(pxc_unpack_array(&b, &arr, &na, PMIX_PROC),
			 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
	ck_assert_uint_eq(pxc_buf_remaining(&b), sizeof(huge_array));
	pxc_buf_clear(&b);
}
END_TEST

START_TEST(test_unknown_and_mismatch)
{
	static const unsigned char unknown[] = { 0x03, 0xe7, 0, 0, 0, 1, 1, 2, 3, 4 };
	/* INFO "k" whose value has type 999 */
	static const unsigned char bad_value[] = { 0x00, 0x18, 0, 0, 0,    1,    0, 0, 0, 1, 'k',
						   0,    0,    0, 0, 0x03, 0xe7, 1, 2, 3, 4 };
	pmix_data_buffer_t b;
	int32_t i32 = 5, n = 1;
	uint32_t u32;
	pmix_info_t info;

	pxc_buf_init(&b);
	pxc_pack(&b, &i32, 1, PMIX_INT32);
	ck_assert_int_eq(pxc_unpack(&b, &u32, &n, PMIX_UINT32), PMIX_ERR_PACK_MISMATCH);
	ck_assert_uint_eq(pxc_buf_remaining(&b), 10);
	pxc_buf_load_copy(&b, unknown, sizeof(unknown));
	ck_assert_int_eq(pxc_unpack(&b, &u32, &n, PMIX_UINT32), PMIX_ERR_UNKNOWN_DATA_TYPE);
	pxc_buf_load_copy(&b, bad_value, sizeof(bad_value));
	ck_assert_int_eq(pxc_unpack(&b, &info, &n, PMIX_INFO), PMIX_ERR_UNKNOWN_DATA_TYPE);
	ck_assert_int_eq(pxc_unpack(&b, &info, &n, 4321), PMIX_ERR_UNKNOWN_DATA_TYPE);
	pxc_buf_clear(&b);
}
END_TEST

START_TEST(test_inadequate_space)
{
	pmix_data_buffer_t b;
	char *s[3] = { "a", "b", "c" }, *o[2];
	int32_t n = 2;

	pxc_buf_init(&b);
	pxc_pack(&b, s, 3, PMIX_STRING);
	ck_assert_int_eq(pxc_unpack(&b, o, &n, PMIX_STRING), PMIX_ERR_UNPACK_INADEQUATE_SPACE);
	ck_assert_uint_eq(pxc_buf_remaining(&b), b.bytes_used);
	n = 0;
	ck_assert_int_eq(pxc_unpack(&b, o, &n, PMIX_STRING), PMIX_ERR_UNPACK_INADEQUATE_SPACE);
	pxc_buf_clear(&b);
}
END_TEST

/* A value holding a data array holding a value ... nested depth times. */
static void nest(pmix_value_t *v, int depth)
{
	pmix_data_array_t *da;

	memset(v, 0, sizeof(*v));
	if (!depth) {
		v->type = PMIX_UINT8;
		return;
	}
	da = calloc(1, sizeof(*da));
	da->type = PMIX_VALUE;
	da->size = 1;
	da->array = calloc(1, sizeof(pmix_value_t));
	nest(da->array, depth - 1);
	v->type = PMIX_DATA_ARRAY;
	v->data.darray = da;
}

START_TEST(test_depth_limit)
{
	pmix_data_buffer_t b;
	pmix_value_t v, o;
	int32_t n = 1;
	unsigned char *deep;
	size_t i, len;

	nest(&v, PXC_PACK_MAX_DEPTH);
	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack(&b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, &o, &n, PMIX_VALUE), PMIX_SUCCESS);
	PMIx_Value_destruct(&o);
	PMIx_Value_destruct(&v);
	nest(&v, PXC_PACK_MAX_DEPTH + 1);
	ck_assert_int_eq(pxc_pack(&b, &v, 1, PMIX_VALUE), PMIX_ERR_BAD_PARAM);
	PMIx_Value_destruct(&v);
	pxc_buf_clear(&b);

	/* by hand: value(DATA_ARRAY, present, type VALUE, size 1) repeated */
	len = 6 + 13 * (PXC_PACK_MAX_DEPTH + 1) + 3;
	deep = calloc(1, len);
	deep[1] = PMIX_VALUE;
	deep[5] = 1;
	for (i = 0; i <= PXC_PACK_MAX_DEPTH; i++) {
		unsigned char *p = deep + 6 + 13 * i;

		p[1] = PMIX_DATA_ARRAY;
		p[2] = 1;
		p[4] = PMIX_VALUE;
		p[12] = 1;
	}
	deep[len - 2] = PMIX_UINT8;
	pxc_buf_load_take(&b, deep, len);
	n = 1;
	ck_assert_int_eq(pxc_unpack(&b, &o, &n, PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
	ck_assert_uint_eq(pxc_buf_remaining(&b), len);
	pxc_buf_clear(&b);
}
END_TEST

START_TEST(test_bad_topology_and_cpuset)
{
	pmix_data_buffer_t b;
	pmix_topology_t t = { "hwloc", NULL }, ot;
	pmix_cpuset_t c = { "hwloc", NULL }, oc;
	pmix_data_buffer_t w;
	int32_t n = 1;

	pxc_buf_init(&b);
	pxc_buf_init(&w);
	ck_assert_int_eq(pxc_pack(&w, &t, 1, PMIX_TOPO), PMIX_SUCCESS); /* no topology */
	pxc_buf_clear(&w);
	{
		static const unsigned char bad[] = {
			0,   PMIX_TOPO, 0, 0, 0, 1,   0,   0,   0,   5,   'h', 'w', 'l', 'o',
			'c', 0,         0, 0, 8, '<', 'n', 'o', 't', ' ', 'x', 'm', 'l'
		};
		static const unsigned char badc[] = { 0,   PMIX_PROC_CPUSET,
						      0,   0,
						      0,   1,
						      0,   0,
						      0,   5,
						      'h', 'w',
						      'l', 'o',
						      'c', 0,
						      0,   0,
						      12,  '0',
						      '-', '9',
						      '9', '9',
						      '9', '9',
						      '9', '9',
						      '9', '9',
						      '9' };

		pxc_buf_load_copy(&b, bad, sizeof(bad));
		ck_assert_int_eq(pxc_unpack(&b, &ot, &n, PMIX_TOPO), PMIX_ERR_UNPACK_FAILURE);
		pxc_buf_load_copy(&b, badc, sizeof(badc));
		ck_assert_int_eq(pxc_unpack(&b, &oc, &n, PMIX_PROC_CPUSET),
				 PMIX_ERR_UNPACK_FAILURE);
	}
	c.bitmap = &c; /* not hwloc: cannot travel */
	c.source = "other";
	ck_assert_int_eq(pxc_pack(&w, &c, 1, PMIX_PROC_CPUSET), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	pxc_buf_clear(&w);
}
END_TEST

/* ---- arrays and the PMIx_Data API ---- */

START_TEST(test_counted_arrays)
{
	pmix_data_buffer_t b;
	pmix_proc_t p[3] = { { "a", 0 }, { "b", 1 }, { "c", 2 } }, *o;
	size_t n;

	pxc_buf_init(&b);
	ck_assert_int_eq(pxc_pack_array(&b, p, 3, PMIX_PROC), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack_array(&b, NULL, 0, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&o, &n, PMIX_PROC), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(o[2].nspace, "c");
	pxc_array_free(o, n, PMIX_PROC);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&o, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_ptr_null(o);
	ck_assert_uint_eq(n, 0);
	pxc_buf_clear(&b);
}
END_TEST

START_TEST(test_data_api)
{
	pmix_data_buffer_t a, c;
	pmix_byte_object_t bo;
	uint32_t v = 9, o = 0;
	int32_t n = 1;
	char *s = NULL;

	pxc_buf_init(&a);
	pxc_buf_init(&c);
	ck_assert_int_eq(PMIx_Data_pack(NULL, &a, &v, 1, PMIX_UINT32), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_pack_str(&a, "tail"), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Data_unpack(NULL, &a, &o, &n, PMIX_UINT32), PMIX_SUCCESS);
	ck_assert_uint_eq(o, 9);
	ck_assert_int_eq(PMIx_Data_copy_payload(&c, &a), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_str(&c, &s), PMIX_SUCCESS);
	ck_assert_str_eq(s, "tail");
	free(s);
	ck_assert_int_eq(PMIx_Data_unload(&a, &bo), PMIX_SUCCESS);
	ck_assert_ptr_null(a.base_ptr);
	ck_assert_uint_eq(bo.size, 4 + 6 + 4);
	ck_assert_int_eq(PMIx_Data_embed(&c, &bo), PMIX_SUCCESS);
	ck_assert_ptr_nonnull(bo.bytes);
	ck_assert_int_eq(PMIx_Data_load(&a, &bo), PMIX_SUCCESS);
	ck_assert_ptr_null(bo.bytes);
	ck_assert_int_eq(pxc_unpack_str(&a, &s), PMIX_SUCCESS);
	ck_assert_str_eq(s, "tail");
	free(s);
	ck_assert_int_eq(pxc_unpack_str(&c, &s), PMIX_SUCCESS);
	free(s);
	pxc_buf_clear(&a);
	pxc_buf_clear(&c);
}
END_TEST

START_TEST(test_compress)
{
	size_t len = 100000, n1, n2;
	uint8_t *in = malloc(len), *z, *out;

	for (size_t i = 0; i < len; i++)
		in[i] = (uint8_t)("slurmix"[i % 7]);
	if (!PMIx_Data_compress(in, len, &z, &n1)) {
		free(in);
		return; /* built without zlib: nothing to check */
	}
	ck_assert_uint_lt(n1, len / 10);
	ck_assert(PMIx_Data_decompress(z, n1, &out, &n2));
	ck_assert_uint_eq(n2, len);
	ck_assert_int_eq(memcmp(in, out, len), 0);
	free(out);
	z[n1 / 2] ^= 0xff;
	z[n1 - 1] ^= 0xff;
	ck_assert(!PMIx_Data_decompress(z, n1, &out, &n2));
	ck_assert(!PMIx_Data_decompress(z, 5, &out, &n2));
	ck_assert(!PMIx_Data_compress((const uint8_t *)"ab", 2, &z, &n1));
	free(z);
	free(in);
}
END_TEST

static Suite *pack_suite(void)
{
	Suite *s = suite_create("pack");
	TCase *tc = tcase_create("all");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bytes_scalars);
	tcase_add_test(tc, test_bytes_strings_info);
	tcase_add_test(tc, test_info_persistent_from_wire);
	tcase_add_test(tc, test_scalars_round_trip);
	tcase_add_test(tc, test_float_values);
	tcase_add_test(tc, test_pointer);
	tcase_add_test(tc, test_strings_and_regex);
	tcase_add_test(tc, test_values_every_type);
	tcase_add_test(tc, test_values_boxed_structs);
	tcase_add_test(tc, test_value_fields);
	tcase_add_test(tc, test_nested_infos);
	tcase_add_test(tc, test_empty_and_null);
	tcase_add_test(tc, test_smallest_elements);
	tcase_add_test(tc, test_apps_queries_pdata);
	tcase_add_test(tc, test_stats_regattr_dbuf);
	tcase_add_test(tc, test_hwloc);
	tcase_add_test(tc, test_unsupported_types);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_corrupted_bytes);
	tcase_add_test(tc, test_absurd_counts);
	tcase_add_test(tc, test_unknown_and_mismatch);
	tcase_add_test(tc, test_inadequate_space);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_bad_topology_and_cpuset);
	tcase_add_test(tc, test_counted_arrays);
	tcase_add_test(tc, test_data_api);
	tcase_add_test(tc, test_compress);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = pack_suite, .fork = CK_FORK });
}
