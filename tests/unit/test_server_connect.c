/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_connect.c - protocol tests of connect and disconnect
 * (connect.c): the members' posted data to the host and the host's data
 * back to every member, other namespaces' registered info, unknown
 * namespaces fetched through direct_modex, attribute checks,
 * cluster-qualified names, results (context id, group rank) and what may
 * be disconnected, concurrent connects told apart by PMIX_CONNECT_ID,
 * connect events (NOTIFY_REQ, NOTIFY_EACH, reports from other servers),
 * OPTIONAL participants and invalid termination.
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
#include "server/coll.h"
#include "server/get.h"
#include "server/connect.h"

/* A connect over two namespaces hands the host the local members'
 * posted data (PXC_CONNECT_DATA), and data the host gathered elsewhere
 * (pxc_server_host_data before its callback) reaches every member in the
 * reply, so no direct modex follows. */
static int cd_had_key;

static pmix_status_t h_connect_data(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
				    size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
	const pmix_info_t *d = pxc_info_find(info, ninfo, PXC_CONNECT_DATA);
	pxc_store_t *st = pxc_store_create(), *far = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };
	pmix_data_buffer_t blob;

	(void)procs;
	(void)n;
	if (d && d->value.type == PMIX_BYTE_OBJECT) {
		pxc_buf_init(&blob);
		pxc_buf_append(&blob, d->value.data.bo.bytes, d->value.data.bo.size);
		cd_had_key = pxc_store_unpack(st, &blob) == PMIX_SUCCESS &&
			     sval(st, NS, PXC_LVL_PROC, 0, "k.near") &&
			     !sval(st, NS, PXC_LVL_PROC, 0, "k.mine");
		pxc_buf_clear(&blob);
	}
	v.data.string = "far";
	pxc_store_put(far, NS2, PXC_LVL_PROC, 0, "k.far", &v, PMIX_GLOBAL);
	pxc_buf_init(&blob);
	pxc_store_pack(far, NS2, -1, PXC_ID_ANY, PXC_KINDS_ALL, &blob);
	ck_assert_int_eq(pxc_server_host_data(blob.base_ptr, blob.bytes_used), PMIX_SUCCESS);
	ck_assert_int_ne(pxc_server_host_data("garbage!", 8), PMIX_SUCCESS);
	pxc_buf_clear(&blob);
	pxc_store_destroy(st);
	pxc_store_destroy(far);
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

START_TEST(connect_carries_posted_data)
{
	pmix_server_module_t mod = full_module;
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	pxc_store_t *st;
	int fd0;

	mod.connect = h_connect_data;
	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(1);
	ck_assert_int_eq(reg_nspace(NS2, 0, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	rc_commit(fd0, 0, "k.near", "near", PMIX_GLOBAL);
	rc_commit(fd0, 0, "k.mine", "mine", PMIX_LOCAL); /* stays on the node */
	PMIx_Load_procid(&procs[0], NS2, 0);
	PMIx_Load_procid(&procs[1], NS, 0);
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fd0, PXC_CMD_CONNECT, 4, &b);
	ck_assert_int_eq(rc_reply(fd0, 4, &b), PMIX_SUCCESS);
	ck_assert(cd_had_key);
	st = blob_store(&b);
	ck_assert_str_eq(sval(st, NS2, PXC_LVL_PROC, 0, "k.far"), "far");
	pxc_store_destroy(st);
	pxc_buf_clear(&b);
	close(fd0);
	stop_server();
}
END_TEST

START_TEST(connect_gives_other_nspace)
{
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	pmix_info_t info;
	pxc_store_t *st;
	int fd0;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	PMIx_Info_load(&info, PMIX_LOCAL_PEERS, "5,6", PMIX_STRING);
	ck_assert_int_eq(reg_nspace(NS2, 0, &info, 1, NULL, NULL), PMIX_SUCCESS);
	PMIx_Info_destruct(&info);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS2, 0);
	PMIx_Load_procid(&procs[1], NS, 0);
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fd0, PXC_CMD_CONNECT, 4, &b);
	ck_assert_int_eq(rc_reply(fd0, 4, &b), PMIX_SUCCESS);
	st = blob_store(&b);
	ck_assert_str_eq(sval(st, NS2, PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS), "5,6");
	ck_assert_ptr_null(sval(st, NS, PXC_LVL_JOB, 0, "test.jobkey"));
	pxc_store_destroy(st);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_connect, 1);
	/* the in-process Get sees it too */
	{
		pmix_value_t *v = NULL;
		pmix_proc_t w;

		PMIx_Load_procid(&w, NS2, PMIX_RANK_WILDCARD);
		ck_assert_int_eq(pxc_server_get_local(&w, PMIX_LOCAL_PEERS, NULL, 0, &v),
				 PMIX_SUCCESS);
		ck_assert_str_eq(v->data.string, "5,6");
		PMIx_Value_free(v, 1);
	}
	close(fd0);
	stop_server();
}
END_TEST

