/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/query.c - see srun/query.h; the key-by-key mapping is in
 * docs/query.md.
 *
 * Sources. Four slurmctld answers, each one RPC, each kept for
 * SlurmixQueryCache seconds:
 *   END    slurm_load_job of the job, its end time: PMIX_TIME_REMAINING
 *          (not slurm_get_end_time, which keeps its answer 60 s in
 *          libslurm: neither a changed time limit nor REFRESH_CACHE would
 *          reach slurmctld)
 *   STEPS  slurm_get_job_steps of the job: PMIX_QUERY_JOB_STATUS, the
 *          command lines of PMIX_QUERY_NAMESPACE_INFO
 *   PARTS  slurm_load_partitions: PMIX_QUERY_QUEUE_LIST, _QUEUE_STATUS
 *   UJOBS  slurm_load_job_user of srun's user: PMIX_QUERY_ALLOC_STATUS,
 *          the user's job counts in PMIX_QUERY_QUEUE_STATUS
 * and the job directory's step files (PMIX_QUERY_NAMESPACES and
 * _NAMESPACE_INFO: every step of the allocation that runs under
 * slurmix from this host, spawned ones included), read at each request.
 *
 * One worker thread makes the RPCs, never the agent's progress thread (a
 * slow slurmctld must not hold up spawn or lookup). A request whose
 * sources are fresh is answered at once; otherwise it waits, and the
 * worker's next round fetches what the waiting requests lack. A request
 * that arrives while a round fetches a source it needs waits for that
 * round, unless it asked PMIX_QUERY_REFRESH_CACHE after the round began
 * (then the next round): however many ranks ask at once, each source
 * costs one RPC per period. A failed RPC is kept like an answer until its
 * period ends (the keys it serves stay unanswered), so a failing
 * slurmctld is not asked again and again.
 *
 * Threads: the handler and serve() in the agent's progress thread, the
 * RPCs in the worker; the sources and the worker's orders under q.lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/conf.h"
#include "lib/jobdir.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "srun/agent.h"
#include "srun/query.h"
#include "slurm_adapter.h"

#define QUERY_STOP_MS 2000   /* the longest srun's end waits for an RPC */
#define QUERY_MAX_STEPS 4096 /* step files listed */
#define QUERY_MAX_KEYS 256   /* keys of one request */

enum { SRC_END, SRC_STEPS, SRC_PARTS, SRC_UJOBS, NSRC };

typedef struct {
	uint32_t id, state;
	char *cmd;
} qstep_t;

typedef struct {
	char *name;
	uint16_t up;
	uint32_t nodes;
} qpart_t;

typedef struct {
	uint32_t id, state;
	char *part;
} qjob_t;

/* One source's last answer. */
typedef struct {
	int64_t at_us;   /* start of the round that fetched it; -1: never */
	int64_t busy_us; /* start of the round fetching it now; -1: none */
	int err;         /* Slurm's errno of that fetch, 0: answered */
	time_t end;
	size_t n; /* entries of the array below that belongs to the source */
	qstep_t *steps;
	qpart_t *parts;
	qjob_t *jobs;
} qsrc_t;

/* A request waiting for sources. */
typedef struct qreq {
	struct qreq *next;
	plug_agent_req_t *req;
	pmix_query_t *q;
	size_t nq;
	pmix_proc_t who;
	bool refresh;
	int64_t asked_us;
	unsigned need; /* bit per source */
} qreq_t;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started, stop, done; /* done: the worker left its loop */
	unsigned order;           /* sources the worker is to fetch next */
	qsrc_t src[NSRC];
	pxc_progress_t *pg;
	qreq_t *waiting; /* progress thread only */
	uint32_t job;
} q = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* ---- the worker: one round of RPCs ------------------------------------- */

