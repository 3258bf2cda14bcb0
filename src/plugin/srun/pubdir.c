/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/pubdir.c - publish / lookup / unpublish across the steps of a job,
 * srun's half: the directory (docs/dynamic.md section 4; the step
 * daemons forward the requests: stepd/publish.c).
 *
 * The directory: <jobdir>/pub/, one file per published key, written
 * atomically: the entry is written to a temporary name and link()ed to its
 * final name, which fails with EEXIST when the key is already published in
 * that range - PMIX_ERR_DUPLICATE_KEY, without any lock. Names:
 *   s.<h>  ranges SESSION (the default), GLOBAL, LOCAL, RM, CUSTOM: seen
 *          by every step of the job; h = 64-bit FNV-1a hash of the key
 *   n.<h>  ranges NAMESPACE and PROC_LOCAL: seen by the publisher's
 *          namespace only; h = hash of nspace + key
 * Content (packed): key, publisher proc, range, persistence, step id of
 * the publishing srun, value. The key inside is checked on every read, so
 * a hash collision reads as "not there" (and a publish that collides
 * returns PMIX_ERR_DUPLICATE_KEY).
 * Persistence: FIRST_READ entries are claimed by rename() to a unique name
 * before they are read, so exactly one lookup gets them; PROC and APP
 * entries are removed when the publishing step's srun ends; INDEF and
 * SESSION (the default) stay until the job directory goes.
 * Lookups: without PMIX_WAIT, what is there (PMIX_ERR_NOT_FOUND if none);
 * with PMIX_WAIT (bool true = all keys, or an int count, 0 = all) srun
 * keeps the request and re-checks on every change of pub/ (inotify) until
 * enough keys are found or PMIX_TIMEOUT (default SlurmixTimeout) expires:
 * PMIX_ERR_TIMEOUT. Unpublish removes only the requester's own entries
 * (same nspace and rank); no keys = all of them.
 *
 * Threads: srun's agent's progress thread (its request handlers),
 * including the inotify event; plug_pub_srun_init in srun's main thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/conf.h"
#include "lib/proto.h"
#include "lib/jobdir.h"
#include "lib/pubinfo.h"
#include "srun/agent.h"
#include "srun/pubdir.h"
#include "slurm_adapter.h"

typedef struct {
	char *key;
	pmix_proc_t owner;
	uint32_t range, persist, step;
	pmix_value_t *value;
} ent_t;

typedef struct waiter {
	struct waiter *next;
	plug_agent_req_t *req;
	pmix_proc_t who;
	char **keys;
	size_t nkeys, want;
	pmix_data_range_t range;
	struct event *timer;
} waiter_t;

static struct {
	waiter_t *waiters;
	int ifd, wd; /* inotify instance, its watch on pub/ */
	struct event *iev, *poll;
	uint32_t claims;
} pubdir = { .ifd = -1, .wd = -1 };

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull; /* separator */
}

/* "pub/s.<h>" or "pub/n.<h>". */
static void ent_name(char *out, size_t len, const char *key, const char *ns, int nsr)
{
	uint64_t h = 1469598103934665603ull;

	if (nsr)
		h = fnv(h, ns);
	h = fnv(h, key);
	snprintf(out, len, "pub/%c.%016llx", nsr ? 'n' : 's', (unsigned long long)h);
}

static void ent_clear(ent_t *e)
{
	free(e->key);
	if (e->value)
		PMIx_Value_free(e->value, 1);
	memset(e, 0, sizeof(*e));
}

static int ent_pack(const ent_t *e, pmix_data_buffer_t *b)
{
	return pxc_pack_str(b, e->key) != PMIX_SUCCESS ||
			       pxc_pack_proc(b, &e->owner) != PMIX_SUCCESS ||
			       pxc_pack_u32(b, e->range) != PMIX_SUCCESS ||
			       pxc_pack_u32(b, e->persist) != PMIX_SUCCESS ||
			       pxc_pack_u32(b, e->step) != PMIX_SUCCESS ||
			       pxc_pack(b, e->value, 1, PMIX_VALUE) != PMIX_SUCCESS ?
		       -1 :
		       0;
}