/* A namespace this server does not hold: after the host's connect, its
 * registered info is fetched through direct_modex (rank WILDCARD) before
 * the reply, so a PMIX_OPTIONAL Get finds it; a failed fetch still
 * completes the connect. */
static void connect_unknown(int fail)
{
	pxc_store_t *st = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	int fd0;

	v.data.string = "7,8";
	pxc_store_put(st, "far.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS, &v, PMIX_SCOPE_UNDEF);
	pxc_buf_init(&host.dmodex_blob);
	pxc_store_pack(st, "far.ns", -1, PXC_ID_ANY, PXC_KINDS_INFO, &host.dmodex_blob);
	pxc_store_destroy(st);
	host.fail_dmodex = fail;
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], "far.ns", PMIX_RANK_WILDCARD);
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fd0, PXC_CMD_CONNECT, 4, &b);
	ck_assert_int_eq(rc_reply(fd0, 4, &b), PMIX_SUCCESS);
	ck_assert_int_eq(host.n_connect, 1);
	ck_assert_int_eq(host.n_dmodex, 1);
	st = blob_store(&b);
	if (fail) {
		ck_assert_ptr_null(sval(st, "far.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS));
	} else {
		pmix_value_t *got = NULL;

		ck_assert_str_eq(sval(st, "far.ns", PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS), "7,8");
		ck_assert_int_eq(pxc_server_get_local(&procs[1], PMIX_LOCAL_PEERS, NULL, 0, &got),
				 PMIX_SUCCESS);
		ck_assert_str_eq(got->data.string, "7,8");
		PMIx_Value_free(got, 1);
	}
	pxc_store_destroy(st);
	pxc_buf_clear(&b);
	close(fd0);
	stop_server();
}

START_TEST(connect_fetches_unknown_nspace)
{
	connect_unknown(0);
}
END_TEST

START_TEST(connect_fetch_fails_softly)
{
	connect_unknown(1);
}
END_TEST

static int rc_hello_as(const char *ns, pmix_rank_t rank)
{
	return rc_hello_kind(PXC_PEER_CLIENT, ns, rank, PMIX_SUCCESS);
}

/* Sends CONNECT/DISCONNECT over procs with info; returns the reply status
 * (b: after it, cleared unless keep). */
static pmix_status_t rc_cnx(int fd, uint16_t cmd, uint32_t tag, const pmix_proc_t *procs, size_t n,
			    const pmix_info_t *info, size_t ninfo, pmix_data_buffer_t *keep)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	pack_procs_info(&b, procs, n, info, ninfo);
	rc_send(fd, cmd, tag, &b);
	st = rc_reply(fd, tag, &b);
	if (keep)
		*keep = b;
	else
		pxc_buf_clear(&b);
	return st;
}

/* The INFO[] results after a connect reply's blob: context id, group rank
 * (UINT32_MAX: absent); returns how many results. */
