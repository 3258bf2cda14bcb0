/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/lost.c - tasks that leave without finalizing (see stepd/abort.h):
 * the per-rank state of the step as this stepd knows it, the LOST flood
 * over the tree of all nodes, and the PMIx event to the local clients.
 *
 * The flood: the stepd that saw the connection drop sends LOST to its
 * parent and children in the tree of all nodes (plug_net_flood); every
 * stepd forwards it to its other neighbours the first time it hears of
 * the rank and ignores repeats, so each node learns it once, in about
 * log(nodes) hops. If a link of the tree is down, the nodes behind it
 * still see their fences fail through plug_coll's own failure paths.
 *
 * Threads: state[] is written in the progress thread only, allocated in
 * init (job manager thread, before the server starts) and freed in stop
 * (after the progress thread is gone).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "lib/tree.h"
#include "net/ctx.h"
#include "net/lost.h"
#include "net/transport.h"
#include "slurm_adapter.h"

enum { RANK_OK = 0, RANK_LOST = 1, RANK_ABORTED = 2 };

static struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	unsigned char *state;    /* [map->ntasks] */
	plug_lost_watch_f watch; /* told of every lost rank (net/coll.c) */
} lost;

int plug_lost_init(const char *nspace, const plug_map_t *map)
{
	snprintf(lost.nspace, sizeof(lost.nspace), "%s", nspace);
	lost.map = map;
	lost.state = calloc(map->ntasks, 1);
	return lost.state ? 0 : -1;
}

void plug_lost_stop(void)
{
	free(lost.state);
	memset(&lost, 0, sizeof(lost));
}

bool plug_lost_rank(pmix_rank_t rank)
{
	return lost.state && rank < lost.map->ntasks && lost.state[rank] == RANK_LOST;
}

bool plug_lost_any(const pmix_proc_t *procs, size_t n)
{
	for (size_t i = 0; lost.state && i < n; i++) {
		if (!PMIx_Check_nspace(procs[i].nspace, lost.nspace))
			continue;
		if (procs[i].rank != PMIX_RANK_WILDCARD) {
			if (plug_lost_rank(procs[i].rank))
				return true;
			continue;
		}
		if (memchr(lost.state, RANK_LOST, lost.map->ntasks))
			return true;
	}
	return false;
}

void plug_lost_aborted(pmix_rank_t rank)
{
	if (lost.state && rank < lost.map->ntasks)
		lost.state[rank] = RANK_ABORTED;
}

/* PMIX_ERR_PROC_TERM_WO_SYNC to the local clients of the namespace. */
static void notify(pmix_rank_t rank, pmix_status_t code)
{
	pmix_proc_t proc;
	pmix_info_t info;
	pmix_status_t st;

	PMIx_Load_procid(&proc, lost.nspace, rank);
	PMIx_Info_load(&info, PMIX_EVENT_AFFECTED_PROC, &proc, PMIX_PROC);
	st = PMIx_Notify_event(code, &proc, PMIX_RANGE_NAMESPACE, &info, 1, NULL, NULL);
	PMIx_Info_destruct(&info);
	if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
		plug_error("cannot notify the loss of rank %u: %s", rank, PMIx_Error_string(st));
}

/* First news of a lost rank (from a local drop or a neighbour). */
static void rank_lost(pmix_rank_t rank, pmix_status_t code, uint32_t from)
{
	pmix_data_buffer_t b;

	if (!lost.state || rank >= lost.map->ntasks || lost.state[rank] != RANK_OK)
		return;
	lost.state[rank] = RANK_LOST;
	if (from == PLUG_TREE_NONE)
		plug_info("rank %u of %s ended without finalizing", rank, lost.nspace);
	else
		plug_debug("rank %u of %s ended without finalizing (node %u says)", rank,
			   lost.nspace, from);
	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, rank) == PMIX_SUCCESS && pxc_pack_status(&b, code) == PMIX_SUCCESS)
		plug_net_flood(plug_net_ctx.net, PLUG_NET_LOST, from, &b);
	pxc_buf_clear(&b);
	if (lost.watch)
		lost.watch(rank);
	notify(rank, code);
}

void plug_lost_local(pmix_rank_t rank)
{
	rank_lost(rank, PMIX_ERR_PROC_TERM_WO_SYNC, PLUG_TREE_NONE);
}

static void lost_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t rank;
	pmix_status_t code;

	(void)arg, (void)h;
	if (pxc_unpack_u32(in, &rank) != PMIX_SUCCESS ||
	    pxc_unpack_status(in, &code) != PMIX_SUCCESS || !lost.map || rank >= lost.map->ntasks ||
	    code >= 0) {
		plug_error("malformed LOST message from node %u", from);
		return;
	}
	rank_lost(rank, code, from);
}

int plug_lost_register(plug_net_t *n)
{
	plug_net_user_t u = {
		.name = "lost ranks", .first = PLUG_NET_LOST, .last = PLUG_NET_LOST, .msg = lost_msg
	};

	return plug_net_register(n, &u);
}

void plug_lost_watch(plug_lost_watch_f fn)
{
	lost.watch = fn;
}
