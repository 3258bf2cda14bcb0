/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/step.c - slurmstepd as PMIx host: prefork, task and fini of one
 * step (see stepd/step.h).
 *
 * Prefork, in the job manager thread, running as root:
 *   1. read the step record and cross-check it with what srun sent
 *      (SLURMIX_STEP, SLURMIX_PROC_MAP): a mismatch means the adapter's
 *      struct layout does not fit this Slurm, and the step fails cleanly;
 *   2. make <tmpdir>/slurmix.<job>.<step>.<nodeid> (root, 0755) and in it
 *      job/ (the user's, 0700) for the clients' PMIX_TMPDIR;
 *   3. PMIx_server_init with that directory and the job's uid/gid, then
 *      register the namespace and the local clients, waiting for each
 *      callback at most SlurmixTimeout seconds;
 *   4. prepare every local task's environment (PMIx_server_setup_fork and
 *      LD_LIBRARY_PATH), split into name/value, so that the task hook, in
 *      the forked child, only copies; and its PMI socketpair (PMI_FD,
 *      docs/pmi.md), whose end the hook keeps open across exec after
 *      writing the task's pid into it.
 * Collectives across nodes: fence_nb and direct_modex are net/coll.c and
 * net/dmodex.c over net/transport.c, started at the end of prefork when the step
 * spans several nodes (see src/plugin/README-dev.md).
 * Abort and lost tasks: the abort upcall reports to srun's agent
 * (stepd/abort.c); client_finalized for a client whose connection dropped
 * without FINALIZE marks the task lost for the whole step (net/lost.c).
 * Fini (stepd_cleanup -> plugin fini): finalize the server, remove the
 * directory tree without following links, free everything.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/cpuset.h"
#include "lib/map.h"
#include "lib/util.h"
#include "net/boot.h"
#include "net/coll.h"
#include "net/group.h"
#include "net/ctx.h"
#include "net/dmodex.h"
#include "net/event.h"
#include "net/evindex.h"
#include "net/iof.h"
#include "net/lost.h"
#include "net/push.h"
#include "net/stepend.h"
#include "net/tool.h"
#include "net/transport.h"
#include "stepd/abort.h"
#include "stepd/attrs.h"
#include "stepd/family.h"
#include "stepd/input.h"
#include "stepd/nspace.h"
#include "stepd/output.h"
#include "stepd/publish.h"
#include "stepd/query.h"
#include "stepd/cred.h"
#include "stepd/worker.h"
#include "stepd/log.h"
#include "stepd/jobctl.h"
#include "stepd/alloc.h"
#include "stepd/reap.h"
#include "stepd/spawn.h"
#include "stepd/step.h"
#include "stepd/weight.h"
#include "pxc_host.h"

/* How long a lost task may take to exit after its connection closed
 * before its loss goes out without its exit status. */
#define PLUG_LOST_EXIT_WAIT_MS 1000
/* How long a task waits for the capture thread to take its output. */
#define PLUG_CAPTURE_ACK_MS 10000

static plug_step_t step;

/* ---- waiting for a server callback, with a timeout ---------------------- */

/* Heap-allocated; whoever comes last (callback or a waiter that gave up)
 * frees it, so a late callback never touches freed memory. */
typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, abandoned;
	pmix_status_t status;
} plug_wait_t;

static plug_wait_t *wait_new(void)
{
	plug_wait_t *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	return w;
}

static void wait_free(plug_wait_t *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}

static void wait_cb(pmix_status_t status, void *cbdata)
{
	plug_wait_t *w = cbdata;
	bool gone;

	pthread_mutex_lock(&w->lock);
	w->done = true;
	w->status = status;
	gone = w->abandoned;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (gone)
		wait_free(w);
}

/* Waits for the callback of a call that returned `st`; frees w unless the
 * callback is still due. Returns the final status. */
static pmix_status_t wait_for(plug_wait_t *w, pmix_status_t st)
{
	struct timespec until;
	int rc = 0;

	if (st != PMIX_SUCCESS) { /* no callback will come */
		wait_free(w);
		return st == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : st;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += plug_conf.timeout;
	pthread_mutex_lock(&w->lock);
	while (!w->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->cond, &w->lock, &until);
	if (!w->done) {
		w->abandoned = true;
		pthread_mutex_unlock(&w->lock);
		return PMIX_ERR_TIMEOUT;
	}
	st = w->status;
	pthread_mutex_unlock(&w->lock);
	wait_free(w);
	return st;
}

/* ---- the server module (host callbacks) --------------------------------- */

static pmix_status_t cb_client_connected(const pmix_proc_t *proc, void *srv,
					 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)srv, (void)cbfunc, (void)cbdata;
	plug_flag("client %s:%u connected", proc->nspace, proc->rank);
	plug_lost_connected(proc->rank); /* killed if aborted before */
	plug_spawn_client_connected();   /* a spawned step reports readiness */
	return PMIX_OPERATION_SUCCEEDED;
}

typedef struct {
	pmix_rank_t rank;
	int known, wstatus;
} lost_end_t;

static void lost_report(void *arg)
{
	lost_end_t *e = arg;

	plug_lost_local_status(e->rank, e->known, e->wstatus);
	free(e);
}

/* A lost task's exit status is known (or cannot be): the step hears, once
 * the task's captured output ended (its PMIX_IOF_COMPLETE comes first). */
static void lost_ended(int known, int wstatus, void *arg)
{
	lost_end_t *e = malloc(sizeof(*e));
	pmix_rank_t rank = (pmix_rank_t)(uintptr_t)arg;

	if (!e) {
		plug_lost_local_status(rank, known, wstatus);
		return;
	}
	e->rank = rank;
	e->known = known;
	e->wstatus = wstatus;
	plug_output_when_ended(rank, PLUG_LOST_EXIT_WAIT_MS, lost_report, e);
}

