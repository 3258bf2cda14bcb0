/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pxc.h - small internals shared by every part of the slurmix PMIx core.
 * Prefixes: pxc_ = PMIx core; plug_ = Slurm plugin; sxr_ = slurmix-run; iof_ = IO forwarding.
 *
 * It gathers the headers nearly every file needs - the log hook, errno
 * mapping, default timeout and clock (log.h), the info look-ups (info.h) -
 * and keeps what belongs to no single file: the visibility macro, the log
 * levels and macros, the process role.
 */
#ifndef PXC_H
#define PXC_H

#include <stdarg.h>
#include <stddef.h>
#include <pmix_common.h>

#include "log.h"
#include "info.h"

#define PXC_HIDDEN __attribute__((visibility("hidden")))

enum { PXC_LOG_ERROR = 0, PXC_LOG_WARN = 1, PXC_LOG_INFO = 2, PXC_LOG_DEBUG = 3 };

#define pxc_error(...) pxc_log(PXC_LOG_ERROR, __VA_ARGS__)
#define pxc_debug(...)                                       \
	do {                                                 \
		if (pxc_log_enabled(PXC_LOG_DEBUG))          \
			pxc_log(PXC_LOG_DEBUG, __VA_ARGS__); \
	} while (0)

/* What this process is, set by the first successful init: PMIx_Init
 * (client), PMIx_server_init (server) or PMIx_tool_init (tool). API
 * functions that behave differently by role (PMIx_Notify_event, PMIx_Get,
 * PMIx_Register_event_handler, ...) dispatch on it. */
enum { PXC_ROLE_NONE = 0, PXC_ROLE_CLIENT, PXC_ROLE_SERVER, PXC_ROLE_TOOL };
extern int pxc_role; /* defined in log.c */

#endif
