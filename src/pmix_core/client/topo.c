/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.c - hwloc-backed calls: PMIx_Load_topology, PMIx_Get_cpuset,
 * PMIx_Parse_cpuset_string, PMIx_Get_relative_locality.
 *
 * The process keeps one cached hwloc topology, loaded the first time it is
 * needed: from the XML the server shared in the job data
 * (PMIX_HWLOC_XML_V2, then V1) when there is one, so that clients do not
 * each rediscover the machine, else by discovery. PMIx_Load_topology hands
 * out a duplicate (PMIx_Topology_destruct destroys what it is given).
 * The cache is guarded by topo_lock and dropped at the last finalize.
 *
 * Locality strings are the ones Open MPI parses: colon-separated tokens
 * NM<list>, SK<list>, L3<list>, L2<list>, L1<list>, CR<list>, HT<list>
 * with hwloc bitmap lists; two processes share a level when the bitmaps of
 * that token intersect. Cpuset strings are "hwloc:<list>" (or a bare list).
 */
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "client.h"
#include "topo.h"

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static hwloc_topology_t cached;

static char *shared_xml(void)
{
	static const char *const keys[] = { PMIX_HWLOC_XML_V2, PMIX_HWLOC_XML_V1 };
	const pmix_value_t *v;
	char *xml = NULL;

	pthread_rwlock_rdlock(&pxc_cl.store_lock);
	for (size_t i = 0; pxc_cl.store && !xml && i < 2; i++) {
		v = pxc_store_get(pxc_cl.store, pxc_cl.me.nspace, PXC_LVL_JOB, 0, keys[i], NULL);
		if (v && v->type == PMIX_STRING && v->data.string)
			xml = strdup(v->data.string);
	}
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	return xml;
}

static hwloc_topology_t load_new(void)
{
	hwloc_topology_t t;
	char *xml = shared_xml();

	if (hwloc_topology_init(&t) != 0) {
		free(xml);
		return NULL;
	}
	if (xml && hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1) != 0)
		pxc_debug("client: shared topology XML rejected, discovering");
	if (hwloc_topology_load(t) != 0) {
		hwloc_topology_destroy(t);
		t = NULL;
	}
	free(xml);
	return t;
}

/* The cached topology; caller holds topo_lock. */
static hwloc_topology_t topo_get(void)
{
	if (!cached)
		cached = load_new();
	return cached;
}

void pxc_topology_release(void)
{
	pthread_mutex_lock(&topo_lock);
	if (cached)
		hwloc_topology_destroy(cached);
	cached = NULL;
	pthread_mutex_unlock(&topo_lock);
}

pmix_status_t PMIx_Load_topology(pmix_topology_t *topo)
{
	hwloc_topology_t t = NULL;
	char *src;

	if (!topo)
		return PMIX_ERR_BAD_PARAM;
	if (topo->source && strncasecmp(topo->source, "hwloc", 5) != 0)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!(src = strdup("hwloc")))
		return PMIX_ERR_NOMEM;
	pthread_mutex_lock(&topo_lock);
	if (topo_get() && hwloc_topology_dup(&t, cached) != 0)
		t = NULL;
	pthread_mutex_unlock(&topo_lock);
	if (!t) {
		free(src);
		return PMIX_ERR_NOT_AVAILABLE;
	}
	free(topo->source);
	topo->source = src;
	topo->topology = t;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref)
{
	hwloc_bitmap_t bm;
	int rc = -1;

	if (!cpuset || (ref != PMIX_CPUBIND_PROCESS && ref != PMIX_CPUBIND_THREAD))
		return PMIX_ERR_BAD_PARAM;
	if (!(bm = hwloc_bitmap_alloc()))
		return PMIX_ERR_NOMEM;
	pthread_mutex_lock(&topo_lock);
	if (topo_get())
		rc = hwloc_get_cpubind(cached, bm,
				       ref == PMIX_CPUBIND_THREAD ? HWLOC_CPUBIND_THREAD :
								    HWLOC_CPUBIND_PROCESS);
	pthread_mutex_unlock(&topo_lock);
	if (rc != 0 || !(cpuset->source = strdup("hwloc"))) {
		hwloc_bitmap_free(bm);
		return rc != 0 ? PMIX_ERR_NOT_AVAILABLE : PMIX_ERR_NOMEM;
	}
	cpuset->bitmap = bm;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string, pmix_cpuset_t *cpuset)
{
	const char *list = cpuset_string;
	const char *colon;
	hwloc_bitmap_t bm;

	if (!cpuset_string || !cpuset)
		return PMIX_ERR_BAD_PARAM;
	if ((colon = strchr(cpuset_string, ':'))) {
		if (strncasecmp(cpuset_string, "hwloc", 5) != 0 || colon != cpuset_string + 5)
			return PMIX_ERR_NOT_SUPPORTED;
		list = colon + 1;
	}
	if (!(bm = hwloc_bitmap_alloc()))
		return PMIX_ERR_NOMEM;
	if (hwloc_bitmap_list_sscanf(bm, list) != 0) {
		hwloc_bitmap_free(bm);
		return PMIX_ERR_BAD_PARAM;
	}
	if (!(cpuset->source = strdup("hwloc"))) {
		hwloc_bitmap_free(bm);
		return PMIX_ERR_NOMEM;
	}
	cpuset->bitmap = bm;
	return PMIX_SUCCESS;
}

