/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_bench.c - the side-by-side PMIx benchmark: one plain PMIx client,
 * built against the standard (OpenPMIx 4.2) headers, that runs unchanged
 * under any PMIx server: ours (srun --mpi=slurmix, slurmix-run) or
 * OpenPMIx (srun --mpi=pmix, Open MPI's mpirun). Which libpmix.so.2 it
 * loads is decided by LD_LIBRARY_PATH at run time.
 *
 * Every rank measures, with CLOCK_MONOTONIC:
 *   init_us        PMIx_Init (from just before the call to its return)
 *   start_init_ms  process start (/proc/self/stat starttime, clock-tick
 *                  resolution, usually 10 ms) to PMIx_Init done
 *   get_job_ns     PMIx_Get(PMIX_JOB_SIZE, rank WILDCARD), each call timed
 *   fence_us       PMIx_Fence without data
 *   modex_fence_us Put of a 1 KiB byte object + Commit + Fence with
 *                  PMIX_COLLECT_DATA (a fresh key each iteration)
 *   modex_get_us   Get of every other rank's 1 KiB key after that fence
 *   dmodex_get_us  the same after a fence WITHOUT collected data: the
 *                  value comes by direct modex (local server or the
 *                  owner's node) on first access
 *   clock_ns       cost of one clock_gettime pair (included in the others)
 * and keeps the median of its own samples. The ranks then exchange their
 * medians through PMIx itself (Put, Fence with data, Get) and rank 0 prints
 * one line per metric, the maximum over ranks of the per-rank medians:
 *   metric <name> <value>          or    metric <name> failed
 * ("n/a" for the Gets of a single rank, which has no peers)
 * plus "info" lines (library version, size, nodes). A metric whose calls
 * fail on any rank is "failed"; the program goes on with the next metric
 * when it can (a failed fence is not retried: the next fence would wait for
 * ranks that have moved on, so every later collective metric is skipped).
 *
 * Usage: pmix_bench [-g gets] [-f fences] [-m modex-iterations]
 *                   [-d dmodex-iterations] [-s bytes] [-t timeout-s]
 * Every collective carries PMIX_TIMEOUT (default 60 s) so that a broken
 * server makes the program fail, not hang. Exit status 0 when every metric
 * succeeded, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

enum { M_INIT, M_START, M_GET, M_FENCE, M_MODEX, M_MGET, M_DGET, M_CLOCK, M_NUM };
static const char *const mname[M_NUM] = {
	"init_us",        "start_init_ms", "get_job_ns",    "fence_us",
	"modex_fence_us", "modex_get_us",  "dmodex_get_us", "clock_ns",
};

struct opts {
	int gets, fences, modex, dmodex, size, timeout;
};

struct bench {
	struct opts o;
	pmix_proc_t me;
	uint32_t size, nodes;
	int coll_ok;       /* 0 once a collective failed: skip the rest */
	double res[M_NUM]; /* this rank's medians; NAN = failed */
};

/* A metric with no samples (a single rank has no peers to Get from). */
#define NOT_APPLICABLE (-1.0)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n samples (sorts them); NAN for none. */
static double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---------------------------------------------------------------- timers */

/* Milliseconds from this process's start to now, or NAN if unknown. */
static double since_start_ms(void)
{
	char buf[2048], *p;
	unsigned long long st = 0;
	struct timespec ts;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	/* field 22 (starttime); count from after the ")" that ends comm */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
		   "%*d %*d %*d %*d %*d %*d %llu",
		   &st) != 1)
		return NAN;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	double ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 - st * 1e3 / sysconf(_SC_CLK_TCK);
	return ms >= 0 && ms < 3600e3 ? ms : NAN;
}

static double clock_cost_ns(void)
{
	double v[1000];

	for (int i = 0; i < 1000; i++) {
		double t0 = now_ns();
		v[i] = now_ns() - t0;
	}
	return median(v, 1000);
}

/* ---------------------------------------------------------------- metrics */

static void bench_get_job(struct bench *b)
{
	pmix_proc_t wild;
	pmix_value_t *val;
	double *v = malloc(b->o.gets * sizeof(*v));
	int ok = v != NULL;

	PMIX_LOAD_PROCID(&wild, b->me.nspace, PMIX_RANK_WILDCARD);
	for (int i = -100; ok && i < b->o.gets; i++) { /* 100 warm-up calls */
		double t0 = now_ns();
		ok = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS;
		if (ok && i >= 0)
			v[i] = now_ns() - t0;
		if (ok)
			PMIX_VALUE_RELEASE(val);
	}
	b->res[M_GET] = ok ? median(v, b->o.gets) : NAN;
	free(v);
}

