/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compare.c - PMIx_Value_compare.
 *
 * Values of different types are PMIX_VALUE_TYPE_DIFFERENT. Numbers, strings,
 * byte objects, times and process ids are ordered (PMIX_VALUE1_GREATER /
 * PMIX_VALUE2_GREATER / PMIX_EQUAL). Data arrays compare element by element
 * (first by element type, then by size, then by the first differing
 * element), infos by key then value, so deep structures compare deeply.
 * Other structs compare by their printed form, which covers every field;
 * topologies and cpusets of different sources are
 * PMIX_VALUE_INCOMPATIBLE_OBJECTS, and two non-hwloc topologies that are not
 * the same object cannot be compared (PMIX_VALUE_COMPARISON_NOT_AVAIL).
 *
 * Thread safety: none needed.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hwloc.h>
#include <pmix.h>

#include "types.h"
#include "print.h"

#define ORDER(a, b) ((a) > (b) ? PMIX_VALUE1_GREATER : (a) < (b) ? PMIX_VALUE2_GREATER : PMIX_EQUAL)

static pmix_value_cmp_t elem_cmp(const void *a, const void *b, pmix_data_type_t t);

static pmix_value_cmp_t str_cmp(const char *a, const char *b)
{
	int r;

	if (!a || !b)
		return ORDER(a != NULL, b != NULL);
	r = strcmp(a, b);
	return ORDER(r, 0);
}

static pmix_value_cmp_t bytes_cmp(const pmix_byte_object_t *a, const pmix_byte_object_t *b)
{
	int r;

	if (a->size != b->size)
		return ORDER(a->size, b->size);
	if (!a->size || !a->bytes || !b->bytes)
		return ORDER(a->bytes != NULL, b->bytes != NULL);
	r = memcmp(a->bytes, b->bytes, a->size);
	return ORDER(r, 0);
}

static pmix_value_cmp_t proc_cmp(const pmix_proc_t *a, const pmix_proc_t *b)
{
	int r = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);

	if (r)
		return ORDER(r, 0);
	return ORDER(a->rank, b->rank);
}

static pmix_value_cmp_t scalar_cmp(const void *a, const void *b, pmix_data_type_t t)
{
/* clang-format: macros that make case labels */
/* clang-format off */
#define CASE(T, C) case T: return ORDER(*(const C *)a, *(const C *)b)
	switch (t) {
	CASE(PMIX_BOOL, bool);
	CASE(PMIX_BYTE, uint8_t);
	CASE(PMIX_SIZE, size_t);
	CASE(PMIX_PID, pid_t);
	CASE(PMIX_INT, int);
	CASE(PMIX_INT8, int8_t);
	CASE(PMIX_INT16, int16_t);
	CASE(PMIX_INT32, int32_t);
	CASE(PMIX_INT64, int64_t);
	CASE(PMIX_UINT, unsigned int);
	CASE(PMIX_UINT8, uint8_t);
	CASE(PMIX_UINT16, uint16_t);
	CASE(PMIX_UINT32, uint32_t);
	CASE(PMIX_UINT64, uint64_t);
	CASE(PMIX_FLOAT, float);
	CASE(PMIX_DOUBLE, double);
	CASE(PMIX_TIME, time_t);
	CASE(PMIX_STATUS, pmix_status_t);
	CASE(PMIX_PROC_RANK, pmix_rank_t);
	CASE(PMIX_PERSIST, pmix_persistence_t);
	CASE(PMIX_SCOPE, pmix_scope_t);
	CASE(PMIX_DATA_RANGE, pmix_data_range_t);
	CASE(PMIX_COMMAND, uint8_t);
	CASE(PMIX_INFO_DIRECTIVES, pmix_info_directives_t);
	CASE(PMIX_DATA_TYPE, pmix_data_type_t);
	CASE(PMIX_PROC_STATE, pmix_proc_state_t);
	CASE(PMIX_ALLOC_DIRECTIVE, pmix_alloc_directive_t);
	CASE(PMIX_IOF_CHANNEL, pmix_iof_channel_t);
	CASE(PMIX_JOB_STATE, pmix_job_state_t);
	CASE(PMIX_LINK_STATE, pmix_link_state_t);
	CASE(PMIX_DEVTYPE, pmix_device_type_t);
	CASE(PMIX_LOCTYPE, pmix_locality_t);
	CASE(PMIX_STOR_MEDIUM, uint64_t);
	CASE(PMIX_STOR_ACCESS, uint64_t);
	CASE(PMIX_STOR_PERSIST, uint64_t);
	CASE(PMIX_STOR_ACCESS_TYPE, uint16_t);
	CASE(PMIX_POINTER, uintptr_t);
	default:
		return PMIX_VALUE_COMPARISON_NOT_AVAIL;
	}
#undef CASE
	/* clang-format on */
}