static size_t cnx_results(pmix_data_buffer_t *b, size_t *ctx, pmix_rank_t *grank)
{
	pxc_store_t *st = blob_store(b);
	pmix_info_t *res = NULL;
	size_t n = 0;

	pxc_store_destroy(st);
	*ctx = 0;
	*grank = UINT32_MAX;
	ck_assert_int_eq(pxc_unpack_array(b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	for (size_t i = 0; i < n; i++) {
		if (PMIx_Check_key(res[i].key, PMIX_GROUP_CONTEXT_ID)) {
			ck_assert_int_eq(res[i].value.type, PMIX_SIZE);
			*ctx = res[i].value.data.size;
		} else if (PMIx_Check_key(res[i].key, PMIX_CONNECT_GROUP_RANK)) {
			*grank = res[i].value.data.rank;
		}
	}
	pxc_array_free(res, n, PMIX_INFO);
	pxc_buf_clear(b);
	return n;
}

static void reg_other(int nlocal, const char *cluster)
{
	pmix_info_t info[2];
	pmix_proc_t p;
	size_t n = 1;

	PMIx_Info_load(&info[0], PMIX_LOCAL_PEERS, "5,6", PMIX_STRING);
	if (cluster)
		PMIx_Info_load(&info[n++], PMIX_CLUSTER_ID, cluster, PMIX_STRING);
	ck_assert_int_eq(reg_nspace(NS2, nlocal, info, n, NULL, NULL), PMIX_SUCCESS);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
	for (int r = 0; r < nlocal; r++) {
		PMIx_Load_procid(&p, NS2, (pmix_rank_t)r);
		ck_assert_int_eq(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL,
							     NULL),
				 PMIX_SUCCESS);
	}
}

/* Broken attribute types and unknown clusters: a clean error reply (no
 * closed connection, no host call), then a good connect still works. */
START_TEST(connect_bad_attributes)
{
	pmix_proc_t procs[2];
	pmix_info_t info;
	int fd, i5 = 5;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	reg_other(0, NULL);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS2, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info, PMIX_CONNECT_ID, &i5, PMIX_INT);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 2, procs, 2, &info, 1, NULL),
			 PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	PMIx_Info_load(&info, PMIX_CONNECT_ID, "", PMIX_STRING);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 3, procs, 2, &info, 1, NULL),
			 PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	PMIx_Info_load(&info, PMIX_CONNECT_XCHG_ONLY, "yes", PMIX_STRING);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 4, procs, 2, &info, 1, NULL),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 5, procs, 2, &info, 1, NULL),
			 PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	PMIx_Info_load(&info, PMIX_TIMEOUT, "10", PMIX_STRING);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 6, procs, 2, &info, 1, NULL),
			 PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	/* a cluster-qualified name without a registered cluster of ours */
	PMIx_Load_procid(&procs[1], "far:" NS2, PMIX_RANK_WILDCARD);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 7, procs, 2, NULL, 0, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(host.n_connect, 0);
	PMIx_Load_procid(&procs[1], NS2, PMIX_RANK_WILDCARD);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 8, procs, 2, NULL, 0, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(host.n_connect, 1);
	close(fd);
	stop_server();
}
END_TEST

/* "ourcluster:nspace" is the plain nspace; another cluster, or an empty
 * nspace after the colon, is NOT_SUPPORTED. */
START_TEST(connect_cluster_names)
{
	pmix_info_t info[2];
	pmix_proc_t procs[2], p;
	pmix_data_buffer_t b;
	pxc_store_t *st;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	load_u32(&info[0], PMIX_JOB_SIZE, 1);
	PMIx_Info_load(&info[1], PMIX_CLUSTER_ID, "clus", PMIX_STRING);
	ck_assert_int_eq(reg_nspace(NS, 1, info, 2, NULL, NULL), PMIX_SUCCESS);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	PMIx_Load_procid(&p, NS, 0);
	ck_assert_int_eq(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL),
			 PMIX_SUCCESS);
	reg_other(0, NULL);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], "clus:" NS, 0);
	PMIx_Load_procid(&procs[1], "clus:" NS2, PMIX_RANK_WILDCARD);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 2, procs, 2, NULL, 0, &b), PMIX_SUCCESS);
	st = blob_store(&b);
	ck_assert_str_eq(sval(st, NS2, PXC_LVL_JOB, 0, PMIX_LOCAL_PEERS), "5,6");
	pxc_store_destroy(st);
	pxc_buf_clear(&b);
	PMIx_Load_procid(&procs[1], "clux:" NS2, PMIX_RANK_WILDCARD);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 3, procs, 2, NULL, 0, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	PMIx_Load_procid(&procs[1], "clus:", PMIX_RANK_WILDCARD);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 4, procs, 2, NULL, 0, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(host.n_connect, 1);
	close(fd);
	stop_server();
}
END_TEST

/* Disconnect from procs never connected to: INVALID_OPERATION; own job
 * and connected sets: fine (twice too). Results: a context id per
 * connect, the group rank; none with XCHG_ONLY. */
