/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobact.c - see stepd/jobact.h; the rules are in docs/jobctl.md.
 *
 * A signal goes to the task itself through its pidfd (stepd/reap.c), never
 * to its process group: Slurm puts every task of a node into one group
 * (that of the node's first task), so a group signal would reach the
 * task's neighbours. TERMINATE is SIGTERM, then, after its grace,
 * SIGKILL to those of the same tasks still running (a "late").
 *
 * PAUSE and an event checkpoint wait for the targets' handlers: a
 * synchronous event (pxc_server_notify_sync) in a custom range of exactly
 * this part's targets, for the handlers registered for its code (not the
 * default ones: Open MPI's aborts its process on an event it does not
 * know); the part acts once every target answered, or nobody had a
 * handler (at once), or at its wait's end. Such a part is "pending" until
 * then, found by its id from the server's callback (the step may have
 * ended meanwhile). A cancel ends the requestor's pending parts and lates
 * that carry its label (no label: all of them) on the ranks named.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "net/ctx.h"
#include "stepd/reap.h"
#include "stepd/jobact.h"
#include "slurm_adapter.h"

/* What this node's parts share: who asked, with which label, for which
 * ranks (a late's or a pending part's). */
typedef struct {
	pmix_proc_t requestor;
	char *label;
	uint32_t *ranks;
	size_t n;
	bool every; /* all of the node's tasks (those running) */
} owner_t;

/* SIGKILL due after a TERMINATE's grace. */
typedef struct late {
	struct late *next;
	struct event *ev;
	owner_t who;
} late_t;

/* A part waiting for its targets' handlers. */
typedef struct pend {
	struct pend *next;
	uint32_t id;
	uint8_t kind;
	owner_t who;
	pmix_status_t st; /* what the part answers unless the event fails */
	plug_ja_done_f done;
	void *arg;
} pend_t;

/* A rank's checkpoint method. */
typedef struct {
	bool event;
	int sig;
} method_t;

static struct {
	struct event_base *base;
	late_t *lates;
	pend_t *pends;
	uint32_t last_id;
	method_t *methods; /* by rank of this step, once one registered */
	size_t nmethods;
	bool stopped;
} ja;

/* sig to the task of rank through its pidfd (the task's own: never a
 * process that took a recycled pid). 0, or -1 (not running here). */
static int send_signal(uint32_t rank, int sig)
{
	int fd = plug_reap_pidfd(rank);

	return fd >= 0 && syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0 ? 0 : -1;
}

static void owner_clear(owner_t *w)
{
	free(w->label);
	free(w->ranks);
	memset(w, 0, sizeof(*w));
}

/* The ranks of a part (PLUG_JA_ALL: this node's), who asked, the label:
 * copied into w. 0, or -1 out of memory. */
static int owner_set(owner_t *w, const plug_ja_t *a, const uint32_t *ranks, uint32_t n)
{
	const plug_map_t *m = plug_net_ctx.map;
	uint32_t me = plug_net_ctx.me;
	bool every = n == 1 && ranks[0] == PLUG_JA_ALL;
	size_t cnt = every ? m->count[me] : n;

	memset(w, 0, sizeof(*w));
	w->requestor = a->requestor;
	if (!(w->ranks = calloc(cnt ? cnt : 1, sizeof(*w->ranks))) ||
	    (a->label && !(w->label = strdup(a->label)))) {
		owner_clear(w);
		return -1;
	}
	for (size_t i = 0; i < cnt; i++)
		w->ranks[i] = every ? m->ranks[m->first[me] + i] : ranks[i];
	w->n = cnt;
	w->every = every;
	return 0;
}

/* ---- signals and lates ---------------------------------------------------- */

