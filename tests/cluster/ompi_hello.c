/*
 * ompi_hello.c - MPI start-up check for the virtual cluster.
 *
 * Every rank prints "rank R of S on HOST".  Rank 0 then gathers all host
 * names and prints how many distinct ones it saw, which also exercises
 * point-to-point traffic between the virtual nodes.
 *
 * Usage: ompi_hello [EXPECTED_SIZE [EXPECTED_HOSTS]]
 * Exits non-zero (from rank 0) if the world size or the number of distinct
 * hosts differs from what was expected.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN 256

static int by_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int main(int argc, char **argv)
{
	int rank, size, len, i, distinct, rc = 0;
	char name[NAME_LEN];
	char *all = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	memset(name, 0, sizeof(name));
	MPI_Get_processor_name(name, &len);
	printf("rank %d of %d on %s\n", rank, size, name);
	fflush(stdout);

	if (rank == 0) {
		all = calloc((size_t)size, NAME_LEN);
		if (all == NULL)
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Gather(name, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);

	if (rank == 0) {
		qsort(all, (size_t)size, NAME_LEN, by_name);
		distinct = size > 0 ? 1 : 0;
		for (i = 1; i < size; i++)
			if (strcmp(all + (size_t)i * NAME_LEN, all + (size_t)(i - 1) * NAME_LEN) !=
			    0)
				distinct++;
		printf("size %d, distinct hosts %d\n", size, distinct);
		if (argc > 1 && atoi(argv[1]) != size) {
			fprintf(stderr, "FAIL: expected size %s, got %d\n", argv[1], size);
			rc = 1;
		}
		if (argc > 2 && atoi(argv[2]) != distinct) {
			fprintf(stderr, "FAIL: expected %s distinct hosts, got %d\n", argv[2],
				distinct);
			rc = 1;
		}
		if (rc == 0)
			printf("OK\n");
		free(all);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return rc;
}