/* Also called by the server for a client whose connection ended without
 * PMIx_Finalize: that task is lost for the whole step (net/lost.c), once
 * its exit status is known (it closed the connection as it exited: at
 * most PLUG_LOST_EXIT_WAIT_MS later). */
static pmix_status_t cb_client_finalized(const pmix_proc_t *proc, void *srv,
					 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)srv, (void)cbfunc, (void)cbdata;
	if (pxc_server_client_lost(proc)) {
		plug_flag("client %s:%u left without finalizing", proc->nspace, proc->rank);
		plug_reap_exit_status(pxc_server_client_last_pid(proc), PLUG_LOST_EXIT_WAIT_MS,
				      lost_ended, (void *)(uintptr_t)proc->rank);
	} else {
		plug_flag("client %s:%u finalized", proc->nspace, proc->rank);
		plug_reap_finalized(proc->rank);
	}
	return PMIX_OPERATION_SUCCEEDED;
}

/* True for the nspace of another step of this job ("slurmix.<job>.<step>"). */
static bool job_step_nspace(const char *ns)
{
	uint32_t job;

	return plug_nspace_parse(ns, &job, NULL) == 0 && job == step.si.step_id.job_id &&
	       !PMIx_Check_nspace(ns, step.nspace);
}

/* PMIx_Abort: the whole step without procs or with the step's wildcard
 * among them; else exactly the procs named (stepd/abort.h): ranks of this
 * step, and procs of other steps of the job, which their own stepds
 * abort. A rank the step does not have, or a namespace that is no step of
 * the job, is PMIX_ERR_BAD_PARAM: nothing is aborted then. */
static pmix_status_t cb_abort(const pmix_proc_t *proc, void *srv, int status, const char msg[],
			      pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
			      void *cbdata)
{
	const char *host = step.hosts[step.si.nodeid];
	bool whole = !procs || !nprocs;
	unsigned char *seen = NULL;
	pmix_rank_t *ranks = NULL;
	pmix_proc_t *others = NULL;
	pmix_status_t st = PMIX_SUCCESS;
	size_t n = 0, nothers = 0;

	(void)srv;
	for (size_t i = 0; !whole && i < nprocs; i++) {
		if (!PMIx_Check_nspace(procs[i].nspace, step.nspace)) {
			if (job_step_nspace(procs[i].nspace))
				continue;
			plug_error("rank %u: PMIx_Abort of %s:%u, which is no step of job %u",
				   proc->rank, procs[i].nspace, procs[i].rank,
				   step.si.step_id.job_id);
			return PMIX_ERR_BAD_PARAM;
		}
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			whole = true;
		else if (procs[i].rank >= step.si.ntasks)
			return plug_error("rank %u: PMIx_Abort of rank %u, which step %s does not "
					  "have",
					  proc->rank, procs[i].rank, step.nspace),
			       PMIX_ERR_BAD_PARAM;
	}
	if (whole) {
		plug_lost_aborted(proc->rank);
		plug_family_aborted(proc->rank, status); /* spawn parent, children */
		return plug_abort_report(proc->rank, status, host, msg, NULL, 0, cbfunc, cbdata);
	}
	if (!(seen = calloc(step.si.ntasks, 1)) || !(ranks = malloc(nprocs * sizeof(*ranks))) ||
	    !(others = malloc(nprocs * sizeof(*others)))) {
		free(seen);
		free(ranks);
		return PMIX_ERR_NOMEM;
	}
	for (size_t i = 0; i < nprocs; i++)
		if (!PMIx_Check_nspace(procs[i].nspace, step.nspace))
			others[nothers++] = procs[i];
		else if (!seen[procs[i].rank]++)
			ranks[n++] = procs[i].rank;
	/* the caller hears when the part of its own step is done, or, with
	 * only other steps named, when their stepds took it */
	if (nothers)
		st = plug_abort_others(proc, status, msg, others, nothers, n ? NULL : cbfunc,
				       n ? NULL : cbdata);
	if (n)
		st = plug_abort_report(proc->rank, status, host, msg, ranks, n, cbfunc, cbdata);
	free(seen);
	free(ranks);
	free(others);
	return st;
}

typedef struct {
	pmix_tool_connection_cbfunc_t fn;
	void *cbdata;
} tool_wait_t;

static void tool_ready(void *arg)
{
	tool_wait_t *w = arg;

	w->fn(PMIX_SUCCESS, NULL, w->cbdata);
	free(w);
}

/* A tool of the job's user or root (the server checked the uid) on this
 * node's rendezvous files, or through srun (net/tool.c): served like a
 * client, under an identity of the server's. */
static void cb_tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
			      void *cbdata)
{
	tool_wait_t *w = malloc(sizeof(*w));

	(void)info;
	(void)ninfo;
	plug_flag("a tool attached to step %s", step.nspace);
	if (!w) {
		cbfunc(PMIX_SUCCESS, NULL, cbdata);
		return;
	}
	w->fn = cbfunc;
	w->cbdata = cbdata;
	plug_stepend_tool(tool_ready, w); /* its process table complete */
}

static pmix_server_module_t module = {
	.tool_connected = cb_tool_connected,
	.client_connected = cb_client_connected,
	.client_finalized = cb_client_finalized,
	.abort = cb_abort,
	.fence_nb = plug_coll_fence,
	.direct_modex = plug_dmodex_request,
	.connect = plug_coll_connect,
	.disconnect = plug_coll_disconnect,
	.group = plug_group,
	.register_events = plug_evindex_register_events,
	.notify_event = plug_event_notify_client,
	.iof_pull = plug_iof_pull,
	.push_stdin = plug_push_stdin,
	.publish = plug_pub_publish,
	.lookup = plug_pub_lookup,
	.unpublish = plug_pub_unpublish,
	.spawn = plug_spawn_host,
	.query = plug_query_host,
	.get_credential = plug_cred_get,
	.validate_credential = plug_cred_validate,
	.log = plug_log_host,
	.job_control = plug_jobctl_host,
	.allocate = plug_alloc_host,
};