static void late_free(late_t *l)
{
	for (late_t **p = &ja.lates; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	if (l->ev)
		event_free(l->ev);
	owner_clear(&l->who);
	free(l);
}

static void late_kill(evutil_socket_t fd, short what, void *arg)
{
	late_t *l = arg;

	(void)fd, (void)what;
	for (size_t i = 0; i < l->who.n; i++)
		send_signal(l->who.ranks[i], SIGKILL); /* those still there */
	late_free(l);
}

/* sig to w's ranks; those it reached stay in w (for a late). PMIX_SUCCESS,
 * or PMIX_ERR_NOT_FOUND when one is not a running task here. */
static pmix_status_t signal_owner(owner_t *w, int sig)
{
	pmix_status_t st = PMIX_SUCCESS;
	size_t k = 0;

	for (size_t i = 0; i < w->n; i++)
		if (send_signal(w->ranks[i], sig) == 0)
			w->ranks[k++] = w->ranks[i];
		else if (!w->every)
			st = PMIX_ERR_NOT_FOUND;
	w->n = k;
	return st;
}

static pmix_status_t do_signal(const plug_ja_t *a, const uint32_t *ranks, uint32_t n)
{
	late_t *l = calloc(1, sizeof(*l));
	struct timeval tv = { a->grace_ms / 1000, (a->grace_ms % 1000) * 1000 };
	pmix_status_t st;

	if (!l || owner_set(&l->who, a, ranks, n) < 0) {
		free(l);
		return PMIX_ERR_NOMEM;
	}
	st = signal_owner(&l->who, a->sig);
	if (!a->grace_ms || !l->who.n) {
		owner_clear(&l->who);
		free(l);
		return st;
	}
	if ((l->ev = evtimer_new(ja.base, late_kill, l)) && evtimer_add(l->ev, &tv) == 0) {
		l->next = ja.lates;
		ja.lates = l;
		return st;
	}
	l->next = ja.lates; /* no timer: no grace */
	ja.lates = l;
	late_kill(-1, 0, l);
	return st;
}

/* ---- parts that wait for handlers ---------------------------------------- */

static pend_t *pend_take(uint32_t id)
{
	for (pend_t **p = &ja.pends; *p; p = &(*p)->next)
		if ((*p)->id == id) {
			pend_t *f = *p;

			*p = f->next;
			return f;
		}
	return NULL;
}

static void pend_free(pend_t *p)
{
	owner_clear(&p->who);
	free(p);
}

/* A part of that kind, not yet pending; NULL (done told) out of memory. */
static pend_t *pend_new(uint8_t kind, const plug_ja_t *a, const uint32_t *ranks, uint32_t n,
			plug_ja_done_f done, void *arg)
{
	pend_t *p = calloc(1, sizeof(*p));

	if (!p || owner_set(&p->who, a, ranks, n) < 0) {
		free(p);
		done(PMIX_ERR_NOMEM, arg);
		return NULL;
	}
	p->kind = kind;
	p->done = done;
	p->arg = arg;
	return p;
}

/* The ranks who did not answer, for the log. */
static void log_unanswered(const pend_t *p, pmix_status_t st, const pmix_proc_t *un, size_t nun)
{
	if (st == PMIX_SUCCESS || st == PMIX_ERR_NOT_FOUND)
		return;
	plug_info("job control: %s of %zu rank(s): %zu did not answer its event (%s)%s%u",
		  p->kind == PLUG_JA_PAUSE ? "pause" : "checkpoint", p->who.n, nun,
		  PMIx_Error_string(st), nun ? ", the first rank " : "", nun ? un[0].rank : 0);
}

/* The targets' handlers are done, or the wait ended. */
static void handlers_done(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
			  void *cbdata)
{
	pend_t *p = pend_take((uint32_t)(uintptr_t)cbdata);
	pmix_status_t res;

	(void)nhandled;
	if (!p)
		return; /* cancelled, or the step ended */
	log_unanswered(p, st, un, nun);
	if (p->kind == PLUG_JA_PAUSE) {
		res = signal_owner(&p->who, SIGSTOP);
		if (p->st != PMIX_SUCCESS)
			res = p->st;
	} else {
		res = p->st;
		if (res == PMIX_SUCCESS && st == PMIX_ERR_NOT_FOUND)
			res = PMIX_ERR_NOT_SUPPORTED; /* a method, but no handler took it */
		else if (res == PMIX_SUCCESS)
			res = st;
	}
	p->done(res, p->arg);
	pend_free(p);
}

/* The synchronous event of p (code, with extra infos before the common
 * ones); p is pending from here. */
static void raise_event(pend_t *p, pmix_status_t code, const plug_ja_t *a, pmix_info_t *extra)
{
	pmix_proc_t *procs = calloc(p->who.n ? p->who.n : 1, sizeof(*procs));
	pmix_data_array_t da = { .type = PMIX_PROC, .size = p->who.n, .array = procs };
	pmix_info_t info[6];
	size_t ni = 0;
	int secs = (int)((a->wait_ms + 999) / 1000);
	bool yes = true;

	for (size_t i = 0; procs && i < p->who.n; i++)
		PMIx_Load_procid(&procs[i], plug_net_ctx.nspace, p->who.ranks[i]);
	info[ni++] = *extra;
	PMIx_Info_load(&info[ni++], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[ni++], PMIX_EVENT_AFFECTED_PROCS, &da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[ni++], PMIX_EVENT_ACTION_TIMEOUT, &secs, PMIX_INT);
	/* for the handlers registered for it: a default handler (Open MPI's
	 * aborts the process) is no answer */
	PMIx_Info_load(&info[ni++], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
	if (a->label)
		PMIx_Info_load(&info[ni++], PMIX_JOB_CTRL_ID, a->label, PMIX_STRING);
	p->id = ++ja.last_id ? ja.last_id : ++ja.last_id;
	p->next = ja.pends;
	ja.pends = p;
	if (!procs || pxc_server_notify_sync(code, NULL, PMIX_RANGE_CUSTOM, info, ni,
					     (int)(a->wait_ms ? a->wait_ms : 1), handlers_done,
					     (void *)(uintptr_t)p->id) != PMIX_SUCCESS) {
		plug_error("job control: the %s event cannot be raised: acting at once",
			   PMIx_Error_string(code));
		handlers_done(PMIX_ERR_NOT_FOUND, 0, NULL, 0, (void *)(uintptr_t)p->id);
	}
	for (size_t i = 0; i < ni; i++)
		PMIx_Info_destruct(&info[i]);
	free(procs);
}

static void do_pause(const plug_ja_t *a, const uint32_t *ranks, uint32_t n, plug_ja_done_f done,
		     void *arg)
{
	pend_t *p = pend_new(PLUG_JA_PAUSE, a, ranks, n, done, arg);
	pmix_info_t what;
	bool yes = true;

	if (!p)
		return;
	PMIx_Info_load(&what, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
	raise_event(p, PMIX_JCTRL_PREEMPT_ALERT, a, &what);
}

/* ---- checkpoints ----------------------------------------------------------- */

pmix_status_t plug_ja_ckpt_register(uint32_t rank, const pmix_info_t *method)
{
	const plug_map_t *m = plug_net_ctx.map;
	const pmix_data_array_t *da;
	const pmix_info_t *in;
	method_t got = { false, 0 };

	if (!m || rank >= m->ntasks || !method || method->value.type != PMIX_DATA_ARRAY ||
	    !(da = method->value.data.darray) || da->type != PMIX_INFO || !da->size || !da->array)
		return PMIX_ERR_BAD_PARAM;
	in = da->array;
	for (size_t i = 0; i < da->size; i++) {
		if (PMIx_Check_key(in[i].key, PMIX_JOB_CTRL_CHECKPOINT_EVENT) &&
		    in[i].value.type == PMIX_BOOL)
			got.event = in[i].value.data.flag;
		else if (PMIx_Check_key(in[i].key, PMIX_JOB_CTRL_CHECKPOINT_SIGNAL) &&
			 (in[i].value.type == PMIX_INT || in[i].value.type == PMIX_INT32) &&
			 in[i].value.data.integer > 0 && in[i].value.data.integer < NSIG)
			got.sig = in[i].value.data.integer;
		else
			return PMIX_ERR_BAD_PARAM; /* a method we do not know, or a broken one */
	}
	if (!got.event && !got.sig)
		return PMIX_ERR_BAD_PARAM;
	if (!ja.methods) {
		if (!(ja.methods = calloc(m->ntasks, sizeof(*ja.methods))))
			return PMIX_ERR_NOMEM;
		ja.nmethods = m->ntasks;
	}
	ja.methods[rank] = got;
	return PMIX_SUCCESS;
}

static void do_ckpt(const plug_ja_t *a, const uint32_t *ranks, uint32_t n, plug_ja_done_f done,
		    void *arg)
{
	pend_t *p = pend_new(PLUG_JA_CKPT, a, ranks, n, done, arg);
	pmix_info_t what;
	size_t k = 0;

	if (!p)
		return;
	for (size_t i = 0; i < p->who.n; i++) { /* the event ones stay in p */
		uint32_t r = p->who.ranks[i];
		method_t mt = ja.methods && r < ja.nmethods ? ja.methods[r] :
							      (method_t){ false, 0 };

		if (plug_reap_pidfd(r) < 0 && !p->who.every)
			p->st = PMIX_ERR_NOT_FOUND;
		else if (plug_reap_pidfd(r) < 0)
			continue;
		else if (mt.event)
			p->who.ranks[k++] = r;
		else if (mt.sig)
			send_signal(r, mt.sig);
		else if (p->st == PMIX_SUCCESS)
			p->st = PMIX_ERR_NOT_SUPPORTED;
	}
	p->who.n = k;
	if (!k) {
		done(p->st, arg);
		pend_free(p);
		return;
	}
	PMIx_Info_load(&what, PMIX_JOB_CTRL_CHECKPOINT, a->ckpt ? a->ckpt : "", PMIX_STRING);
	raise_event(p, PMIX_JCTRL_CHECKPOINT, a, &what);
}

/* ---- cancel ---------------------------------------------------------------- */

/* Whether w is the requestor's, with the label (NULL: any), on one of the
 * ranks (PLUG_JA_ALL: any). */
static bool owner_match(const owner_t *w, const plug_ja_t *a, const uint32_t *ranks, uint32_t n)
{
	if (!PMIx_Check_procid(&w->requestor, &a->requestor) ||
	    w->requestor.rank != a->requestor.rank ||
	    (a->label && (!w->label || strcmp(w->label, a->label))))
		return false;
	if (n == 1 && ranks[0] == PLUG_JA_ALL)
		return true;
	for (size_t i = 0; i < w->n; i++)
		for (uint32_t j = 0; j < n; j++)
			if (w->ranks[i] == ranks[j])
				return true;
	return false;
}

static pmix_status_t do_cancel(const plug_ja_t *a, const uint32_t *ranks, uint32_t n)
{
	size_t hit = 0;

	for (late_t *l = ja.lates, *next; l; l = next) {
		next = l->next;
		if (owner_match(&l->who, a, ranks, n)) {
			late_free(l); /* no SIGKILL */
			hit++;
		}
	}
	for (pend_t **pp = &ja.pends; *pp;) {
		pend_t *p = *pp;

		if (!owner_match(&p->who, a, ranks, n)) {
			pp = &p->next;
			continue;
		}
		*pp = p->next; /* the server's answer will find nothing */
		p->done(PMIX_ERR_JOB_CANCELED, p->arg);
		pend_free(p);
		hit++;
	}
	plug_flag("job control: cancel by %s:%u (%s): %zu part(s) here", a->requestor.nspace,
		  a->requestor.rank, a->label ? a->label : "any label", hit);
	return hit ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

/* ---- entry points ---------------------------------------------------------- */

void plug_ja_run(const plug_ja_t *a, const uint32_t *ranks, uint32_t n, plug_ja_done_f done,
		 void *arg)
{
	if (ja.stopped || !plug_net_ctx.map || !n) {
		done(ja.stopped ? PMIX_ERR_UNREACH : PMIX_ERR_BAD_PARAM, arg);
		return;
	}
	switch (a->kind) {
	case PLUG_JA_SIGNAL: done(do_signal(a, ranks, n), arg); break;
	case PLUG_JA_PAUSE: do_pause(a, ranks, n, done, arg); break;
	case PLUG_JA_CKPT: do_ckpt(a, ranks, n, done, arg); break;
	case PLUG_JA_CANCEL: done(do_cancel(a, ranks, n), arg); break;
	default: done(PMIX_ERR_BAD_PARAM, arg);
	}
}

void plug_ja_start(struct event_base *base)
{
	memset(&ja, 0, sizeof(ja));
	ja.base = base;
}

void plug_ja_stop(void)
{
	ja.stopped = true;
	while (ja.lates)
		late_kill(-1, 0, ja.lates); /* the grace ends with the step */
	while (ja.pends) {
		pend_t *p = ja.pends;

		ja.pends = p->next;
		p->done(PMIX_ERR_UNREACH, p->arg);
		pend_free(p);
	}
	free(ja.methods);
	ja.methods = NULL;
	ja.nmethods = 0;
}
