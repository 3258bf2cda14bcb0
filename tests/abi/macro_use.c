/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * macro_use.c - expands every convenience macro of the public headers once
 * with arguments of the documented types.  abi_check.sh compiles it (syntax
 * only) against our headers and against OpenPMIx's, so a macro whose
 * arguments or result differ from OpenPMIx's fails to build on one side.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

void macro_use(void);

void macro_use(void)
{
	pmix_status_t rc = PMIX_SUCCESS;
	pmix_proc_t proc, *procs = NULL;
	pmix_info_t info, *infos = NULL;
	pmix_value_t val, *vals = NULL, *vp = NULL;
	pmix_pdata_t pd, *pds = NULL;
	pmix_app_t app, *apps = NULL;
	pmix_query_t q, *qs = NULL;
	pmix_regattr_t ra, *ras = NULL;
	pmix_data_array_t da, *das = NULL;
	pmix_byte_object_t bo, *bos = NULL;
	pmix_envar_t ev, *evs = NULL;
	pmix_coord_t co, *cos = NULL;
	pmix_topology_t topo, *topos = NULL;
	pmix_cpuset_t cs, *css = NULL;
	pmix_geometry_t geo, *geos = NULL;
	pmix_device_distance_t dd, *dds = NULL;
	pmix_endpoint_t ep, *eps = NULL;
	pmix_data_buffer_t db, *dbp = NULL;
	pmix_proc_info_t pi, *pis = NULL;
	pmix_proc_stats_t ps, *pss = NULL;
	pmix_disk_stats_t ds, *dss = NULL;
	pmix_net_stats_t ns, *nss = NULL;
	pmix_node_stats_t nd, *nds = NULL;
	pmix_fabric_t fab;
	pmix_nspace_t nsp, cluster;
	char **argv = NULL, *str = NULL, *bytes = NULL;
	size_t sz = 0, n = 0;
	void *list = NULL, *data = NULL;
	int cnt = 0;
	bool b;
	uint32_t u32 = 0;

	PMIX_LOAD_KEY(info.key, "k");
	b = PMIX_CHECK_KEY(&info, "k");
	b = PMIX_CHECK_RESERVED_KEY("pmix.x");
	PMIX_LOAD_NSPACE(nsp, "ns");
	b = PMIX_CHECK_NSPACE(nsp, "ns");
	b = PMIX_NSPACE_INVALID(nsp);
	PMIX_LOAD_PROCID(&proc, "ns", 0);
	PMIX_XFER_PROCID(&proc, &proc);
	PMIX_PROCID_XFER(&proc, &proc);
	b = PMIX_CHECK_PROCID(&proc, &proc);
	b = PMIX_CHECK_RANK(proc.rank, 0);
	b = PMIX_PROCID_INVALID(&proc);
	b = PMIX_RANK_IS_VALID(proc.rank);
	b = PMIX_SYSTEM_EVENT(rc);

	PMIX_ARGV_APPEND(rc, argv, "a");
	PMIX_ARGV_PREPEND(rc, argv, "b");
	PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "c");
	PMIX_ARGV_COUNT(cnt, argv);
	PMIX_ARGV_JOIN(str, argv, ',');
	PMIX_ARGV_FREE(argv);
	PMIX_ARGV_SPLIT(argv, "a,b", ',');
	PMIX_ARGV_COPY(argv, argv);
	PMIX_SETENV(rc, "A", "1", &argv);

	PMIX_VALUE_CONSTRUCT(&val);
	PMIX_VALUE_LOAD(&val, &u32, PMIX_UINT32);
	PMIX_VALUE_GET_NUMBER(rc, &val, n, size_t);
	PMIX_VALUE_UNLOAD(rc, &val, &data, &sz);
	PMIX_VALUE_XFER(rc, vp, &val);
	PMIX_VALUE_XFER_DIRECT(rc, vp, &val);
	b = PMIX_CHECK_TRUE(&val);
	b = PMIX_CHECK_BOOL(&val);
	PMIX_VALUE_DESTRUCT(&val);
	PMIX_VALUE_RELEASE(vp);
	PMIX_VALUE_CREATE(vals, 2);
	PMIX_VALUE_FREE(vals, 2);

	PMIX_INFO_CONSTRUCT(&info);
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	PMIX_INFO_REQUIRED(&info);
	PMIX_INFO_OPTIONAL(&info);
	b = PMIX_INFO_IS_REQUIRED(&info);
	b = PMIX_INFO_IS_OPTIONAL(&info);
	PMIX_INFO_PROCESSED(&info);
	b = PMIX_INFO_WAS_PROCESSED(&info);
	PMIX_INFO_SET_END(&info);
	b = PMIX_INFO_IS_END(&info);
	PMIX_INFO_SET_QUALIFIER(&info);
	b = PMIX_INFO_IS_QUALIFIER(&info);
	PMIX_INFO_SET_PERSISTENT(&info);
	b = PMIX_INFO_IS_PERSISTENT(&info);
	b = PMIX_INFO_TRUE(&info);
	PMIX_INFO_CREATE(infos, 2);
	PMIX_INFO_XFER(&infos[0], &info);
	PMIX_INFO_DESTRUCT(&info);
	PMIX_INFO_FREE(infos, 2);

	PMIX_INFO_LIST_START(list);
	PMIX_INFO_LIST_ADD(rc, list, PMIX_TIMEOUT, &cnt, PMIX_INT);
	PMIX_INFO_LIST_INSERT(rc, list, &info);
	PMIX_INFO_LIST_XFER(rc, list, &info);
	PMIX_INFO_LIST_CONVERT(rc, list, &da);
	PMIX_INFO_LIST_RELEASE(list);

	PMIX_DATA_ARRAY_INIT(&da, PMIX_INFO);
	PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_INFO);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	PMIX_DATA_ARRAY_CREATE(das, 2, PMIX_PROC);
	PMIX_DATA_ARRAY_FREE(das);

	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_PDATA_LOAD(&pd, &proc, "k", &u32, PMIX_UINT32);
	PMIX_PDATA_CREATE(pds, 2);
	PMIX_PDATA_XFER(&pds[0], &pd);
	PMIX_PDATA_DESTRUCT(&pd);
	PMIX_PDATA_FREE(pds, 2);
	PMIX_PDATA_CREATE(pds, 1);
	PMIX_PDATA_RELEASE(pds);

	PMIX_APP_CONSTRUCT(&app);
	PMIX_APP_INFO_CREATE(&app, 2);
	PMIX_APP_DESTRUCT(&app);
	PMIX_APP_CREATE(apps, 2);
	PMIX_APP_FREE(apps, 2);
	PMIX_APP_CREATE(apps, 1);
	PMIX_APP_RELEASE(apps);

	PMIX_QUERY_CONSTRUCT(&q);
	PMIX_QUERY_QUALIFIERS_CREATE(&q, 2);
	PMIX_QUERY_DESTRUCT(&q);
	PMIX_QUERY_CREATE(qs, 2);
	PMIX_QUERY_FREE(qs, 2);
	PMIX_QUERY_CREATE(qs, 1);
	PMIX_QUERY_RELEASE(qs);

	PMIX_REGATTR_CONSTRUCT(&ra);
