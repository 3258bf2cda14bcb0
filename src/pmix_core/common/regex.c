/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * regex.c - PMIx_generate_regex / PMIx_generate_ppn and their parsers.
 *
 * Our maps are printable NUL-terminated strings that start with
 * "slurmix:", so a host may hand them to PMIx_server_register_nspace as
 * PMIX_STRING or as PMIX_REGEX (a byte object; OpenPMIx sets its size to
 * strlen + 1, and we accept it with or without the NUL).
 *
 * Node map: "slurmix:" then comma-separated items, in input order:
 *   name                    a literal node name
 *   prefix[ranges]suffix    one name per number in ranges, each
 *                           prefix + number + suffix
 * ranges is a comma-separated list of "a" or "a-b" (a <= b, up to 18
 * digits). A bound written with a leading zero ("007") fixes the width:
 * every number of that range is zero-padded to it; otherwise numbers are
 * printed plainly. Example: n001,n002,...,n016,login1 ->
 * "slurmix:n[001-016],login1". The generator takes the last run of
 * digits of each name as its number, groups consecutive names with equal
 * prefix and suffix, and keeps order and duplicates. Names holding '['
 * or ']' cannot be represented (PMIX_ERR_BAD_PARAM).
 *
 * Process map: "slurmix:" then one entry per node, separated by ';':
 *   ranks                   comma-separated "r" or "r-s" (may be empty)
 *   +S*K or -S*K            K more nodes, each holding the ranks of the
 *                           node before it shifted by +S or -S
 * Example: 4 nodes x 8 ranks in blocks -> "slurmix:0-7;+8*3"; round robin
 * over 2 nodes -> "slurmix:0,2,4,6;+1*1". The generator writes a repeat for
 * runs of two or more nodes, or of one node holding more than two ranks.
 *
 * The parsers accept the same grammar without the prefix (plain lists
 * such as "n1,n2" or "0,1;2,3", as Slurm passes them), refuse malformed
 * text with EINVAL, and refuse maps expanding to more than
 * PXC_REGEX_MAX_NODES names or PXC_REGEX_MAX_RANKS ranks.
 *
 * Thread safety: no state; any thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_server.h>

#include "regex.h"

#define MAX_DIGITS 18

/* ------------------------------------------------------------------ */
/* growing strings and argvs                                           */

struct sbuf {
	char *s;
	size_t len, cap;
	bool fail;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->fail)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->fail = true;
		return;
	}
	if (!b->s || b->len + (size_t)n >= b->cap) {
		size_t cap = (b->cap ? b->cap : 64);
		char *p;

		while (cap <= b->len + (size_t)n)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->fail = true;
			return;
		}
		b->s = p;
		b->cap = cap;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Returns the string (caller frees), or NULL/ENOMEM. */
static char *sb_take(struct sbuf *b)
{
	if (!b->s)
		sb_printf(b, "%s", "");
	if (b->fail) {
		free(b->s);
		errno = ENOMEM;
		return NULL;
	}
	return b->s;
}

struct argvb {
	char **v;
	size_t n, cap;
};

