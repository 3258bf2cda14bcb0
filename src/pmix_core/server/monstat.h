/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monstat.h - the file checks of the file monitors (monitor.c), done by a
 * helper thread so that a file system that stops answering never stalls
 * the progress thread (monstat.c; docs/monitor.md). Every function here
 * runs in the progress thread.
 */
#ifndef PXC_SERVER_MONSTAT_H
#define PXC_SERVER_MONSTAT_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <pmix_common.h>

/* A monitored path has at most this many parts. */
#define PXC_MONSTAT_MAX_PARTS 64
/* Checks queued or running at a time (all monitors together). */
#define PXC_MONSTAT_QUEUE 256

/* A check's answer: the monitor's key, PMIX_SUCCESS with the file's stat
 * in st, or why it could not be examined (docs/monitor.md). */
typedef struct {
	uint64_t key;
	pmix_status_t status;
	struct stat st;
} pxc_monstat_res_t;

typedef void (*pxc_monstat_done_f)(const pxc_monstat_res_t *res);

/* Whether path may be monitored at all: absolute, shorter than PATH_MAX,
 * at most PXC_MONSTAT_MAX_PARTS parts, none "." or "..".
 * PMIX_SUCCESS or PMIX_ERR_BAD_PARAM. */
pmix_status_t pxc_monstat_check_path(const char *path);
/* Queues the check of path as uid/gid would see it (the helper thread
 * starts with the first one); done(res) runs in the progress thread once
 * it is done, unless the server stopped first. PMIX_SUCCESS,
 * PMIX_ERR_OUT_OF_RESOURCE (queue full, no thread) or PMIX_ERR_NOMEM. */
pmix_status_t pxc_monstat_submit(uint64_t key, const char *path, uid_t uid, gid_t gid,
				 pxc_monstat_done_f done);
/* Runs done() of the checks that are done (also posted by the thread). */
void pxc_monstat_drain(void);
/* Server teardown: queued checks and answers are dropped; a thread stuck
 * in a file system is left behind and frees what it shares when it
 * returns. Never waits. */
void pxc_monstat_stop(void);

/* For the tests: called by the helper thread before each check (may
 * block), and how many helper threads live. */
extern void (*pxc_monstat_test_hook)(const char *path);
unsigned pxc_monstat_threads(void);

#endif
