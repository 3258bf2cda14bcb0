/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame.h - framed messages over a stream socket (client <-> server).
 *
 * Every message is a 16-byte header followed by a payload of packed items
 * (pack.h):
 *     uint32 magic   PXC_WIRE_MAGIC ("SLMX")
 *     uint32 len     payload length in bytes, <= PXC_WIRE_MAX_PAYLOAD
 *     uint32 tag     request tag chosen by the requester; a reply carries the
 *                    request's tag; 0 = no reply wanted / unsolicited
 *     uint16 cmd     PXC_CMD_* (proto.h)
 *     uint16 flags   PXC_WIRE_F_REPLY on replies
 * all big endian. A header with a wrong magic or an absurd length is a
 * protocol error: the connection is closed, never trusted further.
 *
 * pxc_conn_t wraps one connected socket on a libevent bufferevent in the
 * progress thread: it reassembles frames and hands each complete one to the
 * message callback, queues outgoing frames, and reports the end of the
 * connection (peer closed, IO error, protocol error) once through the close
 * callback. All functions below run in the progress thread only, except
 * pxc_conn_send_direct.
 */
#ifndef PXC_FRAME_H
#define PXC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <pmix_common.h>

#define PXC_WIRE_MAGIC 0x534c4d58u
#define PXC_WIRE_HDR_LEN 16
#define PXC_WIRE_MAX_PAYLOAD (256u << 20)
#define PXC_WIRE_F_REPLY 0x1

struct event_base;

typedef struct {
	uint32_t len;
	uint32_t tag;
	uint16_t cmd;
	uint16_t flags;
} pxc_wire_hdr_t;

/* Writes the 16 header bytes for h. */
void pxc_wire_hdr_encode(const pxc_wire_hdr_t *h, unsigned char out[PXC_WIRE_HDR_LEN]);
/* Parses 16 header bytes. 0, or -1 with errno EPROTO (bad magic) or
 * EMSGSIZE (len > max_payload). */
int pxc_wire_hdr_decode(const unsigned char in[PXC_WIRE_HDR_LEN], size_t max_payload,
			pxc_wire_hdr_t *h);

typedef struct pxc_conn pxc_conn_t;
/* One complete message. payload is a buffer owned by the connection; the
 * callee may read it and may take its bytes (pxc_buf_load_take elsewhere
 * after copying) but must not keep the pointer. The callee may call
 * pxc_conn_close(c) from inside the callback. */
typedef void (*pxc_conn_msg_f)(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *payload,
			       void *arg);
/* The connection ended (err: 0 peer closed, else an errno such as EPROTO,
 * EMSGSIZE, ECONNRESET). Called at most once, not after pxc_conn_close().
 * The callee must call pxc_conn_close(c) (now or later) to free it. */
typedef void (*pxc_conn_close_f)(pxc_conn_t *c, int err, void *arg);

/* Takes ownership of the connected fd (made non-blocking, close-on-exec).
 * NULL with errno on failure (fd is closed then too). */
pxc_conn_t *pxc_conn_new(struct event_base *base, int fd, size_t max_payload, pxc_conn_msg_f on_msg,
			 pxc_conn_close_f on_close, void *arg);
/* Queues one frame (the payload bytes are copied; payload may be NULL for
 * an empty one). 0, or -1 with errno (EPIPE once the connection ended). */
int pxc_conn_send(pxc_conn_t *c, uint16_t cmd, uint32_t tag, uint16_t flags,
		  const pmix_data_buffer_t *payload);
/* Makes c's sends safe against pxc_conn_send_direct from other threads
 * (a lock around every write decision). Before any send. 0 or -1/errno. */
int pxc_conn_share(pxc_conn_t *c);
/* Any thread, on a shared connection that stays alive during the call
 * (the caller guarantees it): writes the frame straight into the socket,
 * waiting at most timeout_ms for room. 0; -1 with errno EAGAIN when
 * earlier frames are still queued in the progress thread (nothing was
 * written: send through the progress thread instead, to keep the order);
 * other errno: the frame could not be written whole, and the socket was
 * shut down (the progress thread then reports the end). */
int pxc_conn_send_direct(pxc_conn_t *c, uint16_t cmd, uint32_t tag, uint16_t flags,
			 const pmix_data_buffer_t *payload, int timeout_ms);
/* Stops (on) or resumes reading and delivering c's messages: frames
 * already read wait, and go first on resume. Back-pressure on a peer
 * whose requests must wait. Progress thread. */
void pxc_conn_pause(pxc_conn_t *c, bool on);
/* Bytes queued for sending on c, not yet written. Progress thread. */
size_t pxc_conn_queued(const pxc_conn_t *c);
/* fn(arg) once, the next time everything queued on c has been written
 * (replaces an earlier one; fn NULL: none). Not called after
 * pxc_conn_close. Progress thread. */
void pxc_conn_when_drained(pxc_conn_t *c, void (*fn)(void *arg), void *arg);
/* Closes the socket and frees the connection; no callback runs after it.
 * Pending outgoing bytes are dropped unless flush is true, in which case the
 * socket is closed only after they are written (or it fails). NULL-tolerant. */
void pxc_conn_close(pxc_conn_t *c, int flush);

/* A receive buffer of frames: what came from a socket, [off, len) unread.
 * The connection engine and the client's reply channel both read into
 * one. Zeroed = empty; not thread-safe (its reader owns it). */
typedef struct {
	char *buf;
	size_t off, len, cap;
} pxc_rbuf_t;

/* One recv (non-blocking) into b, after making room. 1 bytes came, 0 the
 * peer closed, -1 with errno (EAGAIN/EINTR: nothing now; ENOMEM). */
int pxc_rbuf_recv(pxc_rbuf_t *b, int fd);
/* Takes the first whole frame: 1 with *h and *bytes (malloc'ed, h->len
 * bytes; NULL when empty), 0 when it is not all there yet (b grows to
 * hold it), -1 with errno (a bad header: EPROTO, EMSGSIZE over
 * max_payload; ENOMEM). */
int pxc_rbuf_take(pxc_rbuf_t *b, uint32_t max_payload, pxc_wire_hdr_t *h, char **bytes);
/* When nothing is unread and the storage is larger than keep bytes,
 * frees it (an idle reader holds no memory; keep 0: always). */
void pxc_rbuf_trim(pxc_rbuf_t *b, size_t keep);
void pxc_rbuf_free(pxc_rbuf_t *b);

/* Blocking socket I/O bounded by deadline (pxc_now_ms() time), any
 * thread, with or without O_NONBLOCK: writes all of iov[0..n) (the
 * iovecs are advanced), or reads exactly len bytes. 0, or -1 with errno
 * (ETIMEDOUT at the deadline; ECONNRESET when the peer closed first). */
int pxc_io_write_all(int fd, struct iovec *iov, int n, long deadline);
int pxc_io_read_all(int fd, void *buf, size_t len, long deadline);
/* The socket, for SO_PEERCRED. */
int pxc_conn_fd(const pxc_conn_t *c);
/* Per-connection user pointer. */
void pxc_conn_set_arg(pxc_conn_t *c, void *arg);
void *pxc_conn_get_arg(const pxc_conn_t *c);

#endif
