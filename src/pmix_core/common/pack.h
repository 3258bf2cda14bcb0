/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pack.h - the portable encoding used on the wire, in the store's blobs and
 * by PMIx_Data_pack/unpack.
 *
 * A buffer is the public pmix_data_buffer_t: base_ptr..base_ptr+bytes_used
 * holds packed bytes, unpack_ptr is the read position, pack_ptr the write
 * position (= base_ptr + bytes_used). Every pxc_pack() call appends one
 * self-describing item: the data type (uint16, big endian), the element
 * count (uint32, big endian), then the elements. All integers are big endian
 * whatever the host, floats/doubles as their IEEE bits in big endian, sizes
 * and pids as uint64/int64, bools as one byte, strings as uint32 length + bytes
 * (length 0xFFFFFFFF = NULL string), structs field by field.
 *
 * Unpacking never trusts the input: a type that differs from the one asked
 * for gives PMIX_ERR_PACK_MISMATCH, an unknown type PMIX_ERR_UNKNOWN_DATA_TYPE,
 * a count or length larger than the bytes left PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER
 * (nothing is allocated from an untrusted length before it is checked against
 * the bytes left), nesting of data arrays deeper than PXC_PACK_MAX_DEPTH
 * PMIX_ERR_UNPACK_FAILURE. On failure the read position is left where it was
 * and nothing stays allocated.
 *
 * What dst points to when unpacking follows OpenPMIx's PMIx_Data_unpack:
 * an array of *n elements of the C type of the data type (char * for
 * PMIX_STRING, pmix_value_t for PMIX_VALUE, pmix_info_t for PMIX_INFO,
 * pmix_proc_t for PMIX_PROC, pmix_data_array_t for PMIX_DATA_ARRAY, ...);
 * pointed-to contents are freshly malloc'ed and owned by the caller.
 *
 * Thread safety: a buffer belongs to one thread at a time.
 */
#ifndef PXC_PACK_H
#define PXC_PACK_H

#include <stdint.h>
#include <stddef.h>
#include <pmix_common.h>

#define PXC_PACK_MAX_DEPTH 16

/* Initialises an empty buffer (no allocation). */
void pxc_buf_init(pmix_data_buffer_t *buf);
/* Frees the buffer's bytes and re-initialises it. NULL-tolerant. */
void pxc_buf_clear(pmix_data_buffer_t *buf);
/* Makes buf read from a copy of bytes[0..len). Returns 0, or -1/ENOMEM. */
int pxc_buf_load_copy(pmix_data_buffer_t *buf, const void *bytes, size_t len);
/* Makes buf own bytes (malloc'ed by the caller) and read from them. */
void pxc_buf_load_take(pmix_data_buffer_t *buf, void *bytes, size_t len);
/* Makes buf a read-only view of bytes[0..len), which stay the caller's
 * (never clear such a buffer); an empty view when len is 0. */
void pxc_buf_view(pmix_data_buffer_t *buf, const void *bytes, size_t len);
/* Appends raw bytes. Returns 0, or -1/ENOMEM. */
int pxc_buf_append(pmix_data_buffer_t *buf, const void *bytes, size_t len);
/* Bytes not read yet. */
size_t pxc_buf_remaining(const pmix_data_buffer_t *buf);
/* Pointer to the unread bytes (valid until the buffer changes). */
const char *pxc_buf_read_ptr(const pmix_data_buffer_t *buf);
/* Moves the read position on by len (len <= remaining). */
void pxc_buf_skip(pmix_data_buffer_t *buf, size_t len);

/* Appends n elements of type from src. PMIX_SUCCESS or an error status
 * (PMIX_ERR_BAD_PARAM, PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_NOMEM). */
pmix_status_t pxc_pack(pmix_data_buffer_t *buf, const void *src, int32_t n, pmix_data_type_t type);
/* Reads one item of type into dst, which has room for *n elements; on
 * success *n is the number read. See the file comment for errors. */
pmix_status_t pxc_unpack(pmix_data_buffer_t *buf, void *dst, int32_t *n, pmix_data_type_t type);
/* Type of the next item without consuming it; PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER when empty. */
pmix_status_t pxc_peek_type(const pmix_data_buffer_t *buf, pmix_data_type_t *type);

/* Shorthands for the common single-element cases. */
static inline pmix_status_t pxc_pack_str(pmix_data_buffer_t *b, const char *s)
{
	return pxc_pack(b, &s, 1, PMIX_STRING);
}
static inline pmix_status_t pxc_unpack_str(pmix_data_buffer_t *b, char **s)
{
	int32_t n = 1;
	return pxc_unpack(b, s, &n, PMIX_STRING);
}
static inline pmix_status_t pxc_pack_u32(pmix_data_buffer_t *b, uint32_t v)
{
	return pxc_pack(b, &v, 1, PMIX_UINT32);
}
static inline pmix_status_t pxc_unpack_u32(pmix_data_buffer_t *b, uint32_t *v)
{
	int32_t n = 1;
	return pxc_unpack(b, v, &n, PMIX_UINT32);
}
static inline pmix_status_t pxc_pack_size(pmix_data_buffer_t *b, size_t v)
{
	return pxc_pack(b, &v, 1, PMIX_SIZE);
}
static inline pmix_status_t pxc_unpack_size(pmix_data_buffer_t *b, size_t *v)
{
	int32_t n = 1;
	return pxc_unpack(b, v, &n, PMIX_SIZE);
}
static inline pmix_status_t pxc_pack_status(pmix_data_buffer_t *b, pmix_status_t v)
{
	return pxc_pack(b, &v, 1, PMIX_STATUS);
}
static inline pmix_status_t pxc_unpack_status(pmix_data_buffer_t *b, pmix_status_t *v)
{
	int32_t n = 1;
	return pxc_unpack(b, v, &n, PMIX_STATUS);
}
static inline pmix_status_t pxc_pack_proc(pmix_data_buffer_t *b, const pmix_proc_t *p)
{
	return pxc_pack(b, p, 1, PMIX_PROC);
}
static inline pmix_status_t pxc_unpack_proc(pmix_data_buffer_t *b, pmix_proc_t *p)
{
	int32_t n = 1;
	return pxc_unpack(b, p, &n, PMIX_PROC);
}

/* Counted arrays: a PMIX_SIZE count followed (when non-zero) by one item of
 * n elements. Unpack allocates *out (NULL when the count is 0) and bounds the
 * count by the bytes left before allocating. Used for every "SIZE n, T[n]"
 * field of the wire protocol. */
pmix_status_t pxc_pack_array(pmix_data_buffer_t *b, const void *src, size_t n,
			     pmix_data_type_t type);
pmix_status_t pxc_unpack_array(pmix_data_buffer_t *b, void **out, size_t *n, pmix_data_type_t type);
/* Frees an array returned by pxc_unpack_array (destructing the elements). */
void pxc_array_free(void *array, size_t n, pmix_data_type_t type);

#endif