START_TEST(connect_results_and_disconnect)
{
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	pmix_info_t xchg;
	pmix_rank_t gr;
	size_t ctx, ctx2;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(1);
	reg_other(0, NULL);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS2, 0);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 2, procs, 2, NULL, 0, NULL),
			 PMIX_ERR_INVALID_OPERATION);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 3, procs, 1, NULL, 0, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 4, procs, 2, NULL, 0, &b), PMIX_SUCCESS);
	ck_assert_uint_eq(cnx_results(&b, &ctx, &gr), 2);
	ck_assert_uint_ne(ctx, 0);
	ck_assert_uint_eq(gr, 0); /* "test.ns" < "test.other" */
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 5, procs, 2, NULL, 0, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 6, procs, 2, NULL, 0, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 7, procs, 2, NULL, 0, &b), PMIX_SUCCESS);
	cnx_results(&b, &ctx2, &gr);
	ck_assert_uint_ne(ctx2, 0);
	ck_assert_uint_ne(ctx2, ctx);
	PMIx_Info_load(&xchg, PMIX_CONNECT_XCHG_ONLY, NULL, PMIX_BOOL);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_CONNECT, 8, procs, 2, &xchg, 1, &b), PMIX_SUCCESS);
	ck_assert_uint_eq(cnx_results(&b, &ctx, &gr), 0);
	PMIx_Info_destruct(&xchg);
	/* a proc of an nspace never connected to */
	PMIx_Load_procid(&procs[1], "test.third", 0);
	ck_assert_int_eq(rc_cnx(fd, PXC_CMD_DISCONNECT, 9, procs, 2, NULL, 0, NULL),
			 PMIX_ERR_INVALID_OPERATION);
	close(fd);
	stop_server();
}
END_TEST

/* Two connects of the same procs told apart by PMIX_CONNECT_ID, joined
 * in opposite orders: both complete, one host call each. */
START_TEST(connect_ids_concurrent)
{
	pmix_proc_t procs[2];
	pmix_info_t a, bb;
	pmix_data_buffer_t b;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS, 1);
	PMIx_Info_load(&a, PMIX_CONNECT_ID, "a", PMIX_STRING);
	PMIx_Info_load(&bb, PMIX_CONNECT_ID, "b", PMIX_STRING);
	pack_procs_info(&b, procs, 2, &a, 1);
	rc_send(fd0, PXC_CMD_CONNECT, 1, &b);
	pack_procs_info(&b, procs, 2, &bb, 1);
	rc_send(fd0, PXC_CMD_CONNECT, 2, &b);
	pack_procs_info(&b, procs, 2, &bb, 1);
	rc_send(fd1, PXC_CMD_CONNECT, 3, &b);
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd1, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_connect, 1);
	pack_procs_info(&b, procs, 2, &a, 1);
	rc_send(fd1, PXC_CMD_CONNECT, 4, &b);
	ck_assert_int_eq(rc_reply(fd0, 1, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd1, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_connect, 2);
	PMIx_Info_destruct(&a);
	PMIx_Info_destruct(&bb);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* NOTIFY_REQ / NOTIFY_EACH events for the local procs of the set; with
 * PMIX_CONNECT_OPTIONAL a proc that goes away before joining is dropped
 * and the connect completes for the others. */
START_TEST(connect_optional_and_events)
{
	pmix_proc_t procs[2];
	pmix_info_t info[3];
	pmix_data_buffer_t b;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_regevents(fd1, NULL, 0);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS, 1);
	PMIx_Info_load(&info[0], PMIX_CONNECT_NOTIFY_REQ, NULL, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_CONNECT_NOTIFY_EACH, NULL, PMIX_BOOL);
	PMIx_Info_load(&info[2], PMIX_CONNECT_OPTIONAL, NULL, PMIX_BOOL);
	pack_procs_info(&b, procs, 2, info, 3);
	rc_send(fd0, PXC_CMD_CONNECT, 2, &b);
	rc_expect_event(fd1, PMIX_CONNECT_REQUESTED, NS, 0);
	rc_expect_event(fd1, PMIX_PROC_HAS_CONNECTED, NS, 0);
	close(fd1); /* gone before joining: dropped, not a failure */
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_connect, 1);
	ck_assert_int_eq(host.n_notify, 2); /* both events, for other nodes */
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&info[i]);
	close(fd0);
	stop_server();
}
END_TEST

/* NOTIFY_EACH on a disconnect: as each local member joins it, the other
 * procs of the set that registered SLURMIX_PROC_HAS_DISCONNECTED itself
 * get it (a default "every event" handler does not), and the host is
 * handed it for the other nodes. */
