/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * connect.c - what PMIx_Connect / PMIx_Disconnect mean beyond the plain
 * collective of coll.c.
 *
 * - Requests: CONNECT and DISCONNECT arrive here first (peer.c's table).
 *   The attributes are type-checked (a bad type is PMIX_ERR_BAD_PARAM, not
 *   a closed connection), namespaces qualified with a cluster
 *   ("cluster:nspace") are rewritten to plain ones when the cluster is
 *   ours (the PMIX_CLUSTER_ID registered for the caller's namespace) and
 *   refused with PMIX_ERR_NOT_SUPPORTED otherwise (one cluster only); a
 *   disconnect from procs the caller never connected to is
 *   PMIX_ERR_INVALID_OPERATION. The request is then repacked and handed
 *   to coll.c.
 * - Connected sets: after each successful connect every local member gets
 *   a record (the procs of other namespaces, EARLY_TERM_ALLOWED); a
 *   successful disconnect marks the procs it names as disconnected. The
 *   records stay until the client ends: "never connected" is about the
 *   past. Procs of the caller's own namespace are always "connected"
 *   (same job).
 * - A client that ends (finalize or lost connection) with records left
 *   raises PMIX_ERR_INVALID_TERMINATION (source and
 *   PMIX_EVENT_AFFECTED_PROC: the client; range CUSTOM: the other procs)
 *   for the local clients that registered that code explicitly (a default
 *   "every event" handler - Open MPI's aborts on any error - does not get
 *   it: MPI jobs finalize while connected all the time), and hands it to
 *   the host's notify_event for the procs elsewhere.
 * - Results of a connect: PMIX_GROUP_CONTEXT_ID (size_t, the same on
 *   every participant: a hash of the proc set, the connect id and the
 *   number of earlier connects of that set on this server) and
 *   PMIX_CONNECT_GROUP_RANK (the member's rank in the group: namespaces
 *   in strcmp order, ranks ascending, a wildcard counting PMIX_JOB_SIZE
 *   procs), none with PMIX_CONNECT_XCHG_ONLY.
 * - Events of the connect attributes: NOTIFY_EACH raises
 *   PMIX_PROC_HAS_CONNECTED (source: the joiner) for the procs of the set
 *   as each local member joins (SLURMIX_PROC_HAS_DISCONNECTED, pmix_slurmix.h,
 *   as each joins a disconnect); NOTIFY_REQ raises PMIX_CONNECT_REQUESTED
 *   (source: the asker) for them when the first local one asks. Local
 *   procs get them at once; the host's notify_event (range CUSTOM = the
 *   set, plus the connect's PMIX_CONNECT_ID and PMIX_TIMEOUT) carries them
 *   to the other servers of the set, which hand them to
 *   pxc_server_connect_event. A server raises CONNECT_REQUESTED once per
 *   connect of a set (set + id): the first asker's, local or remote,
 *   wins; the mark goes when that connect ends here (coll.c) or after its
 *   timeout, so a later connect of the same set is announced again.
 * Progress thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "connect.h"
#include "upcall.h"
#include "server.h"
#include "peer.h"
#include "nspace.h"
#include "coll.h"
#include "group.h"
#include "proto.h"
#include "pmix_slurmix.h"

typedef struct cnx_rec {
	struct cnx_rec *next;
	pmix_proc_t owner;   /* the local client */
	pmix_proc_t *procs;  /* the others it connected to */
	unsigned char *live; /* per proc: not disconnected since */
	size_t nprocs;
	bool early_ok; /* PMIX_CONNECT_EARLY_TERM_ALLOWED */
} cnx_rec_t;

typedef struct cnx_seq {
	struct cnx_seq *next;
	uint64_t sig;
	uint64_t count;
} cnx_seq_t;

/* A connect whose CONNECT_REQUESTED this server has raised. */
typedef struct cnx_asked {
	struct cnx_asked *next;
	uint64_t sig; /* op_sig() */
	time_t until; /* CLOCK_MONOTONIC seconds */
} cnx_asked_t;

static cnx_rec_t *recs;
static cnx_seq_t *seqs;
static cnx_asked_t *asked;
static uint64_t last_coll; /* context id cache: one per collective */
static size_t last_ctx;

/* -------------------------------------------------------------- helpers */

static bool same_ns(const char *a, const char *b)
{
	return strncmp(a, b, PMIX_MAX_NSLEN) == 0;
}

static bool covers(const pmix_proc_t *set, size_t n, const pmix_proc_t *q)
{
	for (size_t i = 0; i < n; i++)
		if (same_ns(set[i].nspace, q->nspace) &&
		    (set[i].rank == PMIX_RANK_WILDCARD || q->rank == PMIX_RANK_WILDCARD ||
		     set[i].rank == q->rank))
			return true;
	return false;
}

static const char *info_id(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_CONNECT_ID);

	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* The identity of a connect: its (sorted) proc set and connect id. */
static uint64_t op_sig(const pmix_proc_t *procs, size_t n, const pmix_info_t *info, size_t ninfo)
{
	const char *id = info_id(info, ninfo);
	uint64_t sig = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++) {
		sig = fnv(sig, procs[i].nspace, strnlen(procs[i].nspace, PMIX_MAX_NSLEN));
		sig = fnv(sig, &procs[i].rank, sizeof(procs[i].rank));
	}
	if (id)
		sig = fnv(sig, id, strlen(id));
	return sig;
}

/* ------------------------------------------------------------- checking */

static bool is_bool_attr(const char *key)
{
	static const char *const keys[] = {
		PMIX_CONNECT_NOTIFY_EACH,        PMIX_CONNECT_NOTIFY_REQ, PMIX_CONNECT_OPTIONAL,
		PMIX_CONNECT_EARLY_TERM_ALLOWED, PMIX_CONNECT_XCHG_ONLY,
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strncmp(key, keys[i], PMIX_MAX_KEYLEN) == 0)
			return true;
	return false;
}

static bool int_type(pmix_data_type_t t)
{
	return t == PMIX_INT || t == PMIX_INT32 || t == PMIX_UINT32 || t == PMIX_UINT ||
	       t == PMIX_INT16 || t == PMIX_UINT16 || t == PMIX_INT64 || t == PMIX_UINT64 ||
	       t == PMIX_SIZE || t == PMIX_INT8 || t == PMIX_UINT8;
}

static pmix_status_t check_info(const pmix_info_t *info, size_t ninfo, const char **why)
{
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (is_bool_attr(info[i].key) && v->type != PMIX_BOOL && v->type != PMIX_UNDEF)
			*why = "a PMIX_CONNECT_* flag that is not a bool";
		else if (strncmp(info[i].key, PMIX_CONNECT_ID, PMIX_MAX_KEYLEN) == 0 &&
			 (v->type != PMIX_STRING || !v->data.string || !v->data.string[0] ||
			  strlen(v->data.string) > 255))
			*why = "PMIX_CONNECT_ID not a string of 1..255 characters";
		else if (strncmp(info[i].key, PMIX_TIMEOUT, PMIX_MAX_KEYLEN) == 0 &&
			 !int_type(v->type))
			*why = "PMIX_TIMEOUT not an integer";
		else
			continue;
		return PMIX_ERR_BAD_PARAM;
	}
	return PMIX_SUCCESS;
}

