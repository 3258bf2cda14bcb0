/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c - the client's connection to its server and the request engine.
 *
 * Connection set-up runs in the caller of PMIx_Init/PMIx_tool_init: a
 * non-blocking connect on the Unix socket, then the HELLO exchange done
 * synchronously on the still-blocking socket with poll() deadlines, so a
 * dead or silent server costs at most the connect timeout. Only then is
 * the socket handed to the progress thread (pxc_conn_new), which owns it
 * from then on. Bytes the server sends after the HELLO reply simply wait
 * in the socket until the bufferevent reads them.
 *
 * Requests: every API call builds its payload in the caller's thread and
 * posts a pxc_req to the progress thread, which gives it a tag, links it
 * into the pending list and sends it. A reply is matched by tag. Each
 * request completes exactly once: reply, its own timer, or the end of the
 * connection (every pending request then gets
 * PMIX_ERR_LOST_CONNECTION_TO_SERVER and the event handlers are told).
 * Blocking calls and fire-and-forget requests usually bypass the progress
 * thread (direct.c); the reply channel they use is opened here, right
 * after the HELLO of the first connection.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>

#include "client.h"
#include "conn.h"
#include "direct.h"
#include "topo.h"
#include "client/event.h"
#include "client/iof.h"
#include "common/event.h"

#define CONNECT_TIMEOUT_MS 10000
#define TIMEOUT_GRACE_MS 250

pxc_client_t pxc_cl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.store_lock = PTHREAD_RWLOCK_INITIALIZER,
	.tx_lock = PTHREAD_MUTEX_INITIALIZER,
	.fast_lock = PTHREAD_MUTEX_INITIALIZER,
	.ev_lock = PTHREAD_MUTEX_INITIALIZER,
	.ev_cond = PTHREAD_COND_INITIALIZER,
	.rfd = -1,
};

struct pxc_req {
	struct pxc_req *next;
	uint32_t tag;
	uint16_t cmd;
	int timeout_ms;
	pmix_data_buffer_t payload;
	struct event *timer;
	pxc_reply_f cb;
	void *arg;
};

pmix_status_t pxc_client_ready(void)
{
	switch (atomic_load(&pxc_cl.state)) {
	case PXC_CONN_UP: return PMIX_SUCCESS;
	case PXC_CONN_NONE: return PMIX_ERR_INIT;
	default: return PMIX_ERR_UNREACH;
	}
}

bool pxc_client_initialized(void)
{
	return atomic_load(&pxc_cl.state) != PXC_CONN_NONE;
}

/* ---- progress-thread side of requests ---- */

static void req_finish(struct pxc_req *r, pmix_status_t st, pmix_data_buffer_t *reply)
{
	if (r->timer)
		event_free(r->timer);
	if (r->cb)
		r->cb(st, reply, r->arg);
	pxc_buf_clear(&r->payload);
	free(r);
}

/* The pending list is in request order (new ones at the tail: last is
 * where the next goes), so that a reply, which mostly answers the oldest
 * request, is found at its head: thousands of requests in flight cost no
 * scan of them all per reply. Progress thread. */
static struct pxc_req **pending_last;

static void req_link(struct pxc_req *r)
{
	struct pxc_req **pp = &pxc_cl.pending;

	if (pending_last && !*pending_last && pxc_cl.pending)
		pp = pending_last;
	while (*pp)
		pp = &(*pp)->next;
	r->next = NULL;
	*pp = r;
	pending_last = &r->next;
}

static struct pxc_req *req_unlink(uint32_t tag)
{
	struct pxc_req **pp, *r;

	for (pp = &pxc_cl.pending; (r = *pp); pp = &r->next) {
		if (r->tag == tag) {
			*pp = r->next;
			if (pending_last == &r->next)
				pending_last = pp;
			return r;
		}
	}
	return NULL;
}

static void req_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pxc_req *r = arg;

	(void)fd;
	(void)what;
	if (req_unlink(r->tag) == r)
		req_finish(r, PMIX_ERR_TIMEOUT, NULL);
}

static void fail_pending(pmix_status_t st)
{
	struct pxc_req *r;

	pending_last = NULL;
	while ((r = pxc_cl.pending)) {
		pxc_cl.pending = r->next;
		req_finish(r, st, NULL);
	}
}