/* ---- relative locality ---- */

static const struct {
	const char tag[3];
	pmix_locality_t bit;
} loc_tags[] = {
	{ "NM", PMIX_LOCALITY_SHARE_NUMA },     { "SK", PMIX_LOCALITY_SHARE_PACKAGE },
	{ "L3", PMIX_LOCALITY_SHARE_L3CACHE },  { "L2", PMIX_LOCALITY_SHARE_L2CACHE },
	{ "L1", PMIX_LOCALITY_SHARE_L1CACHE },  { "CR", PMIX_LOCALITY_SHARE_CORE },
	{ "HT", PMIX_LOCALITY_SHARE_HWTHREAD },
};

/* The bitmap list of token tag in a locality string, or NULL. */
static hwloc_bitmap_t loc_token(const char *s, const char *tag)
{
	hwloc_bitmap_t bm;
	char buf[1024];
	const char *p, *end;
	size_t n;

	for (p = s; p && *p; p = (end = strchr(p, ':')) ? end + 1 : NULL) {
		if (strncmp(p, tag, 2) != 0)
			continue;
		end = strchr(p, ':');
		n = end ? (size_t)(end - p - 2) : strlen(p + 2);
		if (n >= sizeof(buf))
			return NULL;
		memcpy(buf, p + 2, n);
		buf[n] = '\0';
		if (!(bm = hwloc_bitmap_alloc()))
			return NULL;
		if (hwloc_bitmap_list_sscanf(bm, buf) != 0) {
			hwloc_bitmap_free(bm);
			return NULL;
		}
		return bm;
	}
	return NULL;
}

pmix_status_t PMIx_Get_relative_locality(const char *locality1, const char *locality2,
					 pmix_locality_t *locality)
{
	pmix_locality_t loc = PMIX_LOCALITY_SHARE_NODE;

	if (!locality)
		return PMIX_ERR_BAD_PARAM;
	if (!locality1 || !locality2) {
		*locality = PMIX_LOCALITY_NONLOCAL;
		return PMIX_ERR_BAD_PARAM;
	}
	for (size_t i = 0; i < sizeof(loc_tags) / sizeof(loc_tags[0]); i++) {
		hwloc_bitmap_t a = loc_token(locality1, loc_tags[i].tag);
		hwloc_bitmap_t b = loc_token(locality2, loc_tags[i].tag);

		if (a && b && hwloc_bitmap_intersects(a, b))
			loc |= loc_tags[i].bit;
		hwloc_bitmap_free(a);
		hwloc_bitmap_free(b);
	}
	*locality = loc;
	return PMIX_SUCCESS;
}