/* Fence over all ranks, with or without collected data, with a timeout. */
static pmix_status_t fence(const struct bench *b, int collect)
{
	pmix_info_t info[2];
	bool yes = true;
	int tmo = b->o.timeout;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &tmo, PMIX_INT);
	PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	rc = PMIx_Fence(NULL, 0, info, collect ? 2 : 1);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	return rc;
}

static void bench_fence(struct bench *b)
{
	double *v = malloc(b->o.fences * sizeof(*v));
	int ok = v != NULL && fence(b, 0) == PMIX_SUCCESS; /* line up */

	for (int i = 0; ok && i < b->o.fences; i++) {
		double t0 = now_ns();
		ok = fence(b, 0) == PMIX_SUCCESS;
		v[i] = now_ns() - t0;
	}
	b->coll_ok = ok;
	b->res[M_FENCE] = ok ? median(v, b->o.fences) / 1e3 : NAN;
	free(v);
}

/* Put our blob under "bench.<tag>.<iter>" and commit; 0 on success. */
static int put_blob(const struct bench *b, const char *tag, int iter)
{
	pmix_value_t val;
	char key[PMIX_MAX_KEYLEN + 1];
	char *data = malloc(b->o.size);
	pmix_status_t rc;

	if (!data)
		return -1;
	memset(data, 'a' + (b->me.rank + iter) % 26, b->o.size);
	snprintf(key, sizeof(key), "bench.%s.%d", tag, iter);
	val.type = PMIX_BYTE_OBJECT;
	val.data.bo.bytes = data;
	val.data.bo.size = b->o.size;
	rc = PMIx_Put(PMIX_GLOBAL, key, &val);
	free(data);
	return rc == PMIX_SUCCESS && PMIx_Commit() == PMIX_SUCCESS ? 0 : -1;
}

/* Get "bench.<tag>.<iter>" of every other rank, checking size and content;
 * appends one sample per call to v (*n). 0 on success. */
static int get_peers(const struct bench *b, const char *tag, int iter, double *v, size_t *n)
{
	char key[PMIX_MAX_KEYLEN + 1];
	pmix_proc_t p;
	pmix_value_t *val;

	snprintf(key, sizeof(key), "bench.%s.%d", tag, iter);
	for (uint32_t r = 0; r < b->size; r++) {
		if (r == b->me.rank)
			continue;
		PMIX_LOAD_PROCID(&p, b->me.nspace, r);
		double t0 = now_ns();
		if (PMIx_Get(&p, key, NULL, 0, &val) != PMIX_SUCCESS)
			return -1;
		v[(*n)++] = now_ns() - t0;
		int good = val->type == PMIX_BYTE_OBJECT &&
			   val->data.bo.size == (size_t)b->o.size &&
			   val->data.bo.bytes[b->o.size - 1] == 'a' + (char)((r + iter) % 26);
		PMIX_VALUE_RELEASE(val);
		if (!good)
			return -1;
	}
	return 0;
}

/* iters x (Put, Commit, Fence [collect], Get of each peer): the fence
 * median goes to res[mfence] (if >= 0), the Get median to res[mget]. */
static void bench_modex(struct bench *b, const char *tag, int iters, int collect, int mfence,
			int mget)
{
	double *fv = malloc(iters * sizeof(*fv));
	double *gv = malloc((size_t)iters * (b->size ? b->size : 1) * sizeof(*gv));
	size_t ng = 0;
	int ok = fv && gv, gok = ok;

	for (int i = 0; ok && i < iters; i++) {
		double t0 = now_ns();
		ok = put_blob(b, tag, i) == 0 && fence(b, collect) == PMIX_SUCCESS;
		fv[i] = now_ns() - t0;
		if (ok && gok)
			gok = get_peers(b, tag, i, gv, &ng) == 0;
	}
	b->coll_ok = ok;
	if (mfence >= 0)
		b->res[mfence] = ok ? median(fv, iters) / 1e3 : NAN;
	if (ok && gok)
		b->res[mget] = ng ? median(gv, ng) / 1e3 : NOT_APPLICABLE;
	free(fv);
	free(gv);
}

/* ---------------------------------------------------------------- report */

static int get_u32(const struct bench *b, const char *key, uint32_t *out)
{
	pmix_proc_t wild;
	pmix_value_t *val;

	PMIX_LOAD_PROCID(&wild, b->me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, key, NULL, 0, &val) != PMIX_SUCCESS)
		return -1;
	*out = val->type == PMIX_UINT32 ? val->data.uint32 : 0;
	PMIX_VALUE_RELEASE(val);
	return 0;
}

