/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_fence.c - protocol tests of fences (coll.c, delta.c): one
 * host fence_nb per collective, local-only ones without a host, timeouts,
 * peers vanishing mid-fence, host failures; collecting fences hand the
 * host only the records posted since the last fence over the same
 * participants, a failed fence does not count as sent, and a client
 * remembers a bounded number of participant sets.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"

static void two_client_fence(bool collect, int *fd0, int *fd1)
{
	pmix_data_buffer_t b;
	pxc_store_t *st;

	*fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	*fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_commit(*fd0, 0, "k.remote", "r0", PMIX_REMOTE);
	rc_commit(*fd0, 0, "k.local", "l0", PMIX_LOCAL);
	rc_commit(*fd1, 1, "k.global", "g1", PMIX_GLOBAL);
	rc_fence_send(*fd0, 7, collect, 0);
	rc_fence_send(*fd1, 9, collect, 0);
	ck_assert_int_eq(rc_reply(*fd0, 7, &b), PMIX_SUCCESS);
	st = blob_store(&b);
	pxc_buf_clear(&b);
	if (collect) {
		ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 0, "k.remote"), "r0");
		ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.global"), "g1");
		ck_assert_ptr_null(sval(st, NS, PXC_LVL_PROC, 0, "k.local"));
	} else {
		ck_assert_ptr_null(sval(st, NS, PXC_LVL_PROC, 1, "k.global"));
	}
	pxc_store_destroy(st);
	ck_assert_int_eq(rc_reply(*fd1, 9, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
}

START_TEST(fence_collect_one_host_call)
{
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	two_client_fence(true, &fd0, &fd1);
	ck_assert_int_eq(host.n_fence, 1);
	ck_assert_uint_eq(host.fence_nprocs, 1);
	ck_assert_uint_gt(host.fence_ndata, 0);
	close(fd0);
	close(fd1);
	usleep(20000);
	two_client_fence(false, &fd0, &fd1); /* new connections, no data */
	ck_assert_int_eq(host.n_fence, 2);
	ck_assert_uint_eq(host.fence_ndata, 0);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(fence_twice_and_without_host)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&none, false), PMIX_SUCCESS);
	register_job(2);
	two_client_fence(true, &fd0, &fd1);
	/* a second fence on the same connections, no data */
	rc_fence_send(fd1, 21, false, 0);
	rc_fence_send(fd0, 20, false, 0);
	ck_assert_int_eq(rc_reply(fd0, 20, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd1, 21, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(fence_timeout)
{
	pmix_data_buffer_t b;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_fence_send(fd0, 3, false, 1);
	ck_assert_int_eq(rc_reply(fd0, 3, &b), PMIX_ERR_TIMEOUT);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_fence, 0);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(fence_peer_drops)
{
	pmix_data_buffer_t b;
	int fd0, fd1, fd2;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(3);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	fd2 = rc_hello(2, PMIX_SUCCESS, NULL);
	rc_fence_send(fd0, 3, false, 0);
	/* rank 2 vanishes in the middle of a message */
	write_all(fd2, "SLMX\0\0\0\x20", 8);
	close(fd2);
	ck_assert_int_ne(rc_reply(fd0, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	/* later requests naming it fail fast */
	rc_fence_send(fd1, 4, false, 0);
	ck_assert_int_ne(rc_reply(fd1, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_fence, 0);
	ck_assert_int_eq(host.n_finalized, 1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(fence_host_fails)
{
	pmix_data_buffer_t b;
	int fd0;

	host.fail_fence = 1;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_fence_send(fd0, 3, true, 0);
	ck_assert_int_eq(rc_reply(fd0, 3, &b), PMIX_ERR_UNREACH);
	pxc_buf_clear(&b);
	/* the server carries on */
	host.fail_fence = 0;
	rc_fence_send(fd0, 4, true, 0);
	ck_assert_int_eq(rc_reply(fd0, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	close(fd0);
	stop_server();
}
END_TEST

static void rc_fence_procs(int fd, uint32_t tag, const pmix_proc_t *procs, size_t n)
{
	pmix_info_t info;
	pmix_data_buffer_t b;

	PMIx_Info_load(&info, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	pack_procs_info(&b, procs, n, &info, 1);
	rc_send(fd, PXC_CMD_FENCE, tag, &b);
	PMIx_Info_destruct(&info);
}

/* What the host was handed by the last fence, as a store. */
static pxc_store_t *host_blob(void)
{
	pxc_store_t *st = pxc_store_create();

	host.fence_blob.unpack_ptr = host.fence_blob.base_ptr;
	ck_assert_int_eq(pxc_store_unpack(st, &host.fence_blob), PMIX_SUCCESS);
	return st;
}

/* A collecting fence of fd0 and fd1 (ranks 0, 1) over procs (n 0 = the
 * namespace) that must end with want; returns the host's blob (or NULL
 * when the host was not called) and checks that the reply carries the
 * same records. */
static pxc_store_t *fence2(int fd0, int fd1, const pmix_proc_t *procs, size_t n, pmix_status_t want)
{
	static uint32_t tag = 100;
	int calls = host.n_fence;
	pmix_data_buffer_t b;
	pxc_store_t *st = NULL, *got;

	rc_fence_procs(fd0, ++tag, procs, n);
	rc_fence_procs(fd1, tag + 1000, procs, n);
	ck_assert_int_eq(rc_reply(fd0, tag, &b), want);
	if (want == PMIX_SUCCESS) {
		got = blob_store(&b);
		st = host_blob();
		ck_assert_uint_eq(nrecs(got, 0), nrecs(st, 0));
		ck_assert_uint_eq(nrecs(got, 1), nrecs(st, 1));
		pxc_store_destroy(got);
	}
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd1, tag + 1000, &b), want);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_fence, calls + 1);
	return st;
}

/* Runs fence2 and checks how many records of ranks 0 and 1 it carried. */
static void fence2_expect(int fd0, int fd1, const pmix_proc_t *procs, size_t n, size_t want0,
			  size_t want1)
{
	pxc_store_t *st = fence2(fd0, fd1, procs, n, PMIX_SUCCESS);

	ck_assert_uint_eq(nrecs(st, 0), want0);
	ck_assert_uint_eq(nrecs(st, 1), want1);
	pxc_store_destroy(st);
}

START_TEST(fence_sends_only_new_records)
{
	pmix_data_buffer_t b;
	pmix_proc_t both[2];
	pxc_store_t *st;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_commit(fd0, 0, "k.a", "a0", PMIX_REMOTE);
	rc_commit(fd1, 1, "k.a", "a1", PMIX_GLOBAL);
	rc_commit(fd1, 1, "k.l", "l1", PMIX_LOCAL);
	fence2_expect(fd0, fd1, NULL, 0, 1, 1);
	/* only rank 0 posts again: the next fence carries its new key alone */
	rc_commit(fd0, 0, "k.b", "b0", PMIX_GLOBAL);
	st = fence2(fd0, fd1, NULL, 0, PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 0), 1);
	ck_assert_uint_eq(nrecs(st, 1), 0);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 0, "k.b"), "b0");
	pxc_store_destroy(st);
	/* nothing new: no data at all */
	fence2_expect(fd0, fd1, NULL, 0, 0, 0);
	ck_assert_uint_eq(host.fence_ndata, 0);
	/* a key posted again with a new value is sent again */
	rc_commit(fd1, 1, "k.a", "a1bis", PMIX_GLOBAL);
	st = fence2(fd0, fd1, NULL, 0, PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 0), 0);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.a"), "a1bis");
	pxc_store_destroy(st);
	/* another participant set (explicit ranks) gets everything */
	PMIx_Load_procid(&both[0], NS, 0);
	PMIx_Load_procid(&both[1], NS, 1);
	st = fence2(fd0, fd1, both, 2, PMIX_SUCCESS);
	ck_assert_uint_eq(nrecs(st, 0), 2);
	ck_assert_uint_eq(nrecs(st, 1), 1);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 0, "k.a"), "a0");
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 1, "k.a"), "a1bis");
	pxc_store_destroy(st);
	/* ... once: then only the new data, over either set */
	rc_commit(fd0, 0, "k.c", "c0", PMIX_REMOTE);
	fence2_expect(fd0, fd1, both, 2, 1, 0);
	fence2_expect(fd0, fd1, NULL, 0, 1, 0);
	fence2_expect(fd0, fd1, NULL, 0, 0, 0);
	/* a fence without data changes nothing */
	rc_commit(fd1, 1, "k.d", "d1", PMIX_REMOTE);
	rc_fence_send(fd0, 90, false, 0);
	rc_fence_send(fd1, 91, false, 0);
	ck_assert_int_eq(rc_reply(fd0, 90, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd1, 91, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	fence2_expect(fd0, fd1, NULL, 0, 0, 1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

START_TEST(fence_failed_does_not_advance)
{
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_commit(fd0, 0, "k.a", "a0", PMIX_REMOTE);
	rc_commit(fd1, 1, "k.a", "a1", PMIX_REMOTE);
	/* the very first fence fails: the next one still sends everything */
	host.fail_fence = 1;
	fence2(fd0, fd1, NULL, 0, PMIX_ERR_UNREACH);
	host.fail_fence = 0;
	fence2_expect(fd0, fd1, NULL, 0, 1, 1);
	/* new data, a failed fence, then the data still goes */
	rc_commit(fd0, 0, "k.b", "b0", PMIX_REMOTE);
	host.fail_fence = 1;
	fence2(fd0, fd1, NULL, 0, PMIX_ERR_UNREACH);
	ck_assert_uint_gt(host.fence_ndata, 0);
	host.fail_fence = 0;
	fence2_expect(fd0, fd1, NULL, 0, 1, 0);
	fence2_expect(fd0, fd1, NULL, 0, 0, 0);
	/* a client that connects again starts with an empty store: every
	 * local client sends everything once more */
	close(fd1);
	usleep(50000);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	fence2_expect(fd0, fd1, NULL, 0, 2, 1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* More signatures than a client remembers: the least recently used one is
 * forgotten and its next fence sends everything. */
START_TEST(fence_signatures_bounded)
{
	pmix_proc_t procs[3];
	const int nsig = 17;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_commit(fd0, 0, "k.a", "a0", PMIX_REMOTE);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS, 1);
	/* signature i: ranks 0, 1 and rank i of another (remote) namespace */
	for (int i = 0; i < nsig; i++) {
		PMIx_Load_procid(&procs[2], NS2, (pmix_rank_t)i);
		fence2_expect(fd0, fd1, procs, 3, 1, 0);
	}
	PMIx_Load_procid(&procs[2], NS2, nsig - 1);
	fence2_expect(fd0, fd1, procs, 3, 0, 0); /* remembered */
	PMIx_Load_procid(&procs[2], NS2, 0);
	fence2_expect(fd0, fd1, procs, 3, 1, 0); /* evicted */
	fence2_expect(fd0, fd1, procs, 3, 0, 0);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "fence_host", fence_collect_one_host_call },
		{ "fence_local", fence_twice_and_without_host },
		{ "fence_timeout", fence_timeout },
		{ "fence_drop", fence_peer_drops },
		{ "fence_fail", fence_host_fails },
		{ "fence_delta", fence_sends_only_new_records },
		{ "fence_delta_fail", fence_failed_does_not_advance },
		{ "fence_delta_bounded", fence_signatures_bounded },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