static void src_clear(qsrc_t *s)
{
	for (size_t i = 0; s->steps && i < s->n; i++)
		free(s->steps[i].cmd);
	for (size_t i = 0; s->parts && i < s->n; i++)
		free(s->parts[i].name);
	for (size_t i = 0; s->jobs && i < s->n; i++)
		free(s->jobs[i].part);
	free(s->steps);
	free(s->parts);
	free(s->jobs);
	s->steps = NULL;
	s->parts = NULL;
	s->jobs = NULL;
	s->n = 0;
	s->end = 0;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int fetch_end(qsrc_t *s)
{
	job_info_msg_t *r = NULL;

	if (plug_slurm_load_job(&r, q.job) != SLURM_SUCCESS)
		return -1;
	if (r->record_count < 1 || r->job_array[0].job_id != q.job) {
		slurm_free_job_info_msg(r);
		errno = ESLURM_INVALID_JOB_ID;
		return -1;
	}
	s->end = r->job_array[0].end_time;
	slurm_free_job_info_msg(r);
	return 0;
}

static int fetch_steps(qsrc_t *s)
{
	job_step_info_response_msg_t *r = NULL;

	if (plug_slurm_job_steps(q.job, &r) != SLURM_SUCCESS)
		return -1;
	s->steps = calloc(r->job_step_count ? r->job_step_count : 1, sizeof(*s->steps));
	for (uint32_t i = 0; s->steps && i < r->job_step_count; i++) {
		s->steps[s->n].id = r->job_steps[i].step_id.step_id;
		s->steps[s->n].state = r->job_steps[i].state;
		if ((s->steps[s->n].cmd = dup_or_empty(r->job_steps[i].submit_line)))
			s->n++;
	}
	slurm_free_job_step_info_response_msg(r);
	return s->steps ? 0 : (errno = ENOMEM, -1);
}

static int fetch_parts(qsrc_t *s)
{
	partition_info_msg_t *r = NULL;

	if (slurm_load_partitions(0, &r, SHOW_ALL) != SLURM_SUCCESS)
		return -1;
	s->parts = calloc(r->record_count ? r->record_count : 1, sizeof(*s->parts));
	for (uint32_t i = 0; s->parts && i < r->record_count; i++) {
		s->parts[s->n].up = r->partition_array[i].state_up;
		s->parts[s->n].nodes = r->partition_array[i].total_nodes;
		if ((s->parts[s->n].name = dup_or_empty(r->partition_array[i].name)))
			s->n++;
	}
	slurm_free_partition_info_msg(r);
	return s->parts ? 0 : (errno = ENOMEM, -1);
}

static int fetch_ujobs(qsrc_t *s)
{
	job_info_msg_t *r = NULL;

	if (slurm_load_job_user(&r, (uint32_t)getuid(), SHOW_ALL) != SLURM_SUCCESS)
		return -1;
	s->jobs = calloc(r->record_count ? r->record_count : 1, sizeof(*s->jobs));
	for (uint32_t i = 0; s->jobs && i < r->record_count; i++) {
		s->jobs[s->n].id = r->job_array[i].job_id;
		s->jobs[s->n].state = r->job_array[i].job_state;
		if ((s->jobs[s->n].part = dup_or_empty(r->job_array[i].partition)))
			s->n++;
	}
	slurm_free_job_info_msg(r);
	return s->jobs ? 0 : (errno = ENOMEM, -1);
}

/* One RPC into s (no lock held). */
static void fetch(int which, qsrc_t *s)
{
	int rc;

	memset(s, 0, sizeof(*s));
	errno = 0;
	switch (which) {
	case SRC_END: rc = fetch_end(s); break;
	case SRC_STEPS: rc = fetch_steps(s); break;
	case SRC_PARTS: rc = fetch_parts(s); break;
	default: rc = fetch_ujobs(s); break;
	}
	if (rc < 0) {
		s->err = errno ? errno : EIO;
		src_clear(s);
		plug_debug("query: slurmctld did not answer (%d): %s", which,
			   slurm_strerror(s->err));
	}
}

static void serve(void *arg);

/* Microseconds of the monotonic clock: a REFRESH_CACHE request and the
 * round that serves it may fall in one millisecond. */
static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&q.lock);
	while (!q.stop) {
		unsigned take = q.order;
		int64_t t0 = mono_us();
		qsrc_t got[NSRC];

		if (!take) {
			pthread_cond_wait(&q.cond, &q.lock);
			continue;
		}
		q.order = 0;
		for (int i = 0; i < NSRC; i++)
			if (take & (1u << i))
				q.src[i].busy_us = t0;
		pthread_mutex_unlock(&q.lock);
		for (int i = 0; i < NSRC; i++)
			if (take & (1u << i))
				fetch(i, &got[i]);
		pthread_mutex_lock(&q.lock);
		for (int i = 0; i < NSRC; i++) {
			if (!(take & (1u << i)))
				continue;
			src_clear(&q.src[i]);
			got[i].at_us = t0;
			got[i].busy_us = -1;
			q.src[i] = got[i];
		}
		if (!q.stop)
			pxc_progress_post(q.pg, serve, NULL);
	}
	q.done = true;
	pthread_cond_broadcast(&q.cond);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

