/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.c - GROUP: PMIx_Group_construct and PMIx_Group_destruct, which are
 * collectives over the members like a connect (coll.c gathers a node's
 * members and makes one host group call for them), and the groups this
 * server's clients belong to.
 *
 * Construct. The directives are type-checked (bad type: PMIX_ERR_BAD_PARAM;
 * an unknown one marked required: PMIX_ERR_NOT_SUPPORTED); a name already
 * held by a group of the caller is PMIX_ERR_EXISTS. Each member brings its
 * group info (the entries of its PMIX_GROUP_INFO and its
 * PMIX_GROUP_ENDPT_DATA), and the client committed its puts before asking.
 * The node's part handed to the host (PXC_GROUP_DATA, coll.h) is
 *     UINT32 n, then per member PROC, BYTE_OBJECT (a store blob of its
 *     PMIX_REMOTE/PMIX_GLOBAL records), INFO[] (its group info).
 * Once the host answers with every node's parts (and the context id):
 *   - the members' posted records go into the store as they are, like a
 *     connect's data, so a Get of a member's key needs no direct modex;
 *   - each member's group info goes into the store under that member, of
 *     kind PXC_KIND_GROUP, its key qualified by the context id
 *     (pxc_store_group_key: PMIx_Get with PMIX_GROUP_CONTEXT_ID as a
 *     qualifier), plain when no id was assigned; it stays after the
 *     destruct (Open MPI reads it then) until the namespace goes;
 *   - the group is recorded (name, members, id, NOTIFY_TERMINATION) and
 *     defined as a process set of its name (PMIX_QUERY_PSET_NAMES and
 *     PMIX_PSET_MEMBERS on the members' nodes);
 *   - every local member's reply is STATUS, INFO[] results
 *     (PMIX_GROUP_CONTEXT_ID when assigned, PMIX_GROUP_MEMBERSHIP: who is
 *     in, sorted, those dropped under PMIX_GROUP_OPTIONAL left out), BLOB
 *     (the other members' posted records, every member's group info of
 *     this construct).
 * A group is known by its id and a member: disjoint groups may share an
 * id (one process is in one group of an id).
 * Leave (PXC_GROUP_OP_LEAVE, proto.h): the caller is taken out of the
 * record and the process set, and the other members get PMIX_GROUP_LEFT
 * (source: the caller; PMIX_GROUP_ID); their servers take it out too when
 * that event reaches them (pxc_grp_left), so a later destruct waits for
 * the ones still in.
 * Destruct: the recorded members are the participants, with
 * PMIX_GROUP_OPTIONAL added (a member that is gone - lost, or finalized -
 * does not hold it up on its node, nor a node whose members are all lost:
 * net/coll.c);
 * an unknown group is PMIX_ERR_NOT_FOUND, a caller outside it
 * PMIX_ERR_BAD_PARAM. On success the record and the process set go.
 * A member that ends (finalize or lost) while in a group made with
 * PMIX_GROUP_NOTIFY_TERMINATION: PMIX_GROUP_MEMBER_FAILED (source and
 * affected proc: the member; PMIX_GROUP_ID) to the other members that
 * registered for it, through connect.c's pxc_cnx_notify_set.
 * PMIX_GROUP_LOCAL_ONLY, PMIX_EMBED_BARRIER and PMIX_GROUP_FT_COLLECTIVE
 * are accepted: every construct is a collective of all members already.
 * Without a host group upcall (one node), context ids come from a counter
 * of this server. Progress thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "upcall.h"
#include "peer.h"
#include "coll.h"
#include "connect.h"
#include "group.h"
#include "pset.h"
#include "proto.h"

/* At most this many groups per server (constructs beyond: NOMEM). */
#define GRP_MAX 4096

typedef struct grp {
	struct grp *next;
	char *name;
	pmix_proc_t *members;
	size_t nmembers;
	bool has_cid, notify_term;
	uint64_t cid;
} grp_t;

static grp_t *groups;
static size_t ngroups;
static uint64_t local_cid; /* without a host: the last id given */

static bool is_member(const grp_t *g, const pmix_proc_t *p)
{
	for (size_t i = 0; i < g->nmembers; i++)
		if (PMIx_Check_procid(&g->members[i], p))
			return true;
	return false;
}

/* Groups are named by their id and a member: disjoint groups may share
 * an id (two halves of a job), a process is in one group of an id. */
static grp_t *grp_find(const char *name, const pmix_proc_t *member)
{
	for (grp_t *g = groups; g; g = g->next)
		if (strcmp(g->name, name) == 0 && is_member(g, member))
			return g;
	return NULL;
}

static bool name_held(const char *name)
{
	for (grp_t *g = groups; g; g = g->next)
		if (strcmp(g->name, name) == 0)
			return true;
	return false;
}

static void grp_free(grp_t *g)
{
	free(g->name);
	free(g->members);
	free(g);
}

/* Unlinks and frees g; the process set of its id goes with the last
 * group of that id. */
static void grp_remove(grp_t *g)
{
	for (grp_t **pp = &groups; *pp; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	if (!name_held(g->name))
		pxc_pset_drop(g->name);
	grp_free(g);
	ngroups--;
}

void pxc_grp_foreach(pxc_grp_visit_f fn, void *arg)
{
	for (const grp_t *g = groups; g; g = g->next)
		if (!fn(g->name, g->members, g->nmembers, arg))
			return;
}

void pxc_grp_free_all(void)
{
	while (groups) {
		grp_t *g = groups;

		groups = g->next;
		grp_free(g);
	}
	ngroups = 0;
	local_cid = 0;
}

/* ------------------------------------------------------------ requests */

static const char *const bool_keys[] = {
	PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_OPTIONAL, PMIX_GROUP_NOTIFY_TERMINATION,
	PMIX_GROUP_LOCAL_ONLY,        PMIX_EMBED_BARRIER,  PMIX_GROUP_FT_COLLECTIVE
};

/* PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (a known key of the wrong type) or
 * PMIX_ERR_NOT_SUPPORTED (an unknown one marked required); *why says which. */
static pmix_status_t check_directives(const pmix_info_t *info, size_t ninfo, const char **why)
{
	for (size_t i = 0; i < ninfo; i++) {
		const char *k = info[i].key;
		pmix_data_type_t t = info[i].value.type;
		bool known = false, ok = true;

		for (size_t b = 0; b < sizeof(bool_keys) / sizeof(*bool_keys) && !known; b++)
			if ((known = PMIx_Check_key(k, bool_keys[b])))
				ok = t == PMIX_BOOL || t == PMIX_UNDEF;
		if (!known && (known = PMIx_Check_key(k, PMIX_GROUP_INFO)))
			ok = t == PMIX_DATA_ARRAY && info[i].value.data.darray &&
			     (info[i].value.data.darray->size == 0 ||
			      info[i].value.data.darray->type == PMIX_INFO);
		else if (!known && (known = PMIx_Check_key(k, PMIX_GROUP_ENDPT_DATA)))
			ok = t == PMIX_BYTE_OBJECT;
		else if (!known && (known = PMIx_Check_key(k, PMIX_TIMEOUT)))
			ok = t == PMIX_INT || t == PMIX_UINT32 || t == PMIX_INT32;
		*why = k;
		if (!ok)
			return PMIX_ERR_BAD_PARAM;
		if (!known && PMIx_Info_is_required(&info[i]))
			return PMIX_ERR_NOT_SUPPORTED;
	}
	return PMIX_SUCCESS;
}

pmix_status_t pxc_grp_member_info(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
				  size_t *nout)
{
	const pmix_info_t *g = pxc_info_find(info, ninfo, PMIX_GROUP_INFO);
	const pmix_info_t *e = pxc_info_find(info, ninfo, PMIX_GROUP_ENDPT_DATA);
	const pmix_data_array_t *da = g ? g->value.data.darray : NULL;
	size_t n = (da ? da->size : 0) + (e != NULL);

	*out = NULL;
	*nout = 0;
	if (!n)
		return PMIX_SUCCESS;
	if (!(*out = PMIx_Info_create(n)))
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; da && i < da->size; i++)
		PMIx_Info_xfer(&(*out)[i], &((const pmix_info_t *)da->array)[i]);
	if (e)
		PMIx_Info_xfer(&(*out)[n - 1], e);
	*nout = n;
	return PMIX_SUCCESS;
}

static pmix_status_t check_request(const pxc_peer_t *p, uint8_t op, const char *name, size_t n,
				   const pmix_info_t *info, size_t ninfo, const char **why)
{
	if (!p->client || !name || !*name || strlen(name) > PMIX_MAX_NSLEN)
		return PMIX_ERR_BAD_PARAM;
	if (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT && op != PXC_GROUP_OP_LEAVE)
		return PMIX_ERR_BAD_PARAM;
	if (op == PMIX_GROUP_CONSTRUCT && !n)
		return PMIX_ERR_BAD_PARAM;
	return check_directives(info, ninfo, why);
}

/* Takes procs and info; replies itself. */
static void destruct(pxc_peer_t *p, const pxc_wire_hdr_t *h, const char *name, pmix_info_t *info,
		     size_t ninfo)
{
	grp_t *g = grp_find(name, &p->proc);
	pmix_proc_t *procs;
	pmix_info_t *all;
	bool yes = true;

	if (!g) {
		pxc_array_free(info, ninfo, PMIX_INFO);
		pxc_peer_reply(p, h->cmd, h->tag,
			       name_held(name) ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_FOUND, NULL);
		return;
	}
	procs = malloc(g->nmembers * sizeof(*procs));
	all = PMIx_Info_create(ninfo + 1);
	if (!procs || !all) {
		free(procs);
		PMIx_Info_free(all, ninfo + 1);
		pxc_array_free(info, ninfo, PMIX_INFO);
		pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL);
		return;
	}
	memcpy(procs, g->members, g->nmembers * sizeof(*procs));
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&all[i], &info[i]);
	PMIx_Info_load(&all[ninfo], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
	pxc_array_free(info, ninfo, PMIX_INFO);
	pxc_coll_join_group(p, h, PMIX_GROUP_DESTRUCT, name, procs, g->nmembers, all, ninfo + 1);
}