/* Core log lines go to Slurm's log, filtered by SlurmixDebug. */
static void log_hook(int level, const char *msg)
{
	static const int to_slurm[] = { PLUG_LOG_ERROR, PLUG_LOG_INFO, PLUG_LOG_VERBOSE,
					PLUG_LOG_DEBUG };

	if (level < 0 || level > 3 || (level > 0 && (uint32_t)level > plug_conf.debug))
		return;
	plug_log(to_slurm[level], "mpi/slurmix: pmix: %s", msg);
}

/* ---- step data ---------------------------------------------------------- */

/* True when the map text announces another task count than the step's:
 * checked before decoding, so that a map srun did not compute (the launch
 * environment is the user's) cannot make us allocate for 2^24 ranks. */
static bool map_size_differs(const char *text, uint32_t ntasks)
{
	char *end;
	unsigned long n;

	if (!text || strncmp(text, "1;", 2))
		return false; /* the decoder rejects it */
	errno = 0;
	n = strtoul(text + 2, &end, 10);
	return errno || *end != ';' || n != ntasks;
}

/* Also validates the step record layout against srun's data. */
static int load_step(plug_step_t *st, char **env)
{
	const char *sent = plug_env_get(env, PLUG_STEP_ENV);
	const char *nodes = plug_env_get(env, "SLURM_STEP_NODELIST");
	char want[32];
	uint32_t nhosts = 0;

	snprintf(want, sizeof(want), "%u.%u", st->si.step_id.job_id, st->si.step_id.step_id);
	if (st->si.het_job_id != NO_VAL && st->si.het_job_id != 0)
		return plug_error("heterogeneous steps are not supported yet"), -1;
	if (!sent || strcmp(sent, want))
		return plug_error("step %s: srun sent %s=%s; launched by an srun "
				  "without mpi/slurmix, or a Slurm this build does "
				  "not fit",
				  want, PLUG_STEP_ENV, sent ? sent : "(none)"),
		       -1;
	if (map_size_differs(plug_env_get(env, PLUG_MAP_ENV), st->si.ntasks))
		return plug_error("%s is not for %u tasks", PLUG_MAP_ENV, st->si.ntasks), -1;
	st->map = plug_map_decode(plug_env_get(env, PLUG_MAP_ENV));
	if (!st->map)
		return plug_error("bad or missing %s", PLUG_MAP_ENV), -1;
	if (st->map->ntasks != st->si.ntasks || st->map->nnodes != st->si.nnodes ||
	    st->si.nodeid >= st->map->nnodes || st->map->count[st->si.nodeid] != st->si.node_tasks)
		return plug_error("process map (%u tasks, %u nodes) disagrees with "
				  "the step (%u tasks, %u nodes, node %u has %u)",
				  st->map->ntasks, st->map->nnodes, st->si.ntasks, st->si.nnodes,
				  st->si.nodeid, st->si.node_tasks),
		       -1;
	st->hosts = plug_hostlist_expand(nodes, &nhosts);
	if (!st->hosts || nhosts != st->map->nnodes)
		return plug_error("SLURM_STEP_NODELIST=%s does not name %u nodes",
				  nodes ? nodes : "(none)", st->map->nnodes),
		       -1;
	/* the allocation's nodes: facts for the tasks, not needed to run */
	nodes = plug_env_get(env, "SLURM_JOB_NODELIST");
	if (nodes && !(st->job_hosts = plug_hostlist_expand(nodes, &st->job_nhosts)))
		plug_debug("SLURM_JOB_NODELIST=%s: cannot expand it", nodes);
	snprintf(st->nspace, sizeof(st->nspace), "slurmix.%s", want);
	return 0;
}

static int make_dirs(plug_step_t *st)
{
	if (asprintf(&st->dir, "%s/slurmix.%u.%u.%u", plug_conf_tmpdir(), st->si.step_id.job_id,
		     st->si.step_id.step_id, st->si.nodeid) < 0 ||
	    asprintf(&st->cltdir, "%s/job", st->dir) < 0)
		return plug_error("out of memory"), -1;
	if (mkdir(st->dir, 0755) < 0) {
		if (errno != EEXIST)
			return plug_error("mkdir %s: %m", st->dir), -1;
		plug_info("removing stale %s", st->dir);
		plug_rm_tree(st->dir);
		if (mkdir(st->dir, 0755) < 0)
			return plug_error("mkdir %s: %m", st->dir), -1;
	}
	st->dir_made = true;
	if (chmod(st->dir, 0755) < 0) /* whatever the umask */
		return plug_error("chmod %s: %m", st->dir), -1;
	/* Fresh, inside a root-owned directory: lchown cannot be redirected. */
	if (mkdir(st->cltdir, 0700) < 0 || lchown(st->cltdir, st->si.uid, st->si.gid) < 0)
		return plug_error("mkdir %s for uid %u: %m", st->cltdir, (unsigned)st->si.uid), -1;
	return 0;
}

/* PMIX_OUTPUT_TO_DIRECTORY (a spawned step's PLUG_IOF_DIR_ENV): the
 * directories of this node's ranks, "<dir>/<nspace>/rank.<N>", made
 * with the user's rights before Slurm opens the files in them. When they
 * cannot be made, this says why, and Slurm's open fails the launch with
 * its own message (the spawn fails). */
