/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pset.h - the server's process sets (pset.c).
 */
#ifndef PXC_SRV_PSET_H
#define PXC_SRV_PSET_H

/* Frees every process set (finalize). Progress thread. */
void pxc_psets_free(void);

#endif
