/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/spawn.c - the srun side of PMIx_Spawn (see srun/spawn.h): the
 * parent srun's spawn engine and the child srun's reports.
 *
 * All messages are requests of the stepd -> srun framework (net/transport.h,
 * srun/agent.c / common/agent_client.c): one connection, one reply each.
 *
 * Parent srun. SPAWN (requestor, job info, apps) from a stepd: the engine
 * plans the child srun (lib/spawn_plan.c), forks and execs it with
 * SLURMIX_SPAWN_{AGENT,ID,KEY} and SLURMIX_PARENT in its environment, and
 * keeps a record until the child srun is reaped:
 *   STARTING  until the child srun sends SPAWN_READY: reply to SPAWN
 *             (success, "slurmix.<job>.<step>") -> RUNNING;
 *             the child srun exits first, the timeout expires or the
 *             requestor goes away -> FAILING;
 *   FAILING   SIGTERM to the child srun (srun then cancels its step and
 *             waits for it); after PLUG_SPAWN_KILL_SEC SIGKILL and
 *             slurm_kill_job_step; once reaped, reply the error;
 *   RUNNING   -> ENDED when reaped; with PMIX_NOTIFY_COMPLETION the stepd
 *             sends SPAWN_WAIT (step), answered with the exit code then.
 * The child srun's end is seen through a pidfd (pidfd_open, Linux 5.3:
 * readable when it exits, so srun reaps it at once; no SIGCHLD handler:
 * srun's signals are srun's); without pidfds waitpid(WNOHANG) is polled
 * every 100 ms. The same 100 ms timer notices a requestor that left.
 * srun's end (plug_spawn_srun_stop) waits on a condition that every freed
 * record signals, so it returns as soon as the last child srun is reaped.
 *
 * Child srun. Its prelaunch sends SPAWN_STEP (id, job, step) to the
 * parent srun (127.0.0.1:<SLURMIX_SPAWN_AGENT>: its parent process, on
 * this host), through common/agent_client.c aimed there; each of its stepds sends
 * SPAWN_NODE once its tasks are up; when every node has, SPAWN_READY (id,
 * step) goes to the parent srun.
 *
 * Threads: the handlers and timers run in the agent's progress thread;
 * init/start/stop are called from srun's main thread and post their work.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/jobdir.h"
#include "lib/alloc_req.h"
#include "lib/spawn_plan.h"
#include "lib/srun_io.h"
#include "lib/util.h"
#include "srun/agent.h"
#include "srun/alloc.h"
#include "srun/spawn.h"
#include "slurm_adapter.h"

#define PLUG_SPAWN_KILL_SEC 5  /* SIGTERM -> SIGKILL */
#define PLUG_SPAWN_FINI_SEC 30 /* srun's end waits this long for children */

enum { S_STARTING, S_RUNNING, S_FAILING, S_ENDED };

typedef struct spawn {
	struct spawn *next;
	uint32_t id;
	int state;
	pid_t pid;              /* child srun; 0 once reaped */
	uint32_t job;           /* the allocation it runs in (PMIX_ALLOC_ID) */
	uint32_t step;          /* NO_VAL until SPAWN_STEP */
	plug_agent_req_t *req;  /* the SPAWN request, until answered */
	plug_agent_req_t *wait; /* a SPAWN_WAIT request */
	struct event *timer;    /* spawn timeout, then SIGKILL escalation */
	struct event *poll;     /* waitpid fallback, requestor check */
	struct event *exitev;   /* the pidfd's readability: the child srun ended */
	int pidfd;              /* -1 without one */
	pmix_status_t fail;
	int32_t code;     /* exit code of the child srun (ENDED) */
	uint32_t timeout; /* default (SlurmixTimeout of the stepd) */
	bool notify, killed, overlap;
	char *mpfile;
	pmix_byte_object_t info; /* the child step's job information, from its
				  * SPAWN_READY, for the SPAWN reply */
} spawn_t;

