/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/spawn_plan.h - from a PMIx_Spawn request (job info and apps) to the
 * command line and environment of the srun that starts the new step
 * (srun/spawn.c runs it). Slurm-free; unit-tested in
 * tests/unit/test_plugin_spawn.c.
 */
#ifndef PLUG_LIB_SPAWN_PLAN_H
#define PLUG_LIB_SPAWN_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

typedef struct {
	const char *srun;   /* the srun binary to exec */
	uint32_t job;       /* allocation */
	char **alloc;       /* its nodes, in order, NULL-terminated */
	bool overlap;       /* SlurmixSpawnOverlap */
	const char *mpfile; /* path for a --multi-prog file (napps > 1) */
	char **env;         /* base environment (the parent srun's) */
	/* where the parent srun puts its step's output (lib/srun_io.h):
	 * its --output and --error patterns (NULL: its own stdout/stderr)
	 * and --label */
	const char *out, *err;
	bool label;
} plug_spawn_ctx_t;

typedef struct {
	char **argv;     /* the child srun's argv (NULL-terminated) */
	char **env;      /* its whole environment */
	char *multiprog; /* contents of ctx->mpfile, or NULL */
	uint32_t ntasks;
	uint32_t timeout; /* seconds; 0: the default */
	bool notify;      /* PMIX_NOTIFY_COMPLETION */
	bool nonpmi;      /* PMIX_NON_PMI */
	bool child_sep;   /* PMIX_SPAWN_CHILD_SEP: not ended with its parent */
	char err[256];    /* why, when the plan failed */
} plug_spawn_plan_t;

/* Builds the plan for a request. PMIX_SUCCESS, or an error status with
 * plan->err set and nothing allocated: PMIX_ERR_NOT_SUPPORTED (a required
 * attribute we cannot honour), PMIX_ERR_BAD_PARAM (malformed request),
 * PMIX_ERR_JOB_FAILED_TO_MAP (a node outside the allocation, nowhere to
 * run). Any thread. */
pmix_status_t plug_spawn_plan(const plug_spawn_ctx_t *ctx, const pmix_info_t *info, size_t ninfo,
			      const pmix_app_t *apps, size_t napps, plug_spawn_plan_t *plan);
/* Frees what a successful plan holds. NULL-safe. */
void plug_spawn_plan_free(plug_spawn_plan_t *plan);
/* The attributes a spawn honours (PMIX_QUERY_SPAWN_SUPPORT), a comma
 * list to free(); NULL on ENOMEM. */
char *plug_spawn_supported(void);

#endif