/* who leaves g: out of its record and process set. */
static void drop_member(grp_t *g, const pmix_proc_t *who)
{
	size_t k = 0;

	for (size_t i = 0; i < g->nmembers; i++)
		if (!PMIx_Check_procid(&g->members[i], who))
			g->members[k++] = g->members[i];
	g->nmembers = k;
	if (pxc_pset_put(g->name, g->members, g->nmembers) != PMIX_SUCCESS)
		pxc_error("server: group %s: process set not updated (no memory)", g->name);
}

/* A local member leaves: the others hear PMIX_GROUP_LEFT (their servers
 * update their records from it, pxc_grp_left). */
static pmix_status_t leave(const char *name, const pmix_proc_t *who)
{
	grp_t *g = grp_find(name, who);
	pmix_info_t id[2];
	bool yes = true;

	if (!g)
		return name_held(name) ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_FOUND;
	drop_member(g, who);
	PMIx_Info_load(&id[0], PMIX_GROUP_ID, g->name, PMIX_STRING);
	PMIx_Info_load(&id[1], PXC_GROUP_FROM_SERVER, &yes, PMIX_BOOL);
	if (g->nmembers)
		pxc_cnx_notify_set(PMIX_GROUP_LEFT, who, g->members, g->nmembers, id, 2);
	PMIx_Info_destruct(&id[0]);
	PMIx_Info_destruct(&id[1]);
	if (!g->nmembers)
		grp_remove(g);
	return PMIX_SUCCESS;
}