static struct {
	pxc_progress_t *pg;
	struct event_base *base;
	spawn_t *list;
	uint32_t next_id, job, step;
	uint16_t port;
	char key[PLUG_KEY_LEN + 1];
	char **alloc; /* the allocation's nodes (cached) */
	/* as a child srun */
	bool child;
	uint32_t up_id, nnodes, nready;
	uint8_t *ready; /* [nnodes] */
	bool ready_sent;
	pmix_byte_object_t info; /* node 0's report: the step's job information */
} spawner;

/* srun's main thread waits in plug_spawn_srun_stop for the records to go:
 * every spawn_free bumps the generation (progress thread). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned gen;  /* records freed so far */
	unsigned seen; /* gen when the last stop round looked */
} idle = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

/* ---- records ------------------------------------------------------------ */

static spawn_t *find_id(uint32_t id)
{
	for (spawn_t *s = spawner.list; s; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

static void spawn_free(spawn_t *s)
{
	for (spawn_t **p = &spawner.list; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	if (s->timer)
		event_free(s->timer);
	if (s->poll)
		event_free(s->poll);
	if (s->exitev)
		event_free(s->exitev);
	free(s->info.bytes);
	if (s->pidfd >= 0)
		close(s->pidfd);
	plug_agent_reply(s->req, PMIX_ERR_UNREACH, NULL);
	plug_agent_reply(s->wait, PMIX_ERR_UNREACH, NULL);
	if (s->mpfile)
		unlink(s->mpfile);
	free(s->mpfile);
	free(s);
	pthread_mutex_lock(&idle.lock);
	idle.gen++;
	pthread_cond_broadcast(&idle.cond);
	pthread_mutex_unlock(&idle.lock);
}

/* The reply to SPAWN: status, nspace, and the child's job information
 * (BYTE_OBJECT) when its READY brought it. */
static void answer(spawn_t *s, pmix_status_t st)
{
	pmix_data_buffer_t b;
	char ns[PMIX_MAX_NSLEN + 1] = "";

	if (st == PMIX_SUCCESS)
		snprintf(ns, sizeof(ns), "slurmix.%u.%u", s->job, s->step);
	pxc_buf_init(&b);
	pxc_pack_str(&b, ns);
	if (st == PMIX_SUCCESS && s->info.size)
		pxc_pack(&b, &s->info, 1, PMIX_BYTE_OBJECT);
	plug_agent_reply(s->req, st, &b);
	s->req = NULL;
	pxc_buf_clear(&b);
	plug_flag("spawn %u: %s %s", s->id, PMIx_Error_string(st), ns);
}

static void kill_child(spawn_t *s, int sig)
{
	if (s->pid > 0)
		kill(s->pid, sig);
	if (sig == SIGKILL && s->step != NO_VAL && !s->killed) {
		s->killed = true;
		plug_slurm_kill_step(s->job, s->step, SIGKILL);
	}
}

/* Stops a start that went wrong; the answer comes once it is reaped. */
static void abandon(spawn_t *s, pmix_status_t st)
{
	struct timeval tv = { PLUG_SPAWN_KILL_SEC, 0 };

	if (s->state != S_STARTING)
		return;
	s->state = S_FAILING;
	s->fail = st;
	kill_child(s, SIGTERM);
	evtimer_del(s->timer);
	evtimer_add(s->timer, &tv);
}

static void on_timer(int fd, short what, void *arg)
{
	spawn_t *s = arg;

	(void)fd, (void)what;
	if (s->state == S_STARTING) {
		plug_error("spawn %u: timeout: cancelling the new step", s->id);
		abandon(s, PMIX_ERR_TIMEOUT);
	} else if (s->state == S_FAILING) {
		kill_child(s, SIGKILL);
	}
}

static void reply_wait(spawn_t *s)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack(&b, &s->code, 1, PMIX_INT32);
	plug_agent_reply(s->wait, PMIX_SUCCESS, &b);
	s->wait = NULL;
	pxc_buf_clear(&b);
}

static void reaped(spawn_t *s, int status)
{
	s->pid = 0;
	s->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	event_del(s->poll);
	if (s->exitev)
		event_del(s->exitev);
	if (s->state == S_STARTING) {
		plug_error("spawn %u: the new step ended before all its processes "
			   "started (srun exit code %d)",
			   s->id, (int)s->code);
		s->fail = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
		if (s->step != NO_VAL && !s->killed)
			plug_slurm_kill_step(s->job, s->step, SIGKILL);
	}
	if (s->state != S_RUNNING) {
		answer(s, s->fail);
		return spawn_free(s);
	}
	s->state = S_ENDED;
	if (s->wait) {
		reply_wait(s);
		spawn_free(s);
	} else if (!s->notify) {
		spawn_free(s);
	} /* else kept for the SPAWN_WAIT to come */
}

/* 1 when the child srun was reaped (s may be gone then). */
static int try_reap(spawn_t *s)
{
	int status = 0;
	pid_t r;

	if (s->pid <= 0)
		return 0;
	r = waitpid(s->pid, &status, WNOHANG);
	if (r == s->pid || (r < 0 && errno == ECHILD)) {
		reaped(s, r < 0 ? 0 : status);
		return 1;
	}
	return 0;
}

static void on_poll(int fd, short what, void *arg)
{
	spawn_t *s = arg;

	(void)fd, (void)what;
	if (try_reap(s))
		return;
	if (s->state == S_STARTING && plug_agent_req_gone(s->req))
		abandon(s, PMIX_ERR_UNREACH); /* the requestor left */
}

/* The pidfd is readable: the child srun has ended. */
static void on_exit_fd(int fd, short what, void *arg)
{
	(void)fd, (void)what;
	try_reap(arg);
}

/* Watches the child srun's end through a pidfd; without one (old kernel,
 * no fds left) the 100 ms poll reaps it. */
static void watch_exit(spawn_t *s)
{
#ifdef SYS_pidfd_open
	s->pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	if (s->pidfd >= 0 && fcntl(s->pidfd, F_SETFD, FD_CLOEXEC) == 0 &&
	    (s->exitev = event_new(spawner.base, s->pidfd, EV_READ, on_exit_fd, s)) &&
	    event_add(s->exitev, NULL) == 0)
		return;
	if (s->exitev)
		event_free(s->exitev);
	s->exitev = NULL;
	if (s->pidfd >= 0)
		close(s->pidfd);
	s->pidfd = -1;
#else
	(void)s;
#endif
}

/* ---- starting a child srun ---------------------------------------------- */

/* The allocation's nodes, cached; quiet: NULL on failure without a log. */
static char **lookup_alloc(void)
{
	resource_allocation_response_msg_t *r = NULL;
	uint32_t n;

	if (spawner.alloc || !spawner.job)
		return spawner.alloc;
	if (plug_slurm_alloc_lookup(spawner.job, &r) != SLURM_SUCCESS || !r)
		return NULL;
	spawner.alloc = plug_hostlist_expand(r->node_list, &n);
	slurm_free_resource_allocation_response_msg(r);
	return spawner.alloc;
}

static char **allocation(void)
{
	if (!lookup_alloc())
		plug_error("spawn: cannot look up job %u's allocation", spawner.job);
	return spawner.alloc;
}

/* The step's daemons are up (srun/agent.c, progress thread): the tasks start
 * now and need a while before they can spawn, so the allocation lookup
 * (a slurmctld round trip) is done here instead of on a spawn's path.
 * Not in a spawned srun: nested spawns are rare, and its own step's start
 * is on its parent's spawn path. */
void plug_spawn_srun_warm(void)
{
	if (spawner.pg && !spawner.child)
		lookup_alloc();
}

static int set_env(char ***env, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_env(char ***env, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v, *e;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	rc = asprintf(&e, "%s=%s", name, v);
	free(v);
	if (rc < 0)
		return -1;
	rc = PMIx_Argv_append_nosize(env, e) == PMIX_SUCCESS ? 0 : -1;
	free(e);
	return rc;
}

/* In the forked child: only async-signal-safe calls. */
static void exec_child(char **argv, char **env, int maxfd)
{
	sigset_t none;
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
#endif
		for (fd = 3; fd < maxfd; fd++)
			close(fd);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(argv[0], argv, env);
	_exit(127);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t len = strlen(text), off = 0;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w <= 0) {
			close(fd);
			unlink(path);
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

/* The multi-prog file: in the job directory, else $TMPDIR or /tmp. */
static char *mp_path(uint32_t id)
{
	char name[64], *p = NULL;
	const char *t = getenv("TMPDIR");

	snprintf(name, sizeof(name), "spawn.%d.%u", (int)getpid(), id);
	if (plug_jobdir_path())
		return plug_jobdir_file(name);
	if (asprintf(&p, "%s/slurmix-%s", t && t[0] == '/' ? t : "/tmp", name) < 0)
		return NULL;
	return p;
}

static int child_env(spawn_t *s, plug_spawn_plan_t *plan, const pmix_proc_t *req)
{
	return set_env(&plan->env, PLUG_SPAWN_AGENT_ENV, "%u", spawner.port) |
	       set_env(&plan->env, PLUG_SPAWN_ID_ENV, "%u", s->id) |
	       set_env(&plan->env, PLUG_SPAWN_KEY_ENV, "%s", spawner.key) |
	       set_env(&plan->env, PLUG_SPAWN_PARENT_ENV, "%s:%u", req->nspace, req->rank) |
	       set_env(&plan->env, PLUG_SPAWN_PARENT_NODES_ENV, "%s", plug_agent_nodelist()) |
	       set_env(&plan->env, PLUG_SPAWN_PARENT_MAP_ENV, "%s", plug_agent_map()) |
	       (plan->nonpmi ? set_env(&plan->env, PLUG_SPAWN_NONPMI_ENV, "1") : 0) |
	       (plan->child_sep ? set_env(&plan->env, PLUG_SPAWN_SEP_ENV, "1") : 0);
}

static pmix_status_t fork_child(spawn_t *s, plug_spawn_plan_t *plan)
{
	int maxfd = (int)sysconf(_SC_OPEN_MAX);
	struct timeval tv = { plan->timeout ? plan->timeout : s->timeout, 0 };

	if (plug_debug_flag_mpi()) {
		char *cmd = PMIx_Argv_join(plan->argv, ' ');

		plug_flag("spawn %u: %s", s->id, cmd ? cmd : "?");
		free(cmd);
	}
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	s->pid = fork();
	if (s->pid == 0)
		exec_child(plan->argv, plan->env, maxfd);
	if (s->pid < 0) {
		s->pid = 0;
		return plug_error("spawn: fork: %m"), PMIX_ERR_JOB_FAILED_TO_LAUNCH;
	}
	evtimer_add(s->timer, &tv);
	tv = (struct timeval){ 0, 100000 };
	event_add(s->poll, &tv);
	watch_exit(s);
	return PMIX_SUCCESS;
}

/* Where this srun puts its step's output (lib/srun_io.h), read once
 * from its command line and environment: a spawned step's output goes
 * there too. Unreadable: the child's output goes to this srun's own
 * stdout and stderr. */
static plug_srun_io_t io;
static bool io_read;

static const plug_srun_io_t *parent_io(void)
{
	extern char **environ;
	char buf[65536];
	ssize_t n = -1;
	int fd;

	if (io_read)
		return &io;
	io_read = true;
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n <= 0 || n == (ssize_t)sizeof(buf) ||
	    plug_srun_io_cmdline(buf, (size_t)n, environ, &io) < 0) {
		plug_error("spawn: cannot read srun's own options: spawned steps' output goes "
			   "to srun's stdout and stderr");
		io = (plug_srun_io_t){ 0 };
	} else {
		plug_debug("spawn: srun's output %s, error %s%s", io.out ? io.out : "(its own)",
			   io.err ? io.err : "(with the output)", io.label ? ", labelled" : "");
	}
	return &io;
}

/* The allocation to start in: this job, or with PMIX_ALLOC_ID one this
 * srun obtained and Slurm granted (srun/alloc.h: *nodes gets its nodes,
 * to free); one not granted yet is PMIX_ERR_RESOURCE_BUSY (the caller
 * waits for PMIX_NOTIFY_ALLOC_COMPLETE, docs/alloc.md). */
static pmix_status_t target_job(spawn_t *s, const pmix_info_t *info, size_t ninfo, char ***nodes)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_ALLOC_ID);
	uint32_t id = 0;

	*nodes = NULL;
	s->job = spawner.job;
	if (!i)
		return PMIX_SUCCESS;
	if (i->value.type != PMIX_STRING || plug_alloc_id_parse(i->value.data.string, &id) < 0)
		return plug_error("spawn: %s is not a Slurm job id", PMIX_ALLOC_ID),
		       PMIX_ERR_BAD_PARAM;
	if (id == spawner.job)
		return PMIX_SUCCESS;
	if (!(*nodes = plug_alloc_srun_nodes(id)) && errno == EAGAIN)
		return plug_error("spawn: allocation %u is not granted yet", id),
		       PMIX_ERR_RESOURCE_BUSY;
	if (!*nodes)
		return plug_error("spawn: job %u is no granted allocation this step obtained", id),
		       PMIX_ERR_NO_PERMISSIONS;
	s->job = id;
	return PMIX_SUCCESS;
}

static void nodes_free(char **nodes)
{
	for (char **p = nodes; p && *p; p++)
		free(*p);
	free(nodes);
}

/* Plans, writes the multi-prog file, forks. PMIX_SUCCESS or an error
 * (nothing started, nothing left). */
static pmix_status_t launch(spawn_t *s, const pmix_proc_t *req, const pmix_info_t *info,
			    size_t ninfo, const pmix_app_t *apps, size_t napps)
{
	extern char **environ;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	plug_spawn_ctx_t ctx = {
		.srun = exe, .job = spawner.job, .overlap = s->overlap, .env = environ
	};
	const plug_srun_io_t *io = parent_io();
	plug_spawn_plan_t plan;
	char **other = NULL;
	pmix_status_t st = target_job(s, info, ninfo, &other);

	if (st != PMIX_SUCCESS)
		return st;
	ctx.out = io->out;
	ctx.err = io->err;
	ctx.label = io->label;
	ctx.job = s->job;
	if (n <= 0 || !(ctx.alloc = other ? other : allocation()) ||
	    !(s->mpfile = mp_path(s->id))) {
		nodes_free(other);
		return n <= 0 || !ctx.alloc ? PMIX_ERR_JOB_FAILED_TO_LAUNCH : PMIX_ERR_NOMEM;
	}
	exe[n] = '\0';
	ctx.mpfile = s->mpfile;
	st = plug_spawn_plan(&ctx, info, ninfo, apps, napps, &plan);
	nodes_free(other);
	if (st != PMIX_SUCCESS) {
		plug_error("spawn from %s:%u refused: %s", req->nspace, req->rank, plan.err);
		free(s->mpfile);
		s->mpfile = NULL;
		return st;
	}
	if (!plan.multiprog) {
		free(s->mpfile);
		s->mpfile = NULL;
	} else if (write_file(s->mpfile, plan.multiprog) < 0) {
		plug_error("spawn: cannot write %s: %m", s->mpfile);
		free(s->mpfile);
		s->mpfile = NULL;
		plug_spawn_plan_free(&plan);
		return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
	}
	s->notify = plan.notify;
	st = child_env(s, &plan, req) ? PMIX_ERR_NOMEM : fork_child(s, &plan);
	plug_spawn_plan_free(&plan);
	return st;
}

/* ---- requests ----------------------------------------------------------- */

/* SPAWN from a stepd: proc, INFO[], APP[]. */
static void take_spawn(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	pmix_info_t *info = NULL;
	pmix_app_t *apps = NULL;
	size_t ninfo = 0, napps = 0;
	pmix_proc_t who;
	uint32_t flags = 0; /* bit 0: the stepd's SlurmixSpawnOverlap */
	uint32_t tmo = 0;   /* the spawn's timeout as the stepd sees it */
	spawn_t *s;
	pmix_status_t st;

	if (pxc_unpack_proc(in, &who) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	if (pxc_unpack_array(in, (void **)&apps, &napps, PMIX_APP) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &flags) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &tmo) != PMIX_SUCCESS || !tmo) {
		pxc_array_free(info, ninfo, PMIX_INFO);
		pxc_array_free(apps, napps, PMIX_APP);
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		st = PMIX_ERR_NOMEM;
		plug_agent_reply(req, st, NULL);
	} else {
		*s = (spawn_t){ .id = ++spawner.next_id,
				.step = NO_VAL,
				.req = req,
				.next = spawner.list,
				.pidfd = -1 };
		spawner.list = s;
		s->timer = evtimer_new(spawner.base, on_timer, s);
		s->poll = event_new(spawner.base, -1, EV_PERSIST, on_poll, s);
		s->overlap = flags & 1;
		s->timeout = tmo;
		st = s->timer && s->poll ? launch(s, &who, info, ninfo, apps, napps) :
					   PMIX_ERR_NOMEM;
		if (st != PMIX_SUCCESS) {
			answer(s, st);
			spawn_free(s);
		}
	}
	pxc_array_free(info, ninfo, PMIX_INFO);
	pxc_array_free(apps, napps, PMIX_APP);
}

