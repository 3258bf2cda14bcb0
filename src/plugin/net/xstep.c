/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/xstep.c - what a stepd knows about the other steps of its job, for
 * fences, connects and direct modex across namespaces (docs/dynamic.md
 * section 5): per other nspace ("slurmix.<job>.<step>", same job), the
 * step file its srun wrote (node list, process map, endpoints), fetched
 * once with a STEPINFO request to our own srun (both sruns run on the
 * job's srun host and share the job directory), and the peer id of each
 * of its nodes (plug_net_peer). A fetch that fails is forgotten after its
 * waiters are told, so a later operation asks again.
 *
 * Progress thread only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "lib/endpoints.h"
#include "lib/map.h"
#include "net/ctx.h"
#include "net/transport.h"
#include "net/xstep.h"
#include "slurm_adapter.h"

typedef struct need {
	struct need *next;
	pmix_proc_t *procs;
	size_t n;
	plug_xstep_cb_f cb;
	void *arg;
} need_t;

static plug_xstep_t *steps;
static need_t *needs;

static int foreign(const char *ns)
{
	return !PMIx_Check_nspace(ns, plug_net_ctx.nspace);
}

plug_xstep_t *plug_xstep_find(const char *nspace)
{
	for (plug_xstep_t *x = steps; x; x = x->next)
		if (PMIx_Check_nspace(x->nspace, nspace))
			return x;
	return NULL;
}

plug_xstep_t *plug_xstep_next(const plug_xstep_t *x)
{
	return x ? x->next : steps;
}

static void xstep_free(plug_xstep_t *x)
{
	for (plug_xstep_t **p = &steps; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	plug_map_free(x->map);
	for (uint32_t i = 0; x->hosts && x->hosts[i]; i++)
		free(x->hosts[i]);
	free(x->hosts);
	free(x->peer);
	free(x);
}

/* 1 ready, 0 wait, or an error status (< 0). */
static int need_state(const need_t *w)
{
	for (size_t i = 0; i < w->n; i++) {
		plug_xstep_t *x;

		if (!foreign(w->procs[i].nspace))
			continue;
		if (!(x = plug_xstep_find(w->procs[i].nspace)))
			return PMIX_ERR_NOT_FOUND;
		if (x->status != PMIX_SUCCESS)
			return x->status;
		if (!x->ready)
			return 0;
	}
	return 1;
}

static void recheck(void)
{
	need_t *w, *next, **pp;

	for (pp = &needs, w = needs; w; w = next) {
		int st = need_state(w);

		next = w->next;
		if (st == 0) {
			pp = &w->next;
			continue;
		}
		*pp = next;
		w->cb(st == 1 ? PMIX_SUCCESS : st, w->arg);
		free(w->procs);
		free(w);
	}
	/* failed fetches are told: forget them */
	for (plug_xstep_t *x = steps, *nx; x; x = nx) {
		nx = x->next;
		if (x->status != PMIX_SUCCESS)
			xstep_free(x);
	}
}

static int add_peer(void *arg, uint32_t node, const char *addr, uint16_t port)
{
	plug_xstep_t *x = arg;

	x->peer[node] = plug_net_peer(plug_net_ctx.net, x->step, node, addr, port);
	return x->peer[node] == UINT32_MAX ? -1 : 0;
}

/* The step file: nspace, node list, map, then the endpoint table
 * (net/boot.h). 0/-1. */
static int parse(plug_xstep_t *x, pmix_data_buffer_t *in)
{
	char *ns = NULL, *nodes = NULL, *map = NULL;
	uint32_t nh = 0;
	int rc = -1;

	if (pxc_unpack_str(in, &ns) != PMIX_SUCCESS || !ns || !PMIx_Check_nspace(ns, x->nspace) ||
	    pxc_unpack_str(in, &nodes) != PMIX_SUCCESS || !nodes ||
	    pxc_unpack_str(in, &map) != PMIX_SUCCESS || !map || !(x->map = plug_map_decode(map)) ||
	    !(x->hosts = plug_hostlist_expand(nodes, &nh)) || nh != x->map->nnodes ||
	    !(x->peer = calloc(nh, sizeof(*x->peer))))
		goto out;
	rc = plug_endpoints_unpack(in, nh, add_peer, x);
out:
	free(ns);
	free(nodes);
	free(map);
	return rc;
}

static void got_info(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	char *ns = arg;
	plug_xstep_t *x = plug_xstep_find(ns);

	free(ns);
	if (!x)
		return;
	if (st == PMIX_SUCCESS && parse(x, reply) < 0) {
		plug_error("bad step information for %s", x->nspace);
		st = PMIX_ERR_BAD_PARAM;
	}
	if (st != PMIX_SUCCESS)
		plug_error("no step information for %s: %s", x->nspace, PMIx_Error_string(st));
	x->status = st;
	x->ready = st == PMIX_SUCCESS;
	recheck();
}

/* Starts the fetch of ns. 0, or an error status. */
static pmix_status_t fetch(const char *ns)
{
	plug_xstep_t *x = calloc(1, sizeof(*x));
	pmix_data_buffer_t b;
	uint32_t step;
	char *arg = strndup(ns, PMIX_MAX_NSLEN);

	if (!x || !arg || plug_nspace_parse(ns, NULL, &step) < 0) {
		free(x);
		free(arg);
		return x && arg ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOMEM;
	}
	snprintf(x->nspace, sizeof(x->nspace), "%s", ns);
	x->step = step;
	x->next = steps;
	steps = x;
	pxc_buf_init(&b);
	pxc_pack_str(&b, ns);
	if (plug_agent_request(PLUG_NET_STEPINFO, &b, 0, got_info, arg) < 0) {
		pxc_buf_clear(&b);
		free(arg);
		xstep_free(x);
		return PMIX_ERR_UNREACH;
	}
	pxc_buf_clear(&b);
	return PMIX_SUCCESS;
}

int plug_xstep_need(const pmix_proc_t *procs, size_t n, plug_xstep_cb_f cb, void *arg)
{
	need_t *w;
	pmix_status_t st;

	for (size_t i = 0; i < n; i++)
		if (foreign(procs[i].nspace) && !plug_xstep_find(procs[i].nspace) &&
		    (st = fetch(procs[i].nspace)) != PMIX_SUCCESS)
			return st;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->procs = malloc(n * sizeof(*procs)))) {
		free(w);
		return PMIX_ERR_NOMEM;
	}
	memcpy(w->procs, procs, n * sizeof(*procs));
	w->n = n;
	if ((st = need_state(w)) != 0) {
		free(w->procs);
		free(w);
		return st; /* 1: ready now */
	}
	w->cb = cb;
	w->arg = arg;
	{ /* at the end: callbacks run in call order */
		need_t **pp = &needs;

		while (*pp)
			pp = &(*pp)->next;
		*pp = w;
	}
	return 0;
}

