/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unsupported.c - client API calls that slurmix does not support yet. They are
 * exported so that no binary built against OpenPMIx headers meets a
 * missing symbol, clear their output arguments and return
 * PMIX_ERR_NOT_SUPPORTED: fabric, device distances and session control
 * (PMIx_IOF_push: client/push.c; attribute registration:
 * common/attr_support.c).
 */
#include <pmix_server.h>

#include "client.h"

pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric, const pmix_info_t directives[],
				   size_t ndirs)
{
	(void)fabric, (void)directives, (void)ndirs;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric, const pmix_info_t directives[],
				      size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)fabric, (void)directives, (void)ndirs, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric)
{
	(void)fabric;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)fabric, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric)
{
	(void)fabric;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc,
					void *cbdata)
{
	(void)fabric, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
				     pmix_info_t info[], size_t ninfo,
				     pmix_device_distance_t *distances[], size_t *ndist)
{
	(void)topo, (void)cpuset, (void)info, (void)ninfo;
	if (distances)
		*distances = NULL;
	if (ndist)
		*ndist = 0;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
					pmix_info_t info[], size_t ninfo,
					pmix_device_dist_cbfunc_t cbfunc, void *cbdata)
{
	(void)topo, (void)cpuset, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_Session_control(uint32_t sessionID, const pmix_info_t directives[], size_t ndirs,
				   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	(void)sessionID, (void)directives, (void)ndirs, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED;
}
