/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_cmd.c - what each PMI-1 and PMI-2 request does (pmi_cmd.h): the two
 * command tables and their handlers, over a connection of pmi.c, which
 * reads the requests, writes the replies and carries the requests to the
 * server (see pmi.c for the design, docs/pmi.md for the mapping). A
 * handler replies at once (pxc_pmi_reply_*) or sends one request to the
 * server (pxc_pmi_request) whose callback replies; the node attributes
 * are this file's own table. Progress thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pmix.h>

#include "internal.h"
#include "pmi.h"
#include "pmi_cmd.h"
#include "pmi_spawn.h"
#include "pmi_wire.h"
#include "proto.h"
#include "server.h"

/* Bytes of puts one connection may hold, and node attributes per server. */
#define PMI_PUT_BYTES_MAX (16u << 20)
#define PMI_NODE_ATTRS_MAX 1024
/* Seconds a PMI-2 get of another node's rank waits (get_remote). */
#define PMI_GET_TIMEOUT 10

typedef struct pmi_attr {
	struct pmi_attr *next;
	char *key, *val;
} pmi_attr_t;

/* The node attributes (info-putnodeattr) of this server. */
static struct {
	pmi_attr_t *head;
	size_t n;
} pmi_attrs;

void pxc_pmi_attrs_clear(void)
{
	while (pmi_attrs.head) {
		pmi_attr_t *a = pmi_attrs.head;

		pmi_attrs.head = a->next;
		free(a->key);
		free(a->val);
		free(a);
	}
	pmi_attrs.n = 0;
}

/* ------------------------------------------------------------ the store */

static const pmix_value_t *job_value(const pxc_pmi_conn_t *c, const char *key)
{
	return pxc_store_get(c->kvs, c->proc.nspace, PXC_LVL_JOB, 0, key, NULL);
}

static long job_long(const pxc_pmi_conn_t *c, const char *key, long dflt)
{
	const pmix_value_t *v = job_value(c, key);
	long n = v ? pxc_srv_value_long(v) : -1;

	return n >= 0 ? n : dflt;
}

struct find {
	const char *key;
	const pmix_value_t *val;
};

static int find_key(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		    const pmix_value_t *val, uint8_t kind, void *arg)
{
	struct find *f = arg;

	(void)ns, (void)lvl, (void)id, (void)kind;
	if (strcmp(key, f->key))
		return 0;
	f->val = val;
	return 1;
}

/* A posted key of any rank of the namespace (srcid < 0), or of srcid. */
static const pmix_value_t *posted(const pxc_pmi_conn_t *c, const char *key, long srcid)
{
	struct find f = { key, NULL };

	pxc_store_foreach(c->kvs, c->proc.nspace, PXC_LVL_PROC,
			  srcid >= 0 ? (uint32_t)srcid : PXC_ID_ANY, PXC_KINDS_POSTED, find_key,
			  &f);
	return f.val;
}

/* The string a get answers with: the special keys, then posted data. */
static int lookup(const pxc_pmi_conn_t *c, const char *key, long srcid, const char **out)
{
	const pmix_value_t *v = NULL;

	if (!strcmp(key, "PMI_process_mapping"))
		v = job_value(c, PMIX_ANL_MAP);
	if (!v)
		v = posted(c, key, srcid);
	if (!v && (v = job_value(c, key)) && v->type != PMIX_STRING)
		v = NULL; /* job information: a PMI spawn's preput pairs */
	if (!v) {
		*out = NULL;
		return 0;
	}
	if (v->type != PMIX_STRING || !v->data.string)
		return -1;
	*out = v->data.string;
	return 0;
}

/* ---------------------------------------------------------- the commands */

static bool same_kvs(const pxc_pmi_conn_t *c, const char *kvs)
{
	return !kvs || !strcmp(kvs, c->proc.nspace);
}

static int check_key(pxc_pmi_conn_t *c, const char *key)
{
	if (!key || !*key)
		return pxc_pmi_reply_error(c, "missing key"), -1;
	if (strlen(key) > PXC_PMI_KEYLEN_MAX || strlen(key) > PMIX_MAX_KEYLEN)
		return pxc_pmi_reply_error(c, "key too long"), -1;
	return 0;
}

