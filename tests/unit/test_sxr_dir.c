/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sxr_dir.c - check suite for slurmix-run's publish/lookup directory
 * (src/tools/sxr_dir.c): ranges, duplicates, persistence, waiting lookups
 * with their timeouts, the end of publishers, and broken requests.
 *
 * The directory is used alone: this file provides the few launcher
 * helpers it calls (argv copies, a clock the tests move by hand) and a
 * lookup callback that records what it was given.
 */
#include "sxr.h"
#include "sxr_dir.h"
#include "sxr_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "runner.h"

/* ---------------------------------------------------------------- stand-ins */

static double fake_now = 1000.0;

double sxr_now(void)
{
	return fake_now;
}

void sxr_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

char **sxr_argv_dup(char **argv)
{
	size_t n = 0;
	char **out;

	while (argv && argv[n])
		n++;
	out = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; out && i < n; i++)
		out[i] = strdup(argv[i]);
	return out;
}

/* ---------------------------------------------------------------- helpers */

static struct {
	int calls;
	pmix_status_t status;
	size_t n;
	char key[PMIX_MAX_KEYLEN + 1];
	char val[64];
	pmix_proc_t owner;
} got;

static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
	(void)cbdata;
	got.calls++;
	got.status = status;
	got.n = ndata;
	got.key[0] = got.val[0] = '\0';
	if (ndata) {
		snprintf(got.key, sizeof(got.key), "%s", data[0].key);
		if (data[0].value.type == PMIX_STRING)
			snprintf(got.val, sizeof(got.val), "%s", data[0].value.data.string);
		got.owner = data[0].proc;
	}
}

static pmix_proc_t proc(const char *ns, pmix_rank_t r)
{
	pmix_proc_t p;

	PMIX_LOAD_PROCID(&p, ns, r);
	return p;
}

/* Publishes key=val from (ns, r) with optional range/persistence (0 = none). */
static pmix_status_t pub(struct sxr_dir *d, const char *ns, pmix_rank_t r, const char *key,
			 const char *val, pmix_data_range_t range, pmix_persistence_t persist)
{
	pmix_info_t info[3];
	pmix_proc_t p = proc(ns, r);
	size_t n = 0;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[n++], key, val, PMIX_STRING);
	if (range)
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &range, PMIX_DATA_RANGE);
	if (persist)
		PMIX_INFO_LOAD(&info[n++], PMIX_PERSISTENCE, &persist, PMIX_PERSIST);
	rc = sxr_dir_publish(d, &p, info, n);
	while (n)
		PMIX_INFO_DESTRUCT(&info[--n]);
	return rc;
}

/* Looks key up from (ns, r); wait < 0: no PMIX_WAIT; timeout 0: none. */
static void look(struct sxr_dir *d, const char *ns, pmix_rank_t r, const char *key, int wait,
		 int timeout)
{
	char *keys[] = { (char *)key, NULL };
	pmix_info_t info[2];
	pmix_proc_t p = proc(ns, r);
	size_t n = 0;

	if (wait >= 0)
		PMIX_INFO_LOAD(&info[n++], PMIX_WAIT, &wait, PMIX_INT);
	if (timeout)
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	memset(&got, 0, sizeof(got));
	sxr_dir_lookup(d, &p, keys, info, n, lookup_cb, NULL);
	while (n)
		PMIX_INFO_DESTRUCT(&info[--n]);
}

/* ---------------------------------------------------------------- tests */

