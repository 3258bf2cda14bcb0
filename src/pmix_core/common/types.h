/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * types.h - the per-type table behind the PMIx value, info and struct API
 * (types.c).
 *
 * Every PMIx data type has one C representation when it is an element of a
 * pmix_data_array_t ("element": char * for PMIX_STRING, pmix_proc_t for
 * PMIX_PROC, pmix_info_t for PMIX_INFO, pmix_data_array_t for
 * PMIX_DATA_ARRAY, ...). A pmix_value_t holds one element either inline in
 * its union (scalars, pmix_byte_object_t, pmix_envar_t) or "boxed": the
 * union holds a pointer to one malloc'ed element (proc, darray, topo, ...).
 * The table in types.c knows, per type, the element size, whether values box
 * it, and how to destruct and deep-copy one element. Everything else (value
 * xfer/destruct/compare, data arrays, Data_copy, printing) is written once
 * on top of it.
 *
 * Memory: only malloc/calloc/free, because objects cross the ABI boundary
 * (callers built against OpenPMIx headers allocate inline and we free).
 *
 * Thread safety: all functions are pure with respect to global state and may
 * be called from any thread on objects the caller owns.
 */
#ifndef PXC_COMMON_TYPES_H
#define PXC_COMMON_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>

/* Size in bytes of one element of type, or 0 if the type is unknown. */
size_t pxc_type_size(pmix_data_type_t type);
/* True when a pmix_value_t of this type holds a pointer to one element. */
bool pxc_type_boxed(pmix_data_type_t type);
/* Destructs n elements of type in place (does not free the array). Unknown
 * types are left alone. NULL-tolerant. */
void pxc_elems_destruct(void *array, size_t n, pmix_data_type_t type);
/* Deep-copies n elements from src into dst (which need not be zeroed).
 * PMIX_SUCCESS, or an error with dst holding nothing to free. */
pmix_status_t pxc_elems_copy(void *dst, const void *src, size_t n, pmix_data_type_t type);
/* Deep-copies src into dst (dst's old contents are not freed). */
pmix_status_t pxc_darray_copy(pmix_data_array_t *dst, const pmix_data_array_t *src);
/* Allocates a zeroed array of n elements; NULL for n == 0 or unknown type. */
void *pxc_elems_alloc(size_t n, pmix_data_type_t type);

/* Pointer to the element held by a value: inside the union for inline
 * types, the boxed pointer otherwise (may be NULL). */
const void *pxc_value_elem(const pmix_value_t *v);

#endif
