/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof.c - IO forwarding on the server's side, over the engine of src/iof
 * (docs/iof.md):
 *   PMIx_server_IOF_deliver  the host hands the server what a process
 *                            wrote (PMIX_IOF_COMPLETE in its info: the end
 *                            of that channel): into the engine;
 *   IOF_PULL                 a client's subscription (proto.h): its
 *                            directives checked (a wrong one is
 *                            PMIX_ERR_BAD_PARAM, logged with its name),
 *                            the reply with its id, and then its history
 *                            and every new chunk as IOF frames on the
 *                            client's first connection;
 *   IOF_DEREG                flushes the subscription (its last frames go
 *                            before the reply) and forgets it; an id that
 *                            is not the client's own is PMIX_ERR_BAD_PARAM;
 *   IOF_PUSH                 bytes for other processes' stdin, handed to
 *                            the host's push_stdin (NULL bytes: the end),
 *                            answered when it called back.
 * A client whose connection holds more than IOF_CONN_BYTES unread (also
 * when the events have no bound) is sent nothing more until it
 * has written all it holds (pxc_conn_when_drained); meanwhile the engine keeps
 * its bytes within the subscription's own bounds (a cache size is at
 * most IOF_MAX_CACHE), and the processes writing never wait. IOF frames
 * do not count for the event marks: the pull's and the deregistration's
 * replies come on the same connection, after them. A client that goes has its subscriptions dropped.
 * History bytes per (process, channel): PXC_SERVER_IOF_HISTORY in the
 * server's init info (UINT32, default 64 KiB).
 * Progress thread, except PMIx_server_IOF_deliver's entry (any thread).
 */
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <pmix.h>

#include "internal.h"
#include "server.h"
#include "proto.h"
#include "iof.h"
#include "peer.h"
#include "upcall.h"
#include "iof/iof.h"
#include "pmix_slurmix.h"

/* A subscription of a client: the engine's id and who asked. */
typedef struct isub {
	struct isub *next;
	uint32_t id;
	uint64_t peer_id;
	bool waiting; /* its client's connection was full */
} isub_t;

#define IOF_MAX_CACHE (16u << 20)   /* the most a client may have kept for it per stream */
#define IOF_CONN_BYTES (256u << 10) /* unread on a client's connection: it waits */

static struct {
	sx_iof_t *engine;
	isub_t *subs;
	struct event *timer; /* the engine's next BUFFERING_TIME deadline */
	size_t history, queue;
} iof = { .history = 65536, .queue = 4u << 20 };

