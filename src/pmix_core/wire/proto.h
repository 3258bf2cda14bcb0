/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proto.h - the messages between our client (and tool) library and our
 * server, over the local Unix socket. Only our own library speaks it.
 *
 * Framing is in frame.h. Payloads are sequences of pack.h items; below,
 * "T x" is one pxc_pack of one element of type T, and "T[] x" is a counted
 * array written with pxc_pack_array (PMIX_SIZE count, then the elements).
 * BLOB is a PMIX_BYTE_OBJECT holding a store blob (store.h); an empty blob
 * has size 0.
 *
 * Requests carry a non-zero tag and get exactly one reply with the same tag,
 * cmd and PXC_WIRE_F_REPLY, except where "no reply" is said (tag 0). Every
 * reply starts with STATUS status; the other reply fields follow only when
 * status is PMIX_SUCCESS (unless said otherwise). The server answers the
 * requests of one connection in any order (a fence may complete after a
 * later get); the client matches replies by tag.
 *
 * Connection set-up: the first message on a new connection must be HELLO;
 * the server reads the peer's credentials with SO_PEERCRED and refuses
 * (reply status PMIX_ERR_NO_PERMISSIONS, then closes) a peer whose uid is
 * neither the uid the server serves nor root, or a client claiming a
 * namespace/rank that was not registered, or registered for another uid.
 * Anything else before HELLO, an unknown cmd, or a payload that does not
 * unpack closes the connection (the server logs it and carries on).
 *
 * The server's address: PMIx_server_setup_fork gives each client
 * PMIX_NAMESPACE, PMIX_RANK and PXC_ENV_URI = "unix:<socket path>"; the
 * client connects there. Tools find the server through rendezvous files
 * the server writes in its tmpdir (see server/ and tool/).
 */
#ifndef PXC_PROTO_H
#define PXC_PROTO_H

#define PXC_PROTO_VERSION 1

/* Environment our server gives each client (besides PMIX_NAMESPACE, PMIX_RANK). */
#define PXC_ENV_URI "SLURMIX_PMIX_SERVER_URI" /* unix:<path> */
#define PXC_ENV_SERVER_PID "SLURMIX_PMIX_SERVER_PID"

/* Rendezvous files for tools, written by a server started with
 * PMIX_SERVER_TOOL_SUPPORT in its tmpdir (PMIX_SERVER_TMPDIR, else $TMPDIR,
 * else /tmp), removed at PMIx_server_finalize:
 *   pmix.<hostname>.tool.<server pid>      always
 *   pmix.<hostname>.tool.<server nspace>   when the server has an nspace
 *   pmix.<hostname>.tool                    in the system tmpdir
 *                                           (PMIX_SYSTEM_TMPDIR, else /tmp)
 *                                           with PMIX_SERVER_SYSTEM_SUPPORT
 * Each holds one line: "unix:<socket path>". */
#define PXC_RENDEZVOUS_PREFIX "pmix."