void pxc_grp_left(const pmix_proc_t *who, const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_GROUP_ID);
	grp_t *g = i && i->value.type == PMIX_STRING && i->value.data.string ?
			   grp_find(i->value.data.string, who) :
			   NULL;

	if (!pxc_info_flag(info, ninfo, PXC_GROUP_FROM_SERVER))
		return; /* a client's own event: no say over the records */
	if (g) {
		pxc_debug("server: %s:%u left group %s", who->nspace, who->rank, g->name);
		drop_member(g, who);
	}
}

int pxc_do_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	char *name = NULL;
	pmix_proc_t *procs = NULL;
	pmix_info_t *info = NULL;
	size_t n = 0, ninfo = 0;
	const char *why = NULL;
	pmix_status_t st;
	int32_t one = 1;
	uint8_t op;

	if (pxc_unpack(in, &op, &one, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &name) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&procs, &n, PMIX_PROC) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		free(name);
		pxc_array_free(procs, n, PMIX_PROC);
		return -1;
	}
	st = check_request(p, op, name, n, info, ninfo, &why);
	if (st == PMIX_SUCCESS && op == PMIX_GROUP_CONSTRUCT && grp_find(name, &p->proc))
		st = PMIX_ERR_EXISTS;
	if (st == PMIX_SUCCESS && op == PMIX_GROUP_CONSTRUCT && ngroups >= GRP_MAX)
		st = PMIX_ERR_OUT_OF_RESOURCE;
	if (st != PMIX_SUCCESS) {
		pxc_debug("server: group %s of %s:%u refused (%d%s%s)", name ? name : "(none)",
			  p->proc.nspace, p->proc.rank, st, why ? ", " : "", why ? why : "");
		pxc_peer_reply(p, h->cmd, h->tag, st, NULL);
		pxc_array_free(procs, n, PMIX_PROC);
		pxc_array_free(info, ninfo, PMIX_INFO);
	} else if (op == PXC_GROUP_OP_LEAVE) {
		pxc_array_free(procs, n, PMIX_PROC);
		pxc_array_free(info, ninfo, PMIX_INFO);
		pxc_peer_reply(p, h->cmd, h->tag, leave(name, &p->proc), NULL);
	} else if (op == PMIX_GROUP_DESTRUCT) {
		pxc_array_free(procs, n, PMIX_PROC);
		destruct(p, h, name, info, ninfo);
	} else {
		pxc_coll_join_group(p, h, op, name, procs, n, info, ninfo);
	}
	free(name);
	return 0;
}

