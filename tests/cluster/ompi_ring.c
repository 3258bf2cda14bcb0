/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_ring.c - point-to-point traffic around all ranks: rank 0 sends a
 * counter to rank 1, every rank adds its rank and passes it on, and the
 * counter comes back to rank 0 after ROUNDS laps; rank 0 prints "OK" when
 * it holds ROUNDS * size * (size - 1) / 2, and the host names of its two
 * neighbours. Usage: ompi_ring [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 10;
	long v = 0, want;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int r = 0; r < rounds && size > 1; r++) {
		if (rank == 0) {
			MPI_Send(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&v, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			v += rank;
			MPI_Send(&v, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
		}
	}
	want = (long)rounds * size * (size - 1) / 2;
	if (rank == 0)
		printf(v == want || size == 1 ? "OK\n" : "FAIL ring %ld != %ld\n", v, want);
	MPI_Finalize();
	return rank == 0 && size > 1 && v != want;
}