/* SPAWN_WAIT from a stepd (PMIX_NOTIFY_COMPLETION): u32 step. */
static void take_wait(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	uint32_t step = NO_VAL;
	spawn_t *s = NULL;

	if (pxc_unpack_u32(in, &step) == PMIX_SUCCESS)
		for (s = spawner.list; s && (s->step != step || !s->notify || s->wait); s = s->next)
			;
	if (!s || (s->state != S_RUNNING && s->state != S_ENDED))
		return plug_agent_reply(req, PMIX_ERR_NOT_FOUND, NULL);
	s->wait = req;
	if (s->state == S_ENDED) {
		reply_wait(s);
		spawn_free(s);
	}
}

/* SPAWN_STEP / SPAWN_READY from a child srun: u32 id, [job,] step; a
 * READY may end with the step's job information (BYTE_OBJECT). */
static void take_child(plug_agent_req_t *req, pmix_data_buffer_t *in, bool ready)
{
	uint32_t id = 0, job = NO_VAL, step = NO_VAL;
	pmix_byte_object_t info = { NULL, 0 };
	spawn_t *s = NULL;
	int32_t one = 1;

	if (pxc_unpack_u32(in, &id) == PMIX_SUCCESS &&
	    (ready || pxc_unpack_u32(in, &job) == PMIX_SUCCESS) &&
	    pxc_unpack_u32(in, &step) == PMIX_SUCCESS &&
	    (!ready || !pxc_buf_remaining(in) ||
	     pxc_unpack(in, &info, &one, PMIX_BYTE_OBJECT) == PMIX_SUCCESS))
		s = find_id(id);
	if (s && !ready && job != s->job)
		s = NULL; /* a step of another allocation than the one asked */
	if (!s || s->state == S_ENDED) {
		plug_error("spawn: bad report from a child srun (spawn %u)", id);
		free(info.bytes);
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	if (ready && info.size) {
		free(s->info.bytes);
		s->info = info;
	} else {
		free(info.bytes);
	}
	plug_agent_reply(req, PMIX_SUCCESS, NULL);
	s->step = step; /* the multi-prog file stays: srun reads it again */
	if (s->state == S_FAILING)
		kill_child(s, SIGTERM);
	if (ready && s->state == S_STARTING) {
		s->state = S_RUNNING;
		evtimer_del(s->timer);
		answer(s, PMIX_SUCCESS);
	}
}

static void take_step(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	take_child(req, in, false);
}

static void take_ready(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	take_child(req, in, true);
}

/* ---- as a child srun ---------------------------------------------------- */

static void up_done(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
	(void)reply;
	if (st != PMIX_SUCCESS)
		plug_error("spawn: the parent srun did not take our %s report: %s",
			   cbdata ? "ready" : "step", PMIx_Error_string(st));
}

/* Progress thread: SPAWN_STEP (arg NULL) or SPAWN_READY (arg non-NULL). */
static void up_fn(void *arg)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_u32(&b, spawner.up_id);
	if (!arg)
		pxc_pack_u32(&b, spawner.job);
	pxc_pack_u32(&b, spawner.step);
	if (arg && spawner.info.size)
		pxc_pack(&b, &spawner.info, 1, PMIX_BYTE_OBJECT);
	if (plug_agent_request(arg ? PLUG_NET_SPAWN_READY : PLUG_NET_SPAWN_STEP, &b, 0, up_done,
			       arg) < 0)
		plug_error("spawn: cannot reach the parent srun");
	pxc_buf_clear(&b);
}

