/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nspace.c - namespaces and local clients: PMIx_server_register_nspace,
 * deregister_nspace, register_client, deregister_client, setup_fork.
 *
 * The host's info goes into the server store (store.h) as records of kind
 * PMIX_SCOPE_UNDEF: plain keys at job level, PMIX_PROC_DATA arrays at proc
 * level (first element PMIX_RANK), PMIX_NODE_INFO_ARRAY at node level (id =
 * PMIX_NODEID, or one assigned per hostname), PMIX_APP_INFO_ARRAY at app
 * level (PMIX_APPNUM), PMIX_SESSION_INFO_ARRAY at session level. Then
 * map.c derives what the host left implicit (per-proc hostname and node id
 * from the node/proc maps, the local node's keys at job level).
 *
 * A second registration of a known namespace merges (hosts do it after a
 * connect to add another job's data). The namespace/client lists and the
 * store belong to the progress thread; the API functions copy what they
 * need and post (pxc_apiop_run). setup_fork runs in the caller's thread and
 * reads only what init fixed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

#include "internal.h"
#include "upcall.h"
#include "proto.h"
#include "server.h"
#include "peer.h"
#include "map.h"
#include "delta.h"
#include "jobctl.h"
#include "nspace.h"
#include "coll.h"
#include "dmodex.h"

/* ----------------------------------------------------------------- lists */

pxc_snspace_t *pxc_ns_find(const char *name)
{
	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns; ns = ns->next)
		if (strncmp(ns->name, name, PMIX_MAX_NSLEN) == 0)
			return ns;
	return NULL;
}

pxc_snspace_t *pxc_ns_get(const char *name)
{
	pxc_snspace_t *ns = pxc_ns_find(name);

	if (ns)
		return ns;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	ns->nlocalprocs = -1;
	ns->next = pxc_srv.nspaces;
	pxc_srv.nspaces = ns;
	return ns;
}

pxc_sclient_t *pxc_client_find(const pmix_proc_t *proc)
{
	pxc_snspace_t *ns = pxc_ns_find(proc->nspace);

	for (pxc_sclient_t *c = ns ? ns->clients : NULL; c; c = c->next)
		if (c->proc.rank == proc->rank)
			return c;
	return NULL;
}

bool pxc_server_client_lost(const pmix_proc_t *proc)
{
	pxc_sclient_t *cl = proc ? pxc_client_find(proc) : NULL;

	return cl && cl->lost;
}

pid_t pxc_server_client_pid(const pmix_proc_t *proc)
{
	pxc_sclient_t *cl = proc ? pxc_client_find(proc) : NULL;

	return cl && cl->peer && cl->peer->hello ? cl->peer->pid : 0;
}

pid_t pxc_server_client_last_pid(const pmix_proc_t *proc)
{
	pxc_sclient_t *cl = proc ? pxc_client_find(proc) : NULL;

	return cl ? cl->pid : 0;
}

void pxc_server_proc_pid(const pmix_proc_t *proc, pid_t pid)
{
	pxc_sclient_t *cl = proc ? pxc_client_find(proc) : NULL;
	pxc_snspace_t *ns = proc && !cl ? pxc_ns_find(proc->nspace) : NULL;
	const pmix_value_t *js;

	if (cl) {
		cl->host_pid = pid;
		return;
	}
	js = ns ? pxc_store_get(pxc_srv.store, ns->name, PXC_LVL_JOB, 0, PMIX_JOB_SIZE, NULL) :
		  NULL;
	if (!js || js->type != PMIX_UINT32 || js->data.uint32 > (1u << 22) ||
	    proc->rank >= js->data.uint32)
		return;
	if (!ns->rpids) {
		if (!(ns->rpids = calloc(js->data.uint32, sizeof(*ns->rpids))))
			return;
		ns->nrpids = js->data.uint32;
	}
	if (proc->rank < ns->nrpids)
		ns->rpids[proc->rank] = pid;
}

size_t pxc_server_tool_queued(void)
{
	size_t n = 0;

	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		if (p->hello &&
		    (p->kind == PXC_PEER_TOOL || (p->owner && p->owner->kind == PXC_PEER_TOOL)))
			n += pxc_conn_queued(p->conn);
	return n;
}

unsigned pxc_server_tool_count(void)
{
	unsigned n = 0;

	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		n += p->hello && p->kind == PXC_PEER_TOOL;
	return n;
}

bool pxc_proc_is_local(const pmix_proc_t *proc)
{
	return pxc_client_find(proc) != NULL;
}

/* Forgets a client: its connection is closed (a client that had not
 * finalized counts as lost) and collectives waiting for it fail. */
static void client_remove(pxc_sclient_t *cl)
{
	pxc_snspace_t *ns = cl->ns;
	pmix_proc_t proc = cl->proc;

	if (cl->peer) {
		pxc_peer_drop(cl->peer, true); /* marks lost if not finalized */
	} else if (!cl->finalized) {
		cl->lost = true;
		pxc_coll_proc_gone(&cl->proc);
		pxc_parked_wake(&cl->proc);
	}
	for (pxc_sclient_t **pp = &ns->clients; *pp; pp = &(*pp)->next)
		if (*pp == cl) {
			*pp = cl->next;
			break;
		}
	ns->nclients--;
	pxc_delta_free(cl);
	free(cl);
	/* GETs still parked on it (it finalized without committing the key)
	 * learn that it is gone */
	pxc_parked_wake(&proc);
}

static void ns_free(pxc_snspace_t *ns)
{
	free(ns->rpids);
	while (ns->clients)
		client_remove(ns->clients);
	pxc_cleanup_run(ns);
	free(ns);
}

void pxc_ns_free_all(void)
{
	while (pxc_srv.nspaces) {
		pxc_snspace_t *ns = pxc_srv.nspaces;

		pxc_srv.nspaces = ns->next;
		ns_free(ns);
	}
}

/* ------------------------------------------------------ register_nspace */

typedef struct {
	pxc_apiop_t op;
	pmix_nspace_t nspace;
	int nlocalprocs;
	pmix_info_t *info; /* copied unless blocking */
	size_t ninfo;
	bool own_info;
} nsop_t;

static void nsop_free(void *arg)
{
	nsop_t *o = arg;

	if (o->own_info)
		PMIx_Info_free(o->info, o->ninfo);
	free(o);
}

static const pmix_info_t *darray_infos(const pmix_value_t *v, size_t *n)
{
	if (v->type != PMIX_DATA_ARRAY || !v->data.darray || v->data.darray->type != PMIX_INFO ||
	    !v->data.darray->array) {
		*n = 0;
		return NULL;
	}
	*n = v->data.darray->size;
	return v->data.darray->array;
}

static int put_all(const char *ns, pxc_level_t lvl, uint32_t id, const pmix_info_t *info, size_t n,
		   const char *skip)
{
	for (size_t i = 0; i < n; i++) {
		if (skip && strcmp(info[i].key, skip) == 0)
			continue;
		if (pxc_store_put(pxc_srv.store, ns, lvl, id, info[i].key, &info[i].value,
				  PMIX_SCOPE_UNDEF) < 0)
			return -1;
	}
	return 0;
}

static int reg_proc_data(const char *ns, const pmix_value_t *v)
{
	size_t n;
	const pmix_info_t *a = darray_infos(v, &n);

	if (!a || n == 0 || strcmp(a[0].key, PMIX_RANK) != 0 ||
	    (a[0].value.type != PMIX_PROC_RANK && a[0].value.type != PMIX_UINT32)) {
		pxc_error("server: PMIX_PROC_DATA without a leading PMIX_RANK ignored");
		return 0;
	}
	return put_all(ns, PXC_LVL_PROC, a[0].value.data.rank, a, n, NULL);
}

/* Id of a level's array from key idkey (uint32 of any width), or dflt. */
static uint32_t array_id(const pmix_info_t *a, size_t n, const char *idkey, uint32_t dflt)
{
	const pmix_info_t *i = pxc_info_find(a, n, idkey);

	if (!i)
		return dflt;
	switch (i->value.type) {
	case PMIX_UINT32:
	case PMIX_PROC_RANK: return i->value.data.uint32;
	case PMIX_UINT16: return i->value.data.uint16;
	case PMIX_INT: return (uint32_t)i->value.data.integer;
	case PMIX_SIZE: return (uint32_t)i->value.data.size;
	default: return dflt;
	}
}

static int reg_node(const char *ns, const pmix_value_t *v)
{
	size_t n;
	const pmix_info_t *a = darray_infos(v, &n);
	const pmix_info_t *h;
	uint32_t id;

	if (!a)
		return 0;
	id = array_id(a, n, PMIX_NODEID, UINT32_MAX);
	if (id == UINT32_MAX) {
		h = pxc_info_find(a, n, PMIX_HOSTNAME);
		if (!h || h->value.type != PMIX_STRING || !h->value.data.string) {
			pxc_error("server: node info without PMIX_NODEID or PMIX_HOSTNAME ignored");
			return 0;
		}
		id = pxc_map_node_id(ns, h->value.data.string, true);
	}
	return put_all(ns, PXC_LVL_NODE, id, a, n, NULL);
}

static int reg_level(const char *ns, pxc_level_t lvl, const char *idkey, const pmix_value_t *v)
{
	size_t n;
	const pmix_info_t *a = darray_infos(v, &n);

	if (!a)
		return 0;
	return put_all(ns, lvl, array_id(a, n, idkey, 0), a, n, NULL);
}

static int reg_one(const char *ns, const pmix_info_t *i)
{
	if (strcmp(i->key, PMIX_PROC_DATA) == 0)
		return reg_proc_data(ns, &i->value);
	if (strcmp(i->key, PMIX_NODE_INFO_ARRAY) == 0)
		return reg_node(ns, &i->value);
	if (strcmp(i->key, PMIX_APP_INFO_ARRAY) == 0)
		return reg_level(ns, PXC_LVL_APP, PMIX_APPNUM, &i->value);
	if (strcmp(i->key, PMIX_SESSION_INFO_ARRAY) == 0)
		return reg_level(ns, PXC_LVL_SESSION, PMIX_SESSION_ID, &i->value);
	return pxc_store_put(pxc_srv.store, ns, PXC_LVL_JOB, 0, i->key, &i->value,
			     PMIX_SCOPE_UNDEF);
}

static void register_nspace_fn(void *arg)
{
	nsop_t *o = arg;
	pxc_snspace_t *ns = pxc_srv.running ? pxc_ns_get(o->nspace) : NULL;
	pmix_status_t st = PMIX_SUCCESS;

	if (!ns) {
		pxc_apiop_done(&o->op, pxc_srv.running ? PMIX_ERR_NOMEM : PMIX_ERR_INIT);
		return;
	}
	ns->registered = true;
	if (o->nlocalprocs >= 0)
		ns->nlocalprocs = o->nlocalprocs;
	for (size_t i = 0; i < o->ninfo && st == PMIX_SUCCESS; i++)
		if (reg_one(ns->name, &o->info[i]) < 0)
			st = pxc_errno_status(errno);
	if (st == PMIX_SUCCESS)
		pxc_map_derive(ns->name);
	pxc_apiop_done(&o->op, st);
}

static pmix_status_t copy_infos(pmix_info_t **out, const pmix_info_t *in, size_t n)
{
	*out = NULL;
	if (n == 0)
		return PMIX_SUCCESS;
	*out = PMIx_Info_create(n);
	if (!*out)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (PMIx_Info_xfer(&(*out)[i], &in[i]) != PMIX_SUCCESS) {
			PMIx_Info_free(*out, n);
			*out = NULL;
			return PMIX_ERR_NOMEM;
		}
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
					  pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
					  void *cbdata)
{
	nsop_t *o;
	pmix_status_t st;

	if (!nspace || !nspace[0] || (ninfo && !info))
		return PMIX_ERR_BAD_PARAM;
	o = calloc(1, sizeof(*o));
	if (!o)
		return PMIX_ERR_NOMEM;
	PMIx_Load_nspace(o->nspace, nspace);
	o->nlocalprocs = nlocalprocs;
	o->op.cbfunc = cbfunc;
	o->op.cbdata = cbdata;
	o->op.free_fn = nsop_free;
	o->info = info;
	o->ninfo = ninfo;
	if (cbfunc) {
		o->own_info = true;
		if (copy_infos(&o->info, info, ninfo) != PMIX_SUCCESS) {
			free(o);
			return PMIX_ERR_NOMEM;
		}
	}
	st = pxc_apiop_run(&o->op, register_nspace_fn);
	if (!cbfunc || st != PMIX_SUCCESS)
		nsop_free(o);
	return st;
}

/* ---------------------------------------------------- deregister_nspace */

/* Runs a deregistration. From the progress thread (a host calling from
 * inside an upcall) it is posted, never run in the caller's stack: the
 * server may be in the middle of dropping that very client. Sets
 * *posted_async when op is then freed by fn (free_fn), cbfunc or not. */
static pmix_status_t run_deregister(pxc_apiop_t *op, pxc_work_f fn, bool *posted_async)
{
	*posted_async = false;
	if (!pxc_srv.pg || !pxc_progress_in_thread(pxc_srv.pg))
		return pxc_apiop_run(op, fn);
	if (pxc_srv_post(fn, op) < 0)
		return PMIX_ERR_INIT;
	*posted_async = true;
	return PMIX_SUCCESS;
}

static void deregister_nspace_fn(void *arg)
{
	nsop_t *o = arg;
	pxc_snspace_t *ns = pxc_srv.running ? pxc_ns_find(o->nspace) : NULL;

	if (ns) {
		for (pxc_snspace_t **pp = &pxc_srv.nspaces; *pp; pp = &(*pp)->next)
			if (*pp == ns) {
				*pp = ns->next;
				break;
			}
		ns_free(ns);
	}
	if (pxc_srv.running)
		pxc_store_remove(pxc_srv.store, o->nspace, -1, PXC_ID_ANY, PXC_KINDS_ALL);
	pxc_apiop_done(&o->op, PMIX_SUCCESS);
}

void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
				   void *cbdata)
{
	nsop_t *o = calloc(1, sizeof(*o));
	pmix_status_t st = PMIX_ERR_NOMEM;
	bool async;

	if (o && nspace) {
		PMIx_Load_nspace(o->nspace, nspace);
		o->op.cbfunc = cbfunc;
		o->op.cbdata = cbdata;
		o->op.free_fn = nsop_free;
		st = run_deregister(&o->op, deregister_nspace_fn, &async);
		if (st != PMIX_SUCCESS || (!cbfunc && !async))
			free(o);
	} else {
		free(o);
		st = PMIX_ERR_BAD_PARAM;
	}
	if (st != PMIX_SUCCESS && cbfunc)
		cbfunc(st, cbdata);
}

