/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer.c - one connection from a client or a tool: credentials, HELLO,
 * FINALIZE, dispatch of the other requests, and the end of a connection.
 *
 * All in the progress thread. A new connection's credentials are read with
 * SO_PEERCRED at accept time; the first message must be HELLO, which names
 * the registered client (or says "tool"). The uid must be the one the
 * server serves or root, and a client's must match the uid the host
 * registered it with. Anything else before HELLO, an unknown command or a
 * payload that does not unpack closes the connection with a log line; the
 * server carries on.
 *
 * A client or tool may open a reply channel (proto.h, PXC_PEER_REPLY):
 * a second connection from the same process on which the replies to its
 * tagged requests go; it carries no requests (any is a protocol error)
 * and is closed together with the first connection.
 *
 * When a client's connection ends without FINALIZE, the client is marked
 * lost: collectives waiting for it fail at once and GETs parked on its
 * data are answered, so no other client hangs on it.
 *
 * Limits (peer.h): connections held at once, a HELLO deadline, requests
 * of one connection waiting for the host, the size of one message.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "upcall.h"
#include "abort.h"
#include "pubsub.h"
#include "spawn.h"
#include "log.h"
#include "group.h"
#include "iof.h"
#include "server/event.h"
#include "evsync.h"
#include "connect.h"
#include "peer.h"
#include "delta.h"
#include "jobctl.h"
#include "server.h"
#include "nspace.h"
#include "coll.h"
#include "dmodex.h"
#include "query.h"
#include "cred.h"
#include "monitor.h"
#include "alloc.h"
#include "proto.h"

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *payload, void *arg);
static void on_close(pxc_conn_t *c, int err, void *arg);

static struct {
	uint32_t max_peers, max_pending, max_message, hello_ms;
	uint32_t npeers;
	time_t refused_at; /* the last "too many connections" line */
} lim = { 1024, 65536, PXC_WIRE_MAX_PAYLOAD, 10000, 0, 0 };

void pxc_peer_config(uint32_t max_peers, uint32_t max_pending, uint32_t max_message,
		     uint32_t hello_ms)
{
	lim.max_peers = max_peers ? max_peers : 1;
	lim.max_pending = max_pending ? max_pending : 1;
	lim.max_message = max_message < 65536                ? 65536 :
			  max_message > PXC_WIRE_MAX_PAYLOAD ? PXC_WIRE_MAX_PAYLOAD :
							       max_message;
	lim.hello_ms = hello_ms ? hello_ms : 1;
}

bool pxc_peer_request_ok(pxc_peer_t *p)
{
	if (!p)
		return true; /* the server's own */
	if (p->npending >= lim.max_pending) {
		if (!p->pending_warned)
			pxc_error("server: %s:%u (pid %d) has %u requests waiting: refusing more "
				  "(SlurmixMaxPending)",
				  p->proc.nspace, p->proc.rank, (int)p->pid, p->npending);
		p->pending_warned = true;
		return false;
	}
	p->npending++;
	return true;
}

void pxc_peer_request_done(uint64_t peer_id)
{
	pxc_peer_t *p = peer_id ? pxc_peer_find(peer_id) : NULL;

	if (p && p->npending)
		p->npending--;
}

/* No HELLO in time: closed. */
static void hello_late(evutil_socket_t fd, short what, void *arg)
{
	pxc_peer_t *p = arg;

	(void)fd, (void)what;
	pxc_error("server: connection of pid %d said no HELLO in %u ms: closed", (int)p->pid,
		  lim.hello_ms);
	pxc_peer_drop(p, false);
}

/* ------------------------------------------------------------ life cycle */

static void peer_new(int fd, uid_t uid, gid_t gid, pid_t pid, bool proxied)
{
	pxc_peer_t *p;
	struct timeval tv = { lim.hello_ms / 1000, (lim.hello_ms % 1000) * 1000 };

	if (lim.npeers >= lim.max_peers) {
		time_t now = time(NULL);

		if (now - lim.refused_at >= 10) /* a line per 10 s at most */
			pxc_error("server: %u connections held: pid %d refused "
				  "(SlurmixMaxConnections)",
				  lim.npeers, (int)pid);
		lim.refused_at = now;
		close(fd);
		return;
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		close(fd);
		return;
	}
	p->id = pxc_srv_new_id();
	p->uid = uid;
	p->gid = gid;
	p->pid = pid;
	p->proxied = proxied;
	p->kind = -1;
	p->conn = pxc_conn_new(pxc_srv.base, fd, lim.max_message, on_msg, on_close, p);
	if (!p->conn || !(p->hello_timer = evtimer_new(pxc_srv.base, hello_late, p)) ||
	    evtimer_add(p->hello_timer, &tv) < 0) {
		if (p->hello_timer)
			event_free(p->hello_timer);
		if (p->conn)
			pxc_conn_close(p->conn, false); /* (else pxc_conn_new closed fd) */
		free(p);
		return;
	}
	lim.npeers++;
	p->next = pxc_srv.peers;
	pxc_srv.peers = p;
}

