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
#include <unistd.h>
#include <pmix_server.h>

#include "lib/map.h"
#include "stepd/nspace.h"
#include "stepd/step.h"

#define PLUG_JOB_KEYS 30
#define PLUG_PROC_KEYS 13
#define PLUG_NODE_KEYS 8
#define PLUG_APP_KEYS 6

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

/* list[0..n) joined with sep, malloc()ed; NULL on ENOMEM or a NULL item. */
static char *join(char *const *list, size_t n, char sep)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < n; i++) {
		if (!list[i])
			return NULL;
		len += strlen(list[i]) + 1;
	}
	if (!(s = p = malloc(len)))
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? (char[]){ sep, 0 } : "", list[i]);
	return s;
}

/* PMIX_LOCAL_CPUSETS: the local ranks' CPU lists ("0-3", PMIX_CPUSET
 * without its "hwloc:" source) joined with ':'; NULL when one is
 * unknown. */
static char *cpusets(char *const *cpuset, size_t n)
{
	char **bare = calloc(n ? n : 1, sizeof(*bare)), *s;

	if (!bare)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *c = cpuset[i];

		if (c && !strncmp(c, "hwloc:", 6))
			c += 6;
		bare[i] = (char *)c;
	}
	s = join(bare, n, ':');
	free(bare);
	return s;
}

/* This node's physical memory in bytes, 0 unknown. */
static uint64_t phys_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* This host's own names that differ from Slurm's node name, comma list
 * (its hostname, and that without the domain), or NULL. */
