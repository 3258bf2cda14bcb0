/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_host.c - the host side of the PMIx server in slurmix-run: the
 * pmix_server_module_t callbacks and the simple requests (client
 * connect/finalize, abort, fence, publish/lookup, spawn, connect). The
 * work queue is in sxr_req.c; query, job control, log and proc events in
 * sxr_ctl.c.
 *
 * Threads: every function named host_* runs in the server's progress
 * thread. It deep-copies what it needs into a struct sxr_req (a server may
 * free its arguments as soon as the callback returns), posts the request
 * and returns PMIX_SUCCESS. The run_* functions run in the main
 * thread, which owns all launcher state, and call the cbfunc. Only the
 * queue (qlock) and the eventfd are shared.
 *
 * Single node: a fence completes with exactly the data the server gave us
 * (it already aggregated every participant), direct modex has nobody to
 * ask, connect/disconnect/notify need no one beyond this server.
 */
#include "sxr.h"
#include "slurmix-run.h"
#include "sxr_ctl.h"
#include "sxr_dir.h"
#include "sxr_host.h"
#include "sxr_in.h"
#include "sxr_req.h"
#include "sxr_spawn.h"
#include "sxr_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- lookups */

struct sxr_job *sxr_find_job(struct sxr *s, const char *nspace)
{
	struct sxr_job *j;

	for (j = s->jobs; j; j = j->next)
		if (!strncmp(j->nspace, nspace, PMIX_MAX_NSLEN))
			return j;
	return NULL;
}

struct sxr_task *sxr_find_task(struct sxr *s, const char *nspace, pmix_rank_t rank)
{
	struct sxr_job *j = sxr_find_job(s, nspace);

	if (!j || rank >= j->size)
		return NULL;
	return &j->tasks[rank];
}

/* ---------------------------------------------------------------- simple ops */

static void run_opdone(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	(void)s;
	if (r->cb.op)
		r->cb.op(r->status, r->cbdata);
	sxr_req_free(r);
}

static pmix_status_t post_opdone(pmix_status_t status, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_opdone, NULL);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->status = status;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post(r);
}

static void run_connected(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	struct sxr_task *t = sxr_find_task(s, r->proc.nspace, r->proc.rank);

	if (t)
		t->connected = 1;
	sxr_verbose(s, "%s.%u connected", r->proc.nspace, r->proc.rank);
	run_opdone(s, w);
}

#define SXR_PF_EXITING 0x4 /* Linux task flag, set before a process closes its fds */

/* Is the task's process ending or ended (reaped or not)? */
static int task_gone(const struct sxr_task *t)
{
	char path[64], buf[1024], state = 'R', *p;
	unsigned flags = 0;
	siginfo_t si;
	FILE *f;

	if (t->state != SXR_T_RUNNING)
		return 1;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, t->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == t->pid)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
	if (!(f = fopen(path, "r")))
		return 0;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
		return 0;
	return state == 'Z' || state == 'X' || (flags & SXR_PF_EXITING);
}

/* Servers also report a client whose connection dropped as finalized; that
 * notice comes once the process is exiting (its socket closes in exit), a
 * real PMIx_Finalize while it still runs (the server answers the client
 * only after us). */
static void run_finalized(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	struct sxr_task *t = sxr_find_task(s, r->proc.nspace, r->proc.rank);

	if (t && !task_gone(t))
		t->finalized = 1;
	sxr_verbose(s, "%s.%u finalized", r->proc.nspace, r->proc.rank);
	run_opdone(s, w);
}

static pmix_status_t post_proc_op(sxr_work_f run, const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run, proc);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post(r);
}

static pmix_status_t host_client_connected(const pmix_proc_t *proc, void *obj,
					   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)obj;
	return post_proc_op(run_connected, proc, cbfunc, cbdata);
}

static pmix_status_t host_client_finalized(const pmix_proc_t *proc, void *obj,
					   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)obj;
	return post_proc_op(run_finalized, proc, cbfunc, cbdata);
}

/* ---------------------------------------------------------------- abort */

static void run_abort(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	int st = r->status;

	sxr_msg("rank %u of %s called abort: %s", r->proc.rank, r->proc.nspace,
		r->msg && *r->msg ? r->msg : "(no message)");
	if (st != 0 && (st & 0xff) == 0)
		st = 1;
	sxr_set_status(s, st & 0xff);
	sxr_terminate(s, SIGTERM);
	run_opdone(s, w);
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
				pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
				void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_abort, proc);

	(void)obj, (void)procs, (void)nprocs;
	if (!r)
		return PMIX_ERR_NOMEM;
	r->status = status;
	r->msg = msg ? strdup(msg) : NULL;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post(r);
}

/* ---------------------------------------------------------------- fence */

static void release_data(void *cbdata)
{
	free(cbdata);
}

static void run_fence(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	(void)s;
	r->cb.modex(PMIX_SUCCESS, r->data, r->ndata, r->cbdata, r->data ? release_data : NULL,
		    r->data);
	r->data = NULL; /* now owned by release_data */
	sxr_req_free(r);
}