static void do_init(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	long v, sub;

	if (c->version) {
		pxc_pmi_reply_error(c, "init twice");
		return;
	}
	if (pxc_pmi_int(pxc_pmi_get(m, "pmi_version"), 1, 2, &v) < 0 ||
	    pxc_pmi_int(pxc_pmi_get(m, "pmi_subversion"), 0, 99, &sub) < 0) {
		pxc_pmi_reply_error(c, "init needs pmi_version 1 or 2 and pmi_subversion");
		return;
	}
	c->version = (int)v;
	if (pxc_pmi_hello(c) < 0) {
		c->version = 0;
		pxc_pmi_reply_error(c, "cannot reach the server");
	}
}

static void do_maxes(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pxc_pmi_out_t o;

	(void)m;
	pxc_pmi_reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "kvsname_max", PXC_PMI_KVSNAME_MAX);
	pxc_pmi_out_addi(&o, "keylen_max", PXC_PMI_KEYLEN_MAX);
	pxc_pmi_out_addi(&o, "vallen_max", PXC_PMI_VALLEN_MAX);
	pxc_pmi_send(c, &o);
}

static void reply_long(pxc_pmi_conn_t *c, const char *key, long v)
{
	pxc_pmi_out_t o;

	pxc_pmi_reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, key, v);
	pxc_pmi_send(c, &o);
}

static long my_appnum(const pxc_pmi_conn_t *c)
{
	const pmix_value_t *v = pxc_store_get(c->kvs, c->proc.nspace, PXC_LVL_PROC, c->proc.rank,
					      PMIX_APPNUM, NULL);
	long n = v ? pxc_srv_value_long(v) : -1;

	return n >= 0 ? n : job_long(c, PMIX_APPNUM, 0);
}

static void do_appnum(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_long(c, "appnum", my_appnum(c));
}

static void do_universe(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_long(c, "size", job_long(c, PMIX_UNIV_SIZE, job_long(c, PMIX_JOB_SIZE, 1)));
}

static void do_kvsname(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	pxc_pmi_reply_ok(c, c->version == 2 ? "jobid" : "kvsname", c->proc.nspace);
}

static void do_put(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val = pxc_pmi_get(m, "value");
	pmix_value_t v = { .type = PMIX_STRING };
	size_t n;

	if (!same_kvs(c, pxc_pmi_get(m, "kvsname")))
		return pxc_pmi_reply_error(c, "unknown kvsname");
	if (check_key(c, key) < 0)
		return;
	if (!val)
		return pxc_pmi_reply_error(c, "missing value");
	if ((n = strlen(val)) > PXC_PMI_VALLEN_MAX)
		return pxc_pmi_reply_error(c, "value too long");
	if (c->put_bytes + n + strlen(key) > PMI_PUT_BYTES_MAX)
		return pxc_pmi_reply_error(c, "too much data put");
	v.data.string = (char *)val;
	if (pxc_store_put(c->unc, c->proc.nspace, PXC_LVL_PROC, c->proc.rank, key, &v,
			  PMIX_GLOBAL) < 0 ||
	    pxc_store_put(c->kvs, c->proc.nspace, PXC_LVL_PROC, c->proc.rank, key, &v,
			  PMIX_GLOBAL) < 0)
		return pxc_pmi_reply_error(c, "out of memory");
	c->put_bytes += n + strlen(key);
	pxc_pmi_reply_ok(c, NULL, NULL);
}

static void fence_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	if (st == PMIX_SUCCESS)
		st = pxc_pmi_merge_blob(c, in);
	if (st != PMIX_SUCCESS)
		return pxc_pmi_reply_error(c, PMIx_Error_string(st));
	pxc_pmi_reply_ok(c, NULL, NULL);
}

