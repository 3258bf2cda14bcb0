/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/endpoints.h - the endpoint table of a step: where each of its step
 * daemons listens. The root daemon packs it (net/boot.c); it travels down
 * the tree (TABLE), to srun (STEPTABLE) and into the step file other
 * steps read (srun/agent.c, net/xstep.c). Format: n (UINT32), then n x
 * (STRING addr, UINT32 port). Slurm-free; any thread.
 */
#ifndef PLUG_LIB_ENDPOINTS_H
#define PLUG_LIB_ENDPOINTS_H

#include <stdint.h>
#include <pmix_common.h>

/* Packs n entries (addr[i], port[i]) into b. 0/-1. */
int plug_endpoints_pack(pmix_data_buffer_t *b, uint32_t n, char *const *addr, const uint32_t *port);

/* Unpacks a table of nnodes entries from in, checking each (an address
 * shorter than INET6_ADDRSTRLEN, a port in 1..65535), and hands each to
 * fn (NULL: check only), which may refuse it with -1. 0, or -1 when the
 * table is malformed or refused (fn may have taken the first entries). */
typedef int (*plug_endpoints_entry_f)(void *arg, uint32_t node, const char *addr, uint16_t port);
int plug_endpoints_unpack(pmix_data_buffer_t *in, uint32_t nnodes, plug_endpoints_entry_f fn,
			  void *arg);

#endif
