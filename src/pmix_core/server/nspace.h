/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nspace.h - namespaces and local clients (nspace.c; its PMIx_server_*
 * calls are in pmix_server.h): the look-ups the other files of server/
 * make, and the host's question about a lost client.
 *
 * The namespace and client lists belong to the progress thread: every
 * function here runs there.
 */
#ifndef PXC_SERVER_NSPACE_H
#define PXC_SERVER_NSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_common.h>

/* The server's state types (internal.h) stay opaque here: hosts get this
 * header through pxc_host.h. */
typedef struct pxc_snspace pxc_snspace_t;
typedef struct pxc_sclient pxc_sclient_t;

/* The namespace named name, or NULL. */
pxc_snspace_t *pxc_ns_find(const char *name);
pxc_snspace_t *pxc_ns_get(const char *name); /* find or create */
/* The registered client proc, or NULL. */
pxc_sclient_t *pxc_client_find(const pmix_proc_t *proc);
/* Server finalize: frees every namespace and client. */
void pxc_ns_free_all(void);
/* Fetches the registered info of namespace ns that this server does not
 * hold (not registered here, no PMIX_JOB_SIZE of it in the store) through
 * the host's direct_modex with rank WILDCARD (a server of ns answers with
 * it: PMIx_server_dmodex_request) and merges it into the store (the last
 * 256 fetched are kept); then
 * done(status, arg) in the progress thread (a failure is logged). cmd
 * names the request in the log. Returns true when a fetch started (done
 * will run), false when there is nothing to fetch or no way to (done will
 * not run). */
bool pxc_ns_fetch(const char *ns, uint16_t cmd, void (*done)(pmix_status_t st, void *arg),
		  void *arg);
/* Server finalize: forgets which namespaces were fetched (at most
 * PXC_NS_HELD_MAX are kept, oldest out first). */
void pxc_ns_kept_clear(void);
/* Whether this server holds ns's registered info (see pxc_ns_fetch). */
bool pxc_ns_held(const char *ns);
/* For a host: fetch and keep namespace ns's registered info now
 * (pxc_ns_fetch), so that this server answers for it without asking, and
 * a spawned job's clients get their parent's with their own at
 * PMIx_Init (when it arrived before). PMIX_SUCCESS (started, or nothing
 * to do), or PMIX_ERR_INIT / PMIX_ERR_NOMEM. Any thread. */
pmix_status_t pxc_server_hold_nspace(const char *ns);
/* The same with ns's registered info at hand (a store blob, as a server
 * of ns answers a rank-WILDCARD direct modex): merged and kept, nothing
 * fetched. PMIX_SUCCESS or the unpack error. Progress thread. */
pmix_status_t pxc_server_hold_nspace_data(const char *ns, const void *data, size_t ndata);
/* True if the client's proc is on this node (registered here). */
bool pxc_proc_is_local(const pmix_proc_t *proc);

/* True when proc is a local client of this server whose connection ended
 * without PMIx_Finalize: lets a host tell, inside its client_finalized
 * upcall (which the server also makes for such a client), a task that
 * died from one that finalized. Progress thread only (where the server
 * calls the host's module). */
bool pxc_server_client_lost(const pmix_proc_t *proc);
/* The pid (SO_PEERCRED) of the process connected as local client proc,
 * or 0 when none is connected. Progress thread only. */
pid_t pxc_server_client_pid(const pmix_proc_t *proc);
/* The pid the last connection of local client proc gave in its HELLO,
 * connected or not any more (0: it never connected). Progress thread
 * only. */
pid_t pxc_server_client_last_pid(const pmix_proc_t *proc);
/* The host knows proc's pid: a local client that never connects (a task
 * that is no PMIx client), or a process of a registered namespace on
 * another node. The process table shows it (query.c). Progress thread
 * only. */
void pxc_server_proc_pid(const pmix_proc_t *proc, pid_t pid);
/* How many tools are connected (HELLO done), and how many bytes wait on
 * their connections. Progress thread only. */
unsigned pxc_server_tool_count(void);
size_t pxc_server_tool_queued(void);

#endif
