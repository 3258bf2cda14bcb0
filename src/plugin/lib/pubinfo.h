/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pubinfo.h - the attributes of a publish, lookup or unpublish that
 * both its halves read: the step daemon that forwards it
 * (stepd/publish.c) and srun's directory that serves it (srun/pubdir.c).
 * Slurm-free; any thread.
 */
#ifndef PLUG_LIB_PUBINFO_H
#define PLUG_LIB_PUBINFO_H

#include <stddef.h>
#include <pmix_common.h>

#define PUB_MAX_ENTRY (16u << 20) /* bytes of one published entry */
#define PUB_POLL_MS 250           /* pub/ polled when inotify is missing */

/* The integer (INT, INT32, UINT32 or BOOL) value of key in info, or dflt. */
int plug_pub_info_int(const pmix_info_t *info, size_t n, const char *key, int dflt);
/* PMIX_RANGE of info, PMIX_RANGE_SESSION when absent. */
pmix_data_range_t plug_pub_range(const pmix_info_t *info, size_t n);
/* True when key directs the operation (range, persistence, timeout, wait,
 * access) instead of being published. */
int plug_pub_is_directive(const char *key);
/* True for the ranges seen by the publisher's namespace only. */
int plug_pub_ns_only(pmix_data_range_t r);

#endif
