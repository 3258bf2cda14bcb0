/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_group.c - protocol tests of group construct and destruct
 * (server/group.c): a group of one node's clients without a host, the
 * members' posted data and group info in every reply (the group info
 * qualified by the context id), the host's parts and context id, broken
 * host data, broken requests, PMIX_GROUP_NOTIFY_TERMINATION and leave.
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
#include "server/peer.h"

#define NS5 "test.far" /* a member elsewhere, only in the host's data */

static void send_group(int fd, uint32_t tag, uint8_t op, const char *grp, const pmix_proc_t *procs,
		       size_t n, const pmix_info_t *info, size_t ninfo)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack(&b, &op, 1, PMIX_UINT8);
	pxc_pack_str(&b, grp);
	pxc_pack_array(&b, procs, n, PMIX_PROC);
	pxc_pack_array(&b, info, ninfo, PMIX_INFO);
	rc_send(fd, PXC_CMD_GROUP, tag, &b);
}

typedef struct {
	size_t cid, members;
	pxc_store_t *st;
} reply_t;

/* A construct's reply: STATUS, INFO[] results, BLOB. */
static pmix_status_t group_reply(int fd, uint32_t tag, reply_t *r)
{
	pmix_data_buffer_t b;
	pmix_info_t *res = NULL;
	size_t n = 0;
	pmix_status_t st = rc_reply(fd, tag, &b);

	memset(r, 0, sizeof(*r));
	if (st != PMIX_SUCCESS) {
		pxc_buf_clear(&b);
		return st;
	}
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
	for (size_t i = 0; i < n; i++) {
		if (PMIx_Check_key(res[i].key, PMIX_GROUP_CONTEXT_ID))
			r->cid = res[i].value.data.size;
		if (PMIx_Check_key(res[i].key, PMIX_GROUP_MEMBERSHIP))
			r->members = res[i].value.data.darray->size;
	}
	pxc_array_free(res, n, PMIX_INFO);
	r->st = blob_store(&b);
	pxc_buf_clear(&b);
	return st;
}

/* The member's group info value key of the group with id cid, or 0. */
static size_t lcid(const pxc_store_t *st, const char *ns, pmix_rank_t rank, size_t cid)
{
	char key[PMIX_MAX_KEYLEN + 1];
	const pmix_value_t *v;

	ck_assert(pxc_store_group_key(key, PMIX_GROUP_LOCAL_CID, cid));
	v = pxc_store_get(st, ns, PXC_LVL_PROC, rank, key, NULL);
	return v && v->type == PMIX_SIZE ? v->data.size : 0;
}

/* One QUERY of key (qualified by PMIX_GROUP_ID grp when not NULL): the
 * reply's status, its first answer in *out (destructed by the caller). */
static pmix_status_t query_group(int fd, uint32_t tag, const char *key, const char *grp,
				 pmix_info_t *out)
{
	char *keys[2] = { (char *)key, NULL };
	pmix_query_t q = { .keys = keys };
	pmix_info_t qual, *res = NULL;
	pmix_data_buffer_t b;
	size_t n = 0;
	pmix_status_t st;

	if (grp) {
		PMIx_Info_load(&qual, PMIX_GROUP_ID, grp, PMIX_STRING);
		q.qualifiers = &qual;
		q.nqual = 1;
	}
	pxc_buf_init(&b);
	pxc_pack_array(&b, &q, 1, PMIX_QUERY);
	rc_send(fd, PXC_CMD_QUERY, tag, &b);
	if (grp)
		PMIx_Info_destruct(&qual);
	st = rc_reply(fd, tag, &b);
	PMIx_Info_construct(out);
	if (st == PMIX_SUCCESS) {
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &n, PMIX_INFO), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		PMIx_Info_xfer(out, &res[0]);
		pxc_array_free(res, n, PMIX_INFO);
	}
	pxc_buf_clear(&b);
	return st;
}

