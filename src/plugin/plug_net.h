/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_net.h - messages between the step daemons of one step (the
 * transport under plug_coll.c and plug_dmdx.c), and the rendezvous in srun
 * through which they learn each other's endpoints.
 *
 * Bootstrap (why not Slurm's forwarding RPC): srun exists before any
 * stepd starts, so a small agent in srun (plug_rdv.c) removes every
 * start-up race that slurm_forward_data would need retries for, and it
 * hands every stepd the whole endpoint table, which direct modex needs
 * anyway (a request goes straight to the node owning the rank, not along
 * the tree). srun puts its port and a fresh 128-bit step key in the launch
 * environment (SLURMIX_SRUN_PORT, SLURMIX_STEP_KEY); each stepd listens on
 * an ephemeral TCP port on the address it reaches srun's host from
 * (SLURM_SRUN_COMM_HOST), registers "node id, address, port" with srun, and
 * gets the table once every node has registered. Cost: one connection per
 * node at srun and a table of N entries to each of N nodes - fine for
 * thousands of nodes; a forwarding-RPC bootstrap can replace it later.
 *
 * Peers: a connection to a peer is made when the first message for it is
 * sent (messages wait in a queue until the table has arrived and the
 * connection is up). Every connection starts with HELLO (step key, node
 * id); a connection whose first message is anything else, or carries a
 * wrong key, is closed with a log line. Both directions may exist for a
 * pair; messages are accepted on either.
 *
 * Threads: everything runs in the process's one progress thread (the
 * PMIx server's, pxc_progress_global()), like the server's own host
 * calls. plug_net_start/stop are called from the job manager thread and
 * post their work there.
 */
#ifndef PLUG_NET_H
#define PLUG_NET_H

#include <stdint.h>
#include <pmix_common.h>
#include "frame.h"

#define PLUG_KEY_ENV "SLURMIX_STEP_KEY"
#define PLUG_SRUN_PORT_ENV "SLURMIX_SRUN_PORT"
#define PLUG_KEY_LEN 32		/* hex characters */

/* Commands between stepds (and srun). */
enum {
	PLUG_NET_HELLO = 1,	/* key, node id */
	PLUG_NET_REGISTER = 2,	/* stepd -> srun: key, node id, addr, port */
	PLUG_NET_TABLE = 3,	/* srun -> stepd: n, n x (addr, port) */
	PLUG_NET_ABORT = 4,	/* stepd -> srun, own connection: key, node id,
				 * rank, status (int32), host, message */
	PLUG_NET_ABORT_ACK = 5,	/* srun -> stepd: empty; srun kills the step */
	PLUG_NET_FANIN = 10,	/* coll: sig, seq, status, raw blob */
	PLUG_NET_FANOUT = 11,	/* coll: sig, seq, status, raw blob */
	PLUG_NET_DMDX_REQ = 20,	/* tag = request id: rank */
	PLUG_NET_DMDX_RESP = 21,	/* tag = request id: status, raw blob */
	PLUG_NET_LOST = 30,	/* a task left without finalizing: rank, status;
				 * flooded over the tree of all nodes */
};

/* Starts the stepd side: listener, registration with srun. env: the
 * step's environment. Job manager thread, after PMIx_server_init. 0/-1. */
int plug_net_start(uint32_t me, uint32_t nnodes, char **env);
/* Closes every connection, fails what is pending (PMIX_ERR_UNREACH),
 * waits for that at most a few seconds. Idempotent; not from the
 * progress thread. */
void plug_net_stop(void);
/* This node's index. */
uint32_t plug_net_me(void);
/* Queues a message to node `to` (progress thread). payload may be NULL.
 * 0, or -1 (the peer is unreachable: the caller fails its operation). */
int plug_net_send(uint32_t to, uint16_t cmd, uint32_t tag,
		  const pmix_data_buffer_t *payload);
/* The event base (progress thread). */
struct event_base *plug_net_base(void);
/* Sends to every neighbour of this node in the tree of all nodes but
 * `except` (PLUG_TREE_NONE: none); a no-op when the network is down.
 * Progress thread. */
void plug_net_flood(uint16_t cmd, uint32_t except, const pmix_data_buffer_t *payload);

/* Upcalls from plug_net into plug_coll.c / plug_dmdx.c (progress thread). */
void plug_coll_msg(uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
void plug_coll_peer_lost(uint32_t node);
void plug_coll_stop(void);
void plug_dmdx_msg(uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
void plug_dmdx_peer_lost(uint32_t node);
void plug_dmdx_stop(void);
void plug_lost_msg(uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

/* srun side (plug_rdv.c): starts the rendezvous for nnodes stepds of
 * step job.step and sets the two variables in env. The listener stays
 * open until plug_rdv_stop for ABORT reports: srun prints the first one
 * ("srun: slurmix: rank R (host) called PMIx_Abort: msg"), acknowledges
 * it and kills the step. 0/-1. */
int plug_rdv_start(uint32_t nnodes, uint32_t job, uint32_t step, char ***env);
/* Stops it (srun's client_fini). Returns the exit code srun must use: the
 * status of the first PMIx_Abort (1 when it does not fit 1..255), or 0
 * when nothing aborted. Idempotent. */
int plug_rdv_stop(void);

/* Constant-time comparison of two keys of PLUG_KEY_LEN characters. */
int plug_key_ok(const char *a, const char *b);

#endif
