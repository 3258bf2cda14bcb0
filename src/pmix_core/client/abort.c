/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abort.c - PMIx_Abort.
 *
 * The client only carries the request: status, message and the procs to
 * abort (none: the caller's whole job) go to the server, which hands them
 * to the host's abort (server/abort.c). The call blocks until the host
 * answers; a host that kills the caller may never answer. Not available
 * in a server process.
 */
#include "client.h"
#include "conn.h"

pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[], size_t nprocs)
{
	pmix_data_buffer_t b;
	pmix_status_t st, ist = status;

	if (pxc_role == PXC_ROLE_SERVER)
		return PMIX_ERR_NOT_SUPPORTED;
	if ((st = pxc_client_ready()) != PMIX_SUCCESS)
		return st;
	if (!procs && nprocs)
		return PMIX_ERR_BAD_PARAM;
	pxc_buf_init(&b);
	if ((st = pxc_pack_status(&b, ist)) == PMIX_SUCCESS &&
	    (st = pxc_pack_str(&b, msg)) == PMIX_SUCCESS &&
	    (st = pxc_pack_array(&b, procs, nprocs, PMIX_PROC)) == PMIX_SUCCESS)
		st = pxc_client_call(PXC_CMD_ABORT, &b, 0, NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}
