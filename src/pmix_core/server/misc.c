/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * misc.c - the smaller server API calls: setup_application,
 * setup_local_support, IOF_deliver, inventory and resources, locality and
 * cpuset strings (hwloc), process sets, and pxc_server_get_local.
 *
 * Calls that complete through a callback do so from the progress thread
 * (never inside the caller's stack), as OpenPMIx does. The hwloc topology
 * is loaded on the first locality request and kept, under topo_lock, until
 * finalize. Process sets live in the progress thread (pxc_srv.psets).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "internal.h"
#include "server.h"

/* --------------------------------------------------- callbacks, later */

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
		return pxc_srv.uri ? (st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st)
				   : PMIX_ERR_INIT;
	return later((later_t){ .opcb = cbfunc, .cbdata = cbdata, .status = st });
}

pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace, pmix_info_t info[],
					    size_t ninfo, pmix_setup_application_cbfunc_t cbfunc,
					    void *cbdata)
{
	(void)info; (void)ninfo;
	if (!nspace || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
	return later((later_t){ .appcb = cbfunc, .cbdata = cbdata, .status = PMIX_SUCCESS });
}

pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace, pmix_info_t info[],
					      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)nspace; (void)info; (void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source, pmix_iof_channel_t channel,
				      const pmix_byte_object_t *bo, const pmix_info_t info[],
				      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)source; (void)channel; (void)bo; (void)info; (void)ninfo;
	(void)cbfunc; (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
					    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	(void)directives; (void)ndirs;
	if (!cbfunc)
		return PMIX_ERR_BAD_PARAM;
	return later((later_t){ .infocb = cbfunc, .cbdata = cbdata, .status = PMIX_SUCCESS });
}

pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
					    pmix_info_t directives[], size_t ndirs,
					    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info; (void)ninfo; (void)directives; (void)ndirs;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
					     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info; (void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
					       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)info; (void)ninfo;
	return op_later(cbfunc, cbdata, PMIX_SUCCESS);
}

/* ------------------------------------------------------------- locality */

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

static hwloc_topology_t topo_get(void)
{
	hwloc_topology_t t;

	if (pxc_srv.topo)
		return pxc_srv.topo;
	if (hwloc_topology_init(&t) < 0)
		return NULL;
	if (hwloc_topology_load(t) < 0) {
		hwloc_topology_destroy(t);
		return NULL;
	}
	pxc_srv.topo = t;
	return t;
}

void pxc_topo_free(void)
{
	pthread_mutex_lock(&topo_lock);
	if (pxc_srv.topo)
		hwloc_topology_destroy(pxc_srv.topo);
	pxc_srv.topo = NULL;
	pthread_mutex_unlock(&topo_lock);
}

/* "<list of logical indexes of objects of type touching set>" */
static char *objs_touching(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t ids = hwloc_bitmap_alloc();
	int n = hwloc_get_nbobjs_by_type(t, type);
	char *s = NULL;

	if (!ids)
		return NULL;
	for (int i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(t, type, (unsigned)i);

		if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, set))
			hwloc_bitmap_set(ids, o->logical_index);
	}
	if (hwloc_bitmap_iszero(ids))
		s = strdup("");
	else if (hwloc_bitmap_list_asprintf(&s, ids) < 0)
		s = NULL;
	hwloc_bitmap_free(ids);
	return s;
}

static const struct { const char *tag; hwloc_obj_type_t type; } loc_levels[] = {
	{ "NM", HWLOC_OBJ_NUMANODE }, { "SK", HWLOC_OBJ_PACKAGE },
	{ "L3", HWLOC_OBJ_L3CACHE }, { "L2", HWLOC_OBJ_L2CACHE },
	{ "L1", HWLOC_OBJ_L1CACHE }, { "CR", HWLOC_OBJ_CORE }, { "HT", HWLOC_OBJ_PU },
};

static int locality_of(hwloc_topology_t t, hwloc_const_bitmap_t set, char **out)
{
	char *acc = NULL;

	for (size_t i = 0; i < sizeof(loc_levels) / sizeof(loc_levels[0]); i++) {
		char *ids = objs_touching(t, loc_levels[i].type, set), *next;

		if (!ids || asprintf(&next, "%s%s%s%s", acc ? acc : "", acc ? ":" : "",
				     loc_levels[i].tag, ids) < 0) {
			free(ids);
			free(acc);
			return -1;
		}
		free(ids);
		free(acc);
		acc = next;
	}
	*out = acc;
	return 0;
}

static bool hwloc_cpuset_ok(const pmix_cpuset_t *c)
{
	return c && c->source && strncmp(c->source, "hwloc", 5) == 0 && c->bitmap;
}

pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
						   char **locality)
{
	hwloc_topology_t t;
	int rc = -1;

	if (!locality || !hwloc_cpuset_ok(cpuset))
		return PMIX_ERR_BAD_PARAM;
	*locality = NULL;
	pthread_mutex_lock(&topo_lock);
	t = topo_get();
	if (t)
		rc = locality_of(t, cpuset->bitmap, locality);
	pthread_mutex_unlock(&topo_lock);
	if (!t)
		return PMIX_ERR_NOT_AVAILABLE;
	return rc < 0 ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
						 char **cpuset_string)
{
	char *list = NULL;
	int rc;

	if (!cpuset_string || !hwloc_cpuset_ok(cpuset))
		return PMIX_ERR_BAD_PARAM;
	*cpuset_string = NULL;
	if (hwloc_bitmap_list_asprintf(&list, cpuset->bitmap) < 0)
		return PMIX_ERR_NOMEM;
	rc = asprintf(cpuset_string, "hwloc:%s", list);
	free(list);
	if (rc < 0) {
		*cpuset_string = NULL;
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

/* -------------------------------------------------------- process sets */

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

/* ------------------------------------------------- pxc_server_get_local */

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
		v = pxc_store_get(pxc_srv.store, o->proc->nspace, PXC_LVL_PROC,
				  o->proc->rank, o->key, NULL);
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

	(void)info; (void)ninfo;
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
