/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_alloc.c - protocol tests of allocation requests (alloc.c):
 * the host gets the directive, the infos and the peer's own uid and gid
 * whatever the client claims, its results and its refusals come back, no
 * host function is NOT_SUPPORTED, a host that answers at once
 * (PMIX_OPERATION_SUCCEEDED) is a success without results, and broken
 * requests close the connection without reaching the host.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rawclient.h"
#include "srvthread.h"

/* What the host was handed (written in the progress thread, read after
 * the reply that follows). */
static struct {
	int n;
	pmix_alloc_directive_t dir;
	int nids;
	long uid, gid;
	char reqid[32];
	pmix_proc_t who;
} seen;

static void note(const pmix_proc_t *p, pmix_alloc_directive_t dir, const pmix_info_t *d, size_t n)
{
	seen.n++;
	seen.dir = dir;
	seen.who = *p;
	seen.nids = 0;
	seen.uid = seen.gid = -1;
	seen.reqid[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool uid = PMIx_Check_key(d[i].key, PMIX_USERID);

		if (uid || PMIx_Check_key(d[i].key, PMIX_GRPID)) {
			seen.nids++;
			*(uid ? &seen.uid : &seen.gid) = d[i].value.type == PMIX_UINT32 ?
								 (long)d[i].value.data.uint32 :
								 -1;
		} else if (PMIx_Check_key(d[i].key, PMIX_ALLOC_REQ_ID) &&
			   d[i].value.type == PMIX_STRING) {
			snprintf(seen.reqid, sizeof(seen.reqid), "%s", d[i].value.data.string);
		}
	}
}

/* NEW: PMIX_ALLOC_ID "7" through the callback; EXTEND: refused at once;
 * RELEASE: PMIX_OPERATION_SUCCEEDED at once; others: an error through
 * the callback. */
static pmix_status_t h_alloc(const pmix_proc_t *p, pmix_alloc_directive_t dir,
			     const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cb,
			     void *cbdata)
{
	pmix_info_t res;

	note(p, dir, data, ndata);
	switch (dir) {
	case PMIX_ALLOC_NEW:
		PMIx_Info_load(&res, PMIX_ALLOC_ID, "7", PMIX_STRING);
		cb(PMIX_SUCCESS, &res, 1, cbdata, NULL, NULL);
		PMIx_Info_destruct(&res);
		return PMIX_SUCCESS;
	case PMIX_ALLOC_EXTEND: return PMIX_ERR_NO_PERMISSIONS;
	case PMIX_ALLOC_RELEASE: return PMIX_OPERATION_SUCCEEDED;
	default: cb(PMIX_ERR_NOT_SUPPORTED, NULL, 0, cbdata, NULL, NULL); return PMIX_SUCCESS;
	}
}

static pmix_server_module_t alloc_module = { .allocate = h_alloc };

static void send_alloc(int fd, uint32_t tag, pmix_alloc_directive_t dir, const pmix_info_t *info,
		       size_t n)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack(&b, &dir, 1, PMIX_UINT8);
	pxc_pack_array(&b, info, n, PMIX_INFO);
	rc_send(fd, PXC_CMD_ALLOC, tag, &b);
}

START_TEST(alloc_to_host)
{
	uint32_t root = 0;
	pmix_info_t in[3], *res = NULL;
	pmix_data_buffer_t b;
	size_t n = 0;
	int fd;

	ck_assert_int_eq(start_server(&alloc_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&in[0], PMIX_USERID, &root, PMIX_UINT32);
	PMIx_Info_load(&in[1], PMIX_GRPID, "0", PMIX_STRING);
	PMIx_Info_load(&in[2], PMIX_ALLOC_REQ_ID, "r1", PMIX_STRING);
	send_alloc(fd, 2, PMIX_ALLOC_NEW, in, 3);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(res[0].key, PMIX_ALLOC_ID);
	ck_assert_str_eq(res[0].value.data.string, "7");
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(&b);
	/* the peer's ids only, the caller's other infos as they were */
	ck_assert_int_eq(seen.n, 1);
	ck_assert_int_eq(seen.dir, PMIX_ALLOC_NEW);
	ck_assert_int_eq(seen.nids, 2);
	ck_assert_int_eq(seen.uid, (long)getuid());
	ck_assert_int_eq(seen.gid, (long)getgid());
	ck_assert_str_eq(seen.reqid, "r1");
	ck_assert_str_eq(seen.who.nspace, NS);
	ck_assert_uint_eq(seen.who.rank, 1);
	/* refused at once, answered at once, refused later */
	send_alloc(fd, 3, PMIX_ALLOC_EXTEND, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_ERR_NO_PERMISSIONS);
	pxc_buf_clear(&b);
	send_alloc(fd, 4, PMIX_ALLOC_RELEASE, in, 1);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 0);
	pxc_buf_clear(&b);
	send_alloc(fd, 5, 99, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	ck_assert_int_eq(seen.n, 4);
	ck_assert_int_eq(seen.dir, 99);
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&in[i]);
	close(fd);
	stop_server();
}
END_TEST

START_TEST(alloc_no_module)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&none, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	send_alloc(fd, 2, PMIX_ALLOC_NEW, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	close(fd);
	stop_server();
}
END_TEST

/* Requests cut short or garbled: each closes its connection, the host
 * hears nothing and the server serves the next client. */
START_TEST(alloc_broken)
{
	pmix_data_buffer_t b, full;
	pmix_info_t info;
	uint8_t dir = PMIX_ALLOC_NEW;
	int fd;

	ck_assert_int_eq(start_server(&alloc_module, false), PMIX_SUCCESS);
	register_job(4);
	/* nothing at all */
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_send(fd, PXC_CMD_ALLOC, 2, NULL);
	ck_assert(rc_closed(fd));
	close(fd);
	/* the directive only */
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack(&b, &dir, 1, PMIX_UINT8);
	rc_send(fd, PXC_CMD_ALLOC, 2, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	/* a directive of the wrong type, then good infos */
	fd = rc_hello(2, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_u32(&b, 1);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_ALLOC, 2, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	/* infos cut inside their last one */
	fd = rc_hello(3, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&info, PMIX_ALLOC_QUEUE, "a-queue-name", PMIX_STRING);
	pxc_buf_init(&full);
	pxc_pack(&full, &dir, 1, PMIX_UINT8);
	pxc_pack_array(&full, &info, 1, PMIX_INFO);
	pxc_buf_init(&b);
	pxc_buf_append(&b, full.base_ptr, full.bytes_used - 5);
	pxc_buf_clear(&full);
	rc_send(fd, PXC_CMD_ALLOC, 2, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	ck_assert_int_eq(seen.n, 0);
	/* the server carries on */
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	send_alloc(fd, 3, PMIX_ALLOC_NEW, &info, 1);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(seen.n, 1);
	PMIx_Info_destruct(&info);
	close(fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "alloc_to_host", alloc_to_host },
		{ "alloc_no_module", alloc_no_module },
		{ "alloc_broken", alloc_broken },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