static isub_t *isub_find(uint32_t id)
{
	for (isub_t *s = iof.subs; s; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

static void isub_remove(uint32_t id)
{
	for (isub_t **pp = &iof.subs; *pp; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			isub_t *s = *pp;

			*pp = s->next;
			free(s);
			return;
		}
}

void pxc_iof_config(size_t history, size_t queue)
{
	iof.history = history >= 2 ? history : 2;
	iof.queue = queue >= iof.history ? queue : iof.history;
}

static sx_iof_t *engine(void)
{
	if (!iof.engine)
		iof.engine = sx_iof_create(iof.history, iof.queue);
	return iof.engine;
}

void pxc_iof_clear(void)
{
	if (iof.timer)
		event_free(iof.timer);
	iof.timer = NULL;
	while (iof.subs)
		isub_remove(iof.subs->id);
	sx_iof_destroy(iof.engine);
	iof.engine = NULL;
}

static void on_timer(int fd, short what, void *arg);

/* Delivers what waited long enough and arms the timer for the next. */
static void tick(void)
{
	int64_t next = iof.engine ? sx_iof_tick(iof.engine, pxc_now_ms()) : -1;
	struct timeval tv;

	if (next < 0 || !pxc_srv.base)
		return;
	if (!iof.timer && !(iof.timer = evtimer_new(pxc_srv.base, on_timer, NULL)))
		return;
	tv.tv_sec = next / 1000;
	tv.tv_usec = (next % 1000) * 1000;
	evtimer_add(iof.timer, &tv);
}

static void on_timer(int fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	tick();
}

/* ------------------------------------------------------------- delivery */

/* A full client's connection has drained: its waiting subscriptions
 * go on (not the events' drain waits: a client that reads none of its
 * output must not hold anybody's events). */
static void drained(void *arg)
{
	uint64_t peer_id = (uint64_t)(uintptr_t)arg;

	for (isub_t *s = iof.subs; s; s = s->next)
		if (s->peer_id == peer_id && s->waiting) {
			s->waiting = false;
			sx_iof_resume(iof.engine, s->id, pxc_now_ms());
		}
	tick();
}

static pmix_status_t pack_chunk(pmix_data_buffer_t *b, const sx_iof_chunk_t *c)
{
	pmix_byte_object_t bo = { .bytes = (char *)c->data, .size = c->n };
	pmix_info_t info[2];
	size_t n = 0;
	uint64_t dropped = c->dropped;
	bool yes = true;
	pmix_status_t st;

	if (c->complete)
		PMIx_Info_load(&info[n++], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	if (dropped)
		PMIx_Info_load(&info[n++], SLURMIX_IOF_DROPPED, &dropped, PMIX_UINT64);
	pxc_buf_init(b);
	st = pxc_pack_proc(b, c->src);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(b, &c->channel, 1, PMIX_UINT16);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(b, info, n, PMIX_INFO);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
	return st;
}

/* The engine's sink for a client's subscription: an IOF frame to it;
 * false (wait for sx_iof_resume) when its connection is full. */
static bool to_client(void *arg, uint32_t id, const sx_iof_chunk_t *c)
{
	isub_t *s = isub_find(id);
	pxc_peer_t *p = s ? pxc_peer_find(s->peer_id) : NULL;
	pmix_data_buffer_t b;

	(void)arg;
	if (!p)
		return false; /* going: dropped with its peer */
	/* not counted for the event marks: a pull's and a deregistration's
	 * replies come on this connection too, after what went before */
	if (pack_chunk(&b, c) != PMIX_SUCCESS ||
	    pxc_conn_send(p->conn, PXC_CMD_IOF, id, 0, &b) != 0)
		pxc_error("server: IOF of %u bytes to %s:%u lost", (unsigned)c->n, p->proc.nspace,
			  p->proc.rank);
	pxc_buf_clear(&b);
	if (pxc_conn_queued(p->conn) <= IOF_CONN_BYTES)
		return true;
	s->waiting = true;
	pxc_conn_when_drained(p->conn, drained, (void *)(uintptr_t)p->id);
	return false;
}

void pxc_iof_peer_gone(uint64_t peer_id)
{
	for (isub_t *s = iof.subs, *next; s; s = next) {
		next = s->next;
		if (s->peer_id != peer_id)
			continue;
		sx_iof_cancel(iof.engine, s->id);
		isub_remove(s->id);
	}
}

/* ------------------------------------------------------------- requests */

/* The host has what it relays for the pull in the engine (or cannot get
 * it): the subscription takes its history and goes on. */
static void pull_ready(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	uint32_t id = (uint32_t)(uintptr_t)r->ctx;

	if (res->status != PMIX_SUCCESS && res->status != PMIX_OPERATION_SUCCEEDED)
		pxc_debug("server: the host's iof_pull for subscription %u: %s (local "
			  "output only)",
			  id, PMIx_Error_string(res->status));
	if (isub_find(id)) {
		sx_iof_resume(iof.engine, id, pxc_now_ms());
		tick();
	}
}

/* After the pull's reply: the host's iof_pull (output of other nodes'
 * processes), then the subscription's history, once it called back. The
 * request owns procs and info from here on. */
static void pull_upcall(pxc_peer_t *p, const pxc_wire_hdr_t *h, uint32_t id, pmix_proc_t *procs,
			size_t nprocs, pmix_info_t *info, size_t ninfo, uint16_t channels)
{
	pxc_upcall_t *r = pxc_srv.module.iof_pull ? pxc_upcall_new(p, h->tag, h->cmd, pull_ready) :
						    NULL;
	pmix_status_t st;

	if (!r) {
		pxc_array_free(procs, nprocs, PMIX_PROC);
		pxc_array_free(info, ninfo, PMIX_INFO);
		sx_iof_resume(iof.engine, id, pxc_now_ms());
		tick();
		return;
	}
	r->ctx = (void *)(uintptr_t)id;
	r->a.procs = procs;
	r->a.nprocs = nprocs;
	r->a.info = info;
	r->a.ninfo = ninfo;
	st = pxc_srv.module.iof_pull(procs, nprocs, info, ninfo, channels, pxc_upcall_cb_op,
				     (void *)(uintptr_t)r->id);
	pxc_upcall_after_call(r, st);
}

int pxc_do_iof_pull(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t *procs = NULL;
	pmix_info_t *info = NULL;
	size_t nprocs = 0, ninfo = 0, hid = 0;
	uint16_t channels;
	int32_t n = 1;
	sx_iof_opts_t o;
	const char *bad = NULL;
	pmix_status_t st;
	pmix_data_buffer_t body;
	isub_t *s = NULL;
	uint32_t id = 0;

	if (pxc_unpack_array(in, (void **)&procs, &nprocs, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack(in, &channels, &n, PMIX_UINT16) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_array_free(procs, nprocs, PMIX_PROC);
		return -1;
	}
	st = sx_iof_opts_parse(info, ninfo, &o, &bad);
	if (o.cache_size > IOF_MAX_CACHE) /* (a client that never reads holds this much) */
		o.cache_size = IOF_MAX_CACHE;
	if (st != PMIX_SUCCESS)
		pxc_error("server: IOF pull of %s:%u: bad directive %s", p->proc.nspace,
			  p->proc.rank, bad ? bad : "?");
	else if (!nprocs || !(channels & PMIX_FWD_ALL_CHANNELS))
		st = PMIX_ERR_BAD_PARAM;
	else if (!engine() || !(s = calloc(1, sizeof(*s))))
		st = PMIX_ERR_NOMEM;
	else
		st = sx_iof_subscribe(iof.engine, procs, nprocs, channels, &o, true, to_client,
				      NULL, pxc_now_ms(), &id);
	if (st == PMIX_SUCCESS) {
		s->id = id;
		s->peer_id = p->id;
		s->next = iof.subs;
		iof.subs = s;
		hid = id;
	} else {
		free(s);
	}
	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS && pxc_pack(&body, &hid, 1, PMIX_SIZE) != PMIX_SUCCESS)
		st = PMIX_ERR_NOMEM; /* (the subscription stays held; dropped with p) */
	pxc_peer_reply(p, h->cmd, h->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
	if (st == PMIX_SUCCESS) { /* after the reply: its id is known first */
		pull_upcall(p, h, id, procs, nprocs, info, ninfo, channels);
		return 0;
	}
	pxc_array_free(procs, nprocs, PMIX_PROC);
	pxc_array_free(info, ninfo, PMIX_INFO);
	return 0;
}

int pxc_do_iof_dereg(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	size_t hid;
	int32_t n = 1;
	isub_t *s;

	if (pxc_unpack(in, &hid, &n, PMIX_SIZE) != PMIX_SUCCESS)
		return -1;
	s = hid <= UINT32_MAX ? isub_find((uint32_t)hid) : NULL;
	if (!s || s->peer_id != p->id)
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_BAD_PARAM, NULL), 0;
	sx_iof_unsubscribe(iof.engine, s->id, pxc_now_ms()); /* its last frames */
	isub_remove(s->id);
	pxc_peer_reply(p, h->cmd, h->tag, PMIX_SUCCESS, NULL);
	return 0;
}

/* ---------------------------------------------------------------- push */

static void bo_free(void *ctx)
{
	pmix_byte_object_t *bo = ctx;

	PMIx_Byte_object_destruct(bo);
	free(bo);
}

int pxc_do_iof_push(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pxc_upcall_args_t a = { 0 };
	pmix_byte_object_t *bo = calloc(1, sizeof(*bo));
	pmix_status_t st = PMIX_SUCCESS;
	pxc_upcall_t *r;

	if (!bo)
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_ERR_NOMEM, NULL), 0;
	if (pxc_unpack_array(in, (void **)&a.procs, &a.nprocs, PMIX_PROC) != PMIX_SUCCESS ||
	    pxc_unpack(in, bo, &(int32_t){ 1 }, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&a.info, &a.ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_upcall_args_free(&a);
		bo_free(bo);
		return -1;
	}
	if (!a.nprocs || (!bo->size && !pxc_info_flag(a.info, a.ninfo, PMIX_IOF_COMPLETE)) ||
	    pxc_info_flag(a.info, a.ninfo, PMIX_IOF_PUSH_STDIN))
		st = PMIX_ERR_BAD_PARAM; /* (a client's own stdin is its library's business) */
	r = pxc_upcall_start(p, h, pxc_srv.module.push_stdin != NULL, st, pxc_upcall_done_status,
			     &a);
	if (!r) {
		bo_free(bo);
		return 0;
	}
	r->ctx = bo;
	r->ctx_free = bo_free;
	st = pxc_srv.module.push_stdin(&r->a.proc, r->a.procs, r->a.nprocs, r->a.info, r->a.ninfo,
				       bo->size ? bo : NULL, pxc_upcall_cb_op,
				       PXC_UPCALL_CBDATA(r));
	pxc_upcall_after_call(r, st);
	return 0;
}

/* --------------------------------------------------- from the host's side */

typedef struct {
	pxc_apiop_t op;
	pmix_proc_t src;
	pmix_iof_channel_t channel;
	char *bytes;
	size_t n;
	uint64_t lost; /* SLURMIX_IOF_DROPPED: bytes that did not come */
	bool complete;
} deliver_t;

static void deliver_free(void *arg)
{
	deliver_t *d = arg;

	free(d->bytes);
	free(d);
}

static void deliver_fn(void *arg)
{
	deliver_t *d = arg;

	pxc_apiop_done(&d->op, pxc_server_iof_input(&d->src, d->channel, d->bytes, d->n, d->lost,
						    d->complete));
}

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source, pmix_iof_channel_t channel,
				      const pmix_byte_object_t *bo, const pmix_info_t info[],
				      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	deliver_t *d;
	pmix_status_t st;

	if (!source ||
	    (channel != PMIX_FWD_STDOUT_CHANNEL && channel != PMIX_FWD_STDERR_CHANNEL &&
	     channel != PMIX_FWD_STDDIAG_CHANNEL && channel != PMIX_FWD_STDIN_CHANNEL) ||
	    (bo && bo->size && !bo->bytes))
		return PMIX_ERR_BAD_PARAM;
	if (!(d = calloc(1, sizeof(*d))))
		return PMIX_ERR_NOMEM;
	d->src = *source;
	d->channel = channel;
	d->complete = pxc_info_flag(info, ninfo, PMIX_IOF_COMPLETE);
	for (size_t i = 0; info && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, SLURMIX_IOF_DROPPED) &&
		    info[i].value.type == PMIX_UINT64)
			d->lost = info[i].value.data.uint64;
	if (bo && bo->size) {
		if (!(d->bytes = malloc(bo->size))) {
			free(d);
			return PMIX_ERR_NOMEM;
		}
		memcpy(d->bytes, bo->bytes, bo->size);
		d->n = bo->size;
	}
	d->op.cbfunc = cbfunc;
	d->op.cbdata = cbdata;
	d->op.free_fn = deliver_free;
	st = pxc_apiop_run(&d->op, deliver_fn);
	if (!cbfunc || st != PMIX_SUCCESS)
		deliver_free(d);
	return st;
}

/* ------------------------------------------------ the host's own, relays */

pmix_status_t pxc_server_iof_input(const pmix_proc_t *src, pmix_iof_channel_t channel,
				   const void *data, size_t n, uint64_t lost, bool complete)
{
	int64_t now = pxc_now_ms();
	pmix_status_t st = !pxc_srv.running ? PMIX_ERR_INIT :
			   !engine()        ? PMIX_ERR_NOMEM :
					      PMIX_SUCCESS;

	if (st == PMIX_SUCCESS && n)
		st = sx_iof_input(iof.engine, src, channel, data, n, now);
	if (st == PMIX_SUCCESS && lost)
		st = sx_iof_skip(iof.engine, src, channel, lost);
	if (st == PMIX_SUCCESS && complete)
		st = sx_iof_close(iof.engine, src, channel, now);
	tick();
	return st;
}

pmix_status_t pxc_server_iof_relay(const pmix_proc_t *procs, size_t nprocs,
				   pmix_iof_channel_t channels, sx_iof_sink_f sink, void *arg,
				   uint32_t *id)
{
	sx_iof_opts_t o = { 0 };
	pmix_status_t st;

	if (!pxc_srv.running)
		return PMIX_ERR_INIT;
	if (!engine())
		return PMIX_ERR_NOMEM;
	st = sx_iof_subscribe(iof.engine, procs, nprocs, channels, &o, false, sink, arg,
			      pxc_now_ms(), id);
	tick();
	return st;
}

void pxc_server_iof_relay_resume(uint32_t id)
{
	if (iof.engine) {
		sx_iof_resume(iof.engine, id, pxc_now_ms());
		tick();
	}
}

void pxc_server_iof_relay_stop(uint32_t id)
{
	if (iof.engine)
		sx_iof_cancel(iof.engine, id);
}
