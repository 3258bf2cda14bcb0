/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_allreduce.c - Open MPI start-up and a collective under slurmix-run.
 *
 * Every rank contributes rank+1 to an MPI_Allreduce; each checks the sum
 * against size*(size+1)/2 and rank 0 prints "allreduce size=S sum=T".
 * Exits non-zero on a wrong sum (the launcher then fails the job).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size;
	long mine, sum = 0, want;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine = rank + 1;
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	want = (long)size * (size + 1) / 2;
	if (sum != want) {
		fprintf(stderr, "rank %d: sum %ld, expected %ld\n", rank, sum, want);
		MPI_Finalize();
		return 1;
	}
	if (rank == 0)
		printf("allreduce size=%d sum=%ld\n", size, sum);
	MPI_Finalize();
	return 0;
}
