/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobctl.c - see stepd/jobctl.h; the rules are in docs/jobctl.md.
 *
 * A request names ranks of steps of the job (no targets: all of the
 * caller's; WILDCARD: all of a step), whose nodes come from net/xstep.h
 * for the other steps. The caller's node acts on its own targets at once
 * (stepd/jobact.c) and sends each other node of targets, of any step, one
 * JOBCTL (the action, ranks: of the receiver's step), which that node
 * answers with JOBCTL_ACK once its part is done (status: PMIX_SUCCESS, or
 * jobact.h's failures); the call answers when every node did (a lost
 * node: PMIX_ERR_UNREACH). A cancel succeeds when some node cancelled
 * something. PMIX_JOB_CTRL_CHECKPOINT_METHOD is recorded here at once,
 * for the requestor only (its step daemon is the one that acts on it).
 * Trust: JOBCTL is taken from this step's nodes and from other steps'
 * step daemons (the job key vouches for them), for this node's own ranks;
 * JOBCTL_ACK only from a peer asked. Every client of this server is the
 * job's user or root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "net/ctx.h"
#include "lib/util.h"
#include "net/xstep.h"
#include "common/conf.h"
#include "stepd/jobact.h"
#include "stepd/jobctl.h"
#include "slurm_adapter.h"

#define JC_DONE UINT32_MAX /* an asked peer that answered */

typedef struct op {
	struct op *next;
	uint32_t id;
	uint32_t waiting; /* parts not answered (with this call's own) */
	uint32_t *peers;  /* the peers asked (JC_DONE once answered) */
	size_t npeers, cap;
	plug_ja_t act; /* label and ckpt owned */
	pmix_proc_t *targets;
	size_t nt;
	pmix_status_t st;
	bool any_ok; /* a cancel: some node cancelled something */
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
} op_t;

static struct {
	plug_net_t *net;
	op_t *ops;
	uint32_t next_id;
	bool stopped;
} jc;

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
	if (o->act.kind == PLUG_JA_CANCEL && o->any_ok)
		o->st = PMIX_SUCCESS; /* cancelled somewhere */
	o->cbfunc(o->st, NULL, 0, o->cbdata, NULL, NULL);
	free((char *)o->act.label);
	free((char *)o->act.ckpt);
	free(o->peers);
	free(o->targets);
	free(o);
}

static void part_done(op_t *o, pmix_status_t st)
{
	if (st == PMIX_SUCCESS)
		o->any_ok = true;
	else if (o->st == PMIX_SUCCESS)
		o->st = st;
	if (--o->waiting == 0)
		op_done(o);
}

/* This node's own part of the request of that id is done. */
static void local_done(pmix_status_t st, void *arg)
{
	op_t *o = op_find((uint32_t)(uintptr_t)arg);

	if (o)
		part_done(o, st);
}

/* A string directive's value: 0 with *out (NULL for none) copied, or -1. */
static int take_str(const pmix_info_t *d, char **out)
{
	if (d->value.type != PMIX_STRING)
		return -1;
	free(*out);
	*out = NULL;
	if (d->value.data.string && !(*out = strdup(d->value.data.string)))
		return -1;
	return 0;
}

/* The handlers' longest wait: SlurmixEventTimeout, and half the call's
 * PMIX_TIMEOUT when it has one (so that the answer is in time). */
static uint32_t wait_ms(const pmix_info_t *d, size_t n, int secs)
{
	uint32_t ms = plug_conf.event_timeout * 1000;
	const pmix_info_t *t = pxc_info_find(d, n, PMIX_TIMEOUT);

	if (secs > 0 && (uint32_t)secs <= 3600)
		ms = (uint32_t)secs * 1000;
	if (t && (t->value.type == PMIX_INT || t->value.type == PMIX_INT32) &&
	    t->value.data.integer > 0 && (uint32_t)t->value.data.integer * 500 < ms)
		ms = (uint32_t)t->value.data.integer * 500;
	return ms ? ms : 1000;
}

/* What the directives ask, into a (label and ckpt malloc()ed): exactly
 * one action. *method: the PMIX_JOB_CTRL_CHECKPOINT_METHOD registration
 * instead. PMIX_SUCCESS, or the refusal. */
static pmix_status_t action(const pmix_info_t *d, size_t n, plug_ja_t *a,
			    const pmix_info_t **method)
{
	int found = 0, ckpt_secs = 0;
	bool ckpt_timeout = false;

	memset(a, 0, sizeof(*a));
	*method = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *k = d[i].key;

		if (PMIx_Check_key(k, PMIX_JOB_CTRL_SIGNAL)) {
			if (d[i].value.type != PMIX_INT && d[i].value.type != PMIX_INT32)
				return PMIX_ERR_BAD_PARAM;
			a->sig = d[i].value.data.integer;
			if (a->sig <= 0 || a->sig >= NSIG)
				return PMIX_ERR_BAD_PARAM;
			found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_KILL) && pxc_info_flag(&d[i], 1, k)) {
			a->sig = SIGKILL, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_TERMINATE) &&
			   pxc_info_flag(&d[i], 1, k)) {
			a->sig = SIGTERM, found++;
			a->grace_ms = (plug_slurm_kill_wait() ? plug_slurm_kill_wait() : 30) * 1000;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_PAUSE) && pxc_info_flag(&d[i], 1, k)) {
			a->kind = PLUG_JA_PAUSE, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_RESUME) && pxc_info_flag(&d[i], 1, k)) {
			a->sig = SIGCONT, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_CHECKPOINT)) {
			if (take_str(&d[i], (char **)&a->ckpt) < 0)
				return PMIX_ERR_BAD_PARAM;
			a->kind = PLUG_JA_CKPT, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT)) {
			/* (the same key as _CHECKPOINT_SIGNAL, which only a method has) */
			if ((d[i].value.type != PMIX_INT && d[i].value.type != PMIX_INT32) ||
			    d[i].value.data.integer <= 0 || d[i].value.data.integer > 3600)
				return PMIX_ERR_BAD_PARAM;
			ckpt_secs = d[i].value.data.integer;
			ckpt_timeout = true;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_CHECKPOINT_METHOD)) {
			*method = &d[i], found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_CANCEL)) {
			if (take_str(&d[i], (char **)&a->label) < 0)
				return PMIX_ERR_BAD_PARAM;
			a->kind = PLUG_JA_CANCEL, found++;
		} else if (PMIx_Check_key(k, PMIX_JOB_CTRL_ID)) {
			if (d[i].value.type != PMIX_STRING)
				return PMIX_ERR_BAD_PARAM;
		} else if (PMIx_Check_key(k, PMIX_TIMEOUT)) {
			continue;
		} else if (!strncmp(k, "pmix.jctrl.", 11) || (d[i].flags & PMIX_INFO_REQD)) {
			/* a directive we know and do not do (preemption, restart,
			 * provisioning), or any required one we do not know: never
			 * a silent success */
			return PMIX_ERR_NOT_SUPPORTED;
		}
	}
	if (found != 1 || (ckpt_timeout && a->kind != PLUG_JA_CKPT))
		return found ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_SUPPORTED;
	if (a->kind == PLUG_JA_PAUSE || a->kind == PLUG_JA_CKPT)
		a->wait_ms = wait_ms(d, n, ckpt_secs);
	if (a->kind != PLUG_JA_CANCEL) { /* (a cancel's label is what it cancels) */
		const pmix_info_t *id = pxc_info_find(d, n, PMIX_JOB_CTRL_ID);

		if (id && take_str(id, (char **)&a->label) < 0)
			return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

/* Sends one node's part (its ranks) to peer, awaiting its answer. The
 * message: STRING nspace, INT32 sig, UINT32 grace, UINT32 n, n x UINT32
 * rank, then UINT8 kind, PROC requestor, STRING label, UINT32 wait,
 * STRING ckpt (lib/proto.h). */
static pmix_status_t send_part(op_t *o, const char *nspace, uint32_t peer, const uint32_t *ranks,
			       uint32_t n)
{
	pmix_data_buffer_t b;
	int32_t s = o->act.sig;
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
	     pxc_pack_u32(&b, o->act.grace_ms) == PMIX_SUCCESS &&
	     pxc_pack_u32(&b, n) == PMIX_SUCCESS;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = pxc_pack_u32(&b, ranks[i]) == PMIX_SUCCESS;
	ok = ok && pxc_pack(&b, &o->act.kind, 1, PMIX_UINT8) == PMIX_SUCCESS &&
	     pxc_pack_proc(&b, &o->act.requestor) == PMIX_SUCCESS &&
	     pxc_pack_str(&b, o->act.label) == PMIX_SUCCESS &&
	     pxc_pack_u32(&b, o->act.wait_ms) == PMIX_SUCCESS &&
	     pxc_pack_str(&b, o->act.ckpt) == PMIX_SUCCESS;
	ok = ok && plug_net_send(jc.net, peer, PLUG_NET_JOBCTL, o->id, &b) == 0;
	pxc_buf_clear(&b);
	if (!ok)
		return PMIX_ERR_UNREACH;
	o->peers[o->npeers++] = peer;
	o->waiting++;
	return PMIX_SUCCESS;
}

/* The targets of o in the step of nspace: each node holding some gets its
 * ranks (PLUG_JA_ALL for all of its). The status of a part that could
 * not go (this node's own answers later, through local_done). */
static pmix_status_t step_parts(op_t *o, const char *nspace)
{
	const plug_map_t *m;
	const uint32_t *peer;
	uint32_t *ranks, all_one = PLUG_JA_ALL;
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
		if (!peer && node == plug_net_ctx.me) {
			o->waiting++;
			plug_ja_run(&o->act, all ? &all_one : ranks, all ? 1 : n, local_done,
				    (void *)(uintptr_t)o->id);
			continue;
		}
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
	if (st != PMIX_SUCCESS) {
		o->any_ok = false; /* a cancel that could not reach all is no success */
		o->st = st;
	}
	if (--o->waiting == 0) /* this call's own part */
		op_done(o);
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

/* PMIX_JOB_CTRL_CHECKPOINT_METHOD: the requestor's own, no other target. */
static pmix_status_t register_method(const pmix_proc_t *requestor, const pmix_proc_t *targets,
				     size_t nt, const pmix_info_t *method)
{
	if (!PMIx_Check_nspace(requestor->nspace, plug_net_ctx.nspace) ||
	    requestor->rank >= plug_net_ctx.map->ntasks ||
	    plug_net_ctx.map->node_of[requestor->rank] != plug_net_ctx.me ||
	    (nt && (nt > 1 || !PMIx_Check_nspace(targets[0].nspace, requestor->nspace) ||
		    targets[0].rank != requestor->rank)))
		return PMIX_ERR_BAD_PARAM;
	return plug_ja_ckpt_register(requestor->rank, method);
}

pmix_status_t plug_jobctl_host(const pmix_proc_t *requestor, const pmix_proc_t targets[],
			       size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_info_t *method;
	pmix_status_t st;
	plug_ja_t act;
	op_t *o;
	int rc;

	if (!jc.net || jc.stopped || !plug_net_ctx.map)
		return PMIX_ERR_NOT_AVAILABLE;
	if (!ntargets && strcmp(requestor->nspace, plug_net_ctx.nspace))
		return PMIX_ERR_BAD_PARAM; /* a tool names its targets */
	for (size_t i = 0; i < ntargets; i++)
		if (!PMIx_Check_nspace(targets[i].nspace, plug_net_ctx.nspace) &&
		    !plug_nspace_same_job(targets[i].nspace, plug_net_ctx.nspace))
			return PMIX_ERR_NOT_SUPPORTED; /* outside the allocation */
	if ((st = action(directives, ndirs, &act, &method)) != PMIX_SUCCESS || method) {
		if (st == PMIX_SUCCESS)
			st = register_method(requestor, targets, ntargets, method);
		free((char *)act.label);
		free((char *)act.ckpt);
		return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
	}
	if (!(o = calloc(1, sizeof(*o))) ||
	    !(o->targets = calloc(ntargets ? ntargets : 1, sizeof(*o->targets)))) {
		free((char *)act.label);
		free((char *)act.ckpt);
		free(o);
		return PMIX_ERR_NOMEM;
	}
	o->act = act;
	o->act.requestor = *requestor;
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
	plug_flag("job control: action %u (signal %d) to %zu target(s) of %s:%u",
		  (unsigned)o->act.kind, o->act.sig, o->nt, requestor->nspace, requestor->rank);
	rc = plug_xstep_need(o->targets, o->nt, steps_known, (void *)(uintptr_t)o->id);
	if (rc != 0)
		dispatch(o); /* known (1), or not to be had (< 0): dispatch tells */
	return PMIX_SUCCESS;
}

/* ---- the transport's callbacks ------------------------------------------ */

/* Where a JOBCTL's answer goes. */
typedef struct {
	uint32_t from, tag;
} reply_t;

static void send_ack(uint32_t to, uint32_t tag, pmix_status_t st)
{
	pmix_data_buffer_t b;

	if (jc.stopped)
		return;
	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) == PMIX_SUCCESS)
		plug_net_send(jc.net, to, PLUG_NET_JOBCTL_ACK, tag, &b);
	pxc_buf_clear(&b);
}