START_TEST(disconnect_notify_each)
{
	pmix_status_t code = SLURMIX_PROC_HAS_DISCONNECTED;
	pmix_proc_t procs[3];
	pmix_info_t info;
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	int fd0, fd1, fd2;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(3);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	fd2 = rc_hello(2, PMIX_SUCCESS, NULL);
	rc_regevents(fd1, &code, 1);
	rc_regevents(fd2, NULL, 0); /* every event: not this one */
	for (int r = 0; r < 3; r++)
		PMIx_Load_procid(&procs[r], NS, (pmix_rank_t)r);
	PMIx_Info_load(&info, PMIX_CONNECT_NOTIFY_EACH, NULL, PMIX_BOOL);
	pack_procs_info(&b, procs, 3, &info, 1);
	rc_send(fd0, PXC_CMD_DISCONNECT, 2, &b);
	pxc_buf_clear(&b);
	rc_expect_event(fd1, SLURMIX_PROC_HAS_DISCONNECTED, NS, 0);
	ck_assert_int_eq(rc_recv(fd2, &h, &b, 300), -1);
	ck_assert_int_eq(host.n_notify, 1); /* for the other nodes */
	PMIx_Info_destruct(&info);
	close(fd0);
	close(fd1);
	close(fd2);
	stop_server();
}
END_TEST

/* pxc_server_connect_event in the progress thread. */
typedef struct {
	pmix_status_t code;
	const char *id;
} cev_t;

static void cev_fn(void *arg)
{
	const cev_t *e = arg;
	pmix_proc_t src, set[2];
	pmix_info_t info;

	PMIx_Load_procid(&src, "remote.ns", 3);
	PMIx_Load_procid(&set[0], "remote.ns", PMIX_RANK_WILDCARD);
	PMIx_Load_procid(&set[1], NS, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info, PMIX_CONNECT_ID, e->id, PMIX_STRING);
	pxc_server_connect_event(e->code, &src, set, 2, &info, 1);
	PMIx_Info_destruct(&info);
}

static void post_cev(const cev_t *e)
{
	ck_assert_int_eq(pxc_srv_post(cev_fn, (void *)e), 0);
}

/* Connect events from other servers (the host's report): every
 * HAS_CONNECTED is delivered, CONNECT_REQUESTED once per connect (set +
 * id) whoever asks first - a remote asker, or a local one (whose own
 * CONNECT_REQUESTED then goes to the host, and a remote one after it is
 * dropped); unknown codes are ignored. */
START_TEST(connect_remote_events)
{
	static const cev_t req_a = { PMIX_CONNECT_REQUESTED, "a" },
			   req_b = { PMIX_CONNECT_REQUESTED, "b" },
			   each = { PMIX_PROC_HAS_CONNECTED, "a" },
			   disc = { SLURMIX_PROC_HAS_DISCONNECTED, "a" },
			   other = { PMIX_ERR_PROC_ABORTED, "a" };
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	pmix_info_t info[2];
	pxc_wire_hdr_t h;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_regevents(fd1, NULL, 0);
	rc_regevents(fd1, &disc.code, 1); /* explicitly (not for a default handler) */
	post_cev(&req_a);
	rc_expect_event(fd1, PMIX_CONNECT_REQUESTED, "remote.ns", 3);
	post_cev(&req_a); /* the same connect asked from another node */
	post_cev(&other);
	post_cev(&each);
	rc_expect_event(fd1, PMIX_PROC_HAS_CONNECTED, "remote.ns", 3);
	post_cev(&each);
	rc_expect_event(fd1, PMIX_PROC_HAS_CONNECTED, "remote.ns", 3);
	post_cev(&disc);
	rc_expect_event(fd1, SLURMIX_PROC_HAS_DISCONNECTED, "remote.ns", 3);
	post_cev(&req_b); /* another connect id: announced */
	rc_expect_event(fd1, PMIX_CONNECT_REQUESTED, "remote.ns", 3);
	ck_assert_int_eq(rc_recv(fd1, &h, &b, 300), -1);
	/* local asker for id "c" first: told to the host, a remote "c" after it
	 * is not delivered again */
	PMIx_Load_procid(&procs[0], "remote.ns", PMIX_RANK_WILDCARD);
	PMIx_Load_procid(&procs[1], NS, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info[0], PMIX_CONNECT_NOTIFY_REQ, NULL, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_CONNECT_ID, "c", PMIX_STRING);
	pack_procs_info(&b, procs, 2, info, 2);
	rc_send(fd0, PXC_CMD_CONNECT, 2, &b);
	rc_expect_event(fd1, PMIX_CONNECT_REQUESTED, NS, 0);
	for (int i = 0; i < 100 && host.n_notify < 1; i++) /* right after the event */
		usleep(10000);
	ck_assert_int_eq(host.n_notify, 1);
	{
		static const cev_t req_c = { PMIX_CONNECT_REQUESTED, "c" };

		post_cev(&req_c);
	}
	ck_assert_int_eq(rc_recv(fd1, &h, &b, 300), -1);
	for (int i = 0; i < 2; i++)
		PMIx_Info_destruct(&info[i]);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* OPTIONAL: a participant lost before anybody joined is not waited for
 * (without OPTIONAL the join fails at once). */
START_TEST(connect_optional_lost_first)
{
	pmix_proc_t procs[2];
	pmix_info_t opt;
	pmix_data_buffer_t b;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(3);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	close(fd1);
	usleep(200000); /* the server sees it go */
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS, 1);
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fd0, PXC_CMD_CONNECT, 2, &b);
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_ERR_PROC_TERM_WO_SYNC);
	pxc_buf_clear(&b);
	PMIx_Info_load(&opt, PMIX_CONNECT_OPTIONAL, NULL, PMIX_BOOL);
	pack_procs_info(&b, procs, 2, &opt, 1);
	rc_send(fd0, PXC_CMD_CONNECT, 3, &b);
	ck_assert_int_eq(rc_reply(fd0, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_connect, 1);
	PMIx_Info_destruct(&opt);
	close(fd0);
	stop_server();
}
END_TEST

