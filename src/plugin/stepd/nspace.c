/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/nspace.c - what the step's namespace tells its clients: job-level
 * sizes and directories, this node's peers and topology, and per rank its
 * node, host name and local rank, with the exact value types Open MPI 4.1
 * checks (reference/pmix-abi.md §3.1).
 *
 * Everything is derived from the process map that srun computed and the
 * node names of the step, so every stepd registers the same job and proc
 * data; only the job-level copies of the local keys (LOCAL_SIZE,
 * LOCAL_PEERS, LOCALLDR, NODE_SIZE, topology) differ per node. Every
 * node's own values are also registered per node (PMIX_NODE_INFO_ARRAY:
 * HOSTNAME, NODEID, LOCAL_PEERS, LOCAL_SIZE, NODE_SIZE, LOCALLDR), so
 * that a server of another step that fetched this namespace (connect,
 * spawn, direct modex: docs/dynamic.md section 5) answers a wildcard Get
 * of LOCAL_PEERS with this step's ranks on *its* node, or nothing when
 * this step has none there. Job manager thread, before the tasks exist.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix_server.h>

#include "lib/map.h"
#include "stepd/nspace.h"
#include "stepd/step.h"

#define PLUG_JOB_KEYS 20
#define PLUG_PROC_KEYS 11
#define PLUG_NODE_KEYS 6

/* Comma list of the ranks on node `node`, malloc()ed. */
static char *peers_string(const plug_map_t *m, uint32_t node)
{
	size_t cap = (size_t)m->count[node] * 11 + 1, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < m->count[node]; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%u", i ? "," : "",
					m->ranks[m->first[node] + i]);
	return s;
}

static int load(pmix_info_t *info, size_t *n, const char *key, const void *val,
		pmix_data_type_t type)
{
	if (PMIx_Info_load(&info[*n], key, val, type) != PMIX_SUCCESS)
		return -1;
	(*n)++;
	return 0;
}

