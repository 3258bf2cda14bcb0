/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun_map_shim.c - stands in for a user who runs srun with a modified
 * environment-setting routine (srun runs as the user: LD_PRELOAD, a
 * private build, a private PluginDir all reach the launch environment).
 * Preloaded into srun, it replaces the value our srun side
 * (srun/prelaunch.c) gives SLURMIX_PROC_MAP with $SLURMIX_TEST_PROC_MAP, so
 * that the step daemons get a process map srun did not compute. Used by
 * run_cluster_tests.sh ("broken SLURMIX_PROC_MAP"). Only that variable
 * is touched; every other call goes to Slurm unchanged.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef int (*overwrite_f)(char ***env, const char *name, const char *value);

int slurm_env_array_overwrite(char ***env, const char *name, const char *value)
{
	overwrite_f real = (overwrite_f)dlsym(RTLD_NEXT, "slurm_env_array_overwrite");
	const char *fake = getenv("SLURMIX_TEST_PROC_MAP");

	if (fake && name && !strcmp(name, "SLURMIX_PROC_MAP"))
		value = fake;
	return real ? real(env, name, value) : 0;
}