enum pxc_cmd {
	/* HELLO  C->S  UINT32 proto_version, UINT8 peer_kind (PXC_PEER_*),
	 *              STRING nspace, PROC_RANK rank (client; tools send NULL and
	 *              PMIX_RANK_UNDEF), PID pid, INFO[] info (tool init attrs)
	 *        reply STATUS, PROC me (tools: the identity the server assigned),
	 *              PROC server (the server's own id), BLOB job (every
	 *              PMIX_SCOPE_UNDEF record of the client's namespace: job,
	 *              app, node and all procs' registered info; tools: empty) */
	PXC_CMD_HELLO = 1,
	/* FINALIZE C->S  INFO[] info    reply STATUS. After it the server treats a
	 *              close of the connection as normal termination. */
	PXC_CMD_FINALIZE = 2,
	/* ABORT  C->S  STATUS status, STRING msg, PROC[] procs   reply STATUS
	 *              (the server calls the host's abort; the reply comes
	 *              when the host completes, if the client still exists). */
	PXC_CMD_ABORT = 3,
	/* COMMIT C->S  BLOB data (the client's posted records since the last
	 *              commit: nspace/rank = the client, kind = scope). No reply.
	 *              Processed in order with later requests on the connection. */
	PXC_CMD_COMMIT = 4,
	/* FENCE  C->S  PROC[] procs (empty = own nspace, wildcard), INFO[] info
	 *        reply STATUS, BLOB data (with PMIX_COLLECT_DATA: the posted
	 *              PMIX_REMOTE and PMIX_GLOBAL records of every participant
	 *              not yet delivered by an earlier successful collecting
	 *              fence over the same participant set (server/delta.c),
	 *              which the client merges into its store; else empty). */
	PXC_CMD_FENCE = 5,
	/* GET    C->S  PROC proc, STRING key (NULL = all of proc), INFO[] info
	 *        reply STATUS, BLOB records to merge into the client store;
	 *              the client then repeats its local lookup. For a reserved
	 *              key or rank WILDCARD of another namespace the blob holds
	 *              that namespace's registered info; for posted data, the
	 *              target proc's records visible to the requester (LOCAL
	 *              only to procs on the same node, REMOTE only to others,
	 *              GLOBAL to all). The server waits (PMIX_TIMEOUT or the
	 *              default) for a local proc that has not committed the key
	 *              yet, and asks the host's direct_modex for remote ones. */
	PXC_CMD_GET = 6,
	/* (GET info PXC_GET_KEY_ONLY, below: the client already holds posted
	 * data of the target, so the blob holds the record of key only.) */
	/* PUBLISH   C->S INFO[] info (data + directives)          reply STATUS */
	PXC_CMD_PUBLISH = 7,
	/* LOOKUP    C->S STRING[] keys, INFO[] info  reply STATUS, PDATA[] data */
	PXC_CMD_LOOKUP = 8,
	/* UNPUBLISH C->S STRING[] keys, INFO[] info               reply STATUS */
	PXC_CMD_UNPUBLISH = 9,
	/* SPAWN  C->S  INFO[] job_info, APP[] apps   reply STATUS, STRING nspace,
	 *              BLOB the new namespace's registered info (may be
	 *              empty; a reply without it is a server of an older
	 *              build), which the client merges into its store */
	PXC_CMD_SPAWN = 10,
	/* CONNECT C->S PROC[] procs, INFO[] info
	 *        reply STATUS, BLOB (registered info of every other namespace
	 *              among procs, and whatever posted data the server holds
	 *              for them), INFO[] results (e.g. PMIX_GROUP_CONTEXT_ID) */
	PXC_CMD_CONNECT = 11,
	/* DISCONNECT C->S PROC[] procs, INFO[] info              reply STATUS */
	PXC_CMD_DISCONNECT = 12,
	/* REGEVENTS C->S STATUS[] codes (empty = all), INFO[] info  reply STATUS
	 *              (the server sends EVENTs of these codes to the client;
	 *              matching handlers is the client's business). With
	 *              PXC_REG_HDLR_ID in info (stripped before the host sees
	 *              it), the reply is followed by the cached events of these
	 *              codes the client never got, each an EVENT whose tag is
	 *              that handler id (server/evcache.c). */
	PXC_CMD_REGEVENTS = 13,
	/* NOTIFY C->S  STATUS code, PROC source, DATA_RANGE range, INFO[] info
	 *        reply STATUS. The server delivers to its local clients in range
	 *        and hands ranges beyond the node to the host's notify_event. */
	PXC_CMD_NOTIFY = 14,
	/* EVENT  S->C  STATUS code, PROC source, DATA_RANGE range, INFO[] info
	 *              (unsolicited, on the first connection; tag 0, or the id
	 *              of the one handler it is for, see REGEVENTS).
	 *        Event mark, S->C on the reply channel only, flag REPLY, the
	 *              tag of the reply that follows: UINT32 n, how many EVENTs
	 *              the server has sent on the first connection so far. The
	 *              client returns that reply only once it has handled n
	 *              EVENTs (client/direct.c), so that events queued before a
	 *              reply are delivered before the call returns. */
	PXC_CMD_EVENT = 15,
	/* QUERY  C->S  QUERY[] queries     reply STATUS, INFO[] results */
	PXC_CMD_QUERY = 16,
	/* JOBCTL C->S  PROC[] targets, INFO[] directives  reply STATUS, INFO[] results
	 *              (PMIX_REGISTER_CLEANUP(_DIR), PMIX_CLEANUP_RECURSIVE,
	 *              PMIX_CLEANUP_IGNORE(_EMPTY), PMIX_CLEANUP_LEAVE_TOPDIR are
	 *              done by the server itself at namespace deregistration). */
	PXC_CMD_JOBCTL = 17,
	/* LOG    C->S  INFO[] data, INFO[] directives              reply STATUS */
	PXC_CMD_LOG = 18,
	/* GROUP  C->S  UINT8 op (pmix_group_operation_t), STRING grp, PROC[] procs
	 *              (none for a destruct), INFO[] info
	 *              reply STATUS; a construct's success also INFO[] results,
	 *              BLOB (the members' data, server/group.c) */
	PXC_CMD_GROUP = 19,
	/* IOF_PULL C->S PROC[] procs, UINT16 channels, INFO[] directives
	 *              reply STATUS, SIZE handler id; then that
	 *              subscription's IOF frames (server/iof.c). */
	PXC_CMD_IOF_PULL = 20,
	/* EVENT_DONE C->S UINT32 id, BOOL handled   no reply (tag 0). The
	 *              chain of a synchronous EVENT (one whose infos carried
	 *              PXC_EVENT_SYNC_ID = id) has ended; handled: some
	 *              handler of the process took it (server/evsync.c). */
	PXC_CMD_EVENT_DONE = 21,
	/* IOF_DEREG C->S SIZE handler id   reply STATUS, after the
	 *              subscription's last IOF frames (what it had buffered). */
	PXC_CMD_IOF_DEREG = 22,
	/* IOF    S->C  tag = handler id: PROC source, UINT16 channel,
	 *              BYTE_OBJECT data, INFO[] (PMIX_IOF_COMPLETE: the end of
	 *              that source's channel; SLURMIX_IOF_DROPPED: bytes lost
	 *              to this subscription before these). On the first
	 *              connection, not counted for the event marks. */
	PXC_CMD_IOF = 23,
	/* IOF_PUSH C->S PROC[] targets, BYTE_OBJECT data (may be empty),
	 *              INFO[] directives (PMIX_IOF_COMPLETE: the targets'
	 *              stdin ends after these bytes)
	 *        reply STATUS, once the host's push_stdin called back (the
	 *              bytes are in the targets' stdin, or refused) */
	PXC_CMD_IOF_PUSH = 24,
	/* GET_CRED C->S INFO[] directives
	 *        reply STATUS, BYTE_OBJECT credential, INFO[] info (the host's
	 *              get_credential's answer). The host is handed the
	 *              directives without the client's PMIX_USERID and
	 *              PMIX_GRPID, and with the connection's own appended
	 *              (UINT32: SO_PEERCRED, or the host's word for a tool it
	 *              handed over; server/cred.c). */
	PXC_CMD_GET_CRED = 25,
	/* VALIDATE_CRED C->S BYTE_OBJECT credential, INFO[] directives
	 *        reply STATUS, INFO[] results (the host's validate_credential's
	 *              answer); the directives as for GET_CRED. */
	PXC_CMD_VALIDATE_CRED = 26,
	/* MONITOR C->S INFO[] monitor (exactly one: what to monitor, or
	 *              PMIX_SEND_HEARTBEAT, or PMIX_MONITOR_CANCEL), STATUS error
	 *              (the alert's code; 0: the kind's default), INFO[]
	 *              directives         reply STATUS, INFO[] results (empty).
	 *              The server runs heartbeat and file monitors itself and
	 *              raises their alerts as events (server/monitor.c). */
	PXC_CMD_MONITOR = 27,
	/* ALLOC  C->S  UINT8 directive (pmix_alloc_directive_t), INFO[] info
	 *        reply STATUS, INFO[] results (the host's allocate's answer).
	 *              The host is handed info without the client's
	 *              PMIX_USERID and PMIX_GRPID, with the connection's own
	 *              appended (UINT32, as for GET_CRED; server/alloc.c). */
	PXC_CMD_ALLOC = 28,
	PXC_CMD_MAX
};