/* Reads an entry file (path relative to the job dir). 0/-1. */
static int ent_read(const char *name, ent_t *e)
{
	pmix_data_buffer_t b;
	char *data = NULL;
	size_t len = 0;
	int32_t one = 1;
	int rc;

	memset(e, 0, sizeof(*e));
	if (plug_jobdir_read(name, PUB_MAX_ENTRY, &data, &len) < 0)
		return -1;
	pxc_buf_init(&b);
	pxc_buf_load_take(&b, data, len);
	e->value = calloc(1, sizeof(*e->value));
	rc = e->value && pxc_unpack_str(&b, &e->key) == PMIX_SUCCESS && e->key &&
			     pxc_unpack_proc(&b, &e->owner) == PMIX_SUCCESS &&
			     pxc_unpack_u32(&b, &e->range) == PMIX_SUCCESS &&
			     pxc_unpack_u32(&b, &e->persist) == PMIX_SUCCESS &&
			     pxc_unpack_u32(&b, &e->step) == PMIX_SUCCESS &&
			     pxc_unpack(&b, e->value, &one, PMIX_VALUE) == PMIX_SUCCESS ?
		     0 :
		     -1;
	pxc_buf_clear(&b);
	if (rc < 0)
		ent_clear(e);
	return rc;
}

/* Writes e under its final name unless it exists. PMIX_SUCCESS,
 * PMIX_ERR_DUPLICATE_KEY or an error. */
static pmix_status_t ent_create(const ent_t *e, const char *name)
{
	char tmp[64], *tpath = NULL, *fpath = NULL;
	pmix_data_buffer_t b;
	pmix_status_t st = PMIX_ERROR;

	snprintf(tmp, sizeof(tmp), "pub/.tmp.%d.%u", (int)getpid(), ++pubdir.claims);
	pxc_buf_init(&b);
	if (ent_pack(e, &b) < 0 || plug_jobdir_write(tmp, b.base_ptr, b.bytes_used) < 0)
		goto out;
	tpath = plug_jobdir_file(tmp);
	fpath = plug_jobdir_file(name);
	if (tpath && fpath && link(tpath, fpath) == 0)
		st = PMIX_SUCCESS;
	else if (errno == EEXIST)
		st = PMIX_ERR_DUPLICATE_KEY;
	if (tpath)
		unlink(tpath);
out:
	pxc_buf_clear(&b);
	free(tpath);
	free(fpath);
	return st;
}

/* ---- PUBLISH ------------------------------------------------------------ */

static void srv_publish(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	pmix_proc_t who;
	pmix_info_t *info = NULL;
	size_t n = 0, made = 0;
	/* clang-format off */
	char (*names)[48] = NULL;
	/* clang-format on */
	pmix_status_t st = PMIX_SUCCESS;
	ent_t e = { 0 };

	if (pxc_unpack_proc(in, &who) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &n, PMIX_INFO) != PMIX_SUCCESS)
		return plug_agent_reply(req, PMIX_ERR_UNPACK_FAILURE, NULL);
	who.nspace[PMIX_MAX_NSLEN] = '\0';
	e.owner = who;
	e.range = plug_pub_range(info, n);
	e.persist = (uint32_t)plug_pub_info_int(info, n, PMIX_PERSISTENCE, PMIX_PERSIST_SESSION);
	{
		const pmix_info_t *p = pxc_info_find(info, n, PMIX_PERSISTENCE);

		if (p && p->value.type == PMIX_PERSIST)
			e.persist = p->value.data.persist;
	}
	e.step = plug_agent_step();
	if (!(names = calloc(n ? n : 1, sizeof(*names))))
		st = PMIX_ERR_NOMEM;
	for (size_t i = 0; st == PMIX_SUCCESS && i < n; i++) {
		if (plug_pub_is_directive(info[i].key))
			continue;
		e.key = info[i].key;
		e.value = &info[i].value;
		ent_name(names[made], sizeof(names[made]), e.key, who.nspace,
			 plug_pub_ns_only(e.range));
		if ((st = ent_create(&e, names[made])) == PMIX_SUCCESS)
			made++;
	}
	if (st != PMIX_SUCCESS) /* all or nothing */
		for (size_t i = 0; i < made; i++)
			plug_jobdir_unlink(names[i]);
	free(names);
	pxc_array_free(info, n, PMIX_INFO);
	plug_agent_reply(req, st, NULL);
}

