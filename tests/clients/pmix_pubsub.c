/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_pubsub.c - publish / lookup / unpublish through the host.
 *
 * Usage: pmix_pubsub   (2 or more ranks; ranks > 1 only take part in fences)
 * 1. rank 1 looks up "ps.late" with PMIX_WAIT before rank 0 publishes it
 *    (rank 0 publishes after 300 ms): the lookup completes with the value.
 * 2. lookup of a missing key without wait: PMIX_ERR_NOT_FOUND; with
 *    PMIX_WAIT and PMIX_TIMEOUT=1: fails (PMIX_ERR_TIMEOUT) after ~1 s.
 * 3. publishing the same key twice (rank 0 then rank 1): the second fails.
 * 4. PMIX_PERSIST_FIRST_READ: the first lookup gets it, the next does not.
 * 5. unpublish by the publisher: a later lookup fails.
 * Rank 0 prints "pubsub ok".
 */
#include "pt.h"
#include <time.h>

static pmix_status_t publish_str(const char *key, const char *val, int first_read)
{
	pmix_info_t info[2];
	pmix_persistence_t p = PMIX_PERSIST_FIRST_READ;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], key, val, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &p, PMIX_PERSIST);
	rc = PMIx_Publish(info, first_read ? 2 : 1);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	return rc;
}

/* Looks key up; returns the status, checks the value on success. */
static pmix_status_t lookup(const char *key, const char *want, int wait, int timeout)
{
	pmix_info_t info[2];
	pmix_pdata_t pd;
	bool yes = true;
	pmix_status_t rc;
	size_t n = 0;

	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_LOAD_KEY(pd.key, key);
	if (wait)
		PMIX_INFO_LOAD(&info[n++], PMIX_WAIT, &yes, PMIX_BOOL);
	if (timeout)
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	rc = PMIx_Lookup(&pd, 1, n ? info : NULL, n);
	if (rc == PMIX_SUCCESS &&
	    (pd.value.type != PMIX_STRING || strcmp(pd.value.data.string, want)))
		PT_FAIL("lookup %s: wrong value", key);
	if (rc == PMIX_SUCCESS && strcmp(pd.proc.nspace, pt_me.nspace))
		PT_FAIL("lookup %s: publisher nspace %s", key, pd.proc.nspace);
	PMIX_PDATA_DESTRUCT(&pd);
	while (n)
		PMIX_INFO_DESTRUCT(&info[--n]);
	return rc;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void step_wait(void)
{
	if (pt_me.rank == 0) {
		usleep(300000);
		PT_RC(publish_str("ps.late", "late-value", 0));
	} else if (pt_me.rank == 1) {
		PT_RC(lookup("ps.late", "late-value", 1, 30));
	}
	pt_fence(NULL, 0, 0);
}

static void step_missing(void)
{
	pmix_status_t rc;
	double t0;

	if (pt_me.rank == 0) {
		if ((rc = lookup("ps.missing", NULL, 0, 0)) != PMIX_ERR_NOT_FOUND)
			PT_FAIL("lookup of a missing key: %s", PMIx_Error_string(rc));
		t0 = now();
		rc = lookup("ps.missing", NULL, 1, 1);
		if (rc == PMIX_SUCCESS || now() - t0 < 0.9 || now() - t0 > 10)
			PT_FAIL("waiting lookup with timeout 1: %s after %.1f s",
				PMIx_Error_string(rc), now() - t0);
	}
	pt_fence(NULL, 0, 0);
}

static void step_dup_and_first_read(void)
{
	pmix_status_t rc;

	if (pt_me.rank == 0) {
		PT_RC(publish_str("ps.dup", "zero", 0));
		PT_RC(publish_str("ps.once", "once", 1));
	}
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == 1) {
		if (publish_str("ps.dup", "one", 0) == PMIX_SUCCESS)
			PT_FAIL("second publish of ps.dup succeeded");
		PT_RC(lookup("ps.once", "once", 0, 0));
	}
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == 0 && (rc = lookup("ps.once", NULL, 0, 0)) != PMIX_ERR_NOT_FOUND)
		PT_FAIL("first-read key still there: %s", PMIx_Error_string(rc));
	pt_fence(NULL, 0, 0);
}

static void step_unpublish(void)
{
	char *keys[] = { "ps.dup", NULL };
	pmix_status_t rc;

	if (pt_me.rank == 0)
		PT_RC(PMIx_Unpublish(keys, NULL, 0));
	pt_fence(NULL, 0, 0);
	if (pt_me.rank == 1 && (rc = lookup("ps.dup", NULL, 0, 0)) != PMIX_ERR_NOT_FOUND)
		PT_FAIL("unpublished key still there: %s", PMIx_Error_string(rc));
}

int main(void)
{
	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	if (pt_get_u32(pt_me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) < 2)
		PT_FAIL("needs 2 ranks or more");
	step_wait();
	step_missing();
	step_dup_and_first_read();
	step_unpublish();
	PT_RC(PMIx_Finalize(NULL, 0));
	if (pt_me.rank == 0)
		printf("pubsub ok\n");
	return 0;
}
