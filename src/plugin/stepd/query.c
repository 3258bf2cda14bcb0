/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/query.c - see stepd/query.h; the key-by-key mapping is in
 * docs/query.md.
 *
 * Answered here: PMIX_QUERY_SPAWN_SUPPORT (the attributes lib/spawn_plan.c
 * honours), PMIX_QUERY_DEBUG_SUPPORT (an empty list: no debugger
 * attribute is honoured yet), PMIX_QUERY_MEMORY_USAGE (this node: the
 * step daemon's and its tasks' resident memory, from /proc). Asked of
 * srun: PMIX_TIME_REMAINING, PMIX_QUERY_JOB_STATUS, _ALLOC_STATUS,
 * _QUEUE_LIST, _QUEUE_STATUS, _NAMESPACES, _NAMESPACE_INFO. Any other key
 * stays unanswered; the core then answers what it can itself
 * (server/query.c) and the rest is PMIX_QUERY_PARTIAL_SUCCESS.
 *
 * Each question for srun (the asker's namespace, the key, its qualifiers
 * but PMIX_QUERY_REFRESH_CACHE) has a slot. Its answer serves later
 * askers for SlurmixQueryCache seconds (PMIX_TIME_REMAINING is kept as an
 * end time, so that it counts down meanwhile), and askers that come while
 * it is being asked wait for that answer: the node's ranks asking at once
 * make one request to srun. An asker with PMIX_QUERY_REFRESH_CACHE makes
 * its own (srun's cache coalesces those). A request that fails is kept
 * like an answer (none) for the same period.
 *
 * Threads: the stepd's progress thread, like the server's upcalls and the
 * agent client's callbacks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/proto.h"
#include "lib/spawn_plan.h"
#include "lib/util.h"
#include "net/stepend.h"
#include "stepd/query.h"
#include "slurm_adapter.h"

typedef struct call call_t;

typedef struct waiter {
	struct waiter *next;
	call_t *c;
} waiter_t;

typedef struct slot slot_t;

/* One request to srun for a slot, and who waits for it; in the list of
 * requests under way until answered. */
typedef struct sreq {
	struct sreq *next;
	slot_t *slot; /* NULL once the slot is gone */
	int64_t sent_ms;
	waiter_t *waiters;
} sreq_t;

struct slot {
	slot_t *next;
	char *key; /* the query key */
	unsigned char *id;
	size_t idlen;
	bool have; /* srun answered the key: ans */
	pmix_info_t ans;
	time_t end;        /* PMIX_TIME_REMAINING: when it reaches 0 */
	int64_t at_ms;     /* when the answer was asked for; -1: never */
	sreq_t *busy;      /* the latest request under way, or NULL */
	unsigned inflight; /* requests under way for it */
};

struct call {
	pmix_info_cbfunc_t cb;
	void *cbdata;
	pxc_infolist_t a; /* the answers */
	size_t pending;   /* slots waited for */
	size_t nkeys, answered;
};

/* Slots at most: questions beyond them (a client making up qualifiers)
 * go unanswered until old slots may go. */
#define QUERY_MAX_SLOTS 1024

static slot_t *slots;
static size_t nslots;
static sreq_t *asked; /* requests under way */

/* ---- answers ------------------------------------------------------------ */

static void call_load(call_t *c, const char *key, const void *v, pmix_data_type_t t)
{
	pmix_info_t *i = pxc_infolist_add(&c->a, NULL);

	if (!i)
		return;
	if (PMIx_Info_load(i, key, v, t) != PMIX_SUCCESS)
		c->a.n--;
	else
		c->answered++;
}

static void release(void *arg)
{
	call_t *c = arg;

	pxc_infolist_free(&c->a);
	free(c);
}

static void finish(void *arg)
{
	call_t *c = arg;
	pmix_status_t st = c->answered >= c->nkeys ? PMIX_SUCCESS :
			   c->answered             ? PMIX_QUERY_PARTIAL_SUCCESS :
						     PMIX_ERR_NOT_SUPPORTED;

	c->cb(st, c->a.n ? c->a.info : NULL, c->a.n, c->cbdata, release, c);
}

/* Resident memory of pid in MB (/proc/<pid>/status VmRSS); < 0 unknown.
 * child: only while pid is this process's child (a task, not a process
 * that took the pid of one that ended). */
static double rss_mb(pid_t pid, bool child)
{
	char path[64], line[256];
	FILE *f;
	double mb = -1;
	long kb, ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "PPid: %ld", &ppid) == 1)
			continue;
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) {
			mb = kb / 1024.0;
			break;
		}
	}
	fclose(f);
	return child && ppid != (long)getpid() ? -1 : mb;
}

/* This node: PMIX_DAEMON_MEMORY (the step daemon), PMIX_CLIENT_AVG_MEMORY
 * (the mean over the node's tasks that still run), in MB. */
