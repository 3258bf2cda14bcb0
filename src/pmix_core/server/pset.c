/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pset.c - process sets: PMIx_server_define_process_set,
 * PMIx_server_delete_process_set.
 *
 * Process sets live in the progress thread (pxc_srv.psets, read by
 * query.c); the API calls copy their arguments and wait for the progress
 * thread to apply them. Defining a set again replaces it. Group
 * constructs (group.c) define their sets directly.
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

pmix_status_t pxc_pset_put(const char *name, const pmix_proc_t *members, size_t n)
{
	pxc_pset_t *p = calloc(1, sizeof(*p));

	if (!p || !(p->name = strdup(name)) ||
	    (n && !(p->members = malloc(n * sizeof(*members))))) {
		if (p)
			free(p->name);
		free(p);
		return PMIX_ERR_NOMEM;
	}
	if (n)
		memcpy(p->members, members, n * sizeof(*members));
	p->nmembers = n;
	pset_remove(name);
	p->next = pxc_srv.psets;
	pxc_srv.psets = p;
	return PMIX_SUCCESS;
}

void pxc_pset_drop(const char *name)
{
	pset_remove(name);
}

static void pset_fn(void *arg)
{
	psop_t *o = arg;

	if (!pxc_srv.running) {
		pxc_sync_signal(&o->sync, PMIX_ERR_INIT);
		return;
	}
	if (!o->define) {
		pset_remove(o->name);
		pxc_sync_signal(&o->sync, PMIX_SUCCESS);
		return;
	}
	pxc_sync_signal(&o->sync, pxc_pset_put(o->name, o->members, o->n));
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
