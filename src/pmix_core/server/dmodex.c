/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dmodex.c - posted data: COMMIT from clients, GET, and
 * PMIx_server_dmodex_request for the host.
 *
 * COMMIT: the client's blob is unpacked into a scratch store and checked
 * (only proc-level records of the client itself, with a posted scope)
 * before it is merged into the server store, so a client can never write
 * another's data or the host's. A client's Put of a reserved key that the
 * host registered for it does not shadow the registered value.
 *
 * GET: registered info (reserved key or rank WILDCARD) is answered from
 * the store or, for an unknown namespace, through the host's direct_modex;
 * a local proc's posted data at once when it has committed, else parked
 * until its commit (or its loss, or PMIX_TIMEOUT); a remote proc's from
 * the cache or through direct_modex, whose blob is merged (cached) first.
 * GETs for a target whose direct_modex is pending join it (one host call
 * per target, every requester answered from its result). The reply holds
 * every record of the target, or with PXC_GET_KEY_ONLY (proto.h: the
 * client holds the rest already) the record of the key asked for (plus
 * the target's PMIX_LOCAL records for a client on its node, which no fence
 * brings).
 * A direct_modex that times out answers its requesters PMIX_ERR_TIMEOUT
 * but stays (with the target and info the host holds) until the host
 * calls back.
 * Scopes: LOCAL records go only to clients on this node, REMOTE only to
 * other servers, GLOBAL to all.
 *
 * dmodex_request (host, any thread): for rank WILDCARD, the namespace's
 * registered info without the job-level copies of this node's values
 * (LOCAL_PEERS, LOCAL_SIZE, topology...: they would be wrong on the
 * requester's node; the node level carries them); for a rank, a blob of the proc's
 * REMOTE+GLOBAL records once it has committed; waits (bounded: the
 * default timeout, or the requester's own PMIX_TIMEOUT that the host
 * passes to pxc_server_dmodex_request_tmo) for a proc not registered yet
 * or not committed yet.
 * Progress thread only, except PMIx_server_dmodex_request's entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "internal.h"
#include "upcall.h"
#include "peer.h"
#include "delta.h"
#include "server.h"
#include "nspace.h"
#include "dmodex.h"
#include "proto.h"

#define KINDS_LOCAL_VIEW (PXC_KIND_BIT(PMIX_LOCAL) | PXC_KIND_BIT(PMIX_GLOBAL))
#define KINDS_REMOTE_VIEW (PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL))

typedef struct pxc_parked {
	struct pxc_parked *next;
	uint64_t id;
	pmix_proc_t target;
	char *key;        /* GET: NULL = everything */
	bool key_only;    /* GET: reply with key's record only */
	uint64_t peer_id; /* GET requester */
	uint32_t tag;
	pmix_dmodex_response_fn_t dcb; /* dmodex_request */
	void *dcbdata;
	struct event *timer;
} pxc_parked_t;

static bool is_reserved(const char *key)
{
	return key && strncmp(key, "pmix", 4) == 0;
}

/* --------------------------------------------------------------- COMMIT */

typedef struct {
	const pmix_proc_t *proc;
	pxc_level_t level;
	int bad;
} check_t;

static int check_visit(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		       const pmix_value_t *val, uint8_t kind, void *arg)
{
	check_t *c = arg;

	(void)key;
	(void)val;
	if (lvl != PXC_LVL_PROC || id != c->proc->rank ||
	    strncmp(ns, c->proc->nspace, PMIX_MAX_NSLEN) != 0 ||
	    (kind != PMIX_LOCAL && kind != PMIX_REMOTE && kind != PMIX_GLOBAL))
		return c->bad = 1;
	return 0;
}

static int merge_visit(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		       const pmix_value_t *val, uint8_t kind, void *arg)
{
	uint8_t old;

	if (is_reserved(key) && pxc_store_get(pxc_srv.store, ns, lvl, id, key, &old) &&
	    old == PMIX_SCOPE_UNDEF)
		return 0; /* keep what the host registered */
	if (pxc_store_put(pxc_srv.store, ns, lvl, id, key, val, kind) < 0)
		return -1;
	pxc_delta_touch(arg, key, kind);
	return 0;
}

static int commit_blob(pxc_sclient_t *cl, pmix_data_buffer_t *blob)
{
	pxc_store_t *tmp = pxc_store_create();
	const pmix_proc_t *proc = &cl->proc;
	check_t c = { .proc = proc };
	int rc = -1;

	if (!tmp)
		return -1;
	if (pxc_store_unpack(tmp, blob) != PMIX_SUCCESS)
		goto out;
	for (int l = PXC_LVL_JOB; l <= PXC_LVL_SESSION && !c.bad; l++)
		pxc_store_foreach(tmp, NULL, (pxc_level_t)l, PXC_ID_ANY, PXC_KINDS_ALL, check_visit,
				  &c);
	if (c.bad)
		goto out;
	pxc_delta_commit(cl);
	rc = pxc_store_foreach(tmp, proc->nspace, PXC_LVL_PROC, proc->rank, PXC_KINDS_POSTED,
			       merge_visit, cl) ?
		     -1 :
		     0;
out:
	pxc_store_destroy(tmp);
	return rc;
}

/* Unpacks a BLOB field into buf (which then owns the bytes). */
static int unpack_blob(pmix_data_buffer_t *in, pmix_data_buffer_t *buf)
{
	pmix_byte_object_t bo = { NULL, 0 };
	int32_t n = 1;

	if (pxc_unpack(in, &bo, &n, PMIX_BYTE_OBJECT) != PMIX_SUCCESS)
		return -1;
	pxc_buf_init(buf);
	pxc_buf_load_take(buf, bo.bytes, bo.size);
	return 0;
}

int pxc_do_commit(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_data_buffer_t blob;
	int rc;

	(void)h;
	if (!p->client || unpack_blob(in, &blob) < 0)
		return -1;
	rc = commit_blob(p->client, &blob);
	pxc_buf_clear(&blob);
	if (rc < 0) {
		pxc_error("server: bad COMMIT from %s:%u", p->proc.nspace, p->proc.rank);
		return -1;
	}
	p->client->commits++;
	pxc_parked_wake(&p->proc);
	return 0;
}

/* --------------------------------------------------------------- parking */

static void parked_free(pxc_parked_t *pk)
{
	for (pxc_parked_t **pp = &pxc_srv.parked; *pp; pp = &(*pp)->next)
		if (*pp == pk) {
			*pp = pk->next;
			break;
		}
	pxc_srv_timer_free(pk->timer);
	free(pk->key);
	free(pk);
}

/* Packs the posted records of proc visible through kinds. */
static int pack_posted(const pmix_proc_t *proc, unsigned kinds, pmix_data_buffer_t *blob)
{
	return pxc_store_pack(pxc_srv.store, proc->nspace, PXC_LVL_PROC, proc->rank, kinds, blob);
}

static bool has_key(const pmix_proc_t *proc, const char *key, unsigned kinds)
{
	uint8_t kind;

	return pxc_store_get(pxc_srv.store, proc->nspace, PXC_LVL_PROC, proc->rank, key, &kind) &&
	       (kinds & PXC_KIND_BIT(kind));
}

/* Packs key's record of proc, when it is visible through kinds, and, for
 * a requester on this node, the proc's PMIX_LOCAL records: a fence never
 * carries those, so a client that holds the proc's data from a fence
 * gets them all with its first GET (they are few; Open MPI posts its
 * shared-memory addresses that way). */
static int pack_key(const pmix_proc_t *proc, const char *key, unsigned kinds,
		    pmix_data_buffer_t *blob)
{
	uint8_t kind;
	const pmix_value_t *v = pxc_store_get(pxc_srv.store, proc->nspace, PXC_LVL_PROC, proc->rank,
					      key, &kind);
	unsigned local = kinds & PXC_KIND_BIT(PMIX_LOCAL);
	pxc_store_t *one;
	int rc = -1;

	if (local && pack_posted(proc, local, blob) < 0)
		return -1;
	if (!v || !(kinds & PXC_KIND_BIT(kind)) || (local & PXC_KIND_BIT(kind)))
		return 0;
	one = pxc_store_create();
	if (one && pxc_store_put(one, proc->nspace, PXC_LVL_PROC, proc->rank, key, v, kind) == 0)
		rc = pxc_store_pack(one, proc->nspace, PXC_LVL_PROC, proc->rank, PXC_KINDS_ALL,
				    blob);
	pxc_store_destroy(one);
	return rc;
}

/* Replies to a GET with the target's records visible through kinds (or an
 * error): all of them, or with key (PXC_GET_KEY_ONLY: the requester holds
 * the others already) key's record and the LOCAL ones (pack_key). */
static void get_reply(uint64_t peer_id, uint32_t tag, pmix_status_t st, const pmix_proc_t *target,
		      const char *key, unsigned kinds)
{
	pmix_data_buffer_t body, blob;
	int rc;

	pxc_buf_init(&body);
	pxc_buf_init(&blob);
	if (st == PMIX_SUCCESS) {
		rc = key ? pack_key(target, key, kinds, &blob) : pack_posted(target, kinds, &blob);
		if (rc < 0 || pxc_pack_blob(&body, &blob) != PMIX_SUCCESS)
			st = PMIX_ERR_NOMEM;
	}
	pxc_peer_reply_id(peer_id, PXC_CMD_GET, tag, st, &body);
	pxc_buf_clear(&body);
	pxc_buf_clear(&blob);
}

static void dmodex_answer(pxc_parked_t *pk, pmix_status_t st)
{
	pmix_data_buffer_t blob;

	pxc_buf_init(&blob);
	if (st == PMIX_SUCCESS && pack_posted(&pk->target, KINDS_REMOTE_VIEW, &blob) < 0)
		st = PMIX_ERR_NOMEM;
	pk->dcb(st, st == PMIX_SUCCESS ? blob.base_ptr : NULL,
		st == PMIX_SUCCESS ? blob.bytes_used : 0, pk->dcbdata);
	pxc_buf_clear(&blob);
}

/* Answers pk if its target can answer now. True when answered. */
static bool try_answer(pxc_parked_t *pk)
{
	pxc_sclient_t *cl = pxc_client_find(&pk->target);
	pmix_status_t st = PMIX_SUCCESS;

	if (!cl && pk->dcb)
		return false; /* not registered here yet */
	if (cl && cl->commits == 0 && !cl->lost)
		return false;
	if (pk->dcb) {
		dmodex_answer(pk, PMIX_SUCCESS);
		return true;
	}
	if (!cl || (pk->key && !has_key(&pk->target, pk->key, KINDS_LOCAL_VIEW)))
		st = PMIX_ERR_NOT_FOUND;
	get_reply(pk->peer_id, pk->tag, st, &pk->target, pk->key_only ? pk->key : NULL,
		  KINDS_LOCAL_VIEW);
	return true;
}

static void answer_error(pxc_parked_t *pk, pmix_status_t st)
{
	if (pk->dcb)
		pk->dcb(st, NULL, 0, pk->dcbdata);
	else
		pxc_peer_reply_id(pk->peer_id, PXC_CMD_GET, pk->tag, st, NULL);
}

static pxc_parked_t *parked_by_id(uint64_t id)
{
	for (pxc_parked_t *pk = pxc_srv.parked; pk; pk = pk->next)
		if (pk->id == id)
			return pk;
	return NULL;
}

static void parked_timeout(int fd, short what, void *arg)
{
	pxc_parked_t *pk = parked_by_id((uint64_t)(uintptr_t)arg);

	(void)fd;
	(void)what;
	if (!pk)
		return;
	answer_error(pk, PMIX_ERR_TIMEOUT);
	parked_free(pk);
}

static pxc_parked_t *park(const pmix_proc_t *target, const char *key, int timeout)
{
	pxc_parked_t *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return NULL;
	pk->id = pxc_srv_new_id();
	pk->target = *target;
	pk->key = key ? strdup(key) : NULL;
	pk->timer = pxc_srv_timer(timeout, parked_timeout, (void *)(uintptr_t)pk->id);
	if (!pk->timer || (key && !pk->key)) {
		pxc_srv_timer_free(pk->timer);
		free(pk->key);
		free(pk);
		return NULL;
	}
	pk->next = pxc_srv.parked;
	pxc_srv.parked = pk;
	return pk;
}

void pxc_parked_wake(const pmix_proc_t *proc)
{
	pxc_parked_t *pk = pxc_srv.parked, *next;

	for (; pk; pk = next) {
		next = pk->next;
		if (strncmp(pk->target.nspace, proc->nspace, PMIX_MAX_NSLEN) != 0 ||
		    (proc->rank != PMIX_RANK_WILDCARD && pk->target.rank != proc->rank))
			continue;
		if (try_answer(pk))
			parked_free(pk);
	}
}

void pxc_parked_fail_all(pmix_status_t status)
{
	while (pxc_srv.parked) {
		answer_error(pxc_srv.parked, status);
		parked_free(pxc_srv.parked);
	}
}

/* ------------------------------------------------------------------ GET */

/* A GET waiting for the host's direct_modex. */
typedef struct {
	uint64_t peer_id;
	uint32_t tag;
	char *key; /* key-only reply: the key; else NULL */
} waiter_t;

/* One direct_modex request, shared by every GET for the same target that
 * arrives while it is pending. */
typedef struct {
	pmix_proc_t target; /* handed to the host */
	bool job;           /* registered info wanted */
	bool expired;       /* timed out: waiters answered */
	waiter_t *w;
	size_t nw;
} gctx_t;

static void waiters_clear(gctx_t *g)
{
	for (size_t i = 0; i < g->nw; i++)
		free(g->w[i].key);
	free(g->w);
	g->w = NULL;
	g->nw = 0;
}

static void gctx_free(void *arg)
{
	gctx_t *g = arg;

	if (g)
		waiters_clear(g);
	free(g);
}

static int waiter_add(gctx_t *g, uint64_t peer_id, uint32_t tag, const char *key)
{
	waiter_t *w = realloc(g->w, (g->nw + 1) * sizeof(*w));

	if (!w)
		return -1;
	g->w = w;
	w[g->nw] = (waiter_t){ .peer_id = peer_id, .tag = tag };
	if (key && !(w[g->nw].key = strdup(key)))
		return -1;
	g->nw++;
	return 0;
}

/* Replies to every waiter of a job (registered info) request. */
static void job_replies(gctx_t *g, pmix_status_t st)
{
	pmix_data_buffer_t blob, body;

	pxc_buf_init(&blob);
	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS && (pxc_store_pack(pxc_srv.store, g->target.nspace, -1, PXC_ID_ANY,
						  PXC_KINDS_INFO, &blob) < 0 ||
				   pxc_pack_blob(&body, &blob) != PMIX_SUCCESS))
		st = PMIX_ERR_NOMEM;
	for (size_t i = 0; i < g->nw; i++)
		pxc_peer_reply_id(g->w[i].peer_id, PXC_CMD_GET, g->w[i].tag, st, &body);
	pxc_buf_clear(&blob);
	pxc_buf_clear(&body);
}