/* ---- LOOKUP ------------------------------------------------------------- */

/* Finds key for who: the namespace entry first, then the session one.
 * name gets the file name. 0, or -1 when absent. */
static int find_ent(const waiter_t *w, const char *key, ent_t *e, char *name, size_t len)
{
	for (int nsr = 1; nsr >= 0; nsr--) {
		if (!nsr && plug_pub_ns_only(w->range))
			break;
		ent_name(name, len, key, w->who.nspace, nsr);
		if (ent_read(name, e) < 0)
			continue;
		if (!strcmp(e->key, key) &&
		    (!nsr || PMIx_Check_nspace(e->owner.nspace, w->who.nspace)))
			return 0;
		ent_clear(e);
	}
	return -1;
}

/* FIRST_READ: takes the entry away; 0 when this lookup got it. */
static int claim(const char *name, ent_t *e)
{
	char to[64];
	char *from = plug_jobdir_file(name), *top;
	int rc = -1;

	snprintf(to, sizeof(to), "pub/.claim.%d.%u", (int)getpid(), ++pubdir.claims);
	top = plug_jobdir_file(to);
	if (from && top && rename(from, top) == 0) {
		ent_clear(e);
		rc = ent_read(to, e);
		unlink(top);
	}
	free(from);
	free(top);
	return rc;
}

static void pdata_fill(pmix_pdata_t *pd, ent_t *e)
{
	PMIx_Load_procid(&pd->proc, e->owner.nspace, e->owner.rank);
	PMIx_Load_key(pd->key, e->key);
	pd->value = *e->value; /* moves the contents */
	free(e->value);
	e->value = NULL;
}

static size_t count_present(const waiter_t *w)
{
	char name[48];
	size_t n = 0;

	for (size_t i = 0; i < w->nkeys; i++) {
		ent_t e;

		if (find_ent(w, w->keys[i], &e, name, sizeof(name)) == 0) {
			n++;
			ent_clear(&e);
		}
	}
	return n;
}

/* Collects (and claims) what is there into pd; the count found. */
static size_t collect(const waiter_t *w, pmix_pdata_t *pd)
{
	char name[48];
	size_t found = 0;

	for (size_t i = 0; i < w->nkeys; i++) {
		ent_t e;

		if (find_ent(w, w->keys[i], &e, name, sizeof(name)) < 0)
			continue;
		if (e.persist == PMIX_PERSIST_FIRST_READ && claim(name, &e) < 0)
			continue; /* another lookup took it first */
		pdata_fill(&pd[found++], &e);
		ent_clear(&e);
	}
	return found;
}

/* Tries to complete w: 1 done (answered), 0 keep waiting. final: 1 answer
 * with what there is, 2 the same after the timeout. Nothing is claimed
 * before enough keys are there. */
static int try_lookup(waiter_t *w, int final)
{
	size_t cap = w->nkeys ? w->nkeys : 1, found = 0;
	pmix_pdata_t *pd;
	pmix_data_buffer_t out;
	pmix_status_t st;

	if (!final && count_present(w) < w->want)
		return 0;
	if ((pd = PMIx_Pdata_create(cap)))
		found = collect(w, pd);
	st = !pd       ? PMIX_ERR_NOMEM :
	     found     ? PMIX_SUCCESS :
	     final > 1 ? PMIX_ERR_TIMEOUT :
			 PMIX_ERR_NOT_FOUND;
	pxc_buf_init(&out);
	if (st == PMIX_SUCCESS && pxc_pack_array(&out, pd, found, PMIX_PDATA) != PMIX_SUCCESS)
		st = PMIX_ERR_PACK_FAILURE;
	plug_agent_reply(w->req, st, &out);
	w->req = NULL;
	pxc_buf_clear(&out);
	if (pd)
		PMIx_Pdata_free(pd, cap);
	return 1;
}

