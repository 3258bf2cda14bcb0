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
 * An aborted rank (PMIx_Abort naming ranks of the step, stepd/abort.c)
 * is flooded the same way with PMIX_ERR_PROC_REQUESTED_ABORT and its exit
 * code: every stepd treats it as lost (fences, event with
 * PMIX_EXIT_CODE), and its own node kills it (SIGABRT, then SIGKILL).
 *
 * Threads: state[] is written in the progress thread only, allocated in
 * init (job manager thread, before the server starts) and freed in stop
 * (after the progress thread is gone).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <sys/resource.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/map.h"
#include "lib/tree.h"
#include "net/ctx.h"
#include "net/lost.h"
#include "net/stepend.h"
#include "net/transport.h"
#include "slurm_adapter.h"

/* RANK_ABORTED: called PMIx_Abort for the whole step; RANK_KILLED:
 * aborted by a PMIx_Abort naming it (lost too, and killed). */
#define PLUG_ABORT_GRACE_MS 3000

enum { RANK_OK = 0, RANK_LOST = 1, RANK_ABORTED = 2, RANK_KILLED = 3 };

static struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	unsigned char *state;    /* [map->ntasks] */
	plug_lost_watch_f watch; /* told of every lost rank (net/coll.c) */
	plug_lost_relay_f relay; /* told after the event (stepd/family.c) */
	unsigned char *down;     /* [map->nnodes]: node known lost */
	unsigned char *probing;  /* [map->nnodes]: PING sent, no PONG yet */
} lost;

int plug_lost_init(const char *nspace, const plug_map_t *map)
{
	snprintf(lost.nspace, sizeof(lost.nspace), "%s", nspace);
	lost.map = map;
	lost.state = calloc(map->ntasks, 1);
	lost.down = calloc(map->nnodes, 1);
	lost.probing = calloc(map->nnodes, 1);
	return lost.state && lost.down && lost.probing ? 0 : -1;
}

void plug_lost_stop(void)
{
	free(lost.state);
	free(lost.down);
	free(lost.probing);
	memset(&lost, 0, sizeof(lost));
}

bool plug_lost_rank(pmix_rank_t rank)
{
	return lost.state && rank < lost.map->ntasks &&
	       (lost.state[rank] == RANK_LOST || lost.state[rank] == RANK_KILLED);
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
		if (memchr(lost.state, RANK_LOST, lost.map->ntasks) ||
		    memchr(lost.state, RANK_KILLED, lost.map->ntasks))
			return true;
	}
	return false;
}

void plug_lost_aborted(pmix_rank_t rank)
{
	if (lost.state && rank < lost.map->ntasks)
		lost.state[rank] = RANK_ABORTED;
}

/* Whether a LOST of code carries an exit code: always for an abort and a
 * signal, when it is known for an exit without finalizing. */
static bool code_has_exit(pmix_status_t code)
{
	return code == PMIX_ERR_PROC_REQUESTED_ABORT || code == PMIX_ERR_PROC_ABORTED_BY_SIG;
}

/* The event (PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_ABORTED_BY_SIG or
 * PMIX_ERR_PROC_REQUESTED_ABORT) to the local clients of the namespace,
 * with PMIX_PROC_TERM_STATUS, and PMIX_EXIT_CODE when known. */
static void notify(pmix_rank_t rank, pmix_status_t code, int32_t exit_code, bool has_exit)
{
	pmix_proc_t proc;
	pmix_info_t info[3];
	pmix_status_t st;
	size_t n = 2;

	PMIx_Load_procid(&proc, lost.nspace, rank);
	PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &proc, PMIX_PROC);
	PMIx_Info_load(&info[1], PMIX_PROC_TERM_STATUS, &code, PMIX_STATUS);
	if (has_exit) {
		int ec = exit_code;

		PMIx_Info_load(&info[n++], PMIX_EXIT_CODE, &ec, PMIX_INT);
	}
	st = PMIx_Notify_event(code, &proc, PMIX_RANGE_NAMESPACE, info, n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
	if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
		plug_error("cannot notify the loss of rank %u: %s", rank, PMIx_Error_string(st));
}

