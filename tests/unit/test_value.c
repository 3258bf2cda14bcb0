/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_value.c - check suite for the server-less PMIx helpers in
 * src/pmix_core/common: values of every data type (load, xfer, compare,
 * destruct, unload, print), infos and their directives, data arrays nested
 * in infos nested in data arrays, the struct helpers, argv/env helpers,
 * info lists and the string functions.
 *
 * Leaks are caught by running the suite under valgrind with CK_FORK=no:
 *   CK_FORK=no valgrind --leak-check=full --error-exitcode=1 ./test_value
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include <pmix.h>

#include "pxc.h"
#include "types.h"
#include "runner.h"

/* ---- sample values of every type ---- */

static const pmix_data_type_t all_types[] = {
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
	PMIX_POINTER,
	PMIX_SCOPE,
	PMIX_DATA_RANGE,
	PMIX_COMMAND,
	PMIX_INFO_DIRECTIVES,
	PMIX_DATA_TYPE,
	PMIX_PROC_STATE,
	PMIX_PROC_INFO,
	PMIX_DATA_ARRAY,
	PMIX_PROC_RANK,
	PMIX_COMPRESSED_STRING,
	PMIX_ALLOC_DIRECTIVE,
	PMIX_IOF_CHANNEL,
	PMIX_ENVAR,
	PMIX_COORD,
	PMIX_REGATTR,
	PMIX_REGEX,
	PMIX_JOB_STATE,
	PMIX_LINK_STATE,
	PMIX_PROC_CPUSET,
	PMIX_GEOMETRY,
	PMIX_DEVICE_DIST,
	PMIX_ENDPOINT,
	PMIX_TOPO,
	PMIX_DEVTYPE,
	PMIX_LOCTYPE,
	PMIX_COMPRESSED_BYTE_OBJECT,
	PMIX_PROC_NSPACE,
	PMIX_PROC_STATS,
	PMIX_DISK_STATS,
	PMIX_NET_STATS,
	PMIX_NODE_STATS,
	PMIX_DATA_BUFFER,
	PMIX_STOR_MEDIUM,
	PMIX_STOR_ACCESS,
	PMIX_STOR_PERSIST,
	PMIX_STOR_ACCESS_TYPE,
};
#define NTYPES (sizeof(all_types) / sizeof(all_types[0]))

/* Element types a data array can hold, one sample array each. */
static const pmix_data_type_t array_types[] = {
	PMIX_STRING,     PMIX_INT,         PMIX_PROC,       PMIX_INFO,        PMIX_VALUE,
	PMIX_APP,        PMIX_PDATA,       PMIX_QUERY,      PMIX_BYTE_OBJECT, PMIX_ENVAR,
	PMIX_COORD,      PMIX_REGATTR,     PMIX_PROC_INFO,  PMIX_PROC_CPUSET, PMIX_TOPO,
	PMIX_GEOMETRY,   PMIX_DEVICE_DIST, PMIX_ENDPOINT,   PMIX_PROC_NSPACE, PMIX_PROC_STATS,
	PMIX_DISK_STATS, PMIX_NET_STATS,   PMIX_NODE_STATS, PMIX_DATA_BUFFER, PMIX_DATA_ARRAY,
	PMIX_POINTER,
};
#define NARRAYTYPES (sizeof(array_types) / sizeof(array_types[0]))

static hwloc_topology_t test_topo;

static void load_sample(pmix_value_t *v, pmix_data_type_t t, int depth);
static size_t elem_size(pmix_data_type_t t);
#define pxc_test_payload pxc_value_elem

static void fill_info(pmix_info_t *info, const char *key, int depth)
{
	pmix_value_t tmp;

	PMIx_Info_construct(info);
	PMIx_Load_key(info->key, key);
	load_sample(&tmp, depth > 0 ? PMIX_DATA_ARRAY : PMIX_STRING, depth - 1);
	info->value = tmp; /* take ownership */
}

/* Fills element i of an array of type t with distinct sample contents. */
static void fill_elem(void *e, pmix_data_type_t t, int i, int depth)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "elem-%d", i);
	switch (t) {
	case PMIX_STRING: *(char **)e = strdup(buf); break;
	case PMIX_INT: *(int *)e = i * 7; break;
	case PMIX_POINTER: *(void **)e = (void *)&all_types[i]; break;
	case PMIX_PROC: PMIx_Load_procid(e, buf, (pmix_rank_t)i); break;
	case PMIX_PROC_NSPACE: PMIx_Load_nspace(e, buf); break;
	case PMIX_INFO: fill_info(e, buf, depth); break;
	case PMIX_VALUE: load_sample(e, PMIX_STRING, 0); break;
	case PMIX_DATA_ARRAY: {
		pmix_value_t tmp;
		load_sample(&tmp, PMIX_DATA_ARRAY, depth - 1);
		*(pmix_data_array_t *)e = *tmp.data.darray;
		free(tmp.data.darray);
		break;
	}
	default: {
		pmix_value_t tmp;
		load_sample(&tmp, t, depth);
		if (t == PMIX_BYTE_OBJECT || t == PMIX_ENVAR) {
			memcpy(e, &tmp.data, elem_size(t)); /* inline: take it */
		} else {
			memcpy(e, tmp.data.ptr, elem_size(t)); /* boxed: move it */
			free(tmp.data.ptr);
		}
		break;
	}
	}
}