static void out_dirs(const plug_step_t *st, char **env)
{
	const char *d = plug_env_get(env, PLUG_IOF_DIR_ENV);
	uint32_t nid = st->si.nodeid, n = nid < st->map->nnodes ? st->map->count[nid] : 0;
	int w = plug_rank_width(st->map->ntasks);
	char **paths;
	size_t bad = 0;

	if (!d || !n)
		return;
	if (!(paths = calloc(n + 1, sizeof(*paths))))
		return plug_error("%s: out of memory", PLUG_IOF_DIR_ENV);
	for (uint32_t i = 0; i < n; i++)
		if (asprintf(&paths[i], "%s/%s/rank.%0*u", d, st->nspace, w,
			     (unsigned)st->map->ranks[st->map->first[nid] + i]) < 0) {
			paths[i] = NULL;
			plug_error("%s: out of memory", PLUG_IOF_DIR_ENV);
			goto out;
		}
	if (plug_mkdirs_as(st->si.uid, st->si.gid, st->si.ngids, st->si.gids, paths, 10000, &bad) <
	    0)
		plug_error("%s=%s: cannot make %s as uid %u: %m", PLUG_IOF_DIR_ENV, d,
			   paths[bad < n ? bad : 0], (unsigned)st->si.uid);
out:
	for (uint32_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* A spawned step: how many tasks its parent step has on this node
 * (SLURMIX_PARENT_NODES / _MAP from the parent srun); 1 when unknown. */
static uint32_t parent_tasks_here(const plug_step_t *st, char **env)
{
	const char *nodes = plug_env_get(env, PLUG_SPAWN_PARENT_NODES_ENV);
	const char *text = plug_env_get(env, PLUG_SPAWN_PARENT_MAP_ENV);
	plug_map_t *map = text && *text ? plug_map_decode(text) : NULL;
	int i = map && nodes ? plug_hostlist_index(nodes, st->hosts[st->si.nodeid], map->nnodes) :
			       -2;
	uint32_t here = i == -2 ? 1 : i < 0 ? 0 : map->count[i];

	plug_map_free(map); /* the environment is the user's: checked */
	return here;
}

/* slurmd's own topology, which it caches in SlurmdSpoolDir
 * (plug_slurm_topo_cache: Slurm up to 24.11): NUL-terminated, with *len,
 * from a regular file of root or SlurmUser that nobody else may write;
 * else NULL. */
static char *slurmd_topology(const plug_step_t *st, size_t *len)
{
	const char *spool = plug_slurm_spooldir(), *file = plug_slurm_topo_cache();
	char raw[4096], path[4096], host[256] = "";
	struct stat sb;
	char *xml = NULL;
	ssize_t n = 0, r;
	int fd;

	if (!spool || !file || !st->hosts ||
	    snprintf(raw, sizeof(raw), "%s/%s", spool, file) >= (int)sizeof(raw))
		return NULL;
	if (gethostname(host, sizeof(host) - 1) < 0 ||
	    plug_path_expand(raw, st->hosts[st->si.nodeid], host, path, sizeof(path)) < 0 ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && !(sb.st_mode & 022) &&
	    (sb.st_uid == 0 || sb.st_uid == plug_slurm_user()) && sb.st_size > 0 &&
	    sb.st_size < (16 << 20) && (xml = malloc((size_t)sb.st_size + 1)))
		while (n < sb.st_size && (r = read(fd, xml + n, (size_t)(sb.st_size - n))) > 0)
			n += r;
	close(fd);
	if (xml && n != sb.st_size) {
		free(xml);
		return NULL;
	}
	if (xml) {
		xml[n] = '\0';
		*len = (size_t)n;
	}
	return xml;
}

/* The topology from slurmd's cache when it describes this machine (as many
 * PUs as configured CPUs), loaded as this system's (bindings work); else
 * NULL. A discovery costs each step daemon 4-8 ms here, far more on large
 * nodes; slurmd has done it already. */
static hwloc_topology_t cached_topology(const plug_step_t *st)
{
	size_t len = 0;
	char *xml = slurmd_topology(st, &len);
	hwloc_topology_t topo = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!xml || hwloc_topology_init(&topo) < 0) {
		free(xml);
		return NULL;
	}
	if (hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) < 0 ||
	    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) < 0 ||
	    hwloc_topology_load(topo) < 0 ||
	    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) != (int)ncpu) {
		hwloc_topology_destroy(topo);
		topo = NULL;
	}
	free(xml);
	return topo;
}

/* This node's topology (kept for the locality strings) and its hwloc
 * XML (v2) for the clients; optional. */
static void load_topology(plug_step_t *st)
{
	hwloc_topology_t topo = cached_topology(st);
	char *xml = NULL;
	int len = 0;

	plug_flag("topology %s", topo ? "from slurmd's cache" : "discovered");
	if (!topo) {
		if (hwloc_topology_init(&topo) < 0)
			return;
		if (hwloc_topology_load(topo) < 0) {
			hwloc_topology_destroy(topo);
			plug_info("no hwloc topology for the clients");
			return;
		}
	}
	st->topo = topo;
	if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) == 0) {
		st->topo_xml = strndup(xml, (size_t)len);
		hwloc_free_xmlbuffer(topo, xml);
	}
}

/* PMIX_LOCALITY_STRING and PMIX_CPUSET of each local task, from the CPUs
 * Slurm binds it to (lib/cpuset.h); needs the server (which formats
 * them). Without a topology the tasks simply get none. */
static int task_localities(plug_step_t *st)
{
	hwloc_topology_t t = st->topo;
	hwloc_bitmap_t own = t ? hwloc_bitmap_alloc() : NULL;
	uint32_t n = st->si.node_tasks;
	int rc = 0;

	if (!t)
		return 0;
	if (!own || !(st->locality = calloc(n, sizeof(char *))) ||
	    !(st->cpuset = calloc(n, sizeof(char *))))
		rc = -1;
	if (rc == 0 && hwloc_get_cpubind(t, own, HWLOC_CPUBIND_PROCESS) < 0)
		hwloc_bitmap_copy(own, hwloc_topology_get_topology_cpuset(t));
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		pmix_cpuset_t cs = { .source = "hwloc" };

		cs.bitmap = plug_cpuset_of_task(st->si.cpu_bind_type, st->si.cpu_bind, i,
						hwloc_topology_get_topology_cpuset(t), own);
		if (!cs.bitmap ||
		    PMIx_server_generate_locality_string(&cs, &st->locality[i]) != PMIX_SUCCESS ||
		    PMIx_server_generate_cpuset_string(&cs, &st->cpuset[i]) != PMIX_SUCCESS)
			rc = -1;
		hwloc_bitmap_free(cs.bitmap);
	}
	hwloc_bitmap_free(own);
	return rc < 0 ? plug_error("cannot compute the tasks' locality strings"), -1 : 0;
}

