/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * structs.c - construct/create/destruct/free/load for the public PMIx
 * structs (apps, queries, pdata, proc info, byte objects, data arrays,
 * envars, coords, topologies, cpusets, geometries, device distances,
 * endpoints, registered attributes, data buffers, statistics, fabrics).
 *
 * Conventions, the same for every struct:
 *  - construct zeroes (plus the documented non-zero defaults: rank-less
 *    pdata values are PMIX_UNDEF, device distances start at UINT16_MAX);
 *  - create(n) returns a calloc'ed array of n constructed structs, NULL for
 *    n == 0;
 *  - destruct frees what the struct points to and leaves it constructed;
 *  - free(p, n) destructs n elements and frees the array itself (the
 *    4.2.3+ macros rely on that; they only reset the caller's pointer);
 *  - all are NULL-tolerant.
 * Topologies and cpusets from source "hwloc" own hwloc objects and are
 * released with hwloc; other sources are opaque and only the source string
 * is freed.
 *
 * Thread safety: none needed.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hwloc.h>
#include <pmix.h>

#include "types.h"

#define ZERO_CONSTRUCT(Name, T)                   \
	void PMIx_##Name##_construct(T *p)        \
	{                                         \
		if (p)                            \
			memset(p, 0, sizeof(*p)); \
	}

/* create() and free() for structs whose construct is all zeroes. */
#define CREATE_FREE(Name, T)                            \
	T *PMIx_##Name##_create(size_t n)               \
	{                                               \
		return n ? calloc(n, sizeof(T)) : NULL; \
	}                                               \
	void PMIx_##Name##_free(T *p, size_t n)         \
	{                                               \
		size_t i;                               \
		if (!p)                                 \
			return;                         \
		for (i = 0; i < n; i++)                 \
			PMIx_##Name##_destruct(&p[i]);  \
		free(p);                                \
	}

static void free_str(char **s)
{
	free(*s);
	*s = NULL;
}

/* ---- pdata ---- */
ZERO_CONSTRUCT(Pdata, pmix_pdata_t)
CREATE_FREE(Pdata, pmix_pdata_t)

void PMIx_Pdata_destruct(pmix_pdata_t *p)
{
	if (p)
		PMIx_Value_destruct(&p->value);
}

/* ---- app ---- */
ZERO_CONSTRUCT(App, pmix_app_t)
CREATE_FREE(App, pmix_app_t)

void PMIx_App_destruct(pmix_app_t *p)
{
	if (!p)
		return;
	free(p->cmd);
	free(p->cwd);
	PMIx_Argv_free(p->argv);
	PMIx_Argv_free(p->env);
	PMIx_Info_free(p->info, p->ninfo);
	memset(p, 0, sizeof(*p));
}

void PMIx_App_info_create(pmix_app_t *p, size_t n)
{
	if (!p)
		return;
	p->info = PMIx_Info_create(n);
	p->ninfo = p->info ? n : 0;
}

void PMIx_App_release(pmix_app_t *p)
{
	PMIx_App_free(p, 1);
}

/* ---- query ---- */
ZERO_CONSTRUCT(Query, pmix_query_t)
CREATE_FREE(Query, pmix_query_t)

void PMIx_Query_destruct(pmix_query_t *p)
{
	if (!p)
		return;
	PMIx_Argv_free(p->keys);
	PMIx_Info_free(p->qualifiers, p->nqual);
	memset(p, 0, sizeof(*p));
}

void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n)
{
	if (!p)
		return;
	p->qualifiers = PMIx_Info_create(n);
	p->nqual = p->qualifiers ? n : 0;
}

void PMIx_Query_release(pmix_query_t *p)
{
	PMIx_Query_free(p, 1);
}

/* ---- proc info ---- */
ZERO_CONSTRUCT(Proc_info, pmix_proc_info_t)
CREATE_FREE(Proc_info, pmix_proc_info_t)

void PMIx_Proc_info_destruct(pmix_proc_info_t *p)
{
	if (!p)
		return;
	free(p->hostname);
	free(p->executable_name);
	memset(p, 0, sizeof(*p));
}

/* ---- byte object ---- */
ZERO_CONSTRUCT(Byte_object, pmix_byte_object_t)
CREATE_FREE(Byte_object, pmix_byte_object_t)

void PMIx_Byte_object_destruct(pmix_byte_object_t *b)
{
	if (!b)
		return;
	free_str(&b->bytes);
	b->size = 0;
}

/* Takes ownership of d (malloc'ed by the caller). */
void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz)
{
	if (!b)
		return;
	b->bytes = d;
	b->size = d ? sz : 0;
}

/* ---- envar ---- */
ZERO_CONSTRUCT(Envar, pmix_envar_t)
CREATE_FREE(Envar, pmix_envar_t)

void PMIx_Envar_destruct(pmix_envar_t *e)
{
	if (!e)
		return;
	free_str(&e->envar);
	free_str(&e->value);
	e->separator = '\0';
}