void pxc_regex_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Appends s (taken over, freed on failure). 0 or -1/ENOMEM. */
static int av_push(struct argvb *a, char *s)
{
	if (!s)
		return -1;
	if (a->n + 1 >= a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof(char *));

		if (!v) {
			free(s);
			errno = ENOMEM;
			return -1;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

static void av_clear(struct argvb *a)
{
	pxc_regex_argv_free(a->v);
	memset(a, 0, sizeof(*a));
}

/* Hands the argv over (an empty one is a valid, empty argv). */
static int av_take(struct argvb *a, char ***out)
{
	if (!a->v) {
		a->v = calloc(1, sizeof(char *));
		if (!a->v) {
			errno = ENOMEM;
			return -1;
		}
	}
	*out = a->v;
	memset(a, 0, sizeof(*a));
	return 0;
}

static int einval(void)
{
	errno = EINVAL;
	return -1;
}

static pmix_status_t errno_status(void)
{
	return errno == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
}

/* Strips our prefix when present. */
static const char *body_of(const char *text)
{
	size_t n = strlen(PXC_REGEX_PREFIX);

	return strncmp(text, PXC_REGEX_PREFIX, n) == 0 ? text + n : text;
}

/* Parses exactly len decimal digits (1..MAX_DIGITS). */
static int parse_num(const char *s, size_t len, uint64_t *v)
{
	size_t i;

	if (!len || len > MAX_DIGITS)
		return einval();
	*v = 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return einval();
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* node maps: parsing                                                  */

struct span {
	uint64_t lo, hi;
	int width; /* zero-padding width, 0 = plain */
};

/* Parses "a" or "a-b" (len bytes at s). */
static int parse_span(const char *s, size_t len, struct span *sp)
{
	const char *dash = memchr(s, '-', len);
	size_t l1 = dash ? (size_t)(dash - s) : len;

	if (parse_num(s, l1, &sp->lo))
		return -1;
	sp->hi = sp->lo;
	if (dash && parse_num(dash + 1, len - l1 - 1, &sp->hi))
		return -1;
	if (sp->hi < sp->lo)
		return einval();
	sp->width = (s[0] == '0' && l1 > 1) ? (int)l1 : 0;
	return 0;
}

static int push_name(struct argvb *a, const char *pfx, size_t plen, uint64_t num, int width,
		     const char *sfx, size_t slen)
{
	char *s;

	if (a->n >= PXC_REGEX_MAX_NODES)
		return einval();
	if (asprintf(&s, "%.*s%0*llu%.*s", (int)plen, pfx, width, (unsigned long long)num,
		     (int)slen, sfx) < 0) {
		errno = ENOMEM;
		return -1;
	}
	return av_push(a, s);
}

/* Expands prefix[ranges]suffix; ranges is rlen bytes at r. */
static int expand_bracket(struct argvb *a, const char *pfx, size_t plen, const char *r, size_t rlen,
			  const char *sfx, size_t slen)
{
	const char *end = r + rlen;

	while (r <= end) {
		const char *comma = memchr(r, ',', (size_t)(end - r));
		size_t len = comma ? (size_t)(comma - r) : (size_t)(end - r);
		struct span sp;
		uint64_t v;

		if (parse_span(r, len, &sp))
			return -1;
		if (sp.hi - sp.lo >= PXC_REGEX_MAX_NODES)
			return einval();
		for (v = sp.lo; v <= sp.hi; v++)
			if (push_name(a, pfx, plen, v, sp.width, sfx, slen))
				return -1;
		r += len + 1;
	}
	return 0;
}

/* Parses one item (len bytes at s, no top-level comma inside). */
static int parse_item(struct argvb *a, const char *s, size_t len)
{
	const char *open = memchr(s, '[', len), *close;
	char *name;

	if (!len)
		return einval();
	if (!open) {
		if (memchr(s, ']', len) || a->n >= PXC_REGEX_MAX_NODES)
			return einval();
		name = strndup(s, len);
		if (!name)
			errno = ENOMEM;
		return av_push(a, name);
	}
	close = memchr(open, ']', len - (size_t)(open - s));
	if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)) ||
	    memchr(close + 1, '[', len - (size_t)(close + 1 - s)) ||
	    memchr(close + 1, ']', len - (size_t)(close + 1 - s)))
		return einval();
	return expand_bracket(a, s, (size_t)(open - s), open + 1, (size_t)(close - open - 1),
			      close + 1, len - (size_t)(close + 1 - s));
}

int pxc_regex_parse_nodes(const char *regex, char ***names)
{
	struct argvb a = { NULL, 0, 0 };
	const char *p;
	int depth = 0;

	if (!regex || !names)
		return einval();
	p = body_of(regex);
	if (!*p)
		return einval();
	for (const char *item = p;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if ((*p == ',' && depth == 0) || !*p) {
			if (parse_item(&a, item, (size_t)(p - item))) {
				av_clear(&a);
				return -1;
			}
			if (!*p)
				break;
			item = p + 1;
		}
	}
	return av_take(&a, names);
}