static void get_host_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	gctx_t *g = r->ctx;
	pmix_data_buffer_t blob;
	pmix_status_t st = res->status;

	if (st == PMIX_OPERATION_SUCCEEDED)
		st = PMIX_SUCCESS;
	if (st == PMIX_SUCCESS && res->ndata) {
		pxc_buf_init(&blob);
		pxc_buf_load_take(&blob, res->data, res->ndata);
		res->data = NULL;
		st = pxc_store_unpack(pxc_srv.store, &blob);
		pxc_buf_clear(&blob);
	}
	if (g->job) {
		job_replies(g, st);
		return;
	}
	for (size_t i = 0; i < g->nw; i++)
		get_reply(g->w[i].peer_id, g->w[i].tag, st, &g->target, g->w[i].key,
			  KINDS_REMOTE_VIEW);
}

/* The requesters get PMIX_ERR_TIMEOUT; the request itself stays until the
 * host calls back (it may still read what it was handed). */
static void get_host_timeout(int fd, short what, void *arg)
{
	pxc_upcall_t *r = pxc_upcall_find((uint64_t)(uintptr_t)arg);
	gctx_t *g = r ? r->ctx : NULL;

	(void)fd;
	(void)what;
	if (!g)
		return;
	for (size_t i = 0; i < g->nw; i++)
		pxc_peer_reply_id(g->w[i].peer_id, PXC_CMD_GET, g->w[i].tag, PMIX_ERR_TIMEOUT,
				  NULL);
	waiters_clear(g);
	g->expired = true;
}

