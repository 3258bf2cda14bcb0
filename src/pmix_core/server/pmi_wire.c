/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_wire.c - PMI-1 and PMI-2 framing, parsing and reply formatting (see
 * pmi_wire.h for the formats and the limits).
 *
 * The parser copies the body once and cuts it in place: keys and values
 * are pointers into that copy. A key is letters, digits, '_', '-', '/'
 * or '.'; a word without '=' is an error (the clients we serve never send
 * one). Nothing here allocates more than the request's own size plus the
 * pairs array, both bounded by the limits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmi_wire.h"

/* ------------------------------------------------------------- parsing */

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '/' || c == '.';
}

static int add_pair(pxc_pmi_msg_t *m, size_t *cap, const char *key, const char *val,
		    const char **why)
{
	pxc_pmi_pair_t *grown;

	if (m->npairs >= PXC_PMI_MAX_PAIRS)
		return *why = "too many key=value pairs", -1;
	if (m->npairs == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		grown = realloc(m->pairs, *cap * sizeof(*grown));
		if (!grown)
			return *why = "out of memory", -1;
		m->pairs = grown;
	}
	m->pairs[m->npairs].key = key;
	m->pairs[m->npairs].val = val;
	m->npairs++;
	return 0;
}

/* Cuts "key=value" at s (NUL-terminated word) into the message; the first
 * word names the command (its key must be first_key). */
static int take_word(pxc_pmi_msg_t *m, size_t *cap, char *s, const char *first_key,
		     const char **why)
{
	char *eq = strchr(s, '=');

	if (!eq || eq == s)
		return *why = "a word without key=value", -1;
	*eq = '\0';
	for (const char *k = s; *k; k++)
		if (!key_char(*k))
			return *why = "a key with a forbidden character", -1;
	if (!m->cmd) {
		if (strcmp(s, first_key) != 0)
			return *why = "the request does not start with its command", -1;
		if (!eq[1])
			return *why = "an empty command name", -1;
		m->cmd = eq + 1;
		return 0;
	}
	return add_pair(m, cap, s, eq + 1, why);
}

/* PMI-1: words separated by spaces (tabs and a trailing '\r' too). */
static int parse_v1(pxc_pmi_msg_t *m, const char **why)
{
	size_t cap = 0;
	char *p = m->buf;

	while (*p) {
		char *w;

		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
		if (take_word(m, &cap, w, "cmd", why) < 0)
			return -1;
	}
	return m->cmd ? 0 : (*why = "an empty request", -1);
}

/* mcmd: one key=value per line, up to a line "endcmd". */
static int parse_mcmd(pxc_pmi_msg_t *m, const char **why)
{
	size_t cap = 0;
	char *p = m->buf;
	bool ended = false;

	while (*p && !ended) {
		char *line = p, *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : p + strlen(p);
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!*line)
			continue;
		if (!strcmp(line, "endcmd")) {
			ended = true;
			break;
		}
		if (take_word(m, &cap, line, "mcmd", why) < 0)
			return -1;
	}
	if (!ended)
		return *why = "an mcmd block without endcmd", -1;
	return m->cmd ? 0 : (*why = "an empty request", -1);
}

/* PMI-2: "k=v;" items; ";;" inside a value is one ';'. */
static int parse_v2(pxc_pmi_msg_t *m, const char **why)
{
	size_t cap = 0;
	char *p = m->buf;

	while (*p) {
		char *w = p, *out = p;
		bool in_val = false;

		while (*p) {
			if (*p == ';' && in_val && p[1] == ';') {
				*out++ = ';';
				p += 2;
				continue;
			}
			if (*p == ';')
				break;
			in_val |= *p == '=';
			*out++ = *p++;
		}
		if (*p)
			p++;
		*out = '\0';
		if (!*w)
			continue;
		if (take_word(m, &cap, w, "cmd", why) < 0)
			return -1;
	}
	return m->cmd ? 0 : (*why = "an empty request", -1);
}

int pxc_pmi_parse(pxc_pmi_shape_t shape, const char *body, size_t len, pxc_pmi_msg_t *m,
		  const char **why)
{
	memset(m, 0, sizeof(*m));
	m->shape = shape;
	if (len > PXC_PMI_MAX_MSG)
		return *why = "request too long", -1;
	if (memchr(body, '\0', len))
		return *why = "a NUL byte in the request", -1;
	if (!(m->buf = malloc(len + 1)))
		return *why = "out of memory", -1;
	memcpy(m->buf, body, len);
	m->buf[len] = '\0';
	switch (shape) {
	case PXC_PMI_SHAPE_V1: return parse_v1(m, why);
	case PXC_PMI_SHAPE_MCMD: return parse_mcmd(m, why);
	case PXC_PMI_SHAPE_V2: return parse_v2(m, why);
	}
	return *why = "unknown request shape", -1;
}

