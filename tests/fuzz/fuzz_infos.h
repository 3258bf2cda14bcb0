/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_infos.h - for the fuzz targets that take what a client sends as
 * an array of infos (and apps): the input's bytes decoded with the data
 * codec, as the server decodes them off the wire.
 */
#ifndef SX_FUZZ_INFOS_H
#define SX_FUZZ_INFOS_H

#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "pack.h"

/* The counted arrays of type in data[0..size), one after another, as
 * the wire carries them: up to max arrays into out[], their counts in n[].
 * Returns how many were read (the rest of *out NULL, n 0). */
static inline size_t fuzz_arrays(const uint8_t *data, size_t size, const pmix_data_type_t *types,
				 void **out, size_t *n, size_t max)
{
	pmix_data_buffer_t in;
	size_t k = 0;

	for (size_t i = 0; i < max; i++) {
		out[i] = NULL;
		n[i] = 0;
	}
	pxc_buf_init(&in);
	if (pxc_buf_load_copy(&in, data, size) < 0)
		return 0;
	while (k < max && pxc_unpack_array(&in, &out[k], &n[k], types[k]) == PMIX_SUCCESS)
		k++;
	pxc_buf_clear(&in);
	return k;
}

static inline void fuzz_arrays_free(void **out, const size_t *n, const pmix_data_type_t *types,
				    size_t max)
{
	for (size_t i = 0; i < max; i++)
		pxc_array_free(out[i], n[i], types[i]);
}

#endif
