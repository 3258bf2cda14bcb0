/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_unpack.c - the data codec (common/pack.c) on hostile bytes: every
 * message the core and the plugin take from outside is read with it.
 * The first byte picks how the rest is read: as a run of items of the
 * types their headers name (pxc_peek_type, then pxc_unpack into an array
 * of the right size), as counted arrays of the structured types
 * (pxc_unpack_array), or through the public PMIx_Data_unpack. Whatever
 * is read is packed again and must unpack to the same bytes (the codec's
 * round trip), and everything is freed (ASan's leak check).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pack.h"
#include "types.h"

/* The types a message carries most, for the counted arrays. */
static const pmix_data_type_t structured[] = {
	PMIX_INFO,
	PMIX_PROC,
	PMIX_VALUE,
	PMIX_PDATA,
	PMIX_APP,
	PMIX_DATA_ARRAY,
	PMIX_BYTE_OBJECT,
	PMIX_STRING,
	PMIX_PROC_INFO,
	PMIX_REGATTR,
	PMIX_ENVAR,
	PMIX_COORD,
	PMIX_TOPO,
	PMIX_PROC_CPUSET,
	PMIX_GEOMETRY,
	PMIX_DEVICE_DIST,
	PMIX_ENDPOINT,
	PMIX_DATA_BUFFER,
	PMIX_QUERY,
	PMIX_PROC_STATS,
	PMIX_DISK_STATS,
	PMIX_NET_STATS,
	PMIX_NODE_STATS,
	PMIX_REGEX,
	PMIX_COMPRESSED_STRING,
	PMIX_COMPRESSED_BYTE_OBJECT,
};

/* Packs n elements of type again and checks they read back the same. */
static void round_trip(const void *elems, int32_t n, pmix_data_type_t type)
{
	pmix_data_buffer_t a, b;
	void *again;
	int32_t m = n;
	size_t sz = pxc_type_size(type);

	if (n <= 0)
		return; /* (nothing to read back into) */
	pxc_buf_init(&a);
	pxc_buf_init(&b);
	if (pxc_pack(&a, elems, n, type) != PMIX_SUCCESS || !sz ||
	    !(again = calloc((size_t)n, sz))) {
		pxc_buf_clear(&a);
		return;
	}
	if (pxc_unpack(&a, again, &m, type) != PMIX_SUCCESS || m != n)
		abort(); /* what we packed ourselves must read back */
	if (pxc_pack(&b, again, m, type) != PMIX_SUCCESS || a.bytes_used != b.bytes_used ||
	    memcmp(a.base_ptr, b.base_ptr, a.bytes_used))
		abort(); /* and pack to the same bytes */
	pxc_array_free(again, (size_t)m, type);
	pxc_buf_clear(&a);
	pxc_buf_clear(&b);
}

/* Items as their headers name them, until the bytes end or one fails. */
static void by_peek(pmix_data_buffer_t *in)
{
	for (int k = 0; k < 64 && pxc_buf_remaining(in); k++) {
		pmix_data_type_t t;
		size_t sz;
		int32_t n = 8;
		void *dst;

		if (pxc_peek_type(in, &t) != PMIX_SUCCESS || !(sz = pxc_type_size(t)) ||
		    !(dst = calloc(8, sz)))
			return;
		if (pxc_unpack(in, dst, &n, t) != PMIX_SUCCESS) {
			free(dst);
			return;
		}
		round_trip(dst, n, t);
		pxc_array_free(dst, (size_t)n, t);
	}
}

static void by_array(pmix_data_buffer_t *in, uint8_t pick)
{
	pmix_data_type_t t = structured[pick % (sizeof(structured) / sizeof(structured[0]))];
	void *out = NULL;
	size_t n = 0;

	if (pxc_unpack_array(in, &out, &n, t) == PMIX_SUCCESS && n && n < INT32_MAX) {
		round_trip(out, (int32_t)n, t);
		pxc_array_free(out, n, t);
	}
}

/* The public API, as a client's PMIx_Data_unpack of a peer's buffer. */
static void by_api(const uint8_t *data, size_t size, uint8_t pick)
{
	pmix_data_buffer_t *b = PMIx_Data_buffer_create();
	pmix_data_type_t t = structured[pick % (sizeof(structured) / sizeof(structured[0]))];
	size_t sz = pxc_type_size(t);
	int32_t n = 4;
	void *dst;
	char *copy;

	if (!b || !sz || !(dst = calloc(4, sz)) || !(copy = malloc(size ? size : 1))) {
		PMIx_Data_buffer_release(b);
		return;
	}
	memcpy(copy, data, size);
	PMIx_Data_load(b, &(pmix_byte_object_t){ .bytes = copy, .size = size });
	while (n == 4 && PMIx_Data_unpack(NULL, b, dst, &n, t) == PMIX_SUCCESS) {
		pxc_array_free(dst, (size_t)n, t);
		if (!(dst = calloc(4, sz)))
			break;
		n = 4;
	}
	free(dst);
	PMIx_Data_buffer_release(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pmix_data_buffer_t in;

	if (size < 2)
		return 0;
	if (data[0] % 3 == 2) {
		by_api(data + 2, size - 2, data[1]);
		return 0;
	}
	pxc_buf_init(&in);
	if (pxc_buf_load_copy(&in, data + 2, size - 2) < 0)
		return 0;
	if (data[0] % 3 == 0)
		by_peek(&in);
	else
		by_array(&in, data[1]);
	pxc_buf_clear(&in);
	return 0;
}