/* STEPLIST's answer: every step of the job with a step file. */
typedef struct {
	plug_xstep_cb_f cb;
	void *arg;
} all_t;

static void got_list(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
	all_t *a = cbdata;
	pmix_proc_t *procs = NULL;
	uint32_t n = 0, id, job = 0, me = 0, k = 0;

	if (st == PMIX_SUCCESS &&
	    (plug_nspace_parse(plug_net_ctx.nspace, &job, &me) < 0 ||
	     pxc_unpack_u32(reply, &n) != PMIX_SUCCESS || n > pxc_buf_remaining(reply) ||
	     !(procs = calloc(n ? n : 1, sizeof(*procs)))))
		st = PMIX_ERR_BAD_PARAM;
	for (uint32_t i = 0; st == PMIX_SUCCESS && i < n; i++) {
		if (pxc_unpack_u32(reply, &id) != PMIX_SUCCESS) {
			st = PMIX_ERR_BAD_PARAM;
		} else if (id != me) {
			snprintf(procs[k].nspace, sizeof(procs[k].nspace), "slurmix.%u.%u", job,
				 id);
			procs[k++].rank = PMIX_RANK_WILDCARD;
		}
	}
	if (st != PMIX_SUCCESS)
		plug_flag("the job's steps: %s", PMIx_Error_string(st));
	else if ((st = plug_xstep_need(procs, k, a->cb, a->arg)) == 0)
		a = NULL; /* a->cb runs once they are known */
	if (a)
		a->cb(st == 1 ? PMIX_SUCCESS : st, a->arg);
	free(procs);
	free(cbdata);
}

int plug_xstep_all(plug_xstep_cb_f cb, void *arg)
{
	all_t *a = malloc(sizeof(*a));

	if (!a)
		return PMIX_ERR_NOMEM;
	a->cb = cb;
	a->arg = arg;
	if (plug_agent_request(PLUG_NET_STEPLIST, NULL, 0, got_list, a) < 0) {
		free(a);
		return PMIX_ERR_UNREACH;
	}
	return 0;
}

bool plug_xstep_route(const char *nspace, const plug_map_t **map, const uint32_t **peer)
{
	plug_xstep_t *x;

	if (PMIx_Check_nspace(nspace, plug_net_ctx.nspace)) {
		*map = plug_net_ctx.map;
		*peer = NULL;
		return true;
	}
	x = plug_xstep_find(nspace);
	if (!x || !x->ready || x->status != PMIX_SUCCESS || !x->map || !x->peer)
		return false;
	*map = x->map;
	*peer = x->peer;
	return true;
}

void plug_xstep_stop(void)
{
	while (needs) {
		need_t *w = needs;

		needs = w->next;
		w->cb(PMIX_ERR_UNREACH, w->arg);
		free(w->procs);
		free(w);
	}
	while (steps)
		xstep_free(steps);
}