/* The puts since the last commit, then a collecting fence of all ranks. */
static void do_fence(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t blob, b;
	pmix_byte_object_t bo;
	pmix_info_t info;
	bool yes = true;
	int rc = 0;

	(void)m;
	pxc_buf_init(&blob);
	pxc_buf_init(&b);
	if (pxc_store_count(c->unc, c->proc.nspace, PXC_LVL_PROC, c->proc.rank, PXC_KINDS_POSTED)) {
		rc = pxc_store_pack(c->unc, c->proc.nspace, PXC_LVL_PROC, c->proc.rank,
				    PXC_KINDS_POSTED, &blob);
		bo.bytes = blob.base_ptr;
		bo.size = blob.bytes_used;
		if (rc == 0 && (pxc_pack(&b, &bo, 1, PMIX_BYTE_OBJECT) != PMIX_SUCCESS ||
				pxc_pmi_request(c, PXC_CMD_COMMIT, &b, NULL) < 0))
			rc = -1;
		if (rc == 0)
			pxc_store_remove(c->unc, c->proc.nspace, -1, PXC_ID_ANY, PXC_KINDS_ALL);
	}
	pxc_buf_clear(&blob);
	pxc_buf_clear(&b);
	PMIx_Info_load(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	if (rc == 0 && (pxc_pack_array(&b, NULL, 0, PMIX_PROC) != PMIX_SUCCESS ||
			pxc_pack_array(&b, &info, 1, PMIX_INFO) != PMIX_SUCCESS ||
			pxc_pmi_request(c, PXC_CMD_FENCE, &b, fence_done) < 0))
		rc = -1;
	PMIx_Info_destruct(&info);
	pxc_buf_clear(&b);
	if (rc < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
}

static void get_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	const char *val = NULL;

	if (st == PMIX_SUCCESS)
		st = pxc_pmi_merge_blob(c, in);
	if (st == PMIX_ERR_NOT_FOUND ||
	    (st == PMIX_SUCCESS && lookup(c, c->get_key, -1, &val) == 0))
		pxc_pmi_reply_value(c, val);
	else
		pxc_pmi_reply_error(c, st == PMIX_SUCCESS ? "not a string value" :
							    PMIx_Error_string(st));
	free(c->get_key);
	c->get_key = NULL;
}

/* A PMI-2 get from a known source rank that is not here: GET (the server
 * looks at a local rank's commits or asks the host's direct modex). After
 * a fence the key is there or nowhere: PMIX_IMMEDIATE, and a short
 * timeout for a remote rank that never committed. */
static void get_remote(pxc_pmi_conn_t *c, const char *key, long src)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;

	pmix_info_t info[2];
	bool yes = true;
	int tmo = PMI_GET_TIMEOUT;

	PMIx_Load_procid(&p, c->proc.nspace, (pmix_rank_t)src);
	PMIx_Info_load(&info[0], PMIX_IMMEDIATE, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
	pxc_buf_init(&b);
	if (!(c->get_key = strdup(key)) || pxc_pack_proc(&b, &p) != PMIX_SUCCESS ||
	    pxc_pack_str(&b, key) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, info, 2, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_pmi_request(c, PXC_CMD_GET, &b, get_done) < 0) {
		free(c->get_key);
		c->get_key = NULL;
		pxc_pmi_reply_error(c, "cannot reach the server");
	}
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	pxc_buf_clear(&b);
}

static void do_get(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val;
	const char *kvs = pxc_pmi_get(m, c->version == 2 ? "jobid" : "kvsname");
	const char *s = pxc_pmi_get(m, "srcid");
	long src = -1, size = job_long(c, PMIX_JOB_SIZE, 0);

	if (!same_kvs(c, kvs))
		return pxc_pmi_reply_error(c, "unknown kvsname");
	if (check_key(c, key) < 0)
		return;
	if (s && pxc_pmi_int(s, -1, size - 1, &src) < 0)
		return pxc_pmi_reply_error(c, "srcid is not a rank of the job");
	if (lookup(c, key, src, &val) < 0)
		return pxc_pmi_reply_error(c, "not a string value");
	if (!val && src >= 0 && c->version == 2)
		return get_remote(c, key, src);
	pxc_pmi_reply_value(c, val);
}

static void op_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)in;
	if (st != PMIX_SUCCESS)
		return pxc_pmi_reply_error(c, PMIx_Error_string(st));
	pxc_pmi_reply_ok(c, c->version == 2 ? NULL : "info", c->version == 2 ? NULL : "ok");
}