static int job_info(const plug_step_t *st, pmix_info_t *info, size_t *n)
{
	const plug_map_t *m = st->map;
	uint32_t node = st->si.nodeid, ntasks = m->ntasks, nnodes = m->nnodes;
	uint32_t local = m->count[node], zero = 0, one = 1;
	pmix_rank_t ldr = m->ranks[m->first[node]];
	bool spawned = st->spawned, yes = true;
	char *peers = peers_string(m, node);
	int rc = 0;

	if (!peers)
		return -1;
	rc |= load(info, n, PMIX_JOBID, st->nspace, PMIX_STRING);
	if (plug_slurm_cluster_name()) /* "cluster:nspace" names in PMIx_Connect */
		rc |= load(info, n, PMIX_CLUSTER_ID, plug_slurm_cluster_name(), PMIX_STRING);
	rc |= load(info, n, PMIX_UNIV_SIZE, &ntasks, PMIX_UINT32);
	rc |= load(info, n, PMIX_JOB_SIZE, &ntasks, PMIX_UINT32);
	rc |= load(info, n, PMIX_MAX_PROCS, &ntasks, PMIX_UINT32);
	rc |= load(info, n, PMIX_APP_SIZE, &ntasks, PMIX_UINT32);
	rc |= load(info, n, PMIX_JOB_NUM_APPS, &one, PMIX_UINT32);
	rc |= load(info, n, PMIX_APPNUM, &zero, PMIX_UINT32);
	rc |= load(info, n, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
	rc |= load(info, n, PMIX_SPAWNED, &spawned, PMIX_BOOL);
	if (spawned)
		rc |= load(info, n, PMIX_PARENT_ID, &st->parent, PMIX_PROC);
	rc |= load(info, n, PMIX_TMPDIR, st->cltdir, PMIX_STRING);
	rc |= load(info, n, PMIX_NSDIR, st->cltdir, PMIX_STRING);
	rc |= load(info, n, PMIX_TDIR_RMCLEAN, &yes, PMIX_BOOL);
	rc |= load(info, n, PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
	rc |= load(info, n, PMIX_NODE_SIZE, &local, PMIX_UINT32);
	rc |= load(info, n, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	rc |= load(info, n, PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
	if (st->topo_xml)
		rc |= load(info, n, PMIX_HWLOC_XML_V2, st->topo_xml, PMIX_STRING);
	free(peers);
	return rc ? -1 : 0;
}

/* PMIX_PROC_DATA of one rank; PMIX_RANK must come first. */
static int proc_info(const plug_step_t *st, pmix_rank_t r, pmix_info_t *out)
{
	const plug_map_t *m = st->map;
	pmix_data_array_t *da = PMIx_Data_array_create(PLUG_PROC_KEYS, PMIX_INFO);
	pmix_info_t *pi;
	uint32_t nodeid = m->node_of[r], appnum = 0;
	uint16_t lrank = (uint16_t)plug_map_local_rank(m, r);
	pmix_rank_t appldr = 0;
	size_t n = 0;
	int rc = 0;

	if (!da)
		return -1;
	pi = da->array;
	rc |= load(pi, &n, PMIX_RANK, &r, PMIX_PROC_RANK);
	rc |= load(pi, &n, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
	rc |= load(pi, &n, PMIX_APP_RANK, &r, PMIX_PROC_RANK);
	rc |= load(pi, &n, PMIX_APPNUM, &appnum, PMIX_UINT32);
	rc |= load(pi, &n, PMIX_APPLDR, &appldr, PMIX_PROC_RANK);
	rc |= load(pi, &n, PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
	rc |= load(pi, &n, PMIX_NODE_RANK, &lrank, PMIX_UINT16);
	rc |= load(pi, &n, PMIX_HOSTNAME, st->hosts[nodeid], PMIX_STRING);
	rc |= load(pi, &n, PMIX_NODEID, &nodeid, PMIX_UINT32);
	if (nodeid == st->si.nodeid && st->locality && st->locality[lrank])
		rc |= load(pi, &n, PMIX_LOCALITY_STRING, st->locality[lrank], PMIX_STRING);
	if (nodeid == st->si.nodeid && st->cpuset && st->cpuset[lrank])
		rc |= load(pi, &n, PMIX_CPUSET, st->cpuset[lrank], PMIX_STRING);
	da->size = n;
	if (!rc)
		rc = PMIx_Info_load(out, PMIX_PROC_DATA, da, PMIX_DATA_ARRAY) ? -1 : 0;
	PMIx_Data_array_free(da);
	return rc;
}

/* PMIX_NODE_INFO_ARRAY of node index `node`. */
static int node_info(const plug_step_t *st, uint32_t node, pmix_info_t *out)
{
	const plug_map_t *m = st->map;
	pmix_data_array_t *da = PMIx_Data_array_create(PLUG_NODE_KEYS, PMIX_INFO);
	uint32_t local = m->count[node];
	pmix_rank_t ldr = local ? m->ranks[m->first[node]] : 0;
	char *peers = peers_string(m, node);
	pmix_info_t *ni;
	size_t n = 0;
	int rc = 0;

	if (!da || !peers) {
		PMIx_Data_array_free(da);
		free(peers);
		return -1;
	}
	ni = da->array;
	rc |= load(ni, &n, PMIX_HOSTNAME, st->hosts[node], PMIX_STRING);
	rc |= load(ni, &n, PMIX_NODEID, &node, PMIX_UINT32);
	rc |= load(ni, &n, PMIX_LOCAL_SIZE, &local, PMIX_UINT32);
	rc |= load(ni, &n, PMIX_NODE_SIZE, &local, PMIX_UINT32);
	if (local) {
		rc |= load(ni, &n, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
		rc |= load(ni, &n, PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
	}
	da->size = n;
	if (!rc)
		rc = PMIx_Info_load(out, PMIX_NODE_INFO_ARRAY, da, PMIX_DATA_ARRAY) ? -1 : 0;
	da->size = PLUG_NODE_KEYS;
	PMIx_Data_array_free(da);
	free(peers);
	return rc;
}

int plug_nspace_info(const plug_step_t *st, pmix_info_t **info, size_t *ninfo)
{
	size_t cap = PLUG_JOB_KEYS + st->map->ntasks + st->map->nnodes, n = 0;
	pmix_info_t *in = PMIx_Info_create(cap);

	if (!in)
		return errno = ENOMEM, -1;
	if (job_info(st, in, &n) < 0)
		goto fail;
	for (pmix_rank_t r = 0; r < st->map->ntasks; r++, n++)
		if (proc_info(st, r, &in[n]) < 0)
			goto fail;
	for (uint32_t node = 0; node < st->map->nnodes; node++, n++)
		if (node_info(st, node, &in[n]) < 0)
			goto fail;
	*info = in;
	*ninfo = n;
	return 0;
fail:
	PMIx_Info_free(in, cap);
	return errno = ENOMEM, -1;
}