/* ---- answers (q.lock held) ---------------------------------------------- */

typedef pxc_infolist_t ans_t;

static void ans_load(ans_t *a, const char *key, const void *v, pmix_data_type_t t)
{
	pmix_info_t *i = pxc_infolist_add(a, NULL);

	if (i && PMIx_Info_load(i, key, v, t) != PMIX_SUCCESS)
		a->n--;
}

/* Loads an info array (taken: freed here) as key's DATA_ARRAY. */
static void ans_array(ans_t *a, const char *key, pmix_info_t *arr, size_t n)
{
	pmix_data_array_t da = { .type = PMIX_INFO, .size = n, .array = arr };

	ans_load(a, key, &da, PMIX_DATA_ARRAY);
	if (arr)
		PMIx_Info_free(arr, n);
}

static const char *qual_str(const pmix_query_t *qq, const char *key)
{
	const pmix_info_t *i = pxc_info_find(qq->qualifiers, qq->nqual, key);

	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static const qsrc_t *src_ok(int which)
{
	return q.src[which].at_us >= 0 && !q.src[which].err ? &q.src[which] : NULL;
}

static void ans_time(ans_t *a)
{
	const qsrc_t *s = src_ok(SRC_END);
	time_t now = time(NULL);
	uint32_t left;

	if (!s)
		return;
	left = s->end <= now             ? 0 :
	       s->end - now > UINT32_MAX ? UINT32_MAX :
					   (uint32_t)(s->end - now);
	ans_load(a, PMIX_TIME_REMAINING, &left, PMIX_UINT32);
}

/* The step of nspace ns in the job, or -1. */
static int64_t step_of(const char *ns)
{
	uint32_t job, step;

	if (!ns || plug_nspace_parse(ns, &job, &step) < 0 || job != q.job)
		return -1;
	return step;
}

static const qstep_t *find_step(const qsrc_t *s, uint32_t id)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->steps[i].id == id)
			return &s->steps[i];
	return NULL;
}

/* PMIX_SUCCESS while Slurm runs the step, PMIX_EVENT_JOB_END once its
 * srun left the end marker; otherwise unanswered. */
static void ans_jstatus(ans_t *a, const pmix_query_t *qq, const pmix_proc_t *who)
{
	const qsrc_t *s = src_ok(SRC_STEPS);
	const char *ns = qual_str(qq, PMIX_NSPACE);
	int64_t step = step_of(ns ? ns : who->nspace);
	pmix_status_t st;
	char name[32], *data = NULL;
	size_t len;

	if (!s || step < 0)
		return;
	snprintf(name, sizeof(name), "ended.%u", (uint32_t)step);
	if (find_step(s, (uint32_t)step))
		st = PMIX_SUCCESS;
	else if (plug_jobdir_read(name, 64, &data, &len) == 0)
		st = PMIX_EVENT_JOB_END;
	else
		return;
	free(data);
	ans_load(a, PMIX_QUERY_JOB_STATUS, &st, PMIX_STATUS);
}

static const qjob_t *find_job(uint32_t id)
{
	const qsrc_t *s = src_ok(SRC_UJOBS);

	for (size_t i = 0; s && i < s->n; i++)
		if (s->jobs[i].id == id)
			return &s->jobs[i];
	return NULL;
}

/* Slurm's names of its base job states (squeue's long form). */
static const char *job_state(uint32_t state)
{
	static const char *const names[] = {
		[JOB_PENDING] = "PENDING",     [JOB_RUNNING] = "RUNNING",
		[JOB_SUSPENDED] = "SUSPENDED", [JOB_COMPLETE] = "COMPLETED",
		[JOB_CANCELLED] = "CANCELLED", [JOB_FAILED] = "FAILED",
		[JOB_TIMEOUT] = "TIMEOUT",     [JOB_NODE_FAIL] = "NODE_FAIL",
		[JOB_PREEMPTED] = "PREEMPTED", [JOB_BOOT_FAIL] = "BOOT_FAIL",
		[JOB_DEADLINE] = "DEADLINE",   [JOB_OOM] = "OUT_OF_MEMORY",
	};
	uint32_t b = state & JOB_STATE_BASE;

	return b < sizeof(names) / sizeof(names[0]) && names[b] ? names[b] : "UNKNOWN";
}