static pmix_status_t host_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo, char *data, size_t ndata,
				   pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_fence, NULL);

	(void)procs, (void)nprocs, (void)info, (void)ninfo;
	if (!r)
		return PMIX_ERR_NOMEM;
	if (ndata) {
		r->data = malloc(ndata);
		if (!r->data) {
			free(r);
			return PMIX_ERR_NOMEM;
		}
		memcpy(r->data, data, ndata);
		r->ndata = ndata;
	}
	r->cb.modex = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post(r);
}

static pmix_status_t host_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[],
				       size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	(void)proc, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
	return PMIX_ERR_NOT_FOUND; /* every proc is local: nobody else has it */
}

/* ---------------------------------------------------------------- directory */

static void run_publish(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	r->status = sxr_dir_publish(s->dir, &r->proc, r->info, r->ninfo);
	run_opdone(s, w);
}

static void run_lookup(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	sxr_dir_lookup(s->dir, &r->proc, r->keys, r->info, r->ninfo, r->cb.lookup, r->cbdata);
	sxr_req_free(r);
}

static void run_unpublish(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	r->status = sxr_dir_unpublish(s->dir, &r->proc, r->keys, r->info, r->ninfo);
	run_opdone(s, w);
}

static pmix_status_t host_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_publish, proc);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_infos(r, info, ninfo));
}

static pmix_status_t host_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				 size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_lookup, proc);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.lookup = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_keys(r, keys) | sxr_copy_infos(r, info, ninfo));
}

static pmix_status_t host_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				    size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_unpublish, proc);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_keys(r, keys) | sxr_copy_infos(r, info, ninfo));
}

/* ---------------------------------------------------------------- spawn */

static void run_spawn(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;

	sxr_spawn_run(s, &r->proc, r->info, r->ninfo, r->apps, r->napps, r->cb.spawn, r->cbdata);
	sxr_req_free(r);
}

static pmix_status_t host_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
				const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
				void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_spawn, proc);

	if (!r)
		return PMIX_ERR_NOMEM;
	r->cb.spawn = cbfunc;
	r->cbdata = cbdata;
	return sxr_req_post_checked(r, sxr_copy_infos(r, job_info, ninfo) |
					       sxr_copy_apps(r, apps, napps));
}

/* ---------------------------------------------------------------- trivial */

static pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs,
				  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	(void)procs, (void)nprocs, (void)info, (void)ninfo;
	return post_opdone(PMIX_SUCCESS, cbfunc, cbdata);
}

static pmix_status_t host_register_events(pmix_status_t *codes, size_t ncodes,
					  const pmix_info_t info[], size_t ninfo,
					  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)codes, (void)ncodes, (void)info, (void)ninfo;
	return post_opdone(PMIX_SUCCESS, cbfunc, cbdata);
}

static pmix_status_t host_deregister_events(pmix_status_t *codes, size_t ncodes,
					    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)codes, (void)ncodes;
	return post_opdone(PMIX_SUCCESS, cbfunc, cbdata);
}

static pmix_status_t host_notify_event(pmix_status_t code, const pmix_proc_t *source,
				       pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)code, (void)source, (void)range, (void)info, (void)ninfo;
	return post_opdone(PMIX_SUCCESS, cbfunc, cbdata); /* nobody beyond this node */
}

/* ---------------------------------------------------------------- init */

static pmix_server_module_t host_module = {
	.client_connected = host_client_connected,
	.client_finalized = host_client_finalized,
	.abort = host_abort,
	.fence_nb = host_fence_nb,
	.direct_modex = host_direct_modex,
	.publish = host_publish,
	.lookup = host_lookup,
	.unpublish = host_unpublish,
	.spawn = host_spawn,
	.connect = host_connect,
	.disconnect = host_connect,
	.register_events = host_register_events,
	.deregister_events = host_deregister_events,
	.notify_event = host_notify_event,
	.query = sxr_host_query,
	.log = sxr_host_log,
	.job_control = sxr_host_job_control,
	.push_stdin = sxr_host_push_stdin,
};

int sxr_host_init(struct sxr *s)
{
	pmix_topology_t topo = { .source = "hwloc", .topology = s->topo };
	char srvns[PMIX_MAX_NSLEN + 1];
	pmix_rank_t zero = 0;
	pmix_info_t info[5];
	pmix_status_t rc;

	sxr_queue_init(s);
	snprintf(srvns, sizeof(srvns), "%s.%d.srv", SXR_NAME, (int)getpid());
	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, s->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, s->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, srvns, PMIX_STRING);
	PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &zero, PMIX_PROC_RANK);
	/* by reference: loading would copy (or not) a whole topology */
	PMIX_INFO_CONSTRUCT(&info[4]);
	PMIX_LOAD_KEY(info[4].key, PMIX_TOPOLOGY2);
	info[4].value.type = PMIX_TOPO;
	info[4].value.data.topo = &topo;
	rc = PMIx_server_init(&host_module, info, 5);
	for (int i = 0; i < 4; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	if (rc != PMIX_SUCCESS) {
		sxr_msg("cannot start the PMIx server: %s", PMIx_Error_string(rc));
		return -1;
	}
	s->server_up = 1;
	return 0;
}
