/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/util.h - small Slurm-free helpers of the plugin (strict number and
 * boolean parsing for config values, lookup in "K=V" environment arrays).
 * Pure functions, any thread, also safe in a forked child (no allocation),
 * except plug_mkdirs_as, which forks a child of its own (and waits for it).
 */
#ifndef PLUG_UTIL_H
#define PLUG_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* yes/no, true/false, on/off, 1/0 (any case). 0, or -1 with EINVAL. */
int plug_parse_bool(const char *s, bool *out);
/* Decimal in [min, max], nothing else. 0, or -1 with EINVAL/ERANGE. */
int plug_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* raw with Slurm's %n (node) and %h (host) expanded, into out[size].
 * 0, or -1 (ENAMETOOLONG) when it does not fit. */
int plug_path_expand(const char *raw, const char *node, const char *host, char *out, size_t size);
/* A step's namespace, "slurmix.<job>.<step>" and nothing after: 0 with
 * job and step set (either may be NULL), or -1. */
int plug_nspace_parse(const char *ns, uint32_t *job, uint32_t *step);
/* Whether a and b are both steps' namespaces of one job. */
bool plug_nspace_same_job(const char *a, const char *b);
/* Value of name in a NULL-terminated "K=V" array (NULL env: none). */
const char *plug_env_get(char *const *env, const char *name);
/* Removes a tree without following symbolic links or leaving its file
 * system; best effort (what cannot be removed stays). Any thread. */
void plug_rm_tree(const char *path);
/* The monotonic clock in milliseconds (signal-safe: also in a forked
 * task). */
int64_t plug_mono_ms(void);
/* Writes n bytes at b into fd without waiting for it: a regular file as
 * it is, anything else (a pipe, a terminal) through a private non-blocking
 * open of it (/proc/self/fd/<fd>, so that fd's own description keeps its
 * mode). 0, -EAGAIN (it would have waited: what it took is gone, the rest
 * not), or another -errno (-ENXIO: it cannot be opened so). */
int plug_write_nowait(int fd, const void *b, size_t n);
/* msg's first line to syslog, LOG_USER at pri, as "slurmix[nspace:rank]:
 * line": the one form of PMIx_Log's syslog lines, wherever written. */
void plug_syslog_proc(int pri, const char *nspace, uint32_t rank, const char *msg);
/* pthread_create of fn(arg) with every signal blocked in the new thread
 * (the host process's signals stay its own threads'). 0 or an errno. */
int plug_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* With lock held: waits on cond until *done or ms passed. Returns *done
 * (the lock is held again). */
bool plug_wait_flag(pthread_cond_t *cond, pthread_mutex_t *lock, const bool *done, int ms);
/* The digits of ntasks (at least 1): the width of the rank in the
 * directories of PMIX_OUTPUT_TO_DIRECTORY. */
int plug_rank_width(uint32_t ntasks);
/* Creates each of the NULL-terminated absolute paths with its missing
 * parents (mode 0755 under the umask), in a child process with uid, gid
 * and the groups gids[ngids] (none given: gid alone) when running as
 * root, so that it gets exactly the user's rights; waits for it at most
 * timeout_ms (then kills it, and leaves it after a further 100 ms when
 * it cannot die, on a hung file system). 0, or -1 with errno (that of
 * the first path that failed, whose index goes to *bad; ETIMEDOUT;
 * EINVAL for a relative path). */
int plug_mkdirs_as(uid_t uid, gid_t gid, int ngids, const gid_t *gids, char *const *paths,
		   int timeout_ms, size_t *bad);

#endif