/* Slurm's state of the allocation PMIX_ALLOC_ID names (one of the user's
 * jobs), or of this one. */
static void ans_alloc(ans_t *a, const pmix_query_t *qq)
{
	const char *id = qual_str(qq, PMIX_ALLOC_ID);
	char *end = NULL;
	unsigned long n = id ? strtoul(id, &end, 10) : q.job;
	const qjob_t *j;

	if ((id && (end == id || *end || n > UINT32_MAX)) || !(j = find_job((uint32_t)n)))
		return;
	ans_load(a, PMIX_QUERY_ALLOC_STATUS, job_state(j->state), PMIX_STRING);
}

static void ans_qlist(ans_t *a)
{
	const qsrc_t *s = src_ok(SRC_PARTS);
	char *list = NULL, *n;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (asprintf(&n, "%s%s%s", list ? list : "", list ? "," : "", s->parts[i].name) < 0)
			break;
		free(list);
		list = n;
	}
	ans_load(a, PMIX_QUERY_QUEUE_LIST, list ? list : "", PMIX_STRING);
	free(list);
}

static const char *part_state(uint16_t up)
{
	switch (up) {
	case PARTITION_UP: return "UP";
	case PARTITION_DOWN: return "DOWN";
	case PARTITION_DRAIN: return "DRAIN";
	case PARTITION_INACTIVE: return "INACTIVE";
	default: return "UNKNOWN";
	}
}

/* One partition: its name, state, node count and the user's running and
 * pending jobs in it. */
static bool part_status(pmix_info_t *out, const qpart_t *p)
{
	const qsrc_t *u = src_ok(SRC_UJOBS);
	uint32_t run = 0, pend = 0;
	pmix_info_t *arr = PMIx_Info_create(5);
	pmix_data_array_t da = { .type = PMIX_INFO, .size = 5, .array = arr };

	bool ok;

	if (!arr)
		return false;
	for (size_t i = 0; u && i < u->n; i++) {
		uint32_t st = u->jobs[i].state & JOB_STATE_BASE;

		if (strcmp(u->jobs[i].part, p->name))
			continue;
		run += st == JOB_RUNNING || st == JOB_SUSPENDED;
		pend += st == JOB_PENDING;
	}
	PMIx_Info_load(&arr[0], PMIX_ALLOC_QUEUE, p->name, PMIX_STRING);
	PMIx_Info_load(&arr[1], "slurmix.queue.state", part_state(p->up), PMIX_STRING);
	PMIx_Info_load(&arr[2], PMIX_NUM_NODES, &p->nodes, PMIX_UINT32);
	PMIx_Info_load(&arr[3], "slurmix.queue.running", &run, PMIX_UINT32);
	PMIx_Info_load(&arr[4], "slurmix.queue.pending", &pend, PMIX_UINT32);
	ok = PMIx_Info_load(out, PMIX_ALLOC_QUEUE, &da, PMIX_DATA_ARRAY) == PMIX_SUCCESS;
	PMIx_Info_free(arr, 5);
	return ok;
}

static void ans_qstatus(ans_t *a, const pmix_query_t *qq)
{
	const qsrc_t *s = src_ok(SRC_PARTS);
	const char *only = qual_str(qq, PMIX_ALLOC_QUEUE);
	pmix_info_t *arr;
	size_t n = 0;

	if (!s || !(arr = PMIx_Info_create(s->n ? s->n : 1)))
		return;
	for (size_t i = 0; i < s->n; i++)
		if ((!only || !strcmp(only, s->parts[i].name)) &&
		    part_status(&arr[n], &s->parts[i]))
			n++;
	if (only && !n) {
		PMIx_Info_free(arr, s->n ? s->n : 1);
		return;
	}
	ans_array(a, PMIX_QUERY_QUEUE_STATUS, arr, n); /* frees all of arr */
}

