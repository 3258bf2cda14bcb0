/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/nspace.h - the info array a step daemon registers for its step's
 * namespace (job, node and per-proc data, stepd/nspace.c).
 */
#ifndef PLUG_STEPD_NSPACE_H
#define PLUG_STEPD_NSPACE_H

#include <stddef.h>
#include <pmix_common.h>
#include "stepd/step.h"

/* The namespace's info array for PMIx_server_register_nspace. Returns 0
 * or -1 (ENOMEM). Job manager thread. */
int plug_nspace_info(const plug_step_t *st, pmix_info_t **info, size_t *ninfo);

#endif
