/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/group.c - the server module's group: PMIx_Group_construct and
 * PMIx_Group_destruct between the members' step daemons, on net/coll.c's
 * gathering collective (kind PLUG_COLL_GROUP, instances told apart by the
 * group id and the operation beside the proc set), so across nodes and
 * across the job's steps like a connect.
 *
 * A construct gathers every node's part as the server hands it
 * (PXC_GROUP_DATA, opaque here) behind this node's context id proposal:
 * UINT64 proposal, BYTE_OBJECT part. With PMIX_GROUP_ASSIGN_CONTEXT_ID each
 * node proposes a fresh id, (step id + 1) << 40 | node index << 24 | a
 * counter of this step daemon (24 bits), and every node takes the
 * smallest proposal among the parts: all members get the same id, and no
 * id is proposed twice in the allocation (step ids are unique in the job,
 * node indexes in the step, the counter in the step daemon), so two steps
 * that connect later never share one. The results handed back: the id
 * (PMIX_GROUP_CONTEXT_ID) and the parts without their proposals
 * (PXC_GROUP_DATA). A destruct is the same collective without data.
 * PMIX_GROUP_OPTIONAL (the server adds it to every destruct): no tree,
 * members that are gone are dropped (net/coll.c). The wait is bounded by
 * the request's PMIX_TIMEOUT or SlurmixTimeout.
 * Progress thread.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix_server.h>

#include "pxc_host.h"
#include "net/coll.h"
#include "net/ctx.h"
#include "net/group.h"
#include "slurm_adapter.h"

typedef struct {
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	bool construct, assign;
	pmix_info_t res[2];
	size_t nres;
	pmix_data_buffer_t parts; /* the server's parts, concatenated */
} req_t;

static uint32_t counter; /* proposals made by this step daemon */

/* Tells this group's operations apart from every other of the same procs. */
static uint64_t salt(const char *grp, pmix_group_operation_t op)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)op;

	for (const char *c = grp; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return h ^ (h >> 29);
}

static uint64_t proposal(void)
{
	const char *dot = strrchr(plug_net_ctx.nspace, '.');
	uint64_t step = dot ? strtoull(dot + 1, NULL, 10) : 0;

	counter = (counter + 1) & 0xffffffu;
	return ((step + 1) & 0xffffffu) << 40 | ((uint64_t)plug_net_ctx.me & 0xffffu) << 24 |
	       counter;
}

static int timeout_s(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *t = pxc_info_find(info, ninfo, PMIX_TIMEOUT);

	if (t && t->value.type == PMIX_INT && t->value.data.integer > 0)
		return t->value.data.integer;
	if (t && t->value.type == PMIX_INT32 && t->value.data.int32 > 0)
		return t->value.data.int32;
	if (t && t->value.type == PMIX_UINT32 && t->value.data.uint32 > 0 &&
	    t->value.data.uint32 < 7 * 24 * 3600)
		return (int)t->value.data.uint32;
	return 0;
}

static void req_free(void *arg)
{
	req_t *r = arg;

	for (size_t i = 0; i < r->nres; i++)
		PMIx_Info_destruct(&r->res[i]);
	pxc_buf_clear(&r->parts);
	free(r);
}

/* Splits the gathered data into the parts and the smallest proposal. */
static pmix_status_t take(req_t *r, const char *data, size_t ndata, uint64_t *cid)
{
	pmix_data_buffer_t in;

	pxc_buf_view(&in, data, ndata);
	*cid = 0;
	while (pxc_buf_remaining(&in) > 0) {
		pmix_byte_object_t bo = { 0 };
		uint64_t p;
		int32_t one = 1;

		if (pxc_unpack(&in, &p, &one, PMIX_UINT64) != PMIX_SUCCESS ||
		    (one = 1, pxc_unpack(&in, &bo, &one, PMIX_BYTE_OBJECT)) != PMIX_SUCCESS) {
			plug_error("group: a malformed part from another node");
			return PMIX_ERR_UNPACK_FAILURE;
		}
		if (p && (!*cid || p < *cid))
			*cid = p;
		if (bo.size && pxc_buf_append(&r->parts, bo.bytes, bo.size) < 0) {
			free(bo.bytes);
			return PMIX_ERR_NOMEM;
		}
		free(bo.bytes);
	}
	return PMIX_SUCCESS;
}

static void gathered(pmix_status_t st, const char *data, size_t ndata, void *cbdata,
		     pmix_release_cbfunc_t rel, void *relcbdata)
{
	req_t *r = cbdata;
	uint64_t cid = 0;

	if (st == PMIX_SUCCESS && r->construct)
		st = take(r, data, ndata, &cid);
	if (rel)
		rel(relcbdata);
	if (st == PMIX_SUCCESS && r->construct) {
		pmix_byte_object_t bo = { .bytes = r->parts.base_ptr, .size = r->parts.bytes_used };
		size_t v = (size_t)cid;

		if (r->assign && cid)
			PMIx_Info_load(&r->res[r->nres++], PMIX_GROUP_CONTEXT_ID, &v, PMIX_SIZE);
		PMIx_Info_load(&r->res[r->nres++], PXC_GROUP_DATA, &bo, PMIX_BYTE_OBJECT);
	}
	r->cbfunc(st, st == PMIX_SUCCESS ? r->res : NULL, st == PMIX_SUCCESS ? r->nres : 0,
		  r->cbdata, req_free, r);
}

pmix_status_t plug_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
			 size_t nprocs, const pmix_info_t info[], size_t ninfo,
			 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_info_t *d = pxc_info_find(info, ninfo, PXC_GROUP_DATA);
	req_t *r;
	pmix_data_buffer_t part;
	pmix_status_t st;

	if (!grp || !procs || !nprocs || !cbfunc ||
	    (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT))
		return PMIX_ERR_BAD_PARAM;
	if (!(r = calloc(1, sizeof(*r))))
		return PMIX_ERR_NOMEM;
	r->cbfunc = cbfunc;
	r->cbdata = cbdata;
	r->construct = op == PMIX_GROUP_CONSTRUCT;
	r->assign = r->construct && pxc_info_flag(info, ninfo, PMIX_GROUP_ASSIGN_CONTEXT_ID);
	pxc_buf_init(&r->parts);
	pxc_buf_init(&part);
	if (r->construct) {
		pmix_byte_object_t bo = { 0 };
		uint64_t p = r->assign ? proposal() : 0;

		if (d && d->value.type == PMIX_BYTE_OBJECT)
			bo = d->value.data.bo;
		if (pxc_pack(&part, &p, 1, PMIX_UINT64) != PMIX_SUCCESS ||
		    pxc_pack(&part, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS) {
			pxc_buf_clear(&part);
			req_free(r);
			return PMIX_ERR_NOMEM;
		}
	}
	plug_flag("group %s: %s over %zu proc entries", grp,
		  r->construct ? "construct" : "destruct", nprocs);
	st = plug_coll_gather(PLUG_COLL_GROUP, procs, nprocs, timeout_s(info, ninfo),
			      pxc_info_flag(info, ninfo, PMIX_GROUP_OPTIONAL), salt(grp, op),
			      part.base_ptr, part.bytes_used, gathered, r);
	pxc_buf_clear(&part);
	if (st != PMIX_SUCCESS)
		req_free(r);
	return st;
}
