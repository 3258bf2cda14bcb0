/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * get.c - PMIx_Put, PMIx_Commit, PMIx_Store_internal, PMIx_Get(_nb).
 *
 * PMIx_Get is the hot path of MPI start-up and of many programs: a Get
 * that the client's own store can answer (job-level keys with rank
 * WILDCARD, registered proc data, data from a fence) runs entirely in the
 * caller's thread under the store's read lock: no progress-thread
 * hand-off, no allocation beyond the returned value. Only a miss that may
 * be satisfied by the server (another process's posted data, another
 * namespace's job data, PMIX_GET_REFRESH_CACHE) becomes a GET request,
 * whose reply blob is merged into the store before the lookup is repeated.
 * The first GET of another process's posted data brings all of it; a
 * later miss on that process (a key posted since) asks for the key alone
 * (PXC_GET_KEY_ONLY), so a Get never costs the size of everything the
 * peer posted more than once.
 *
 * Lookup rules (reference: pmix-abi.md 2.7):
 *   rank WILDCARD   job level, then the node level of this host's node in
 *                   that namespace (PMIX_LOCAL_SIZE, PMIX_LOCAL_PEERS...);
 *   a rank          proc level, then job level, then the proc's node and
 *                   app levels;
 *   rank UNDEF      (also proc NULL) job level, then any proc of the nspace;
 *   PMIX_NODE_INFO / PMIX_APP_INFO / PMIX_SESSION_INFO qualifiers (with
 *                   PMIX_HOSTNAME / PMIX_NODEID / PMIX_APPNUM /
 *                   PMIX_SESSION_ID) select that level only, never the server;
 *   PMIX_GROUP_CONTEXT_ID qualifier: the proc's group info given to that
 *                   group's construct (server/group.c) first, then as
 *                   without it;
 *   key NULL        every record of the proc as a PMIX_DATA_ARRAY of INFO.
 * Misses: PMIX_OPTIONAL never asks the server; a reserved key of the own
 * namespace is not asked either (the HELLO blob held all registered data)
 * unless PMIX_GET_REFRESH_CACHE; everything else is asked.
 *
 * A PMIx_Put of a reserved key that the server registered for this
 * process is accepted and dropped: it would shadow the registered value
 * (Open MPI puts "pmix.hname" and aborts if the Put fails).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"
#include "server/get.h"

struct getopt {
	bool optional, refresh;
	int timeout_ms;
	int level; /* -1 default, else the qualified level */
	bool have_id;
	uint32_t id;
	char host[256];
	bool have_cid; /* PMIX_GROUP_CONTEXT_ID qualifier */
	uint64_t cid;
};

static void parse_qualifier(const pmix_info_t *in, struct getopt *o)
{
	const char *k = in->key;

	if (strcmp(k, PMIX_NODE_INFO) == 0)
		o->level = PXC_LVL_NODE;
	else if (strcmp(k, PMIX_APP_INFO) == 0)
		o->level = PXC_LVL_APP;
	else if (strcmp(k, PMIX_SESSION_INFO) == 0)
		o->level = PXC_LVL_SESSION;
	else if ((strcmp(k, PMIX_NODEID) == 0 || strcmp(k, PMIX_APPNUM) == 0 ||
		  strcmp(k, PMIX_SESSION_ID) == 0) &&
		 in->value.type == PMIX_UINT32) {
		o->have_id = true;
		o->id = in->value.data.uint32;
	} else if (strcmp(k, PMIX_HOSTNAME) == 0 && in->value.type == PMIX_STRING &&
		   in->value.data.string) {
		snprintf(o->host, sizeof(o->host), "%s", in->value.data.string);
	} else if (strcmp(k, PMIX_GROUP_CONTEXT_ID) == 0 &&
		   (in->value.type == PMIX_SIZE || in->value.type == PMIX_UINT64)) {
		o->have_cid = true;
		o->cid = in->value.type == PMIX_SIZE ? in->value.data.size : in->value.data.uint64;
	}
}

static void parse_opts(const pmix_info_t *info, size_t ninfo, struct getopt *o)
{
	o->optional = o->refresh = o->have_id = o->have_cid = false;
	o->timeout_ms = 0;
	o->level = -1;
	o->host[0] = '\0';
	for (size_t i = 0; i < ninfo; i++) {
		const char *k = info[i].key;

		if (strcmp(k, PMIX_OPTIONAL) == 0)
			o->optional = pxc_info_flag(&info[i], 1, k);
		else if (strcmp(k, PMIX_GET_REFRESH_CACHE) == 0)
			o->refresh = pxc_info_flag(&info[i], 1, k);
		else if (strcmp(k, PMIX_TIMEOUT) == 0)
			o->timeout_ms = pxc_request_timeout_ms(&info[i], 1);
		else
			parse_qualifier(&info[i], o);
	}
}

/* ---- local lookup (caller holds the store's read lock) ---- */

static bool rec_u32(const char *ns, int lvl, uint32_t id, const char *key, uint32_t *out)
{
	const pmix_value_t *v = pxc_store_get(pxc_cl.store, ns, lvl, id, key, NULL);

	if (!v)
		return false;
	if (v->type == PMIX_UINT32)
		*out = v->data.uint32;
	else if (v->type == PMIX_UINT16)
		*out = v->data.uint16;
	else if (v->type == PMIX_PROC_RANK)
		*out = v->data.rank;
	else
		return false;
	return true;
}

struct hostmatch {
	const char *host;
	uint32_t id;
	bool found;
};

static int match_host(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		      const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct hostmatch *m = arg;

	(void)ns, (void)lvl, (void)kind;
	if (strcmp(key, PMIX_HOSTNAME) != 0 || val->type != PMIX_STRING || !val->data.string ||
	    strcmp(val->data.string, m->host) != 0)
		return 0;
	m->id = id;
	m->found = true;
	return 1;
}

static const char *my_host(void)
{
	const pmix_value_t *v = pxc_store_get(pxc_cl.store, pxc_cl.me.nspace, PXC_LVL_PROC,
					      pxc_cl.me.rank, PMIX_HOSTNAME, NULL);

	return v && v->type == PMIX_STRING && v->data.string ? v->data.string : pxc_cl.hostname;
}

static bool node_of_host(const char *ns, const char *host, uint32_t *id)
{
	struct hostmatch m = { .host = host };

	pxc_store_foreach(pxc_cl.store, ns, PXC_LVL_NODE, PXC_ID_ANY, PXC_KINDS_ALL, match_host,
			  &m);
	*id = m.id;
	return m.found;
}

static bool qualified_id(const pmix_proc_t *p, const struct getopt *o, uint32_t *id)
{
	if (o->have_id) {
		*id = o->id;
		return true;
	}
	if (o->level == PXC_LVL_NODE)
		return node_of_host(p->nspace, o->host[0] ? o->host : my_host(), id) ||
		       (!o->host[0] && rec_u32(p->nspace, PXC_LVL_PROC, p->rank, PMIX_NODEID, id));
	if (o->level == PXC_LVL_APP) {
		*id = 0;
		rec_u32(p->nspace, PXC_LVL_PROC,
			PMIX_RANK_IS_VALID(p->rank) ? p->rank : pxc_cl.me.rank, PMIX_APPNUM, id);
		return true;
	}
	*id = 0;
	rec_u32(p->nspace, PXC_LVL_JOB, 0, PMIX_SESSION_ID, id);
	return true;
}

struct anyproc {
	const char *key;
	const pmix_value_t *val;
};

static int match_key(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		     const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct anyproc *a = arg;

	(void)ns, (void)lvl, (void)id, (void)kind;
	if (strcmp(key, a->key) != 0)
		return 0;
	a->val = val;
	return 1;
}

static const pmix_value_t *find_rank(const pmix_proc_t *p, const char *key)
{
	const pmix_value_t *v;
	uint32_t id;

	if ((v = pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_PROC, p->rank, key, NULL)) ||
	    (v = pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_JOB, 0, key, NULL)))
		return v;
	if (rec_u32(p->nspace, PXC_LVL_PROC, p->rank, PMIX_NODEID, &id) &&
	    (v = pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_NODE, id, key, NULL)))
		return v;
	if (rec_u32(p->nspace, PXC_LVL_PROC, p->rank, PMIX_APPNUM, &id))
		return pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_APP, id, key, NULL);
	return NULL;
}

