/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_query.c - PMIx_Query_info from a task, for the management suite
 * (run_mgmt_tests.sh, docs/query.md).
 *
 *   pmix_query [-f] [-T] [-r RANKS] [-t TIMES [-s MS]] QUERY...
 *   pmix_query -g [-r RANKS] [-p RANK] KEY[@QUAL...]...
 *
 * Each QUERY is KEY[,KEY...][@QUAL=VALUE[@QUAL=VALUE...]]: one
 * pmix_query_t with those keys and string qualifiers; the qualifier
 * "refresh" (no value) is PMIX_QUERY_REFRESH_CACHE. -f: a fence first (the
 * ranks then ask at about the same time). -r: only the ranks of this
 * comma list ask and print (default 0); "all": every rank. -t: ask that
 * many times in a row (default 1), printing each answer, MS milliseconds
 * apart (default 0). -T: also "rank R query_us US", each call's time
 * (for bench/query_bench.sh). Each asking
 * rank prints "rank R status STATUS" and one line per result,
 * "rank R KEY=VALUE" (strings as they are, numbers in decimal, statuses by
 * name, arrays as {KEY=VALUE;...}, pmix_regattr_t arrays as
 * [NAME/string/type,...]). Exits 1 when PMIx fails to start.
 * It uses only the macros that both our headers and OpenPMIx 4.2's have:
 * bench/query_bench.sh builds it against OpenPMIx's, to run it under
 * Slurm's --mpi=pmix too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static void print_value(const pmix_value_t *v);

static void print_infos(const pmix_info_t *info, size_t n)
{
	printf("{");
	for (size_t i = 0; i < n; i++) {
		printf("%s%s=", i ? ";" : "", info[i].key);
		print_value(&info[i].value);
	}
	printf("}");
}

/* An attribute query's pmix_regattr_t: [NAME/string/type,...] */
static void print_regattrs(const pmix_regattr_t *r, size_t n)
{
	printf("[");
	for (size_t i = 0; i < n; i++)
		printf("%s%s/%s/%s", i ? "," : "", r[i].name ? r[i].name : "", r[i].string,
		       PMIx_Data_type_string(r[i].type));
	printf("]");
}

static void print_value(const pmix_value_t *v)
{
	switch (v->type) {
	case PMIX_STRING: printf("%s", v->data.string ? v->data.string : ""); break;
	case PMIX_UINT32: printf("%u", v->data.uint32); break;
	case PMIX_SIZE: printf("%zu", v->data.size); break;
	case PMIX_UINT16: printf("%u", v->data.uint16); break;
	case PMIX_UINT64: printf("%lu", (unsigned long)v->data.uint64); break;
	case PMIX_PROC_RANK: printf("%u", v->data.rank); break;
	case PMIX_PROC:
		printf("%s:%u", v->data.proc ? v->data.proc->nspace : "",
		       v->data.proc ? v->data.proc->rank : 0);
		break;
	case PMIX_FLOAT: printf("%.1f", v->data.fval); break;
	case PMIX_BOOL: printf("%s", v->data.flag ? "true" : "false"); break;
	case PMIX_STATUS: printf("%s", PMIx_Error_string(v->data.status)); break;
	case PMIX_DATA_ARRAY:
		if (v->data.darray && v->data.darray->type == PMIX_INFO)
			print_infos(v->data.darray->array, v->data.darray->size);
		else if (v->data.darray && v->data.darray->type == PMIX_REGATTR)
			print_regattrs(v->data.darray->array, v->data.darray->size);
		else
			printf("<array>");
		break;
	default: printf("<type %d>", (int)v->type);
	}
}