void pxc_peer_accept(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		pxc_error("server: SO_PEERCRED: %s", strerror(errno));
		close(fd);
		return;
	}
	peer_new(fd, cr.uid, cr.gid, cr.pid, false);
}

int pxc_server_tool_adopt(int fd, uid_t uid, gid_t gid, pid_t pid)
{
	if (fd < 0 || !pxc_srv.running || !pxc_srv.tool_support) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	peer_new(fd, uid, gid, pid, true);
	return 0;
}

int pxc_peer_adopt_client(int fd, uid_t uid, gid_t gid, pid_t pid)
{
	if (fd < 0 || !pxc_srv.running) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	peer_new(fd, uid, gid, pid, false);
	return 0;
}

pxc_peer_t *pxc_peer_find(uint64_t id)
{
	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

static void unlink_peer(pxc_peer_t *p)
{
	for (pxc_peer_t **pp = &pxc_srv.peers; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/* Tells the host a client is gone (the result does not matter). The host
 * gets a copy of the proc that lives until it calls back. */
static void tell_host_finalized(const pmix_proc_t *proc, void *server_object)
{
	pxc_upcall_t *r;

	if (!pxc_srv.module.client_finalized || !pxc_srv.running)
		return;
	r = pxc_upcall_new(NULL, 0, PXC_CMD_FINALIZE, pxc_upcall_done_none);
	if (!r)
		return;
	r->a.proc = *proc;
	pxc_upcall_after_call(r, pxc_srv.module.client_finalized(&r->a.proc, server_object,
								 pxc_upcall_cb_op,
								 PXC_UPCALL_CBDATA(r)));
}

void pxc_peer_drop(pxc_peer_t *p, bool flush)
{
	pxc_sclient_t *cl = p->client;
	pmix_proc_t proc;

	if (p->owner)
		p->owner->rchan = NULL;
	if (p->rchan)
		pxc_peer_drop(p->rchan, flush);
	unlink_peer(p);
	lim.npeers--;
	if (p->hello_timer)
		event_free(p->hello_timer);
	pxc_evsync_peer_gone(p->id);
	pxc_iof_peer_gone(p->id);
	pxc_monitor_peer_gone(p->id);
	pxc_conn_close(p->conn, flush);
	free(p->ev_codes);
	free(p);
	if (!cl)
		return;
	cl->peer = NULL;
	if (cl->finalized)
		return;
	cl->lost = true;
	proc = cl->proc;
	pxc_debug("server: %s:%u left without finalizing", proc.nspace, proc.rank);
	pxc_coll_proc_gone(&proc);
	pxc_parked_wake(&proc);
	pxc_cnx_client_gone(&proc);
	pxc_grp_client_gone(&proc);
	/* Last: the host may deregister the client from inside its upcall. */
	tell_host_finalized(&proc, cl->server_object);
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	pxc_peer_t *p = arg;

	(void)c;
	if (err)
		pxc_debug("server: connection ended: %s", strerror(err));
	pxc_peer_drop(p, false);
}

/* --------------------------------------------------------------- replies */

pmix_status_t pxc_pack_blob(pmix_data_buffer_t *out, const pmix_data_buffer_t *blob)
{
	pmix_byte_object_t bo = { .bytes = NULL, .size = 0 };

	if (blob && blob->bytes_used) {
		bo.bytes = blob->base_ptr;
		bo.size = blob->bytes_used;
	}
	return pxc_pack(out, &bo, 1, PMIX_BYTE_OBJECT);
}

/* The connection a reply with tag goes on. A reply that goes on the
 * reply channel while EVENTs went on the first connection since the last
 * such reply is preceded by an event mark (proto.h): the client returns
 * the reply only once it has handled that many events, so that an event
 * queued before a fence's reply is delivered before the fence returns. */
static pxc_conn_t *reply_conn(pxc_peer_t *p, uint16_t cmd, uint32_t tag)
{
	pmix_data_buffer_t mark;

	if (!(tag & PXC_TAG_REPLY_CHANNEL) || !p->rchan)
		return p->conn;
	if (p->ev_sent != p->ev_marked) {
		pxc_buf_init(&mark);
		if (pxc_pack(&mark, &p->ev_sent, 1, PMIX_UINT32) == PMIX_SUCCESS &&
		    pxc_conn_send(p->rchan->conn, PXC_CMD_EVENT, tag, PXC_WIRE_F_REPLY, &mark) == 0)
			p->ev_marked = p->ev_sent;
		else
			pxc_debug("server: event mark before reply to cmd %u dropped", cmd);
		pxc_buf_clear(&mark);
	}
	return p->rchan->conn;
}

int pxc_peer_send_event_tag(pxc_peer_t *p, uint32_t tag, const pmix_data_buffer_t *msg)
{
	if (pxc_conn_send(p->conn, PXC_CMD_EVENT, tag, 0, msg) != 0)
		return -1;
	p->ev_sent++;
	return 0;
}

int pxc_peer_send_event(pxc_peer_t *p, const pmix_data_buffer_t *msg)
{
	return pxc_peer_send_event_tag(p, 0, msg);
}

int pxc_peer_reply(pxc_peer_t *p, uint16_t cmd, uint32_t tag, pmix_status_t status,
		   const pmix_data_buffer_t *body)
{
	pmix_data_buffer_t out;
	int rc = -1;

	pxc_buf_init(&out);
	if (pxc_pack_status(&out, status) == PMIX_SUCCESS &&
	    (!body || !body->bytes_used ||
	     pxc_buf_append(&out, body->base_ptr, body->bytes_used) == 0))
		rc = pxc_conn_send(reply_conn(p, cmd, tag), cmd, tag, PXC_WIRE_F_REPLY, &out);
	pxc_buf_clear(&out);
	if (rc < 0)
		pxc_debug("server: reply to cmd %u dropped: %s", cmd, strerror(errno));
	return rc;
}

void pxc_peer_send_id(uint64_t peer_id, uint16_t cmd, uint32_t tag, const pmix_data_buffer_t *msg)
{
	pxc_peer_t *p = peer_id ? pxc_peer_find(peer_id) : NULL;

	if (p && pxc_conn_send(reply_conn(p, cmd, tag), cmd, tag, PXC_WIRE_F_REPLY, msg) < 0)
		pxc_debug("server: reply to cmd %u dropped: %s", cmd, strerror(errno));
}

void pxc_peer_reply_id(uint64_t peer_id, uint16_t cmd, uint32_t tag, pmix_status_t status,
		       const pmix_data_buffer_t *body)
{
	pxc_peer_t *p = peer_id ? pxc_peer_find(peer_id) : NULL;

	if (p)
		pxc_peer_reply(p, cmd, tag, status, body);
}

/* ----------------------------------------------------------------- HELLO */

typedef struct {
	uint32_t version;
	uint8_t kind;
	char *nspace;
	pmix_rank_t rank;
	pid_t pid;
	pmix_info_t *info;
	size_t ninfo;
} hello_t;

static void hello_free(hello_t *m)
{
	free(m->nspace);
	pxc_array_free(m->info, m->ninfo, PMIX_INFO);
}

static int hello_unpack(pmix_data_buffer_t *in, hello_t *m)
{
	int32_t n = 1;

	memset(m, 0, sizeof(*m));
	if (pxc_unpack_u32(in, &m->version) != PMIX_SUCCESS ||
	    pxc_unpack(in, &m->kind, &n, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &m->nspace) != PMIX_SUCCESS ||
	    (n = 1, pxc_unpack(in, &m->rank, &n, PMIX_PROC_RANK)) != PMIX_SUCCESS ||
	    (n = 1, pxc_unpack(in, &m->pid, &n, PMIX_PID)) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&m->info, &m->ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		hello_free(m);
		return -1;
	}
	return 0;
}

static bool uid_allowed(uid_t uid)
{
	return uid == 0 || uid == pxc_srv.uid || uid == geteuid();
}

/* A spawned job's clients get their parent job's registered info with
 * their own, when this server holds it (the host fetched it,
 * pxc_server_hold_nspace): no Get of the parent's job information needs
 * the server. */
static int pack_parent(const char *ns, pmix_data_buffer_t *blob)
{
	const pmix_value_t *v = pxc_store_get(pxc_srv.store, ns, PXC_LVL_JOB, 0, PMIX_PARENT_ID,
					      NULL);

	if (!v || v->type != PMIX_PROC || !v->data.proc || !pxc_ns_held(v->data.proc->nspace) ||
	    PMIx_Check_nspace(v->data.proc->nspace, ns))
		return 0;
	return pxc_store_pack(pxc_srv.store, v->data.proc->nspace, -1, PXC_ID_ANY, PXC_KINDS_INFO,
			      blob);
}

/* Sends the HELLO reply for p (identity known, host agreed). */
static void hello_accept(pxc_peer_t *p, uint32_t tag)
{
	pmix_data_buffer_t body, blob;
	pmix_status_t st;

	pxc_buf_init(&body);
	pxc_buf_init(&blob);
	st = pxc_pack_proc(&body, &p->proc);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_proc(&body, &pxc_srv.me);
	if (st == PMIX_SUCCESS && p->kind == PXC_PEER_CLIENT &&
	    (pxc_store_pack(pxc_srv.store, p->proc.nspace, -1, PXC_ID_ANY, PXC_KINDS_INFO, &blob) <
		     0 ||
	     pack_parent(p->proc.nspace, &blob) < 0))
		st = PMIX_ERR_NOMEM;
	if (st == PMIX_SUCCESS)
		st = pxc_pack_blob(&body, &blob);
	p->hello = true;
	p->pending_hello = false;
	pxc_peer_reply(p, PXC_CMD_HELLO, tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
	pxc_buf_clear(&blob);
}

static void hello_refuse(pxc_peer_t *p, uint32_t tag, pmix_status_t st, const char *why)
{
	pxc_error("server: refusing connection from pid %d uid %u: %s", (int)p->pid,
		  (unsigned)p->uid, why);
	pxc_peer_reply(p, PXC_CMD_HELLO, tag, st, NULL);
	pxc_peer_drop(p, true);
}

/* The host answered client_connected / tool_connected. */
static void hello_host_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pxc_peer_t *p = pxc_peer_find(r->peer_id);

	if (!p)
		return;
	if (res->status != PMIX_SUCCESS && res->status != PMIX_OPERATION_SUCCEEDED) {
		if (p->client)
			p->client->peer = NULL;
		p->client = NULL;
		hello_refuse(p, r->tag, res->status, "refused by the host");
		return;
	}
	if (p->kind == PXC_PEER_TOOL && res->proc.nspace[0])
		p->proc = res->proc;
	hello_accept(p, r->tag);
}

/* Asks the host about a new client; replies now when there is nothing to ask. */
static void hello_client_host(pxc_peer_t *p, uint32_t tag, hello_t *m)
{
	pmix_server_module_t *mod = &pxc_srv.module;
	pxc_upcall_t *r;
	pmix_status_t st;

	if (!mod->client_connected2 && !mod->client_connected) {
		hello_accept(p, tag);
		return;
	}
	r = pxc_upcall_new(p, tag, PXC_CMD_HELLO, hello_host_done);
	if (!r) {
		hello_refuse(p, tag, PMIX_ERR_NOMEM, "out of memory");
		return;
	}
	p->pending_hello = true;
	r->a.info = m->info; /* the request owns what the host gets */
	r->a.ninfo = m->ninfo;
	m->info = NULL;
	m->ninfo = 0;
	if (mod->client_connected2)
		st = mod->client_connected2(&r->a.proc, p->client->server_object, r->a.info,
					    r->a.ninfo, pxc_upcall_cb_op, PXC_UPCALL_CBDATA(r));
	else
		st = mod->client_connected(&r->a.proc, p->client->server_object, pxc_upcall_cb_op,
					   PXC_UPCALL_CBDATA(r));
	pxc_upcall_after_call(r, st);
}

static void hello_client(pxc_peer_t *p, uint32_t tag, hello_t *m)
{
	pmix_proc_t proc;
	pxc_sclient_t *cl;

	PMIx_Load_procid(&proc, m->nspace ? m->nspace : "", m->rank);
	cl = pxc_client_find(&proc);
	if (!cl) {
		hello_refuse(p, tag, PMIX_ERR_NO_PERMISSIONS, "unregistered client");
		return;
	}
	if (p->uid != 0 && p->uid != cl->uid) {
		hello_refuse(p, tag, PMIX_ERR_NO_PERMISSIONS,
			     "uid differs from the registered one");
		return;
	}
	if (cl->peer) {
		hello_refuse(p, tag, PMIX_ERR_NO_PERMISSIONS, "client already connected");
		return;
	}
	if (cl->pid) /* it connected before: its new store is empty */
		pxc_delta_forget_all();
	cl->peer = p;
	cl->pid = m->pid;
	cl->lost = false;
	cl->finalized = false;
	p->client = cl;
	p->kind = PXC_PEER_CLIENT;
	p->proc = proc;
	hello_client_host(p, tag, m);
}

static void tool_identity(pxc_peer_t *p, hello_t *m)
{
	const pmix_info_t *ns = pxc_info_find(m->info, m->ninfo, PMIX_TOOL_NSPACE);
	const pmix_info_t *rk = pxc_info_find(m->info, m->ninfo, PMIX_TOOL_RANK);

	if (ns && ns->value.type == PMIX_STRING && ns->value.data.string)
		PMIx_Load_nspace(p->proc.nspace, ns->value.data.string);
	else
		snprintf(p->proc.nspace, sizeof(p->proc.nspace), "slurmix-tool.%d.%u", (int)m->pid,
			 ++pxc_srv.tool_count);
	p->proc.rank = 0;
	if (rk && (rk->value.type == PMIX_UINT32 || rk->value.type == PMIX_PROC_RANK))
		p->proc.rank = rk->value.data.rank;
}

static void hello_tool(pxc_peer_t *p, uint32_t tag, hello_t *m)
{
	pxc_upcall_t *r;

	p->kind = PXC_PEER_TOOL;
	tool_identity(p, m);
	if (!pxc_srv.module.tool_connected) {
		hello_accept(p, tag);
		return;
	}
	r = pxc_upcall_new(p, tag, PXC_CMD_HELLO, hello_host_done);
	if (!r) {
		hello_refuse(p, tag, PMIX_ERR_NOMEM, "out of memory");
		return;
	}
	p->pending_hello = true;
	r->a.info = m->info;
	r->a.ninfo = m->ninfo;
	m->info = NULL;
	m->ninfo = 0;
	pxc_srv.module.tool_connected(r->a.info, r->a.ninfo, pxc_upcall_cb_tool,
				      PXC_UPCALL_CBDATA(r));
}

/* A reply channel: the process must hold an accepted connection with the
 * identity it names, and that connection no channel yet. */
static void hello_rchan(pxc_peer_t *p, uint32_t tag, hello_t *m)
{
	pxc_peer_t *o;

	for (o = pxc_srv.peers; o; o = o->next)
		if (o != p && o->hello && o->pid == p->pid && o->uid == p->uid &&
		    o->proxied == p->proxied &&
		    (o->kind == PXC_PEER_CLIENT || o->kind == PXC_PEER_TOOL) &&
		    o->proc.rank == m->rank && m->nspace &&
		    strncmp(o->proc.nspace, m->nspace, PMIX_MAX_NSLEN) == 0)
			break;
	if (!o || o->rchan || o->finalized) {
		hello_refuse(p, tag, PMIX_ERR_NO_PERMISSIONS,
			     o ? "reply channel already open" : "reply channel of no connection");
		return;
	}
	p->kind = PXC_PEER_REPLY;
	p->proc = o->proc;
	p->owner = o;
	o->rchan = p;
	hello_accept(p, tag);
}

static int do_hello(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	hello_t m;

	if (p->hello || p->pending_hello || hello_unpack(in, &m) < 0)
		return -1;
	if (m.version != PXC_PROTO_VERSION)
		hello_refuse(p, h->tag, PMIX_ERR_NOT_SUPPORTED, "protocol version mismatch");
	else if (!uid_allowed(p->uid))
		hello_refuse(p, h->tag, PMIX_ERR_NO_PERMISSIONS, "uid not allowed");
	else if (m.kind == PXC_PEER_CLIENT && p->proxied)
		hello_refuse(p, h->tag, PMIX_ERR_NO_PERMISSIONS,
			     "a proxied connection is a tool's");
	else if (m.kind == PXC_PEER_CLIENT)
		hello_client(p, h->tag, &m);
	else if (m.kind == PXC_PEER_TOOL && pxc_srv.tool_support)
		hello_tool(p, h->tag, &m);
	else if (m.kind == PXC_PEER_REPLY)
		hello_rchan(p, h->tag, &m);
	else
		hello_refuse(p, h->tag, PMIX_ERR_NOT_SUPPORTED, "peer kind not served");
	hello_free(&m);
	return 0;
}

/* -------------------------------------------------------------- FINALIZE */

static void finalize_done(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	(void)res;
	pxc_peer_reply_id(r->peer_id, PXC_CMD_FINALIZE, r->tag, PMIX_SUCCESS, NULL);
}

static int do_finalize(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	pxc_upcall_t *r;
	pmix_status_t st;

	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return -1;
	pxc_array_free(info, ninfo, PMIX_INFO);
	pxc_monitor_peer_gone(p->id);     /* a finalized client beats no more */
	if (!p->finalized && p->client) { /* still connected, in groups: tell the others */
		pxc_cnx_client_gone(&p->proc);
		pxc_grp_client_gone(&p->proc);
		pxc_coll_proc_finalized(&p->proc);
	}
	if (p->finalized || !p->client || !pxc_srv.module.client_finalized) {
		p->finalized = true; /* a second FINALIZE is not told twice */
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_SUCCESS, NULL), 0;
	}
	p->finalized = true;
	p->client->finalized = true;
	r = pxc_upcall_new(p, h->tag, h->cmd, finalize_done);
	if (!r)
		return pxc_peer_reply(p, h->cmd, h->tag, PMIX_SUCCESS, NULL), 0;
	/* finalize_done replies (by peer id) whatever the host answers */
	st = pxc_srv.module.client_finalized(&r->a.proc, p->client->server_object, pxc_upcall_cb_op,
					     PXC_UPCALL_CBDATA(r));
	pxc_upcall_after_call(r, st);
	return 0;
}

/* -------------------------------------------------------------- dispatch */

static const pxc_handler_f handlers[PXC_CMD_MAX] = {
	[PXC_CMD_HELLO] = do_hello,
	[PXC_CMD_FINALIZE] = do_finalize,
	[PXC_CMD_ABORT] = pxc_do_abort,
	[PXC_CMD_COMMIT] = pxc_do_commit,
	[PXC_CMD_FENCE] = pxc_do_fence,
	[PXC_CMD_GET] = pxc_do_get,
	[PXC_CMD_PUBLISH] = pxc_do_publish,
	[PXC_CMD_LOOKUP] = pxc_do_lookup,
	[PXC_CMD_UNPUBLISH] = pxc_do_unpublish,
	[PXC_CMD_SPAWN] = pxc_do_spawn,
	[PXC_CMD_CONNECT] = pxc_cnx_do_connect,
	[PXC_CMD_DISCONNECT] = pxc_cnx_do_disconnect,
	[PXC_CMD_REGEVENTS] = pxc_do_regevents,
	[PXC_CMD_NOTIFY] = pxc_do_notify,
	[PXC_CMD_QUERY] = pxc_do_query,
	[PXC_CMD_JOBCTL] = pxc_do_jobctl,
	[PXC_CMD_LOG] = pxc_do_log,
	[PXC_CMD_GROUP] = pxc_do_group,
	[PXC_CMD_IOF_PULL] = pxc_do_iof_pull,
	[PXC_CMD_EVENT_DONE] = pxc_do_event_done,
	[PXC_CMD_IOF_DEREG] = pxc_do_iof_dereg,
	[PXC_CMD_IOF_PUSH] = pxc_do_iof_push,
	[PXC_CMD_GET_CRED] = pxc_do_get_cred,
	[PXC_CMD_VALIDATE_CRED] = pxc_do_validate_cred,
	[PXC_CMD_MONITOR] = pxc_do_monitor,
	[PXC_CMD_ALLOC] = pxc_do_alloc,
};

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *payload, void *arg)
{
	pxc_peer_t *p = arg;
	const char *why = NULL;

	(void)c;
	if (h->cmd >= PXC_CMD_MAX || !handlers[h->cmd])
		why = "unknown command";
	else if (h->flags & PXC_WIRE_F_REPLY)
		why = "unexpected reply";
	else if (!p->hello && h->cmd != PXC_CMD_HELLO)
		why = p->pending_hello ? "request during HELLO" : "request before HELLO";
	else if (p->kind == PXC_PEER_REPLY)
		why = "request on a reply channel";
	if (!why && h->cmd == PXC_CMD_HELLO && p->hello_timer) {
		event_free(p->hello_timer); /* it said HELLO in time */
		p->hello_timer = NULL;
	}
	if (!why && handlers[h->cmd](p, h, payload) < 0)
		why = "malformed payload";
	if (why) {
		pxc_error("server: closing connection of pid %d (%s:%u): %s (cmd %u)", (int)p->pid,
			  p->proc.nspace, p->proc.rank, why, h->cmd);
		pxc_peer_drop(p, false);
	}
}
