/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pset.c - process sets: PMIx_server_define_process_set,
 * PMIx_server_delete_process_set.
 *
 * Process sets live in the progress thread (pxc_srv.psets, read by
 * query.c); the API calls copy their arguments and wait for the progress
 * thread to apply them. Defining a set again replaces it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pset.h"
#include "server.h"

typedef struct {
	pxc_sync_t sync;
	char *name;
	pmix_proc_t *members;
	size_t n;
	bool define;
} psop_t;

static void pset_free(pxc_pset_t *p)
{
	free(p->name);
	free(p->members);
	free(p);
}

static void pset_remove(const char *name)
{
	for (pxc_pset_t **pp = &pxc_srv.psets; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0) {
			pxc_pset_t *p = *pp;

			*pp = p->next;
			pset_free(p);
			return;
		}
}

static void pset_fn(void *arg)
{
	psop_t *o = arg;
	pxc_pset_t *p;

	if (!pxc_srv.running) {
		pxc_sync_signal(&o->sync, PMIX_ERR_INIT);
		return;
	}
	pset_remove(o->name);
	if (!o->define) {
		pxc_sync_signal(&o->sync, PMIX_SUCCESS);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		pxc_sync_signal(&o->sync, PMIX_ERR_NOMEM);
		return;
	}
	p->name = o->name;
	p->members = o->members;
	p->nmembers = o->n;
	o->name = NULL;
	o->members = NULL;
	p->next = pxc_srv.psets;
	pxc_srv.psets = p;
	pxc_sync_signal(&o->sync, PMIX_SUCCESS);
}

static pmix_status_t pset_call(psop_t *o)
{
	pmix_status_t st;

	pxc_sync_init(&o->sync);
	st = pxc_srv_call_wait(pset_fn, o, &o->sync);
	pxc_sync_fini(&o->sync);
	free(o->name);
	free(o->members);
	return st;
}

pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members, size_t nmembers,
					     const char *pset_name)
{
	psop_t o = { .define = true, .n = nmembers };

	if (!pset_name || !*pset_name || (nmembers && !members))
		return PMIX_ERR_BAD_PARAM;
	o.name = strdup(pset_name);
	o.members = nmembers ? malloc(nmembers * sizeof(*members)) : NULL;
	if (!o.name || (nmembers && !o.members)) {
		free(o.name);
		free(o.members);
		return PMIX_ERR_NOMEM;
	}
	if (nmembers)
		memcpy(o.members, members, nmembers * sizeof(*members));
	return pset_call(&o);
}

pmix_status_t PMIx_server_delete_process_set(char *pset_name)
{
	psop_t o = { .define = false };

	if (!pset_name)
		return PMIX_ERR_BAD_PARAM;
	o.name = strdup(pset_name);
	if (!o.name)
		return PMIX_ERR_NOMEM;
	return pset_call(&o);
}

void pxc_psets_free(void)
{
	while (pxc_srv.psets) {
		pxc_pset_t *p = pxc_srv.psets;

		pxc_srv.psets = p->next;
		pset_free(p);
	}
}
