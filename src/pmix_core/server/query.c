/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.c - QUERY: what the server knows itself, the rest from the host.
 *
 * Answered here: PMIX_QUERY_NAMESPACES, PMIX_QUERY_NAMESPACE_INFO,
 * PMIX_JOB_SIZE (PMIX_NSPACE qualifier), PMIX_QUERY_PROC_TABLE and
 * PMIX_QUERY_LOCAL_PROC_TABLE (pmix_proc_info_t arrays, pids from HELLO),
 * PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, PMIX_QUERY_PSET_MEMBERSHIP
 * (PMIX_PSET_NAME qualifier), PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES,
 * _GROUP_MEMBERSHIP (PMIX_GROUP_ID qualifier; the groups of this server's
 * clients, group.c), PMIX_QUERY_STABLE_ABI_VERSION,
 * PMIX_QUERY_PROVISIONAL_ABI_VERSION, PMIX_SERVER_URI,
 * PMIX_QUERY_SUPPORTED_KEYS, PMIX_QUERY_ATTRIBUTE_SUPPORT (every level,
 * the host's from its PMIx_Register_attributes: common/attr_support.c;
 * one info per level asked, and the keys after it in the Standard's form
 * are its function names, not keys). Each answer is one info whose key is the query
 * key. Other keys go to the host's query in one call, and so do
 * NAMESPACES and NAMESPACE_INFO when the host has one (it may know every
 * namespace of the allocation; what it leaves unanswered of those two is
 * answered here). Every key answered: success; some: PMIX_QUERY_PARTIAL_
 * SUCCESS (the reply then carries INFO[] results too); none: the host's
 * error, or PMIX_ERR_NOT_SUPPORTED.
 * Progress thread, except pxc_server_query's entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "upcall.h"
#include "server.h"
#include "peer.h"
#include "nspace.h"
#include "query.h"
#include "group.h"
#include "proto.h"
#include "attr_support.h"

static bool res_str(pxc_infolist_t *r, const char *key, const char *s)
{
	pmix_info_t *i = pxc_infolist_add(r, key);

	return i && PMIx_Info_load(i, key, s, PMIX_STRING) == PMIX_SUCCESS;
}

static const char *qual_nspace(const pmix_query_t *q)
{
	const pmix_info_t *i = pxc_info_find(q->qualifiers, q->nqual, PMIX_NSPACE);

	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* Appends s to a comma list. */
static int append(char **list, const char *s)
{
	char *n;

	if (asprintf(&n, "%s%s%s", *list ? *list : "", *list ? "," : "", s) < 0)
		return -1;
	free(*list);
	*list = n;
	return 0;
}

static bool ans_namespaces(pxc_infolist_t *r, const char *key)
{
	char *list = NULL;
	bool ok = true;

	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns && ok; ns = ns->next)
		if (ns->registered)
			ok = append(&list, ns->name) == 0;
	ok = ok && res_str(r, key, list ? list : "");
	free(list);
	return ok;
}

/* An array with one info per namespace, each an array of its facts (here
 * PMIX_NSPACE only; a host adds more). */
static bool ans_nsinfo(pxc_infolist_t *r, const char *key)
{
	size_t n = 0, i = 0;
	pmix_data_array_t da = { .type = PMIX_INFO };
	pmix_info_t *arr, *out;
	bool ok = true;

	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns; ns = ns->next)
		n += ns->registered;
	arr = n ? PMIx_Info_create(n) : NULL;
	if (n && !arr)
		return false;
	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns && ok; ns = ns->next) {
		pmix_info_t one;
		pmix_data_array_t d1 = { .type = PMIX_INFO, .size = 1, .array = &one };

		if (!ns->registered)
			continue;
		PMIx_Info_construct(&one);
		ok = PMIx_Info_load(&one, PMIX_NSPACE, ns->name, PMIX_STRING) == PMIX_SUCCESS &&
		     PMIx_Info_load(&arr[i++], key, &d1, PMIX_DATA_ARRAY) == PMIX_SUCCESS;
		PMIx_Info_destruct(&one);
	}
	da.size = n;
	da.array = arr;
	out = ok ? pxc_infolist_add(r, key) : NULL;
	ok = out && PMIx_Info_load(out, key, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS;
	if (arr)
		PMIx_Info_free(arr, n);
	return ok;
}

