/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.c - local aggregation of collectives: FENCE, CONNECT, DISCONNECT.
 *
 * A collective is named by its command plus its sorted, de-duplicated
 * participant list (a rank WILDCARD entry stands for a whole namespace).
 * Its local participants are the registered clients it names (for a
 * wildcard: the namespace's nlocalprocs, or its registered clients). Each
 * joining client is recorded; when the last local one joins, the server
 * makes exactly one host call (fence_nb / connect / disconnect) for all of
 * them, or completes locally when the host has no such callback, and
 * replies to every participant.
 *
 * FENCE with PMIX_COLLECT_DATA hands the host the concatenation of the
 * local participants' PMIX_REMOTE/PMIX_GLOBAL records (a store blob) that
 * they have not yet delivered through a successful collecting fence over
 * the same participants (delta.c); the host returns the concatenation of
 * every server's blob, which is merged into the server store and sent,
 * as one reply built once, to each participant.
 * CONNECT replies with the registered info of the other namespaces among
 * the participants and the posted data held for them. Once the host's
 * connect succeeded, the registered info of every participating namespace
 * this server does not hold is fetched first through the host's
 * direct_modex with rank WILDCARD (the host asks a server of that
 * namespace, whose PMIx_server_dmodex_request answers with it) and merged
 * into the store, so that the clients can PMIx_Get the other job's info
 * at once, even with PMIX_OPTIONAL. A fetch that fails is logged and
 * skipped (later Gets still go through direct modex).
 *
 * Failure: the timer (PMIX_TIMEOUT or the default) answers every waiting
 * participant PMIX_ERR_TIMEOUT; a participant that goes away before
 * joining fails the collective at once for the others - unless the
 * collective may drop it (a CONNECT with PMIX_CONNECT_OPTIONAL, a
 * DISCONNECT with PMIX_CONNECT_EARLY_TERM_ALLOWED: connect.c), in which
 * case it is no longer waited for, also when it was gone before the
 * first local join. Results of a host call whose collective is gone are
 * dropped (ids, see internal.h).
 * Progress thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "internal.h"
#include "upcall.h"
#include "connect.h"
#include "server.h"
#include "peer.h"
#include "delta.h"
#include "nspace.h"
#include "coll.h"
#include "group.h"
#include "proto.h"

#define PXC_COLL_LOST_STATUS PMIX_ERR_PROC_TERM_WO_SYNC

typedef pxc_coll_member_t member_t;

typedef struct pxc_coll {
	struct pxc_coll *next;
	uint64_t id;
	uint16_t cmd;
	uint8_t op;         /* GROUP: pmix_group_operation_t */
	char *grp;          /* GROUP: the group id */
	pmix_proc_t *procs; /* signature: sorted, unique */
	size_t nprocs;
	pmix_info_t *info; /* the first joiner's */
	size_t ninfo;
	size_t nexpected;
	member_t *members;
	size_t nmembers;
	bool in_host;
	size_t fetching; /* CONNECT: job info fetches pending */
	struct event *timer;
} pxc_coll_t;

/* -------------------------------------------------------------- basics */

int pxc_proc_cmp(const void *a, const void *b)
{
	const pmix_proc_t *x = a, *y = b;
	int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);

	if (c)
		return c;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static size_t sort_unique(pmix_proc_t *procs, size_t n)
{
	size_t out = 0;

	if (n == 0)
		return 0;
	qsort(procs, n, sizeof(*procs), pxc_proc_cmp);
	for (size_t i = 1; i < n; i++)
		if (pxc_proc_cmp(&procs[out], &procs[i]) != 0)
			procs[++out] = procs[i];
	return out + 1;
}

static bool names(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(procs[i].nspace, p->nspace, PMIX_MAX_NSLEN) == 0 &&
		    (procs[i].rank == p->rank || procs[i].rank == PMIX_RANK_WILDCARD))
			return true;
	return false;
}

/* How many local participants are already known to be gone (lost; with
 * finalized_too also finalized: for the collectives that may drop them). */
