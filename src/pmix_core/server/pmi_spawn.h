/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_spawn.h - a PMI spawn request as the apps of a PMIx spawn
 * (pmi_spawn.c): PMI-1's mcmd=spawn (one request per command, the last
 * one has spawnssofar == totspawns) and PMI-2's spawn (every command in
 * one request, each one's keys after its "subcmd"). The preput pairs (the
 * parent's port name MPICH's children connect back to) become environment
 * entries PXC_PMI_PREPUT_ENV_COUNT=n and PXC_PMI_PREPUT_ENV<i>=key=value,
 * which the server sets for the whole new job (PMIX_SET_ENVAR of the
 * spawn's job information); the host makes them job information of the
 * new namespace, which a PMI get answers from. No server state: any
 * thread.
 */
#ifndef PXC_SERVER_PMI_SPAWN_H
#define PXC_SERVER_PMI_SPAWN_H

#include <stddef.h>
#include <pmix_common.h>
#include "pmi_wire.h"

#define PXC_PMI_PREPUT_ENV_COUNT "SLURMIX_PMI_PREPUT_COUNT"
#define PXC_PMI_PREPUT_ENV "SLURMIX_PMI_PREPUT_" /* + index */
#define PXC_PMI_SPAWN_MAX_CMDS 64
#define PXC_PMI_SPAWN_MAX_ARGS 256
#define PXC_PMI_SPAWN_MAX_PREPUT 64
#define PXC_PMI_SPAWN_MAX_INFO 64
#define PXC_PMI_SPAWN_MAX_PROCS 65536

/* PMI-1: the app of one mcmd=spawn request into *app (constructed by the
 * caller), *total / *sofar (totspawns, spawnssofar) and the preput
 * entries appended to *preput (a PMIx argv, NULL at first). 0, or -1 with
 * a reason in *why (what app and *preput hold is the caller's to free:
 * PMIx_App_destruct, PMIx_Argv_free). */
int pxc_pmi_spawn_v1(const pxc_pmi_msg_t *m, pmix_app_t *app, long *total, long *sofar,
		     char ***preput, const char **why);
/* PMI-2: every app of a spawn request: *apps (PMIx_App_free(*apps, *n))
 * and *n, and the preput entries in *preput (NULL at first; PMIx_Argv_free).
 * 0, or -1 with *why (nothing allocated). */
int pxc_pmi_spawn_v2(const pxc_pmi_msg_t *m, pmix_app_t **apps, size_t *n, char ***preput,
		     const char **why);

#endif
