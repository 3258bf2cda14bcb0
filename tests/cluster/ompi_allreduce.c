/*
 * ompi_allreduce.c - collective traffic check for the virtual cluster.
 *
 * Every rank runs ITER rounds of MPI_Allreduce (sum of ranks) and
 * MPI_Barrier; rank 0 prints "OK" when every round gave size*(size-1)/2.
 * Usage: ompi_allreduce [ITER]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, iter = argc > 1 ? atoi(argv[1]) : 20, bad = 0;
	long sum, want;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	want = (long)size * (size - 1) / 2;
	for (int i = 0; i < iter; i++) {
		long mine = rank;

		MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		if (sum != want)
			bad++;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf(bad ? "FAIL %d bad sums\n" : "OK\n", bad);
	MPI_Finalize();
	return bad ? 1 : 0;
}