static size_t count_gone(const pmix_proc_t *procs, size_t n, bool finalized_too)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		pxc_snspace_t *ns = pxc_ns_find(procs[i].nspace);

		for (pxc_sclient_t *c = ns ? ns->clients : NULL; c; c = c->next)
			count += (c->lost || (finalized_too && c->finalized)) &&
				 (procs[i].rank == PMIX_RANK_WILDCARD ||
				  procs[i].rank == c->proc.rank);
	}
	return count;
}

static size_t count_lost(const pmix_proc_t *procs, size_t n)
{
	return count_gone(procs, n, false);
}

/* The local participants to wait for; with drop (OPTIONAL and friends)
 * those already gone are not waited for. */
static size_t local_count(const pmix_proc_t *procs, size_t n, bool drop)
{
	size_t count = 0, lost;

	for (size_t i = 0; i < n; i++) {
		pxc_snspace_t *ns;

		if (procs[i].rank != PMIX_RANK_WILDCARD) {
			count += pxc_proc_is_local(&procs[i]);
			continue;
		}
		ns = pxc_ns_find(procs[i].nspace);
		if (!ns)
			continue;
		if (ns->nlocalprocs >= 0 && (size_t)ns->nlocalprocs > ns->nclients)
			count += (size_t)ns->nlocalprocs;
		else
			count += ns->nclients;
	}
	lost = drop ? count_gone(procs, n, true) : 0;
	return count > lost ? count - lost : 0;
}

/* Same command, procs and PMIX_CONNECT_ID (connect.c), or for GROUP the
 * same operation and group id. */
static pxc_coll_t *coll_find(uint16_t cmd, const pmix_proc_t *procs, size_t n,
			     const pmix_info_t *info, size_t ninfo, uint8_t op, const char *grp)
{
	for (pxc_coll_t *c = pxc_srv.colls; c; c = c->next)
		if (c->cmd == cmd && !c->in_host && c->nprocs == n &&
		    memcmp(c->procs, procs, n * sizeof(*procs)) == 0 &&
		    (cmd == PXC_CMD_GROUP ? c->op == op && strcmp(c->grp, grp) == 0 :
					    pxc_cnx_same_op(c->info, c->ninfo, info, ninfo)))
			return c;
	return NULL;
}

