/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_iof.c - IO forwarding under slurmix-run (docs/iof.md): rank 1
 * writes 200 numbered lines on stdout and a line on stderr, then all
 * fence; rank 0 pulls rank 1's stdout and stderr (what came before its
 * pull arrives as history), and after the fence waits until both streams
 * ended (PMIX_IOF_COMPLETE, once rank 1 exited): it must have every line,
 * in order, byte for byte, and prints "iof ok: N bytes". Every other rank
 * just fences. slurmix-run's own stdout still carries rank 1's lines.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pt.h"

#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char got[65536];
static size_t ngot;
static int ends, err_lines;

static void on_iof(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
		   pmix_info_t info[], size_t ninfo)
{
	(void)id;
	pthread_mutex_lock(&m);
	if (src->rank == 1 && ch == PMIX_FWD_STDOUT_CHANNEL && ngot + bo->size <= sizeof(got)) {
		memcpy(got + ngot, bo->bytes, bo->size);
		ngot += bo->size;
	}
	if (ch == PMIX_FWD_STDERR_CHANNEL && bo->size && memmem(bo->bytes, bo->size, "to err", 6))
		err_lines++;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE))
			ends++;
	pthread_mutex_unlock(&m);
}

int main(void)
{
	pmix_proc_t one, wild;
	char want[65536];
	size_t nwant = 0;
	int id, e = 0;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	PMIX_LOAD_PROCID(&one, pt_me.nspace, 1);
	PMIX_LOAD_PROCID(&wild, pt_me.nspace, PMIX_RANK_WILDCARD);
	for (int i = 0; i < 200; i++)
		nwant += (size_t)snprintf(want + nwant, sizeof(want) - nwant, "line %d of rank 1\n",
					  i);
	if (pt_me.rank == 1) {
		if (fwrite(want, 1, nwant, stdout) != nwant || fflush(stdout) != 0)
			PT_FAIL("write");
		fprintf(stderr, "rank 1 to err\n");
	}
	if (pt_me.rank == 0) {
		id = PMIx_IOF_pull(&one, 1, NULL, 0,
				   PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, on_iof, NULL,
				   NULL);
		if (id < 0)
			PT_FAIL("PMIx_IOF_pull: %s", PMIx_Error_string(id));
	}
	PT_RC(PMIx_Fence(&wild, 1, NULL, 0));
	if (pt_me.rank == 0) {
		for (int t = 0; t < 1000; t++) { /* rank 1 exits meanwhile */
			pthread_mutex_lock(&m);
			e = ends;
			pthread_mutex_unlock(&m);
			if (e >= 2)
				break;
			usleep(10000);
		}
		pthread_mutex_lock(&m);
		if (e < 2)
			PT_FAIL("%d of 2 ends of stream after 10 s (%zu bytes)", e, ngot);
		if (ngot != nwant || memcmp(got, want, nwant))
			PT_FAIL("got %zu bytes, not the %zu written", ngot, nwant);
		if (err_lines != 1)
			PT_FAIL("%d stderr lines", err_lines);
		pthread_mutex_unlock(&m);
		printf("iof ok: %zu bytes\n", ngot);
	}
	PT_RC(PMIx_Finalize(NULL, 0));
	return 0;
}