/* SPAWN_NODE from one of our stepds: u32 node; node 0's may end with the
 * step's job information (BYTE_OBJECT), for the parent. */
static void take_node(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	pmix_byte_object_t info = { NULL, 0 };
	uint32_t node = UINT32_MAX;
	int32_t one = 1;

	if (!spawner.child || pxc_unpack_u32(in, &node) != PMIX_SUCCESS || node >= spawner.nnodes ||
	    (pxc_buf_remaining(in) &&
	     pxc_unpack(in, &info, &one, PMIX_BYTE_OBJECT) != PMIX_SUCCESS)) {
		free(info.bytes);
		return plug_agent_reply(req, PMIX_ERR_BAD_PARAM, NULL);
	}
	plug_agent_reply(req, PMIX_SUCCESS, NULL);
	if (node == 0 && info.size && !spawner.info.size)
		spawner.info = info;
	else
		free(info.bytes);
	if (!spawner.ready[node]) {
		spawner.ready[node] = 1;
		spawner.nready++;
	}
	if (spawner.nready == spawner.nnodes && !spawner.ready_sent) {
		spawner.ready_sent = true;
		plug_flag("spawned step %u.%u ready on %u nodes", spawner.job, spawner.step,
			  spawner.nnodes);
		up_fn((void *)1);
	}
}

