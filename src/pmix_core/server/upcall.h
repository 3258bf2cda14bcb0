/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upcall.h - requests handed to the host module (upcall.c).
 *
 * Every request handed to the host module is a pxc_upcall_t kept
 * in a list and named by a 64-bit id; the cbdata the host receives is that
 * id, not a pointer. The host's callback (any thread, possibly inside the
 * module call itself) copies the result into a pxc_upcall_result_t and posts it; the
 * progress thread looks the id up and completes the request, or drops the
 * result when the request is gone (timed out, client lost, server
 * finalized). So a late or duplicate host callback can never touch freed
 * memory.
 *
 * What the server hands to a host module function (the requester's proc,
 * procs, info arrays, keys, apps, messages, data blobs) is owned by the
 * request (pxc_upcall_args_t, or the request's ctx) and stays valid until the
 * request is freed: after the host's callback was delivered, after an
 * immediate error return, or at finalize. The Standard lets hosts keep
 * these pointers until they call back. A timeout answers the requesters
 * but keeps the request (and what the host holds) until the host calls
 * back. Upcalls whose result does not matter (notify_event,
 * register_events, client_finalized of a lost client) get a request too,
 * whose done function does nothing.
 */
#ifndef PXC_SRV_UPCALL_H
#define PXC_SRV_UPCALL_H

#include <stdbool.h>
#include <stdint.h>
#include "internal.h"

/* What a host callback returned, carried to the progress thread. */
struct pxc_upcall_result {
	uint64_t id;
	pmix_status_t status;
	char *data; /* modex, credential: copied bytes */
	size_t ndata;
	pmix_info_t *info; /* info callbacks: copied */
	size_t ninfo;
	pmix_pdata_t *pdata; /* lookup: copied */
	size_t npdata;
	pmix_proc_t proc;                /* tool connection */
	char nspace[PMIX_MAX_NSLEN + 1]; /* spawn */
};

typedef void (*pxc_upcall_done_f)(pxc_upcall_t *r, pxc_upcall_result_t *res);

/* Arguments of a host call, owned by the request (see the top of the file). Arrays
 * are freed with pxc_array_free of their type, keys as an argv. */
typedef struct {
	pmix_proc_t proc; /* requester (a copy: the peer may go) */
	char *str;        /* abort message, group id */
	pmix_proc_t *procs;
	size_t nprocs;
	pmix_info_t *info;
	size_t ninfo;
	pmix_info_t *info2; /* log directives */
	size_t ninfo2;
	char **keys; /* NULL-terminated */
	pmix_app_t *apps;
	size_t napps;
	pmix_status_t *codes;
	size_t ncodes;
	pmix_byte_object_t bo; /* the credential to validate */
} pxc_upcall_args_t;

/* A pending request to the host (or a parked request waiting for data). */
struct pxc_upcall {
	pxc_upcall_t *next;
	uint64_t id;
	uint64_t peer_id; /* requester, 0 = none */
	uint32_t tag;
	uint16_t cmd;
	pxc_upcall_done_f done; /* runs once, then the request is freed */
	void *ctx;              /* op-specific; ctx_free releases it */
	void (*ctx_free)(void *ctx);
	struct event *timer; /* optional timeout */
	pxc_upcall_args_t a; /* what the host was handed */
	bool counted;        /* against its peer's pending limit (peer.h) */
};

/* A new request in pxc_srv.upcalls; a.proc is a copy of p's identity (or
 * the server's own when p is NULL). NULL with errno ENOMEM, or EBUSY
 * when p has as many requests waiting as it may (pxc_peer_request_ok). */
pxc_upcall_t *pxc_upcall_new(pxc_peer_t *p, uint32_t tag, uint16_t cmd, pxc_upcall_done_f done);
/* The status for a NULL from pxc_upcall_new (errno): PMIX_ERR_OUT_OF_RESOURCE
 * or PMIX_ERR_NOMEM. */
pmix_status_t pxc_upcall_new_status(void);
/* done function that does nothing (upcalls whose result does not matter). */
void pxc_upcall_done_none(pxc_upcall_t *r, pxc_upcall_result_t *res);
/* After a module call that returned st: anything but PMIX_SUCCESS (the
 * host will not call back) completes r now with st and frees it;
 * PMIX_OPERATION_SUCCEEDED (done at once) completes it with PMIX_SUCCESS. */
void pxc_upcall_after_call(pxc_upcall_t *r, pmix_status_t st);
pxc_upcall_t *pxc_upcall_find(uint64_t id);
/* Unlinks and frees r (timer, ctx). */
void pxc_upcall_free(pxc_upcall_t *r);
/* Fails every pending host request (finalize). */
void pxc_upcall_fail_all(pmix_status_t status);
/* Callbacks handed to the host; cbdata is (void *)(uintptr_t)id. */
void pxc_upcall_cb_op(pmix_status_t status, void *cbdata);
void pxc_upcall_cb_modex(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
			 pmix_release_cbfunc_t rel, void *relcbdata);
void pxc_upcall_cb_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
			pmix_release_cbfunc_t rel, void *relcbdata);
void pxc_upcall_cb_lookup(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata);
void pxc_upcall_cb_spawn(pmix_status_t status, char nspace[], void *cbdata);
void pxc_upcall_cb_tool(pmix_status_t status, pmix_proc_t *proc, void *cbdata);
/* The credential's bytes go to res->data, the infos to res->info; what
 * the host handed stays its own (these callbacks have no release). */
void pxc_upcall_cb_credential(pmix_status_t status, pmix_byte_object_t *credential,
			      pmix_info_t info[], size_t ninfo, void *cbdata);
void pxc_upcall_cb_validation(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata);

#define PXC_UPCALL_CBDATA(r) ((void *)(uintptr_t)(r)->id)

/* Frees what a holds and empties it. */
void pxc_upcall_args_free(pxc_upcall_args_t *a);
/* Replaces any PMIX_USERID/PMIX_GRPID in a->info by p's own uid and gid
 * (UINT32: SO_PEERCRED, or the host's word for a tool), appended: who
 * asks is the server's word, not the client's (cred.c, alloc.c).
 * PMIX_SUCCESS or PMIX_ERR_NOMEM. */
pmix_status_t pxc_upcall_peer_ids(const pxc_peer_t *p, pxc_upcall_args_t *a);

/* Helpers of the forwarding requests (abort.c, pubsub.c, spawn.c, ...):
 * hands the unpacked arguments a to a new request for p, or answers p
 * (err when err != PMIX_SUCCESS, NOT_SUPPORTED without the module
 * function (have false), NOMEM) and frees a. NULL when answered. */
pxc_upcall_t *pxc_upcall_start(pxc_peer_t *p, const pxc_wire_hdr_t *h, bool have, pmix_status_t err,
			       pxc_upcall_done_f done, pxc_upcall_args_t *a);
/* done function replying the status only (PMIX_OPERATION_SUCCEEDED as
 * PMIX_SUCCESS). */
void pxc_upcall_done_status(pxc_upcall_t *r, pxc_upcall_result_t *res);
/* done function replying STATUS, INFO[] results (from res->info). */
void pxc_upcall_done_info(pxc_upcall_t *r, pxc_upcall_result_t *res);

#endif