/* "KEY,KEY@Q=V@refresh" into q. */
static void parse(char *arg, pmix_query_t *q)
{
	char *quals = strchr(arg, '@'), *k, *save = NULL;
	size_t nq = 0;

	PMIX_QUERY_CONSTRUCT(q);
	if (quals)
		*quals++ = '\0';
	for (k = strtok_r(arg, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		pmix_status_t rc;

		PMIX_ARGV_APPEND(rc, q->keys, k);
		(void)rc;
	}
	for (char *p = quals; p; p = strchr(p, '@'))
		nq++, p++;
	if (!nq)
		return;
	PMIX_INFO_CREATE(q->qualifiers, nq);
	q->nqual = nq;
	for (size_t i = 0; i < nq; i++) {
		char *next = strchr(quals, '@'), *eq;

		if (next)
			*next++ = '\0';
		if (!strcmp(quals, "refresh")) {
			bool t = true;

			PMIX_INFO_LOAD(&q->qualifiers[i], PMIX_QUERY_REFRESH_CACHE, &t, PMIX_BOOL);
		} else if ((eq = strchr(quals, '=')) && eq > quals && eq[-1] == '#') {
			uint32_t u = (uint32_t)strtoul(eq + 1, NULL, 10);

			eq[-1] = '\0';
			PMIX_INFO_LOAD(&q->qualifiers[i], quals, &u, PMIX_UINT32);
		} else if ((eq = strchr(quals, '='))) {
			*eq = '\0';
			PMIX_INFO_LOAD(&q->qualifiers[i], quals, eq + 1, PMIX_STRING);
		} else {
			bool t = true;

			PMIX_INFO_LOAD(&q->qualifiers[i], quals, &t, PMIX_BOOL);
		}
		quals = next;
	}
}

/* PMIx_Get of "KEY@QUAL..." from rank target of me's namespace. */
static void get_one(const pmix_proc_t *me, pmix_rank_t target, char *arg)
{
	pmix_query_t q;
	pmix_value_t *v = NULL;
	pmix_proc_t p;
	pmix_status_t st;

	parse(arg, &q);
	PMIX_LOAD_PROCID(&p, me->nspace, target);
	st = PMIx_Get(&p, q.keys[0], q.qualifiers, q.nqual, &v);
	printf("rank %u get %s", me->rank, q.keys[0]);
	if (st == PMIX_SUCCESS && v) {
		printf("=");
		print_value(v);
		PMIX_VALUE_RELEASE(v);
	} else {
		printf(" %s", PMIx_Error_string(st));
	}
	printf("\n");
	fflush(stdout);
	PMIX_QUERY_DESTRUCT(&q);
}

static int asks(const char *ranks, pmix_rank_t me)
{
	char buf[256], *t, *save = NULL;

	if (!strcmp(ranks, "all"))
		return 1;
	snprintf(buf, sizeof(buf), "%s", ranks);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if ((pmix_rank_t)strtoul(t, NULL, 10) == me)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	pmix_proc_t me, all;
	const char *ranks = "0";
	int fence = 0, timed = 0, get = 0, a = 1, times = 1, gap_ms = 0;
	pmix_rank_t target = PMIX_RANK_WILDCARD;
	struct timespec t0, t1;
	pmix_info_t *res = NULL;
	size_t nres = 0, nq;
	pmix_query_t *q;
	pmix_status_t st;

	for (; a < argc && argv[a][0] == '-'; a++)
		if (!strcmp(argv[a], "-f"))
			fence = 1;
		else if (!strcmp(argv[a], "-T"))
			timed = 1;
		else if (!strcmp(argv[a], "-g"))
			get = 1;
		else if (!strcmp(argv[a], "-p") && a + 1 < argc)
			target = (pmix_rank_t)strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-r") && a + 1 < argc)
			ranks = argv[++a];
		else if (!strcmp(argv[a], "-t") && a + 1 < argc)
			times = atoi(argv[++a]);
		else if (!strcmp(argv[a], "-s") && a + 1 < argc)
			gap_ms = atoi(argv[++a]);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	if (fence)
		PMIx_Fence(&all, 1, NULL, 0);
	if (get && asks(ranks, me.rank))
		for (; a < argc; a++)
			get_one(&me, target, argv[a]);
	if (!get && asks(ranks, me.rank) && a < argc) {
		nq = (size_t)(argc - a);
		PMIX_QUERY_CREATE(q, nq);
		for (size_t i = 0; i < nq; i++)
			parse(argv[a + (int)i], &q[i]);
		for (int t = 0; t < times; t++) {
			if (t && gap_ms > 0)
				usleep((useconds_t)gap_ms * 1000);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			st = PMIx_Query_info(q, nq, &res, &nres);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("rank %u status %s\n", me.rank, PMIx_Error_string(st));
			if (timed)
				printf("rank %u query_us %ld\n", me.rank,
				       (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
					      (t1.tv_nsec - t0.tv_nsec) / 1000));
			for (size_t i = 0; i < nres; i++) {
				printf("rank %u %s=", me.rank, res[i].key);
				print_value(&res[i].value);
				printf("\n");
			}
			fflush(stdout);
			if (res)
				PMIX_INFO_FREE(res, nres);
			res = NULL;
			nres = 0;
		}
		PMIX_QUERY_FREE(q, nq);
	}
	if (fence)
		PMIx_Fence(&all, 1, NULL, 0);
	PMIx_Finalize(NULL, 0);
	return 0;
}
