/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_basic.c - the start-up path of a PMIx client: init, the job keys
 * Open MPI reads (with their exact types), put/commit/fence with data,
 * get of every peer's keys (GLOBAL and LOCAL scope: every proc is on this
 * node, so REMOTE-scope data would be invisible), finalize.
 *
 * Usage: pmix_basic N [nofinalize | appnum=K]   (N = expected job size,
 * K = expected PMIX_APPNUM, 0 by default)
 * Rank 0 prints "basic ok: size N" when every check passed. With
 * "nofinalize", rank 0 exits 0 without PMIx_Finalize instead, which the
 * launcher must report as a failure (exit 1).
 */
#include "pt.h"

static void check_job(uint32_t n)
{
	const char *ns = pt_me.nspace;
	pmix_rank_t w = PMIX_RANK_WILDCARD;
	char want[16], *peers;
	pmix_value_t *v;

	if (pt_get_u32(ns, w, PMIX_JOB_SIZE) != n)
		PT_FAIL("job size is not %u", n);
	if (pt_get_u32(ns, w, PMIX_LOCAL_SIZE) != n || pt_get_u32(ns, w, PMIX_MAX_PROCS) != n)
		PT_FAIL("local size or max procs is not %u", n);
	if (pt_get_u32(ns, w, PMIX_UNIV_SIZE) < n || pt_get_u32(ns, w, PMIX_NUM_NODES) != 1)
		PT_FAIL("bad universe size or node count");
	peers = pt_get_str(ns, w, PMIX_LOCAL_PEERS);
	snprintf(want, sizeof(want), "%u", n - 1);
	if (strncmp(peers, "0", 1) ||
	    strcmp(strrchr(peers, ',') ? strrchr(peers, ',') + 1 : peers, want))
		PT_FAIL("local peers \"%s\"", peers);
	free(peers);
	v = pt_get(ns, w, PMIX_TDIR_RMCLEAN, PMIX_BOOL, NULL, 0);
	PMIX_VALUE_RELEASE(v);
	free(pt_get_str(ns, w, PMIX_TMPDIR));
	free(pt_get_str(ns, w, PMIX_NSDIR));
}

static uint32_t want_appnum;

static void check_me(void)
{
	const char *ns = pt_me.nspace;
	pmix_value_t *v;

	if (pt_get_u16(ns, pt_me.rank, PMIX_LOCAL_RANK) != pt_me.rank)
		PT_FAIL("local rank");
	if (pt_get_u16(ns, pt_me.rank, PMIX_NODE_RANK) != pt_me.rank)
		PT_FAIL("node rank");
	if (pt_get_u32(ns, pt_me.rank, PMIX_APPNUM) != want_appnum)
		PT_FAIL("appnum is not %u", want_appnum);
	v = pt_get(ns, pt_me.rank, PMIX_GLOBAL_RANK, PMIX_PROC_RANK, NULL, 0);
	if (v->data.rank != pt_me.rank)
		PT_FAIL("global rank %u", v->data.rank);
	PMIX_VALUE_RELEASE(v);
	v = pt_get(ns, pt_me.rank, PMIX_SPAWNED, PMIX_BOOL, NULL, 0);
	if (v->data.flag)
		PT_FAIL("PMIX_SPAWNED is true");
	PMIX_VALUE_RELEASE(v);
	free(pt_get_str(ns, pt_me.rank, PMIX_HOSTNAME));
	free(pt_get_str(ns, pt_me.rank, PMIX_LOCALITY_STRING));
}

static void put_mine(void)
{
	char str[64];
	pmix_value_t v;

	snprintf(str, sizeof(str), "rank-%u", pt_me.rank);
	PMIX_VALUE_LOAD(&v, str, PMIX_STRING);
	PT_RC(PMIx_Put(PMIX_GLOBAL, "basic.str", &v));
	PMIX_VALUE_DESTRUCT(&v);
	v.type = PMIX_UINT64;
	v.data.uint64 = 1000000007ULL * (pt_me.rank + 1);
	PT_RC(PMIx_Put(PMIX_GLOBAL, "basic.u64", &v));
	v.type = PMIX_INT;
	v.data.integer = -(int)pt_me.rank;
	PT_RC(PMIx_Put(PMIX_LOCAL, "basic.int", &v));
	PT_RC(PMIx_Commit());
}

static void check_peer(pmix_rank_t r)
{
	const char *ns = pt_me.nspace;
	pmix_value_t *v;
	char want[64];

	snprintf(want, sizeof(want), "rank-%u", r);
	v = pt_get(ns, r, "basic.str", PMIX_STRING, NULL, 0);
	if (strcmp(v->data.string, want))
		PT_FAIL("basic.str of %u is \"%s\"", r, v->data.string);
	PMIX_VALUE_RELEASE(v);
	v = pt_get(ns, r, "basic.u64", PMIX_UINT64, NULL, 0);
	if (v->data.uint64 != 1000000007ULL * (r + 1))
		PT_FAIL("basic.u64 of %u", r);
	PMIX_VALUE_RELEASE(v);
	v = pt_get(ns, r, "basic.int", PMIX_INT, NULL, 0);
	if (v->data.integer != -(int)r)
		PT_FAIL("basic.int of %u", r);
	PMIX_VALUE_RELEASE(v);
	if (pt_get_u16(ns, r, PMIX_LOCAL_RANK) != r)
		PT_FAIL("local rank of peer %u", r);
	free(pt_get_str(ns, r, PMIX_HOSTNAME));
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;

	if (argc > 2 && !strncmp(argv[2], "appnum=", 7))
		want_appnum = (uint32_t)atoi(argv[2] + 7);
	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	if (!PMIx_Initialized())
		PT_FAIL("not initialized after PMIx_Init");
	check_job(n);
	check_me();
	put_mine();
	pt_fence(NULL, 0, 1);
	for (pmix_rank_t r = 0; r < n; r++)
		check_peer(r);
	pt_fence(NULL, 0, 0);
	if (argc > 2 && !strcmp(argv[2], "nofinalize") && pt_me.rank == 0)
		return 0; /* the launcher must report this */
	PT_RC(PMIx_Finalize(NULL, 0));
	if (pt_me.rank == 0)
		printf("basic ok: size %u\n", n);
	return 0;
}
