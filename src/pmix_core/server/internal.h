/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * internal.h - private state of the PMIx server, shared by the files of server/.
 * Each file's functions are in its own header (server.h for server.c's
 * posting and helpers, coll.h, dmodex.h, ...); pxc_host.h gathers those a
 * host may use.
 *
 * Ownership: everything reachable from pxc_srv (namespaces, registered
 * clients, connected peers, collectives, parked requests, the store) belongs
 * to the progress thread. Public API functions called by the host in its own
 * threads copy their arguments and post the work (pxc_srv_post); only the
 * immutable fields set by PMIx_server_init before the listener starts
 * (socket path, uri, identity, hostname) are read from other threads.
 *
 * Host calls (upcalls) are requests named by id: see upcall.h.
 *
 * Peers (connections) are named by id as well in anything that outlives a
 * message (host requests, parked GETs): a reply to a peer that went away is
 * dropped.
 */
#ifndef PXC_SRV_INTERNAL_H
#define PXC_SRV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_server.h>
#include "pxc.h"
#include "pack.h"
#include "store.h"
#include "frame.h"
#include "progress.h"
#include "pmi_wire.h"

struct event;
struct event_base;

typedef struct pxc_snspace pxc_snspace_t;
typedef struct pxc_sclient pxc_sclient_t;
typedef struct pxc_peer pxc_peer_t;
typedef struct pxc_upcall pxc_upcall_t;
typedef struct pxc_upcall_result pxc_upcall_result_t;
typedef struct pxc_cleanup pxc_cleanup_t;
typedef struct pxc_delta pxc_delta_t;
typedef struct pxc_fsig pxc_fsig_t;

/* A namespace known to the server (registered by the host, or created by
 * register_client before register_nspace). */
struct pxc_snspace {
	pxc_snspace_t *next;
	char name[PMIX_MAX_NSLEN + 1];
	int nlocalprocs;        /* from register_nspace; -1 unknown */
	bool registered;        /* register_nspace was called */
	pxc_sclient_t *clients; /* local procs registered by the host */
	size_t nclients;
	pxc_cleanup_t *cleanups; /* PMIx_Job_control cleanups to run */
	pid_t *rpids;            /* other nodes' pids, from the host */
	uint32_t nrpids;
};

/* A local process registered with PMIx_server_register_client. */
struct pxc_sclient {
	pxc_sclient_t *next;
	pxc_snspace_t *ns;
	pmix_proc_t proc;
	uid_t uid;
	gid_t gid;
	void *server_object;
	pxc_peer_t *peer;   /* live connection, or NULL */
	pid_t pid;          /* from HELLO */
	pid_t host_pid;     /* from the host (pxc_server_client_host_pid) */
	unsigned commits;   /* COMMIT messages received */
	pxc_delta_t *delta; /* what fences still have to send (delta.c) */
	bool finalized;     /* sent FINALIZE */
	bool lost;          /* connection dropped without FINALIZE */
};

/* One connection (client or tool). */
struct pxc_peer {
	pxc_peer_t *next;
	uint64_t id;
	pxc_conn_t *conn;
	bool hello;            /* HELLO accepted */
	bool pending_hello;    /* waiting for the host's approval */
	int kind;              /* PXC_PEER_* after HELLO */
	pxc_sclient_t *client; /* clients only */
	pmix_proc_t proc;      /* identity after HELLO */
	uid_t uid;
	gid_t gid;
	pid_t pid;         /* SO_PEERCRED */
	bool proxied;      /* handed over by the host: a tool only */
	pxc_peer_t *rchan; /* its reply channel (proto.h), or NULL */
	pxc_peer_t *owner; /* PXC_PEER_REPLY: whose channel it is */
	bool ev_all;       /* registered for every event code */
	pmix_status_t *ev_codes;
	size_t nev_codes;
	uint32_t ev_sent;      /* EVENTs sent on conn */
	uint32_t ev_marked;    /* ev_sent when the last event mark went (peer.c) */
	uint32_t ev_lost_seen; /* the event cache's losses it was told of (event.c) */
	bool finalized;
	struct event *hello_timer; /* until it says HELLO (peer.c) */
	uint32_t npending;         /* its requests waiting for the host */
	bool pending_warned;       /* it was told of the limit (logged once) */
};