/* Our cluster: PMIX_CLUSTER_ID registered for the caller's namespace. */
static const char *our_cluster(const char *own)
{
	const pmix_value_t *v = pxc_store_get(pxc_srv.store, own, PXC_LVL_JOB, 0, PMIX_CLUSTER_ID,
					      NULL);

	return v && v->type == PMIX_STRING ? v->data.string : NULL;
}

/* "cluster:nspace" of our cluster -> "nspace"; another cluster: error. */
static pmix_status_t unqualify(const char *own, pmix_proc_t *q, const char **why)
{
	char *colon = memchr(q->nspace, ':', strnlen(q->nspace, PMIX_MAX_NSLEN));
	const char *ours;
	size_t clen;

	if (!colon || pxc_ns_find(q->nspace) || pxc_store_has_nspace(pxc_srv.store, q->nspace))
		return PMIX_SUCCESS; /* plain, or a known name with a colon */
	clen = (size_t)(colon - q->nspace);
	ours = our_cluster(own);
	if (!ours || strlen(ours) != clen || strncmp(ours, q->nspace, clen) != 0 || !colon[1]) {
		*why = "a namespace of another cluster (only our own cluster can be reached)";
		return PMIX_ERR_NOT_SUPPORTED;
	}
	memmove(q->nspace, colon + 1, strlen(colon + 1) + 1);
	return PMIX_SUCCESS;
}

