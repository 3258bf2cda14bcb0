/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - PMIx_Spawn(_nb).
 *
 * The client only carries the job info and the apps to the server, which
 * hands them to the host's spawn (server/spawn.c); the reply carries the
 * new job's namespace and its registered info, merged into the store. Callbacks of PMIx_Spawn_nb run in the progress
 * thread. Not available in a server process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "request.h"

static pmix_status_t spawn_prepare(const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
				   size_t napps, pmix_data_buffer_t *b)
{
	pmix_status_t st;

	if (!apps || !napps || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	pxc_buf_init(b);
	if ((st = pxc_pack_array(b, info, ninfo, PMIX_INFO)) == PMIX_SUCCESS)
		st = pxc_pack_array(b, apps, napps, PMIX_APP);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

/* The new nspace, and its registered info into the store (the caller
 * holds the children's job information when PMIx_Spawn returns). */
static pmix_status_t read_nspace(pmix_data_buffer_t *reply, char *out)
{
	char *ns = NULL;
	pmix_status_t st = pxc_unpack_str(reply, &ns);

	if (st == PMIX_SUCCESS && (!ns || strlen(ns) > PMIX_MAX_NSLEN))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && out)
		snprintf(out, PMIX_MAX_NSLEN + 1, "%s", ns);
	if (st == PMIX_SUCCESS && pxc_buf_remaining(reply) > 0 &&
	    pxc_client_merge_blob(reply) != PMIX_SUCCESS)
		pxc_error("client: the job info of spawned %s does not unpack", ns);
	free(ns);
	return st;
}

static pmix_status_t parse_spawn(pmix_data_buffer_t *reply, void *arg)
{
	return read_nspace(reply, arg);
}

pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
			 size_t napps, pmix_nspace_t nspace)
{
	pmix_data_buffer_t b;
	pmix_status_t st = spawn_prepare(job_info, ninfo, apps, napps, &b);

	if (st != PMIX_SUCCESS)
		return st;
	st = pxc_client_call(PXC_CMD_SPAWN, &b, pxc_request_timeout_ms(job_info, ninfo),
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

pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
			    size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata)
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
	st = pxc_client_send(PXC_CMD_SPAWN, &b, pxc_request_timeout_ms(job_info, ninfo),
			     spawn_reply, s);
	if (st != PMIX_SUCCESS)
		free(s);
	return st;
}
