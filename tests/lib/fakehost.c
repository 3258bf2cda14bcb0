/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fakehost.c - the host modules of the server tests (fakehost.h): one
 * that answers at once and fails on request, one that keeps what it is
 * handed and answers later from its keeper thread, one that answers
 * twice or late.
 */
#include "fakehost.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmix.h>
#include "pack.h"
#include "srvthread.h"

struct fake_host host;

/* ------------------------------------------- a host that answers at once */

static pmix_status_t h_connected(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{
	(void)p;
	(void)so;
	host.n_connected++;
	if (host.fail_connected)
		return PMIX_ERR_NO_PERMISSIONS;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_finalized(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{
	(void)p;
	(void)so;
	host.n_finalized++;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_abort(const pmix_proc_t *p, void *so, int st, const char msg[],
			     pmix_proc_t procs[], size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	(void)p;
	(void)so;
	(void)st;
	(void)procs;
	(void)n;
	host.n_abort++;
	host.abort_msg_null += msg == NULL;
	if (host.fail_abort)
		return PMIX_ERROR;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_fence(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
			     size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
			     void *cbd)
{
	(void)procs;
	(void)info;
	(void)ninfo;
	host.n_fence++;
	host.fence_nprocs = n;
	host.fence_ndata = ndata;
	pxc_buf_clear(&host.fence_blob);
	pxc_buf_load_copy(&host.fence_blob, data, ndata);
	if (host.fail_fence)
		return PMIX_ERR_UNREACH;
	cb(PMIX_SUCCESS, data, ndata, cbd, NULL, NULL); /* one server: all = ours */
	return PMIX_SUCCESS;
}

static pmix_status_t h_dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
			      pmix_modex_cbfunc_t cb, void *cbd)
{
	(void)info;
	(void)ninfo;
	host.n_dmodex++;
	if (host.fail_dmodex)
		return PMIX_ERR_NOT_FOUND;
	if (host.dmodex_job) {
		pxc_store_t *st = pxc_store_create();
		pmix_value_t v = { .type = PMIX_UINT32, .data.uint32 = 7 };
		pmix_data_buffer_t b;

		pxc_buf_init(&b);
		pxc_store_put(st, p->nspace, PXC_LVL_JOB, 0, PMIX_JOB_SIZE, &v, PMIX_SCOPE_UNDEF);
		pxc_store_pack(st, p->nspace, -1, PXC_ID_ANY, PXC_KINDS_INFO, &b);
		pxc_store_destroy(st);
		cb(PMIX_SUCCESS, b.base_ptr, b.bytes_used, cbd, NULL, NULL);
		pxc_buf_clear(&b);
		return PMIX_SUCCESS;
	}
	cb(PMIX_SUCCESS, host.dmodex_blob.base_ptr, host.dmodex_blob.bytes_used, cbd, NULL, NULL);
	return PMIX_SUCCESS;
}

static pmix_status_t h_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t n,
			       pmix_op_cbfunc_t cb, void *cbd)
{
	(void)p;
	(void)info;
	(void)n;
	if (host.fail_publish)
		return PMIX_ERR_DUPLICATE_KEY;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[], size_t n,
			      pmix_lookup_cbfunc_t cb, void *cbd)
{
	pmix_pdata_t pd;

	(void)p;
	(void)info;
	(void)n;
	if (host.fail_lookup)
		return PMIX_ERR_NOT_FOUND;
	memset(&pd, 0, sizeof(pd));
	PMIx_Load_key(pd.key, keys[0]);
	pd.value.type = PMIX_STRING;
	pd.value.data.string = "port-1";
	cb(PMIX_SUCCESS, &pd, 1, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_spawn(const pmix_proc_t *p, const pmix_info_t ji[], size_t ni,
			     const pmix_app_t apps[], size_t na, pmix_spawn_cbfunc_t cb, void *cbd)
{
	(void)p;
	(void)ji;
	(void)ni;
	(void)apps;
	(void)na;
	if (host.fail_spawn)
		return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
	cb(PMIX_SUCCESS, "child.ns", cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_connect(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
			       size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
	(void)procs;
	(void)n;
	(void)info;
	(void)ninfo;
	host.n_connect++;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_notify(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t r,
			      pmix_info_t info[], size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	(void)code;
	(void)src;
	(void)r;
	(void)info;
	(void)n;
	host.n_notify++;
	if (host.fail_notify)
		return PMIX_ERROR;
	cb(PMIX_SUCCESS, cbd);
	return PMIX_SUCCESS;
}

static pmix_status_t h_query(pmix_proc_t *p, pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb,
			     void *cbd)
{
	pmix_info_t res;

	(void)p;
	(void)nq;
	host.n_query++;
	if (host.fail_query)
		return PMIX_ERR_NOT_SUPPORTED;
	PMIx_Info_load(&res, q[0].keys[0], "from-host", PMIX_STRING);
	cb(PMIX_SUCCESS, &res, 1, cbd, NULL, NULL);
	PMIx_Info_destruct(&res);
	return PMIX_SUCCESS;
}

static void h_tool(pmix_info_t *info, size_t n, pmix_tool_connection_cbfunc_t cb, void *cbd)
{
	pmix_proc_t p;

	(void)info;
	(void)n;
	host.n_tool++;
	PMIx_Load_procid(&p, "host.tool", 7);
	cb(PMIX_SUCCESS, &p, cbd);
}

/* Records the ids a credential call was handed (fake_host.cred_*). */
static void cred_ids(const pmix_info_t *dirs, size_t n)
{
	host.n_cred++;
	host.cred_nids = 0;
	host.cred_uid = host.cred_gid = -1;
	for (size_t i = 0; i < n; i++) {
		bool uid = PMIx_Check_key(dirs[i].key, PMIX_USERID);
		long v = dirs[i].value.type == PMIX_UINT32 ? (long)dirs[i].value.data.uint32 : -1;

		if (!uid && !PMIx_Check_key(dirs[i].key, PMIX_GRPID))
			continue;
		host.cred_nids++;
		*(uid ? &host.cred_uid : &host.cred_gid) = v;
	}
}

static pmix_status_t h_getcred(const pmix_proc_t *p, const pmix_info_t dirs[], size_t n,
			       pmix_credential_cbfunc_t cb, void *cbd)
{
	char bytes[] = FAKE_CRED;
	pmix_byte_object_t bo = { .bytes = bytes, .size = FAKE_CRED_LEN };
	pmix_info_t info;

	(void)p;
	cred_ids(dirs, n);
	if (host.fail_cred)
		return PMIX_ERR_NO_PERMISSIONS;
	/* the answer lives on this stack: the server must copy it */
	PMIx_Info_load(&info, PMIX_CRED_TYPE, FAKE_CRED_TYPE, PMIX_STRING);
	cb(PMIX_SUCCESS, &bo, &info, 1, cbd);
	PMIx_Info_destruct(&info);
	memset(bytes, 'x', sizeof(bytes));
	return PMIX_SUCCESS;
}

static pmix_status_t h_valcred(const pmix_proc_t *p, const pmix_byte_object_t *cred,
			       const pmix_info_t dirs[], size_t n, pmix_validation_cbfunc_t cb,
			       void *cbd)
{
	pmix_info_t res[2];
	uint32_t uid, gid;

	(void)p;
	cred_ids(dirs, n);
	host.cred_ngot = cred->size;
	if (cred->size)
		memcpy(host.cred_got, cred->bytes,
		       cred->size < sizeof(host.cred_got) ? cred->size : sizeof(host.cred_got));
	if (host.fail_cred)
		return PMIX_ERR_NO_PERMISSIONS;
	if (cred->size != FAKE_CRED_LEN || memcmp(cred->bytes, FAKE_CRED, FAKE_CRED_LEN) != 0) {
		cb(PMIX_ERR_INVALID_CRED, NULL, 0, cbd);
		return PMIX_SUCCESS;
	}
	uid = (uint32_t)host.cred_uid;
	gid = (uint32_t)host.cred_gid;
	PMIx_Info_load(&res[0], PMIX_USERID, &uid, PMIX_UINT32);
	PMIx_Info_load(&res[1], PMIX_GRPID, &gid, PMIX_UINT32);
	cb(PMIX_SUCCESS, res, 2, cbd);
	return PMIX_SUCCESS;
}

pmix_server_module_t full_module = {
	.client_connected = h_connected,
	.client_finalized = h_finalized,
	.abort = h_abort,
	.fence_nb = h_fence,
	.direct_modex = h_dmodex,
	.publish = h_publish,
	.lookup = h_lookup,
	.spawn = h_spawn,
	.connect = h_connect,
	.notify_event = h_notify,
	.query = h_query,
	.tool_connected = h_tool,
	.get_credential = h_getcred,
	.validate_credential = h_valcred,
};

/* ------------------------------------------- a host that keeps pointers */

/* The Standard lets a host keep what a module function was handed until
 * it calls the function's callback (PRRTE and Slurm's plugin do). This
 * host keeps the pointers it gets, with a fingerprint (the arguments
 * packed at upcall time), and a keeper thread checks them against the
 * fingerprint keep_ms later, long after the upcall returned, then calls
 * back from its own thread. Freed memory is filled by malloc's perturb
 * (runner.h: perturb_frees), so a use after free shows as a mismatch or a
 * crash. */
enum { K_OP, K_MODEX, K_LOOKUP, K_SPAWN, K_INFO, K_TOOL, K_CRED, K_VALID };

#define KEPT_CRED "kept-credential" /* what a kept get_credential answers */

typedef struct kept {
	struct kept *next;
	char what[24];
	/* what the host was handed (borrowed pointers) */
	const pmix_proc_t *proc;
	const char *str;
	const pmix_proc_t *procs;
	size_t nprocs;
	const pmix_info_t *info, *info2;
	size_t ninfo, ninfo2;
	char **keys;
	const pmix_app_t *apps;
	size_t napps;
	const pmix_status_t *codes;
	size_t ncodes;
	const pmix_query_t *queries;
	size_t nq;
	const char *data;
	size_t ndata;
	pmix_data_buffer_t fp; /* fingerprint at upcall time */
	bool nocheck;          /* the server may be gone by then */
	/* the answer */
	int kind;
	union {
		pmix_op_cbfunc_t op;
		pmix_modex_cbfunc_t modex;
		pmix_lookup_cbfunc_t lookup;
		pmix_spawn_cbfunc_t spawn;
		pmix_info_cbfunc_t info;
		pmix_tool_connection_cbfunc_t tool;
		pmix_credential_cbfunc_t cred;
		pmix_validation_cbfunc_t valid;
	} cb;
	void *cbdata;
	pmix_status_t status;
	const char *rdata; /* modex answer */
	size_t nrdata;
	struct timespec due; /* when to check and answer */
} kept_t;

struct keeper_state keeper = { .lock = PTHREAD_MUTEX_INITIALIZER,
			       .cond = PTHREAD_COND_INITIALIZER };

static void fingerprint(const kept_t *k, pmix_data_buffer_t *b)
{
	pxc_buf_init(b);
	if (k->proc)
		pxc_pack_proc(b, k->proc);
	pxc_pack_str(b, k->str);
	pxc_pack_array(b, k->procs, k->nprocs, PMIX_PROC);
	pxc_pack_array(b, k->info, k->ninfo, PMIX_INFO);
	pxc_pack_array(b, k->info2, k->ninfo2, PMIX_INFO);
	for (size_t i = 0; k->keys && k->keys[i]; i++)
		pxc_pack_str(b, k->keys[i]);
	pxc_pack_array(b, k->apps, k->napps, PMIX_APP);
	pxc_pack_array(b, k->codes, k->ncodes, PMIX_STATUS);
	pxc_pack_array(b, k->queries, k->nq, PMIX_QUERY);
	if (k->ndata)
		pxc_buf_append(b, k->data, k->ndata);
}

static void kept_answer(kept_t *k)
{
	pmix_pdata_t pd;
	pmix_proc_t tool;
	pmix_byte_object_t bo = { .bytes = KEPT_CRED, .size = sizeof(KEPT_CRED) };

	switch (k->kind) {
	case K_OP: k->cb.op(k->status, k->cbdata); break;
	case K_MODEX: k->cb.modex(k->status, k->rdata, k->nrdata, k->cbdata, NULL, NULL); break;
	case K_LOOKUP:
		memset(&pd, 0, sizeof(pd));
		PMIx_Load_key(pd.key, "life.key");
		pd.value.type = PMIX_STRING;
		pd.value.data.string = "port-1";
		k->cb.lookup(k->status, &pd, 1, k->cbdata);
		break;
	case K_SPAWN: k->cb.spawn(k->status, "child.ns", k->cbdata); break;
	case K_INFO: k->cb.info(k->status, NULL, 0, k->cbdata, NULL, NULL); break;
	case K_CRED: k->cb.cred(k->status, &bo, NULL, 0, k->cbdata); break;
	case K_VALID: k->cb.valid(k->status, NULL, 0, k->cbdata); break;
	default: PMIx_Load_procid(&tool, "host.tool", 7); k->cb.tool(k->status, &tool, k->cbdata);
	}
}

static void kept_check(kept_t *k)
{
	pmix_data_buffer_t now;

	fingerprint(k, &now);
	if (now.bytes_used != k->fp.bytes_used ||
	    memcmp(now.base_ptr, k->fp.base_ptr, now.bytes_used) != 0) {
		pthread_mutex_lock(&keeper.lock);
		keeper.bad++;
		strncat(keeper.bad_what, k->what,
			sizeof(keeper.bad_what) - strlen(keeper.bad_what) - 2);
		strcat(keeper.bad_what, " ");
		pthread_mutex_unlock(&keeper.lock);
	}
	pxc_buf_clear(&now);
}

static void *keeper_main(void *arg)
{
	(void)arg;
	for (;;) {
		kept_t *k;

		pthread_mutex_lock(&keeper.lock);
		while (!keeper.head)
			pthread_cond_wait(&keeper.cond, &keeper.lock);
		k = keeper.head;
		keeper.head = k->next;
		if (!keeper.head)
			keeper.tail = NULL;
		pthread_mutex_unlock(&keeper.lock);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &k->due, NULL) == EINTR)
			;
		if (!k->nocheck)
			kept_check(k);
		kept_answer(k);
		pxc_buf_clear(&k->fp);
		free(k);
		pthread_mutex_lock(&keeper.lock);
		keeper.ndone++;
		pthread_cond_broadcast(&keeper.cond);
		pthread_mutex_unlock(&keeper.lock);
	}
	return NULL;
}

static kept_t *kept_new(const char *what, int kind, void *cbdata)
{
	kept_t *k = calloc(1, sizeof(*k));

	snprintf(k->what, sizeof(k->what), "%s", what);
	k->kind = kind;
	k->cbdata = cbdata;
	clock_gettime(CLOCK_MONOTONIC, &k->due);
	k->due.tv_sec += keeper.keep_ms / 1000;
	k->due.tv_nsec += (keeper.keep_ms % 1000) * 1000000L;
	if (k->due.tv_nsec >= 1000000000L) {
		k->due.tv_sec++;
		k->due.tv_nsec -= 1000000000L;
	}
	return k;
}

/* Called in the upcall (the server's progress thread). */
static pmix_status_t kept_push(kept_t *k)
{
	fingerprint(k, &k->fp);
	pthread_mutex_lock(&keeper.lock);
	if (!keeper.started) {
		pthread_create(&keeper.thr, NULL, keeper_main, NULL);
		pthread_detach(keeper.thr);
		keeper.started = true;
	}
	if (keeper.tail)
		keeper.tail->next = k;
	else
		keeper.head = k;
	keeper.tail = k;
	keeper.nkept++;
	strncat(keeper.seen, k->what, sizeof(keeper.seen) - strlen(keeper.seen) - 2);
	strcat(keeper.seen, ",");
	pthread_cond_broadcast(&keeper.cond);
	pthread_mutex_unlock(&keeper.lock);
	return PMIX_SUCCESS;
}

/* Waits until n kept requests were answered. */
void keeper_drain(int n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&keeper.lock);
	while (keeper.ndone < n && pthread_cond_timedwait(&keeper.cond, &keeper.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&keeper.lock);
	ck_assert_int_ge(keeper.ndone, n);
}

/* Waits until the host was handed n requests. */
void keeper_wait_kept(int n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&keeper.lock);
	while (keeper.nkept < n && pthread_cond_timedwait(&keeper.cond, &keeper.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&keeper.lock);
	ck_assert_int_ge(keeper.nkept, n);
}

bool keeper_saw(const char *what)
{
	char pat[32];

	snprintf(pat, sizeof(pat), "%s,", what);
	return strstr(keeper.seen, pat) != NULL;
}

static pmix_status_t k_connected2(const pmix_proc_t *p, void *so, pmix_info_t info[], size_t ninfo,
				  pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("connected", K_OP, cbd);

	(void)so;
	k->proc = p;
	k->info = info;
	k->ninfo = ninfo;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_finalized(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("finalized", K_OP, cbd);

	(void)so;
	k->proc = p;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_abort(const pmix_proc_t *p, void *so, int st, const char msg[],
			     pmix_proc_t procs[], size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("abort", K_OP, cbd);

	(void)so;
	(void)st;
	k->proc = p;
	k->str = msg;
	k->procs = procs;
	k->nprocs = n;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t n,
			       pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("publish", K_OP, cbd);

	k->proc = p;
	k->info = info;
	k->ninfo = n;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[], size_t n,
			      pmix_lookup_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("lookup", K_LOOKUP, cbd);

	k->proc = p;
	k->keys = keys;
	k->info = info;
	k->ninfo = n;
	k->cb.lookup = cb;
	return kept_push(k);
}

static pmix_status_t k_unpublish(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
				 size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("unpublish", K_OP, cbd);

	k->proc = p;
	k->keys = keys;
	k->info = info;
	k->ninfo = n;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_spawn(const pmix_proc_t *p, const pmix_info_t ji[], size_t ni,
			     const pmix_app_t apps[], size_t na, pmix_spawn_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("spawn", K_SPAWN, cbd);

	k->proc = p;
	k->info = ji;
	k->ninfo = ni;
	k->apps = apps;
	k->napps = na;
	k->cb.spawn = cb;
	return kept_push(k);
}

static void k_log(const pmix_proc_t *p, const pmix_info_t data[], size_t nd,
		  const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("log", K_OP, cbd);

	k->proc = p;
	k->info = data;
	k->ninfo = nd;
	k->info2 = dirs;
	k->ninfo2 = ndirs;
	k->cb.op = cb;
	kept_push(k);
}

static pmix_status_t k_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
			     size_t n, const pmix_info_t info[], size_t ninfo,
			     pmix_info_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("group", K_INFO, cbd);

	(void)op;
	k->str = grp;
	k->procs = procs;
	k->nprocs = n;
	k->info = info;
	k->ninfo = ninfo;
	k->cb.info = cb;
	return kept_push(k);
}

static pmix_status_t k_query(pmix_proc_t *p, pmix_query_t *q, size_t nq, pmix_info_cbfunc_t cb,
			     void *cbd)
{
	kept_t *k = kept_new("query", K_INFO, cbd);

	k->proc = p;
	k->queries = q;
	k->nq = nq;
	k->cb.info = cb;
	return kept_push(k);
}

static pmix_status_t k_jobctl(const pmix_proc_t *p, const pmix_proc_t targets[], size_t nt,
			      const pmix_info_t dirs[], size_t nd, pmix_info_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("jobctl", K_INFO, cbd);

	k->proc = p;
	k->procs = targets;
	k->nprocs = nt;
	k->info = dirs;
	k->ninfo = nd;
	k->cb.info = cb;
	return kept_push(k);
}

static pmix_status_t k_notify(pmix_status_t code, const pmix_proc_t *src, pmix_data_range_t r,
			      pmix_info_t info[], size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("notify", K_OP, cbd);

	(void)code;
	(void)r;
	k->proc = src;
	k->info = info;
	k->ninfo = n;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_regevents(pmix_status_t *codes, size_t nc, const pmix_info_t info[],
				 size_t n, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("regevents", K_OP, cbd);

	k->codes = codes;
	k->ncodes = nc;
	k->info = info;
	k->ninfo = n;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
			      pmix_modex_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("dmodex", K_MODEX, cbd);

	host.n_dmodex++;
	k->proc = p;
	k->info = info;
	k->ninfo = ninfo;
	k->cb.modex = cb;
	k->rdata = host.dmodex_blob.base_ptr;
	k->nrdata = host.dmodex_blob.bytes_used;
	return kept_push(k);
}

static pmix_status_t k_fence(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
			     size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
			     void *cbd)
{
	kept_t *k = kept_new("fence", K_MODEX, cbd);

	k->procs = procs;
	k->nprocs = n;
	k->info = info;
	k->ninfo = ninfo;
	k->data = data;
	k->ndata = ndata;
	k->cb.modex = cb;
	k->rdata = data;
	k->nrdata = ndata;
	return kept_push(k);
}

static pmix_status_t k_connect(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
			       size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("connect", K_OP, cbd);

	k->procs = procs;
	k->nprocs = n;
	k->info = info;
	k->ninfo = ninfo;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_disconnect(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("disconnect", K_OP, cbd);

	k->procs = procs;
	k->nprocs = n;
	k->info = info;
	k->ninfo = ninfo;
	k->cb.op = cb;
	return kept_push(k);
}

static pmix_status_t k_getcred(const pmix_proc_t *p, const pmix_info_t dirs[], size_t n,
			       pmix_credential_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("getcred", K_CRED, cbd);

	k->proc = p;
	k->info = dirs;
	k->ninfo = n;
	k->cb.cred = cb;
	return kept_push(k);
}

static pmix_status_t k_valcred(const pmix_proc_t *p, const pmix_byte_object_t *cred,
			       const pmix_info_t dirs[], size_t n, pmix_validation_cbfunc_t cb,
			       void *cbd)
{
	kept_t *k = kept_new("valcred", K_VALID, cbd);

	k->proc = p;
	k->data = cred->bytes;
	k->ndata = cred->size;
	k->info = dirs;
	k->ninfo = n;
	k->cb.valid = cb;
	return kept_push(k);
}

static void k_tool(pmix_info_t *info, size_t n, pmix_tool_connection_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("tool", K_TOOL, cbd);

	k->info = info;
	k->ninfo = n;
	k->cb.tool = cb;
	kept_push(k);
}

pmix_server_module_t keep_module = {
	.client_connected2 = k_connected2,
	.client_finalized = k_finalized,
	.abort = k_abort,
	.fence_nb = k_fence,
	.direct_modex = k_dmodex,
	.publish = k_publish,
	.lookup = k_lookup,
	.unpublish = k_unpublish,
	.spawn = k_spawn,
	.connect = k_connect,
	.disconnect = k_disconnect,
	.register_events = k_regevents,
	.notify_event = k_notify,
	.query = k_query,
	.tool_connected = k_tool,
	.log = k_log,
	.job_control = k_jobctl,
	.group = k_group,
	.get_credential = k_getcred,
	.validate_credential = k_valcred,
};

/* ---------------------------------------------- a host that calls back badly */

/* Calls back inside the upcall and again later from another thread (a
 * double callback), or, with host.hold, only later. */
static pmix_status_t b_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t n,
			       pmix_op_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("publish", K_OP, cbd);

	(void)p;
	(void)info;
	(void)n;
	k->nocheck = true;
	k->cb.op = cb;
	k->status = host.hold ? host.hold_status : PMIX_ERR_DUPLICATE_KEY;
	if (!host.hold)
		cb(PMIX_SUCCESS, cbd);
	return kept_push(k);
}

static pmix_status_t b_fence(const pmix_proc_t procs[], size_t n, const pmix_info_t info[],
			     size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
			     void *cbd)
{
	kept_t *k = kept_new("fence", K_MODEX, cbd);

	(void)procs;
	(void)n;
	(void)info;
	(void)ninfo;
	k->nocheck = true;
	k->cb.modex = cb;
	k->status = PMIX_ERROR;
	cb(PMIX_SUCCESS, data, ndata, cbd, NULL, NULL);
	return kept_push(k);
}

static pmix_status_t b_dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
			      pmix_modex_cbfunc_t cb, void *cbd)
{
	kept_t *k = kept_new("dmodex", K_MODEX, cbd);

	(void)p;
	(void)info;
	(void)ninfo;
	host.n_dmodex++;
	k->nocheck = true;
	k->cb.modex = cb;
	k->status = PMIX_ERROR;
	cb(PMIX_SUCCESS, host.dmodex_blob.base_ptr, host.dmodex_blob.bytes_used, cbd, NULL, NULL);
	return kept_push(k);
}

pmix_server_module_t bad_module = {
	.publish = b_publish,
	.fence_nb = b_fence,
	.direct_modex = b_dmodex,
};

void remote_blob(void)
{
	pxc_store_t *st = pxc_store_create();
	pmix_value_t v = { .type = PMIX_STRING };

	v.data.string = "remote-val";
	pxc_store_put(st, NS, PXC_LVL_PROC, 3, "k.r", &v, PMIX_REMOTE);
	v.data.string = "global-val";
	pxc_store_put(st, NS, PXC_LVL_PROC, 3, "k.g", &v, PMIX_GLOBAL);
	pxc_buf_init(&host.dmodex_blob);
	pxc_store_pack(st, NS, -1, PXC_ID_ANY, PXC_KINDS_ALL, &host.dmodex_blob);
	pxc_store_destroy(st);
}