static size_t elem_size(pmix_data_type_t t)
{
	switch (t) {
	case PMIX_STRING: return sizeof(char *);
	case PMIX_INT: return sizeof(int);
	case PMIX_POINTER: return sizeof(void *);
	case PMIX_PROC: return sizeof(pmix_proc_t);
	case PMIX_PROC_NSPACE: return sizeof(pmix_nspace_t);
	case PMIX_INFO: return sizeof(pmix_info_t);
	case PMIX_VALUE: return sizeof(pmix_value_t);
	case PMIX_DATA_ARRAY: return sizeof(pmix_data_array_t);
	case PMIX_APP: return sizeof(pmix_app_t);
	case PMIX_PDATA: return sizeof(pmix_pdata_t);
	case PMIX_QUERY: return sizeof(pmix_query_t);
	case PMIX_BYTE_OBJECT: return sizeof(pmix_byte_object_t);
	case PMIX_ENVAR: return sizeof(pmix_envar_t);
	case PMIX_COORD: return sizeof(pmix_coord_t);
	case PMIX_REGATTR: return sizeof(pmix_regattr_t);
	case PMIX_PROC_INFO: return sizeof(pmix_proc_info_t);
	case PMIX_PROC_CPUSET: return sizeof(pmix_cpuset_t);
	case PMIX_TOPO: return sizeof(pmix_topology_t);
	case PMIX_GEOMETRY: return sizeof(pmix_geometry_t);
	case PMIX_DEVICE_DIST: return sizeof(pmix_device_distance_t);
	case PMIX_ENDPOINT: return sizeof(pmix_endpoint_t);
	case PMIX_PROC_STATS: return sizeof(pmix_proc_stats_t);
	case PMIX_DISK_STATS: return sizeof(pmix_disk_stats_t);
	case PMIX_NET_STATS: return sizeof(pmix_net_stats_t);
	case PMIX_NODE_STATS: return sizeof(pmix_node_stats_t);
	case PMIX_DATA_BUFFER: return sizeof(pmix_data_buffer_t);
	default: return 0;
	}
}

/* A data array of 3 elements of t, built by hand with malloc as a caller
 * compiled against OpenPMIx headers would. */
static pmix_data_array_t *sample_array(pmix_data_type_t t, int depth)
{
	pmix_data_array_t *d = malloc(sizeof(*d));
	int i;

	d->type = t;
	d->size = 3;
	d->array = calloc(3, elem_size(t));
	for (i = 0; i < 3; i++)
		fill_elem((char *)d->array + (size_t)i * elem_size(t), t, i, depth);
	return d;
}

/* Boxed sample structs, hand-built with malloc/strdup. */
static void *sample_struct(pmix_data_type_t t)
{
	switch (t) {
	case PMIX_PROC_INFO: {
		pmix_proc_info_t *p = calloc(1, sizeof(*p));
		PMIx_Load_procid(&p->proc, "job", 3);
		p->hostname = strdup("node1");
		p->executable_name = strdup("/bin/true");
		p->pid = 42;
		p->state = PMIX_PROC_STATE_RUNNING;
		return p;
	}
	case PMIX_COORD: {
		pmix_coord_t *c = PMIx_Coord_create(3, 1);
		c->coord[0] = 1, c->coord[1] = 2, c->coord[2] = 3;
		c->view = PMIX_COORD_LOGICAL_VIEW;
		return c;
	}
	case PMIX_REGATTR: {
		pmix_regattr_t *r = calloc(1, sizeof(*r));
		PMIx_Regattr_load(r, "PMIX_JOB_SIZE", "pmix.job.size", PMIX_UINT32, "job size");
		return r;
	}
	case PMIX_PROC_CPUSET: {
		pmix_cpuset_t *c = calloc(1, sizeof(*c));
		c->source = strdup("hwloc");
		c->bitmap = hwloc_bitmap_alloc();
		hwloc_bitmap_set_range(c->bitmap, 0, 3);
		return c;
	}
	case PMIX_TOPO: {
		pmix_topology_t *tp = calloc(1, sizeof(*tp));
		tp->source = strdup("hwloc");
		hwloc_topology_dup((hwloc_topology_t *)&tp->topology, test_topo);
		return tp;
	}
	case PMIX_GEOMETRY: {
		pmix_geometry_t *g = calloc(1, sizeof(*g));
		g->fabric = 1;
		g->uuid = strdup("uuid-1");
		g->osname = strdup("eth0");
		g->coordinates = PMIx_Coord_create(2, 2);
		g->ncoords = 2;
		g->coordinates[1].coord[1] = 9;
		return g;
	}
	case PMIX_DEVICE_DIST: {
		pmix_device_distance_t *d = PMIx_Device_distance_create(1);
		d->uuid = strdup("gpu-uuid");
		d->osname = strdup("card0");
		d->type = PMIX_DEVTYPE_GPU;
		d->mindist = 1;
		return d;
	}
	case PMIX_ENDPOINT: {
		pmix_endpoint_t *e = calloc(1, sizeof(*e));
		e->uuid = strdup("ep");
		e->endpt.bytes = strdup("addr");
		e->endpt.size = 5;
		return e;
	}
	case PMIX_PROC_STATS: {
		pmix_proc_stats_t *p = calloc(1, sizeof(*p));
		p->node = strdup("node1");
		p->cmd = strdup("a.out");
		p->pid = 7;
		p->rss = 1.5f;
		return p;
	}
	case PMIX_DISK_STATS: {
		pmix_disk_stats_t *d = calloc(1, sizeof(*d));
		d->disk = strdup("sda");
		d->num_reads_completed = 11;
		return d;
	}
	case PMIX_NET_STATS: {
		pmix_net_stats_t *n = calloc(1, sizeof(*n));
		n->net_interface = strdup("lo");
		n->num_bytes_sent = 99;
		return n;
	}
	case PMIX_NODE_STATS: {
		pmix_node_stats_t *n = calloc(1, sizeof(*n));
		n->node = strdup("node1");
		n->diskstats = sample_struct(PMIX_DISK_STATS);
		n->ndiskstats = 1;
		n->netstats = sample_struct(PMIX_NET_STATS);
		n->nnetstats = 1;
		return n;
	}
	case PMIX_DATA_BUFFER: {
		pmix_data_buffer_t *b = PMIx_Data_buffer_create();
		PMIx_Data_buffer_load(b, strdup("payload"), 8);
		return b;
	}
	case PMIX_APP: {
		pmix_app_t *a = PMIx_App_create(1);
		a->cmd = strdup("hostname");
		PMIx_Argv_append_nosize(&a->argv, "hostname");
		PMIx_Argv_append_nosize(&a->env, "A=B");
		a->cwd = strdup("/tmp");
		a->maxprocs = 2;
		PMIx_App_info_create(a, 1);
		fill_info(&a->info[0], "appinfo", 1);
		return a;
	}
	case PMIX_PDATA: {
		pmix_pdata_t *p = PMIx_Pdata_create(1);
		PMIx_Load_procid(&p->proc, "job", 1);
		PMIx_Load_key(p->key, "published");
		PMIx_Value_load(&p->value, "port", PMIX_STRING);
		return p;
	}
	case PMIX_QUERY: {
		pmix_query_t *q = PMIx_Query_create(1);
		PMIx_Argv_append_nosize(&q->keys, "pmix.qry.ns");
		PMIx_Query_qualifiers_create(q, 1);
		fill_info(&q->qualifiers[0], "qual", 0);
		return q;
	}
	default: return NULL;
	}
}

