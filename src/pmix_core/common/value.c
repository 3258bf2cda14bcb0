/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * value.c - PMIx_Value_* and PMIx_Data_copy.
 *
 * A value either holds its element inline in the union or boxes it (see
 * types.h); load, xfer, unload and destruct are written once on top of the
 * type table in types.c, so every data type, including data arrays nested
 * to any depth, is deep-copied and freed the same way.
 *
 * Conventions kept from OpenPMIx because callers depend on them:
 *  - load with data == NULL and type PMIX_BOOL means "true" (OMPI loads
 *    flags this way); with any other type it leaves the payload zeroed;
 *  - PMIX_STRING loads take the string itself (not a char **) and copy it;
 *  - PMIX_POINTER copies the pointer and never frees it;
 *  - unload of a scalar copies into storage the caller provides in *data
 *    (PMIX_ERR_BAD_PARAM without it); everything else is malloc'ed for the
 *    caller, who frees it;
 *  - compare returns PMIX_VALUE1_GREATER/PMIX_VALUE2_GREATER by value for
 *    numbers, strings and procs, PMIX_EQUAL for deep-equal structures.
 *
 * Thread safety: none needed; all objects belong to the caller.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hwloc.h>
#include <pmix.h>

#include "value.h"
#include "types.h"

void PMIx_Value_construct(pmix_value_t *val)
{
	if (val)
		memset(val, 0, sizeof(*val));
}

void PMIx_Value_destruct(pmix_value_t *val)
{
	if (!val)
		return;
	if (pxc_type_boxed(val->type)) {
		pxc_elems_destruct(val->data.ptr, 1, val->type);
		free(val->data.ptr);
	} else if (val->type != PMIX_POINTER) {
		pxc_elems_destruct(&val->data, 1, val->type);
	}
	memset(val, 0, sizeof(*val));
}

pmix_value_t *PMIx_Value_create(size_t n)
{
	if (!n)
		return NULL;
	return calloc(n, sizeof(pmix_value_t));
}

void PMIx_Value_free(pmix_value_t *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		PMIx_Value_destruct(&v[i]);
	free(v);
}

/* Copies one element at src into val (val->type already set). */
static pmix_status_t load_elem(pmix_value_t *val, const void *src)
{
	void *box;
	pmix_status_t rc;

	if (!pxc_type_boxed(val->type))
		return pxc_elems_copy(&val->data, src, 1, val->type);
	box = pxc_elems_alloc(1, val->type);
	if (!box)
		return PMIX_ERR_NOMEM;
	rc = pxc_elems_copy(box, src, 1, val->type);
	if (rc != PMIX_SUCCESS) {
		free(box);
		return rc;
	}
	val->data.ptr = box;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data, pmix_data_type_t type)
{
	pmix_nspace_t ns;
	pmix_status_t rc;

	if (!val)
		return PMIX_ERR_BAD_PARAM;
	memset(val, 0, sizeof(*val));
	val->type = type;
	if (type == PMIX_UNDEF)
		return PMIX_SUCCESS;
	if (!pxc_type_size(type)) {
		val->type = PMIX_UNDEF;
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	}
	if (!data) {
		if (type == PMIX_BOOL)
			val->data.flag = true;
		return PMIX_SUCCESS;
	}
	switch (type) {
	case PMIX_STRING: rc = load_elem(val, &data); break;
	case PMIX_POINTER: val->data.ptr = (void *)data; return PMIX_SUCCESS;
	case PMIX_PROC_NSPACE:
		/* the data is a string, possibly shorter than a pmix_nspace_t */
		memset(ns, 0, sizeof(ns));
		strncpy(ns, data, PMIX_MAX_NSLEN);
		rc = load_elem(val, ns);
		break;
	default: rc = load_elem(val, data); break;
	}
	if (rc != PMIX_SUCCESS)
		memset(val, 0, sizeof(*val));
	return rc;
}

pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src)
{
	pmix_status_t rc;

	if (!dest || !src)
		return PMIX_ERR_BAD_PARAM;
	memset(dest, 0, sizeof(*dest));
	if (src->type == PMIX_UNDEF)
		return PMIX_SUCCESS;
	if (!pxc_type_size(src->type))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	dest->type = src->type;
	if (pxc_type_boxed(src->type) && !src->data.ptr)
		return PMIX_SUCCESS;
	rc = load_elem(dest, pxc_value_elem(src));
	if (rc != PMIX_SUCCESS)
		memset(dest, 0, sizeof(*dest));
	return rc;
}

