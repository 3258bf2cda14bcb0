/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof/format.c - byte queues and line formats of IO forwarding (see
 * format.h for the formats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iof/format.h"

int sx_iof_buf_add(sx_iof_buf_t *b, const void *bytes, size_t n)
{
	char *grown;
	size_t want;

	if (!n)
		return 0;
	if (b->off && b->off == b->len)
		b->off = b->len = 0;
	if (b->len + n > b->cap && b->off > b->cap / 2) { /* reuse the eaten front */
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len + n > b->cap) {
		want = b->cap ? b->cap : 256;
		while (want < b->len + n)
			want *= 2;
		if (!(grown = realloc(b->p, want)))
			return -1;
		b->p = grown;
		b->cap = want;
	}
	memcpy(b->p + b->len, bytes, n);
	b->len += n;
	return 0;
}

void sx_iof_buf_eat(sx_iof_buf_t *b, size_t n)
{
	b->off += n <= sx_iof_buf_size(b) ? n : sx_iof_buf_size(b);
	if (b->off == b->len)
		b->off = b->len = 0;
}

void sx_iof_buf_free(sx_iof_buf_t *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

bool sx_iof_fmt_any(const sx_iof_fmt_t *f)
{
	return f->tag || f->timestamp || f->xml;
}

const char *sx_iof_channel_name(pmix_iof_channel_t ch)
{
	switch (ch) {
	case PMIX_FWD_STDIN_CHANNEL: return "stdin";
	case PMIX_FWD_STDERR_CHANNEL: return "stderr";
	case PMIX_FWD_STDDIAG_CHANNEL: return "stddiag";
	default: return "stdout";
	}
}

/* "2026-12-02T06:40:00.123Z" into s (64 bytes). */
static void stamp(char s[64], int64_t wall_ms)
{
	time_t t = (time_t)(wall_ms / 1000);
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm) || !(n = strftime(s, 64, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(s, 64, "?");
		return;
	}
	snprintf(s + n, 64 - n, ".%03dZ", (int)(wall_ms % 1000) % 1000);
}

static int add_str(sx_iof_buf_t *out, const char *s)
{
	return sx_iof_buf_add(out, s, strlen(s));
}

/* Length of the UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80           ? 1 :
		     (s[0] & 0xe0) == 0xc0 ? 2 :
		     (s[0] & 0xf0) == 0xe0 ? 3 :
		     (s[0] & 0xf8) == 0xf0 ? 4 :
					     0;
	uint32_t cp;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	cp = len == 1 ? s[0] : len == 2 ? s[0] & 0x1f : len == 3 ? s[0] & 0x0f : s[0] & 0x07;
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0; /* overlong, out of range, surrogate, or no XML character */
	return len;
}

/* Whether line[0..n) can be XML text (UTF-8, no control byte but tab and
 * carriage return). */
static bool xml_text(const char *line, size_t n)
{
	const unsigned char *s = (const unsigned char *)line;

	for (size_t i = 0, k; i < n; i += k) {
		if (s[i] < 0x20 && s[i] != '\t' && s[i] != '\r')
			return false;
		if (s[i] == 0x7f || !(k = utf8_len(s + i, n - i)))
			return false;
	}
	return true;
}

static int add_escaped(sx_iof_buf_t *out, const char *s, size_t n)
{
	size_t from = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *e = s[i] == '&'  ? "&amp;" :
				s[i] == '<'  ? "&lt;" :
				s[i] == '>'  ? "&gt;" :
				s[i] == '"'  ? "&quot;" :
				s[i] == '\'' ? "&apos;" :
				s[i] == '\r' ? "&#13;" :
					       NULL;

		if (!e)
			continue;
		rc = sx_iof_buf_add(out, s + from, i - from) | add_str(out, e);
		from = i + 1;
	}
	return rc ? rc : sx_iof_buf_add(out, s + from, n - from);
}

static int add_base64(sx_iof_buf_t *out, const unsigned char *s, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);

		q[0] = tbl[v >> 18 & 63];
		q[1] = tbl[v >> 12 & 63];
		q[2] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? tbl[v & 63] : '=';
		rc = sx_iof_buf_add(out, q, 4);
	}
	return rc;
}

/* One line (without its newline; nl: it had one). */
static int one_line(const sx_iof_fmt_t *f, const pmix_proc_t *src, pmix_iof_channel_t ch,
		    const char *line, size_t n, bool nl, int64_t wall_ms, sx_iof_buf_t *out)
{
	const char *name = sx_iof_channel_name(ch);
	char head[PMIX_MAX_NSLEN * 6 + 128], ts[64] = "";
	bool text;
	int rc;

	if (f->timestamp)
		stamp(ts, wall_ms);
	if (!f->xml) {
		rc = 0;
		if (f->timestamp) {
			snprintf(head, sizeof(head), "[%s] ", ts);
			rc |= add_str(out, head);
		}
		if (f->tag) {
			snprintf(head, sizeof(head), "[%.*s,%u]<%s>: ", PMIX_MAX_NSLEN, src->nspace,
				 src->rank, name);
			rc |= add_str(out, head);
		}
		rc |= sx_iof_buf_add(out, line, n);
		return rc | (nl ? sx_iof_buf_add(out, "\n", 1) : 0);
	}
	text = xml_text(line, n);
	rc = add_str(out, "<") | add_str(out, name) | add_str(out, " nspace=\"") |
	     add_escaped(out, src->nspace, strnlen(src->nspace, PMIX_MAX_NSLEN));
	snprintf(head, sizeof(head), "\" rank=\"%u\"%s%s%s%s%s>", src->rank,
		 f->timestamp ? " time=\"" : "", ts, f->timestamp ? "\"" : "",
		 nl ? "" : " nl=\"0\"", text ? "" : " encoding=\"base64\"");
	rc |= add_str(out, head);
	rc |= text ? add_escaped(out, line, n) : add_base64(out, (const unsigned char *)line, n);
	return rc | add_str(out, "</") | add_str(out, name) | add_str(out, ">\n");
}

int sx_iof_format(const sx_iof_fmt_t *f, sx_iof_buf_t *resid, const pmix_proc_t *src,
		  pmix_iof_channel_t ch, const char *raw, size_t n, bool flush, int64_t wall_ms,
		  sx_iof_buf_t *out)
{
	size_t start = 0;
	int rc = 0;

	if (!sx_iof_fmt_any(f))
		return sx_iof_buf_add(out, raw, n);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (raw[i] != '\n')
			continue;
		if (sx_iof_buf_size(resid)) { /* the line began in an earlier chunk */
			rc = sx_iof_buf_add(resid, raw + start, i - start);
			if (rc == 0)
				rc = one_line(f, src, ch, sx_iof_buf_data(resid),
					      sx_iof_buf_size(resid), true, wall_ms, out);
			sx_iof_buf_eat(resid, sx_iof_buf_size(resid));
		} else {
			rc = one_line(f, src, ch, raw + start, i - start, true, wall_ms, out);
		}
		start = i + 1;
	}
	if (rc == 0 && start < n)
		rc = sx_iof_buf_add(resid, raw + start, n - start);
	if (rc == 0 && sx_iof_buf_size(resid) &&
	    (flush || sx_iof_buf_size(resid) >= SX_IOF_LINE_MAX)) {
		rc = one_line(f, src, ch, sx_iof_buf_data(resid), sx_iof_buf_size(resid), false,
			      wall_ms, out);
		sx_iof_buf_eat(resid, sx_iof_buf_size(resid));
	}
	return rc;
}
