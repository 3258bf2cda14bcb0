/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * get_bench.c - times PMIx_Get of a job-level key (PMIX_JOB_SIZE, rank
 * WILDCARD), the call MPI start-up and many programs make most often.
 *
 * A plain PMIx client: built against standard PMIx headers it runs under
 * any PMIx server (our slurmix-run or srun --mpi=slurmix, or OpenPMIx
 * under srun --mpi=pmix) and, without a server, as a singleton. It times
 * batches of calls and prints the median per-call time over the batches,
 * so a stray scheduling hiccup does not move the figure.
 *
 * Usage: get_bench [ncalls (default 1000000)] [batch (default 1000)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pmix.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int run_batch(const pmix_proc_t *wild, long batch, double *per_call)
{
	pmix_value_t *val;
	double t0 = now_ns();

	for (long i = 0; i < batch; i++) {
		if (PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val) != PMIX_SUCCESS)
			return -1;
		PMIX_VALUE_RELEASE(val);
	}
	*per_call = (now_ns() - t0) / (double)batch;
	return 0;
}

int main(int argc, char **argv)
{
	long ncalls = argc > 1 ? atol(argv[1]) : 1000000;
	long batch = argc > 2 ? atol(argv[2]) : 1000;
	long nb = ncalls / (batch > 0 ? batch : 1);
	pmix_proc_t me, wild;
	double *t;
	int rc = 0;

	if (batch <= 0 || nb <= 0 || !(t = malloc(nb * sizeof(*t))))
		return 2;
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
		fprintf(stderr, "get_bench: PMIx_Init failed\n");
		return 1;
	}
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	for (long b = 0; b < nb && rc == 0; b++)
		rc = run_batch(&wild, batch, &t[b]);
	if (rc == 0) {
		qsort(t, nb, sizeof(*t), cmp_double);
		printf("get_bench: %s rank %u: %ld x PMIx_Get(PMIX_JOB_SIZE, wildcard): "
		       "median %.1f ns/call (min %.1f, max %.1f) [%s]\n",
		       me.nspace, me.rank, nb * batch, t[nb / 2], t[0], t[nb - 1],
		       PMIx_Get_version());
	} else {
		fprintf(stderr, "get_bench: PMIx_Get failed\n");
	}
	free(t);
	PMIx_Finalize(NULL, 0);
	return rc == 0 ? 0 : 1;
}
