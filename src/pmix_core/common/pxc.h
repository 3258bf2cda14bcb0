/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pxc.h - small internals shared by every part of the slurmix PMIx core.
 * Prefixes: pxc_ = PMIx core; plug_ = Slurm plugin; sxr_ = slurmix-run; iof_ = IO forwarding.
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
#ifndef PXC_H
#define PXC_H

#include <stdarg.h>
#include <stddef.h>
#include <pmix_common.h>

#define PXC_HIDDEN __attribute__((visibility("hidden")))

enum { PXC_LOG_ERROR = 0, PXC_LOG_WARN = 1, PXC_LOG_INFO = 2, PXC_LOG_DEBUG = 3 };

typedef void (*pxc_log_hook_f)(int level, const char *msg);

/* Installs the log hook (NULL restores the default). Any thread. */
void pxc_log_set_hook(pxc_log_hook_f hook);
/* Formats and logs one message; never fails visibly. Any thread. */
void pxc_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when messages of this level would be emitted (to skip costly formatting). */
int pxc_log_enabled(int level);

#define pxc_error(...) pxc_log(PXC_LOG_ERROR, __VA_ARGS__)
#define pxc_debug(...)                                       \
	do {                                                 \
		if (pxc_log_enabled(PXC_LOG_DEBUG))          \
			pxc_log(PXC_LOG_DEBUG, __VA_ARGS__); \
	} while (0)

/* Maps an errno value to the closest PMIx status (ENOMEM -> PMIX_ERR_NOMEM,
 * ETIMEDOUT -> PMIX_ERR_TIMEOUT, ENOENT -> PMIX_ERR_NOT_FOUND, EINVAL ->
 * PMIX_ERR_BAD_PARAM, EPROTO/EBADMSG -> PMIX_ERR_UNPACK_FAILURE, EACCES/EPERM ->
 * PMIX_ERR_NO_PERMISSIONS, ENOTSUP -> PMIX_ERR_NOT_SUPPORTED, others PMIX_ERROR). */
pmix_status_t pxc_errno_status(int err);

/* The first info of info[0..ninfo) whose key is key, or NULL (info may be
 * NULL). Borrowed pointer. Any thread. */
const pmix_info_t *pxc_info_find(const pmix_info_t *info, size_t ninfo, const char *key);
/* True when info holds key as a flag: a bare key (PMIX_UNDEF), a true
 * boolean, a non-zero PMIX_INT or a value PMIx_Value_true calls true.
 * Any thread. */
bool pxc_info_flag(const pmix_info_t *info, size_t ninfo, const char *key);

/* Default timeout, in seconds, of server-side waits when the request names
 * none (PMIX_TIMEOUT). Overridden by SLURMIX_TIMEOUT in the environment. */
int pxc_default_timeout(void);
/* CLOCK_MONOTONIC in milliseconds, for deadlines. Any thread. */
long pxc_now_ms(void);

/* What this process is, set by the first successful init: PMIx_Init
 * (client), PMIx_server_init (server) or PMIx_tool_init (tool). API
 * functions that behave differently by role (PMIx_Notify_event, PMIx_Get,
 * PMIx_Register_event_handler, ...) dispatch on it. */
enum { PXC_ROLE_NONE = 0, PXC_ROLE_CLIENT, PXC_ROLE_SERVER, PXC_ROLE_TOOL };
extern int pxc_role;

#endif