/* This srun was started by a parent srun's spawn: aim common/agent_client.c at the
 * parent srun, report the step, and hand the stepds what they need (and
 * no more: a task must not look like a spawner to an srun it runs). */
static int as_child(char ***env)
{
	const char *port = getenv(PLUG_SPAWN_AGENT_ENV), *id = getenv(PLUG_SPAWN_ID_ENV);
	const char *key = getenv(PLUG_SPAWN_KEY_ENV);
	char *penv[4] = { NULL };
	uint32_t i;
	int rc;

	if (!port || !*port)
		return 0;
	if (!id || plug_parse_u32(id, 1, UINT32_MAX, &i) < 0 || !key ||
	    asprintf(&penv[0], "%s=%s", PLUG_KEY_ENV, key) < 0 ||
	    asprintf(&penv[1], "%s=%s", PLUG_SRUN_PORT_ENV, port) < 0 ||
	    !(penv[2] = strdup("SLURM_SRUN_COMM_HOST=127.0.0.1")))
		rc = -1;
	else
		rc = plug_agent_client_init(penv);
	for (int k = 0; k < 3; k++)
		free(penv[k]);
	if (rc < 0 || !(spawner.ready = calloc(spawner.nnodes, 1)))
		return plug_error("spawn: bad %s/%s/%s", PLUG_SPAWN_AGENT_ENV, PLUG_SPAWN_ID_ENV,
				  PLUG_SPAWN_KEY_ENV),
		       -1;
	spawner.child = true;
	spawner.up_id = i;
	if (pxc_progress_post(spawner.pg, up_fn, NULL) < 0)
		return -1;
	return plug_env_set(env, PLUG_SPAWNED_ENV, "1") |
	       plug_env_set(env, PLUG_SPAWN_AGENT_ENV, "") |
	       plug_env_set(env, PLUG_SPAWN_KEY_ENV, "");
}