static void load_sample(pmix_value_t *v, pmix_data_type_t t, int depth)
{
	PMIx_Value_construct(v);
	v->type = t;
	switch (t) {
	case PMIX_BOOL: v->data.flag = true; break;
	case PMIX_STRING: v->data.string = strdup("hello"); break;
	case PMIX_DOUBLE: v->data.dval = 2.5; break;
	case PMIX_FLOAT: v->data.fval = 1.25f; break;
	case PMIX_TIMEVAL:
		v->data.tv.tv_sec = 5;
		v->data.tv.tv_usec = 6;
		break;
	case PMIX_POINTER: v->data.ptr = v; break;
	case PMIX_PROC:
		v->data.proc = PMIx_Proc_create(1);
		PMIx_Load_procid(v->data.proc, "nsp", 4);
		break;
	case PMIX_PROC_NSPACE:
		v->data.nspace = calloc(1, sizeof(pmix_nspace_t));
		PMIx_Load_nspace(*v->data.nspace, "the-nspace");
		break;
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT:
	case PMIX_REGEX:
		v->data.bo.bytes = malloc(4);
		memcpy(v->data.bo.bytes, "\0\1\2\3", 4);
		v->data.bo.size = 4;
		break;
	case PMIX_ENVAR: PMIx_Envar_load(&v->data.envar, "PATH", "/bin", ':'); break;
	case PMIX_DATA_ARRAY:
		v->data.darray = sample_array(depth > 0 ? PMIX_INFO : PMIX_STRING, depth);
		break;
	default:
		if (t == PMIX_PROC_INFO || t == PMIX_COORD || t == PMIX_REGATTR ||
		    t == PMIX_PROC_CPUSET || t == PMIX_TOPO || t == PMIX_GEOMETRY ||
		    t == PMIX_DEVICE_DIST || t == PMIX_ENDPOINT || t == PMIX_PROC_STATS ||
		    t == PMIX_DISK_STATS || t == PMIX_NET_STATS || t == PMIX_NODE_STATS ||
		    t == PMIX_DATA_BUFFER || t == PMIX_APP || t == PMIX_PDATA || t == PMIX_QUERY)
			v->data.ptr = sample_struct(t);
		else
			v->data.uint64 = 0x1122334455667788ULL; /* scalars */
		break;
	}
}

static void setup(void)
{
	hwloc_topology_init(&test_topo);
	hwloc_topology_set_flags(test_topo, 0);
	hwloc_topology_load(test_topo);
}

static void teardown(void)
{
	hwloc_topology_destroy(test_topo);
}

/* ---- values ---- */

