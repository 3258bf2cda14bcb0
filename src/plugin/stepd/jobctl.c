/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobctl.c - see stepd/jobctl.h; the rules are in docs/jobctl.md.
 *
 * A request names ranks of steps of the job (no targets: all of the
 * caller's; WILDCARD: all of a step), whose nodes come from net/xstep.h
 * for the other steps. The caller's node signals its own targets at once
 * and sends each other node of targets, of any step, one JOBCTL (signal,
 * grace, ranks: of the receiver's step), which that node answers with
 * JOBCTL_ACK (status: PMIX_SUCCESS,
 * or PMIX_ERR_NOT_FOUND when a named rank is not running there); the call
 * answers when every node did (a lost node: PMIX_ERR_UNREACH). A signal
 * goes to the task itself through its pidfd (stepd/reap.c), never to its
 * process group: Slurm puts every task of a node into one group (that of
 * the node's first task), so a group signal would reach the task's
 * neighbours. TERMINATE is SIGTERM, then, after Slurm's KillWait, SIGKILL
 * to those of the same tasks still running.
 * Trust: JOBCTL is taken from this step's nodes and from other steps'
 * step daemons (the job key vouches for them), for this node's own ranks;
 * JOBCTL_ACK only from a peer asked. Every client of this server is the
 * job's user or root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "net/ctx.h"
#include "lib/util.h"
#include "net/xstep.h"
#include "stepd/reap.h"
#include "stepd/jobctl.h"
#include "slurm_adapter.h"

#define JC_ALL UINT32_MAX  /* JOBCTL: every rank of the node */
#define JC_DONE UINT32_MAX /* an asked peer that answered */

typedef struct op {
	struct op *next;
	uint32_t id;
	uint32_t waiting; /* parts not answered (with this call's own) */
	uint32_t *peers;  /* the peers asked (JC_DONE once answered) */
	size_t npeers, cap;
	int sig;
	uint32_t grace; /* ms, then SIGKILL */
	pmix_proc_t *targets;
	size_t nt;
	pmix_status_t st;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
} op_t;

/* SIGKILL due after a TERMINATE's grace. */
typedef struct late {
	struct late *next;
	struct event *ev;
	uint32_t *ranks;
	size_t n;
} late_t;

static struct {
	plug_net_t *net;
	op_t *ops;
	late_t *lates;
	uint32_t next_id;
	bool stopped;
} jc;

/* ---- signalling this node's tasks --------------------------------------- */

/* sig to the task of rank through its pidfd (the task's own: never a
 * process that took a recycled pid). 0, or -1 (not running here). */
static int send_signal(uint32_t rank, int sig)
{
	int fd = plug_reap_pidfd(rank);

	return fd >= 0 && syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0 ? 0 : -1;
}

static void late_free(late_t *l)
{
	for (late_t **p = &jc.lates; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	if (l->ev)
		event_free(l->ev);
	free(l->ranks);
	free(l);
}

static void late_kill(evutil_socket_t fd, short what, void *arg)
{
	late_t *l = arg;

	(void)fd, (void)what;
	for (size_t i = 0; i < l->n; i++)
		send_signal(l->ranks[i], SIGKILL); /* those still there */
	late_free(l);
}

/* Signals this node's ranks[0..n) (JC_ALL as the only rank: all of them);
 * with grace_ms, SIGKILL to them that long later. PMIX_SUCCESS, or
 * PMIX_ERR_NOT_FOUND when a named rank is not a running task here. */
static pmix_status_t signal_here(int sig, uint32_t grace_ms, const uint32_t *ranks, uint32_t n)
{
	const plug_map_t *m = plug_net_ctx.map;
	uint32_t me = plug_net_ctx.me;
	bool every = n == 1 && ranks[0] == JC_ALL;
	size_t cap = every ? m->count[me] : n, k = 0;
	uint32_t *hit = calloc(cap ? cap : 1, sizeof(*hit));
	pmix_status_t st = PMIX_SUCCESS;

	if (!hit)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < cap; i++) {
		uint32_t r = every ? m->ranks[m->first[me] + i] : ranks[i];

		if (send_signal(r, sig) == 0)
			hit[k++] = r;
		else if (!every)
			st = PMIX_ERR_NOT_FOUND;
	}
	if (grace_ms && k) {
		late_t *l = calloc(1, sizeof(*l));
		struct timeval tv = { grace_ms / 1000, (grace_ms % 1000) * 1000 };

		if (l && (l->ev = evtimer_new(plug_net_base(jc.net), late_kill, l)) &&
		    evtimer_add(l->ev, &tv) == 0) {
			l->ranks = hit;
			l->n = k;
			l->next = jc.lates;
			jc.lates = l;
			return st;
		}
		if (l && l->ev)
			event_free(l->ev);
		free(l);
		for (size_t i = 0; i < k; i++) /* no timer: no grace */
			send_signal(hit[i], SIGKILL);
	}
	free(hit);
	return st;
}

/* ---- requests ------------------------------------------------------------ */

static op_t *op_find(uint32_t id)
{
	for (op_t *o = jc.ops; o; o = o->next)
		if (o->id == id)
			return o;
	return NULL;
}

static void op_done(op_t *o)
{
	for (op_t **p = &jc.ops; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	o->cbfunc(o->st, NULL, 0, o->cbdata, NULL, NULL);
	free(o->peers);
	free(o->targets);
	free(o);
}

static void part_done(op_t *o, pmix_status_t st)
{
	if (st != PMIX_SUCCESS && o->st == PMIX_SUCCESS)
		o->st = st;
	if (--o->waiting == 0)
		op_done(o);
}

/* What a directive asks. 0 with *sig (and *grace_ms), or an error. */
static pmix_status_t action(const pmix_info_t *d, size_t n, int *sig, uint32_t *grace_ms)
{
	int found = 0;

	*sig = 0;
	*grace_ms = 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = d[i].key;

		if (PMIx_Check_key(k, PMIX_JOB_CTRL_SIGNAL)) {
			if (d[i].value.type != PMIX_INT && d[i].value.type != PMIX_INT32)
				return PMIX_ERR_BAD_PARAM;
			*sig = d[i].value.data.integer;
			if (*sig <= 0 || *sig >= NSIG)
				return PMIX_ERR_BAD_PARAM;
			found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_KILL) && pxc_info_flag(&d[i], 1, k)) {
			*sig = SIGKILL, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_TERMINATE) &&
			   pxc_info_flag(&d[i], 1, k)) {
			*sig = SIGTERM, found++;
			*grace_ms = (plug_slurm_kill_wait() ? plug_slurm_kill_wait() : 30) * 1000;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_PAUSE) && pxc_info_flag(&d[i], 1, k)) {
			*sig = SIGSTOP, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_RESUME) && pxc_info_flag(&d[i], 1, k)) {
			*sig = SIGCONT, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_ID) || PMIx_Check_key(k, PMIX_TIMEOUT)) {
			continue;
		} else if (!strncmp(k, "pmix.jctrl.", 11) || (d[i].flags & PMIX_INFO_REQD)) {
			/* a directive we know and do not do (preemption, checkpoints,
			 * cancel, restart, provisioning), or any required one we do
			 * not know: never a silent success */
			return PMIX_ERR_NOT_SUPPORTED;
		}
	}
	return found == 1 ? PMIX_SUCCESS : found ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_SUPPORTED;
}