/* ---- start and stop ----------------------------------------------------- */

/* The agent stops: answer what is still pending. */
static void stop_hook(void)
{
	while (spawner.list) {
		spawn_t *s = spawner.list;

		if (s->pid > 0)
			kill_child(s, SIGKILL);
		if (s->req)
			answer(s, PMIX_ERR_UNREACH);
		spawn_free(s);
	}
}

int plug_spawn_srun_init(void)
{
	return plug_agent_register_handler(PLUG_NET_SPAWN, take_spawn, stop_hook) |
	       plug_agent_register_handler(PLUG_NET_SPAWN_WAIT, take_wait, NULL) |
	       plug_agent_register_handler(PLUG_NET_SPAWN_STEP, take_step, NULL) |
	       plug_agent_register_handler(PLUG_NET_SPAWN_READY, take_ready, NULL) |
	       plug_agent_register_handler(PLUG_NET_SPAWN_NODE, take_node, NULL);
}

int plug_spawn_srun_start(uint32_t nnodes, char ***env)
{
	const char *key = plug_env_get(*env, PLUG_KEY_ENV);
	const char *port = plug_env_get(*env, PLUG_SRUN_PORT_ENV);
	uint32_t p = 0;

	spawner.job = plug_agent_job();
	spawner.step = plug_agent_step();
	spawner.nnodes = nnodes;
	if (!key || !port || plug_parse_u32(port, 1, 65535, &p) < 0)
		return -1;
	spawner.port = (uint16_t)p;
	snprintf(spawner.key, sizeof(spawner.key), "%s", key);
	if (!(spawner.pg = pxc_progress_acquire()))
		return -1;
	spawner.base = pxc_progress_base(spawner.pg);
	return as_child(env);
}