static const pmix_value_t *find_locked(const pmix_proc_t *p, const char *key,
				       const struct getopt *o)
{
	const pmix_value_t *v;
	uint32_t id;
	char qkey[PMIX_MAX_KEYLEN + 1];

	/* a member's group info of that group first, then the plain key */
	if (o->have_cid && PMIX_RANK_IS_VALID(p->rank) && pxc_store_group_key(qkey, key, o->cid) &&
	    (v = pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_PROC, p->rank, qkey, NULL)))
		return v;
	if (o->level >= 0)
		return qualified_id(p, o, &id) ?
			       pxc_store_get(pxc_cl.store, p->nspace, o->level, id, key, NULL) :
			       NULL;
	if (PMIX_RANK_IS_VALID(p->rank))
		return find_rank(p, key);
	if ((v = pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_JOB, 0, key, NULL)))
		return v;
	if (p->rank == PMIX_RANK_WILDCARD)
		return node_of_host(p->nspace, my_host(), &id) ?
			       pxc_store_get(pxc_cl.store, p->nspace, PXC_LVL_NODE, id, key, NULL) :
			       NULL;
	{
		struct anyproc a = { .key = key };

		pxc_store_foreach(pxc_cl.store, p->nspace, PXC_LVL_PROC, PXC_ID_ANY, PXC_KINDS_ALL,
				  match_key, &a);
		return a.val;
	}
}

