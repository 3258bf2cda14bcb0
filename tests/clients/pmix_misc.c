/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_misc.c - queries, job control and logging through the host.
 *
 * Usage: pmix_misc   (exactly 3 ranks)
 * 1. Rank 0 queries PMIX_QUERY_NAMESPACES (must list its namespace),
 *    PMIX_QUERY_SPAWN_SUPPORT (must list PMIX_WDIR) and
 *    PMIX_QUERY_PROC_TABLE of its namespace (3 entries with pids), and a
 *    query of an unknown key alone must fail.
 * 2. Rank 0 logs "pmix_misc log line" with PMIX_LOG_STDERR.
 * 3. Rank 0 sends SIGUSR1 to rank 1 with PMIX_JOB_CTRL_SIGNAL; rank 1 must
 *    receive it within 10 s. Rank 0 then kills rank 2 with
 *    PMIX_JOB_CTRL_KILL, which the launcher must not count as a failure.
 * Rank 0 prints "misc ok"; the launcher exits 0.
 */
#include "pt.h"
#include <signal.h>

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static pmix_status_t query(const char *key, const char *nspace, pmix_info_t **res, size_t *n)
{
	pmix_query_t q;
	char *keys[] = { (char *)key, NULL };
	pmix_status_t rc;

	PMIX_QUERY_CONSTRUCT(&q);
	q.keys = keys;
	if (nspace) {
		PMIX_INFO_CREATE(q.qualifiers, 1);
		PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
		q.nqual = 1;
	}
	rc = PMIx_Query_info(&q, 1, res, n);
	if (q.qualifiers)
		PMIX_INFO_FREE(q.qualifiers, q.nqual);
	return rc;
}

static const char *query_str(const char *key)
{
	static char buf[4096];
	pmix_info_t *res = NULL;
	size_t n = 0;

	PT_RC(query(key, NULL, &res, &n));
	if (n != 1 || res[0].value.type != PMIX_STRING)
		PT_FAIL("query %s: %zu results", key, n);
	snprintf(buf, sizeof(buf), "%s", res[0].value.data.string);
	PMIX_INFO_FREE(res, n);
	return buf;
}

static void check_queries(void)
{
	pmix_info_t *res = NULL;
	pmix_proc_info_t *pi;
	size_t n = 0;

	if (!strstr(query_str(PMIX_QUERY_NAMESPACES), pt_me.nspace))
		PT_FAIL("own namespace not in PMIX_QUERY_NAMESPACES");
	if (!strstr(query_str(PMIX_QUERY_SPAWN_SUPPORT), PMIX_WDIR))
		PT_FAIL("PMIX_WDIR not in PMIX_QUERY_SPAWN_SUPPORT");
	PT_RC(query(PMIX_QUERY_PROC_TABLE, pt_me.nspace, &res, &n));
	if (n != 1 || res[0].value.type != PMIX_DATA_ARRAY ||
	    res[0].value.data.darray->type != PMIX_PROC_INFO || res[0].value.data.darray->size != 3)
		PT_FAIL("proc table");
	pi = res[0].value.data.darray->array;
	if (pi[0].pid != getpid() || pi[2].proc.rank != 2 || pi[1].pid <= 0)
		PT_FAIL("proc table entries");
	PMIX_INFO_FREE(res, n);
	res = NULL;
	if (query("slurmix.test.nokey", NULL, &res, &n) == PMIX_SUCCESS)
		PT_FAIL("query of an unknown key succeeded");
}

static void job_control(pmix_rank_t target, const char *key, int sig)
{
	pmix_proc_t p;
	pmix_info_t d;
	pmix_info_t *res = NULL;
	size_t n = 0;
	bool yes = true;

	PMIX_LOAD_PROCID(&p, pt_me.nspace, target);
	if (sig)
		PMIX_INFO_LOAD(&d, key, &sig, PMIX_INT);
	else
		PMIX_INFO_LOAD(&d, key, &yes, PMIX_BOOL);
	PT_RC(PMIx_Job_control(&p, 1, &d, 1, &res, &n));
	PMIX_INFO_DESTRUCT(&d);
	if (res)
		PMIX_INFO_FREE(res, n);
}

int main(void)
{
	pmix_info_t log;

	signal(SIGUSR1, on_usr1);
	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	if (pt_get_u32(pt_me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) != 3)
		PT_FAIL("needs exactly 3 ranks");
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == 2) {
		pause(); /* rank 0 kills us */
		return 2;
	}
	if (pt_me.rank == 0) {
		check_queries();
		PMIX_INFO_LOAD(&log, PMIX_LOG_STDERR, "pmix_misc log line\n", PMIX_STRING);
		PT_RC(PMIx_Log(&log, 1, NULL, 0));
		PMIX_INFO_DESTRUCT(&log);
		job_control(1, PMIX_JOB_CTRL_SIGNAL, SIGUSR1);
		job_control(2, PMIX_JOB_CTRL_KILL, 0);
	} else {
		for (int i = 0; i < 1000 && !got_usr1; i++)
			usleep(10000);
		if (!got_usr1)
			PT_FAIL("no SIGUSR1 within 10 s");
	}
	PT_RC(PMIx_Finalize(NULL, 0));
	if (pt_me.rank == 0)
		printf("misc ok\n");
	return 0;
}
