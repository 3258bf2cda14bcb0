/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_slurmix.c - the symbols Slurm's plugin loader looks up in an mpi
 * plugin, and nothing else: each forwards to the file that does the work
 * (common/conf.c: mpi.conf; srun/prelaunch.c: srun side; stepd/step.c: slurmstepd
 * side). The version script mpi_slurmix.map exports exactly these.
 *
 * Who calls what (every supported series, 22.05-26.05): slurmd and slurmctld load every mpi plugin
 * at start-up (init, conf_*); srun calls client_prelaunch/client_fini;
 * slurmstepd calls prefork in the job manager thread, task in each forked
 * task, and fini at step cleanup. init() starts nothing.
 */
#include <stdint.h>

#include "common/conf.h"
#include "srun/prelaunch.h"
#include "stepd/step.h"
#include "slurm_adapter.h"

/* Not in Slurm's enum (101-107 in 22.05, 108 added in 25.05.x/25.11): ours. */
#define PLUG_MPI_PLUGIN_ID 120

PLUG_EXPORT const char plugin_name[] = "slurmix PMIx plugin";
PLUG_EXPORT const char plugin_type[] = "mpi/slurmix";
PLUG_EXPORT const uint32_t plugin_id = PLUG_MPI_PLUGIN_ID;
PLUG_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

PLUG_EXPORT int init(void)
{
	plug_conf_reset();
	plug_debug("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

/* Slurm's loader calls fini as void (*)(void) in every series. */
PLUG_EXPORT void fini(void)
{
	plug_step_fini();
	plug_conf_reset();
}

PLUG_EXPORT int mpi_p_slurmstepd_prefork(const plug_stepd_rec_t *job, char ***env)
{
	return plug_step_prefork(job, env) ? SLURM_ERROR : SLURM_SUCCESS;
}

PLUG_EXPORT int mpi_p_slurmstepd_task(const plug_task_info_t *job, char ***env)
{
	return plug_step_task(job, env) ? SLURM_ERROR : SLURM_SUCCESS;
}

PLUG_EXPORT plug_client_state_t *mpi_p_client_prelaunch(const plug_client_info_t *job, char ***env)
{
	plug_conf_env(NULL);
	return plug_srun_prelaunch(job, env);
}

/* The status of a PMIx_Abort, if any, becomes srun's exit code. */
PLUG_EXPORT int mpi_p_client_fini(plug_client_state_t *state)
{
	(void)state;
	return plug_srun_fini();
}

PLUG_EXPORT void mpi_p_conf_options(s_p_options_t **full_options, int *full_opt_cnt)
{
	plug_conf_options(full_options, full_opt_cnt);
}

PLUG_EXPORT void mpi_p_conf_set(s_p_hashtbl_t *tbl)
{
	plug_conf_set(tbl);
}

PLUG_EXPORT s_p_hashtbl_t *mpi_p_conf_get(void)
{
	return plug_conf_get();
}

PLUG_EXPORT plug_list_t mpi_p_conf_get_printable(void)
{
	return plug_conf_printable();
}
