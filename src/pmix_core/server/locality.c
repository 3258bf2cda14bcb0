/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * locality.c - locality and cpuset strings (hwloc):
 * PMIx_server_generate_locality_string, PMIx_server_generate_cpuset_string.
 *
 * The hwloc topology is the host's (a copy of its PMIX_TOPOLOGY2, see
 * server.c) or loaded on the first locality request; it is kept, under
 * topo_lock, until finalize. Any thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "internal.h"
#include "locality.h"

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

static const struct {
	const char *tag;
	hwloc_obj_type_t type;
} loc_levels[] = {
	{ "NM", HWLOC_OBJ_NUMANODE }, { "SK", HWLOC_OBJ_PACKAGE }, { "L3", HWLOC_OBJ_L3CACHE },
	{ "L2", HWLOC_OBJ_L2CACHE },  { "L1", HWLOC_OBJ_L1CACHE }, { "CR", HWLOC_OBJ_CORE },
	{ "HT", HWLOC_OBJ_PU },
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

pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset, char **locality)
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

pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset, char **cpuset_string)
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
