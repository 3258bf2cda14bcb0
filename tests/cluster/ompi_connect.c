/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ompi_connect.c - MPI_Comm_accept/MPI_Comm_connect between two
 * independent sruns of one allocation (cluster tests).
 *   ompi_connect accept FILE|-   opens a port; writes it to FILE, or with
 *                                "-" publishes it as "slurmix-test"
 *                                (MPI_Publish_name); accepts
 *   ompi_connect connect FILE|-  reads the port from FILE (waits for it),
 *                                or MPI_Lookup_name; connects
 * Both sides then exchange their world sizes over the intercommunicator
 * (root to root, then broadcast), do an allreduce over the merged
 * communicator, and MPI_Comm_disconnect. Rank 0 prints
 * "<side> ok local=<n> remote=<m> sum=<s>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_port(const char *file, char *port)
{
	for (int i = 0; i < 600; i++) {
		FILE *f = fopen(file, "r");

		if (f && fgets(port, MPI_MAX_PORT_NAME, f) && strlen(port) > 1) {
			port[strcspn(port, "\n")] = '\0';
			fclose(f);
			return;
		}
		if (f)
			fclose(f);
		usleep(100000);
	}
	fprintf(stderr, "no port in %s\n", file);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

/* MPI_Lookup_name does not wait for the name to be published, and the
 * two sruns start in either order: retry for up to 60 s. */
static void lookup_port(char *port)
{
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (int i = 0; i < 600; i++) {
		if (MPI_Lookup_name("slurmix-test", MPI_INFO_NULL, port) == MPI_SUCCESS)
			break;
		usleep(100000);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	char port[MPI_MAX_PORT_NAME] = "";
	int rank, size, rsize = 0, accept, sum = 0, one = 1;
	MPI_Comm inter, merged;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	accept = !strcmp(argv[1], "accept");
	if (accept && rank == 0) {
		MPI_Open_port(MPI_INFO_NULL, port);
		if (!strcmp(argv[2], "-")) {
			MPI_Publish_name("slurmix-test", MPI_INFO_NULL, port);
		} else {
			char tmp[4096];
			FILE *f;

			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
			f = fopen(tmp, "w");
			fprintf(f, "%s\n", port);
			fclose(f);
			rename(tmp, argv[2]);
		}
	} else if (rank == 0) {
		if (!strcmp(argv[2], "-"))
			lookup_port(port);
		else
			read_port(argv[2], port);
	}
	if (accept)
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
	else
		MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
	MPI_Comm_remote_size(inter, &rsize);
	MPI_Intercomm_merge(inter, accept ? 0 : 1, &merged);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
	if (rank == 0)
		printf("%s ok local=%d remote=%d sum=%d\n", argv[1], size, rsize, sum);
	MPI_Comm_free(&merged);
	if (accept && rank == 0 && !strcmp(argv[2], "-"))
		MPI_Unpublish_name("slurmix-test", MPI_INFO_NULL, port);
	MPI_Comm_disconnect(&inter);
	MPI_Finalize();
	return 0;
}