static pxc_coll_t *coll_by_id(uint64_t id)
{
	for (pxc_coll_t *c = pxc_srv.colls; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void coll_free(pxc_coll_t *c)
{
	for (pxc_coll_t **pp = &pxc_srv.colls; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pxc_cnx_ended(c->cmd, c->procs, c->nprocs, c->info, c->ninfo);
	pxc_srv_timer_free(c->timer);
	pxc_array_free(c->procs, c->nprocs, PMIX_PROC);
	pxc_array_free(c->info, c->ninfo, PMIX_INFO);
	for (size_t i = 0; i < c->nmembers; i++)
		pxc_array_free(c->members[i].ginfo, c->members[i].nginfo, PMIX_INFO);
	free(c->members);
	free(c->grp);
	free(c);
}

/* Replies status (+ body) to every member and frees the collective. */
static void coll_finish(pxc_coll_t *c, pmix_status_t st, const pmix_data_buffer_t *body)
{
	for (size_t i = 0; i < c->nmembers; i++)
		pxc_peer_reply_id(c->members[i].peer_id, c->cmd, c->members[i].tag, st,
				  st == PMIX_SUCCESS ? body : NULL);
	coll_free(c);
}

static void coll_timeout(int fd, short what, void *arg)
{
	pxc_coll_t *c = coll_by_id((uint64_t)(uintptr_t)arg);

	(void)fd;
	(void)what;
	if (!c)
		return;
	pxc_error("server: collective (cmd %u, %zu of %zu local participants) timed out", c->cmd,
		  c->nmembers, c->nexpected);
	coll_finish(c, PMIX_ERR_TIMEOUT, NULL);
}

void pxc_coll_fail_all(pmix_status_t status)
{
	while (pxc_srv.colls)
		coll_finish(pxc_srv.colls, status, NULL);
}

static void coll_ready(pxc_coll_t *c);

static bool has_joined(const pxc_coll_t *c, const pmix_proc_t *proc)
{
	for (size_t i = 0; i < c->nmembers; i++)
		if (pxc_proc_cmp(&c->members[i].proc, proc) == 0)
			return true;
	return false;
}

/* proc is gone (lost, or finalized) before joining the collectives that
 * name it: those that may drop it stop waiting for it; the others fail
 * when it was lost (a finalized proc leaves them to their timer). */
static void proc_left(const pmix_proc_t *proc, bool finalized)
{
	pxc_coll_t *c = pxc_srv.colls, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->in_host || !names(c->procs, c->nprocs, proc) || has_joined(c, proc))
			continue;
		if (c->nexpected > 1 && pxc_cnx_may_drop(c->cmd, c->info, c->ninfo)) {
			pxc_debug("server: %s:%u %s before joining: dropped (optional)",
				  proc->nspace, proc->rank, finalized ? "finalized" : "went away");
			if (--c->nexpected == c->nmembers)
				coll_ready(c);
		} else if (!finalized) {
			pxc_error("server: %s:%u went away before joining a collective",
				  proc->nspace, proc->rank);
			coll_finish(c, PXC_COLL_LOST_STATUS, NULL);
		}
	}
}

void pxc_coll_proc_finalized(const pmix_proc_t *proc)
{
	proc_left(proc, true);
}

void pxc_coll_proc_gone(const pmix_proc_t *proc)
{
	proc_left(proc, false);
}

/* ------------------------------------------------------------ results */

/* BLOB + INFO[] results (connect.c) for one member of a connect. */
static int connect_body(const pxc_coll_t *c, const pmix_proc_t *member, pmix_data_buffer_t *body)
{
	const char *own = member->nspace;
	pmix_data_buffer_t blob;
	int rc = 0;

	pxc_buf_init(&blob);
	for (size_t i = 0; i < c->nprocs && rc == 0; i++) {
		if (strncmp(c->procs[i].nspace, own, PMIX_MAX_NSLEN) == 0 ||
		    (i > 0 &&
		     strncmp(c->procs[i].nspace, c->procs[i - 1].nspace, PMIX_MAX_NSLEN) == 0))
			continue; /* own namespace, or already packed */
		rc = pxc_store_pack(pxc_srv.store, c->procs[i].nspace, -1, PXC_ID_ANY,
				    PXC_KINDS_INFO | PXC_KINDS_POSTED, &blob);
	}
	if (rc == 0 && (pxc_pack_blob(body, &blob) != PMIX_SUCCESS ||
			pxc_cnx_pack_results(c->id, c->procs, c->nprocs, c->info, c->ninfo, member,
					     body) != PMIX_SUCCESS))
		rc = -1;
	pxc_buf_clear(&blob);
	return rc;
}

static void connect_finish(pxc_coll_t *c, pmix_status_t st)
{
	for (size_t i = 0; i < c->nmembers; i++) {
		pmix_data_buffer_t body;
		pmix_status_t mst = st;

		pxc_buf_init(&body);
		if (mst == PMIX_SUCCESS && connect_body(c, &c->members[i].proc, &body) < 0)
			mst = PMIX_ERR_NOMEM;
		if (mst == PMIX_SUCCESS)
			pxc_cnx_connected(&c->members[i].proc, c->procs, c->nprocs, c->info,
					  c->ninfo);
		pxc_peer_reply_id(c->members[i].peer_id, c->cmd, c->members[i].tag, mst,
				  mst == PMIX_SUCCESS ? &body : NULL);
		pxc_buf_clear(&body);
	}
	coll_free(c);
}

/* A collecting fence succeeded: its members' next fences over the same
 * participants send only what they post from now on (delta.c). */
static void fence_marks(const pxc_coll_t *c)
{
	pxc_fsig_t *sig;

	if (!pxc_info_flag(c->info, c->ninfo, PMIX_COLLECT_DATA))
		return;
	sig = pxc_delta_sig_hold(c->procs, c->nprocs);
	for (size_t i = 0; i < c->nmembers; i++)
		pxc_delta_done(sig, &c->members[i].proc, c->members[i].upto);
	pxc_delta_sig_release(sig);
}

/* The fence is done with data (a blob, may be empty, read in place): the
 * data is merged into the store, and one reply (STATUS, BLOB), built
 * once with its final size, goes to every member. */
static void fence_finish(pxc_coll_t *c, pmix_status_t st, const char *data, size_t ndata)
{
	pmix_byte_object_t bo = { .bytes = (char *)data, .size = ndata };
	pmix_data_buffer_t view, msg;

	pxc_buf_view(&view, data, ndata);
	if (st == PMIX_SUCCESS && ndata &&
	    (st = pxc_store_unpack(pxc_srv.store, &view)) != PMIX_SUCCESS)
		pxc_error("server: the host's fence data does not unpack (%d)", st);
	if (st != PMIX_SUCCESS) {
		coll_finish(c, st, NULL);
		return;
	}
	fence_marks(c);
	if (pxc_srv_buf_reserve(&msg, ndata + 64) < 0 ||
	    pxc_pack_status(&msg, PMIX_SUCCESS) != PMIX_SUCCESS ||
	    pxc_pack(&msg, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS) {
		pxc_buf_clear(&msg);
		coll_finish(c, PMIX_ERR_NOMEM, NULL);
		return;
	}
	for (size_t i = 0; i < c->nmembers; i++)
		pxc_peer_send_id(c->members[i].peer_id, c->cmd, c->members[i].tag, &msg);
	pxc_buf_clear(&msg);
	coll_free(c);
}

static void fetch_done(pmix_status_t st, void *arg)
{
	pxc_coll_t *c = coll_by_id((uint64_t)(uintptr_t)arg);

	(void)st; /* logged; the connect goes on without it */
	if (c && c->fetching && --c->fetching == 0)
		connect_finish(c, PMIX_SUCCESS);
}

/* Starts a fetch for ns unless held. True when one was started. */
static bool fetch_one(pxc_coll_t *c, const char *ns)
{
	return pxc_ns_fetch(ns, PXC_CMD_CONNECT, fetch_done, (void *)(uintptr_t)c->id);
}

/* The connect succeeded at the host: fetch the other namespaces' job
 * info, then reply. */
static void connect_fetch(pxc_coll_t *c)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if ((i == 0 ||
		     strncmp(c->procs[i].nspace, c->procs[i - 1].nspace, PMIX_MAX_NSLEN) != 0) &&
		    fetch_one(c, c->procs[i].nspace))
			c->fetching++;
	if (!c->fetching)
		connect_finish(c, PMIX_SUCCESS);
}

/* A group operation ended (group.c answers the members); res: the host's
 * results, local: this node's part. */
static void group_done(pxc_coll_t *c, pmix_status_t st, const pmix_info_t *res, size_t nres,
		       const char *local, size_t nlocal)
{
	pxc_grp_finish(&(pxc_grp_op_t){ .op = c->op,
					.grp = c->grp,
					.procs = c->procs,
					.nprocs = c->nprocs,
					.info = c->info,
					.ninfo = c->ninfo,
					.members = c->members,
					.nmembers = c->nmembers },
		       st, res, nres, local, nlocal);
	coll_free(c);
}

static void complete(pxc_coll_t *c, pmix_status_t st, const char *data, size_t ndata)
{
	if (st == PMIX_OPERATION_SUCCEEDED)
		st = PMIX_SUCCESS;
	if (c->cmd == PXC_CMD_GROUP)
		group_done(c, st, NULL, 0, data, ndata);
	else if (c->cmd == PXC_CMD_FENCE)
		fence_finish(c, st, data, ndata);
	else if (c->cmd == PXC_CMD_CONNECT && st == PMIX_SUCCESS)
		connect_fetch(c);
	else if (c->cmd == PXC_CMD_CONNECT)
		connect_finish(c, st);
	else {
		for (size_t i = 0; st == PMIX_SUCCESS && i < c->nmembers; i++)
			pxc_cnx_disconnected(&c->members[i].proc, c->procs, c->nprocs);
		coll_finish(c, st, NULL);
	}
}

/* ---------------------------------------------------------- host calls */

typedef struct {
	uint64_t coll_id;
	pmix_data_buffer_t blob; /* the data handed to fence_nb */
} hctx_t;

static void hctx_free(void *arg)
{
	hctx_t *x = arg;

	if (x) {
		pxc_buf_clear(&x->blob);
		free(x);
	}
}

static void host_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	hctx_t *x = r->ctx;
	pxc_coll_t *c = coll_by_id(x->coll_id);

	if (c && c->cmd == PXC_CMD_GROUP)
		group_done(c, res->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : res->status,
			   res->info, res->ninfo, x->blob.base_ptr, x->blob.bytes_used);
	else if (c)
		complete(c, res->status, res->data, res->ndata);
}