/* Open MPI's ext3x cannot unload compressed values: hand them up inflated. */
static pmix_status_t inflate(const pmix_value_t *v, pmix_value_t *out)
{
	uint8_t *raw = NULL;
	size_t n = 0;
	char *s;

	if (!PMIx_Data_decompress((const uint8_t *)v->data.bo.bytes, v->data.bo.size, &raw, &n))
		return PMIX_ERR_UNPACK_FAILURE;
	if (v->type == PMIX_COMPRESSED_BYTE_OBJECT) {
		out->type = PMIX_BYTE_OBJECT;
		out->data.bo.bytes = (char *)raw;
		out->data.bo.size = n;
		return PMIX_SUCCESS;
	}
	s = malloc(n + 1);
	if (s) {
		memcpy(s, raw, n);
		s[n] = '\0';
	}
	free(raw);
	out->type = PMIX_STRING;
	out->data.string = s;
	return s ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static pmix_status_t copy_out(const pmix_value_t *v, pmix_value_t **val)
{
	pmix_value_t *out = calloc(1, sizeof(*out));
	pmix_status_t st;

	if (!out)
		return PMIX_ERR_NOMEM;
	if (v->type == PMIX_COMPRESSED_STRING || v->type == PMIX_COMPRESSED_BYTE_OBJECT)
		st = inflate(v, out);
	else
		st = PMIx_Value_xfer(out, v);
	if (st != PMIX_SUCCESS) {
		free(out);
		return st;
	}
	*val = out;
	return PMIX_SUCCESS;
}

/* Every record of a proc (or of the job for a non-valid rank) as infos. */
struct collect {
	pmix_info_t *info;
	size_t n, cap;
	pmix_status_t st;
};

static int collect_one(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		       const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct collect *c = arg;
	pmix_info_t *ni;

	(void)ns, (void)lvl, (void)id, (void)kind;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		if (!(ni = realloc(c->info, c->cap * sizeof(*ni)))) {
			c->st = PMIX_ERR_NOMEM;
			return 1;
		}
		c->info = ni;
	}
	memset(&c->info[c->n], 0, sizeof(c->info[c->n]));
	snprintf(c->info[c->n].key, sizeof(c->info[c->n].key), "%s", key);
	if ((c->st = PMIx_Value_xfer(&c->info[c->n].value, val)) != PMIX_SUCCESS)
		return 1;
	c->n++;
	return 0;
}

