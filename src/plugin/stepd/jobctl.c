/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobctl.c - see stepd/jobctl.h; the rules are in docs/jobctl.md.
 *
 * A request names ranks of the caller's step (no targets: all of it;
 * WILDCARD: all of it). The caller's node signals its own targets at
 * once and sends each other node of targets one JOBCTL (signal, grace,
 * ranks), which that node answers with JOBCTL_ACK (status: PMIX_SUCCESS,
 * or PMIX_ERR_NOT_FOUND when a named rank is not running there); the call
 * answers when every node did (a lost node: PMIX_ERR_UNREACH). A signal
 * goes to the task itself through its pidfd (stepd/reap.c), never to its
 * process group: Slurm puts every task of a node into one group (that of
 * the node's first task), so a group signal would reach the task's
 * neighbours. TERMINATE is SIGTERM, then, after Slurm's KillWait, SIGKILL
 * to those of the same tasks still running.
 * Trust: JOBCTL is taken from this step's nodes only; every client of
 * this server is the job's user or root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
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
#include "stepd/reap.h"
#include "stepd/jobctl.h"
#include "slurm_adapter.h"

#define JC_ALL UINT32_MAX /* JOBCTL: every rank of the node */

typedef struct op {
	struct op *next;
	uint32_t id;
	uint32_t waiting; /* nodes that have not answered (with this one's part) */
	uint8_t *asked;   /* [nnodes]: waits for that node's answer */
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
	free(o->asked);
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

/* The nodes of the targets: per node, its ranks (JC_ALL: all of it). */
static pmix_status_t plan(const pmix_proc_t *req, const pmix_proc_t *t, size_t nt, uint32_t **ranks,
			  uint32_t *count)
{
	const plug_map_t *m = plug_net_ctx.map;
	bool all = !t || !nt;

	for (size_t i = 0; i < nt; i++) {
		if (strcmp(t[i].nspace, plug_net_ctx.nspace))
			return PMIX_ERR_NOT_SUPPORTED; /* another step: not yet */
		if (t[i].rank == PMIX_RANK_WILDCARD)
			all = true;
		else if (t[i].rank >= m->ntasks)
			return PMIX_ERR_BAD_PARAM;
	}
	if (strcmp(req->nspace, plug_net_ctx.nspace) && all && !nt)
		return PMIX_ERR_BAD_PARAM; /* a tool names its targets */
	for (uint32_t node = 0; all && node < m->nnodes; node++) {
		if (!m->count[node])
			continue;
		if (!(ranks[node] = malloc(sizeof(uint32_t))))
			return PMIX_ERR_NOMEM;
		ranks[node][0] = JC_ALL;
		count[node] = 1;
	}
	for (size_t i = 0; !all && i < nt; i++) {
		uint32_t node = m->node_of[t[i].rank];
		uint32_t *g = realloc(ranks[node], (count[node] + 1) * sizeof(*g));

		if (!g)
			return PMIX_ERR_NOMEM;
		ranks[node] = g;
		g[count[node]++] = t[i].rank;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t dispatch(op_t *o, int sig, uint32_t grace, uint32_t **ranks, uint32_t *count)
{
	const plug_map_t *m = plug_net_ctx.map;
	pmix_status_t here = PMIX_SUCCESS;

	for (uint32_t node = 0; node < m->nnodes; node++) {
		pmix_data_buffer_t b;
		int32_t s = sig;
		bool sent = true;

		if (!count[node])
			continue;
		if (node == plug_net_ctx.me) {
			here = signal_here(sig, grace, ranks[node], count[node]);
			continue;
		}
		pxc_buf_init(&b);
		sent = pxc_pack(&b, &s, 1, PMIX_INT32) == PMIX_SUCCESS &&
		       pxc_pack_u32(&b, grace) == PMIX_SUCCESS &&
		       pxc_pack_u32(&b, count[node]) == PMIX_SUCCESS;
		for (uint32_t i = 0; sent && i < count[node]; i++)
			sent = pxc_pack_u32(&b, ranks[node][i]) == PMIX_SUCCESS;
		sent = sent && plug_net_send(jc.net, node, PLUG_NET_JOBCTL, o->id, &b) == 0;
		pxc_buf_clear(&b);
		if (sent) {
			o->asked[node] = 1;
			o->waiting++;
		} else if (o->st == PMIX_SUCCESS) {
			o->st = PMIX_ERR_UNREACH;
		}
	}
	return here;
}

pmix_status_t plug_jobctl_host(const pmix_proc_t *requestor, const pmix_proc_t targets[],
			       size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const plug_map_t *m = plug_net_ctx.map;
	uint32_t **ranks, *count, grace;
	pmix_status_t st;
	op_t *o;
	int sig;

	if (!jc.net || jc.stopped || !m)
		return PMIX_ERR_NOT_AVAILABLE;
	if ((st = action(directives, ndirs, &sig, &grace)) != PMIX_SUCCESS)
		return st;
	ranks = calloc(m->nnodes, sizeof(*ranks));
	count = calloc(m->nnodes, sizeof(*count));
	o = calloc(1, sizeof(*o));
	if (o)
		o->asked = calloc(m->nnodes, 1);
	st = !ranks || !count || !o || !o->asked ? PMIX_ERR_NOMEM :
						   plan(requestor, targets, ntargets, ranks, count);
	if (st == PMIX_SUCCESS) {
		o->id = ++jc.next_id;
		o->cbfunc = cbfunc;
		o->cbdata = cbdata;
		o->waiting = 1; /* this call's own part */
		o->next = jc.ops;
		jc.ops = o;
		plug_flag("job control: signal %d to %zu target(s) of %s:%u", sig, ntargets,
			  requestor->nspace, requestor->rank);
		part_done(o, dispatch(o, sig, grace, ranks, count));
		o = NULL; /* answered (now or with the last node's answer) */
	}
	for (uint32_t node = 0; ranks && node < m->nnodes; node++)
		free(ranks[node]);
	free(ranks);
	free(count);
	if (o)
		free(o->asked);
	free(o);
	return st;
}

/* ---- the transport's callbacks ------------------------------------------ */

static void jobctl_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	int32_t sig = 0, one = 1;
	uint32_t grace = 0, n = 0, *ranks = NULL;
	pmix_status_t st = PMIX_SUCCESS;
	pmix_data_buffer_t b;

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

	if (!o || from >= plug_net_ctx.map->nnodes || !o->asked[from]) {
		plug_debug(
			"job control: node %u answers request %u, which waits for no answer of it",
			from, tag);
		return;
	}
	if (pxc_unpack_status(in, &st) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	o->asked[from] = 0;
	part_done(o, st);
}

static void jc_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	(void)arg;
	if (jc.stopped || from >= plug_net_ctx.map->nnodes || from == plug_net_ctx.me)
		return; /* this step's nodes only */
	if (h->cmd == PLUG_NET_JOBCTL)
		jobctl_in(from, h->tag, in);
	else
		ack_in(from, h->tag, in);
}

static void jc_peer_lost(void *arg, uint32_t peer)
{
	(void)arg;
	for (op_t *o = jc.ops, *next; o; o = next) {
		next = o->next;
		if (peer < plug_net_ctx.map->nnodes && o->asked[peer]) {
			o->asked[peer] = 0;
			part_done(o, PMIX_ERR_UNREACH);
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
