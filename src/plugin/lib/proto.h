/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/proto.h - the message kinds of the plugin's own connections, in
 * one list so that no two features take the same number: between the
 * step daemons of a job (net/transport.h carries them and knows none of
 * them: each feature registers the kinds it handles), and from a step
 * daemon (or a child srun) to the job's srun (srun/agent.h, the same
 * way). Frames are the core's (wire/frame.h): cmd = the kind, tag = a
 * request id where the kind says so.
 *
 * Every connection to a step daemon starts with PLUG_NET_HELLO; every
 * connection to srun's agent carries the job key first (lib/key.h).
 */
#ifndef PLUG_LIB_PROTO_H
#define PLUG_LIB_PROTO_H

#define PLUG_SRUN_PORT_ENV "SLURMIX_SRUN_PORT" /* srun's agent, launch env */
#define PLUG_STEP_ENV "SLURMIX_STEP"           /* "<jobid>.<stepid>", set by srun */
/* The user's, per step: "push" keeps the tasks' stdin open for
 * PMIx_IOF_push past the end of srun's input (docs/iof.md). */
#define PLUG_STDIN_ENV "SLURMIX_STDIN"
/* Per step, set by a parent srun for a spawned step: how its step
 * daemons write the tasks' output to srun, a comma list of "tag"
 * ([nspace,rank]<stdout>: before each line), "timestamp", "merge"
 * (stderr into stdout) and "xml" (docs/iof.md, "Spawned steps'
 * output"). */
#define PLUG_IOF_FORMAT_ENV "SLURMIX_IOF_FORMAT"
/* Per spawned step (PMIX_OUTPUT_TO_DIRECTORY): the absolute directory
 * in which its step daemons make "<nspace>/rank.<N>/" for their ranks
 * (N zero-padded to plug_rank_width digits) before Slurm opens the
 * files there. */
#define PLUG_IOF_DIR_ENV "SLURMIX_IOF_DIR"

/* PMIx_Spawn (srun/spawn.h, docs/dynamic.md section 3). */
/* Environment of a child srun (set by the parent srun). */
#define PLUG_SPAWN_AGENT_ENV "SLURMIX_SPAWN_AGENT" /* parent srun's port */
#define PLUG_SPAWN_ID_ENV "SLURMIX_SPAWN_ID"       /* request number */
#define PLUG_SPAWN_KEY_ENV "SLURMIX_SPAWN_KEY"     /* parent srun's key */
#define PLUG_SPAWN_PARENT_ENV "SLURMIX_PARENT"     /* "<nspace>:<rank>" */
#define PLUG_SPAWN_SEP_ENV "SLURMIX_SPAWN_SEP"     /* "1": PMIX_SPAWN_CHILD_SEP */

/* A PMIx_Abort of procs of another step travels as an EVENT_FWD
 * (PMIX_ERR_PROC_REQUESTED_ABORT, source: the caller, CUSTOM range: the
 * procs, PMIX_EXIT_CODE: the status) with these infos (stepd/abort.c). */
#define PLUG_ABORT_KILL_KEY "slurmix.abort.kill" /* bool: abort them */
#define PLUG_ABORT_MSG_KEY "slurmix.abort.msg"   /* string: the message */
/* An EVENT_FWD with this info (UINT32 milliseconds, 1 .. 3,600,000) is a
 * synchronous event (net/event.c): the receiving stepd answers once its
 * recipients' handler chains ended or that time passed, with an
 * EVENT_ACK that says more (below). */
#define PLUG_EVENT_SYNC_KEY "slurmix.ev.sync.ms"
/* The parent step's node list and process map (plug_map text), so that a
 * child stepd knows how many of the parent's tasks share its node. */
#define PLUG_SPAWN_PARENT_NODES_ENV "SLURMIX_PARENT_NODES"
#define PLUG_SPAWN_PARENT_MAP_ENV "SLURMIX_PARENT_MAP"
#define PLUG_SPAWN_NONPMI_ENV "SLURMIX_SPAWN_NONPMI"   /* "1" */
#define PLUG_SPAWN_CWD_ENV "SLURMIX_SPAWN_SESSION_CWD" /* "1" */
/* Launch environment of the child's stepds (set by the child srun). */
#define PLUG_SPAWNED_ENV "SLURMIX_SPAWNED" /* "1" */

