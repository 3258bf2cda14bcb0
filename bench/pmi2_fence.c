/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi2_fence.c - PMI-2 fences timed from a task, speaking the wire on
 * PMI_FD itself (no PMI library), so that the same binary runs under
 * srun --mpi=slurmix and under Slurm's srun --mpi=pmi2.
 *
 *   pmi2_fence [ITER]
 *
 * Every rank: init, fullinit, then ITER empty kvs-fences, then ITER rounds
 * of kvs-put + kvs-fence + kvs-get of the next rank's key. Rank 0 prints
 * "metric pmi2_fence_us MEDIAN" and "metric pmi2_put_fence_get_us MEDIAN"
 * (its own medians, microseconds) and "OK"; any error exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd;
static char buf[70000];

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int full_read(char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int full_write(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One PMI-2 request; the reply body in buf; 0 when it says rc=0. */
static int v2(const char *body)
{
	char len[24];
	size_t n;

	snprintf(len, sizeof(len), "%6zu", strlen(body));
	if (full_write(len, 6) || full_write(body, strlen(body)) || full_read(buf, 6))
		return -1;
	buf[6] = '\0';
	n = (size_t)atoi(buf);
	if (n >= sizeof(buf) || full_read(buf, n))
		return -1;
	buf[n] = '\0';
	return strstr(buf, ";rc=0;") ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int iter = argc > 1 ? atoi(argv[1]) : 50, rank, size;
	const char *s = getenv("PMI_FD"), *r = getenv("PMI_RANK"), *z = getenv("PMI_SIZE");
	double *t = calloc((size_t)(iter > 0 ? iter : 1), sizeof(double)), f, pfg;
	char req[256];
	const char *init = "cmd=init pmi_version=2 pmi_subversion=0\n";

	if (!s || !r || !z || iter < 1 || !t)
		return fprintf(stderr, "pmi2_fence: no PMI_FD/PMI_RANK/PMI_SIZE\n"), 1;
	fd = atoi(s);
	rank = atoi(r);
	size = atoi(z);
	if (full_write(init, strlen(init)))
		return 1;
	for (size_t n = 0; n < sizeof(buf) - 1; n++)
		if (full_read(buf + n, 1) || buf[n] == '\n') {
			buf[n + 1] = '\0';
			break;
		}
	if (!strstr(buf, "rc=0"))
		return fprintf(stderr, "init: %s", buf), 1;
	/* Slurm's mpi/pmi2 wants the PMI_JOBID its task hook set */
	snprintf(req, sizeof(req), "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;",
		 getenv("PMI_JOBID") ? getenv("PMI_JOBID") : "", rank);
	if (v2(req))
		return fprintf(stderr, "fullinit: %s\n", buf), 1;
	for (int i = 0; i < iter; i++) {
		double t0 = now_us();

		if (v2("cmd=kvs-fence;"))
			return fprintf(stderr, "fence: %s\n", buf), 1;
		t[i] = now_us() - t0;
	}
	f = median(t, iter);
	for (int i = 0; i < iter; i++) {
		double t0 = now_us();

		snprintf(req, sizeof(req), "cmd=kvs-put;key=b%d-%d;value=v%d-%d;", rank, i, rank,
			 i);
		if (v2(req) || v2("cmd=kvs-fence;"))
			return fprintf(stderr, "put/fence: %s\n", buf), 1;
		snprintf(req, sizeof(req), "cmd=kvs-get;srcid=%d;key=b%d-%d;", (rank + 1) % size,
			 (rank + 1) % size, i);
		if (v2(req) || !strstr(buf, "found=TRUE"))
			return fprintf(stderr, "get: %s\n", buf), 1;
		t[i] = now_us() - t0;
	}
	pfg = median(t, iter);
	v2("cmd=finalize;");
	if (rank == 0)
		printf("metric pmi2_fence_us %.1f\nmetric pmi2_put_fence_get_us %.1f\nOK\n", f,
		       pfg);
	free(t);
	return 0;
}