/* The pending direct_modex for target that a new GET may join, or NULL. */
static pxc_upcall_t *pending_for(const pmix_proc_t *target, bool job)
{
	for (pxc_upcall_t *r = pxc_srv.upcalls; r; r = r->next) {
		gctx_t *g = r->done == get_host_done ? r->ctx : NULL;

		if (g && !g->expired && g->job == job &&
		    strncmp(g->target.nspace, target->nspace, PMIX_MAX_NSLEN) == 0 &&
		    (job || g->target.rank == target->rank))
			return r;
	}
	return NULL;
}

/* Asks the host's direct_modex (once for concurrent GETs of one target);
 * replies itself. key: reply with that record only. */
static void get_from_host(pxc_peer_t *p, const pxc_wire_hdr_t *h, const pmix_proc_t *target,
			  bool job, const char *key, const pmix_info_t *info, size_t ninfo)
{
	pxc_upcall_t *r = pending_for(target, job);
	gctx_t *g;

	if (r) {
		if (waiter_add(r->ctx, p->id, h->tag, key) < 0)
			pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL);
		return;
	}
	if (!pxc_srv.module.direct_modex) {
		pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOT_FOUND, NULL);
		return;
	}
	g = calloc(1, sizeof(*g));
	r = g ? pxc_upcall_new(p, h->tag, h->cmd, get_host_done) : NULL;
	if (r) {
		r->ctx = g;
		r->ctx_free = gctx_free;
		g->target = *target;
		g->job = job;
	}
	if (!r || waiter_add(g, p->id, h->tag, key) < 0 ||
	    pxc_info_dup(info, ninfo, &r->a.info) != PMIX_SUCCESS) {
		pxc_peer_reply(p, h->cmd, h->tag,
			       g && !r ? pxc_upcall_new_status() : PMIX_ERR_NOMEM, NULL);
		if (r)
			pxc_upcall_free(r); /* frees g */
		else
			free(g);
		return;
	}
	r->a.ninfo = r->a.info ? ninfo : 0;
	r->timer = pxc_srv_timer(pxc_srv_timeout(info, ninfo), get_host_timeout,
				 (void *)(uintptr_t)r->id);
	pmix_status_t st = pxc_srv.module.direct_modex(&g->target, r->a.info, r->a.ninfo,
						       pxc_upcall_cb_modex, PXC_UPCALL_CBDATA(r));
	pxc_upcall_after_call(r, st == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : st);
}

