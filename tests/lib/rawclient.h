/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawclient.h - a client of the server under test that speaks the wire
 * protocol by hand (frame.h headers, proto.h commands, pack.h payloads).
 *
 * Unlike the client library, a raw client can send anything: broken
 * frames, requests out of order, a proc's data under another's name. It
 * reads with a poll timeout, so a server that never answers fails the
 * test instead of hanging it. Connections are plain file descriptors the
 * test owns and closes.
 *
 * Every function here runs in the test's thread and asserts what must not
 * fail (connect, a frame header that decodes): a failure ends the test.
 * Functions that take a pmix_data_buffer_t to send consume it (cleared
 * after sending); buffers they fill are the caller's to clear.
 */
#ifndef UNIT_RAWCLIENT_H
#define UNIT_RAWCLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "store.h"
#include "frame.h"
#include "proto.h"

/* A new connection to the server's socket; returns its fd. */
int rc_connect(void);
/* Writes all n bytes of b, or stops quietly when the peer closed (the
 * test checks that later). */
void write_all(int fd, const void *b, size_t n);
/* Sends one frame (cmd, tag) with b as payload (b may be NULL: empty). */
void rc_send(int fd, uint16_t cmd, uint32_t tag, pmix_data_buffer_t *b);
/* Reads one frame into h and b (initialized here); returns 0, or -1 on
 * timeout (ms) or EOF. */
int rc_recv(int fd, pxc_wire_hdr_t *h, pmix_data_buffer_t *b, int ms);
/* Waits for the reply with tag, skipping events; returns its status and
 * leaves b after it (the caller clears b). */
pmix_status_t rc_reply(int fd, uint32_t tag, pmix_data_buffer_t *b);
/* True when the server closes fd within a few reads (a refusal reply may
 * come first). */
bool rc_closed(int fd);
/* Fills b (initialized here) with a HELLO payload: kind, ns:rank, this
 * pid and info[0..ninfo). */
void pack_hello_info(pmix_data_buffer_t *b, uint8_t kind, const char *ns, pmix_rank_t rank,
		     const pmix_info_t *info, size_t ninfo);
/* pack_hello_info without info. */
void pack_hello(pmix_data_buffer_t *b, uint8_t kind, const char *ns, pmix_rank_t rank);
/* Connects and says HELLO as client NS:rank, asserting the reply's status
 * is want; on success checks the identity and unpacks the job blob into
 * job (may be NULL). Returns the fd. */
int rc_hello(pmix_rank_t rank, pmix_status_t want, pxc_store_t *job);
/* A fresh connection that says HELLO as kind ns:rank and gets want;
 * returns the fd. */
int rc_hello_kind(uint8_t kind, const char *ns, pmix_rank_t rank, pmix_status_t want);
/* COMMIT of one record key=val (a string) of NS:rank with scope. */
void rc_commit(int fd, pmix_rank_t rank, const char *key, const char *val, uint8_t scope);
/* Fills b (initialized here) with procs[0..n) then info[0..ninfo). */
void pack_procs_info(pmix_data_buffer_t *b, const pmix_proc_t *procs, size_t n,
		     const pmix_info_t *info, size_t ninfo);
/* Sends a FENCE over the whole job, collecting data when collect, with a
 * PMIX_TIMEOUT (seconds) when timeout is not 0. */
void rc_fence_send(int fd, uint32_t tag, bool collect, int timeout);
/* Reads a BLOB field of b into a new store (the caller destroys it). */
pxc_store_t *blob_store(pmix_data_buffer_t *b);
/* Sends a GET of key of ns:rank without waiting for the reply. */
void rc_get_send(int fd, uint32_t tag, const char *ns, pmix_rank_t rank, const char *key);
/* GET of key of ns:rank; returns the reply's status and, when out is not
 * NULL, the reply's records as a new store (NULL unless success). */
pmix_status_t rc_get(int fd, uint32_t tag, const char *ns, pmix_rank_t rank, const char *key,
		     pxc_store_t **out);
/* Sends a QUERY of key, qualified by PMIX_NSPACE nsq when not NULL,
 * without waiting for the reply. */
void send_query(int fd, uint32_t tag, const char *key, const char *nsq);
/* Sends a GET_CRED (cred NULL) or a VALIDATE_CRED of cred with
 * info[0..ninfo) as directives, without waiting for the reply. */
void rc_cred_send(int fd, uint32_t tag, const pmix_byte_object_t *cred, const pmix_info_t *info,
		  size_t ninfo);
/* Reads the next frame (5 s at most), which must be an EVENT of code from
 * ns:rank. */
void rc_expect_event(int fd, pmix_status_t code, const char *ns, pmix_rank_t rank);
/* Registers fd's client for codes[0..n) (REGEVENTS, tag 90). */
void rc_regevents(int fd, const pmix_status_t *codes, size_t n);

#endif
