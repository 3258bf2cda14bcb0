/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - SPAWN: a client's PMIx_Spawn handed to the host's spawn.
 *
 * Job info and apps belong to the request until the host calls back; the
 * reply carries the new namespace the host named and its registered info
 * (the job-level and per-proc records its servers registered), fetched
 * through the host's direct_modex (nspace.c, pxc_ns_fetch) before the
 * reply and kept in this server's store: the caller holds the children's
 * job information when PMIx_Spawn returns, and this server answers for
 * it after the children ended. A fetch that fails leaves the blob empty
 * (the spawn still succeeds). A spawn without apps is answered
 * PMIX_ERR_BAD_PARAM without asking the host. Progress thread only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "upcall.h"
#include "spawn.h"
#include "peer.h"
#include "nspace.h"
#include "proto.h"

/* A successful spawn's answer, waiting for the new job's info. */
typedef struct {
	uint64_t peer_id;
	uint16_t cmd;
	uint32_t tag;
	char ns[PMIX_MAX_NSLEN + 1];
} answer_t;

/* STRING nspace, BLOB its registered info (empty when not held). */
static void answer(answer_t *a)
{
	pmix_data_buffer_t body, blob;
	pmix_status_t st;

	pxc_buf_init(&body);
	pxc_buf_init(&blob);
	st = pxc_pack_str(&body, a->ns);
	if (st == PMIX_SUCCESS &&
	    pxc_store_pack(pxc_srv.store, a->ns, -1, PXC_ID_ANY, PXC_KINDS_INFO, &blob) < 0)
		pxc_buf_clear(&blob); /* the nspace alone */
	if (st == PMIX_SUCCESS)
		st = pxc_pack_blob(&body, &blob);
	pxc_peer_reply_id(a->peer_id, a->cmd, a->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&blob);
	pxc_buf_clear(&body);
	free(a);
}

static void fetched(pmix_status_t st, void *arg)
{
	(void)st; /* logged; the caller gets the nspace all the same */
	answer(arg);
}

static void done_spawn(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	answer_t *a;

	if (res->status != PMIX_SUCCESS || !(a = calloc(1, sizeof(*a)))) {
		pxc_peer_reply_id(r->peer_id, r->cmd, r->tag,
				  res->status != PMIX_SUCCESS ? res->status : PMIX_ERR_NOMEM, NULL);
		return;
	}
	*a = (answer_t){ .peer_id = r->peer_id, .cmd = r->cmd, .tag = r->tag };
	snprintf(a->ns, sizeof(a->ns), "%s", res->nspace);
	if (!pxc_ns_fetch(a->ns, PXC_CMD_SPAWN, fetched, a))
		answer(a);
}

int pxc_do_spawn(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;

	if (pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.apps, &a.napps, PMIX_APP) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.spawn != NULL,
			     a.napps ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM, done_spawn, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.spawn(&r->a.proc, r->a.info, r->a.ninfo,
							      r->a.apps, r->a.napps,
							      pxc_upcall_cb_spawn,
							      PXC_UPCALL_CBDATA(r)));
	return 0;
}