static void get_job(pxc_peer_t *p, const pxc_wire_hdr_t *h, const pmix_proc_t *target,
		    const pmix_info_t *info, size_t ninfo)
{
	pmix_data_buffer_t blob, body;
	pmix_status_t st = PMIX_SUCCESS;

	if (!pxc_store_has_nspace(pxc_srv.store, target->nspace) && !pxc_ns_find(target->nspace)) {
		get_from_host(p, h, target, true, NULL, info, ninfo);
		return;
	}
	pxc_buf_init(&blob);
	pxc_buf_init(&body);
	if (pxc_store_pack(pxc_srv.store, target->nspace, -1, PXC_ID_ANY, PXC_KINDS_INFO, &blob) <
		    0 ||
	    pxc_pack_blob(&body, &blob) != PMIX_SUCCESS)
		st = PMIX_ERR_NOMEM;
	pxc_peer_reply(p, h->cmd, h->tag, st, &body);
	pxc_buf_clear(&blob);
	pxc_buf_clear(&body);
}

/* What a GET asks for besides its target. */
typedef struct {
	const char *key; /* NULL = everything */
	bool key_only;   /* reply with key's record only */
	const pmix_info_t *info;
	size_t ninfo;
} getq_t;

static void get_local(pxc_peer_t *p, const pxc_wire_hdr_t *h, pxc_sclient_t *cl, const getq_t *q)
{
	pxc_parked_t *pk;

	if (cl->commits > 0 || cl->lost || pxc_info_flag(q->info, q->ninfo, PMIX_IMMEDIATE)) {
		pmix_status_t st = PMIX_SUCCESS;

		if (q->key && !has_key(&cl->proc, q->key, KINDS_LOCAL_VIEW))
			st = PMIX_ERR_NOT_FOUND;
		get_reply(p->id, h->tag, st, &cl->proc, q->key_only ? q->key : NULL,
			  KINDS_LOCAL_VIEW);
		return;
	}
	pk = park(&cl->proc, q->key, pxc_srv_timeout(q->info, q->ninfo));
	if (!pk) {
		pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL);
		return;
	}
	pk->key_only = q->key_only;
	pk->peer_id = p->id;
	pk->tag = h->tag;
}