/* Sends one node's part (its ranks) to peer, awaiting its answer. */
static pmix_status_t send_part(op_t *o, const char *nspace, uint32_t peer, const uint32_t *ranks,
			       uint32_t n)
{
	pmix_data_buffer_t b;
	int32_t s = o->sig;
	uint32_t *g;
	bool ok;

	if (o->npeers == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 8;

		if (!(g = realloc(o->peers, cap * sizeof(*g))))
			return PMIX_ERR_NOMEM;
		o->peers = g;
		o->cap = cap;
	}
	pxc_buf_init(&b);
	ok = pxc_pack_str(&b, nspace) == PMIX_SUCCESS &&
	     pxc_pack(&b, &s, 1, PMIX_INT32) == PMIX_SUCCESS &&
	     pxc_pack_u32(&b, o->grace) == PMIX_SUCCESS && pxc_pack_u32(&b, n) == PMIX_SUCCESS;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = pxc_pack_u32(&b, ranks[i]) == PMIX_SUCCESS;
	ok = ok && plug_net_send(jc.net, peer, PLUG_NET_JOBCTL, o->id, &b) == 0;
	pxc_buf_clear(&b);
	if (!ok)
		return PMIX_ERR_UNREACH;
	o->peers[o->npeers++] = peer;
	o->waiting++;
	return PMIX_SUCCESS;
}

/* The targets of o in the step of nspace: each node holding some gets its
 * ranks (JC_ALL for all of its). The status of this node's own part, or
 * of a part that could not go. */