/* ---------------------------------------------------------- the parts */

int pxc_grp_local_part(const pxc_coll_member_t *m, size_t n, pmix_data_buffer_t *out)
{
	uint32_t count = (uint32_t)n;
	int rc = pxc_pack_u32(out, count) == PMIX_SUCCESS ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		pmix_data_buffer_t blob;

		pxc_buf_init(&blob);
		rc = pxc_store_pack(pxc_srv.store, m[i].proc.nspace, PXC_LVL_PROC, m[i].proc.rank,
				    PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL), &blob);
		if (rc == 0 &&
		    (pxc_pack_proc(out, &m[i].proc) != PMIX_SUCCESS ||
		     pxc_pack_blob(out, &blob) != PMIX_SUCCESS ||
		     pxc_pack_array(out, m[i].ginfo, m[i].nginfo, PMIX_INFO) != PMIX_SUCCESS))
			rc = -1;
		pxc_buf_clear(&blob);
	}
	return rc;
}

/* The members a construct's parts name, and their group info of this
 * construct (cur: what the replies carry, not the records of earlier
 * groups). */
typedef struct {
	pmix_proc_t *procs;
	size_t n, cap;
	pxc_store_t *cur;
} plist_t;

/* One member's group info into the store and l->cur (see the top of the
 * file). */
static void put_ginfo(plist_t *l, const pmix_proc_t *who, const pmix_info_t *gi, size_t n,
		      bool has_cid, uint64_t cid)
{
	char key[PMIX_MAX_KEYLEN + 1];

	for (size_t i = 0; i < n; i++) {
		if (has_cid && !pxc_store_group_key(key, gi[i].key, cid))
			continue;
		if (!has_cid)
			snprintf(key, sizeof(key), "%s", gi[i].key);
		if (pxc_store_put(pxc_srv.store, who->nspace, PXC_LVL_PROC, who->rank, key,
				  &gi[i].value, PXC_KIND_GROUP) < 0 ||
		    pxc_store_put(l->cur, who->nspace, PXC_LVL_PROC, who->rank, key, &gi[i].value,
				  PXC_KIND_GROUP) < 0)
			pxc_error("server: group info %s of %s:%u not kept", gi[i].key, who->nspace,
				  who->rank);
	}
}

static int plist_add(plist_t *l, const pmix_proc_t *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		pmix_proc_t *g = realloc(l->procs, cap * sizeof(*g));

		if (!g)
			return -1;
		l->procs = g;
		l->cap = cap;
	}
	l->procs[l->n++] = *p;
	return 0;
}

