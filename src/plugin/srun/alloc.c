/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/alloc.c - see srun/alloc.h; the mapping and the limits are in
 * docs/alloc.md.
 *
 * Requests (lib/proto.h PLUG_NET_ALLOC): NEW and RELEASE are checked
 * again here (lib/alloc_req.h: the payload comes from a step daemon, or
 * from anyone who has the job key) and queued for the worker, which
 * makes the RPCs and posts the answer back to the progress thread. At
 * most ALLOC_TODO_MAX requests wait for the worker, and a NEW one
 * reserves its record when queued: records and queued NEWs together are
 * at most ALLOC_MAX (checked again when the record is made: one beyond is
 * cancelled at once). A NEW allocation becomes a record: PENDING until
 * slurmctld runs it (GRANTED, with its nodes) or refuses or ends it, or
 * until its deadline passes (then the worker cancels it: FAILED once
 * slurm_kill_job succeeded or the job is gone, else tried again the next
 * round). The worker looks at the pending ones every ALLOC_POLL_MS (one
 * slurm_load_job each), at every record each round. WAIT (the step
 * daemon's, right after NEW's answer) is answered once the record is no
 * longer PENDING; a FAILED record goes then, or ALLOC_GRACE_MS after it
 * failed when no WAIT came; a GRANTED one stays for spawns into it
 * (plug_alloc_srun_nodes) and for its release. A NEW whose requester has
 * gone when its answer is ready (the step daemon gave up: no WAIT will
 * come) is cancelled by the worker. Every new job gets a time limit, at
 * most what is left of this job's (docs/alloc.md).
 *
 * Which nodes a RELEASE may give back: none on which a step of the job
 * runs (Slurm kills the job's processes on released nodes, steps
 * included: tried on 22.05), never all of them. A count releases the
 * last such nodes of the job's list.
 *
 * Threads: handlers, answers and the records' WAITs in the agent's
 * progress thread; the RPCs in the worker; records and the work queue
 * under al.lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/alloc_req.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "srun/agent.h"
#include "srun/alloc.h"
#include "slurm_adapter.h"

#define ALLOC_POLL_MS 1000   /* pending allocations looked at */
#define ALLOC_STOP_MS 10000  /* the longest srun's end waits for the worker */
#define ALLOC_MAX 64         /* allocations one srun holds at once */
#define ALLOC_BUSY_MS 5000   /* the longest wait for a job update slurmctld defers */
#define ALLOC_WAIT 0         /* the WAIT op of PLUG_NET_ALLOC */
#define ALLOC_TODO_MAX 64    /* requests queued for the worker */
#define ALLOC_GRACE_MS 20000 /* a FAILED record's wait for its WAIT */

enum { A_PENDING, A_GRANTED, A_FAILED };

/* An allocation this srun obtained. */
typedef struct arec {
	struct arec *next;
	uint32_t id;
	int state;
	int64_t deadline_ms; /* plug_mono_ms() */
	uint32_t wait_s;
	char *nodes; /* GRANTED */
	uint32_t nnodes;
	char *reqid; /* the caller's label, or NULL */
	char why[160];
	pmix_proc_t who;
	plug_agent_req_t *wait; /* progress thread */
	bool cancel;            /* the worker must cancel it (requester gone) */
	int64_t failed_ms;      /* when it became FAILED */
	unsigned seen;          /* the worker's last round over it */
} arec_t;

/* A request for the worker. */
typedef struct work {
	struct work *next;
	plug_agent_req_t *req;
	pmix_proc_t who;
	uint32_t wait_s;
	pmix_info_t *info; /* what r points into */
	size_t ninfo;
	plug_alloc_req_t r;
	pmix_status_t st;   /* the answer */
	pxc_infolist_t res; /* its results */
	uint32_t newid;     /* NEW: the job made, 0 if none */
	bool reserved;      /* NEW: counted in al.nnew */
} work_t;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started, stop, done;
	work_t *todo;
	size_t ntodo, nnew; /* queued; NEW ones among them */
	arec_t *recs;
	size_t nrecs;
	unsigned round; /* of the worker over the records */
	pxc_progress_t *pg;
	uint32_t job;
} al = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* ---- records (al.lock held) --------------------------------------------- */

