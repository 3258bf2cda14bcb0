/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/transport.h - messages between the step daemons of a job. The
 * transport knows no feature: a feature (fences, direct modex, lost
 * ranks, events, the endpoint exchange) registers the message kinds it
 * handles (lib/proto.h) with a message callback, a peer-lost callback,
 * a start and a stop callback, the way the server's handlers[] table and
 * srun's agent work.
 *
 * Peers: each node of the step is a peer, named by its node index; the
 * step daemons of other steps of the job get peer ids of their own
 * (plug_net_peer). A connection to a peer is made when the first message
 * for it is sent; messages wait in a queue until the endpoint table has
 * arrived (plug_net_table_in, from net/boot.c) and the connection is up.
 * Every connection starts with HELLO (job key, node id, step id); a
 * connection whose first message is anything else, or carries a wrong
 * key, is closed with a log line. Both directions may exist for a pair;
 * messages are accepted on either. The complete table also goes down
 * the tree of all nodes (TABLE), and the root hands it to srun
 * (STEPTABLE) for the step file other steps read.
 *
 * Failure: a peer that cannot be reached (no endpoint, a refused or
 * timed-out connect, a closed connection) is reported to every user's
 * peer-lost callback, always from the event loop, never from inside the
 * call that found it out: plug_net_send never re-enters its caller. A
 * stepd that stops normally says BYE on each of its connections first,
 * so that its peers can tell its end from a failure
 * (plug_net_peer_ended).
 *
 * Threads: plug_net_create, _register, _start, _stop and _destroy run in
 * one thread of the host (slurmstepd's job manager thread), never in the
 * progress thread; everything else, and every callback, runs in the
 * progress thread of the engine given at create.
 */
#ifndef PLUG_NET_TRANSPORT_H
#define PLUG_NET_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "pxc_host.h"

typedef struct plug_net plug_net_t;

typedef struct {
	pxc_progress_t *pg;     /* the engine whose thread owns everything */
	const char *key;        /* the job key (lib/key.h), copied */
	uint32_t job, step;     /* this step */
	uint32_t me, nnodes;    /* this node's index, the step's node count */
	uint32_t width;         /* TreeWidth: the tree of all nodes */
	const char *route_host; /* listen on the address this node reaches
				 * that host from (srun's), copied */
	uint16_t srun_port;     /* the root hands the table to srun's agent
				 * at route_host:srun_port; 0: to nobody */
} plug_net_args_t;

/* What a feature gives the transport; copied by plug_net_register. Any
 * callback may be NULL. msg gets the messages of kinds first..last
 * (first 0: none) from an authenticated peer; `in` is positioned at the
 * payload and owned by the transport. peer_lost: the peer is unreachable
 * (fail what depends on it). start: the network is up (progress thread).
 * stop: the network is going down (fail what is pending; send nothing).
 * handover: a fresh connection whose first message is of kind
 * handover_cmd (a range of its own, not first..last) instead of HELLO
 * leaves the transport: the message's payload starts with the job key,
 * checked here (a bad one drops the connection, logged); handover gets
 * a descriptor of the socket (its own, close-on-exec, non-blocking) and
 * `in` positioned after the key. Nothing after that message may have
 * been sent yet (it would be lost): the other side waits for an answer
 * on the raw socket first. */
typedef struct {
	const char *name; /* for log lines */
	uint16_t first, last;
	uint16_t handover_cmd;
	void (*handover)(void *arg, int fd, pmix_data_buffer_t *in);
	void (*msg)(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
	void (*peer_lost)(void *arg, uint32_t peer);
	void (*start)(void *arg);
	void (*stop)(void *arg);
	void *arg;
} plug_net_user_t;

/* Makes a transport and binds its TCP listener (nothing runs yet).
 * Returns it, or NULL (logged). */
plug_net_t *plug_net_create(const plug_net_args_t *a);
/* Adds a user, before plug_net_start. 0, or -1 (kinds overlap another
 * user's or the transport's own, or too many users). */
int plug_net_register(plug_net_t *n, const plug_net_user_t *u);
/* Starts listening in the progress thread, then calls every user's start
 * there. 0/-1. */
int plug_net_start(plug_net_t *n);
/* Calls every user's stop, closes every connection and the listener,
 * drops what waits; at most 10 s. Idempotent; n may be NULL. */
void plug_net_stop(plug_net_t *n);
/* Stops (if not yet) and frees n; n may be NULL. Until then n stays
 * valid (a stopped transport refuses to send), so call it once nothing
 * can reach n any more: the progress engine has stopped, or nothing else
 * holds n. */
void plug_net_destroy(plug_net_t *n);

/* True when peer's stepd said BYE (it stopped normally): its lost
 * connections are no failure of that node. Progress thread. */
bool plug_net_peer_ended(const plug_net_t *n, uint32_t peer);
/* The listener's address and port (for the endpoint records). */
const char *plug_net_addr(const plug_net_t *n);
uint16_t plug_net_port(const plug_net_t *n);
/* This node's index, node count, step id, TreeWidth, event base. */
uint32_t plug_net_me(const plug_net_t *n);
uint32_t plug_net_nnodes(const plug_net_t *n);
uint32_t plug_net_step(const plug_net_t *n);
uint32_t plug_net_width(const plug_net_t *n);
struct event_base *plug_net_base(const plug_net_t *n);

/* The complete endpoint table (net/boot.h's format), at most once: taken,
 * sent on to this node's children in the tree of all nodes, and, when
 * to_srun, handed to srun. Progress thread. */
void plug_net_table_in(plug_net_t *n, const pmix_data_buffer_t *table, bool to_srun);
/* True once this node has the complete table. Any thread. */
bool plug_net_table_seen(plug_net_t *n);
/* There will be no table: every peer of the step is lost (logged once).
 * A no-op once the network stops. Progress thread. */
void plug_net_table_failed(plug_net_t *n, const char *why);

/* Queues a message to peer `to` (payload may be NULL: empty). 0, or -1
 * when it cannot even be queued (network down, unknown peer, oneself,
 * out of memory): then no callback reports it either. Progress thread. */
int plug_net_send(plug_net_t *n, uint32_t to, uint16_t cmd, uint32_t tag,
		  const pmix_data_buffer_t *payload);
/* Bytes waiting to go to peer `to` (queued for its connection, or in
 * the connection's own queue); 0 for an unknown peer. Progress thread. */
size_t plug_net_queued(const plug_net_t *n, uint32_t to);
/* Sends to every neighbour of this node in the tree of all nodes but
 * `except` (PLUG_TREE_NONE: none); a no-op when the network is down.
 * Progress thread. */
void plug_net_flood(plug_net_t *n, uint16_t cmd, uint32_t except,
		    const pmix_data_buffer_t *payload);
/* The peer id of node `node` of step `step` of the job (this step's own
 * nodes are their index), made on first use; addr/port (NULL/0: unknown
 * yet, e.g. known from its HELLO only) fill in what is missing.
 * UINT32_MAX when out of memory or too many. Progress thread. */
uint32_t plug_net_peer(plug_net_t *n, uint32_t step, uint32_t node, const char *addr,
		       uint16_t port);

#endif
