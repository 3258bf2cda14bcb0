/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_tool.c - a PMIx tool for the tool cases of run_iof_tests.sh
 * (docs/iof.md, "Tools"): it attaches to a running step and reports
 * what its server says.
 *
 *   pmix_tool pid PID | nspace NS | uri URI | system | any
 *
 * connects by srun's (or a step daemon's) pid, by namespace, by URI, to
 * the node's system server, or with no option, then prints
 *   "INIT ok ms=T us=U" (or "INIT <status> ms=T us=U" and exits 3),
 *   "NAMESPACES <list>" (PMIX_QUERY_NAMESPACES),
 *   "PROCTABLE <nspace> n=N" and one "PROC rank host pid" per process
 *   (PMIX_QUERY_PROC_TABLE of the first namespace),
 *   "QUERY us=U" (the two queries' time, for bench/tool_bench.sh),
 * and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmix_tool.h>

static long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000L;
}

static pmix_status_t query(const char *key, const char *nspace, pmix_info_t **res, size_t *nres)
{
	pmix_query_t q;
	pmix_status_t rc;

	PMIx_Query_construct(&q);
	PMIx_Argv_append_nosize(&q.keys, key);
	if (nspace) {
		q.qualifiers = PMIx_Info_create(1);
		q.nqual = 1;
		PMIx_Info_load(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
	}
	rc = PMIx_Query_info(&q, 1, res, nres);
	PMIx_Query_destruct(&q);
	return rc;
}

int main(int argc, char **argv)
{
	pmix_info_t init[1], *res = NULL;
	size_t ninit = 0, nres = 0;
	pmix_proc_t me;
	pmix_status_t rc;
	char ns[PMIX_MAX_NSLEN + 1] = "";
	bool yes = true;
	long t0;

	if (argc < 2) {
		fprintf(stderr, "usage: pmix_tool pid PID | nspace NS | uri URI | system | any\n");
		return 2;
	}
	if (!strcmp(argv[1], "pid") && argc > 2) {
		pid_t pid = (pid_t)atoi(argv[2]);

		PMIx_Info_load(&init[ninit++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
	} else if (!strcmp(argv[1], "nspace") && argc > 2) {
		PMIx_Info_load(&init[ninit++], PMIX_SERVER_NSPACE, argv[2], PMIX_STRING);
	} else if (!strcmp(argv[1], "uri") && argc > 2) {
		PMIx_Info_load(&init[ninit++], PMIX_SERVER_URI, argv[2], PMIX_STRING);
	} else if (!strcmp(argv[1], "system")) {
		PMIx_Info_load(&init[ninit++], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
	} else if (strcmp(argv[1], "any")) {
		fprintf(stderr, "pmix_tool: unknown mode %s\n", argv[1]);
		return 2;
	}
	t0 = now_us();
	rc = PMIx_tool_init(&me, init, ninit);
	t0 = now_us() - t0;
	printf("INIT %s ms=%ld us=%ld\n", rc == PMIX_SUCCESS ? "ok" : PMIx_Error_string(rc),
	       t0 / 1000, t0);
	fflush(stdout);
	if (rc != PMIX_SUCCESS)
		return 3;
	t0 = now_us();
	rc = query(PMIX_QUERY_NAMESPACES, NULL, &res, &nres);
	if (rc == PMIX_SUCCESS && nres && res[0].value.type == PMIX_STRING) {
		printf("NAMESPACES %s\n", res[0].value.data.string);
		snprintf(ns, sizeof(ns), "%s", res[0].value.data.string);
		if (strchr(ns, ','))
			*strchr(ns, ',') = '\0';
	} else {
		printf("NAMESPACES failed %s\n", PMIx_Error_string(rc));
	}
	if (res)
		PMIx_Info_free(res, nres);
	res = NULL;
	nres = 0;
	rc = ns[0] ? query(PMIX_QUERY_PROC_TABLE, ns, &res, &nres) : PMIX_ERR_NOT_FOUND;
	if (rc == PMIX_SUCCESS && nres && res[0].value.type == PMIX_DATA_ARRAY &&
	    res[0].value.data.darray && res[0].value.data.darray->type == PMIX_PROC_INFO) {
		pmix_proc_info_t *pi = res[0].value.data.darray->array;
		size_t n = res[0].value.data.darray->size;

		printf("PROCTABLE %s n=%zu\n", ns, n);
		for (size_t i = 0; i < n; i++)
			printf("PROC %u %s %d\n", pi[i].proc.rank,
			       pi[i].hostname ? pi[i].hostname : "?", (int)pi[i].pid);
	} else {
		printf("PROCTABLE failed %s\n", PMIx_Error_string(rc));
	}
	if (res)
		PMIx_Info_free(res, nres);
	printf("QUERY us=%ld\n", now_us() - t0);
	PMIx_tool_finalize();
	return 0;
}
