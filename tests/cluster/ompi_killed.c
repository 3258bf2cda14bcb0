/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_killed.c - an Open MPI rank killed by a signal: after MPI_Init and
 * a barrier, rank VICTIM (default 3) sends itself SIGKILL while the others
 * enter another barrier and then MPI_Finalize. Nobody may hang: the
 * others must learn of the loss (PMIx event or failed collective) and the
 * step must end. Usage: ompi_killed [VICTIM]
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, victim = argc > 1 ? atoi(argv[1]) : 3;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == victim) {
		usleep(200000);
		raise(SIGKILL);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d passed the barrier\n", rank);
	MPI_Finalize();
	return 0;
}