/* Every node's parts: the store gets the data, l the members. */
static pmix_status_t take_parts(const char *data, size_t ndata, bool has_cid, uint64_t cid,
				plist_t *l)
{
	pmix_data_buffer_t in;
	pmix_status_t st = PMIX_SUCCESS;

	pxc_buf_view(&in, data, ndata);
	while (st == PMIX_SUCCESS && pxc_buf_remaining(&in) > 0) {
		uint32_t count;

		if ((st = pxc_unpack_u32(&in, &count)) != PMIX_SUCCESS)
			break;
		for (uint32_t i = 0; st == PMIX_SUCCESS && i < count; i++) {
			pmix_byte_object_t bo = { 0 };
			pmix_info_t *gi = NULL;
			size_t ngi = 0;
			pmix_proc_t who;
			int32_t one = 1;

			if ((st = pxc_unpack_proc(&in, &who)) != PMIX_SUCCESS ||
			    (st = pxc_unpack(&in, &bo, &one, PMIX_BYTE_OBJECT)) != PMIX_SUCCESS ||
			    (st = pxc_unpack_array(&in, (void **)&gi, &ngi, PMIX_INFO)) !=
				    PMIX_SUCCESS) {
				free(bo.bytes);
				break;
			}
			st = pxc_server_host_data(bo.bytes, bo.size);
			put_ginfo(l, &who, gi, ngi, has_cid, cid);
			if (st == PMIX_SUCCESS && plist_add(l, &who) < 0)
				st = PMIX_ERR_NOMEM;
			free(bo.bytes);
			pxc_array_free(gi, ngi, PMIX_INFO);
		}
	}
	if (st != PMIX_SUCCESS)
		pxc_error("server: the group's data does not unpack (%d)", st);
	return st;
}

/* --------------------------------------------------------- completion */

/* The host's context id, or one of ours without a host. */
static bool context_id(const pxc_grp_op_t *o, const pmix_info_t *res, size_t nres, bool hosted,
		       uint64_t *cid)
{
	const pmix_info_t *i = pxc_info_find(res, nres, PMIX_GROUP_CONTEXT_ID);

	if (!pxc_info_flag(o->info, o->ninfo, PMIX_GROUP_ASSIGN_CONTEXT_ID))
		return false;
	if (i && (i->value.type == PMIX_SIZE || i->value.type == PMIX_UINT64)) {
		*cid = i->value.type == PMIX_SIZE ? i->value.data.size : i->value.data.uint64;
		return true;
	}
	if (hosted)
		return false;
	*cid = ++local_cid;
	return true;
}

static pmix_status_t record(const pxc_grp_op_t *o, const plist_t *l, bool has_cid, uint64_t cid)
{
	grp_t *g = calloc(1, sizeof(*g));

	if (!g || !(g->name = strdup(o->grp)) ||
	    !(g->members = malloc((l->n ? l->n : 1) * sizeof(*g->members)))) {
		if (g)
			free(g->name);
		free(g);
		return PMIX_ERR_NOMEM;
	}
	memcpy(g->members, l->procs, l->n * sizeof(*g->members));
	g->nmembers = l->n;
	g->has_cid = has_cid;
	g->cid = cid;
	g->notify_term = pxc_info_flag(o->info, o->ninfo, PMIX_GROUP_NOTIFY_TERMINATION);
	for (size_t i = 0; i < l->n; i++) { /* an earlier group of the id and a member */
		grp_t *old = grp_find(o->grp, &l->procs[i]);

		if (old)
			grp_remove(old);
	}
	if (ngroups >= GRP_MAX) {
		grp_free(g);
		return PMIX_ERR_NOMEM;
	}
	g->next = groups;
	groups = g;
	ngroups++;
	if (pxc_pset_put(o->grp, l->procs, l->n) != PMIX_SUCCESS)
		pxc_error("server: group %s is no process set (no memory)", o->grp);
	return PMIX_SUCCESS;
}

/* INFO[] results, then the BLOB, for member me. */
static int reply_body(const plist_t *l, bool has_cid, uint64_t cid, const pmix_proc_t *me,
		      pmix_data_buffer_t *body)
{
	pmix_data_array_t da = { .type = PMIX_PROC, .size = l->n, .array = l->procs };
	pmix_info_t res[2];
	pmix_data_buffer_t blob;
	size_t nres = 0, v = (size_t)cid;
	int rc = 0;

	if (has_cid)
		PMIx_Info_load(&res[nres++], PMIX_GROUP_CONTEXT_ID, &v, PMIX_SIZE);
	PMIx_Info_load(&res[nres++], PMIX_GROUP_MEMBERSHIP, &da, PMIX_DATA_ARRAY);
	pxc_buf_init(&blob);
	for (size_t i = 0; rc == 0 && i < l->n; i++) {
		const pmix_proc_t *m = &l->procs[i];

		rc = pxc_store_pack(l->cur, m->nspace, PXC_LVL_PROC, m->rank, PXC_KINDS_GROUP,
				    &blob);
		if (rc == 0 && !PMIx_Check_procid(m, me))
			rc = pxc_store_pack(pxc_srv.store, m->nspace, PXC_LVL_PROC, m->rank,
					    PXC_KINDS_POSTED, &blob);
	}
	if (rc == 0 && (pxc_pack_array(body, res, nres, PMIX_INFO) != PMIX_SUCCESS ||
			pxc_pack_blob(body, &blob) != PMIX_SUCCESS))
		rc = -1;
	for (size_t i = 0; i < nres; i++)
		PMIx_Info_destruct(&res[i]);
	pxc_buf_clear(&blob);
	return rc;
}