static int collect_local(pxc_coll_t *c, pmix_data_buffer_t *out)
{
	const pxc_fsig_t *sig;

	if (!pxc_info_flag(c->info, c->ninfo, PMIX_COLLECT_DATA))
		return 0;
	sig = pxc_delta_sig_find(c->procs, c->nprocs);
	for (size_t i = 0; i < c->nmembers; i++)
		if (pxc_delta_pack(&c->members[i].proc, sig, out, &c->members[i].upto) < 0)
			return -1;
	return 0;
}

pmix_status_t pxc_server_host_data(const char *data, size_t ndata)
{
	pmix_data_buffer_t view;
	pmix_status_t st;

	pxc_buf_view(&view, data, ndata);
	st = ndata ? pxc_store_unpack(pxc_srv.store, &view) : PMIX_SUCCESS;
	if (st != PMIX_SUCCESS)
		pxc_error("server: the host's connect data does not unpack (%d)", st);
	return st;
}

/* Appends (key, a copy of val) to the array *info of *n. 0/-1. */
static int info_append(pmix_info_t **info, size_t *n, const char *key, const void *val,
		       pmix_data_type_t type)
{
	pmix_info_t *grown = PMIx_Info_create(*n + 1);

	if (!grown)
		return -1;
	for (size_t i = 0; i < *n; i++)
		PMIx_Info_xfer(&grown[i], &(*info)[i]);
	if (PMIx_Info_load(&grown[*n], key, val, type) != PMIX_SUCCESS) {
		PMIx_Info_free(grown, *n + 1);
		return -1;
	}
	pxc_array_free(*info, *n, PMIX_INFO);
	*info = grown;
	(*n)++;
	return 0;
}

