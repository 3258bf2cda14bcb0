/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr.h - the types shared by the files of slurmix-run, the single-node PMIx launcher.
 * Prefixes: sxr_ = slurmix-run; pxc_ = PMIx core; plug_ = Slurm plugin; iof_ = IO forwarding.
 *
 * slurmix-run hosts a PMIx server through the standard server API only
 * (pmix_server.h), registers one namespace per job (the job given on the
 * command line, then one per PMIx_Spawn), forks the tasks and waits for
 * them. Everything is local: collectives complete with what the server
 * hands us, there is no remote data.
 *
 * Files: slurmix-run.c (options, environment, main loop), sxr_util.c
 * (messages, clock, argv/env arrays), sxr_req.c (work queue, copies),
 * sxr_host.c (server module, simple requests), sxr_ctl.c (query, job
 * control, log, events), sxr_job.c (registration, fork/exec, task ends),
 * sxr_spawn.c (PMIx_Spawn), sxr_dir.c (publish/lookup), sxr_iof.c (the
 * tasks' output, relayed and handed to the server). Each declares its
 * functions in the header of its own name (slurmix-run.h for
 * slurmix-run.c); this one declares none.
 *
 * Threads: the PMIx server library calls our host callbacks (sxr_host.c,
 * sxr_ctl.c) in its progress thread. Those callbacks never block and never touch
 * launcher state: they copy what they need into a work item and post it
 * on a mutex-protected queue, then wake the main thread through an eventfd.
 * The main thread (slurmix-run.c) owns all launcher state - jobs, tasks,
 * the publish/lookup directory, timers - and runs the work items, reaps
 * children (signalfd for SIGCHLD/SIGINT/SIGTERM/SIGHUP) and fires timers.
 * Completion callbacks (cbfunc) of the server are therefore called from
 * the main thread; the PMIx Standard allows that.
 *
 * Caveat: the callbacks deep-copy the arrays the server passes (infos, apps,
 * keys, queries, fence data) before posting: the main thread may run the
 * request after the server has freed its arguments.
 */
#ifndef SXR_H
#define SXR_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#define SXR_NAME "slurmix-run"
#define SXR_GRACE_MS 2000      /* SIGTERM -> SIGKILL */
#define SXR_MAX_APPS 64        /* apps on one command line (MPMD) */
#define SXR_LOOKUP_TIMEOUT 600 /* PMIX_WAIT lookups without PMIX_TIMEOUT */
#define SXR_FINALIZE_SECS 8    /* deregistration + PMIx_server_finalize */

struct sxr;
struct sxr_work;
typedef void (*sxr_work_f)(struct sxr *s, struct sxr_work *w);

/* A unit of work posted by a host callback; request structs embed it first. */
struct sxr_work {
	sxr_work_f run; /* runs in the main thread, frees the item */
	struct sxr_work *next;
};

enum { SXR_T_NEW = 0, SXR_T_RUNNING, SXR_T_EXITED };

struct sxr_job;

struct sxr_task {
	struct sxr_job *job;
	pmix_rank_t rank;
	uint32_t appnum;
	pid_t pid;
	int state;     /* SXR_T_* */
	int connected; /* PMIx_Init seen */
	int finalized; /* PMIx_Finalize seen */
	int killed;    /* killed on request (job control): not an error */
	int wstatus;   /* from waitpid */
	char *exe;     /* resolved path of the executable */
	int iof_fd[2]; /* its stdout, stderr: our read ends (-1: none; sxr_iof.c) */
	int in_fd;     /* its stdin: our write end (-1: none; sxr_in.c) */
	bool in_ended; /* it had one, which ended: pushes are IOF_COMPLETE */
	struct sxr_pitem *in_head, *in_tail; /* pushes waiting for it */
};

/* One application of a job: what to run and how. */
struct sxr_app {
	char *exe;   /* resolved path */
	char **argv; /* NULL-terminated, owned */
	char **env;  /* complete environment before setup_fork, owned */
	char *cwd;
	uint32_t nprocs;
	uint32_t first_rank;
};

struct sxr_job {
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t size, offset; /* offset = global rank of rank 0 */
	struct sxr_app *apps;
	size_t napps;
	struct sxr_task *tasks;
	int spawned;
	pmix_proc_t parent;
	char *nsdir;
	int registered;
	struct sxr_job *next;
};

/* Launcher options, from the command line. */
struct sxr_opts {
	uint32_t np;
	double timeout; /* seconds, 0 = none */
	const char *tmpbase;
	char **xenv; /* -x entries, NULL-terminated */
	int verbose;
	int libpath;    /* prepend our lib dir to LD_LIBRARY_PATH */
	int keep_going; /* a failed task does not end the job */
	int ompi_env;   /* make Open MPI 4.x accept the launch */
	char **argv;    /* program and its arguments */
	int napps;      /* MPMD: segments of argv separated by ":" */
	char **app_argv[SXR_MAX_APPS];
	uint32_t app_np[SXR_MAX_APPS];
};

struct sxr_dir;

struct sxr {
	struct sxr_opts o;
	char tmpdir[4096];
	char hostname[256];
	char cwd[4096];
	char *libdir;
	hwloc_topology_t topo;
	char *topo_xml;
	char *locality;  /* PMIX_LOCALITY_STRING of an unbound task */
	char **base_env; /* environment given to every task */
	struct sxr_job *jobs;
	unsigned njobs;        /* namespaces created so far */
	uint32_t nprocs_total; /* global ranks handed out so far */
	/* work queue filled by the progress thread */
	pthread_mutex_t qlock;
	struct sxr_work *qhead, *qtail;
	int qfd;   /* eventfd */
	int sigfd; /* signalfd */
	int server_up;
	/* ending */
	int have_status, status;
	int terminating;
	int signals_sent;
	double kill_at;  /* monotonic seconds, 0 = none */
	double deadline; /* --timeout, 0 = none */
	struct sxr_dir *dir;
};

#endif