START_TEST(value_xfer_every_type)
{
	size_t i;

	for (i = 0; i < NTYPES; i++) {
		pmix_value_t a, b;
		pmix_data_type_t t = all_types[i];

		load_sample(&a, t, 2);
		ck_assert_int_eq(PMIx_Value_xfer(&b, &a), PMIX_SUCCESS);
		ck_assert_int_eq(b.type, t);
		if (t != PMIX_TOPO)
			ck_assert_msg(PMIx_Value_compare(&a, &b) == PMIX_EQUAL,
				      "type %s copy differs", PMIx_Data_type_string(t));
		if (t != PMIX_POINTER && t != PMIX_TOPO && t != PMIX_PROC_CPUSET)
			ck_assert_ptr_ne(pxc_test_payload(&a), pxc_test_payload(&b));
		PMIx_Value_destruct(&a);
		ck_assert_int_eq(a.type, PMIX_UNDEF);
		/* the copy survives the original */
		char *s = PMIx_Value_string(&b);
		ck_assert_ptr_nonnull(s);
		ck_assert_ptr_nonnull(strstr(s, PMIx_Data_type_string(t)));
		free(s);
		PMIx_Value_destruct(&b);
	}
}
END_TEST

START_TEST(darray_of_every_type)
{
	size_t i;

	for (i = 0; i < NARRAYTYPES; i++) {
		pmix_value_t a, b;

		PMIx_Value_construct(&a);
		a.type = PMIX_DATA_ARRAY;
		a.data.darray = sample_array(array_types[i], 2);
		ck_assert_int_eq(PMIx_Value_xfer(&b, &a), PMIX_SUCCESS);
		ck_assert_int_eq(b.data.darray->type, array_types[i]);
		ck_assert_int_eq(b.data.darray->size, 3);
		if (array_types[i] != PMIX_TOPO)
			ck_assert_msg(PMIx_Value_compare(&a, &b) == PMIX_EQUAL, "array of %s",
				      PMIx_Data_type_string(array_types[i]));
		PMIx_Value_destruct(&a);
		PMIx_Value_destruct(&b);
	}
}
END_TEST

START_TEST(nested_arrays_deep_copy)
{
	pmix_value_t a, b;
	pmix_info_t *outer, *inner;
	pmix_data_array_t *d;

	load_sample(&a, PMIX_DATA_ARRAY, 3); /* infos of arrays of infos of ... */
	ck_assert_int_eq(PMIx_Value_xfer(&b, &a), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_EQUAL);
	/* change a string three levels down in the copy only */
	outer = b.data.darray->array;
	ck_assert_int_eq(outer[1].value.type, PMIX_DATA_ARRAY);
	inner = outer[1].value.data.darray->array;
	ck_assert_int_eq(inner[2].value.type, PMIX_DATA_ARRAY);
	d = inner[2].value.data.darray;
	ck_assert_int_eq(d->type, PMIX_INFO);
	pmix_info_t *leaf = d->array;
	ck_assert_int_eq(leaf[0].value.type, PMIX_DATA_ARRAY);
	char **strs = leaf[0].value.data.darray->array;
	ck_assert_str_eq(strs[0], "elem-0");
	strs[0][0] = 'X';
	ck_assert_int_ne(PMIx_Value_compare(&a, &b), PMIX_EQUAL);
	PMIx_Value_destruct(&a);
	PMIx_Value_destruct(&b);
}
END_TEST

START_TEST(value_load_semantics)
{
	pmix_value_t v;
	pmix_data_array_t d;
	pmix_proc_t p;
	char buf[] = "abc";
	int x = 5;

	ck_assert_int_eq(PMIx_Value_load(&v, NULL, PMIX_BOOL), PMIX_SUCCESS);
	ck_assert(v.data.flag);
	ck_assert_int_eq(PMIx_Value_load(&v, buf, PMIX_STRING), PMIX_SUCCESS);
	ck_assert_ptr_ne(v.data.string, buf);
	ck_assert_str_eq(v.data.string, "abc");
	PMIx_Value_destruct(&v);
	ck_assert_int_eq(PMIx_Value_load(&v, &x, PMIX_INT), PMIX_SUCCESS);
	ck_assert_int_eq(v.data.integer, 5);
	PMIx_Load_procid(&p, "ns", 2);
	ck_assert_int_eq(PMIx_Value_load(&v, &p, PMIX_PROC), PMIX_SUCCESS);
	ck_assert(PMIx_Check_procid(v.data.proc, &p));
	PMIx_Value_destruct(&v);
	d.type = PMIX_INT;
	d.size = 1;
	d.array = &x;
	ck_assert_int_eq(PMIx_Value_load(&v, &d, PMIX_DATA_ARRAY), PMIX_SUCCESS);
	ck_assert_ptr_ne(v.data.darray->array, &x);
	ck_assert_int_eq(((int *)v.data.darray->array)[0], 5);
	PMIx_Value_destruct(&v);
	ck_assert_int_eq(PMIx_Value_load(&v, "ns-x", PMIX_PROC_NSPACE), PMIX_SUCCESS);
	ck_assert_str_eq(*v.data.nspace, "ns-x");
	PMIx_Value_destruct(&v);
	ck_assert_int_eq(PMIx_Value_load(&v, &x, 4999), PMIX_ERR_UNKNOWN_DATA_TYPE);
	ck_assert_int_eq(PMIx_Value_load(NULL, &x, PMIX_INT), PMIX_ERR_BAD_PARAM);
	PMIx_Value_destruct(NULL);
}
END_TEST

