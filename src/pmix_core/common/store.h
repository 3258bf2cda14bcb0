/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * store.h - the key-value store shared by the server and the client.
 *
 * A record is (nspace, level, id, key) -> value, plus the record's kind:
 *   level PXC_LVL_JOB:  job-level info of a namespace, id 0 (Get with rank
 *                        PMIX_RANK_WILDCARD);
 *   level PXC_LVL_PROC: one process, id = its rank (registered proc data and
 *                        the process's own posted data);
 *   level PXC_LVL_APP:  one application, id = appnum;
 *   level PXC_LVL_NODE: one node, id = node id (its hostname is the record
 *                        PMIX_HOSTNAME of that node);
 *   level PXC_LVL_SESSION: session info, id = session id.
 * kind says where a record came from: PMIX_SCOPE_UNDEF for information the
 * host registered, PMIX_LOCAL / PMIX_REMOTE / PMIX_GLOBAL for data a process
 * posted with PMIx_Put, PMIX_INTERNAL for PMIx_Store_internal.
 *
 * Lookups are hash-table lookups (the client serves PMIx_Get of job-level
 * keys from its own store, so this is the hot path). Values are deep copies
 * owned by the store.
 *
 * Blobs: pxc_store_pack() writes the selected records as a sequence of
 * (STRING nspace, UINT8 level, UINT32 id, UINT8 kind, INFO key+value) items
 * and pxc_store_unpack() merges such a sequence into a store, replacing
 * records with the same (nspace, level, id, key). Blobs carry job data from
 * server to client, posted data through fences and direct modex, and another
 * namespace's data after a connect. Unpack validates everything and merges
 * nothing on a malformed blob.
 *
 * Thread safety: none inside; the owner serialises access (the server's
 * store belongs to its progress thread; the client guards its store with a
 * rwlock so that PMIx_Get's fast path runs in the caller's thread).
 */
#ifndef PXC_STORE_H
#define PXC_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

typedef enum {
	PXC_LVL_JOB = 0,
	PXC_LVL_PROC = 1,
	PXC_LVL_APP = 2,
	PXC_LVL_NODE = 3,
	PXC_LVL_SESSION = 4,
} pxc_level_t;

/* Masks of kinds for pxc_store_pack (bit = 1 << kind). */
#define PXC_KIND_BIT(k) (1u << (k))
#define PXC_KINDS_INFO PXC_KIND_BIT(PMIX_SCOPE_UNDEF)
#define PXC_KINDS_POSTED \
	(PXC_KIND_BIT(PMIX_LOCAL) | PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL))
#define PXC_KINDS_ALL 0xffu
/* Kind of the records a group construct keeps per member under a key
 * qualified by the group's context id (server/group.c, pxc_store_group_key). */
#define PXC_KIND_GROUP 6
#define PXC_KINDS_GROUP PXC_KIND_BIT(PXC_KIND_GROUP)

/* id value meaning "every id of the level" in pack/remove selections. */
#define PXC_ID_ANY UINT32_MAX

typedef struct pxc_store pxc_store_t;

/* Creates an empty store. NULL/ENOMEM on failure. */
pxc_store_t *pxc_store_create(void);
/* Frees the store and every record. NULL-tolerant. */
void pxc_store_destroy(pxc_store_t *st);

/* Stores a deep copy of val, replacing any record with the same address.
 * Returns 0, or -1 with errno (EINVAL for a NULL/empty/over-long key or
 * nspace, ENOMEM). */
int pxc_store_put(pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		  const char *key, const pmix_value_t *val, uint8_t kind);
/* Borrowed pointer to the value, valid until the record is replaced or
 * removed; NULL with errno ENOENT when absent. *kind (if non-NULL) receives
 * the record's kind. */
const pmix_value_t *pxc_store_get(const pxc_store_t *st, const char *nspace, pxc_level_t level,
				  uint32_t id, const char *key, uint8_t *kind);

typedef int (*pxc_store_visit_f)(const char *nspace, pxc_level_t level, uint32_t id,
				 const char *key, const pmix_value_t *val, uint8_t kind, void *arg);
/* Calls fn for every record of (nspace, level, id) (id PXC_ID_ANY = all ids;
 * nspace NULL = all namespaces) whose kind is in kinds. Stops early and
 * returns fn's value when fn returns non-zero; else 0. fn must not modify
 * the store. */
int pxc_store_foreach(const pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		      unsigned kinds, pxc_store_visit_f fn, void *arg);

/* True if at least one record of this namespace (any level) exists. */
bool pxc_store_has_nspace(const pxc_store_t *st, const char *nspace);
/* Number of records of (nspace, level, id) with a kind in kinds. */
size_t pxc_store_count(const pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		       unsigned kinds);

/* Removes the records of (nspace, level, id) with a kind in kinds
 * (id PXC_ID_ANY = all ids; level -1 = all levels). */
void pxc_store_remove(pxc_store_t *st, const char *nspace, int level, uint32_t id, unsigned kinds);

/* Appends to out the records of (nspace, level, id) with a kind in kinds
 * (level -1 = every level, id PXC_ID_ANY = every id). Returns 0 or -1/ENOMEM. */
int pxc_store_pack(const pxc_store_t *st, const char *nspace, int level, uint32_t id,
		   unsigned kinds, pmix_data_buffer_t *out);
/* Merges every record of the blob in (read to its end). Returns a PMIx
 * status: PMIX_SUCCESS, or an unpack error with nothing merged. */
pmix_status_t pxc_store_unpack(pxc_store_t *st, pmix_data_buffer_t *in);

/* The store key of key qualified by a group's context id (PMIx_Get with
 * PMIX_GROUP_CONTEXT_ID as a qualifier) into out[PMIX_MAX_KEYLEN + 1]; false
 * when it does not fit. */
bool pxc_store_group_key(char *out, const char *key, uint64_t cid);

/* Approximate bytes held by the store (for the memory benchmark). */
size_t pxc_store_bytes(const pxc_store_t *st);

#endif