START_TEST(publish_lookup)
{
	struct sxr_dir *d = sxr_dir_create();

	ck_assert_int_eq(pub(d, "A", 0, "k", "v", 0, 0), PMIX_SUCCESS);
	look(d, "B", 3, "k", -1, 0);
	ck_assert_int_eq(got.calls, 1);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_str_eq(got.val, "v");
	ck_assert_str_eq(got.owner.nspace, "A");
	ck_assert_uint_eq(got.owner.rank, 0);
	look(d, "B", 3, "other", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	look(d, "B", 3, "k", -1, 0); /* default persistence: still there */
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(ranges_and_duplicates)
{
	struct sxr_dir *d = sxr_dir_create();

	ck_assert_int_eq(pub(d, "A", 0, "k", "a", PMIX_RANGE_NAMESPACE, 0), PMIX_SUCCESS);
	ck_assert_int_eq(pub(d, "B", 0, "k", "b", PMIX_RANGE_NAMESPACE, 0), PMIX_SUCCESS);
	ck_assert_int_eq(pub(d, "A", 1, "k", "a2", PMIX_RANGE_NAMESPACE, 0),
			 PMIX_ERR_DUPLICATE_KEY);
	ck_assert_int_eq(pub(d, "C", 0, "k", "c", PMIX_RANGE_SESSION, 0), PMIX_ERR_DUPLICATE_KEY);
	look(d, "B", 5, "k", -1, 0);
	ck_assert_str_eq(got.val, "b");
	look(d, "A", 5, "k", -1, 0);
	ck_assert_str_eq(got.val, "a");
	look(d, "C", 0, "k", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(pub(d, "A", 0, "s", "x", PMIX_RANGE_SESSION, 0), PMIX_SUCCESS);
	ck_assert_int_eq(pub(d, "B", 0, "s", "y", PMIX_RANGE_GLOBAL, 0), PMIX_ERR_DUPLICATE_KEY);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(first_read)
{
	struct sxr_dir *d = sxr_dir_create();

	ck_assert_int_eq(pub(d, "A", 0, "once", "1", 0, PMIX_PERSIST_FIRST_READ), PMIX_SUCCESS);
	look(d, "A", 1, "once", -1, 0);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	look(d, "A", 1, "once", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	/* it may be published again once read */
	ck_assert_int_eq(pub(d, "A", 0, "once", "2", 0, 0), PMIX_SUCCESS);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(wait_then_publish)
{
	struct sxr_dir *d = sxr_dir_create();

	look(d, "B", 0, "late", 0, 5);
	ck_assert_int_eq(got.calls, 0);
	ck_assert(sxr_dir_timers(d, fake_now) == fake_now + 5);
	ck_assert_int_eq(pub(d, "A", 0, "other", "x", 0, 0), PMIX_SUCCESS);
	ck_assert_int_eq(got.calls, 0);
	ck_assert_int_eq(pub(d, "A", 0, "late", "here", 0, PMIX_PERSIST_FIRST_READ), PMIX_SUCCESS);
	ck_assert_int_eq(got.calls, 1);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	ck_assert_str_eq(got.val, "here");
	ck_assert(sxr_dir_timers(d, fake_now) == 0);
	look(d, "B", 0, "late", -1, 0); /* first read consumed it */
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(wait_times_out)
{
	struct sxr_dir *d = sxr_dir_create();

	look(d, "B", 0, "never", 0, 2);
	ck_assert_int_eq(got.calls, 0);
	ck_assert(sxr_dir_timers(d, fake_now + 1) == fake_now + 2);
	ck_assert_int_eq(got.calls, 0);
	sxr_dir_timers(d, fake_now + 2);
	ck_assert_int_eq(got.calls, 1);
	ck_assert_int_eq(got.status, PMIX_ERR_TIMEOUT);
	/* a second waiter is failed by a flush (shutdown) */
	look(d, "B", 0, "never", 0, 0);
	ck_assert_int_eq(got.calls, 0);
	sxr_dir_flush(d);
	ck_assert_int_eq(got.calls, 1);
	ck_assert_int_eq(got.status, PMIX_ERR_TIMEOUT);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(publisher_ends)
{
	struct sxr_dir *d = sxr_dir_create();

	ck_assert_int_eq(pub(d, "A", 0, "p", "1", 0, PMIX_PERSIST_PROC), PMIX_SUCCESS);
	ck_assert_int_eq(pub(d, "A", 1, "a", "2", 0, PMIX_PERSIST_APP), PMIX_SUCCESS);
	ck_assert_int_eq(pub(d, "A", 1, "s", "3", 0, PMIX_PERSIST_SESSION), PMIX_SUCCESS);
	sxr_dir_proc_gone(d, "A", 0);
	look(d, "B", 0, "p", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	look(d, "B", 0, "a", -1, 0);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	sxr_dir_proc_gone(d, "A", PMIX_RANK_WILDCARD);
	look(d, "B", 0, "a", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	look(d, "B", 0, "s", -1, 0);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	/* a waiting lookup of a proc that ends is failed, not left behind */
	look(d, "B", 2, "never", 0, 0);
	sxr_dir_proc_gone(d, "B", 2);
	ck_assert_int_eq(got.calls, 1);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(unpublish)
{
	struct sxr_dir *d = sxr_dir_create();
	char *keys[] = { "k", NULL };
	pmix_proc_t a0 = proc("A", 0), a1 = proc("A", 1);

	ck_assert_int_eq(pub(d, "A", 0, "k", "v", 0, 0), PMIX_SUCCESS);
	ck_assert_int_eq(sxr_dir_unpublish(d, &a1, keys, NULL, 0), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(sxr_dir_unpublish(d, &a0, keys, NULL, 0), PMIX_SUCCESS);
	look(d, "A", 1, "k", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(pub(d, "A", 0, "k", "v", 0, 0), PMIX_SUCCESS);
	ck_assert_int_eq(sxr_dir_unpublish(d, &a0, NULL, NULL, 0), PMIX_SUCCESS); /* all */
	look(d, "A", 1, "k", -1, 0);
	ck_assert_int_eq(got.status, PMIX_ERR_NOT_FOUND);
	sxr_dir_destroy(d);
}
END_TEST

START_TEST(broken_requests)
{
	struct sxr_dir *d = sxr_dir_create();
	pmix_proc_t a0 = proc("A", 0);
	pmix_info_t info[2];
	char *nokeys[] = { NULL };

	/* directives only, no data */
	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &(int){ 3 }, PMIX_INT);
	ck_assert_int_eq(sxr_dir_publish(d, &a0, info, 1), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(sxr_dir_publish(d, &a0, NULL, 0), PMIX_ERR_BAD_PARAM);
	PMIX_INFO_DESTRUCT(&info[0]);
	/* a range of the wrong type is ignored (default range) */
	PMIX_INFO_LOAD(&info[0], "k", "v", PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_RANGE, "namespace", PMIX_STRING);
	ck_assert_int_eq(sxr_dir_publish(d, &a0, info, 2), PMIX_SUCCESS);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	look(d, "B", 0, "k", -1, 0);
	ck_assert_int_eq(got.status, PMIX_SUCCESS);
	/* lookups without keys */
	memset(&got, 0, sizeof(got));
	sxr_dir_lookup(d, &a0, NULL, NULL, 0, lookup_cb, NULL);
	ck_assert_int_eq(got.status, PMIX_ERR_BAD_PARAM);
	sxr_dir_lookup(d, &a0, nokeys, NULL, 0, lookup_cb, NULL);
	ck_assert_int_eq(got.calls, 2);
	ck_assert_int_eq(got.status, PMIX_ERR_BAD_PARAM);
	sxr_dir_destroy(d);
	sxr_dir_destroy(NULL);
}
END_TEST

static Suite *dir_suite(void)
{
	Suite *s = suite_create("sxr_dir");
	TCase *tc = tcase_create("directory");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, publish_lookup);
	tcase_add_test(tc, ranges_and_duplicates);
	tcase_add_test(tc, first_read);
	tcase_add_test(tc, wait_then_publish);
	tcase_add_test(tc, wait_times_out);
	tcase_add_test(tc, publisher_ends);
	tcase_add_test(tc, unpublish);
	tcase_add_test(tc, broken_requests);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = dir_suite, .fork = CK_FORK });
}