/* ------------------------------------------------------------------ */
/* node maps: generation                                               */

/* A name split around its last run of digits. */
struct split {
	const char *name, *digits;
	size_t len, plen, dlen; /* whole name, prefix, digits */
	uint64_t num;
	bool numeric;
};

static void split_name(const char *name, size_t len, struct split *sp)
{
	size_t end = len, start;

	memset(sp, 0, sizeof(*sp));
	sp->name = name;
	sp->len = len;
	while (end > 0 && (name[end - 1] < '0' || name[end - 1] > '9'))
		end--;
	start = end;
	while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
		start--;
	if (end == start || end - start > MAX_DIGITS)
		return;
	sp->digits = name + start;
	sp->plen = start;
	sp->dlen = end - start;
	sp->numeric = parse_num(sp->digits, sp->dlen, &sp->num) == 0;
}

static bool same_frame(const struct split *a, const struct split *b)
{
	size_t as = a->len - a->plen - a->dlen, bs = b->len - b->plen - b->dlen;

	return a->numeric && b->numeric && a->plen == b->plen && as == bs &&
	       !memcmp(a->name, b->name, a->plen) &&
	       !memcmp(a->digits + a->dlen, b->digits + b->dlen, as);
}

/* True when num printed at width reads exactly as the digits of sp. */
static bool prints_as(const struct split *sp, uint64_t num, int width)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%0*llu", width, (unsigned long long)num);

	return n > 0 && (size_t)n == sp->dlen && !memcmp(tmp, sp->digits, sp->dlen);
}

static void put_span(struct sbuf *b, const struct span *sp, bool first)
{
	sb_printf(b, "%s%0*llu", first ? "" : ",", sp->width, (unsigned long long)sp->lo);
	if (sp->hi > sp->lo)
		sb_printf(b, "-%0*llu", sp->width, (unsigned long long)sp->hi);
}

/* Writes names[i..j) (one frame) as a bracket item, or the literal. */
static void put_group(struct sbuf *b, const struct split *s, size_t n)
{
	struct span sp = { s[0].num, s[0].num, 0 };
	bool first = true;
	size_t i;

	if (n == 1) {
		sb_printf(b, "%.*s", (int)s[0].len, s[0].name);
		return;
	}
	sb_printf(b, "%.*s[", (int)s[0].plen, s[0].name);
	sp.width = s[0].digits[0] == '0' && s[0].dlen > 1 ? (int)s[0].dlen : 0;
	for (i = 1; i < n; i++) {
		if (s[i].num == sp.hi + 1 && prints_as(&s[i], s[i].num, sp.width)) {
			sp.hi++;
			continue;
		}
		put_span(b, &sp, first);
		first = false;
		sp.lo = sp.hi = s[i].num;
		sp.width = s[i].digits[0] == '0' && s[i].dlen > 1 ? (int)s[i].dlen : 0;
	}
	put_span(b, &sp, first);
	sb_printf(b, "]%.*s", (int)(s[0].len - s[0].plen - s[0].dlen), s[0].digits + s[0].dlen);
}

/* Splits input at commas; every name must be non-empty and bracket-free. */
static int split_names(const char *input, struct split **out, size_t *n)
{
	size_t cnt = 1, i = 0;
	const char *p, *q;
	struct split *s;

	for (p = input; *p; p++) {
		if (*p == '[' || *p == ']')
			return einval();
		cnt += *p == ',';
	}
	if (cnt > PXC_REGEX_MAX_NODES)
		return einval();
	s = calloc(cnt, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	for (p = input; i < cnt; p = q + 1, i++) {
		q = strchr(p, ',');
		if (!q)
			q = p + strlen(p);
		if (q == p) {
			free(s);
			return einval();
		}
		split_name(p, (size_t)(q - p), &s[i]);
	}
	*out = s;
	*n = cnt;
	return 0;
}

static int make_node_regex(const char *input, char **regex)
{
	struct sbuf b = { NULL, 0, 0, false };
	struct split *s = NULL;
	size_t n = 0, i, j;

	if (split_names(input, &s, &n))
		return -1;
	sb_printf(&b, "%s", PXC_REGEX_PREFIX);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_frame(&s[i], &s[j]); j++)
			;
		sb_printf(&b, "%s", i ? "," : "");
		put_group(&b, s + i, j - i);
	}
	free(s);
	*regex = sb_take(&b);
	return *regex ? 0 : -1;
}