/* The group queries see group g of 2 members (and only it). */
static void check_group_queries(int fd)
{
	pmix_info_t a;

	ck_assert_int_eq(query_group(fd, 40, PMIX_QUERY_NUM_GROUPS, NULL, &a), PMIX_SUCCESS);
	ck_assert_uint_eq(a.value.data.size, 1);
	PMIx_Info_destruct(&a);
	ck_assert_int_eq(query_group(fd, 41, PMIX_QUERY_GROUP_NAMES, NULL, &a), PMIX_SUCCESS);
	ck_assert_uint_eq(a.value.data.darray->size, 1);
	ck_assert_str_eq(((char **)a.value.data.darray->array)[0], "g");
	PMIx_Info_destruct(&a);
	ck_assert_int_eq(query_group(fd, 42, PMIX_QUERY_GROUP_MEMBERSHIP, "g", &a), PMIX_SUCCESS);
	ck_assert_uint_eq(a.value.data.darray->size, 2);
	PMIx_Info_destruct(&a);
}

/* ASSIGN_CONTEXT_ID and a PMIX_GROUP_INFO {LOCAL_CID = lc}. */
static void construct_info(pmix_info_t info[2], pmix_info_t *gi, pmix_data_array_t *da, size_t lc)
{
	PMIx_Info_load(gi, PMIX_GROUP_LOCAL_CID, &lc, PMIX_SIZE);
	*da = (pmix_data_array_t){ .type = PMIX_INFO, .size = 1, .array = gi };
	PMIx_Info_load(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_GROUP_INFO, da, PMIX_DATA_ARRAY);
}

static void construct_info_free(pmix_info_t info[2], pmix_info_t *gi)
{
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_destruct(gi);
}

/* A server without a host group upcall and two clients of NS (ranks 0
 * and 1) connected: fd[i], procs[i]. */
static void start_two(int fd[2], pmix_proc_t procs[2])
{
	pmix_server_module_t mod = full_module;

	mod.group = NULL;
	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(2);
	for (int i = 0; i < 2; i++) {
		fd[i] = rc_hello((pmix_rank_t)i, PMIX_SUCCESS, NULL);
		PMIx_Load_procid(&procs[i], NS, (pmix_rank_t)i);
	}
}

/* Two clients of this node, no host group upcall: one id, each other's
 * posted data and both group infos in each reply; destruct; the name is
 * free again and a second destruct finds nothing. */
START_TEST(group_local)
{
	pmix_proc_t procs[2];
	pmix_info_t info[2][2], gi[2];
	pmix_data_array_t da[2];
	reply_t r[2];
	int fd[2];
	pmix_data_buffer_t b;

	start_two(fd, procs);
	for (int i = 0; i < 2; i++) {
		rc_commit(fd[i], (pmix_rank_t)i, "k.ep", i ? "ep1" : "ep0", PMIX_GLOBAL);
		construct_info(info[i], &gi[i], &da[i], 10 + (size_t)i);
	}
	for (int i = 0; i < 2; i++)
		send_group(fd[i], 4, PMIX_GROUP_CONSTRUCT, "g", procs, 2, info[i], 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(group_reply(fd[i], 4, &r[i]), PMIX_SUCCESS);
		ck_assert_uint_gt(r[i].cid, 0);
		ck_assert_uint_eq(r[i].members, 2);
		ck_assert_uint_eq(lcid(r[i].st, NS, 0, r[i].cid), 10);
		ck_assert_uint_eq(lcid(r[i].st, NS, 1, r[i].cid), 11);
		ck_assert_str_eq(sval(r[i].st, NS, PXC_LVL_PROC, 1 - i, "k.ep"), i ? "ep0" : "ep1");
		ck_assert_ptr_null(sval(r[i].st, NS, PXC_LVL_PROC, i, "k.ep")); /* its own */
		pxc_store_destroy(r[i].st);
	}
	ck_assert_uint_eq(r[0].cid, r[1].cid);
	check_group_queries(fd[0]);
	/* the same name while it exists: refused */
	send_group(fd[0], 5, PMIX_GROUP_CONSTRUCT, "g", procs, 1, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 5, &b), PMIX_ERR_EXISTS);
	pxc_buf_clear(&b);
	for (int i = 0; i < 2; i++)
		send_group(fd[i], 6, PMIX_GROUP_DESTRUCT, "g", NULL, 0, NULL, 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(rc_reply(fd[i], 6, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
	}
	send_group(fd[0], 7, PMIX_GROUP_DESTRUCT, "g", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 7, &b), PMIX_ERR_NOT_FOUND);
	pxc_buf_clear(&b);
	/* a new construct of the name gets a new id */
	send_group(fd[0], 8, PMIX_GROUP_CONSTRUCT, "g", procs, 1, info[0], 1);
	ck_assert_int_eq(group_reply(fd[0], 8, &r[1]), PMIX_SUCCESS);
	ck_assert_uint_ne(r[1].cid, r[0].cid);
	pxc_store_destroy(r[1].st);
	for (int i = 0; i < 2; i++) {
		construct_info_free(info[i], &gi[i]);
		close(fd[i]);
	}
	stop_server();
}
END_TEST