/* Progress thread: starting children are stopped; PMIX_SUCCESS once
 * nothing runs any more, else PMIX_ERR_WOULD_BLOCK. */
static void stop_fn(void *arg)
{
	for (spawn_t *s = spawner.list; s; s = s->next)
		if (s->state == S_STARTING)
			abandon(s, PMIX_ERR_UNREACH);
	for (spawn_t *s = spawner.list, *next; s; s = next) {
		next = s->next;
		if (s->state == S_ENDED)
			spawn_free(s);
	}
	pthread_mutex_lock(&idle.lock);
	idle.seen = idle.gen; /* a record freed from now on wakes the waiter */
	pthread_mutex_unlock(&idle.lock);
	pxc_sync_signal(arg, spawner.list ? PMIX_ERR_WOULD_BLOCK : PMIX_SUCCESS);
}

static void end_fn(void *arg)
{
	for (spawn_t *s = spawner.list; s; s = s->next)
		kill_child(s, arg ? SIGKILL : SIGTERM);
}

/* One round: PMIX_SUCCESS once nothing is tracked any more, also when
 * the progress thread does not answer (then the rest is leaked). */
static pmix_status_t stop_round(void)
{
	pmix_status_t st = pxc_progress_call(spawner.pg, stop_fn, 10000);

	/* stuck or gone: the rest is leaked, stop trying */
	return st == PMIX_ERR_TIMEOUT || st == PMIX_ERR_UNREACH ? PMIX_SUCCESS : st;
}

