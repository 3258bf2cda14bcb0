/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upcall.c - requests handed to the host module, and their callbacks.
 *
 * A pxc_upcall_t lives in pxc_srv.upcalls from the host call until its
 * completion. The host gets (void *)id as cbdata. Each pxc_upcall_cb_* callback
 * may run in any thread (also inside the module call): it deep-copies the
 * result into a pxc_upcall_result_t, calls the host's release function, and posts
 * the result to the progress thread, which finds the request by id and
 * runs its done function, or drops the result when the request is gone.
 *
 * A late, duplicate or post-finalize callback finds no request and is
 * dropped; a callback from inside the module call is posted like any other
 * (the request completes after the call returned).
 *
 * What the host is handed lives in the request (pxc_upcall_args_t, upcall.h)
 * until the request is freed, so a host may keep the pointers until it
 * calls back, as the Standard allows.
 *
 * The helpers of the forwarding requests are here too (the requests
 * themselves live in their feature's file: abort.c, pubsub.c, spawn.c,
 * log.c, group.c, query.c, jobctl.c, cred.c): a handler unpacks into a
 * pxc_upcall_args_t, pxc_upcall_start makes the request (or answers at once:
 * NULL module function -> PMIX_ERR_NOT_SUPPORTED), the handler calls the
 * host, and a done function replies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

#include "internal.h"
#include "upcall.h"
#include "peer.h"
#include "server.h"
#include "proto.h"

/* --------------------------------------------------------------- records */

/* Where the next request goes (the last one's next), or NULL: unknown. */
static pxc_upcall_t **upcalls_last;
static pxc_upcall_t **upcall_tail(void);

pxc_upcall_t *pxc_upcall_new(pxc_peer_t *p, uint32_t tag, uint16_t cmd, pxc_upcall_done_f done)
{
	pxc_upcall_t *r;

	if (!pxc_peer_request_ok(p)) {
		errno = EBUSY;
		return NULL;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		if (p)
			pxc_peer_request_done(p->id);
		errno = ENOMEM;
		return NULL;
	}
	r->counted = p != NULL;
	r->id = pxc_srv_new_id();
	r->peer_id = p ? p->id : 0;
	r->a.proc = p ? p->proc : pxc_srv.me;
	r->tag = tag;
	r->cmd = cmd;
	r->done = done;
	r->next = NULL;
	*(upcalls_last = upcall_tail()) = r;
	upcalls_last = &r->next;
	return r;
}