#ifdef SLURMIX_VERSION /* OpenPMIx 4.2.2's expansion of this one does not build */
	PMIX_REGATTR_LOAD(&ra, "name", "pmix.k", PMIX_STRING, "text");
#endif
	PMIX_REGATTR_CREATE(ras, 2);
	PMIX_REGATTR_XFER(&ras[0], &ra);
	PMIX_REGATTR_DESTRUCT(&ra);
	PMIX_REGATTR_FREE(ras, 2);

	PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
	PMIX_BYTE_OBJECT_LOAD(&bo, bytes, sz);
	PMIX_BYTE_OBJECT_DESTRUCT(&bo);
	PMIX_BYTE_OBJECT_CREATE(bos, 2);
	PMIX_BYTE_OBJECT_FREE(bos, 2);

	PMIX_ENVAR_CONSTRUCT(&ev);
	PMIX_ENVAR_LOAD(&ev, "PATH", "/bin", ':');
	PMIX_ENVAR_DESTRUCT(&ev);
	PMIX_ENVAR_CREATE(evs, 2);
	PMIX_ENVAR_FREE(evs, 2);

	PMIX_COORD_CONSTRUCT(&co);
	PMIX_COORD_DESTRUCT(&co);
	PMIX_COORD_CREATE(cos, 2, 3);
	PMIX_COORD_FREE(cos, 2);
	PMIX_TOPOLOGY_CONSTRUCT(&topo);
	PMIX_TOPOLOGY_DESTRUCT(&topo);
	PMIX_TOPOLOGY_CREATE(topos, 2);
	PMIX_CPUSET_CONSTRUCT(&cs);
	PMIX_CPUSET_CREATE(css, 2);
	PMIX_GEOMETRY_CONSTRUCT(&geo);
	PMIX_GEOMETRY_DESTRUCT(&geo);
	PMIX_GEOMETRY_CREATE(geos, 2);
	PMIX_GEOMETRY_FREE(geos, 2);
	PMIX_DEVICE_DIST_CONSTRUCT(&dd);
	PMIX_DEVICE_DIST_DESTRUCT(&dd);
	PMIX_DEVICE_DIST_CREATE(dds, 2);
	PMIX_DEVICE_DIST_FREE(dds, 2);
	PMIX_ENDPOINT_CONSTRUCT(&ep);
	PMIX_ENDPOINT_DESTRUCT(&ep);
	PMIX_ENDPOINT_CREATE(eps, 2);
	PMIX_ENDPOINT_FREE(eps, 2);

	PMIX_DATA_BUFFER_CONSTRUCT(&db);
	PMIX_DATA_BUFFER_LOAD(&db, bytes, sz);
	PMIX_DATA_BUFFER_UNLOAD(&db, bytes, sz);
	PMIX_DATA_BUFFER_DESTRUCT(&db);
	PMIX_DATA_BUFFER_CREATE(dbp);
	PMIX_DATA_BUFFER_RELEASE(dbp);

	PMIX_PROC_CONSTRUCT(&proc);
	PMIX_PROC_LOAD(&proc, "ns", 1);
	PMIX_PROC_DESTRUCT(&proc);
	PMIX_PROC_CREATE(procs, 2);
	PMIX_PROC_FREE(procs, 2);
	PMIX_PROC_CREATE(procs, 1);
	PMIX_PROC_RELEASE(procs);
	PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(nsp, cluster, nsp);
	PMIX_MULTICLUSTER_NSPACE_PARSE(nsp, cluster, nsp);

	PMIX_PROC_INFO_CONSTRUCT(&pi);
	PMIX_PROC_INFO_DESTRUCT(&pi);
	PMIX_PROC_INFO_CREATE(pis, 2);
	PMIX_PROC_INFO_FREE(pis, 2);
	PMIX_PROC_INFO_CREATE(pis, 1);
	PMIX_PROC_INFO_RELEASE(pis);

	PMIX_PROC_STATS_CONSTRUCT(&ps);
	PMIX_PROC_STATS_DESTRUCT(&ps);
	PMIX_PROC_STATS_CREATE(pss, 2);
	PMIX_PROC_STATS_FREE(pss, 2);
	PMIX_PROC_STATS_CREATE(pss, 1);
	PMIX_PROC_STATS_RELEASE(pss);
	PMIX_DISK_STATS_CONSTRUCT(&ds);
	PMIX_DISK_STATS_DESTRUCT(&ds);
	PMIX_DISK_STATS_CREATE(dss, 2);
	PMIX_DISK_STATS_FREE(dss, 2);
	PMIX_DISK_STATS_CREATE(dss, 1);
	PMIX_DISK_STATS_RELEASE(dss);
	PMIX_NET_STATS_CONSTRUCT(&ns);
	PMIX_NET_STATS_DESTRUCT(&ns);
	PMIX_NET_STATS_CREATE(nss, 2);
	PMIX_NET_STATS_FREE(nss, 2);
	PMIX_NET_STATS_CREATE(nss, 1);
	PMIX_NET_STATS_RELEASE(nss);
	PMIX_NODE_STATS_CONSTRUCT(&nd);
	PMIX_NODE_STATS_DESTRUCT(&nd);
	PMIX_NODE_STATS_CREATE(nds, 2);
	PMIX_NODE_STATS_FREE(nds, 2);
	PMIX_NODE_STATS_CREATE(nds, 1);
	PMIX_NODE_STATS_RELEASE(nds);

	PMIX_FABRIC_CONSTRUCT(&fab);
	PMIx_Heartbeat();

	(void)rc;
	(void)b;
	(void)cnt;
	(void)n;
	(void)str;
	(void)topos;
	(void)css;
}