static void final_fn(void *arg)
{
	stop_hook();
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

static void final_round(void)
{
	pxc_progress_call(spawner.pg, final_fn, 10000);
}

/* Waits up to ms for a record to be freed since the last stop round. */
static void wait_idle(int ms)
{
	struct timespec dl;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &dl); /* the condition's clock */
	dl.tv_nsec += (long)ms * 1000000L;
	dl.tv_sec += dl.tv_nsec / 1000000000L;
	dl.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&idle.lock);
	while (idle.gen == idle.seen && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&idle.cond, &idle.lock, &dl);
	pthread_mutex_unlock(&idle.lock);
}

void plug_spawn_srun_stop(void)
{
	const long long fini = PLUG_SPAWN_FINI_SEC * 1000LL, kill = PLUG_SPAWN_KILL_SEC * 1000LL;
	long long t0 = pxc_now_ms(), t;
	int phase = 0; /* 1: SIGTERM sent, 2: SIGKILL sent */

	if (!spawner.pg)
		return;
	while (stop_round() != PMIX_SUCCESS && (t = pxc_now_ms() - t0) < fini + 2 * kill) {
		if (phase == 0 && t >= fini && ++phase)
			pxc_progress_post(spawner.pg, end_fn, NULL);
		if (phase == 1 && t >= fini + kill && ++phase)
			pxc_progress_post(spawner.pg, end_fn, (void *)1);
		wait_idle(100); /* woken early when a child srun is reaped */
	}
	final_round(); /* whatever is left: killed, cancelled, freed */
	pxc_progress_release();
	for (char **a = spawner.alloc; a && *a; a++)
		free(*a);
	free(spawner.alloc);
	free(spawner.ready);
	free(spawner.info.bytes);
	memset(&spawner, 0, sizeof(spawner));
	plug_srun_io_free(&io);
	io_read = false;
}