/* The step files' steps, ascending, into ids (QUERY_MAX_STEPS). */
static size_t step_files(uint32_t *ids)
{
	size_t n = 0, i = 0;
	uint32_t me = plug_agent_step();

	if (plug_jobdir_steps(ids, QUERY_MAX_STEPS - 1, &n) < 0)
		n = 0;
	/* this srun's own step, also before its step file is written (its
	 * tasks may ask before the table reached srun) */
	while (i < n && ids[i] < me)
		i++;
	if (i == n || ids[i] != me) {
		memmove(&ids[i + 1], &ids[i], (n - i) * sizeof(*ids));
		ids[i] = me;
		n++;
	}
	return n;
}

/* The nspace, node list and map of step id: this srun's own from the
 * agent, the others from their step files. 0/-1. */
static int step_facts(uint32_t id, char **ns, char **nodes, char **map)
{
	char name[32], *data = NULL;
	size_t len = 0;
	pmix_data_buffer_t b;
	int rc;

	if (id == plug_agent_step()) {
		if (asprintf(ns, "slurmix.%u.%u", q.job, id) < 0)
			return *ns = NULL, -1;
		*nodes = strdup(plug_agent_nodelist());
		*map = strdup(plug_agent_map());
		return 0;
	}
	snprintf(name, sizeof(name), "step.%u", id);
	if (plug_jobdir_read(name, 64u << 20, &data, &len) < 0)
		return -1;
	pxc_buf_init(&b);
	pxc_buf_load_take(&b, data, len);
	rc = pxc_unpack_str(&b, ns) == PMIX_SUCCESS && *ns &&
			     pxc_unpack_str(&b, nodes) == PMIX_SUCCESS &&
			     pxc_unpack_str(&b, map) == PMIX_SUCCESS ?
		     0 :
		     -1;
	pxc_buf_clear(&b);
	return rc;
}

static void ans_ns(ans_t *a, const uint32_t *ids, size_t n)
{
	char *list = NULL, *s;

	for (size_t i = 0; i < n; i++) {
		if (asprintf(&s, "%s%sslurmix.%u.%u", list ? list : "", list ? "," : "", q.job,
			     ids[i]) < 0)
			break;
		free(list);
		list = s;
	}
	ans_load(a, PMIX_QUERY_NAMESPACES, list ? list : "", PMIX_STRING);
	free(list);
}

/* One step file's nspace, node list and size into out. 0/-1. */
static int step_info(pmix_info_t *out, uint32_t id)
{
	char *ns = NULL, *nodes = NULL, *map = NULL, jobid[32];
	const qstep_t *st = find_step(src_ok(SRC_STEPS), id);
	unsigned long size = 0;
	pmix_info_t *arr = NULL;
	size_t k = 0;
	int rc = -1;

	if (step_facts(id, &ns, &nodes, &map) == 0 && (arr = PMIx_Info_create(5))) {
		pmix_data_array_t da = { .type = PMIX_INFO, .array = arr };

		if (map && !strncmp(map, "1;", 2))
			size = strtoul(map + 2, NULL, 10);
		snprintf(jobid, sizeof(jobid), "%u.%u", q.job, id);
		PMIx_Info_load(&arr[k++], PMIX_NSPACE, ns, PMIX_STRING);
		PMIx_Info_load(&arr[k++], PMIX_JOBID, jobid, PMIX_STRING);
		PMIx_Info_load(&arr[k++], PMIX_NODE_LIST, nodes ? nodes : "", PMIX_STRING);
		if (size && size <= UINT32_MAX) {
			uint32_t sz = (uint32_t)size;

			PMIx_Info_load(&arr[k++], PMIX_JOB_SIZE, &sz, PMIX_UINT32);
		}
		if (st && st->cmd[0])
			PMIx_Info_load(&arr[k++], PMIX_CMD_LINE, st->cmd, PMIX_STRING);
		da.size = k;
		rc = PMIx_Info_load(out, PMIX_QUERY_NAMESPACE_INFO, &da, PMIX_DATA_ARRAY) ==
				     PMIX_SUCCESS ?
			     0 :
			     -1;
		PMIx_Info_free(arr, 5);
	}
	free(ns);
	free(nodes);
	free(map);
	return rc;
}

static void ans_nsinfo(ans_t *a, const uint32_t *ids, size_t n)
{
	pmix_info_t *arr = PMIx_Info_create(n ? n : 1);
	size_t k = 0;

	if (!arr)
		return;
	for (size_t i = 0; i < n; i++)
		if (step_info(&arr[k], ids[i]) == 0)
			k++;
	ans_array(a, PMIX_QUERY_NAMESPACE_INFO, arr, k); /* frees all of arr */
}

