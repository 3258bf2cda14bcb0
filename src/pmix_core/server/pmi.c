/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi.c - PMI-1 and PMI-2 for the tasks of the server's host (pmi.h).
 *
 * A PMI connection is a PMIx client of this server in all but its wire:
 * at the task's "cmd=init" the connection opens a socketpair into the
 * server (pxc_peer_adopt_client, with the registered client's uid/gid
 * and the task's pid from the preamble) and says HELLO as that client.
 * Every PMI request then becomes the PMIx request our client library
 * would send: a put is a PMIX_GLOBAL record, committed (COMMIT) before a
 * barrier, which is a collecting FENCE of the whole namespace (so across
 * nodes it is the host's fence, and PMIx clients of the step see the same
 * keys); a PMI-2 get naming its source rank that is not here yet is a
 * GET (local wait or the host's direct modex); publish/lookup/unpublish
 * and abort go to the host; finalize is FINALIZE; a connection that ends
 * without it is a lost client, like a PMIx one. The replies' blobs are
 * merged into the connection's own store (the HELLO's job information,
 * the fences' data), from which gets are answered.
 *
 * PMI has no owner in a get of PMI-1: a key is looked up among every
 * rank's posted records of the namespace. PMI_process_mapping is the
 * namespace's PMIX_ANL_MAP (the host registers it); node attributes
 * (PMI-2 info-putnodeattr / getnodeattr) are a table of this server.
 *
 * This file is the connection: its life, reading and framing, the
 * replies, the requests to the server; what each command does is
 * pmi_cmd.c. Requests of one connection are answered in order: while one
 * waits for the server, the next ones wait (read ahead, not handled).
 * Every request is parsed as hostile (pmi_wire.c); a broken one gets an
 * error reply (rc=-1 and a reason)
 * and the connection carries on, except where the framing is lost (then
 * it closes, which for the server is a lost client). Progress thread
 * only, except pxc_server_pmi_add.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <pmix.h>

#include "internal.h"
#include "nspace.h"
#include "peer.h"
#include "pmi.h"
#include "pmi_cmd.h"
#include "pmi_wire.h"
#include "proto.h"
#include "server.h"

/* Unprocessed bytes read ahead while a request waits. */
#define PMI_IN_MAX (256u << 10)
/* Replies the task has not read yet: beyond this it is dropped. */
#define PMI_OUT_MAX (4u << 20)

void pxc_pmi_resume(pxc_pmi_conn_t *c);
static void on_event(struct bufferevent *bev, short what, void *arg);

/* -------------------------------------------------------------- life */

static void conn_free(pxc_pmi_conn_t *c)
{
	for (pxc_pmi_conn_t **pp = &pxc_srv.pmi_conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->bev)
		bufferevent_free(c->bev);
	if (c->task_fd >= 0)
		close(c->task_fd);
	if (c->px)
		pxc_conn_close(c->px, !c->finalized ? false : true);
	if (c->wait_timer)
		pxc_srv_timer_free(c->wait_timer);
	pxc_pmi_reader_clear(&c->rd);
	pxc_store_destroy(c->kvs);
	pxc_store_destroy(c->unc);
	free(c->resp);
	free(c->thrid);
	free(c->wait_key);
	free(c->get_key);
	PMIx_App_free(c->apps, c->napps);
	free(c);
}

void pxc_pmi_fini(void)
{
	while (pxc_srv.pmi_conns)
		conn_free(pxc_srv.pmi_conns);
	pxc_pmi_attrs_clear();
}

/* ------------------------------------------------------------ replies */

void pxc_pmi_send(pxc_pmi_conn_t *c, pxc_pmi_out_t *o)
{
	if (pxc_pmi_out_end(o) == 0 && bufferevent_write(c->bev, o->buf, o->len) == 0)
		pxc_debug("pmi: %s:%u <- %.*s", c->proc.nspace, c->proc.rank,
			  (int)(o->len > 200 ? 200 : o->len), o->buf);
	pxc_pmi_out_clear(o);
}

/* Starts the reply to the current request (its name in c->resp). */
void pxc_pmi_reply_begin(pxc_pmi_conn_t *c, pxc_pmi_out_t *o, int rc)
{
	/* in the framing the request came in: init is PMI-1 even for PMI-2 */
	pxc_pmi_out_begin(o, c->rd.version, c->resp ? c->resp : "error");
	if (c->rd.version == PXC_PMI_V2 && c->thrid)
		pxc_pmi_out_add(o, "thrid", c->thrid);
	pxc_pmi_out_addi(o, "rc", rc);
}

void pxc_pmi_reply_error(pxc_pmi_conn_t *c, const char *why)
{
	pxc_pmi_out_t o;

	pxc_pmi_reply_begin(c, &o, -1);
	pxc_pmi_out_add(&o, c->rd.version == PXC_PMI_V2 ? "errmsg" : "msg", why);
	pxc_pmi_send(c, &o);
	pxc_debug("pmi: %s:%u: request refused: %s", c->proc.nspace, c->proc.rank, why);
}

void pxc_pmi_reply_ok(pxc_pmi_conn_t *c, const char *k1, const char *v1)
{
	pxc_pmi_out_t o;

	pxc_pmi_reply_begin(c, &o, 0);
	if (k1)
		pxc_pmi_out_add(&o, k1, v1);
	pxc_pmi_send(c, &o);
}

/* A get's answer: PMI-2 says found=TRUE/FALSE, PMI-1 rc=0/-1. */
void pxc_pmi_reply_value(pxc_pmi_conn_t *c, const char *val)
{
	pxc_pmi_out_t o;

	if (c->version != 2 && !val) {
		pxc_pmi_reply_error(c, "key not found");
		return;
	}
	pxc_pmi_reply_begin(c, &o, 0);
	if (c->version == 2)
		pxc_pmi_out_add(&o, "found", val ? "TRUE" : "FALSE");
	if (val)
		pxc_pmi_out_add(&o, "value", val);
	pxc_pmi_send(c, &o);
}

/* ------------------------------------------------- requests to the server */

pmix_status_t pxc_pmi_merge_blob(pxc_pmi_conn_t *c, pmix_data_buffer_t *reply)
{
	pmix_byte_object_t bo = { NULL, 0 };
	pmix_data_buffer_t blob;
	int32_t n = 1;
	pmix_status_t st = pxc_unpack(reply, &bo, &n, PMIX_BYTE_OBJECT);

	if (st != PMIX_SUCCESS || bo.size == 0) {
		free(bo.bytes);
		return st;
	}
	pxc_buf_init(&blob);
	pxc_buf_load_take(&blob, bo.bytes, bo.size);
	st = pxc_store_unpack(c->kvs, &blob);
	pxc_buf_clear(&blob);
	return st;
}

/* Sends a request; fn gets the reply. Reading stops until then. */
int pxc_pmi_request(pxc_pmi_conn_t *c, uint16_t cmd, pmix_data_buffer_t *b, pxc_pmi_reply_f fn)
{
	static uint32_t next_tag;

	if (++next_tag == 0)
		next_tag = 1;
	if (pxc_conn_send(c->px, cmd, fn ? next_tag : 0, 0, b) < 0)
		return -1;
	if (fn) {
		c->tag = next_tag;
		c->on_reply = fn;
	}
	return 0;
}

static void on_px_msg(pxc_conn_t *pc, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	pxc_pmi_conn_t *c = arg;
	pmix_status_t st;
	pxc_pmi_reply_f fn = c->on_reply;

	(void)pc;
	if (!(h->flags & PXC_WIRE_F_REPLY) || h->tag == 0 || h->tag != c->tag)
		return; /* events: PMI has none */
	c->tag = 0;
	c->on_reply = NULL;
	if (pxc_unpack_status(in, &st) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	fn(c, st, in);
	pxc_pmi_resume(c);
}

/* The server dropped our connection: the task loses its PMI service. */
static void on_px_close(pxc_conn_t *pc, int err, void *arg)
{
	pxc_pmi_conn_t *c = arg;

	(void)pc;
	pxc_error("pmi: %s:%u: the server closed the connection (%s)", c->proc.nspace, c->proc.rank,
		  err ? strerror(err) : "refused");
	c->px = NULL;
	pxc_conn_close(pc, false);
	conn_free(c);
}

static void hello_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	pmix_proc_t me, srv;
	pxc_pmi_out_t o;

	if (st == PMIX_SUCCESS &&
	    (pxc_unpack_proc(in, &me) != PMIX_SUCCESS || pxc_unpack_proc(in, &srv) != PMIX_SUCCESS))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS)
		st = pxc_pmi_merge_blob(c, in);
	if (st != PMIX_SUCCESS) {
		c->version = 0;
		pxc_pmi_reply_error(c, PMIx_Error_string(st));
		return;
	}
	pxc_pmi_reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "pmi_version", c->version);
	pxc_pmi_out_addi(&o, "pmi_subversion", c->version == 2 ? 0 : 1);
	pxc_pmi_send(c, &o);
	if (c->version == 2)
		c->rd.version = PXC_PMI_V2;
}