static void get_remote(pxc_peer_t *p, const pxc_wire_hdr_t *h, const pmix_proc_t *target,
		       const getq_t *q)
{
	bool cached = q->key ? has_key(target, q->key, KINDS_REMOTE_VIEW) :
			       pxc_store_count(pxc_srv.store, target->nspace, PXC_LVL_PROC,
					       target->rank, KINDS_REMOTE_VIEW) > 0;
	const char *only = q->key_only ? q->key : NULL;

	if (cached && !pxc_info_flag(q->info, q->ninfo, PMIX_GET_REFRESH_CACHE))
		get_reply(p->id, h->tag, PMIX_SUCCESS, target, only, KINDS_REMOTE_VIEW);
	else
		get_from_host(p, h, target, false, only, q->info, q->ninfo);
}

/* Removes PXC_GET_KEY_ONLY from info (the host never sees it); true when
 * it was set. */
static bool take_key_only(pmix_info_t *info, size_t *ninfo)
{
	bool on = false;
	size_t out = 0;

	for (size_t i = 0; i < *ninfo; i++) {
		if (strncmp(info[i].key, PXC_GET_KEY_ONLY, PMIX_MAX_KEYLEN) != 0) {
			info[out++] = info[i];
			continue;
		}
		on |= pxc_info_flag(&info[i], 1, PXC_GET_KEY_ONLY);
		PMIx_Info_destruct(&info[i]);
	}
	*ninfo = out;
	return on;
}