static pmix_status_t collect_all(const pmix_proc_t *p, pmix_value_t **val)
{
	struct collect c = { .st = PMIX_SUCCESS };
	int lvl = PMIX_RANK_IS_VALID(p->rank) ? PXC_LVL_PROC : PXC_LVL_JOB;
	uint32_t id = lvl == PXC_LVL_PROC ? p->rank : 0;
	pmix_data_array_t *da;

	pxc_store_foreach(pxc_cl.store, p->nspace, lvl, id, PXC_KINDS_ALL, collect_one, &c);
	if (c.st == PMIX_SUCCESS && c.n == 0)
		c.st = PMIX_ERR_NOT_FOUND;
	if (c.st == PMIX_SUCCESS &&
	    (!(da = malloc(sizeof(*da))) || !(*val = calloc(1, sizeof(**val))))) {
		c.st = PMIX_ERR_NOMEM;
		if (da)
			free(da);
	}
	if (c.st != PMIX_SUCCESS) {
		for (size_t i = 0; i < c.n; i++)
			PMIx_Value_destruct(&c.info[i].value);
		free(c.info);
		return c.st;
	}
	c.info[c.n - 1].flags |= PMIX_INFO_ARRAY_END;
	da->type = PMIX_INFO;
	da->size = c.n;
	da->array = c.info;
	(*val)->type = PMIX_DATA_ARRAY;
	(*val)->data.darray = da;
	return PMIX_SUCCESS;
}

static pmix_status_t lookup(const pmix_proc_t *p, const char *key, const struct getopt *o,
			    pmix_value_t **val)
{
	const pmix_value_t *v;
	pmix_status_t st;

	pthread_rwlock_rdlock(&pxc_cl.store_lock);
	if (!pxc_cl.store)
		st = PMIX_ERR_INIT;
	else if (!key)
		st = collect_all(p, val);
	else if ((v = find_locked(p, key, o)))
		st = copy_out(v, val);
	else
		st = PMIX_ERR_NOT_FOUND;
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	return st;
}

static bool want_server(const pmix_proc_t *p, const char *key, const struct getopt *o)
{
	bool own = strncmp(p->nspace, pxc_cl.me.nspace, PMIX_MAX_NSLEN) == 0;

	if (o->refresh)
		return true;
	if (o->optional || o->level >= 0)
		return false;
	if (own && (pxc_key_reserved(key) || (!key && !PMIX_RANK_IS_VALID(p->rank))))
		return false;
	return true;
}

static int any_record(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		      const pmix_value_t *val, uint8_t kind, void *arg)
{
	(void)ns, (void)lvl, (void)id, (void)key, (void)val, (void)kind, (void)arg;
	return 1;
}

/* True when the store already holds data that p posted (an earlier GET
 * reply merged the whole of it, or a fence brought it): the server then
 * needs to send the key asked for only (PXC_GET_KEY_ONLY), not p's whole
 * posted data again. */
static bool have_posted(const pmix_proc_t *p, const char *key)
{
	bool have = false;

	if (!key || !PMIX_RANK_IS_VALID(p->rank))
		return false;
	pthread_rwlock_rdlock(&pxc_cl.store_lock);
	if (pxc_cl.store)
		have = pxc_store_foreach(pxc_cl.store, p->nspace, PXC_LVL_PROC, p->rank,
					 PXC_KINDS_POSTED, any_record, NULL) != 0;
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	return have;
}

