/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_dir.c - the publish/lookup directory of slurmix-run.
 *
 * An in-memory list of published keys, each with its publisher, range and
 * persistence, and a list of lookups waiting for keys (PMIX_WAIT). Main
 * thread only (sxr_host.c posts the requests here).
 *
 * Ranges: an entry published with PMIX_RANGE_NAMESPACE is seen only by
 * procs of the publisher's namespace, PMIX_RANGE_PROC_LOCAL only by the
 * publisher; every other range (SESSION, the default, GLOBAL, LOCAL, RM)
 * means everybody here, since the launcher is the whole session. A lookup
 * may narrow its own range the same way. Two entries may share a key only
 * if no proc can see both (PMIX_ERR_DUPLICATE_KEY otherwise).
 * Persistence: PMIX_PERSIST_FIRST_READ entries go away when a lookup
 * returns them, PMIX_PERSIST_PROC when the publisher ends,
 * PMIX_PERSIST_APP when its namespace ends; the others at exit.
 * Lookups: without PMIX_WAIT they return what is there now (NOT_FOUND if
 * nothing); with PMIX_WAIT (bool true, or an int count, 0 = all keys) they
 * complete when enough keys are published, or fail with PMIX_ERR_TIMEOUT
 * after PMIX_TIMEOUT seconds (default SXR_LOOKUP_TIMEOUT; 0 = until the
 * launcher ends).
 */
#include "sxr.h"
#include "sxr_dir.h"
#include "sxr_util.h"

#include <stdlib.h>
#include <string.h>

struct dent {
	pmix_key_t key;
	pmix_value_t value;
	pmix_proc_t owner;
	pmix_data_range_t range;
	pmix_persistence_t persist;
	struct dent *next;
};

struct dwait {
	pmix_proc_t who;
	char **keys;
	pmix_data_range_t range;
	size_t want;
	double deadline; /* 0 = none */
	pmix_lookup_cbfunc_t cbfunc;
	void *cbdata;
	struct dwait *next;
};

struct sxr_dir {
	struct dent *ents;
	struct dwait *waits;
};

struct sxr_dir *sxr_dir_create(void)
{
	return calloc(1, sizeof(struct sxr_dir));
}

static void dent_free(struct dent *e)
{
	PMIX_VALUE_DESTRUCT(&e->value);
	free(e);
}

static void dwait_free(struct dwait *w)
{
	sxr_argv_free(w->keys);
	free(w);
}

void sxr_dir_destroy(struct sxr_dir *d)
{
	if (!d)
		return;
	sxr_dir_flush(d);
	while (d->ents) {
		struct dent *e = d->ents;

		d->ents = e->next;
		dent_free(e);
	}
	free(d);
}

static int is_directive(const char *key)
{
	static const char *const dirs[] = { PMIX_RANGE,  PMIX_PERSISTENCE, PMIX_TIMEOUT, PMIX_WAIT,
					    PMIX_USERID, PMIX_GRPID,       NULL };

	for (const char *const *k = dirs; *k; k++)
		if (!strcmp(key, *k))
			return 1;
	return 0;
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(info[i].key, key))
			return &info[i];
	return NULL;
}

static pmix_data_range_t get_range(const pmix_info_t *info, size_t n)
{
	const pmix_info_t *in = find(info, n, PMIX_RANGE);

	return in && in->value.type == PMIX_DATA_RANGE ? in->value.data.range : PMIX_RANGE_SESSION;
}

static int same_ns(const pmix_proc_t *a, const pmix_proc_t *b)
{
	return !strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
}

/* Can `who`, looking in range `lr`, see entry e? */
static int visible(const struct dent *e, const pmix_proc_t *who, pmix_data_range_t lr)
{
	int same_proc = same_ns(&e->owner, who) && e->owner.rank == who->rank;

	if (e->range == PMIX_RANGE_PROC_LOCAL || lr == PMIX_RANGE_PROC_LOCAL)
		return same_proc;
	if (e->range == PMIX_RANGE_NAMESPACE || lr == PMIX_RANGE_NAMESPACE)
		return same_ns(&e->owner, who);
	return 1;
}

