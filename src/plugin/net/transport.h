/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_net.h - messages between the step daemons of one step (the
 * transport under plug_coll.c and plug_dmdx.c), how they learn each
 * other's endpoints, and the agent in srun.
 *
 * Bootstrap (plug_boot.h): each stepd listens on an ephemeral TCP port on
 * the address it reaches srun's host from (SLURM_SRUN_COMM_HOST); the
 * records "node id, address, port" go up the tree of the step's nodes
 * through Slurm's forwarding RPC, and the complete table comes down the
 * same tree over the direct connections (TABLE). The root also hands it
 * to srun (STEPTABLE), which writes the step file other steps read. srun
 * puts its port and the job's 128-bit key in the launch environment
 * (SLURMIX_SRUN_PORT, SLURMIX_STEP_KEY); besides the table its agent
 * takes abort reports and requests (plug_rdv.c). Every node gets the
 * whole table, which direct modex needs (a request goes straight to the
 * node owning the rank, not along the tree).
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
	PLUG_NET_STEPTABLE = 2,	/* root stepd -> srun: key, then a TABLE's
				 * payload (for the step file) */
	PLUG_NET_TABLE = 3,	/* stepd -> its children in the tree of all
				 * nodes: n, n x (addr, port) (plug_boot.h) */
	PLUG_NET_ABORT = 4,	/* stepd -> srun, own connection: key, node id,
				 * rank, status (int32), host, message */
	PLUG_NET_ABORT_ACK = 5,	/* srun -> stepd: empty; srun kills the step */
	PLUG_NET_FANIN = 10,	/* coll: sig, seq, status, raw blob */
	PLUG_NET_FANOUT = 11,	/* coll: sig, seq, status, raw blob */
	PLUG_NET_DMDX_REQ = 20,	/* tag = request id: rank, u32 timeout
				 * (the request's own, s; 0: none) */
	PLUG_NET_DMDX_RESP = 21,	/* tag = request id: status, raw blob */
	PLUG_NET_LOST = 30,	/* a task left without finalizing: rank, status;
				 * flooded over the tree of all nodes */
	PLUG_NET_EVENT = 31,	/* PMIX_ERR_INVALID_TERMINATION for a stepd's
				 * clients (plug_event.c): PROC source,
				 * PROC[] procs */
	/* stepd -> srun requests (docs/dynamic.md section 2), one fresh
	 * connection each: cmd = the request, tag = request id, payload =
	 * job key (string) + the request's own payload; srun answers one
	 * PLUG_NET_REPLY with the same tag (status + reply payload). */
	PLUG_NET_STEPINFO = 40,	/* nspace -> the step file (plug_rdv.c) */
	PLUG_NET_PUBLISH = 41,	/* proc, INFO[] -> (plug_pub.c) */
	PLUG_NET_LOOKUP = 42,	/* proc, STRING[] keys, INFO[] -> PDATA[] */
	PLUG_NET_UNPUBLISH = 43,	/* proc, STRING[] keys, INFO[] -> */
	PLUG_NET_SPAWN = 44,	/* proc, INFO[], APP[], u32 flags (1: overlap),
				 * u32 timeout -> nspace (plug_spawn.c) */
	PLUG_NET_SPAWN_WAIT = 45,	/* u32 step -> int32 exit code, when the
					 * spawned step's srun has ended */
	PLUG_NET_SPAWN_STEP = 46,	/* child srun -> parent srun: u32 spawn
					 * id, job, step -> */
	PLUG_NET_SPAWN_READY = 47,	/* child srun -> parent srun: u32 spawn
					 * id, step -> */
	PLUG_NET_SPAWN_NODE = 48,	/* child stepd -> its srun: u32 node:
					 * every local task has started -> */
	PLUG_NET_REQ_LAST = 59,	/* 40..59: requests */
	PLUG_NET_REPLY = 60,	/* srun -> stepd: status, reply payload */
};

/* Starts the stepd side: listener, the endpoint exchange (plug_boot.h).
 * hosts: the step's node names in step order (borrowed until stop); env:
 * the step's environment. Job manager thread, after PMIx_server_init.
 * 0/-1. */
