/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/spawn.c - the stepd side of PMIx_Spawn (see srun/spawn.h),
 * over the requests to srun (plug_agent_request, common/agent_client.c).
 *
 * Parent stepd: the server's spawn upcall sends SPAWN (requestor, job
 * info, apps); the reply (status, nspace) answers the server. The request
 * timeout is the spawn's own (PMIX_SPAWN_TIMEOUT, else PMIX_TIMEOUT, else
 * SlurmixTimeout) plus PLUG_SPAWN_GRACE_SEC: srun enforces the real one
 * and cancels the step itself. With PMIX_NOTIFY_COMPLETION the stepd then
 * sends SPAWN_WAIT (step), which srun answers with the child srun's exit
 * code when it ends; that becomes PMIX_EVENT_JOB_END for the requestor
 * (source and PMIX_EVENT_AFFECTED_PROC: the child nspace, wildcard rank;
 * PMIX_JOB_TERM_STATUS, PMIX_EXIT_CODE; custom range = the requestor).
 *
 * Holding the children's job information: the requesting stepd's server
 * fetched the child's registered info for its reply (server/spawn.c);
 * this stepd floods HOLD (the child nspace) over its step's tree, and
 * every other stepd of the step fetches and keeps it too
 * (pxc_server_hold_nspace), so that any process of the parent step finds
 * the children's job information at its own server, also once the child
 * step ended.
 *
 * Child stepd (SLURMIX_SPAWNED=1 in the launch env): once every local task
 * has connected to the server (PMIX_NON_PMI: at the end of prefork), send
 * SPAWN_NODE (node) to its srun.
 *
 * Threads: the upcall, client_connected and every callback here run in
 * the PMIx server's progress thread; init runs in prefork before the
 * server can call; prefork_done posts its work there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/proto.h"
#include "lib/tree.h"
#include "lib/util.h"
#include "net/ctx.h"
#include "net/transport.h"
#include "stepd/family.h"
#include "stepd/spawn.h"
#include "slurm_adapter.h"

#define PLUG_SPAWN_GRACE_SEC 30
#define PLUG_SPAWN_WAIT_SEC (7 * 86400) /* a SPAWN_WAIT's horizon */

typedef struct {
	pmix_proc_t requestor;
	pmix_spawn_cbfunc_t cbfunc;
	void *cbdata;
	bool notify;
	uint32_t step;
	char nspace[PMIX_MAX_NSLEN + 1];
} op_t;

static struct {
	uint32_t node, local, connected;
	bool spawned, nonpmi, sent;
} spawned;

void plug_spawn_stepd_init(char **env, uint32_t node, uint32_t local_tasks)
{
	const char *v;

	memset(&spawned, 0, sizeof(spawned));
	spawned.node = node;
	spawned.local = local_tasks;
	spawned.spawned = (v = plug_env_get(env, PLUG_SPAWNED_ENV)) && !strcmp(v, "1");
	spawned.nonpmi = (v = plug_env_get(env, PLUG_SPAWN_NONPMI_ENV)) && !strcmp(v, "1");
}

bool plug_spawn_parent(char **env, pmix_proc_t *parent)
{
	const char *v = plug_env_get(env, PLUG_SPAWN_PARENT_ENV);
	const char *colon = v ? strrchr(v, ':') : NULL;
	uint32_t rank;

	if (!colon || colon == v || (size_t)(colon - v) > PMIX_MAX_NSLEN ||
	    plug_parse_u32(colon + 1, 0, PMIX_RANK_VALID, &rank) < 0)
		return false;
	memset(parent, 0, sizeof(*parent));
	memcpy(parent->nspace, v, (size_t)(colon - v));
	parent->rank = rank;
	return true;
}

/* ---- PMIX_NOTIFY_COMPLETION --------------------------------------------- */

