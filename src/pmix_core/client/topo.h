/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.h - the process's cached hwloc topology (topo.c; its PMIx_* calls
 * are in the public headers): what the rest of the client library needs
 * of it.
 */
#ifndef PXC_CLIENT_TOPO_H
#define PXC_CLIENT_TOPO_H

/* Topology cache release (topo.c), called at the last finalize. Any
 * thread (takes the cache's lock). */
void pxc_topology_release(void);

#endif