void pxc_pmi_msg_clear(pxc_pmi_msg_t *m)
{
	if (!m)
		return;
	free(m->pairs);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

const char *pxc_pmi_get_nth(const pxc_pmi_msg_t *m, const char *key, size_t n)
{
	for (size_t i = 0; i < m->npairs; i++)
		if (!strcmp(m->pairs[i].key, key) && n-- == 0)
			return m->pairs[i].val;
	return NULL;
}

const char *pxc_pmi_get(const pxc_pmi_msg_t *m, const char *key)
{
	return pxc_pmi_get_nth(m, key, 0);
}

int pxc_pmi_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* ------------------------------------------------------------- framing */

void pxc_pmi_reader_init(pxc_pmi_reader_t *r)
{
	memset(r, 0, sizeof(*r));
	r->version = PXC_PMI_V1;
}

void pxc_pmi_reader_clear(pxc_pmi_reader_t *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

#define READER_MAX (PXC_PMI_MAX_MSG + 8 + PXC_PMI_READ_CHUNK)

int pxc_pmi_reader_feed(pxc_pmi_reader_t *r, const char *data, size_t n)
{
	while (n) {
		size_t room, take;

		if (r->cap < READER_MAX) {
			char *grown = realloc(r->buf, READER_MAX);

			if (!grown)
				return errno = ENOMEM, -1;
			r->buf = grown;
			r->cap = READER_MAX;
		}
		room = r->cap - r->len;
		if (!room) /* next() must consume or fail first */
			return errno = ENOBUFS, -1;
		take = n < room ? n : room;
		memcpy(r->buf + r->len, data, take);
		r->len += take;
		data += take;
		n -= take;
	}
	return 0;
}

static void consume(pxc_pmi_reader_t *r, size_t n)
{
	memmove(r->buf, r->buf + n, r->len - n);
	r->len -= n;
}

static int take_body(pxc_pmi_reader_t *r, size_t off, size_t n, size_t skip, char **body,
		     size_t *len)
{
	char *b = malloc(n + 1);

	if (!b)
		return -1;
	memcpy(b, r->buf + off, n);
	b[n] = '\0';
	consume(r, skip);
	*body = b;
	*len = n;
	return 1;
}

/* A line (or, after a line "mcmd=...", the block up to "endcmd"). */
static int next_v1(pxc_pmi_reader_t *r, pxc_pmi_shape_t *shape, char **body, size_t *len,
		   const char **why, bool *fatal)
{
	char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
	size_t n;

	if (r->skipping) {
		if (!nl) {
			r->len = 0;
			return 0;
		}
		consume(r, (size_t)(nl - r->buf) + 1);
		r->skipping = false;
		nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
	}
	if (r->len >= 5 && !memcmp(r->buf, "mcmd=", 5)) {
		/* the block ends with a line "endcmd" */
		for (size_t i = 0; i + 7 <= r->len; i++)
			if ((i == 0 || r->buf[i - 1] == '\n') &&
			    !memcmp(r->buf + i, "endcmd\n", 7)) {
				*shape = PXC_PMI_SHAPE_MCMD;
				return take_body(r, 0, i + 6, i + 7, body, len);
			}
		if (r->len > PXC_PMI_MAX_MSG)
			return *fatal = true, *why = "mcmd request too long", -1;
		return 0;
	}
	if (!nl) {
		if (r->len >= PXC_PMI_MAX_LINE) {
			r->len = 0;
			r->skipping = true;
			return *fatal = false, *why = "line too long", -1;
		}
		return 0;
	}
	n = (size_t)(nl - r->buf);
	if (n + 1 > PXC_PMI_MAX_LINE) {
		consume(r, n + 1);
		return *fatal = false, *why = "line too long", -1;
	}
	*shape = PXC_PMI_SHAPE_V1;
	return take_body(r, 0, n, n + 1, body, len);
}

/* A 6-character length and the body. */
static int next_v2(pxc_pmi_reader_t *r, pxc_pmi_shape_t *shape, char **body, size_t *len,
		   const char **why, bool *fatal)
{
	char digits[7];
	long n;
	size_t i = 0;

	if (r->len < 6)
		return 0;
	memcpy(digits, r->buf, 6);
	digits[6] = '\0';
	while (digits[i] == ' ')
		i++;
	for (size_t k = 6; k > i && digits[k - 1] == ' '; k--)
		digits[k - 1] = '\0'; /* left-justified lengths too */
	if (pxc_pmi_int(digits + i, 1, 999999, &n) < 0)
		return *fatal = true, *why = "a PMI-2 message without a valid length", -1;
	if ((size_t)n > PXC_PMI_MAX_MSG)
		return *fatal = true, *why = "PMI-2 message too long", -1;
	if (r->len < 6 + (size_t)n)
		return 0;
	*shape = PXC_PMI_SHAPE_V2;
	return take_body(r, 6, (size_t)n, 6 + (size_t)n, body, len);
}

int pxc_pmi_reader_next(pxc_pmi_reader_t *r, pxc_pmi_shape_t *shape, char **body, size_t *len,
			const char **why, bool *fatal)
{
	int rc;

	*body = NULL;
	*fatal = false;
	rc = r->version == PXC_PMI_V2 ? next_v2(r, shape, body, len, why, fatal) :
					next_v1(r, shape, body, len, why, fatal);
	if (rc == -1 && !*why)
		*why = "out of memory";
	return rc;
}

/* ------------------------------------------------------------- replies */

static void out_put(pxc_pmi_out_t *o, const char *s, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *grown = realloc(o->buf, cap);

		if (!grown) {
			o->failed = true;
			return;
		}
		o->buf = grown;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void pxc_pmi_out_begin(pxc_pmi_out_t *o, pxc_pmi_version_t v, const char *cmd)
{
	memset(o, 0, sizeof(*o));
	o->version = v;
	if (v == PXC_PMI_V2)
		out_put(o, "      ", 6);
	out_put(o, "cmd=", 4);
	out_put(o, cmd, strlen(cmd));
	if (v == PXC_PMI_V2)
		out_put(o, ";", 1);
}

void pxc_pmi_out_add(pxc_pmi_out_t *o, const char *key, const char *val)
{
	if (o->version == PXC_PMI_V1)
		out_put(o, " ", 1);
	out_put(o, key, strlen(key));
	out_put(o, "=", 1);
	for (const char *p = val ? val : ""; *p; p++) {
		char c = *p;

		if (o->version == PXC_PMI_V1 && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
			c = '_';
		else if (o->version == PXC_PMI_V2 && c == ';')
			out_put(o, ";", 1);
		out_put(o, &c, 1);
	}
	if (o->version == PXC_PMI_V2)
		out_put(o, ";", 1);
}

void pxc_pmi_out_addi(pxc_pmi_out_t *o, const char *key, long val)
{
	char num[24];

	snprintf(num, sizeof(num), "%ld", val);
	pxc_pmi_out_add(o, key, num);
}

int pxc_pmi_out_end(pxc_pmi_out_t *o)
{
	char num[8];

	if (o->version == PXC_PMI_V1)
		out_put(o, "\n", 1);
	if (o->failed)
		return -1;
	if (o->version == PXC_PMI_V2) {
		if (o->len - 6 > 999999)
			return -1;
		snprintf(num, sizeof(num), "%6zu", o->len - 6);
		memcpy(o->buf, num, 6);
	}
	return 0;
}

void pxc_pmi_out_clear(pxc_pmi_out_t *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------------ preamble */

int pxc_pmi_preamble_write(int fd, pid_t pid)
{
	unsigned char b[PXC_PMI_PREAMBLE_LEN];
	uint32_t m = PXC_PMI_PREAMBLE_MAGIC, p = (uint32_t)pid;
	size_t done = 0;

	for (int i = 0; i < 4; i++) {
		b[i] = (unsigned char)(m >> (24 - 8 * i));
		b[4 + i] = (unsigned char)(p >> (24 - 8 * i));
	}
	while (done < sizeof(b)) {
		ssize_t n = write(fd, b + done, sizeof(b) - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

pid_t pxc_pmi_preamble_pid(const unsigned char in[PXC_PMI_PREAMBLE_LEN])
{
	uint32_t m = 0, p = 0;

	for (int i = 0; i < 4; i++) {
		m = m << 8 | in[i];
		p = p << 8 | in[4 + i];
	}
	if (m != PXC_PMI_PREAMBLE_MAGIC || p == 0 || p > 0x7fffffffu)
		return -1;
	return (pid_t)p;
}
