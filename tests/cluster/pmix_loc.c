/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_loc.c - what the step's server says about where each task runs.
 * Each rank prints
 *     LOC <rank> <own PMIX_CPUSET> <own PMIX_LOCALITY_STRING>
 *     PEER <rank> <peer> <the peer's PMIX_LOCALITY_STRING>
 * for every local peer (PMIX_LOCAL_PEERS), so the caller can compare a
 * rank's own string with what its peers see. Any failure prints
 * "FAIL <what> <status>" and exits 1.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;

static char *get_str(const pmix_proc_t *p, const char *key)
{
	pmix_value_t *v = NULL;
	pmix_status_t st = PMIx_Get(p, key, NULL, 0, &v);
	char *s;

	if (st != PMIX_SUCCESS || v->type != PMIX_STRING) {
		printf("FAIL rank %u: %s of %u: %s\n", me.rank, key, p->rank,
		       PMIx_Error_string(st));
		exit(1);
	}
	s = strdup(v->data.string);
	PMIx_Value_free(v, 1);
	return s;
}

int main(void)
{
	pmix_proc_t wild, peer;
	pmix_status_t st;
	char *cs, *loc, *peers, *tok, *save = NULL;

	if ((st = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf("FAIL init: %s\n", PMIx_Error_string(st));
		return 1;
	}
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	cs = get_str(&me, PMIX_CPUSET);
	loc = get_str(&me, PMIX_LOCALITY_STRING);
	peers = get_str(&wild, PMIX_LOCAL_PEERS);
	printf("LOC %u %s %s\n", me.rank, cs, loc);
	for (tok = strtok_r(peers, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *p;

		PMIx_Load_procid(&peer, me.nspace, (pmix_rank_t)strtoul(tok, NULL, 10));
		p = get_str(&peer, PMIX_LOCALITY_STRING);
		printf("PEER %u %u %s\n", me.rank, peer.rank, p);
		free(p);
	}
	fflush(stdout);
	free(cs);
	free(loc);
	free(peers);
	PMIx_Fence(NULL, 0, NULL, 0);
	PMIx_Finalize(NULL, 0);
	return 0;
}