pmix_status_t pxc_cnx_check(const char *own, pmix_proc_t *procs, size_t n, const pmix_info_t *info,
			    size_t ninfo, const char **why)
{
	pmix_status_t st = check_info(info, ninfo, why);

	for (size_t i = 0; i < n && st == PMIX_SUCCESS; i++)
		st = unqualify(own, &procs[i], why);
	return st;
}

bool pxc_cnx_same_op(const pmix_info_t *a, size_t na, const pmix_info_t *b, size_t nb)
{
	const char *x = info_id(a, na), *y = info_id(b, nb);

	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

bool pxc_cnx_may_drop(uint16_t cmd, const pmix_info_t *info, size_t ninfo)
{
	if (cmd == PXC_CMD_CONNECT)
		return pxc_info_flag(info, ninfo, PMIX_CONNECT_OPTIONAL);
	if (cmd == PXC_CMD_DISCONNECT)
		return pxc_info_flag(info, ninfo, PMIX_CONNECT_EARLY_TERM_ALLOWED);
	if (cmd == PXC_CMD_GROUP) /* a destruct always has it (group.c) */
		return pxc_info_flag(info, ninfo, PMIX_GROUP_OPTIONAL);
	return false;
}

/* ------------------------------------------------------------ requests */

/* Every proc of another namespace was connected to by client me. */
static bool was_connected(const pmix_proc_t *me, const pmix_proc_t *procs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool found = same_ns(procs[i].nspace, me->nspace);

		for (cnx_rec_t *r = recs; r && !found; r = r->next)
			found = PMIx_Check_procid(&r->owner, me) &&
				covers(r->procs, r->nprocs, &procs[i]);
		if (!found)
			return false;
	}
	return true;
}

static int forward(pxc_peer_t *p, const pxc_wire_hdr_t *h, const pmix_proc_t *procs, size_t n,
		   const pmix_info_t *info, size_t ninfo)
{
	pmix_data_buffer_t b;
	int rc;

	pxc_buf_init(&b);
	if (pxc_pack_array(&b, procs, n, PMIX_PROC) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, info, ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_buf_clear(&b);
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	}
	rc = h->cmd == PXC_CMD_CONNECT ? pxc_do_connect(p, h, &b) : pxc_do_disconnect(p, h, &b);
	pxc_buf_clear(&b);
	return rc;
}

static int handle(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t *procs = NULL;
	pmix_info_t *info = NULL;
	size_t n = 0, ninfo = 0;
	const char *why = NULL;
	pmix_status_t st;
	int rc = 0;

	if (pxc_unpack_array(in, (void **)&procs, &n, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_array_free(procs, n, PMIX_PROC);
		return -1;
	}
	st = pxc_cnx_check(p->proc.nspace, procs, n, info, ninfo, &why);
	if (st == PMIX_SUCCESS && h->cmd == PXC_CMD_DISCONNECT && p->client &&
	    !was_connected(&p->proc, procs, n)) {
		why = "a disconnect from procs that never connected";
		st = PMIX_ERR_INVALID_OPERATION;
	}
	if (st != PMIX_SUCCESS) {
		pxc_error("server: %s from %s:%u: %s",
			  h->cmd == PXC_CMD_CONNECT ? "connect" : "disconnect", p->proc.nspace,
			  p->proc.rank, why);
		pxc_peer_reply(p, h->cmd, h->tag, st, NULL);
	} else {
		rc = forward(p, h, procs, n, info, ninfo);
	}
	pxc_array_free(procs, n, PMIX_PROC);
	pxc_array_free(info, ninfo, PMIX_INFO);
	return rc;
}

int pxc_cnx_do_connect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return handle(p, h, in);
}

int pxc_cnx_do_disconnect(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return handle(p, h, in);
}

/* -------------------------------------------------- telling the host */

/* Hands an event about procs to the host for the servers of the procs
 * elsewhere: range CUSTOM = procs, affected proc = src, and the connect's
 * PMIX_CONNECT_ID and PMIX_TIMEOUT when info has them. */