/* The child job ended: PMIX_EVENT_JOB_END for the requestor. */
static void job_end(op_t *o, int32_t code)
{
	pmix_status_t term = code ? PMIX_ERR_JOB_NON_ZERO_TERM : PMIX_SUCCESS;
	pmix_info_t *info = PMIx_Info_create(4);
	pmix_data_array_t da = { .type = PMIX_PROC, .size = 1, .array = &o->requestor };
	pmix_proc_t src;
	int icode = code;

	if (!info)
		return;
	PMIx_Load_procid(&src, o->nspace, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &src, PMIX_PROC);
	PMIx_Info_load(&info[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
	PMIx_Info_load(&info[2], PMIX_EXIT_CODE, &icode, PMIX_INT);
	PMIx_Info_load(&info[3], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIx_Notify_event(PMIX_EVENT_JOB_END, &src, PMIX_RANGE_CUSTOM, info, 4, NULL, NULL);
	PMIx_Info_free(info, 4);
}

static void wait_done(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
	op_t *o = cbdata;
	int32_t code = 0, one = 1;

	if (st == PMIX_SUCCESS && pxc_unpack(reply, &code, &one, PMIX_INT32) == PMIX_SUCCESS)
		job_end(o, code);
	else if (st != PMIX_ERR_UNREACH) /* UNREACH: this step is ending */
		plug_error("spawn: no completion notice for %s: %s", o->nspace,
			   PMIx_Error_string(st));
	free(o);
}

static void wait_child(op_t *o)
{
	pmix_data_buffer_t b;
	uint32_t step;

	pxc_buf_init(&b);
	if (plug_nspace_parse(o->nspace, NULL, &step) < 0 ||
	    pxc_pack_u32(&b, step) != PMIX_SUCCESS ||
	    plug_agent_request(PLUG_NET_SPAWN_WAIT, &b, PLUG_SPAWN_WAIT_SEC, wait_done, o) < 0) {
		plug_error("spawn: cannot wait for %s to end", o->nspace);
		free(o);
	}
	pxc_buf_clear(&b);
}

/* ---- the step holds its children's job information --------------------- */

/* Passes HOLD of ns (with its info, when there is some) to the
 * neighbours in the tree but from. */
static void hold_pass(const char *ns, const char *data, size_t ndata, uint32_t from)
{
	pmix_byte_object_t bo = { .bytes = (char *)data, .size = ndata };
	pmix_data_buffer_t b;

	if (!plug_net_ctx.net)
		return;
	pxc_buf_init(&b);
	if (pxc_pack_str(&b, ns) == PMIX_SUCCESS &&
	    (!ndata || pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT) == PMIX_SUCCESS))
		plug_net_flood(plug_net_ctx.net, PLUG_NET_HOLD, from, &b);
	pxc_buf_clear(&b);
}

static void hold_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t job, step, own_job = 0, own_step;
	pmix_byte_object_t info = { NULL, 0 };
	char *ns = NULL;
	int32_t one = 1;
	pmix_status_t st;

	(void)arg, (void)h;
	if (pxc_unpack_str(in, &ns) != PMIX_SUCCESS || !ns ||
	    plug_nspace_parse(ns, &job, &step) < 0 ||
	    plug_nspace_parse(plug_net_ctx.nspace, &own_job, &own_step) < 0 || job != own_job ||
	    step == own_step ||
	    (pxc_buf_remaining(in) &&
	     pxc_unpack(in, &info, &one, PMIX_BYTE_OBJECT) != PMIX_SUCCESS)) {
		plug_error("malformed HOLD message from node %u", from);
		free(ns);
		return;
	}
	/* the info came along (else it is fetched from the child's stepds) */
	st = info.size ? pxc_server_hold_nspace_data(ns, info.bytes, info.size) :
			 pxc_server_hold_nspace(ns);
	if (st != PMIX_SUCCESS) {
		plug_error("malformed HOLD message from node %u: %s", from, PMIx_Error_string(st));
	} else {
		hold_pass(ns, info.bytes, info.size, from);
	}
	free(ns);
	free(info.bytes);
}

int plug_spawn_net_register(plug_net_t *n)
{
	plug_net_user_t u = { .name = "spawned steps",
			      .first = PLUG_NET_HOLD,
			      .last = PLUG_NET_HOLD,
			      .msg = hold_msg };

	return plug_net_register(n, &u);
}

/* ---- the upcall --------------------------------------------------------- */

static void spawn_done(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
	pmix_byte_object_t info = { NULL, 0 };
	op_t *o = cbdata;
	char *ns = NULL;
	int32_t one = 1;

	if (st == PMIX_SUCCESS &&
	    (pxc_unpack_str(reply, &ns) != PMIX_SUCCESS || !ns || strlen(ns) > PMIX_MAX_NSLEN ||
	     (pxc_buf_remaining(reply) &&
	      pxc_unpack(reply, &info, &one, PMIX_BYTE_OBJECT) != PMIX_SUCCESS)))
		st = PMIX_ERR_UNPACK_FAILURE;
	snprintf(o->nspace, sizeof(o->nspace), "%s", st == PMIX_SUCCESS ? ns : "");
	free(ns);
	if (st == PMIX_SUCCESS) {
		plug_family_child(o->nspace); /* told of this step's failures */
		/* held before the server answers (it fetches only what it
		 * does not hold), and sent on to the step's other stepds */
		if (info.size &&
		    pxc_server_hold_nspace_data(o->nspace, info.bytes, info.size) != PMIX_SUCCESS) {
			plug_error("spawn: the job information of %s does not unpack", o->nspace);
			info.size = 0;
		}
		hold_pass(o->nspace, info.bytes, info.size, PLUG_TREE_NONE);
	}
	free(info.bytes);
	if (o->cbfunc)
		o->cbfunc(st, o->nspace, o->cbdata);
	if (st == PMIX_SUCCESS && o->notify)
		wait_child(o);
	else
		free(o);
}

static uint32_t num(const pmix_value_t *v)
{
	switch (v->type) {
	case PMIX_INT: return v->data.integer > 0 ? (uint32_t)v->data.integer : 0;
	case PMIX_INT32: return v->data.int32 > 0 ? (uint32_t)v->data.int32 : 0;
	case PMIX_UINT32: return v->data.uint32;
	case PMIX_UINT: return v->data.uint;
	default: return 0;
	}
}

/* The spawn's own timeout (PMIX_SPAWN_TIMEOUT, else PMIX_TIMEOUT), else
 * SlurmixTimeout; and whether it wants PMIX_NOTIFY_COMPLETION. */
static uint32_t req_timeout(const pmix_info_t *info, size_t ninfo, bool *notify)
{
	uint32_t t = 0, sp = 0;

	*notify = false;
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIx_Check_key(info[i].key, PMIX_TIMEOUT))
			t = num(&info[i].value);
		else if (PMIx_Check_key(info[i].key, PMIX_SPAWN_TIMEOUT))
			sp = num(&info[i].value);
		else if (PMIx_Check_key(info[i].key, PMIX_NOTIFY_COMPLETION))
			*notify = info[i].value.type != PMIX_BOOL || info[i].value.data.flag;
	}
	t = sp ? sp : t;
	return t ? t : plug_conf.timeout;
}

