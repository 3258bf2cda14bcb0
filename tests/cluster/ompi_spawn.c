/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_spawn.c - MPI_Comm_spawn(_multiple) under srun --mpi=slurmix.
 *
 *   ompi_spawn single N     the parents spawn N children
 *   ompi_spawn multiple N   MPI_Comm_spawn_multiple: N-1 of this program
 *                           and 1 more with another argument
 *   ompi_spawn nested N     N children; child 0 spawns one grandchild,
 *                           with which it exchanges a message
 * Over the intercommunicator parent rank 0 sends 100+i to child i, which
 * answers with the value plus 1000; the children check they see the
 * parents' world size as the remote size and allreduce among themselves;
 * both sides disconnect. Parent rank 0 prints "spawn ok: children=N
 * hosts=..." on success; exit 1 on error.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *self;

static int grandchild(void)
{
	MPI_Comm parent;
	int v;

	MPI_Comm_get_parent(&parent);
	MPI_Recv(&v, 1, MPI_INT, 0, 3, parent, MPI_STATUS_IGNORE);
	v++;
	MPI_Send(&v, 1, MPI_INT, 0, 4, parent);
	MPI_Comm_disconnect(&parent);
	return 0;
}

/* Child 0 of a nested run: one grandchild, one round trip. */
static int spawn_grandchild(void)
{
	char *args[] = { "grandchild", NULL };
	MPI_Comm inter;
	int err, v = 41;

	MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, &err);
	MPI_Send(&v, 1, MPI_INT, 0, 3, inter);
	MPI_Recv(&v, 1, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE);
	MPI_Comm_disconnect(&inter);
	printf("grandchild answered %d\n", v);
	return v == 42 ? 0 : 1;
}

static int child(const char *kind)
{
	MPI_Comm parent;
	int rank, size, rsize, v, sum = 0, one = 1, rc = 0;
	char host[MPI_MAX_PROCESSOR_NAME];
	int len;

	MPI_Comm_get_parent(&parent);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_remote_size(parent, &rsize);
	MPI_Get_processor_name(host, &len);
	MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
	v += 1000;
	MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
	MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 5, parent);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!strcmp(kind, "nestchild") && rank == 0)
		rc = spawn_grandchild();
	MPI_Comm_disconnect(&parent);
	return rc || sum != size || v != 1100 + rank;
}

static int spawn(const char *mode, int n, MPI_Comm *inter)
{
	int *errs = calloc((size_t)n, sizeof(int));

	if (!strcmp(mode, "multiple")) {
		char *cmds[2] = { self, self };
		char *a0[] = { "child", NULL }, *a1[] = { "child2", NULL };
		char **argvs[2] = { a0, a1 };
		int np[2] = { n - 1, 1 };
		MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };

		MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, inter, errs);
	} else {
		char *args[] = { !strcmp(mode, "nested") ? "nestchild" : "child", NULL };

		MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs);
	}
	free(errs);
	return 0;
}

static int parent(const char *mode, int n)
{
	int rank, rsize, rc = 0, v;
	MPI_Comm inter;
	char host[MPI_MAX_PROCESSOR_NAME], hosts[4096] = "";
	double t0 = MPI_Wtime(), t;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	spawn(mode, n, &inter);
	t = MPI_Wtime() - t0;
	MPI_Comm_remote_size(inter, &rsize);
	if (rank == 0) {
		for (int i = 0; i < rsize; i++) {
			v = 100 + i;
			MPI_Send(&v, 1, MPI_INT, i, 1, inter);
		}
		for (int i = 0; i < rsize; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
			MPI_Recv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, i, 5, inter,
				 MPI_STATUS_IGNORE);
			rc |= v != 1100 + i;
			snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s",
				 i ? "," : "", host);
		}
		rc |= rsize != n;
		printf("spawn %s: children=%d hosts=%s spawn_time=%.3f\n", rc ? "FAILED" : "ok",
		       rsize, hosts, t);
		fflush(stdout);
	}
	MPI_Comm_disconnect(&inter);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	self = argv[0];
	MPI_Init(&argc, &argv);
	if (argc > 1 && !strcmp(argv[1], "grandchild"))
		rc = grandchild();
	else if (argc > 1 && (!strcmp(argv[1], "child") || !strcmp(argv[1], "child2") ||
			      !strcmp(argv[1], "nestchild")))
		rc = child(argv[1]);
	else
		rc = parent(argc > 1 ? argv[1] : "single", argc > 2 ? atoi(argv[2]) : 4);
	MPI_Finalize();
	return rc;
}