static void tell_host(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
		      size_t n, const pmix_info_t *info, size_t ninfo)
{
	const char *keep[] = { PMIX_CONNECT_ID, PMIX_TIMEOUT, PMIX_GROUP_ID,
			       PXC_GROUP_FROM_SERVER };
	pmix_data_array_t *da;
	pxc_upcall_t *r;

	if (!pxc_srv.module.notify_event || !pxc_srv.running ||
	    !(r = pxc_upcall_new(NULL, 0, PXC_CMD_NOTIFY, pxc_upcall_done_none)))
		return;
	r->a.proc = *src;
	r->a.info = PMIx_Info_create(6);
	da = PMIx_Data_array_create(n, PMIX_PROC);
	if (!r->a.info || !da) {
		PMIx_Data_array_free(da);
		pxc_upcall_free(r);
		return;
	}
	memcpy(da->array, procs, n * sizeof(*procs));
	PMIx_Info_load(&r->a.info[0], PMIX_EVENT_CUSTOM_RANGE, da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&r->a.info[1], PMIX_EVENT_AFFECTED_PROC, src, PMIX_PROC);
	r->a.ninfo = 2;
	for (size_t k = 0; k < sizeof(keep) / sizeof(*keep); k++) {
		const pmix_info_t *i = pxc_info_find(info, ninfo, keep[k]);

		if (i && PMIx_Value_xfer(&r->a.info[r->a.ninfo].value, &i->value) == PMIX_SUCCESS)
			PMIX_LOAD_KEY(r->a.info[r->a.ninfo++].key, keep[k]);
	}
	PMIx_Data_array_free(da);
	pxc_upcall_after_call(r,
			      pxc_srv.module.notify_event(code, &r->a.proc, PMIX_RANGE_CUSTOM,
							  r->a.info, r->a.ninfo, pxc_upcall_cb_op,
							  PXC_UPCALL_CBDATA(r)));
}

/* ---------------------------------------------- CONNECT_REQUESTED marks */

static time_t mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* True when the connect (procs, id) was announced here already; else
 * marks it (until its timeout) and returns false. */
static bool asked_before(const pmix_proc_t *procs, size_t n, const pmix_info_t *info, size_t ninfo)
{
	uint64_t sig = op_sig(procs, n, info, ninfo);
	time_t now = mono_now();
	cnx_asked_t *a;

	for (cnx_asked_t **pp = &asked; (a = *pp);) {
		if (a->until > now && a->sig == sig)
			return true;
		if (a->until <= now) {
			*pp = a->next;
			free(a);
		} else {
			pp = &a->next;
		}
	}
	if ((a = calloc(1, sizeof(*a)))) { /* no memory: announced again */
		a->sig = sig;
		a->until = now + pxc_srv_timeout(info, ninfo);
		a->next = asked;
		asked = a;
	}
	return false;
}

void pxc_cnx_ended(uint16_t cmd, const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
		   size_t ninfo)
{
	uint64_t sig;

	if (cmd != PXC_CMD_CONNECT || !asked)
		return;
	sig = op_sig(procs, n, info, ninfo);
	for (cnx_asked_t **pp = &asked; *pp;) {
		cnx_asked_t *a = *pp;

		if (a->sig == sig) {
			*pp = a->next;
			free(a);
		} else {
			pp = &a->next;
		}
	}
}

/* --------------------------------------------------------------- events */

/* Sends an event to the local clients among procs (except who); with
 * explicit_only, only to those that registered code itself. extra (may be
 * NULL): one more info of the event. */
static void deliver_x(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
		      size_t n, const pmix_proc_t *who, bool explicit_only,
		      const pmix_info_t *extra)
{
	pmix_data_range_t range = PMIX_RANGE_CUSTOM;
	pmix_data_buffer_t msg;
	pmix_info_t info[3];
	pmix_data_array_t da = { .type = PMIX_PROC, .size = n, .array = (void *)procs };
	pmix_status_t st;

	PMIx_Info_load(&info[0], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[1], PMIX_EVENT_AFFECTED_PROC, src, PMIX_PROC);
	PMIx_Info_construct(&info[2]);
	if (extra)
		PMIx_Info_xfer(&info[2], extra);
	pxc_buf_init(&msg);
	st = pxc_pack_status(&msg, code);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_proc(&msg, src);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(&msg, &range, 1, PMIX_DATA_RANGE);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&msg, info, extra ? 3 : 2, PMIX_INFO);
	for (pxc_peer_t *p = pxc_srv.peers; st == PMIX_SUCCESS && p; p = p->next) {
		bool wants = !explicit_only && p->ev_all;

		for (size_t i = 0; i < p->nev_codes && !wants; i++)
			wants = p->ev_codes[i] == code;
		if (wants && p->client && p->hello && !p->finalized &&
		    (!who || !PMIx_Check_procid(&p->proc, who)) && covers(procs, n, &p->proc))
			pxc_peer_send_event(p, &msg);
	}
	pxc_buf_clear(&msg);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_destruct(&info[2]);
}