START_TEST(value_compare_order)
{
	pmix_value_t a, b;
	int x = 3, y = 5;
	pmix_proc_t p1, p2;

	PMIx_Value_load(&a, &x, PMIX_INT);
	PMIx_Value_load(&b, &y, PMIX_INT);
	ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE2_GREATER);
	ck_assert_int_eq(PMIx_Value_compare(&b, &a), PMIX_VALUE1_GREATER);
	PMIx_Value_load(&b, &y, PMIX_UINT32);
	ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE_TYPE_DIFFERENT);
	PMIx_Load_procid(&p1, "ns", 1);
	PMIx_Load_procid(&p2, "ns", 2);
	PMIx_Value_load(&a, &p1, PMIX_PROC);
	PMIx_Value_load(&b, &p2, PMIX_PROC);
	ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE2_GREATER);
	PMIx_Value_destruct(&a);
	PMIx_Value_destruct(&b);
	PMIx_Value_load(&a, "abc", PMIX_STRING);
	PMIx_Value_load(&b, "abd", PMIX_STRING);
	ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE2_GREATER);
	PMIx_Value_destruct(&a);
	PMIx_Value_destruct(&b);
	ck_assert_str_eq(PMIx_Value_comparison_string(PMIX_EQUAL), "EQUAL");
}
END_TEST

START_TEST(value_unload_and_copy)
{
	pmix_value_t v;
	void *out = NULL;
	size_t sz = 0;
	int x = 9, got = 0;
	pmix_data_array_t *d;

	PMIx_Value_load(&v, &x, PMIX_INT);
	ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_ERR_BAD_PARAM);
	out = &got;
	ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
	ck_assert_int_eq(got, 9);
	ck_assert_uint_eq(sz, sizeof(int));
	load_sample(&v, PMIX_DATA_ARRAY, 1);
	ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
	d = out;
	ck_assert_int_eq(d->type, PMIX_INFO);
	PMIx_Data_array_free(d);
	PMIx_Value_destruct(&v);
	PMIx_Value_load(&v, "str", PMIX_STRING);
	ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
	ck_assert_str_eq(out, "str");
	free(out);
	PMIx_Value_destruct(&v);

	ck_assert_int_eq(PMIx_Data_copy(&out, "copy", PMIX_STRING), PMIX_SUCCESS);
	ck_assert_str_eq(out, "copy");
	free(out);
	load_sample(&v, PMIX_APP, 1);
	ck_assert_int_eq(PMIx_Data_copy(&out, v.data.ptr, PMIX_APP), PMIX_SUCCESS);
	ck_assert_str_eq(((pmix_app_t *)out)->cmd, "hostname");
	PMIx_App_release(out);
	PMIx_Value_destruct(&v);
	ck_assert_int_eq(PMIx_Data_copy(&out, &x, PMIX_INT), PMIX_SUCCESS);
	ck_assert_int_eq(*(int *)out, 9);
	free(out);
}
END_TEST

START_TEST(value_true_and_size)
{
	pmix_value_t v;
	size_t sz = 0;
	static const char *const yes[] = { "true", "TRUE", "yes", "1", " t", "on" };
	static const char *const no[] = { "false", "No", "0", "off" };
	size_t i;

	PMIx_Value_construct(&v);
	ck_assert_int_eq(PMIx_Value_true(&v), PMIX_BOOL_TRUE);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		PMIx_Value_load(&v, yes[i], PMIX_STRING);
		ck_assert_int_eq(PMIx_Value_true(&v), PMIX_BOOL_TRUE);
		PMIx_Value_destruct(&v);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		PMIx_Value_load(&v, no[i], PMIX_STRING);
		ck_assert_int_eq(PMIx_Value_true(&v), PMIX_BOOL_FALSE);
		PMIx_Value_destruct(&v);
	}
	PMIx_Value_load(&v, "maybe", PMIX_STRING);
	ck_assert_int_eq(PMIx_Value_true(&v), PMIX_NON_BOOL);
	ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
	ck_assert_uint_eq(sz, sizeof(pmix_value_t) + 6);
	PMIx_Value_destruct(&v);
	for (i = 0; i < NTYPES; i++) {
		load_sample(&v, all_types[i], 1);
		ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
		ck_assert_uint_ge(sz, sizeof(pmix_value_t));
		PMIx_Value_destruct(&v);
	}
}
END_TEST

START_TEST(data_print_every_type)
{
	size_t i;
	char *out;

	for (i = 0; i < NTYPES; i++) {
		pmix_value_t v;
		load_sample(&v, all_types[i], 1);
		out = NULL;
		ck_assert_int_eq(PMIx_Data_print(&out, "pfx-",
						 v.type == PMIX_STRING ?
							 v.data.string :
						 v.type == PMIX_POINTER ?
							 v.data.ptr :
							 (void *)(uintptr_t)pxc_test_payload(&v),
						 v.type),
				 PMIX_SUCCESS);
		ck_assert_ptr_nonnull(out);
		ck_assert_int_eq(strncmp(out, "pfx-", 4), 0);
		free(out);
		PMIx_Value_destruct(&v);
	}
}
END_TEST

/* ---- infos ---- */

