/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/auth.c - the connection handshake (lib/auth.h). One record per
 * connection in its handshake: the owner's callbacks, the key and both
 * nonces; it is the connection's user pointer until the handshake ends and
 * is freed then. A connection its owner closes in the middle (a stop)
 * has its record freed with it (pxc_conn_on_free), as the frame layer calls no
 * callback after pxc_conn_close.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "pxc_host.h"
#include "lib/auth.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/sha256.h"

#define AUTH_LABEL "slurmix auth 1"
#define AUTH_CLAIM 12
#define AUTH_MSG PLUG_AUTH_MSG

typedef struct {
	int acceptor;
	int challenged; /* connector: CHALLENGE came, AUTH went */
	const char *what;
	char key[PLUG_KEY_LEN + 1];
	unsigned char nonce_a[PLUG_AUTH_NONCE], nonce_c[PLUG_AUTH_NONCE];
	plug_auth_claim_t claim;
	plug_auth_admit_f admit;
	plug_auth_ready_f ready;
	pxc_conn_msg_f on_msg;
	pxc_conn_close_f on_close;
	void *arg;
} hs_t;

static plug_auth_log_f auth_log;

void plug_auth_set_log(plug_auth_log_f fn)
{
	auth_log = fn;
}

int plug_auth_random(unsigned char *out, size_t n)
{
	while (n) {
		ssize_t got = getrandom(out, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		out += got;
		n -= (size_t)got;
	}
	return 0;
}

static void put_claim(unsigned char *p, const plug_auth_claim_t *cl)
{
	uint32_t v[3] = { htonl(cl->kind), htonl(cl->node), htonl(cl->step) };

	memcpy(p, v, AUTH_CLAIM);
}

static void get_claim(const unsigned char *p, plug_auth_claim_t *cl)
{
	uint32_t v[3];

	memcpy(v, p, AUTH_CLAIM);
	cl->kind = ntohl(v[0]);
	cl->node = ntohl(v[1]);
	cl->step = ntohl(v[2]);
}

void plug_auth_mac(const char *key, char role, const unsigned char nonce_a[PLUG_AUTH_NONCE],
		   const unsigned char nonce_c[PLUG_AUTH_NONCE], const plug_auth_claim_t *claim,
		   unsigned char out[PLUG_AUTH_MAC])
{
	unsigned char cl[AUTH_CLAIM];
	const void *parts[] = { AUTH_LABEL, &role, nonce_a, nonce_c, cl };
	const size_t lens[] = { strlen(AUTH_LABEL), 1, PLUG_AUTH_NONCE, PLUG_AUTH_NONCE,
				AUTH_CLAIM };

	put_claim(cl, claim);
	plug_hmac_sha256(key, strlen(key), 5, parts, lens, out);
}

int plug_auth_answer(const char *key, const plug_auth_claim_t *claim,
		     const unsigned char nonce_a[PLUG_AUTH_NONCE],
		     unsigned char nonce_c[PLUG_AUTH_NONCE], unsigned char msg[PLUG_AUTH_MSG])
{
	if (plug_auth_random(nonce_c, PLUG_AUTH_NONCE) < 0)
		return -1;
	memcpy(msg, nonce_c, PLUG_AUTH_NONCE);
	put_claim(msg + PLUG_AUTH_NONCE, claim);
	plug_auth_mac(key, 'C', nonce_a, nonce_c, claim, msg + PLUG_AUTH_NONCE + AUTH_CLAIM);
	return 0;
}

int plug_auth_acceptor_ok(const char *key, const plug_auth_claim_t *claim,
			  const unsigned char nonce_a[PLUG_AUTH_NONCE],
			  const unsigned char nonce_c[PLUG_AUTH_NONCE],
			  const unsigned char mac[PLUG_AUTH_MAC])
{
	unsigned char want[PLUG_AUTH_MAC];

	plug_auth_mac(key, 'A', nonce_a, nonce_c, claim, want);
	return plug_mem_equal(want, mac, PLUG_AUTH_MAC);
}

/* "a.b.c.d:port" of fd's peer, for log lines. */
static void peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(out, len, "%s:%s", host, port);
}

static void hs_free(void *arg)
{
	memset(arg, 0, sizeof(hs_t)); /* the key */
	free(arg);
}

