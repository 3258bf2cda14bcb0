/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawclient.c - a hand-made client of the server under test
 * (rawclient.h): frames written and read on a blocking Unix socket, each
 * read guarded by a poll timeout.
 */
#include "rawclient.h"

#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <pmix.h>
#include "pack.h"
#include "srvthread.h"
#include "server/peer.h"

int rc_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", pxc_srv.sockpath);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

void write_all(int fd, const void *b, size_t n)
{
	const char *p = b;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return; /* peer closed: the test checks later */
		p += w;
		n -= (size_t)w;
	}
}

void rc_send(int fd, uint16_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = b ? (uint32_t)b->bytes_used : 0, .tag = tag, .cmd = cmd };

	pxc_wire_hdr_encode(&h, hdr);
	write_all(fd, hdr, sizeof(hdr));
	if (b && b->bytes_used)
		write_all(fd, b->base_ptr, b->bytes_used);
	if (b)
		pxc_buf_clear(b);
}

static int read_full(int fd, void *buf, size_t n, int ms)
{
	char *p = buf;

	while (n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, ms) <= 0)
			return -1;
		r = read(fd, p, n);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Reads one frame; -1 on timeout or EOF. */
int rc_recv(int fd, pxc_wire_hdr_t *h, pmix_data_buffer_t *b, int ms)
{
	unsigned char raw[PXC_WIRE_HDR_LEN];
	char *bytes = NULL;

	if (read_full(fd, raw, sizeof(raw), ms) < 0)
		return -1;
	ck_assert_int_eq(pxc_wire_hdr_decode(raw, PXC_WIRE_MAX_PAYLOAD, h), 0);
	if (h->len) {
		bytes = malloc(h->len);
		if (read_full(fd, bytes, h->len, ms) < 0) {
			free(bytes);
			return -1;
		}
	}
	pxc_buf_init(b);
	pxc_buf_load_take(b, bytes, h->len);
	return 0;
}

/* Waits for the reply with tag; returns its status, leaves b after it. */
pmix_status_t rc_reply(int fd, uint32_t tag, pmix_data_buffer_t *b)
{
	pxc_wire_hdr_t h;
	pmix_status_t st;

	for (;;) {
		ck_assert_int_eq(rc_recv(fd, &h, b, TMO), 0);
		if (h.tag == tag && (h.flags & PXC_WIRE_F_REPLY))
			break;
		pxc_buf_clear(b); /* an event: not what we wait for */
	}
	ck_assert_int_eq(pxc_unpack_status(b, &st), PMIX_SUCCESS);
	return st;
}

bool rc_closed(int fd)
{
	pxc_wire_hdr_t h;
	pmix_data_buffer_t b;

	for (int i = 0; i < 4; i++) {
		if (rc_recv(fd, &h, &b, TMO) < 0)
			return true;
		pxc_buf_clear(&b); /* a refusal reply may come first */
	}
	return false;
}

void pack_hello_info(pmix_data_buffer_t *b, uint8_t kind, const char *ns, pmix_rank_t rank,
		     const pmix_info_t *info, size_t ninfo)
{
	uint32_t v = PXC_PROTO_VERSION;
	pid_t pid = getpid();

	pxc_buf_init(b);
	pxc_pack_u32(b, v);
	pxc_pack(b, &kind, 1, PMIX_UINT8);
	pxc_pack_str(b, ns);
	pxc_pack(b, &rank, 1, PMIX_PROC_RANK);
	pxc_pack(b, &pid, 1, PMIX_PID);
	pxc_pack_array(b, info, ninfo, PMIX_INFO);
}

void pack_hello(pmix_data_buffer_t *b, uint8_t kind, const char *ns, pmix_rank_t rank)
{
	pack_hello_info(b, kind, ns, rank, NULL, 0);
}

/* Connects and says HELLO as NS:rank; returns the fd, job blob in store. */
int rc_hello(pmix_rank_t rank, pmix_status_t want, pxc_store_t *job)
{
	pmix_data_buffer_t b, blob;
	pmix_byte_object_t bo;
	pmix_proc_t me, srv;
	int32_t n = 1;
	int fd = rc_connect();

	pack_hello(&b, PXC_PEER_CLIENT, NS, rank);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), want);
	if (want == PMIX_SUCCESS) {
		ck_assert_int_eq(pxc_unpack_proc(&b, &me), PMIX_SUCCESS);
		ck_assert_int_eq(pxc_unpack_proc(&b, &srv), PMIX_SUCCESS);
		ck_assert_str_eq(me.nspace, NS);
		ck_assert_uint_eq(me.rank, rank);
		ck_assert_int_eq(pxc_unpack(&b, &bo, &n, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
		pxc_buf_init(&blob);
		pxc_buf_load_take(&blob, bo.bytes, bo.size);
		if (job)
			ck_assert_int_eq(pxc_store_unpack(job, &blob), PMIX_SUCCESS);
		pxc_buf_clear(&blob);
	}
	pxc_buf_clear(&b);
	return fd;
}

/* A fresh connection that says HELLO as kind ns:rank and gets want. */
int rc_hello_kind(uint8_t kind, const char *ns, pmix_rank_t rank, pmix_status_t want)
{
	pmix_data_buffer_t b;
	int fd = rc_connect();

	pack_hello(&b, kind, ns, rank);
	rc_send(fd, PXC_CMD_HELLO, 1, &b);
	ck_assert_int_eq(rc_reply(fd, 1, &b), want);
	pxc_buf_clear(&b);
	return fd;
}

/* COMMIT of records (key=val string) with the given scope. */
void rc_commit(int fd, pmix_rank_t rank, const char *key, const char *val, uint8_t scope)
{
	pxc_store_t *st = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };
	pmix_data_buffer_t blob, b;

	v.data.string = (char *)val;
	ck_assert_int_eq(pxc_store_put(st, NS, PXC_LVL_PROC, rank, key, &v, scope), 0);
	pxc_buf_init(&blob);
	ck_assert_int_eq(pxc_store_pack(st, NS, -1, PXC_ID_ANY, PXC_KINDS_ALL, &blob), 0);
	pxc_buf_init(&b);
	pxc_pack_blob(&b, &blob);
	rc_send(fd, PXC_CMD_COMMIT, 0, &b);
	pxc_buf_clear(&blob);
	pxc_store_destroy(st);
}

