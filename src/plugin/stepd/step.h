/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/step.h - the step as slurmstepd's PMIx host sees it, and the steps
 * of its life: prefork (start the server, register the namespace and the
 * local clients, prepare each task's environment), task (copy that
 * environment into the forked task), fini (stop the server, remove the
 * step's directory).
 *
 * One plug_step_t per slurmstepd (one step per stepd), created in prefork
 * by the job manager thread, read-only afterwards until fini. The task hook
 * runs in the forked child and only reads what prefork prepared.
 */
#ifndef PLUG_STEP_H
#define PLUG_STEP_H

#include <pmix_common.h>
#include "lib/map.h"
#include "slurm_adapter.h"

typedef struct {
	char nspace[PMIX_MAX_NSLEN + 1]; /* slurmix.<jobid>.<stepid> */
	plug_stepd_info_t si;
	plug_map_t *map;
	char **hosts;     /* [map->nnodes] node names, step order */
	char **job_hosts; /* the allocation's nodes (SLURM_JOB_NODELIST), or NULL */
	uint32_t job_nhosts;
	char *dir;        /* <tmpdir>/slurmix.<job>.<step>.<nodeid>, root 0755 */
	char *cltdir;     /* <dir>/job, the user's, 0700: PMIX_TMPDIR */
	char *topo_xml;   /* hwloc XML v2 of this node, or NULL */
	void *topo;       /* its hwloc_topology_t, or NULL */
	char **locality;  /* [si.node_tasks] PMIX_LOCALITY_STRING, or NULL */
	char **cpuset;    /* [si.node_tasks] PMIX_CPUSET, or NULL */
	char ***task_env; /* [si.node_tasks] "K=V" lists for the tasks */
	char *ld_path;    /* LD_LIBRARY_PATH for the tasks, or NULL */
	int *pmi_fd;      /* [si.node_tasks] the tasks' PMI_FD ends, or -1 */
	char **preput;    /* PMI spawn's preput "key=value" pairs, NULL-ended */
	size_t npreput;
	bool dir_made; /* dir is ours to remove */
	bool server_up;
	bool boot_started;  /* the endpoint exchange (net/boot.h) */
	bool spawned;       /* started by PMIx_Spawn (srun/spawn.h) */
	pmix_proc_t parent; /* then: the proc that spawned it */
} plug_step_t;

/* slurmstepd hooks; Slurm return codes (0 / -1). */
int plug_step_prefork(const plug_stepd_rec_t *job, char ***env);
int plug_step_task(const plug_task_info_t *task, char ***env);
/* Idempotent; called from the plugin's fini(). */
void plug_step_fini(void);

#endif