/* Returns a malloc'ed deep copy of one element of type at src. */
static pmix_status_t dup_elem(void **out, const void *src, pmix_data_type_t type)
{
	void *box = pxc_elems_alloc(1, type);
	pmix_status_t rc;

	if (!box)
		return pxc_type_size(type) ? PMIX_ERR_NOMEM : PMIX_ERR_UNKNOWN_DATA_TYPE;
	rc = pxc_elems_copy(box, src, 1, type);
	if (rc != PMIX_SUCCESS) {
		free(box);
		return rc;
	}
	*out = box;
	return PMIX_SUCCESS;
}

static pmix_status_t unload_bytes(const pmix_byte_object_t *bo, void **data, size_t *sz)
{
	*data = NULL;
	*sz = 0;
	if (!bo->bytes || !bo->size)
		return PMIX_SUCCESS;
	*data = malloc(bo->size);
	if (!*data)
		return PMIX_ERR_NOMEM;
	memcpy(*data, bo->bytes, bo->size);
	*sz = bo->size;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t *sz)
{
	pmix_data_type_t t;

	if (!val || !data || !sz)
		return PMIX_ERR_BAD_PARAM;
	t = val->type;
	if (t == PMIX_UNDEF || !pxc_type_size(t))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	switch (t) {
	case PMIX_STRING:
		*data = NULL;
		*sz = 0;
		if (!val->data.string)
			return PMIX_SUCCESS;
		*data = strdup(val->data.string);
		*sz = strlen(val->data.string) + 1;
		return *data ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
	case PMIX_POINTER:
		*data = val->data.ptr;
		*sz = sizeof(void *);
		return PMIX_SUCCESS;
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT:
	case PMIX_REGEX: return unload_bytes(&val->data.bo, data, sz);
	default: break;
	}
	*sz = pxc_type_size(t);
	if (pxc_type_boxed(t) || t == PMIX_ENVAR) {
		*data = NULL;
		if (pxc_type_boxed(t) && !val->data.ptr) {
			*sz = 0;
			return PMIX_SUCCESS;
		}
		return dup_elem(data, pxc_value_elem(val), t);
	}
	/* scalars go into storage the caller provides */
	if (!*data)
		return PMIX_ERR_BAD_PARAM;
	memcpy(*data, &val->data, *sz);
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type)
{
	pmix_nspace_t ns;

	if (!dest || !src)
		return PMIX_ERR_BAD_PARAM;
	*dest = NULL;
	switch (type) {
	case PMIX_STRING: *dest = strdup(src); return *dest ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
	case PMIX_POINTER: *dest = src; return PMIX_SUCCESS;
	case PMIX_PROC_NSPACE:
		memset(ns, 0, sizeof(ns));
		strncpy(ns, src, PMIX_MAX_NSLEN);
		return dup_elem(dest, ns, type);
	default: return dup_elem(dest, src, type);
	}
}

pmix_boolean_t PMIx_Value_true(const pmix_value_t *v)
{
	return pxc_value_true(v);
}

/* Parses the usual spellings of a boolean; anything else is PMIX_NON_BOOL. */
static pmix_boolean_t string_true(const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "t", "y", NULL };
	static const char *const no[] = { "false", "no", "off", "f", "n", NULL };
	size_t i;

	if (!s)
		return PMIX_BOOL_TRUE;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return PMIX_BOOL_TRUE;
	if (isdigit((unsigned char)*s) || *s == '-' || *s == '+')
		return strtol(s, NULL, 10) ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
	for (i = 0; yes[i]; i++)
		if (!strcasecmp(s, yes[i]))
			return PMIX_BOOL_TRUE;
	for (i = 0; no[i]; i++)
		if (!strcasecmp(s, no[i]))
			return PMIX_BOOL_FALSE;
	return PMIX_NON_BOOL;
}

pmix_boolean_t pxc_value_true(const pmix_value_t *v)
{
	if (!v)
		return PMIX_NON_BOOL;
	switch (v->type) {
	case PMIX_UNDEF: return PMIX_BOOL_TRUE;
	case PMIX_BOOL: return v->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
	case PMIX_STRING: return string_true(v->data.string);
	default: return PMIX_NON_BOOL;
	}
}

