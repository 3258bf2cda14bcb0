/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c - the core's logging hook, errno mapping, default timeout and role.
 *
 * The hook pointer is read and written atomically so any thread may log
 * while the host installs its hook. Messages are formatted into a bounded
 * stack buffer: logging never allocates and never fails visibly.
 */
#include "pxc.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int pxc_role = PXC_ROLE_NONE;

static pxc_log_hook_f log_hook;
static int log_level = -1;

static int level_from_env(void)
{
	const char *s = getenv("SLURMIX_DEBUG");
	int v = s ? atoi(s) : 0;

	return v < 0 ? 0 : v;
}

void pxc_log_set_hook(pxc_log_hook_f hook)
{
	__atomic_store_n(&log_hook, hook, __ATOMIC_RELEASE);
}

int pxc_log_enabled(int level)
{
	int cur = __atomic_load_n(&log_level, __ATOMIC_RELAXED);

	if (cur < 0) {
		cur = level_from_env();
		__atomic_store_n(&log_level, cur, __ATOMIC_RELAXED);
	}
	/* With a host hook every level goes to the host, which filters. */
	if (__atomic_load_n(&log_hook, __ATOMIC_ACQUIRE))
		return 1;
	return level <= cur;
}

void pxc_log(int level, const char *fmt, ...)
{
	char msg[512];
	pxc_log_hook_f hook;
	va_list ap;
	int saved = errno;

	if (!pxc_log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hook = __atomic_load_n(&log_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(level, msg);
	else
		fprintf(stderr, "slurmix-pmix[%d]: %s\n", (int)getpid(), msg);
	errno = saved;
}

pmix_status_t pxc_errno_status(int err)
{
	switch (err) {
	case 0: return PMIX_SUCCESS;
	case ENOMEM: return PMIX_ERR_NOMEM;
	case ETIMEDOUT: return PMIX_ERR_TIMEOUT;
	case ENOENT: return PMIX_ERR_NOT_FOUND;
	case EINVAL: return PMIX_ERR_BAD_PARAM;
	case EPROTO:
	case EBADMSG:
	case EMSGSIZE: return PMIX_ERR_UNPACK_FAILURE;
	case EACCES:
	case EPERM: return PMIX_ERR_NO_PERMISSIONS;
	case ENOTSUP: return PMIX_ERR_NOT_SUPPORTED;
	case EPIPE:
	case ECONNRESET:
	case ENOTCONN: return PMIX_ERR_UNREACH;
	case EEXIST: return PMIX_ERR_DUPLICATE_KEY;
	default: return PMIX_ERROR;
	}
}

long pxc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int pxc_default_timeout(void)
{
	const char *s = getenv("SLURMIX_TIMEOUT");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v > 0 && v < 86400 * 365 ? (int)v : 300;
}
