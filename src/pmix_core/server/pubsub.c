/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pubsub.c - PUBLISH, LOOKUP, UNPUBLISH handed to the host's directory.
 *
 * The directives go to the host untouched (range, persistence, PMIX_WAIT,
 * PMIX_TIMEOUT: the host's directory implements them). A lookup or
 * unpublish without keys, or with a NULL key, is answered
 * PMIX_ERR_BAD_PARAM without asking the host. Lookup results are copied
 * when the host calls back and packed into the reply. Progress thread
 * only.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "upcall.h"
#include "pubsub.h"
#include "peer.h"

int pxc_do_publish(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;

	if (pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return -1;
	r = pxc_upcall_start(p, h, pxc_srv.module.publish != NULL, PMIX_SUCCESS,
			     pxc_upcall_done_status, &a);
	if (r)
		pxc_upcall_after_call(r, pxc_srv.module.publish(&r->a.proc, r->a.info, r->a.ninfo,
								pxc_upcall_cb_op,
								PXC_UPCALL_CBDATA(r)));
	return 0;
}

static void done_lookup(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_data_buffer_t body;
	pmix_status_t st = res->status;

	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&body, res->pdata, res->npdata, PMIX_PDATA);
	pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
}

/* Unpacks STRING[] keys into a NULL-terminated argv; *argv stays NULL when
 * there is no key or a NULL one (a bad request, not a decode error). */
static int unpack_keys(pmix_data_buffer_t *in, char ***argv)
{
	char **keys = NULL;
	size_t n = 0;
	bool null_key = false;

	if (pxc_unpack_array(in, (void **)&keys, &n, PMIX_STRING) != PMIX_SUCCESS)
		return -1;
	for (size_t i = 0; i < n; i++)
		null_key |= keys[i] == NULL;
	if (n && !null_key)
		*argv = calloc(n + 1, sizeof(char *));
	if (!*argv) {
		pxc_array_free(keys, n, PMIX_STRING);
		return 0;
	}
	memcpy(*argv, keys, n * sizeof(char *));
	free(keys); /* the strings moved to *argv */
	return 0;
}

static int keys_request(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, bool lookup)
{
	pxc_upcall_args_t a = { 0 };
	pxc_upcall_t *r;
	pmix_server_module_t *m = &pxc_srv.module;
	bool have = lookup ? m->lookup != NULL : m->unpublish != NULL;

	if (unpack_keys(in, &a.keys) < 0 ||
	    pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_upcall_args_free(&a), -1;
	r = pxc_upcall_start(p, h, have, a.keys ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM,
			     lookup ? done_lookup : pxc_upcall_done_status, &a);
	if (r && lookup)
		pxc_upcall_after_call(r, m->lookup(&r->a.proc, r->a.keys, r->a.info, r->a.ninfo,
						   pxc_upcall_cb_lookup, PXC_UPCALL_CBDATA(r)));
	else if (r)
		pxc_upcall_after_call(r, m->unpublish(&r->a.proc, r->a.keys, r->a.info, r->a.ninfo,
						      pxc_upcall_cb_op, PXC_UPCALL_CBDATA(r)));
	return 0;
}

int pxc_do_lookup(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return keys_request(p, h, in, true);
}

int pxc_do_unpublish(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	return keys_request(p, h, in, false);
}
