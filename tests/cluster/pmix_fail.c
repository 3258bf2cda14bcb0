/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_fail.c - a fence that can never complete must fail, not hang: the
 * last rank leaves without fencing (PMIx_Finalize, then exit); every
 * other rank's PMIx_Fence must return an error within the host's timeout
 * (run it with SLURMIX_TIMEOUT set low). Ranks print
 * "FENCE_ERROR <status>" (or "FENCE_OK", which is wrong) and exit 0.
 */
#include <pmix.h>
#include <stdio.h>

int main(void)
{
	pmix_proc_t me, wild;
	pmix_value_t *v;
	pmix_status_t st;
	uint32_t size;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
		return 1;
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	if (me.rank != size - 1) {
		st = PMIx_Fence(&wild, 1, NULL, 0);
		printf(st == PMIX_SUCCESS ? "FENCE_OK\n" : "FENCE_ERROR %s\n",
		       PMIx_Error_string(st));
		fflush(stdout);
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