/* ---- server ------------------------------------------------------------- */

static int start_server(plug_step_t *st)
{
	pmix_info_t *info = PMIx_Info_create(22);
	pmix_topology_t topo = { .source = "hwloc", .topology = st->topo };
	uint32_t uid = st->si.uid, gid = st->si.gid, nodeid = st->si.nodeid;
	uint32_t max_message = plug_conf.max_message_mb << 20,
		 hello_ms = plug_conf.hello_timeout * 1000;
	bool yes = true;
	size_t n = 14;
	char tmo[16];
	pmix_status_t rc;

	if (!info)
		return -1;
	snprintf(tmo, sizeof(tmo), "%u", plug_conf.timeout);
	setenv("SLURMIX_TIMEOUT", tmo, 1); /* the core's default wait */
	pxc_log_set_hook(log_hook);
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, st->dir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_USERID, &uid, PMIX_UINT32);
	PMIx_Info_load(&info[2], PMIX_GRPID, &gid, PMIX_UINT32);
	PMIx_Info_load(&info[3], PMIX_HOSTNAME, st->hosts[st->si.nodeid], PMIX_STRING);
	PMIx_Info_load(&info[4], PMIX_NODEID, &nodeid, PMIX_UINT32); /* names events */
	PMIx_Info_load(&info[5], PXC_SERVER_EVCACHE_BYTES, &plug_conf.event_cache_bytes,
		       PMIX_UINT32);
	PMIx_Info_load(&info[6], PXC_SERVER_EVCACHE_AGE, &plug_conf.event_cache_age, PMIX_UINT32);
	PMIx_Info_load(&info[7], PXC_SERVER_EVENT_QUEUE_BYTES, &plug_conf.event_queue_bytes,
		       PMIX_UINT32);
	PMIx_Info_load(&info[8], PXC_SERVER_IOF_HISTORY, &plug_conf.iof_history, PMIX_UINT32);
	PMIx_Info_load(&info[9], PXC_SERVER_IOF_QUEUE, &plug_conf.iof_queue, PMIX_UINT32);
	PMIx_Info_load(&info[10], PXC_SERVER_MAX_PEERS, &plug_conf.max_connections, PMIX_UINT32);
	PMIx_Info_load(&info[11], PXC_SERVER_MAX_PENDING, &plug_conf.max_pending, PMIX_UINT32);
	PMIx_Info_load(&info[12], PXC_SERVER_MAX_MESSAGE, &max_message, PMIX_UINT32);
	PMIx_Info_load(&info[13], PXC_SERVER_HELLO_MS, &hello_ms, PMIX_UINT32);
	if (st->topo) /* the server uses ours instead of discovering again */
		PMIx_Info_load(&info[n++], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
	/* tools find the step in the node's temporary directory:
	 * pmix.<host>.tool.<stepd pid>, .tool.<nspace>, and the first step of
	 * the node also pmix.<host>.tool (docs/iof.md, "Tools") */
	PMIx_Info_load(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[n++], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[n++], PMIX_SYSTEM_TMPDIR, plug_conf_tmpdir(), PMIX_STRING);
	PMIx_Info_load(&info[n++], PXC_SERVER_RDV_DIR, plug_conf_tmpdir(), PMIX_STRING);
	PMIx_Info_load(&info[n++], PXC_SERVER_RDV_NAME, st->nspace, PMIX_STRING);
	/* the files appear once the step is registered and the network is up */
	PMIx_Info_load(&info[n++], PXC_SERVER_RDV_DEFER, &yes, PMIX_BOOL);
	rc = PMIx_server_init(&module, info, n);
	PMIx_Info_free(info, 22);
	if (rc != PMIX_SUCCESS)
		return plug_error("PMIx_server_init: %s", PMIx_Error_string(rc)), -1;
	st->server_up = true;
	plug_attrs_register(); /* logs what failed; the step runs on */
	return 0;
}

static int register_nspace(plug_step_t *st)
{
	pmix_info_t *info;
	size_t ninfo;
	plug_wait_t *w;
	pmix_status_t rc;

	if (plug_nspace_info(st, &info, &ninfo) < 0 || !(w = wait_new()))
		return plug_error("out of memory"), -1;
	rc = PMIx_server_register_nspace(st->nspace, (int)st->si.node_tasks, info, ninfo, wait_cb,
					 w);
	rc = wait_for(w, rc);
	PMIx_Info_free(info, ninfo);
	if (rc != PMIX_SUCCESS)
		return plug_error("register namespace %s: %s", st->nspace, PMIx_Error_string(rc)),
		       -1;
	return 0;
}

static int register_clients(plug_step_t *st)
{
	const plug_map_t *m = st->map;
	uint32_t node = st->si.nodeid;
	pmix_proc_t proc;
	pmix_status_t rc;

	PMIx_Load_nspace(proc.nspace, st->nspace);
	for (uint32_t i = 0; i < m->count[node]; i++) {
		plug_wait_t *w = wait_new();

		if (!w)
			return plug_error("out of memory"), -1;
		proc.rank = m->ranks[m->first[node] + i];
		rc = PMIx_server_register_client(&proc, st->si.uid, st->si.gid, NULL, wait_cb, w);
		if ((rc = wait_for(w, rc)) != PMIX_SUCCESS)
			return plug_error("register rank %u: %s", proc.rank, PMIx_Error_string(rc)),
			       -1;
	}
	return 0;
}

/* ---- task environments -------------------------------------------------- */

