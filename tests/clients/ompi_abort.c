/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_abort.c - MPI_Abort under slurmix-run and srun --mpi=slurmix.
 *
 * After a barrier, rank ABORTER (default: the last one) calls
 * MPI_Abort(MPI_COMM_WORLD, 7) while the others wait in a receive that
 * never completes. The launcher (srun or slurmix-run) must print the
 * abort message, end every task and exit with status 7.
 * Usage: ompi_abort [ABORTER]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, x, who;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	who = argc > 1 ? atoi(argv[1]) : size - 1;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == who) {
		fprintf(stderr, "rank %d aborting with 7\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 7);
	}
	MPI_Recv(&x, 1, MPI_INT, who, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 3; /* not reached */
}