static char *aliases(const char *node)
{
	char host[256], *dot, *list = NULL;

	if (gethostname(host, sizeof(host) - 1) < 0)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	if (strcmp(host, node) && asprintf(&list, "%s", host) < 0)
		list = NULL;
	if ((dot = strchr(host, '.'))) {
		char *more = NULL;

		*dot = '\0';
		if (strcmp(host, node) &&
		    asprintf(&more, "%s%s%s", list ? list : "", list ? "," : "", host) >= 0) {
			free(list);
			list = more;
		}
	}
	return list;
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
	uint32_t local = m->count[node], zero = 0, one = 1, session = st->si.step_id.job_id;
	pmix_rank_t ldr = m->ranks[m->first[node]];
	bool spawned = st->spawned, yes = true;
	char *peers = peers_string(m, node), *nodes = join(st->hosts, nnodes, ',');
	char *alloc = st->job_hosts ? join(st->job_hosts, st->job_nhosts, ',') : NULL;
	char *cpus = st->cpuset ? cpusets(st->cpuset, local) : NULL;
	char *anl = plug_map_anl(m); /* PMI_process_mapping (server/pmi.c) */
	uint64_t mem = phys_memory();
	int rc = 0;

	if (!peers || !nodes || !anl) {
		free(anl);
		free(peers);
		free(nodes);
		free(alloc);
		free(cpus);
		return -1;
	}
	rc |= load(info, n, PMIX_JOBID, st->nspace, PMIX_STRING);
	rc |= load(info, n, PMIX_NSPACE, st->nspace, PMIX_STRING);
	rc |= load(info, n, PMIX_SESSION_ID, &session, PMIX_UINT32);
	rc |= load(info, n, PMIX_NODE_LIST, nodes, PMIX_STRING);
	rc |= load(info, n, PMIX_ANL_MAP, anl, PMIX_STRING);
	if (alloc) {
		rc |= load(info, n, PMIX_ALLOCATED_NODELIST, alloc, PMIX_STRING);
		rc |= load(info, n, PMIX_NUM_ALLOCATED_NODES, &st->job_nhosts, PMIX_UINT32);
	}
	if (cpus)
		rc |= load(info, n, PMIX_LOCAL_CPUSETS, cpus, PMIX_STRING);
	if (mem)
		rc |= load(info, n, PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
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
	if (st->si.cwd) /* one app: its directory is the job's */
		rc |= load(info, n, PMIX_WDIR, st->si.cwd, PMIX_STRING);
	free(anl);
	free(peers);
	free(nodes);
	free(alloc);
	free(cpus);
	return rc ? -1 : 0;
}

/* PMIX_APP_INFO_ARRAY of the one app (Slurm's step, --multi-prog
 * included, is one app). */
static int app_info(const plug_step_t *st, pmix_info_t *out)
{
	pmix_data_array_t *da = PMIx_Data_array_create(PLUG_APP_KEYS, PMIX_INFO);
	uint32_t appnum = 0, size = st->map->ntasks;
	pmix_rank_t ldr = 0;
	size_t n = 0;
	int rc = 0;
	/* PMIX_APP_ARGV: the command line, words joined by spaces */
	char *argv = st->si.argc ? join(st->si.argv, st->si.argc, ' ') : NULL;

	if (!da) {
		free(argv);
		return -1;
	}
	rc |= load(da->array, &n, PMIX_APPNUM, &appnum, PMIX_UINT32);
	rc |= load(da->array, &n, PMIX_APP_SIZE, &size, PMIX_UINT32);
	rc |= load(da->array, &n, PMIX_APPLDR, &ldr, PMIX_PROC_RANK);
	rc |= load(da->array, &n, PMIX_MAX_PROCS, &size, PMIX_UINT32);
	if (st->si.cwd)
		rc |= load(da->array, &n, PMIX_WDIR, st->si.cwd, PMIX_STRING);
	if (argv)
		rc |= load(da->array, &n, PMIX_APP_ARGV, argv, PMIX_STRING);
	free(argv);
	da->size = n;
	if (!rc)
		rc = PMIx_Info_load(out, PMIX_APP_INFO_ARRAY, da, PMIX_DATA_ARRAY) ? -1 : 0;
	PMIx_Data_array_free(da);
	return rc;
}

/* PMIX_PROC_DATA of one rank; PMIX_RANK must come first. */
static int proc_info(const plug_step_t *st, pmix_rank_t r, pmix_info_t *out)
{
	const plug_map_t *m = st->map;
	pmix_data_array_t *da = PMIx_Data_array_create(PLUG_PROC_KEYS, PMIX_INFO);
	pmix_info_t *pi;
	uint32_t nodeid = m->node_of[r], appnum = 0, zero = 0;
	pmix_proc_t self;
	uint16_t lrank = (uint16_t)plug_map_local_rank(m, r);
	pmix_rank_t appldr = 0;
	size_t n = 0;
	int rc = 0;

	if (!da)
		return -1;
	pi = da->array;
	PMIx_Load_procid(&self, st->nspace, r);
	rc |= load(pi, &n, PMIX_RANK, &r, PMIX_PROC_RANK);
	rc |= load(pi, &n, PMIX_PROCID, &self, PMIX_PROC);
	rc |= load(pi, &n, PMIX_REINCARNATION, &zero, PMIX_UINT32);
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
	char *peers = peers_string(m, node), *alias = NULL;
	uint64_t mem = 0;
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
	/* known of this node only */
	if (node == st->si.nodeid && (mem = phys_memory()))
		rc |= load(ni, &n, PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
	if (node == st->si.nodeid && (alias = aliases(st->hosts[node])))
		rc |= load(ni, &n, PMIX_HOSTNAME_ALIASES, alias, PMIX_STRING);
	free(alias);
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
	size_t cap = PLUG_JOB_KEYS + 1 + st->npreput + st->map->ntasks + st->map->nnodes, n = 0;
	pmix_info_t *in = PMIx_Info_create(cap);

	if (!in)
		return errno = ENOMEM, -1;
	if (job_info(st, in, &n) < 0 || app_info(st, &in[n++]) < 0)
		goto fail;
	for (size_t i = 0; i < st->npreput; i++) { /* "key=value", checked at prefork */
		const char *eq = strchr(st->preput[i], '=');
		char key[PMIX_MAX_KEYLEN + 1];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - st->preput[i]), st->preput[i]);
		if (PMIx_Info_load(&in[n++], key, eq + 1, PMIX_STRING) != PMIX_SUCCESS)
			goto fail;
	}
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