static void deliver(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs, size_t n,
		    const pmix_proc_t *who, bool explicit_only)
{
	deliver_x(code, src, procs, n, who, explicit_only, NULL);
}

void pxc_cnx_notify_set(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
			size_t n, const pmix_info_t *info, size_t ninfo)
{
	deliver_x(code, src, procs, n, src, true, pxc_info_find(info, ninfo, PMIX_GROUP_ID));
	tell_host(code, src, procs, n, info, ninfo);
}

void pxc_cnx_joined(uint16_t cmd, const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
		    size_t ninfo, const pmix_proc_t *who, bool first)
{
	if (cmd == PXC_CMD_DISCONNECT && pxc_info_flag(info, ninfo, PMIX_CONNECT_NOTIFY_EACH)) {
		deliver(SLURMIX_PROC_HAS_DISCONNECTED, who, procs, n, who, true);
		tell_host(SLURMIX_PROC_HAS_DISCONNECTED, who, procs, n, info, ninfo);
	}
	if (cmd != PXC_CMD_CONNECT)
		return;
	if (first && pxc_info_flag(info, ninfo, PMIX_CONNECT_NOTIFY_REQ) &&
	    !asked_before(procs, n, info, ninfo)) {
		deliver(PMIX_CONNECT_REQUESTED, who, procs, n, who, false);
		tell_host(PMIX_CONNECT_REQUESTED, who, procs, n, info, ninfo);
	}
	if (pxc_info_flag(info, ninfo, PMIX_CONNECT_NOTIFY_EACH)) {
		deliver(PMIX_PROC_HAS_CONNECTED, who, procs, n, who, false);
		tell_host(PMIX_PROC_HAS_CONNECTED, who, procs, n, info, ninfo);
	}
}

void pxc_server_connect_event(pmix_status_t code, const pmix_proc_t *src, const pmix_proc_t *procs,
			      size_t nprocs, const pmix_info_t *info, size_t ninfo)
{
	if (!src || !procs || !nprocs || !pxc_srv.running ||
	    (code != PMIX_CONNECT_REQUESTED && code != PMIX_PROC_HAS_CONNECTED &&
	     code != SLURMIX_PROC_HAS_DISCONNECTED))
		return;
	if (code == PMIX_CONNECT_REQUESTED && asked_before(procs, nprocs, info, ninfo))
		return;
	deliver(code, src, procs, nprocs, src, false);
}

void pxc_server_invalid_termination(const pmix_proc_t *src, const pmix_proc_t *procs, size_t nprocs)
{
	if (src && procs && nprocs && pxc_srv.running)
		deliver(PMIX_ERR_INVALID_TERMINATION, src, procs, nprocs, src, true);
}

/* ------------------------------------------------------- connected sets */

static void rec_free(cnx_rec_t *r)
{
	free(r->procs);
	free(r->live);
	free(r);
}

void pxc_cnx_connected(const pmix_proc_t *member, const pmix_proc_t *procs, size_t n,
		       const pmix_info_t *info, size_t ninfo)
{
	cnx_rec_t *r = calloc(1, sizeof(*r));
	size_t k = 0;

	if (r) {
		r->procs = malloc((n ? n : 1) * sizeof(*procs));
		r->live = malloc(n ? n : 1);
	}
	if (!r || !r->procs || !r->live) {
		if (r)
			rec_free(r);
		pxc_error("server: connect: out of memory recording %s:%u's set", member->nspace,
			  member->rank);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!same_ns(procs[i].nspace, member->nspace))
			r->procs[k++] = procs[i];
	if (k == 0) { /* only its own job: nothing to track */
		rec_free(r);
		return;
	}
	memset(r->live, 1, k);
	r->owner = *member;
	r->nprocs = k;
	r->early_ok = pxc_info_flag(info, ninfo, PMIX_CONNECT_EARLY_TERM_ALLOWED);
	r->next = recs;
	recs = r;
}

/* Marks every proc of r that procs names as disconnected. A record stays
 * until its owner ends: "never connected" is about the past, so that
 * disconnecting twice (an intercommunicator and its merged twin) works. */
void pxc_cnx_disconnected(const pmix_proc_t *member, const pmix_proc_t *procs, size_t n)
{
	for (cnx_rec_t *r = recs; r; r = r->next) {
		if (!PMIx_Check_procid(&r->owner, member))
			continue;
		for (size_t i = 0; i < r->nprocs; i++)
			if (covers(procs, n, &r->procs[i]))
				r->live[i] = 0;
	}
}

