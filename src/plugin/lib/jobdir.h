/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/jobdir.h - the per-job directory on the srun host (docs/dynamic.md
 * section 1), the meeting point of every step of one allocation:
 *
 *   ${SLURMIX_JOBDIR_BASE:-/tmp}/slurmix-<uid>/     0700, the user's
 *       job.<jobid>/                                0700
 *           key            job-wide secret, 32 hex characters, 0600
 *           step.<stepid>  the step's endpoints and map (srun/agent.c)
 *           ended.<stepid> empty: that step ended (its srun left it)
 *           pub/           the publish/lookup directory (srun/pubdir.c)
 *
 * srun runs as the user, so everything here is created with the user's
 * own rights; an existing directory is used only when it is a real
 * directory (not a link) owned by the user and closed to others. The key
 * is created atomically (written to a temporary name, then link()ed to
 * "key", which fails if another srun won the race: that one's key is read
 * instead). Step files are written atomically (temporary + rename).
 *
 * Stale directories: at open, the job directories of other jobs of this
 * user whose job is no longer pending or running are removed (the caller
 * supplies the liveness test, slurm_load_job in srun); the current job's
 * own directory is wiped when its key is older than the job's submission
 * (job ids restart when slurmctld starts cold).
 *
 * No Slurm here (unit-tested alone, tests/unit/test_plugin_jobdir.c).
 * One process-wide instance; srun's main thread opens it, the progress
 * thread reads the path afterwards; plug_jobdir_close at client_fini.
 */
#ifndef PLUG_JOBDIR_H
#define PLUG_JOBDIR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PLUG_JOBDIR_BASE_ENV "SLURMIX_JOBDIR_BASE"
#define PLUG_JOBDIR_KEY_LEN 32 /* hex characters, = PLUG_KEY_LEN */

/* Liveness of a job: 1 pending/running/suspended (then *submit is its
 * submission time, 0 if unknown), 0 finished or unknown to Slurm, -1 the
 * question failed (the directory is then left alone). */
typedef int (*plug_job_alive_f)(uint32_t job, time_t *submit);

/* Creates or opens the job directory of `job` under base (NULL: the
 * environment's SLURMIX_JOBDIR_BASE, else /tmp), reads or creates the key
 * into key[PLUG_JOBDIR_KEY_LEN + 1], and cleans stale job directories
 * with `alive` (NULL: no cleaning). 0, or -1 with errno and a log line. */
int plug_jobdir_open(const char *base, uint32_t job, plug_job_alive_f alive, char *key);
/* The job directory's path, or NULL when not open. */
const char *plug_jobdir_path(void);
/* malloc()ed "<jobdir>/<name>", NULL on error. */
char *plug_jobdir_file(const char *name);
/* Writes name atomically with the bytes given (mode 0600). 0/-1. */
int plug_jobdir_write(const char *name, const void *data, size_t len);
/* Reads name into a malloc()ed buffer (at most max bytes). 0, or -1 with
 * errno (ENOENT: no such file, EFBIG: larger than max). */
int plug_jobdir_read(const char *name, size_t max, char **data, size_t *len);
/* Removes name (a file). */
void plug_jobdir_unlink(const char *name);
/* The ids of the steps whose step file is there ("step.<id>"), at most
 * max, ascending, into ids[]; *n how many. 0, or -1 (no directory). */
int plug_jobdir_steps(uint32_t *ids, size_t max, size_t *n);
/* Forgets the path (the directory stays for the other steps). */
void plug_jobdir_close(void);

/* Makes a random key of PLUG_JOBDIR_KEY_LEN hex characters. 0/-1. */
int plug_make_key(char *key);

#endif
