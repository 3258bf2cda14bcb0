/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/coll.h - the host side of collectives across the step's nodes and
 * the job's steps: the server module's fence_nb, connect and disconnect,
 * over a tree of the participating step daemons (lib/tree.h), on the
 * transport (net/transport.h). Progress thread.
 */
#ifndef PLUG_NET_COLL_H
#define PLUG_NET_COLL_H

#include <stdbool.h>
#include <pmix_server.h>
#include "net/transport.h"

/* Fences, connects and disconnects (kind) over any proc set, also across
 * namespaces of other steps of the job. */
enum {
	PLUG_COLL_FENCE = 0,
	PLUG_COLL_CONNECT = 1,
	PLUG_COLL_DISCONNECT = 2,
	PLUG_COLL_GROUP = 3 /* net/group.c */
};
pmix_status_t plug_coll_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
				size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_coll_disconnect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
				   void *cbdata);

/* The server module's fence_nb. */
pmix_status_t plug_coll_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
			      void *cbdata);
/* A collective of kind that gathers every participant node's data
 * (concatenated, in tree order or, when optional, in arrival order) for
 * cbfunc, instances told apart by salt beside the proc set; optional: no
 * tree, participants that are gone are dropped (like an optional connect);
 * tmo: seconds, 0 for SlurmixTimeout. PMIX_SUCCESS (cbfunc runs once) or
 * an error (it does not). */
pmix_status_t plug_coll_gather(int kind, const pmix_proc_t procs[], size_t nprocs, int tmo,
			       bool optional, uint64_t salt, char *data, size_t ndata,
			       pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* Fails the pending fences that include rank (net/lost.h watches). */
void plug_coll_rank_lost(pmix_rank_t rank);
/* Takes FANIN/FANOUT from the network (before it starts) and watches
 * the lost ranks (net/lost.h); the step context (net/ctx.h) must be set.
 * 0/-1. */
int plug_coll_register(plug_net_t *n);

#endif
