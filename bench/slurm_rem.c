/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurm_rem.c - what a rank does without PMIx_Query_info: asks slurmctld
 * itself for its job's remaining time, through libslurm's
 * slurm_get_rem_time (bench/query_bench.sh's "libslurm" side). Prints
 * "rank R query_us US left S" (R from SLURM_PROCID).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <slurm/slurm.h>

int main(void)
{
	const char *job = getenv("SLURM_JOB_ID"), *rank = getenv("SLURM_PROCID");
	struct timespec t0, t1;
	long left;

	if (!job)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	left = slurm_get_rem_time((uint32_t)strtoul(job, NULL, 10));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("rank %s query_us %ld left %ld\n", rank ? rank : "0",
	       (long)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000), left);
	return left < 0;
}