typedef struct pxc_pset {
	struct pxc_pset *next;
	char *name;
	pmix_proc_t *members;
	size_t nmembers;
} pxc_pset_t;

/* A task's PMI-1 / PMI-2 connection (pmi.c, pmi_cmd.c): it speaks for the
 * task as a client of this server on a connection of its own (px). */
typedef struct pxc_pmi_conn pxc_pmi_conn_t;
/* The server's reply to the connection's one outstanding request. */
typedef void (*pxc_pmi_reply_f)(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *reply);
struct pxc_pmi_conn {
	struct pxc_pmi_conn *next;
	pmix_proc_t proc;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int task_fd; /* this process's copy of the task's end, or -1 */
	struct bufferevent *bev;
	unsigned char pre[PXC_PMI_PREAMBLE_LEN];
	size_t npre;
	bool pre_done;
	pxc_pmi_reader_t rd;
	int version; /* 0 until init */
	bool finalized;
	bool closing;   /* conn_close_flushed: only the replies go out */
	pxc_conn_t *px; /* our side of the connection to the server */
	uint32_t tag;   /* of the outstanding request, 0 = none */
	pxc_pmi_reply_f on_reply;
	char *resp; /* the name of the reply the request waits for */
	char *thrid;
	char *wait_key; /* info-getnodeattr with wait: the key */
	char *get_key;  /* the key of an outstanding GET */
	struct event *wait_timer;
	pxc_store_t *kvs; /* job information and the fences' data */
	pxc_store_t *unc; /* puts since the last commit */
	size_t put_bytes;
	pmix_app_t *apps; /* PMI-1 spawn: the commands so far */
	size_t napps;
};

struct pxc_coll;
struct pxc_parked;

/* The server. One per process. */
typedef struct {
	bool running; /* progress-thread view */
	pxc_progress_t *pg;
	struct event_base *base;
	pmix_server_module_t module;
	pmix_proc_t me;
	char hostname[256];
	uint32_t nodeid; /* PMIX_NODEID of the init info, when has_nodeid */
	bool has_nodeid;
	char *tmpdir;  /* where our directory lives */
	char *sysdir;  /* system tmpdir (rendezvous) */
	char *rdvdir;  /* the tool rendezvous files' directory */
	char *rdvname; /* the nspace-named file's suffix */
	char *dir;     /* our private directory */
	char *sockpath;
	char *uri; /* "unix:<sockpath>" */
	uid_t uid; /* uid the clients run as */
	gid_t gid;
	bool tool_support, system_support;
	bool rdv_defer; /* the host publishes the rendezvous files itself */
	char *rdv[3];   /* rendezvous files written */
	int lfd;
	struct event *lev;
	pxc_store_t *store;
	pxc_snspace_t *nspaces;
	pxc_peer_t *peers;
	pxc_upcall_t *upcalls;
	struct pxc_coll *colls;
	pxc_fsig_t *fsigs;         /* fence signatures with marks (delta.c) */
	struct pxc_parked *parked; /* GETs / dmodex waiting for commits */
	pxc_pmi_conn_t *pmi_conns; /* the tasks' PMI connections (pmi.c) */
	pxc_pset_t *psets;
	uint64_t next_id;
	unsigned tool_count;
	void *topo; /* hwloc topology: a copy of the host's
					 * PMIX_TOPOLOGY2, else loaded lazily */
} pxc_srv_t;

extern pxc_srv_t pxc_srv;

/* Request handlers: each reads the payload and replies or parks.
 * Returning -1 is a protocol error: the connection is closed. */
typedef int (*pxc_handler_f)(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);

#endif
