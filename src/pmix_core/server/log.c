/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c - LOG: a client's PMIx_Log handed to the host's log.
 *
 * The host's log returns nothing: it always answers through its callback,
 * and the client hears that status. Progress thread only.
 */
#include "internal.h"
#include "upcall.h"
#include "log.h"

int pxc_do_log(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;

	if (pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.info2, &a.ninfo2, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.log != NULL, PMIX_SUCCESS, pxc_upcall_done_status,
			     &a);
	/* log returns nothing: it always answers through the callback */
	if (r)
		pxc_srv.module.log(&r->a.proc, r->a.info, r->a.ninfo, r->a.info2, r->a.ninfo2,
				   pxc_upcall_cb_op, PXC_UPCALL_CBDATA(r));
	return 0;
}