/* ---- size of a value's payload ---- */

static size_t elem_heap(const void *elem, pmix_data_type_t type);

static size_t str_heap(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static size_t argv_heap(char **argv)
{
	size_t sz = 0;

	for (; argv && *argv; argv++)
		sz += sizeof(char *) + str_heap(*argv);
	return argv ? sz + sizeof(char *) : 0;
}

static size_t array_heap(const void *array, size_t n, pmix_data_type_t type)
{
	size_t i, esz = pxc_type_size(type), sz;

	if (!array || !esz)
		return 0;
	sz = n * esz;
	for (i = 0; i < n; i++)
		sz += elem_heap((const char *)array + i * esz, type);
	return sz;
}

static size_t struct_heap(const void *e, pmix_data_type_t type)
{
	switch (type) {
	case PMIX_APP: {
		const pmix_app_t *a = e;
		return str_heap(a->cmd) + str_heap(a->cwd) + argv_heap(a->argv) +
		       argv_heap(a->env) + array_heap(a->info, a->ninfo, PMIX_INFO);
	}
	case PMIX_QUERY: {
		const pmix_query_t *q = e;
		return argv_heap(q->keys) + array_heap(q->qualifiers, q->nqual, PMIX_INFO);
	}
	case PMIX_PROC_INFO: {
		const pmix_proc_info_t *p = e;
		return str_heap(p->hostname) + str_heap(p->executable_name);
	}
	case PMIX_REGATTR: {
		const pmix_regattr_t *r = e;
		return str_heap(r->name) + argv_heap(r->description);
	}
	case PMIX_GEOMETRY: {
		const pmix_geometry_t *g = e;
		return str_heap(g->uuid) + str_heap(g->osname) +
		       array_heap(g->coordinates, g->ncoords, PMIX_COORD);
	}
	case PMIX_ENDPOINT: {
		const pmix_endpoint_t *p = e;
		return str_heap(p->uuid) + str_heap(p->osname) + p->endpt.size;
	}
	default: return 0;
	}
}

static size_t elem_heap(const void *e, pmix_data_type_t type)
{
	switch (type) {
	case PMIX_STRING: return str_heap(*(char *const *)e);
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT:
	case PMIX_REGEX: return ((const pmix_byte_object_t *)e)->size;
	case PMIX_ENVAR:
		return str_heap(((const pmix_envar_t *)e)->envar) +
		       str_heap(((const pmix_envar_t *)e)->value);
	case PMIX_VALUE:
		return elem_heap(pxc_value_elem(e), ((const pmix_value_t *)e)->type) +
		       (pxc_type_boxed(((const pmix_value_t *)e)->type) ?
				pxc_type_size(((const pmix_value_t *)e)->type) :
				0);
	case PMIX_INFO: return elem_heap(&((const pmix_info_t *)e)->value, PMIX_VALUE);
	case PMIX_PDATA: return elem_heap(&((const pmix_pdata_t *)e)->value, PMIX_VALUE);
	case PMIX_DATA_ARRAY:
		return array_heap(((const pmix_data_array_t *)e)->array,
				  ((const pmix_data_array_t *)e)->size,
				  ((const pmix_data_array_t *)e)->type);
	case PMIX_COORD: return ((const pmix_coord_t *)e)->dims * sizeof(uint32_t);
	case PMIX_DATA_BUFFER: return ((const pmix_data_buffer_t *)e)->bytes_allocated;
	default: return struct_heap(e, type);
	}
}

pmix_status_t PMIx_Value_get_size(const pmix_value_t *v, size_t *sz)
{
	if (!v || !sz)
		return PMIX_ERR_BAD_PARAM;
	*sz = 0;
	if (v->type == PMIX_UNDEF || !pxc_type_size(v->type))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	*sz = sizeof(pmix_value_t);
	if (pxc_type_boxed(v->type) && v->data.ptr)
		*sz += pxc_type_size(v->type);
	if (v->type != PMIX_POINTER && (!pxc_type_boxed(v->type) || v->data.ptr))
		*sz += elem_heap(pxc_value_elem(v), v->type);
	return PMIX_SUCCESS;
}
