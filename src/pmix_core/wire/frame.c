/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame.c - framed messages on a libevent bufferevent.
 *
 * Reading: our own read event and buffer, not the bufferevent's (whose
 * every read costs an FIONREAD ioctl on top of the readv): one recv per
 * readable event into c->in, then every whole frame in it is delivered: the
 * header is decoded (a bad magic or a length over the connection's limit
 * ends the connection with EPROTO / EMSGSIZE), the payload copied into a
 * pmix_data_buffer_t and the message callback called. Once a header is in,
 * the buffer grows to hold its whole frame, so a large frame needs no regrowth
 * per read; it is released whenever it empties (an idle connection
 * holds no buffer: servers keep two connections per client).
 * The callback may close the connection; the closed/ended flags checked
 * after each message stop the loop then, and the struct is freed only when
 * no callback is running (freeing is deferred to the end of the read
 * loop). Bytes that came before the peer's close are delivered before the
 * end is reported.
 *
 * Writing: a frame is written at once when nothing is queued (send_now),
 * else appended to the bufferevent's output buffer. A connection closed
 * with flush keeps its bufferevent until the output has drained (or
 * fails), then frees itself.
 *
 * Everything runs in the progress thread that owns the event base, except
 * pxc_conn_send_direct on a shared connection (pxc_conn_share): the client
 * library's caller threads write their requests straight into the socket
 * instead of waking the progress thread. Then every write decision is
 * made under tx_lock, and `queued` (under the lock) says that the output
 * buffer holds bytes: while it does, only libevent writes (from that
 * buffer, in the progress thread) and direct senders step back (EAGAIN),
 * so frames never interleave. write_cb clears it once the buffer drained.
 */
#include "frame.h"
#include "pack.h"
#include "pxc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

struct pxc_conn {
	struct bufferevent *bev;
	size_t max_payload;
	pxc_conn_msg_f on_msg;
	pxc_conn_close_f on_close;
	void *arg;
	int in_callback;   /* depth of our callbacks running */
	bool closed;       /* pxc_conn_close() was called */
	bool ended;        /* end reported (or must not be) */
	bool flushing;     /* freed when output drains */
	bool paused;       /* pxc_conn_pause: no reading, no delivering */
	struct event *rev; /* readable */
	pxc_rbuf_t in;     /* received, not yet delivered */
	bool shared;       /* pxc_conn_share: tx_lock guards writes */
	bool queued;       /* shared: the output buffer holds bytes */
	pthread_mutex_t tx_lock;
	void (*drained)(void *arg); /* pxc_conn_when_drained, once */
	void *drained_arg;
};

