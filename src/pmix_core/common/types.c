/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * types.c - the per-type table behind values, infos and data arrays.
 *
 * One row per PMIx data type: the size of one element, whether a
 * pmix_value_t boxes it (holds a pointer to one element) and two element
 * operations, destruct and deep copy. Scalars need neither (memcpy and
 * nothing to free). Struct types destruct through the public PMIx_*_destruct
 * functions in structs.c and copy through the static copiers below, which
 * recurse through pxc_elems_copy for nested arrays (infos holding data
 * arrays of infos ...). Copies are all-or-nothing: a copier that fails
 * destructs what it built, so callers never free half a copy.
 *
 * Topologies and cpusets whose source is "hwloc" hold hwloc objects; they
 * are duplicated with hwloc and destroyed in structs.c. Other sources are
 * opaque to us: their pointer is copied as is.
 *
 * PMIX_POINTER elements are copied as pointers and never freed. Types that
 * have no public C form (PMIX_KVAL, PMIX_BUFFER) are unknown here.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <hwloc.h>
#include <pmix.h>

#include "types.h"

typedef void (*elem_destruct_f)(void *elem);
typedef pmix_status_t (*elem_copy_f)(void *dst, const void *src);

struct type_row {
	size_t size;
	bool boxed;
	elem_destruct_f destruct;
	elem_copy_f copy;
};

