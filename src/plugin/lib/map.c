/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/map.c - process map encoder and decoder; format in lib/map.h.
 * The decoder walks the string once, appending ranks to a node-ordered
 * array and marking them in a seen[] table, so duplicates, gaps, ranks out
 * of range and counts that disagree with the header are all rejected.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/map.h"

/* ---- encoder ------------------------------------------------------------ */

/* Checks that the layout lists every rank of 0..ntasks-1 exactly once. */
static int layout_check(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids,
			uint32_t *ntasks)
{
	uint64_t n = 0;
	unsigned char *seen;

	for (uint32_t i = 0; i < nnodes; i++) {
		if (!tasks[i]) /* a step node always runs a task */
			return errno = EINVAL, -1;
		n += tasks[i];
	}
	if (!nnodes || nnodes > PLUG_MAP_MAX_NODES || !n || n > PLUG_MAP_MAX_TASKS)
		return errno = EINVAL, -1;
	if (!(seen = calloc(n, 1)))
		return -1;
	for (uint32_t i = 0; i < nnodes; i++) {
		for (uint32_t j = 0; j < tasks[i]; j++) {
			if (!tids[i] || tids[i][j] >= n || seen[tids[i][j]]++) {
				free(seen);
				return errno = EINVAL, -1;
			}
		}
	}
	free(seen);
	*ntasks = (uint32_t)n;
	return 0;
}

/* Writes one node's ranks as runs of constant positive stride. */
static void encode_node(FILE *f, const uint32_t *t, uint32_t n)
{
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		uint32_t d = (j < n && t[j] > t[i]) ? t[j] - t[i] : 0;

		while (d && j + 1 < n && t[j + 1] > t[j] && t[j + 1] - t[j] == d)
			j++;
		if (i)
			fputc(',', f);
		if (!d || (j == i + 1 && d != 1)) { /* single rank */
			fprintf(f, "%u", t[i]);
			i++;
		} else if (d == 1) {
			fprintf(f, "%u-%u", t[i], t[j]);
			i = j + 1;
		} else {
			fprintf(f, "%u-%u:%u", t[i], t[j], d);
			i = j + 1;
		}
	}
}

char *plug_map_encode(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids)
{
	uint32_t ntasks;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!tasks || !tids)
		return errno = EINVAL, NULL;
	if (layout_check(nnodes, tasks, tids, &ntasks) < 0)
		return NULL;
	if (!(f = open_memstream(&buf, &len)))
		return NULL;
	fprintf(f, "1;%u;", ntasks);
	for (uint32_t i = 0; i < nnodes; i++) {
		if (i)
			fputc('|', f);
		encode_node(f, tids[i], tasks[i]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return errno = ENOMEM, NULL;
	}
	return buf;
}

/* ---- decoder ------------------------------------------------------------ */

typedef struct {
	const char *p; /* cursor */
	plug_map_t *m;
	uint32_t filled; /* ranks appended so far */
	unsigned char *seen;
} parser_t;

/* Reads a decimal number < limit; advances. 0 or -1. */
static int read_num(parser_t *ps, uint64_t limit, uint32_t *out)
{
	uint64_t v = 0;
	const char *s = ps->p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= limit)
			return -1;
	}
	ps->p = s;
	*out = (uint32_t)v;
	return 0;
}

static int add_rank(parser_t *ps, uint32_t r, uint32_t node)
{
	if (r >= ps->m->ntasks || ps->seen[r] || ps->filled >= ps->m->ntasks)
		return -1;
	ps->seen[r] = 1;
	ps->m->node_of[r] = node;
	ps->m->ranks[ps->filled++] = r;
	return 0;
}

/* One item "a", "a-b" or "a-b:s" of node `node`. */
static int parse_item(parser_t *ps, uint32_t node)
{
	uint32_t a, b, s = 1, n = ps->m->ntasks;

	if (read_num(ps, n, &a) < 0)
		return -1;
	b = a;
	if (*ps->p == '-' && (ps->p++, read_num(ps, n, &b) < 0 || b < a))
		return -1;
	if (*ps->p == ':' && (ps->p++, read_num(ps, (uint64_t)n + 1, &s) < 0 || !s || (b - a) % s))
		return -1;
	for (uint64_t r = a; r <= b; r += s) {
		if (add_rank(ps, (uint32_t)r, node) < 0)
			return -1;
	}
	return 0;
}

static int parse_nodes(parser_t *ps)
{
	plug_map_t *m = ps->m;

	for (uint32_t node = 0; node < m->nnodes; node++) {
		m->first[node] = ps->filled;
		do {
			if (parse_item(ps, node) < 0)
				return -1;
		} while (*ps->p == ',' && ps->p++);
		m->count[node] = ps->filled - m->first[node];
		if (*ps->p != (node + 1 < m->nnodes ? '|' : '\0'))
			return -1;
		ps->p++;
	}
	return ps->filled == m->ntasks ? 0 : -1;
}