static pmix_status_t pack_get(pmix_data_buffer_t *b, const pmix_proc_t *p, const char *key,
			      const pmix_info_t *info, size_t ninfo)
{
	pmix_info_t *all = have_posted(p, key) ? calloc(ninfo + 1, sizeof(*all)) : NULL;
	pmix_status_t st;
	bool yes = true;

	if (all) { /* shallow copies of the caller's infos + the flag */
		if (ninfo)
			memcpy(all, info, ninfo * sizeof(*info));
		PMIx_Info_load(&all[ninfo], PXC_GET_KEY_ONLY, &yes, PMIX_BOOL);
		info = all;
		ninfo++;
	}
	if ((st = pxc_pack_proc(b, p)) == PMIX_SUCCESS &&
	    (st = pxc_pack_str(b, key)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, ninfo, PMIX_INFO);
	free(all);
	return st;
}

static void resolve_proc(const pmix_proc_t *proc, pmix_proc_t *p)
{
	if (proc)
		*p = *proc;
	else
		pxc_proc_load(p, pxc_cl.me.nspace, PMIX_RANK_UNDEF);
	if (p->nspace[0] == '\0')
		memcpy(p->nspace, pxc_cl.me.nspace, sizeof(p->nspace));
}

static pmix_status_t check_args(const char *key, pmix_value_t **val, const pmix_proc_t *proc)
{
	if (!val || (!proc && !key) || (key && strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN))
		return PMIX_ERR_BAD_PARAM;
	if (atomic_load(&pxc_cl.state) == PXC_CONN_NONE)
		return PMIX_ERR_INIT;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[], const pmix_info_t info[],
		       size_t ninfo, pmix_value_t **val)
{
	pmix_data_buffer_t b;
	struct getopt o;
	pmix_proc_t p;
	pmix_status_t st;

	if (pxc_role == PXC_ROLE_SERVER)
		return pxc_server_get_local(proc, key, info, ninfo, val);
	if ((st = check_args(key, val, proc)) != PMIX_SUCCESS)
		return st;
	resolve_proc(proc, &p);
	parse_opts(info, ninfo, &o);
	if (!o.refresh &&
	    ((st = lookup(&p, key, &o, val)) != PMIX_ERR_NOT_FOUND || !want_server(&p, key, &o)))
		return st;
	if (pxc_client_ready() != PMIX_SUCCESS)
		return atomic_load(&pxc_cl.state) == PXC_CONN_ALONE ? PMIX_ERR_NOT_FOUND :
								      PMIX_ERR_UNREACH;
	pxc_buf_init(&b);
	st = pack_get(&b, &p, key, info, ninfo);
	if (st == PMIX_SUCCESS)
		st = pxc_client_call(PXC_CMD_GET, &b, o.timeout_ms, pxc_request_parse_merge, NULL);
	pxc_buf_clear(&b);
	if (st == PMIX_SUCCESS) {
		o.refresh = false;
		st = lookup(&p, key, &o, val);
	}
	return st;
}

/* ---- non-blocking get: always completes in the progress thread ---- */

struct getnb {
	pmix_proc_t proc;
	char *key;
	struct getopt o;
	pmix_data_buffer_t req;
	pmix_value_cbfunc_t cb;
	void *cbdata;
};

static void getnb_done(struct getnb *g, pmix_status_t st)
{
	pmix_value_t *val = NULL;

	if (st == PMIX_SUCCESS) {
		g->o.refresh = false;
		st = lookup(&g->proc, g->key, &g->o, &val);
	}
	g->cb(st, st == PMIX_SUCCESS ? val : NULL, g->cbdata);
	if (val)
		pxc_value_release(val);
	pxc_buf_clear(&g->req);
	free(g->key);
	free(g);
}

static void getnb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	if (st == PMIX_SUCCESS)
		st = pxc_client_merge_blob(reply);
	getnb_done(arg, st);
}

static void getnb_run(void *arg)
{
	struct getnb *g = arg;
	pmix_value_t *val = NULL;
	pmix_status_t st = PMIX_ERR_NOT_FOUND;

	if (!g->o.refresh && ((st = lookup(&g->proc, g->key, &g->o, &val)) != PMIX_ERR_NOT_FOUND ||
			      !want_server(&g->proc, g->key, &g->o))) {
		if (val)
			pxc_value_release(val);
		getnb_done(g, st);
		return;
	}
	if (pxc_client_ready() != PMIX_SUCCESS) {
		getnb_done(g, atomic_load(&pxc_cl.state) == PXC_CONN_ALONE ? PMIX_ERR_NOT_FOUND :
									     PMIX_ERR_UNREACH);
		return;
	}
	st = pxc_client_send(PXC_CMD_GET, &g->req, g->o.timeout_ms, getnb_reply, g);
	if (st != PMIX_SUCCESS) {
		g->cb(st, NULL, g->cbdata);
		free(g->key);
		free(g);
	}
}

pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[], const pmix_info_t info[],
			  size_t ninfo, pmix_value_cbfunc_t cbfunc, void *cbdata)
{
	pmix_value_t *dummy;
	struct getnb *g;
	pmix_status_t st;

	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!cbfunc || (st = check_args(key, &dummy, proc)) == PMIX_ERR_BAD_PARAM)
		return PMIX_ERR_BAD_PARAM;
	if (st != PMIX_SUCCESS)
		return st;
	if (!(g = calloc(1, sizeof(*g))) || (key && !(g->key = strdup(key)))) {
		free(g);
		return PMIX_ERR_NOMEM;
	}
	resolve_proc(proc, &g->proc);
	parse_opts(info, ninfo, &g->o);
	g->cb = cbfunc;
	g->cbdata = cbdata;
	pxc_buf_init(&g->req);
	st = pack_get(&g->req, &g->proc, key, info, ninfo);
	if (st == PMIX_SUCCESS && pxc_progress_post(pxc_cl.pg, getnb_run, g) != 0)
		st = PMIX_ERR_UNREACH;
	if (st != PMIX_SUCCESS) {
		pxc_buf_clear(&g->req);
		free(g->key);
		free(g);
	}
	return st;
}

/* ---- put / commit / store_internal ---- */

pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val)
{
	const pmix_value_t *old;
	uint8_t kind;
	int rc = 0;

	if (!key || !val || strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN || !key[0] ||
	    scope > PMIX_INTERNAL)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	if (scope == PMIX_SCOPE_UNDEF)
		scope = PMIX_GLOBAL;
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	old = pxc_store_get(pxc_cl.store, pxc_cl.me.nspace, PXC_LVL_PROC, pxc_cl.me.rank, key,
			    &kind);
	/* A reserved key the host registered for us (Open MPI puts
	 * "pmix.hname") is accepted but neither stored nor committed, so
	 * that nobody's view of the registered value is shadowed. */
	if (old && kind == PMIX_SCOPE_UNDEF && pxc_key_reserved(key)) {
		pthread_rwlock_unlock(&pxc_cl.store_lock);
		return PMIX_SUCCESS;
	}
	rc = pxc_store_put(pxc_cl.store, pxc_cl.me.nspace, PXC_LVL_PROC, pxc_cl.me.rank, key, val,
			   scope);
	if (rc == 0 && scope != PMIX_INTERNAL)
		rc = pxc_store_put(pxc_cl.uncommitted, pxc_cl.me.nspace, PXC_LVL_PROC,
				   pxc_cl.me.rank, key, val, scope);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	return rc == 0 ? PMIX_SUCCESS : pxc_errno_status(errno);
}

pmix_status_t PMIx_Commit(void)
{
	pmix_data_buffer_t blob, b;
	pmix_byte_object_t bo;
	pmix_status_t st;
	int rc;

	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if ((st = pxc_client_ready()) != PMIX_SUCCESS)
		return atomic_load(&pxc_cl.state) == PXC_CONN_ALONE ? PMIX_SUCCESS : st;
	pxc_buf_init(&blob);
	pxc_buf_init(&b);
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	rc = pxc_store_pack(pxc_cl.uncommitted, pxc_cl.me.nspace, PXC_LVL_PROC, pxc_cl.me.rank,
			    PXC_KINDS_POSTED, &blob);
	if (rc == 0)
		pxc_store_remove(pxc_cl.uncommitted, pxc_cl.me.nspace, -1, PXC_ID_ANY,
				 PXC_KINDS_ALL);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	if (rc != 0) {
		pxc_buf_clear(&blob);
		return PMIX_ERR_NOMEM;
	}
	bo.bytes = blob.base_ptr;
	bo.size = blob.bytes_used;
	st = pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT);
	pxc_buf_clear(&blob);
	if (st == PMIX_SUCCESS)
		st = pxc_client_send(PXC_CMD_COMMIT, &b, 0, NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char key[], pmix_value_t *val)
{
	int lvl, rc;

	if (!proc || !key || !val || strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	lvl = PMIX_RANK_IS_VALID(proc->rank) ? PXC_LVL_PROC : PXC_LVL_JOB;
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	rc = pxc_store_put(pxc_cl.store, proc->nspace[0] ? proc->nspace : pxc_cl.me.nspace, lvl,
			   lvl == PXC_LVL_PROC ? proc->rank : 0, key, val, PMIX_INTERNAL);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	return rc == 0 ? PMIX_SUCCESS : pxc_errno_status(errno);
}