static void put32(unsigned char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

void pxc_wire_hdr_encode(const pxc_wire_hdr_t *h, unsigned char out[PXC_WIRE_HDR_LEN])
{
	uint16_t cmd = htons(h->cmd), flags = htons(h->flags);

	put32(out, PXC_WIRE_MAGIC);
	put32(out + 4, h->len);
	put32(out + 8, h->tag);
	memcpy(out + 12, &cmd, 2);
	memcpy(out + 14, &flags, 2);
}

int pxc_wire_hdr_decode(const unsigned char in[PXC_WIRE_HDR_LEN], size_t max_payload,
			pxc_wire_hdr_t *h)
{
	uint16_t cmd, flags;

	if (get32(in) != PXC_WIRE_MAGIC) {
		errno = EPROTO;
		return -1;
	}
	h->len = get32(in + 4);
	h->tag = get32(in + 8);
	memcpy(&cmd, in + 12, 2);
	memcpy(&flags, in + 14, 2);
	h->cmd = ntohs(cmd);
	h->flags = ntohs(flags);
	if (h->len > max_payload) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

#define RBUF_MIN 4096

static void conn_free(pxc_conn_t *c)
{
	if (c->rev)
		event_free(c->rev);
	pxc_rbuf_free(&c->in);
	if (c->bev)
		bufferevent_free(c->bev); /* closes the fd (BEV_OPT_CLOSE_ON_FREE) */
	if (c->shared)
		pthread_mutex_destroy(&c->tx_lock);
	free(c);
}

static void tx_lock(pxc_conn_t *c)
{
	if (c->shared)
		pthread_mutex_lock(&c->tx_lock);
}

static void tx_unlock(pxc_conn_t *c)
{
	if (c->shared)
		pthread_mutex_unlock(&c->tx_lock);
}

/* Reports the end of the connection once, unless the owner closed it. */
static void conn_end(pxc_conn_t *c, int err)
{
	if (c->ended || c->closed)
		return;
	c->ended = true;
	event_del(c->rev);
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	c->in_callback++;
	c->on_close(c, err, c->arg);
	c->in_callback--;
}

/* Room for need unread bytes (plus RBUF_MIN free when need is 0): moves
 * the unread bytes to the front, grows. 0/-1 (ENOMEM). */
static int rbuf_room(pxc_rbuf_t *b, size_t need)
{
	size_t unread = b->len - b->off, cap = b->cap ? b->cap : RBUF_MIN;
	char *p;

	if (need < unread + RBUF_MIN)
		need = unread + RBUF_MIN;
	if (b->off && (b->cap - b->len < RBUF_MIN || need > b->cap - b->off)) {
		memmove(b->buf, b->buf + b->off, unread);
		b->off = 0;
		b->len = unread;
	}
	if (need <= b->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (!(p = realloc(b->buf, cap))) {
		errno = ENOMEM;
		return -1;
	}
	b->buf = p;
	b->cap = cap;
	return 0;
}

int pxc_rbuf_recv(pxc_rbuf_t *b, int fd)
{
	ssize_t n;

	if (rbuf_room(b, 0) < 0)
		return -1;
	n = recv(fd, b->buf + b->len, b->cap - b->len, MSG_DONTWAIT);
	if (n > 0)
		b->len += (size_t)n;
	return n > 0 ? 1 : (int)n;
}

int pxc_rbuf_take(pxc_rbuf_t *b, uint32_t max_payload, pxc_wire_hdr_t *h, char **bytes)
{
	size_t whole;

	*bytes = NULL;
	if (b->len - b->off < PXC_WIRE_HDR_LEN)
		return 0;
	if (pxc_wire_hdr_decode((unsigned char *)b->buf + b->off, max_payload, h) < 0)
		return -1;
	whole = PXC_WIRE_HDR_LEN + (size_t)h->len;
	if (b->len - b->off < whole)
		return rbuf_room(b, whole) < 0 ? -1 : 0;
	if (h->len > 0) {
		if (!(*bytes = malloc(h->len))) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(*bytes, b->buf + b->off + PXC_WIRE_HDR_LEN, h->len);
	}
	b->off += whole;
	return 1;
}

void pxc_rbuf_trim(pxc_rbuf_t *b, size_t keep)
{
	if (b->off == b->len && b->cap > keep)
		pxc_rbuf_free(b);
}

void pxc_rbuf_free(pxc_rbuf_t *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* Delivers the first whole frame of c->in, if there is one. Returns 1
 * when a frame was delivered, 0 when more bytes are needed, -1 on a
 * protocol error (errno set). */
static int deliver_one(pxc_conn_t *c)
{
	pmix_data_buffer_t payload;
	pxc_wire_hdr_t h;
	char *bytes;
	int rc = pxc_rbuf_take(&c->in, c->max_payload, &h, &bytes);

	if (rc <= 0)
		return rc;
	pxc_buf_init(&payload);
	pxc_buf_load_take(&payload, bytes, h.len);
	c->in_callback++;
	c->on_msg(c, &h, &payload, c->arg);
	c->in_callback--;
	pxc_buf_clear(&payload);
	return 1;
}

/* One recv: 1 bytes came, 0 the peer closed, -1 error (errno), 2 nothing
 * to read now. */
static int fill(pxc_conn_t *c, int fd)
{
	int n = pxc_rbuf_recv(&c->in, fd);

	return n < 0 && (errno == EAGAIN || errno == EINTR) ? 2 : n;
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	pxc_conn_t *c = arg;
	int got, rc = 1, err;

	(void)what;
	c->in_callback++;
	got = fill(c, (int)fd);
	err = got < 0 ? errno : 0;
	while (rc == 1 && !c->closed && !c->ended && !c->paused)
		rc = deliver_one(c);
	pxc_rbuf_trim(&c->in, 0); /* all delivered: hold nothing */
	c->in_callback--;
	if (rc < 0 && !c->closed) {
		pxc_error("closing connection: %s", errno == EMSGSIZE ? "message too large" :
						    errno == ENOMEM   ? "out of memory" :
									"protocol error");
		conn_end(c, errno);
	} else if (got <= 0 && !c->closed) {
		conn_end(c, got == 0 ? 0 : err);
	}
	if (c->closed && c->in_callback == 0 && !c->flushing)
		conn_free(c);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	pxc_conn_t *c = arg;
	bool empty = evbuffer_get_length(bufferevent_get_output(bev)) == 0;

	if (c->shared && empty) {
		tx_lock(c);
		c->queued = false;
		tx_unlock(c);
	}
	if (c->flushing && empty) {
		conn_free(c);
		return;
	}
	if (empty && c->drained && !c->closed) {
		void (*fn)(void *) = c->drained;

		c->drained = NULL;
		fn(c->drained_arg);
	}
}

void pxc_conn_when_drained(pxc_conn_t *c, void (*fn)(void *arg), void *arg)
{
	if (!c)
		return;
	c->drained = fn;
	c->drained_arg = arg;
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	pxc_conn_t *c = arg;
	int err = (what & BEV_EVENT_ERROR) ? EVUTIL_SOCKET_ERROR() : 0;

	(void)bev;
	if (c->flushing) { /* output cannot drain any more */
		conn_free(c);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		conn_end(c, err ? err : 0);
		if (c->closed && c->in_callback == 0)
			conn_free(c);
	}
}

pxc_conn_t *pxc_conn_new(struct event_base *base, int fd, size_t max_payload, pxc_conn_msg_f on_msg,
			 pxc_conn_close_f on_close, void *arg)
{
	pxc_conn_t *c = calloc(1, sizeof(*c));

	if (!c || evutil_make_socket_nonblocking(fd) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		goto fail;
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		goto fail;
	c->max_payload = max_payload ? max_payload : PXC_WIRE_MAX_PAYLOAD;
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->arg = arg;
	bufferevent_setcb(c->bev, NULL, write_cb, event_cb, c);
	c->rev = event_new(base, fd, EV_READ | EV_PERSIST, read_cb, c);
	if (!c->rev || event_add(c->rev, NULL) < 0 || bufferevent_enable(c->bev, EV_WRITE) < 0) {
		if (c->rev)
			event_free(c->rev);
		bufferevent_free(c->bev); /* closes fd */
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
fail:
	free(c);
	close(fd);
	errno = errno ? errno : ENOMEM;
	return NULL;
}

/* With nothing queued, the frame is written at once from here: going
 * through the bufferevent costs an epoll_ctl to watch for writability, an
 * epoll_wait and another epoll_ctl per message, which a fence pays on
 * every hop. Returns the bytes written (0 when the socket would block or
 * failed: the bufferevent then meets the error itself). */
static size_t send_now(pxc_conn_t *c, const unsigned char *hdr, const char *body, size_t len)
{
	struct iovec iov[2] = { { (void *)hdr, PXC_WIRE_HDR_LEN }, { (void *)body, len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n = sendmsg(pxc_conn_fd(c), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n > 0 ? (size_t)n : 0;
}

/* Queues what send_now did not write. */
static int queue_rest(struct evbuffer *out, const unsigned char *hdr, const char *body, size_t len,
		      size_t sent)
{
	int rc = 0;

	if (sent < PXC_WIRE_HDR_LEN)
		rc = evbuffer_add(out, hdr + sent, PXC_WIRE_HDR_LEN - sent);
	sent = sent > PXC_WIRE_HDR_LEN ? sent - PXC_WIRE_HDR_LEN : 0;
	if (rc == 0 && len > sent)
		rc = evbuffer_add(out, body + sent, len - sent);
	if (rc < 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int pxc_conn_send(pxc_conn_t *c, uint16_t cmd, uint32_t tag, uint16_t flags,
		  const pmix_data_buffer_t *payload)
{
	unsigned char raw[PXC_WIRE_HDR_LEN];
	size_t len = payload ? payload->bytes_used : 0, sent;
	const char *body = payload ? payload->base_ptr : NULL;
	struct evbuffer *out;
	pxc_wire_hdr_t h = { .len = (uint32_t)len, .tag = tag, .cmd = cmd, .flags = flags };
	int rc;

	if (c->closed || c->ended) {
		errno = EPIPE;
		return -1;
	}
	if (len > c->max_payload) {
		errno = EMSGSIZE;
		return -1;
	}
	pxc_wire_hdr_encode(&h, raw);
	out = bufferevent_get_output(c->bev);
	tx_lock(c);
	sent = evbuffer_get_length(out) == 0 ? send_now(c, raw, body, len) : 0;
	rc = queue_rest(out, raw, body, len, sent);
	if (rc == 0 && c->shared && sent < PXC_WIRE_HDR_LEN + len)
		c->queued = true;
	tx_unlock(c);
	return rc;
}

int pxc_conn_share(pxc_conn_t *c)
{
	if (c->shared)
		return 0;
	if ((errno = pthread_mutex_init(&c->tx_lock, NULL)) != 0)
		return -1;
	c->shared = true;
	return 0;
}

/* Drops the first n bytes of msg's iovecs. */
static void iov_advance(struct msghdr *msg, size_t n)
{
	while (msg->msg_iovlen > 0 && n >= msg->msg_iov->iov_len) {
		n -= msg->msg_iov->iov_len;
		msg->msg_iov++;
		msg->msg_iovlen--;
	}
	if (msg->msg_iovlen > 0) {
		msg->msg_iov->iov_base = (char *)msg->msg_iov->iov_base + n;
		msg->msg_iov->iov_len -= n;
	}
}

/* Waits for ev on fd until deadline. 0, or -1 with errno (ETIMEDOUT). */
static int wait_fd(int fd, short ev, long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long left;
	int rc;

	do {
		if ((left = deadline - pxc_now_ms()) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&p, 1, (int)left);
	} while (rc < 0 && errno == EINTR);
	if (rc == 0)
		errno = ETIMEDOUT;
	return rc > 0 ? 0 : -1;
}

int pxc_io_write_all(int fd, struct iovec *iov, int n, long deadline)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };
	ssize_t w;

	while (msg.msg_iovlen > 0) {
		w = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w >= 0)
			iov_advance(&msg, (size_t)w);
		else if (errno != EINTR && (errno != EAGAIN || wait_fd(fd, POLLOUT, deadline) < 0))
			return -1;
	}
	return 0;
}

int pxc_io_read_all(int fd, void *buf, size_t len, long deadline)
{
	char *p = buf;
	ssize_t r;

	while (len > 0) {
		r = recv(fd, p, len, MSG_DONTWAIT);
		if (r > 0) {
			p += r;
			len -= (size_t)r;
		} else if (r == 0) {
			errno = ECONNRESET;
			return -1;
		} else if (errno != EINTR &&
			   (errno != EAGAIN || wait_fd(fd, POLLIN, deadline) < 0)) {
			return -1;
		}
	}
	return 0;
}

int pxc_conn_send_direct(pxc_conn_t *c, uint16_t cmd, uint32_t tag, uint16_t flags,
			 const pmix_data_buffer_t *payload, int timeout_ms)
{
	unsigned char raw[PXC_WIRE_HDR_LEN];
	size_t len = payload ? payload->bytes_used : 0;
	pxc_wire_hdr_t h = { .len = (uint32_t)len, .tag = tag, .cmd = cmd, .flags = flags };
	struct iovec iov[2] = { { raw, PXC_WIRE_HDR_LEN },
				{ payload ? payload->base_ptr : NULL, len } };
	int rc, fd = pxc_conn_fd(c);

	if (!c->shared || len > c->max_payload) {
		errno = c->shared ? EMSGSIZE : EINVAL;
		return -1;
	}
	pxc_wire_hdr_encode(&h, raw);
	pthread_mutex_lock(&c->tx_lock);
	if (c->queued) {
		pthread_mutex_unlock(&c->tx_lock);
		errno = EAGAIN;
		return -1;
	}
	rc = pxc_io_write_all(fd, iov, len ? 2 : 1, pxc_now_ms() + timeout_ms);
	if (rc < 0) {
		int e = errno;

		/* part of a frame may be out: the stream cannot go on */
		shutdown(fd, SHUT_RDWR);
		errno = e;
	}
	pthread_mutex_unlock(&c->tx_lock);
	return rc;
}

void pxc_conn_close(pxc_conn_t *c, int flush)
{
	if (!c || c->closed)
		return;
	c->closed = true;
	event_del(c->rev);
	if (flush && !c->ended && evbuffer_get_length(bufferevent_get_output(c->bev)) > 0) {
		c->flushing = true; /* write_cb / event_cb free it */
		return;
	}
	if (c->in_callback == 0)
		conn_free(c);
}

void pxc_conn_pause(pxc_conn_t *c, bool on)
{
	if (!c || c->closed || c->paused == on)
		return;
	c->paused = on;
	if (on) {
		event_del(c->rev);
	} else if (event_add(c->rev, NULL) == 0) {
		event_active(c->rev, EV_READ, 0); /* frames already read go first */
	}
}

size_t pxc_conn_queued(const pxc_conn_t *c)
{
	return c && !c->closed ? evbuffer_get_length(bufferevent_get_output(c->bev)) : 0;
}

int pxc_conn_fd(const pxc_conn_t *c)
{
	return (int)bufferevent_getfd(c->bev);
}

void pxc_conn_set_arg(pxc_conn_t *c, void *arg)
{
	c->arg = arg;
}

void *pxc_conn_get_arg(const pxc_conn_t *c)
{
	return c->arg;
}