void pack_procs_info(pmix_data_buffer_t *b, const pmix_proc_t *procs, size_t n,
		     const pmix_info_t *info, size_t ninfo)
{
	pxc_buf_init(b);
	pxc_pack_array(b, procs, n, PMIX_PROC);
	pxc_pack_array(b, info, ninfo, PMIX_INFO);
}

void rc_fence_send(int fd, uint32_t tag, bool collect, int timeout)
{
	pmix_info_t info[2];
	pmix_data_buffer_t b;
	size_t n = 0;

	memset(info, 0, sizeof(info)); /* gcc -O1 -fsanitize sees it unset */
	if (collect)
		PMIx_Info_load(&info[n++], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
	if (timeout)
		PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
	pack_procs_info(&b, NULL, 0, info, n);
	rc_send(fd, PXC_CMD_FENCE, tag, &b);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
}

/* Reads a BLOB field into a new store. */
pxc_store_t *blob_store(pmix_data_buffer_t *b)
{
	pmix_byte_object_t bo;
	pmix_data_buffer_t blob;
	int32_t n = 1;
	pxc_store_t *st = pxc_store_create();

	ck_assert_int_eq(pxc_unpack(b, &bo, &n, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
	pxc_buf_init(&blob);
	pxc_buf_load_take(&blob, bo.bytes, bo.size);
	ck_assert_int_eq(pxc_store_unpack(st, &blob), PMIX_SUCCESS);
	pxc_buf_clear(&blob);
	return st;
}

void rc_get_send(int fd, uint32_t tag, const char *ns, pmix_rank_t rank, const char *key)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;

	PMIx_Load_procid(&p, ns, rank);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, key);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_GET, tag, &b);
}

pmix_status_t rc_get(int fd, uint32_t tag, const char *ns, pmix_rank_t rank, const char *key,
		     pxc_store_t **out)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	rc_get_send(fd, tag, ns, rank, key);
	st = rc_reply(fd, tag, &b);
	if (out)
		*out = st == PMIX_SUCCESS ? blob_store(&b) : NULL;
	pxc_buf_clear(&b);
	return st;
}

void send_query(int fd, uint32_t tag, const char *key, const char *nsq)
{
	pmix_query_t q;
	char *keys[2] = { (char *)key, NULL };
	pmix_info_t qual;
	pmix_data_buffer_t b;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	if (nsq) {
		PMIx_Info_load(&qual, PMIX_NSPACE, nsq, PMIX_STRING);
		q.qualifiers = &qual;
		q.nqual = 1;
	}
	pxc_buf_init(&b);
	pxc_pack_array(&b, &q, 1, PMIX_QUERY);
	rc_send(fd, PXC_CMD_QUERY, tag, &b);
	if (nsq)
		PMIx_Info_destruct(&qual);
}

void rc_cred_send(int fd, uint32_t tag, const pmix_byte_object_t *cred, const pmix_info_t *info,
		  size_t ninfo)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (cred)
		pxc_pack(&b, cred, 1, PMIX_BYTE_OBJECT);
	pxc_pack_array(&b, info, ninfo, PMIX_INFO);
	rc_send(fd, cred ? PXC_CMD_VALIDATE_CRED : PXC_CMD_GET_CRED, tag, &b);
}

void rc_expect_event(int fd, pmix_status_t code, const char *ns, pmix_rank_t rank)
{
	pxc_wire_hdr_t h;
	pmix_data_buffer_t b;
	pmix_status_t got;
	pmix_proc_t src;

	ck_assert_int_eq(rc_recv(fd, &h, &b, 5000), 0);
	ck_assert_uint_eq(h.cmd, PXC_CMD_EVENT);
	ck_assert_int_eq(pxc_unpack_status(&b, &got), PMIX_SUCCESS);
	ck_assert_int_eq(got, code);
	ck_assert_int_eq(pxc_unpack_proc(&b, &src), PMIX_SUCCESS);
	ck_assert_str_eq(src.nspace, ns);
	ck_assert_uint_eq(src.rank, rank);
	pxc_buf_clear(&b);
}

void rc_regevents(int fd, const pmix_status_t *codes, size_t n)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_array(&b, codes, n, PMIX_STATUS);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_REGEVENTS, 90, &b);
	ck_assert_int_eq(rc_reply(fd, 90, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
}
