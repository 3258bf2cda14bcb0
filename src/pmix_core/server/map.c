/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * map.c - what register_nspace derives from the host's info when the host
 * left it implicit:
 *   - from PMIX_NODE_MAP + PMIX_PROC_MAP (parsed by common/regex.h: our
 *     regex format or plain lists "n1,n2" and "0,1;2-3"), each proc's PMIX_HOSTNAME and PMIX_NODEID and
 *     each node's PMIX_HOSTNAME/PMIX_NODEID records, when missing;
 *   - the local node's keys (PMIX_LOCAL_PEERS, PMIX_LOCAL_SIZE,
 *     PMIX_LOCALLDR, PMIX_NODE_SIZE, PMIX_LOCAL_CPUSETS, ...) copied to job
 *     level, where clients Get them with rank WILDCARD, when the host gave
 *     them only per node; and PMIX_LOCAL_PEERS/SIZE/LOCALLDR from the proc
 *     map when nobody gave them.
 * Progress thread only (the store is its own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "regex.h"
#include "map.h"

/* ---------------------------------------------------------- node ids */

typedef struct {
	const char *host;
	uint32_t found;
	uint32_t max;
	bool any;
} nodefind_t;

static int node_visit(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		      const pmix_value_t *val, uint8_t kind, void *arg)
{
	nodefind_t *f = arg;

	(void)ns;
	(void)lvl;
	(void)kind;
	if (!f->any || id > f->max)
		f->max = id;
	f->any = true;
	if (strcmp(key, PMIX_HOSTNAME) == 0 && val->type == PMIX_STRING && val->data.string &&
	    strcmp(val->data.string, f->host) == 0)
		f->found = id;
	return 0;
}

uint32_t pxc_map_node_id(const char *ns, const char *host, bool create)
{
	nodefind_t f = { .host = host, .found = UINT32_MAX };

	pxc_store_foreach(pxc_srv.store, ns, PXC_LVL_NODE, PXC_ID_ANY, PXC_KINDS_ALL, node_visit,
			  &f);
	if (f.found != UINT32_MAX || !create)
		return f.found;
	return f.any ? f.max + 1 : 0;
}

/* ------------------------------------------------------------- helpers */

static bool has(const char *ns, pxc_level_t lvl, uint32_t id, const char *key)
{
	return pxc_store_get(pxc_srv.store, ns, lvl, id, key, NULL) != NULL;
}

static void put_str(const char *ns, pxc_level_t lvl, uint32_t id, const char *key, const char *s)
{
	pmix_value_t v = { .type = PMIX_STRING };

	v.data.string = (char *)s;
	if (!has(ns, lvl, id, key))
		pxc_store_put(pxc_srv.store, ns, lvl, id, key, &v, PMIX_SCOPE_UNDEF);
}

static void put_u32(const char *ns, pxc_level_t lvl, uint32_t id, const char *key, uint32_t u,
		    pmix_data_type_t type)
{
	pmix_value_t v = { .type = type };

	v.data.uint32 = u;
	if (!has(ns, lvl, id, key))
		pxc_store_put(pxc_srv.store, ns, lvl, id, key, &v, PMIX_SCOPE_UNDEF);
}

/* Calls fn for each rank of a list like "0,2-4" (bounded). */
static int each_rank(const char *list, void (*fn)(uint32_t, void *), void *arg)
{
	const char *p = list;
	char *end;

	while (*p) {
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a || b - a > (1u << 24))
				return -1;
		}
		for (unsigned long r = a; r <= b; r++)
			fn((uint32_t)r, arg);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

typedef struct {
	const char *ns;
	const char *host;
	uint32_t nodeid;
	bool local;
	char *peers; /* local ranks, "r0,r1" */
	uint32_t nlocal;
	uint32_t lldr;
} rankctx_t;

static void rank_fn(uint32_t r, void *arg)
{
	rankctx_t *c = arg;
	char *s;

	put_str(c->ns, PXC_LVL_PROC, r, PMIX_HOSTNAME, c->host);
	put_u32(c->ns, PXC_LVL_PROC, r, PMIX_NODEID, c->nodeid, PMIX_UINT32);
	if (!c->local)
		return;
	if (c->nlocal == 0 || r < c->lldr)
		c->lldr = r;
	c->nlocal++;
	if (asprintf(&s, "%s%s%u", c->peers ? c->peers : "", c->peers ? "," : "", r) >= 0) {
		free(c->peers);
		c->peers = s;
	}
}

static void local_from_map(rankctx_t *c)
{
	const char *ns = c->ns;

	if (c->peers)
		put_str(ns, PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS, c->peers);
	put_u32(ns, PXC_LVL_JOB, 0, PMIX_LOCAL_SIZE, c->nlocal, PMIX_UINT32);
	if (c->nlocal)
		put_u32(ns, PXC_LVL_JOB, 0, PMIX_LOCALLDR, c->lldr, PMIX_PROC_RANK);
	free(c->peers);
	c->peers = NULL;
}

static void derive_from_maps(const char *ns, char **nodes, char **ranks)
{
	for (size_t i = 0; nodes[i] && ranks[i]; i++) {
		rankctx_t c = { .ns = ns, .host = nodes[i] };

		c.nodeid = pxc_map_node_id(ns, nodes[i], true);
		put_str(ns, PXC_LVL_NODE, c.nodeid, PMIX_HOSTNAME, nodes[i]);
		put_u32(ns, PXC_LVL_NODE, c.nodeid, PMIX_NODEID, c.nodeid, PMIX_UINT32);
		c.local = strcmp(nodes[i], pxc_srv.hostname) == 0;
		if (each_rank(ranks[i], rank_fn, &c) < 0)
			pxc_error("server: bad proc map entry '%s' ignored", ranks[i]);
		if (c.local)
			local_from_map(&c);
		free(c.peers);
	}
}

/* Keys a client Gets with rank WILDCARD that hosts often give per node. */
static const char *const local_keys[] = { PMIX_LOCAL_PEERS,   PMIX_LOCAL_SIZE,
					  PMIX_LOCALLDR,      PMIX_NODE_SIZE,
					  PMIX_LOCAL_CPUSETS, PMIX_AVAIL_PHYS_MEMORY,
					  PMIX_NODEID,        PMIX_NODE_OVERSUBSCRIBED,
					  PMIX_LOCAL_PROCS,   NULL };

static void copy_local_node(const char *ns)
{
	uint32_t id = pxc_map_node_id(ns, pxc_srv.hostname, false);

	if (id == UINT32_MAX)
		return;
	for (int i = 0; local_keys[i]; i++) {
		const pmix_value_t *v = pxc_store_get(pxc_srv.store, ns, PXC_LVL_NODE, id,
						      local_keys[i], NULL);

		if (v && !has(ns, PXC_LVL_JOB, 0, local_keys[i]))
			pxc_store_put(pxc_srv.store, ns, PXC_LVL_JOB, 0, local_keys[i], v,
				      PMIX_SCOPE_UNDEF);
	}
}

/* Expands the maps to node names and per-node rank lists. */
static int parse_maps(const pmix_value_t *nm, const pmix_value_t *pm, char ***nodes, char ***ranks)
{
	char *nt = NULL, *pt = NULL;
	int rc = -1;

	*nodes = *ranks = NULL;
	if (pxc_regex_value_text(nm, &nt) == 0 && pxc_regex_value_text(pm, &pt) == 0 &&
	    pxc_regex_parse_nodes(nt, nodes) == 0 && pxc_regex_parse_ppn(pt, ranks) == 0)
		rc = 0;
	free(nt);
	free(pt);
	return rc;
}

void pxc_map_derive(const char *ns)
{
	const pmix_value_t *nm, *pm;
	char **nodes = NULL, **ranks = NULL;

	copy_local_node(ns);
	nm = pxc_store_get(pxc_srv.store, ns, PXC_LVL_JOB, 0, PMIX_NODE_MAP, NULL);
	pm = pxc_store_get(pxc_srv.store, ns, PXC_LVL_JOB, 0, PMIX_PROC_MAP, NULL);
	if (!nm || !pm)
		return;
	if (parse_maps(nm, pm, &nodes, &ranks) == 0)
		derive_from_maps(ns, nodes, ranks);
	else
		pxc_error("server: %s: cannot parse the node/proc maps", ns);
	pxc_regex_argv_free(nodes);
	pxc_regex_argv_free(ranks);
}