static bool ans_job_size(pxc_infolist_t *r, const char *key, const pmix_query_t *q)
{
	const char *ns = qual_nspace(q);
	const pmix_value_t *v = ns ? pxc_store_get(pxc_srv.store, ns, PXC_LVL_JOB, 0, PMIX_JOB_SIZE,
						   NULL) :
				     NULL;
	pmix_info_t *i;

	if (!v)
		return false;
	i = pxc_infolist_add(r, key);
	return i && PMIx_Value_xfer(&i->value, v) == PMIX_SUCCESS;
}

static void fill_pinfo(pmix_proc_info_t *pi, const char *nsname, pmix_rank_t rank)
{
	pmix_proc_t proc;
	pxc_sclient_t *cl;
	pxc_snspace_t *ns;
	const pmix_value_t *h;

	PMIx_Load_procid(&proc, nsname, rank);
	cl = pxc_client_find(&proc);
	pi->proc = proc;
	h = pxc_store_get(pxc_srv.store, nsname, PXC_LVL_PROC, rank, PMIX_HOSTNAME, NULL);
	if (h && h->type == PMIX_STRING && h->data.string)
		pi->hostname = strdup(h->data.string);
	else if (cl)
		pi->hostname = strdup(pxc_srv.hostname);
	if (cl)
		pi->pid = cl->pid ? cl->pid : cl->host_pid;
	else if ((ns = pxc_ns_find(nsname)) && ns->rpids && rank < ns->nrpids)
		pi->pid = ns->rpids[rank];
	pi->state = !cl           ? PMIX_PROC_STATE_UNDEF :
		    cl->lost      ? PMIX_PROC_STATE_COMM_FAILED :
		    cl->finalized ? PMIX_PROC_STATE_TERMINATED :
		    cl->peer      ? PMIX_PROC_STATE_CONNECTED :
				    PMIX_PROC_STATE_LAUNCH_UNDERWAY;
}

