/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_modex.c - PMIx fences and direct modex across the virtual nodes,
 * without MPI. Each rank:
 *   1. puts "sx.a" = "a<rank>", commits, fences over everyone WITHOUT
 *      collecting data, then gets every rank's "sx.a": the remote ones
 *      come through the host's direct modex;
 *   2. puts "sx.b", fences with PMIX_COLLECT_DATA, gets every "sx.b"
 *      (already local after the fence's fan-out);
 *   3. ranks 0 and size-1 fence ROUNDS times between themselves only (a
 *      proc set of two nodes) while the others fence ROUNDS times among
 *      themselves;
 *   4. a last wildcard fence; rank 0 prints "OK".
 * Any failure prints "FAIL <what> <status>" and exits 1.
 * Usage: pmix_modex [ROUNDS]
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;
static uint32_t size;

static void die(const char *what, pmix_status_t st)
{
	printf("FAIL rank %u: %s: %s\n", me.rank, what, PMIx_Error_string(st));
	fflush(stdout);
	exit(1);
}

static void put(const char *key, char tag)
{
	char val[32];
	pmix_value_t v;
	pmix_status_t st;

	snprintf(val, sizeof(val), "%c%u", tag, me.rank);
	v.type = PMIX_STRING;
	v.data.string = val;
	if ((st = PMIx_Put(PMIX_GLOBAL, key, &v)) != PMIX_SUCCESS)
		die("put", st);
	if ((st = PMIx_Commit()) != PMIX_SUCCESS)
		die("commit", st);
}

static void check_all(const char *key, char tag)
{
	for (uint32_t r = 0; r < size; r++) {
		pmix_proc_t p;
		pmix_value_t *v = NULL;
		char want[32];
		pmix_status_t st;

		PMIx_Load_procid(&p, me.nspace, r);
		snprintf(want, sizeof(want), "%c%u", tag, r);
		if ((st = PMIx_Get(&p, key, NULL, 0, &v)) != PMIX_SUCCESS)
			die(key, st);
		if (v->type != PMIX_STRING || strcmp(v->data.string, want))
			die("wrong value", PMIX_ERROR);
		PMIx_Value_free(v, 1);
	}
}

static void fence(const pmix_proc_t *procs, size_t n, int collect)
{
	pmix_info_t info;
	bool yes = true;
	pmix_status_t st;

	PMIx_Info_load(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	st = PMIx_Fence(procs, n, collect ? &info : NULL, collect ? 1 : 0);
	PMIx_Info_destruct(&info);
	if (st != PMIX_SUCCESS)
		die("fence", st);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	pmix_proc_t wild, *sub;
	pmix_value_t *v;
	pmix_status_t st;
	size_t nsub = 0;

	if ((st = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
		die("init", st);
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if ((st = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) != PMIX_SUCCESS)
		die("job size", st);
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	put("sx.a", 'a');
	fence(&wild, 1, 0);
	check_all("sx.a", 'a');
	put("sx.b", 'b');
	fence(&wild, 1, 1);
	check_all("sx.b", 'b');
	sub = calloc(size, sizeof(*sub));
	for (uint32_t r = 0; r < size; r++) {
		int edge = r == 0 || r == size - 1;
		int mine = me.rank == 0 || me.rank == size - 1;

		if (edge == mine)
			PMIx_Load_procid(&sub[nsub++], me.nspace, r);
	}
	for (int i = 0; i < rounds; i++)
		fence(sub, nsub, i & 1);
	fence(&wild, 1, 0);
	if (me.rank == 0)
		printf("OK\n");
	free(sub);
	PMIx_Finalize(NULL, 0);
	return 0;
}
