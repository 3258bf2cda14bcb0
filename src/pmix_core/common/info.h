/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * info.h - the core's look-ups in pmix_info_t arrays (info.c; the
 * PMIx_Info_* API of the same file is in the public headers). pxc.h includes it.
 * Pure functions: any thread, on arrays the caller owns.
 */
#ifndef PXC_COMMON_INFO_H
#define PXC_COMMON_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>

/* The first info of info[0..ninfo) whose key is key, or NULL (info may be
 * NULL). Borrowed pointer. Any thread. */
const pmix_info_t *pxc_info_find(const pmix_info_t *info, size_t ninfo, const char *key);
/* True when info holds key as a flag: a bare key (PMIX_UNDEF), a true
 * boolean, a non-zero PMIX_INT or a value PMIx_Value_true calls true.
 * Any thread. */
bool pxc_info_flag(const pmix_info_t *info, size_t ninfo, const char *key);
/* Takes the first info whose key is key out of info[0..*ninfo): the ones
 * after it move up, *ninfo drops by one, and *out (destructed by the
 * caller) gets it. False, and nothing changes, when there is none.
 * Any thread. */
bool pxc_info_take(pmix_info_t *info, size_t *ninfo, const char *key, pmix_info_t *out);
/* Deep copy of n infos into *out (NULL when n is 0); free with
 * pxc_array_free(..., PMIX_INFO). PMIX_SUCCESS or PMIX_ERR_NOMEM. Any
 * thread. */
pmix_status_t pxc_info_dup(const pmix_info_t *in, size_t n, pmix_info_t **out);

/* A growing array of infos (answers being gathered): add constructs the
 * next one with key (NULL: none yet) and returns it, NULL on ENOMEM; free
 * destructs them all and empties the list. The array suits the callers
 * that take pmix_info_t[] + count. */
typedef struct {
	pmix_info_t *info;
	size_t n, cap;
} pxc_infolist_t;

pmix_info_t *pxc_infolist_add(pxc_infolist_t *l, const char *key);
void pxc_infolist_free(pxc_infolist_t *l);

#endif
