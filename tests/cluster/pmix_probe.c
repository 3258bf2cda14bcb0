/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_probe.c - one PMIx_Init with whatever environment it is given:
 * prints "INIT_OK <nspace> <rank>" or "INIT_FAILED <status>" and exits
 * 0 either way (the caller decides which was expected). The cluster tests
 * run it as another user with a step's environment copied, to check that
 * the step's server refuses strangers.
 */
#include <pmix.h>
#include <stdio.h>

int main(void)
{
	pmix_proc_t me;
	pmix_status_t st = PMIx_Init(&me, NULL, 0);

	if (st != PMIX_SUCCESS) {
		printf("INIT_FAILED %s\n", PMIx_Error_string(st));
		return 0;
	}
	printf("INIT_OK %s %u\n", me.nspace, me.rank);
	PMIx_Finalize(NULL, 0);
	return 0;
}
