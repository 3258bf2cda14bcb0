/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_host.c - protocol tests of the boundary with the host module
 * (hostreq.c): an upcall's failure reaches the client as its status, a
 * missing module function is NOT_SUPPORTED, requests a host cannot
 * sensibly get are refused; keep_module checks that everything the server
 * hands the host stays valid until the host calls back, even when the
 * requester is gone or the collective timed out; bad_module calls back
 * twice, late, and after finalize; a host deregisters clients or the whole
 * namespace from inside client_finalized.
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
#include "server/get.h"
#include "server/nspace.h"

START_TEST(host_failures_propagate)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	pmix_info_t info;
	int fd;

	host.fail_connected = 1;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_ERR_NO_PERMISSIONS, NULL);
	ck_assert(rc_closed(fd));
	close(fd);
	host.fail_connected = 0;
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* publish */
	PMIx_Info_load(&info, "svc", "port", PMIX_STRING);
	host.fail_publish = 1;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_DUPLICATE_KEY);
	pxc_buf_clear(&b);
	host.fail_publish = 0;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 3, &b);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
	/* lookup */
	{
		char *keys[1] = { "svc" };
		pmix_pdata_t *pd = NULL;
		size_t n = 0;

		pxc_buf_init(&b);
		pxc_pack_array(&b, keys, 1, PMIX_STRING);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_LOOKUP, 4, &b);
		ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&pd, &n, PMIX_PDATA), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(pd[0].value.data.string, "port-1");
		pxc_array_free(pd, n, PMIX_PDATA);
		pxc_buf_clear(&b);
	}
	/* spawn fails */
	{
		pmix_app_t app;

		memset(&app, 0, sizeof(app));
		app.cmd = "true";
		app.maxprocs = 1;
		host.fail_spawn = 1;
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		pxc_pack_array(&b, &app, 1, PMIX_APP);
		rc_send(fd, PXC_CMD_SPAWN, 5, &b);
		ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_ERR_JOB_FAILED_TO_LAUNCH);
		pxc_buf_clear(&b);
		host.fail_spawn = 0;
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		pxc_pack_array(&b, &app, 1, PMIX_APP);
		rc_send(fd, PXC_CMD_SPAWN, 6, &b);
		ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_SUCCESS);
		char *ns = NULL;
		ck_assert_int_eq(pxc_unpack_str(&b, &ns), PMIX_SUCCESS);
		ck_assert_str_eq(ns, "child.ns");
		free(ns);
		pxc_buf_clear(&b);
	}
	/* abort fails */
	host.fail_abort = 1;
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, "bye");
	pxc_pack_array(&b, NULL, 0, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 7, &b);
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_ERROR);
	pxc_buf_clear(&b);
	/* log: no host log -> not supported */
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_LOG, 8, &b);
	ck_assert_int_eq(rc_reply(fd, 8, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	close(fd);
	stop_server();
	(void)none;
}
END_TEST

START_TEST(null_module_not_supported)
{
	pmix_server_module_t none = { 0 };
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&none, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	/* group: without a host group upcall, a group of this node's clients
	 * is made here alone */
	{
		uint8_t op = PMIX_GROUP_CONSTRUCT;
		pmix_proc_t self;

		PMIx_Load_procid(&self, NS, 0);
		pxc_buf_init(&b);
		pxc_pack(&b, &op, 1, PMIX_UINT8);
		pxc_pack_str(&b, "grp");
		pxc_pack_array(&b, &self, 1, PMIX_PROC);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_GROUP, 3, &b);
		ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
	}
	/* remote GET without direct_modex: not found */
	ck_assert_int_eq(rc_get(fd, 4, NS, 3, "k", NULL), PMIX_ERR_NOT_FOUND);
	close(fd);
	stop_server();
}
END_TEST

#define LIFE_KEY "life.key"

#define LIFE_VAL "life-value-0123456789abcdef"

static void life_info(pmix_info_t *i)
{
	PMIx_Info_load(i, LIFE_KEY, LIFE_VAL, PMIX_STRING);
}

static void send_two_infos(int fd, uint16_t cmd, uint32_t tag, const pmix_info_t *info)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_array(&b, info, 1, PMIX_INFO);
	pxc_pack_array(&b, info, 1, PMIX_INFO);
	rc_send(fd, cmd, tag, &b);
}

