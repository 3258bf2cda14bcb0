/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_srun.h - the srun side of the plugin: before the launch, compute the
 * step's full process map from srun's step layout and put it, with the
 * step id, into the launch environment every slurmstepd receives
 * (SLURMIX_PROC_MAP, SLURMIX_STEP), and start the rendezvous and abort
 * agent (plug_rdv.c). srun's main thread.
 */
#ifndef PLUG_SRUN_H
#define PLUG_SRUN_H

#include "slurm_adapter.h"

/* Returns a non-NULL token, or NULL (the launch fails) with a log line. */
plug_client_state_t *plug_srun_prelaunch(const plug_client_info_t *job, char ***env);

#endif
