/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_ctl.c - the host requests of slurmix-run that look at or act on the
 * running jobs: PMIx_Query_info (namespaces, proc tables, job sizes, spawn
 * support, topology), PMIx_Job_control (kill, terminate, signal local
 * tasks; cleanup directives are the server's business and accepted),
 * PMIx_Log to stdout/stderr, and the events the launcher raises when a
 * task ends abnormally.
 *
 * Threads: sxr_host_* run in the server's progress thread and only copy
 * and post; run_* run in the main thread, which owns the jobs.
 */
#include "sxr.h"
#include "sxr_ctl.h"
#include "sxr_host.h"
#include "sxr_req.h"
#include "sxr_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const pmix_info_t *info_find(const pmix_info_t *info, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(info[i].key, key, PMIX_MAX_KEYLEN))
			return &info[i];
	return NULL;
}

/* ---------------------------------------------------------------- log */

static void run_log(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	int done = 0;

	(void)s;
	for (size_t i = 0; i < r->ninfo; i++) {
		const pmix_info_t *in = &r->info[i];
		FILE *f = !strcmp(in->key, PMIX_LOG_STDOUT) ? stdout :
			  !strcmp(in->key, PMIX_LOG_STDERR) ? stderr :
							      NULL;

		if (!f || in->value.type != PMIX_STRING || !in->value.data.string)
			continue;
		fprintf(f, "%s", in->value.data.string);
		fflush(f);
		done++;
	}
	if (r->cb.op)
		r->cb.op(done ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED, r->cbdata);
	sxr_req_free(r);
}

void sxr_host_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
		  const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
		  void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_log, client);

	(void)directives, (void)ndirs;
	if (!r) {
		if (cbfunc)
			cbfunc(PMIX_ERR_NOMEM, cbdata);
		return;
	}
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	if (sxr_req_post_checked(r, sxr_copy_infos(r, data, ndata)) != PMIX_SUCCESS && cbfunc)
		cbfunc(PMIX_ERR_NOMEM, cbdata);
}

/* ---------------------------------------------------------------- query */

static char *job_names(struct sxr *s)
{
	size_t len = 1;
	char *out;

	for (struct sxr_job *j = s->jobs; j; j = j->next)
		len += strlen(j->nspace) + 1;
	out = calloc(1, len);
	for (struct sxr_job *j = s->jobs; out && j; j = j->next) {
		if (*out)
			strcat(out, ",");
		strcat(out, j->nspace);
	}
	return out;
}

static int load_proc_table(struct sxr *s, pmix_info_t *out, const char *key, struct sxr_job *j)
{
	pmix_data_array_t da;
	pmix_proc_info_t *pi = calloc(j->size, sizeof(*pi));

	if (!pi)
		return -1;
	for (uint32_t i = 0; i < j->size; i++) {
		struct sxr_task *t = &j->tasks[i];

		PMIX_LOAD_PROCID(&pi[i].proc, j->nspace, t->rank);
		pi[i].hostname = s->hostname;
		pi[i].executable_name = t->exe;
		pi[i].pid = t->pid;
		pi[i].exit_code = WIFEXITED(t->wstatus) ? WEXITSTATUS(t->wstatus) : 0;
		pi[i].state = t->state == SXR_T_RUNNING ? PMIX_PROC_STATE_RUNNING :
			      t->state == SXR_T_EXITED  ? PMIX_PROC_STATE_TERMINATED :
							  PMIX_PROC_STATE_PREPPED;
	}
	da.type = PMIX_PROC_INFO;
	da.size = j->size;
	da.array = pi;
	PMIX_INFO_LOAD(out, key, &da, PMIX_DATA_ARRAY); /* deep copy */
	free(pi);                                       /* the strings were borrowed */
	return 0;
}

static const char *query_nspace(const pmix_query_t *q, const pmix_proc_t *requestor)
{
	for (size_t i = 0; i < q->nqual; i++)
		if (!strcmp(q->qualifiers[i].key, PMIX_NSPACE) &&
		    q->qualifiers[i].value.type == PMIX_STRING)
			return q->qualifiers[i].value.data.string;
	return requestor->nspace;
}

/* Answers one key into *out; returns 1 if answered, 0 if not. */
static int query_one(struct sxr *s, const pmix_query_t *q, const char *key,
		     const pmix_proc_t *requestor, pmix_info_t *out)
{
	struct sxr_job *j = sxr_find_job(s, query_nspace(q, requestor));
	char *str;

	if (!strcmp(key, PMIX_QUERY_NAMESPACES)) {
		str = job_names(s);
		PMIX_INFO_LOAD(out, key, str ? str : "", PMIX_STRING);
		free(str);
		return 1;
	}
	if (!strcmp(key, PMIX_QUERY_SPAWN_SUPPORT)) {
		PMIX_INFO_LOAD(out, key,
			       PMIX_HOST "," PMIX_HOSTFILE "," PMIX_ADD_HOST "," PMIX_ADD_HOSTFILE
					 "," PMIX_WDIR "," PMIX_PREFIX "," PMIX_SET_ENVAR
					 "," PMIX_UNSET_ENVAR "," PMIX_PREPEND_ENVAR
					 "," PMIX_APPEND_ENVAR "," PMIX_PERSONALITY,
			       PMIX_STRING);
		return 1;
	}
	if (!strcmp(key, PMIX_HWLOC_XML_V2) && s->topo_xml) {
		PMIX_INFO_LOAD(out, key, s->topo_xml, PMIX_STRING);
		return 1;
	}
	if (!j)
		return 0;
	if (!strcmp(key, PMIX_JOB_SIZE)) {
		PMIX_INFO_LOAD(out, key, &j->size, PMIX_UINT32);
		return 1;
	}
	if (!strcmp(key, PMIX_QUERY_PROC_TABLE) || !strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE))
		return load_proc_table(s, out, key, j) == 0;
	return 0;
}