static void conn_lost(void)
{
	pxc_direct_detach();
	pxc_conn_close(pxc_cl.conn, 0);
	pxc_cl.conn = NULL;
	atomic_store(&pxc_cl.state, PXC_CONN_LOST);
	pxc_direct_event_seen(); /* a caller waiting for an event mark stops */
	fail_pending(PMIX_ERR_LOST_CONNECTION_TO_SERVER);
	pxc_event_lost_connection();
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	(void)c;
	(void)arg;
	/* a tool outlives the jobs it watches: their server's end is news
	 * (PMIX_ERR_LOST_CONNECTION to its handlers), not an error */
	pxc_log(pxc_role == PXC_ROLE_TOOL && !err ? PXC_LOG_INFO : PXC_LOG_ERROR,
		"client: lost the connection to the PMIx server (%s)",
		err ? strerror(err) : "closed by peer");
	conn_lost();
}

static void on_reply(const pxc_wire_hdr_t *h, pmix_data_buffer_t *payload)
{
	struct pxc_req *r = req_unlink(h->tag);
	pmix_status_t st;

	if (!r || r->cmd != h->cmd) {
		/* normal after a request timed out on our side */
		pxc_debug("client: reply with unknown tag %u cmd %u dropped", h->tag, h->cmd);
		if (r)
			req_finish(r, PMIX_ERR_UNPACK_FAILURE, NULL);
		return;
	}
	if (pxc_unpack_status(payload, &st) != PMIX_SUCCESS) {
		pxc_error("client: malformed reply to cmd %u", h->cmd);
		req_finish(r, PMIX_ERR_UNPACK_FAILURE, NULL);
		return;
	}
	req_finish(r, st, payload);
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *payload, void *arg)
{
	(void)c;
	(void)arg;
	if (h->flags & PXC_WIRE_F_REPLY)
		on_reply(h, payload);
	else if (h->cmd == PXC_CMD_EVENT) {
		atomic_fetch_add(&pxc_cl.ev_recv, 1);
		pxc_event_handle_msg(h->tag, payload); /* counts it handled (direct.c) */
	} else if (h->cmd == PXC_CMD_IOF) {
		pxc_iof_handle_msg(h->tag, payload); /* (not counted for the marks) */
	} else
		pxc_error("client: unexpected message cmd %u from server", h->cmd);
}

static void req_start(void *arg)
{
	struct pxc_req *r = arg;
	struct event_base *base = pxc_progress_base(pxc_cl.pg);

	if (!pxc_cl.conn) {
		req_finish(r,
			   atomic_load(&pxc_cl.state) == PXC_CONN_LOST ?
				   PMIX_ERR_LOST_CONNECTION_TO_SERVER :
				   PMIX_ERR_UNREACH,
			   NULL);
		return;
	}
	if (r->cb) {
		if (++pxc_cl.next_tag == 0)
			pxc_cl.next_tag = 1;
		r->tag = pxc_cl.next_tag;
		req_link(r);
	}
	if (r->cb && r->timeout_ms > 0 && (r->timer = evtimer_new(base, req_timeout_cb, r))) {
		/* a little grace so that the server's own timeout answer,
		 * which says more, normally arrives first */
		int ms = r->timeout_ms + TIMEOUT_GRACE_MS;
		struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
		evtimer_add(r->timer, &tv);
	}
	if (pxc_conn_send(pxc_cl.conn, r->cmd, r->tag, 0, &r->payload) != 0) {
		if (r->cb)
			req_unlink(r->tag);
		req_finish(r, PMIX_ERR_LOST_CONNECTION_TO_SERVER, NULL);
		return;
	}
	pxc_buf_clear(&r->payload);
	if (!r->cb)
		free(r);
}

static void req_start_posted(void *arg)
{
	req_start(arg);
	atomic_fetch_sub(&pxc_cl.queued, 1);
}

/* ---- caller side ---- */