static char *dupstr(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static pmix_status_t copy_bytes(char **dst, const char *src, size_t n)
{
	*dst = NULL;
	if (!src || !n)
		return PMIX_SUCCESS;
	*dst = malloc(n);
	if (!*dst)
		return PMIX_ERR_NOMEM;
	memcpy(*dst, src, n);
	return PMIX_SUCCESS;
}

static pmix_status_t copy_argv(char ***dst, char **src)
{
	*dst = NULL;
	if (!src)
		return PMIX_SUCCESS;
	*dst = PMIx_Argv_copy(src);
	return *dst ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

/* Copies an array of n elements into a freshly allocated array. */
static pmix_status_t copy_array(void **dst, const void *src, size_t n, pmix_data_type_t type)
{
	pmix_status_t rc;

	*dst = NULL;
	if (!src || !n)
		return PMIX_SUCCESS;
	*dst = pxc_elems_alloc(n, type);
	if (!*dst)
		return PMIX_ERR_NOMEM;
	rc = pxc_elems_copy(*dst, src, n, type);
	if (rc != PMIX_SUCCESS) {
		free(*dst);
		*dst = NULL;
	}
	return rc;
}

/* ---- destructors for element types that have no public destructor ---- */

static void string_destruct(void *e)
{
	free(*(char **)e);
	*(char **)e = NULL;
}
static void value_destruct(void *e)
{
	PMIx_Value_destruct(e);
}
static void info_destruct(void *e)
{
	PMIx_Info_destruct(e);
}
static void pdata_destruct(void *e)
{
	PMIx_Pdata_destruct(e);
}
static void app_destruct(void *e)
{
	PMIx_App_destruct(e);
}
static void query_destruct(void *e)
{
	PMIx_Query_destruct(e);
}
static void pinfo_destruct(void *e)
{
	PMIx_Proc_info_destruct(e);
}
static void darray_destruct(void *e)
{
	PMIx_Data_array_destruct(e);
}
static void bo_destruct(void *e)
{
	PMIx_Byte_object_destruct(e);
}
static void envar_destruct(void *e)
{
	PMIx_Envar_destruct(e);
}
static void coord_destruct(void *e)
{
	PMIx_Coord_destruct(e);
}
static void regattr_destruct(void *e)
{
	PMIx_Regattr_destruct(e);
}
static void topo_destruct(void *e)
{
	PMIx_Topology_destruct(e);
}
static void cpuset_destruct(void *e)
{
	PMIx_Cpuset_destruct(e);
}
static void geometry_destruct(void *e)
{
	PMIx_Geometry_destruct(e);
}
static void devdist_destruct(void *e)
{
	PMIx_Device_distance_destruct(e);
}
static void endpoint_destruct(void *e)
{
	PMIx_Endpoint_destruct(e);
}
static void dbuf_destruct(void *e)
{
	PMIx_Data_buffer_destruct(e);
}
static void pstats_destruct(void *e)
{
	PMIx_Proc_stats_destruct(e);
}
static void dkstats_destruct(void *e)
{
	PMIx_Disk_stats_destruct(e);
}
static void netstats_destruct(void *e)
{
	PMIx_Net_stats_destruct(e);
}
static void ndstats_destruct(void *e)
{
	PMIx_Node_stats_destruct(e);
}

/* ---- deep copiers; each leaves dst empty on failure ---- */

static pmix_status_t string_copy(void *dst, const void *src)
{
	bool fail = false;

	*(char **)dst = dupstr(*(char *const *)src, &fail);
	return fail ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t value_copy(void *dst, const void *src)
{
	return PMIx_Value_xfer(dst, src);
}

static pmix_status_t info_copy(void *dst, const void *src)
{
	return PMIx_Info_xfer(dst, src);
}

static pmix_status_t pdata_copy(void *dst, const void *src)
{
	const pmix_pdata_t *s = src;
	pmix_pdata_t *d = dst;

	memcpy(&d->proc, &s->proc, sizeof(d->proc));
	memcpy(d->key, s->key, sizeof(d->key));
	return PMIx_Value_xfer(&d->value, &s->value);
}

static pmix_status_t app_copy(void *dst, const void *src)
{
	const pmix_app_t *s = src;
	pmix_app_t *d = dst;
	bool fail = false;

	memset(d, 0, sizeof(*d));
	d->cmd = dupstr(s->cmd, &fail);
	d->cwd = dupstr(s->cwd, &fail);
	d->maxprocs = s->maxprocs;
	if (fail || copy_argv(&d->argv, s->argv) || copy_argv(&d->env, s->env) ||
	    copy_array((void **)&d->info, s->info, s->ninfo, PMIX_INFO)) {
		PMIx_App_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	d->ninfo = d->info ? s->ninfo : 0;
	return PMIX_SUCCESS;
}

static pmix_status_t query_copy(void *dst, const void *src)
{
	const pmix_query_t *s = src;
	pmix_query_t *d = dst;

	memset(d, 0, sizeof(*d));
	if (copy_argv(&d->keys, s->keys) ||
	    copy_array((void **)&d->qualifiers, s->qualifiers, s->nqual, PMIX_INFO)) {
		PMIx_Query_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	d->nqual = d->qualifiers ? s->nqual : 0;
	return PMIX_SUCCESS;
}

static pmix_status_t pinfo_copy(void *dst, const void *src)
{
	const pmix_proc_info_t *s = src;
	pmix_proc_info_t *d = dst;
	bool fail = false;

	*d = *s;
	d->hostname = dupstr(s->hostname, &fail);
	d->executable_name = dupstr(s->executable_name, &fail);
	if (fail) {
		PMIx_Proc_info_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t darray_copy(void *dst, const void *src)
{
	return pxc_darray_copy(dst, src);
}

static pmix_status_t bo_copy(void *dst, const void *src)
{
	const pmix_byte_object_t *s = src;
	pmix_byte_object_t *d = dst;
	pmix_status_t rc = copy_bytes(&d->bytes, s->bytes, s->size);

	d->size = d->bytes ? s->size : 0;
	return rc;
}

static pmix_status_t envar_copy(void *dst, const void *src)
{
	const pmix_envar_t *s = src;
	pmix_envar_t *d = dst;
	bool fail = false;

	d->envar = dupstr(s->envar, &fail);
	d->value = dupstr(s->value, &fail);
	d->separator = s->separator;
	if (fail) {
		PMIx_Envar_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t coord_copy(void *dst, const void *src)
{
	const pmix_coord_t *s = src;
	pmix_coord_t *d = dst;

	d->view = s->view;
	d->dims = 0;
	d->coord = NULL;
	if (!s->coord || !s->dims)
		return PMIX_SUCCESS;
	d->coord = calloc(s->dims, sizeof(uint32_t));
	if (!d->coord)
		return PMIX_ERR_NOMEM;
	memcpy(d->coord, s->coord, s->dims * sizeof(uint32_t));
	d->dims = s->dims;
	return PMIX_SUCCESS;
}

static pmix_status_t regattr_copy(void *dst, const void *src)
{
	const pmix_regattr_t *s = src;
	pmix_regattr_t *d = dst;
	bool fail = false;

	memset(d, 0, sizeof(*d));
	d->name = dupstr(s->name, &fail);
	memcpy(d->string, s->string, sizeof(d->string));
	d->type = s->type;
	if (fail || copy_argv(&d->description, s->description)) {
		PMIx_Regattr_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static bool is_hwloc(const char *source)
{
	return source && 0 == strncasecmp(source, "hwloc", 5);
}

static pmix_status_t topo_copy(void *dst, const void *src)
{
	const pmix_topology_t *s = src;
	pmix_topology_t *d = dst;
	bool fail = false;

	d->source = dupstr(s->source, &fail);
	d->topology = s->topology;
	if (!fail && is_hwloc(s->source) && s->topology &&
	    hwloc_topology_dup((hwloc_topology_t *)&d->topology, s->topology) != 0)
		fail = true;
	if (fail) {
		free(d->source);
		d->source = NULL;
		d->topology = NULL;
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t cpuset_copy(void *dst, const void *src)
{
	const pmix_cpuset_t *s = src;
	pmix_cpuset_t *d = dst;
	bool fail = false;

	d->source = dupstr(s->source, &fail);
	d->bitmap = s->bitmap;
	if (!fail && is_hwloc(s->source) && s->bitmap) {
		d->bitmap = hwloc_bitmap_dup(s->bitmap);
		fail = !d->bitmap;
	}
	if (fail) {
		free(d->source);
		d->source = NULL;
		d->bitmap = NULL;
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t geometry_copy(void *dst, const void *src)
{
	const pmix_geometry_t *s = src;
	pmix_geometry_t *d = dst;
	bool fail = false;

	memset(d, 0, sizeof(*d));
	d->fabric = s->fabric;
	d->uuid = dupstr(s->uuid, &fail);
	d->osname = dupstr(s->osname, &fail);
	if (fail || copy_array((void **)&d->coordinates, s->coordinates, s->ncoords, PMIX_COORD)) {
		PMIx_Geometry_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	d->ncoords = d->coordinates ? s->ncoords : 0;
	return PMIX_SUCCESS;
}

static pmix_status_t devdist_copy(void *dst, const void *src)
{
	const pmix_device_distance_t *s = src;
	pmix_device_distance_t *d = dst;
	bool fail = false;

	*d = *s;
	d->uuid = dupstr(s->uuid, &fail);
	d->osname = dupstr(s->osname, &fail);
	if (fail) {
		PMIx_Device_distance_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t endpoint_copy(void *dst, const void *src)
{
	const pmix_endpoint_t *s = src;
	pmix_endpoint_t *d = dst;
	bool fail = false;

	memset(d, 0, sizeof(*d));
	d->uuid = dupstr(s->uuid, &fail);
	d->osname = dupstr(s->osname, &fail);
	if (fail || bo_copy(&d->endpt, &s->endpt)) {
		PMIx_Endpoint_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

/* A data buffer copy keeps the read and write positions. */
static pmix_status_t dbuf_copy(void *dst, const void *src)
{
	const pmix_data_buffer_t *s = src;
	pmix_data_buffer_t *d = dst;

	memset(d, 0, sizeof(*d));
	if (!s->base_ptr || !s->bytes_allocated)
		return PMIX_SUCCESS;
	d->base_ptr = malloc(s->bytes_allocated);
	if (!d->base_ptr)
		return PMIX_ERR_NOMEM;
	memcpy(d->base_ptr, s->base_ptr, s->bytes_used);
	d->bytes_allocated = s->bytes_allocated;
	d->bytes_used = s->bytes_used;
	d->pack_ptr = s->pack_ptr ? d->base_ptr + (s->pack_ptr - s->base_ptr) : NULL;
	d->unpack_ptr = s->unpack_ptr ? d->base_ptr + (s->unpack_ptr - s->base_ptr) : NULL;
	return PMIX_SUCCESS;
}

static pmix_status_t pstats_copy(void *dst, const void *src)
{
	const pmix_proc_stats_t *s = src;
	pmix_proc_stats_t *d = dst;
	bool fail = false;

	*d = *s;
	d->node = dupstr(s->node, &fail);
	d->cmd = dupstr(s->cmd, &fail);
	if (fail) {
		PMIx_Proc_stats_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t dkstats_copy(void *dst, const void *src)
{
	const pmix_disk_stats_t *s = src;
	pmix_disk_stats_t *d = dst;
	bool fail = false;

	*d = *s;
	d->disk = dupstr(s->disk, &fail);
	return fail ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t netstats_copy(void *dst, const void *src)
{
	const pmix_net_stats_t *s = src;
	pmix_net_stats_t *d = dst;
	bool fail = false;

	*d = *s;
	d->net_interface = dupstr(s->net_interface, &fail);
	return fail ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t ndstats_copy(void *dst, const void *src)
{
	const pmix_node_stats_t *s = src;
	pmix_node_stats_t *d = dst;
	bool fail = false;

	*d = *s;
	d->diskstats = NULL;
	d->netstats = NULL;
	d->ndiskstats = d->nnetstats = 0;
	d->node = dupstr(s->node, &fail);
	if (fail ||
	    copy_array((void **)&d->diskstats, s->diskstats, s->ndiskstats, PMIX_DISK_STATS) ||
	    copy_array((void **)&d->netstats, s->netstats, s->nnetstats, PMIX_NET_STATS)) {
		PMIx_Node_stats_destruct(d);
		return PMIX_ERR_NOMEM;
	}
	d->ndiskstats = d->diskstats ? s->ndiskstats : 0;
	d->nnetstats = d->netstats ? s->nnetstats : 0;
	return PMIX_SUCCESS;
}

/* clang-format: a table of initializer macros */
/* clang-format off */
#define SCALAR(t) { sizeof(t), false, NULL, NULL }
#define INLINE(t, pfx) { sizeof(t), false, pfx##_destruct, pfx##_copy }
#define BOXED(t, pfx) { sizeof(t), true, pfx##_destruct, pfx##_copy }

static const struct type_row rows[] = {
	[PMIX_BOOL] = SCALAR(bool),
	[PMIX_BYTE] = SCALAR(uint8_t),
	[PMIX_STRING] = INLINE(char *, string),
	[PMIX_SIZE] = SCALAR(size_t),
	[PMIX_PID] = SCALAR(pid_t),
	[PMIX_INT] = SCALAR(int),
	[PMIX_INT8] = SCALAR(int8_t),
	[PMIX_INT16] = SCALAR(int16_t),
	[PMIX_INT32] = SCALAR(int32_t),
	[PMIX_INT64] = SCALAR(int64_t),
	[PMIX_UINT] = SCALAR(unsigned int),
	[PMIX_UINT8] = SCALAR(uint8_t),
	[PMIX_UINT16] = SCALAR(uint16_t),
	[PMIX_UINT32] = SCALAR(uint32_t),
	[PMIX_UINT64] = SCALAR(uint64_t),
	[PMIX_FLOAT] = SCALAR(float),
	[PMIX_DOUBLE] = SCALAR(double),
	[PMIX_TIMEVAL] = SCALAR(struct timeval),
	[PMIX_TIME] = SCALAR(time_t),
	[PMIX_STATUS] = SCALAR(pmix_status_t),
	[PMIX_VALUE] = BOXED(pmix_value_t, value),
	[PMIX_PROC] = { sizeof(pmix_proc_t), true, NULL, NULL },
	[PMIX_APP] = BOXED(pmix_app_t, app),
	[PMIX_INFO] = BOXED(pmix_info_t, info),
	[PMIX_PDATA] = BOXED(pmix_pdata_t, pdata),
	[PMIX_BYTE_OBJECT] = INLINE(pmix_byte_object_t, bo),
	[PMIX_PERSIST] = SCALAR(pmix_persistence_t),
	[PMIX_POINTER] = SCALAR(void *),
	[PMIX_SCOPE] = SCALAR(pmix_scope_t),
	[PMIX_DATA_RANGE] = SCALAR(pmix_data_range_t),
	[PMIX_COMMAND] = SCALAR(uint8_t),
	[PMIX_INFO_DIRECTIVES] = SCALAR(pmix_info_directives_t),
	[PMIX_DATA_TYPE] = SCALAR(pmix_data_type_t),
	[PMIX_PROC_STATE] = SCALAR(pmix_proc_state_t),
	[PMIX_PROC_INFO] = BOXED(pmix_proc_info_t, pinfo),
	[PMIX_DATA_ARRAY] = BOXED(pmix_data_array_t, darray),
	[PMIX_PROC_RANK] = SCALAR(pmix_rank_t),
	[PMIX_QUERY] = BOXED(pmix_query_t, query),
	[PMIX_COMPRESSED_STRING] = INLINE(pmix_byte_object_t, bo),
	[PMIX_ALLOC_DIRECTIVE] = SCALAR(pmix_alloc_directive_t),
	[PMIX_IOF_CHANNEL] = SCALAR(pmix_iof_channel_t),
	[PMIX_ENVAR] = INLINE(pmix_envar_t, envar),
	[PMIX_COORD] = BOXED(pmix_coord_t, coord),
	[PMIX_REGATTR] = BOXED(pmix_regattr_t, regattr),
	[PMIX_REGEX] = INLINE(pmix_byte_object_t, bo),
	[PMIX_JOB_STATE] = SCALAR(pmix_job_state_t),
	[PMIX_LINK_STATE] = SCALAR(pmix_link_state_t),
	[PMIX_PROC_CPUSET] = BOXED(pmix_cpuset_t, cpuset),
	[PMIX_GEOMETRY] = BOXED(pmix_geometry_t, geometry),
	[PMIX_DEVICE_DIST] = BOXED(pmix_device_distance_t, devdist),
	[PMIX_ENDPOINT] = BOXED(pmix_endpoint_t, endpoint),
	[PMIX_TOPO] = BOXED(pmix_topology_t, topo),
	[PMIX_DEVTYPE] = SCALAR(pmix_device_type_t),
	[PMIX_LOCTYPE] = SCALAR(pmix_locality_t),
	[PMIX_COMPRESSED_BYTE_OBJECT] = INLINE(pmix_byte_object_t, bo),
	[PMIX_PROC_NSPACE] = { sizeof(pmix_nspace_t), true, NULL, NULL },
	[PMIX_PROC_STATS] = BOXED(pmix_proc_stats_t, pstats),
	[PMIX_DISK_STATS] = BOXED(pmix_disk_stats_t, dkstats),
	[PMIX_NET_STATS] = BOXED(pmix_net_stats_t, netstats),
	[PMIX_NODE_STATS] = BOXED(pmix_node_stats_t, ndstats),
	[PMIX_DATA_BUFFER] = BOXED(pmix_data_buffer_t, dbuf),
	[PMIX_STOR_MEDIUM] = SCALAR(uint64_t),
	[PMIX_STOR_ACCESS] = SCALAR(uint64_t),
	[PMIX_STOR_PERSIST] = SCALAR(uint64_t),
	[PMIX_STOR_ACCESS_TYPE] = SCALAR(uint16_t),
};
/* clang-format on */

static const struct type_row *row(pmix_data_type_t type)
{
	if (type >= sizeof(rows) / sizeof(rows[0]) || rows[type].size == 0)
		return NULL;
	return &rows[type];
}

size_t pxc_type_size(pmix_data_type_t type)
{
	const struct type_row *r = row(type);

	return r ? r->size : 0;
}

bool pxc_type_boxed(pmix_data_type_t type)
{
	const struct type_row *r = row(type);

	return r && r->boxed;
}

void *pxc_elems_alloc(size_t n, pmix_data_type_t type)
{
	size_t sz = pxc_type_size(type);

	if (!n || !sz)
		return NULL;
	return calloc(n, sz);
}

void pxc_elems_destruct(void *array, size_t n, pmix_data_type_t type)
{
	const struct type_row *r = row(type);
	size_t i;

	if (!array || !r || !r->destruct)
		return;
	for (i = 0; i < n; i++)
		r->destruct((char *)array + i * r->size);
}

pmix_status_t pxc_elems_copy(void *dst, const void *src, size_t n, pmix_data_type_t type)
{
	const struct type_row *r = row(type);
	pmix_status_t rc;
	size_t i;

	if (!r)
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	if (!n)
		return PMIX_SUCCESS;
	if (!dst || !src)
		return PMIX_ERR_BAD_PARAM;
	if (!r->copy) {
		memcpy(dst, src, n * r->size);
		return PMIX_SUCCESS;
	}
	memset(dst, 0, n * r->size);
	for (i = 0; i < n; i++) {
		rc = r->copy((char *)dst + i * r->size, (const char *)src + i * r->size);
		if (rc != PMIX_SUCCESS) {
			pxc_elems_destruct(dst, i, type);
			memset(dst, 0, n * r->size);
			return rc;
		}
	}
	return PMIX_SUCCESS;
}

pmix_status_t pxc_darray_copy(pmix_data_array_t *dst, const pmix_data_array_t *src)
{
	pmix_status_t rc;

	dst->type = src->type;
	dst->size = 0;
	dst->array = NULL;
	if (!src->size || !src->array)
		return PMIX_SUCCESS;
	if (!pxc_type_size(src->type))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	rc = copy_array(&dst->array, src->array, src->size, src->type);
	if (rc == PMIX_SUCCESS)
		dst->size = src->size;
	return rc;
}

const void *pxc_value_elem(const pmix_value_t *v)
{
	if (pxc_type_boxed(v->type))
		return v->data.ptr;
	return &v->data;
}
