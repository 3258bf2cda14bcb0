/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_iof.c - protocol tests of the server's IO forwarding
 * (server/iof.c): what the host delivers (PMIx_server_IOF_deliver)
 * reaches a raw client's IOF_PULL subscription as IOF frames after the
 * pull's reply, with its history bounded by PMIX_IOF_CACHE_SIZE and the
 * loss reported, its end marked PMIX_IOF_COMPLETE; IOF_DEREG flushes
 * before its reply and nothing comes after; broken requests (bad
 * directives, no procs, garbage payloads, another client's id, a bad
 * channel from the host) get errors, and a client that goes leaves
 * nothing behind.
 *
 * Each test runs the real server in its own process (tests/lib/srvthread.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"
#include "pmix_slurmix.h"

/* One IOF frame as read. */
typedef struct {
	uint32_t id;
	pmix_proc_t src;
	uint16_t channel;
	pmix_byte_object_t bo;
	bool complete;
	uint64_t dropped;
} frame_t;

/* Reads the next frame (skipping nothing): 1 and an IOF frame in f, 0
 * for another frame (h filled, its payload cleared), -1 when none came
 * within ms. */
static int recv_iof(int fd, int ms, frame_t *f, pxc_wire_hdr_t *h)
{
	pmix_data_buffer_t b;
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	int32_t one = 1;

	memset(f, 0, sizeof(*f));
	if (rc_recv(fd, h, &b, ms) != 0)
		return -1;
	if (h->cmd != PXC_CMD_IOF || (h->flags & PXC_WIRE_F_REPLY)) {
		pxc_buf_clear(&b);
		return 0;
	}
	f->id = h->tag;
	ck_assert_int_eq(pxc_unpack_proc(&b, &f->src), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, &f->channel, &one, PMIX_UINT16), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, &f->bo, &one, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)&info, &ninfo, PMIX_INFO), PMIX_SUCCESS);
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_IOF_COMPLETE))
			f->complete = PMIx_Info_true(&info[i]) == PMIX_BOOL_TRUE;
		else if (PMIx_Check_key(info[i].key, SLURMIX_IOF_DROPPED))
			f->dropped = info[i].value.data.uint64;
	pxc_array_free(info, ninfo, PMIX_INFO);
	pxc_buf_clear(&b);
	return 1;
}

static void frame_free(frame_t *f)
{
	free(f->bo.bytes);
	f->bo.bytes = NULL;
}

/* IOF_PULL of rank's stdout with info; returns the reply's status and the
 * handler id in *id. */
static pmix_status_t pull(int fd, uint32_t tag, pmix_rank_t rank, const pmix_info_t *info,
			  size_t ninfo, size_t *id)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;
	uint16_t ch = PMIX_FWD_STDOUT_CHANNEL;
	int32_t one = 1;
	pmix_status_t st;

	PMIx_Load_procid(&p, NS, rank);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &p, 1, PMIX_PROC);
	pxc_pack(&b, &ch, 1, PMIX_UINT16);
	pxc_pack_array(&b, info, ninfo, PMIX_INFO);
	rc_send(fd, PXC_CMD_IOF_PULL, tag, &b);
	st = rc_reply(fd, tag, &b);
	*id = 0;
	if (st == PMIX_SUCCESS)
		ck_assert_int_eq(pxc_unpack(&b, id, &one, PMIX_SIZE), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	return st;
}