/* A rank aborted with SIGABRT that is still connected as the same
 * process after PLUG_ABORT_GRACE_MS (it caught the signal) gets SIGKILL. */
typedef struct escalate {
	struct escalate *next;
	struct event *ev;
	pmix_rank_t rank;
	pid_t pid;
} escalate_t;

static escalate_t *escalations;

static void escalate_free(escalate_t *e)
{
	for (escalate_t **p = &escalations; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	event_free(e->ev);
	free(e);
}

static void escalate_fire(int fd, short what, void *arg)
{
	escalate_t *e = arg;
	pmix_proc_t proc;

	(void)fd, (void)what;
	PMIx_Load_procid(&proc, lost.nspace, e->rank);
	if (pxc_server_client_pid(&proc) == e->pid && kill(e->pid, SIGKILL) == 0)
		plug_info("rank %u of %s outlived SIGABRT: killed", e->rank, lost.nspace);
	escalate_free(e);
}

static void escalate_later(pmix_rank_t rank, pid_t pid)
{
	struct timeval tv = { PLUG_ABORT_GRACE_MS / 1000, (PLUG_ABORT_GRACE_MS % 1000) * 1000 };
	struct event_base *base = plug_net_ctx.net ? plug_net_base(plug_net_ctx.net) : NULL;
	escalate_t *e = calloc(1, sizeof(*e));

	if (e && base && (e->ev = evtimer_new(base, escalate_fire, e)) &&
	    evtimer_add(e->ev, &tv) == 0) {
		e->rank = rank;
		e->pid = pid;
		e->next = escalations;
		escalations = e;
		return;
	}
	if (e && e->ev)
		event_free(e->ev);
	free(e);
	kill(pid, SIGKILL); /* no timer: no grace */
}

/* An aborted rank of this node: SIGABRT to its process (the one connected
 * as that client, SO_PEERCRED), without a core file, and SIGKILL if it
 * is still there after the grace; not connected yet: when it connects
 * (plug_lost_connected). Not SIGKILL first: srun drops the output still
 * on its way once a task of the step died of SIGKILL or SIGTERM, which
 * would cut off what the survivors print at their end. */
static void kill_local(pmix_rank_t rank)
{
	struct rlimit none = { 0, 0 };
	pmix_proc_t proc;
	pid_t pid;

	if (lost.map->node_of[rank] != plug_net_ctx.me)
		return;
	PMIx_Load_procid(&proc, lost.nspace, rank);
	pid = pxc_server_client_pid(&proc);
	if (pid <= 0) {
		plug_info("rank %u of %s aborted: not connected, killed when it connects", rank,
			  lost.nspace);
		return;
	}
	if (prlimit(pid, RLIMIT_CORE, &none, NULL) < 0)
		plug_debug("rank %u: no core-size limit set (%m)", rank);
	if (kill(pid, SIGABRT) == 0) {
		plug_info("rank %u of %s aborted: SIGABRT to pid %d", rank, lost.nspace, (int)pid);
		escalate_later(rank, pid);
	}
}

/* First news of a lost or aborted rank (from a local drop, a local abort
 * or a neighbour). */
static void rank_lost(pmix_rank_t rank, pmix_status_t code, int32_t exit_code, bool has_exit,
		      uint32_t from)
{
	bool aborted = code == PMIX_ERR_PROC_REQUESTED_ABORT;
	const char *how = aborted                              ? "is aborted" :
			  code == PMIX_ERR_PROC_ABORTED_BY_SIG ? "was killed by a signal" :
								 "ended without finalizing";
	pmix_data_buffer_t b;

	if (!lost.state || rank >= lost.map->ntasks || lost.state[rank] != RANK_OK)
		return;
	lost.state[rank] = aborted ? RANK_KILLED : RANK_LOST;
	if (from == PLUG_TREE_NONE)
		plug_info("rank %u of %s %s", rank, lost.nspace, how);
	else
		plug_debug("rank %u of %s %s (node %u says)", rank, lost.nspace, how, from);
	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, rank) == PMIX_SUCCESS && pxc_pack_status(&b, code) == PMIX_SUCCESS &&
	    (!has_exit || pxc_pack(&b, &exit_code, 1, PMIX_INT32) == PMIX_SUCCESS))
		plug_net_flood(plug_net_ctx.net, PLUG_NET_LOST, from, &b);
	pxc_buf_clear(&b);
	if (lost.watch)
		lost.watch(rank);
	notify(rank, code, exit_code, has_exit);
	if (lost.relay)
		lost.relay(rank, code, exit_code, has_exit, from == PLUG_TREE_NONE);
	if (aborted)
		kill_local(rank);
}