/* A client that finalizes (or is lost) while connected: the others of
 * the set that registered PMIX_ERR_INVALID_TERMINATION hear of it, and
 * the host gets it for the remote ones; with EARLY_TERM_ALLOWED or after
 * a disconnect, nobody does. */
START_TEST(invalid_termination)
{
	pmix_status_t code = PMIX_ERR_INVALID_TERMINATION;
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	pmix_info_t early;
	pxc_wire_hdr_t h;
	int fda, fdb, n0;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	reg_other(1, NULL);
	fda = rc_hello(0, PMIX_SUCCESS, NULL);
	fdb = rc_hello_as(NS2, 0);
	rc_regevents(fdb, &code, 1);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS2, 0);
	/* NS:0 and NS2:0 connect, then NS:0 finalizes without disconnecting */
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fda, PXC_CMD_CONNECT, 2, &b);
	pack_procs_info(&b, procs, 2, NULL, 0);
	rc_send(fdb, PXC_CMD_CONNECT, 3, &b);
	ck_assert_int_eq(rc_reply(fda, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fdb, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	n0 = host.n_notify;
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fda, PXC_CMD_FINALIZE, 4, &b);
	ck_assert_int_eq(rc_reply(fda, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc_expect_event(fdb, PMIX_ERR_INVALID_TERMINATION, NS, 0);
	ck_assert_int_eq(host.n_notify, n0 + 1);
	close(fda);
	/* NS:1 connects with EARLY_TERM_ALLOWED and is lost: no event */
	fda = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 1);
	PMIx_Info_load(&early, PMIX_CONNECT_EARLY_TERM_ALLOWED, NULL, PMIX_BOOL);
	pack_procs_info(&b, procs, 2, &early, 1);
	rc_send(fda, PXC_CMD_CONNECT, 5, &b);
	pack_procs_info(&b, procs, 2, &early, 1);
	rc_send(fdb, PXC_CMD_CONNECT, 6, &b);
	ck_assert_int_eq(rc_reply(fda, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fdb, 6, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&early);
	close(fda);
	ck_assert_int_eq(rc_recv(fdb, &h, &b, 500), -1);
	ck_assert_int_eq(host.n_notify, n0 + 1);
	close(fdb);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "connect", connect_gives_other_nspace },
		{ "connect_data", connect_carries_posted_data },
		{ "connect_fetch", connect_fetches_unknown_nspace },
		{ "connect_fetch_fail", connect_fetch_fails_softly },
		{ "connect_bad_attrs", connect_bad_attributes },
		{ "connect_cluster", connect_cluster_names },
		{ "connect_results", connect_results_and_disconnect },
		{ "connect_ids", connect_ids_concurrent },
		{ "connect_optional", connect_optional_and_events },
		{ "disconnect_notify_each", disconnect_notify_each },
		{ "invalid_termination", invalid_termination },
		{ "connect_remote_events", connect_remote_events },
		{ "connect_optional_lost_first", connect_optional_lost_first },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
