/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_fence.c - fences over the whole job, over subsets, with and
 * without data, many in a row.
 *
 * Usage: pmix_fence N   (N >= 2)
 * Steps: 10 barriers (NULL procs); a wildcard fence with data; even and odd
 * ranks fence separately, each with the data of its half; a fence of one
 * proc (itself); a fence listing every rank explicitly; finalize.
 * Rank 0 prints "fence ok: size N".
 */
#include "pt.h"

static void put_step(const char *key, int step)
{
	pmix_value_t v;

	v.type = PMIX_INT;
	v.data.integer = step * 1000 + (int)pt_me.rank;
	PT_RC(PMIx_Put(PMIX_GLOBAL, key, &v));
	PT_RC(PMIx_Commit());
}

static void check_step(const char *key, int step, pmix_rank_t r)
{
	pmix_value_t *v = pt_get(pt_me.nspace, r, key, PMIX_INT, NULL, 0);

	if (v->data.integer != step * 1000 + (int)r)
		PT_FAIL("%s of rank %u is %d", key, r, v->data.integer);
	PMIX_VALUE_RELEASE(v);
}

static void half_fence(uint32_t n)
{
	pmix_proc_t *procs;
	size_t k = 0;

	PMIX_PROC_CREATE(procs, n);
	for (pmix_rank_t r = pt_me.rank % 2; r < n; r += 2, k++)
		PMIX_LOAD_PROCID(&procs[k], pt_me.nspace, r); /* a macro: no k++ inside */
	put_step("fence.half", 2);
	pt_fence(procs, k, 1);
	for (size_t i = 0; i < k; i++)
		check_step("fence.half", 2, procs[i].rank);
	PMIX_PROC_FREE(procs, n);
}

static void explicit_fence(uint32_t n)
{
	pmix_proc_t *procs;

	PMIX_PROC_CREATE(procs, n);
	for (pmix_rank_t r = 0; r < n; r++)
		PMIX_LOAD_PROCID(&procs[r], pt_me.nspace, r);
	pt_fence(procs, n, 0);
	PMIX_PROC_FREE(procs, n);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
	pmix_proc_t self, all;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	if (n < 2 || pt_get_u32(pt_me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) != n)
		PT_FAIL("job size is not %u (>= 2)", n);
	for (int i = 0; i < 10; i++)
		pt_fence(NULL, 0, 0);
	put_step("fence.all", 1);
	PMIX_LOAD_PROCID(&all, pt_me.nspace, PMIX_RANK_WILDCARD);
	pt_fence(&all, 1, 1);
	for (pmix_rank_t r = 0; r < n; r++)
		check_step("fence.all", 1, r);
	half_fence(n);
	PMIX_LOAD_PROCID(&self, pt_me.nspace, pt_me.rank);
	pt_fence(&self, 1, 0);
	explicit_fence(n);
	PT_RC(PMIx_Finalize(NULL, 0));
	if (pt_me.rank == 0)
		printf("fence ok: size %u\n", n);
	return 0;
}
