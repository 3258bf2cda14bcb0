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
