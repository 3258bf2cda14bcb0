/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * locality.h - the server's hwloc topology (locality.c).
 */
#ifndef PXC_SRV_LOCALITY_H
#define PXC_SRV_LOCALITY_H

/* Destroys the topology the locality strings use (finalize, or before
 * the host's own replaces it). Any thread. */
void pxc_topo_free(void);

#endif
