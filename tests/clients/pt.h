/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pt.h - helpers shared by the PMIx test clients in tests/clients.
 *
 * The clients are compiled twice (against our headers and against
 * OpenPMIx's) and run under slurmix-run against our library. They check
 * values and types, print one line on success from rank 0, and exit 1
 * with a message naming the failing step otherwise. Only the standard
 * client API and header macros are used.
 */
#ifndef PT_H
#define PT_H

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t pt_me;

#define PT_FAIL(...)                                                       \
	do {                                                               \
		fprintf(stderr, "%s rank %u: ", pt_me.nspace, pt_me.rank); \
		fprintf(stderr, __VA_ARGS__);                              \
		fprintf(stderr, "\n");                                     \
		exit(1);                                                   \
	} while (0)

#define PT_RC(call)                                                                              \
	do {                                                                                     \
		pmix_status_t pt_rc_ = (call);                                                   \
		if (pt_rc_ != PMIX_SUCCESS)                                                      \
			PT_FAIL("%s failed: %s (%d)", #call, PMIx_Error_string(pt_rc_), pt_rc_); \
	} while (0)

/* Gets key of (nspace, rank) and checks its type; returns the value. */
static inline pmix_value_t *pt_get(const char *nspace, pmix_rank_t rank, const char *key,
				   pmix_data_type_t type, const pmix_info_t *info, size_t ninfo)
{
	pmix_proc_t p;
	pmix_value_t *v = NULL;
	pmix_status_t rc;

	PMIX_LOAD_PROCID(&p, nspace, rank);
	rc = PMIx_Get(&p, key, info, ninfo, &v);
	if (rc != PMIX_SUCCESS || !v)
		PT_FAIL("get %s of %s.%u: %s", key, nspace, rank, PMIx_Error_string(rc));
	if (v->type != type)
		PT_FAIL("get %s of %s.%u: type %s, expected %s", key, nspace, rank,
			PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
	return v;
}

static inline uint32_t pt_get_u32(const char *ns, pmix_rank_t r, const char *key)
{
	pmix_value_t *v = pt_get(ns, r, key, PMIX_UINT32, NULL, 0);
	uint32_t x = v->data.uint32;

	PMIX_VALUE_RELEASE(v);
	return x;
}

static inline uint16_t pt_get_u16(const char *ns, pmix_rank_t r, const char *key)
{
	pmix_value_t *v = pt_get(ns, r, key, PMIX_UINT16, NULL, 0);
	uint16_t x = v->data.uint16;

	PMIX_VALUE_RELEASE(v);
	return x;
}

/* Returns a malloc'd copy of a string value. */
static inline char *pt_get_str(const char *ns, pmix_rank_t r, const char *key)
{
	pmix_value_t *v = pt_get(ns, r, key, PMIX_STRING, NULL, 0);
	char *s = strdup(v->data.string ? v->data.string : "");

	PMIX_VALUE_RELEASE(v);
	return s;
}

static inline void pt_fence(const pmix_proc_t *procs, size_t n, int collect)
{
	pmix_info_t info;
	bool yes = true;

	PMIX_INFO_CONSTRUCT(&info);
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	PT_RC(PMIx_Fence(procs, n, collect ? &info : NULL, collect ? 1 : 0));
	PMIX_INFO_DESTRUCT(&info);
}

#endif