/* A CONNECT over several namespaces: the local members' posted records
 * go to the host under PXC_CONNECT_DATA (coll.h). Appended to a's info
 * copy; without posted data nothing is added. 0/-1. */
static int connect_data(const pxc_coll_t *c, pxc_upcall_args_t *a)
{
	pmix_data_buffer_t blob;
	pmix_byte_object_t bo;
	bool multi = false;
	int rc = 0;

	for (size_t i = 1; i < c->nprocs && !multi; i++)
		multi = strncmp(c->procs[i].nspace, c->procs[0].nspace, PMIX_MAX_NSLEN) != 0;
	if (!multi)
		return 0;
	pxc_buf_init(&blob);
	for (size_t i = 0; i < c->nmembers && rc == 0; i++)
		rc = pxc_store_pack(pxc_srv.store, c->members[i].proc.nspace, PXC_LVL_PROC,
				    c->members[i].proc.rank,
				    PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL), &blob);
	if (rc == 0 && blob.bytes_used) {
		bo.bytes = blob.base_ptr;
		bo.size = blob.bytes_used;
		rc = info_append(&a->info, &a->ninfo, PXC_CONNECT_DATA, &bo, PMIX_BYTE_OBJECT);
	}
	pxc_buf_clear(&blob);
	return rc;
}

/* The host gets copies of procs and info owned by the request r (with the
 * blob in x): the collective itself may time out and be freed while the
 * host still holds them. */