/* ------------------------------------------------------ register_client */

typedef struct {
	pxc_apiop_t op;
	pmix_proc_t proc;
	uid_t uid;
	gid_t gid;
	void *server_object;
} clop_t;

static void register_client_fn(void *arg)
{
	clop_t *o = arg;
	pxc_snspace_t *ns = pxc_srv.running ? pxc_ns_get(o->proc.nspace) : NULL;
	pxc_sclient_t *cl = ns ? pxc_client_find(&o->proc) : NULL;

	if (ns && !cl && (cl = calloc(1, sizeof(*cl)))) {
		cl->ns = ns;
		cl->proc = o->proc;
		cl->next = ns->clients;
		ns->clients = cl;
		ns->nclients++;
	}
	if (cl) {
		cl->uid = o->uid;
		cl->gid = o->gid;
		cl->server_object = o->server_object;
	}
	pxc_apiop_done(&o->op, cl              ? PMIX_SUCCESS :
			       pxc_srv.running ? PMIX_ERR_NOMEM :
						 PMIX_ERR_INIT);
}

pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid, gid_t gid,
					  void *server_object, pmix_op_cbfunc_t cbfunc,
					  void *cbdata)
{
	clop_t *o;
	pmix_status_t st;

	if (!proc || !proc->nspace[0] || !PMIX_RANK_IS_VALID(proc->rank))
		return PMIX_ERR_BAD_PARAM;
	o = calloc(1, sizeof(*o));
	if (!o)
		return PMIX_ERR_NOMEM;
	o->proc = *proc;
	o->uid = uid;
	o->gid = gid;
	o->server_object = server_object;
	o->op.cbfunc = cbfunc;
	o->op.cbdata = cbdata;
	o->op.free_fn = free;
	st = pxc_apiop_run(&o->op, register_client_fn);
	if (!cbfunc || st != PMIX_SUCCESS)
		free(o);
	return st;
}