/* The one line of a failed handshake on fd. */
static void log_failure(int fd, const char *what, int acceptor, const char *why)
{
	char peer[80], line[256];

	if (!auth_log)
		return;
	peer_name(fd, peer, sizeof(peer));
	snprintf(line, sizeof(line), "%s: connection %s %s: %s: dropped", what,
		 acceptor ? "from" : "to", peer, why);
	auth_log(line);
}

/* Hands c back to its owner, as closed with err (0: authenticated). */
static void finish(pxc_conn_t *c, hs_t *hs, int err, const char *why)
{
	pxc_conn_close_f on_close = hs->on_close;
	void *arg = hs->arg;

	if (why)
		log_failure(pxc_conn_fd(c), hs->what, hs->acceptor, why);
	pxc_conn_set_callbacks(c, hs->on_msg, hs->on_close, hs->arg);
	pxc_conn_on_free(c, NULL, NULL);
	hs_free(hs);
	if (err)
		on_close(c, err, arg);
}

static int payload(const pmix_data_buffer_t *in, size_t len, const unsigned char **p)
{
	if (in->bytes_used != len || !in->base_ptr)
		return -1;
	*p = (const unsigned char *)in->base_ptr;
	return 0;
}

static int send_raw(pxc_conn_t *c, uint16_t cmd, const void *data, size_t len)
{
	pmix_data_buffer_t b;
	int rc;

	pxc_buf_init(&b);
	rc = pxc_buf_append(&b, data, len) < 0 ? -1 : pxc_conn_send(c, cmd, 0, 0, &b);
	pxc_buf_clear(&b);
	return rc;
}

/* The acceptor's side: AUTH in, AUTH_OK out, then the owner's admit. */
static void acceptor_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	hs_t *hs = arg;
	const unsigned char *p;
	unsigned char mac[PLUG_AUTH_MAC];
	plug_auth_admit_f admit = hs->admit;
	pxc_conn_close_f on_close = hs->on_close;
	void *owner = hs->arg;
	plug_auth_claim_t claim;

	if (h->cmd != PLUG_NET_AUTH)
		return finish(c, hs, EACCES, "no handshake (an old or foreign peer?)");
	if (payload(in, AUTH_MSG, &p) < 0)
		return finish(c, hs, EACCES, "a truncated or malformed handshake");
	memcpy(hs->nonce_c, p, PLUG_AUTH_NONCE);
	get_claim(p + PLUG_AUTH_NONCE, &claim);
	plug_auth_mac(hs->key, 'C', hs->nonce_a, hs->nonce_c, &claim, mac);
	if (!plug_mem_equal(mac, p + PLUG_AUTH_NONCE + AUTH_CLAIM, PLUG_AUTH_MAC))
		return finish(c, hs, EACCES,
			      "no proof of the job key (a wrong or stale key, or a replay)");
	plug_auth_mac(hs->key, 'A', hs->nonce_a, hs->nonce_c, &claim, mac);
	if (send_raw(c, PLUG_NET_AUTH_OK, mac, sizeof(mac)) < 0)
		return finish(c, hs, ENOMEM, "cannot answer the handshake");
	finish(c, hs, 0, NULL);
	if (admit && admit(c, &claim, owner) < 0)
		on_close(c, EACCES, owner);
}

/* The connector's side: CHALLENGE in, AUTH out; AUTH_OK in. */
static void connector_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	hs_t *hs = arg;
	const unsigned char *p;
	unsigned char msg[AUTH_MSG];
	plug_auth_ready_f ready = hs->ready;
	void *owner = hs->arg;

	if (!hs->challenged && h->cmd == PLUG_NET_AUTH_CHALLENGE &&
	    payload(in, PLUG_AUTH_NONCE, &p) == 0) {
		hs->challenged = 1;
		memcpy(hs->nonce_a, p, PLUG_AUTH_NONCE);
		if (plug_auth_answer(hs->key, &hs->claim, hs->nonce_a, hs->nonce_c, msg) < 0 ||
		    send_raw(c, PLUG_NET_AUTH, msg, sizeof(msg)) < 0)
			finish(c, hs, ENOMEM, "cannot answer the challenge");
		return;
	}
	if (!hs->challenged || h->cmd != PLUG_NET_AUTH_OK || payload(in, PLUG_AUTH_MAC, &p) < 0)
		return finish(c, hs, EACCES, "not a handshake (an old or foreign peer?)");
	if (!plug_auth_acceptor_ok(hs->key, &hs->claim, hs->nonce_a, hs->nonce_c, p))
		return finish(c, hs, EACCES,
			      "the peer has no proof of the job key (a wrong or stale key, or a "
			      "replay)");
	finish(c, hs, 0, NULL);
	ready(c, owner);
}