START_TEST(info_load_and_flags)
{
	pmix_info_t info, copy;
	pmix_info_t *arr;

	info.flags = 0xffffffff;
	ck_assert_int_eq(PMIx_Info_load(&info, "pmix.collect", NULL, PMIX_BOOL), PMIX_SUCCESS);
	ck_assert_int_eq(info.flags, 0);
	ck_assert_int_eq(info.value.type, PMIX_BOOL);
	ck_assert(info.value.data.flag);
	ck_assert_int_eq(PMIx_Info_true(&info), PMIX_BOOL_TRUE);
	PMIx_Info_required(&info);
	ck_assert(PMIx_Info_is_required(&info));
	ck_assert(!PMIx_Info_is_optional(&info));
	PMIx_Info_optional(&info);
	ck_assert(PMIx_Info_is_optional(&info));
	PMIx_Info_processed(&info);
	ck_assert(PMIx_Info_was_processed(&info));
	PMIx_Info_qualifier(&info);
	ck_assert(PMIx_Info_is_qualifier(&info));
	char *s = PMIx_Info_directives_string(info.flags);
	ck_assert_str_eq(s, "QUALIFIER");
	free(s);
	s = PMIx_Info_directives_string(PMIX_INFO_REQD | PMIX_INFO_ARRAY_END);
	ck_assert_str_eq(s, "REQUIRED:END");
	free(s);
	ck_assert_int_eq(PMIx_Info_xfer(&copy, &info), PMIX_SUCCESS);
	ck_assert_str_eq(copy.key, "pmix.collect");
	PMIx_Info_destruct(&copy);
	PMIx_Info_destruct(&info);

	arr = PMIx_Info_create(4);
	ck_assert(!PMIx_Info_is_end(&arr[0]));
	ck_assert(PMIx_Info_is_end(&arr[3]));
	PMIx_Info_load(&arr[0], "k", "v", PMIX_STRING);
	fill_info(&arr[1], "nested", 2);
	s = PMIx_Info_string(&arr[1]);
	ck_assert_ptr_nonnull(strstr(s, "nested"));
	free(s);
	size_t sz;
	ck_assert_int_eq(PMIx_Info_get_size(&arr[0], &sz), PMIX_SUCCESS);
	ck_assert_uint_gt(sz, sizeof(pmix_info_t));
	PMIx_Info_free(arr, 4);
	ck_assert_ptr_null(PMIx_Info_create(0));
}
END_TEST

START_TEST(info_find_and_flag)
{
	pmix_info_t in[6];
	bool t = true, f = false;
	int one = 1, zero = 0;

	PMIx_Info_load(&in[0], "k.bare", NULL, PMIX_UNDEF);
	PMIx_Info_load(&in[1], "k.true", &t, PMIX_BOOL);
	PMIx_Info_load(&in[2], "k.false", &f, PMIX_BOOL);
	PMIx_Info_load(&in[3], "k.one", &one, PMIX_INT);
	PMIx_Info_load(&in[4], "k.zero", &zero, PMIX_INT);
	PMIx_Info_load(&in[5], "k.str", "true", PMIX_STRING);
	ck_assert_ptr_eq(pxc_info_find(in, 6, "k.one"), &in[3]);
	ck_assert_ptr_null(pxc_info_find(in, 6, "k.none"));
	ck_assert_ptr_null(pxc_info_find(NULL, 6, "k.one"));
	ck_assert(pxc_info_flag(in, 6, "k.bare"));
	ck_assert(pxc_info_flag(in, 6, "k.true"));
	ck_assert(!pxc_info_flag(in, 6, "k.false"));
	ck_assert(pxc_info_flag(in, 6, "k.one"));
	ck_assert(!pxc_info_flag(in, 6, "k.zero"));
	ck_assert(pxc_info_flag(in, 6, "k.str"));
	ck_assert(!pxc_info_flag(in, 6, "k.none"));
	ck_assert(!pxc_info_flag(in, 3, "k.one")); /* only the first ninfo */
	for (int i = 0; i < 6; i++)
		PMIx_Info_destruct(&in[i]);
}
END_TEST

START_TEST(info_persistent_not_freed)
{
	pmix_info_t info, copy;
	char *owned = strdup("mine");

	PMIx_Info_construct(&info);
	PMIx_Load_key(info.key, "k");
	info.value.type = PMIX_STRING;
	info.value.data.string = owned;
	PMIx_Info_persistent(&info);
	ck_assert(PMIx_Info_is_persistent(&info));
	PMIx_Info_xfer(&copy, &info);
	ck_assert_ptr_eq(copy.value.data.string, owned);
	PMIx_Info_destruct(&copy);
	PMIx_Info_destruct(&info);
	ck_assert_str_eq(owned, "mine"); /* still valid: valgrind would see it */
	free(owned);
}
END_TEST

/* ---- structs ---- */

