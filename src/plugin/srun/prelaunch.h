/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/prelaunch.h - the srun side of the plugin: before the launch,
 * compute the step's full process map from srun's step layout and put it,
 * with the step id, into the launch environment every slurmstepd receives
 * (SLURMIX_PROC_MAP, SLURMIX_STEP); register the features that answer
 * the step daemons (abort, publish, spawn) with srun's agent
 * (srun/agent.h) and start it. srun's main thread.
 */
#ifndef PLUG_SRUN_PRELAUNCH_H
#define PLUG_SRUN_PRELAUNCH_H

#include "slurm_adapter.h"

/* Returns a non-NULL token, or NULL (the launch fails) with a log line. */
plug_client_state_t *plug_srun_prelaunch(const plug_client_info_t *job, char ***env);
/* client_fini: ends the spawned children's sruns, then the agent.
 * Returns the exit code srun must use (srun/abort.h). */
int plug_srun_fini(void);

#endif