/* The peer left during the handshake (quietly: a peer may go away), or
 * sent what is not even a frame (logged). */
static void hs_close(pxc_conn_t *c, int err, void *arg)
{
	int broken = err == EPROTO || err == EMSGSIZE || err == EBADMSG;

	finish(c, arg, err ? err : ECONNRESET, broken ? "a malformed handshake" : NULL);
}

static hs_t *hs_new(const char *what, const char *key, pxc_conn_msg_f on_msg,
		    pxc_conn_close_f on_close, void *arg)
{
	hs_t *hs;

	if (!key || strlen(key) != PLUG_KEY_LEN || !(hs = calloc(1, sizeof(*hs))))
		return NULL;
	hs->what = what;
	strcpy(hs->key, key);
	hs->on_msg = on_msg;
	hs->on_close = on_close;
	hs->arg = arg;
	return hs;
}

/* One frame of cmd with exactly len payload bytes, blocking. 0/-1. */
static int read_frame_fd(int fd, uint16_t cmd, unsigned char *out, size_t len, long deadline)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;

	if (pxc_io_read_all(fd, hdr, sizeof(hdr), deadline) < 0)
		return -1;
	if (pxc_wire_hdr_decode(hdr, len, &h) < 0 || h.cmd != cmd || h.len != len)
		return errno = EACCES, -1;
	return pxc_io_read_all(fd, out, len, deadline);
}

static int write_frame_fd(int fd, uint16_t cmd, const void *data, size_t len, long deadline)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .cmd = cmd, .len = (uint32_t)len };
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)data, len } };

	pxc_wire_hdr_encode(&h, hdr);
	return pxc_io_write_all(fd, iov, 2, deadline);
}

int plug_auth_connect_fd(int fd, const char *what, const char *key, const plug_auth_claim_t *claim,
			 long deadline)
{
	unsigned char na[PLUG_AUTH_NONCE], nc[PLUG_AUTH_NONCE], msg[PLUG_AUTH_MSG];
	unsigned char mac[PLUG_AUTH_MAC];
	int rc = -1;

	if (!key || strlen(key) != PLUG_KEY_LEN)
		return errno = EINVAL, -1;
	if (read_frame_fd(fd, PLUG_NET_AUTH_CHALLENGE, na, sizeof(na), deadline) < 0 ||
	    plug_auth_answer(key, claim, na, nc, msg) < 0 ||
	    write_frame_fd(fd, PLUG_NET_AUTH, msg, sizeof(msg), deadline) < 0 ||
	    read_frame_fd(fd, PLUG_NET_AUTH_OK, mac, sizeof(mac), deadline) < 0)
		rc = -1;
	else if (!plug_auth_acceptor_ok(key, claim, na, nc, mac))
		errno = EACCES;
	else
		rc = 0;
	if (rc < 0 && errno == EACCES)
		log_failure(fd, what, 0, "no handshake, or no proof of the job key");
	return rc;
}

int plug_auth_accept(pxc_conn_t *c, const char *what, const char *key, plug_auth_admit_f admit,
		     pxc_conn_msg_f on_msg, pxc_conn_close_f on_close, void *arg)
{
	hs_t *hs = hs_new(what, key, on_msg, on_close, arg);

	if (!hs)
		return -1;
	hs->acceptor = 1;
	hs->admit = admit;
	if (plug_auth_random(hs->nonce_a, PLUG_AUTH_NONCE) < 0 ||
	    send_raw(c, PLUG_NET_AUTH_CHALLENGE, hs->nonce_a, PLUG_AUTH_NONCE) < 0) {
		free(hs);
		return -1;
	}
	pxc_conn_set_callbacks(c, acceptor_msg, hs_close, hs);
	pxc_conn_on_free(c, hs_free, hs);
	return 0;
}

int plug_auth_connect(pxc_conn_t *c, const char *what, const char *key,
		      const plug_auth_claim_t *claim, plug_auth_ready_f ready,
		      pxc_conn_msg_f on_msg, pxc_conn_close_f on_close, void *arg)
{
	hs_t *hs = hs_new(what, key, on_msg, on_close, arg);

	if (!hs)
		return -1;
	hs->ready = ready;
	hs->claim = *claim;
	pxc_conn_set_callbacks(c, connector_msg, hs_close, hs);
	pxc_conn_on_free(c, hs_free, hs);
	return 0;
}
