/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/alloc.c - see stepd/alloc.h.
 *
 * The request is checked first (lib/alloc_req.c), so that what Slurm
 * cannot do (EXTEND: PMIX_ERR_NO_PERMISSIONS) or what is malformed is
 * answered at once, without srun. The rest goes to srun as ALLOC
 * (lib/proto.h 52: requester, directive, the grant timeout, the infos);
 * srun's INFO[] results are the caller's. For a NEW allocation the answer
 * carries its PMIX_ALLOC_ID, and a WAIT for it follows at once: srun
 * answers it when Slurm granted the allocation (its node list) or when it
 * failed (refused, ended, or not granted within the request's PMIX_TIMEOUT,
 * else SlurmixTimeout: srun cancels it then). The requester then gets
 * PMIX_NOTIFY_ALLOC_COMPLETE or PMIX_ERR_JOB_ALLOC_FAILED, range CUSTOM
 * naming it alone, with PMIX_ALLOC_ID and its PMIX_ALLOC_REQ_ID. A WAIT
 * whose answer does not come (srun stuck) fails the same way once its
 * own timeout (the grant's and ALLOC_WAIT_SLACK) passes, or srun cannot
 * be reached: a client that waits for the event never waits forever;
 * only a WAIT that ends because this step daemon stops (the agent
 * client's stop) raises nothing. A client has at most ALLOC_CLIENT_MAX
 * requests under way (each holds a connection to srun): more are
 * PMIX_ERR_OUT_OF_RESOURCE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/alloc_req.h"
#include "lib/proto.h"
#include "stepd/alloc.h"
#include "slurm_adapter.h"

#define ALLOC_WAIT_SLACK 30 /* s beyond the grant's timeout for srun's answer */
#define ALLOC_WAIT 0        /* the WAIT op of PLUG_NET_ALLOC */
#define ALLOC_CLIENT_MAX 16 /* requests (and WAITs) under way per client */

typedef struct op {
	struct op *next;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	pmix_proc_t who;
	pmix_alloc_directive_t directive;
	uint32_t wait_s;
	char id[16], reqid[64];
	bool has_reqid;
} op_t;

static op_t *ops; /* under way, progress thread */

static void op_free(op_t *o)
{
	for (op_t **p = &ops; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	free(o);
}

static size_t ops_of(const pmix_proc_t *who)
{
	size_t n = 0;

	for (const op_t *o = ops; o; o = o->next)
		n += PMIx_Check_procid(&o->who, who);
	return n;
}

/* The infos of a reply (after its status), malloc()ed; *n of them. */
static pmix_info_t *unpack_infos(pmix_data_buffer_t *reply, size_t *n)
{
	pmix_info_t *info = NULL;

	*n = 0;
	if (reply && pxc_unpack_array(reply, (void **)&info, n, PMIX_INFO) != PMIX_SUCCESS) {
		*n = 0;
		return NULL;
	}
	return info;
}

static void infos_release(void *arg)
{
	pmix_info_t *info = ((void **)arg)[0];
	size_t n = (size_t)(uintptr_t)((void **)arg)[1];

	pxc_array_free(info, n, PMIX_INFO);
	free(arg);
}

/* The event for the requester: granted (code NOTIFY_ALLOC_COMPLETE) or
 * not, with srun's infos (or o's id and label when srun said nothing). */
static void raise_event(op_t *o, pmix_status_t code, const pmix_info_t *got, size_t ngot)
{
	pmix_info_t *info = PMIx_Info_create(ngot + 3);
	pmix_data_array_t da = { .type = PMIX_PROC, .size = 1, .array = &o->who };
	size_t n = 0;

	if (!info)
		return;
	for (size_t i = 0; i < ngot; i++)
		PMIx_Info_xfer(&info[n++], &got[i]);
	if (!ngot) {
		PMIx_Info_load(&info[n++], PMIX_ALLOC_ID, o->id, PMIX_STRING);
		if (o->has_reqid)
			PMIx_Info_load(&info[n++], PMIX_ALLOC_REQ_ID, o->reqid, PMIX_STRING);
	}
	PMIx_Info_load(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	if (PMIx_Notify_event(code, NULL, PMIX_RANGE_CUSTOM, info, n, NULL, NULL) != PMIX_SUCCESS)
		plug_error("alloc: cannot tell %s:%u about allocation %s", o->who.nspace,
			   o->who.rank, o->id);
	PMIx_Info_free(info, ngot + 3);
}

static void wait_done(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	op_t *o = arg;
	pmix_status_t out = PMIX_ERR_JOB_ALLOC_FAILED;
	pmix_info_t *info = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS && pxc_unpack_status(reply, &out) == PMIX_SUCCESS)
		info = unpack_infos(reply, &n);
	if (st != PMIX_ERR_UNREACH || !plug_agent_client_stopping()) /* else: this step ends */
		raise_event(o,
			    out == PMIX_SUCCESS ? PMIX_NOTIFY_ALLOC_COMPLETE :
						  PMIX_ERR_JOB_ALLOC_FAILED,
			    info, n);
	pxc_array_free(info, n, PMIX_INFO);
	op_free(o);
}

static void wait_grant(op_t *o)
{
	pmix_data_buffer_t b;
	uint8_t op = ALLOC_WAIT;
	int rc = -1;

	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, &o->who) == PMIX_SUCCESS &&
	    pxc_pack(&b, &op, 1, PMIX_UINT8) == PMIX_SUCCESS &&
	    pxc_pack_str(&b, o->id) == PMIX_SUCCESS)
		rc = plug_agent_request(PLUG_NET_ALLOC, &b, o->wait_s + ALLOC_WAIT_SLACK, wait_done,
					o);
	pxc_buf_clear(&b);
	if (rc < 0) {
		raise_event(o, PMIX_ERR_JOB_ALLOC_FAILED, NULL, 0);
		op_free(o);
	}
}

/* srun's answer: the caller's results; for NEW, then its grant. */
static void answered(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	op_t *o = arg;
	size_t n = 0;
	pmix_info_t *info = st == PMIX_SUCCESS ? unpack_infos(reply, &n) : NULL;
	void **rel = info ? malloc(2 * sizeof(void *)) : NULL;
	const pmix_info_t *id = pxc_info_find(info, n, PMIX_ALLOC_ID);

	if (info && !rel) {
		pxc_array_free(info, n, PMIX_INFO);
		info = NULL;
		n = 0;
		st = PMIX_ERR_NOMEM;
	}
	if (st == PMIX_SUCCESS && o->directive == PMIX_ALLOC_NEW &&
	    (!id || id->value.type != PMIX_STRING || !id->value.data.string))
		st = PMIX_ERR_JOB_ALLOC_FAILED; /* no id: a broken answer */
	if (st == PMIX_SUCCESS && o->directive == PMIX_ALLOC_NEW)
		snprintf(o->id, sizeof(o->id), "%s", id->value.data.string);
	if (rel) {
		rel[0] = info;
		rel[1] = (void *)(uintptr_t)n;
	}
	o->cbfunc(st, info, n, o->cbdata, rel ? infos_release : NULL, rel);
	if (st == PMIX_SUCCESS && o->directive == PMIX_ALLOC_NEW)
		return wait_grant(o);
	op_free(o);
}

pmix_status_t plug_alloc_host(const pmix_proc_t *client, pmix_alloc_directive_t directive,
			      const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
			      void *cbdata)
{
	plug_alloc_req_t r;
	pmix_data_buffer_t b;
	char err[160];
	op_t *o;
	pmix_status_t st = plug_alloc_parse(directive, data, ndata, &r, err, sizeof(err));
	int rc = -1;

	if (st != PMIX_SUCCESS) {
		plug_debug("allocation request of %s:%u refused: %s", client->nspace, client->rank,
			   err);
		return st;
	}
	if (ops_of(client) >= ALLOC_CLIENT_MAX) {
		plug_debug("allocation request of %s:%u refused: %d under way", client->nspace,
			   client->rank, ALLOC_CLIENT_MAX);
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	if (!(o = calloc(1, sizeof(*o))))
		return PMIX_ERR_NOMEM;
	*o = (op_t){ .cbfunc = cbfunc, .cbdata = cbdata, .who = *client, .directive = directive };
	o->wait_s = r.timeout_s ? r.timeout_s : plug_conf.timeout;
	if (o->wait_s > PLUG_ALLOC_TIMEOUT_MAX)
		o->wait_s = PLUG_ALLOC_TIMEOUT_MAX;
	if (r.reqid && strlen(r.reqid) < sizeof(o->reqid)) {
		snprintf(o->reqid, sizeof(o->reqid), "%s", r.reqid);
		o->has_reqid = true;
	}
	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, client) == PMIX_SUCCESS &&
	    pxc_pack(&b, &directive, 1, PMIX_UINT8) == PMIX_SUCCESS &&
	    pxc_pack_u32(&b, o->wait_s) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, data, ndata, PMIX_INFO) == PMIX_SUCCESS)
		rc = plug_agent_request(PLUG_NET_ALLOC, &b, 0, answered, o);
	pxc_buf_clear(&b);
	if (rc < 0) {
		free(o);
		return PMIX_ERR_UNREACH;
	}
	o->next = ops;
	ops = o;
	return PMIX_SUCCESS;
}
