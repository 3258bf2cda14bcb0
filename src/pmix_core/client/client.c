/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c - PMIx_Init/Finalize/Initialized/Get_version/Progress and
 * singleton start-up.
 *
 * PMIx_Init is reference-counted like OpenPMIx's: the first call connects
 * (or, without a server in the environment, starts a singleton with a
 * namespace of its own: "singleton.<host>.<pid>", rank 0, job size 1, as
 * OpenPMIx 4.2 does), later calls only count; the matching last
 * PMIx_Finalize sends FINALIZE, drops the connection and stops the
 * progress engine, leaving no thread or descriptor behind.
 *
 * All state lives in pxc_cl (client.h); init/finalize serialise on its
 * mutex. Calls from the progress thread that would wait are refused.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "groupev.h"
#include "conn.h"
#include "push.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#define FINALIZE_TIMEOUT_MS 5000

/* ---- singleton ---- */

static void put_u32(const char *key, pmix_data_type_t t, uint32_t v, int level, uint32_t id)
{
	pmix_value_t val = { .type = t };

	if (t == PMIX_UINT16)
		val.data.uint16 = (uint16_t)v;
	else
		val.data.uint32 = v;
	pxc_store_put(pxc_cl.store, pxc_cl.me.nspace, level, id, key, &val, PMIX_SCOPE_UNDEF);
}

static void put_str(const char *key, const char *s, int level, uint32_t id)
{
	pmix_value_t val = { .type = PMIX_STRING };

	val.data.string = (char *)s;
	pxc_store_put(pxc_cl.store, pxc_cl.me.nspace, level, id, key, &val, PMIX_SCOPE_UNDEF);
}

static void singleton_start(void)
{
	static const char *const job_keys[] = {
		PMIX_JOB_SIZE,  PMIX_UNIV_SIZE, PMIX_MAX_PROCS,    PMIX_LOCAL_SIZE,
		PMIX_NUM_NODES, PMIX_NODE_SIZE, PMIX_JOB_NUM_APPS, PMIX_APP_SIZE,
	};

	snprintf(pxc_cl.me.nspace, sizeof(pxc_cl.me.nspace), "singleton.%.200s.%ld",
		 pxc_cl.hostname, (long)getpid());
	pxc_cl.me.rank = 0;
	pxc_cl.server = pxc_cl.me;
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	for (size_t i = 0; i < sizeof(job_keys) / sizeof(job_keys[0]); i++)
		put_u32(job_keys[i], PMIX_UINT32, 1, PXC_LVL_JOB, 0);
	put_str(PMIX_LOCAL_PEERS, "0", PXC_LVL_JOB, 0);
	put_str(PMIX_HOSTNAME, pxc_cl.hostname, PXC_LVL_PROC, 0);
	put_u32(PMIX_LOCAL_RANK, PMIX_UINT16, 0, PXC_LVL_PROC, 0);
	put_u32(PMIX_NODE_RANK, PMIX_UINT16, 0, PXC_LVL_PROC, 0);
	put_u32(PMIX_APPNUM, PMIX_UINT32, 0, PXC_LVL_PROC, 0);
	put_u32(PMIX_NODEID, PMIX_UINT32, 0, PXC_LVL_PROC, 0);
	put_u32(PMIX_GLOBAL_RANK, PMIX_UINT32, 0, PXC_LVL_PROC, 0);
	put_str(PMIX_HOSTNAME, pxc_cl.hostname, PXC_LVL_NODE, 0);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	atomic_store(&pxc_cl.state, PXC_CONN_ALONE);
}

/* ---- init / finalize ---- */

