/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * get.h - PMIx_Get inside a server process (get.c), which the client API
 * calls when the process is a server.
 */
#ifndef PXC_SERVER_GET_H
#define PXC_SERVER_GET_H

#include <stddef.h>
#include <pmix_common.h>

/* PMIx_Get inside a server process: looks key up in the server's store
 * (registered info with rank WILDCARD or the proc's rank, then data posted
 * by the proc), without waiting. key NULL is not supported here. On success
 * *val is a malloc'ed copy the caller frees with PMIX_VALUE_RELEASE.
 * PMIX_ERR_NOT_FOUND when absent, PMIX_ERR_INIT when no server is running.
 * Any thread but the progress thread (PMIX_ERR_WOULD_BLOCK there). */
pmix_status_t pxc_server_get_local(const pmix_proc_t *proc, const char *key,
				   const pmix_info_t *info, size_t ninfo, pmix_value_t **val);

#endif
