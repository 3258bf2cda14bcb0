/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * get.c - PMIx_Get inside a server process (pxc_server_get_local,
 * declared in get.h): a look-up in the server's store, done in the
 * progress thread while the caller waits, never waiting for data.
 */
#include <stdlib.h>

#include "internal.h"
#include "server.h"
#include "get.h"

typedef struct {
	pxc_sync_t sync;
	const pmix_proc_t *proc;
	const char *key;
	pmix_value_t *val;
} getop_t;

static void get_local_fn(void *arg)
{
	getop_t *o = arg;
	const pmix_value_t *v = NULL;
	pmix_status_t st = PMIX_ERR_NOT_FOUND;

	if (!pxc_srv.running) {
		pxc_sync_signal(&o->sync, PMIX_ERR_INIT);
		return;
	}
	if (o->proc->rank != PMIX_RANK_WILDCARD)
		v = pxc_store_get(pxc_srv.store, o->proc->nspace, PXC_LVL_PROC, o->proc->rank,
				  o->key, NULL);
	if (!v)
		v = pxc_store_get(pxc_srv.store, o->proc->nspace, PXC_LVL_JOB, 0, o->key, NULL);
	if (v) {
		o->val = calloc(1, sizeof(*o->val));
		st = !o->val ? PMIX_ERR_NOMEM : PMIx_Value_xfer(o->val, v);
		if (st != PMIX_SUCCESS) {
			free(o->val);
			o->val = NULL;
		}
	}
	pxc_sync_signal(&o->sync, st);
}

pmix_status_t pxc_server_get_local(const pmix_proc_t *proc, const char *key,
				   const pmix_info_t *info, size_t ninfo, pmix_value_t **val)
{
	getop_t o = { .proc = proc, .key = key };
	pmix_status_t st;

	(void)info;
	(void)ninfo;
	if (!proc || !key || !val)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_srv.pg && pxc_progress_in_thread(pxc_srv.pg))
		return PMIX_ERR_WOULD_BLOCK;
	pxc_sync_init(&o.sync);
	st = pxc_srv_call_wait(get_local_fn, &o, &o.sync);
	pxc_sync_fini(&o.sync);
	*val = o.val;
	return st;
}