static void waiter_free(waiter_t *w)
{
	for (waiter_t **p = &pubdir.waiters; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	if (w->timer)
		event_free(w->timer);
	if (w->req)
		plug_agent_reply(w->req, PMIX_ERR_UNREACH, NULL);
	pxc_array_free(w->keys, w->nkeys, PMIX_STRING);
	free(w);
	/* Nobody waits: drop the watch now. Its teardown is deferred by the
	 * kernel; closing an instance that still watches waits for it (an
	 * RCU grace period, 10-20 ms measured at srun's end). */
	if (!pubdir.waiters && pubdir.wd >= 0) {
		inotify_rm_watch(pubdir.ifd, pubdir.wd);
		pubdir.wd = -1;
	}
}

/* Something changed in pub/ (or the poll timer): re-check every waiter. */
static void recheck(void)
{
	waiter_t *w, *next;

	for (w = pubdir.waiters; w; w = next) {
		next = w->next;
		if (plug_agent_req_gone(w->req) || try_lookup(w, 0))
			waiter_free(w);
	}
}

static void on_inotify(int fd, short what, void *arg)
{
	char buf[4096];

	(void)what, (void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	recheck();
}

static void on_poll(int fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	recheck();
}

static void on_wait_timeout(int fd, short what, void *arg)
{
	waiter_t *w = arg;

	(void)fd, (void)what;
	try_lookup(w, 2);
	waiter_free(w);
}

/* inotify on pub/ while lookups wait, else a poll timer. The instance is
 * made at the first waiting lookup; its watch goes when the last waiter
 * does (waiter_free) and comes back with the next one. */
static void watch_dir(void)
{
	struct event_base *base = plug_agent_base();
	struct timeval tv = { 0, PUB_POLL_MS * 1000 };
	char *pub = plug_jobdir_file("pub");

	if ((pubdir.iev && pubdir.wd >= 0) || pubdir.poll || !pub)
		return free(pub);
	if (pubdir.ifd < 0)
		pubdir.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pubdir.ifd >= 0 &&
	    (pubdir.wd = inotify_add_watch(pubdir.ifd, pub,
					   IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 &&
	    (pubdir.iev ||
	     (pubdir.iev = event_new(base, pubdir.ifd, EV_READ | EV_PERSIST, on_inotify, NULL))) &&
	    event_add(pubdir.iev, NULL) == 0) {
		free(pub);
		return;
	}
	plug_debug("no inotify on %s (%m): polling every %d ms", pub, PUB_POLL_MS);
	free(pub);
	if (pubdir.iev)
		event_free(pubdir.iev);
	if (pubdir.ifd >= 0)
		close(pubdir.ifd);
	pubdir.iev = NULL;
	pubdir.ifd = pubdir.wd = -1;
	pubdir.poll = event_new(base, -1, EV_PERSIST, on_poll, NULL);
	if (pubdir.poll)
		event_add(pubdir.poll, &tv);
}

/* The number of keys a PMIX_WAIT lookup needs; 0: no waiting. */
static size_t wait_count(const pmix_info_t *info, size_t n, size_t nkeys)
{
	const pmix_info_t *i = pxc_info_find(info, n, PMIX_WAIT);
	int v;

	if (!i)
		return 0;
	if (i->value.type == PMIX_BOOL)
		return i->value.data.flag ? nkeys : 0;
	v = plug_pub_info_int(info, n, PMIX_WAIT, 0);
	return v <= 0 || (size_t)v > nkeys ? nkeys : (size_t)v;
}

static void srv_lookup(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	waiter_t *w = calloc(1, sizeof(*w));
	pmix_info_t *info = NULL;
	size_t n = 0;
	int tmo;
	struct timeval tv = { 0, 0 };

	if (!w || pxc_unpack_proc(in, &w->who) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&w->keys, &w->nkeys, PMIX_STRING) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &n, PMIX_INFO) != PMIX_SUCCESS || !w->nkeys) {
		pmix_status_t st = w ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;

		if (w)
			pxc_array_free(w->keys, w->nkeys, PMIX_STRING);
		pxc_array_free(info, n, PMIX_INFO);
		free(w);
		return plug_agent_reply(req, st, NULL);
	}
	w->who.nspace[PMIX_MAX_NSLEN] = '\0';
	w->req = req;
	w->range = plug_pub_range(info, n);
	w->want = wait_count(info, n, w->nkeys);
	tmo = plug_pub_info_int(info, n, PMIX_TIMEOUT, 0);
	tv.tv_sec = tmo > 0 ? tmo : (int)plug_conf.timeout;
	pxc_array_free(info, n, PMIX_INFO);
	w->next = pubdir.waiters;
	pubdir.waiters = w;
	if (try_lookup(w, w->want == 0))
		return waiter_free(w);
	w->timer = evtimer_new(plug_agent_base(), on_wait_timeout, w);
	if (!w->timer || evtimer_add(w->timer, &tv) < 0)
		return waiter_free(w); /* answers UNREACH */
	watch_dir();
	/* what was published between the first look and the watch */
	if (try_lookup(w, 0))
		waiter_free(w);
}

/* ---- UNPUBLISH ---------------------------------------------------------- */

static int owned(const ent_t *e, const pmix_proc_t *who)
{
	return PMIx_Check_nspace(e->owner.nspace, who->nspace) && e->owner.rank == who->rank;
}

/* Removes who's entries of key (both ranges). The count removed. */
static int unpublish_key(const pmix_proc_t *who, const char *key, pmix_data_range_t r)
{
	char name[48];
	int n = 0;

	for (int nsr = 1; nsr >= 0; nsr--) {
		ent_t e;

		if (!nsr && plug_pub_ns_only(r))
			break;
		ent_name(name, sizeof(name), key, who->nspace, nsr);
		if (ent_read(name, &e) < 0)
			continue;
		if (!strcmp(e.key, key) && owned(&e, who)) {
			plug_jobdir_unlink(name);
			n++;
		}
		ent_clear(&e);
	}
	return n;
}

/* Every entry of who in pub/. */
static void unpublish_all(const pmix_proc_t *who, uint32_t step, int by_step)
{
	char *pub = plug_jobdir_file("pub"), name[300];
	DIR *d = pub ? opendir(pub) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		ent_t e;

		if ((de->d_name[0] != 's' && de->d_name[0] != 'n') || de->d_name[1] != '.')
			continue;
		snprintf(name, sizeof(name), "pub/%s", de->d_name);
		if (ent_read(name, &e) < 0)
			continue;
		if (by_step ? (e.step == step &&
			       (e.persist == PMIX_PERSIST_PROC || e.persist == PMIX_PERSIST_APP)) :
			      owned(&e, who))
			plug_jobdir_unlink(name);
		ent_clear(&e);
	}
	if (d)
		closedir(d);
	free(pub);
}

