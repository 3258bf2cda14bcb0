/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/prelaunch.c - see srun/prelaunch.h. The map string can be long for large
 * arbitrary layouts; block, cyclic and plane layouts stay a few bytes per
 * node (lib/map.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/map.h"
#include "lib/proto.h"
#include "srun/abort.h"
#include "srun/alloc.h"
#include "srun/agent.h"
#include "srun/prelaunch.h"
#include "srun/pubdir.h"
#include "srun/log.h"
#include "srun/query.h"
#include "srun/spawn.h"
#include "srun/tools.h"

/* A spawned srun (SLURMIX_SPAWN_AGENT set by its parent srun, which is
 * alive and opened the job directory moments ago) skips the cleaning of
 * stale job directories: its slurm_load_job round trips would only delay
 * the new step. */
static bool spawned_srun(void)
{
	const char *parent = getenv(PLUG_SPAWN_AGENT_ENV);

	return parent && *parent;
}

/* The features that answer the step daemons through the agent register
 * before it starts; the agent itself knows none of them. 0/-1. */
static int register_features(uint32_t job)
{
	plug_pub_srun_init();
	plug_query_srun_init(job);
	plug_log_srun_init();
	plug_alloc_srun_init(job);
	if (plug_agent_on_table(plug_spawn_srun_warm) < 0 || plug_tools_srun_init() < 0)
		plug_error("cannot register the spawn warm-up or the tools");
	if (plug_abort_srun_init() < 0)
		return plug_error("cannot register the abort reports"), -1;
	if (plug_spawn_srun_init() < 0)
		plug_error("cannot register the spawn requests");
	return 0;
}

plug_client_state_t *plug_srun_prelaunch(const plug_client_info_t *job, char ***env)
{
	const slurm_step_layout_t *l = job ? job->step_layout : NULL;
	char id[32], *map;
	int rc;

	if (!l)
		return plug_error("srun gave no step layout"), NULL;
	if (job->het_job_id != NO_VAL && job->het_job_id != 0)
		return plug_error("heterogeneous steps are not supported yet"), NULL;
	map = plug_map_encode(l->node_cnt, l->tasks, l->tids);
	if (!map)
		return plug_error("cannot encode the layout of %u tasks on %u "
				  "nodes: %m",
				  l->task_cnt, l->node_cnt),
		       NULL;
	snprintf(id, sizeof(id), "%u.%u", job->step_id.job_id, job->step_id.step_id);
	rc = plug_env_set(env, PLUG_MAP_ENV, map) | plug_env_set(env, PLUG_STEP_ENV, id);
	plug_agent_set_step(l->node_list, map); /* for step.<stepid> */
	if (rc == 0 && (register_features(job->step_id.job_id) < 0 ||
			plug_agent_start(l->node_cnt, job->step_id.job_id, job->step_id.step_id,
					 !spawned_srun(), env) < 0 ||
			plug_spawn_srun_start(l->node_cnt, env) < 0)) {
		free(map);
		return plug_error("cannot start the rendezvous of the step daemons"), NULL;
	}
	plug_flag("step %s: %s=%s", id, PLUG_MAP_ENV, map);
	free(map);
	if (rc)
		return plug_error("cannot set the launch environment"), NULL;
	return (plug_client_state_t *)(uintptr_t)1; /* any non-NULL */
}

int plug_srun_fini(void)
{
	plug_spawn_srun_stop(); /* children first: they report to the agent */
	plug_alloc_srun_stop(); /* after the spawned steps: some ran in them */
	plug_tools_drain(3000);
	plug_query_srun_stop(); /* its worker first: nothing asked after */
	plug_agent_stop();
	return plug_abort_srun_status();
}
