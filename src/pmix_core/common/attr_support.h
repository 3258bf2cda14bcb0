/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attr_support.h - which attributes each PMIx function really honours, per
 * level (client library, server library, tool library, host), and the
 * answer to PMIX_QUERY_ATTRIBUTE_SUPPORT built from it (docs/query.md,
 * "Attribute support").
 *
 * The library's own three levels are static tables in attr_support.c (the
 * one place they are kept; tests/unit/test_attr_support.c checks every
 * name against attr_table.h, every function against the exported API and
 * every attribute against the sources of its level). The host level is
 * what the host registered with PMIx_Register_attributes in this process.
 * Any thread; the host table is guarded by a lock.
 */
#ifndef PXC_ATTR_SUPPORT_H
#define PXC_ATTR_SUPPORT_H

#include <stdbool.h>
#include <pmix_common.h>
#include "info.h"

enum { PXC_LEVEL_CLIENT, PXC_LEVEL_SERVER, PXC_LEVEL_TOOL, PXC_LEVEL_HOST, PXC_LEVELS };

/* One function of a level: its user-facing name and the attributes it
 * honours (names as "PMIX_TIMEOUT", NULL-terminated; empty: none). */
typedef struct {
	const char *function;
	const char *const *attrs;
} pxc_attr_fn_t;

/* The static table of a library level (client, server, tool), ended by a
 * NULL function; NULL for the host level or a bad level. */
const pxc_attr_fn_t *pxc_attr_table(int level);

/* An attribute's string ("pmix.timeout") and type from attr_table.h;
 * false when name is no attribute of ours. Either output may be NULL. */
bool pxc_attr_lookup(const char *name, const char **string, pmix_data_type_t *type);

/* Whether the PMIX_QUERY_ATTRIBUTE_SUPPORT query q is well formed
 * (PMIX_SUCCESS) or has a level qualifier of the wrong type
 * (PMIX_ERR_BAD_PARAM); *host (may be NULL) tells whether it asks for
 * the host level, which only a server process can answer. */
pmix_status_t pxc_attr_query_check(const pmix_query_t *q, bool *host);

/* Appends the answer of q to r: one info per level asked (docs/query.md):
 * key PMIX_<L>_FUNCTIONS with the functions as a comma list, key
 * PMIX_<L>_ATTRIBUTES with a data array of infos, one per function asked
 * (key: the function) holding a data array of pmix_regattr_t. The host
 * level comes from this process's registrations. PMIX_ERR_BAD_PARAM as
 * pxc_attr_query_check, PMIX_ERR_NOMEM; r keeps what was appended. */
pmix_status_t pxc_attr_query_answer(const pmix_query_t *q, pxc_infolist_t *r);

/* Forgets the host's registrations (PMIx_server_finalize). */
void pxc_attr_host_clear(void);

#endif