static pmix_status_t call_host(pxc_coll_t *c, pxc_upcall_t *r, hctx_t *x)
{
	pmix_server_module_t *m = &pxc_srv.module;
	pxc_upcall_args_t *a = &r->a;

	a->procs = malloc(c->nprocs * sizeof(*c->procs));
	if (!a->procs || pxc_info_dup(c->info, c->ninfo, &a->info) != PMIX_SUCCESS)
		return PMIX_ERR_NOMEM;
	memcpy(a->procs, c->procs, c->nprocs * sizeof(*c->procs));
	a->nprocs = c->nprocs;
	a->ninfo = a->info ? c->ninfo : 0;
	if (c->cmd == PXC_CMD_FENCE)
		return m->fence_nb(a->procs, a->nprocs, a->info, a->ninfo, x->blob.base_ptr,
				   x->blob.bytes_used, pxc_upcall_cb_modex, PXC_UPCALL_CBDATA(r));
	if (c->cmd == PXC_CMD_GROUP) {
		pmix_byte_object_t bo = { .bytes = x->blob.base_ptr, .size = x->blob.bytes_used };

		if (c->op == PMIX_GROUP_CONSTRUCT &&
		    info_append(&a->info, &a->ninfo, PXC_GROUP_DATA, &bo, PMIX_BYTE_OBJECT) < 0)
			return PMIX_ERR_NOMEM;
		if (!(a->str = strdup(c->grp)))
			return PMIX_ERR_NOMEM;
		return m->group((pmix_group_operation_t)c->op, a->str, a->procs, a->nprocs, a->info,
				a->ninfo, pxc_upcall_cb_info, PXC_UPCALL_CBDATA(r));
	}
	if (c->cmd == PXC_CMD_CONNECT && connect_data(c, a) < 0)
		return PMIX_ERR_NOMEM;
	if (c->cmd == PXC_CMD_CONNECT)
		return m->connect(a->procs, a->nprocs, a->info, a->ninfo, pxc_upcall_cb_op,
				  PXC_UPCALL_CBDATA(r));
	return m->disconnect(a->procs, a->nprocs, a->info, a->ninfo, pxc_upcall_cb_op,
			     PXC_UPCALL_CBDATA(r));
}

static bool host_has(uint16_t cmd)
{
	pmix_server_module_t *m = &pxc_srv.module;

	return cmd == PXC_CMD_FENCE   ? m->fence_nb != NULL :
	       cmd == PXC_CMD_CONNECT ? m->connect != NULL :
	       cmd == PXC_CMD_GROUP   ? m->group != NULL :
					m->disconnect != NULL;
}

/* Every local participant joined. */
static void coll_ready(pxc_coll_t *c)
{
	hctx_t *x = calloc(1, sizeof(*x));
	pxc_upcall_t *r;
	pmix_status_t st;

	if (!x || (c->cmd == PXC_CMD_FENCE && collect_local(c, &x->blob) < 0) ||
	    (c->cmd == PXC_CMD_GROUP && c->op == PMIX_GROUP_CONSTRUCT &&
	     pxc_grp_local_part(c->members, c->nmembers, &x->blob) < 0)) {
		hctx_free(x);
		complete(c, PMIX_ERR_NOMEM, NULL, 0);
		return;
	}
	if (!host_has(c->cmd)) {
		complete(c, PMIX_SUCCESS, x->blob.base_ptr, x->blob.bytes_used);
		hctx_free(x);
		return;
	}
	r = pxc_upcall_new(NULL, 0, c->cmd, host_done);
	if (!r) {
		hctx_free(x);
		complete(c, PMIX_ERR_NOMEM, NULL, 0);
		return;
	}
	x->coll_id = c->id;
	r->ctx = x;
	r->ctx_free = hctx_free;
	c->in_host = true;
	st = call_host(c, r, x);
	if (st != PMIX_SUCCESS) {
		complete(c, st, NULL, 0); /* OPERATION_SUCCEEDED: done, no data */
		pxc_upcall_free(r);
	}
}

/* -------------------------------------------------------------- joining */

static pxc_coll_t *coll_new(uint16_t cmd, pmix_proc_t *procs, size_t n, pmix_info_t *info,
			    size_t ninfo, uint8_t op, const char *grp)
{
	pxc_coll_t *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (grp && !(c->grp = strdup(grp))) {
		free(c);
		return NULL;
	}
	c->op = op;
	c->id = pxc_srv_new_id();
	c->cmd = cmd;
	c->procs = procs;
	c->nprocs = n;
	c->info = info;
	c->ninfo = ninfo;
	c->nexpected = local_count(procs, n, pxc_cnx_may_drop(cmd, info, ninfo));
	c->members = calloc(c->nexpected ? c->nexpected : 1, sizeof(member_t));
	c->timer = pxc_srv_timer(pxc_srv_timeout(info, ninfo), coll_timeout,
				 (void *)(uintptr_t)c->id);
	if (!c->members || !c->timer) {
		pxc_srv_timer_free(c->timer);
		free(c->members);
		free(c->grp);
		free(c);
		return NULL;
	}
	c->next = pxc_srv.colls;
	pxc_srv.colls = c;
	return c;
}