/* The host gets this node's part and answers with it, a part of another
 * node (a member of NS5 with posted data and group info) and an id;
 * data that does not unpack is an error reply, not a crash. */
static int hg_garbage;

static pmix_status_t h_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
			     size_t nprocs, const pmix_info_t info[], size_t ninfo,
			     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_info_t *d = pxc_info_find(info, ninfo, PXC_GROUP_DATA);
	pxc_store_t *far = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING, .data.string = "far" };
	pmix_data_buffer_t all, blob;
	pmix_info_t res[2], gi;
	pmix_byte_object_t bo;
	pmix_proc_t who;
	size_t cid = 77, lc = 55;
	uint32_t one = 1;

	(void)grp, (void)procs, (void)nprocs;
	if (op == PMIX_GROUP_DESTRUCT) {
		ck_assert_ptr_null(d);
		cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
		pxc_store_destroy(far);
		return PMIX_SUCCESS;
	}
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->value.type, PMIX_BYTE_OBJECT);
	pxc_buf_init(&all);
	pxc_buf_append(&all, d->value.data.bo.bytes, d->value.data.bo.size);
	pxc_store_put(far, NS5, PXC_LVL_PROC, 0, "k.far", &v, PMIX_GLOBAL);
	pxc_buf_init(&blob);
	pxc_store_pack(far, NS5, -1, PXC_ID_ANY, PXC_KINDS_ALL, &blob);
	PMIx_Load_procid(&who, NS5, 0);
	PMIx_Info_load(&gi, PMIX_GROUP_LOCAL_CID, &lc, PMIX_SIZE);
	pxc_pack_u32(&all, one);
	pxc_pack_proc(&all, &who);
	pxc_pack_blob(&all, &blob);
	pxc_pack_array(&all, &gi, 1, PMIX_INFO);
	if (hg_garbage)
		pxc_buf_append(&all, "junk", 4);
	bo.bytes = all.base_ptr;
	bo.size = all.bytes_used;
	PMIx_Info_load(&res[0], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
	PMIx_Info_load(&res[1], PXC_GROUP_DATA, &bo, PMIX_BYTE_OBJECT);
	cbfunc(PMIX_SUCCESS, res, 2, cbdata, NULL, NULL);
	PMIx_Info_destruct(&res[0]);
	PMIx_Info_destruct(&res[1]);
	PMIx_Info_destruct(&gi);
	pxc_buf_clear(&all);
	pxc_buf_clear(&blob);
	pxc_store_destroy(far);
	return PMIX_SUCCESS;
}