static void deregister_client_fn(void *arg)
{
	clop_t *o = arg;
	pxc_sclient_t *cl = pxc_srv.running ? pxc_client_find(&o->proc) : NULL;

	if (cl)
		client_remove(cl);
	pxc_apiop_done(&o->op, PMIX_SUCCESS);
}

void PMIx_server_deregister_client(const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	clop_t *o = proc ? calloc(1, sizeof(*o)) : NULL;
	pmix_status_t st = proc ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
	bool async;

	if (o) {
		o->proc = *proc;
		o->proc.nspace[PMIX_MAX_NSLEN] = '\0';
		o->op.cbfunc = cbfunc;
		o->op.cbdata = cbdata;
		o->op.free_fn = free;
		st = run_deregister(&o->op, deregister_client_fn, &async);
		if (st != PMIX_SUCCESS || (!cbfunc && !async))
			free(o);
	}
	if (st != PMIX_SUCCESS && cbfunc)
		cbfunc(st, cbdata);
}

/* ------------------------------------------------------------ setup_fork */

/* Sets name=value in a malloc'ed environment array, replacing any entry. */
static int env_set(char ***env, const char *name, const char *value)
{
	size_t n = 0, len = strlen(name);
	char *entry, **grown;

	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -1;
	for (; *env && (*env)[n]; n++)
		if (strncmp((*env)[n], name, len) == 0 && (*env)[n][len] == '=') {
			free((*env)[n]);
			(*env)[n] = entry;
			return 0;
		}
	grown = realloc(*env, (n + 2) * sizeof(char *));
	if (!grown) {
		free(entry);
		return -1;
	}
	grown[n] = entry;
	grown[n + 1] = NULL;
	*env = grown;
	return 0;
}

pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
	char rank[16], pid[16];

	if (!proc || !env)
		return PMIX_ERR_BAD_PARAM;
	if (!pxc_srv.uri)
		return PMIX_ERR_INIT;
	snprintf(rank, sizeof(rank), "%u", proc->rank);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	/* Never PMIX_INSTALL_PREFIX or PMIX_*DIR: Open MPI's ext3x refuses to
	 * start when they differ from its OPAL_* counterparts. */
	if (env_set(env, "PMIX_NAMESPACE", proc->nspace) < 0 ||
	    env_set(env, "PMIX_RANK", rank) < 0 || env_set(env, PXC_ENV_URI, pxc_srv.uri) < 0 ||
	    env_set(env, PXC_ENV_SERVER_PID, pid) < 0 ||
	    env_set(env, "PMIX_SERVER_TMPDIR", pxc_srv.dir) < 0 ||
	    env_set(env, "PMIX_HOSTNAME", pxc_srv.hostname) < 0 ||
	    env_set(env, "PMIX_VERSION", "4.2.2") < 0)
		return PMIX_ERR_NOMEM;
	return PMIX_SUCCESS;
}

/* ---- the registered info of other namespaces ---- */

/* The fetched namespaces, oldest first: a server keeps at most
 * PXC_NS_HELD_MAX (a step that spawns thousands of children holds the
 * last ones); the oldest's records go, and a later Get of it asks again. */