pmix_status_t pxc_client_send(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms,
			      pxc_reply_f cb, void *arg)
{
	struct pxc_req *r;
	pmix_status_t st = pxc_client_ready();

	if (st == PMIX_SUCCESS && !cb && pxc_direct_send(cmd, 0, payload) == 0) {
		pxc_buf_clear(payload);
		return PMIX_SUCCESS;
	}
	if (st == PMIX_SUCCESS && !cb && errno != EAGAIN)
		st = PMIX_ERR_LOST_CONNECTION_TO_SERVER;
	if (st != PMIX_SUCCESS || !(r = calloc(1, sizeof(*r)))) {
		pxc_buf_clear(payload);
		return st != PMIX_SUCCESS ? st : PMIX_ERR_NOMEM;
	}
	r->cmd = cmd;
	r->timeout_ms = timeout_ms;
	r->cb = cb;
	r->arg = arg;
	r->payload = *payload;
	pxc_buf_init(payload);
	atomic_fetch_add(&pxc_cl.queued, 1);
	if (!pxc_cl.pg || pxc_progress_post(pxc_cl.pg, req_start_posted, r) != 0) {
		atomic_fetch_sub(&pxc_cl.queued, 1);
		pxc_buf_clear(&r->payload);
		free(r);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

struct call {
	pxc_sync_t sync;
	pxc_parse_f parse;
	void *arg;
	uint32_t ev_mark; /* EVENTs read before the reply */
};

static void call_done(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct call *c = arg;

	c->ev_mark = atomic_load(&pxc_cl.ev_recv);
	/* a query's partial success carries results too */
	if ((st == PMIX_SUCCESS || st == PMIX_QUERY_PARTIAL_SUCCESS) && c->parse && reply) {
		pmix_status_t pst = c->parse(reply, c->arg);

		if (pst != PMIX_SUCCESS)
			st = pst;
	}
	pxc_sync_signal(&c->sync, st);
}

pmix_status_t pxc_client_call(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms,
			      pxc_parse_f parse, void *arg)
{
	struct call c = { .parse = parse, .arg = arg };
	pmix_status_t st;

	if (pxc_progress_in_thread(pxc_cl.pg)) {
		pxc_error("client: blocking PMIx call from the progress thread "
			  "(inside a completion callback) refused");
		pxc_buf_clear(payload);
		return PMIX_ERR_WOULD_BLOCK;
	}
	if (pxc_direct_call(cmd, payload, timeout_ms, parse, arg, &st))
		return st;
	pxc_sync_init(&c.sync);
	st = pxc_client_send(cmd, payload, timeout_ms, call_done, &c);
	/* The progress thread always completes a queued request (reply,
	 * timer, lost connection or teardown), so this wait ends. */
	if (st == PMIX_SUCCESS) {
		st = pxc_sync_wait(&c.sync, -1);
		/* the events read before the reply are handled first */
		pxc_direct_wait_events(c.ev_mark, timeout_ms > 0 ? pxc_now_ms() + timeout_ms : -1);
	}
	pxc_sync_fini(&c.sync);
	return st;
}

/* ---- blob merge ---- */

pmix_status_t pxc_client_merge_blob(pmix_data_buffer_t *reply)
{
	pmix_byte_object_t bo = { NULL, 0 };
	pmix_data_buffer_t blob;
	int32_t n = 1;
	pmix_status_t st;

	st = pxc_unpack(reply, &bo, &n, PMIX_BYTE_OBJECT);
	if (st != PMIX_SUCCESS || bo.size == 0) {
		free(bo.bytes);
		return st;
	}
	pxc_buf_init(&blob);
	pxc_buf_load_take(&blob, bo.bytes, bo.size);
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	st = pxc_store_unpack(pxc_cl.store, &blob);
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	pxc_buf_clear(&blob);
	if (st != PMIX_SUCCESS)
		pxc_error("client: malformed data blob from server (%d)", st);
	return st;
}

/* ---- synchronous connect + HELLO ---- */

static int unix_connect(const char *path, long deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	while ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		/* EAGAIN: the listen backlog is full; retry until the deadline */
		if ((errno != EAGAIN && errno != EINTR) || pxc_now_ms() >= deadline)
			return -1;
		usleep(10000);
	}
	return -1;
}

static int send_frame(int fd, uint16_t cmd, const pmix_data_buffer_t *pl, long deadline)
{
	pxc_wire_hdr_t h = { .len = (uint32_t)pl->bytes_used, .tag = 1, .cmd = cmd };
	unsigned char hb[PXC_WIRE_HDR_LEN];

	struct iovec iov[2] = { { hb, sizeof(hb) }, { pl->base_ptr, pl->bytes_used } };

	pxc_wire_hdr_encode(&h, hb);
	return pxc_io_write_all(fd, iov, pl->bytes_used ? 2 : 1, deadline);
}

static int recv_frame(int fd, uint16_t cmd, pmix_data_buffer_t *out, long deadline)
{
	unsigned char hb[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;
	char *bytes;

	if (pxc_io_read_all(fd, hb, sizeof(hb), deadline) != 0 ||
	    pxc_wire_hdr_decode(hb, PXC_WIRE_MAX_PAYLOAD, &h) != 0)
		return -1;
	if (h.cmd != cmd || !(h.flags & PXC_WIRE_F_REPLY) || h.tag != 1) {
		errno = EPROTO;
		return -1;
	}
	if (!(bytes = malloc(h.len ? h.len : 1)))
		return -1;
	if (pxc_io_read_all(fd, bytes, h.len, deadline) != 0) {
		free(bytes);
		return -1;
	}
	pxc_buf_load_take(out, bytes, h.len);
	return 0;
}

static pmix_status_t pack_hello(pmix_data_buffer_t *b, uint8_t kind, const pmix_proc_t *claim,
				const pmix_info_t *info, size_t ninfo)
{
	uint32_t ver = PXC_PROTO_VERSION;
	const char *ns = claim ? claim->nspace : NULL;
	pmix_rank_t rank = claim ? claim->rank : PMIX_RANK_UNDEF;
	pid_t pid = getpid();
	pmix_status_t st;

	if ((st = pxc_pack(b, &ver, 1, PMIX_UINT32)) || (st = pxc_pack(b, &kind, 1, PMIX_UINT8)) ||
	    (st = pxc_pack(b, &ns, 1, PMIX_STRING)) ||
	    (st = pxc_pack(b, &rank, 1, PMIX_PROC_RANK)) || (st = pxc_pack(b, &pid, 1, PMIX_PID)))
		return st;
	return pxc_pack_array(b, info, ninfo, PMIX_INFO);
}

static pmix_status_t hello_exchange(int fd, uint8_t kind, const pmix_proc_t *claim,
				    const pmix_info_t *info, size_t ninfo, long deadline)
{
	pmix_proc_t me, server;
	pmix_data_buffer_t b;
	pmix_status_t st;

	pxc_buf_init(&b);
	st = pack_hello(&b, kind, claim, info, ninfo);
	if (st == PMIX_SUCCESS && send_frame(fd, PXC_CMD_HELLO, &b, deadline) != 0)
		st = pxc_errno_status(errno);
	pxc_buf_clear(&b);
	if (st == PMIX_SUCCESS && recv_frame(fd, PXC_CMD_HELLO, &b, deadline) != 0)
		st = errno == ETIMEDOUT ? PMIX_ERR_TIMEOUT : PMIX_ERR_UNREACH;
	if (st == PMIX_SUCCESS && (pxc_unpack_status(&b, &st) != PMIX_SUCCESS))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && (pxc_unpack_proc(&b, &me) != PMIX_SUCCESS ||
				   pxc_unpack_proc(&b, &server) != PMIX_SUCCESS))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && kind != PXC_PEER_REPLY) {
		pxc_cl.me = me;
		pxc_cl.server = server;
		st = pxc_client_merge_blob(&b);
	}
	pxc_buf_clear(&b);
	return st;
}

