/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.c - GROUP: a client's PMIx_Group_construct/destruct handed to the
 * host's group.
 *
 * The group id, procs and directives belong to the request until the host
 * calls back; the reply carries the host's INFO[] results. A request
 * without a group id is answered PMIX_ERR_BAD_PARAM without asking the
 * host. Progress thread only.
 */
#include "internal.h"
#include "upcall.h"
#include "group.h"

int pxc_do_group(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	uint8_t op;
	int32_t n = 1;
	pxc_upcall_t *r;

	if (pxc_unpack(in, &op, &n, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &a.str) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.procs, &a.nprocs, PMIX_PROC) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.group != NULL,
			     a.str ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM, pxc_upcall_done_info, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.group((pmix_group_operation_t)op, r->a.str,
							      r->a.procs, r->a.nprocs, r->a.info,
							      r->a.ninfo, pxc_upcall_cb_info,
							      PXC_UPCALL_CBDATA(r)));
	return 0;
}
