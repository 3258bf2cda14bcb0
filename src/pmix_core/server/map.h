/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * map.h - what register_nspace derives from the host's info when the host
 * left it implicit (map.c): node ids, hostnames, the local node's keys.
 * Progress thread only (the store is its own).
 */
#ifndef PXC_SERVER_MAP_H
#define PXC_SERVER_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* Node id of host in ns (from its node records); with create, the next
 * free id when unknown, else UINT32_MAX. */
uint32_t pxc_map_node_id(const char *ns, const char *host, bool create);
/* Derives implicit records after a registration (see map.c). */
void pxc_map_derive(const char *ns);

#endif