pmix_status_t plug_spawn_host(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
			      const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
			      void *cbdata)
{
	op_t *o = calloc(1, sizeof(*o));
	pmix_data_buffer_t b;
	uint32_t tmo;
	int rc = -1;

	if (!o)
		return PMIX_ERR_NOMEM;
	o->requestor = *proc;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	tmo = req_timeout(job_info, ninfo, &o->notify);
	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, proc) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, job_info, ninfo, PMIX_INFO) == PMIX_SUCCESS &&
	    pxc_pack_array(&b, apps, napps, PMIX_APP) == PMIX_SUCCESS &&
	    pxc_pack_u32(&b, plug_conf.spawn_overlap ? 1 : 0) == PMIX_SUCCESS &&
	    pxc_pack_u32(&b, tmo) == PMIX_SUCCESS)
		rc = plug_agent_request(PLUG_NET_SPAWN, &b, tmo + PLUG_SPAWN_GRACE_SEC, spawn_done,
					o);
	pxc_buf_clear(&b);
	if (rc < 0) {
		free(o);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

/* ---- readiness of a spawned step ---------------------------------------- */

static void node_done(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
	(void)reply, (void)cbdata;
	if (st != PMIX_SUCCESS)
		plug_error("spawn: srun did not take this node's ready report: %s",
			   PMIx_Error_string(st));
}

/* SPAWN_NODE: u32 node, and from node 0 the step's registered info (a
 * BYTE_OBJECT store blob, as a rank-WILDCARD direct modex answers it):
 * it travels with the readiness to the parent's stepd, which holds the
 * children's job information when PMIx_Spawn returns however soon the
 * children end. srun's agent takes frames of 64 KiB: a bigger blob
 * stays behind (the parent's server then fetches it). */
#define PLUG_SPAWN_INFO_MAX (60u << 10)

static void report_ready(const char *data, size_t ndata)
{
	pmix_byte_object_t bo = { .bytes = (char *)data, .size = ndata };
	pmix_data_buffer_t b;

	if (ndata > PLUG_SPAWN_INFO_MAX) {
		plug_flag("spawn: this step's job information (%zu bytes) stays behind", ndata);
		ndata = 0;
	}

	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, spawned.node) != PMIX_SUCCESS ||
	    (ndata && pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS) ||
	    plug_agent_request(PLUG_NET_SPAWN_NODE, &b, 0, node_done, NULL) < 0)
		plug_error("spawn: cannot tell srun that this node is ready");
	pxc_buf_clear(&b);
}