static bool ans_ptable(pxc_infolist_t *r, const char *key, const pmix_query_t *q, bool local)
{
	const char *nsname = qual_nspace(q);
	pxc_snspace_t *ns = nsname ? pxc_ns_find(nsname) : NULL;
	const pmix_value_t *js = nsname ? pxc_store_get(pxc_srv.store, nsname, PXC_LVL_JOB, 0,
							PMIX_JOB_SIZE, NULL) :
					  NULL;
	size_t n = 0, i = 0;
	pmix_data_array_t da = { .type = PMIX_PROC_INFO };
	pmix_proc_info_t *arr;
	pmix_info_t *out;
	bool ok;

	if (!ns)
		return false;
	if (!local && js && js->type == PMIX_UINT32 && js->data.uint32 < (1u << 22))
		n = js->data.uint32;
	else
		local = true, n = ns->nclients;
	arr = n ? PMIx_Proc_info_create(n) : NULL;
	if (n && !arr)
		return false;
	if (local)
		for (pxc_sclient_t *c = ns->clients; c; c = c->next)
			fill_pinfo(&arr[i++], ns->name, c->proc.rank);
	else
		for (; i < n; i++)
			fill_pinfo(&arr[i], ns->name, (pmix_rank_t)i);
	da.size = n;
	da.array = arr;
	out = pxc_infolist_add(r, key);
	ok = out && PMIx_Info_load(out, key, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS;
	if (arr)
		PMIx_Proc_info_free(arr, n);
	return ok;
}

static bool ans_psets(pxc_infolist_t *r, const char *key, bool names)
{
	size_t n = 0;
	char *list = NULL;
	pmix_info_t *i;
	bool ok = true;

	for (pxc_pset_t *p = pxc_srv.psets; p && ok; p = p->next, n++)
		ok = !names || append(&list, p->name) == 0;
	if (names) {
		ok = ok && res_str(r, key, list ? list : "");
		free(list);
		return ok;
	}
	i = pxc_infolist_add(r, key);
	return i && PMIx_Info_load(i, key, &n, PMIX_SIZE) == PMIX_SUCCESS;
}

/* PMIX_QUERY_PSET_MEMBERSHIP: the members of the set the PMIX_PSET_NAME
 * qualifier names, a DATA_ARRAY of PMIX_PROC; false for no such set. */
static bool ans_pset_members(pxc_infolist_t *r, const char *key, const pmix_query_t *q)
{
	const pmix_info_t *n = pxc_info_find(q->qualifiers, q->nqual, PMIX_PSET_NAME);
	pmix_data_array_t da = { .type = PMIX_PROC };
	pmix_info_t *out;

	if (!n || n->value.type != PMIX_STRING || !n->value.data.string)
		return false;
	for (pxc_pset_t *p = pxc_srv.psets; p; p = p->next) {
		if (strcmp(p->name, n->value.data.string))
			continue;
		da.size = p->nmembers;
		da.array = p->members;
		out = pxc_infolist_add(r, key);
		if (out && PMIx_Info_load(out, key, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS)
			return true;
		if (out)
			r->n--;
		return false;
	}
	return false;
}

/* The groups (group.c): PMIX_QUERY_NUM_GROUPS (SIZE), _GROUP_NAMES (a
 * DATA_ARRAY of STRING), _GROUP_MEMBERSHIP of the group the PMIX_GROUP_ID
 * qualifier names (a DATA_ARRAY of PROC; false for no such group). */
typedef struct {
	const char *want; /* MEMBERSHIP: the group */
	size_t n;
	char **names;
	pmix_data_array_t members;
	bool failed;
} grpq_t;

static bool grp_visit(const char *name, const pmix_proc_t *m, size_t n, void *arg)
{
	grpq_t *g = arg;
	char **grown;

	if (g->want) {
		if (strcmp(name, g->want))
			return true;
		g->members = (pmix_data_array_t){ .type = PMIX_PROC,
						  .size = n,
						  .array = (void *)m };
		g->n = 1;
		return false;
	}
	if (!(grown = realloc(g->names, (g->n + 1) * sizeof(*grown))) ||
	    !(grown[g->n] = strdup(name))) {
		g->names = grown ? grown : g->names;
		g->failed = true;
		return false;
	}
	g->names = grown;
	g->n++;
	return true;
}

static bool ans_groups(pxc_infolist_t *r, const char *key, const pmix_query_t *q)
{
	const pmix_info_t *id = pxc_info_find(q->qualifiers, q->nqual, PMIX_GROUP_ID);
	bool members = strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) == 0;
	grpq_t g = { 0 };
	pmix_data_array_t names = { .type = PMIX_STRING };
	pmix_info_t *out;
	bool ok;

	if (members && (!id || id->value.type != PMIX_STRING || !id->value.data.string))
		return false;
	g.want = members ? id->value.data.string : NULL;
	pxc_grp_foreach(grp_visit, &g);
	names.size = g.n;
	names.array = g.names;
	out = g.failed || (members && !g.n) ? NULL : pxc_infolist_add(r, key);
	ok = out && (members ? PMIx_Info_load(out, key, &g.members, PMIX_DATA_ARRAY) :
		     strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0 ?
			       PMIx_Info_load(out, key, &g.n, PMIX_SIZE) :
			       PMIx_Info_load(out, key, &names, PMIX_DATA_ARRAY)) == PMIX_SUCCESS;
	if (out && !ok)
		r->n--;
	for (size_t i = 0; !members && i < g.n; i++)
		free(g.names[i]);
	free(g.names);
	return ok;
}

/* A failed answer leaves nothing behind (a broken qualifier: unanswered). */
static bool ans_attrs(pxc_infolist_t *r, const pmix_query_t *q)
{
	size_t n0 = r->n;

	if (pxc_attr_query_answer(q, r) == PMIX_SUCCESS)
		return true;
	while (r->n > n0)
		PMIx_Info_destruct(&r->info[--r->n]);
	return false;
}

/* The Standard's attribute query: PMIX_QUERY_ATTRIBUTE_SUPPORT first, the
 * function names after it (answered with it). */
static bool attrs_first(const pmix_query_t *q)
{
	return q->keys && q->keys[0] && strcmp(q->keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0;
}

/* clang-format: two passes disagree on it */
/* clang-format off */
#define SUPPORTED_KEYS PMIX_QUERY_NAMESPACES "," PMIX_QUERY_NAMESPACE_INFO "," \
	PMIX_JOB_SIZE "," PMIX_QUERY_PROC_TABLE "," PMIX_QUERY_LOCAL_PROC_TABLE "," \
	PMIX_QUERY_NUM_PSETS "," PMIX_QUERY_PSET_NAMES "," PMIX_QUERY_PSET_MEMBERSHIP "," \
	PMIX_QUERY_NUM_GROUPS "," PMIX_QUERY_GROUP_NAMES "," PMIX_QUERY_GROUP_MEMBERSHIP "," \
	PMIX_QUERY_STABLE_ABI_VERSION "," \
	PMIX_QUERY_PROVISIONAL_ABI_VERSION "," PMIX_SERVER_URI "," PMIX_QUERY_ATTRIBUTE_SUPPORT
/* clang-format on */

/* The keys a host with a query of its own answers first (it knows more
 * namespaces than this server): answered here only when it does not. */
static bool host_first(const char *key)
{
	return strcmp(key, PMIX_QUERY_NAMESPACES) == 0 ||
	       strcmp(key, PMIX_QUERY_NAMESPACE_INFO) == 0;
}

/* Answers one key locally; false when the server cannot. */
static bool answer_key(pxc_infolist_t *r, const char *key, const pmix_query_t *q)
{
	if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0)
		return ans_namespaces(r, key);
	if (strcmp(key, PMIX_QUERY_NAMESPACE_INFO) == 0)
		return ans_nsinfo(r, key);
	if (strcmp(key, PMIX_JOB_SIZE) == 0)
		return ans_job_size(r, key, q);
	if (strcmp(key, PMIX_QUERY_PROC_TABLE) == 0)
		return ans_ptable(r, key, q, false);
	if (strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE) == 0)
		return ans_ptable(r, key, q, true);
	if (strcmp(key, PMIX_QUERY_PSET_MEMBERSHIP) == 0)
		return ans_pset_members(r, key, q);
	if (strcmp(key, PMIX_QUERY_NUM_PSETS) == 0 || strcmp(key, PMIX_QUERY_PSET_NAMES) == 0)
		return ans_psets(r, key, strcmp(key, PMIX_QUERY_PSET_NAMES) == 0);
	if (strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0 || strcmp(key, PMIX_QUERY_GROUP_NAMES) == 0 ||
	    strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) == 0)
		return ans_groups(r, key, q);
	if (strcmp(key, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ||
	    strcmp(key, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0)
		return res_str(r, key, "0.0");
	if (strcmp(key, PMIX_SERVER_URI) == 0)
		return res_str(r, key, pxc_srv.uri);
	if (strcmp(key, PMIX_QUERY_SUPPORTED_KEYS) == 0)
		return res_str(r, key, SUPPORTED_KEYS);
	if (strcmp(key, PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0)
		return ans_attrs(r, q);
	return false;
}

/* Answers what it can; the rest goes to rest[] (keys borrowed from q).
 * defer: leave the host_first keys to the host. */
static size_t answer_local(pmix_query_t *q, size_t nq, pxc_infolist_t *r, pmix_query_t *rest,
			   bool defer)
{
	size_t nrest = 0;

	for (size_t i = 0; i < nq; i++) {
		size_t nk = 0;

		bool names = attrs_first(&q[i]) && answer_key(r, q[i].keys[0], &q[i]);

		for (size_t k = 0; q[i].keys && q[i].keys[k]; k++)
			if (names)
				free(q[i].keys[k]);
			else if ((defer && host_first(q[i].keys[k])) ||
				 !answer_key(r, q[i].keys[k], &q[i]))
				q[i].keys[nk++] = q[i].keys[k];
			else
				free(q[i].keys[k]);
		for (size_t k = nk; q[i].keys && q[i].keys[k]; k++)
			q[i].keys[k] = NULL;
		if (nk)
			rest[nrest++] = q[i];
	}
	return nrest;
}

/* ---------------------------------------------------------------- QUERY */

/* Owned by the host request: rest (handed to the host) borrows the keys
 * and qualifiers of q, so both live until the request is freed. */
typedef struct {
	pxc_infolist_t local;
	pmix_query_t *q;
	size_t nq;
	pmix_query_t *rest; /* shallow copies of q's unanswered entries */
	size_t nrest;
} qctx_t;

static void qctx_free(void *arg)
{
	qctx_t *x = arg;

	if (!x)
		return;
	pxc_infolist_free(&x->local);
	free(x->rest);
	pxc_array_free(x->q, x->nq, PMIX_QUERY);
	free(x);
}

static void query_reply(uint64_t peer_id, uint32_t tag, pmix_status_t st, pxc_infolist_t *r)
{
	pmix_data_buffer_t body;

	pxc_buf_init(&body);
	if ((st == PMIX_SUCCESS || st == PMIX_QUERY_PARTIAL_SUCCESS) &&
	    pxc_pack_array(&body, r->info, r->n, PMIX_INFO) != PMIX_SUCCESS)
		st = PMIX_ERR_NOMEM;
	pxc_peer_reply_id(peer_id, PXC_CMD_QUERY, tag, st, &body);
	pxc_buf_clear(&body);
}

/* Whether r holds an answer named key among its entries from..n. */
static bool has_key(const pxc_infolist_t *r, size_t from, const char *key)
{
	for (size_t i = from; i < r->n; i++)
		if (PMIx_Check_key(r->info[i].key, key))
			return true;
	return false;
}

/* The host answered (or failed with host_st): the host_first keys it did
 * not answer are answered here. Then: success when every key the host was
 * given has an answer from it (or, for those keys, from here) and the host
 * did not say otherwise; partial success when some answer exists; else
 * the host's error (or PMIX_ERR_NOT_SUPPORTED when it had none). */
static void query_host_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	qctx_t *x = r->ctx;
	pmix_status_t host_st = res->status;
	bool host_all = host_st == PMIX_SUCCESS || host_st == PMIX_OPERATION_SUCCEEDED;
	bool host_ok = host_all || host_st == PMIX_QUERY_PARTIAL_SUCCESS;
	size_t missing = 0, filled = 0, n0 = x->local.n;
	pmix_status_t st;

	for (size_t i = 0; host_ok && i < res->ninfo; i++) {
		pmix_info_t *o = pxc_infolist_add(&x->local, res->info[i].key);

		if (o && PMIx_Info_xfer(o, &res->info[i]) != PMIX_SUCCESS) {
			PMIx_Info_destruct(o);
			x->local.n--;
		}
	}
	for (size_t i = 0; i < x->nrest; i++)
		for (size_t k = 0; x->rest[i].keys && x->rest[i].keys[k]; k++) {
			const char *key = x->rest[i].keys[k];

			if (has_key(&x->local, n0, key))
				continue;
			if (host_first(key) && answer_key(&x->local, key, &x->rest[i]))
				filled++;
			else
				missing++;
		}
	/* a key asked twice (other qualifiers) has one name in the answers:
	 * the host's word that something went unanswered stands, unless this
	 * server filled in what the host left (then that was it) */
	if (!missing && !host_all && !filled)
		missing = 1;
	st = !missing   ? PMIX_SUCCESS :
	     x->local.n ? PMIX_QUERY_PARTIAL_SUCCESS :
	     host_ok    ? PMIX_ERR_NOT_SUPPORTED :
			  host_st;
	query_reply(r->peer_id, r->tag, st, &x->local);
}

/* Hands x (and the queries it holds) to a host request. */
static void ask_host(pxc_peer_t *p, const pxc_wire_hdr_t *h, qctx_t *x)
{
	pxc_upcall_t *r = pxc_upcall_new(p, h->tag, h->cmd, query_host_done);

	if (!r) {
		query_reply(p->id, h->tag, pxc_upcall_new_status(), &x->local);
		qctx_free(x);
		return;
	}
	r->ctx = x;
	r->ctx_free = qctx_free;
	pxc_upcall_after_call(r, pxc_srv.module.query(&r->a.proc, x->rest, x->nrest,
						      pxc_upcall_cb_info, PXC_UPCALL_CBDATA(r)));
}

int pxc_do_query(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	qctx_t *x = calloc(1, sizeof(*x));

	if (!x)
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	if (pxc_unpack_array(in, (void **)&x->q, &x->nq, PMIX_QUERY) != PMIX_SUCCESS) {
		free(x);
		return -1;
	}
	x->rest = calloc(x->nq + 1, sizeof(*x->rest));
	if (!x->rest) {
		qctx_free(x);
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	}
	x->nrest = answer_local(x->q, x->nq, &x->local, x->rest, pxc_srv.module.query != NULL);
	if (x->nrest && pxc_srv.module.query) {
		ask_host(p, h, x);
	} else {
		query_reply(p->id, h->tag,
			    x->nrest == 0 ? PMIX_SUCCESS :
			    x->local.n    ? PMIX_QUERY_PARTIAL_SUCCESS :
					    PMIX_ERR_NOT_SUPPORTED,
			    &x->local);
		qctx_free(x);
	}
	return 0;
}

/* ------------------------------------------------------ pxc_server_query */

typedef struct {
	pxc_sync_t sync;
	pmix_query_t *q;
	size_t nq;
	pxc_infolist_t r;
	size_t nrest;
} sqop_t;

static void server_query_fn(void *arg)
{
	sqop_t *o = arg;
	pmix_query_t *rest = calloc(o->nq + 1, sizeof(*rest));

	if (!rest || !pxc_srv.running) {
		free(rest);
		pxc_sync_signal(&o->sync, rest ? PMIX_ERR_INIT : PMIX_ERR_NOMEM);
		return;
	}
	o->nrest = answer_local(o->q, o->nq, &o->r, rest, false);
	free(rest);
	pxc_sync_signal(&o->sync, PMIX_SUCCESS);
}

pmix_status_t pxc_server_query(pmix_query_t queries[], size_t nqueries, pmix_info_t **results,
			       size_t *nresults)
{
	sqop_t o = { .nq = nqueries };
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!queries || !nqueries || !results || !nresults)
		return PMIX_ERR_BAD_PARAM;
	/* Work on a copy: answer_local consumes keys. */
	pxc_buf_init(&b);
	st = pxc_pack_array(&b, queries, nqueries, PMIX_QUERY);
	if (st == PMIX_SUCCESS)
		st = pxc_unpack_array(&b, (void **)&o.q, &o.nq, PMIX_QUERY);
	pxc_buf_clear(&b);
	if (st != PMIX_SUCCESS)
		return st;
	pxc_sync_init(&o.sync);
	st = pxc_srv_call_wait(server_query_fn, &o, &o.sync);
	pxc_sync_fini(&o.sync);
	pxc_array_free(o.q, o.nq, PMIX_QUERY);
	if (st == PMIX_SUCCESS && o.r.n == 0)
		st = PMIX_ERR_NOT_SUPPORTED;
	else if (st == PMIX_SUCCESS && o.nrest)
		st = PMIX_QUERY_PARTIAL_SUCCESS;
	if (st != PMIX_SUCCESS && st != PMIX_QUERY_PARTIAL_SUCCESS) {
		pxc_infolist_free(&o.r);
		return st;
	}
	*results = o.r.info; /* realloc'ed array of infos: free with PMIx_Info_free */
	*nresults = o.r.n;
	return st;
}