int pxc_do_get(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t target;
	char *key = NULL;
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	pxc_sclient_t *cl;
	getq_t q;

	if (pxc_unpack_proc(in, &target) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &key) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return free(key), -1;
	target.nspace[PMIX_MAX_NSLEN] = '\0';
	q = (getq_t){ .key = key, .info = info };
	q.key_only = take_key_only(info, &ninfo) && key;
	q.ninfo = ninfo;
	if (!target.nspace[0])
		pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_BAD_PARAM, NULL);
	else if (target.rank == PMIX_RANK_WILDCARD || is_reserved(key) ||
		 !PMIX_RANK_IS_VALID(target.rank))
		get_job(p, h, &target, info, ninfo);
	else if ((cl = pxc_client_find(&target)))
		get_local(p, h, cl, &q);
	else
		get_remote(p, h, &target, &q);
	free(key);
	pxc_array_free(info, ninfo, PMIX_INFO);
	return 0;
}

/* -------------------------------------------------------- dmodex_request */

typedef struct {
	pmix_proc_t proc;
	int timeout; /* seconds; <= 0: the default */
	pmix_dmodex_response_fn_t cbfunc;
	void *cbdata;
} dmop_t;

/* Job-level keys that describe this server's node (its copy of the node
 * level, see map.c, and its topology): never sent to another server. */