static void own_info(pmix_status_t st, char *data, size_t ndata, void *cbdata)
{
	(void)cbdata;
	if (st != PMIX_SUCCESS)
		plug_flag("spawn: this step's job information does not go with its ready report");
	report_ready(st == PMIX_SUCCESS ? data : NULL, st == PMIX_SUCCESS ? ndata : 0);
}

static void send_ready(void *arg)
{
	pmix_proc_t wild;

	(void)arg;
	if (!spawned.spawned || spawned.sent)
		return;
	spawned.sent = true;
	PMIx_Load_procid(&wild, plug_net_ctx.nspace, PMIX_RANK_WILDCARD);
	if (spawned.node != 0 || !plug_net_ctx.nspace[0] ||
	    PMIx_server_dmodex_request(&wild, own_info, NULL) != PMIX_SUCCESS)
		report_ready(NULL, 0);
}

void plug_spawn_client_connected(void)
{
	if (++spawned.connected == spawned.local && !spawned.nonpmi)
		send_ready(NULL);
}

void plug_spawn_prefork_done(void)
{
	pxc_progress_t *pg = pxc_progress_global();

	if (spawned.spawned && (spawned.nonpmi || !spawned.local) && pg)
		pxc_progress_post(pg, send_ready, NULL);
}

int plug_spawn_task_env(char ***env, const char *dir)
{
	const char *v = plug_env_get(*env, PLUG_SPAWN_CWD_ENV);

	/* what made this step a spawned one is not for the task's own sruns */
	if ((plug_env_get(*env, PLUG_SPAWN_PARENT_ENV) &&
	     plug_env_set(env, PLUG_SPAWN_PARENT_ENV, "") < 0) ||
	    (plug_env_get(*env, PLUG_SPAWNED_ENV) && plug_env_set(env, PLUG_SPAWNED_ENV, "") < 0) ||
	    (plug_env_get(*env, PLUG_SPAWN_SEP_ENV) &&
	     plug_env_set(env, PLUG_SPAWN_SEP_ENV, "") < 0))
		return -1;
	if (!v || strcmp(v, "1") || !dir)
		return 0;
	return chdir(dir) < 0 || plug_env_set(env, "PWD", dir) < 0 ? -1 : 0;
}
