/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_job.h - namespaces and tasks of slurmix-run (sxr_job.c): launching a
 * job, signalling and reaping its tasks, releasing the jobs at the end.
 *
 * Every function here runs in the main thread, which owns s->jobs and
 * every task; sxr_resolve_exe touches no launcher state and may run
 * anywhere.
 */
#ifndef SXR_JOB_H
#define SXR_JOB_H

#include "sxr.h"

/* Finds the executable cmd: a name with a '/' relative to cwd, else in
 * prefix/bin (if prefix), then along path (a default if NULL). Returns 0
 * with *out a malloc'd path, or -1 with errno (ENOENT, EACCES, EINVAL);
 * prints nothing. */
int sxr_resolve_exe(const char *cmd, const char *cwd, const char *path, const char *prefix,
		    char **out);
/* Creates a job from apps (takes them), registers it, forks every task;
 * returns PMIX_SUCCESS or an error with nothing left running. */
pmix_status_t sxr_job_launch(struct sxr *s, struct sxr_app *apps, size_t napps,
			     const pmix_proc_t *parent, struct sxr_job **out);
/* Frees napps apps and what they own; accepts NULL. */
void sxr_apps_free(struct sxr_app *apps, size_t napps);
/* Returns the number of tasks still running, over every job. */
int sxr_tasks_running(struct sxr *s);
/* Sends sig to every running task. */
void sxr_signal_tasks(struct sxr *s, int sig);
/* Collects every ended child (SIGCHLD): the exit status, the events and
 * the termination a failed task calls for. */
void sxr_reap(struct sxr *s);
/* Deregisters and frees every job (at exit). */
void sxr_jobs_release(struct sxr *s);

#endif