/* The sources a key needs (0: none, or not ours). */
static unsigned key_needs(const char *key)
{
	if (!strcmp(key, PMIX_TIME_REMAINING))
		return 1u << SRC_END;
	if (!strcmp(key, PMIX_QUERY_JOB_STATUS) || !strcmp(key, PMIX_QUERY_NAMESPACE_INFO))
		return 1u << SRC_STEPS;
	if (!strcmp(key, PMIX_QUERY_ALLOC_STATUS))
		return 1u << SRC_UJOBS;
	if (!strcmp(key, PMIX_QUERY_QUEUE_LIST))
		return 1u << SRC_PARTS;
	if (!strcmp(key, PMIX_QUERY_QUEUE_STATUS))
		return 1u << SRC_PARTS | 1u << SRC_UJOBS;
	return 0;
}

static void answer_key(ans_t *a, const char *key, const pmix_query_t *qq, const pmix_proc_t *who,
		       uint32_t *ids, size_t *nids)
{
	if (!strcmp(key, PMIX_TIME_REMAINING))
		ans_time(a);
	else if (!strcmp(key, PMIX_QUERY_JOB_STATUS))
		ans_jstatus(a, qq, who);
	else if (!strcmp(key, PMIX_QUERY_ALLOC_STATUS))
		ans_alloc(a, qq);
	else if (!strcmp(key, PMIX_QUERY_QUEUE_LIST))
		ans_qlist(a);
	else if (!strcmp(key, PMIX_QUERY_QUEUE_STATUS))
		ans_qstatus(a, qq);
	else if (ids &&
		 (!strcmp(key, PMIX_QUERY_NAMESPACES) || !strcmp(key, PMIX_QUERY_NAMESPACE_INFO))) {
		if (*nids == SIZE_MAX)
			*nids = step_files(ids);
		if (!strcmp(key, PMIX_QUERY_NAMESPACES))
			ans_ns(a, ids, *nids);
		else
			ans_nsinfo(a, ids, *nids);
	}
}

static void reply(qreq_t *r)
{
	ans_t a = { 0 };
	uint32_t *ids = malloc(QUERY_MAX_STEPS * sizeof(*ids));
	size_t nids = SIZE_MAX;
	pmix_data_buffer_t b;

	for (size_t i = 0; i < r->nq; i++)
		for (size_t k = 0; r->q[i].keys && r->q[i].keys[k]; k++)
			answer_key(&a, r->q[i].keys[k], &r->q[i], &r->who, ids, &nids);
	free(ids);
	pxc_buf_init(&b);
	if (pxc_pack_array(&b, a.info, a.n, PMIX_INFO) == PMIX_SUCCESS)
		plug_agent_reply(r->req, PMIX_SUCCESS, &b);
	else
		plug_agent_reply(r->req, PMIX_ERR_NOMEM, NULL);
	pxc_buf_clear(&b);
	pxc_infolist_free(&a);
}

/* ---- requests (progress thread) ----------------------------------------- */

static void req_free(qreq_t *r)
{
	pxc_array_free(r->q, r->nq, PMIX_QUERY);
	free(r);
}

/* Whether source i serves r as it is. */
static bool fresh(int i, const qreq_t *r, int64_t now)
{
	const qsrc_t *s = &q.src[i];

	if (s->at_us < 0)
		return false;
	if (s->at_us >= r->asked_us)
		return true;
	return !r->refresh && now - s->at_us <= (int64_t)plug_conf.query_cache * 1000000;
}

/* Whether the round under way for source i will serve r. */
static bool coming(int i, const qreq_t *r)
{
	const qsrc_t *s = &q.src[i];

	return s->busy_us >= 0 && (!r->refresh || s->busy_us >= r->asked_us);
}

/* Answers every waiting request whose sources are fresh; orders the
 * rounds the others need. */
