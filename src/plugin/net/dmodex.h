/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/dmodex.h - direct modex across nodes: the server module's
 * direct_modex, answered by the step daemon that owns the rank (the
 * process map; other steps' through net/xstep.h). Progress thread.
 */
#ifndef PLUG_NET_DMODEX_H
#define PLUG_NET_DMODEX_H

#include <pmix_server.h>
#include "net/transport.h"

/* The server module's direct_modex. */
pmix_status_t plug_dmodex_request(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* Takes DMODEX_REQ/RESP from the network (before it starts); the step
 * context (net/ctx.h) must be set. 0/-1. */
int plug_dmodex_register(plug_net_t *n);

#endif
