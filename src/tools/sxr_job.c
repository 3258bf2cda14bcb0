/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_job.c - namespaces and tasks of slurmix-run: the job, app, node and
 * proc information registered with the PMIx server, the fork/exec of the
 * tasks, and what happens when a task ends.
 *
 * All in the main thread. A job is registered (PMIx_server_register_nspace,
 * then PMIx_server_register_client for each rank, waiting for each
 * callback), then every task is forked with the environment from
 * PMIx_server_setup_fork. Each child reports a failed chdir/exec through a
 * close-on-exec pipe, so a launch either starts every task or leaves
 * nothing running (the started ones are killed and reaped, the namespace
 * deregistered).
 *
 * The child side of fork() only calls async-signal-safe functions on data
 * prepared before the fork: the progress thread of the server may hold
 * locks at that moment.
 *
 * The information follows what Open MPI 4.1 reads at MPI_Init, with the
 * exact types it checks (uint16 local/node ranks, uint32 sizes, proc-rank
 * ranks, strings), plus the app/node arrays and the locality string.
 */
#include "sxr.h"
#include "slurmix-run.h"
#include "sxr_ctl.h"
#include "sxr_dir.h"
#include "sxr_in.h"
#include "sxr_iof.h"
#include "sxr_job.h"
#include "sxr_req.h"
#include "sxr_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A growable info array; ownership of values moves into it. */
struct infos {
	pmix_info_t *v;
	size_t n, cap;
};

static pmix_info_t *infos_next(struct infos *v, const char *key)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		pmix_info_t *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		v->v = nv;
		v->cap = cap;
	}
	PMIX_INFO_CONSTRUCT(&v->v[v->n]);
	PMIX_LOAD_KEY(v->v[v->n].key, key);
	return &v->v[v->n++];
}

static void infos_add(struct infos *v, const char *key, const void *data, pmix_data_type_t t)
{
	pmix_info_t *in = infos_next(v, key);

	if (in)
		PMIX_INFO_LOAD(in, key, data, t);
}

static void infos_add_u32(struct infos *v, const char *key, uint32_t x)
{
	infos_add(v, key, &x, PMIX_UINT32);
}

static void infos_add_u16(struct infos *v, const char *key, uint16_t x)
{
	infos_add(v, key, &x, PMIX_UINT16);
}

static void infos_add_rank(struct infos *v, const char *key, pmix_rank_t x)
{
	infos_add(v, key, &x, PMIX_PROC_RANK);
}

