/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_spawn.c - MPI_Comm_spawn under slurmix-run.
 *
 * Parents (started by the launcher) spawn 2 copies of this program with
 * the argument "child". Over the intercommunicator parent rank 0 sends
 * 100+i to child i, which answers with the value plus 1000; the children
 * also check that they see 2 children and the parents' world size as the
 * remote size. Both sides disconnect. Parent rank 0 prints
 * "spawn ok: children=2 replies=1100,1101" on success; exit 1 on error.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NCHILD 2

static int child(void)
{
	MPI_Comm parent;
	int rank, size, rsize, v;

	MPI_Comm_get_parent(&parent);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_remote_size(parent, &rsize);
	MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
	v += 1000;
	MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
	printf("child %d of %d: parents=%d value=%d\n", rank, size, rsize, v);
	fflush(stdout);
	MPI_Comm_disconnect(&parent);
	return size == NCHILD && v == 1100 + rank ? 0 : 1;
}

static int parent(char *prog)
{
	char *args[] = { "child", NULL };
	int errs[NCHILD], rank, rsize, v[NCHILD], rc = 0;
	MPI_Comm inter;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_spawn(prog, args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
	MPI_Comm_remote_size(inter, &rsize);
	if (rank == 0) {
		for (int i = 0; i < NCHILD; i++) {
			v[i] = 100 + i;
			MPI_Send(&v[i], 1, MPI_INT, i, 1, inter);
		}
		for (int i = 0; i < NCHILD; i++)
			MPI_Recv(&v[i], 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
		rc = rsize != NCHILD || v[0] != 1100 || v[1] != 1101;
		printf("spawn %s: children=%d replies=%d,%d\n", rc ? "FAILED" : "ok", rsize, v[0],
		       v[1]);
		fflush(stdout);
	}
	MPI_Comm_disconnect(&inter);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	MPI_Init(&argc, &argv);
	rc = argc > 1 && !strcmp(argv[1], "child") ? child() : parent(argv[0]);
	MPI_Finalize();
	return rc;
}