static void do_publish(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *name = pxc_pmi_get(m, c->version == 2 ? "name" : "service");
	const char *port = pxc_pmi_get(m, "port");
	pmix_data_buffer_t b;
	pmix_info_t info;

	if (check_key(c, name) < 0)
		return;
	if (!port || !*port)
		return pxc_pmi_reply_error(c, "missing port");
	if (strlen(port) > PXC_PMI_VALLEN_MAX)
		return pxc_pmi_reply_error(c, "port too long");
	PMIx_Info_load(&info, name, port, PMIX_STRING);
	pxc_buf_init(&b);
	if (pxc_pack_array(&b, &info, 1, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_pmi_request(c, PXC_CMD_PUBLISH, &b, op_done) < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
	PMIx_Info_destruct(&info);
	pxc_buf_clear(&b);
}

static int pack_name(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m, pmix_data_buffer_t *b)
{
	const char *name = pxc_pmi_get(m, c->version == 2 ? "name" : "service");
	char *keys[1] = { (char *)name };

	if (check_key(c, name) < 0)
		return -1;
	if (pxc_pack_array(b, keys, 1, PMIX_STRING) != PMIX_SUCCESS ||
	    pxc_pack_array(b, NULL, 0, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_pmi_reply_error(c, "out of memory"), -1;
	return 0;
}

static void do_unpublish(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pack_name(c, m, &b) == 0 && pxc_pmi_request(c, PXC_CMD_UNPUBLISH, &b, op_done) < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void lookup_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	pmix_pdata_t *pd = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS &&
	    pxc_unpack_array(in, (void **)&pd, &n, PMIX_PDATA) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && (!n || pd[0].value.type != PMIX_STRING))
		st = PMIX_ERR_NOT_FOUND;
	if (st != PMIX_SUCCESS)
		pxc_pmi_reply_error(c, PMIx_Error_string(st));
	else if (c->version == 2)
		pxc_pmi_reply_ok(c, "port", pd[0].value.data.string);
	else {
		pxc_pmi_out_t o;

		pxc_pmi_reply_begin(c, &o, 0);
		pxc_pmi_out_add(&o, "info", "ok");
		pxc_pmi_out_add(&o, "port", pd[0].value.data.string);
		pxc_pmi_send(c, &o);
	}
	pxc_array_free(pd, n, PMIX_PDATA);
}

static void do_lookup(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pack_name(c, m, &b) == 0 && pxc_pmi_request(c, PXC_CMD_LOOKUP, &b, lookup_done) < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void abort_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)c, (void)st, (void)in; /* the task is on its way out: no reply */
}

static void do_abort(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *msg = pxc_pmi_get(m, "message");
	long code = 1;
	pmix_status_t st;
	pmix_data_buffer_t b;

	if (pxc_pmi_get(m, "exitcode") &&
	    pxc_pmi_int(pxc_pmi_get(m, "exitcode"), -2147483647L, 2147483647L, &code) < 0)
		return pxc_pmi_reply_error(c, "exitcode is not a number");
	st = (pmix_status_t)code;
	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) != PMIX_SUCCESS ||
	    pxc_pack_str(&b, msg ? msg : "PMI abort") != PMIX_SUCCESS ||
	    pxc_pack_array(&b, NULL, 0, PMIX_PROC) != PMIX_SUCCESS ||
	    pxc_pmi_request(c, PXC_CMD_ABORT, &b, abort_done) < 0)
		pxc_error("pmi: %s:%u: abort could not reach the server", c->proc.nspace,
			  c->proc.rank);
	pxc_buf_clear(&b);
}

static void finalize_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)in;
	if (st != PMIX_SUCCESS)
		return pxc_pmi_reply_error(c, PMIx_Error_string(st));
	c->finalized = true;
	pxc_pmi_reply_ok(c, NULL, NULL);
}