static arec_t *rec_find(uint32_t id)
{
	for (arec_t *r = al.recs; r; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static void rec_free(arec_t *r)
{
	if (!r)
		return;
	for (arec_t **p = &al.recs; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			al.nrecs--;
			break;
		}
	free(r->nodes);
	free(r->reqid);
	free(r);
}

static void rec_fail(arec_t *r, const char *why)
{
	r->state = A_FAILED;
	r->cancel = false;
	r->failed_ms = plug_mono_ms();
	snprintf(r->why, sizeof(r->why), "%s", why);
}

/* The next record of this round for which want() holds, marked seen;
 * NULL once every one was. */
static arec_t *rec_next(unsigned round, bool (*want)(const arec_t *))
{
	for (arec_t *r = al.recs; r; r = r->next)
		if (r->seen != round && want(r)) {
			r->seen = round;
			return r;
		}
	return NULL;
}

static bool stopping(void)
{
	bool s;

	pthread_mutex_lock(&al.lock);
	s = al.stop;
	pthread_mutex_unlock(&al.lock);
	return s;
}

/* ---- results ------------------------------------------------------------ */

static void res_str(pxc_infolist_t *l, const char *key, const char *v)
{
	pmix_info_t *i = v ? pxc_infolist_add(l, NULL) : NULL;

	if (i && PMIx_Info_load(i, key, v, PMIX_STRING) != PMIX_SUCCESS)
		l->n--;
}

static void res_u32(pxc_infolist_t *l, const char *key, uint32_t v)
{
	pmix_info_t *i = pxc_infolist_add(l, NULL);

	if (i && PMIx_Info_load(i, key, &v, PMIX_UINT32) != PMIX_SUCCESS)
		l->n--;
}

static void res_id(pxc_infolist_t *l, uint32_t id, const char *reqid)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", id);
	res_str(l, PMIX_ALLOC_ID, s);
	res_str(l, PMIX_ALLOC_REQ_ID, reqid);
}

/* ---- RPCs (worker, no lock held) ---------------------------------------- */

static pmix_status_t refused(work_t *w, pmix_status_t st, const char *what)
{
	plug_error("allocation request of %s:%u refused: %s", w->who.nspace, w->who.rank, what);
	return w->st = st;
}

static pmix_status_t slurm_refused(work_t *w, pmix_status_t st, const char *what)
{
	int e = errno;
	char line[256];

	snprintf(line, sizeof(line), "%s: %s", what, slurm_strerror(e));
	if (e == ESLURM_ACCESS_DENIED || e == ESLURM_USER_ID_MISSING)
		st = PMIX_ERR_NO_PERMISSIONS;
	else if (plug_slurm_err_retry(e))
		st = PMIX_ERR_RESOURCE_BUSY;
	return refused(w, st, line);
}

/* The job record of id: *msg to free with slurm_free_job_info_msg. */
static job_info_t *job_load(uint32_t id, job_info_msg_t **msg)
{
	*msg = NULL;
	if (plug_slurm_load_job(msg, id) != SLURM_SUCCESS)
		return NULL;
	if ((*msg)->record_count < 1 || (*msg)->job_array[0].job_id != id) {
		slurm_free_job_info_msg(*msg);
		*msg = NULL;
		errno = ESLURM_INVALID_JOB_ID;
		return NULL;
	}
	return &(*msg)->job_array[0];
}

/* slurm_kill_job of id: true once it is cancelled or already gone
 * (errno kept otherwise). */
static bool kill_ok(uint32_t id)
{
	return plug_slurm_kill_job(id, SIGKILL) == SLURM_SUCCESS || errno == ESLURM_ALREADY_DONE ||
	       errno == ESLURM_INVALID_JOB_ID;
}

/* The new job's time limit (min, into *limit): what was asked (rounded
 * up), at most what is left of this job's (its end time); NO_VAL when
 * neither has one. 0, or -1: this job not loaded (errno) or ending
 * within the minute (errno 0). */
static int new_limit(const work_t *w, uint32_t *limit)
{
	job_info_msg_t *m;
	job_info_t *j = job_load(al.job, &m);
	int64_t want = w->r.time_s ? ((int64_t)w->r.time_s + 59) / 60 : INT64_MAX, left = INT64_MAX;

	if (!j)
		return -1;
	if (j->time_limit != INFINITE && j->time_limit != NO_VAL && j->end_time)
		left = ((int64_t)j->end_time - (int64_t)time(NULL)) / 60;
	slurm_free_job_info_msg(m);
	if (left < 1)
		return errno = 0, -1;
	want = want < left ? want : left;
	*limit = want == INT64_MAX ? NO_VAL : want > NO_VAL - 1 ? NO_VAL - 1 : (uint32_t)want;
	return 0;
}

/* slurm_allocate_resources for w: rec gets the job (id 0 if none). */
static void allocate(work_t *w, arec_t *rec)
{
	resource_allocation_response_msg_t *resp = NULL;
	job_desc_msg_t d;
	char host[256] = "";
	uint32_t limit = NO_VAL;

	if (new_limit(w, &limit) < 0)
		return (void)(errno ? slurm_refused(w, PMIX_ERR_JOB_ALLOC_FAILED,
						    "cannot load this job (its time left)") :
				      refused(w, PMIX_ERR_JOB_ALLOC_FAILED,
					      "this job ends within the minute"));
	slurm_init_job_desc_msg(&d);
	gethostname(host, sizeof(host) - 1);
	d.name = (char *)"slurmix-alloc";
	d.user_id = getuid();
	d.group_id = getgid();
	d.alloc_node = host;
	d.alloc_sid = (uint32_t)getsid(0);
	d.time_limit = limit;
	if (w->r.nnodes)
		d.min_nodes = w->r.nnodes;
	if (w->r.nodelist)
		d.req_nodes = (char *)w->r.nodelist;
	if (w->r.ncpus)
		d.min_cpus = w->r.ncpus;
	if (w->r.queue)
		d.partition = (char *)w->r.queue;
	if (slurm_allocate_resources(&d, &resp) != SLURM_SUCCESS || !resp)
		return (void)slurm_refused(w, PMIX_ERR_JOB_ALLOC_FAILED,
					   "Slurm refused the new allocation");
	rec->id = plug_slurm_alloc_job(resp);
	rec->wait_s = w->wait_s;
	rec->deadline_ms = plug_mono_ms() + (int64_t)w->wait_s * 1000;
	rec->who = w->who;
	rec->reqid = w->r.reqid ? strdup(w->r.reqid) : NULL;
	if (resp->node_list && resp->node_list[0] && (rec->nodes = strdup(resp->node_list))) {
		rec->state = A_GRANTED;
		rec->nnodes = resp->node_cnt;
	}
	slurm_free_resource_allocation_response_msg(resp);
}

/* NEW: the job made and its record kept (taking the reservation made
 * when w was queued); one beyond ALLOC_MAX (which the reservations
 * should prevent) is cancelled at once, or left to the worker to cancel
 * when slurmctld does not take the cancel. */
static void rpc_new(work_t *w)
{
	arec_t *rec = calloc(1, sizeof(*rec));
	bool over;

	if (rec)
		allocate(w, rec);
	else
		w->st = PMIX_ERR_NOMEM;
	pthread_mutex_lock(&al.lock);
	al.nnew -= w->reserved;
	w->reserved = false;
	over = al.nrecs >= ALLOC_MAX;
	pthread_mutex_unlock(&al.lock);
	if (!rec || !rec->id)
		return rec_free(rec);
	if (over && kill_ok(rec->id)) {
		refused(w, PMIX_ERR_OUT_OF_RESOURCE,
			"this srun holds as many allocations as it may");
		return rec_free(rec);
	}
	rec->cancel = over;
	pthread_mutex_lock(&al.lock);
	rec->next = al.recs;
	al.recs = rec;
	al.nrecs++;
	pthread_mutex_unlock(&al.lock);
	if (over)
		return (void)refused(w, PMIX_ERR_OUT_OF_RESOURCE,
				     "this srun holds as many allocations as it may");
	plug_flag("alloc: job %u for %s:%u %s", rec->id, w->who.nspace, w->who.rank,
		  rec->state == A_GRANTED ? "granted" : "pending");
	res_id(&w->res, rec->id, w->r.reqid);
	w->newid = rec->id;
	w->st = PMIX_SUCCESS;
}

/* slurm_update_job; while slurmctld says the job's accounting record is
 * being written (after a shrink, until slurmdbd recorded the resized
 * job), asked again for ALLOC_BUSY_MS at most. */
static int update_job(uint32_t id, uint32_t time_limit, const char *req_nodes)
{
	int64_t until = plug_mono_ms() + ALLOC_BUSY_MS;
	job_desc_msg_t u;
	int rc;

	slurm_init_job_desc_msg(&u);
	plug_slurm_desc_job(&u, id);
	if (time_limit)
		u.time_limit = time_limit;
	if (req_nodes)
		u.req_nodes = (char *)req_nodes;
	while ((rc = slurm_update_job(&u)) != SLURM_SUCCESS && plug_slurm_err_retry(errno) &&
	       plug_mono_ms() < until && !stopping())
		usleep(500000);
	return rc;
}

/* PMIX_ALLOC_TIME seconds off the job's time limit (whole minutes, as
 * Slurm keeps it; never less than a minute left). */
static void release_time(work_t *w, uint32_t id)
{
	job_info_msg_t *m;
	job_info_t *j = job_load(id, &m);
	uint32_t cut = w->r.time_s / 60, limit;
	int64_t ran;

	if (!j) {
		slurm_refused(w, PMIX_ERR_NOT_FOUND, "cannot load the job");
		return;
	}
	limit = j->time_limit;
	ran = j->start_time ? (int64_t)time(NULL) - (int64_t)j->start_time : 0;
	slurm_free_job_info_msg(m);
	if (limit == INFINITE || limit == NO_VAL) {
		refused(w, PMIX_ERR_BAD_PARAM, "the job has no time limit to shorten");
	} else if (!cut) {
		refused(w, PMIX_ERR_BAD_PARAM, "less than a minute: Slurm's limits are minutes");
	} else if (cut >= limit || (int64_t)(limit - cut) * 60 <= ran + 60) {
		refused(w, PMIX_ERR_BAD_PARAM, "that would leave the job less than a minute");
	} else if (update_job(id, limit - cut, NULL) != SLURM_SUCCESS) {
		slurm_refused(w, PMIX_ERR_NO_PERMISSIONS, "Slurm refused the new time limit");
	} else {
		uint64_t left_s = (uint64_t)(limit - cut) * 60;

		res_u32(&w->res, PMIX_ALLOC_TIME,
			left_s > UINT32_MAX ? UINT32_MAX : (uint32_t)left_s);
		w->st = PMIX_SUCCESS;
	}
}

static bool in_list(char **list, const char *name)
{
	for (char **p = list; p && *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

static void argv_free(char **a)
{
	for (char **p = a; p && *p; p++)
		free(*p);
	free(a);
}

/* The nodes on which a step of job id runs (NULL-terminated, maybe
 * empty); NULL when slurmctld does not say. */
static char **busy_nodes(uint32_t id)
{
	job_step_info_response_msg_t *r = NULL;
	char **busy = calloc(1, sizeof(char *));
	size_t n = 0;

	if (!busy || plug_slurm_job_steps(id, &r) != SLURM_SUCCESS)
		return free(busy), NULL;
	for (uint32_t i = 0; busy && i < r->job_step_count; i++) {
		uint32_t k = 0;
		char **on = plug_hostlist_expand(r->job_steps[i].nodes, &k), **more;

		if (!on || !(more = realloc(busy, (n + k + 1) * sizeof(char *)))) {
			argv_free(on);
			argv_free(busy);
			busy = NULL;
			break;
		}
		busy = more;
		memcpy(busy + n, on, k * sizeof(char *));
		n += k;
		busy[n] = NULL;
		free(on);
	}
	slurm_free_job_step_info_response_msg(r);
	return busy;
}

/* Marks in drop[] the nodes of all[] to release; NULL or a reason. */
static const char *pick(work_t *w, char **all, uint32_t n, char **busy, bool *drop)
{
	uint32_t want = w->r.nnodes, got = 0;
	char **asked = NULL;

	if (w->r.nodelist) {
		int count = plug_hostlist_count(w->r.nodelist);

		if (count > 0 && (uint32_t)count > n) /* counted before it is expanded */
			return "more nodes than the job has";
		if (count < 1 || !(asked = plug_hostlist_expand(w->r.nodelist, &want)) || !want)
			return argv_free(asked), "not a node list";
		for (uint32_t i = 0; asked[i]; i++)
			if (!in_list(all, asked[i]))
				return argv_free(asked), "a node that is not the job's";
	}
	for (uint32_t i = n; i-- > 0 && got < want;) {
		if ((asked && !in_list(asked, all[i])) || (!asked && in_list(busy, all[i])))
			continue;
		if (in_list(busy, all[i]))
			return argv_free(asked),
			       "a step of the job runs there (Slurm would kill it)";
		drop[i] = true;
		got++;
	}
	argv_free(asked);
	if (got < want)
		return "not so many nodes without a step of the job";
	return got >= n ? "not every node of the job" : NULL;
}

/* The job's nodes but the dropped ones, comma-separated. */
static char *keep_list(char **all, uint32_t n, const bool *drop)
{
	size_t len = 1;
	char *s;

	for (uint32_t i = 0; i < n; i++)
		len += strlen(all[i]) + 1;
	if (!(s = calloc(1, len)))
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		if (!drop[i]) {
			if (*s)
				strcat(s, ",");
			strcat(s, all[i]);
		}
	return s;
}

static void release_nodes(work_t *w, uint32_t id)
{
	job_info_msg_t *m;
	job_info_t *j = job_load(id, &m);
	char **all = NULL, **busy = NULL, *keep = NULL;
	const char *why = NULL;
	uint32_t n = 0;
	bool *drop = NULL;

	if (!j)
		return (void)slurm_refused(w, PMIX_ERR_NOT_FOUND, "cannot load the job");
	if ((j->job_state & JOB_STATE_BASE) != JOB_RUNNING)
		why = "the job is not running";
	else if (!(all = plug_hostlist_expand(j->nodes, &n)) || !(busy = busy_nodes(id)) ||
		 !(drop = calloc(n ? n : 1, sizeof(bool))))
		why = "cannot read the job's nodes and steps";
	else if (!(why = pick(w, all, n, busy, drop)) && !(keep = keep_list(all, n, drop)))
		why = "out of memory";
	slurm_free_job_info_msg(m);
	if (why) {
		refused(w, PMIX_ERR_BAD_PARAM, why);
	} else if (update_job(id, 0, keep) != SLURM_SUCCESS) {
		slurm_refused(w, PMIX_ERR_NO_PERMISSIONS, "Slurm refused to shrink the job");
	} else if ((j = job_load(id, &m))) {
		res_str(&w->res, PMIX_ALLOC_NODE_LIST, j->nodes);
		res_u32(&w->res, PMIX_ALLOC_NUM_NODES, j->num_nodes);
		slurm_free_job_info_msg(m);
		w->st = PMIX_SUCCESS;
	} else {
		w->st = PMIX_SUCCESS; /* shrunk; the new list is not known */
	}
	argv_free(all);
	argv_free(busy);
	free(drop);
	free(keep);
}

/* A whole allocation this srun obtained, given back. */
static void release_all(work_t *w, uint32_t id)
{
	arec_t *r;

	if (!kill_ok(id))
		return (void)slurm_refused(w, PMIX_ERROR, "cannot release the allocation");
	pthread_mutex_lock(&al.lock);
	if ((r = rec_find(id)) && (r->state == A_PENDING || r->wait)) /* its WAIT told so */
		rec_fail(r, r->state == A_PENDING ? "released while pending" : "released");
	else if (r && r->state == A_GRANTED)
		rec_free(r);
	pthread_mutex_unlock(&al.lock);
	w->st = PMIX_SUCCESS;
}

static void rpc_release(work_t *w)
{
	uint32_t id = al.job;
	bool ours = false;

	if (w->r.allocid)
		plug_alloc_id_parse(w->r.allocid, &id); /* checked by the parser */
	if (id != al.job) {
		pthread_mutex_lock(&al.lock);
		ours = rec_find(id) && rec_find(id)->state != A_FAILED;
		pthread_mutex_unlock(&al.lock);
		if (!ours)
			return (void)
				refused(w, PMIX_ERR_NO_PERMISSIONS,
					"neither this job nor an allocation this step obtained");
	}
	w->st = PMIX_SUCCESS;
	if (!w->r.time_s && !w->r.nnodes && !w->r.nodelist) {
		if (!ours)
			return (void)
				refused(w, PMIX_ERR_BAD_PARAM,
					"the whole of this job: use PMIx_Job_control or scancel");
		release_all(w, id);
	}
	if (w->st == PMIX_SUCCESS && w->r.time_s)
		release_time(w, id);
	if (w->st == PMIX_SUCCESS && (w->r.nnodes || w->r.nodelist))
		release_nodes(w, id);
	if (w->st == PMIX_SUCCESS)
		res_id(&w->res, id, w->r.reqid);
}

/* Looks at one pending allocation, or cancels one (no lock held). A
 * cancel slurmctld does not take is tried again the next round. */
static void poll_one(uint32_t id, int64_t deadline, bool cancel)
{
	job_info_msg_t *m;
	job_info_t *j = job_load(id, &m);
	uint32_t base = j ? j->job_state & JOB_STATE_BASE : 0;
	char why[160] = "";
	arec_t *r;

	if (!j && errno != ESLURM_INVALID_JOB_ID)
		return; /* slurmctld busy: next round */
	if (j && base <= JOB_RUNNING &&
	    (cancel || (base == JOB_PENDING && plug_mono_ms() >= deadline))) {
		if (!kill_ok(id)) {
			plug_error("alloc: cannot cancel job %u: %s (again in %d ms)", id,
				   slurm_strerror(errno), ALLOC_POLL_MS);
			return slurm_free_job_info_msg(m);
		}
		if (cancel)
			snprintf(why, sizeof(why), "its requester gave up waiting: cancelled");
		else
			snprintf(why, sizeof(why), "not granted in time: cancelled%s%s%s",
				 j->state_desc ? " (" : "", j->state_desc ? j->state_desc : "",
				 j->state_desc ? ")" : "");
	} else if (!j || base > JOB_RUNNING) {
		snprintf(why, sizeof(why), "ended by Slurm before it was granted");
	}
	pthread_mutex_lock(&al.lock);
	if ((r = rec_find(id)) && (r->state == A_PENDING || r->cancel)) {
		if (why[0]) {
			rec_fail(r, why);
		} else if (r->state == A_PENDING && base == JOB_RUNNING &&
			   !(j->job_state & JOB_CONFIGURING) && j->nodes &&
			   (r->nodes = strdup(j->nodes))) {
			r->state = A_GRANTED;
			r->nnodes = j->num_nodes;
		}
	}
	pthread_mutex_unlock(&al.lock);
	if (m)
		slurm_free_job_info_msg(m);
}

/* ---- the worker --------------------------------------------------------- */

static void work_done(void *arg);
static void serve_waits(void *arg);

static bool to_poll(const arec_t *r)
{
	return r->state == A_PENDING || r->cancel;
}

static bool held(const arec_t *r)
{
	return r->state != A_FAILED; /* FAILED: the job is gone */
}

/* FAILED records whose WAIT never came, forgotten ALLOC_GRACE_MS later. */
static void sweep_failed(void)
{
	int64_t now = plug_mono_ms();

	for (arec_t *r = al.recs, *next; r; r = next) {
		next = r->next;
		if (r->state == A_FAILED && !r->wait && now - r->failed_ms >= ALLOC_GRACE_MS) {
			plug_flag("alloc: job %u forgotten: no WAIT for it came", r->id);
			rec_free(r);
		}
	}
}

/* One round over every record to poll or cancel (al.lock held, dropped
 * around each RPC). */
static void poll_pending(void)
{
	unsigned round = ++al.round;
	bool any = false;
	arec_t *r;

	while (!al.stop && (r = rec_next(round, to_poll))) {
		uint32_t id = r->id;
		int64_t dl = r->deadline_ms;
		bool cancel = r->cancel;

		pthread_mutex_unlock(&al.lock);
		poll_one(id, dl, cancel);
		pthread_mutex_lock(&al.lock);
		any = true;
	}
	sweep_failed();
	if (any && !al.stop)
		pxc_progress_post(al.pg, serve_waits, NULL);
}

/* Whether the worker has rounds to make. */
static bool any_to_watch(void)
{
	for (arec_t *r = al.recs; r; r = r->next)
		if (to_poll(r) || (r->state == A_FAILED && !r->wait))
			return true;
	return false;
}

/* srun's end: everything still held goes, every record once (al.lock
 * held, dropped around each RPC). */
static void release_held(void)
{
	unsigned round = ++al.round;
	arec_t *r;

	while ((r = rec_next(round, held))) {
		uint32_t id = r->id;

		pthread_mutex_unlock(&al.lock);
		if (!kill_ok(id))
			plug_error("alloc: cannot release job %u: %s", id, slurm_strerror(errno));
		else
			plug_flag("alloc: job %u released at the step's end", id);
		pthread_mutex_lock(&al.lock);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&al.lock);
	while (!al.stop) {
		work_t *w = al.todo;

		if (w) {
			al.todo = w->next;
			al.ntodo--;
			pthread_mutex_unlock(&al.lock);
			if (w->r.directive == PMIX_ALLOC_NEW)
				rpc_new(w);
			else
				rpc_release(w);
			pthread_mutex_lock(&al.lock);
			if (al.stop || pxc_progress_post(al.pg, work_done, w) < 0) {
				w->next = al.todo; /* answered by the agent's stop */
				al.todo = w;
				al.ntodo++;
			}
		} else if (any_to_watch()) {
			struct timespec dl;

			poll_pending();
			clock_gettime(CLOCK_REALTIME, &dl);
			dl.tv_sec += ALLOC_POLL_MS / 1000;
			if (!al.stop && !al.todo)
				pthread_cond_timedwait(&al.cond, &al.lock, &dl);
		} else {
			pthread_cond_wait(&al.cond, &al.lock);
		}
	}
	release_held();
	al.done = true;
	pthread_cond_broadcast(&al.cond);
	pthread_mutex_unlock(&al.lock);
	return NULL;
}

/* ---- requests (progress thread) ----------------------------------------- */

static void work_free(work_t *w)
{
	pxc_array_free(w->info, w->ninfo, PMIX_INFO);
	pxc_infolist_free(&w->res);
	free(w);
}

static void reply_infos(plug_agent_req_t *req, pmix_status_t st, const pxc_infolist_t *res)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (st == PMIX_SUCCESS && pxc_pack_array(&b, res->info, res->n, PMIX_INFO) != PMIX_SUCCESS)
		st = PMIX_ERR_NOMEM;
	plug_agent_reply(req, st, st == PMIX_SUCCESS ? &b : NULL);
	pxc_buf_clear(&b);
}

/* A NEW whose requester has gone: no WAIT will come, the worker cancels
 * it. */
static void cancel_gone(uint32_t id)
{
	arec_t *r;

	pthread_mutex_lock(&al.lock);
	if ((r = rec_find(id)) && r->state != A_FAILED) {
		r->cancel = true;
		pthread_cond_broadcast(&al.cond);
	}
	pthread_mutex_unlock(&al.lock);
	plug_error("alloc: job %u: its requester gave up waiting: cancelled", id);
}

static void work_done(void *arg)
{
	work_t *w = arg;

	if (w->newid && plug_agent_req_gone(w->req))
		cancel_gone(w->newid);
	reply_infos(w->req, w->st, &w->res);
	work_free(w);
	serve_waits(NULL);
}

/* The WAIT's answer: STATUS outcome, INFO[] the event's infos. */
static void answer_wait(arec_t *r)
{
	pxc_infolist_t l = { 0 };
	pmix_status_t out = r->state == A_GRANTED ? PMIX_SUCCESS : PMIX_ERR_JOB_ALLOC_FAILED;
	pmix_data_buffer_t b;

	res_id(&l, r->id, r->reqid);
	if (r->state == A_GRANTED) {
		res_str(&l, PMIX_ALLOC_NODE_LIST, r->nodes);
		res_u32(&l, PMIX_ALLOC_NUM_NODES, r->nnodes);
	} else {
		res_str(&l, PMIX_EVENT_TEXT_MESSAGE, r->why);
	}
	pxc_buf_init(&b);
	if (pxc_pack_status(&b, out) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, l.info, l.n, PMIX_INFO) == PMIX_SUCCESS)
		plug_agent_reply(r->wait, PMIX_SUCCESS, &b);
	else
		plug_agent_reply(r->wait, PMIX_ERR_NOMEM, NULL);
	r->wait = NULL;
	pxc_buf_clear(&b);
	pxc_infolist_free(&l);
}

static void serve_waits(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&al.lock);
	for (arec_t *r = al.recs, *next; r; r = next) {
		next = r->next;
		if (!r->wait || r->state == A_PENDING)
			continue;
		if (r->state == A_FAILED)
			plug_error("alloc: job %u for %s:%u: %s", r->id, r->who.nspace, r->who.rank,
				   r->why);
		answer_wait(r);
		if (r->state == A_FAILED)
			rec_free(r);
	}
	pthread_mutex_unlock(&al.lock);
}