/* Opens the connection into the server and says HELLO as the client. */
int pxc_pmi_hello(pxc_pmi_conn_t *c)
{
	uint32_t ver = PXC_PROTO_VERSION;
	uint8_t kind = PXC_PEER_CLIENT;
	const char *ns = c->proc.nspace;
	pmix_data_buffer_t b;
	pmix_status_t st;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (pxc_peer_adopt_client(sv[0], c->uid, c->gid, c->pid) < 0) {
		close(sv[1]);
		return -1;
	}
	c->px = pxc_conn_new(pxc_srv.base, sv[1], PXC_WIRE_MAX_PAYLOAD, on_px_msg, on_px_close, c);
	if (!c->px)
		return -1;
	pxc_buf_init(&b);
	if ((st = pxc_pack(&b, &ver, 1, PMIX_UINT32)) ||
	    (st = pxc_pack(&b, &kind, 1, PMIX_UINT8)) || (st = pxc_pack(&b, &ns, 1, PMIX_STRING)) ||
	    (st = pxc_pack(&b, &c->proc.rank, 1, PMIX_PROC_RANK)) ||
	    (st = pxc_pack(&b, &c->pid, 1, PMIX_PID)) ||
	    (st = pxc_pack_array(&b, NULL, 0, PMIX_INFO))) {
		pxc_buf_clear(&b);
		return -1;
	}
	rc = pxc_pmi_request(c, PXC_CMD_HELLO, &b, hello_done);
	pxc_buf_clear(&b);
	return rc;
}

