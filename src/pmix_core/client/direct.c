/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * direct.c - blocking calls without waking the progress thread.
 *
 * The plain request path (conn.c) costs three thread wake-ups per
 * blocking call: the caller posts to the progress thread, which sends;
 * the reply wakes the progress thread, which wakes the caller. On a
 * loaded node (many ranks per core, virtual machines where a cross-CPU
 * wake-up costs tens of microseconds) those wake-ups are most of the
 * time of a fence. Here the caller does the I/O itself:
 *   - its request goes straight into the connection's socket
 *     (pxc_conn_send_direct) - unless requests posted to the progress
 *     thread are still unwritten (pxc_cl.queued) or bytes are queued in
 *     the connection, when it goes the plain way so that the server sees
 *     requests in the order they were made;
 *   - a blocking call's tag carries PXC_TAG_REPLY_CHANNEL, so the server
 *     sends the reply on the process's reply channel (proto.h), a second
 *     socket that only the caller holding fast_lock reads, with poll()
 *     and the call's timeout. One wake-up per call.
 * Fire-and-forget requests (COMMIT) take the direct write too.
 *
 * Events keep their place: they come on the first connection, which the
 * progress thread reads, while the reply comes on the channel, so a reply
 * could overtake an event the server queued before it. When it may have,
 * the server sends an event mark before the reply (proto.h, EVENT): the
 * caller then waits until that many events were handled (ev_seen,
 * counted when an event's first handler returned, client/event.c) before
 * it returns (not when it is itself a handler), at most until
 * the call's deadline or EVENT_MARK_WAIT_MS. So an event notified before
 * a fence is delivered at every recipient before that fence returns there
 * (docs/events.md).
 *
 * One blocking call at a time uses the channel (trylock); concurrent ones
 * from other threads, calls without a channel (a server of another build
 * refused it) and calls from the progress thread take the plain path.
 * A reply that arrives after its call timed out is read and dropped by
 * the next call (tags never repeat within 2^31 calls). A channel that
 * fails (closed, broken frame) fails the call waiting on it and is not
 * used again: later calls take the plain path, whose replies the server
 * then sends on the first connection.
 *
 * Lifetimes: txconn is set and cleared by the progress thread under
 * tx_lock before it frees the connection, and callers write only while
 * holding tx_lock, so the connection stays alive during a direct write.
 * rfd is opened at connect (before any call) and closed by teardown
 * after the progress thread let go of the connection; when the
 * connection is lost, the progress thread shuts rfd down, which ends a
 * caller's wait at once.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "direct.h"
#include "common/event.h"

#define DIRECT_SEND_TIMEOUT_MS 10000
#define REPLY_GRACE_MS 250
#define EVENT_MARK_WAIT_MS 10000

/* ---- progress-thread side ---- */

void pxc_direct_attach(pxc_conn_t *c)
{
	if (pxc_conn_share(c) != 0)
		return; /* direct writes stay off */
	pthread_mutex_lock(&pxc_cl.tx_lock);
	pxc_cl.txconn = c;
	pthread_mutex_unlock(&pxc_cl.tx_lock);
}

void pxc_direct_detach(void)
{
	int fd = atomic_load(&pxc_cl.rfd);

	pthread_mutex_lock(&pxc_cl.tx_lock);
	pxc_cl.txconn = NULL;
	pthread_mutex_unlock(&pxc_cl.tx_lock);
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

void pxc_direct_event_seen(void)
{
	pthread_mutex_lock(&pxc_cl.ev_lock);
	atomic_fetch_add(&pxc_cl.ev_seen, 1);
	pthread_cond_broadcast(&pxc_cl.ev_cond);
	pthread_mutex_unlock(&pxc_cl.ev_lock);
}

/* ---- caller side ---- */

void pxc_direct_set_channel(int fd)
{
	atomic_store(&pxc_cl.rbroken, false);
	atomic_store(&pxc_cl.rfd, fd);
}

void pxc_direct_close_channel(void)
{
	pthread_mutex_lock(&pxc_cl.fast_lock);
	if (atomic_load(&pxc_cl.rfd) >= 0)
		close(atomic_load(&pxc_cl.rfd));
	atomic_store(&pxc_cl.rfd, -1);
	pxc_rbuf_free(&pxc_cl.rb);
	pthread_mutex_unlock(&pxc_cl.fast_lock);
}

int pxc_direct_send(uint16_t cmd, uint32_t tag, const pmix_data_buffer_t *b)
{
	int rc = -1;

	errno = EAGAIN;
	if (atomic_load(&pxc_cl.queued) != 0 || (pxc_cl.pg && pxc_progress_in_thread(pxc_cl.pg)))
		return -1;
	pthread_mutex_lock(&pxc_cl.tx_lock);
	if (pxc_cl.txconn)
		rc = pxc_conn_send_direct(pxc_cl.txconn, cmd, tag, 0, b, DIRECT_SEND_TIMEOUT_MS);
	pthread_mutex_unlock(&pxc_cl.tx_lock);
	if (rc < 0 && errno != EAGAIN)
		pxc_error("client: request %u could not be written: %s", cmd, strerror(errno));
	return rc;
}

/* An event mark for the call with tag: 0 and *mark set, or -1. */
static int take_mark(const pxc_wire_hdr_t *h, char *bytes, uint32_t tag, uint32_t *mark,
		     bool *marked)
{
	pmix_data_buffer_t b;
	int32_t n = 1;
	int rc = -1;

	pxc_buf_init(&b);
	pxc_buf_load_take(&b, bytes, h->len);
	if (pxc_unpack(&b, mark, &n, PMIX_UINT32) == PMIX_SUCCESS)
		rc = 0;
	pxc_buf_clear(&b);
	if (rc == 0 && h->tag == tag)
		*marked = true;
	return rc;
}

/* Takes one whole frame from the channel's buffer: 1 when it is the
 * reply (payload moved to out), 0 when more bytes are needed or an event
 * mark was taken or a stale frame was dropped (*again set), -1 on a
 * protocol error. */
static int take_frame(uint32_t tag, uint16_t cmd, pmix_data_buffer_t *out, uint32_t *mark,
		      bool *marked, bool *again)
{
	pxc_wire_hdr_t h;
	char *bytes;
	int rc = pxc_rbuf_take(&pxc_cl.rb, PXC_WIRE_MAX_PAYLOAD, &h, &bytes), mine;

	*again = false;
	if (rc <= 0)
		return rc;
	if (h.cmd == PXC_CMD_EVENT && (h.flags & PXC_WIRE_F_REPLY)) {
		*again = true;
		return take_mark(&h, bytes, tag, mark, marked) == 0 ? 0 : -1;
	}
	mine = h.tag == tag && h.cmd == cmd && (h.flags & PXC_WIRE_F_REPLY);
	if (mine) {
		pxc_buf_load_take(out, bytes, h.len);
	} else {
		pxc_debug("client: late reply (tag %x cmd %u) dropped", h.tag, h.cmd);
		free(bytes);
	}
	*again = !mine;
	return mine;
}

void pxc_direct_wait_events(uint32_t mark, long deadline)
{
	long until = deadline >= 0 ? deadline : pxc_now_ms() + EVENT_MARK_WAIT_MS;
	struct timespec ts;
	bool late = false;

	if ((int32_t)(atomic_load(&pxc_cl.ev_seen) - mark) >= 0 || pxc_event_thread_is_self())
		return; /* done, or a handler's call: the events wait for it */
	pthread_mutex_lock(&pxc_cl.ev_lock);
	while ((int32_t)(atomic_load(&pxc_cl.ev_seen) - mark) < 0 &&
	       atomic_load(&pxc_cl.state) != PXC_CONN_LOST && !late) {
		long now = pxc_now_ms(), left = until - now;

		if (left <= 0) {
			late = true;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += left / 1000;
		ts.tv_nsec += (left % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pxc_cl.ev_cond, &pxc_cl.ev_lock, &ts);
	}
	pthread_mutex_unlock(&pxc_cl.ev_lock);
	if (late)
		pxc_debug("client: %u events queued before a reply not handled in time",
			  mark - atomic_load(&pxc_cl.ev_seen));
}

/* Reads what the channel has. 0, or a status (timeout, lost). */
static pmix_status_t fill(int fd, long deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long left = deadline < 0 ? -1 : deadline - pxc_now_ms();
	int n;

	if (deadline >= 0 && left <= 0)
		return PMIX_ERR_TIMEOUT;
	if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
		return PMIX_ERR_LOST_CONNECTION_TO_SERVER;
	if (p.revents == 0)
		return PMIX_SUCCESS; /* timeout or EINTR: checked next turn */
	n = pxc_rbuf_recv(&pxc_cl.rb, fd);
	if (n < 0 && errno == ENOMEM)
		return PMIX_ERR_NOMEM;
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return PMIX_ERR_LOST_CONNECTION_TO_SERVER;
	return PMIX_SUCCESS;
}

/* Waits for the reply with tag on the channel. */
static pmix_status_t wait_reply(uint32_t tag, uint16_t cmd, int timeout_ms, pmix_data_buffer_t *out)
{
	long deadline = timeout_ms > 0 ? pxc_now_ms() + timeout_ms + REPLY_GRACE_MS : -1;
	int fd = atomic_load(&pxc_cl.rfd);
	pmix_status_t st = PMIX_SUCCESS;
	bool again, marked = false;
	uint32_t mark = 0;
	int rc;

	while (st == PMIX_SUCCESS) {
		do
			rc = take_frame(tag, cmd, out, &mark, &marked, &again);
		while (rc == 0 && again);
		if (rc != 0)
			break;
		st = fill(fd, deadline);
	}
	if (rc < 0) {
		pxc_error("client: malformed frame on the reply channel");
		shutdown(fd, SHUT_RDWR);
		st = PMIX_ERR_LOST_CONNECTION_TO_SERVER;
	}
	if (st == PMIX_ERR_LOST_CONNECTION_TO_SERVER || st == PMIX_ERR_NOMEM)
		atomic_store(&pxc_cl.rbroken, true);
	else
		pxc_rbuf_trim(&pxc_cl.rb, 65536); /* a big reply went by */
	if (st == PMIX_SUCCESS && marked)
		pxc_direct_wait_events(mark, deadline);
	return st;
}

bool pxc_direct_call(uint16_t cmd, pmix_data_buffer_t *payload, int timeout_ms, pxc_parse_f parse,
		     void *arg, pmix_status_t *result)
{
	pmix_data_buffer_t reply;
	pmix_status_t st;
	uint32_t tag;

	if (atomic_load(&pxc_cl.rfd) < 0 || atomic_load(&pxc_cl.rbroken) ||
	    pthread_mutex_trylock(&pxc_cl.fast_lock) != 0)
		return false;
	if (atomic_load(&pxc_cl.rfd) < 0) {
		pthread_mutex_unlock(&pxc_cl.fast_lock);
		return false;
	}
	pxc_cl.fast_tag = (pxc_cl.fast_tag + 1) & ~PXC_TAG_REPLY_CHANNEL;
	tag = (pxc_cl.fast_tag ? pxc_cl.fast_tag : ++pxc_cl.fast_tag) | PXC_TAG_REPLY_CHANNEL;
	if (pxc_direct_send(cmd, tag, payload) != 0) {
		pthread_mutex_unlock(&pxc_cl.fast_lock);
		if (errno == EAGAIN)
			return false;
		*result = PMIX_ERR_LOST_CONNECTION_TO_SERVER;
		return true;
	}
	pxc_buf_clear(payload);
	pxc_buf_init(&reply);
	st = wait_reply(tag, cmd, timeout_ms, &reply);
	pthread_mutex_unlock(&pxc_cl.fast_lock);
	if (st == PMIX_SUCCESS && pxc_unpack_status(&reply, &st) != PMIX_SUCCESS) {
		pxc_error("client: malformed reply to cmd %u", cmd);
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	if ((st == PMIX_SUCCESS || st == PMIX_QUERY_PARTIAL_SUCCESS) && parse) {
		pmix_status_t pst = parse(&reply, arg);

		if (pst != PMIX_SUCCESS)
			st = pst;
	}
	pxc_buf_clear(&reply);
	*result = st;
	return true;
}