struct attach {
	pxc_sync_t sync;
	int fd;
};

static void attach_fn(void *arg)
{
	struct attach *a = arg;
	struct event_base *base = pxc_progress_base(pxc_cl.pg);

	pxc_cl.conn = pxc_conn_new(base, a->fd, PXC_WIRE_MAX_PAYLOAD, on_msg, on_close, NULL);
	if (pxc_cl.conn) {
		pxc_direct_attach(pxc_cl.conn);
		atomic_store(&pxc_cl.state, PXC_CONN_UP);
	}
	pxc_sync_signal(&a->sync, pxc_cl.conn ? PMIX_SUCCESS : PMIX_ERR_NOMEM);
}

static pmix_status_t attach(int fd)
{
	struct attach a = { .fd = fd };
	pmix_status_t st;

	pxc_sync_init(&a.sync);
	if (pxc_progress_post(pxc_cl.pg, attach_fn, &a) != 0) {
		close(fd);
		st = PMIX_ERR_UNREACH;
	} else {
		st = pxc_sync_wait(&a.sync, -1);
	}
	pxc_sync_fini(&a.sync);
	return st;
}

/* The reply channel (direct.c). Without one, calls take the plain path. */
static void open_channel(const char *path, long deadline)
{
	int fd = unix_connect(path, deadline);
	pmix_status_t st = PMIX_ERR_UNREACH;

	if (fd >= 0 &&
	    (st = hello_exchange(fd, PXC_PEER_REPLY, &pxc_cl.me, NULL, 0, deadline)) ==
		    PMIX_SUCCESS &&
	    evutil_make_socket_nonblocking(fd) == 0) {
		pxc_direct_set_channel(fd);
		return;
	}
	pxc_debug("client: no reply channel (%s): blocking calls use the progress thread",
		  PMIx_Error_string(st));
	if (fd >= 0)
		close(fd);
}