void pxc_pmi_set_current(pxc_pmi_conn_t *c, const char *resp, const pxc_pmi_msg_t *m)
{
	const char *thrid = m ? pxc_pmi_get(m, "thrid") : NULL;

	free(c->resp);
	free(c->thrid);
	c->resp = resp ? strdup(resp) : NULL;
	c->thrid = thrid && strlen(thrid) < 64 ? strdup(thrid) : NULL;
}

/* -------------------------------------------------------------- reading */

static void on_flushed(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_free(arg);
}

/* Ends the connection once the replies written so far are out (the task
 * gets the reason of a fatal error); the server sees the client go now. */
static void conn_close_flushed(pxc_pmi_conn_t *c)
{
	if (c->px)
		pxc_conn_close(c->px, false);
	c->px = NULL;
	if (c->task_fd >= 0)
		close(c->task_fd);
	c->task_fd = -1;
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	if (!evbuffer_get_length(bufferevent_get_output(c->bev))) {
		conn_free(c);
		return;
	}
	bufferevent_setcb(c->bev, NULL, on_flushed, on_event, c);
}

/* Handles the complete requests the reader holds, one at a time. 0, or -1
 * when the connection had to go (c is freed then). */
static int drain(pxc_pmi_conn_t *c)
{
	while (c->tag == 0 && !c->wait_key) {
		pxc_pmi_shape_t shape;
		pxc_pmi_msg_t m;
		const char *why = NULL;
		char *body;
		size_t len;
		bool fatal;
		int rc = pxc_pmi_reader_next(&c->rd, &shape, &body, &len, &why, &fatal);

		if (rc == 0)
			return 0;
		if (rc < 0) {
			pxc_pmi_set_current(c, c->version ? "error" : "response_to_init", NULL);
			pxc_pmi_reply_error(c, why);
			if (!fatal)
				continue;
			pxc_error("pmi: %s:%u: %s: connection closed", c->proc.nspace, c->proc.rank,
				  why);
			conn_close_flushed(c);
			return -1;
		}
		pxc_debug("pmi: %s:%u -> %.*s", c->proc.nspace, c->proc.rank,
			  (int)(len > 200 ? 200 : len), body);
		if (pxc_pmi_parse(shape, body, len, &m, &why) < 0) {
			pxc_pmi_set_current(c, c->version ? "error" : "response_to_init", NULL);
			pxc_pmi_reply_error(c, why);
		} else
			pxc_pmi_dispatch(c, &m);
		pxc_pmi_msg_clear(&m);
		free(body);
	}
	return 0;
}

/* The first bytes: the preamble with the task's pid, if the host wrote
 * one. Returns the bytes of data that follow it. */