static void srv_unpublish(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	pmix_proc_t who;
	char **keys = NULL;
	pmix_info_t *info = NULL;
	size_t nkeys = 0, n = 0;
	int removed = 0;

	if (pxc_unpack_proc(in, &who) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&keys, &nkeys, PMIX_STRING) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &n, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_array_free(keys, nkeys, PMIX_STRING);
		return plug_agent_reply(req, PMIX_ERR_UNPACK_FAILURE, NULL);
	}
	who.nspace[PMIX_MAX_NSLEN] = '\0';
	if (!nkeys)
		unpublish_all(&who, 0, 0);
	for (size_t i = 0; i < nkeys; i++)
		removed += keys[i] ? unpublish_key(&who, keys[i], plug_pub_range(info, n)) : 0;
	pxc_array_free(keys, nkeys, PMIX_STRING);
	pxc_array_free(info, n, PMIX_INFO);
	plug_agent_reply(req, nkeys && !removed ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS, NULL);
}

/* ---- life --------------------------------------------------------------- */

/* srun ends: its PROC/APP entries go, pending lookups are answered. */
static void srv_stop(void)
{
	while (pubdir.waiters)
		waiter_free(pubdir.waiters);
	if (pubdir.iev)
		event_free(pubdir.iev);
	if (pubdir.poll)
		event_free(pubdir.poll);
	if (pubdir.ifd >= 0)
		close(pubdir.ifd); /* no watch left: quick */
	pubdir.iev = pubdir.poll = NULL;
	pubdir.ifd = pubdir.wd = -1;
	if (plug_jobdir_path())
		unpublish_all(NULL, plug_agent_step(), 1);
}

void plug_pub_srun_init(void)
{
	plug_agent_register_handler(PLUG_NET_PUBLISH, srv_publish, srv_stop);
	plug_agent_register_handler(PLUG_NET_LOOKUP, srv_lookup, NULL);
	plug_agent_register_handler(PLUG_NET_UNPUBLISH, srv_unpublish, NULL);
}