/* Appends "name=value" to a malloc()ed list; 0 or -1. */
static int env_add(char ***list, const char *name, const char *value)
{
	size_t n = 0;
	char **grown, *entry;

	while (*list && (*list)[n])
		n++;
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -1;
	if (!(grown = realloc(*list, (n + 2) * sizeof(char *)))) {
		free(entry);
		return -1;
	}
	grown[n] = entry;
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

static int prepare_ld_path(plug_step_t *st, char **env)
{
	const char *old = plug_env_get(env, "LD_LIBRARY_PATH");

	if (!plug_conf.set_ld_library_path || !plug_conf.client_libdir)
		return 0;
	if (old && *old)
		return asprintf(&st->ld_path, "%s:%s", plug_conf.client_libdir, old) < 0 ? -1 : 0;
	st->ld_path = strdup(plug_conf.client_libdir);
	return st->ld_path ? 0 : -1;
}

/* PMI-1 / PMI-2 (the server's pmi.c): a socketpair per local task, the
 * server's end handed over, the task's end kept for the task hook, both
 * close-on-exec (the hook clears it on the task's own end only). */
static int prepare_pmi(plug_step_t *st, uint32_t i, pmix_proc_t *proc)
{
	char num[16];
	int sv[2];

	st->pmi_fd[i] = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return plug_error("PMI socketpair: %s", strerror(errno)), -1;
	if (pxc_server_pmi_add(sv[0], sv[1], proc) < 0)
		return plug_error("PMI for rank %u: %s", proc->rank, strerror(errno)), -1;
	st->pmi_fd[i] = sv[1];
	snprintf(num, sizeof(num), "%d", sv[1]);
	if (env_add(&st->task_env[i], "PMI_FD", num) < 0)
		return -1;
	snprintf(num, sizeof(num), "%u", proc->rank);
	if (env_add(&st->task_env[i], "PMI_RANK", num) < 0)
		return -1;
	snprintf(num, sizeof(num), "%u", st->map->ntasks);
	if (env_add(&st->task_env[i], "PMI_SIZE", num) < 0 ||
	    env_add(&st->task_env[i], "PMI_JOBID", st->nspace) < 0 ||
	    (st->spawned && env_add(&st->task_env[i], "PMI_SPAWNED", "1") < 0))
		return -1;
	return 0;
}

/* A PMI-spawned step: the parent's preput pairs (server/pmi_spawn.h),
 * job information of the namespace. The user's environment: bounded and
 * checked, a broken pair is left out with a log line. 0 or -1 (ENOMEM). */
static int load_preputs(plug_step_t *st, char **env)
{
	const char *c = plug_env_get(env, PXC_PMI_PREPUT_ENV_COUNT);
	char name[64];
	uint32_t n;

	if (!c || plug_parse_u32(c, 1, PXC_PMI_SPAWN_MAX_PREPUT, &n) < 0)
		return 0;
	if (!(st->preput = calloc(n + 1, sizeof(char *))))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const char *kv, *eq;

		snprintf(name, sizeof(name), "%s%u", PXC_PMI_PREPUT_ENV, i);
		kv = plug_env_get(env, name);
		eq = kv ? strchr(kv, '=') : NULL;
		if (!eq || eq == kv || eq - kv > PXC_PMI_KEYLEN_MAX ||
		    strlen(eq + 1) > PXC_PMI_VALLEN_MAX) {
			plug_info("PMI spawn: preput %u is missing or malformed", i);
			continue;
		}
		if (!(st->preput[st->npreput] = strdup(kv)))
			return -1;
		st->npreput++;
	}
	return 0;
}

static int prepare_tasks(plug_step_t *st, char **env)
{
	const plug_map_t *m = st->map;
	uint32_t node = st->si.nodeid;
	pmix_proc_t proc;

	st->task_env = calloc(m->count[node], sizeof(char **));
	st->pmi_fd = malloc(m->count[node] * sizeof(int));
	for (uint32_t i = 0; st->pmi_fd && i < m->count[node]; i++)
		st->pmi_fd[i] = -1;
	if (!st->task_env || !st->pmi_fd || prepare_ld_path(st, env) < 0)
		return plug_error("out of memory"), -1;
	PMIx_Load_nspace(proc.nspace, st->nspace);
	for (uint32_t i = 0; i < m->count[node]; i++) {
		proc.rank = m->ranks[m->first[node] + i];
		if (PMIx_server_setup_fork(&proc, &st->task_env[i]) != PMIX_SUCCESS ||
		    (st->ld_path && env_add(&st->task_env[i], "LD_LIBRARY_PATH", st->ld_path) < 0))
			return plug_error("setup_fork for rank %u failed", proc.rank), -1;
		if (prepare_pmi(st, i, &proc) < 0)
			return plug_error("PMI for rank %u failed", proc.rank), -1;
		/* Split in place: the task hook must not allocate to do it. */
		for (char **e = st->task_env[i]; *e; e++) {
			char *eq = strchr(*e, '=');
			if (eq)
				*eq = '\0';
		}
	}
	return 0;
}

/* ---- the network between step daemons ---------------------------------- */

/* The transport's arguments from the launch environment: the job key,
 * srun's agent (SLURMIX_SRUN_PORT) and the host it runs on. 0/-1. */
static int net_args(const plug_step_t *st, char **env, plug_net_args_t *a)
{
	const char *port = plug_env_get(env, PLUG_SRUN_PORT_ENV);
	const char *host = plug_env_get(env, "SLURM_SRUN_COMM_HOST");
	uint32_t p;

	if (!host)
		host = plug_env_get(env, "SLURM_LAUNCH_NODE_IPADDR");
	a->key = plug_env_get(env, PLUG_KEY_ENV);
	if (!a->key || strlen(a->key) != PLUG_KEY_LEN || !port ||
	    plug_parse_u32(port, 1, 65535, &p) < 0 || !host)
		return plug_error("launch environment lacks %s/%s/SLURM_SRUN_COMM_HOST",
				  PLUG_KEY_ENV, PLUG_SRUN_PORT_ENV),
		       -1;
	a->pg = pxc_progress_global();
	a->job = st->si.step_id.job_id;
	a->step = st->si.step_id.step_id;
	a->me = st->si.nodeid;
	a->nnodes = st->map->nnodes;
	a->width = plug_net_ctx.width;
	a->route_host = host;
	a->srun_port = (uint16_t)p;
	return 0;
}