void plug_lost_local(pmix_rank_t rank)
{
	rank_lost(rank, PMIX_ERR_PROC_TERM_WO_SYNC, 0, false, PLUG_TREE_NONE);
}

void plug_lost_local_status(pmix_rank_t rank, int known, int wstatus)
{
	if (!known)
		plug_lost_local(rank);
	else if (WIFSIGNALED(wstatus))
		rank_lost(rank, PMIX_ERR_PROC_ABORTED_BY_SIG, 128 + WTERMSIG(wstatus), true,
			  PLUG_TREE_NONE);
	else
		rank_lost(rank, PMIX_ERR_PROC_TERM_WO_SYNC, WEXITSTATUS(wstatus), true,
			  PLUG_TREE_NONE);
}

void plug_lost_abort(const pmix_rank_t *ranks, size_t n, int status)
{
	for (size_t i = 0; i < n; i++)
		rank_lost(ranks[i], PMIX_ERR_PROC_REQUESTED_ABORT, status, true, PLUG_TREE_NONE);
}

void plug_lost_connected(pmix_rank_t rank)
{
	if (lost.state && rank < lost.map->ntasks && lost.state[rank] == RANK_KILLED)
		kill_local(rank);
}

static void lost_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t rank;
	pmix_status_t code;
	int32_t exit_code = 0, one = 1;
	bool has_exit;

	(void)arg, (void)h;
	if (pxc_unpack_u32(in, &rank) != PMIX_SUCCESS ||
	    pxc_unpack_status(in, &code) != PMIX_SUCCESS || !lost.map || rank >= lost.map->ntasks ||
	    code >= 0 ||
	    ((has_exit = code_has_exit(code) || pxc_buf_remaining(in) > 0) &&
	     pxc_unpack(in, &exit_code, &one, PMIX_INT32) != PMIX_SUCCESS)) {
		plug_error("malformed LOST message from node %u", from);
		return;
	}
	rank_lost(rank, code, exit_code, has_exit, from);
}

/* ---- lost step daemons ------------------------------------------------- */

/* PMIX_EVENT_NODE_DOWN to the local clients: the node's name and id, the
 * ranks it held (PMIX_EVENT_AFFECTED_PROCS). */
static void notify_node(uint32_t node)
{
	uint32_t n = lost.map->count[node], first = lost.map->first[node];
	pmix_proc_t src, *procs = calloc(n ? n : 1, sizeof(*procs));
	pmix_data_array_t da = { .type = PMIX_PROC, .size = n, .array = procs };
	const char *host = plug_net_ctx.hosts ? plug_net_ctx.hosts[node] : "";
	pmix_info_t info[3];
	pmix_status_t st;

	if (!procs)
		return;
	for (uint32_t i = 0; i < n; i++)
		PMIx_Load_procid(&procs[i], lost.nspace, lost.map->ranks[first + i]);
	PMIx_Load_procid(&src, lost.nspace, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info[0], PMIX_HOSTNAME, host, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_NODEID, &node, PMIX_UINT32);
	PMIx_Info_load(&info[2], PMIX_EVENT_AFFECTED_PROCS, &da, PMIX_DATA_ARRAY);
	st = PMIx_Notify_event(PMIX_EVENT_NODE_DOWN, &src, PMIX_RANGE_NAMESPACE, info, 3, NULL,
			       NULL);
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&info[i]);
	free(procs);
	if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
		plug_error("cannot notify the loss of node %u: %s", node, PMIx_Error_string(st));
}