/* Could some proc see both entries? Then they may not share a key. */
static int overlap(const struct dent *a, const struct dent *b)
{
	int narrow_a = a->range == PMIX_RANGE_NAMESPACE || a->range == PMIX_RANGE_PROC_LOCAL;
	int narrow_b = b->range == PMIX_RANGE_NAMESPACE || b->range == PMIX_RANGE_PROC_LOCAL;

	if (!narrow_a || !narrow_b)
		return 1;
	if (!same_ns(&a->owner, &b->owner))
		return 0;
	if (a->range == PMIX_RANGE_PROC_LOCAL && b->range == PMIX_RANGE_PROC_LOCAL)
		return a->owner.rank == b->owner.rank;
	return 1;
}

static struct dent *find_ent(struct sxr_dir *d, const char *key, const pmix_proc_t *who,
			     pmix_data_range_t lr)
{
	for (struct dent *e = d->ents; e; e = e->next)
		if (!strcmp(e->key, key) && visible(e, who, lr))
			return e;
	return NULL;
}

/* ---------------------------------------------------------------- lookup */

static void unlink_ent(struct sxr_dir *d, struct dent *gone)
{
	for (struct dent **pp = &d->ents; *pp; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			dent_free(gone);
			return;
		}
}

/* Completes w if enough of its keys are there; returns 1 if it did. */
static int try_complete(struct sxr_dir *d, struct dwait *w, int final)
{
	size_t nkeys = 0, n = 0;
	pmix_pdata_t *pd = NULL;
	struct dent *e;

	for (char **k = w->keys; k && *k; k++)
		nkeys++;
	for (char **k = w->keys; k && *k; k++)
		n += find_ent(d, *k, &w->who, w->range) != NULL;
	if (!final && n < (w->want ? w->want : nkeys))
		return 0;
	if (n == 0) {
		w->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata);
		return 1;
	}
	PMIX_PDATA_CREATE(pd, n);
	n = 0;
	for (char **k = w->keys; pd && k && *k; k++) {
		if (!(e = find_ent(d, *k, &w->who, w->range)))
			continue;
		pd[n].proc = e->owner;
		PMIX_LOAD_KEY(pd[n].key, e->key);
		PMIx_Value_xfer(&pd[n].value, &e->value);
		n++;
		if (e->persist == PMIX_PERSIST_FIRST_READ)
			unlink_ent(d, e);
	}
	w->cbfunc(pd ? PMIX_SUCCESS : PMIX_ERR_NOMEM, pd, n, w->cbdata);
	PMIX_PDATA_FREE(pd, n);
	return 1;
}

static double lookup_deadline(const pmix_info_t *info, size_t n)
{
	const pmix_info_t *in = find(info, n, PMIX_TIMEOUT);
	int secs = SXR_LOOKUP_TIMEOUT;

	if (in && in->value.type == PMIX_INT)
		secs = in->value.data.integer;
	else if (in && in->value.type == PMIX_UINT32)
		secs = (int)in->value.data.uint32;
	return secs > 0 ? sxr_now() + secs : 0;
}

/* PMIX_WAIT: -1 = no wait, else the number of keys wanted (0 = all). */
static long lookup_want(const pmix_info_t *info, size_t n)
{
	const pmix_info_t *in = find(info, n, PMIX_WAIT);

	if (!in)
		return -1;
	if (in->value.type == PMIX_BOOL)
		return in->value.data.flag ? 0 : -1;
	if (in->value.type == PMIX_INT)
		return in->value.data.integer < 0 ? -1 : in->value.data.integer;
	return 0;
}

void sxr_dir_lookup(struct sxr_dir *d, const pmix_proc_t *who, char **keys, const pmix_info_t *info,
		    size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	struct dwait *w = calloc(1, sizeof(*w));
	long want = lookup_want(info, ninfo);

	if (!w || !keys || !keys[0] || !(w->keys = sxr_argv_dup(keys))) {
		free(w);
		cbfunc(keys && keys[0] ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM, NULL, 0, cbdata);
		return;
	}
	w->who = *who;
	w->range = get_range(info, ninfo);
	w->cbfunc = cbfunc;
	w->cbdata = cbdata;
	w->want = want > 0 ? (size_t)want : 0;
	if (try_complete(d, w, want < 0)) {
		dwait_free(w);
		return;
	}
	w->deadline = lookup_deadline(info, ninfo);
	w->next = d->waits;
	d->waits = w;
}

/* Completes every waiting lookup that can be (after a publish). */
static void retry_waits(struct sxr_dir *d)
{
	struct dwait **pp = &d->waits;

	while (*pp) {
		struct dwait *w = *pp;

		if (try_complete(d, w, 0)) {
			*pp = w->next;
			dwait_free(w);
		} else {
			pp = &w->next;
		}
	}
}