/* Every feature that talks to the other step daemons registers with the
 * transport; then the endpoint exchange, then the start. 0/-1. */
static int net_features(plug_step_t *st, plug_net_t *n, const plug_net_args_t *a)
{
	plug_boot_args_t ba = { .net = n,
				.key = a->key,
				.me = a->me,
				.nnodes = a->nnodes,
				.width = a->width,
				.job = a->job,
				.step = a->step,
				.addr = plug_net_addr(n),
				.port = plug_net_port(n),
				.hosts = st->hosts,
				.timeout_s = (int)plug_net_ctx.timeout };

	if (plug_coll_register(n) < 0 || plug_dmodex_register(n) < 0 || plug_lost_register(n) < 0 ||
	    plug_spawn_net_register(n) < 0 || plug_event_register(n) < 0 ||
	    plug_evindex_net_register(n, plug_conf.event_cache_bytes, plug_conf.event_cache_age) <
		    0 ||
	    plug_family_register(n) < 0 || plug_iof_net_register(n) < 0 ||
	    plug_push_net_register(n) < 0 || plug_jobctl_net_register(n) < 0 ||
	    plug_tool_net_register(n, st->si.uid) < 0 ||
	    plug_stepend_register(n, st->si.nodeid, st->si.nnodes, st->si.node_tasks) < 0)
		return plug_error("cannot register with the network"), -1;
	st->boot_started = true;
	return plug_boot_start(&ba) < 0 || plug_net_start(n) < 0 ? -1 : 0;
}

static int start_net(plug_step_t *st, char **env)
{
	plug_net_ctx_t *c = &plug_net_ctx;
	plug_net_args_t a = { 0 };

	snprintf(c->nspace, sizeof(c->nspace), "%s", st->nspace);
	c->map = st->map;
	c->me = st->si.nodeid;
	c->width = plug_slurm_tree_width();
	c->timeout = plug_conf.timeout;
	c->host = st->hosts[st->si.nodeid];
	c->hosts = st->hosts;
	/* one-node steps too: other steps of the job reach them for
	 * connect and fences across namespaces (docs/dynamic.md 5) */
	if (net_args(st, env, &a) < 0 || !(c->net = plug_net_create(&a)) ||
	    net_features(st, c->net, &a) < 0)
		return plug_error("cannot open the network between step daemons"), -1;
	return 0;
}

/* Stops what talks to the other step daemons (before the server). The
 * transport itself is freed after the server: until then the server may
 * still call a feature, which finds it stopped. */
static void stop_net(plug_step_t *st)
{
	plug_net_stop(plug_net_ctx.net);
	if (st->boot_started)
		plug_boot_join();
	st->boot_started = false;
}

/* SLURMIX_STDIN in the step's environment: "push" holds the tasks' stdin
 * open for PMIx_IOF_push past the end of srun's input (docs/iof.md,
 * "Pushing stdin"); "srun" (the default) does not. */
static bool stdin_held(char **env)
{
	const char *v = plug_env_get(env, PLUG_STDIN_ENV);

	if (!v || !*v || !strcmp(v, "srun"))
		return false;
	if (!strcmp(v, "push"))
		return true;
	plug_error("%s=%s: not srun or push: taken as srun", PLUG_STDIN_ENV, v);
	return false;
}

/* PLUG_IOF_FORMAT_ENV in the step's environment (a spawned step's, from
 * its parent srun): how the output goes to srun. An unknown word is
 * logged and left out. */
static plug_output_fmt_t iof_format(char **env)
{
	const char *v = plug_env_get(env, PLUG_IOF_FORMAT_ENV);
	plug_output_fmt_t f = { 0 };

	for (const char *w = v; w && *w;) {
		size_t n = strcspn(w, ",");

		if (n == 3 && !strncmp(w, "tag", n))
			f.tag = true;
		else if (n == 9 && !strncmp(w, "timestamp", n))
			f.timestamp = true;
		else if (n == 5 && !strncmp(w, "merge", n))
			f.merge = true;
		else if (n == 3 && !strncmp(w, "xml", n))
			f.xml = true;
		else if (n)
			plug_error("%s=%s: \"%.*s\" is not tag, timestamp, merge or xml: left out",
				   PLUG_IOF_FORMAT_ENV, v, (int)n, w);
		w += n + (w[n] == ',');
	}
	return f;
}

/* Removes name from env in the forked task (no allocation, nothing
 * freed: the task execs next). */
static void drop_env(char **env, const char *name)
{
	size_t n = strlen(name), k = 0;

	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) || env[i][n] != '=')
			env[k++] = env[i];
	if (env)
		env[k] = NULL;
}

/* ---- hooks -------------------------------------------------------------- */