pmix_status_t pxc_client_connect(const char *uri, uint8_t kind, const pmix_proc_t *claim,
				 const pmix_info_t *info, size_t ninfo)
{
	long deadline = pxc_now_ms() + CONNECT_TIMEOUT_MS;
	pmix_status_t st;
	int fd;

	if (!uri || strncmp(uri, "unix:", 5) != 0) {
		pxc_error("client: unsupported server address '%s'", uri ? uri : "(null)");
		return PMIX_ERR_BAD_PARAM;
	}
	if ((fd = unix_connect(uri + 5, deadline)) < 0) {
		pxc_debug("client: cannot connect to %s: %s", uri, strerror(errno));
		return PMIX_ERR_UNREACH;
	}
	st = hello_exchange(fd, kind, claim, info, ninfo, deadline);
	if (st != PMIX_SUCCESS) {
		pxc_error("client: HELLO to %s failed: %s", uri, PMIx_Error_string(st));
		close(fd);
		return st;
	}
	free(pxc_cl.uri);
	pxc_cl.uri = strdup(uri);
	atomic_store(&pxc_cl.ev_seen, 0); /* the server counts per connection */
	atomic_store(&pxc_cl.ev_recv, 0);
	if ((st = attach(fd)) == PMIX_SUCCESS)
		open_channel(uri + 5, deadline);
	return st;
}

/* ---- set-up and tear-down ---- */

/* libevent writes with writev(), which raises SIGPIPE when the server is
 * gone. Blocking it in the progress thread (only) turns that into EPIPE
 * without touching the application's own handling of the signal. */
static void block_sigpipe(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

pmix_status_t pxc_client_setup(void)
{
	if (gethostname(pxc_cl.hostname, sizeof(pxc_cl.hostname) - 1) != 0)
		strcpy(pxc_cl.hostname, "localhost");
	if (!(pxc_cl.pg = pxc_progress_acquire()))
		return PMIX_ERR_OUT_OF_RESOURCE;
	pxc_progress_post(pxc_cl.pg, block_sigpipe, NULL);
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	pxc_cl.store = pxc_store_create();
	pxc_cl.uncommitted = pxc_store_create();
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	if (!pxc_cl.store || !pxc_cl.uncommitted) {
		pxc_client_teardown();
		return PMIX_ERR_NOMEM;
	}
	return PMIX_SUCCESS;
}

static void detach_fn(void *arg)
{
	pxc_sync_t *s = arg;

	pxc_direct_detach();
	pxc_conn_close(pxc_cl.conn, 0);
	pxc_cl.conn = NULL;
	atomic_store(&pxc_cl.state, PXC_CONN_NONE);
	fail_pending(PMIX_ERR_LOST_CONNECTION_TO_SERVER);
	pxc_sync_signal(s, PMIX_SUCCESS);
}

static void drop_fn(void *arg)
{
	pxc_sync_t *s = arg;

	pxc_direct_detach();
	pxc_conn_close(pxc_cl.conn, 0);
	pxc_cl.conn = NULL;
	atomic_store(&pxc_cl.state, PXC_CONN_ALONE);
	fail_pending(PMIX_ERR_LOST_CONNECTION_TO_SERVER);
	pxc_sync_signal(s, PMIX_SUCCESS);
}

void pxc_client_disconnect(void)
{
	pxc_sync_t s;

	if (!pxc_cl.pg || pxc_progress_in_thread(pxc_cl.pg))
		return;
	pxc_sync_init(&s);
	if (pxc_progress_post(pxc_cl.pg, drop_fn, &s) == 0)
		pxc_sync_wait(&s, -1);
	pxc_sync_fini(&s);
	pxc_direct_close_channel();
}

void pxc_client_teardown(void)
{
	pxc_sync_t s;

	if (pxc_cl.pg) {
		pxc_sync_init(&s);
		if (pxc_progress_post(pxc_cl.pg, detach_fn, &s) == 0)
			pxc_sync_wait(&s, -1);
		pxc_sync_fini(&s);
		pxc_direct_close_channel();
		pxc_event_thread_stop();
		pxc_event_release_all();
		pxc_iof_release_all();
		pxc_progress_release();
		pxc_cl.pg = NULL;
	}
	atomic_store(&pxc_cl.state, PXC_CONN_NONE);
	pxc_topology_release();
	pthread_rwlock_wrlock(&pxc_cl.store_lock);
	pxc_store_destroy(pxc_cl.store);
	pxc_store_destroy(pxc_cl.uncommitted);
	pxc_cl.store = pxc_cl.uncommitted = NULL;
	pthread_rwlock_unlock(&pxc_cl.store_lock);
	free(pxc_cl.uri);
	pxc_cl.uri = NULL;
}
