/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_events.c - protocol tests of events (events.c): a client's
 * NOTIFY reaches the local clients registered for it and goes to the host
 * only for ranges beyond this node; an event raised in the server process
 * is delivered and never sent to the host.
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
#include "server/event.h"

START_TEST(events_delivery)
{
	pmix_data_buffer_t b;
	pmix_status_t code = -12345, got;
	pmix_data_range_t range = PMIX_RANGE_LOCAL;
	pmix_proc_t src;
	pxc_wire_hdr_t h;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd0, PXC_CMD_REGEVENTS, 2, &b);
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	/* rank 1 notifies, local range: rank 0 gets it, the host does not */
	PMIx_Load_procid(&src, NS, 1);
	for (int round = 0; round < 2; round++) {
		pxc_buf_init(&b);
		pxc_pack_status(&b, code);
		pxc_pack_proc(&b, &src);
		pxc_pack(&b, &range, 1, PMIX_DATA_RANGE);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd1, PXC_CMD_NOTIFY, 3, &b);
		ck_assert_int_eq(rc_reply(fd1, 3, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
		ck_assert_int_eq(rc_recv(fd0, &h, &b, TMO), 0);
		ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
		ck_assert_int_eq(pxc_unpack_status(&b, &got), PMIX_SUCCESS);
		ck_assert_int_eq(got, code);
		pxc_buf_clear(&b);
		ck_assert_int_eq(host.n_notify, round);
		range = PMIX_RANGE_SESSION;
	}
	/* raised in the server process: delivered, never sent to the host */
	ck_assert_int_eq(pxc_server_notify(code, NULL, PMIX_RANGE_SESSION, NULL, 0, NULL, NULL),
			 PMIX_SUCCESS);
	ck_assert_int_eq(rc_recv(fd0, &h, &b, TMO), 0);
	ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_notify, 1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "events", events_delivery },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
