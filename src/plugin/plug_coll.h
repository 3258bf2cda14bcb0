/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_coll.h - the host side of fences and direct modex across the step's
 * nodes: the server module's fence_nb and direct_modex callbacks
 * (plug_coll.c, plug_dmdx.c), running over plug_net.c.
 */
#ifndef PLUG_COLL_H
#define PLUG_COLL_H

#include <pmix_server.h>
#include "plug_map.h"

/* What the collectives need from the step; set once in prefork before
 * the network starts, read-only afterwards. */
typedef struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	uint32_t me;
	uint32_t width;		/* TreeWidth */
	uint32_t timeout;	/* seconds */
} plug_coll_ctx_t;

extern plug_coll_ctx_t plug_coll_ctx;

pmix_status_t plug_coll_fence(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo,
			      char *data, size_t ndata,
			      pmix_modex_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_dmdx_request(const pmix_proc_t *proc,
				const pmix_info_t info[], size_t ninfo,
				pmix_modex_cbfunc_t cbfunc, void *cbdata);

#endif