static pmix_value_cmp_t timeval_cmp(const struct timeval *a, const struct timeval *b)
{
	if (a->tv_sec != b->tv_sec)
		return ORDER(a->tv_sec, b->tv_sec);
	return ORDER(a->tv_usec, b->tv_usec);
}

static pmix_value_cmp_t darray_cmp(const pmix_data_array_t *a, const pmix_data_array_t *b)
{
	size_t i, esz;
	pmix_value_cmp_t r;

	if (a->type != b->type)
		return PMIX_VALUE_TYPE_DIFFERENT;
	if (a->size != b->size)
		return ORDER(a->size, b->size);
	esz = pxc_type_size(a->type);
	if (!a->size || (!a->array && !b->array))
		return PMIX_EQUAL;
	if (!esz || !a->array || !b->array)
		return PMIX_VALUE_COMPARISON_NOT_AVAIL;
	for (i = 0; i < a->size; i++) {
		r = elem_cmp((const char *)a->array + i * esz, (const char *)b->array + i * esz,
			     a->type);
		if (r != PMIX_EQUAL)
			return r;
	}
	return PMIX_EQUAL;
}

static pmix_value_cmp_t value_cmp(const pmix_value_t *a, const pmix_value_t *b)
{
	const void *ea, *eb;

	if (a->type != b->type)
		return PMIX_VALUE_TYPE_DIFFERENT;
	if (a->type == PMIX_UNDEF)
		return PMIX_EQUAL;
	if (a->type == PMIX_POINTER)
		return a->data.ptr == b->data.ptr ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
	ea = pxc_value_elem(a);
	eb = pxc_value_elem(b);
	if (!ea || !eb)
		return ea == eb ? PMIX_EQUAL : ORDER(ea != NULL, eb != NULL);
	return elem_cmp(ea, eb, a->type);
}

static pmix_value_cmp_t info_cmp(const pmix_info_t *a, const pmix_info_t *b)
{
	int r = strncmp(a->key, b->key, PMIX_MAX_KEYLEN);

	if (r)
		return ORDER(r, 0);
	return value_cmp(&a->value, &b->value);
}

static pmix_value_cmp_t printed_cmp(const void *a, const void *b, pmix_data_type_t t)
{
	char *sa = NULL, *sb = NULL;
	pmix_value_cmp_t r = PMIX_VALUE_COMPARISON_NOT_AVAIL;

	if (!pxc_elem_print(&sa, a, t) && !pxc_elem_print(&sb, b, t))
		r = str_cmp(sa, sb);
	free(sa);
	free(sb);
	return r;
}

static pmix_value_cmp_t topo_cmp(const pmix_topology_t *a, const pmix_topology_t *b)
{
	if (str_cmp(a->source, b->source) != PMIX_EQUAL)
		return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
	return a->topology == b->topology ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
}

static pmix_value_cmp_t cpuset_cmp(const pmix_cpuset_t *a, const pmix_cpuset_t *b)
{
	int r;

	if (str_cmp(a->source, b->source) != PMIX_EQUAL)
		return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
	if (a->bitmap == b->bitmap)
		return PMIX_EQUAL;
	if (!a->source || strcasecmp(a->source, "hwloc") || !a->bitmap || !b->bitmap)
		return PMIX_VALUE_COMPARISON_NOT_AVAIL;
	r = hwloc_bitmap_compare(a->bitmap, b->bitmap);
	return ORDER(r, 0);
}

static pmix_value_cmp_t elem_cmp(const void *a, const void *b, pmix_data_type_t t)
{
	switch (t) {
	case PMIX_STRING: return str_cmp(*(char *const *)a, *(char *const *)b);
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT:
	case PMIX_REGEX: return bytes_cmp(a, b);
	case PMIX_TIMEVAL: return timeval_cmp(a, b);
	case PMIX_PROC: return proc_cmp(a, b);
	case PMIX_PROC_NSPACE: return str_cmp(a, b);
	case PMIX_DATA_ARRAY: return darray_cmp(a, b);
	case PMIX_VALUE: return value_cmp(a, b);
	case PMIX_INFO: return info_cmp(a, b);
	case PMIX_TOPO: return topo_cmp(a, b);
	case PMIX_PROC_CPUSET: return cpuset_cmp(a, b);
	default: break;
	}
	if (pxc_type_boxed(t) || t == PMIX_ENVAR)
		return printed_cmp(a, b, t);
	return scalar_cmp(a, b, t);
}

pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2)
{
	if (!v1 || !v2)
		return v1 == v2 ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
	return value_cmp(v1, v2);
}