static size_t take_preamble(pxc_pmi_conn_t *c, const char *data, size_t n)
{
	size_t take = 0;

	while (!c->pre_done && take < n && c->npre < PXC_PMI_PREAMBLE_LEN) {
		c->pre[c->npre] = (unsigned char)data[take];
		if (c->npre == 0 && c->pre[0] != (PXC_PMI_PREAMBLE_MAGIC >> 24)) {
			c->pre_done = true; /* no preamble: this is PMI already */
			return 0;
		}
		c->npre++;
		take++;
	}
	if (!c->pre_done && c->npre == PXC_PMI_PREAMBLE_LEN) {
		pid_t pid = pxc_pmi_preamble_pid(c->pre);

		c->pre_done = true;
		c->pid = pid > 0 ? pid : 0;
	}
	if (c->pre_done && c->task_fd >= 0) { /* the task has its own copy */
		close(c->task_fd);
		c->task_fd = -1;
	}
	return take;
}

/* Takes what the task sent, request by request, while none waits for the
 * server. 0, or -1 when the connection had to go (c is freed then). */
static int process_input(pxc_pmi_conn_t *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	char chunk[PXC_PMI_READ_CHUNK];
	int n;

	for (;;) {
		size_t skip;

		if (drain(c) < 0)
			return -1;
		if (c->tag || c->wait_key)
			return 0;
		if ((n = evbuffer_remove(in, chunk, sizeof(chunk))) <= 0)
			return 0;
		skip = take_preamble(c, chunk, (size_t)n);
		if (skip < (size_t)n && pxc_pmi_reader_feed(&c->rd, chunk + skip, n - skip) < 0) {
			conn_free(c);
			return -1;
		}
		if (evbuffer_get_length(bufferevent_get_output(c->bev)) > PMI_OUT_MAX) {
			pxc_error("pmi: %s:%u reads no replies: connection closed", c->proc.nspace,
				  c->proc.rank);
			conn_free(c);
			return -1;
		}
	}
}

void pxc_pmi_resume(pxc_pmi_conn_t *c)
{
	process_input(c);
}

/* Reading goes on while a request waits (up to the watermark), so that a
 * task that dies meanwhile is seen at once. */
static void on_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	process_input(arg);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	pxc_pmi_conn_t *c = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		pxc_debug("pmi: %s:%u: the task closed its PMI connection%s", c->proc.nspace,
			  c->proc.rank, c->finalized || !c->px ? "" : " without finalize");
		conn_free(c);
	}
}

/* ------------------------------------------------------------------ add */

struct add {
	int fd, task_fd;
	pmix_proc_t proc;
};

static void add_in_thread(void *arg)
{
	struct add *a = arg;
	pxc_sclient_t *cl = pxc_client_find(&a->proc);
	pxc_pmi_conn_t *c = calloc(1, sizeof(*c));

	if (!c || !cl || !(c->kvs = pxc_store_create()) || !(c->unc = pxc_store_create()) ||
	    !(c->bev = bufferevent_socket_new(pxc_srv.base, a->fd, BEV_OPT_CLOSE_ON_FREE))) {
		pxc_error("pmi: %s:%u: %s", a->proc.nspace, a->proc.rank,
			  cl ? "out of memory" : "not a registered client");
		if (c) {
			pxc_store_destroy(c->kvs);
			pxc_store_destroy(c->unc);
		}
		free(c);
		close(a->fd);
		close(a->task_fd);
		free(a);
		return;
	}
	c->proc = a->proc;
	c->uid = cl->uid;
	c->gid = cl->gid;
	c->task_fd = a->task_fd;
	pxc_pmi_reader_init(&c->rd);
	evutil_make_socket_nonblocking(a->fd);
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, PMI_IN_MAX);
	bufferevent_enable(c->bev, EV_READ);
	c->next = pxc_srv.pmi_conns;
	pxc_srv.pmi_conns = c;
	free(a);
}

int pxc_server_pmi_add(int fd, int task_fd, const pmix_proc_t *proc)
{
	struct add *a = malloc(sizeof(*a));

	if (!a || !proc || fd < 0) {
		free(a);
		if (fd >= 0)
			close(fd);
		if (task_fd >= 0)
			close(task_fd);
		return errno = a ? EINVAL : ENOMEM, -1;
	}
	a->fd = fd;
	a->task_fd = task_fd;
	a->proc = *proc;
	if (pxc_srv_post(add_in_thread, a) < 0) {
		int e = errno;

		close(fd);
		if (task_fd >= 0)
			close(task_fd);
		free(a);
		return errno = e, -1;
	}
	return 0;
}