/* First news of a lost step daemon (seen here, or from a neighbour): its
 * ranks are lost (fences that include them fail; no event each), the
 * clients get one PMIX_EVENT_NODE_DOWN, the news goes on over the tree. */
static void node_lost(uint32_t node, uint32_t from)
{
	pmix_data_buffer_t b;

	if (!lost.down || node >= lost.map->nnodes || node == plug_net_ctx.me || lost.down[node])
		return;
	lost.down[node] = 1;
	if (from == PLUG_TREE_NONE)
		plug_error("the step daemon of node %u (%s) is lost: its %u ranks with it", node,
			   plug_net_ctx.hosts ? plug_net_ctx.hosts[node] : "?",
			   lost.map->count[node]);
	else
		plug_debug("node %u is lost (node %u says)", node, from);
	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, node) == PMIX_SUCCESS)
		plug_net_flood(plug_net_ctx.net, PLUG_NET_NODE_DOWN, from, &b);
	pxc_buf_clear(&b);
	for (uint32_t i = 0; i < lost.map->count[node]; i++) {
		pmix_rank_t r = lost.map->ranks[lost.map->first[node] + i];

		if (lost.state[r] != RANK_OK)
			continue;
		lost.state[r] = RANK_LOST;
		if (lost.watch)
			lost.watch(r);
	}
	notify_node(node);
}

/* A peer of this step is unreachable. Said BYE: it ended, no loss; so
 * did a node whose tasks all ended (node 0 knows from its EXITS: its BYE
 * may still be on the way while its listener is already closed). A
 * closed connection proves little (a broken frame closes one too), so
 * the first time PING goes to it over a fresh connection: if that cannot
 * be made either (refused, timed out: the stepd is gone), the peer is
 * reported again and the node is lost; a PONG clears it. */
static void lost_peer(void *arg, uint32_t peer)
{
	(void)arg;
	if (!lost.map || peer >= lost.map->nnodes || plug_net_peer_ended(plug_net_ctx.net, peer) ||
	    plug_stepend_node_ended(peer) || lost.down[peer])
		return;
	if (lost.probing[peer] ||
	    plug_net_send(plug_net_ctx.net, peer, PLUG_NET_PING, 0, NULL) < 0) {
		node_lost(peer, PLUG_TREE_NONE);
		return;
	}
	lost.probing[peer] = 1;
	plug_debug("node %u: connection lost, asking whether it is there", peer);
}

static void node_down_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t node;

	(void)arg;
	if (h->cmd == PLUG_NET_PING) {
		plug_net_send(plug_net_ctx.net, from, PLUG_NET_PONG, 0, NULL);
		return;
	}
	if (h->cmd == PLUG_NET_PONG) {
		if (lost.map && from < lost.map->nnodes)
			lost.probing[from] = 0;
		return;
	}
	if (pxc_unpack_u32(in, &node) != PMIX_SUCCESS || !lost.map || node >= lost.map->nnodes ||
	    pxc_buf_remaining(in)) {
		plug_error("malformed NODE_DOWN message from node %u", from);
		return;
	}
	if (node == plug_net_ctx.me) {
		plug_error("node %u says this node is lost: ignored", from);
		return;
	}
	node_lost(node, from);
}

/* The network goes down: pending escalations are dropped (the step is
 * ending; Slurm kills what is left). */
static void lost_net_stop(void *arg)
{
	(void)arg;
	while (escalations)
		escalate_free(escalations);
}

int plug_lost_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "lost ranks",
			      .first = PLUG_NET_LOST,
			      .last = PLUG_NET_LOST,
			      .msg = lost_msg,
			      .stop = lost_net_stop };
	plug_net_user_t d = { .name = "lost nodes",
			      .first = PLUG_NET_NODE_DOWN,
			      .last = PLUG_NET_PONG,
			      .msg = node_down_msg,
			      .peer_lost = lost_peer };

	return plug_net_register(n, &u) < 0 || plug_net_register(n, &d) < 0 ? -1 : 0;
}

void plug_lost_watch(plug_lost_watch_f fn)
{
	lost.watch = fn;
}

void plug_lost_relay(plug_lost_relay_f fn)
{
	lost.relay = fn;
}