/* Sends, without waiting for the replies, every client request that a
 * server hands to a host module function, each carrying data the host
 * may keep. Returns how many. */
static int send_all_upcalls(int fd)
{
	pmix_data_buffer_t b;
	pmix_info_t info;
	pmix_proc_t proc;
	char *keys[1] = { LIFE_KEY };
	pmix_app_t app;
	pmix_status_t code = -12345;
	pmix_data_range_t range = PMIX_RANGE_SESSION;
	uint8_t op = 0;

	life_info(&info);
	PMIx_Load_procid(&proc, NS, 1);
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, LIFE_VAL);
	pxc_pack_array(&b, &proc, 1, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 10, &b);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, 11, &b);
	for (int i = 0; i < 2; i++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, keys, 1, PMIX_STRING);
		pxc_pack_array(&b, &info, 1, PMIX_INFO);
		rc_send(fd, i ? PXC_CMD_UNPUBLISH : PXC_CMD_LOOKUP, 12 + (uint32_t)i, &b);
	}
	memset(&app, 0, sizeof(app));
	app.cmd = LIFE_VAL;
	app.maxprocs = 1;
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	pxc_pack_array(&b, &app, 1, PMIX_APP);
	rc_send(fd, PXC_CMD_SPAWN, 14, &b);
	send_two_infos(fd, PXC_CMD_LOG, 15, &info);
	pxc_buf_init(&b);
	pxc_pack(&b, &op, 1, PMIX_UINT8);
	pxc_pack_str(&b, LIFE_VAL);
	PMIx_Load_procid(&proc, NS, 0); /* the requester: a group of its own */
	pxc_pack_array(&b, &proc, 1, PMIX_PROC);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_GROUP, 16, &b);
	PMIx_Load_procid(&proc, NS, 1);
	send_query(fd, 17, "life.query", NS); /* a key left to the host */
	pack_procs_info(&b, &proc, 1, &info, 1);
	rc_send(fd, PXC_CMD_JOBCTL, 18, &b);
	pxc_buf_init(&b);
	pxc_pack_status(&b, code);
	pxc_pack_proc(&b, &proc);
	pxc_pack(&b, &range, 1, PMIX_DATA_RANGE);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_NOTIFY, 19, &b);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_REGEVENTS, 20, &b);
	PMIx_Load_procid(&proc, NS, 3); /* remote: direct modex */
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &proc);
	pxc_pack_str(&b, "k.r");
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_GET, 21, &b);
	rc_cred_send(fd, 22, NULL, &info, 1);
	rc_cred_send(fd, 23, &(pmix_byte_object_t){ .bytes = LIFE_VAL, .size = sizeof(LIFE_VAL) },
		     &info, 1);
	PMIx_Info_destruct(&info);
	return 14;
}

/* Every upcall's arguments stay valid until the host calls back, even
 * when the requester is gone by then. */
START_TEST(host_keeps_args)
{
	static const char *const all[] = {
		"tool",      "connected", "abort",     "publish", "lookup",  "unpublish",
		"spawn",     "log",       "group",     "query",   "jobctl",  "notify",
		"regevents", "dmodex",    "finalized", "getcred", "valcred",
	};
	pmix_data_buffer_t b;
	pmix_info_t info;
	int fd, n = 0;

	keeper.keep_ms = 150;
	ck_assert_int_eq(start_server(&keep_module, true), PMIX_SUCCESS);
	register_job(2);
	life_info(&info);
	fd = rc_connect();
	pack_hello_info(&b, PXC_PEER_TOOL, NULL, PMIX_RANK_UNDEF, &info, 1);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	close(fd);
	n++;
	fd = rc_connect();
	pack_hello_info(&b, PXC_PEER_CLIENT, NS, 0, &info, 1);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
	n++;
	n += send_all_upcalls(fd);
	keeper_wait_kept(n);
	/* the requester vanishes while the host still holds everything */
	close(fd);
	n++; /* client_finalized for the lost client */
	keeper_drain(n);
	ck_assert_msg(keeper.bad == 0, "the host saw changed arguments: %s", keeper.bad_what);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ck_assert_msg(keeper_saw(all[i]), "no %s upcall (saw %s)", all[i], keeper.seen);
	stop_server();
}
END_TEST