/* WAIT: STRING id, from the requester's step daemon. */
static void take_wait(plug_agent_req_t *req, const pmix_proc_t *who, pmix_data_buffer_t *in)
{
	char *s = NULL;
	uint32_t id = 0;
	arec_t *r = NULL;
	pmix_status_t st = PMIX_SUCCESS;

	if (pxc_unpack_str(in, &s) != PMIX_SUCCESS || plug_alloc_id_parse(s, &id) < 0)
		st = PMIX_ERR_BAD_PARAM;
	free(s);
	pthread_mutex_lock(&al.lock);
	if (st == PMIX_SUCCESS &&
	    (!(r = rec_find(id)) || !PMIx_Check_procid(&r->who, who) || r->wait))
		st = PMIX_ERR_NOT_FOUND;
	if (st == PMIX_SUCCESS)
		r->wait = req;
	pthread_mutex_unlock(&al.lock);
	if (st != PMIX_SUCCESS) {
		plug_error("malformed allocation request from a step daemon: refused");
		return plug_agent_reply(req, st, NULL);
	}
	serve_waits(NULL);
}

static void on_alloc(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	work_t *w = calloc(1, sizeof(*w));
	uint8_t op = 0;
	int32_t one = 1;
	char err[160];
	const char *full = NULL;
	pmix_status_t st;

	if (!w)
		return plug_agent_reply(req, PMIX_ERR_NOMEM, NULL);
	if (pxc_unpack_proc(in, &w->who) != PMIX_SUCCESS ||
	    pxc_unpack(in, &op, &one, PMIX_UINT8) != PMIX_SUCCESS) {
		free(w);
		plug_error("malformed allocation request from a step daemon: refused");
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	if (op == ALLOC_WAIT) {
		take_wait(req, &w->who, in);
		return free(w);
	}
	if (pxc_unpack_u32(in, &w->wait_s) != PMIX_SUCCESS || !w->wait_s ||
	    w->wait_s > PLUG_ALLOC_TIMEOUT_MAX ||
	    pxc_unpack_array(in, (void **)&w->info, &w->ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		work_free(w);
		plug_error("malformed allocation request from a step daemon: refused");
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	w->req = req;
	if ((st = plug_alloc_parse(op, w->info, w->ninfo, &w->r, err, sizeof(err))) !=
	    PMIX_SUCCESS) {
		plug_error("allocation request of %s:%u refused: %s", w->who.nspace, w->who.rank,
			   err);
		plug_agent_reply(req, st, NULL);
		return work_free(w);
	}
	pthread_mutex_lock(&al.lock);
	if (al.stop || !al.started) {
		st = PMIX_ERR_UNREACH;
	} else if (al.ntodo >= ALLOC_TODO_MAX) {
		full = "too many requests under way";
	} else if (op == PMIX_ALLOC_NEW && al.nrecs + al.nnew >= ALLOC_MAX) {
		full = "this srun holds as many allocations as it may";
	} else {
		work_t **p = &al.todo;

		while (*p)
			p = &(*p)->next;
		*p = w;
		al.ntodo++;
		w->reserved = op == PMIX_ALLOC_NEW;
		al.nnew += w->reserved;
		pthread_cond_broadcast(&al.cond);
	}
	pthread_mutex_unlock(&al.lock);
	if (full) {
		plug_error("allocation request of %s:%u refused: %s", w->who.nspace, w->who.rank,
			   full);
		st = PMIX_ERR_OUT_OF_RESOURCE;
	}
	if (st != PMIX_SUCCESS) {
		plug_agent_reply(req, st, NULL);
		work_free(w);
	}
}

/* The agent stops (after plug_alloc_srun_stop): answer what is left. */
static void on_stop(void)
{
	pthread_mutex_lock(&al.lock);
	while (al.todo) {
		work_t *w = al.todo;

		al.todo = w->next;
		al.ntodo--;
		al.nnew -= w->reserved;
		plug_agent_reply(w->req, PMIX_ERR_UNREACH, NULL);
		work_free(w);
	}
	for (arec_t *r = al.recs; r; r = r->next) {
		plug_agent_reply(r->wait, PMIX_ERR_UNREACH, NULL);
		r->wait = NULL;
	}
	pthread_mutex_unlock(&al.lock);
}

char **plug_alloc_srun_nodes(uint32_t id)
{
	char **nodes = NULL;
	uint32_t n = 0;
	arec_t *r;
	int e = ENOENT;

	pthread_mutex_lock(&al.lock);
	if ((r = rec_find(id)) && r->state == A_GRANTED)
		nodes = plug_hostlist_expand(r->nodes, &n);
	else if (r && r->state == A_PENDING && !r->cancel)
		e = EAGAIN;
	pthread_mutex_unlock(&al.lock);
	if (!nodes)
		errno = e;
	return nodes;
}

int plug_alloc_srun_init(uint32_t job)
{
	int e;

	pthread_mutex_lock(&al.lock);
	e = al.started;
	pthread_mutex_unlock(&al.lock);
	if (e)
		return 0;
	al.job = job;
	al.stop = al.done = false;
	if (!(al.pg = pxc_progress_acquire()))
		return plug_error("alloc: no progress engine: %m"), -1;
	if ((e = plug_thread_start(&al.thread, worker, NULL))) {
		pxc_progress_release();
		al.pg = NULL;
		return plug_error("alloc: cannot start its thread: %s", strerror(e)), -1;
	}
	pthread_mutex_lock(&al.lock);
	al.started = true;
	pthread_mutex_unlock(&al.lock);
	if (plug_agent_register_handler(PLUG_NET_ALLOC, on_alloc, on_stop) < 0)
		plug_error("alloc: cannot register its request");
	return 0;
}

void plug_alloc_srun_stop(void)
{
	bool done;

	pthread_mutex_lock(&al.lock);
	done = !al.started;
	al.started = false;
	if (done)
		return (void)pthread_mutex_unlock(&al.lock);
	al.stop = true;
	pthread_cond_broadcast(&al.cond);
	done = plug_wait_flag(&al.cond, &al.lock, &al.done, ALLOC_STOP_MS);
	pthread_mutex_unlock(&al.lock);
	if (!done) {
		/* an RPC hangs: the thread is left to srun's exit, with what it
		 * uses (the records it may still release) */
		plug_error("alloc: an RPC to slurmctld did not end in %d ms", ALLOC_STOP_MS);
		pthread_detach(al.thread);
		return;
	}
	pthread_join(al.thread, NULL);
	pthread_mutex_lock(&al.lock);
	while (al.recs)
		rec_free(al.recs);
	pthread_mutex_unlock(&al.lock);
	pxc_progress_release();
	al.pg = NULL;
}
