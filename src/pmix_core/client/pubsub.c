/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pubsub.c - PMIx_Publish/Lookup/Unpublish and their _nb forms.
 *
 * The client only carries the request: the directives (PMIX_RANGE,
 * PMIX_PERSISTENCE, PMIX_WAIT as bool or int, PMIX_TIMEOUT, ...) go to the
 * server untouched, which hands them to the host's directory. A lookup
 * with PMIX_WAIT may legitimately block for a long time; PMIX_TIMEOUT, when
 * given, also arms a client-side timer so the caller is never stuck past
 * it. Lookup results are matched to the caller's pmix_pdata_t by key.
 * Callbacks of the _nb forms run in the progress thread; the pdata handed
 * to a lookup callback is freed when it returns.
 */
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"

/* ---- publish ---- */

static pmix_status_t publish_prepare(const pmix_info_t *info, size_t ninfo, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!info || !ninfo)
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, info, ninfo, PMIX_INFO)) != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = publish_prepare(info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_PUBLISH, &b, pxc_request_timeout_ms(info, ninfo), NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
			      void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = publish_prepare(info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_PUBLISH, &b, pxc_request_timeout_ms(info, ninfo), false,
				 cbfunc, cbdata);
}

/* ---- lookup ---- */

static pmix_status_t keys_prepare(char **keys, const pmix_info_t *info, size_t ninfo,
				  pmix_data_buffer_t *b)
{
	size_t nkeys = 0;
	pmix_status_t st;

	if (!info && ninfo)
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	while (keys && keys[nkeys])
		nkeys++;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, keys, nkeys, PMIX_STRING)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, ninfo, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

struct lookup_out {
	pmix_pdata_t *data;
	size_t ndata;
};

static pmix_status_t parse_lookup(pmix_data_buffer_t *reply, void *arg)
{
	struct lookup_out *o = arg;
	pmix_pdata_t *got = NULL;
	size_t n = 0, found = 0;
	pmix_status_t st;

	if ((st = pxc_unpack_array(reply, (void **)&got, &n, PMIX_PDATA)) != PMIX_SUCCESS)
		return st;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < o->ndata; j++) {
			if (strncmp(o->data[j].key, got[i].key, PMIX_MAX_KEYLEN) != 0)
				continue;
			o->data[j].proc = got[i].proc;
			PMIx_Value_destruct(&o->data[j].value);
			if (PMIx_Value_xfer(&o->data[j].value, &got[i].value) == PMIX_SUCCESS)
				found++;
			break;
		}
	}
	pxc_array_free(got, n, PMIX_PDATA);
	return found ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[], size_t ninfo)
{
	struct lookup_out o = { data, ndata };
	pmix_data_buffer_t b;
	char **keys;
	pmix_status_t st;

	if (!data || !ndata)
		return PMIX_ERR_BAD_PARAM;
	if (!(keys = calloc(ndata + 1, sizeof(*keys))))
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < ndata; i++)
		keys[i] = data[i].key;
	st = keys_prepare(keys, info, ninfo, &b);
	free(keys);
	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_LOOKUP, &b, pxc_request_timeout_ms(info, ninfo), parse_lookup,
			     &o);
	pxc_buf_clear(&b);
	return st;
}

struct lookup_nb {
	pmix_lookup_cbfunc_t cb;
	void *cbdata;
};

static void lookup_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct lookup_nb *l = arg;
	pmix_pdata_t *got = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS && reply)
		st = pxc_unpack_array(reply, (void **)&got, &n, PMIX_PDATA);
	if (st == PMIX_SUCCESS && n == 0)
		st = PMIX_ERR_NOT_FOUND;
	l->cb(st, got, n, l->cbdata);
	pxc_array_free(got, n, PMIX_PDATA);
	free(l);
}

pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
			     pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	struct lookup_nb *l;
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!keys || !keys[0] || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	if ((st = keys_prepare(keys, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	if (!(l = malloc(sizeof(*l)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	l->cb = cbfunc;
	l->cbdata = cbdata;
	st = pxc_client_send(PXC_CMD_LOOKUP, &b, pxc_request_timeout_ms(info, ninfo), lookup_reply,
			     l);
	if (st != PMIX_SUCCESS)
		free(l);
	return st;
}

/* ---- unpublish ---- */

pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = keys_prepare(keys, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_UNPUBLISH, &b, pxc_request_timeout_ms(info, ninfo), NULL,
			     NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = keys_prepare(keys, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_request_op_nb(PXC_CMD_UNPUBLISH, &b, pxc_request_timeout_ms(info, ninfo), false,
				 cbfunc, cbdata);
}
