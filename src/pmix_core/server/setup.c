/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * setup.c - the server API calls a host makes to prepare a job or a node
 * that slurmix's server has nothing to do for: setup_application,
 * setup_local_support, collect/deliver_inventory, register/deregister
 * resources. They succeed.
 *
 * Calls that complete through a callback do so from the progress thread
 * (never inside the caller's stack), as OpenPMIx does; without a callback
 * an operation answers PMIX_OPERATION_SUCCEEDED at once (PMIX_ERR_INIT
 * before the server runs).
 */
#include <stdlib.h>

#include "internal.h"
#include "server.h"

typedef struct {
	pmix_op_cbfunc_t opcb;
	pmix_info_cbfunc_t infocb;
	pmix_setup_application_cbfunc_t appcb;
	void *cbdata;
	pmix_status_t status;
} later_t;

static void later_fn(void *arg)
{
	later_t *l = arg;

	if (l->opcb)
		l->opcb(l->status, l->cbdata);
	else if (l->infocb)
		l->infocb(l->status, NULL, 0, l->cbdata, NULL, NULL);
	else if (l->appcb)
		l->appcb(l->status, NULL, 0, l->cbdata, NULL, NULL);
	free(l);
}

/* Schedules one callback with status; PMIX_SUCCESS or an error (no call). */
static pmix_status_t later(later_t tmpl)
{
	later_t *l = malloc(sizeof(*l));

	if (!l)
		return PMIX_ERR_NOMEM;
	*l = tmpl;
	if (pxc_srv_post(later_fn, l) < 0) {
		free(l);
		return PMIX_ERR_INIT;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t op_later(pmix_op_cbfunc_t cbfunc, void *cbdata, pmix_status_t st)
{
	if (!cbfunc)
		return pxc_srv.uri ? (st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st) :
				     PMIX_ERR_INIT;
	return later((later_t){ .opcb = cbfunc, .cbdata = cbdata, .status = st });
}

pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace, pmix_info_t info[],
					    size_t ninfo, pmix_setup_application_cbfunc_t cbfunc,
					    void *cbdata)
{
	(void)info;
	(void)ninfo;
	if (!nspace || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	return later((later_t){ .appcb = cbfunc, .cbdata = cbdata, .status = PMIX_SUCCESS });
}

pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace, pmix_info_t info[],
					      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)nspace;
	(void)info;
	(void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
					    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	(void)directives;
	(void)ndirs;
	if (!cbfunc)
		return PMIX_ERR_BAD_PARAM;
	return later((later_t){ .infocb = cbfunc, .cbdata = cbdata, .status = PMIX_SUCCESS });
}

pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
					    pmix_info_t directives[], size_t ndirs,
					    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info;
	(void)ninfo;
	(void)directives;
	(void)ndirs;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
					     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info;
	(void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
					       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info;
	(void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}