static pmix_status_t step_parts(op_t *o, const char *nspace)
{
	const plug_map_t *m;
	const uint32_t *peer;
	uint32_t *ranks, all_one = JC_ALL;
	unsigned char *want;
	bool all = false;
	pmix_status_t st = PMIX_SUCCESS, ps;

	if (!plug_xstep_route(nspace, &m, &peer)) {
		plug_debug("job control: %s is no known step of this job", nspace);
		return PMIX_ERR_NOT_FOUND;
	}
	want = calloc(m->ntasks ? m->ntasks : 1, 1);
	ranks = calloc(m->ntasks ? m->ntasks : 1, sizeof(*ranks));
	for (size_t i = 0; want && ranks && i < o->nt; i++) {
		if (!PMIx_Check_nspace(o->targets[i].nspace, nspace))
			continue;
		if (o->targets[i].rank == PMIX_RANK_WILDCARD)
			all = true;
		else if (o->targets[i].rank < m->ntasks)
			want[o->targets[i].rank] = 1;
		else
			st = PMIX_ERR_BAD_PARAM;
	}
	for (uint32_t node = 0; want && ranks && st == PMIX_SUCCESS && node < m->nnodes; node++) {
		uint32_t n = 0;

		for (uint32_t k = 0; !all && k < m->count[node]; k++) {
			uint32_t r = m->ranks[m->first[node] + k];

			if (want[r])
				ranks[n++] = r;
		}
		if (!all && !n)
			continue;
		if (all && !m->count[node])
			continue;
		if (!peer && node == plug_net_ctx.me)
			ps = signal_here(o->sig, o->grace, all ? &all_one : ranks, all ? 1 : n);
		else
			ps = send_part(o, nspace, peer ? peer[node] : node, all ? &all_one : ranks,
				       all ? 1 : n);
		if (ps != PMIX_SUCCESS)
			st = ps;
	}
	if (!want || !ranks)
		st = PMIX_ERR_NOMEM;
	free(want);
	free(ranks);
	return st;
}

/* Whether every target is a rank of a known step: nothing is signalled
 * unless all are. */
static pmix_status_t check(const op_t *o)
{
	for (size_t i = 0; i < o->nt; i++) {
		const plug_map_t *m;
		const uint32_t *peer;

		if (!plug_xstep_route(o->targets[i].nspace, &m, &peer))
			return PMIX_ERR_NOT_FOUND;
		if (o->targets[i].rank != PMIX_RANK_WILDCARD && o->targets[i].rank >= m->ntasks)
			return PMIX_ERR_BAD_PARAM;
	}
	return PMIX_SUCCESS;
}

/* Every step's parts; then o answers once all did. */
static void dispatch(op_t *o)
{
	pmix_status_t st = check(o);

	for (size_t i = 0; st == PMIX_SUCCESS && i < o->nt; i++) {
		bool seen = false;
		pmix_status_t ps;

		for (size_t j = 0; j < i && !seen; j++)
			seen = PMIx_Check_nspace(o->targets[j].nspace, o->targets[i].nspace);
		if (!seen && (ps = step_parts(o, o->targets[i].nspace)) != PMIX_SUCCESS &&
		    st == PMIX_SUCCESS)
			st = ps;
	}
	part_done(o, st); /* this call's own part */
}

/* The other steps of o's targets are known (or cannot be). */
static void steps_known(pmix_status_t st, void *arg)
{
	op_t *o = op_find((uint32_t)(uintptr_t)arg);

	if (!o)
		return; /* ended meanwhile (the network stopped) */
	if (st != PMIX_SUCCESS)
		plug_debug("job control: another step's table: %s", PMIx_Error_string(st));
	dispatch(o); /* unknown steps answer PMIX_ERR_NOT_FOUND */
}

pmix_status_t plug_jobctl_host(const pmix_proc_t *requestor, const pmix_proc_t targets[],
			       size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	pmix_status_t st;
	uint32_t grace;
	op_t *o;
	int rc, sig;

	if (!jc.net || jc.stopped || !plug_net_ctx.map)
		return PMIX_ERR_NOT_AVAILABLE;
	if (!ntargets && strcmp(requestor->nspace, plug_net_ctx.nspace))
		return PMIX_ERR_BAD_PARAM; /* a tool names its targets */
	for (size_t i = 0; i < ntargets; i++)
		if (!PMIx_Check_nspace(targets[i].nspace, plug_net_ctx.nspace) &&
		    !plug_nspace_same_job(targets[i].nspace, plug_net_ctx.nspace))
			return PMIX_ERR_NOT_SUPPORTED; /* outside the allocation */
	if ((st = action(directives, ndirs, &sig, &grace)) != PMIX_SUCCESS)
		return st;
	if (!(o = calloc(1, sizeof(*o))) ||
	    !(o->targets = calloc(ntargets ? ntargets : 1, sizeof(*o->targets)))) {
		free(o);
		return PMIX_ERR_NOMEM;
	}
	o->sig = sig;
	o->grace = grace;
	if (ntargets) {
		memcpy(o->targets, targets, ntargets * sizeof(*targets));
		o->nt = ntargets;
	} else {
		PMIx_Load_procid(&o->targets[0], plug_net_ctx.nspace, PMIX_RANK_WILDCARD);
		o->nt = 1;
	}
	o->id = ++jc.next_id ? jc.next_id : ++jc.next_id;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	o->waiting = 1; /* this call's own part */
	o->next = jc.ops;
	jc.ops = o;
	plug_flag("job control: signal %d to %zu target(s) of %s:%u", o->sig, o->nt,
		  requestor->nspace, requestor->rank);
	rc = plug_xstep_need(o->targets, o->nt, steps_known, (void *)(uintptr_t)o->id);
	if (rc != 0)
		dispatch(o); /* known (1), or not to be had (< 0): dispatch tells */
	return PMIX_SUCCESS;
}

