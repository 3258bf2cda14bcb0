/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cred.c - PMIx_Get_credential(_nb), PMIx_Validate_credential(_nb).
 *
 * The client only carries the request to the server (server/cred.c),
 * which hands it to the host's get_credential / validate_credential; what
 * a credential is and holds is the host's business. The server, not the
 * client, tells the host who asks: PMIX_USERID and PMIX_GRPID in the
 * directives are replaced by the ones it read from the connection.
 *
 * PMIx_Get_credential's bytes are malloc'ed for the caller, who frees
 * them; PMIx_Validate_credential's results are freed with PMIx_Info_free.
 * What an _nb callback is handed belongs to the library and is gone when
 * the callback returns (neither callback type has a release function).
 * Callbacks run in the progress thread. PMIX_TIMEOUT in the directives
 * bounds the wait. Not available in a server process.
 */
#include <stdlib.h>

#include "client.h"
#include "conn.h"
#include "request.h"

/* The payload of either request: BYTE_OBJECT cred (validate: cred not
 * NULL), then INFO[] info. On an error b is left empty. */
static pmix_status_t cred_prepare(const pmix_byte_object_t *cred, const pmix_info_t *info,
				  size_t ninfo, pmix_data_buffer_t *b)
{
	pmix_status_t st = PMIX_SUCCESS;

	if ((!info && ninfo) || (cred && !cred->bytes && cred->size))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if (cred)
		st = pxc_pack(b, cred, 1, PMIX_BYTE_OBJECT);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, ninfo, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

/* Reads a GET_CRED reply's BYTE_OBJECT and INFO[] into cred and r;
 * nothing is left in them on an error. */
static pmix_status_t unpack_cred(pmix_data_buffer_t *reply, pmix_byte_object_t *cred,
				 pxc_results_t *r)
{
	pmix_status_t st = pxc_unpack(reply, cred, &(int32_t){ 1 }, PMIX_BYTE_OBJECT);

	if (st == PMIX_SUCCESS)
		st = pxc_unpack_array(reply, (void **)&r->info, &r->n, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		PMIx_Byte_object_destruct(cred);
	return st;
}

/* Reply parser of the blocking get: the credential into arg, the infos
 * dropped (the call has nowhere to put them). */
static pmix_status_t parse_cred(pmix_data_buffer_t *reply, void *arg)
{
	pxc_results_t r = { NULL, 0 };
	pmix_status_t st = unpack_cred(reply, arg, &r);

	pxc_array_free(r.info, r.n, PMIX_INFO);
	return st;
}

pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
				  pmix_byte_object_t *credential)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!credential)
		return PMIX_ERR_BAD_PARAM;
	PMIx_Byte_object_construct(credential);
	if ((st = cred_prepare(NULL, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_GET_CRED, &b, pxc_request_timeout_ms(info, ninfo), parse_cred,
			     credential);
	pxc_buf_clear(&b);
	return st;
}

struct cred_nb {
	pmix_credential_cbfunc_t cb;
	void *cbdata;
};

static void cred_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct cred_nb *c = arg;
	pmix_byte_object_t bo = { NULL, 0 };
	pxc_results_t r = { NULL, 0 };

	if (st == PMIX_SUCCESS)
		st = reply ? unpack_cred(reply, &bo, &r) : PMIX_ERR_UNPACK_FAILURE;
	c->cb(st, st == PMIX_SUCCESS ? &bo : NULL, r.info, r.n, c->cbdata);
	PMIx_Byte_object_destruct(&bo);
	pxc_array_free(r.info, r.n, PMIX_INFO);
	free(c);
}

pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
				     pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
	struct cred_nb *c;
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!cbfunc)
		return PMIX_ERR_BAD_PARAM;
	if ((st = cred_prepare(NULL, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	if (!(c = malloc(sizeof(*c)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	c->cb = cbfunc;
	c->cbdata = cbdata;
	st = pxc_client_send(PXC_CMD_GET_CRED, &b, pxc_request_timeout_ms(info, ninfo), cred_reply,
			     c);
	if (st != PMIX_SUCCESS)
		free(c);
	return st;
}

pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred, const pmix_info_t info[],
				       size_t ninfo, pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!results != !nresults)
		return PMIX_ERR_BAD_PARAM;
	if (results) {
		*results = NULL;
		*nresults = 0;
	}
	if (!cred)
		return PMIX_ERR_BAD_PARAM;
	if ((st = cred_prepare(cred, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_request_results_call(PXC_CMD_VALIDATE_CRED, &b,
				      pxc_request_timeout_ms(info, ninfo), results, nresults);
	pxc_buf_clear(&b);
	return st;
}

struct validate_nb {
	pmix_validation_cbfunc_t cb;
	void *cbdata;
};

/* The results request's callback, in the validation callback's shape. */
static void validated(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
		      pmix_release_cbfunc_t rel, void *relcbdata)
{
	struct validate_nb *v = cbdata;

	v->cb(st, info, ninfo, v->cbdata);
	if (rel)
		rel(relcbdata);
	free(v);
}

pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred, const pmix_info_t info[],
					  size_t ninfo, pmix_validation_cbfunc_t cbfunc,
					  void *cbdata)
{
	struct validate_nb *v;
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!cred || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	if ((st = cred_prepare(cred, info, ninfo, &b)) != PMIX_SUCCESS)
		return st;
	if (!(v = malloc(sizeof(*v)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	v->cb = cbfunc;
	v->cbdata = cbdata;
	st = pxc_request_results_nb(PXC_CMD_VALIDATE_CRED, &b, pxc_request_timeout_ms(info, ninfo),
				    validated, v);
	if (st != PMIX_SUCCESS)
		free(v);
	return st;
}
