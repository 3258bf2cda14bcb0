/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_dir.h - the publish/lookup directory of slurmix-run (sxr_dir.c).
 *
 * An opaque directory of published keys and of lookups waiting for keys.
 * Every function here runs in the main thread, which owns the directory;
 * sxr_host.c posts the server's publish/lookup/unpublish requests there.
 * The cbfunc of a lookup is called from inside sxr_dir_lookup (when it can
 * complete at once), or later from sxr_dir_publish, sxr_dir_proc_gone,
 * sxr_dir_timers or sxr_dir_flush; it is called exactly once.
 */
#ifndef SXR_DIR_H
#define SXR_DIR_H

#include "sxr.h"

/* Returns an empty directory, or NULL (out of memory). */
struct sxr_dir *sxr_dir_create(void);
/* Fails the pending lookups (as sxr_dir_flush) and frees d; accepts NULL. */
void sxr_dir_destroy(struct sxr_dir *d);
/* Publishes the data entries of info (directives are read, not stored) as
 * who's; copies the values. Returns PMIX_SUCCESS, PMIX_ERR_DUPLICATE_KEY,
 * PMIX_ERR_BAD_PARAM (no data) or PMIX_ERR_NOMEM. */
pmix_status_t sxr_dir_publish(struct sxr_dir *d, const pmix_proc_t *who, const pmix_info_t *info,
			      size_t ninfo);
/* Looks keys up for who, now or (PMIX_WAIT) when they get published;
 * copies keys. Reports through cbfunc only. */
void sxr_dir_lookup(struct sxr_dir *d, const pmix_proc_t *who, char **keys, const pmix_info_t *info,
		    size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata);
/* Removes who's entries among keys (all of who's if keys is NULL or empty).
 * Returns PMIX_SUCCESS, or PMIX_ERR_NOT_FOUND if keys were named and none
 * was removed. */
pmix_status_t sxr_dir_unpublish(struct sxr_dir *d, const pmix_proc_t *who, char **keys,
				const pmix_info_t *info, size_t ninfo);
/* A proc or a whole namespace (rank WILDCARD) ended: drop its PROC/APP data. */
void sxr_dir_proc_gone(struct sxr_dir *d, const char *nspace, pmix_rank_t rank);
/* Fires expired waits; returns the next deadline (0 = none). */
double sxr_dir_timers(struct sxr_dir *d, double now);
/* Fails every pending lookup (shutdown); accepts NULL. */
void sxr_dir_flush(struct sxr_dir *d);

#endif
