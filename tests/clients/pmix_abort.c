/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_abort.c - PMIx_Abort while the other ranks wait in a fence.
 *
 * Rank 1 (or 0 if alone) calls PMIx_Abort(5, "pmix_abort test", NULL, 0)
 * after a first fence; the others enter a second fence that can only end
 * by the launcher killing them. The launcher must print
 * "rank 1 of <nspace> called abort: pmix_abort test" and exit 5.
 */
#include "pt.h"

int main(void)
{
	uint32_t n;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	n = pt_get_u32(pt_me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == (n > 1 ? 1u : 0u)) {
		PMIx_Abort(5, "pmix_abort test", NULL, 0);
		sleep(30); /* the launcher kills us */
		return 2;
	}
	pt_fence(NULL, 0, 0);
	PMIx_Finalize(NULL, 0);
	return 3; /* not reached: the fence never completes */
}
