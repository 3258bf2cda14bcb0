/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * groupev.c - groups made through events: PMIx_Group_invite, _join and
 * _leave (and their _nb forms), on the event API and the construct
 * collective (client/group.c, server/group.c).
 *
 * Invite (the caller is the leader): PMIX_GROUP_INVITED goes to the
 * invitees (range CUSTOM; PMIX_GROUP_ID; a rank WILDCARD stands for each
 * rank of that namespace, PMIX_JOB_SIZE of it), whose handlers answer with
 * PMIx_Group_join. Each answer is PMIX_GROUP_INVITE_ACCEPTED or
 * _DECLINED to the leader. Once every invitee answered, or the timeout
 * (PMIX_TIMEOUT, else the default) passed - the silent ones are left out,
 * as the declined ones - the leader sends PMIX_GROUP_MEMBERSHIP_UPDATE
 * (PMIX_GROUP_MEMBERSHIP: the leader and those who accepted;
 * PMIX_GROUP_ASSIGN_CONTEXT_ID when the leader asked it) to those who
 * accepted, and the leader and they construct the group together with
 * the leader's directives (a joiner adds its own PMIX_GROUP_INFO and
 * PMIX_GROUP_ENDPT_DATA). The invite's results are the construct's; every
 * member, the leader too, then gets PMIX_GROUP_CONSTRUCT_COMPLETE
 * (PMIX_GROUP_ID, PMIX_GROUP_CONTEXT_ID when assigned,
 * PMIX_GROUP_MEMBERSHIP) from its own library. A joiner's PMIx_Group_join
 * (ACCEPT) completes with the construct, a decline at once; a joiner that
 * hears nothing from the leader within its timeout gets
 * PMIX_ERR_TIMEOUT.
 * Leave: the server takes the caller out of the group (GROUP with
 * PXC_GROUP_OP_LEAVE) and tells the others (PMIX_GROUP_LEFT).
 *
 * The library registers one handler of its own for the answers and the
 * updates, the first time it needs it (so that the server sends them
 * here); it takes them from the EVENT messages as they arrive
 * (client/event.c calls pxc_groupev_event), so no handler of the
 * program's can keep them from it. Everything runs in the progress
 * thread. The blocking forms must not
 * be called from an event handler (the _nb forms may: Open MPI and the
 * Standard's examples join from the INVITED handler). Not available in a
 * server process.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "client.h"
#include "groupev.h"
#include "request.h"
#include "common/event.h"
#include "common/progress.h"

enum { D_INVITE, D_JOIN };
/* The leader's directives every member must construct with. */
static const char *const flag_keys[] = { PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_OPTIONAL,
					 PMIX_GROUP_NOTIFY_TERMINATION };
#define NFLAGS (sizeof(flag_keys) / sizeof(*flag_keys))
enum { S_WAIT, S_YES, S_NO };

typedef struct dance {
	struct dance *next;
	int kind;
	char grp[PMIX_MAX_NSLEN + 1];
	pmix_proc_t leader;
	pmix_proc_t *inv; /* INVITE: the invitees */
	unsigned char *state;
	size_t ninv;
	pmix_info_t *dirs; /* the caller's directives (a copy) */
	size_t ndirs;
	unsigned flags; /* the group's F_* (a JOIN: the leader's, from its update) */
	int timeout_s;
	struct event *timer;
	bool constructing;
	pmix_info_cbfunc_t cb;
	void *cbdata;
} dance_t;

static dance_t *dances; /* progress thread */
static int reg_state;   /* 0 none, 1 pending, 2 done, -1 failed; progress thread */

static void start(dance_t *d);
static void finish(dance_t *d, pmix_status_t st, pmix_info_t *res, size_t nres,
		   pmix_release_cbfunc_t rel, void *relcbdata);

/* ----------------------------------------------------------- helpers */

static bool is_inv(const dance_t *d, const pmix_proc_t *p, size_t *at)
{
	for (size_t i = 0; i < d->ninv; i++)
		if (PMIx_Check_procid(&d->inv[i], p)) {
			*at = i;
			return true;
		}
	return false;
}

/* A dance never linked into dances (any thread). */
static void dance_destroy(dance_t *d)
{
	if (d->timer)
		event_free(d->timer);
	free(d->inv);
	free(d->state);
	pxc_array_free(d->dirs, d->ndirs, PMIX_INFO);
	free(d);
}

/* Progress thread. */
static void dance_free(dance_t *d)
{
	for (dance_t **pp = &dances; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	dance_destroy(d);
}

static const char *info_group_id(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_GROUP_ID);

	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* Sends code to procs (range CUSTOM) with the group id and, when
 * members is not NULL, the membership and the context id request. */
static void tell(dance_t *d, pmix_status_t code, const pmix_proc_t *procs, size_t n,
		 const pmix_proc_t *members, size_t nmem)
{
	pmix_data_array_t range = { .type = PMIX_PROC, .size = n, .array = (void *)procs };
	pmix_data_array_t mem = { .type = PMIX_PROC, .size = nmem, .array = (void *)members };
	pmix_info_t info[3 + NFLAGS];
	size_t ni = 0;
	pmix_status_t st;

	PMIx_Info_load(&info[ni++], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[ni++], PMIX_GROUP_ID, d->grp, PMIX_STRING);
	if (members)
		PMIx_Info_load(&info[ni++], PMIX_GROUP_MEMBERSHIP, &mem, PMIX_DATA_ARRAY);
	for (size_t f = 0; members && f < NFLAGS; f++)
		if (d->flags & (1u << f))
			PMIx_Info_load(&info[ni++], flag_keys[f], NULL, PMIX_BOOL);
	st = PMIx_Notify_event(code, &pxc_cl.me, PMIX_RANGE_CUSTOM, info, ni, NULL, NULL);
	if (st != PMIX_SUCCESS && st != PMIX_OPERATION_SUCCEEDED)
		pxc_error("client: group %s: event %d not sent (%d)", d->grp, code, st);
	for (size_t i = 0; i < ni; i++)
		PMIx_Info_destruct(&info[i]);
}

/* ------------------------------------------------------ the construct */

/* The member's own CONSTRUCT_COMPLETE, then the caller's callback. */
static void constructed(pmix_status_t st, pmix_info_t *res, size_t nres, void *cbdata,
			pmix_release_cbfunc_t rel, void *relcbdata)
{
	dance_t *d = cbdata;

	if (st == PMIX_SUCCESS) {
		pmix_info_t *ev = PMIx_Info_create(nres + 1);
		size_t n = 0;

		if (ev) {
			PMIx_Info_load(&ev[n++], PMIX_GROUP_ID, d->grp, PMIX_STRING);
			for (size_t i = 0; i < nres; i++)
				if (PMIx_Check_key(res[i].key, PMIX_GROUP_CONTEXT_ID) ||
				    PMIx_Check_key(res[i].key, PMIX_GROUP_MEMBERSHIP))
					PMIx_Info_xfer(&ev[n++], &res[i]);
			pxc_event_local_deliver(PMIX_GROUP_CONSTRUCT_COMPLETE, &d->leader,
						PMIX_RANGE_PROC_LOCAL, ev, n);
			PMIx_Info_free(ev, nres + 1);
		}
	}
	finish(d, st, res, nres, rel, relcbdata);
}

/* The members are known: construct (the joiner's directives get the
 * leader's context id request). */
static void construct(dance_t *d, const pmix_proc_t *members, size_t n)
{
	pmix_info_t *dirs = PMIx_Info_create(d->ndirs + NFLAGS);
	size_t nd = 0;
	pmix_status_t st;

	if (!dirs) {
		finish(d, PMIX_ERR_NOMEM, NULL, 0, NULL, NULL);
		return;
	}
	for (size_t i = 0; i < d->ndirs; i++) {
		bool group_wide = PMIx_Check_key(d->dirs[i].key, PMIX_TIMEOUT);

		for (size_t f = 0; f < NFLAGS; f++)
			group_wide |= PMIx_Check_key(d->dirs[i].key, flag_keys[f]);
		if (!group_wide) /* the caller's own: group info, endpoint data */
			PMIx_Info_xfer(&dirs[nd++], &d->dirs[i]);
	}
	for (size_t f = 0; f < NFLAGS; f++)
		if (d->flags & (1u << f))
			PMIx_Info_load(&dirs[nd++], flag_keys[f], NULL, PMIX_BOOL);
	d->constructing = true;
	st = PMIx_Group_construct_nb(d->grp, members, n, dirs, nd, constructed, d);
	PMIx_Info_free(dirs, d->ndirs + NFLAGS);
	if (st != PMIX_SUCCESS)
		finish(d, st, NULL, 0, NULL, NULL);
}

/* INVITE: every invitee answered, or time is up. */
static void form(dance_t *d)
{
	pmix_proc_t *mem = calloc(d->ninv + 1, sizeof(*mem));
	size_t n = 0;

	if (!mem) {
		finish(d, PMIX_ERR_NOMEM, NULL, 0, NULL, NULL);
		return;
	}
	if (d->timer)
		evtimer_del(d->timer);
	for (size_t i = 0; i < d->ninv; i++)
		if (d->state[i] == S_YES)
			mem[n++] = d->inv[i];
	mem[n] = pxc_cl.me; /* the joiners first, then the leader */
	if (n)
		tell(d, PMIX_GROUP_MEMBERSHIP_UPDATE, mem, n, mem, n + 1);
	pxc_debug("client: group %s: %zu of %zu invitees accepted", d->grp, n, d->ninv);
	construct(d, mem, n + 1);
	free(mem);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	dance_t *d = arg;

	(void)fd, (void)what;
	if (d->constructing)
		return;
	if (d->kind == D_INVITE) {
		for (size_t i = 0; i < d->ninv; i++)
			if (d->state[i] == S_WAIT)
				d->state[i] = S_NO; /* silent: left out */
		form(d);
	} else {
		pxc_error("client: group %s: no word from the leader", d->grp);
		finish(d, PMIX_ERR_TIMEOUT, NULL, 0, NULL, NULL);
	}
}

/* ------------------------------------------------------------ events */

static dance_t *find(int kind, const char *grp)
{
	for (dance_t *d = dances; d; d = d->next)
		if (d->kind == kind && !d->constructing && strcmp(d->grp, grp) == 0)
			return d;
	return NULL;
}

void pxc_groupev_event(pmix_status_t code, const pmix_proc_t *src, const pmix_info_t *info,
		       size_t ninfo)
{
	const char *grp = info_group_id(info, ninfo);
	const pmix_info_t *m = pxc_info_find(info, ninfo, PMIX_GROUP_MEMBERSHIP);
	const pmix_data_array_t *da = m && m->value.type == PMIX_DATA_ARRAY ? m->value.data.darray :
									      NULL;
	dance_t *d;
	size_t at;

	if (!grp || !src)
		return;
	if (code == PMIX_GROUP_MEMBERSHIP_UPDATE) {
		if (!da || da->type != PMIX_PROC || !da->size || !(d = find(D_JOIN, grp)) ||
		    !PMIx_Check_procid(&d->leader, src))
			return;
		if (d->timer)
			evtimer_del(d->timer);
		d->flags = 0;
		for (size_t f = 0; f < NFLAGS; f++)
			if (pxc_info_flag(info, ninfo, flag_keys[f]))
				d->flags |= 1u << f;
		construct(d, da->array, da->size);
	} else if ((code == PMIX_GROUP_INVITE_ACCEPTED || code == PMIX_GROUP_INVITE_DECLINED) &&
		   (d = find(D_INVITE, grp)) && is_inv(d, src, &at) && d->state[at] == S_WAIT) {
		bool all = true;

		d->state[at] = code == PMIX_GROUP_INVITE_ACCEPTED ? S_YES : S_NO;
		for (size_t i = 0; i < d->ninv; i++)
			all &= d->state[i] != S_WAIT;
		if (all)
			form(d);
	}
}

/* The library's handler: it registers the codes, so that the server sends
 * them here; the events themselves were taken as they came
 * (pxc_groupev_event), before any handler could end their chain. */
static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *src, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)src, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void registered(pmix_status_t st, size_t id, void *cbdata);

static void reg_run(void *arg)
{
	(void)arg;
	reg_state = 2;
	for (dance_t *d = dances, *next; d; d = next) {
		next = d->next; /* start may end d */
		if (!d->timer)
			start(d);
	}
}

static void reg_fail(void *arg)
{
	(void)arg;
	reg_state = -1;
	while (dances)
		finish(dances, PMIX_ERR_NOT_SUPPORTED, NULL, 0, NULL, NULL);
}

/* Any thread: back to the progress thread. */
static void registered(pmix_status_t st, size_t id, void *cbdata)
{
	(void)cbdata;
	(void)id;
	if (pxc_progress_post(pxc_progress_global(), st == PMIX_SUCCESS ? reg_run : reg_fail,
			      NULL) != 0)
		pxc_error("client: group handler registration lost");
}

static void need_handler(void)
{
	pmix_status_t codes[] = { PMIX_GROUP_INVITE_ACCEPTED, PMIX_GROUP_INVITE_DECLINED,
				  PMIX_GROUP_MEMBERSHIP_UPDATE };

	if (reg_state != 0)
		return;
	reg_state = 1;
	if (PMIx_Register_event_handler(codes, 3, NULL, 0, on_event, registered, NULL) !=
	    PMIX_SUCCESS) {
		reg_state = 0;
		while (dances)
			finish(dances, PMIX_ERR_NOT_SUPPORTED, NULL, 0, NULL, NULL);
	}
}

/* ---------------------------------------------------------- dances */

/* The handler is in: an INVITE sends the invitation, a JOIN its answer;
 * both wait for the timer. */
static void start(dance_t *d)
{
	/* a joiner waits past the leader's own deadline for its update */
	struct timeval tv = { d->kind == D_JOIN ? 2 * d->timeout_s + 5 : d->timeout_s, 0 };

	d->timer = evtimer_new(pxc_progress_base(pxc_progress_global()), on_timer, d);
	if (!d->timer || evtimer_add(d->timer, &tv) < 0) {
		finish(d, PMIX_ERR_NOMEM, NULL, 0, NULL, NULL);
		return;
	}
	if (d->kind == D_INVITE && d->ninv == 0)
		form(d);
	else if (d->kind == D_INVITE)
		tell(d, PMIX_GROUP_INVITED, d->inv, d->ninv, NULL, 0);
	else
		tell(d, PMIX_GROUP_INVITE_ACCEPTED, &d->leader, 1, NULL, 0);
}

static void finish(dance_t *d, pmix_status_t st, pmix_info_t *res, size_t nres,
		   pmix_release_cbfunc_t rel, void *relcbdata)
{
	pmix_info_cbfunc_t cb = d->cb;
	void *cbdata = d->cbdata;

	dance_free(d);
	if (cb)
		cb(st, res, nres, cbdata, rel, relcbdata);
	else if (rel)
		rel(relcbdata);
}

static void dance_run(void *arg)
{
	dance_t *d = arg;

	d->next = dances;
	dances = d;
	if (reg_state == 2)
		start(d);
	else if (reg_state == -1)
		finish(d, PMIX_ERR_NOT_SUPPORTED, NULL, 0, NULL, NULL);
	else
		need_handler();
}

/* The invitees, each WILDCARD expanded to the ranks of its namespace, the
 * caller left out. */
static pmix_status_t expand(const pmix_proc_t *procs, size_t n, dance_t *d)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t size = 1;
		pmix_proc_t *grown;

		if (procs[i].rank == PMIX_RANK_WILDCARD) {
			pmix_value_t *v = NULL;

			if (PMIx_Get(&procs[i], PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS ||
			    v->type != PMIX_UINT32) {
				PMIx_Value_free(v, 1);
				return PMIX_ERR_BAD_PARAM;
			}
			size = v->data.uint32;
			PMIx_Value_free(v, 1);
		} else if (!PMIX_RANK_IS_VALID(procs[i].rank)) {
			return PMIX_ERR_BAD_PARAM;
		}
		if (!(grown = realloc(d->inv, (d->ninv + size) * sizeof(*grown))))
			return PMIX_ERR_NOMEM;
		d->inv = grown;
		for (uint32_t r = 0; r < size; r++) {
			pmix_proc_t p = procs[i];
			size_t at;

			if (procs[i].rank == PMIX_RANK_WILDCARD)
				p.rank = r;
			if (!PMIx_Check_procid(&p, &pxc_cl.me) && !is_inv(d, &p, &at))
				d->inv[d->ninv++] = p; /* once each, the leader left out */
		}
	}
	return (d->state = calloc(d->ninv ? d->ninv : 1, 1)) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static pmix_status_t dance_new(int kind, const char *grp, const pmix_info_t *info, size_t ninfo,
			       pmix_info_cbfunc_t cb, void *cbdata, dance_t **out)
{
	dance_t *d;
	int ms = pxc_request_timeout_ms(info, ninfo);
	pmix_status_t st;

	if (!grp || !*grp || strlen(grp) > PMIX_MAX_NSLEN || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	if (!(d = calloc(1, sizeof(*d))))
		return PMIX_ERR_NOMEM;
	d->kind = kind;
	snprintf(d->grp, sizeof(d->grp), "%s", grp);
	d->timeout_s = ms > 0 ? (ms + 999) / 1000 : pxc_default_timeout();
	d->cb = cb;
	d->cbdata = cbdata;
	if (pxc_info_dup(info, ninfo, &d->dirs) != PMIX_SUCCESS) {
		free(d);
		return PMIX_ERR_NOMEM;
	}
	d->ndirs = d->dirs ? ninfo : 0;
	*out = d;
	return PMIX_SUCCESS;
}

static pmix_status_t dance_go(dance_t *d)
{
	if (pxc_progress_post(pxc_progress_global(), dance_run, d) != 0) {
		d->cb = NULL;
		dance_destroy(d);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

static void stop_fn(void *arg)
{
	while (dances)
		finish(dances, PMIX_ERR_INIT, NULL, 0, NULL, NULL);
	reg_state = 0; /* the handler goes with the connection */
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

void pxc_groupev_stop(void)
{
	if (pxc_cl.pg && pxc_progress_call(pxc_cl.pg, stop_fn, 1000) != PMIX_SUCCESS)
		pxc_debug("client: group invitations not stopped");
}

/* ------------------------------------------------------------- API */

pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	dance_t *d;
	pmix_status_t st;

	if (!procs || !nprocs)
		return PMIX_ERR_BAD_PARAM;
	if ((st = dance_new(D_INVITE, grp, info, ninfo, cbfunc, cbdata, &d)) != PMIX_SUCCESS)
		return st;
	d->leader = pxc_cl.me;
	for (size_t f = 0; f < NFLAGS; f++)
		if (pxc_info_flag(info, ninfo, flag_keys[f]))
			d->flags |= 1u << f;
	if ((st = expand(procs, nprocs, d)) != PMIX_SUCCESS) {
		dance_destroy(d);
		return st;
	}
	return dance_go(d);
}

pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader, pmix_group_opt_t opt,
				 const pmix_info_t info[], size_t ninfo, pmix_info_cbfunc_t cbfunc,
				 void *cbdata)
{
	dance_t *d;
	pmix_status_t st;

	if (!leader || !PMIX_RANK_IS_VALID(leader->rank) ||
	    (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE))
		return PMIX_ERR_BAD_PARAM;
	if ((st = dance_new(D_JOIN, grp, info, ninfo, cbfunc, cbdata, &d)) != PMIX_SUCCESS)
		return st;
	d->leader = *leader;
	if (opt == PMIX_GROUP_DECLINE) { /* said, and done */
		tell(d, PMIX_GROUP_INVITE_DECLINED, leader, 1, NULL, 0);
		d->cb = NULL;
		dance_destroy(d);
		return PMIX_OPERATION_SUCCEEDED;
	}
	return dance_go(d);
}

/* The blocking forms wait on the heap: a waiter that times out leaves the
 * wait to the callback, which frees it (abandoned), so neither side
 * touches freed memory. */
typedef struct {
	pxc_sync_t sync;
	pthread_mutex_t mu; /* answered, abandoned */
	bool answered, abandoned;
	pmix_info_t *res;
	size_t nres;
} bwait_t;

static void bw_destroy(bwait_t *w)
{
	pxc_array_free(w->res, w->nres, PMIX_INFO);
	pthread_mutex_destroy(&w->mu);
	pxc_sync_fini(&w->sync);
	free(w);
}

static void bw_done(pmix_status_t st, pmix_info_t *res, size_t nres, void *cbdata,
		    pmix_release_cbfunc_t rel, void *relcbdata)
{
	bwait_t *w = cbdata;
	bool gone;

	pthread_mutex_lock(&w->mu);
	gone = w->abandoned;
	w->answered = true;
	if (!gone && st == PMIX_SUCCESS && nres && pxc_info_dup(res, nres, &w->res) == PMIX_SUCCESS)
		w->nres = nres;
	pthread_mutex_unlock(&w->mu);
	if (rel)
		rel(relcbdata);
	if (gone)
		bw_destroy(w);
	else
		pxc_sync_signal(&w->sync, st);
}

/* Waits for the call's own timeout (info's, else the default), the
 * construct's and a margin. */
static pmix_status_t bw_wait(bwait_t *w, pmix_status_t st, const pmix_info_t *info, size_t ninfo,
			     pmix_info_t **results, size_t *nresults)
{
	int ms = pxc_request_timeout_ms(info, ninfo);
	int timeout_s = ms > 0 ? ms / 1000 : pxc_default_timeout();

	if (st == PMIX_OPERATION_SUCCEEDED) {
		st = PMIX_SUCCESS;
	} else if (st == PMIX_SUCCESS) {
		st = pxc_sync_wait(&w->sync, (timeout_s + pxc_default_timeout() + 10) * 1000);
		if (st == PMIX_ERR_TIMEOUT) {
			bool answered;

			pthread_mutex_lock(&w->mu);
			answered = w->answered;
			w->abandoned = !answered;
			pthread_mutex_unlock(&w->mu);
			if (!answered)
				return st;                /* the callback frees w */
			st = pxc_sync_wait(&w->sync, -1); /* signalled right after */
		}
	}
	if (results && st == PMIX_SUCCESS) {
		*results = w->res;
		*nresults = w->nres;
		w->res = NULL;
		w->nres = 0;
	}
	bw_destroy(w);
	return st;
}

static bwait_t *bw_new(pmix_info_t **results, size_t *nresults)
{
	bwait_t *w;

	if (results) {
		*results = NULL;
		*nresults = 0;
	}
	if (pxc_event_thread_is_self() ||
	    (pxc_progress_global() && pxc_progress_in_thread(pxc_progress_global())))
		return NULL; /* would wait for itself */
	if ((w = calloc(1, sizeof(*w)))) {
		pxc_sync_init(&w->sync);
		pthread_mutex_init(&w->mu, NULL);
	}
	return w;
}

pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t info[], size_t ninfo, pmix_info_t **results,
				size_t *nresult)
{
	bwait_t *w = bw_new(results, nresult);

	if (!w)
		return PMIX_ERR_WOULD_BLOCK;
	return bw_wait(w, PMIx_Group_invite_nb(grp, procs, nprocs, info, ninfo, bw_done, w), info,
		       ninfo, results, nresult);
}

pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader, pmix_group_opt_t opt,
			      const pmix_info_t info[], size_t ninfo, pmix_info_t **results,
			      size_t *nresult)
{
	bwait_t *w = bw_new(results, nresult);

	if (!w)
		return PMIX_ERR_WOULD_BLOCK;
	return bw_wait(w, PMIx_Group_join_nb(grp, leader, opt, info, ninfo, bw_done, w), info,
		       ninfo, results, nresult);
}