pmix_status_t PMIx_generate_regex(const char *input, char **regex)
{
	if (!input || !regex || !*input)
		return PMIX_ERR_BAD_PARAM;
	*regex = NULL;
	return make_node_regex(input, regex) ? errno_status() : PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* process maps                                                        */

struct ranks {
	uint32_t *r;
	size_t n, cap;
};

struct pmap {
	struct ranks *node;
	size_t n, cap;
	size_t total; /* ranks over all nodes, bounded */
};

static int ranks_push(struct ranks *rk, uint64_t v, size_t *total)
{
	if (v > UINT32_MAX || *total >= PXC_REGEX_MAX_RANKS)
		return einval();
	if (rk->n == rk->cap) {
		size_t cap = rk->cap ? rk->cap * 2 : 8;
		uint32_t *r = realloc(rk->r, cap * sizeof(uint32_t));

		if (!r) {
			errno = ENOMEM;
			return -1;
		}
		rk->r = r;
		rk->cap = cap;
	}
	rk->r[rk->n++] = (uint32_t)v;
	(*total)++;
	return 0;
}

static struct ranks *pmap_add_node(struct pmap *m)
{
	if (m->n >= PXC_REGEX_MAX_NODES) {
		errno = EINVAL;
		return NULL;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct ranks *nd = realloc(m->node, cap * sizeof(*nd));

		if (!nd) {
			errno = ENOMEM;
			return NULL;
		}
		m->node = nd;
		m->cap = cap;
	}
	memset(&m->node[m->n], 0, sizeof(m->node[0]));
	return &m->node[m->n++];
}

static void pmap_free(struct pmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->node[i].r);
	free(m->node);
	memset(m, 0, sizeof(*m));
}

/* Parses a rank list "0,2-5" (len bytes at s; empty = no ranks). */
static int parse_ranks(struct pmap *m, struct ranks *rk, const char *s, size_t len)
{
	const char *end = s + len;

	while (len && s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t l = comma ? (size_t)(comma - s) : (size_t)(end - s);
		struct span sp;
		uint64_t v;

		if (parse_span(s, l, &sp))
			return -1;
		if (sp.hi - sp.lo >= PXC_REGEX_MAX_RANKS)
			return einval();
		for (v = sp.lo; v <= sp.hi; v++)
			if (ranks_push(rk, v, &m->total))
				return -1;
		s += l + 1;
	}
	return 0;
}

/* Parses "+S*K" / "-S*K": K copies of the last node shifted by S each. */
static int parse_repeat(struct pmap *m, const char *s, size_t len)
{
	const char *star = memchr(s, '*', len);
	uint64_t shift, k, i, j;

	if (!m->n || !star || parse_num(s + 1, (size_t)(star - s - 1), &shift) ||
	    parse_num(star + 1, len - (size_t)(star - s) - 1, &k) || !k || k > PXC_REGEX_MAX_NODES)
		return einval();
	for (i = 0; i < k; i++) {
		struct ranks *nd = pmap_add_node(m), *prev;

		if (!nd)
			return -1;
		prev = nd - 1;
		if (!prev->n)
			return einval();
		for (j = 0; j < prev->n; j++) {
			int64_t v = (int64_t)prev->r[j] +
				    (*s == '-' ? -(int64_t)shift : (int64_t)shift);

			if (v < 0 || ranks_push(nd, (uint64_t)v, &m->total))
				return einval();
		}
	}
	return 0;
}

static int parse_pmap(const char *text, struct pmap *m)
{
	const char *p = text;

	memset(m, 0, sizeof(*m));
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		struct ranks *nd;
		int rc;

		if (len && (*p == '+' || *p == '-')) {
			rc = parse_repeat(m, p, len);
		} else {
			nd = pmap_add_node(m);
			rc = nd ? parse_ranks(m, nd, p, len) : -1;
		}
		if (rc) {
			pmap_free(m);
			return -1;
		}
		if (!semi)
			return 0;
		p = semi + 1;
	}
}

