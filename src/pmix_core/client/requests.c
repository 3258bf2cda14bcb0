/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * requests.c - requests whose reply is a list of infos: PMIx_Query_info(_nb),
 * PMIx_Job_control(_nb), PMIx_Group_construct/destruct(_nb), and the
 * simple ones around them: PMIx_Log(_nb), PMIx_Spawn(_nb).
 *
 * Queries the library can answer itself (the ABI version keys) are
 * answered without a server, even before PMIx_Init; other keys go to the
 * server (or, in a server process, to pxc_server_query). Result arrays
 * handed to a pmix_info_cbfunc_t belong to the library until the caller
 * invokes the release function it was given. PMIx_Job_control_nb accepts
 * a NULL cbfunc (Open MPI registers its cleanup that way) and then
 * returns once the request is queued. Callbacks run in the progress
 * thread, except a local-only query made before init, which is answered
 * in the caller's thread (there is no progress thread yet).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "server/server.h"

#define ABI_VERSION "0.0"

/* ---- generic "STATUS, INFO[] results" replies ---- */

struct infos {
	pmix_info_t *info;
	size_t n;
};

static void infos_release(void *cbdata)
{
	struct infos *r = cbdata;

	if (r) {
		pxc_array_free(r->info, r->n, PMIX_INFO);
		free(r);
	}
}

struct infonb {
	pmix_info_cbfunc_t cb;
	void *cbdata;
};

static pmix_status_t unpack_results(pmix_status_t st, pmix_data_buffer_t *reply,
				    struct infos *r)
{
	pmix_status_t ust;

	if (!reply || (st != PMIX_SUCCESS && st != PMIX_QUERY_PARTIAL_SUCCESS) ||
	    pxc_buf_remaining(reply) == 0)
		return st;
	ust = pxc_unpack_array(reply, (void **)&r->info, &r->n, PMIX_INFO);
	return ust == PMIX_SUCCESS ? st : ust;
}

static void infonb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct infonb *q = arg;
	struct infos *r = calloc(1, sizeof(*r));

	if (!r)
		st = PMIX_ERR_NOMEM;
	else
		st = unpack_results(st, reply, r);
	if (q->cb)
		q->cb(st, r ? r->info : NULL, r ? r->n : 0, q->cbdata, infos_release, r);
	else
		infos_release(r);
	free(q);
}

static pmix_status_t send_infonb(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				 pmix_info_cbfunc_t cb, void *cbdata)
{
	struct infonb *q = malloc(sizeof(*q));
	pmix_status_t st;

	if (!q) {
		pxc_buf_clear(b);
		return PMIX_ERR_NOMEM;
	}
	q->cb = cb;
	q->cbdata = cbdata;
	if ((st = pxc_client_send(cmd, b, timeout_ms, infonb_reply, q)) != PMIX_SUCCESS)
		free(q);
	return st;
}

struct infocall {
	pmix_info_t **out;
	size_t *nout;
};

static pmix_status_t parse_infos(pmix_data_buffer_t *reply, void *arg)
{
	struct infocall *c = arg;
	struct infos r = { NULL, 0 };
	pmix_status_t st = unpack_results(PMIX_SUCCESS, reply, &r);

	if (c->out) {
		*c->out = r.info;
		*c->nout = r.n;
	} else {
		pxc_array_free(r.info, r.n, PMIX_INFO);
	}
	return st;
}

static pmix_status_t call_infos(uint16_t cmd, pmix_data_buffer_t *b, int timeout_ms,
				pmix_info_t **results, size_t *nresults)
{
	struct infocall c = { results, nresults };

	if (results) {
		*results = NULL;
		*nresults = 0;
	}
	return pxc_client_call(cmd, b, timeout_ms, parse_infos, &c);
}

static pmix_status_t ready(void)
{
	return pxc_role == PXC_ROLE_SERVER ? PMIX_ERR_NOT_SUPPORTED : pxc_client_ready();
}

/* ---- query ---- */