static void ans_memory(call_t *c)
{
	const pid_t *pids;
	size_t n = plug_stepend_local_pids(&pids), live = 0;
	double sum = 0, m;
	float dmn = (float)rss_mb(getpid(), false), avg;
	pmix_info_t arr[2];
	pmix_data_array_t da = { .type = PMIX_INFO, .size = 0, .array = arr };

	for (size_t i = 0; i < n; i++)
		if ((m = rss_mb(pids[i], true)) >= 0)
			sum += m, live++;
	avg = live ? (float)(sum / live) : 0;
	PMIx_Info_construct(&arr[0]);
	PMIx_Info_construct(&arr[1]);
	if (dmn >= 0)
		PMIx_Info_load(&arr[da.size++], PMIX_DAEMON_MEMORY, &dmn, PMIX_FLOAT);
	PMIx_Info_load(&arr[da.size++], PMIX_CLIENT_AVG_MEMORY, &avg, PMIX_FLOAT);
	call_load(c, PMIX_QUERY_MEMORY_USAGE, &da, PMIX_DATA_ARRAY);
	PMIx_Info_destruct(&arr[0]);
	PMIx_Info_destruct(&arr[1]);
}

/* Keys answered on this node. True when key is one of them. */
static bool answer_here(call_t *c, const char *key)
{
	char *list;

	if (!strcmp(key, PMIX_QUERY_SPAWN_SUPPORT)) {
		if ((list = plug_spawn_supported()))
			call_load(c, key, list, PMIX_STRING);
		free(list);
		return true;
	}
	if (!strcmp(key, PMIX_QUERY_DEBUG_SUPPORT)) {
		call_load(c, key, "", PMIX_STRING);
		return true;
	}
	if (!strcmp(key, PMIX_QUERY_MEMORY_USAGE)) {
		ans_memory(c);
		return true;
	}
	return false;
}

static bool for_srun(const char *key)
{
	static const char *const keys[] = {
		PMIX_TIME_REMAINING,       PMIX_QUERY_JOB_STATUS,   PMIX_QUERY_ALLOC_STATUS,
		PMIX_QUERY_QUEUE_LIST,     PMIX_QUERY_QUEUE_STATUS, PMIX_QUERY_NAMESPACES,
		PMIX_QUERY_NAMESPACE_INFO,
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* The slot's answer into c. */
static void give(call_t *c, const slot_t *s)
{
	pmix_info_t *i;

	if (!s->have)
		return;
	if (!strcmp(s->key, PMIX_TIME_REMAINING)) {
		time_t now = time(NULL);
		uint32_t left = s->end <= now ? 0 : (uint32_t)(s->end - now);

		call_load(c, s->key, &left, PMIX_UINT32);
		return;
	}
	if ((i = pxc_infolist_add(&c->a, NULL))) {
		if (PMIx_Info_xfer(i, &s->ans) == PMIX_SUCCESS)
			c->answered++;
		else
			c->a.n--;
	}
}

/* ---- slots -------------------------------------------------------------- */

/* The question's identity: asker's nspace, key, qualifiers but
 * PMIX_QUERY_REFRESH_CACHE, packed. 0/-1. */
static int question_id(const pmix_proc_t *who, const char *key, const pmix_query_t *q,
		       pmix_data_buffer_t *b)
{
	pxc_buf_init(b);
	if (pxc_pack_str(b, who->nspace) != PMIX_SUCCESS || pxc_pack_str(b, key) != PMIX_SUCCESS)
		return -1;
	for (size_t i = 0; i < q->nqual; i++)
		if (!PMIx_Check_key(q->qualifiers[i].key, PMIX_QUERY_REFRESH_CACHE) &&
		    pxc_pack_array(b, &q->qualifiers[i], 1, PMIX_INFO) != PMIX_SUCCESS)
			return -1;
	return 0;
}

static void slot_free(slot_t *s)
{
	PMIx_Info_destruct(&s->ans);
	free(s->key);
	free(s->id);
	free(s);
	nslots--;
}

/* The slot of the question id, made if new; on the way, slots that no
 * request uses and whose answer is past its period go. */
static slot_t *slot_get(const char *key, const pmix_data_buffer_t *id, int64_t now)
{
	int64_t keep = (int64_t)plug_conf.query_cache * 1000;
	slot_t *s;

	for (slot_t **p = &slots; (s = *p);) {
		if (s->idlen == id->bytes_used && !memcmp(s->id, id->base_ptr, s->idlen))
			return s;
		if (!s->inflight && (s->at_ms < 0 || now - s->at_ms > keep)) {
			*p = s->next;
			slot_free(s);
			continue;
		}
		p = &s->next;
	}
	if (nslots >= QUERY_MAX_SLOTS)
		return NULL;
	if (!(s = calloc(1, sizeof(*s))) ||
	    !(s->id = malloc(id->bytes_used ? id->bytes_used : 1)) || !(s->key = strdup(key))) {
		if (s)
			free(s->id);
		free(s);
		return NULL;
	}
	memcpy(s->id, id->base_ptr, id->bytes_used);
	s->idlen = id->bytes_used;
	s->at_ms = -1;
	PMIx_Info_construct(&s->ans);
	s->next = slots;
	slots = s;
	nslots++;
	return s;
}

static void wake(sreq_t *r)
{
	while (r->waiters) {
		waiter_t *w = r->waiters;

		r->waiters = w->next;
		if (r->slot)
			give(w->c, r->slot);
		if (--w->c->pending == 0)
			finish(w->c);
		free(w);
	}
	free(r);
}

static void got_answer(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	sreq_t *r = arg;
	slot_t *s = r->slot;
	pmix_info_t *info = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS &&
	    pxc_unpack_array(reply, (void **)&info, &n, PMIX_INFO) != PMIX_SUCCESS) {
		plug_error("malformed query answer from srun");
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	for (sreq_t **p = &asked; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	if (s)
		s->inflight--;
	/* an older request (a REFRESH_CACHE one overtook it) leaves the
	 * newer answer alone */
	if (s && r->sent_ms >= s->at_ms) {
		PMIx_Info_destruct(&s->ans);
		PMIx_Info_construct(&s->ans);
		s->have = false;
		s->at_ms = r->sent_ms;
		for (size_t i = 0; st == PMIX_SUCCESS && i < n && !s->have; i++) {
			if (!PMIx_Check_key(info[i].key, s->key))
				continue;
			if (!strcmp(s->key, PMIX_TIME_REMAINING)) {
				s->have = info[i].value.type == PMIX_UINT32;
				s->end = time(NULL) + (s->have ? info[i].value.data.uint32 : 0);
			} else {
				s->have = PMIx_Info_xfer(&s->ans, &info[i]) == PMIX_SUCCESS;
			}
		}
		if (st != PMIX_SUCCESS)
			plug_debug("query %s: srun: %s", s->key, PMIx_Error_string(st));
	}
	if (s && s->busy == r)
		s->busy = NULL;
	if (info)
		pxc_array_free(info, n, PMIX_INFO);
	wake(r);
}

/* Asks srun the question of slot s (key and q's qualifiers). */
static sreq_t *ask(slot_t *s, const pmix_proc_t *who, const pmix_query_t *q, bool refresh)
{
	sreq_t *r = calloc(1, sizeof(*r));
	pmix_query_t one = { 0 };
	char *keys[2] = { s->key, NULL };
	pmix_data_buffer_t b;
	int rc = -1;

	if (!r)
		return NULL;
	r->slot = s;
	r->sent_ms = plug_mono_ms();
	one.keys = keys;
	one.qualifiers = q->qualifiers;
	one.nqual = q->nqual;
	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, refresh ? 1 : 0) == PMIX_SUCCESS &&
	    pxc_pack_proc(&b, who) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, &one, 1, PMIX_QUERY) == PMIX_SUCCESS)
		rc = plug_agent_request(PLUG_NET_SLURMQ, &b, 0, got_answer, r);
	pxc_buf_clear(&b);
	if (rc < 0) {
		free(r);
		return NULL;
	}
	s->busy = r;
	s->inflight++;
	r->next = asked;
	asked = r;
	return r;
}