/* Writes a node's ranks as ranges "0-3,8". */
static void put_ranks(struct sbuf *b, const struct ranks *rk)
{
	size_t i = 0, j;

	while (i < rk->n) {
		for (j = i; j + 1 < rk->n && rk->r[j + 1] == rk->r[j] + 1; j++)
			;
		sb_printf(b, "%s%u", i ? "," : "", rk->r[i]);
		if (j > i)
			sb_printf(b, "-%u", rk->r[j]);
		i = j + 1;
	}
}

/* How many nodes after i repeat node i's predecessor pattern shifted by
 * the same amount as node i is from node i-1. */
static size_t repeat_run(const struct pmap *m, size_t i, int64_t *shift)
{
	const struct ranks *a = &m->node[i - 1], *b = &m->node[i];
	size_t k = 0, j;

	if (!a->n || a->n != b->n)
		return 0;
	*shift = (int64_t)b->r[0] - (int64_t)a->r[0];
	for (; i + k < m->n; k++) {
		a = &m->node[i + k - 1];
		b = &m->node[i + k];
		if (a->n != b->n)
			break;
		for (j = 0; j < a->n && (int64_t)b->r[j] - (int64_t)a->r[j] == *shift; j++)
			;
		if (j < a->n)
			break;
	}
	return k;
}

static int write_pmap(const struct pmap *m, char **out)
{
	struct sbuf b = { NULL, 0, 0, false };
	size_t i = 0, k;
	int64_t shift;

	sb_printf(&b, "%s", PXC_REGEX_PREFIX);
	while (i < m->n) {
		k = i ? repeat_run(m, i, &shift) : 0;
		if (k >= 2 || (k == 1 && m->node[i].n > 2)) {
			sb_printf(&b, "%s%c%lld*%zu", i ? ";" : "", shift < 0 ? '-' : '+',
				  (long long)(shift < 0 ? -shift : shift), k);
			i += k;
			continue;
		}
		sb_printf(&b, "%s", i ? ";" : "");
		put_ranks(&b, &m->node[i]);
		i++;
	}
	*out = sb_take(&b);
	return *out ? 0 : -1;
}

pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)
{
	struct pmap m;
	int rc;

	if (!input || !ppn || !*input)
		return PMIX_ERR_BAD_PARAM;
	*ppn = NULL;
	if (parse_pmap(input, &m))
		return errno_status();
	rc = write_pmap(&m, ppn);
	pmap_free(&m);
	return rc ? errno_status() : PMIX_SUCCESS;
}

int pxc_regex_parse_ppn(const char *ppn, char ***per_node)
{
	struct argvb a = { NULL, 0, 0 };
	struct pmap m;
	size_t i;

	if (!ppn || !per_node || !*body_of(ppn))
		return einval();
	if (parse_pmap(body_of(ppn), &m))
		return -1;
	for (i = 0; i < m.n; i++) {
		struct sbuf b = { NULL, 0, 0, false };
		size_t j;

		for (j = 0; j < m.node[i].n; j++)
			sb_printf(&b, "%s%u", j ? "," : "", m.node[i].r[j]);
		if (av_push(&a, sb_take(&b))) {
			av_clear(&a);
			pmap_free(&m);
			return -1;
		}
	}
	pmap_free(&m);
	return av_take(&a, per_node);
}

int pxc_regex_value_text(const pmix_value_t *val, char **out)
{
	const char *s;
	size_t len;

	if (!val || !out)
		return einval();
	if (val->type == PMIX_STRING) {
		s = val->data.string;
		len = s ? strlen(s) : 0;
	} else if (val->type == PMIX_REGEX) {
		s = val->data.bo.bytes;
		len = s ? strnlen(s, val->data.bo.size) : 0;
	} else {
		return einval();
	}
	if (!len)
		return einval();
	*out = strndup(s, len);
	if (!*out) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}