static bool node_local_key(const char *key)
{
	static const char *const keys[] = {
		PMIX_LOCAL_PEERS,      PMIX_LOCAL_SIZE,
		PMIX_LOCALLDR,         PMIX_NODE_SIZE,
		PMIX_LOCAL_CPUSETS,    PMIX_AVAIL_PHYS_MEMORY,
		PMIX_NODEID,           PMIX_NODE_OVERSUBSCRIBED,
		PMIX_LOCAL_PROCS,      PMIX_HWLOC_XML_V1,
		PMIX_HWLOC_XML_V2,     PMIX_HWLOC_SHMEM_FILE,
		PMIX_HWLOC_SHMEM_ADDR, PMIX_HWLOC_SHMEM_SIZE,
		PMIX_LOCAL_TOPO,       PMIX_TOPOLOGY_SIGNATURE,
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

static int copy_global(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		       const pmix_value_t *val, uint8_t kind, void *arg)
{
	if (node_local_key(key))
		return 0;
	return pxc_store_put(arg, ns, lvl, id, key, val, kind) < 0 ? -1 : 0;
}

/* Packs ns's registered info for a server on another node: every level,
 * but at job level only what holds on every node. The node-local values
 * travel in the node level (the host's PMIX_NODE_INFO_ARRAY), where a
 * client finds its own node's (get.c), so a step without procs on the
 * requester's node shows no LOCAL_PEERS there instead of ours. */
static int pack_for_other_node(const char *ns, pmix_data_buffer_t *blob)
{
	pxc_store_t *job = pxc_store_create();
	int rc = -1;

	if (job &&
	    pxc_store_foreach(pxc_srv.store, ns, PXC_LVL_JOB, 0, PXC_KINDS_INFO, copy_global,
			      job) == 0 &&
	    pxc_store_pack(job, ns, PXC_LVL_JOB, 0, PXC_KINDS_ALL, blob) == 0)
		rc = 0;
	pxc_store_destroy(job);
	for (int l = PXC_LVL_PROC; l <= PXC_LVL_SESSION && rc == 0; l++)
		rc = pxc_store_pack(pxc_srv.store, ns, l, PXC_ID_ANY, PXC_KINDS_INFO, blob);
	return rc;
}

static void dmodex_job(dmop_t *o)
{
	pmix_data_buffer_t blob;
	pmix_status_t st = PMIX_SUCCESS;

	pxc_buf_init(&blob);
	if (!pxc_store_has_nspace(pxc_srv.store, o->proc.nspace))
		st = PMIX_ERR_NOT_FOUND;
	else if (pack_for_other_node(o->proc.nspace, &blob) < 0)
		st = PMIX_ERR_NOMEM;
	o->cbfunc(st, st == PMIX_SUCCESS ? blob.base_ptr : NULL,
		  st == PMIX_SUCCESS ? blob.bytes_used : 0, o->cbdata);
	pxc_buf_clear(&blob);
}

static void dmodex_fn(void *arg)
{
	dmop_t *o = arg;
	pxc_parked_t *pk;

	if (!pxc_srv.running) {
		o->cbfunc(PMIX_ERR_INIT, NULL, 0, o->cbdata);
	} else if (o->proc.rank == PMIX_RANK_WILDCARD) {
		dmodex_job(o);
	} else if (!(pk = park(&o->proc, NULL,
			       o->timeout > 0 ? o->timeout : pxc_default_timeout()))) {
		o->cbfunc(PMIX_ERR_NOMEM, NULL, 0, o->cbdata);
	} else {
		pk->dcb = o->cbfunc;
		pk->dcbdata = o->cbdata;
		if (try_answer(pk))
			parked_free(pk);
	}
	free(o);
}

pmix_status_t pxc_server_dmodex_request_tmo(const pmix_proc_t *proc, int timeout,
					    pmix_dmodex_response_fn_t cbfunc, void *cbdata)
{
	dmop_t *o;

	if (!proc || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	o = calloc(1, sizeof(*o));
	if (!o)
		return PMIX_ERR_NOMEM;
	o->proc = *proc;
	o->timeout = timeout;
	o->proc.nspace[PMIX_MAX_NSLEN] = '\0';
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	if (pxc_srv_post(dmodex_fn, o) < 0) {
		free(o);
		return PMIX_ERR_INIT;
	}
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc, pmix_dmodex_response_fn_t cbfunc,
					 void *cbdata)
{
	return pxc_server_dmodex_request_tmo(proc, 0, cbfunc, cbdata);
}