static void send_coll(int fd, uint16_t cmd, uint32_t tag, bool collect)
{
	pmix_info_t info[3];
	pmix_data_buffer_t b;
	pmix_proc_t proc;
	int t = 1;
	size_t n = 0;

	PMIx_Load_procid(&proc, NS, 0);
	life_info(&info[n++]);
	PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &t, PMIX_INT);
	if (collect)
		PMIx_Info_load(&info[n++], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	pack_procs_info(&b, &proc, 1, info, n);
	rc_send(fd, cmd, tag, &b);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
}

/* A collective that times out while the host still holds its procs and
 * info (the host calls back later). */
START_TEST(host_keeps_coll_args)
{
	pmix_data_buffer_t b;
	int fd;

	keeper.keep_ms = 1;
	ck_assert_int_eq(start_server(&keep_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_commit(fd, 0, "k.g", "g0", PMIX_GLOBAL);
	keeper.keep_ms = 1500;
	send_coll(fd, PXC_CMD_FENCE, 2, true);
	send_coll(fd, PXC_CMD_CONNECT, 3, false);
	send_coll(fd, PXC_CMD_DISCONNECT, 4, false);
	for (int i = 0; i < 3; i++) { /* in any order */
		pxc_wire_hdr_t h;
		pmix_status_t st;

		ck_assert_int_eq(rc_recv(fd, &h, &b, TMO), 0);
		ck_assert(h.tag >= 2 && h.tag <= 4 && (h.flags & PXC_WIRE_F_REPLY));
		ck_assert_int_eq(pxc_unpack_status(&b, &st), PMIX_SUCCESS);
		ck_assert_int_eq(st, PMIX_ERR_TIMEOUT);
		pxc_buf_clear(&b);
	}
	keeper_drain(4);
	ck_assert_msg(keeper.bad == 0, "the host saw changed arguments: %s", keeper.bad_what);
	ck_assert(keeper_saw("fence") && keeper_saw("connect") && keeper_saw("disconnect"));
	keeper.keep_ms = 1;
	close(fd);
	keeper_drain(5);
	stop_server();
}
END_TEST

static void send_publish(int fd, uint32_t tag)
{
	pmix_data_buffer_t b;
	pmix_info_t info;

	life_info(&info);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	rc_send(fd, PXC_CMD_PUBLISH, tag, &b);
	PMIx_Info_destruct(&info);
}

START_TEST(host_calls_back_badly)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	pxc_store_t *st;
	int fd;

	remote_blob();
	keeper.keep_ms = 100;
	ck_assert_int_eq(start_server(&bad_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* twice each: the first answer counts, the second is dropped */
	send_publish(fd, 2);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc_fence_send(fd, 3, true, 0);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_get(fd, 4, NS, 3, "k.r", &st), PMIX_SUCCESS);
	ck_assert_str_eq(sval(st, NS, PXC_LVL_PROC, 3, "k.r"), "remote-val");
	pxc_store_destroy(st);
	keeper_drain(3);
	ck_assert_int_eq(rc_recv(fd, &h, &b, 300), -1); /* no second reply */
	ck_assert_int_eq(rc_get(fd, 5, NS, 3, "k.g", NULL), PMIX_SUCCESS);
	/* a callback held across finalize and a new server */
	host.hold = 1;
	host.hold_status = PMIX_ERR_DUPLICATE_KEY;
	keeper.keep_ms = 400;
	send_publish(fd, 6);
	keeper_wait_kept(4);
	close(fd);
	stop_server();
	ck_assert_int_eq(start_server(&bad_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	host.hold_status = PMIX_SUCCESS;
	keeper.keep_ms = 600;
	send_publish(fd, 7); /* the stale answer (DUPLICATE) comes first */
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	keeper_drain(5);
	/* and one that comes after the last finalize */
	keeper.keep_ms = 200;
	send_publish(fd, 8);
	keeper_wait_kept(6);
	close(fd);
	stop_server();
	keeper_drain(6);
}
END_TEST

/* A host that deregisters a client from inside client_finalized (a
 * finalizing one and a lost one), and one that deregisters the whole
 * namespace there. */
static pmix_status_t d_finalized(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{
	pmix_nspace_t ns;

	(void)so;
	(void)cb;
	(void)cbd;
	host.n_finalized++;
	if (host.dereg_ns) {
		PMIx_Load_nspace(ns, p->nspace);
		PMIx_server_deregister_nspace(ns, NULL, NULL);
	} else {
		PMIx_server_deregister_client(p, NULL, NULL);
	}
	return PMIX_OPERATION_SUCCEEDED;
}

static void dm_cb_count(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
	(void)data;
	(void)sz;
	*(pmix_status_t *)cbdata = status;
}

START_TEST(host_deregisters_in_upcall)
{
	pmix_server_module_t mod = { .client_finalized = d_finalized };
	pmix_data_buffer_t b;
	pmix_proc_t p;
	pmix_status_t dst = 1;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	/* rank 1 waits for rank 0's data, which never comes */
	PMIx_Load_procid(&p, NS, 0);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, "k.never");
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd1, PXC_CMD_GET, 3, &b);
	/* and the host waits for a proc nobody registered */
	PMIx_Load_procid(&p, "nobody.yet", 0);
	ck_assert_int_eq(PMIx_server_dmodex_request(&p, dm_cb_count, &dst), PMIX_SUCCESS);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd0, PXC_CMD_FINALIZE, 5, &b);
	ck_assert_int_eq(rc_reply(fd0, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert(rc_closed(fd0));
	close(fd0);
	/* its parked GET is answered: rank 0 is gone */
	ck_assert_int_eq(rc_reply(fd1, 3, &b), PMIX_ERR_NOT_FOUND);
	pxc_buf_clear(&b);
	/* rank 1 vanishes; the host drops the namespace in the upcall */
	host.dereg_ns = 1;
	close(fd1);
	usleep(100000);
	ck_assert_int_eq(host.n_finalized, 2);
	/* the server carries on */
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(rc_get(fd0, 7, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL), PMIX_SUCCESS);
	close(fd0);
	stop_server();
	ck_assert_int_eq(dst, PMIX_ERR_INIT); /* failed at finalize */
}
END_TEST

/* Requests a host cannot sensibly get, and requests repeated. */
START_TEST(robust_host_requests)
{
	pmix_data_buffer_t b;
	char *keys[2] = { "a", NULL };
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	/* lookup of no key, of a NULL key */
	for (uint32_t n = 0; n < 2; n++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, n ? keys + 1 : keys, n ? 1 : 0, PMIX_STRING);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_LOOKUP, 2 + n, &b);
		ck_assert_int_eq(rc_reply(fd, 2 + n, &b), PMIX_ERR_BAD_PARAM);
		pxc_buf_clear(&b);
	}
	/* abort without a message: the host gets "" */
	pxc_buf_init(&b);
	pxc_pack_status(&b, 3);
	pxc_pack_str(&b, NULL);
	pxc_pack_array(&b, NULL, 0, PMIX_PROC);
	rc_send(fd, PXC_CMD_ABORT, 4, &b);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_abort, 1);
	ck_assert_int_eq(host.abort_msg_null, 0);
	/* FINALIZE twice: the host hears of it once */
	for (uint32_t t = 5; t < 7; t++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		rc_send(fd, PXC_CMD_FINALIZE, t, &b);
		ck_assert_int_eq(rc_reply(fd, t, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
	}
	ck_assert_int_eq(host.n_finalized, 1);
	close(fd);
	stop_server();
}
END_TEST

/* A spawn's reply carries the new job's registered info, fetched through
 * the host's direct_modex (rank WILDCARD) and kept: the caller holds it,
 * and the server answers for it without the host afterwards (the
 * children may have ended). A fetch that fails still answers the spawn,
 * with an empty blob. */
static void spawn_with_info(int fail)
{
	pxc_store_t *st = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };
	pmix_proc_t wild;
	pmix_data_buffer_t b;
	pmix_app_t app;
	char *ns = NULL;
	int fd;

	pmix_value_t size = { .type = PMIX_UINT32, .data.uint32 = 3 };

	v.data.string = "0,1,2";
	pxc_store_put(st, "child.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS, &v, PMIX_SCOPE_UNDEF);
	pxc_store_put(st, "child.ns", PXC_LVL_JOB, 0, PMIX_JOB_SIZE, &size, PMIX_SCOPE_UNDEF);
	pxc_buf_init(&host.dmodex_blob);
	pxc_store_pack(st, "child.ns", -1, PXC_ID_ANY, PXC_KINDS_INFO, &host.dmodex_blob);
	pxc_store_destroy(st);
	host.fail_dmodex = fail;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	memset(&app, 0, sizeof(app));
	app.cmd = "true";
	app.maxprocs = 3;
	for (uint32_t tag = 3; tag <= 4; tag++) {
		pxc_buf_init(&b);
		pxc_pack_array(&b, NULL, 0, PMIX_INFO);
		pxc_pack_array(&b, &app, 1, PMIX_APP);
		rc_send(fd, PXC_CMD_SPAWN, tag, &b);
		ck_assert_int_eq(rc_reply(fd, tag, &b), PMIX_SUCCESS);
		ck_assert_int_eq(pxc_unpack_str(&b, &ns), PMIX_SUCCESS);
		ck_assert_str_eq(ns, "child.ns");
		free(ns);
		st = blob_store(&b);
		if (fail)
			ck_assert_ptr_null(sval(st, "child.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS));
		else
			ck_assert_str_eq(sval(st, "child.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS),
					 "0,1,2");
		pxc_store_destroy(st);
		pxc_buf_clear(&b);
	}
	/* fetched once (then held), or tried each time when it fails */
	ck_assert_int_eq(host.n_dmodex, fail ? 2 : 1);
	if (!fail) {
		pmix_value_t *got = NULL;

		PMIx_Load_procid(&wild, "child.ns", PMIX_RANK_WILDCARD);
		ck_assert_int_eq(pxc_server_get_local(&wild, PMIX_LOCAL_PEERS, NULL, 0, &got),
				 PMIX_SUCCESS);
		ck_assert_str_eq(got->data.string, "0,1,2");
		PMIx_Value_free(got, 1);
	}
	host.fail_dmodex = 0;
	close(fd);
	stop_server();
	pxc_buf_clear(&host.dmodex_blob);
}

START_TEST(spawn_reply_has_job_info)
{
	spawn_with_info(0);
}
END_TEST

START_TEST(spawn_fetch_fails_softly)
{
	spawn_with_info(1);
}
END_TEST

/* The namespaces a server fetched are bounded: of 257 held one after the
 * other (pxc_server_hold_nspace, as a spawning step's stepds do), the
 * first is gone from the store, the last is there; a namespace held
 * already is not fetched again. */
START_TEST(held_nspaces_bounded)
{
	pmix_value_t *got = NULL;
	pmix_proc_t wild;
	char ns[64];

	host.dmodex_job = 1;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	for (int i = 0; i < 257; i++) {
		snprintf(ns, sizeof(ns), "held.%d", i);
		ck_assert_int_eq(pxc_server_hold_nspace(ns), PMIX_SUCCESS);
		for (int t = 0; t < 500 && host.n_dmodex < i + 1; t++)
			usleep(1000);
	}
	PMIx_Load_procid(&wild, "held.256", PMIX_RANK_WILDCARD);
	for (int t = 0; t < 500 && !got; t++) {
		if (pxc_server_get_local(&wild, PMIX_JOB_SIZE, NULL, 0, &got) != PMIX_SUCCESS)
			usleep(1000);
	}
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->data.uint32, 7);
	PMIx_Value_free(got, 1);
	got = NULL;
	ck_assert_int_eq(pxc_server_hold_nspace("held.256"), PMIX_SUCCESS);
	usleep(50000);
	ck_assert_int_eq(host.n_dmodex, 257); /* held: not fetched again */
	PMIx_Load_procid(&wild, "held.0", PMIX_RANK_WILDCARD);
	ck_assert_int_ne(pxc_server_get_local(&wild, PMIX_JOB_SIZE, NULL, 0, &got), PMIX_SUCCESS);
	host.dmodex_job = 0;
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "host_fail", host_failures_propagate },
		{ "null_module", null_module_not_supported },
		{ "host_keeps_args", host_keeps_args },
		{ "host_keeps_coll_args", host_keeps_coll_args },
		{ "host_calls_back_badly", host_calls_back_badly },
		{ "host_deregisters", host_deregisters_in_upcall },
		{ "robust_host_requests", robust_host_requests },
		{ "spawn_reply_has_job_info", spawn_reply_has_job_info },
		{ "spawn_fetch_fails_softly", spawn_fetch_fails_softly },
		{ "held_nspaces_bounded", held_nspaces_bounded },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
