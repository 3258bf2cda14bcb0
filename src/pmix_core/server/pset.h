/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pset.h - the server's process sets (pset.c).
 */
#ifndef PXC_SRV_PSET_H
#define PXC_SRV_PSET_H

#include <stddef.h>
#include <pmix_common.h>

/* Frees every process set (finalize). Progress thread. */
void pxc_psets_free(void);
/* Defines (or replaces) set name with a copy of members. Progress thread.
 * PMIX_SUCCESS or PMIX_ERR_NOMEM (the old set stays). */
pmix_status_t pxc_pset_put(const char *name, const pmix_proc_t *members, size_t n);
/* Deletes set name, if any. Progress thread. */
void pxc_pset_drop(const char *name);

#endif