/* Header "1;<ntasks>;" and the node count ('|' + 1). */
static int parse_header(const char *text, uint32_t *ntasks, uint32_t *nnodes, const char **body)
{
	parser_t ps = { .p = text };
	uint64_t bars = 0;

	if (strncmp(text, "1;", 2))
		return -1;
	ps.p += 2;
	if (read_num(&ps, (uint64_t)PLUG_MAP_MAX_TASKS + 1, ntasks) < 0 || !*ntasks || *ps.p != ';')
		return -1;
	*body = ps.p + 1;
	for (const char *s = *body; *s; s++)
		bars += (*s == '|');
	if (bars + 1 > PLUG_MAP_MAX_NODES || bars + 1 > *ntasks)
		return -1;
	*nnodes = (uint32_t)bars + 1;
	return 0;
}

static plug_map_t *map_alloc(uint32_t nnodes, uint32_t ntasks)
{
	plug_map_t *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nnodes = nnodes;
	m->ntasks = ntasks;
	m->node_of = calloc(ntasks, sizeof(uint32_t));
	m->ranks = calloc(ntasks, sizeof(uint32_t));
	m->count = calloc(nnodes, sizeof(uint32_t));
	m->first = calloc(nnodes, sizeof(uint32_t));
	if (!m->node_of || !m->ranks || !m->count || !m->first) {
		plug_map_free(m);
		return errno = ENOMEM, NULL;
	}
	return m;
}

plug_map_t *plug_map_decode(const char *text)
{
	uint32_t ntasks, nnodes;
	const char *body;
	parser_t ps = { 0 };

	if (!text || parse_header(text, &ntasks, &nnodes, &body) < 0)
		return errno = EINVAL, NULL;
	if (!(ps.m = map_alloc(nnodes, ntasks)))
		return NULL;
	if (!(ps.seen = calloc(ntasks, 1))) {
		plug_map_free(ps.m);
		return errno = ENOMEM, NULL;
	}
	ps.p = body;
	if (parse_nodes(&ps) < 0) {
		plug_map_free(ps.m);
		ps.m = NULL;
		errno = EINVAL;
	}
	free(ps.seen);
	return ps.m;
}

void plug_map_free(plug_map_t *map)
{
	if (!map)
		return;
	free(map->node_of);
	free(map->ranks);
	free(map->count);
	free(map->first);
	free(map);
}

int plug_map_local_rank(const plug_map_t *map, uint32_t rank)
{
	uint32_t node;

	if (!map || rank >= map->ntasks)
		return -1;
	node = map->node_of[rank];
	for (uint32_t i = 0; i < map->count[node]; i++) {
		if (map->ranks[map->first[node] + i] == rank)
			return (int)i;
	}
	return -1;
}

/* ---- MPICH's PMI_process_mapping ---------------------------------------- */

typedef struct {
	uint32_t node, count, ppn;
} anl_block_t;

/* Blocks of the map in rank order: runs of consecutive ranks on one node,
 * merged while the nodes are consecutive and the run lengths equal. */
static size_t anl_blocks(const plug_map_t *m, anl_block_t *b)
{
	size_t n = 0;

	for (uint32_t r = 0; r < m->ntasks;) {
		uint32_t node = m->node_of[r], len = 0;

		while (r < m->ntasks && m->node_of[r] == node)
			r++, len++;
		if (n && b[n - 1].ppn == len && b[n - 1].node + b[n - 1].count == node)
			b[n - 1].count++;
		else
			b[n++] = (anl_block_t){ node, 1, len };
	}
	return n;
}

/* The shortest prefix whose repetition is the whole list (readers repeat
 * the blocks until every rank is placed, as with Slurm's own mapping). */
static size_t anl_period(const anl_block_t *b, size_t n)
{
	for (size_t p = 1; p < n; p++) {
		size_t i = p;

		if (n % p)
			continue;
		while (i < n && b[i].node == b[i % p].node && b[i].count == b[i % p].count &&
		       b[i].ppn == b[i % p].ppn)
			i++;
		if (i == n)
			return p;
	}
	return n;
}

char *plug_map_anl(const plug_map_t *m)
{
	anl_block_t *b = m && m->ntasks ? malloc(m->ntasks * sizeof(*b)) : NULL;
	size_t n, cap, len;
	char *out;

	if (!b)
		return errno = m ? ENOMEM : EINVAL, NULL;
	n = anl_period(b, anl_blocks(m, b));
	cap = 16 + n * 36;
	if (!(out = malloc(cap))) {
		free(b);
		return NULL;
	}
	len = (size_t)snprintf(out, cap, "(vector");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, cap - len, ",(%u,%u,%u)", b[i].node, b[i].count,
					b[i].ppn);
	snprintf(out + len, cap - len, ")");
	free(b);
	return out;
}