/* ---- the transport's callbacks ------------------------------------------ */

static void jobctl_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	int32_t sig = 0, one = 1;
	uint32_t grace = 0, n = 0, *ranks = NULL;
	pmix_status_t st = PMIX_SUCCESS;
	pmix_data_buffer_t b;
	char *ns = NULL;

	if (pxc_unpack_str(in, &ns) != PMIX_SUCCESS || !ns ||
	    !PMIx_Check_nspace(ns, plug_net_ctx.nspace)) {
		/* another step's (a stale route to a step that ended) */
		st = ns ? PMIX_ERR_NOT_FOUND : PMIX_ERR_BAD_PARAM;
		if (!ns)
			plug_error("job control: a broken request from node %u: refused", from);
		free(ns);
		pxc_buf_init(&b);
		if (pxc_pack_status(&b, st) == PMIX_SUCCESS)
			plug_net_send(jc.net, from, PLUG_NET_JOBCTL_ACK, tag, &b);
		pxc_buf_clear(&b);
		return;
	}
	free(ns);
	if (pxc_unpack(in, &sig, &one, PMIX_INT32) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &grace) != PMIX_SUCCESS || pxc_unpack_u32(in, &n) != PMIX_SUCCESS ||
	    n == 0 || n > pxc_buf_remaining(in) || sig <= 0 || sig >= NSIG || grace > 3600000 ||
	    !(ranks = calloc(n, sizeof(*ranks))))
		st = PMIX_ERR_BAD_PARAM;
	for (uint32_t i = 0; st == PMIX_SUCCESS && i < n; i++)
		if (pxc_unpack_u32(in, &ranks[i]) != PMIX_SUCCESS ||
		    (ranks[i] != JC_ALL &&
		     (ranks[i] >= plug_net_ctx.map->ntasks ||
		      plug_net_ctx.map->node_of[ranks[i]] != plug_net_ctx.me)))
			st = PMIX_ERR_BAD_PARAM;
	if (st == PMIX_SUCCESS)
		st = signal_here(sig, grace, ranks, n);
	else
		plug_error("job control: a broken request from node %u: refused", from);
	free(ranks);
	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) == PMIX_SUCCESS)
		plug_net_send(jc.net, from, PLUG_NET_JOBCTL_ACK, tag, &b);
	pxc_buf_clear(&b);
}

static void ack_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	op_t *o = op_find(tag);
	pmix_status_t st;

	for (size_t k = 0; o && k < o->npeers; k++)
		if (o->peers[k] == from) {
			if (pxc_unpack_status(in, &st) != PMIX_SUCCESS)
				st = PMIX_ERR_UNPACK_FAILURE;
			o->peers[k] = JC_DONE;
			part_done(o, st);
			return;
		}
	plug_debug("job control: peer %u answers request %u, which waits for no answer of it", from,
		   tag);
}

/* JOBCTL from this step's other nodes and from other steps' step daemons
 * (the job key vouches for them: a parent signals its children), for
 * this node's own ranks only; JOBCTL_ACK only from a peer asked. */
static void jc_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	(void)arg;
	if (jc.stopped || from == plug_net_ctx.me)
		return;
	if (h->cmd == PLUG_NET_JOBCTL)
		jobctl_in(from, h->tag, in);
	else
		ack_in(from, h->tag, in);
}

static void jc_peer_lost(void *arg, uint32_t peer)
{
	(void)arg;
	for (op_t *o = jc.ops, *next; o; o = next) {
		next = o->next; /* (o may be answered and freed) */
		for (size_t k = 0; k < o->npeers; k++)
			if (o->peers[k] == peer) {
				o->peers[k] = JC_DONE;
				part_done(o, PMIX_ERR_UNREACH);
				break;
			}
	}
}

static void jc_stop(void *arg)
{
	(void)arg;
	jc.stopped = true;
	while (jc.ops) {
		jc.ops->st = PMIX_ERR_UNREACH;
		op_done(jc.ops);
	}
	while (jc.lates)
		late_kill(-1, 0, jc.lates); /* the grace ends with the step */
}

int plug_jobctl_net_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "job control",
			      .first = PLUG_NET_JOBCTL,
			      .last = PLUG_NET_JOBCTL_ACK,
			      .msg = jc_msg,
			      .peer_lost = jc_peer_lost,
			      .stop = jc_stop };

	memset(&jc, 0, sizeof(jc));
	jc.net = n;
	return plug_net_register(n, &u);
}