static void do_finalize(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	(void)m;
	pxc_buf_init(&b);
	if (pxc_pack_array(&b, NULL, 0, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_pmi_request(c, PXC_CMD_FINALIZE, &b, finalize_done) < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void do_fullinit(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const pmix_value_t *parent = job_value(c, PMIX_PARENT_ID);
	const char *r = pxc_pmi_get(m, "pmirank");
	pxc_pmi_out_t o;
	long rank = -1;

	if (r && pxc_pmi_int(r, -1, 2147483647L, &rank) < 0)
		return pxc_pmi_reply_error(c, "pmirank is not a number");
	if (rank >= 0 && (pmix_rank_t)rank != c->proc.rank)
		return pxc_pmi_reply_error(c, "pmirank is not this task's rank");
	pxc_pmi_reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "pmi-version", 2);
	pxc_pmi_out_addi(&o, "pmi-subversion", 0);
	pxc_pmi_out_addi(&o, "rank", (long)c->proc.rank);
	pxc_pmi_out_addi(&o, "size", job_long(c, PMIX_JOB_SIZE, 1));
	pxc_pmi_out_addi(&o, "appnum", my_appnum(c));
	if (parent && parent->type == PMIX_PROC && parent->data.proc)
		pxc_pmi_out_add(&o, "spawner-jobid", parent->data.proc->nspace);
	pxc_pmi_out_add(&o, "debugged", "FALSE");
	pxc_pmi_out_add(&o, "pmiverbose", "FALSE");
	pxc_pmi_send(c, &o);
}

static void do_jobattr(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key");
	const pmix_value_t *v;
	char num[24];

	if (check_key(c, key) < 0)
		return;
	if (!strcmp(key, "universeSize")) {
		snprintf(num, sizeof(num), "%ld",
			 job_long(c, PMIX_UNIV_SIZE, job_long(c, PMIX_JOB_SIZE, 1)));
		return pxc_pmi_reply_value(c, num);
	}
	if (!strcmp(key, "hasNameServ"))
		return pxc_pmi_reply_value(c, "TRUE");
	v = !strcmp(key, "PMI_process_mapping") ? job_value(c, PMIX_ANL_MAP) : job_value(c, key);
	pxc_pmi_reply_value(c, v && v->type == PMIX_STRING ? v->data.string : NULL);
}

static pmi_attr_t *attr_find(const char *key)
{
	for (pmi_attr_t *a = pmi_attrs.head; a; a = a->next)
		if (!strcmp(a->key, key))
			return a;
	return NULL;
}

static void do_putnodeattr(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val = pxc_pmi_get(m, "value");
	pmi_attr_t *a;
	char *copy;

	if (check_key(c, key) < 0)
		return;
	if (!val)
		return pxc_pmi_reply_error(c, "missing value");
	if (strlen(val) > PXC_PMI_VALLEN_MAX)
		return pxc_pmi_reply_error(c, "value too long");
	if (!(a = attr_find(key)) && pmi_attrs.n >= PMI_NODE_ATTRS_MAX)
		return pxc_pmi_reply_error(c, "too many node attributes");
	if (!(copy = strdup(val)))
		return pxc_pmi_reply_error(c, "out of memory");
	if (!a) {
		if (!(a = calloc(1, sizeof(*a))) || !(a->key = strdup(key))) {
			free(a);
			free(copy);
			return pxc_pmi_reply_error(c, "out of memory");
		}
		a->next = pmi_attrs.head;
		pmi_attrs.head = a;
		pmi_attrs.n++;
	}
	free(a->val);
	a->val = copy;
	pxc_pmi_reply_ok(c, NULL, NULL);
	/* waiters on this key */
	for (pxc_pmi_conn_t *w = pxc_srv.pmi_conns, *next; w; w = next) {
		next = w->next; /* resuming w may free w, no other */
		if (w->wait_key && !strcmp(w->wait_key, key)) {
			pxc_srv_timer_free(w->wait_timer);
			w->wait_timer = NULL;
			pxc_pmi_reply_value(w, a->val);
			free(w->wait_key);
			w->wait_key = NULL;
			pxc_pmi_resume(w);
		}
	}
}

static void attr_timeout(int fd, short what, void *arg)
{
	pxc_pmi_conn_t *c = arg;

	(void)fd, (void)what;
	pxc_srv_timer_free(c->wait_timer);
	c->wait_timer = NULL;
	free(c->wait_key);
	c->wait_key = NULL;
	pxc_pmi_reply_value(c, NULL);
	pxc_pmi_resume(c);
}

static void do_getnodeattr(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *wait = pxc_pmi_get(m, "wait");
	pmi_attr_t *a;

	if (check_key(c, key) < 0)
		return;
	if ((a = attr_find(key)) || !wait || strcasecmp(wait, "TRUE"))
		return pxc_pmi_reply_value(c, a ? a->val : NULL);
	if (!(c->wait_key = strdup(key)) ||
	    !(c->wait_timer = pxc_srv_timer(pxc_srv_timeout(NULL, 0), attr_timeout, c))) {
		free(c->wait_key);
		c->wait_key = NULL;
		pxc_pmi_reply_error(c, "out of memory");
	}
}

static void spawn_done(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	char *ns = NULL;

	if (st == PMIX_SUCCESS && pxc_unpack_str(in, &ns) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st != PMIX_SUCCESS)
		pxc_pmi_reply_error(c, PMIx_Error_string(st));
	else
		pxc_pmi_reply_ok(c, c->rd.version == PXC_PMI_V2 ? "jobid" : NULL, ns);
	free(ns);
}

/* The preput entries "NAME=VALUE" as PMIX_SET_ENVAR job information. */
static pmix_info_t *preput_info(char **preput, size_t *n)
{
	size_t k = 0;
	pmix_info_t *info;

	*n = PMIx_Argv_count(preput);
	if (!*n || !(info = PMIx_Info_create(*n)))
		return NULL;
	for (; k < *n; k++) {
		char *eq = strchr(preput[k], '=');
		pmix_envar_t e = { preput[k], eq + 1, ':' };

		*eq = '\0';
		PMIx_Info_load(&info[k], PMIX_SET_ENVAR, &e, PMIX_ENVAR);
		*eq = '=';
	}
	return info;
}

/* SPAWN of apps, as PMIx_Spawn: a new step of the allocation. Takes apps
 * and preput. */
static void spawn_send(pxc_pmi_conn_t *c, pmix_app_t *apps, size_t n, char **preput)
{
	pmix_data_buffer_t b;
	size_t ninfo;
	pmix_info_t *info = preput_info(preput, &ninfo);

	pxc_buf_init(&b);
	if ((ninfo && !info) ||
	    pxc_pack_array(&b, info, info ? ninfo : 0, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, apps, n, PMIX_APP) != PMIX_SUCCESS ||
	    pxc_pmi_request(c, PXC_CMD_SPAWN, &b, spawn_done) < 0)
		pxc_pmi_reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
	if (info)
		PMIx_Info_free(info, ninfo);
	PMIx_App_free(apps, n);
	PMIx_Argv_free(preput);
}

/* PMI-1: one mcmd per command; the reply follows the last one only. */
static void do_spawn1(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_app_t app, *grown = NULL;
	const char *why = NULL;
	char **preput = NULL;
	long total, sofar;

	PMIx_App_construct(&app);
	if (m->shape != PXC_PMI_SHAPE_MCMD)
		why = "spawn must be an mcmd request";
	else if (pxc_pmi_spawn_v1(m, &app, &total, &sofar, &preput, &why) == 0 &&
		 (size_t)sofar != c->napps + 1)
		why = "spawnssofar out of order";
	if (!why && !(grown = realloc(c->apps, (c->napps + 1) * sizeof(*grown))))
		why = "out of memory";
	if (why || sofar < total)
		PMIx_Argv_free(preput); /* every request carries them: the last one's go */
	if (why) {
		PMIx_App_destruct(&app);
		PMIx_App_free(c->apps, c->napps);
		c->apps = NULL;
		c->napps = 0;
		return pxc_pmi_reply_error(c, why);
	}
	c->apps = grown;
	c->apps[c->napps++] = app;
	if (sofar < total)
		return; /* more commands follow */
	grown = c->apps;
	c->apps = NULL;
	spawn_send(c, grown, c->napps, preput);
	c->napps = 0;
}

static void do_spawn2(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_app_t *apps;
	const char *why = NULL;
	char **preput = NULL;
	size_t n;

	if (pxc_pmi_spawn_v2(m, &apps, &n, &preput, &why) < 0)
		return pxc_pmi_reply_error(c, why);
	spawn_send(c, apps, n, preput);
}

static void do_unsupported(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	pxc_pmi_reply_error(c, "not supported");
}

typedef struct {
	const char *name, *resp;
	void (*fn)(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m);
} pmi_cmd_t;

static const pmi_cmd_t v1_cmds[] = {
	{ "get_maxes", "maxes", do_maxes },
	{ "get_appnum", "appnum", do_appnum },
	{ "get_my_kvsname", "my_kvsname", do_kvsname },
	{ "get_universe_size", "universe_size", do_universe },
	{ "put", "put_result", do_put },
	{ "get", "get_result", do_get },
	{ "barrier_in", "barrier_out", do_fence },
	{ "finalize", "finalize_ack", do_finalize },
	{ "abort", NULL, do_abort },
	{ "publish_name", "publish_result", do_publish },
	{ "unpublish_name", "unpublish_result", do_unpublish },
	{ "lookup_name", "lookup_result", do_lookup },
	{ "spawn", "spawn_result", do_spawn1 },
	{ NULL, NULL, NULL },
};

static const pmi_cmd_t v2_cmds[] = {
	{ "fullinit", "fullinit-response", do_fullinit },
	{ "job-getid", "job-getid-response", do_kvsname },
	{ "job-getinfo", "job-getinfo-response", do_jobattr },
	{ "info-getjobattr", "info-getjobattr-response", do_jobattr },
	{ "info-putnodeattr", "info-putnodeattr-response", do_putnodeattr },
	{ "info-getnodeattr", "info-getnodeattr-response", do_getnodeattr },
	{ "kvs-put", "kvs-put-response", do_put },
	{ "kvs-get", "kvs-get-response", do_get },
	{ "kvs-fence", "kvs-fence-response", do_fence },
	{ "name-publish", "name-publish-response", do_publish },
	{ "name-unpublish", "name-unpublish-response", do_unpublish },
	{ "name-lookup", "name-lookup-response", do_lookup },
	{ "finalize", "finalize-response", do_finalize },
	{ "abort", NULL, do_abort },
	{ "spawn", "spawn-response", do_spawn2 },
	{ "job-connect", "job-connect-response", do_unsupported },
	{ "job-disconnect", "job-disconnect-response", do_unsupported },
	{ NULL, NULL, NULL },
};

static const pmi_cmd_t *cmd_find(const pxc_pmi_conn_t *c, const char *name)
{
	const pmi_cmd_t *t = c->version == 2 ? v2_cmds : v1_cmds;

	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

void pxc_pmi_dispatch(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const pmi_cmd_t *t;

	if (!c->version) {
		pxc_pmi_set_current(c, "response_to_init", m);
		if (m->shape != PXC_PMI_SHAPE_V1 || strcmp(m->cmd, "init"))
			return pxc_pmi_reply_error(c, "the first request must be init");
		return do_init(c, m);
	}
	if (m->shape == PXC_PMI_SHAPE_MCMD && strcmp(m->cmd, "spawn")) {
		pxc_pmi_set_current(c, "error", m);
		return pxc_pmi_reply_error(c, "unknown mcmd request");
	}
	if (!(t = cmd_find(c, m->cmd))) {
		pxc_pmi_set_current(c, "error", m);
		return pxc_pmi_reply_error(c, !strcmp(m->cmd, "init") ? "init twice" :
									"unknown command");
	}
	pxc_pmi_set_current(c, t->resp, m);
	t->fn(c, m);
}
