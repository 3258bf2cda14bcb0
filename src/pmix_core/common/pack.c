/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pack.c - the portable encoding of pack.h: buffers, item framing, the
 * codecs of every PMIx data type, and the PMIx_Data_* API built on them.
 *
 * Encoding (see pack.h): an item is UINT16 type, UINT32 count, then count
 * elements, each written field by field in big-endian order. Per element:
 *   integers, enums   their C width (bool, int8..uint64, status, rank, ...);
 *   size_t, time_t    uint64; pid_t int64; int/unsigned int 32 bits;
 *   float/double      IEEE bits as uint32/uint64; timeval int64 sec, usec;
 *   string            uint32 length + bytes, no NUL; 0xFFFFFFFF = NULL;
 *   argv              uint32 count (0xFFFFFFFF = NULL argv) + strings;
 *   byte object       uint64 size + bytes (NULL bytes = size 0);
 *   value             uint16 type, then for boxed types (types.h) a uint8
 *                     presence flag (0 = NULL pointer) and the element,
 *                     for the others the element itself, nothing for UNDEF;
 *   data array        uint16 type, uint64 size, size elements (no header);
 *   pointer           one byte 0: addresses mean nothing in another process
 *                     (OpenPMIx packs the same kind of sentinel), so a
 *                     pointer unpacks as NULL;
 *   topology, cpuset  source string, then for source "hwloc" the hwloc XML
 *                     of the topology / the bitmap's list string ("0-3,8"),
 *                     NULL otherwise; unpack rebuilds the hwloc objects;
 *   regex             as a string. At the top level (PMIx_Data_pack with
 *                     PMIX_REGEX) elements are char *, as in OpenPMIx; inside
 *                     values and data arrays they are pmix_byte_object_t with
 *                     size = strlen + 1 (OpenPMIx's convention), and either
 *                     size, with or without the NUL, is accepted on pack.
 *   structs           field by field, in declaration order.
 * PMIX_KVAL and PMIX_BUFFER have no public C form: PMIX_ERR_NOT_SUPPORTED.
 *
 * Decoding reads through a cursor over the unread bytes and only moves the
 * buffer's read position when a whole item decoded. Every count or length
 * is checked against the bytes left (times the smallest encoding of one
 * element) before anything is allocated. Elements are decoded into zeroed
 * memory and fill their pointer+count pairs only when complete, so a
 * failure can always destruct what was decoded so far (types.h's
 * pxc_elems_destruct) and leave nothing allocated.
 *
 * Thread safety: a buffer belongs to one thread at a time; the codecs keep
 * no state.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <hwloc.h>
#include <pmix.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "pxc.h"
#include "pack.h"
#include "types.h"

#define TRY(x)                           \
	do {                             \
		pmix_status_t rc_ = (x); \
		if (rc_ != PMIX_SUCCESS) \
			return rc_;      \
	} while (0)
#define NULL_LEN UINT32_MAX
#define MAX_VALUE_DEPTH (2 * PXC_PACK_MAX_DEPTH + 4)
/* Largest CPU index a cpuset list may name (hwloc would allocate for it). */
#define MAX_CPU_INDEX (1u << 20)

/* ------------------------------------------------------------------ */
/* buffers                                                             */

static size_t read_off(const pmix_data_buffer_t *buf)
{
	if (!buf->base_ptr || !buf->unpack_ptr || buf->unpack_ptr < buf->base_ptr ||
	    buf->unpack_ptr > buf->base_ptr + buf->bytes_used)
		return 0;
	return (size_t)(buf->unpack_ptr - buf->base_ptr);
}

void pxc_buf_init(pmix_data_buffer_t *buf)
{
	memset(buf, 0, sizeof(*buf));
}

void pxc_buf_clear(pmix_data_buffer_t *buf)
{
	if (!buf)
		return;
	free(buf->base_ptr);
	pxc_buf_init(buf);
}

void pxc_buf_load_take(pmix_data_buffer_t *buf, void *bytes, size_t len)
{
	pxc_buf_clear(buf);
	if (!bytes)
		return;
	buf->base_ptr = bytes;
	buf->bytes_allocated = buf->bytes_used = len;
	buf->unpack_ptr = buf->base_ptr;
	buf->pack_ptr = buf->base_ptr + len;
}

void pxc_buf_view(pmix_data_buffer_t *buf, const void *bytes, size_t len)
{
	pxc_buf_init(buf);
	if (!bytes || !len)
		return; /* (no arithmetic on a NULL pointer) */
	buf->base_ptr = buf->unpack_ptr = (char *)bytes;
	buf->pack_ptr = buf->base_ptr + len;
	buf->bytes_allocated = buf->bytes_used = len;
}

int pxc_buf_load_copy(pmix_data_buffer_t *buf, const void *bytes, size_t len)
{
	void *copy = NULL;

	if (len) {
		copy = malloc(len);
		if (!copy) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(copy, bytes, len);
	}
	pxc_buf_load_take(buf, copy, len);
	return 0;
}

static int buf_reserve(pmix_data_buffer_t *buf, size_t len)
{
	size_t off = read_off(buf), want, cap;
	char *p;

	if (len > SIZE_MAX - buf->bytes_used) {
		errno = ENOMEM;
		return -1;
	}
	want = buf->bytes_used + len;
	if (buf->base_ptr && want <= buf->bytes_allocated)
		return 0;
	cap = buf->bytes_allocated > 64 ? buf->bytes_allocated : 64;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = realloc(buf->base_ptr, cap);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	buf->base_ptr = p;
	buf->bytes_allocated = cap;
	buf->unpack_ptr = p + off;
	buf->pack_ptr = p + buf->bytes_used;
	return 0;
}

int pxc_buf_append(pmix_data_buffer_t *buf, const void *bytes, size_t len)
{
	if (!len)
		return 0;
	if (buf_reserve(buf, len) != 0)
		return -1;
	memcpy(buf->base_ptr + buf->bytes_used, bytes, len);
	buf->bytes_used += len;
	buf->pack_ptr = buf->base_ptr + buf->bytes_used;
	return 0;
}

size_t pxc_buf_remaining(const pmix_data_buffer_t *buf)
{
	if (!buf || !buf->base_ptr)
		return 0;
	return buf->bytes_used - read_off(buf);
}

const char *pxc_buf_read_ptr(const pmix_data_buffer_t *buf)
{
	return buf->base_ptr ? buf->base_ptr + read_off(buf) : NULL;
}

void pxc_buf_skip(pmix_data_buffer_t *buf, size_t len)
{
	size_t left = pxc_buf_remaining(buf);

	if (!buf->base_ptr)
		return;
	buf->unpack_ptr = buf->base_ptr + read_off(buf) + (len < left ? len : left);
}

/* Drops everything written after mark (rolls back a failed pack). */
static void buf_truncate(pmix_data_buffer_t *buf, size_t mark)
{
	if (!buf->base_ptr || mark > buf->bytes_used)
		return;
	buf->bytes_used = mark;
	buf->pack_ptr = buf->base_ptr + mark;
	if (buf->unpack_ptr > buf->pack_ptr)
		buf->unpack_ptr = buf->pack_ptr;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

typedef struct {
	pmix_data_buffer_t *buf;
	int adepth; /* data arrays being encoded */
	int vdepth; /* values being encoded */
} wr_t;

static pmix_status_t put(wr_t *w, const void *p, size_t n)
{
	return pxc_buf_append(w->buf, p, n) ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t put_u8(wr_t *w, uint8_t v)
{
	return put(w, &v, 1);
}
static pmix_status_t put_u16(wr_t *w, uint16_t v)
{
	v = htobe16(v);
	return put(w, &v, 2);
}
static pmix_status_t put_u32(wr_t *w, uint32_t v)
{
	v = htobe32(v);
	return put(w, &v, 4);
}
static pmix_status_t put_u64(wr_t *w, uint64_t v)
{
	v = htobe64(v);
	return put(w, &v, 8);
}

static pmix_status_t put_strn(wr_t *w, const char *s, size_t len)
{
	if (!s)
		return put_u32(w, NULL_LEN);
	if (len >= NULL_LEN)
		return PMIX_ERR_BAD_PARAM;
	TRY(put_u32(w, (uint32_t)len));
	return put(w, s, len);
}

static pmix_status_t put_str(wr_t *w, const char *s)
{
	return put_strn(w, s, s ? strlen(s) : 0);
}

static pmix_status_t put_argv(wr_t *w, char **argv)
{
	size_t n = 0, i;

	if (!argv)
		return put_u32(w, NULL_LEN);
	while (argv[n])
		n++;
	if (n >= NULL_LEN)
		return PMIX_ERR_BAD_PARAM;
	TRY(put_u32(w, (uint32_t)n));
	for (i = 0; i < n; i++)
		TRY(put_str(w, argv[i]));
	return PMIX_SUCCESS;
}

static pmix_status_t put_tv(wr_t *w, const struct timeval *tv)
{
	TRY(put_u64(w, (uint64_t)(int64_t)tv->tv_sec));
	return put_u64(w, (uint64_t)(int64_t)tv->tv_usec);
}

static pmix_status_t put_float(wr_t *w, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return put_u32(w, u);
}

/* ------------------------------------------------------------------ */
/* reading                                                             */

typedef struct {
	const unsigned char *p;
	size_t left;
	int adepth; /* data arrays being decoded */
	int vdepth; /* values being decoded */
} rd_t;

static pmix_status_t get(rd_t *r, void *out, size_t n)
{
	if (r->left < n)
		return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	memcpy(out, r->p, n);
	r->p += n;
	r->left -= n;
	return PMIX_SUCCESS;
}

static pmix_status_t get_u8(rd_t *r, uint8_t *v)
{
	return get(r, v, 1);
}

static pmix_status_t get_u16(rd_t *r, uint16_t *v)
{
	TRY(get(r, v, 2));
	*v = be16toh(*v);
	return PMIX_SUCCESS;
}

static pmix_status_t get_u32(rd_t *r, uint32_t *v)
{
	TRY(get(r, v, 4));
	*v = be32toh(*v);
	return PMIX_SUCCESS;
}

static pmix_status_t get_u64(rd_t *r, uint64_t *v)
{
	TRY(get(r, v, 8));
	*v = be64toh(*v);
	return PMIX_SUCCESS;
}

/* Reads a count of elements whose smallest encoding is minw bytes. */
static pmix_status_t get_count64(rd_t *r, uint64_t *n, size_t minw)
{
	TRY(get_u64(r, n));
	if (*n > r->left / minw)
		return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	return PMIX_SUCCESS;
}

/* Reads a string; *len receives its length. NULL strings give NULL. */
static pmix_status_t get_strl(rd_t *r, char **s, size_t *len)
{
	uint32_t n;

	*s = NULL;
	*len = 0;
	TRY(get_u32(r, &n));
	if (n == NULL_LEN)
		return PMIX_SUCCESS;
	if (n > r->left)
		return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	*s = malloc((size_t)n + 1);
	if (!*s)
		return PMIX_ERR_NOMEM;
	memcpy(*s, r->p, n);
	(*s)[n] = '\0';
	r->p += n;
	r->left -= n;
	*len = n;
	return PMIX_SUCCESS;
}

static pmix_status_t get_str(rd_t *r, char **s)
{
	size_t len;

	return get_strl(r, s, &len);
}

/* Reads a non-NULL string of at most cap-1 bytes into a fixed array. */
static pmix_status_t get_str_into(rd_t *r, char *dst, size_t cap)
{
	uint32_t n;

	TRY(get_u32(r, &n));
	if (n == NULL_LEN || n >= cap)
		return PMIX_ERR_UNPACK_FAILURE;
	TRY(get(r, dst, n));
	memset(dst + n, 0, cap - n);
	return PMIX_SUCCESS;
}

static void argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static pmix_status_t get_argv(rd_t *r, char ***out)
{
	uint32_t n, i;
	char **argv;
	pmix_status_t rc = PMIX_SUCCESS;

	*out = NULL;
	TRY(get_u32(r, &n));
	if (n == NULL_LEN)
		return PMIX_SUCCESS;
	if (n > r->left / 4)
		return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	argv = calloc((size_t)n + 1, sizeof(char *));
	if (!argv)
		return PMIX_ERR_NOMEM;
	for (i = 0; i < n && rc == PMIX_SUCCESS; i++) {
		rc = get_str(r, &argv[i]);
		if (rc == PMIX_SUCCESS && !argv[i])
			rc = PMIX_ERR_UNPACK_FAILURE;
	}
	if (rc != PMIX_SUCCESS) {
		argv_free(argv);
		return rc;
	}
	*out = argv;
	return PMIX_SUCCESS;
}

static pmix_status_t get_tv(rd_t *r, struct timeval *tv)
{
	uint64_t s, us;

	TRY(get_u64(r, &s));
	TRY(get_u64(r, &us));
	tv->tv_sec = (time_t)(int64_t)s;
	tv->tv_usec = (suseconds_t)(int64_t)us;
	return PMIX_SUCCESS;
}

static pmix_status_t get_float(rd_t *r, float *f)
{
	uint32_t u;

	TRY(get_u32(r, &u));
	memcpy(f, &u, sizeof(u));
	return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* the codec table                                                     */

typedef pmix_status_t (*enc_f)(wr_t *w, const void *elem);
typedef pmix_status_t (*dec_f)(rd_t *r, void *elem);

struct codec {
	size_t size; /* bytes of one C element */
	size_t minw; /* smallest encoding of one element */
	bool boxed;  /* a pmix_value_t holds a pointer to the element */
	enc_f enc;
	dec_f dec;
};

static const struct codec *codec_of(pmix_data_type_t type);

/* PMIX_KVAL and PMIX_BUFFER are known types without a public C form. */
static pmix_status_t unsupported(pmix_data_type_t type)
{
	return type == PMIX_KVAL || type == PMIX_BUFFER ? PMIX_ERR_NOT_SUPPORTED :
							  PMIX_ERR_UNKNOWN_DATA_TYPE;
}

static pmix_status_t enc_elems(wr_t *w, const void *a, size_t n, pmix_data_type_t type)
{
	const struct codec *c = codec_of(type);
	size_t i;

	if (!n)
		return PMIX_SUCCESS;
	if (!c)
		return unsupported(type);
	if (!a)
		return PMIX_ERR_BAD_PARAM;
	for (i = 0; i < n; i++)
		TRY(c->enc(w, (const char *)a + i * c->size));
	return PMIX_SUCCESS;
}

/* Decodes n elements into a (zeroed); on failure destructs them all. */
static pmix_status_t dec_elems(rd_t *r, void *a, size_t n, pmix_data_type_t type)
{
	const struct codec *c = codec_of(type);
	pmix_status_t rc;
	size_t i;

	for (i = 0; i < n; i++) {
		rc = c->dec(r, (char *)a + i * c->size);
		if (rc != PMIX_SUCCESS) {
			pxc_elems_destruct(a, i + 1, type);
			memset(a, 0, n * c->size);
			return rc;
		}
	}
	return PMIX_SUCCESS;
}

/* Reads a uint64 count and that many elements into a new array. */
static pmix_status_t dec_array(rd_t *r, void **out, size_t *n, pmix_data_type_t type)
{
	const struct codec *c = codec_of(type);
	uint64_t cnt;
	void *a;
	pmix_status_t rc;

	*out = NULL;
	*n = 0;
	TRY(get_count64(r, &cnt, c->minw));
	if (!cnt)
		return PMIX_SUCCESS;
	a = calloc(cnt, c->size);
	if (!a)
		return PMIX_ERR_NOMEM;
	rc = dec_elems(r, a, cnt, type);
	if (rc != PMIX_SUCCESS) {
		free(a);
		return rc;
	}
	*out = a;
	*n = cnt;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_array(wr_t *w, const void *a, size_t n, pmix_data_type_t type)
{
	if (n && !a)
		return PMIX_ERR_BAD_PARAM;
	TRY(put_u64(w, n));
	return enc_elems(w, a, n, type);
}

/* ------------------------------------------------------------------ */
/* scalars                                                             */

/* Read as a byte: a caller's bool may hold any non-zero byte. */
static pmix_status_t enc_bool(wr_t *w, const void *e)
{
	return put_u8(w, *(const uint8_t *)e ? 1 : 0);
}

static pmix_status_t dec_bool(rd_t *r, void *e)
{
	uint8_t v;

	TRY(get_u8(r, &v));
	*(bool *)e = v != 0;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_8(wr_t *w, const void *e)
{
	return put(w, e, 1);
}
static pmix_status_t dec_8(rd_t *r, void *e)
{
	return get(r, e, 1);
}

static pmix_status_t enc_16(wr_t *w, const void *e)
{
	uint16_t v;

	memcpy(&v, e, 2);
	return put_u16(w, v);
}

static pmix_status_t dec_16(rd_t *r, void *e)
{
	uint16_t v;

	TRY(get_u16(r, &v));
	memcpy(e, &v, 2);
	return PMIX_SUCCESS;
}

static pmix_status_t enc_32(wr_t *w, const void *e)
{
	uint32_t v;

	memcpy(&v, e, 4);
	return put_u32(w, v);
}

static pmix_status_t dec_32(rd_t *r, void *e)
{
	uint32_t v;

	TRY(get_u32(r, &v));
	memcpy(e, &v, 4);
	return PMIX_SUCCESS;
}

static pmix_status_t enc_64(wr_t *w, const void *e)
{
	uint64_t v;

	memcpy(&v, e, 8);
	return put_u64(w, v);
}

static pmix_status_t dec_64(rd_t *r, void *e)
{
	uint64_t v;

	TRY(get_u64(r, &v));
	memcpy(e, &v, 8);
	return PMIX_SUCCESS;
}

static pmix_status_t enc_size(wr_t *w, const void *e)
{
	return put_u64(w, *(const size_t *)e);
}

static pmix_status_t dec_size(rd_t *r, void *e)
{
	uint64_t v;

	TRY(get_u64(r, &v));
	if (v > SIZE_MAX)
		return PMIX_ERR_UNPACK_FAILURE;
	*(size_t *)e = (size_t)v;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_pid(wr_t *w, const void *e)
{
	return put_u64(w, (uint64_t)(int64_t) * (const pid_t *)e);
}

static pmix_status_t dec_pid(rd_t *r, void *e)
{
	uint64_t v;

	TRY(get_u64(r, &v));
	*(pid_t *)e = (pid_t)(int64_t)v;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_time(wr_t *w, const void *e)
{
	return put_u64(w, (uint64_t)(int64_t) * (const time_t *)e);
}

static pmix_status_t dec_time(rd_t *r, void *e)
{
	uint64_t v;

	TRY(get_u64(r, &v));
	*(time_t *)e = (time_t)(int64_t)v;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_tv(wr_t *w, const void *e)
{
	return put_tv(w, e);
}
static pmix_status_t dec_tv(rd_t *r, void *e)
{
	return get_tv(r, e);
}

static pmix_status_t enc_ptr(wr_t *w, const void *e)
{
	(void)e;
	return put_u8(w, 0);
}

static pmix_status_t dec_ptr(rd_t *r, void *e)
{
	uint8_t v;

	TRY(get_u8(r, &v));
	*(void **)e = NULL;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_string(wr_t *w, const void *e)
{
	return put_str(w, *(char *const *)e);
}

static pmix_status_t dec_string(rd_t *r, void *e)
{
	return get_str(r, (char **)e);
}

/* ------------------------------------------------------------------ */
/* byte objects, regexes, namespaces, procs                            */

static pmix_status_t enc_bo(wr_t *w, const void *e)
{
	const pmix_byte_object_t *bo = e;
	size_t n = bo->bytes ? bo->size : 0;

	TRY(put_u64(w, n));
	return put(w, bo->bytes, n);
}

static pmix_status_t dec_bo(rd_t *r, void *e)
{
	pmix_byte_object_t *bo = e;
	uint64_t n;

	TRY(get_count64(r, &n, 1));
	if (!n)
		return PMIX_SUCCESS;
	bo->bytes = malloc(n);
	if (!bo->bytes)
		return PMIX_ERR_NOMEM;
	memcpy(bo->bytes, r->p, n);
	r->p += n;
	r->left -= n;
	bo->size = n;
	return PMIX_SUCCESS;
}

/* A regex held in a byte object: the string up to the first NUL. */
static pmix_status_t enc_regex_bo(wr_t *w, const void *e)
{
	const pmix_byte_object_t *bo = e;

	if (!bo->bytes)
		return put_strn(w, NULL, 0);
	return put_strn(w, bo->bytes, strnlen(bo->bytes, bo->size));
}

static pmix_status_t dec_regex_bo(rd_t *r, void *e)
{
	pmix_byte_object_t *bo = e;
	size_t len;

	TRY(get_strl(r, &bo->bytes, &len));
	bo->size = bo->bytes ? len + 1 : 0;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_nspace(wr_t *w, const void *e)
{
	return put_strn(w, e, strnlen(e, PMIX_MAX_NSLEN));
}

static pmix_status_t dec_nspace(rd_t *r, void *e)
{
	return get_str_into(r, e, PMIX_MAX_NSLEN + 1);
}

static pmix_status_t enc_proc(wr_t *w, const void *e)
{
	const pmix_proc_t *p = e;

	TRY(enc_nspace(w, p->nspace));
	return put_u32(w, p->rank);
}

static pmix_status_t dec_proc(rd_t *r, void *e)
{
	pmix_proc_t *p = e;

	TRY(dec_nspace(r, p->nspace));
	return get_u32(r, &p->rank);
}

/* ------------------------------------------------------------------ */
/* values, infos, pdata, data arrays                                   */

static pmix_status_t enc_value(wr_t *w, const void *e)
{
	const pmix_value_t *v = e;
	const struct codec *c;

	pmix_status_t rc;

	TRY(put_u16(w, v->type));
	if (v->type == PMIX_UNDEF)
		return PMIX_SUCCESS;
	c = codec_of(v->type);
	if (!c)
		return unsupported(v->type);
	if (w->vdepth >= MAX_VALUE_DEPTH)
		return PMIX_ERR_BAD_PARAM;
	w->vdepth++;
	if (!c->boxed)
		rc = c->enc(w, &v->data);
	else if ((rc = put_u8(w, v->data.ptr ? 1 : 0)) == PMIX_SUCCESS && v->data.ptr)
		rc = c->enc(w, v->data.ptr);
	w->vdepth--;
	return rc;
}

static pmix_status_t dec_boxed(rd_t *r, pmix_value_t *v, const struct codec *c)
{
	uint8_t present;
	pmix_status_t rc;
	void *elem;

	TRY(get_u8(r, &present));
	if (present > 1)
		return PMIX_ERR_UNPACK_FAILURE;
	if (!present)
		return PMIX_SUCCESS;
	elem = calloc(1, c->size);
	if (!elem)
		return PMIX_ERR_NOMEM;
	rc = c->dec(r, elem);
	if (rc != PMIX_SUCCESS) {
		pxc_elems_destruct(elem, 1, v->type);
		free(elem);
		return rc;
	}
	v->data.ptr = elem;
	return PMIX_SUCCESS;
}

static pmix_status_t dec_value(rd_t *r, void *e)
{
	pmix_value_t *v = e;
	const struct codec *c;
	uint16_t type;
	pmix_status_t rc;

	memset(v, 0, sizeof(*v));
	TRY(get_u16(r, &type));
	if (type == PMIX_UNDEF)
		return PMIX_SUCCESS;
	c = codec_of(type);
	if (!c)
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	if (r->vdepth >= MAX_VALUE_DEPTH)
		return PMIX_ERR_UNPACK_FAILURE;
	r->vdepth++;
	v->type = type;
	rc = c->boxed ? dec_boxed(r, v, c) : c->dec(r, &v->data);
	r->vdepth--;
	return rc;
}

static pmix_status_t enc_info(wr_t *w, const void *e)
{
	const pmix_info_t *i = e;

	TRY(put_strn(w, i->key, strnlen(i->key, PMIX_MAX_KEYLEN)));
	TRY(put_u32(w, i->flags));
	return enc_value(w, &i->value);
}

static pmix_status_t dec_info(rd_t *r, void *e)
{
	pmix_info_t *i = e;

	TRY(get_str_into(r, i->key, PMIX_MAX_KEYLEN + 1));
	TRY(get_u32(r, &i->flags));
	/* a decoded value is the info's own, whatever the sender said: a
	 * PERSISTENT flag from the wire would leave it unfreed */
	i->flags &= ~(uint32_t)PMIX_INFO_PERSISTENT;
	return dec_value(r, &i->value);
}

static pmix_status_t enc_pdata(wr_t *w, const void *e)
{
	const pmix_pdata_t *p = e;

	TRY(enc_proc(w, &p->proc));
	TRY(put_strn(w, p->key, strnlen(p->key, PMIX_MAX_KEYLEN)));
	return enc_value(w, &p->value);
}

static pmix_status_t dec_pdata(rd_t *r, void *e)
{
	pmix_pdata_t *p = e;

	TRY(dec_proc(r, &p->proc));
	TRY(get_str_into(r, p->key, PMIX_MAX_KEYLEN + 1));
	return dec_value(r, &p->value);
}

static pmix_status_t enc_darray(wr_t *w, const void *e)
{
	const pmix_data_array_t *a = e;
	size_t n = a->array ? a->size : 0;
	pmix_status_t rc;

	if (n && !codec_of(a->type))
		return unsupported(a->type);
	if (w->adepth >= PXC_PACK_MAX_DEPTH)
		return PMIX_ERR_BAD_PARAM;
	TRY(put_u16(w, a->type));
	w->adepth++;
	rc = enc_array(w, a->array, n, a->type);
	w->adepth--;
	return rc;
}

static pmix_status_t dec_darray(rd_t *r, void *e)
{
	pmix_data_array_t *a = e;
	pmix_status_t rc;
	uint16_t type;

	TRY(get_u16(r, &type));
	a->type = type;
	if (!codec_of(type)) {
		uint64_t n;

		/* an empty array may carry any type code (PMIX_UNDEF mostly) */
		TRY(get_u64(r, &n));
		return n ? PMIX_ERR_UNKNOWN_DATA_TYPE : PMIX_SUCCESS;
	}
	if (r->adepth >= PXC_PACK_MAX_DEPTH)
		return PMIX_ERR_UNPACK_FAILURE;
	r->adepth++;
	rc = dec_array(r, &a->array, &a->size, type);
	r->adepth--;
	return rc;
}

/* ------------------------------------------------------------------ */
/* apps, queries, proc info, envars, coords, regattrs                  */

static pmix_status_t enc_app(wr_t *w, const void *e)
{
	const pmix_app_t *a = e;

	TRY(put_str(w, a->cmd));
	TRY(put_argv(w, a->argv));
	TRY(put_argv(w, a->env));
	TRY(put_str(w, a->cwd));
	TRY(put_u32(w, (uint32_t)a->maxprocs));
	return enc_array(w, a->info, a->ninfo, PMIX_INFO);
}

static pmix_status_t dec_app(rd_t *r, void *e)
{
	pmix_app_t *a = e;
	uint32_t maxprocs;

	TRY(get_str(r, &a->cmd));
	TRY(get_argv(r, &a->argv));
	TRY(get_argv(r, &a->env));
	TRY(get_str(r, &a->cwd));
	TRY(get_u32(r, &maxprocs));
	a->maxprocs = (int)maxprocs;
	return dec_array(r, (void **)&a->info, &a->ninfo, PMIX_INFO);
}

static pmix_status_t enc_query(wr_t *w, const void *e)
{
	const pmix_query_t *q = e;

	TRY(put_argv(w, q->keys));
	return enc_array(w, q->qualifiers, q->nqual, PMIX_INFO);
}

static pmix_status_t dec_query(rd_t *r, void *e)
{
	pmix_query_t *q = e;

	TRY(get_argv(r, &q->keys));
	return dec_array(r, (void **)&q->qualifiers, &q->nqual, PMIX_INFO);
}

static pmix_status_t enc_pinfo(wr_t *w, const void *e)
{
	const pmix_proc_info_t *p = e;

	TRY(enc_proc(w, &p->proc));
	TRY(put_str(w, p->hostname));
	TRY(put_str(w, p->executable_name));
	TRY(enc_pid(w, &p->pid));
	TRY(put_u32(w, (uint32_t)p->exit_code));
	return put_u8(w, p->state);
}

static pmix_status_t dec_pinfo(rd_t *r, void *e)
{
	pmix_proc_info_t *p = e;
	uint32_t code;

	TRY(dec_proc(r, &p->proc));
	TRY(get_str(r, &p->hostname));
	TRY(get_str(r, &p->executable_name));
	TRY(dec_pid(r, &p->pid));
	TRY(get_u32(r, &code));
	p->exit_code = (int)code;
	return get_u8(r, &p->state);
}

static pmix_status_t enc_envar(wr_t *w, const void *e)
{
	const pmix_envar_t *v = e;

	TRY(put_str(w, v->envar));
	TRY(put_str(w, v->value));
	return put_u8(w, (uint8_t)v->separator);
}

static pmix_status_t dec_envar(rd_t *r, void *e)
{
	pmix_envar_t *v = e;

	TRY(get_str(r, &v->envar));
	TRY(get_str(r, &v->value));
	return get_u8(r, (uint8_t *)&v->separator);
}

static pmix_status_t enc_coord(wr_t *w, const void *e)
{
	const pmix_coord_t *c = e;
	size_t n = c->coord ? c->dims : 0, i;

	TRY(put_u8(w, c->view));
	TRY(put_u64(w, n));
	for (i = 0; i < n; i++)
		TRY(put_u32(w, c->coord[i]));
	return PMIX_SUCCESS;
}

static pmix_status_t dec_coord(rd_t *r, void *e)
{
	pmix_coord_t *c = e;
	uint32_t *coord;
	uint64_t n, i;

	TRY(get_u8(r, &c->view));
	TRY(get_count64(r, &n, 4));
	if (!n)
		return PMIX_SUCCESS;
	coord = calloc(n, sizeof(uint32_t));
	if (!coord)
		return PMIX_ERR_NOMEM;
	for (i = 0; i < n; i++)
		(void)get_u32(r, &coord[i]); /* bytes were counted above */
	c->coord = coord;
	c->dims = n;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_regattr(wr_t *w, const void *e)
{
	const pmix_regattr_t *a = e;

	TRY(put_str(w, a->name));
	TRY(put_strn(w, a->string, strnlen(a->string, PMIX_MAX_KEYLEN)));
	TRY(put_u16(w, a->type));
	return put_argv(w, a->description);
}

static pmix_status_t dec_regattr(rd_t *r, void *e)
{
	pmix_regattr_t *a = e;

	TRY(get_str(r, &a->name));
	TRY(get_str_into(r, a->string, PMIX_MAX_KEYLEN + 1));
	TRY(get_u16(r, &a->type));
	return get_argv(r, &a->description);
}

/* ------------------------------------------------------------------ */
/* hwloc: cpusets and topologies                                       */

static bool is_hwloc(const char *source)
{
	return source && 0 == strncasecmp(source, "hwloc", 5);
}

static pmix_status_t enc_cpuset(wr_t *w, const void *e)
{
	const pmix_cpuset_t *c = e;
	char *list = NULL;
	pmix_status_t rc;

	if (c->bitmap && !is_hwloc(c->source))
		return PMIX_ERR_NOT_SUPPORTED;
	if (c->bitmap && hwloc_bitmap_list_asprintf(&list, c->bitmap) < 0)
		return PMIX_ERR_NOMEM;
	rc = put_str(w, c->source);
	if (rc == PMIX_SUCCESS)
		rc = put_str(w, list);
	free(list);
	return rc;
}

/* A list names no CPU index above MAX_CPU_INDEX ("0-" = all is fine). */
static bool cpulist_sane(const char *s)
{
	while (*s) {
		if (*s >= '0' && *s <= '9') {
			char *end;
			unsigned long v = strtoul(s, &end, 10);

			if (v > MAX_CPU_INDEX)
				return false;
			s = end;
		} else if (*s == ',' || *s == '-') {
			s++;
		} else {
			return false;
		}
	}
	return true;
}

static pmix_status_t dec_cpuset(rd_t *r, void *e)
{
	pmix_cpuset_t *c = e;
	hwloc_bitmap_t bm;
	char *list;

	TRY(get_str(r, &c->source));
	TRY(get_str(r, &list));
	if (!list)
		return PMIX_SUCCESS;
	bm = is_hwloc(c->source) && cpulist_sane(list) ? hwloc_bitmap_alloc() : NULL;
	if (bm && hwloc_bitmap_list_sscanf(bm, list) != 0) {
		hwloc_bitmap_free(bm);
		bm = NULL;
	}
	free(list);
	if (!bm)
		return PMIX_ERR_UNPACK_FAILURE;
	c->bitmap = bm;
	return PMIX_SUCCESS;
}

static pmix_status_t enc_topo(wr_t *w, const void *e)
{
	const pmix_topology_t *t = e;
	char *xml = NULL;
	int len = 0;
	pmix_status_t rc;

	if (t->topology && !is_hwloc(t->source))
		return PMIX_ERR_NOT_SUPPORTED;
	if (t->topology && hwloc_topology_export_xmlbuffer(t->topology, &xml, &len, 0) != 0)
		return PMIX_ERR_NOMEM;
	rc = put_str(w, t->source);
	if (rc == PMIX_SUCCESS)
		rc = put_strn(w, xml, xml ? strnlen(xml, (size_t)len) : 0);
	if (xml)
		hwloc_free_xmlbuffer(t->topology, xml);
	return rc;
}

static hwloc_topology_t topo_from_xml(const char *xml, size_t len)
{
	hwloc_topology_t topo;

	if (len >= INT_MAX || hwloc_topology_init(&topo) != 0)
		return NULL;
#if HWLOC_API_VERSION >= 0x00020300
	/* keep the binding-support flags the sender's topology had */
	(void)hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IMPORT_SUPPORT);
#endif
	if (hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) != 0 ||
	    hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		return NULL;
	}
	return topo;
}

static pmix_status_t dec_topo(rd_t *r, void *e)
{
	pmix_topology_t *t = e;
	size_t len;
	char *xml;

	TRY(get_str(r, &t->source));
	TRY(get_strl(r, &xml, &len));
	if (!xml)
		return PMIX_SUCCESS;
	t->topology = is_hwloc(t->source) ? topo_from_xml(xml, len) : NULL;
	free(xml);
	return t->topology ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE;
}

/* ------------------------------------------------------------------ */
/* fabric: geometry, device distances, endpoints                       */

static pmix_status_t enc_geometry(wr_t *w, const void *e)
{
	const pmix_geometry_t *g = e;

	TRY(put_u64(w, g->fabric));
	TRY(put_str(w, g->uuid));
	TRY(put_str(w, g->osname));
	return enc_array(w, g->coordinates, g->ncoords, PMIX_COORD);
}

static pmix_status_t dec_geometry(rd_t *r, void *e)
{
	pmix_geometry_t *g = e;

	TRY(dec_size(r, &g->fabric));
	TRY(get_str(r, &g->uuid));
	TRY(get_str(r, &g->osname));
	return dec_array(r, (void **)&g->coordinates, &g->ncoords, PMIX_COORD);
}

static pmix_status_t enc_devdist(wr_t *w, const void *e)
{
	const pmix_device_distance_t *x = e;

	TRY(put_str(w, x->uuid));
	TRY(put_str(w, x->osname));
	TRY(put_u64(w, x->type));
	TRY(put_u16(w, x->mindist));
	return put_u16(w, x->maxdist);
}

static pmix_status_t dec_devdist(rd_t *r, void *e)
{
	pmix_device_distance_t *x = e;

	TRY(get_str(r, &x->uuid));
	TRY(get_str(r, &x->osname));
	TRY(get_u64(r, &x->type));
	TRY(get_u16(r, &x->mindist));
	return get_u16(r, &x->maxdist);
}

static pmix_status_t enc_endpoint(wr_t *w, const void *e)
{
	const pmix_endpoint_t *x = e;

	TRY(put_str(w, x->uuid));
	TRY(put_str(w, x->osname));
	return enc_bo(w, &x->endpt);
}

static pmix_status_t dec_endpoint(rd_t *r, void *e)
{
	pmix_endpoint_t *x = e;

	TRY(get_str(r, &x->uuid));
	TRY(get_str(r, &x->osname));
	return dec_bo(r, &x->endpt);
}

/* ------------------------------------------------------------------ */
/* statistics and data buffers                                         */

static pmix_status_t enc_pstats(wr_t *w, const void *e)
{
	const pmix_proc_stats_t *s = e;

	TRY(put_str(w, s->node));
	TRY(enc_proc(w, &s->proc));
	TRY(enc_pid(w, &s->pid));
	TRY(put_str(w, s->cmd));
	TRY(put_u8(w, (uint8_t)s->state));
	TRY(put_tv(w, &s->time));
	TRY(put_float(w, s->percent_cpu));
	TRY(put_u32(w, (uint32_t)s->priority));
	TRY(put_u16(w, s->num_threads));
	TRY(put_float(w, s->pss));
	TRY(put_float(w, s->vsize));
	TRY(put_float(w, s->rss));
	TRY(put_float(w, s->peak_vsize));
	TRY(put_u16(w, s->processor));
	return put_tv(w, &s->sample_time);
}

static pmix_status_t dec_pstats(rd_t *r, void *e)
{
	pmix_proc_stats_t *s = e;

	TRY(get_str(r, &s->node));
	TRY(dec_proc(r, &s->proc));
	TRY(dec_pid(r, &s->pid));
	TRY(get_str(r, &s->cmd));
	TRY(get_u8(r, (uint8_t *)&s->state));
	TRY(get_tv(r, &s->time));
	TRY(get_float(r, &s->percent_cpu));
	TRY(get_u32(r, (uint32_t *)&s->priority));
	TRY(get_u16(r, &s->num_threads));
	TRY(get_float(r, &s->pss));
	TRY(get_float(r, &s->vsize));
	TRY(get_float(r, &s->rss));
	TRY(get_float(r, &s->peak_vsize));
	TRY(get_u16(r, &s->processor));
	return get_tv(r, &s->sample_time);
}

/* The uint64 counters of disk and net stats follow their name. */
#define DK_COUNTERS 11
#define NET_COUNTERS 6

static pmix_status_t put_counters(wr_t *w, const uint64_t *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		TRY(put_u64(w, c[i]));
	return PMIX_SUCCESS;
}

static pmix_status_t get_counters(rd_t *r, uint64_t *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		TRY(get_u64(r, &c[i]));
	return PMIX_SUCCESS;
}

static pmix_status_t enc_dkstats(wr_t *w, const void *e)
{
	const pmix_disk_stats_t *s = e;

	TRY(put_str(w, s->disk));
	return put_counters(w, &s->num_reads_completed, DK_COUNTERS);
}

static pmix_status_t dec_dkstats(rd_t *r, void *e)
{
	pmix_disk_stats_t *s = e;

	TRY(get_str(r, &s->disk));
	return get_counters(r, &s->num_reads_completed, DK_COUNTERS);
}

static pmix_status_t enc_netstats(wr_t *w, const void *e)
{
	const pmix_net_stats_t *s = e;

	TRY(put_str(w, s->net_interface));
	return put_counters(w, &s->num_bytes_recvd, NET_COUNTERS);
}

static pmix_status_t dec_netstats(rd_t *r, void *e)
{
	pmix_net_stats_t *s = e;

	TRY(get_str(r, &s->net_interface));
	return get_counters(r, &s->num_bytes_recvd, NET_COUNTERS);
}

/* The float gauges of node stats, from la to mapped. */
#define ND_GAUGES 11

static pmix_status_t enc_ndstats(wr_t *w, const void *e)
{
	const pmix_node_stats_t *s = e;
	const float *g = &s->la;
	int i;

	TRY(put_str(w, s->node));
	for (i = 0; i < ND_GAUGES; i++)
		TRY(put_float(w, g[i]));
	TRY(put_tv(w, &s->sample_time));
	TRY(enc_array(w, s->diskstats, s->ndiskstats, PMIX_DISK_STATS));
	return enc_array(w, s->netstats, s->nnetstats, PMIX_NET_STATS);
}

static pmix_status_t dec_ndstats(rd_t *r, void *e)
{
	pmix_node_stats_t *s = e;
	float *g = &s->la;
	int i;

	TRY(get_str(r, &s->node));
	for (i = 0; i < ND_GAUGES; i++)
		TRY(get_float(r, &g[i]));
	TRY(get_tv(r, &s->sample_time));
	TRY(dec_array(r, (void **)&s->diskstats, &s->ndiskstats, PMIX_DISK_STATS));
	return dec_array(r, (void **)&s->netstats, &s->nnetstats, PMIX_NET_STATS);
}

_Static_assert(offsetof(pmix_disk_stats_t, weighted_milliseconds_io) ==
		       offsetof(pmix_disk_stats_t, num_reads_completed) + 8 * (DK_COUNTERS - 1),
	       "disk stats counters are contiguous");
_Static_assert(offsetof(pmix_net_stats_t, num_send_errs) ==
		       offsetof(pmix_net_stats_t, num_bytes_recvd) + 8 * (NET_COUNTERS - 1),
	       "net stats counters are contiguous");
_Static_assert(offsetof(pmix_node_stats_t, mapped) ==
		       offsetof(pmix_node_stats_t, la) + sizeof(float) * (ND_GAUGES - 1),
	       "node stats gauges are contiguous");

/* A data buffer travels whole (all bytes used) and unpacks unread. */
static pmix_status_t enc_dbuf(wr_t *w, const void *e)
{
	const pmix_data_buffer_t *b = e;
	size_t n = b->base_ptr ? b->bytes_used : 0;

	TRY(put_u64(w, n));
	return put(w, b->base_ptr, n);
}

static pmix_status_t dec_dbuf(rd_t *r, void *e)
{
	pmix_data_buffer_t *b = e;
	pmix_byte_object_t bo = { NULL, 0 };

	TRY(dec_bo(r, &bo));
	pxc_buf_load_take(b, bo.bytes, bo.size);
	return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* the table                                                           */

/* clang-format: a table of initializer macros */
/* clang-format off */
#define SC(t, mw, e, d) { sizeof(t), mw, false, e, d }
#define ST(t, mw, e, d) { sizeof(t), mw, false, enc_##e, dec_##e }
#define BX(t, mw, e) { sizeof(t), mw, true, enc_##e, dec_##e }

/* Smallest encodings: string 4, argv 4, proc 8, value 2, bo 8. */
static const struct codec codecs[] = {
	[PMIX_BOOL] = SC(bool, 1, enc_bool, dec_bool),
	[PMIX_BYTE] = SC(uint8_t, 1, enc_8, dec_8),
	[PMIX_STRING] = ST(char *, 4, string, string),
	[PMIX_SIZE] = SC(size_t, 8, enc_size, dec_size),
	[PMIX_PID] = SC(pid_t, 8, enc_pid, dec_pid),
	[PMIX_INT] = SC(int, 4, enc_32, dec_32),
	[PMIX_INT8] = SC(int8_t, 1, enc_8, dec_8),
	[PMIX_INT16] = SC(int16_t, 2, enc_16, dec_16),
	[PMIX_INT32] = SC(int32_t, 4, enc_32, dec_32),
	[PMIX_INT64] = SC(int64_t, 8, enc_64, dec_64),
	[PMIX_UINT] = SC(unsigned int, 4, enc_32, dec_32),
	[PMIX_UINT8] = SC(uint8_t, 1, enc_8, dec_8),
	[PMIX_UINT16] = SC(uint16_t, 2, enc_16, dec_16),
	[PMIX_UINT32] = SC(uint32_t, 4, enc_32, dec_32),
	[PMIX_UINT64] = SC(uint64_t, 8, enc_64, dec_64),
	[PMIX_FLOAT] = SC(float, 4, enc_32, dec_32),
	[PMIX_DOUBLE] = SC(double, 8, enc_64, dec_64),
	[PMIX_TIMEVAL] = SC(struct timeval, 16, enc_tv, dec_tv),
	[PMIX_TIME] = SC(time_t, 8, enc_time, dec_time),
	[PMIX_STATUS] = SC(pmix_status_t, 4, enc_32, dec_32),
	[PMIX_VALUE] = BX(pmix_value_t, 2, value),
	[PMIX_PROC] = BX(pmix_proc_t, 8, proc),
	[PMIX_APP] = BX(pmix_app_t, 28, app),
	[PMIX_INFO] = BX(pmix_info_t, 10, info),
	[PMIX_PDATA] = BX(pmix_pdata_t, 14, pdata),
	[PMIX_BYTE_OBJECT] = ST(pmix_byte_object_t, 8, bo, bo),
	[PMIX_PERSIST] = SC(pmix_persistence_t, 1, enc_8, dec_8),
	[PMIX_POINTER] = SC(void *, 1, enc_ptr, dec_ptr),
	[PMIX_SCOPE] = SC(pmix_scope_t, 1, enc_8, dec_8),
	[PMIX_DATA_RANGE] = SC(pmix_data_range_t, 1, enc_8, dec_8),
	[PMIX_COMMAND] = SC(uint8_t, 1, enc_8, dec_8),
	[PMIX_INFO_DIRECTIVES] = SC(pmix_info_directives_t, 4, enc_32, dec_32),
	[PMIX_DATA_TYPE] = SC(pmix_data_type_t, 2, enc_16, dec_16),
	[PMIX_PROC_STATE] = SC(pmix_proc_state_t, 1, enc_8, dec_8),
	[PMIX_PROC_INFO] = BX(pmix_proc_info_t, 29, pinfo),
	[PMIX_DATA_ARRAY] = BX(pmix_data_array_t, 10, darray),
	[PMIX_PROC_RANK] = SC(pmix_rank_t, 4, enc_32, dec_32),
	[PMIX_QUERY] = BX(pmix_query_t, 12, query),
	[PMIX_COMPRESSED_STRING] = ST(pmix_byte_object_t, 8, bo, bo),
	[PMIX_ALLOC_DIRECTIVE] = SC(pmix_alloc_directive_t, 1, enc_8, dec_8),
	[PMIX_IOF_CHANNEL] = SC(pmix_iof_channel_t, 2, enc_16, dec_16),
	[PMIX_ENVAR] = ST(pmix_envar_t, 9, envar, envar),
	[PMIX_COORD] = BX(pmix_coord_t, 9, coord),
	[PMIX_REGATTR] = BX(pmix_regattr_t, 14, regattr),
	[PMIX_REGEX] = ST(pmix_byte_object_t, 4, regex_bo, regex_bo),
	[PMIX_JOB_STATE] = SC(pmix_job_state_t, 1, enc_8, dec_8),
	[PMIX_LINK_STATE] = SC(pmix_link_state_t, 1, enc_8, dec_8),
	[PMIX_PROC_CPUSET] = BX(pmix_cpuset_t, 8, cpuset),
	[PMIX_GEOMETRY] = BX(pmix_geometry_t, 24, geometry),
	[PMIX_DEVICE_DIST] = BX(pmix_device_distance_t, 20, devdist),
	[PMIX_ENDPOINT] = BX(pmix_endpoint_t, 16, endpoint),
	[PMIX_TOPO] = BX(pmix_topology_t, 8, topo),
	[PMIX_DEVTYPE] = SC(pmix_device_type_t, 8, enc_64, dec_64),
	[PMIX_LOCTYPE] = SC(pmix_locality_t, 2, enc_16, dec_16),
	[PMIX_COMPRESSED_BYTE_OBJECT] = ST(pmix_byte_object_t, 8, bo, bo),
	[PMIX_PROC_NSPACE] = BX(pmix_nspace_t, 4, nspace),
	[PMIX_PROC_STATS] = BX(pmix_proc_stats_t, 85, pstats),
	[PMIX_DISK_STATS] = BX(pmix_disk_stats_t, 92, dkstats),
	[PMIX_NET_STATS] = BX(pmix_net_stats_t, 52, netstats),
	[PMIX_NODE_STATS] = BX(pmix_node_stats_t, 80, ndstats),
	[PMIX_DATA_BUFFER] = BX(pmix_data_buffer_t, 8, dbuf),
	[PMIX_STOR_MEDIUM] = SC(uint64_t, 8, enc_64, dec_64),
	[PMIX_STOR_ACCESS] = SC(uint64_t, 8, enc_64, dec_64),
	[PMIX_STOR_PERSIST] = SC(uint64_t, 8, enc_64, dec_64),
	[PMIX_STOR_ACCESS_TYPE] = SC(uint16_t, 2, enc_16, dec_16),
};
/* clang-format on */

_Static_assert(sizeof(pid_t) <= 8 && sizeof(time_t) == 8 && sizeof(int) == 4 &&
		       sizeof(float) == 4 && sizeof(double) == 8,
	       "scalar widths");

static const struct codec *codec_of(pmix_data_type_t type)
{
	if (type >= sizeof(codecs) / sizeof(codecs[0]) || !codecs[type].enc)
		return NULL;
	return &codecs[type];
}

/* At the top level a PMIX_REGEX element is a char *, as in OpenPMIx. */
static const struct codec regex_top = { sizeof(char *), 4, false, enc_string, dec_string };

static const struct codec *top_codec(pmix_data_type_t type)
{
	return type == PMIX_REGEX ? &regex_top : codec_of(type);
}

static void top_destruct(void *a, size_t n, pmix_data_type_t type)
{
	pxc_elems_destruct(a, n, type == PMIX_REGEX ? PMIX_STRING : type);
}

/* ------------------------------------------------------------------ */
/* items                                                               */

pmix_status_t pxc_pack(pmix_data_buffer_t *buf, const void *src, int32_t n, pmix_data_type_t type)
{
	const struct codec *c = top_codec(type);
	wr_t w = { NULL, 0, 0 };
	size_t mark, i;
	pmix_status_t rc;

	if (!buf || n < 0 || (n > 0 && !src))
		return PMIX_ERR_BAD_PARAM;
	if (!c)
		return unsupported(type);
	mark = buf->bytes_used;
	w.buf = buf;
	rc = put_u16(&w, type);
	if (rc == PMIX_SUCCESS)
		rc = put_u32(&w, (uint32_t)n);
	for (i = 0; rc == PMIX_SUCCESS && i < (size_t)n; i++)
		rc = c->enc(&w, (const char *)src + i * c->size);
	if (rc != PMIX_SUCCESS)
		buf_truncate(buf, mark);
	return rc;
}

static void rd_init(rd_t *r, const pmix_data_buffer_t *buf)
{
	memset(r, 0, sizeof(*r));
	r->p = (const unsigned char *)pxc_buf_read_ptr(buf);
	r->left = pxc_buf_remaining(buf);
}

/* Reads and checks an item header against the type and room asked for. */
static pmix_status_t get_header(rd_t *r, pmix_data_type_t type, int32_t room, uint32_t *count)
{
	const struct codec *c = top_codec(type);
	uint16_t t;

	TRY(get_u16(r, &t));
	if (!codec_of(t))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	if (t != type)
		return PMIX_ERR_PACK_MISMATCH;
	TRY(get_u32(r, count));
	if (*count > r->left / c->minw)
		return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	if (*count > (uint32_t)room)
		return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
	return PMIX_SUCCESS;
}

pmix_status_t pxc_unpack(pmix_data_buffer_t *buf, void *dst, int32_t *n, pmix_data_type_t type)
{
	const struct codec *c = top_codec(type);
	uint32_t count, i;
	pmix_status_t rc;
	rd_t r;

	if (!buf || !dst || !n)
		return PMIX_ERR_BAD_PARAM;
	if (!c)
		return unsupported(type);
	if (*n <= 0)
		return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
	rd_init(&r, buf);
	TRY(get_header(&r, type, *n, &count));
	memset(dst, 0, (size_t)count * c->size);
	for (i = 0; i < count; i++) {
		rc = c->dec(&r, (char *)dst + (size_t)i * c->size);
		if (rc != PMIX_SUCCESS) {
			top_destruct(dst, (size_t)i + 1, type);
			memset(dst, 0, (size_t)count * c->size);
			return rc;
		}
	}
	pxc_buf_skip(buf, pxc_buf_remaining(buf) - r.left);
	*n = (int32_t)count;
	return PMIX_SUCCESS;
}

pmix_status_t pxc_peek_type(const pmix_data_buffer_t *buf, pmix_data_type_t *type)
{
	rd_t r;

	if (!buf || !type)
		return PMIX_ERR_BAD_PARAM;
	rd_init(&r, buf);
	return get_u16(&r, type);
}

/* ------------------------------------------------------------------ */
/* counted arrays                                                      */

pmix_status_t pxc_pack_array(pmix_data_buffer_t *b, const void *src, size_t n,
			     pmix_data_type_t type)
{
	size_t mark;
	pmix_status_t rc;

	if (!b || n > INT32_MAX)
		return PMIX_ERR_BAD_PARAM;
	if (!top_codec(type))
		return unsupported(type);
	mark = b->bytes_used;
	rc = pxc_pack_size(b, n);
	if (rc == PMIX_SUCCESS && n)
		rc = pxc_pack(b, src, (int32_t)n, type);
	if (rc != PMIX_SUCCESS)
		buf_truncate(b, mark);
	return rc;
}

pmix_status_t pxc_unpack_array(pmix_data_buffer_t *b, void **out, size_t *n, pmix_data_type_t type)
{
	const struct codec *c = top_codec(type);
	const char *start;
	size_t cnt;
	int32_t m;
	void *a;
	pmix_status_t rc;

	if (!b || !out || !n)
		return PMIX_ERR_BAD_PARAM;
	if (!c)
		return unsupported(type);
	*out = NULL;
	*n = 0;
	start = pxc_buf_read_ptr(b);
	TRY(pxc_unpack_size(b, &cnt));
	if (!cnt)
		return PMIX_SUCCESS;
	rc = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
	a = NULL;
	if (cnt <= INT32_MAX && cnt <= pxc_buf_remaining(b) / c->minw) {
		a = calloc(cnt, c->size);
		m = (int32_t)cnt;
		rc = a ? pxc_unpack(b, a, &m, type) : PMIX_ERR_NOMEM;
		if (rc == PMIX_SUCCESS && (size_t)m != cnt) {
			top_destruct(a, (size_t)m, type);
			rc = PMIX_ERR_UNPACK_FAILURE;
		}
	}
	if (rc != PMIX_SUCCESS) {
		free(a);
		b->unpack_ptr = (char *)start;
		return rc;
	}
	*out = a;
	*n = cnt;
	return PMIX_SUCCESS;
}

void pxc_array_free(void *array, size_t n, pmix_data_type_t type)
{
	if (!array)
		return;
	top_destruct(array, n, type);
	free(array);
}

/* ------------------------------------------------------------------ */
/* the PMIx API                                                        */

pmix_status_t PMIx_Data_pack(const pmix_proc_t *target, pmix_data_buffer_t *buffer, void *src,
			     int32_t num_vals, pmix_data_type_t type)
{
	(void)target; /* one encoding for every peer */
	return pxc_pack(buffer, src, num_vals, type);
}

pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source, pmix_data_buffer_t *buffer, void *dest,
			       int32_t *max_num_values, pmix_data_type_t type)
{
	(void)source;
	return pxc_unpack(buffer, dest, max_num_values, type);
}

pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest, pmix_data_buffer_t *src)
{
	if (!dest || !src)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_buf_append(dest, pxc_buf_read_ptr(src), pxc_buf_remaining(src)) != 0)
		return PMIX_ERR_NOMEM;
	return PMIX_SUCCESS;
}

/* Hands the unread bytes to payload and empties the buffer. */
pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
	size_t left, off;

	if (!buffer || !payload)
		return PMIX_ERR_BAD_PARAM;
	payload->bytes = NULL;
	payload->size = 0;
	left = pxc_buf_remaining(buffer);
	if (!left) {
		pxc_buf_clear(buffer);
		return PMIX_SUCCESS;
	}
	off = read_off(buffer);
	if (off)
		memmove(buffer->base_ptr, buffer->base_ptr + off, left);
	payload->bytes = buffer->base_ptr;
	payload->size = left;
	pxc_buf_init(buffer);
	return PMIX_SUCCESS;
}

/* The buffer takes payload's bytes; payload is left empty. */
pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
	if (!buffer || !payload)
		return PMIX_ERR_BAD_PARAM;
	pxc_buf_load_take(buffer, payload->bytes, payload->bytes ? payload->size : 0);
	payload->bytes = NULL;
	payload->size = 0;
	return PMIX_SUCCESS;
}

/* The buffer gets a copy of payload's bytes; payload is untouched. */
pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer, const pmix_byte_object_t *payload)
{
	if (!buffer || !payload)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_buf_load_copy(buffer, payload->bytes, payload->bytes ? payload->size : 0))
		return PMIX_ERR_NOMEM;
	return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* compression (zlib when configured with it)                          */

/* Compressed blocks: "SXZ1" magic, uint64 original size (big endian),
 * then a zlib stream. Decompression refuses blocks claiming more than
 * PXC_INFLATE_MAX bytes, and any whose stream does not inflate to exactly
 * the claimed size. */
#define ZMAGIC "SXZ1"
#define ZHDR 12
#define PXC_INFLATE_MAX ((uint64_t)1 << 32)

#ifdef HAVE_ZLIB
bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
	uLongf zlen;
	uint64_t be = htobe64(size);
	uint8_t *out;

	if (!inbytes || !size || !outbytes || !nbytes || size > PXC_INFLATE_MAX)
		return false;
	zlen = compressBound(size);
	out = malloc(ZHDR + zlen);
	if (!out)
		return false;
	if (compress2(out + ZHDR, &zlen, inbytes, size, Z_DEFAULT_COMPRESSION) != Z_OK ||
	    ZHDR + zlen >= size) {
		free(out);
		return false;
	}
	memcpy(out, ZMAGIC, 4);
	memcpy(out + 4, &be, 8);
	*outbytes = out;
	*nbytes = ZHDR + zlen;
	return true;
}

bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
	uint64_t orig;
	uLongf len;
	uint8_t *out;

	if (!inbytes || size <= ZHDR || !outbytes || !nbytes || memcmp(inbytes, ZMAGIC, 4))
		return false;
	memcpy(&orig, inbytes + 4, 8);
	orig = be64toh(orig);
	if (!orig || orig > PXC_INFLATE_MAX)
		return false;
	out = malloc(orig);
	if (!out)
		return false;
	len = orig;
	if (uncompress(out, &len, inbytes + ZHDR, size - ZHDR) != Z_OK || len != orig) {
		free(out);
		return false;
	}
	*outbytes = out;
	*nbytes = orig;
	return true;
}
#else
/* Built without zlib: nothing is ever compressed, so nothing decompresses. */
bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
	(void)inbytes;
	(void)size;
	(void)outbytes;
	(void)nbytes;
	return false;
}

bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
	(void)inbytes;
	(void)size;
	(void)outbytes;
	(void)nbytes;
	return false;
}
#endif
