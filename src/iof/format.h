/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof/format.h - the bytes of IO forwarding: a growable byte queue, and
 * the line formats a subscription may ask for (PMIX_IOF_TAG_OUTPUT,
 * PMIX_IOF_TIMESTAMP_OUTPUT, PMIX_IOF_XML_OUTPUT), format.c.
 *
 * The formats, one line of the source at a time (the unterminated tail of
 * a chunk waits for the rest of its line, per subscription and stream, up
 * to SX_IOF_LINE_MAX bytes; a flush or the end of the stream lets it out
 * as a line without newline):
 *   tag        "[nspace,rank]<stdout>: " before the line (stderr, stddiag,
 *              stdin likewise);
 *   timestamp  "[2026-12-02T06:40:00.123Z] " before that: the time of the
 *              delivery (the Standard: when the tool received it), UTC;
 *   XML        each line is one element, named for its channel, with the
 *              source as attributes and the newline left out:
 *                <stdout nspace="ns" rank="3">text</stdout>
 *              plus time="..." with timestamp, nl="0" for a line without
 *              newline; the text escapes & < > " ' as entities and a
 *              carriage return as &#13;; a line that is not UTF-8, or that
 *              holds another control byte (which no XML 1.0 document may
 *              contain, not even as a reference), goes as
 *              encoding="base64" with its bytes in base64. Every element
 *              ends with a newline. So any payload makes elements that
 *              parse, and that give back the exact bytes.
 * Without any format the bytes pass unchanged, unsplit.
 * Single-threaded (the owner's thread).
 */
#ifndef SX_IOF_FORMAT_H
#define SX_IOF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#define SX_IOF_LINE_MAX 65536

/* A byte queue: bytes [off, len) of p are pending. */
typedef struct {
	char *p;
	size_t off, len, cap;
} sx_iof_buf_t;

/* Appends n bytes. 0, or -1 when out of memory (nothing appended). */
int sx_iof_buf_add(sx_iof_buf_t *b, const void *bytes, size_t n);
/* Pending bytes. */
static inline size_t sx_iof_buf_size(const sx_iof_buf_t *b)
{
	return b->len - b->off;
}
static inline const char *sx_iof_buf_data(const sx_iof_buf_t *b)
{
	return b->p + b->off;
}
/* Consumes the first n pending bytes (n <= size). */
void sx_iof_buf_eat(sx_iof_buf_t *b, size_t n);
/* Frees and empties. */
void sx_iof_buf_free(sx_iof_buf_t *b);

typedef struct {
	bool tag, timestamp, xml;
} sx_iof_fmt_t;

/* True when f changes the bytes (any format asked for). */
bool sx_iof_fmt_any(const sx_iof_fmt_t *f);

/* Formats raw[0..n) of src's channel ch onto out: the complete lines,
 * and, with flush, the unterminated rest (resid holds the unterminated
 * tail between calls; it is emptied by a flush). wall_ms: the time to
 * stamp (milliseconds since the epoch). Without any format the bytes are
 * appended as they are (resid stays empty). 0, or -1 when out of memory
 * (out may hold part of it). */
int sx_iof_format(const sx_iof_fmt_t *f, sx_iof_buf_t *resid, const pmix_proc_t *src,
		  pmix_iof_channel_t ch, const char *raw, size_t n, bool flush, int64_t wall_ms,
		  sx_iof_buf_t *out);

/* The name of a channel bit: "stdout", "stderr", "stddiag", "stdin". */
const char *sx_iof_channel_name(pmix_iof_channel_t ch);

#endif
