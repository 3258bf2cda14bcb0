/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.h - the core's log hook, errno mapping, default timeout and clock
 * (log.c). pxc.h includes it; the log macros and the role are there.
 *
 * Logging: the core never writes to stdout. It logs through a hook that the
 * host installs (the Slurm plugin routes it to Slurm's log, slurmix-run to
 * stderr). Without a hook, messages at or below the level given by the
 * environment variable SLURMIX_DEBUG (default: errors only) go to stderr.
 *
 * Status mapping: internal functions return 0 / -1 with errno; the PMIx API
 * edge converts errno to a pmix_status_t with pxc_errno_status().
 *
 * Thread safety: pxc_log and pxc_log_set_hook may be called from any thread.
 */
#ifndef PXC_COMMON_LOG_H
#define PXC_COMMON_LOG_H

#include <pmix_common.h>

/* level: one of PXC_LOG_* (pxc.h). */
typedef void (*pxc_log_hook_f)(int level, const char *msg);

/* Installs the log hook (NULL restores the default). Any thread. */
void pxc_log_set_hook(pxc_log_hook_f hook);
/* Formats and logs one message; never fails visibly. Any thread. */
void pxc_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when messages of this level would be emitted (to skip costly formatting). */
int pxc_log_enabled(int level);

/* Maps an errno value to the closest PMIx status (ENOMEM -> PMIX_ERR_NOMEM,
 * ETIMEDOUT -> PMIX_ERR_TIMEOUT, ENOENT -> PMIX_ERR_NOT_FOUND, EINVAL ->
 * PMIX_ERR_BAD_PARAM, EPROTO/EBADMSG -> PMIX_ERR_UNPACK_FAILURE, EACCES/EPERM ->
 * PMIX_ERR_NO_PERMISSIONS, ENOTSUP -> PMIX_ERR_NOT_SUPPORTED, others PMIX_ERROR). */
pmix_status_t pxc_errno_status(int err);

/* Default timeout, in seconds, of server-side waits when the request names
 * none (PMIX_TIMEOUT). Overridden by SLURMIX_TIMEOUT in the environment. */
int pxc_default_timeout(void);
/* CLOCK_MONOTONIC in milliseconds, for deadlines. Any thread. */
long pxc_now_ms(void);

#endif
