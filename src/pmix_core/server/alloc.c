/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc.c - ALLOC: a client's PMIx_Allocation_request handed to the
 * host's allocate.
 *
 * The server checks nothing of the directive or its attributes: what an
 * allocation means is the host's business (the Slurm plugin's mapping is
 * docs/alloc.md). As the Standard asks, the host is told who asks:
 * PMIX_USERID and PMIX_GRPID of the connection (SO_PEERCRED, or the
 * host's word for a tool it handed over) replace any the client sent.
 * The host answers through a pmix_info_cbfunc_t, whose infos the client
 * gets as its results (upcall.c copies them). Progress thread only.
 */
#include "internal.h"
#include "upcall.h"
#include "alloc.h"

int pxc_do_alloc(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pmix_alloc_directive_t dir = 0;
	int32_t one = 1;
	pxc_upcall_t *r;

	if (pxc_unpack(in, &dir, &one, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.allocate != NULL, pxc_upcall_peer_ids(p, &a),
			     pxc_upcall_done_info, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.allocate(&r->a.proc, dir, r->a.info,
								 r->a.ninfo, pxc_upcall_cb_info,
								 PXC_UPCALL_CBDATA(r)));
	return 0;
}
