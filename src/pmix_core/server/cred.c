/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cred.c - GET_CRED and VALIDATE_CRED: a client's PMIx_Get_credential and
 * PMIx_Validate_credential handed to the host's get_credential and
 * validate_credential, which make and check the credentials.
 *
 * Who asks is the server's word, not the client's: any PMIX_USERID or
 * PMIX_GRPID among the client's directives is dropped, and the uid and
 * gid of the connection (SO_PEERCRED at accept, or what the host said of
 * a tool it handed over) are appended as PMIX_UINT32, so that a host may
 * name them in a credential and check them against one. The host's
 * credential and infos are copied when it calls back (upcall.c); they
 * stay the host's. Progress thread only.
 */
#include <stdlib.h>

#include "internal.h"
#include "upcall.h"
#include "peer.h"
#include "cred.h"

/* done function of GET_CRED: STATUS, BYTE_OBJECT credential, INFO[] info. */
static void cred_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_byte_object_t bo = { .bytes = res->data, .size = res->ndata };
	pmix_status_t st = res->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : res->status;
	pmix_data_buffer_t body;

	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(&body, &bo, 1, PMIX_BYTE_OBJECT);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&body, res->info, res->ninfo, PMIX_INFO);
	pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
}

int pxc_do_get_cred(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;

	if (pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.get_credential != NULL,
			     pxc_upcall_peer_ids(p, &a), cred_done, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.get_credential(&r->a.proc, r->a.info,
								       r->a.ninfo,
								       pxc_upcall_cb_credential,
								       PXC_UPCALL_CBDATA(r)));
	return 0;
}

int pxc_do_validate_cred(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;

	if (pxc_unpack(in, &a.bo, &(int32_t){ 1 }, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.validate_credential != NULL,
			     pxc_upcall_peer_ids(p, &a), pxc_upcall_done_info, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.validate_credential(
						 &r->a.proc, &r->a.bo, r->a.info, r->a.ninfo,
						 pxc_upcall_cb_validation, PXC_UPCALL_CBDATA(r)));
	return 0;
}
