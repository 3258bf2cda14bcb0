/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/lost.h - tasks that leave without finalizing. A client whose
 * connection ends without PMIx_Finalize (a task killed by a signal, a
 * crash, an exit without finalizing) is lost for the whole step. Its stepd
 * floods LOST (rank, status) over the tree of all nodes; every stepd,
 * once per rank, fails the pending fences that include the rank
 * (PMIX_ERR_PROC_TERM_WO_SYNC, through the tree as usual: net/coll.c
 * watches) and
 * any later fence that includes it, and notifies its local clients with a
 * PMIX_ERR_PROC_TERM_WO_SYNC event (range namespace, source and
 * PMIX_EVENT_AFFECTED_PROC = the lost proc). A rank that called
 * PMIx_Abort is not announced (the step is being killed anyway).
 *
 * Lost step daemons: a peer of the step that the transport reports
 * unreachable without having said BYE is asked PING over a fresh
 * connection; reported again (nobody answers the connect), it is lost:
 * NODE_DOWN is flooded like LOST, every stepd marks the node's ranks
 * lost (fences fail) and raises one PMIX_EVENT_NODE_DOWN (PMIX_HOSTNAME,
 * PMIX_NODEID, PMIX_EVENT_AFFECTED_PROCS) at its clients.
 *
 * Progress thread, except plug_lost_init/_register/_stop (job manager
 * thread and plugin fini).
 */
#ifndef PLUG_NET_LOST_H
#define PLUG_NET_LOST_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "lib/map.h"
#include "net/transport.h"

/* Before the server runs (map borrowed until stop). */
int plug_lost_init(const char *nspace, const plug_map_t *map);
/* A local client's connection ended without PMIx_Finalize: lost with
 * PMIX_ERR_PROC_TERM_WO_SYNC, or, once its exit status is known (known,
 * wstatus as waitpid gives it), PMIX_ERR_PROC_ABORTED_BY_SIG for a signal
 * (PMIX_EXIT_CODE 128 + the signal) or PMIX_ERR_PROC_TERM_WO_SYNC with
 * PMIX_EXIT_CODE its exit code. */
void plug_lost_local(pmix_rank_t rank);
void plug_lost_local_status(pmix_rank_t rank, int known, int wstatus);
/* A local client called PMIx_Abort: never announce it as lost. */
void plug_lost_aborted(pmix_rank_t rank);
/* A PMIx_Abort(status) named these ranks of the step (valid ranks): each
 * is announced everywhere as PMIX_ERR_PROC_REQUESTED_ABORT with
 * PMIX_EXIT_CODE status, counts as lost for fences, and is killed by its
 * own node's stepd (SIGABRT without a core file, SIGKILL 3 s later if it
 * is still connected). */
void plug_lost_abort(const pmix_rank_t *ranks, size_t n, int status);
/* A local client connected: killed if it was aborted before. */
void plug_lost_connected(pmix_rank_t rank);
/* True when one of procs (of our namespace; WILDCARD: any) is lost. */
bool plug_lost_any(const pmix_proc_t *procs, size_t n);
/* True when rank is lost. */
bool plug_lost_rank(pmix_rank_t rank);
/* Job manager thread, after the progress thread stopped using it. */
void plug_lost_stop(void);

/* fn is told of every rank lost from now on (progress thread), before
 * the local clients hear of it; NULL: nobody. The fences' module watches
 * (net/coll.c), which fails the pending fences that include the rank.
 * Job manager thread, before the network starts; plug_lost_stop forgets
 * it. */
typedef void (*plug_lost_watch_f)(pmix_rank_t rank);
void plug_lost_watch(plug_lost_watch_f fn);
/* fn is told of every lost or aborted rank after its event went to the
 * local clients (code, exit code when has_exit; here: this stepd saw it
 * first, not a neighbour). The spawn family relays it (stepd/family.c).
 * Same threads and lifetime as plug_lost_watch. */
typedef void (*plug_lost_relay_f)(pmix_rank_t rank, pmix_status_t code, int32_t exit_code,
				  bool has_exit, bool here);
void plug_lost_relay(plug_lost_relay_f fn);
/* Takes LOST messages from the network (before it starts). 0/-1. */
int plug_lost_register(plug_net_t *n);

#endif