static void constructed(const pxc_grp_op_t *o, pmix_status_t st, const pmix_info_t *res,
			size_t nres, const char *local, size_t nlocal)
{
	const pmix_info_t *d = pxc_info_find(res, nres, PXC_GROUP_DATA);
	const char *data = local;
	size_t ndata = nlocal;
	plist_t l = { 0 };
	uint64_t cid = 0;
	bool has_cid = false;

	if (st == PMIX_SUCCESS && d && d->value.type == PMIX_BYTE_OBJECT) {
		data = d->value.data.bo.bytes;
		ndata = d->value.data.bo.size;
	}
	if (st == PMIX_SUCCESS) {
		has_cid = context_id(o, res, nres, pxc_srv.module.group != NULL, &cid);
		if (!has_cid && pxc_info_flag(o->info, o->ninfo, PMIX_GROUP_ASSIGN_CONTEXT_ID)) {
			pxc_error("server: group %s: the host assigned no context id", o->grp);
			st = PMIX_ERR_NOT_SUPPORTED;
		}
	}
	if (st == PMIX_SUCCESS && !(l.cur = pxc_store_create()))
		st = PMIX_ERR_NOMEM;
	if (st == PMIX_SUCCESS)
		st = take_parts(data, ndata, has_cid, cid, &l);
	if (st == PMIX_SUCCESS) /* the same order at every member */
		qsort(l.procs, l.n, sizeof(*l.procs), pxc_proc_cmp);
	if (st == PMIX_SUCCESS)
		st = record(o, &l, has_cid, cid);
	for (size_t i = 0; i < o->nmembers; i++) {
		pmix_data_buffer_t body;
		pmix_status_t mst = st;

		pxc_buf_init(&body);
		if (mst == PMIX_SUCCESS &&
		    reply_body(&l, has_cid, cid, &o->members[i].proc, &body) < 0)
			mst = PMIX_ERR_NOMEM;
		pxc_peer_reply_id(o->members[i].peer_id, PXC_CMD_GROUP, o->members[i].tag, mst,
				  mst == PMIX_SUCCESS ? &body : NULL);
		pxc_buf_clear(&body);
	}
	pxc_store_destroy(l.cur);
	free(l.procs);
}

void pxc_grp_finish(const pxc_grp_op_t *o, pmix_status_t st, const pmix_info_t *res, size_t nres,
		    const char *local, size_t nlocal)
{
	if (o->op == PMIX_GROUP_CONSTRUCT) {
		constructed(o, st, res, nres, local, nlocal);
		return;
	}
	if (st == PMIX_SUCCESS && o->nmembers) {
		grp_t *g = grp_find(o->grp, &o->members[0].proc);

		if (g)
			grp_remove(g);
	}
	for (size_t i = 0; i < o->nmembers; i++)
		pxc_peer_reply_id(o->members[i].peer_id, PXC_CMD_GROUP, o->members[i].tag, st,
				  NULL);
}

void pxc_grp_client_gone(const pmix_proc_t *proc)
{
	for (grp_t *g = groups; g; g = g->next) {
		pmix_info_t id;

		if (!g->notify_term || !is_member(g, proc))
			continue;
		PMIx_Info_load(&id, PMIX_GROUP_ID, g->name, PMIX_STRING);
		pxc_debug("server: %s:%u of group %s ended (PMIX_GROUP_MEMBER_FAILED)",
			  proc->nspace, proc->rank, g->name);
		pxc_cnx_notify_set(PMIX_GROUP_MEMBER_FAILED, proc, g->members, g->nmembers, &id, 1);
		PMIx_Info_destruct(&id);
	}
}