/* The procs of r still connected, compacted in place; how many. */
static size_t rec_live(cnx_rec_t *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nprocs; i++)
		if (r->live[i])
			r->procs[k++] = r->procs[i];
	return k;
}

void pxc_cnx_client_gone(const pmix_proc_t *proc)
{
	for (cnx_rec_t **pp = &recs; *pp;) {
		cnx_rec_t *r = *pp;
		size_t k;

		if (!PMIx_Check_procid(&r->owner, proc)) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		if (!r->early_ok && (k = rec_live(r)) > 0) {
			pxc_debug("server: %s:%u ended while connected to %zu proc entries "
				  "(PMIX_ERR_INVALID_TERMINATION)",
				  proc->nspace, proc->rank, k);
			deliver(PMIX_ERR_INVALID_TERMINATION, proc, r->procs, k, proc, true);
			tell_host(PMIX_ERR_INVALID_TERMINATION, proc, r->procs, k, NULL, 0);
		}
		rec_free(r);
	}
}

void pxc_cnx_free_all(void)
{
	while (recs) {
		cnx_rec_t *r = recs;

		recs = r->next;
		rec_free(r);
	}
	while (seqs) {
		cnx_seq_t *s = seqs;

		seqs = s->next;
		free(s);
	}
	while (asked) {
		cnx_asked_t *a = asked;

		asked = a->next;
		free(a);
	}
	last_coll = 0;
}

/* -------------------------------------------------------------- results */

static size_t context_id(uint64_t coll_id, const pmix_proc_t *procs, size_t n,
			 const pmix_info_t *info, size_t ninfo)
{
	uint64_t sig;
	cnx_seq_t *s;

	if (coll_id && coll_id == last_coll)
		return last_ctx;
	sig = op_sig(procs, n, info, ninfo);
	for (s = seqs; s && s->sig != sig; s = s->next)
		;
	if (!s && (s = calloc(1, sizeof(*s)))) {
		s->sig = sig;
		s->next = seqs;
		seqs = s;
	}
	sig = fnv(sig, s ? &s->count : &sig, sizeof(sig));
	if (s)
		s->count++;
	last_coll = coll_id;
	last_ctx = (size_t)(sig ? sig : 1);
	return last_ctx;
}

/* The member's rank in the group; false when a job size is unknown. */
static bool group_rank(const pmix_proc_t *procs, size_t n, const pmix_proc_t *m, pmix_rank_t *out)
{
	uint64_t base = 0;

	for (size_t i = 0; i < n; i++) {
		const pmix_value_t *v;

		if (same_ns(procs[i].nspace, m->nspace) &&
		    (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == m->rank)) {
			*out = (pmix_rank_t)(base +
					     (procs[i].rank == PMIX_RANK_WILDCARD ? m->rank : 0));
			return true;
		}
		if (procs[i].rank != PMIX_RANK_WILDCARD) {
			base++;
			continue;
		}
		v = pxc_store_get(pxc_srv.store, procs[i].nspace, PXC_LVL_JOB, 0, PMIX_JOB_SIZE,
				  NULL);
		if (!v || v->type != PMIX_UINT32)
			return false;
		base += v->data.uint32;
	}
	return false;
}

pmix_status_t pxc_cnx_pack_results(uint64_t coll_id, const pmix_proc_t *procs, size_t n,
				   const pmix_info_t *info, size_t ninfo, const pmix_proc_t *member,
				   pmix_data_buffer_t *body)
{
	pmix_info_t res[2];
	size_t nres = 0, ctx;
	pmix_rank_t grank;
	pmix_status_t st;

	if (pxc_info_flag(info, ninfo, PMIX_CONNECT_XCHG_ONLY))
		return pxc_pack_array(body, NULL, 0, PMIX_INFO);
	ctx = context_id(coll_id, procs, n, info, ninfo);
	PMIx_Info_load(&res[nres++], PMIX_GROUP_CONTEXT_ID, &ctx, PMIX_SIZE);
	if (group_rank(procs, n, member, &grank))
		PMIx_Info_load(&res[nres++], PMIX_CONNECT_GROUP_RANK, &grank, PMIX_PROC_RANK);
	st = pxc_pack_array(body, res, nres, PMIX_INFO);
	for (size_t i = 0; i < nres; i++)
		PMIx_Info_destruct(&res[i]);
	return st;
}