/* GROUP's op for PMIx_Group_leave (beside pmix_group_operation_t's):
 * no procs; reply STATUS. */
#define PXC_GROUP_OP_LEAVE 100

enum pxc_peer_kind { PXC_PEER_CLIENT = 0, PXC_PEER_TOOL = 1, PXC_PEER_REPLY = 2 };

/* The reply channel: a second connection of a client (or tool) process,
 * opened after its HELLO was accepted, with a HELLO of kind
 * PXC_PEER_REPLY naming the identity the first connection got (nspace,
 * rank) and the same pid; the server accepts it only from the very
 * process (SO_PEERCRED pid and uid) that holds that first connection, once
 * per connection, and answers like any HELLO (with an empty blob). It
 * carries no requests: the server sends on it the replies to the requests
 * (always sent on the first connection, so they stay in order) whose tag
 * has PXC_TAG_REPLY_CHANNEL set, and closes it with the first connection.
 * A blocking call's caller thread writes its request into the socket and
 * waits for the reply on the channel itself, so that the process's
 * progress thread is not woken twice per call (client/conn.c). A request
 * with the bit whose peer has no channel is answered on the first
 * connection. */
#define PXC_TAG_REPLY_CHANNEL 0x80000000u

/* REGEVENTS info (SIZE, 1 .. 2^31-1), client to server only: the id of the
 * handler being registered, for the cached events sent to it. */
#define PXC_REG_HDLR_ID "slurmix.evreg.hdlr"

/* EVENT info (UINT32, not 0), server to client only: the event is
 * synchronous; the client strips it before its handlers see the infos
 * and answers EVENT_DONE with it once their chain has ended. */
#define PXC_EVENT_SYNC_ID "slurmix.ev.sync"

/* EVENT info flag (bool), server to client (and through the host to
 * other nodes' servers and clients): the server raised the event in the
 * name of its source (a monitor's alert, server/monitor.c), so the source
 * process delivers it too instead of dropping it as its own notification;
 * the client strips it before its handlers see the infos. */
#define PXC_EVENT_RAISED "slurmix.ev.raised"

/* GET info flag (bool), client to server only (the server strips it before
 * the host's direct_modex sees the info): the client already holds posted
 * data of the target proc (from an earlier GET reply or a fence), so for a
 * GET of a key the reply blob carries that key's record, plus the target's
 * PMIX_LOCAL records when the client is on its node (fences never carry
 * those), instead of every record of the proc. Without it (first contact,
 * or a client of an older build) the whole proc is sent. */
#define PXC_GET_KEY_ONLY "slurmix.get.keyonly"

#endif