/* Max over ranks of res[] into all[] (rank 0 only); 0 on success. */
static int gather_max(struct bench *b, double *all)
{
	pmix_value_t v = { .type = PMIX_BYTE_OBJECT }, *got;
	pmix_proc_t p;

	v.data.bo.bytes = (char *)b->res;
	v.data.bo.size = sizeof(b->res);
	if (PMIx_Put(PMIX_GLOBAL, "bench.result", &v) != PMIX_SUCCESS ||
	    PMIx_Commit() != PMIX_SUCCESS || fence(b, 1) != PMIX_SUCCESS)
		return -1;
	memcpy(all, b->res, sizeof(b->res));
	for (uint32_t r = 1; b->me.rank == 0 && r < b->size; r++) {
		PMIX_LOAD_PROCID(&p, b->me.nspace, r);
		if (PMIx_Get(&p, "bench.result", NULL, 0, &got) != PMIX_SUCCESS)
			return -1;
		const double *rv = (const double *)got->data.bo.bytes;
		for (int m = 0; got->data.bo.size == sizeof(b->res) && m < M_NUM; m++)
			all[m] = isnan(all[m]) || isnan(rv[m]) ? NAN : fmax(all[m], rv[m]);
		PMIX_VALUE_RELEASE(got);
	}
	return 0;
}

static int print_metrics(const double *all, const char *note)
{
	int failed = 0;

	for (int m = 0; m < M_NUM; m++) {
		if (isnan(all[m]))
			printf("metric %s failed\n", mname[m]);
		else if (all[m] == NOT_APPLICABLE)
			printf("metric %s n/a\n", mname[m]);
		else
			printf("metric %s %.3f\n", mname[m], all[m]);
		failed |= isnan(all[m]) && m != M_START;
	}
	if (note)
		printf("info note %s\n", note);
	fflush(stdout);
	return failed;
}

/* ---------------------------------------------------------------- main */

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){
		.gets = 10000, .fences = 50, .modex = 20, .dmodex = 5, .size = 1024, .timeout = 60
	};
	while ((c = getopt(argc, argv, "g:f:m:d:s:t:")) != -1) {
		int v = optarg ? atoi(optarg) : 0; /* no optarg after '?' */
		switch (c) {
		case 'g': o->gets = v; break;
		case 'f': o->fences = v; break;
		case 'm': o->modex = v; break;
		case 'd': o->dmodex = v; break;
		case 's': o->size = v; break;
		case 't': o->timeout = v; break;
		default: return -1;
		}
	}
	return o->gets > 0 && o->fences > 0 && o->modex > 0 && o->dmodex > 0 && o->size > 0 &&
			       o->size <= (1 << 24) && o->timeout > 0 ?
		       0 :
		       -1;
}

static void run_all(struct bench *b)
{
	b->res[M_CLOCK] = clock_cost_ns();
	bench_get_job(b);
	bench_fence(b);
	if (b->coll_ok)
		bench_modex(b, "m", b->o.modex, 1, M_MODEX, M_MGET);
	if (b->coll_ok)
		bench_modex(b, "d", b->o.dmodex, 0, -1, M_DGET);
}

int main(int argc, char **argv)
{
	struct bench b = { .coll_ok = 1 };
	double all[M_NUM], t0;
	int failed;

	if (parse_opts(argc, argv, &b.o) < 0) {
		fprintf(stderr, "usage: pmix_bench [-g gets] [-f fences] [-m modex] "
				"[-d dmodex] [-s bytes] [-t timeout]\n");
		return 2;
	}
	for (int m = 0; m < M_NUM; m++)
		b.res[m] = NAN;
	t0 = now_ns();
	if (PMIx_Init(&b.me, NULL, 0) != PMIX_SUCCESS) {
		fprintf(stderr, "pmix_bench: PMIx_Init failed\n");
		return 1;
	}
	b.res[M_INIT] = (now_ns() - t0) / 1e3;
	b.res[M_START] = since_start_ms();
	if (get_u32(&b, PMIX_JOB_SIZE, &b.size) < 0 || b.size == 0)
		fprintf(stderr, "pmix_bench: no PMIX_JOB_SIZE\n");
	else
		run_all(&b);
	if (b.coll_ok && gather_max(&b, all) == 0) {
		failed = b.me.rank == 0 ? print_metrics(all, NULL) : 0;
	} else {
		memcpy(all, b.res, sizeof(all)); /* every rank reports its own */
		fprintf(stderr, "pmix_bench: rank %u: collective failed\n", b.me.rank);
		failed = 1;
		if (b.me.rank == 0)
			print_metrics(all, "rank 0 only (a collective failed)");
	}
	if (b.me.rank == 0) {
		get_u32(&b, PMIX_NUM_NODES, &b.nodes);
		printf("info lib %s\ninfo size %u\ninfo nodes %u\n", PMIx_Get_version(), b.size,
		       b.nodes);
	}
	PMIx_Finalize(NULL, 0);
	return failed;
}
