/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.c - IO forwarding on the server's side: IOF_PULL from tools and
 * PMIx_server_IOF_deliver from the host. Neither is supported yet
 * (reserved for the IOF work): a well-formed IOF_PULL is answered
 * PMIX_ERR_NOT_SUPPORTED, a malformed one closes the connection (progress
 * thread); PMIx_server_IOF_deliver returns PMIX_ERR_NOT_SUPPORTED (any
 * thread).
 */
#include "internal.h"
#include "iof.h"
#include "peer.h"

int pxc_do_iof_pull(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t *procs = NULL;
	pmix_info_t *info = NULL;
	size_t nprocs = 0, ninfo = 0;
	uint16_t channels;
	int32_t n = 1;

	if (pxc_unpack_array(in, (void **)&procs, &nprocs, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack(in, &channels, &n, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_array_free(procs, nprocs, PMIX_PROC);
		return -1;
	}
	pxc_array_free(procs, nprocs, PMIX_PROC);
	pxc_array_free(info, ninfo, PMIX_INFO);
	/* Reserved for the IOF work. */
	pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOT_SUPPORTED, NULL);
	return 0;
}

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source, pmix_iof_channel_t channel,
				      const pmix_byte_object_t *bo, const pmix_info_t info[],
				      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)source;
	(void)channel;
	(void)bo;
	(void)info;
	(void)ninfo;
	(void)cbfunc;
	(void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}