static void serve(void *arg)
{
	int64_t now = mono_us();
	unsigned want = 0;

	(void)arg;
	pthread_mutex_lock(&q.lock);
	for (qreq_t **p = &q.waiting; *p;) {
		qreq_t *r = *p;
		unsigned lack = 0;

		if (q.stop || plug_agent_req_gone(r->req)) {
			*p = r->next;
			plug_agent_reply(r->req, PMIX_ERR_UNREACH, NULL);
			req_free(r);
			continue;
		}
		for (int i = 0; i < NSRC; i++)
			if ((r->need & (1u << i)) && !fresh(i, r, now))
				lack |= 1u << i;
		if (!lack) {
			*p = r->next;
			reply(r);
			req_free(r);
			continue;
		}
		for (int i = 0; i < NSRC; i++)
			if ((lack & (1u << i)) && !coming(i, r))
				want |= 1u << i;
		p = &r->next;
	}
	if (want && !q.stop) {
		q.order |= want;
		pthread_cond_broadcast(&q.cond);
	}
	pthread_mutex_unlock(&q.lock);
}

static void on_slurmq(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	qreq_t *r = calloc(1, sizeof(*r));
	uint32_t flags = 0;
	size_t nkeys = 0;

	if (!r)
		return plug_agent_reply(req, PMIX_ERR_NOMEM, NULL);
	if (pxc_unpack_u32(in, &flags) != PMIX_SUCCESS ||
	    pxc_unpack_proc(in, &r->who) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&r->q, &r->nq, PMIX_QUERY) != PMIX_SUCCESS) {
		free(r);
		plug_error("malformed query request from a step daemon: refused");
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	r->req = req;
	r->refresh = flags & 1;
	r->asked_us = mono_us();
	for (size_t i = 0; i < r->nq; i++)
		for (size_t k = 0; r->q[i].keys && r->q[i].keys[k]; k++, nkeys++)
			r->need |= key_needs(r->q[i].keys[k]);
	if (nkeys > QUERY_MAX_KEYS) {
		plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
		req_free(r);
		return;
	}
	pthread_mutex_lock(&q.lock);
	r->next = q.waiting;
	q.waiting = r;
	pthread_mutex_unlock(&q.lock);
	serve(NULL); /* after plug_query_srun_stop: PMIX_ERR_UNREACH at once */
}

static void on_stop(void)
{
	pthread_mutex_lock(&q.lock);
	while (q.waiting) {
		qreq_t *r = q.waiting;

		q.waiting = r->next;
		plug_agent_reply(r->req, PMIX_ERR_UNREACH, NULL);
		req_free(r);
	}
	pthread_mutex_unlock(&q.lock);
}

int plug_query_srun_init(uint32_t job)
{
	int e;

	if (q.started)
		return 0;
	q.job = job;
	q.stop = q.done = false;
	q.order = 0;
	for (int i = 0; i < NSRC; i++)
		q.src[i].at_us = q.src[i].busy_us = -1;
	if (!(q.pg = pxc_progress_acquire()))
		return plug_error("query: no progress engine: %m"), -1;
	if ((e = plug_thread_start(&q.thread, worker, NULL))) {
		pxc_progress_release();
		q.pg = NULL;
		return plug_error("query: cannot start its thread: %s", strerror(e)), -1;
	}
	q.started = true;
	if (plug_agent_register_handler(PLUG_NET_SLURMQ, on_slurmq, on_stop) < 0)
		plug_error("query: cannot register its request");
	return 0;
}

void plug_query_srun_stop(void)
{
	bool done;

	if (!q.started)
		return;
	q.started = false;
	pthread_mutex_lock(&q.lock);
	q.stop = true;
	pthread_cond_broadcast(&q.cond);
	done = plug_wait_flag(&q.cond, &q.lock, &q.done, QUERY_STOP_MS);
	pthread_mutex_unlock(&q.lock);
	if (!done) {
		/* an RPC hangs: the thread is left to srun's exit, with what it
		 * uses */
		plug_error("query: an RPC to slurmctld did not end in %d ms", QUERY_STOP_MS);
		pthread_detach(q.thread);
		return;
	}
	pthread_join(q.thread, NULL);
	pthread_mutex_lock(&q.lock);
	for (int i = 0; i < NSRC; i++) {
		src_clear(&q.src[i]);
		q.src[i].at_us = q.src[i].busy_us = -1;
	}
	pthread_mutex_unlock(&q.lock);
	/* the agent's own reference, released in plug_agent_stop after this,
	 * is the last: its teardown runs once the progress thread is gone */
	pxc_progress_release();
	q.pg = NULL;
}
