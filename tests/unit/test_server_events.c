/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_events.c - protocol tests of events (events.c): a client's
 * NOTIFY reaches the local clients registered for it and goes to the host
 * only for ranges beyond this node, and the client's notification
 * completes when the host called back (or with the host's error); an event
 * raised in the server process is delivered and never sent to the host.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"
#include "server/event.h"
#include "server/evsync.h"
#include "server/evqueue.h"
#include "pmix_slurmix.h"

/* REGEVENTS of code on fd (tag 2), for handler hdlr when not 0; asserts
 * its success. */
static void regev(int fd, pmix_status_t code, size_t hdlr)
{
	pmix_data_buffer_t b;
	pmix_info_t info;

	PMIx_Info_load(&info, PXC_REG_HDLR_ID, &hdlr, PMIX_SIZE);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, &info, hdlr ? 1 : 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_REGEVENTS, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
}

/* A client's NOTIFY (code, source NS:rank, range, info[0..ninfo)): packed
 * into b (initialized here). */
static void pack_notify_info(pmix_data_buffer_t *b, pmix_status_t code, pmix_rank_t rank,
			     pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
	pmix_proc_t src;

	PMIx_Load_procid(&src, NS, rank);
	pxc_buf_init(b);
	pxc_pack_status(b, code);
	pxc_pack_proc(b, &src);
	pxc_pack(b, &range, 1, PMIX_DATA_RANGE);
	pxc_pack_array(b, info, ninfo, PMIX_INFO);
}

/* The same without infos. */
static void pack_notify(pmix_data_buffer_t *b, pmix_status_t code, pmix_rank_t rank,
			pmix_data_range_t range)
{
	pack_notify_info(b, code, rank, range, NULL, 0);
}

START_TEST(events_delivery)
{
	pmix_data_buffer_t b;
	pmix_status_t code = -12345, got;
	pmix_data_range_t range = PMIX_RANGE_LOCAL;
	pxc_wire_hdr_t h;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd0, code, 0);
	/* rank 1 notifies, local range: rank 0 gets it, the host does not */
	for (int round = 0; round < 2; round++) {
		pack_notify(&b, code, 1, range);
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

/* The client's PMIx_Notify_event completes when the host called back
 * (the event is queued at every recipient's server), not before; a host
 * that refuses it gives the client its error. */
START_TEST(events_notify_waits_for_host)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	long t0;
	int fd;

	keeper.keep_ms = 400;
	ck_assert_int_eq(start_server(&keep_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	pack_notify(&b, -12345, 1, PMIX_RANGE_SESSION);
	t0 = pxc_now_ms();
	rc_send(fd, PXC_CMD_NOTIFY, 3, &b);
	pxc_buf_clear(&b);
	keeper_wait_kept(1);
	ck_assert_msg(rc_recv(fd, &h, &b, 150) < 0, "answered before the host called back");
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_ge(pxc_now_ms() - t0, 350);
	ck_assert(keeper_saw("notify"));
	close(fd);
	stop_server();
}
END_TEST

START_TEST(events_notify_host_refuses)
{
	pmix_data_buffer_t b;
	int fd;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	host.fail_notify = true;
	pack_notify(&b, -12345, 1, PMIX_RANGE_NAMESPACE);
	rc_send(fd, PXC_CMD_NOTIFY, 4, &b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd, 4, &b), PMIX_ERROR);
	pxc_buf_clear(&b);
	/* a range that stays on this node never asks the host */
	pack_notify(&b, -12345, 1, PMIX_RANGE_LOCAL);
	rc_send(fd, PXC_CMD_NOTIFY, 5, &b);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_reply(fd, 5, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(host.n_notify, 1);
	close(fd);
	stop_server();
}
END_TEST

/* Event marks (proto.h, EVENT): a reply that goes on the reply channel
 * after EVENTs went on the first connection is preceded there by a mark
 * with the number sent so far; no mark when nothing was sent since. */
START_TEST(events_mark_before_reply)
{
	pmix_data_buffer_t b;
	pmix_status_t code = -12345;
	uint32_t n = 0;
	int32_t one = 1;
	pxc_wire_hdr_t h;
	int fd0, rc0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	rc0 = rc_hello_kind(PXC_PEER_REPLY, NS, 0, PMIX_SUCCESS);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd0, code, 0);
	for (int ev = 1; ev <= 2; ev++) {
		pack_notify(&b, code, 1, PMIX_RANGE_LOCAL);
		rc_send(fd1, PXC_CMD_NOTIFY, 3, &b);
		ck_assert_int_eq(rc_reply(fd1, 3, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
	}
	rc_get_send(fd0, 5 | PXC_TAG_REPLY_CHANNEL, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
	ck_assert_int_eq(rc_recv(rc0, &h, &b, TMO), 0);
	ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
	ck_assert_uint_eq(h.tag, 5 | PXC_TAG_REPLY_CHANNEL);
	ck_assert(h.flags & PXC_WIRE_F_REPLY);
	ck_assert_int_eq(pxc_unpack(&b, &n, &one, PMIX_UINT32), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 2);
	pxc_buf_clear(&b);
	ck_assert_int_eq(rc_recv(rc0, &h, &b, TMO), 0);
	ck_assert_uint_eq(h.cmd, PXC_CMD_GET);
	pxc_buf_clear(&b);
	/* nothing new: the reply comes alone */
	rc_get_send(fd0, 6 | PXC_TAG_REPLY_CHANNEL, NS, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
	ck_assert_int_eq(rc_recv(rc0, &h, &b, TMO), 0);
	ck_assert_uint_eq(h.cmd, PXC_CMD_GET);
	ck_assert_uint_eq(h.tag, 6 | PXC_TAG_REPLY_CHANNEL);
	pxc_buf_clear(&b);
	/* the two events came on the first connection */
	for (int ev = 1; ev <= 2; ev++) {
		ck_assert_int_eq(rc_recv(fd0, &h, &b, TMO), 0);
		ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
		pxc_buf_clear(&b);
	}
	close(rc0);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* A NOTIFY of code from rank on fd with range LOCAL, with the infos
 * given, answered with success. */
static void notify_local(int fd, pmix_status_t code, pmix_rank_t rank, const pmix_info_t *info,
			 size_t ninfo)
{
	pmix_data_buffer_t b;

	pack_notify_info(&b, code, rank, PMIX_RANGE_LOCAL, info, ninfo);
	rc_send(fd, PXC_CMD_NOTIFY, 3, &b);
	ck_assert_int_eq(rc_reply(fd, 3, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
}

/* Reads EVENTs from fd until 300 ms pass without one; each must have tag.
 * Returns how many; *dropped gets the last SLURMIX_EVENT_CACHE_DROPPED. */
/* Reads an EVENT from fd within ms: 0 and its header tag and infos
 * (freed by the caller with pxc_array_free), or -1 when none came. */
static int recv_event(int fd, int ms, uint32_t *tag, pmix_info_t **info, size_t *ninfo)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	pmix_status_t code;
	pmix_proc_t src;
	pmix_data_range_t range;
	int32_t one = 1;

	if (rc_recv(fd, &h, &b, ms) != 0)
		return -1;
	ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
	*tag = h.tag;
	*info = NULL;
	*ninfo = 0;
	ck_assert_int_eq(pxc_unpack_status(&b, &code), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_proc(&b, &src), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(&b, &range, &one, PMIX_DATA_RANGE), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_array(&b, (void **)info, ninfo, PMIX_INFO), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	return 0;
}

static int events_with_tag(int fd, uint32_t tag, uint32_t *dropped)
{
	pmix_info_t *info;
	size_t ninfo;
	uint32_t got;
	int n = 0;

	while (recv_event(fd, 300, &got, &info, &ninfo) == 0) {
		ck_assert_uint_eq(got, tag);
		for (size_t i = 0; dropped && i < ninfo; i++)
			if (PMIx_Check_key(info[i].key, SLURMIX_EVENT_CACHE_DROPPED))
				*dropped = info[i].value.data.uint32;
		pxc_array_free(info, ninfo, PMIX_INFO);
		n++;
	}
	return n;
}

/* Late registrants (evcache.c): an event nobody had registered for is
 * sent to each handler registered later, once, after its registration's
 * reply, tagged with the handler's id; not to its notifier, not with
 * PMIX_EVENT_DO_NOT_CACHE, not to a registration without an id, not
 * again to a process that got it live. */
START_TEST(events_cache_late_registrant)
{
	pmix_status_t code = -12346;
	pmix_info_t nocache;
	bool yes = true;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&nocache, PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
	notify_local(fd1, code, 1, NULL, 0);
	notify_local(fd1, code, 1, &nocache, 1);
	notify_local(fd1, code - 1, 1, NULL, 0); /* another code */
	{ /* a handler id of the wrong type is no id: registered, nothing sent */
		pmix_data_buffer_t b;
		pmix_info_t bad;

		PMIx_Info_load(&bad, PXC_REG_HDLR_ID, "7", PMIX_STRING);
		pxc_buf_init(&b);
		pxc_pack_array(&b, &code, 1, PMIX_STATUS);
		pxc_pack_array(&b, &bad, 1, PMIX_INFO);
		rc_send(fd0, PXC_CMD_REGEVENTS, 2, &b);
		ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
		PMIx_Info_destruct(&bad);
		ck_assert_int_eq(events_with_tag(fd0, 7, NULL), 0);
	}
	regev(fd0, code, 7);
	ck_assert_int_eq(events_with_tag(fd0, 7, NULL), 1);
	regev(fd0, code, 8); /* a second handler of the same process */
	ck_assert_int_eq(events_with_tag(fd0, 8, NULL), 1);
	regev(fd0, code, 0); /* no id: nothing to send it to */
	ck_assert_int_eq(events_with_tag(fd0, 0, NULL), 0);
	regev(fd1, code, 3); /* the notifier */
	ck_assert_int_eq(events_with_tag(fd1, 3, NULL), 0);
	/* now rank 0 is registered: it gets the next one live, and a later
	 * handler gets only the one that came before it registered */
	notify_local(fd1, code, 1, NULL, 0);
	ck_assert_int_eq(events_with_tag(fd0, 0, NULL), 1);
	regev(fd0, code, 9);
	ck_assert_int_eq(events_with_tag(fd0, 9, NULL), 1);
	PMIx_Info_destruct(&nocache);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* A host with register_events is told of every registration, one for
 * every code included, before the client gets its answer; the codes take
 * effect then: an event in between reaches the handler once, from the
 * cache after the reply, not before it. */
START_TEST(events_register_waits_for_host)
{
	pmix_status_t code = -12347;
	pmix_data_buffer_t b;
	pmix_info_t info;
	pxc_wire_hdr_t h;
	size_t hdlr = 5;
	long t0;
	int fd0, fd1;

	keeper.keep_ms = 400;
	ck_assert_int_eq(start_server(&keep_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&info, PXC_REG_HDLR_ID, &hdlr, PMIX_SIZE);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, &info, 1, PMIX_INFO);
	t0 = pxc_now_ms();
	rc_send(fd0, PXC_CMD_REGEVENTS, 2, &b);
	pxc_buf_clear(&b);
	PMIx_Info_destruct(&info);
	keeper_wait_kept(1);
	notify_local(fd1, code, 1, NULL, 0);
	ck_assert_msg(rc_recv(fd0, &h, &b, 150) < 0, "an answer or an event before the host's");
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_ge(pxc_now_ms() - t0, 350);
	ck_assert_int_eq(events_with_tag(fd0, 5, NULL), 1);
	/* every code: told too, and it counts once the host answered */
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_STATUS);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd1, PXC_CMD_REGEVENTS, 4, &b);
	pxc_buf_clear(&b);
	keeper_wait_kept(2); /* (a LOCAL notify never reaches the host) */
	ck_assert_int_eq(rc_reply(fd1, 4, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert(keeper_saw("regevents"));
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* The cache's bounds: with room for a few events, the oldest go; the loss
 * is reported to each client, once: on the first event a late handler of
 * it gets, or else on the next delivered event; an aged entry is not
 * sent. */
START_TEST(events_cache_bounds)
{
	pmix_status_t code = -12347;
	pmix_info_t lim[2];
	uint32_t bytes = 2048, age = 1, dropped = 0;
	int fd0, fd1, fd2, n;

	PMIx_Info_load(&lim[0], PXC_SERVER_EVCACHE_BYTES, &bytes, PMIX_UINT32);
	PMIx_Info_load(&lim[1], PXC_SERVER_EVCACHE_AGE, &age, PMIX_UINT32);
	ck_assert_int_eq(start_server_with(&full_module, false, lim, 2), PMIX_SUCCESS);
	register_job(3);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	fd2 = rc_hello(2, PMIX_SUCCESS, NULL);
	for (int i = 0; i < 40; i++)
		notify_local(fd1, code, 1, NULL, 0);
	regev(fd0, code, 5);
	/* the first event the late handler gets reports the loss */
	n = events_with_tag(fd0, 5, &dropped);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, 40);
	ck_assert_uint_eq(dropped, 40 - (uint32_t)n);
	/* each client is told: another late one learns of the same losses */
	dropped = 0;
	regev(fd2, code, 6);
	ck_assert_int_eq(events_with_tag(fd2, 6, &dropped), n);
	ck_assert_uint_eq(dropped, 40 - (uint32_t)n);
	/* reported once: the next delivered event says nothing */
	dropped = 0;
	notify_local(fd1, code, 1, NULL, 0);
	ck_assert_int_eq(events_with_tag(fd0, 0, &dropped), 1);
	ck_assert_uint_eq(dropped, 0);
	/* a loss with no late handler to tell goes with the next live one */
	for (int i = 0; i < 40; i++)
		notify_local(fd0, code - 2, 0, NULL, 0); /* nobody registered for it */
	notify_local(fd1, code, 1, NULL, 0);
	ck_assert_int_eq(events_with_tag(fd0, 0, &dropped), 1);
	ck_assert_uint_gt(dropped, 0);
	/* aged out */
	notify_local(fd1, code - 1, 1, NULL, 0);
	usleep(1300000);
	regev(fd0, code - 1, 6);
	ck_assert_int_eq(events_with_tag(fd0, 6, NULL), 0);
	PMIx_Info_destruct(&lim[0]);
	PMIx_Info_destruct(&lim[1]);
	close(fd0);
	close(fd1);
	close(fd2);
	stop_server();
}
END_TEST

/* Back-pressure (evqueue.c): with a bound smaller than one notification
 * (one always goes), the second waits until the host finished the first
 * (the host is handed one at a time, the answers come in order), and
 * nothing is dropped. */
START_TEST(events_queue_bound)
{
	pmix_data_buffer_t b;
	pmix_info_t lim;
	uint32_t bytes = 1;
	long t0, t1;
	int fd, n0;

	PMIx_Info_load(&lim, PXC_SERVER_EVENT_QUEUE_BYTES, &bytes, PMIX_UINT32);
	keeper.keep_ms = 300;
	ck_assert_int_eq(start_server_with(&keep_module, false, &lim, 1), PMIX_SUCCESS);
	register_job(2);
	fd = rc_hello(1, PMIX_SUCCESS, NULL);
	n0 = keeper.nkept; /* the connect upcall */
	t0 = pxc_now_ms();
	for (uint32_t tag = 3; tag <= 5; tag++) {
		pack_notify(&b, -12348, 1, PMIX_RANGE_SESSION);
		rc_send(fd, PXC_CMD_NOTIFY, tag, &b);
		pxc_buf_clear(&b);
	}
	keeper_wait_kept(n0 + 1);
	usleep(150000);
	ck_assert_int_eq(keeper.nkept, n0 + 1); /* the others wait */
	for (uint32_t tag = 3; tag <= 5; tag++) {
		ck_assert_int_eq(rc_reply(fd, tag, &b), PMIX_SUCCESS);
		pxc_buf_clear(&b);
		t1 = pxc_now_ms() - t0;
		ck_assert_int_ge(t1, 280 * (long)(tag - 2)); /* one after the other */
	}
	keeper_drain(n0 + 3);
	PMIx_Info_destruct(&lim);
	close(fd);
	stop_server();
}
END_TEST

/* Synchronous events (evsync.c) on the wire: each recipient's EVENT
 * carries the sync id last; the host hears once every one answered or
 * left: a client that closes without answering stays named
 * (PARTIAL_SUCCESS); an EVENT_DONE for nothing is ignored, a truncated
 * one closes that connection and the server goes on. */
static struct {
	volatile int done;
	pmix_status_t st;
	size_t nhandled, nun;
	pmix_rank_t un0;
} sy;

static void sync_cb(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
		    void *cbdata)
{
	(void)cbdata;
	sy.st = st;
	sy.nhandled = nhandled;
	sy.nun = nun;
	sy.un0 = nun ? un[0].rank : PMIX_RANK_INVALID;
	__atomic_add_fetch(&sy.done, 1, __ATOMIC_SEQ_CST);
}

/* Reads an EVENT on fd: its sync id (0 when none). */
static uint32_t sync_id_of(int fd)
{
	pmix_info_t *info;
	size_t ninfo;
	uint32_t tag, id = 0;

	ck_assert_int_eq(recv_event(fd, TMO, &tag, &info, &ninfo), 0);
	ck_assert_uint_gt(ninfo, 0);
	/* the source node is named like on any event */
	ck_assert_ptr_nonnull(pxc_info_find(info, ninfo, PMIX_HOSTNAME));
	if (PMIx_Check_key(info[ninfo - 1].key, PXC_EVENT_SYNC_ID))
		id = info[ninfo - 1].value.data.uint32;
	pxc_array_free(info, ninfo, PMIX_INFO);
	return id;
}

static void send_done(int fd, uint32_t id, bool handled, bool truncated)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack(&b, &id, 1, PMIX_UINT32);
	if (!truncated)
		pxc_pack(&b, &handled, 1, PMIX_BOOL);
	rc_send(fd, PXC_CMD_EVENT_DONE, 0, &b);
	pxc_buf_clear(&b);
}

/* Raises code synchronously (timeout 5 s, the test's callback). */
static pmix_status_t sync_raise(pmix_status_t code)
{
	return pxc_server_notify_sync(code, NULL, PMIX_RANGE_SESSION, NULL, 0, 5000, sync_cb, NULL);
}

static void sync_wait(int done)
{
	for (int i = 0; i < 500 && sy.done < done; i++)
		usleep(10000);
	ck_assert_int_eq(sy.done, done);
}

START_TEST(events_sync)
{
	const pmix_status_t code = -12349;
	pxc_wire_hdr_t h;
	pmix_data_buffer_t b;
	uint32_t id0, id1;
	int fd0, fd1;

	ck_assert_int_eq(start_server(&full_module, false), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd0, code, 0);
	regev(fd1, code, 0);
	ck_assert_int_eq(pxc_server_notify_sync(code, NULL, PMIX_RANGE_SESSION, NULL, 0, 5000, NULL,
						NULL),
			 PMIX_ERR_BAD_PARAM); /* nobody to tell */
	ck_assert_int_eq(pxc_server_notify_sync(code, NULL, PMIX_RANGE_SESSION, NULL, 0, 0, sync_cb,
						NULL),
			 PMIX_ERR_BAD_PARAM); /* never an endless wait */
	/* both answer, one had a handler */
	ck_assert_int_eq(sync_raise(code), PMIX_SUCCESS);
	id0 = sync_id_of(fd0);
	id1 = sync_id_of(fd1);
	ck_assert_uint_ne(id0, 0);
	ck_assert_uint_eq(id0, id1);
	send_done(fd0, id0 + 1000, true, false); /* for nothing: ignored */
	send_done(fd0, id0, true, false);
	usleep(100000);
	ck_assert_int_eq(sy.done, 0); /* rank 1 has not answered */
	send_done(fd1, id1, false, false);
	sync_wait(1);
	ck_assert_int_eq(sy.st, PMIX_SUCCESS);
	ck_assert_uint_eq(sy.nhandled, 1);
	ck_assert_uint_eq(sy.nun, 0);
	/* rank 1 leaves without answering */
	ck_assert_int_eq(sync_raise(code), PMIX_SUCCESS);
	id0 = sync_id_of(fd0);
	(void)sync_id_of(fd1);
	send_done(fd0, id0, true, false);
	close(fd1);
	sync_wait(2);
	ck_assert_int_eq(sy.st, PMIX_ERR_PARTIAL_SUCCESS);
	ck_assert_uint_eq(sy.nun, 1);
	ck_assert_uint_eq(sy.un0, 1);
	/* a truncated answer closes that connection; the wait ends for it */
	ck_assert_int_eq(sync_raise(code), PMIX_SUCCESS);
	id0 = sync_id_of(fd0);
	send_done(fd0, id0, true, true);
	ck_assert_int_ne(rc_recv(fd0, &h, &b, TMO), 0); /* closed */
	sync_wait(3);
	ck_assert_int_eq(sy.st, PMIX_ERR_PARTIAL_SUCCESS);
	ck_assert_uint_eq(sy.un0, 0);
	close(fd0);
	/* the server goes on: a new client is served, and nobody registered
	 * is no disposition */
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(sync_raise(code), PMIX_SUCCESS);
	sync_wait(4);
	ck_assert_int_eq(sy.st, PMIX_ERR_NOT_FOUND);
	close(fd1);
	stop_server();
}
END_TEST

/* Back-pressure for local notifications too: a client that reads none of
 * its events holds its notifier, whose further notifications wait for
 * their turn (one at a time, the notifier's socket paused), instead of
 * every one being delivered and left waiting for room in the server
 * (which grew the step daemons to 230 MiB in a 100,000-event burst). */
static size_t q_waiting, q_draining;

static void queue_sizes(void *arg)
{
	q_waiting = pxc_evq_waiting();
	q_draining = pxc_evq_draining();
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

struct sender {
	int fd;
	int n;
	const pmix_info_t *payload;
	pmix_status_t code;
};

/* Sends n NOTIFYs (blocking: the server may stop reading them). */
static void *send_many(void *arg)
{
	struct sender *t = arg;
	pmix_data_buffer_t b;

	for (int i = 0; i < t->n; i++) {
		pack_notify_info(&b, t->code, 1, PMIX_RANGE_LOCAL, t->payload, 1);
		rc_send(t->fd, PXC_CMD_NOTIFY, 3 + (uint32_t)i, &b);
		pxc_buf_clear(&b);
	}
	return NULL;
}

START_TEST(events_queue_local)
{
	static char big[65536];
	pmix_info_t lim, payload;
	uint32_t bytes = 4096;
	struct sender t = { .n = 40, .payload = &payload, .code = -12350 };
	pthread_t th;
	pxc_sync_t s;
	int fd0;

	memset(big, 'x', sizeof(big) - 1);
	PMIx_Info_load(&lim, PXC_SERVER_EVENT_QUEUE_BYTES, &bytes, PMIX_UINT32);
	PMIx_Info_load(&payload, "test.big", big, PMIX_STRING);
	ck_assert_int_eq(start_server_with(&full_module, false, &lim, 1), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	t.fd = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd0, t.code, 0); /* and never reads its events */
	ck_assert_int_eq(pthread_create(&th, NULL, send_many, &t), 0);
	usleep(500000);
	pxc_sync_init(&s);
	ck_assert_int_eq(pxc_srv_call_wait(queue_sizes, &s, &s), PMIX_SUCCESS);
	pxc_sync_fini(&s);
	close(fd0); /* gone: nobody is held any more */
	pthread_join(th, NULL);
	ck_assert_uint_le(q_draining, 1); /* the one whose turn it is */
	ck_assert_uint_le(q_waiting, 1);  /* the notifier is paused behind it */
	PMIx_Info_destruct(&lim);
	PMIx_Info_destruct(&payload);
	close(t.fd);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "events", events_delivery },
		{ "events_notify_waits_for_host", events_notify_waits_for_host },
		{ "events_notify_host_refuses", events_notify_host_refuses },
		{ "events_mark_before_reply", events_mark_before_reply },
		{ "events_cache_late_registrant", events_cache_late_registrant },
		{ "events_register_waits_for_host", events_register_waits_for_host },
		{ "events_cache_bounds", events_cache_bounds },
		{ "events_queue_bound", events_queue_bound },
		{ "events_sync", events_sync },
		{ "events_queue_local", events_queue_local },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