START_TEST(group_host_parts)
{
	pmix_server_module_t mod = full_module;
	pmix_proc_t procs[2];
	pmix_info_t info[2], gi;
	pmix_data_array_t da;
	pmix_data_buffer_t b;
	reply_t r;
	int fd;

	mod.group = h_group;
	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&procs[0], NS, 0);
	PMIx_Load_procid(&procs[1], NS5, 0);
	construct_info(info, &gi, &da, 10);
	send_group(fd, 4, PMIX_GROUP_CONSTRUCT, "gh", procs, 2, info, 2);
	ck_assert_int_eq(group_reply(fd, 4, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.cid, 77);
	ck_assert_uint_eq(r.members, 2);
	ck_assert_uint_eq(lcid(r.st, NS5, 0, 77), 55);
	ck_assert_uint_eq(lcid(r.st, NS, 0, 77), 10);
	ck_assert_str_eq(sval(r.st, NS5, PXC_LVL_PROC, 0, "k.far"), "far");
	pxc_store_destroy(r.st);
	/* broken data from the host */
	hg_garbage = 1;
	send_group(fd, 5, PMIX_GROUP_CONSTRUCT, "gh2", procs, 2, info, 2);
	ck_assert_int_ne(rc_reply(fd, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	send_group(fd, 6, PMIX_GROUP_DESTRUCT, "gh", NULL, 0, NULL, 0); /* still served */
	ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	construct_info_free(info, &gi);
	close(fd);
	stop_server();
}
END_TEST

/* Broken requests: clean errors, no host call; a truncated payload
 * closes the connection. */
START_TEST(group_bad_requests)
{
	pmix_server_module_t mod = full_module;
	pmix_proc_t self, other;
	pmix_info_t bad;
	pmix_data_buffer_t b;
	char name[PMIX_MAX_NSLEN + 8];
	uint8_t op = PMIX_GROUP_CONSTRUCT;
	int fd;

	mod.group = h_group;
	ck_assert_int_eq(start_server(&mod, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Load_procid(&self, NS, 0);
	PMIx_Load_procid(&other, NS, 1);
	PMIx_Info_load(&bad, PMIX_GROUP_ASSIGN_CONTEXT_ID, "yes", PMIX_STRING);
	send_group(fd, 2, op, "g", &self, 1, &bad, 1);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&bad);
	PMIx_Info_load(&bad, PMIX_GROUP_INFO, "not an array", PMIX_STRING);
	send_group(fd, 3, op, "g", &self, 1, &bad, 1);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&bad);
	PMIx_Info_load(&bad, "slurmix.nope", NULL, PMIX_BOOL);
	PMIx_Info_required(&bad);
	send_group(fd, 4, op, "g", &self, 1, &bad, 1);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_ERR_NOT_SUPPORTED);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&bad);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	send_group(fd, 5, op, name, &self, 1, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	send_group(fd, 6, 9, "g", &self, 1, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	send_group(fd, 7, op, "g", &other, 1, NULL, 0); /* the caller is no member */
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	send_group(fd, 8, op, "g", NULL, 0, NULL, 0); /* nobody */
	ck_assert_int_eq(rc_reply(fd, 8, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	send_group(fd, 9, PMIX_GROUP_DESTRUCT, "none", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd, 9, &b), PMIX_ERR_NOT_FOUND);
	pxc_buf_clear(&b);
	pxc_buf_init(&b); /* truncated: the operation only */
	pxc_pack(&b, &op, 1, PMIX_UINT8);
	rc_send(fd, PXC_CMD_GROUP, 10, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	stop_server();
}
END_TEST

/* A member that goes away: with PMIX_GROUP_NOTIFY_TERMINATION the other
 * (registered) gets PMIX_GROUP_MEMBER_FAILED and the host is told; without
 * it nothing comes. */
static void member_lost(bool notify)
{
	pmix_status_t code = PMIX_GROUP_MEMBER_FAILED;
	pmix_proc_t procs[2];
	pmix_info_t nt;
	pxc_wire_hdr_t h;
	reply_t r;
	pmix_data_buffer_t b;
	int fd[2], n0;

	start_two(fd, procs);
	PMIx_Info_load(&nt, PMIX_GROUP_NOTIFY_TERMINATION, NULL, PMIX_BOOL);
	rc_regevents(fd[1], &code, 1);
	for (int i = 0; i < 2; i++)
		send_group(fd[i], 4, PMIX_GROUP_CONSTRUCT, "gn", procs, 2, &nt, notify ? 1 : 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(group_reply(fd[i], 4, &r), PMIX_SUCCESS);
		pxc_store_destroy(r.st);
	}
	n0 = host.n_notify;
	close(fd[0]);
	if (notify) {
		rc_expect_event(fd[1], PMIX_GROUP_MEMBER_FAILED, NS, 0);
		for (int i = 0; i < 100 && host.n_notify == n0; i++) /* right after */
			usleep(10000);
		ck_assert_int_eq(host.n_notify, n0 + 1);
	} else {
		ck_assert_int_eq(rc_recv(fd[1], &h, &b, 500), -1);
	}
	PMIx_Info_destruct(&nt);
	close(fd[1]);
	stop_server();
}

START_TEST(group_member_lost_notify)
{
	member_lost(true);
}
END_TEST

START_TEST(group_member_lost_quiet)
{
	member_lost(false);
}
END_TEST

/* PMIx_Group_leave (GROUP with PXC_GROUP_OP_LEAVE): the other member
 * hears PMIX_GROUP_LEFT and destructs alone; leaving a group one is not in,
 * or one that does not exist, is refused. */
START_TEST(group_leave)
{
	pmix_status_t code = PMIX_GROUP_LEFT;
	pmix_proc_t procs[2];
	pmix_data_buffer_t b;
	reply_t r;
	int fd[2];

	start_two(fd, procs);
	rc_regevents(fd[1], &code, 1);
	for (int i = 0; i < 2; i++)
		send_group(fd[i], 4, PMIX_GROUP_CONSTRUCT, "gv", procs, 2, NULL, 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(group_reply(fd[i], 4, &r), PMIX_SUCCESS);
		pxc_store_destroy(r.st);
	}
	send_group(fd[0], 5, PXC_GROUP_OP_LEAVE, "gv", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	rc_expect_event(fd[1], PMIX_GROUP_LEFT, NS, 0);
	send_group(fd[0], 6, PXC_GROUP_OP_LEAVE, "gv", NULL, 0, NULL, 0); /* not in it now */
	ck_assert_int_eq(rc_reply(fd[0], 6, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	send_group(fd[0], 7, PXC_GROUP_OP_LEAVE, "none", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 7, &b), PMIX_ERR_NOT_FOUND);
	pxc_buf_clear(&b);
	send_group(fd[1], 8, PMIX_GROUP_DESTRUCT, "gv", NULL, 0, NULL, 0); /* alone */
	ck_assert_int_eq(rc_reply(fd[1], 8, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	for (int i = 0; i < 2; i++)
		close(fd[i]);
	stop_server();
}
END_TEST

/* Disjoint groups of one id on one server are two groups; a later member's
 * ASSIGN_CONTEXT_ID counts for all; a member that finalized does not hold
 * up the destruct. */
START_TEST(group_same_id_flags_finalized)
{
	pmix_proc_t procs[2];
	pmix_info_t assign;
	pmix_data_buffer_t b;
	reply_t r[2];
	int fd[2];

	start_two(fd, procs);
	/* "same" twice, each rank alone */
	for (int i = 0; i < 2; i++) {
		send_group(fd[i], 4, PMIX_GROUP_CONSTRUCT, "same", &procs[i], 1, NULL, 0);
		ck_assert_int_eq(group_reply(fd[i], 4, &r[i]), PMIX_SUCCESS);
		pxc_store_destroy(r[i].st);
	}
	send_group(fd[0], 5, PMIX_GROUP_DESTRUCT, "same", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	send_group(fd[1], 5, PMIX_GROUP_DESTRUCT, "same", NULL, 0, NULL, 0); /* its own is there */
	ck_assert_int_eq(rc_reply(fd[1], 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	/* only the second member asks for a context id: both get it */
	PMIx_Info_load(&assign, PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
	send_group(fd[0], 6, PMIX_GROUP_CONSTRUCT, "ga", procs, 2, NULL, 0);
	send_group(fd[1], 6, PMIX_GROUP_CONSTRUCT, "ga", procs, 2, &assign, 1);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(group_reply(fd[i], 6, &r[i]), PMIX_SUCCESS);
		ck_assert_uint_gt(r[i].cid, 0);
		pxc_store_destroy(r[i].st);
	}
	ck_assert_uint_eq(r[0].cid, r[1].cid);
	PMIx_Info_destruct(&assign);
	/* rank 1 finalizes without destructing: rank 0's destruct goes on */
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd[1], PXC_CMD_FINALIZE, 7, &b);
	ck_assert_int_eq(rc_reply(fd[1], 7, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	send_group(fd[0], 8, PMIX_GROUP_DESTRUCT, "ga", NULL, 0, NULL, 0);
	ck_assert_int_eq(rc_reply(fd[0], 8, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	for (int i = 0; i < 2; i++)
		close(fd[i]);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "group_local", group_local },
		{ "group_host_parts", group_host_parts },
		{ "group_bad_requests", group_bad_requests },
		{ "group_member_lost_notify", group_member_lost_notify },
		{ "group_member_lost_quiet", group_member_lost_quiet },
		{ "group_leave", group_leave },
		{ "group_same_id_flags_finalized", group_same_id_flags_finalized },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