/* Copies var and value. */
void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char separator)
{
	if (!e)
		return;
	e->envar = var ? strdup(var) : NULL;
	e->value = value ? strdup(value) : NULL;
	e->separator = separator;
}

/* ---- coord ---- */
ZERO_CONSTRUCT(Coord, pmix_coord_t)

void PMIx_Coord_destruct(pmix_coord_t *m)
{
	if (!m)
		return;
	free(m->coord);
	memset(m, 0, sizeof(*m));
}

/* number coords, each with room for dims zeroed coordinates. */
pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number)
{
	pmix_coord_t *m;
	size_t i;

	if (!number)
		return NULL;
	m = calloc(number, sizeof(*m));
	for (i = 0; m && dims && i < number; i++) {
		m[i].coord = calloc(dims, sizeof(uint32_t));
		if (!m[i].coord) {
			PMIx_Coord_free(m, i);
			return NULL;
		}
		m[i].dims = dims;
	}
	return m;
}

void PMIx_Coord_free(pmix_coord_t *m, size_t number)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < number; i++)
		PMIx_Coord_destruct(&m[i]);
	free(m);
}

/* ---- topology and cpuset ---- */
static bool from_hwloc(const char *source)
{
	return source && 0 == strncasecmp(source, "hwloc", 5);
}

ZERO_CONSTRUCT(Topology, pmix_topology_t)
CREATE_FREE(Topology, pmix_topology_t)

void PMIx_Topology_destruct(pmix_topology_t *topo)
{
	if (!topo)
		return;
	if (from_hwloc(topo->source) && topo->topology)
		hwloc_topology_destroy(topo->topology);
	free(topo->source);
	memset(topo, 0, sizeof(*topo));
}

ZERO_CONSTRUCT(Cpuset, pmix_cpuset_t)
CREATE_FREE(Cpuset, pmix_cpuset_t)

void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)
{
	if (!cpuset)
		return;
	if (from_hwloc(cpuset->source) && cpuset->bitmap)
		hwloc_bitmap_free(cpuset->bitmap);
	free(cpuset->source);
	memset(cpuset, 0, sizeof(*cpuset));
}

/* ---- geometry, device distance, endpoint ---- */
ZERO_CONSTRUCT(Geometry, pmix_geometry_t)
CREATE_FREE(Geometry, pmix_geometry_t)

void PMIx_Geometry_destruct(pmix_geometry_t *g)
{
	if (!g)
		return;
	free(g->uuid);
	free(g->osname);
	PMIx_Coord_free(g->coordinates, g->ncoords);
	memset(g, 0, sizeof(*g));
}

void PMIx_Device_distance_construct(pmix_device_distance_t *d)
{
	if (!d)
		return;
	memset(d, 0, sizeof(*d));
	d->mindist = UINT16_MAX;
	d->maxdist = UINT16_MAX;
}

void PMIx_Device_distance_destruct(pmix_device_distance_t *d)
{
	if (!d)
		return;
	free(d->uuid);
	free(d->osname);
	PMIx_Device_distance_construct(d);
}

pmix_device_distance_t *PMIx_Device_distance_create(size_t n)
{
	pmix_device_distance_t *d;
	size_t i;

	if (!n)
		return NULL;
	d = calloc(n, sizeof(*d));
	for (i = 0; d && i < n; i++)
		PMIx_Device_distance_construct(&d[i]);
	return d;
}

void PMIx_Device_distance_free(pmix_device_distance_t *d, size_t n)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < n; i++)
		PMIx_Device_distance_destruct(&d[i]);
	free(d);
}

ZERO_CONSTRUCT(Endpoint, pmix_endpoint_t)
CREATE_FREE(Endpoint, pmix_endpoint_t)

void PMIx_Endpoint_destruct(pmix_endpoint_t *e)
{
	if (!e)
		return;
	free(e->uuid);
	free(e->osname);
	free(e->endpt.bytes);
	memset(e, 0, sizeof(*e));
}

/* ---- registered attributes ---- */
ZERO_CONSTRUCT(Regattr, pmix_regattr_t)
CREATE_FREE(Regattr, pmix_regattr_t)

void PMIx_Regattr_destruct(pmix_regattr_t *p)
{
	if (!p)
		return;
	free(p->name);
	PMIx_Argv_free(p->description);
	memset(p, 0, sizeof(*p));
}

/* Copies name, key and description (a single string, appended as one line). */
void PMIx_Regattr_load(pmix_regattr_t *info, const char *name, const char *key,
		       pmix_data_type_t type, const char *description)
{
	if (!info)
		return;
	info->name = name ? strdup(name) : NULL;
	memset(info->string, 0, sizeof(info->string));
	if (key)
		strncpy(info->string, key, PMIX_MAX_KEYLEN);
	info->type = type;
	info->description = NULL;
	if (description)
		PMIx_Argv_append_nosize(&info->description, description);
}