/* Validates and records one join; replies itself on errors. Takes procs
 * and info. */
/* GROUP construct: a later local member's PMIX_GROUP_ASSIGN_CONTEXT_ID or
 * _NOTIFY_TERMINATION counts as the first one's (any member may ask). */
static void merge_group_flags(pxc_coll_t *c, const pmix_info_t *info, size_t ninfo)
{
	const char *keys[] = { PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_NOTIFY_TERMINATION };
	bool yes = true;

	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++)
		if (pxc_info_flag(info, ninfo, keys[k]) &&
		    !pxc_info_flag(c->info, c->ninfo, keys[k]) &&
		    info_append(&c->info, &c->ninfo, keys[k], &yes, PMIX_BOOL) < 0)
			return;
}

static void join(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_proc_t *procs, size_t n,
		 pmix_info_t *info, size_t ninfo, uint8_t op, const char *grp)
{
	pxc_coll_t *c;
	member_t m = { .peer_id = p->id, .tag = h->tag, .proc = p->proc };
	pmix_status_t st = PMIX_SUCCESS;

	n = sort_unique(procs, n);
	if (!p->client || !names(procs, n, &p->proc))
		st = PMIX_ERR_BAD_PARAM;
	else if (!pxc_cnx_may_drop(h->cmd, info, ninfo) && count_lost(procs, n))
		st = PXC_COLL_LOST_STATUS;
	if (st == PMIX_SUCCESS && h->cmd == PXC_CMD_GROUP && op == PMIX_GROUP_CONSTRUCT)
		st = pxc_grp_member_info(info, ninfo, &m.ginfo, &m.nginfo);
	c = st == PMIX_SUCCESS ? coll_find(h->cmd, procs, n, info, ninfo, op, grp) : NULL;
	if (c) {
		if (h->cmd == PXC_CMD_GROUP && op == PMIX_GROUP_CONSTRUCT)
			merge_group_flags(c, info, ninfo);
		pxc_array_free(procs, n, PMIX_PROC);
		pxc_array_free(info, ninfo, PMIX_INFO);
		if (has_joined(c, &p->proc))
			st = PMIX_ERR_BAD_PARAM; /* joined twice */
	} else if (st == PMIX_SUCCESS && !(c = coll_new(h->cmd, procs, n, info, ninfo, op, grp))) {
		st = PMIX_ERR_NOMEM;
	}
	if (st != PMIX_SUCCESS || c->nmembers >= c->nexpected) {
		if (!c) {
			pxc_array_free(procs, n, PMIX_PROC);
			pxc_array_free(info, ninfo, PMIX_INFO);
		}
		pxc_array_free(m.ginfo, m.nginfo, PMIX_INFO);
		pxc_peer_reply(p, h->cmd, h->tag, st == PMIX_SUCCESS ? PMIX_ERR_BAD_PARAM : st,
			       NULL);
		return;
	}
	c->members[c->nmembers++] = m;
	pxc_cnx_joined(c->cmd, c->procs, c->nprocs, c->info, c->ninfo, &p->proc, c->nmembers == 1);
	if (c->nmembers == c->nexpected)
		coll_ready(c);
}

static int do_coll(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t *procs = NULL;
	pmix_info_t *info = NULL;
	size_t n = 0, ninfo = 0;

	if (pxc_unpack_array(in, (void **)&procs, &n, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_array_free(procs, n, PMIX_PROC);
		return -1;
	}
	if (n == 0) {
		procs = calloc(1, sizeof(*procs));
		if (!procs) {
			pxc_array_free(info, ninfo, PMIX_INFO);
			pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL);
			return 0;
		}
		PMIx_Load_procid(procs, p->proc.nspace, PMIX_RANK_WILDCARD);
		n = 1;
	}
	join(p, h, procs, n, info, ninfo, 0, NULL);
	return 0;
}

void pxc_coll_join_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, uint8_t op, const char *grp,
			 pmix_proc_t *procs, size_t n, pmix_info_t *info, size_t ninfo)
{
	join(p, h, procs, n, info, ninfo, op, grp);
}

int pxc_do_fence(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return do_coll(p, h, in);
}

int pxc_do_connect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return do_coll(p, h, in);
}

int pxc_do_disconnect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return do_coll(p, h, in);
}