enum {
	/* the transport's own (net/transport.c) */
	PLUG_NET_HELLO = 1,     /* key, node id, step id */
	PLUG_NET_STEPTABLE = 2, /* root stepd -> srun: key, then a TABLE's
				 * payload (for the step file) */
	PLUG_NET_TABLE = 3,     /* stepd -> its children in the tree of all
				 * nodes: n, n x (addr, port) (net/boot.h) */
	/* abort (stepd/abort.c -> srun/abort.c), own connection */
	PLUG_NET_ABORT = 4,     /* key, node id, rank, status (int32), host,
				 * message[, UINT32 n, n ranks: the ranks
				 * of the step to abort; without them the
				 * whole step] */
	PLUG_NET_ABORT_ACK = 5, /* srun -> stepd: empty; srun kills the
				 * step (not for a list of ranks) */
	PLUG_NET_BYE = 6,       /* the transport's own: empty, sent on each
				 * connection when a stepd stops normally:
				 * the close that follows is no loss */
	/* collectives (net/coll.c) */
	PLUG_NET_FANIN = 10,   /* sig, seq, status, raw blob */
	PLUG_NET_FANOUT = 11,  /* sig, seq, status, raw blob */
	PLUG_NET_CONTRIB = 12, /* sig, seq, status, raw blob: a node's own
				* part of an optional connect or disconnect,
				* sent to every other participant node */
	/* job control (stepd/jobctl.c) */
	PLUG_NET_JOBCTL = 13,     /* tag = request id: STRING the receiver's
				   * nspace (else NOT_FOUND), INT32 signal, u32 grace
				   * ms (then SIGKILL; 0: none), u32 n, n x u32
				   * rank (UINT32_MAX: every rank of the node),
				   * then (absent: a signal) UINT8 kind
				   * (stepd/jobact.h; signal 0 unless a signal),
				   * PROC requestor, STRING label, u32 wait ms (not
				   * 0 for a pause or a checkpoint), STRING
				   * checkpoint id */
	PLUG_NET_JOBCTL_ACK = 14, /* tag = request id: STATUS */
	/* direct modex (net/dmodex.c) */
	PLUG_NET_DMODEX_REQ = 20,  /* tag = request id: rank, u32 timeout
					 * (the request's own, s; 0: none) */
	PLUG_NET_DMODEX_RESP = 21, /* tag = request id: status, raw blob */
	/* IO forwarding between nodes (net/iof.c) */
	PLUG_NET_IOF_SUB = 22,   /* tag = request id: u32 n, n x (u32 rank, u16
				  * channels): send me these streams of this
				  * node's tasks, their history first */
	PLUG_NET_IOF_READY = 23, /* tag = request id: empty: the history of
				  * that request went before this */
	PLUG_NET_IOF_DATA = 24,  /* u32 rank, u16 channel, BOOL complete,
				  * UINT64 dropped, BYTE_OBJECT bytes: what a
				  * task wrote */
	/* the step's end for its tools (net/stepend.c) */
	PLUG_NET_EXITS = 25,    /* -> node 0, once every task of the node has
				 * exited (or at the stepd's end): u32 the
				 * rank of the highest exit code (UINT32_MAX:
				 * none failed), u32 that code (or 128 +
				 * signal), u32 tasks whose end is unknown */
	PLUG_NET_PIDS_REQ = 26, /* empty: your tasks' pids, please (a tool
				 * attached here) */
	PLUG_NET_PIDS = 27,     /* u32 n, n x (u32 rank, u32 pid): the
				 * answer */
	/* stdin pushes (net/push.c) */
	PLUG_NET_STDIN = 28,     /* tag = push id: STRING nspace, u32 n
				  * (UINT32_MAX: every rank of the node), n
				  * x u32 rank, BOOL complete, BYTE_OBJECT
				  * bytes: into these tasks' stdin */
	PLUG_NET_STDIN_ACK = 29, /* tag = push id: STATUS, once the tasks'
				  * stdin took the bytes (or refused them) */
	/* lost tasks (net/lost.c) */
	PLUG_NET_LOST = 30, /* a task left without finalizing, or was
				 * aborted: rank, status[, INT32 exit code:
				 * with PMIX_ERR_PROC_REQUESTED_ABORT, its
				 * node kills it]; flooded over the tree of
				 * all nodes */
	/* events (net/event.c) */
	PLUG_NET_EVENT = 31,     /* PROC source, PROC[] procs, STATUS code,
				 * INFO[] (the connect events) */
	PLUG_NET_EVENT_FWD = 32, /* tag = event id: STATUS code, PROC source,
				  * DATA_RANGE range, INFO[]: a client's
				  * event for this stepd's clients in range */
	PLUG_NET_EVENT_ACK = 33, /* tag = event id: STATUS: queued to the
				  * local clients in range (or why not);
				  * for a synchronous one, then UINT32
				  * how many had a handler, PROC[] the
				  * ones that did not answer */
	PLUG_NET_NODE_DOWN = 34, /* u32 node: that node's stepd is lost;
				  * flooded like LOST (net/lost.c) */
	PLUG_NET_PING = 35,      /* empty: are you there (after a lost
				  * connection)? */
	PLUG_NET_PONG = 36,      /* empty: the answer to PING */
	PLUG_NET_HOLD = 37,      /* STRING nspace: a step this step spawned;
				  * every stepd fetches and keeps its job
				  * information (flooded like LOST,
				  * stepd/spawn.c) */
	PLUG_NET_EVREG = 38,     /* u32 origin node, BOOL every code, STATUS[]
				  * codes: what origin's clients registered
				  * for since its last EVREG, flooded over
				  * the tree of all nodes (net/evindex.c);
				  * origin UINT32_MAX: a link of that tree
				  * broke, withhold nothing any more */
	PLUG_NET_EVLOST = 39,    /* u32 n: n events kept for this node's
				  * late registrants were dropped before
				  * one registered (net/evindex.c) */
	/* stepd -> srun requests (docs/dynamic.md section 2), one fresh
	 * connection each: cmd = the request, tag = request id, payload =
	 * job key (string) + the request's own payload; srun answers one
	 * PLUG_NET_REPLY with the same tag (status + reply payload). */
	PLUG_NET_STEPINFO = 40,    /* nspace -> the step file (srun/agent.c) */
	PLUG_NET_PUBLISH = 41,     /* proc, INFO[] -> (srun/pubdir.c) */
	PLUG_NET_LOOKUP = 42,      /* proc, STRING[] keys, INFO[] -> PDATA[] */
	PLUG_NET_UNPUBLISH = 43,   /* proc, STRING[] keys, INFO[] -> */
	PLUG_NET_SPAWN = 44,       /* proc, INFO[], APP[], u32 flags (1: overlap),
				 * u32 timeout -> nspace [, BYTE_OBJECT the
				 * child step's job information]
				 * (srun/spawn.c) */
	PLUG_NET_SPAWN_WAIT = 45,  /* u32 step -> int32 exit code, when the
					 * spawned step's srun has ended */
	PLUG_NET_SPAWN_STEP = 46,  /* child srun -> parent srun: u32 spawn
					 * id, job, step -> */
	PLUG_NET_SPAWN_READY = 47, /* child srun -> parent srun: u32 spawn
					 * id, step [, BYTE_OBJECT job info] -> */
	PLUG_NET_SPAWN_NODE = 48,  /* child stepd -> its srun: u32 node:
					 * every local task has started [; node
					 * 0: BYTE_OBJECT the step's job info, as
					 * a rank-WILDCARD direct modex answers]
					 * -> */
	PLUG_NET_STEPLIST = 49,    /* -> u32 n, n x u32: the steps of the job
				 * with a step file (srun/agent.c) */
	PLUG_NET_SLURMQ = 50,      /* u32 flags (1: PMIX_QUERY_REFRESH_CACHE), PROC
				    * requester, QUERY[] -> INFO[] the answers
				    * srun has (srun/query.c) */
	PLUG_NET_LOG = 51,         /* PROC source, STRING channel ("stdout",
				    * "stderr", "syslog"), INT32 syslog priority,
				    * STRING key, STRING value (both "" unless
				    * PMIX_LOG_AGG), STRING message -> (srun/log.c) */
	PLUG_NET_ALLOC = 52,       /* PROC requester, UINT8 op: PMIX_ALLOC_NEW or
				    * _RELEASE, then UINT32 the grant's timeout
				    * (s, 1..86400), INFO[] the directives ->
				    * INFO[] results; or 0 (WAIT), then STRING a
				    * NEW one's id -> STATUS granted (SUCCESS) or
				    * not, INFO[] the event's infos, once Slurm
				    * decided (srun/alloc.c) */
	PLUG_NET_REQ_LAST = 59,    /* 40..59: requests */
	PLUG_NET_REPLY = 60,       /* srun -> stepd: status, reply payload */
	/* tools attached through srun (srun/tools.c, net/tool.c) */
	PLUG_NET_TOOL_ATTACH = 61, /* srun -> node 0's stepd, the first
				    * message of a fresh connection instead
				    * of HELLO: key, u32 step, u32 uid, u32
				    * gid, u32 pid (the tool's, as srun's
				    * Unix socket saw them); answered with
				    * one raw byte 1, after which the
				    * connection carries the tool's own
				    * PMIx stream */
};

/* The rank of an ABORT that a step daemon sends itself: the step could not
 * be set up on its node (stepd/abort.h). */
#define PLUG_ABORT_RANK_STEPD 0xffffffffu

#endif