void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src)
{
	if (!dest || !src)
		return;
	memset(dest, 0, sizeof(*dest));
	pxc_elems_copy(dest, src, 1, PMIX_REGATTR);
}

/* ---- data buffer ---- */
ZERO_CONSTRUCT(Data_buffer, pmix_data_buffer_t)

void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b)
{
	if (!b)
		return;
	free(b->base_ptr);
	memset(b, 0, sizeof(*b));
}

pmix_data_buffer_t *PMIx_Data_buffer_create(void)
{
	return calloc(1, sizeof(pmix_data_buffer_t));
}

void PMIx_Data_buffer_release(pmix_data_buffer_t *b)
{
	PMIx_Data_buffer_destruct(b);
	free(b);
}

/* Takes ownership of bytes (malloc'ed by the caller); they become the
 * buffer's unread contents. Previous contents are released. */
void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz)
{
	if (!b)
		return;
	PMIx_Data_buffer_destruct(b);
	if (!bytes || !sz) {
		free(bytes);
		return;
	}
	b->base_ptr = bytes;
	b->unpack_ptr = bytes;
	b->pack_ptr = bytes + sz;
	b->bytes_allocated = b->bytes_used = sz;
}

/* Hands the unread bytes to the caller and empties the buffer. */
void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes, size_t *sz)
{
	size_t off, left;

	if (!bytes || !sz)
		return;
	*bytes = NULL;
	*sz = 0;
	if (!b || !b->base_ptr)
		return;
	off = b->unpack_ptr ? (size_t)(b->unpack_ptr - b->base_ptr) : 0;
	left = off < b->bytes_used ? b->bytes_used - off : 0;
	if (left && off == 0) {
		*bytes = b->base_ptr;
		b->base_ptr = NULL;
	} else if (left) {
		*bytes = malloc(left);
		if (!*bytes)
			return; /* buffer left intact */
		memcpy(*bytes, b->base_ptr + off, left);
	}
	*sz = *bytes ? left : 0;
	PMIx_Data_buffer_destruct(b);
}

/* ---- statistics ---- */
ZERO_CONSTRUCT(Proc_stats, pmix_proc_stats_t)
CREATE_FREE(Proc_stats, pmix_proc_stats_t)

void PMIx_Proc_stats_destruct(pmix_proc_stats_t *p)
{
	if (!p)
		return;
	free_str(&p->node);
	free_str(&p->cmd);
}

ZERO_CONSTRUCT(Disk_stats, pmix_disk_stats_t)
CREATE_FREE(Disk_stats, pmix_disk_stats_t)

void PMIx_Disk_stats_destruct(pmix_disk_stats_t *p)
{
	if (p)
		free_str(&p->disk);
}

ZERO_CONSTRUCT(Net_stats, pmix_net_stats_t)
CREATE_FREE(Net_stats, pmix_net_stats_t)

void PMIx_Net_stats_destruct(pmix_net_stats_t *p)
{
	if (p)
		free_str(&p->net_interface);
}

ZERO_CONSTRUCT(Node_stats, pmix_node_stats_t)
CREATE_FREE(Node_stats, pmix_node_stats_t)

void PMIx_Node_stats_destruct(pmix_node_stats_t *p)
{
	if (!p)
		return;
	free_str(&p->node);
	PMIx_Disk_stats_free(p->diskstats, p->ndiskstats);
	PMIx_Net_stats_free(p->netstats, p->nnetstats);
	p->diskstats = NULL;
	p->netstats = NULL;
	p->ndiskstats = p->nnetstats = 0;
}

/* ---- fabric ---- */
ZERO_CONSTRUCT(Fabric, pmix_fabric_t)

/* ---- data arrays ----
 * The elements of a data array of any type are destructed through the type
 * table, so arrays of infos holding data arrays are released to any depth. */

void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type)
{
	if (!p)
		return;
	p->type = type;
	p->size = 0;
	p->array = NULL;
}

void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num, pmix_data_type_t type)
{
	if (!p)
		return;
	PMIx_Data_array_init(p, type);
	p->array = pxc_elems_alloc(num, type);
	if (p->array && type == PMIX_INFO)
		((pmix_info_t *)p->array)[num - 1].flags = PMIX_INFO_ARRAY_END;
	p->size = p->array ? num : 0;
}

void PMIx_Data_array_destruct(pmix_data_array_t *d)
{
	if (!d)
		return;
	pxc_elems_destruct(d->array, d->size, d->type);
	free(d->array);
	d->array = NULL;
	d->size = 0;
}

pmix_data_array_t *PMIx_Data_array_create(size_t n, pmix_data_type_t type)
{
	pmix_data_array_t *p;

	if (!n)
		return NULL;
	p = malloc(sizeof(*p));
	if (!p)
		return NULL;
	PMIx_Data_array_construct(p, n, type);
	if (!p->array) {
		free(p);
		return NULL;
	}
	return p;
}

void PMIx_Data_array_free(pmix_data_array_t *p)
{
	PMIx_Data_array_destruct(p);
	free(p);
}