START_TEST(struct_helpers)
{
	pmix_data_buffer_t *b = PMIx_Data_buffer_create();
	char *bytes;
	size_t sz;
	pmix_nspace_t t, c, n;
	pmix_proc_t p, q;

	PMIx_Data_buffer_load(b, strdup("0123456789"), 10);
	b->unpack_ptr += 4;
	PMIx_Data_buffer_unload(b, &bytes, &sz);
	ck_assert_uint_eq(sz, 6);
	ck_assert_int_eq(memcmp(bytes, "456789", 6), 0);
	ck_assert_ptr_null(b->base_ptr);
	free(bytes);
	PMIx_Data_buffer_release(b);

	PMIx_Load_nspace(c, "cl");
	PMIx_Load_nspace(n, "job");
	PMIx_Multicluster_nspace_construct(t, c, n);
	ck_assert_str_eq(t, "cl:job");
	PMIx_Multicluster_nspace_parse(t, c, n);
	ck_assert_str_eq(c, "cl");
	ck_assert_str_eq(n, "job");

	PMIx_Load_procid(&p, "ns", PMIX_RANK_WILDCARD);
	PMIx_Xfer_procid(&q, &p);
	q.rank = 3;
	ck_assert(PMIx_Check_procid(&p, &q));
	ck_assert(!PMIx_Check_rank(2, 3));
	ck_assert(PMIx_Check_nspace("", "x"));
	ck_assert(PMIx_Check_reserved_key("pmix.job.size"));
	ck_assert(!PMIx_Check_reserved_key("my.key"));
	ck_assert(PMIx_Nspace_invalid(NULL));
	q.rank = PMIX_RANK_INVALID;
	ck_assert(PMIx_Procid_invalid(&q));
	char *s = PMIx_Proc_string(&p);
	ck_assert_str_eq(s, "ns:PMIX_RANK_WILDCARD");
	free(s);

	pmix_data_array_t *d = PMIx_Data_array_create(2, PMIX_INFO);
	ck_assert(PMIx_Info_is_end(&((pmix_info_t *)d->array)[1]));
	fill_info(&((pmix_info_t *)d->array)[0], "x", 2);
	PMIx_Data_array_free(d);

	/* destructors accept NULL */
	PMIx_App_free(NULL, 3);
	PMIx_Query_release(NULL);
	PMIx_Topology_destruct(NULL);
	PMIx_Cpuset_destruct(NULL);
	PMIx_Data_array_destruct(NULL);
	PMIx_Info_destruct(NULL);
	PMIx_Node_stats_free(NULL, 2);
	pmix_fabric_t f;
	PMIx_Fabric_construct(&f);
	ck_assert_ptr_null(f.name);
}
END_TEST

/* ---- argv ---- */

START_TEST(argv_helpers)
{
	char **a = NULL, **c, *j;
	char **env = NULL;

	ck_assert_int_eq(PMIx_Argv_append_nosize(&a, "b"), PMIX_SUCCESS);
	PMIx_Argv_prepend_nosize(&a, "a");
	PMIx_Argv_append_unique_nosize(&a, "b");
	PMIx_Argv_append_unique_nosize(&a, "c");
	ck_assert_int_eq(PMIx_Argv_count(a), 3);
	j = PMIx_Argv_join(a, ',');
	ck_assert_str_eq(j, "a,b,c");
	free(j);
	c = PMIx_Argv_copy(a);
	PMIx_Argv_free(a);
	ck_assert_str_eq(c[2], "c");
	PMIx_Argv_free(c);
	a = PMIx_Argv_split("x,,y,", ',');
	ck_assert_int_eq(PMIx_Argv_count(a), 2);
	PMIx_Argv_free(a);
	a = PMIx_Argv_split_with_empty("x,,y", ',');
	ck_assert_int_eq(PMIx_Argv_count(a), 3);
	ck_assert_str_eq(a[1], "");
	PMIx_Argv_free(a);
	ck_assert_ptr_null(PMIx_Argv_split(NULL, ','));
	j = PMIx_Argv_join(NULL, ',');
	ck_assert_str_eq(j, "");
	free(j);
	ck_assert_int_eq(PMIx_Setenv("A", "1", true, &env), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Setenv("A", "2", false, &env), PMIX_EXISTS);
	ck_assert_int_eq(PMIx_Setenv("A", "3", true, &env), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Setenv("B", "4", true, &env), PMIX_SUCCESS);
	ck_assert_str_eq(env[0], "A=3");
	ck_assert_str_eq(env[1], "B=4");
	ck_assert_int_eq(PMIx_Setenv("bad=name", "x", true, &env), PMIX_ERR_BAD_PARAM);
	PMIx_Argv_free(env);
	ck_assert_int_eq(PMIx_Argv_append_nosize(NULL, "x"), PMIX_ERR_BAD_PARAM);
}
END_TEST

/* The lower-case v4.1 symbols are exported and forward correctly. */

START_TEST(legacy_symbols)
{
	char **a = NULL;
	pmix_value_t v;
	int x = 4;

	ck_assert_int_eq(pmix_argv_append_nosize(&a, "q"), PMIX_SUCCESS);
	ck_assert_int_eq(pmix_argv_count(a), 1);
	pmix_argv_free(a);
	pmix_value_load(&v, &x, PMIX_INT);
	ck_assert_int_eq(v.data.integer, 4);
}
END_TEST

/* ---- info lists ---- */