pxc_upcall_t *pxc_upcall_find(uint64_t id)
{
	for (pxc_upcall_t *r = pxc_srv.upcalls; r; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static void argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void pxc_upcall_args_free(pxc_upcall_args_t *a)
{
	free(a->str);
	pxc_array_free(a->procs, a->nprocs, PMIX_PROC);
	pxc_array_free(a->info, a->ninfo, PMIX_INFO);
	pxc_array_free(a->info2, a->ninfo2, PMIX_INFO);
	argv_free(a->keys);
	pxc_array_free(a->apps, a->napps, PMIX_APP);
	free(a->codes);
	PMIx_Byte_object_destruct(&a->bo);
	memset(a, 0, sizeof(*a));
}

pmix_status_t pxc_upcall_peer_ids(const pxc_peer_t *p, pxc_upcall_args_t *a)
{
	uint32_t uid = (uint32_t)p->uid, gid = (uint32_t)p->gid;
	pmix_info_t gone, *info;

	while (pxc_info_take(a->info, &a->ninfo, PMIX_USERID, &gone) ||
	       pxc_info_take(a->info, &a->ninfo, PMIX_GRPID, &gone))
		PMIx_Info_destruct(&gone);
	info = realloc(a->info, (a->ninfo + 2) * sizeof(*info));
	if (!info)
		return PMIX_ERR_NOMEM;
	a->info = info;
	PMIx_Info_construct(&info[a->ninfo]);
	PMIx_Info_construct(&info[a->ninfo + 1]);
	PMIx_Info_load(&info[a->ninfo++], PMIX_USERID, &uid, PMIX_UINT32);
	PMIx_Info_load(&info[a->ninfo++], PMIX_GRPID, &gid, PMIX_UINT32);
	return PMIX_SUCCESS;
}

/* Frees an unlinked request. */
pmix_status_t pxc_upcall_new_status(void)
{
	return errno == EBUSY ? PMIX_ERR_OUT_OF_RESOURCE : PMIX_ERR_NOMEM;
}

static void upcall_release(pxc_upcall_t *r)
{
	if (r->counted)
		pxc_peer_request_done(r->peer_id);
	pxc_srv_timer_free(r->timer);
	if (r->ctx_free)
		r->ctx_free(r->ctx);
	pxc_upcall_args_free(&r->a);
	free(r);
}

/* The list is in creation order (new ones at the tail), so that the
 * answers, which mostly come in that order, are found at its head: a
 * burst of thousands of requests costs no scan of them all each. */
static pxc_upcall_t **upcall_tail(void)
{
	pxc_upcall_t **pp = &pxc_srv.upcalls;

	if (upcalls_last && *upcalls_last == NULL && pxc_srv.upcalls)
		return upcalls_last;
	while (*pp)
		pp = &(*pp)->next;
	return pp;
}

void pxc_upcall_free(pxc_upcall_t *r)
{
	for (pxc_upcall_t **pp = &pxc_srv.upcalls; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			if (upcalls_last == &r->next)
				upcalls_last = pp;
			break;
		}
	upcall_release(r);
}

void pxc_upcall_fail_all(pmix_status_t status)
{
	while (pxc_srv.upcalls) {
		pxc_upcall_t *r = pxc_srv.upcalls;
		pxc_upcall_result_t res = { .id = r->id, .status = status };

		pxc_srv.upcalls = r->next;
		if (upcalls_last == &r->next)
			upcalls_last = NULL;
		r->next = NULL;
		r->done(r, &res);
		upcall_release(r);
	}
}

void pxc_upcall_done_none(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	(void)r;
	(void)res;
}

void pxc_upcall_after_call(pxc_upcall_t *r, pmix_status_t st)
{
	/* PMIX_OPERATION_SUCCEEDED: the host did it at once, without its
	 * callback (the Standard's rule for every upcall) */
	pxc_upcall_result_t res = { .id = r->id,
				    .status = st == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : st };

	if (st == PMIX_SUCCESS)
		return;
	r->done(r, &res);
	pxc_upcall_free(r);
}

static void result_free(pxc_upcall_result_t *res)
{
	free(res->data);
	if (res->info)
		PMIx_Info_free(res->info, res->ninfo);
	if (res->pdata)
		PMIx_Pdata_free(res->pdata, res->npdata);
	free(res);
}

/* Progress thread: completes the request the result belongs to. */
static void result_deliver(void *arg)
{
	pxc_upcall_result_t *res = arg;
	pxc_upcall_t *r = pxc_srv.running ? pxc_upcall_find(res->id) : NULL;

	if (r) {
		r->done(r, res);
		pxc_upcall_free(r);
	}
	result_free(res);
}

static void result_post(pxc_upcall_result_t *res)
{
	/* Always posted, even from the progress thread: the module call that
	 * invoked us may still be on the stack. */
	if (res->id == 0 || pxc_srv_post(result_deliver, res) < 0)
		result_free(res);
}

static pxc_upcall_result_t *result_new(pmix_status_t status, void *cbdata)
{
	pxc_upcall_result_t *res = calloc(1, sizeof(*res));

	if (res) {
		res->id = (uint64_t)(uintptr_t)cbdata;
		res->status = status;
	}
	return res;
}

/* ------------------------------------------------------------- callbacks */

void pxc_upcall_cb_op(pmix_status_t status, void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	if (res)
		result_post(res);
}

/* Copies the host's bytes into res (PMIX_ERR_NOMEM when they cannot be). */
static void result_bytes(pxc_upcall_result_t *res, const char *data, size_t ndata)
{
	if (!res || !data || !ndata)
		return;
	res->data = malloc(ndata);
	if (res->data) {
		memcpy(res->data, data, ndata);
		res->ndata = ndata;
	} else {
		res->status = PMIX_ERR_NOMEM;
	}
}

void pxc_upcall_cb_modex(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
			 pmix_release_cbfunc_t rel, void *relcbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	result_bytes(res, data, ndata);
	if (rel)
		rel(relcbdata);
	if (res)
		result_post(res);
}

/* Copies the host's infos into res (none when they cannot be copied). */
static void result_infos(pxc_upcall_result_t *res, const pmix_info_t *info, size_t ninfo)
{
	if (!res || !info || !ninfo)
		return;
	res->info = PMIx_Info_create(ninfo);
	res->ninfo = res->info ? ninfo : 0;
	for (size_t i = 0; i < res->ninfo; i++)
		PMIx_Info_xfer(&res->info[i], &info[i]);
}

void pxc_upcall_cb_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
			pmix_release_cbfunc_t rel, void *relcbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	result_infos(res, info, ninfo);
	if (rel)
		rel(relcbdata);
	if (res)
		result_post(res);
}

void pxc_upcall_cb_lookup(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	if (res && data && ndata) {
		res->pdata = PMIx_Pdata_create(ndata);
		res->npdata = res->pdata ? ndata : 0;
		for (size_t i = 0; i < res->npdata; i++) {
			res->pdata[i].proc = data[i].proc;
			res->pdata[i].proc.nspace[PMIX_MAX_NSLEN] = '\0';
			PMIx_Load_key(res->pdata[i].key, data[i].key);
			PMIx_Value_xfer(&res->pdata[i].value, &data[i].value);
		}
	}
	if (res)
		result_post(res);
}

void pxc_upcall_cb_spawn(pmix_status_t status, char nspace[], void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	if (res && nspace)
		PMIx_Load_nspace(res->nspace, nspace);
	if (res)
		result_post(res);
}

void pxc_upcall_cb_tool(pmix_status_t status, pmix_proc_t *proc, void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	if (res && proc) {
		res->proc = *proc;
		res->proc.nspace[PMIX_MAX_NSLEN] = '\0';
	}
	if (res)
		result_post(res);
}

void pxc_upcall_cb_credential(pmix_status_t status, pmix_byte_object_t *credential,
			      pmix_info_t info[], size_t ninfo, void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	if (credential)
		result_bytes(res, credential->bytes, credential->size);
	result_infos(res, info, ninfo);
	if (res)
		result_post(res);
}

void pxc_upcall_cb_validation(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata)
{
	pxc_upcall_result_t *res = result_new(status, cbdata);

	result_infos(res, info, ninfo);
	if (res)
		result_post(res);
}

/* ---------------------------------------------------- forwarding helpers */

static int reply_now(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_status_t st)
{
	pxc_peer_reply(p, h->cmd, h->tag, st, NULL);
	return 0;
}

void pxc_upcall_done_status(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_status_t st = res->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : res->status;

	pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, NULL);
}

