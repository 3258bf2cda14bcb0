/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.c - the PMIx event API of a client, tool or server process:
 * PMIx_Register_event_handler, PMIx_Deregister_event_handler,
 * PMIx_Notify_event, and the EVENT messages a client or tool gets from its
 * server. The handlers themselves and the delivery chain are common/event.c.
 *
 * Registration completes asynchronously like OpenPMIx's: the REGEVENTS
 * reply (or, without a server, the next progress-loop turn) calls the
 * pmix_hdlr_reg_cbfunc_t with the handler id; with cbfunc NULL the call
 * blocks and returns the id (>= 1) or an error. A registration the server
 * refuses is removed again.
 *
 * PMIx_Notify_event runs the process's own handlers first (unless the
 * range is PMIX_RANGE_RM, or CUSTOM without this process), then sends the
 * event to the server unless the range is PROC_LOCAL; in a server process the server module routes it
 * (pxc_server_notify). EVENT messages the process raised itself were
 * already delivered and are dropped (not those with PXC_EVENT_RAISED: the
 * server raised them in the process's name). An EVENT whose tag is not 0 is a
 * cached one for the late handler with that id (proto.h, REGEVENTS), and
 * goes to that handler alone. Each EVENT message is counted for the event
 * marks (direct.c) once its first handler has returned. An EVENT with
 * PXC_EVENT_SYNC_ID is synchronous: the server learns (EVENT_DONE) when
 * its chain has ended (server/evsync.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "conn.h"
#include "direct.h"
#include "groupev.h"
#include "request.h"
#include "client/event.h"
#include "common/event.h"
#include "server/event.h"

/* ---- messages from the server ---- */

/* A synchronous event's chain has ended: EVENT_DONE (proto.h). */
static void sync_ended(bool handled, void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pxc_pack(&b, &id, 1, PMIX_UINT32) != PMIX_SUCCESS ||
	    pxc_pack(&b, &handled, 1, PMIX_BOOL) != PMIX_SUCCESS ||
	    pxc_client_send(PXC_CMD_EVENT_DONE, &b, 0, NULL, NULL) != PMIX_SUCCESS)
		pxc_debug("client: answer to synchronous event %u not sent", id);
	pxc_buf_clear(&b);
}

/* Takes PXC_EVENT_SYNC_ID out of an EVENT's infos: the id, or 0. */
static uint32_t take_sync_id(pmix_info_t *info, size_t *ninfo)
{
	pmix_info_t t;
	uint32_t id = 0;

	if (!pxc_info_take(info, ninfo, PXC_EVENT_SYNC_ID, &t))
		return 0;
	if (t.value.type == PMIX_UINT32)
		id = t.value.data.uint32;
	PMIx_Info_destruct(&t);
	return id;
}

/* Takes PXC_EVENT_RAISED out of an EVENT's infos: whether it was there. */
static bool take_raised(pmix_info_t *info, size_t *ninfo)
{
	pmix_info_t t;

	if (!pxc_info_take(info, ninfo, PXC_EVENT_RAISED, &t))
		return false;
	PMIx_Info_destruct(&t);
	return true;
}

void pxc_event_handle_msg(uint32_t tag, pmix_data_buffer_t *payload)
{
	pmix_status_t code;
	pmix_proc_t source;
	pmix_data_range_t range;
	pmix_info_t *info = NULL;
	size_t ninfo = 0, nalloc;
	int32_t n = 1;
	uint32_t sync;
	bool raised;

	if (pxc_unpack_status(payload, &code) != PMIX_SUCCESS ||
	    pxc_unpack_proc(payload, &source) != PMIX_SUCCESS ||
	    pxc_unpack(payload, &range, &n, PMIX_DATA_RANGE) != PMIX_SUCCESS ||
	    pxc_unpack_array(payload, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS) {
		pxc_error("client: malformed EVENT from server dropped");
		pxc_direct_event_seen();
		return;
	}
	nalloc = ninfo;
	sync = take_sync_id(info, &ninfo);
	raised = take_raised(info, &ninfo);
	if (code == PMIX_GROUP_INVITE_ACCEPTED || code == PMIX_GROUP_INVITE_DECLINED ||
	    code == PMIX_GROUP_MEMBERSHIP_UPDATE)
		pxc_groupev_event(code, &source, info, ninfo);
	/* Our own notifications were delivered locally when raised; a
	 * synchronous one comes from the host, and one the server raised for
	 * us (a monitor's alert) from the server, whatever its source. */
	if (sync || raised ||
	    !(source.rank == pxc_cl.me.rank &&
	      strncmp(source.nspace, pxc_cl.me.nspace, PMIX_MAX_NSLEN) == 0))
		pxc_event_local_deliver_to(tag, code, &source, range, info, ninfo,
					   pxc_direct_event_seen, sync ? sync_ended : NULL,
					   (void *)(uintptr_t)sync);
	else
		pxc_direct_event_seen();
	pxc_array_free(info, nalloc, PMIX_INFO);
}

void pxc_event_lost_connection(void)
{
	pxc_event_local_deliver(PMIX_ERR_LOST_CONNECTION_TO_SERVER, &pxc_cl.server,
				PMIX_RANGE_PROC_LOCAL, NULL, 0);
}

/* ---- registration API ---- */

struct reg {
	size_t id;
	pmix_hdlr_reg_cbfunc_t cb;
	void *cbdata;
};

static void reg_done(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	struct reg *r = arg;

	(void)reply;
	if (st != PMIX_SUCCESS)
		pxc_event_hdlr_remove(r->id);
	if (r->cb)
		r->cb(st, r->id, r->cbdata);
	free(r);
}

static void reg_later(void *arg)
{
	reg_done(PMIX_SUCCESS, NULL, arg);
}

/* REGEVENTS of handler id: its codes and infos, and the id itself
 * (PXC_REG_HDLR_ID, for the cached events the server then sends it). */
static pmix_status_t send_regevents(size_t id, const pmix_status_t *codes, size_t ncodes,
				    const pmix_info_t *info, size_t ninfo, struct reg *r, bool wait)
{
	pmix_info_t *all = PMIx_Info_create(ninfo + 1);
	pmix_data_buffer_t b;
	pmix_status_t st;

	if (!all)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < ninfo; i++)
		PMIx_Info_xfer(&all[i], &info[i]);
	PMIx_Info_load(&all[ninfo], PXC_REG_HDLR_ID, &id, PMIX_SIZE);
	pxc_buf_init(&b);
	if ((st = pxc_pack_array(&b, codes, ncodes, PMIX_STATUS)) == PMIX_SUCCESS)
		st = pxc_pack_array(&b, all, id < 0x80000000u ? ninfo + 1 : ninfo, PMIX_INFO);
	PMIx_Info_free(all, ninfo + 1);
	if (st == PMIX_SUCCESS && wait)
		st = pxc_client_call(PXC_CMD_REGEVENTS, &b, 0, NULL, NULL);
	else if (st == PMIX_SUCCESS)
		st = pxc_client_send(PXC_CMD_REGEVENTS, &b, 0, reg_done, r);
	pxc_buf_clear(&b);
	return st;
}

static pmix_status_t register_async(size_t id, const pmix_status_t *codes, size_t ncodes,
				    const pmix_info_t *info, size_t ninfo,
				    pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
	struct reg *r = malloc(sizeof(*r));
	pmix_status_t st = PMIX_ERR_UNREACH;

	if (!r)
		return PMIX_ERR_NOMEM;
	*r = (struct reg){ id, cbfunc, cbdata };
	if (pxc_client_ready() == PMIX_SUCCESS && pxc_role != PXC_ROLE_SERVER)
		st = send_regevents(id, codes, ncodes, info, ninfo, r, false);
	else if (pxc_progress_global() &&
		 pxc_progress_post(pxc_progress_global(), reg_later, r) == 0)
		st = PMIX_SUCCESS;
	if (st != PMIX_SUCCESS)
		free(r);
	return st;
}

pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes, pmix_info_t info[],
					  size_t ninfo, pmix_notification_fn_t evhdlr,
					  pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
	size_t id;
	pmix_status_t st;
	bool wait;

	if (!evhdlr || (!codes && ncodes) || (!info && ninfo))
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_NONE || !pxc_progress_global())
		return PMIX_ERR_INIT;
	st = pxc_event_hdlr_add(codes, ncodes, info, ninfo, evhdlr, &id);
	if (st != PMIX_SUCCESS)
		return st;
	if (cbfunc)
		st = register_async(id, codes, ncodes, info, ninfo, cbfunc, cbdata);
	else {
		wait = !pxc_progress_in_thread(pxc_progress_global());
		st = PMIX_SUCCESS;
		if (pxc_client_ready() == PMIX_SUCCESS && pxc_role != PXC_ROLE_SERVER)
			st = wait ? send_regevents(id, codes, ncodes, info, ninfo, NULL, true) :
				    register_async(id, codes, ncodes, info, ninfo, NULL, NULL);
	}
	if (st != PMIX_SUCCESS) {
		pxc_event_hdlr_remove(id);
		return st;
	}
	return cbfunc ? PMIX_SUCCESS : (pmix_status_t)id;
}

pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
					    void *cbdata)
{
	if (pxc_role == PXC_ROLE_NONE)
		return PMIX_ERR_INIT;
	/* An unknown id: the caller's callback still comes, with NOT_FOUND. */
	if (!pxc_event_hdlr_remove(evhdlr_ref))
		return cbfunc ? pxc_request_op_later(PMIX_ERR_NOT_FOUND, cbfunc, cbdata) :
				PMIX_ERR_NOT_FOUND;
	return pxc_request_op_later(PMIX_SUCCESS, cbfunc, cbdata);
}

/* ---- notify ---- */

static pmix_status_t notify_server(pmix_status_t code, const pmix_proc_t *source,
				   pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	pxc_buf_init(&b);
	if ((st = pxc_pack_status(&b, code)) == PMIX_SUCCESS &&
	    (st = pxc_pack_proc(&b, source)) == PMIX_SUCCESS &&
	    (st = pxc_pack(&b, &range, 1, PMIX_DATA_RANGE)) == PMIX_SUCCESS &&
	    (st = pxc_pack_array(&b, info, ninfo, PMIX_INFO)) == PMIX_SUCCESS)
		return pxc_request_op_nb(PXC_CMD_NOTIFY, &b, 0, false, cbfunc, cbdata);
	pxc_buf_clear(&b);
	return st;
}

/* Whether this process is among the event's recipients: for CUSTOM only
 * when PMIX_EVENT_CUSTOM_RANGE names it (or its namespace's wildcard). */
static bool self_in_range(pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
	return range != PMIX_RANGE_CUSTOM || pxc_event_custom_has(info, ninfo, &pxc_cl.me);
}

pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
				pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_proc_t src;

	if (!info && ninfo)
		return PMIX_ERR_BAD_PARAM;
	if (pxc_role == PXC_ROLE_SERVER)
		return pxc_server_notify(status, source, range, info, ninfo, cbfunc, cbdata);
	if (!pxc_client_initialized())
		return PMIX_ERR_INIT;
	src = source ? *source : pxc_cl.me;
	if (range != PMIX_RANGE_RM && self_in_range(range, info, ninfo))
		pxc_event_local_deliver(status, &src, range, info, ninfo);
	if (range == PMIX_RANGE_PROC_LOCAL || pxc_client_ready() != PMIX_SUCCESS)
		return pxc_request_op_later(PMIX_SUCCESS, cbfunc, cbdata);
	return notify_server(status, &src, range, info, ninfo, cbfunc, cbdata);
}
