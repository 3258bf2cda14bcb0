/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - SPAWN: a client's PMIx_Spawn handed to the host's spawn.
 *
 * Job info and apps belong to the request until the host calls back; the
 * reply carries the new namespace the host named. A spawn without apps is
 * answered PMIX_ERR_BAD_PARAM without asking the host. Progress thread
 * only.
 */
#include "internal.h"
#include "upcall.h"
#include "spawn.h"
#include "peer.h"

static void done_spawn(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_data_buffer_t body;
	pmix_status_t st = res->status;
	const char *ns = res->nspace;

	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_str(&body, ns);
	pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
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