static pmix_status_t client_start(const pmix_info_t *info, size_t ninfo)
{
	const char *ns = getenv("PMIX_NAMESPACE");
	const char *rank = getenv("PMIX_RANK");
	const char *uri = getenv(PXC_ENV_URI);
	pmix_proc_t claim;
	pmix_status_t st;

	if ((st = pxc_client_setup()) != PMIX_SUCCESS)
		return st;
	if (!ns) {
		singleton_start();
		return PMIX_SUCCESS;
	}
	if (!uri || !rank || strlen(ns) > PMIX_MAX_NSLEN) {
		pxc_error("client: PMIX_NAMESPACE is set but %s or PMIX_RANK is "
			  "missing: not started by a slurmix server",
			  PXC_ENV_URI);
		pxc_client_teardown();
		return PMIX_ERR_UNREACH;
	}
	pxc_proc_load(&claim, ns, (pmix_rank_t)strtoul(rank, NULL, 10));
	st = pxc_client_connect(uri, PXC_PEER_CLIENT, &claim, info, ninfo);
	if (st != PMIX_SUCCESS)
		pxc_client_teardown();
	return st;
}

pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
	pmix_status_t st = PMIX_SUCCESS;

	if (pxc_progress_in_thread(pxc_progress_global()))
		return PMIX_ERR_WOULD_BLOCK;
	pthread_mutex_lock(&pxc_cl.lock);
	if (pxc_cl.refs == 0 && pxc_role == PXC_ROLE_SERVER)
		st = PMIX_ERR_NOT_SUPPORTED;
	else if (pxc_cl.refs == 0 && (st = client_start(info, ninfo)) == PMIX_SUCCESS)
		pxc_role = PXC_ROLE_CLIENT;
	if (st == PMIX_SUCCESS) {
		pxc_cl.refs++;
		if (proc)
			*proc = pxc_cl.me;
	}
	pthread_mutex_unlock(&pxc_cl.lock);
	return st;
}

int PMIx_Initialized(void)
{
	return pxc_client_initialized();
}

static pmix_status_t send_finalize(const pmix_info_t *info, size_t ninfo)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (pxc_client_ready() != PMIX_SUCCESS)
		return PMIX_SUCCESS;
	pxc_buf_init(&b);
	st = pxc_pack_array(&b, info, ninfo, PMIX_INFO);
	if (st == PMIX_SUCCESS)
		st = pxc_client_call(PXC_CMD_FINALIZE, &b, FINALIZE_TIMEOUT_MS, NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}

pmix_status_t pxc_client_finalize_common(const pmix_info_t *info, size_t ninfo)
{
	pmix_status_t st = PMIX_SUCCESS;

	if (pxc_progress_in_thread(pxc_cl.pg))
		return PMIX_ERR_WOULD_BLOCK;
	pthread_mutex_lock(&pxc_cl.lock);
	if (pxc_cl.refs == 0) {
		pthread_mutex_unlock(&pxc_cl.lock);
		return PMIX_ERR_INIT;
	}
	if (--pxc_cl.refs == 0) {
		pxc_push_stop();    /* no more of this process's stdin */
		pxc_groupev_stop(); /* pending invitations and joins end */
		st = send_finalize(info, ninfo);
		if (st != PMIX_SUCCESS)
			pxc_debug("client: FINALIZE failed: %s", PMIx_Error_string(st));
		pxc_client_teardown();
		pxc_cl.is_tool = false;
		if (pxc_role == PXC_ROLE_CLIENT || pxc_role == PXC_ROLE_TOOL)
			pxc_role = PXC_ROLE_NONE;
		st = PMIX_SUCCESS;
	}
	pthread_mutex_unlock(&pxc_cl.lock);
	return st;
}

pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo)
{
	if (pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	return pxc_client_finalize_common(info, ninfo);
}

const char *PMIx_Get_version(void)
{
	return "PMIx 4.2.2 (slurmix " PACKAGE_VERSION "; PMIx Standard: 4.2, "
	       "Stable ABI: 0.0, Provisional ABI: 0.0)";
}

void PMIx_Progress(void)
{
	/* The progress thread always runs: nothing to drive. */
}
