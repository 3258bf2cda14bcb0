/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/publish.c - the step daemon's half of publish / lookup /
 * unpublish (stepd/publish.h): the server module's callbacks forward the
 * request to the step's srun (common/agent_client.h), whose directory
 * (srun/pubdir.c, which has the design) serves it. A PMIX_WAIT lookup is
 * given PUB_MARGIN_SEC more than srun's own wait, so that srun's answer
 * comes first.
 *
 * Threads: the stepd's progress thread (module callbacks and the
 * request callbacks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/proto.h"
#include "lib/pubinfo.h"
#include "stepd/publish.h"
#include "slurm_adapter.h"

#define PUB_MARGIN_SEC 5 /* stepd waits that much longer than srun */

typedef struct {
	pmix_op_cbfunc_t opcb;
	pmix_lookup_cbfunc_t lkcb;
	void *cbdata;
} fwd_t;

static void op_answer(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	fwd_t *f = arg;

	(void)reply;
	f->opcb(st, f->cbdata);
	free(f);
}

static void lookup_answer(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	fwd_t *f = arg;
	pmix_pdata_t *pd = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS &&
	    pxc_unpack_array(reply, (void **)&pd, &n, PMIX_PDATA) != PMIX_SUCCESS) {
		plug_error("malformed lookup answer from srun");
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	f->lkcb(st, st == PMIX_SUCCESS ? pd : NULL, st == PMIX_SUCCESS ? n : 0, f->cbdata);
	if (pd)
		pxc_array_free(pd, n, PMIX_PDATA);
	free(f);
}

static pmix_status_t forward(uint16_t cmd, pmix_data_buffer_t *b, uint32_t tmo, fwd_t *f)
{
	int rc = plug_agent_request(cmd, b, tmo, cmd == PLUG_NET_LOOKUP ? lookup_answer : op_answer,
				    f);

	pxc_buf_clear(b);
	if (rc < 0) {
		free(f);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

pmix_status_t plug_pub_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
			       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	fwd_t *f = calloc(1, sizeof(*f));
	pmix_data_buffer_t b;

	if (!f)
		return PMIX_ERR_NOMEM;
	f->opcb = cbfunc;
	f->cbdata = cbdata;
	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, proc) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, info, ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_buf_clear(&b);
		free(f);
		return PMIX_ERR_PACK_FAILURE;
	}
	return forward(PLUG_NET_PUBLISH, &b, 0, f);
}

static size_t argv_len(char **keys)
{
	size_t n = 0;

	while (keys && keys[n])
		n++;
	return n;
}

static pmix_status_t keys_req(uint16_t cmd, const pmix_proc_t *proc, char **keys,
			      const pmix_info_t info[], size_t ninfo, fwd_t *f)
{
	pmix_data_buffer_t b;
	uint32_t tmo = 0;

	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, proc) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, keys, argv_len(keys), PMIX_STRING) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, info, ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_buf_clear(&b);
		free(f);
		return PMIX_ERR_PACK_FAILURE;
	}
	if (cmd == PLUG_NET_LOOKUP && plug_pub_info_int(info, ninfo, PMIX_WAIT, -1) >= 0) {
		int t = plug_pub_info_int(info, ninfo, PMIX_TIMEOUT, 0);

		tmo = (t > 0 ? (uint32_t)t : plug_conf.timeout) + PUB_MARGIN_SEC;
	}
	return forward(cmd, &b, tmo, f);
}

pmix_status_t plug_pub_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
			      size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	fwd_t *f = calloc(1, sizeof(*f));

	if (!f)
		return PMIX_ERR_NOMEM;
	f->lkcb = cbfunc;
	f->cbdata = cbdata;
	return keys_req(PLUG_NET_LOOKUP, proc, keys, info, ninfo, f);
}

pmix_status_t plug_pub_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				 size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	fwd_t *f = calloc(1, sizeof(*f));

	if (!f)
		return PMIX_ERR_NOMEM;
	f->opcb = cbfunc;
	f->cbdata = cbdata;
	return keys_req(PLUG_NET_UNPUBLISH, proc, keys, info, ninfo, f);
}