static void infos_free(struct infos *v)
{
	for (size_t i = 0; i < v->n; i++)
		PMIX_INFO_DESTRUCT(&v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

/* Moves inner's infos into one PMIX_DATA_ARRAY value of outer. */
static void infos_add_array(struct infos *v, const char *key, struct infos *inner)
{
	pmix_data_array_t *da = malloc(sizeof(*da));
	pmix_info_t *in = da ? infos_next(v, key) : NULL;

	if (!in) {
		free(da);
		infos_free(inner);
		return;
	}
	da->type = PMIX_INFO;
	da->size = inner->n;
	da->array = inner->v;
	in->value.type = PMIX_DATA_ARRAY;
	in->value.data.darray = da;
	inner->v = NULL;
	inner->n = inner->cap = 0;
}

/* ---------------------------------------------------------------- job info */

static char *rank_list(uint32_t first, uint32_t n)
{
	char *out = malloc((size_t)n * 11 + 1), *p = out;

	if (!out)
		return NULL;
	*p = '\0';
	for (uint32_t i = 0; i < n; i++)
		p += sprintf(p, i ? ",%u" : "%u", first + i);
	return out;
}

static void add_maps(struct sxr *s, struct sxr_job *j, struct infos *v)
{
	char *peers = rank_list(0, j->size), *regex = NULL, *ppn = NULL;

	if (peers && PMIx_generate_regex(s->hostname, &regex) == PMIX_SUCCESS && regex)
		infos_add(v, PMIX_NODE_MAP, regex, PMIX_STRING);
	if (peers && PMIx_generate_ppn(peers, &ppn) == PMIX_SUCCESS && ppn)
		infos_add(v, PMIX_PROC_MAP, ppn, PMIX_STRING);
	if (peers)
		infos_add(v, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	free(peers);
	free(regex);
	free(ppn);
}

static void add_node_info(struct sxr *s, struct sxr_job *j, struct infos *v)
{
	struct infos node = { 0 };
	char *peers = rank_list(0, j->size);

	infos_add(&node, PMIX_HOSTNAME, s->hostname, PMIX_STRING);
	infos_add_u32(&node, PMIX_NODEID, 0);
	infos_add_u32(&node, PMIX_NODE_SIZE, s->nprocs_total);
	infos_add_u32(&node, PMIX_LOCAL_SIZE, j->size);
	infos_add_rank(&node, PMIX_LOCALLDR, 0);
	if (peers)
		infos_add(&node, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	free(peers);
	infos_add_array(v, PMIX_NODE_INFO_ARRAY, &node);
}

static void add_app_info(struct sxr_job *j, uint32_t appnum, struct infos *v)
{
	struct sxr_app *a = &j->apps[appnum];
	struct infos app = { 0 };
	char *args = NULL, *p;
	size_t len = 1;

	infos_add_u32(&app, PMIX_APPNUM, appnum);
	infos_add_u32(&app, PMIX_APP_SIZE, a->nprocs);
	infos_add_rank(&app, PMIX_APPLDR, a->first_rank);
	infos_add(&app, PMIX_WDIR, a->cwd, PMIX_STRING);
	for (char **v = a->argv; v && *v; v++)
		len += strlen(*v) + 1;
	p = args = calloc(1, len);
	for (char **v = a->argv; args && v && *v; v++)
		p += sprintf(p, v == a->argv ? "%s" : " %s", *v);
	if (args)
		infos_add(&app, PMIX_APP_ARGV, args, PMIX_STRING);
	free(args);
	infos_add_array(v, PMIX_APP_INFO_ARRAY, &app);
}

static void add_proc_info(struct sxr *s, struct sxr_job *j, struct sxr_task *t, struct infos *v)
{
	struct infos p = { 0 };
	bool spawned = j->spawned;
	char dir[4200];

	infos_add_rank(&p, PMIX_RANK, t->rank);
	infos_add_u16(&p, PMIX_LOCAL_RANK, (uint16_t)t->rank);
	infos_add_u16(&p, PMIX_NODE_RANK, (uint16_t)(j->offset + t->rank));
	infos_add_rank(&p, PMIX_GLOBAL_RANK, j->offset + t->rank);
	infos_add_rank(&p, PMIX_APP_RANK, t->rank - j->apps[t->appnum].first_rank);
	infos_add_u32(&p, PMIX_APPNUM, t->appnum);
	infos_add(&p, PMIX_HOSTNAME, s->hostname, PMIX_STRING);
	infos_add_u32(&p, PMIX_NODEID, 0);
	infos_add_u32(&p, PMIX_REINCARNATION, 0);
	infos_add(&p, PMIX_SPAWNED, &spawned, PMIX_BOOL);
	if (spawned)
		infos_add(&p, PMIX_PARENT_ID, &j->parent, PMIX_PROC);
	if (s->locality)
		infos_add(&p, PMIX_LOCALITY_STRING, s->locality, PMIX_STRING);
	snprintf(dir, sizeof(dir), "%s/%u", j->nsdir, t->rank);
	infos_add(&p, PMIX_PROCDIR, dir, PMIX_STRING);
	infos_add_array(v, PMIX_PROC_DATA, &p);
}

static void build_job_info(struct sxr *s, struct sxr_job *j, struct infos *v)
{
	bool yes = true, spawned = j->spawned;

	infos_add(v, PMIX_NSPACE, j->nspace, PMIX_STRING);
	infos_add(v, PMIX_JOBID, j->nspace, PMIX_STRING);
	infos_add_u32(v, PMIX_JOB_SIZE, j->size);
	infos_add_u32(v, PMIX_MAX_PROCS, j->size);
	infos_add_u32(v, PMIX_UNIV_SIZE, s->nprocs_total);
	infos_add_u32(v, PMIX_NPROC_OFFSET, j->offset);
	infos_add_u32(v, PMIX_JOB_NUM_APPS, (uint32_t)j->napps);
	infos_add_u32(v, PMIX_NUM_NODES, 1);
	infos_add_u32(v, PMIX_LOCAL_SIZE, j->size);
	infos_add_u32(v, PMIX_NODE_SIZE, s->nprocs_total);
	infos_add_rank(v, PMIX_LOCALLDR, 0);
	infos_add(v, PMIX_HOSTNAME, s->hostname, PMIX_STRING);
	infos_add_u32(v, PMIX_NODEID, 0);
	infos_add(v, PMIX_TMPDIR, s->tmpdir, PMIX_STRING);
	infos_add(v, PMIX_NSDIR, j->nsdir, PMIX_STRING);
	infos_add(v, PMIX_TDIR_RMCLEAN, &yes, PMIX_BOOL);
	infos_add(v, PMIX_SPAWNED, &spawned, PMIX_BOOL);
	if (spawned)
		infos_add(v, PMIX_PARENT_ID, &j->parent, PMIX_PROC);
	if (s->topo_xml)
		infos_add(v, PMIX_HWLOC_XML_V2, s->topo_xml, PMIX_STRING);
	add_maps(s, j, v);
	add_node_info(s, j, v);
	for (uint32_t a = 0; a < j->napps; a++)
		add_app_info(j, a, v);
	for (uint32_t r = 0; r < j->size; r++)
		add_proc_info(s, j, &j->tasks[r], v);
}

/* ---------------------------------------------------------------- register */

static pmix_status_t register_job(struct sxr *s, struct sxr_job *j)
{
	struct infos v = { 0 };
	sxr_sync_t y;
	pmix_status_t rc;

	build_job_info(s, j, &v);
	sxr_sync_init(&y);
	rc = PMIx_server_register_nspace(j->nspace, (int)j->size, v.v, v.n, sxr_sync_opcb, &y);
	if (rc == PMIX_SUCCESS)
		rc = sxr_sync_wait(&y, 30);
	else if (rc == PMIX_OPERATION_SUCCEEDED)
		rc = PMIX_SUCCESS;
	infos_free(&v);
	if (rc != PMIX_SUCCESS)
		return rc;
	j->registered = 1;
	for (uint32_t r = 0; r < j->size && rc == PMIX_SUCCESS; r++) {
		pmix_proc_t p;

		PMIX_LOAD_PROCID(&p, j->nspace, r);
		sxr_sync_init(&y);
		rc = PMIx_server_register_client(&p, getuid(), getgid(), &j->tasks[r],
						 sxr_sync_opcb, &y);
		if (rc == PMIX_SUCCESS)
			rc = sxr_sync_wait(&y, 30);
		else if (rc == PMIX_OPERATION_SUCCEEDED)
			rc = PMIX_SUCCESS;
	}
	return rc;
}

static void noop_opcb(pmix_status_t status, void *cbdata)
{
	(void)status, (void)cbdata;
}

static void deregister_job(struct sxr_job *j)
{
	sxr_sync_t y;

	if (!j->registered)
		return;
	sxr_sync_init(&y);
	PMIx_server_deregister_nspace(j->nspace, sxr_sync_opcb, &y);
	(void)sxr_sync_wait(&y, 3);
	j->registered = 0;
}

/* ---------------------------------------------------------------- fork */

/* The child: only async-signal-safe calls from here on. */
static void child_exec(struct sxr_app *a, char **env, int errfd, int devnull, const int out[2],
		       int in)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int err;

	sigemptyset(&none);
	sigaction(SIGPIPE, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (in >= 0)
		dup2(in, STDIN_FILENO); /* (for pushes: SLURMIX_STDIN=push) */
	else if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	sxr_iof_child(out);
	if (chdir(a->cwd) == 0)
		execve(a->exe, a->argv, env);
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(127);
}

static int fork_task(struct sxr_job *j, struct sxr_task *t, int *errfd)
{
	struct sxr_app *a = &j->apps[t->appnum];
	char **env = sxr_argv_dup(a->env);
	int fds[2], devnull = -1, out[2], in;
	pmix_proc_t p;
	pid_t pid;

	PMIX_LOAD_PROCID(&p, j->nspace, t->rank);
	if (!env || PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS || pipe2(fds, O_CLOEXEC) < 0) {
		sxr_argv_free(env);
		return -1;
	}
	sxr_iof_prepare(t, out);
	sxr_in_prepare(t, &in);
	if (j->spawned || t->rank != 0)
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid = fork();
	if (pid == 0)
		child_exec(a, env, fds[1], devnull, out, in);
	sxr_iof_forked(t, out, pid < 0);
	sxr_in_forked(t, in, pid < 0);
	close(fds[1]);
	if (devnull >= 0)
		close(devnull);
	sxr_argv_free(env);
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	t->pid = pid;
	t->state = SXR_T_RUNNING;
	*errfd = fds[0];
	return 0;
}

/* Reads the exec report of one child: 0 = exec'd, else its errno. */
static int exec_result(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int err = 0;
	ssize_t n;

	if (poll(&pfd, 1, 30000) <= 0)
		return ETIMEDOUT;
	n = read(fd, &err, sizeof(err));
	return n == (ssize_t)sizeof(err) ? err : 0;
}

/* Kills and reaps whatever a failed launch started. */
static void launch_undo(struct sxr_job *j)
{
	for (uint32_t r = 0; r < j->size; r++) {
		struct sxr_task *t = &j->tasks[r];

		if (t->state != SXR_T_RUNNING)
			continue;
		kill(t->pid, SIGKILL);
		waitpid(t->pid, &t->wstatus, 0);
		sxr_iof_close(t);
		sxr_in_close(t);
		t->state = SXR_T_EXITED;
	}
}

static int fork_all(struct sxr_job *j)
{
	int *fds = malloc(j->size * sizeof(int)), bad = 0;
	uint32_t started = 0;

	if (!fds)
		return ENOMEM;
	for (; started < j->size; started++)
		if (fork_task(j, &j->tasks[started], &fds[started]) < 0) {
			bad = errno ? errno : EAGAIN;
			sxr_msg("cannot start rank %u of %s: %s", started, j->nspace,
				strerror(bad));
			break;
		}
	for (uint32_t r = 0; r < started; r++) {
		int err = exec_result(fds[r]);

		close(fds[r]);
		if (err && !bad) {
			sxr_msg("cannot execute %s: %s", j->tasks[r].exe, strerror(err));
			bad = err;
		}
	}
	free(fds);
	return bad;
}

/* ---------------------------------------------------------------- launch */

static struct sxr_job *job_new(struct sxr *s, struct sxr_app *apps, size_t napps)
{
	struct sxr_job *j = calloc(1, sizeof(*j));
	uint32_t r = 0;

	if (!j)
		return NULL;
	for (size_t a = 0; a < napps; a++) {
		apps[a].first_rank = j->size;
		j->size += apps[a].nprocs;
	}
	j->tasks = calloc(j->size, sizeof(*j->tasks));
	if (!j->tasks) {
		free(j);
		return NULL;
	}
	for (size_t a = 0; a < napps; a++)
		for (uint32_t i = 0; i < apps[a].nprocs; i++, r++) {
			j->tasks[r] = (struct sxr_task){ .job = j,
							 .rank = r,
							 .appnum = (uint32_t)a,
							 .exe = apps[a].exe,
							 .iof_fd = { -1, -1 },
							 .in_fd = -1 };
		}
	j->apps = apps;
	j->napps = napps;
	if (s->njobs == 0)
		snprintf(j->nspace, sizeof(j->nspace), "%s.%d", SXR_NAME, (int)getpid());
	else
		snprintf(j->nspace, sizeof(j->nspace), "%s.%d.%u", SXR_NAME, (int)getpid(),
			 s->njobs);
	return j;
}

static void job_free(struct sxr_job *j)
{
	if (!j)
		return;
	sxr_apps_free(j->apps, j->napps);
	for (uint32_t r = 0; j->tasks && r < j->size; r++) {
		sxr_iof_close(&j->tasks[r]);
		sxr_in_close(&j->tasks[r]);
	}
	free(j->tasks);
	free(j->nsdir);
	free(j);
}

static int make_dirs(struct sxr *s, struct sxr_job *j)
{
	char dir[4200];

	if (asprintf(&j->nsdir, "%s/%s", s->tmpdir, j->nspace) < 0) {
		j->nsdir = NULL;
		return -1;
	}
	if (mkdir(j->nsdir, 0700) < 0 && errno != EEXIST)
		return -1;
	for (uint32_t r = 0; r < j->size; r++) {
		snprintf(dir, sizeof(dir), "%s/%u", j->nsdir, r);
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
	}
	return 0;
}

pmix_status_t sxr_job_launch(struct sxr *s, struct sxr_app *apps, size_t napps,
			     const pmix_proc_t *parent, struct sxr_job **out)
{
	struct sxr_job *j = job_new(s, apps, napps);
	pmix_status_t rc;
	int err;

	if (!j) {
		sxr_apps_free(apps, napps);
		return PMIX_ERR_NOMEM;
	}
	if (parent) {
		j->spawned = 1;
		j->parent = *parent;
	}
	j->offset = s->nprocs_total;
	s->nprocs_total += j->size;
	s->njobs++;
	if (make_dirs(s, j) < 0) {
		sxr_msg("cannot create %s: %s", j->nsdir ? j->nsdir : "dirs", strerror(errno));
		rc = PMIX_ERR_NOMEM;
		goto fail;
	}
	rc = register_job(s, j);
	if (rc != PMIX_SUCCESS) {
		sxr_msg("cannot register namespace %s: %s", j->nspace, PMIx_Error_string(rc));
		goto fail;
	}
	err = fork_all(j);
	if (err) {
		launch_undo(j);
		rc = err == ENOENT ? PMIX_ERR_NOT_FOUND : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
		goto fail;
	}
	sxr_verbose(s, "started %s: %u task(s)", j->nspace, j->size);
	j->next = s->jobs;
	s->jobs = j;
	*out = j;
	return PMIX_SUCCESS;
fail:
	deregister_job(j);
	s->nprocs_total -= j->size;
	job_free(j);
	return rc;
}

/* ---------------------------------------------------------------- ends */

int sxr_tasks_running(struct sxr *s)
{
	int n = 0;

	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			n += j->tasks[r].state == SXR_T_RUNNING;
	return n;
}

void sxr_signal_tasks(struct sxr *s, int sig)
{
	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			if (j->tasks[r].state == SXR_T_RUNNING)
				kill(j->tasks[r].pid, sig);
}

static int job_done(struct sxr_job *j)
{
	for (uint32_t r = 0; r < j->size; r++)
		if (j->tasks[r].state == SXR_T_RUNNING)
			return 0;
	return 1;
}

/* Reports an abnormal end; returns the event code to send, 0 if normal. */
static pmix_status_t classify(struct sxr *s, struct sxr_task *t)
{
	int st = t->wstatus;
	const char *ns = t->job->nspace;

	if (WIFSIGNALED(st)) {
		sxr_msg("rank %u of %s (pid %d) was killed by signal %d (SIG%s)", t->rank, ns,
			(int)t->pid, WTERMSIG(st), sigabbrev_np(WTERMSIG(st)) ?: "?");
		sxr_set_status(s, 128 + WTERMSIG(st));
		return PMIX_ERR_PROC_ABORTED_BY_SIG;
	}
	if (t->connected && !t->finalized) {
		sxr_msg("rank %u of %s (pid %d) exited with status %d without calling "
			"PMIx_Finalize",
			t->rank, ns, (int)t->pid, WEXITSTATUS(st));
		sxr_set_status(s, WEXITSTATUS(st) ? WEXITSTATUS(st) : 1);
		return PMIX_ERR_PROC_TERM_WO_SYNC;
	}
	if (WEXITSTATUS(st)) {
		sxr_msg("rank %u of %s (pid %d) exited with status %d", t->rank, ns, (int)t->pid,
			WEXITSTATUS(st));
		sxr_set_status(s, WEXITSTATUS(st));
		return PMIX_ERR_EXIT_NONZERO_TERM;
	}
	return 0;
}

static void task_ended(struct sxr *s, struct sxr_task *t, int wstatus)
{
	pmix_proc_t p;
	pmix_status_t code = 0;

	sxr_iof_task_ended(s, t); /* its last output before its end */
	sxr_in_close(t);
	t->state = SXR_T_EXITED;
	t->wstatus = wstatus;
	PMIX_LOAD_PROCID(&p, t->job->nspace, t->rank);
	sxr_verbose(s, "rank %u of %s (pid %d) ended, wait status 0x%x", t->rank, t->job->nspace,
		    (int)t->pid, wstatus);
	if (!s->terminating && !t->killed)
		code = classify(s, t);
	if (s->server_up)
		PMIx_server_deregister_client(&p, noop_opcb, NULL);
	sxr_dir_proc_gone(s->dir, t->job->nspace, t->rank);
	if (job_done(t->job))
		sxr_dir_proc_gone(s->dir, t->job->nspace, PMIX_RANK_WILDCARD);
	if (!code)
		return;
	sxr_notify_proc_event(s, code, &p);
	if (!s->o.keep_going)
		sxr_terminate(s, SIGTERM);
}

static struct sxr_task *task_by_pid(struct sxr *s, pid_t pid)
{
	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			if (j->tasks[r].pid == pid && j->tasks[r].state == SXR_T_RUNNING)
				return &j->tasks[r];
	return NULL;
}

void sxr_reap(struct sxr *s)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		struct sxr_task *t = task_by_pid(s, pid);

		if (t)
			task_ended(s, t, st);
	}
}

void sxr_jobs_release(struct sxr *s)
{
	while (s->jobs) {
		struct sxr_job *j = s->jobs;

		s->jobs = j->next;
		deregister_job(j);
		job_free(j);
	}
}

/* ---------------------------------------------------------------- apps */

void sxr_apps_free(struct sxr_app *apps, size_t napps)
{
	for (size_t i = 0; apps && i < napps; i++) {
		free(apps[i].exe);
		sxr_argv_free(apps[i].argv);
		sxr_argv_free(apps[i].env);
		free(apps[i].cwd);
	}
	free(apps);
}

static int try_exe(const char *dir, size_t dlen, const char *cmd, char **out)
{
	char *p;

	if (asprintf(&p, "%.*s%s%s", (int)dlen, dir, dlen ? "/" : "", cmd) < 0)
		return -1;
	if (access(p, X_OK) == 0) {
		struct stat sb;

		if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
			*out = p;
			return 0;
		}
	}
	free(p);
	return -1;
}

static int search_path(const char *cmd, const char *path, char **out)
{
	const char *p = path;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && try_exe(p, len, cmd, out) == 0)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return -1;
}

int sxr_resolve_exe(const char *cmd, const char *cwd, const char *path, const char *prefix,
		    char **out)
{
	char *bin = NULL;
	int rc;

	if (!cmd || !*cmd)
		return errno = EINVAL, -1;
	if (strchr(cmd, '/')) {
		rc = try_exe(cmd[0] == '/' ? "" : cwd, cmd[0] == '/' ? 0 : strlen(cwd), cmd, out);
		return rc < 0 ? (errno = access(cmd, F_OK) == 0 ? EACCES : ENOENT, -1) : 0;
	}
	if (prefix && asprintf(&bin, "%s/bin", prefix) >= 0) {
		rc = try_exe(bin, strlen(bin), cmd, out);
		free(bin);
		if (rc == 0)
			return 0;
	}
	if (search_path(cmd, path ? path : "/usr/local/bin:/usr/bin:/bin", out) == 0)
		return 0;
	return errno = ENOENT, -1;
}