#define PXC_NS_HELD_MAX 256
static struct {
	char (*names)[PMIX_MAX_NSLEN + 1];
	size_t first, n;
} kept;

static void keep(const char *ns)
{
	if (!kept.names && !(kept.names = calloc(PXC_NS_HELD_MAX, sizeof(*kept.names))))
		return;
	for (size_t i = 0; i < kept.n; i++)
		if (PMIx_Check_nspace(kept.names[(kept.first + i) % PXC_NS_HELD_MAX], ns))
			return; /* kept already (its records were merged again) */
	if (kept.n == PXC_NS_HELD_MAX) {
		pxc_store_remove(pxc_srv.store, kept.names[kept.first], -1, PXC_ID_ANY,
				 PXC_KINDS_INFO);
		kept.first = (kept.first + 1) % PXC_NS_HELD_MAX;
		kept.n--;
	}
	snprintf(kept.names[(kept.first + kept.n++) % PXC_NS_HELD_MAX], PMIX_MAX_NSLEN + 1, "%s",
		 ns);
}

void pxc_ns_kept_clear(void)
{
	free(kept.names);
	memset(&kept, 0, sizeof(kept));
}

typedef struct {
	void (*done)(pmix_status_t st, void *arg);
	void *arg;
} fetch_t;

bool pxc_ns_held(const char *ns)
{
	return pxc_ns_find(ns) ||
	       pxc_store_get(pxc_srv.store, ns, PXC_LVL_JOB, 0, PMIX_JOB_SIZE, NULL);
}