START_TEST(info_lists)
{
	void *l = PMIx_Info_list_start(), *cur, *next;
	pmix_data_array_t d;
	pmix_info_t *info, ext;
	pmix_value_t v;
	uint32_t u = 7;
	int n = 0;

	ck_assert_int_eq(PMIx_Info_list_convert(l, &d), PMIX_ERR_EMPTY);
	PMIx_Info_list_add(l, "b", &u, PMIX_UINT32);
	PMIx_Info_list_prepend(l, "a", "first", PMIX_STRING);
	PMIx_Info_list_add_unique(l, "b", "ignored", PMIX_STRING, false);
	PMIx_Value_load(&v, "value", PMIX_STRING);
	PMIx_Info_list_add_value(l, "c", &v);
	PMIx_Info_list_add_value_unique(l, "c", &v, true);
	PMIx_Value_destruct(&v);
	PMIx_Info_load(&ext, "d", NULL, PMIX_BOOL);
	PMIx_Info_list_xfer(l, &ext);
	PMIx_Info_list_xfer_unique(l, &ext, false);
	PMIx_Info_list_insert(l, &ext); /* shallow, persistent */
	ck_assert_int_eq(PMIx_Info_list_convert(l, &d), PMIX_SUCCESS);
	ck_assert_uint_eq(d.size, 5);
	info = d.array;
	ck_assert_str_eq(info[0].key, "a");
	ck_assert_str_eq(info[1].key, "b");
	ck_assert_int_eq(info[1].value.type, PMIX_UINT32);
	ck_assert_str_eq(info[2].key, "c");
	ck_assert(PMIx_Info_is_end(&info[4]));
	PMIx_Data_array_destruct(&d);
	for (cur = NULL; (info = PMIx_Info_list_get_info(l, cur, &next)); cur = next) {
		n++;
		if (!next)
			break;
	}
	ck_assert_int_eq(n, 5);
	PMIx_Info_list_release(l);
	PMIx_Info_destruct(&ext);
	PMIx_Info_list_release(NULL);
}
END_TEST

/* ---- strings ---- */

START_TEST(error_strings)
{
	ck_assert_str_eq(PMIx_Error_string(PMIX_SUCCESS), "SUCCESS");
	ck_assert_str_eq(PMIx_Error_string(PMIX_ERR_NOT_FOUND), "NOT-FOUND");
	ck_assert_str_eq(PMIx_Error_string(PMIX_ERR_BAD_PARAM), "BAD-PARAM");
	ck_assert_str_eq(PMIx_Error_string(-123456), "ERROR STRING NOT FOUND");
	ck_assert_int_eq(PMIx_Error_code("PMIX_ERR_NOT_FOUND"), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(PMIx_Error_code("not-found"), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(PMIx_Error_code("PMIX_SUCCESS"), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Error_code("no such thing"), INT32_MIN);
	ck_assert_int_eq(PMIx_Error_code(NULL), INT32_MIN);
	ck_assert_str_eq(PMIx_Data_type_string(PMIX_DATA_ARRAY), "PMIX_DATA_ARRAY");
	ck_assert_str_eq(PMIx_Data_type_string(0), "NOT INITIALIZED");
	ck_assert_str_eq(PMIx_Proc_state_string(PMIX_PROC_STATE_RUNNING), "PROC EXECUTING");
	ck_assert_str_eq(PMIx_Scope_string(PMIX_GLOBAL), "SHARE ACROSS ALL NODES");
	ck_assert_str_eq(PMIx_Persistence_string(PMIX_PERSIST_FIRST_READ),
			 "DELETE ON FIRST ACCESS");
	ck_assert_str_eq(PMIx_Data_range_string(PMIX_RANGE_SESSION),
			 "AVAIL TO PROCESSES IN SAME ALLOCATION ONLY");
	ck_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
			 "STDOUT STDERR ");
	ck_assert_str_eq(PMIx_Job_state_string(PMIX_JOB_STATE_RUNNING), "RUNNING");
	ck_assert_str_eq(PMIx_Link_state_string(PMIX_LINK_UP), "ACTIVE");
	ck_assert_str_eq(PMIx_Device_type_string(PMIX_DEVTYPE_GPU), "GPU");
	ck_assert_str_eq(PMIx_Alloc_directive_string(PMIX_ALLOC_EXTEND), "EXTEND");
	ck_assert_str_eq(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), "pmix.job.size");
	ck_assert_str_eq(PMIx_Get_attribute_name("pmix.job.size"), "PMIX_JOB_SIZE");
	ck_assert_str_eq(PMIx_Get_attribute_name("unknown"), "unknown");
	pmix_app_t *a = sample_struct(PMIX_APP);
	char *s = PMIx_App_string(a);
	ck_assert_ptr_nonnull(strstr(s, "CMD: hostname"));
	free(s);
	PMIx_App_release(a);
}
END_TEST

static Suite *value_suite(void)
{
	Suite *s = suite_create("value");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, value_xfer_every_type);
	tcase_add_test(tc, darray_of_every_type);
	tcase_add_test(tc, nested_arrays_deep_copy);
	tcase_add_test(tc, value_load_semantics);
	tcase_add_test(tc, value_compare_order);
	tcase_add_test(tc, value_unload_and_copy);
	tcase_add_test(tc, value_true_and_size);
	tcase_add_test(tc, data_print_every_type);
	tcase_add_test(tc, info_load_and_flags);
	tcase_add_test(tc, info_find_and_flag);
	tcase_add_test(tc, info_persistent_not_freed);
	tcase_add_test(tc, struct_helpers);
	tcase_add_test(tc, argv_helpers);
	tcase_add_test(tc, legacy_symbols);
	tcase_add_test(tc, info_lists);
	tcase_add_test(tc, error_strings);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = value_suite });
}
