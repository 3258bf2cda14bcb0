/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/ctx.h - what the network's features (fences, direct modex, lost
 * ranks, events, other steps) need from the step: its namespace, process
 * map, this node, TreeWidth, the timeout, and the transport. Set once by
 * the step daemon's setup (stepd/step.c) before the network starts,
 * read-only afterwards, cleared at step end.
 */
#ifndef PLUG_NET_CTX_H
#define PLUG_NET_CTX_H

#include <stdint.h>
#include <pmix_common.h>
#include "lib/map.h"
#include "net/transport.h"

typedef struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	uint32_t me;        /* this node's index */
	uint32_t width;     /* TreeWidth */
	uint32_t timeout;   /* seconds (SlurmixTimeout) */
	const char *host;   /* this node's name (borrowed from the step) */
	char *const *hosts; /* every node's name, by index (borrowed) */
	plug_net_t *net;    /* the transport, NULL until created */
} plug_net_ctx_t;

extern plug_net_ctx_t plug_net_ctx;

#endif