int plug_net_start(uint32_t me, uint32_t nnodes, char *const *hosts, char **env);
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
/* Peers of other steps of the job (connect, fences across namespaces):
 * the peer id (for plug_net_send) of node `node` of step `step`, made on
 * first use; addr/port (NULL/0: unknown yet, e.g. known from its HELLO
 * only) fill in what is missing. This step's own nodes are their node
 * index. UINT32_MAX when out of memory or too many. HELLO carries the
 * sender's step id for this. Progress thread. */
uint32_t plug_net_peer(uint32_t step, uint32_t node, const char *addr, uint16_t port);
/* This step's id. */
uint32_t plug_net_step(void);
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
void plug_event_msg(uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

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

/* ---- requests from a stepd to its srun (docs/dynamic.md section 2) ----
 *
 * srun side (plug_rdv.c, srun's progress thread): a handler per command,
 * registered before plug_rdv_start (srun's main thread) - e.g. the spawn
 * module calls plug_rdv_register_handler(PLUG_NET_SPAWN, fn) from
 * plug_srun_prelaunch. The handler gets the request (key already checked,
 * `in` positioned after it) and must answer it exactly once with
 * plug_rdv_reply, at once or later from the progress thread; it is also
 * told to stop through its stop hook (answer what is pending there, e.g.
 * PMIX_ERR_UNREACH). STEPINFO is built in; PUBLISH/LOOKUP/UNPUBLISH are
 * plug_pub.c's. A request without a handler gets PMIX_ERR_NOT_SUPPORTED. */
typedef struct plug_rdv_req plug_rdv_req_t;
typedef void (*plug_rdv_handler_f)(plug_rdv_req_t *req, pmix_data_buffer_t *in);
typedef void (*plug_rdv_stop_f)(void);
/* 0, or -1 (cmd outside 40..59, or already taken). stop may be NULL. */
int plug_rdv_register_handler(uint16_t cmd, plug_rdv_handler_f fn, plug_rdv_stop_f stop);
/* Answers req (payload may be NULL) and frees it. A requester that has
 * gone meanwhile is simply not answered. Progress thread. */
void plug_rdv_reply(plug_rdv_req_t *req, pmix_status_t st,
		    const pmix_data_buffer_t *payload);
/* True when the requesting stepd has closed its connection. */
int plug_rdv_req_gone(const plug_rdv_req_t *req);
/* srun's progress thread's event base (valid once plug_rdv_start ran). */
struct event_base *plug_rdv_base(void);
/* The job and step of this srun. */
uint32_t plug_rdv_job(void);
uint32_t plug_rdv_step(void);
/* This srun's step: node list and process map text ("" until known). */
const char *plug_rdv_nodelist(void);
const char *plug_rdv_map(void);
/* What goes into step.<stepid> besides the endpoints: the step's node
 * list (Slurm hostlist) and process map (plug_map.h text). Call before
 * plug_rdv_start; copies. */
void plug_rdv_set_step(const char *nodelist, const char *map);

/* stepd side (plug_req.c, progress thread): sends one request to the
 * step's srun on a connection of its own and calls cb once, in the
 * progress thread: the reply's status and payload (positioned after the
 * status; NULL unless PMIX_SUCCESS), or PMIX_ERR_UNREACH (srun gone or
 * unreachable), PMIX_ERR_TIMEOUT (no answer in timeout_sec; 0 means
 * SlurmixTimeout). Returns 0 (cb will run, never from inside this call),
 * or -1 (cb will not run). */
typedef void (*plug_srun_cb_f)(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata);
int plug_srun_request(uint16_t cmd, const pmix_data_buffer_t *payload,
		      uint32_t timeout_sec, plug_srun_cb_f cb, void *cbdata);
/* Reads srun's address and the job key from the launch env (prefork,
 * before the server runs). 0/-1. */
int plug_req_init(char **env);
/* Fails what is pending with PMIX_ERR_UNREACH (not from the progress
 * thread; before PMIx_server_finalize). */
void plug_req_stop(void);

/* Constant-time comparison of two keys of PLUG_KEY_LEN characters. */
int plug_key_ok(const char *a, const char *b);

#endif