static void release_infos(void *cbdata)
{
	struct sxr_req *r = cbdata;
	pmix_info_t *res = (pmix_info_t *)(void *)r->data;

	if (res)
		PMIX_INFO_FREE(res, r->ndata);
	r->data = NULL;
	sxr_req_free(r);
}

static void run_query(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	size_t nkeys = 0, n = 0;
	pmix_info_t *res = NULL;
	pmix_status_t rc;

	for (size_t i = 0; i < r->nqueries; i++)
		for (char **k = r->queries[i].keys; k && *k; k++)
			nkeys++;
	if (nkeys)
		PMIX_INFO_CREATE(res, nkeys);
	for (size_t i = 0; res && i < r->nqueries; i++)
		for (char **k = r->queries[i].keys; k && *k; k++)
			n += query_one(s, &r->queries[i], *k, &r->proc, &res[n]);
	rc = n == 0 ? PMIX_ERR_NOT_FOUND : n < nkeys ? PMIX_QUERY_PARTIAL_SUCCESS : PMIX_SUCCESS;
	if (n == 0 && res) {
		PMIX_INFO_FREE(res, nkeys);
		res = NULL;
	}
	r->data = (char *)res;
	r->ndata = res ? nkeys : 0;
	r->cb.info(rc, res, n, r->cbdata, release_infos, r);
}

pmix_status_t sxr_host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
			     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_query, proct);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.info = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_queries(r, queries, nqueries));
}

/* ---------------------------------------------------------------- job control */

static int jobctl_signal(const pmix_info_t *d, size_t nd, int *sig)
{
	const pmix_info_t *in;

	if ((in = info_find(d, nd, PMIX_JOB_CTRL_KILL)) && PMIX_INFO_TRUE(in))
		return *sig = SIGKILL, 1;
	if ((in = info_find(d, nd, PMIX_JOB_CTRL_TERMINATE)) && PMIX_INFO_TRUE(in))
		return *sig = SIGTERM, 1;
	if ((in = info_find(d, nd, PMIX_JOB_CTRL_SIGNAL)) && in->value.type == PMIX_INT)
		return *sig = in->value.data.integer, 1;
	return 0;
}

/* Directives the server acts on itself; accept them if they reach us. */
static int jobctl_cleanup_only(const pmix_info_t *d, size_t nd)
{
	for (size_t i = 0; i < nd; i++)
		if (strncmp(d[i].key, "pmix.clean", 10) && strncmp(d[i].key, "pmix.reg.clean", 14))
			return 0;
	return nd > 0;
}

static void signal_target(struct sxr *s, const pmix_proc_t *p, int sig, int *hits)
{
	for (struct sxr_job *j = s->jobs; j; j = j->next) {
		if (strncmp(j->nspace, p->nspace, PMIX_MAX_NSLEN))
			continue;
		for (uint32_t i = 0; i < j->size; i++) {
			struct sxr_task *t = &j->tasks[i];

			if (t->state != SXR_T_RUNNING ||
			    (p->rank != PMIX_RANK_WILDCARD && p->rank != t->rank))
				continue;
			if (sig == SIGKILL || sig == SIGTERM)
				t->killed = 1;
			kill(t->pid, sig);
			(*hits)++;
		}
	}
}

static void run_jobctl(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	pmix_proc_t all;
	pmix_status_t rc = PMIX_SUCCESS;
	int sig = 0, hits = 0;

	if (!jobctl_signal(r->info, r->ninfo, &sig)) {
		rc = jobctl_cleanup_only(r->info, r->ninfo) ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
	} else if (r->nprocs == 0) {
		PMIX_LOAD_PROCID(&all, r->proc.nspace, PMIX_RANK_WILDCARD);
		signal_target(s, &all, sig, &hits);
	} else {
		for (size_t i = 0; i < r->nprocs; i++)
			signal_target(s, &r->procs[i], sig, &hits);
	}
	if (sig && !hits)
		rc = PMIX_ERR_NOT_FOUND;
	sxr_verbose(s, "job control from %s.%u: signal %d to %d task(s)", r->proc.nspace,
		    r->proc.rank, sig, hits);
	if (r->cb.info)
		r->cb.info(rc, NULL, 0, r->cbdata, NULL, NULL);
	sxr_req_free(r);
}

pmix_status_t sxr_host_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
				   size_t ntargets, const pmix_info_t directives[], size_t ndirs,
				   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_jobctl, requestor);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.info = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_procs(r, targets, ntargets) |
					       sxr_copy_infos(r, directives, ndirs));
}

/* ---------------------------------------------------------------- events */

static void notify_done(pmix_status_t status, void *cbdata)
{
	pmix_info_t *info = cbdata;

	(void)status;
	PMIX_INFO_FREE(info, 2);
}

void sxr_notify_proc_event(struct sxr *s, pmix_status_t code, const pmix_proc_t *who)
{
	pmix_info_t *info;
	pmix_status_t rc;
	bool yes = true;

	if (!s->server_up)
		return;
	PMIX_INFO_CREATE(info, 2);
	if (!info)
		return;
	PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, who, PMIX_PROC);
	PMIX_INFO_LOAD(&info[1], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
	rc = PMIx_Notify_event(code, who, PMIX_RANGE_SESSION, info, 2, notify_done, info);
	if (rc != PMIX_SUCCESS) {
		sxr_verbose(s, "PMIx_Notify_event(%d): %s", code, PMIx_Error_string(rc));
		if (rc != PMIX_OPERATION_SUCCEEDED)
			PMIX_INFO_FREE(info, 2);
	}
}