pxc_upcall_t *pxc_upcall_start(pxc_peer_t *p, const pxc_wire_hdr_t *h, bool have, pmix_status_t err,
			       pxc_upcall_done_f done, pxc_upcall_args_t *a)
{
	pxc_upcall_t *r = NULL;

	if (!have)
		err = PMIX_ERR_NOT_SUPPORTED;
	else if (err == PMIX_SUCCESS && !(r = pxc_upcall_new(p, h->tag, h->cmd, done)))
		err = pxc_upcall_new_status();
	if (!r) {
		reply_now(p, h, err);
		pxc_upcall_args_free(a);
		return NULL;
	}
	a->proc = r->a.proc;
	r->a = *a; /* the request owns the arguments from now on */
	return r;
}

void pxc_upcall_done_info(pxc_upcall_t *r, pxc_upcall_result_t *res)
{
	pmix_data_buffer_t body;
	pmix_status_t st = res->status;

	if (st == PMIX_OPERATION_SUCCEEDED)
		st = PMIX_SUCCESS;
	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&body, res->info, res->ninfo, PMIX_INFO);
	pxc_peer_reply_id(r->peer_id, r->cmd, r->tag, st, st == PMIX_SUCCESS ? &body : NULL);
	pxc_buf_clear(&body);
}
