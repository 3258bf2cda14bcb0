/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_push.c - PMIx_IOF_push under slurmix-run (docs/iof.md, "Pushing
 * stdin"). Run with SLURMIX_STDIN=push: rank 0 pushes N = 3 MiB + 7 of a
 * pattern into the stdin of ranks 1 and 2 (64 KiB at a time, blocking,
 * the last piece non-blocking), then PMIX_IOF_COMPLETE; ranks 1 and 2
 * read their stdin to its end and print "push ok rank R bytes N" when it
 * is exactly the pattern; a push to rank 1 after that end is
 * PMIX_ERR_IOF_COMPLETE. Without SLURMIX_STDIN=push (argument
 * "refused"): rank 0's push to rank 1 must be PMIX_ERR_NOT_SUPPORTED, and
 * it prints "push refused ok".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pt.h"

#define N ((3 << 20) + 7)

static volatile int nb_done;
static volatile pmix_status_t nb_st = PMIX_ERROR;

static char pat(size_t i)
{
	return (char)(i * 31 % 253);
}

static void pushed(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	nb_st = st;
	nb_done = 1;
}

static void pusher(bool refused)
{
	static char buf[65536];
	pmix_proc_t t[2];
	pmix_byte_object_t bo = { .bytes = buf };
	pmix_info_t end;
	bool yes = true;

	PMIX_LOAD_PROCID(&t[0], pt_me.nspace, 1);
	PMIX_LOAD_PROCID(&t[1], pt_me.nspace, 2);
	if (refused) {
		bo.size = 1;
		if (PMIx_IOF_push(t, 1, &bo, NULL, 0, NULL, NULL) != PMIX_ERR_NOT_SUPPORTED)
			PT_FAIL("a push into /dev/null was not refused");
		printf("push refused ok\n");
		return;
	}
	for (size_t off = 0; off < N; off += bo.size) {
		bo.size = N - off < sizeof(buf) ? N - off : sizeof(buf);
		for (size_t i = 0; i < bo.size; i++)
			buf[i] = pat(off + i);
		if (off + bo.size < N) {
			PT_RC(PMIx_IOF_push(t, 2, &bo, NULL, 0, NULL, NULL));
			continue;
		}
		PT_RC(PMIx_IOF_push(t, 2, &bo, NULL, 0, pushed, NULL));
		for (int k = 0; k < 1000 && !nb_done; k++)
			usleep(10000);
		if (!nb_done || nb_st != PMIX_SUCCESS)
			PT_FAIL("the last push: %s",
				nb_done ? PMIx_Error_string(nb_st) : "no answer");
	}
	PMIX_INFO_LOAD(&end, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	PT_RC(PMIx_IOF_push(t, 2, NULL, &end, 1, NULL, NULL));
	PMIX_INFO_DESTRUCT(&end);
	bo.size = 1; /* after the end: that stdin is over */
	if (PMIx_IOF_push(t, 1, &bo, NULL, 0, NULL, NULL) != PMIX_ERR_IOF_COMPLETE)
		PT_FAIL("a push after the end was not PMIX_ERR_IOF_COMPLETE");
}

static void reader(void)
{
	static char buf[65536];
	size_t got = 0;
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0)
			PT_FAIL("read stdin");
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pat(got + (size_t)i))
				PT_FAIL("byte %zu differs", got + (size_t)i);
		got += (size_t)n;
	}
	if (got != N)
		PT_FAIL("%zu bytes, not %d", got, N);
	printf("push ok rank %u bytes %zu\n", pt_me.rank, got);
}

int main(int argc, char **argv)
{
	bool refused = argc > 1 && !strcmp(argv[1], "refused");
	pmix_proc_t wild;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	PMIX_LOAD_PROCID(&wild, pt_me.nspace, PMIX_RANK_WILDCARD);
	if (pt_me.rank == 0)
		pusher(refused);
	else if (!refused)
		reader();
	fflush(stdout);
	PT_RC(PMIx_Fence(&wild, 1, NULL, 0));
	PT_RC(PMIx_Finalize(NULL, 0));
	return 0;
}
