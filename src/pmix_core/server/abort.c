/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abort.c - ABORT: a client's PMIx_Abort handed to the host's abort.
 *
 * The message (an empty one when the client sent none: hosts print it)
 * and the procs belong to the request until the host calls back; the
 * client hears the host's status. Progress thread only.
 */
#include <string.h>

#include "internal.h"
#include "upcall.h"
#include "abort.h"

static void *server_object(const pxc_peer_t *p)
{
	return p->client ? p->client->server_object : NULL;
}

int pxc_do_abort(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pmix_status_t status, st = PMIX_SUCCESS;
	pxc_upcall_t *r;

	if (pxc_unpack_status(in, &status) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &a.str) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.procs, &a.nprocs, PMIX_PROC) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	if (!a.str && !(a.str = strdup(""))) /* hosts print it */
		st = PMIX_ERR_NOMEM;
	r = pxc_upcall_start(p, h, pxc_srv.module.abort != NULL, st, pxc_upcall_done_status, &a);
	if (r)
		pxc_upcall_after_call(r,
				      pxc_srv.module.abort(&r->a.proc, server_object(p), status,
							   r->a.str, r->a.procs, r->a.nprocs,
							   pxc_upcall_cb_op, PXC_UPCALL_CBDATA(r)));
	return 0;
}
