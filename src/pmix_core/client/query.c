/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.c - PMIx_Query_info(_nb).
 *
 * Queries the library can answer itself (the ABI version keys, and
 * PMIX_QUERY_ATTRIBUTE_SUPPORT for the client, server and tool levels:
 * common/attr_support.c) are answered without a server, even before
 * PMIx_Init; other keys (and the host level) go to the server (or, in a
 * server process, to pxc_server_query). A broken attribute query (a level
 * qualifier of the wrong type) is PMIX_ERR_BAD_PARAM. Result arrays
 * handed to a pmix_info_cbfunc_t belong to the library until the caller
 * invokes the release function it was given. Callbacks run in the
 * progress thread, except a local-only query made before init, which is
 * answered in the caller's thread (there is no progress thread yet), and
 * a server process's query, answered in the caller's thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"
#include "server/query.h"
#include "attr_support.h"

#define ABI_VERSION "0.0"

static bool abi_key(const char *k)
{
	return strcmp(k, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ||
	       strcmp(k, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0;
}

/* An attribute-support query is answered here unless it asks for the
 * host level (which only the server knows). */
static bool attrs_local(const pmix_query_t *q)
{
	bool host = true;

	return pxc_attr_query_check(q, &host) == PMIX_SUCCESS && !host;
}

static bool is_attrs(const char *k)
{
	return strcmp(k, PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0;
}

/* In the Standard's form the keys after a first PMIX_QUERY_ATTRIBUTE_
 * SUPPORT are function names. */
static bool queries_local(const pmix_query_t *q, size_t nq)
{
	for (size_t i = 0; i < nq; i++) {
		if (q[i].keys && q[i].keys[0] && is_attrs(q[i].keys[0])) {
			if (!attrs_local(&q[i]))
				return false;
			continue;
		}
		for (char **k = q[i].keys; k && *k; k++)
			if (!abi_key(*k) && !(is_attrs(*k) && attrs_local(&q[i])))
				return false;
	}
	return true;
}

/* A broken attribute-support query is the caller's error. */
static pmix_status_t queries_check(const pmix_query_t *q, size_t nq)
{
	for (size_t i = 0; i < nq; i++)
		for (char **k = q[i].keys; k && *k; k++)
			if (is_attrs(*k) && pxc_attr_query_check(&q[i], NULL) != PMIX_SUCCESS)
				return PMIX_ERR_BAD_PARAM;
	return PMIX_SUCCESS;
}

/* Answers queries_local's queries. In the Standard's form of an attribute
 * query the keys after PMIX_QUERY_ATTRIBUTE_SUPPORT are function names. */
static pmix_status_t answer_local(const pmix_query_t *q, size_t nq, pxc_results_t *r)
{
	pxc_infolist_t l = { NULL, 0, 0 };
	pmix_status_t st = PMIX_SUCCESS;

	for (size_t i = 0; i < nq && st == PMIX_SUCCESS; i++) {
		for (char **k = q[i].keys; k && *k && st == PMIX_SUCCESS; k++) {
			pmix_info_t *in;

			if (is_attrs(*k)) {
				st = pxc_attr_query_answer(&q[i], &l);
				if (k == q[i].keys)
					break; /* the rest are its function names */
				continue;
			}
			if (!(in = pxc_infolist_add(&l, *k)))
				st = PMIX_ERR_NOMEM;
			else
				st = PMIx_Info_load(in, *k, ABI_VERSION, PMIX_STRING);
		}
	}
	if (st == PMIX_SUCCESS && l.n == 0)
		st = PMIX_ERR_NOT_FOUND;
	if (st != PMIX_SUCCESS) {
		pxc_infolist_free(&l);
		return st;
	}
	l.info[l.n - 1].flags |= PMIX_INFO_ARRAY_END;
	r->info = l.info;
	r->n = l.n;
	return PMIX_SUCCESS;
}

static pmix_status_t query_prepare(pmix_query_t *queries, size_t nq, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!queries || !nq)
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_client_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, queries, nq, PMIX_QUERY)) != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries, pmix_info_t **results,
			      size_t *nresults)
{
	pxc_results_t r = { NULL, 0 };
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!results || !nresults || !queries || !nqueries)
		return PMIX_ERR_BAD_PARAM;
	*results = NULL;
	*nresults = 0;
	if ((st = queries_check(queries, nqueries)) != PMIX_SUCCESS)
		return st;
	if (queries_local(queries, nqueries)) {
		st = answer_local(queries, nqueries, &r);
		*results = r.info;
		*nresults = r.n;
		return st;
	}
	if (pxc_role == PXC_ROLE_SERVER)
		return pxc_server_query(queries, nqueries, results, nresults);
	if ((st = query_prepare(queries, nqueries, &b)) != PMIX_SUCCESS)
		return st;
	st = pxc_request_results_call(PXC_CMD_QUERY, &b, 0, results, nresults);
	pxc_buf_clear(&b);
	return st;
}

struct localq {
	pxc_results_t *r;
	pmix_status_t st;
	pmix_info_cbfunc_t cb;
	void *cbdata;
};

static void localq_run(void *arg)
{
	struct localq *l = arg;

	l->cb(l->st, l->r->info, l->r->n, l->cbdata, pxc_request_results_free, l->r);
	free(l);
}

static pmix_status_t query_local_nb(pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb, void *cbdata)
{
	struct localq *l = calloc(1, sizeof(*l));
	pxc_progress_t *pg = pxc_progress_global();

	if (!l || !(l->r = calloc(1, sizeof(*l->r)))) {
		free(l);
		return PMIX_ERR_NOMEM;
	}
	l->st = answer_local(q, nq, l->r);
	l->cb = cb;
	l->cbdata = cbdata;
	if (!pg || pxc_progress_post(pg, localq_run, l) != 0)
		localq_run(l);
	return PMIX_SUCCESS;
}

/* A server process answers in its own (non-progress) caller context. */
static pmix_status_t query_server_nb(pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb,
				     void *cbdata)
{
	pxc_results_t *r = calloc(1, sizeof(*r));
	pmix_status_t st;

	if (!r)
		return PMIX_ERR_NOMEM;
	st = pxc_server_query(q, nq, &r->info, &r->n);
	cb(st, r->info, r->n, cbdata, pxc_request_results_free, r);
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries, pmix_info_cbfunc_t cbfunc,
				 void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!cbfunc || !queries || !nqueries || queries_check(queries, nqueries) != PMIX_SUCCESS)
		return PMIX_ERR_BAD_PARAM;
	if (queries_local(queries, nqueries))
		return query_local_nb(queries, nqueries, cbfunc, cbdata);
	if (pxc_role == PXC_ROLE_SERVER)
		return query_server_nb(queries, nqueries, cbfunc, cbdata);
	if ((st = query_prepare(queries, nqueries, &b)) != PMIX_SUCCESS)
		return st;
	return pxc_request_results_nb(PXC_CMD_QUERY, &b, 0, cbfunc, cbdata);
}