static void deliver(pmix_rank_t rank, const char *bytes, size_t n, bool complete)
{
	pmix_byte_object_t bo = { .bytes = (char *)bytes, .size = n };
	pmix_info_t info;
	pmix_proc_t p;
	bool yes = true;

	PMIx_Load_procid(&p, NS, rank);
	PMIx_Info_load(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	ck_assert_int_eq(PMIx_server_IOF_deliver(&p, PMIX_FWD_STDOUT_CHANNEL, &bo, &info,
						 complete ? 1 : 0, NULL, NULL),
			 PMIX_SUCCESS);
	PMIx_Info_destruct(&info);
}

START_TEST(iof_pull_history_live_end)
{
	pmix_info_t info[2];
	uint32_t cache = 1000;
	bool yes = true;
	char data[3000];
	size_t id;
	frame_t f;
	pxc_wire_hdr_t h;
	int fd;

	for (int i = 0; i < 3000; i++)
		data[i] = (char)(i % 251);
	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	deliver(1, data, 3000, false); /* before anyone pulled */
	PMIx_Info_load(&info[0], PMIX_IOF_CACHE_SIZE, &cache, PMIX_UINT32);
	PMIx_Info_load(&info[1], PMIX_IOF_DROP_NEWEST, &yes, PMIX_BOOL);
	ck_assert_int_eq(pull(fd, 5, 1, info, 2, &id), PMIX_SUCCESS);
	ck_assert_uint_gt(id, 0);
	/* after the reply: the first 1000 bytes, 2000 reported lost */
	ck_assert_int_eq(recv_iof(fd, 2000, &f, &h), 1);
	ck_assert_uint_eq(f.id, id);
	ck_assert_uint_eq(f.src.rank, 1);
	ck_assert_uint_eq(f.channel, PMIX_FWD_STDOUT_CHANNEL);
	ck_assert_uint_eq(f.bo.size, 1000);
	ck_assert(!memcmp(f.bo.bytes, data, 1000));
	ck_assert_uint_eq(f.dropped, 2000);
	ck_assert(!f.complete);
	frame_free(&f);
	deliver(1, "live\n", 5, false);
	ck_assert_int_eq(recv_iof(fd, 2000, &f, &h), 1);
	ck_assert_uint_eq(f.bo.size, 5);
	ck_assert(!memcmp(f.bo.bytes, "live\n", 5));
	ck_assert_uint_eq(f.dropped, 0);
	frame_free(&f);
	deliver(0, "mine", 4, false); /* another rank: not pulled */
	deliver(1, NULL, 0, true);
	ck_assert_int_eq(recv_iof(fd, 2000, &f, &h), 1);
	ck_assert(f.complete);
	ck_assert_uint_eq(f.bo.size, 0);
	frame_free(&f);
	ck_assert_int_eq(recv_iof(fd, 300, &f, &h), -1);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	close(fd);
	stop_server();
}
END_TEST

/* IOF_DEREG: what the subscription buffered comes before the reply,
 * nothing after; an unknown id and another client's id are refused. */
START_TEST(iof_dereg_flushes)
{
	pmix_data_buffer_t b;
	pmix_info_t info;
	uint32_t bsize = 100;
	size_t id, other = 0, bogus = 12345;
	frame_t f;
	pxc_wire_hdr_t h;
	int fd, fd2, r;
	bool flushed = false;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	fd2 = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&info, PMIX_IOF_BUFFERING_SIZE, &bsize, PMIX_UINT32);
	ck_assert_int_eq(pull(fd, 5, 1, &info, 1, &id), PMIX_SUCCESS);
	ck_assert_int_eq(pull(fd2, 6, 0, NULL, 0, &other), PMIX_SUCCESS);
	deliver(1, "thirty bytes of output, no nl.", 30, false);
	ck_assert_int_eq(recv_iof(fd, 300, &f, &h), -1); /* buffered: under 100 */
	/* fd2 cannot deregister fd's subscription; nobody an unknown one */
	pxc_buf_init(&b);
	pxc_pack(&b, &id, 1, PMIX_SIZE);
	rc_send(fd2, PXC_CMD_IOF_DEREG, 7, &b);
	ck_assert_int_eq(rc_reply(fd2, 7, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	pxc_buf_init(&b);
	pxc_pack(&b, &bogus, 1, PMIX_SIZE);
	rc_send(fd, PXC_CMD_IOF_DEREG, 8, &b);
	ck_assert_int_eq(rc_reply(fd, 8, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	pxc_buf_init(&b);
	pxc_pack(&b, &id, 1, PMIX_SIZE);
	rc_send(fd, PXC_CMD_IOF_DEREG, 9, &b);
	/* the 30 bytes first, then the reply */
	while ((r = recv_iof(fd, 2000, &f, &h)) >= 0) {
		if (r == 1) {
			ck_assert_uint_eq(f.bo.size, 30);
			flushed = true;
			frame_free(&f);
			continue;
		}
		if (h.tag == 9 && (h.flags & PXC_WIRE_F_REPLY))
			break;
	}
	ck_assert(flushed);
	deliver(1, "later", 5, false);
	ck_assert_int_eq(recv_iof(fd, 300, &f, &h), -1);
	PMIx_Info_destruct(&info);
	close(fd);
	close(fd2);
	stop_server();
}
END_TEST

/* Broken requests: a directive of the wrong type, no procs, no channel,
 * garbage (the connection closes); the host's bad channel. */
START_TEST(iof_broken_requests)
{
	pmix_data_buffer_t b;
	pmix_info_t info;
	pmix_byte_object_t bo = { .bytes = "x", .size = 1 };
	pmix_proc_t p;
	uint16_t none = 0;
	size_t id;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&info, PMIX_IOF_CACHE_SIZE, "big", PMIX_STRING);
	ck_assert_int_eq(pull(fd, 5, 1, &info, 1, &id), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	PMIx_Load_procid(&p, NS, 1);
	pxc_buf_init(&b); /* no channel */
	pxc_pack_array(&b, &p, 1, PMIX_PROC);
	pxc_pack(&b, &none, 1, PMIX_UINT16);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_IOF_PULL, 6, &b);
	ck_assert_int_eq(rc_reply(fd, 6, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	pxc_buf_init(&b); /* no procs */
	pxc_pack_array(&b, NULL, 0, PMIX_PROC);
	none = PMIX_FWD_STDOUT_CHANNEL;
	pxc_pack(&b, &none, 1, PMIX_UINT16);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_IOF_PULL, 7, &b);
	ck_assert_int_eq(rc_reply(fd, 7, &b), PMIX_ERR_BAD_PARAM);
	pxc_buf_clear(&b);
	ck_assert_int_eq(PMIx_server_IOF_deliver(&p, PMIX_FWD_STDOUT_CHANNEL | 0x10, &bo, NULL, 0,
						 NULL, NULL),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL,
						 NULL),
			 PMIX_ERR_BAD_PARAM);
	/* garbage: a truncated IOF_DEREG closes the connection */
	pxc_buf_init(&b);
	pxc_pack(&b, &none, 1, PMIX_UINT16);
	rc_send(fd, PXC_CMD_IOF_DEREG, 8, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &p, 1, PMIX_PROC); /* then nothing */
	rc_send(fd, PXC_CMD_IOF_PULL, 9, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	stop_server();
}
END_TEST

/* The host's push_stdin for iof_push_broken: counts, answers at once. */
static int pushes;
static size_t pushed;

static pmix_status_t t_push(const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)source, (void)targets, (void)ntargets, (void)directives, (void)ndirs;
	(void)cbfunc, (void)cbdata;
	pushes++;
	pushed = bo ? bo->size : 0;
	return PMIX_OPERATION_SUCCEEDED;
}

/* An IOF_PUSH request: procs (nprocs of rank 1), bytes, one info or
 * none; the server's answer. */
static pmix_status_t push(int fd, uint32_t tag, size_t nprocs, const char *bytes,
			  const pmix_info_t *info)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;
	pmix_byte_object_t bo = { .bytes = (char *)bytes, .size = bytes ? strlen(bytes) : 0 };
	pmix_status_t st;

	PMIx_Load_procid(&p, NS, 1);
	pxc_buf_init(&b);
	pxc_pack_array(&b, nprocs ? &p : NULL, nprocs, PMIX_PROC);
	pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT);
	pxc_pack_array(&b, info, info ? 1 : 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_IOF_PUSH, tag, &b);
	st = rc_reply(fd, tag, &b);
	pxc_buf_clear(&b);
	return st;
}

/* IOF_PUSH: a good one reaches the host; no targets, no bytes without
 * PMIX_IOF_COMPLETE, and PMIX_IOF_PUSH_STDIN (a client's own stdin is its
 * library's) are BAD_PARAM without reaching it; a truncated request and
 * garbage close the connection. Fails when the checks are left out
 * (tried: the host is called). */
START_TEST(iof_push_broken)
{
	pmix_server_module_t m = full_module;
	pmix_data_buffer_t b;
	pmix_info_t info;
	pmix_proc_t p;
	int fd;

	m.push_stdin = t_push;
	pushes = 0;
	ck_assert_int_eq(start_server(&m, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(push(fd, 1, 1, "abc", NULL), PMIX_SUCCESS);
	ck_assert_int_eq(pushes, 1);
	ck_assert_uint_eq(pushed, 3);
	ck_assert_int_eq(push(fd, 2, 0, "abc", NULL), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(push(fd, 3, 1, NULL, NULL), PMIX_ERR_BAD_PARAM);
	PMIx_Info_load(&info, PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
	ck_assert_int_eq(push(fd, 4, 1, "abc", &info), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info);
	ck_assert_int_eq(pushes, 1);
	PMIx_Info_load(&info, PMIX_IOF_COMPLETE, NULL, PMIX_BOOL);
	ck_assert_int_eq(push(fd, 5, 1, NULL, &info), PMIX_SUCCESS); /* the end alone */
	PMIx_Info_destruct(&info);
	ck_assert_int_eq(pushes, 2);
	ck_assert_uint_eq(pushed, 0);
	pxc_buf_init(&b); /* procs, then nothing */
	PMIx_Load_procid(&p, NS, 1);
	pxc_pack_array(&b, &p, 1, PMIX_PROC);
	rc_send(fd, PXC_CMD_IOF_PUSH, 6, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	pxc_buf_init(&b);
	pxc_buf_append(&b, "\xff\xfe garbage", 10);
	rc_send(fd, PXC_CMD_IOF_PUSH, 7, &b);
	ck_assert(rc_closed(fd));
	close(fd);
	ck_assert_int_eq(pushes, 2);
	stop_server();
}
END_TEST

/* A subscriber that goes: what comes later is kept, nobody is sent it,
 * and a new subscriber gets it as history. */
START_TEST(iof_subscriber_gone)
{
	size_t id;
	frame_t f;
	pxc_wire_hdr_t h;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(pull(fd, 5, 1, NULL, 0, &id), PMIX_SUCCESS);
	close(fd);
	usleep(100000);
	deliver(1, "after\n", 6, false);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(pull(fd, 6, 1, NULL, 0, &id), PMIX_SUCCESS);
	ck_assert_int_eq(recv_iof(fd, 2000, &f, &h), 1);
	ck_assert_uint_eq(f.bo.size, 6);
	frame_free(&f);
	close(fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "iof_pull_history_live_end", iof_pull_history_live_end },
		{ "iof_dereg_flushes", iof_dereg_flushes },
		{ "iof_broken_requests", iof_broken_requests },
		{ "iof_push_broken", iof_push_broken },
		{ "iof_subscriber_gone", iof_subscriber_gone },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
