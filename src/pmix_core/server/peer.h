/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer.h - one connection from a client or a tool (peer.c): accepting it,
 * finding it by id, replying on it, dropping it. The request handlers'
 * table that dispatches its messages is in peer.c. Progress thread only.
 */
#ifndef PXC_SERVER_PEER_H
#define PXC_SERVER_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_common.h>

typedef struct pxc_peer pxc_peer_t;

/* Limits on what a local process controls (server init info, UINT32;
 * docs/limits.md), each hit refused to that peer only:
 *   PXC_SERVER_MAX_PEERS    connections held at once (clients, tools,
 *                           reply channels, ones not past HELLO): a new
 *                           one beyond it is closed at once (1024);
 *   PXC_SERVER_MAX_PENDING  requests of one connection waiting for the
 *                           host (notifications not counted: their bytes
 *                           are bounded, evqueue.h): one more is answered
 *                           PMIX_ERR_OUT_OF_RESOURCE (65536);
 *   PXC_SERVER_MAX_MESSAGE  bytes of one message's payload: a larger one
 *                           closes the connection (256 MiB, at least 64 KiB);
 *   PXC_SERVER_HELLO_MS     a connection that has not said HELLO by then
 *                           is closed (10000 ms). */
#define PXC_SERVER_MAX_PEERS "slurmix.srv.max.peers"
#define PXC_SERVER_MAX_PENDING "slurmix.srv.max.pending"
#define PXC_SERVER_MAX_MESSAGE "slurmix.srv.max.message"
#define PXC_SERVER_HELLO_MS "slurmix.srv.hello.ms"

/* From the init infos (server.c). */
void pxc_peer_config(uint32_t max_peers, uint32_t max_pending, uint32_t max_message,
		     uint32_t hello_ms);
/* Whether p may start one more request waiting for the host; counts it
 * when so (pxc_peer_request_done uncounts it). Logs the first refusal
 * of each connection. */
bool pxc_peer_request_ok(pxc_peer_t *p);
void pxc_peer_request_done(uint64_t peer_id);

/* Takes a connection the listener accepted: reads its credentials and
 * gives it to the progress thread's event base; on failure fd is closed. */
void pxc_peer_accept(int fd);
/* For a host (pxc_host.h): takes fd, a stream connection that the host
 * accepted and authenticated itself (srun's tool proxy: the tool's
 * credentials as the proxy read them), as a peer whose credentials are
 * uid/gid/pid. It may only become a tool (or a tool's reply channel):
 * a client's HELLO on it is refused. Progress thread; fd is the server's
 * from here on (closed on failure). 0, or -1 (no tool support, not
 * running). */
int pxc_server_tool_adopt(int fd, uid_t uid, gid_t gid, pid_t pid);
/* For the server's PMI bridge (pmi.c): takes fd, its end of a socketpair
 * on which the bridge speaks for a registered client, as a peer whose
 * credentials are uid/gid/pid (the client's, not this process's). pid may
 * be 0 (unknown). Progress thread; fd is the server's from here on
 * (closed on failure). 0, or -1 (not running). */
int pxc_peer_adopt_client(int fd, uid_t uid, gid_t gid, pid_t pid);
/* The connected peer with this id, or NULL. */
pxc_peer_t *pxc_peer_find(uint64_t id);
/* Closes and frees a peer (state cleanup included). Progress thread. */
void pxc_peer_drop(pxc_peer_t *p, bool flush);
/* Sends a reply: STATUS status followed by the bytes of body (may be NULL). */
int pxc_peer_reply(pxc_peer_t *p, uint16_t cmd, uint32_t tag, pmix_status_t status,
		   const pmix_data_buffer_t *body);
/* Same, to a peer named by id; silently dropped when gone. */
void pxc_peer_reply_id(uint64_t peer_id, uint16_t cmd, uint32_t tag, pmix_status_t status,
		       const pmix_data_buffer_t *body);
/* Sends msg, a whole reply payload (STATUS first), to a peer named by id;
 * silently dropped when gone. */
void pxc_peer_send_id(uint64_t peer_id, uint16_t cmd, uint32_t tag, const pmix_data_buffer_t *msg);
/* Sends an EVENT message to a peer's first connection and counts it for
 * the event mark of its next reply-channel reply (proto.h). 0 or -1. */
int pxc_peer_send_event(pxc_peer_t *p, const pmix_data_buffer_t *msg);
/* The same for one handler of the peer (tag: its id; proto.h, EVENT). */
int pxc_peer_send_event_tag(pxc_peer_t *p, uint32_t tag, const pmix_data_buffer_t *msg);
/* Packs a byte object holding the bytes of blob (a store blob) into out. */
pmix_status_t pxc_pack_blob(pmix_data_buffer_t *out, const pmix_data_buffer_t *blob);

#endif