static void fetched(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	fetch_t *f = r->ctx;
	pmix_data_buffer_t blob;
	pmix_status_t st = res->status;

	pxc_buf_init(&blob);
	if (st == PMIX_SUCCESS && res->ndata) {
		pxc_buf_load_take(&blob, res->data, res->ndata);
		res->data = NULL;
		st = pxc_store_unpack(pxc_srv.store, &blob);
	}
	pxc_buf_clear(&blob);
	if (st != PMIX_SUCCESS)
		pxc_error("server: no job info for namespace %s (%s)", r->a.proc.nspace,
			  PMIx_Error_string(st));
	else
		keep(r->a.proc.nspace);
	f->done(st, f->arg);
}

bool pxc_ns_fetch(const char *ns, uint16_t cmd, void (*done)(pmix_status_t st, void *arg),
		  void *arg)
{
	pmix_server_module_t *m = &pxc_srv.module;
	fetch_t *f;
	pxc_upcall_t *r;

	if (!m->direct_modex || !ns || !ns[0] || pxc_ns_held(ns))
		return false;
	f = malloc(sizeof(*f));
	r = f ? pxc_upcall_new(NULL, 0, cmd, fetched) : NULL;
	if (!r) {
		free(f);
		return false;
	}
	*f = (fetch_t){ done, arg };
	r->ctx = f;
	r->ctx_free = free;
	/* the request owns the proc: the host may keep it until it calls back */
	PMIx_Load_procid(&r->a.proc, ns, PMIX_RANK_WILDCARD);
	if (m->direct_modex(&r->a.proc, NULL, 0, pxc_upcall_cb_modex, PXC_UPCALL_CBDATA(r)) !=
	    PMIX_SUCCESS) {
		pxc_upcall_free(r);
		return false;
	}
	return true;
}

static void held(pmix_status_t st, void *arg)
{
	(void)st; /* logged by pxc_ns_fetch */
	free(arg);
}

static void hold_fn(void *arg)
{
	if (!pxc_ns_fetch(arg, PXC_CMD_CONNECT, held, arg))
		free(arg);
}

pmix_status_t pxc_server_hold_nspace(const char *ns)
{
	char *copy = ns ? strndup(ns, PMIX_MAX_NSLEN) : NULL;

	if (!copy)
		return PMIX_ERR_NOMEM;
	if (pxc_srv_post(hold_fn, copy) < 0) {
		free(copy);
		return PMIX_ERR_INIT;
	}
	return PMIX_SUCCESS;
}

pmix_status_t pxc_server_hold_nspace_data(const char *ns, const void *data, size_t ndata)
{
	pmix_data_buffer_t view;
	pmix_status_t st;

	if (!ns || !ns[0] || !data || !ndata || !pxc_srv.store)
		return PMIX_ERR_BAD_PARAM;
	pxc_buf_view(&view, data, ndata);
	if ((st = pxc_store_unpack(pxc_srv.store, &view)) == PMIX_SUCCESS)
		keep(ns);
	return st;
}