static bool key_local(const char *k)
{
	return strcmp(k, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ||
	       strcmp(k, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0;
}

static bool queries_local(const pmix_query_t *q, size_t nq)
{
	for (size_t i = 0; i < nq; i++)
		for (char **k = q[i].keys; k && *k; k++)
			if (!key_local(*k))
				return false;
	return true;
}

static pmix_status_t answer_local(const pmix_query_t *q, size_t nq, struct infos *r)
{
	size_t n = 0;

	for (size_t i = 0; i < nq; i++)
		for (char **k = q[i].keys; k && *k; k++)
			n++;
	if (n == 0)
		return PMIX_ERR_NOT_FOUND;
	if (!(r->info = calloc(n, sizeof(*r->info))))
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < nq; i++) {
		for (char **k = q[i].keys; k && *k; k++) {
			pmix_info_t *in = &r->info[r->n++];

			snprintf(in->key, sizeof(in->key), "%s", *k);
			in->value.type = PMIX_STRING;
			in->value.data.string = strdup(ABI_VERSION);
		}
	}
	r->info[r->n - 1].flags |= PMIX_INFO_ARRAY_END;
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

pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
			      pmix_info_t **results, size_t *nresults)
{
	struct infos r = { NULL, 0 };
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!results || !nresults || !queries || !nqueries)
		return PMIX_ERR_BAD_PARAM;
	*results = NULL;
	*nresults = 0;
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
	st = call_infos(PXC_CMD_QUERY, &b, 0, results, nresults);
	pxc_buf_clear(&b);
	return st;
}

struct localq {
	struct infos *r;
	pmix_status_t st;
	pmix_info_cbfunc_t cb;
	void *cbdata;
};

static void localq_run(void *arg)
{
	struct localq *l = arg;

	l->cb(l->st, l->r->info, l->r->n, l->cbdata, infos_release, l->r);
	free(l);
}

static pmix_status_t query_local_nb(pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb,
				    void *cbdata)
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
	struct infos *r = calloc(1, sizeof(*r));
	pmix_status_t st;

	if (!r)
		return PMIX_ERR_NOMEM;
	st = pxc_server_query(q, nq, &r->info, &r->n);
	cb(st, r->info, r->n, cbdata, infos_release, r);
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
				 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!cbfunc || !queries || !nqueries)
		return PMIX_ERR_BAD_PARAM;
	if (queries_local(queries, nqueries))
		return query_local_nb(queries, nqueries, cbfunc, cbdata);
	if (pxc_role == PXC_ROLE_SERVER)
		return query_server_nb(queries, nqueries, cbfunc, cbdata);
	if ((st = query_prepare(queries, nqueries, &b)) != PMIX_SUCCESS)
		return st;
	return send_infonb(PXC_CMD_QUERY, &b, 0, cbfunc, cbdata);
}

/* ---- job control ---- */

static pmix_status_t procs_infos_prepare(const pmix_proc_t *procs, size_t nprocs,
					 const pmix_info_t *info, size_t ninfo,
					 pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if ((st = ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_cli_pack_procs_infos(b, procs, nprocs, info, ninfo)) != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
			       const pmix_info_t directives[], size_t ndirs,
			       pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((results && !nresults) ||
	    (st = procs_infos_prepare(targets, ntargets, directives, ndirs, &b)) != PMIX_SUCCESS)
		return results && !nresults ? PMIX_ERR_BAD_PARAM : st;
	st = call_infos(PXC_CMD_JOBCTL, &b, pxc_cli_info_timeout_ms(directives, ndirs),
			results, nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
				  const pmix_info_t directives[], size_t ndirs,
				  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((st = procs_infos_prepare(targets, ntargets, directives, ndirs, &b)) != PMIX_SUCCESS)
		return st;
	return send_infonb(PXC_CMD_JOBCTL, &b, pxc_cli_info_timeout_ms(directives, ndirs),
			   cbfunc, cbdata);
}

/* ---- groups (construct/destruct; the rest is not supported yet) ---- */

static pmix_status_t group_prepare(uint8_t op, const char *grp, const pmix_proc_t *procs,
				   size_t nprocs, const pmix_info_t *info, size_t ninfo,
				   pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!grp || (!procs && nprocs) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack(b, &op, 1, PMIX_UINT8)) == PMIX_SUCCESS &&
	    (st = pxc_pack_str(b, grp)) == PMIX_SUCCESS)
		st = pxc_cli_pack_procs_infos(b, procs, nprocs, info, ninfo);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t directives[], size_t ndirs,
				   pmix_info_t **results, size_t *nresults)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	st = group_prepare(PMIX_GROUP_CONSTRUCT, grp, procs, nprocs, directives, ndirs, &b);
	if (st != PMIX_SUCCESS)
		return st;
	st = call_infos(PXC_CMD_GROUP, &b, pxc_cli_info_timeout_ms(directives, ndirs),
			results, nresults);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!procs || !nprocs || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	st = group_prepare(PMIX_GROUP_CONSTRUCT, grp, procs, nprocs, info, ninfo, &b);
	if (st != PMIX_SUCCESS)
		return st;
	return send_infonb(PXC_CMD_GROUP, &b, pxc_cli_info_timeout_ms(info, ninfo), cbfunc, cbdata);
}

pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[], size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st = group_prepare(PMIX_GROUP_DESTRUCT, grp, NULL, 0, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = call_infos(PXC_CMD_GROUP, &b, pxc_cli_info_timeout_ms(info, ninfo), NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = group_prepare(PMIX_GROUP_DESTRUCT, grp, NULL, 0, info, ninfo, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_client_op_nb(PXC_CMD_GROUP, &b, pxc_cli_info_timeout_ms(info, ninfo),
				false, cbfunc, cbdata);
}

/* ---- log ---- */

static pmix_status_t log_prepare(const pmix_info_t *data, size_t ndata,
				 const pmix_info_t *dirs, size_t ndirs, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!data || !ndata || (!dirs && ndirs))
		return PMIX_ERR_BAD_PARAM;
	if ((st = ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, data, ndata, PMIX_INFO)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, dirs, ndirs, PMIX_INFO);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
		       const pmix_info_t directives[], size_t ndirs)
{
	pmix_data_buffer_t b;
	pmix_status_t st = log_prepare(data, ndata, directives, ndirs, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_LOG, &b, pxc_cli_info_timeout_ms(directives, ndirs), NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
			  const pmix_info_t directives[], size_t ndirs,
			  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st = log_prepare(data, ndata, directives, ndirs, &b);

	if (st != PMIX_SUCCESS)
		return st;
	return pxc_client_op_nb(PXC_CMD_LOG, &b, pxc_cli_info_timeout_ms(directives, ndirs),
				false, cbfunc, cbdata);
}

/* ---- spawn ---- */

static pmix_status_t spawn_prepare(const pmix_info_t *info, size_t ninfo,
				   const pmix_app_t *apps, size_t napps, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!apps || !napps || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, info, ninfo, PMIX_INFO)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, apps, napps, PMIX_APP);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

static pmix_status_t read_nspace(pmix_data_buffer_t *reply, char *out)
{
	char *ns = NULL;
	pmix_status_t st = pxc_unpack_str(reply, &ns);

	if (st == PMIX_SUCCESS && (!ns || strlen(ns) > PMIX_MAX_NSLEN))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && out)
		snprintf(out, PMIX_MAX_NSLEN + 1, "%s", ns);
	free(ns);
	return st;
}

static pmix_status_t parse_spawn(pmix_data_buffer_t *reply, void *arg)
{
	return read_nspace(reply, arg);
}

pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
			 const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)
{
	pmix_data_buffer_t b;
	pmix_status_t st = spawn_prepare(job_info, ninfo, apps, napps, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_SPAWN, &b, pxc_cli_info_timeout_ms(job_info, ninfo),
			     parse_spawn, nspace);
	pxc_buf_clear(&b);
	return st;
}

struct spawnnb {
	pmix_spawn_cbfunc_t cb;
	void *cbdata;
};

static void spawn_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct spawnnb *s = arg;
	pmix_nspace_t ns = "";

	if (st == PMIX_SUCCESS && reply)
		st = read_nspace(reply, ns);
	if (s->cb)
		s->cb(st, ns, s->cbdata);
	free(s);
}

pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
			    const pmix_app_t apps[], size_t napps,
			    pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	struct spawnnb *s;
	pmix_status_t st = spawn_prepare(job_info, ninfo, apps, napps, &b);

	if (st != PMIX_SUCCESS)
		return st;
	if (!(s = malloc(sizeof(*s)))) {
		pxc_buf_clear(&b);
		return PMIX_ERR_NOMEM;
	}
	s->cb = cbfunc;
	s->cbdata = cbdata;
	st = pxc_client_send(PXC_CMD_SPAWN, &b, pxc_cli_info_timeout_ms(job_info, ninfo),
			     spawn_reply, s);
	if (st != PMIX_SUCCESS)
		free(s);
	return st;
}
