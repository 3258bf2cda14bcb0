/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/auth.h - the handshake that opens every connection between the
 * plugin's processes (step daemon to step daemon, step daemon or child
 * srun to srun's agent, srun to a step daemon): both ends prove they hold
 * the job key (lib/key.h) without sending it, docs/security.md.
 *
 *   acceptor  -> CHALLENGE  nonce_a (32 random bytes, fresh per connection)
 *   connector -> AUTH       nonce_c (32), claim (u32 kind, node, step, big
 *                           endian), MAC_C = HMAC-SHA256(key, "slurmix auth 1"
 *                           'C' nonce_a nonce_c claim)
 *   acceptor  -> AUTH_OK    MAC_A = the same with 'A'
 *
 * Only then does either end send or take anything else. A replayed AUTH
 * answers an old nonce_a, a replayed AUTH_OK an old nonce_c, a MAC made
 * with another (a stale) key differs, and the role byte keeps one side's
 * MAC from serving as the other's: each is a failed handshake. A failed
 * handshake is logged once, here, through the logger set with
 * plug_auth_set_log, and reported to the connection's owner as a close
 * with EACCES; the owner closes it as it closes any lost connection.
 *
 * The claim says what the connector is (its node id and step id in the
 * transport, the first request's kind at srun's agent); the MAC binds it to
 * this connection. Slurm-free; progress thread of the connection's loop.
 */
#ifndef PLUG_LIB_AUTH_H
#define PLUG_LIB_AUTH_H

#include <stdint.h>

#include "pxc_host.h"

#define PLUG_AUTH_NONCE 32
#define PLUG_AUTH_MAC 32
#define PLUG_AUTH_MSG (PLUG_AUTH_NONCE + 12 + PLUG_AUTH_MAC) /* AUTH's payload */

typedef struct {
	uint32_t kind; /* what the connection is for: a PLUG_NET_* kind */
	uint32_t node; /* the connector's node id (UINT32_MAX: none) */
	uint32_t step; /* the connector's step id (UINT32_MAX: none) */
} plug_auth_claim_t;

/* An accepted connector's claim, after AUTH_OK went out and the owner's
 * callbacks are back on c: 0 to keep c, -1 to drop it (the callee logs
 * why; c is then reported to the owner's on_close with EACCES). */
typedef int (*plug_auth_admit_f)(pxc_conn_t *c, const plug_auth_claim_t *claim, void *arg);
/* The connector's side is authenticated: the owner's callbacks are back
 * on c, and the owner may send. */
typedef void (*plug_auth_ready_f)(pxc_conn_t *c, void *arg);
/* One line, without a trailing newline. */
typedef void (*plug_auth_log_f)(const char *line);

/* The logger of failed handshakes (default: none). Set once, before any
 * handshake, by the process's start-up. */
void plug_auth_set_log(plug_auth_log_f fn);

/* Takes a freshly accepted c (the owner's callbacks are replaced until
 * the handshake ends), sends CHALLENGE. what names the listener in log
 * lines (static string). key: the job key, copied. 0, or -1 (nothing
 * sent; c is still the caller's). */
int plug_auth_accept(pxc_conn_t *c, const char *what, const char *key, plug_auth_admit_f admit,
		     pxc_conn_msg_f on_msg, pxc_conn_close_f on_close, void *arg);

/* The same for a freshly connected c: waits for CHALLENGE, answers with
 * claim, checks AUTH_OK, then calls ready. 0, or -1 (c is still the
 * caller's). */
int plug_auth_connect(pxc_conn_t *c, const char *what, const char *key,
		      const plug_auth_claim_t *claim, plug_auth_ready_f ready,
		      pxc_conn_msg_f on_msg, pxc_conn_close_f on_close, void *arg);

/* The MAC of a handshake: role 'C' (connector) or 'A' (acceptor). */
void plug_auth_mac(const char *key, char role, const unsigned char nonce_a[PLUG_AUTH_NONCE],
		   const unsigned char nonce_c[PLUG_AUTH_NONCE], const plug_auth_claim_t *claim,
		   unsigned char out[PLUG_AUTH_MAC]);

/* The connector's side on a blocking socket (a step daemon's report that
 * the step could not be set up, from its job manager thread), bounded by
 * deadline (pxc_now_ms() time). 0 once the acceptor proved the key too;
 * -1 with errno (EACCES: a failed handshake, logged). Any thread. */
int plug_auth_connect_fd(int fd, const char *what, const char *key, const plug_auth_claim_t *claim,
			 long deadline);

/* For a connector that reads its frames itself (srun's tool relay): the
 * AUTH payload answering nonce_a, with a fresh nonce_c (written). 0/-1. */
int plug_auth_answer(const char *key, const plug_auth_claim_t *claim,
		     const unsigned char nonce_a[PLUG_AUTH_NONCE],
		     unsigned char nonce_c[PLUG_AUTH_NONCE], unsigned char msg[PLUG_AUTH_MSG]);
/* True when mac is the acceptor's MAC of that handshake. */
int plug_auth_acceptor_ok(const char *key, const plug_auth_claim_t *claim,
			  const unsigned char nonce_a[PLUG_AUTH_NONCE],
			  const unsigned char nonce_c[PLUG_AUTH_NONCE],
			  const unsigned char mac[PLUG_AUTH_MAC]);

/* n random bytes (getrandom). 0/-1. */
int plug_auth_random(unsigned char *out, size_t n);

#endif
