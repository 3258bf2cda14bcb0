/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resolve.c - PMIx_Resolve_peers and PMIx_Resolve_nodes, answered from
 * the client store alone.
 *
 * Peers are the processes whose proc-level PMIX_HOSTNAME record names the
 * node (nodename NULL = this host); nodes are the node-level PMIX_HOSTNAME
 * records of a namespace, or the distinct hostnames of its processes when
 * the server registered no node records. nspace NULL or "" means every
 * namespace the store knows (own job, connected and spawned jobs whose
 * data was merged). Runs in the caller's thread under the read lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"

struct peers {
	const char *host;
	pmix_proc_t *procs;
	size_t n, cap;
	bool nomem;
};

static int add_peer(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		    const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct peers *p = arg;
	pmix_proc_t *np;

	(void)lvl, (void)kind;
	if (strcmp(key, PMIX_HOSTNAME) != 0 || val->type != PMIX_STRING || !val->data.string ||
	    strcmp(val->data.string, p->host) != 0)
		return 0;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		if (!(np = realloc(p->procs, p->cap * sizeof(*np)))) {
			p->nomem = true;
			return 1;
		}
		p->procs = np;
	}
	pxc_proc_load(&p->procs[p->n++], ns, id);
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const pmix_proc_t *x = a, *y = b;
	int c = strcmp(x->nspace, y->nspace);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

pmix_status_t PMIx_Resolve_peers(const char *nodename, const pmix_nspace_t nspace,
				 pmix_proc_t **procs, size_t *nprocs)
{
	struct peers p = { .host = nodename };
	const char *ns = nspace && nspace[0] ? nspace : NULL;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	*procs = NULL;
	*nprocs = 0;
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	pthread_rwlock_rdlock(&pxc_cl.store_lock);
	if (!p.host)
		p.host = pxc_cl.hostname;
	pxc_store_foreach(pxc_cl.store, ns, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_INFO, add_peer, &p);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	if (p.nomem || p.n == 0) {
		free(p.procs);
		return p.nomem ? PMIX_ERR_NOMEM : PMIX_ERR_NOT_FOUND;
	}
	qsort(p.procs, p.n, sizeof(*p.procs), cmp_proc);
	*procs = p.procs;
	*nprocs = p.n;
	return PMIX_SUCCESS;
}

struct nodes {
	char *list;
	size_t len;
	bool nomem;
};

static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static int add_node(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		    const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct nodes *nl = arg;
	size_t n;
	char *nb;

	(void)ns, (void)lvl, (void)id, (void)kind;
	if (strcmp(key, PMIX_HOSTNAME) != 0 || val->type != PMIX_STRING || !val->data.string ||
	    list_has(nl->list, val->data.string))
		return 0;
	n = strlen(val->data.string);
	if (!(nb = realloc(nl->list, nl->len + n + 2))) {
		nl->nomem = true;
		return 1;
	}
	nl->list = nb;
	if (nl->len)
		nl->list[nl->len++] = ',';
	memcpy(nl->list + nl->len, val->data.string, n + 1);
	nl->len += n;
	return 0;
}

pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist)
{
	struct nodes nl = { NULL, 0, false };
	const char *ns = nspace && nspace[0] ? nspace : NULL;

	if (!nodelist)
		return PMIX_ERR_BAD_PARAM;
	*nodelist = NULL;
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	pthread_rwlock_rdlock(&pxc_cl.store_lock);
	pxc_store_foreach(pxc_cl.store, ns, PXC_LVL_NODE, PXC_ID_ANY, PXC_KINDS_INFO, add_node,
			  &nl);
	if (!nl.nomem && nl.len == 0)
		pxc_store_foreach(pxc_cl.store, ns, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_INFO,
				  add_node, &nl);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	if (nl.nomem || nl.len == 0) {
		free(nl.list);
		return nl.nomem ? PMIX_ERR_NOMEM : PMIX_ERR_NOT_FOUND;
	}
	*nodelist = nl.list;
	return PMIX_SUCCESS;
}