/* ---------------------------------------------------------------- publish */

pmix_status_t sxr_dir_publish(struct sxr_dir *d, const pmix_proc_t *who, const pmix_info_t *info,
			      size_t ninfo)
{
	pmix_data_range_t range = get_range(info, ninfo);
	const pmix_info_t *pin = find(info, ninfo, PMIX_PERSISTENCE);
	pmix_persistence_t persist = pin && pin->value.type == PMIX_PERSIST ?
					     pin->value.data.persist :
					     PMIX_PERSIST_SESSION;
	size_t ndata = 0;

	for (size_t i = 0; i < ninfo; i++) {
		struct dent probe = { .owner = *who, .range = range };

		if (is_directive(info[i].key))
			continue;
		ndata++;
		for (struct dent *e = d->ents; e; e = e->next)
			if (!strcmp(e->key, info[i].key) && overlap(e, &probe))
				return PMIX_ERR_DUPLICATE_KEY;
	}
	if (!ndata)
		return PMIX_ERR_BAD_PARAM;
	for (size_t i = 0; i < ninfo; i++) {
		struct dent *e;

		if (is_directive(info[i].key))
			continue;
		if (!(e = calloc(1, sizeof(*e))))
			return PMIX_ERR_NOMEM;
		PMIX_LOAD_KEY(e->key, info[i].key);
		PMIx_Value_xfer(&e->value, &info[i].value);
		e->owner = *who;
		e->range = range;
		e->persist = persist;
		e->next = d->ents;
		d->ents = e;
	}
	retry_waits(d);
	return PMIX_SUCCESS;
}

static int key_listed(char **keys, const char *key)
{
	for (char **k = keys; k && *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}

pmix_status_t sxr_dir_unpublish(struct sxr_dir *d, const pmix_proc_t *who, char **keys,
				const pmix_info_t *info, size_t ninfo)
{
	pmix_data_range_t range = get_range(info, ninfo);
	struct dent **pp = &d->ents;
	int n = 0;

	while (*pp) {
		struct dent *e = *pp;

		if (same_ns(&e->owner, who) && e->owner.rank == who->rank &&
		    (!keys || !keys[0] || key_listed(keys, e->key)) && visible(e, who, range)) {
			*pp = e->next;
			dent_free(e);
			n++;
		} else {
			pp = &e->next;
		}
	}
	return n || !keys || !keys[0] ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

/* ---------------------------------------------------------------- ends */

void sxr_dir_proc_gone(struct sxr_dir *d, const char *nspace, pmix_rank_t rank)
{
	struct dent **pp = &d->ents;
	struct dwait **wp = &d->waits;

	while (*pp) {
		struct dent *e = *pp;
		int mine = !strncmp(e->owner.nspace, nspace, PMIX_MAX_NSLEN);
		int gone = rank == PMIX_RANK_WILDCARD ?
				   mine && e->persist == PMIX_PERSIST_APP :
				   mine && e->owner.rank == rank && e->persist == PMIX_PERSIST_PROC;

		if (gone) {
			*pp = e->next;
			dent_free(e);
		} else {
			pp = &e->next;
		}
	}
	while (*wp) {
		struct dwait *w = *wp;

		if (!strncmp(w->who.nspace, nspace, PMIX_MAX_NSLEN) &&
		    (rank == PMIX_RANK_WILDCARD || w->who.rank == rank)) {
			*wp = w->next;
			w->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata);
			dwait_free(w);
		} else {
			wp = &w->next;
		}
	}
}

double sxr_dir_timers(struct sxr_dir *d, double now)
{
	struct dwait **pp = &d->waits;
	double next = 0;

	while (*pp) {
		struct dwait *w = *pp;

		if (w->deadline && w->deadline <= now) {
			*pp = w->next;
			w->cbfunc(PMIX_ERR_TIMEOUT, NULL, 0, w->cbdata);
			dwait_free(w);
			continue;
		}
		if (w->deadline && (!next || w->deadline < next))
			next = w->deadline;
		pp = &w->next;
	}
	return next;
}

void sxr_dir_flush(struct sxr_dir *d)
{
	while (d && d->waits) {
		struct dwait *w = d->waits;

		d->waits = w->next;
		w->cbfunc(PMIX_ERR_TIMEOUT, NULL, 0, w->cbdata);
		dwait_free(w);
	}
}