/* Key of query q for srun: answered from the slot, or c waits for it. */
static void ask_srun(call_t *c, const pmix_proc_t *who, const char *key, const pmix_query_t *q,
		     int64_t now)
{
	bool refresh = pxc_info_flag(q->qualifiers, q->nqual, PMIX_QUERY_REFRESH_CACHE);
	pmix_data_buffer_t id;
	slot_t *s = NULL;
	sreq_t *r;
	waiter_t *w;

	if (question_id(who, key, q, &id) == 0)
		s = slot_get(key, &id, now);
	pxc_buf_clear(&id);
	if (!s)
		return;
	if (!refresh && s->at_ms >= 0 && now - s->at_ms <= (int64_t)plug_conf.query_cache * 1000) {
		give(c, s);
		return;
	}
	r = !refresh && s->busy ? s->busy : ask(s, who, q, refresh);
	if (!r || !(w = calloc(1, sizeof(*w))))
		return; /* unanswered (a request already sent is answered to the
			 * others waiting) */
	w->c = c;
	w->next = r->waiters;
	r->waiters = w;
	c->pending++;
}

pmix_status_t plug_query_host(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
			      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	call_t *c = calloc(1, sizeof(*c));
	int64_t now = plug_mono_ms();

	if (!c)
		return PMIX_ERR_NOMEM;
	c->cb = cbfunc;
	c->cbdata = cbdata;
	c->pending = 1; /* this call's own, dropped below */
	for (size_t i = 0; i < nqueries; i++)
		for (size_t k = 0; queries[i].keys && queries[i].keys[k]; k++) {
			const char *key = queries[i].keys[k];

			c->nkeys++;
			if (!answer_here(c, key) && for_srun(key))
				ask_srun(c, proct, key, &queries[i], now);
		}
	/* answered from the progress thread's next turn, never from inside
	 * this call */
	if (--c->pending == 0 && pxc_progress_post(pxc_progress_global(), finish, c) < 0) {
		release(c);
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

void plug_query_stepd_stop(void)
{
	/* requests still under way (their answers still wake their waiters)
	 * no longer write into the slots */
	for (sreq_t *r = asked; r; r = r->next)
		r->slot = NULL;
	while (slots) {
		slot_t *s = slots;

		slots = s->next;
		slot_free(s);
	}
}