int plug_step_prefork(const plug_stepd_rec_t *job, char ***env)
{
	if (plug_stepd_info(job, &step.si) < 0 || step.si.batch)
		return 0;
	plug_conf_env(*env);
	plug_abort_init(*env, step.si.step_id.job_id, step.si.step_id.step_id, step.si.nodeid);
	plug_abort_watch();
	if (load_step(&step, *env) < 0 || make_dirs(&step) < 0 ||
	    plug_lost_init(step.nspace, step.map) < 0)
		goto fail;
	if (plug_agent_client_init(*env) < 0)
		plug_info("no srun agent: publish/lookup and spawn are not available");
	plug_spawn_stepd_init(*env, step.si.nodeid, step.si.node_tasks);
	step.spawned = plug_spawn_parent(*env, &step.parent);
	if (step.spawned)
		out_dirs(&step, *env);
	{
		const char *sep = plug_env_get(*env, PLUG_SPAWN_SEP_ENV);

		plug_family_init(step.nspace, step.si.step_id.job_id, step.si.step_id.step_id,
				 step.spawned ? &step.parent : NULL,
				 plug_conf.spawn_end_with_parent && !(sep && !strcmp(sep, "1")));
	}
	if (plug_conf.task_weight && step.spawned)
		plug_weight_apply("/proc", step.si.node_tasks, parent_tasks_here(&step, *env));
	load_topology(&step);
	if (load_preputs(&step, *env) < 0)
		goto fail;
	if (start_server(&step) < 0 || task_localities(&step) < 0 || register_nspace(&step) < 0 ||
	    register_clients(&step) < 0 || prepare_tasks(&step, *env) < 0 ||
	    start_net(&step, *env) < 0)
		goto fail;
	plug_reap_hooks(plug_stepend_task, plug_stepend_exit);
	plug_reap_start(step.si.node_tasks, plug_conf.fast_step_end);
	if (plug_conf.iof) {
		plug_output_fmt_t fmt = iof_format(*env);

		/* a spawned step's --output files (its parent's, or
		 * PMIX_OUTPUT_TO_FILE's) reach its parent's pulls too */
		fmt.files = step.spawned;

		plug_input_start(step.map, step.si.nodeid, stdin_held(*env));
		plug_output_start(step.nspace, step.map, step.si.nodeid, step.si.node_tasks,
				  PLUG_CAPTURE_ACK_MS, &fmt);
	}
	/* a spawned step's processes hold their parent's job information */
	if (step.spawned && pxc_server_hold_nspace(step.parent.nspace) != PMIX_SUCCESS)
		plug_flag("the parent step's job information is not prefetched");
	plug_spawn_prefork_done();
	pxc_server_rdv_publish(); /* tools find the step from here on */
	plug_debug("step %s: server up in %s, %u local of %u ranks on %u nodes", step.nspace,
		   step.dir, step.si.node_tasks, step.map->ntasks, step.map->nnodes);
	return 0;
fail : {
	char host[256] = "?";

	gethostname(host, sizeof(host) - 1);
	plug_abort_launch_failed(host, "mpi/slurmix could not set up the step "
				       "there (the reason is in that node's slurmd log)");
}
	plug_step_fini();
	return -1;
}

/* In the forked task, as the user: copy the prepared pairs only. No log
 * line here (Slurm's log takes a lock): a task the map does not place on
 * this node at its local rank (a map srun did not compute, see
 * load_step) fails with EINVAL, which Slurm reports ("Unable to configure
 * MPI plugin") before the task exits 1. */
int plug_step_task(const plug_task_info_t *task, char ***env)
{
	int lr = plug_map_local_rank(step.map, task->gtaskid);

	plug_reap_task(task->gtaskid);
	if (!step.task_env || lr < 0 || lr != task->ltaskid ||
	    step.map->node_of[task->gtaskid] != step.si.nodeid) {
		errno = EINVAL;
		return -1;
	}
	for (char **e = step.task_env[lr]; *e; e++) {
		const char *value = *e + strlen(*e) + 1;

		if (plug_env_set(env, *e, value) < 0)
			return -1;
	}
	if (plug_spawn_task_env(env, step.cltdir) < 0)
		return -1;
	/* PMI: the task's pid first on its end, which it keeps across exec
	 * (the other tasks' ends close at exec); without it, no PMI_FD */
	if (step.pmi_fd && step.pmi_fd[lr] >= 0 &&
	    (pxc_pmi_preamble_write(step.pmi_fd[lr], getpid()) < 0 ||
	     fcntl(step.pmi_fd[lr], F_SETFD, 0) < 0))
		drop_env(*env, "PMI_FD");
	drop_env(*env, PLUG_STDIN_ENV); /* for this step only, not the tasks' own sruns */
	drop_env(*env, PLUG_IOF_FORMAT_ENV);
	drop_env(*env, PLUG_IOF_DIR_ENV);
	drop_env(*env, PXC_PMI_PREPUT_ENV_COUNT); /* the step's job information now */
	plug_output_task(task->ltaskid);          /* last: nothing fails after it */
	return 0;
}

static void free_list(char **list)
{
	for (char **e = list; e && *e; e++)
		free(*e);
	free(list);
}

void plug_step_fini(void)
{
	plug_input_stop();  /* no more pushes into the capture, */
	plug_output_stop(); /* which stops then */
	if (step.server_up)
		plug_stepend_wait((int)plug_conf.timeout * 1000);
	stop_net(&step);
	plug_reap_stop();
	if (step.server_up) {
		plug_agent_client_stop();
		plug_abort_stop();
		plug_worker_stop(); /* MUNGE calls (stepd/cred.c) */
		PMIx_server_finalize();
		plug_query_stepd_stop();
	}
	plug_net_destroy(plug_net_ctx.net);
	memset(&plug_net_ctx, 0, sizeof(plug_net_ctx));
	plug_stepend_free();
	plug_lost_stop();
	plug_family_stop();
	if (step.dir_made)
		plug_rm_tree(step.dir);
	for (uint32_t i = 0; step.task_env && i < step.si.node_tasks; i++)
		free_list(step.task_env[i]);
	free(step.task_env);
	free(step.pmi_fd); /* the fds are the server's (pxc_server_pmi_add) */
	free_list(step.preput);
	free_list(step.hosts);
	free_list(step.job_hosts);
	plug_map_free(step.map);
	free(step.dir);
	free(step.cltdir);
	free(step.topo_xml);
	if (step.topo)
		hwloc_topology_destroy(step.topo);
	for (uint32_t i = 0; i < step.si.node_tasks && step.locality; i++)
		free(step.locality[i]);
	for (uint32_t i = 0; i < step.si.node_tasks && step.cpuset; i++)
		free(step.cpuset[i]);
	free(step.locality);
	free(step.cpuset);
	free(step.ld_path);
	memset(&step, 0, sizeof(step));
}