static void remote_done(pmix_status_t st, void *arg)
{
	reply_t *r = arg;

	send_ack(r->from, r->tag, st);
	free(r);
}

/* The part after the ranks (absent: a plain signal, as before it had
 * one). 0, or -1 when it is broken. */
static int unpack_trailer(pmix_data_buffer_t *in, plug_ja_t *a)
{
	int32_t one = 1;
	char *label = NULL, *ckpt = NULL;

	if (!pxc_buf_remaining(in))
		return 0;
	if (pxc_unpack(in, &a->kind, &one, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_unpack_proc(in, &a->requestor) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &label) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &a->wait_ms) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &ckpt) != PMIX_SUCCESS || a->kind >= PLUG_JA_KINDS ||
	    a->wait_ms > 3600000 ||
	    ((a->kind == PLUG_JA_PAUSE || a->kind == PLUG_JA_CKPT) && !a->wait_ms)) {
		free(label);
		free(ckpt);
		return -1;
	}
	a->label = label;
	a->ckpt = ckpt;
	return 0;
}

static void jobctl_in(uint32_t from, uint32_t tag, pmix_data_buffer_t *in)
{
	int32_t sig = 0, one = 1;
	uint32_t grace = 0, n = 0, *ranks = NULL;
	pmix_status_t st = PMIX_SUCCESS;
	plug_ja_t a = { 0 };
	reply_t *r = NULL;
	char *ns = NULL;

	if (pxc_unpack_str(in, &ns) != PMIX_SUCCESS || !ns ||
	    !PMIx_Check_nspace(ns, plug_net_ctx.nspace)) {
		/* another step's (a stale route to a step that ended) */
		st = ns ? PMIX_ERR_NOT_FOUND : PMIX_ERR_BAD_PARAM;
		if (!ns)
			plug_error("job control: a broken request from node %u: refused", from);
		free(ns);
		send_ack(from, tag, st);
		return;
	}
	free(ns);
	if (pxc_unpack(in, &sig, &one, PMIX_INT32) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &grace) != PMIX_SUCCESS || pxc_unpack_u32(in, &n) != PMIX_SUCCESS ||
	    n == 0 || n > pxc_buf_remaining(in) || grace > 3600000 ||
	    !(ranks = calloc(n, sizeof(*ranks))))
		st = PMIX_ERR_BAD_PARAM;
	for (uint32_t i = 0; st == PMIX_SUCCESS && i < n; i++)
		if (pxc_unpack_u32(in, &ranks[i]) != PMIX_SUCCESS ||
		    (ranks[i] != PLUG_JA_ALL &&
		     (ranks[i] >= plug_net_ctx.map->ntasks ||
		      plug_net_ctx.map->node_of[ranks[i]] != plug_net_ctx.me)))
			st = PMIX_ERR_BAD_PARAM;
	if (st == PMIX_SUCCESS && unpack_trailer(in, &a) < 0)
		st = PMIX_ERR_BAD_PARAM;
	a.sig = sig;
	a.grace_ms = grace;
	if (st == PMIX_SUCCESS && (a.kind == PLUG_JA_SIGNAL ? sig <= 0 || sig >= NSIG : sig != 0))
		st = PMIX_ERR_BAD_PARAM;
	if (st == PMIX_SUCCESS && !(r = malloc(sizeof(*r))))
		st = PMIX_ERR_NOMEM;
	if (st == PMIX_SUCCESS) {
		*r = (reply_t){ from, tag };
		plug_ja_run(&a, ranks, n, remote_done, r);
	} else {
		if (st == PMIX_ERR_BAD_PARAM)
			plug_error("job control: a broken request from node %u: refused", from);
		send_ack(from, tag, st);
	}
	free((char *)a.label);
	free((char *)a.ckpt);
	free(ranks);
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
		jc.ops->any_ok = false;
		op_done(jc.ops);
	}
	plug_ja_stop(); /* the pending parts find no request to answer */
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
	plug_ja_start(plug_net_base(n));
	return plug_net_register(n, &u);
}
