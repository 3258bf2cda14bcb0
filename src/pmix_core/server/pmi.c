/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi.c - PMI-1 and PMI-2 for the tasks of the server's host (pmi.h).
 *
 * A PMI connection is a PMIx client of this server in all but its wire:
 * at the task's "cmd=init" the connection opens a socketpair into the
 * server (pxc_peer_adopt_client, with the registered client's uid/gid
 * and the task's pid from the preamble) and says HELLO as that client.
 * Every PMI request then becomes the PMIx request our client library
 * would send: a put is a PMIX_GLOBAL record, committed (COMMIT) before a
 * barrier, which is a collecting FENCE of the whole namespace (so across
 * nodes it is the host's fence, and PMIx clients of the step see the same
 * keys); a PMI-2 get naming its source rank that is not here yet is a
 * GET (local wait or the host's direct modex); publish/lookup/unpublish
 * and abort go to the host; finalize is FINALIZE; a connection that ends
 * without it is a lost client, like a PMIx one. The replies' blobs are
 * merged into the connection's own store (the HELLO's job information,
 * the fences' data), from which gets are answered.
 *
 * PMI has no owner in a get of PMI-1: a key is looked up among every
 * rank's posted records of the namespace. PMI_process_mapping is the
 * namespace's PMIX_ANL_MAP (the host registers it); node attributes
 * (PMI-2 info-putnodeattr / getnodeattr) are a table of this server.
 *
 * Requests of one connection are answered in order: while one waits for
 * the server, reading stops. Every request is parsed as hostile
 * (pmi_wire.c); a broken one gets an error reply (rc=-1 and a reason)
 * and the connection carries on, except where the framing is lost (then
 * it closes, which for the server is a lost client). Progress thread
 * only, except pxc_server_pmi_add.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <pmix.h>

#include "internal.h"
#include "nspace.h"
#include "peer.h"
#include "pmi.h"
#include "pmi_spawn.h"
#include "pmi_wire.h"
#include "proto.h"
#include "server.h"

/* Bytes of puts one connection may hold, and node attributes per server. */
#define PMI_PUT_BYTES_MAX (16u << 20)
#define PMI_NODE_ATTRS_MAX 1024
/* Seconds a PMI-2 get of another node's rank waits (get_remote). */
#define PMI_GET_TIMEOUT 10
/* Unprocessed bytes read ahead while a request waits. */
#define PMI_IN_MAX (256u << 10)
/* Replies the task has not read yet: beyond this it is dropped. */
#define PMI_OUT_MAX (4u << 20)

typedef struct pmi_conn pmi_conn_t;
/* The server's reply to the connection's one outstanding request. */
typedef void (*pmi_reply_f)(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *reply);

struct pmi_conn {
	pmi_conn_t *next;
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
	pmi_reply_f on_reply;
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

typedef struct pmi_attr {
	struct pmi_attr *next;
	char *key, *val;
} pmi_attr_t;

static struct {
	pmi_conn_t *conns;
	pmi_attr_t *attrs;
	size_t nattrs;
} pmi;

static void conn_resume(pmi_conn_t *c);
static void on_event(struct bufferevent *bev, short what, void *arg);

/* -------------------------------------------------------------- life */

static void conn_free(pmi_conn_t *c)
{
	for (pmi_conn_t **pp = &pmi.conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->bev)
		bufferevent_free(c->bev);
	if (c->task_fd >= 0)
		close(c->task_fd);
	if (c->px)
		pxc_conn_close(c->px, !c->finalized ? false : true);
	if (c->wait_timer)
		pxc_srv_timer_free(c->wait_timer);
	pxc_pmi_reader_clear(&c->rd);
	pxc_store_destroy(c->kvs);
	pxc_store_destroy(c->unc);
	free(c->resp);
	free(c->thrid);
	free(c->wait_key);
	free(c->get_key);
	PMIx_App_free(c->apps, c->napps);
	free(c);
}

void pxc_pmi_fini(void)
{
	while (pmi.conns)
		conn_free(pmi.conns);
	while (pmi.attrs) {
		pmi_attr_t *a = pmi.attrs;

		pmi.attrs = a->next;
		free(a->key);
		free(a->val);
		free(a);
	}
	pmi.nattrs = 0;
}

/* ------------------------------------------------------------ replies */

static void send_out(pmi_conn_t *c, pxc_pmi_out_t *o)
{
	if (pxc_pmi_out_end(o) == 0 && bufferevent_write(c->bev, o->buf, o->len) == 0)
		pxc_debug("pmi: %s:%u <- %.*s", c->proc.nspace, c->proc.rank,
			  (int)(o->len > 200 ? 200 : o->len), o->buf);
	pxc_pmi_out_clear(o);
}

/* Starts the reply to the current request (its name in c->resp). */
static void reply_begin(pmi_conn_t *c, pxc_pmi_out_t *o, int rc)
{
	/* in the framing the request came in: init is PMI-1 even for PMI-2 */
	pxc_pmi_out_begin(o, c->rd.version, c->resp ? c->resp : "error");
	if (c->rd.version == PXC_PMI_V2 && c->thrid)
		pxc_pmi_out_add(o, "thrid", c->thrid);
	pxc_pmi_out_addi(o, "rc", rc);
}

static void reply_error(pmi_conn_t *c, const char *why)
{
	pxc_pmi_out_t o;

	reply_begin(c, &o, -1);
	pxc_pmi_out_add(&o, c->rd.version == PXC_PMI_V2 ? "errmsg" : "msg", why);
	send_out(c, &o);
	pxc_debug("pmi: %s:%u: request refused: %s", c->proc.nspace, c->proc.rank, why);
}

static void reply_ok(pmi_conn_t *c, const char *k1, const char *v1)
{
	pxc_pmi_out_t o;

	reply_begin(c, &o, 0);
	if (k1)
		pxc_pmi_out_add(&o, k1, v1);
	send_out(c, &o);
}

/* A get's answer: PMI-2 says found=TRUE/FALSE, PMI-1 rc=0/-1. */
static void reply_value(pmi_conn_t *c, const char *val)
{
	pxc_pmi_out_t o;

	if (c->version != 2 && !val) {
		reply_error(c, "key not found");
		return;
	}
	reply_begin(c, &o, 0);
	if (c->version == 2)
		pxc_pmi_out_add(&o, "found", val ? "TRUE" : "FALSE");
	if (val)
		pxc_pmi_out_add(&o, "value", val);
	send_out(c, &o);
}

/* ------------------------------------------------- requests to the server */

static pmix_status_t merge_blob(pmi_conn_t *c, pmix_data_buffer_t *reply)
{
	pmix_byte_object_t bo = { NULL, 0 };
	pmix_data_buffer_t blob;
	int32_t n = 1;
	pmix_status_t st = pxc_unpack(reply, &bo, &n, PMIX_BYTE_OBJECT);

	if (st != PMIX_SUCCESS || bo.size == 0) {
		free(bo.bytes);
		return st;
	}
	pxc_buf_init(&blob);
	pxc_buf_load_take(&blob, bo.bytes, bo.size);
	st = pxc_store_unpack(c->kvs, &blob);
	pxc_buf_clear(&blob);
	return st;
}

/* Sends a request; fn gets the reply. Reading stops until then. */
static int px_request(pmi_conn_t *c, uint16_t cmd, pmix_data_buffer_t *b, pmi_reply_f fn)
{
	static uint32_t next_tag;

	if (++next_tag == 0)
		next_tag = 1;
	if (pxc_conn_send(c->px, cmd, fn ? next_tag : 0, 0, b) < 0)
		return -1;
	if (fn) {
		c->tag = next_tag;
		c->on_reply = fn;
	}
	return 0;
}

static void on_px_msg(pxc_conn_t *pc, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	pmi_conn_t *c = arg;
	pmix_status_t st;
	pmi_reply_f fn = c->on_reply;

	(void)pc;
	if (!(h->flags & PXC_WIRE_F_REPLY) || h->tag == 0 || h->tag != c->tag)
		return; /* events: PMI has none */
	c->tag = 0;
	c->on_reply = NULL;
	if (pxc_unpack_status(in, &st) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	fn(c, st, in);
	conn_resume(c);
}

/* The server dropped our connection: the task loses its PMI service. */
static void on_px_close(pxc_conn_t *pc, int err, void *arg)
{
	pmi_conn_t *c = arg;

	(void)pc;
	pxc_error("pmi: %s:%u: the server closed the connection (%s)", c->proc.nspace, c->proc.rank,
		  err ? strerror(err) : "refused");
	c->px = NULL;
	pxc_conn_close(pc, false);
	conn_free(c);
}

static void hello_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	pmix_proc_t me, srv;
	pxc_pmi_out_t o;

	if (st == PMIX_SUCCESS &&
	    (pxc_unpack_proc(in, &me) != PMIX_SUCCESS || pxc_unpack_proc(in, &srv) != PMIX_SUCCESS))
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS)
		st = merge_blob(c, in);
	if (st != PMIX_SUCCESS) {
		c->version = 0;
		reply_error(c, PMIx_Error_string(st));
		return;
	}
	reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "pmi_version", c->version);
	pxc_pmi_out_addi(&o, "pmi_subversion", c->version == 2 ? 0 : 1);
	send_out(c, &o);
	if (c->version == 2)
		c->rd.version = PXC_PMI_V2;
}

/* Opens the connection into the server and says HELLO as the client. */
static int px_hello(pmi_conn_t *c)
{
	uint32_t ver = PXC_PROTO_VERSION;
	uint8_t kind = PXC_PEER_CLIENT;
	const char *ns = c->proc.nspace;
	pmix_data_buffer_t b;
	pmix_status_t st;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (pxc_peer_adopt_client(sv[0], c->uid, c->gid, c->pid) < 0) {
		close(sv[1]);
		return -1;
	}
	c->px = pxc_conn_new(pxc_srv.base, sv[1], PXC_WIRE_MAX_PAYLOAD, on_px_msg, on_px_close, c);
	if (!c->px)
		return -1;
	pxc_buf_init(&b);
	if ((st = pxc_pack(&b, &ver, 1, PMIX_UINT32)) ||
	    (st = pxc_pack(&b, &kind, 1, PMIX_UINT8)) || (st = pxc_pack(&b, &ns, 1, PMIX_STRING)) ||
	    (st = pxc_pack(&b, &c->proc.rank, 1, PMIX_PROC_RANK)) ||
	    (st = pxc_pack(&b, &c->pid, 1, PMIX_PID)) ||
	    (st = pxc_pack_array(&b, NULL, 0, PMIX_INFO))) {
		pxc_buf_clear(&b);
		return -1;
	}
	rc = px_request(c, PXC_CMD_HELLO, &b, hello_done);
	pxc_buf_clear(&b);
	return rc;
}

/* ------------------------------------------------------------ the store */

static const pmix_value_t *job_value(const pmi_conn_t *c, const char *key)
{
	return pxc_store_get(c->kvs, c->proc.nspace, PXC_LVL_JOB, 0, key, NULL);
}

static long job_long(const pmi_conn_t *c, const char *key, long dflt)
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
static const pmix_value_t *posted(const pmi_conn_t *c, const char *key, long srcid)
{
	struct find f = { key, NULL };

	pxc_store_foreach(c->kvs, c->proc.nspace, PXC_LVL_PROC,
			  srcid >= 0 ? (uint32_t)srcid : PXC_ID_ANY, PXC_KINDS_POSTED, find_key,
			  &f);
	return f.val;
}

/* The string a get answers with: the special keys, then posted data. */
static int lookup(const pmi_conn_t *c, const char *key, long srcid, const char **out)
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

static bool same_kvs(const pmi_conn_t *c, const char *kvs)
{
	return !kvs || !strcmp(kvs, c->proc.nspace);
}

static int check_key(pmi_conn_t *c, const char *key)
{
	if (!key || !*key)
		return reply_error(c, "missing key"), -1;
	if (strlen(key) > PXC_PMI_KEYLEN_MAX || strlen(key) > PMIX_MAX_KEYLEN)
		return reply_error(c, "key too long"), -1;
	return 0;
}

static void do_init(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	long v, sub;

	if (c->version) {
		reply_error(c, "init twice");
		return;
	}
	if (pxc_pmi_int(pxc_pmi_get(m, "pmi_version"), 1, 2, &v) < 0 ||
	    pxc_pmi_int(pxc_pmi_get(m, "pmi_subversion"), 0, 99, &sub) < 0) {
		reply_error(c, "init needs pmi_version 1 or 2 and pmi_subversion");
		return;
	}
	c->version = (int)v;
	if (px_hello(c) < 0) {
		c->version = 0;
		reply_error(c, "cannot reach the server");
	}
}

static void do_maxes(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pxc_pmi_out_t o;

	(void)m;
	reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "kvsname_max", PXC_PMI_KVSNAME_MAX);
	pxc_pmi_out_addi(&o, "keylen_max", PXC_PMI_KEYLEN_MAX);
	pxc_pmi_out_addi(&o, "vallen_max", PXC_PMI_VALLEN_MAX);
	send_out(c, &o);
}

static void reply_long(pmi_conn_t *c, const char *key, long v)
{
	pxc_pmi_out_t o;

	reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, key, v);
	send_out(c, &o);
}

static long my_appnum(const pmi_conn_t *c)
{
	const pmix_value_t *v = pxc_store_get(c->kvs, c->proc.nspace, PXC_LVL_PROC, c->proc.rank,
					      PMIX_APPNUM, NULL);
	long n = v ? pxc_srv_value_long(v) : -1;

	return n >= 0 ? n : job_long(c, PMIX_APPNUM, 0);
}

static void do_appnum(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_long(c, "appnum", my_appnum(c));
}

static void do_universe(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_long(c, "size", job_long(c, PMIX_UNIV_SIZE, job_long(c, PMIX_JOB_SIZE, 1)));
}

static void do_kvsname(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_ok(c, c->version == 2 ? "jobid" : "kvsname", c->proc.nspace);
}

static void do_put(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val = pxc_pmi_get(m, "value");
	pmix_value_t v = { .type = PMIX_STRING };
	size_t n;

	if (!same_kvs(c, pxc_pmi_get(m, "kvsname")))
		return reply_error(c, "unknown kvsname");
	if (check_key(c, key) < 0)
		return;
	if (!val)
		return reply_error(c, "missing value");
	if ((n = strlen(val)) > PXC_PMI_VALLEN_MAX)
		return reply_error(c, "value too long");
	if (c->put_bytes + n + strlen(key) > PMI_PUT_BYTES_MAX)
		return reply_error(c, "too much data put");
	v.data.string = (char *)val;
	if (pxc_store_put(c->unc, c->proc.nspace, PXC_LVL_PROC, c->proc.rank, key, &v,
			  PMIX_GLOBAL) < 0 ||
	    pxc_store_put(c->kvs, c->proc.nspace, PXC_LVL_PROC, c->proc.rank, key, &v,
			  PMIX_GLOBAL) < 0)
		return reply_error(c, "out of memory");
	c->put_bytes += n + strlen(key);
	reply_ok(c, NULL, NULL);
}

static void fence_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	if (st == PMIX_SUCCESS)
		st = merge_blob(c, in);
	if (st != PMIX_SUCCESS)
		return reply_error(c, PMIx_Error_string(st));
	reply_ok(c, NULL, NULL);
}

/* The puts since the last commit, then a collecting fence of all ranks. */
static void do_fence(pmi_conn_t *c, const pxc_pmi_msg_t *m)
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
				px_request(c, PXC_CMD_COMMIT, &b, NULL) < 0))
			rc = -1;
		if (rc == 0)
			pxc_store_remove(c->unc, c->proc.nspace, -1, PXC_ID_ANY, PXC_KINDS_ALL);
	}
	pxc_buf_clear(&blob);
	pxc_buf_clear(&b);
	PMIx_Info_load(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	if (rc == 0 && (pxc_pack_array(&b, NULL, 0, PMIX_PROC) != PMIX_SUCCESS ||
			pxc_pack_array(&b, &info, 1, PMIX_INFO) != PMIX_SUCCESS ||
			px_request(c, PXC_CMD_FENCE, &b, fence_done) < 0))
		rc = -1;
	PMIx_Info_destruct(&info);
	pxc_buf_clear(&b);
	if (rc < 0)
		reply_error(c, "cannot reach the server");
}

static void get_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	const char *val = NULL;

	if (st == PMIX_SUCCESS)
		st = merge_blob(c, in);
	if (st == PMIX_ERR_NOT_FOUND ||
	    (st == PMIX_SUCCESS && lookup(c, c->get_key, -1, &val) == 0))
		reply_value(c, val);
	else
		reply_error(c, st == PMIX_SUCCESS ? "not a string value" : PMIx_Error_string(st));
	free(c->get_key);
	c->get_key = NULL;
}

/* A PMI-2 get from a known source rank that is not here: GET (the server
 * looks at a local rank's commits or asks the host's direct modex). After
 * a fence the key is there or nowhere: PMIX_IMMEDIATE, and a short
 * timeout for a remote rank that never committed. */
static void get_remote(pmi_conn_t *c, const char *key, long src)
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
	    px_request(c, PXC_CMD_GET, &b, get_done) < 0) {
		free(c->get_key);
		c->get_key = NULL;
		reply_error(c, "cannot reach the server");
	}
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	pxc_buf_clear(&b);
}

static void do_get(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val;
	const char *kvs = pxc_pmi_get(m, c->version == 2 ? "jobid" : "kvsname");
	const char *s = pxc_pmi_get(m, "srcid");
	long src = -1, size = job_long(c, PMIX_JOB_SIZE, 0);

	if (!same_kvs(c, kvs))
		return reply_error(c, "unknown kvsname");
	if (check_key(c, key) < 0)
		return;
	if (s && pxc_pmi_int(s, -1, size - 1, &src) < 0)
		return reply_error(c, "srcid is not a rank of the job");
	if (lookup(c, key, src, &val) < 0)
		return reply_error(c, "not a string value");
	if (!val && src >= 0 && c->version == 2)
		return get_remote(c, key, src);
	reply_value(c, val);
}

static void op_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)in;
	if (st != PMIX_SUCCESS)
		return reply_error(c, PMIx_Error_string(st));
	reply_ok(c, c->version == 2 ? NULL : "info", c->version == 2 ? NULL : "ok");
}

static void do_publish(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *name = pxc_pmi_get(m, c->version == 2 ? "name" : "service");
	const char *port = pxc_pmi_get(m, "port");
	pmix_data_buffer_t b;
	pmix_info_t info;

	if (check_key(c, name) < 0)
		return;
	if (!port || !*port)
		return reply_error(c, "missing port");
	if (strlen(port) > PXC_PMI_VALLEN_MAX)
		return reply_error(c, "port too long");
	PMIx_Info_load(&info, name, port, PMIX_STRING);
	pxc_buf_init(&b);
	if (pxc_pack_array(&b, &info, 1, PMIX_INFO) != PMIX_SUCCESS ||
	    px_request(c, PXC_CMD_PUBLISH, &b, op_done) < 0)
		reply_error(c, "cannot reach the server");
	PMIx_Info_destruct(&info);
	pxc_buf_clear(&b);
}

static int pack_name(pmi_conn_t *c, const pxc_pmi_msg_t *m, pmix_data_buffer_t *b)
{
	const char *name = pxc_pmi_get(m, c->version == 2 ? "name" : "service");
	char *keys[1] = { (char *)name };

	if (check_key(c, name) < 0)
		return -1;
	if (pxc_pack_array(b, keys, 1, PMIX_STRING) != PMIX_SUCCESS ||
	    pxc_pack_array(b, NULL, 0, PMIX_INFO) != PMIX_SUCCESS)
		return reply_error(c, "out of memory"), -1;
	return 0;
}

static void do_unpublish(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pack_name(c, m, &b) == 0 && px_request(c, PXC_CMD_UNPUBLISH, &b, op_done) < 0)
		reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void lookup_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	pmix_pdata_t *pd = NULL;
	size_t n = 0;

	if (st == PMIX_SUCCESS &&
	    pxc_unpack_array(in, (void **)&pd, &n, PMIX_PDATA) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st == PMIX_SUCCESS && (!n || pd[0].value.type != PMIX_STRING))
		st = PMIX_ERR_NOT_FOUND;
	if (st != PMIX_SUCCESS)
		reply_error(c, PMIx_Error_string(st));
	else if (c->version == 2)
		reply_ok(c, "port", pd[0].value.data.string);
	else {
		pxc_pmi_out_t o;

		reply_begin(c, &o, 0);
		pxc_pmi_out_add(&o, "info", "ok");
		pxc_pmi_out_add(&o, "port", pd[0].value.data.string);
		send_out(c, &o);
	}
	pxc_array_free(pd, n, PMIX_PDATA);
}

static void do_lookup(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	if (pack_name(c, m, &b) == 0 && px_request(c, PXC_CMD_LOOKUP, &b, lookup_done) < 0)
		reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void abort_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)c, (void)st, (void)in; /* the task is on its way out: no reply */
}

static void do_abort(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *msg = pxc_pmi_get(m, "message");
	long code = 1;
	pmix_status_t st;
	pmix_data_buffer_t b;

	if (pxc_pmi_get(m, "exitcode") &&
	    pxc_pmi_int(pxc_pmi_get(m, "exitcode"), -2147483647L, 2147483647L, &code) < 0)
		return reply_error(c, "exitcode is not a number");
	st = (pmix_status_t)code;
	pxc_buf_init(&b);
	if (pxc_pack_status(&b, st) != PMIX_SUCCESS ||
	    pxc_pack_str(&b, msg ? msg : "PMI abort") != PMIX_SUCCESS ||
	    pxc_pack_array(&b, NULL, 0, PMIX_PROC) != PMIX_SUCCESS ||
	    px_request(c, PXC_CMD_ABORT, &b, abort_done) < 0)
		pxc_error("pmi: %s:%u: abort could not reach the server", c->proc.nspace,
			  c->proc.rank);
	pxc_buf_clear(&b);
}

static void finalize_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	(void)in;
	if (st != PMIX_SUCCESS)
		return reply_error(c, PMIx_Error_string(st));
	c->finalized = true;
	reply_ok(c, NULL, NULL);
}

static void do_finalize(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_data_buffer_t b;

	(void)m;
	pxc_buf_init(&b);
	if (pxc_pack_array(&b, NULL, 0, PMIX_INFO) != PMIX_SUCCESS ||
	    px_request(c, PXC_CMD_FINALIZE, &b, finalize_done) < 0)
		reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
}

static void do_fullinit(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const pmix_value_t *parent = job_value(c, PMIX_PARENT_ID);
	const char *r = pxc_pmi_get(m, "pmirank");
	pxc_pmi_out_t o;
	long rank = -1;

	if (r && pxc_pmi_int(r, -1, 2147483647L, &rank) < 0)
		return reply_error(c, "pmirank is not a number");
	if (rank >= 0 && (pmix_rank_t)rank != c->proc.rank)
		return reply_error(c, "pmirank is not this task's rank");
	reply_begin(c, &o, 0);
	pxc_pmi_out_addi(&o, "pmi-version", 2);
	pxc_pmi_out_addi(&o, "pmi-subversion", 0);
	pxc_pmi_out_addi(&o, "rank", (long)c->proc.rank);
	pxc_pmi_out_addi(&o, "size", job_long(c, PMIX_JOB_SIZE, 1));
	pxc_pmi_out_addi(&o, "appnum", my_appnum(c));
	if (parent && parent->type == PMIX_PROC && parent->data.proc)
		pxc_pmi_out_add(&o, "spawner-jobid", parent->data.proc->nspace);
	pxc_pmi_out_add(&o, "debugged", "FALSE");
	pxc_pmi_out_add(&o, "pmiverbose", "FALSE");
	send_out(c, &o);
}

static void do_jobattr(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key");
	const pmix_value_t *v;
	char num[24];

	if (check_key(c, key) < 0)
		return;
	if (!strcmp(key, "universeSize")) {
		snprintf(num, sizeof(num), "%ld",
			 job_long(c, PMIX_UNIV_SIZE, job_long(c, PMIX_JOB_SIZE, 1)));
		return reply_value(c, num);
	}
	if (!strcmp(key, "hasNameServ"))
		return reply_value(c, "TRUE");
	v = !strcmp(key, "PMI_process_mapping") ? job_value(c, PMIX_ANL_MAP) : job_value(c, key);
	reply_value(c, v && v->type == PMIX_STRING ? v->data.string : NULL);
}

static pmi_attr_t *attr_find(const char *key)
{
	for (pmi_attr_t *a = pmi.attrs; a; a = a->next)
		if (!strcmp(a->key, key))
			return a;
	return NULL;
}

static void do_putnodeattr(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *val = pxc_pmi_get(m, "value");
	pmi_attr_t *a;
	char *copy;

	if (check_key(c, key) < 0)
		return;
	if (!val)
		return reply_error(c, "missing value");
	if (strlen(val) > PXC_PMI_VALLEN_MAX)
		return reply_error(c, "value too long");
	if (!(a = attr_find(key)) && pmi.nattrs >= PMI_NODE_ATTRS_MAX)
		return reply_error(c, "too many node attributes");
	if (!(copy = strdup(val)))
		return reply_error(c, "out of memory");
	if (!a) {
		if (!(a = calloc(1, sizeof(*a))) || !(a->key = strdup(key))) {
			free(a);
			free(copy);
			return reply_error(c, "out of memory");
		}
		a->next = pmi.attrs;
		pmi.attrs = a;
		pmi.nattrs++;
	}
	free(a->val);
	a->val = copy;
	reply_ok(c, NULL, NULL);
	/* waiters on this key */
	for (pmi_conn_t *w = pmi.conns, *next; w; w = next) {
		next = w->next; /* resuming w may free w, no other */
		if (w->wait_key && !strcmp(w->wait_key, key)) {
			pxc_srv_timer_free(w->wait_timer);
			w->wait_timer = NULL;
			reply_value(w, a->val);
			free(w->wait_key);
			w->wait_key = NULL;
			conn_resume(w);
		}
	}
}

static void attr_timeout(int fd, short what, void *arg)
{
	pmi_conn_t *c = arg;

	(void)fd, (void)what;
	pxc_srv_timer_free(c->wait_timer);
	c->wait_timer = NULL;
	free(c->wait_key);
	c->wait_key = NULL;
	reply_value(c, NULL);
	conn_resume(c);
}

static void do_getnodeattr(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const char *key = pxc_pmi_get(m, "key"), *wait = pxc_pmi_get(m, "wait");
	pmi_attr_t *a;

	if (check_key(c, key) < 0)
		return;
	if ((a = attr_find(key)) || !wait || strcasecmp(wait, "TRUE"))
		return reply_value(c, a ? a->val : NULL);
	if (!(c->wait_key = strdup(key)) ||
	    !(c->wait_timer = pxc_srv_timer(pxc_srv_timeout(NULL, 0), attr_timeout, c))) {
		free(c->wait_key);
		c->wait_key = NULL;
		reply_error(c, "out of memory");
	}
}

static void spawn_done(pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *in)
{
	char *ns = NULL;

	if (st == PMIX_SUCCESS && pxc_unpack_str(in, &ns) != PMIX_SUCCESS)
		st = PMIX_ERR_UNPACK_FAILURE;
	if (st != PMIX_SUCCESS)
		reply_error(c, PMIx_Error_string(st));
	else
		reply_ok(c, c->rd.version == PXC_PMI_V2 ? "jobid" : NULL, ns);
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
static void spawn_send(pmi_conn_t *c, pmix_app_t *apps, size_t n, char **preput)
{
	pmix_data_buffer_t b;
	size_t ninfo;
	pmix_info_t *info = preput_info(preput, &ninfo);

	pxc_buf_init(&b);
	if ((ninfo && !info) ||
	    pxc_pack_array(&b, info, info ? ninfo : 0, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_pack_array(&b, apps, n, PMIX_APP) != PMIX_SUCCESS ||
	    px_request(c, PXC_CMD_SPAWN, &b, spawn_done) < 0)
		reply_error(c, "cannot reach the server");
	pxc_buf_clear(&b);
	if (info)
		PMIx_Info_free(info, ninfo);
	PMIx_App_free(apps, n);
	PMIx_Argv_free(preput);
}

/* PMI-1: one mcmd per command; the reply follows the last one only. */
static void do_spawn1(pmi_conn_t *c, const pxc_pmi_msg_t *m)
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
		return reply_error(c, why);
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

static void do_spawn2(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	pmix_app_t *apps;
	const char *why = NULL;
	char **preput = NULL;
	size_t n;

	if (pxc_pmi_spawn_v2(m, &apps, &n, &preput, &why) < 0)
		return reply_error(c, why);
	spawn_send(c, apps, n, preput);
}

static void do_unsupported(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	(void)m;
	reply_error(c, "not supported");
}

typedef struct {
	const char *name, *resp;
	void (*fn)(pmi_conn_t *c, const pxc_pmi_msg_t *m);
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

static const pmi_cmd_t *cmd_find(const pmi_conn_t *c, const char *name)
{
	const pmi_cmd_t *t = c->version == 2 ? v2_cmds : v1_cmds;

	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

static void set_current(pmi_conn_t *c, const char *resp, const pxc_pmi_msg_t *m)
{
	const char *thrid = m ? pxc_pmi_get(m, "thrid") : NULL;

	free(c->resp);
	free(c->thrid);
	c->resp = resp ? strdup(resp) : NULL;
	c->thrid = thrid && strlen(thrid) < 64 ? strdup(thrid) : NULL;
}

static void dispatch(pmi_conn_t *c, const pxc_pmi_msg_t *m)
{
	const pmi_cmd_t *t;

	if (!c->version) {
		set_current(c, "response_to_init", m);
		if (m->shape != PXC_PMI_SHAPE_V1 || strcmp(m->cmd, "init"))
			return reply_error(c, "the first request must be init");
		return do_init(c, m);
	}
	if (m->shape == PXC_PMI_SHAPE_MCMD && strcmp(m->cmd, "spawn")) {
		set_current(c, "error", m);
		return reply_error(c, "unknown mcmd request");
	}
	if (!(t = cmd_find(c, m->cmd))) {
		set_current(c, "error", m);
		return reply_error(c, !strcmp(m->cmd, "init") ? "init twice" : "unknown command");
	}
	set_current(c, t->resp, m);
	t->fn(c, m);
}

/* -------------------------------------------------------------- reading */

static void on_flushed(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_free(arg);
}

/* Ends the connection once the replies written so far are out (the task
 * gets the reason of a fatal error); the server sees the client go now. */
static void conn_close_flushed(pmi_conn_t *c)
{
	if (c->px)
		pxc_conn_close(c->px, false);
	c->px = NULL;
	if (c->task_fd >= 0)
		close(c->task_fd);
	c->task_fd = -1;
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	if (!evbuffer_get_length(bufferevent_get_output(c->bev))) {
		conn_free(c);
		return;
	}
	bufferevent_setcb(c->bev, NULL, on_flushed, on_event, c);
}

/* Handles the complete requests the reader holds, one at a time. 0, or -1
 * when the connection had to go (c is freed then). */
static int drain(pmi_conn_t *c)
{
	while (c->tag == 0 && !c->wait_key) {
		pxc_pmi_shape_t shape;
		pxc_pmi_msg_t m;
		const char *why = NULL;
		char *body;
		size_t len;
		bool fatal;
		int rc = pxc_pmi_reader_next(&c->rd, &shape, &body, &len, &why, &fatal);

		if (rc == 0)
			return 0;
		if (rc < 0) {
			set_current(c, c->version ? "error" : "response_to_init", NULL);
			reply_error(c, why);
			if (!fatal)
				continue;
			pxc_error("pmi: %s:%u: %s: connection closed", c->proc.nspace, c->proc.rank,
				  why);
			conn_close_flushed(c);
			return -1;
		}
		pxc_debug("pmi: %s:%u -> %.*s", c->proc.nspace, c->proc.rank,
			  (int)(len > 200 ? 200 : len), body);
		if (pxc_pmi_parse(shape, body, len, &m, &why) < 0) {
			set_current(c, c->version ? "error" : "response_to_init", NULL);
			reply_error(c, why);
		} else
			dispatch(c, &m);
		pxc_pmi_msg_clear(&m);
		free(body);
	}
	return 0;
}

/* The first bytes: the preamble with the task's pid, if the host wrote
 * one. Returns the bytes of data that follow it. */
static size_t take_preamble(pmi_conn_t *c, const char *data, size_t n)
{
	size_t take = 0;

	while (!c->pre_done && take < n && c->npre < PXC_PMI_PREAMBLE_LEN) {
		c->pre[c->npre] = (unsigned char)data[take];
		if (c->npre == 0 && c->pre[0] != (PXC_PMI_PREAMBLE_MAGIC >> 24)) {
			c->pre_done = true; /* no preamble: this is PMI already */
			return 0;
		}
		c->npre++;
		take++;
	}
	if (!c->pre_done && c->npre == PXC_PMI_PREAMBLE_LEN) {
		pid_t pid = pxc_pmi_preamble_pid(c->pre);

		c->pre_done = true;
		c->pid = pid > 0 ? pid : 0;
	}
	if (c->pre_done && c->task_fd >= 0) { /* the task has its own copy */
		close(c->task_fd);
		c->task_fd = -1;
	}
	return take;
}

/* Takes what the task sent, request by request, while none waits for the
 * server. 0, or -1 when the connection had to go (c is freed then). */
static int process_input(pmi_conn_t *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	char chunk[PXC_PMI_READ_CHUNK];
	int n;

	for (;;) {
		size_t skip;

		if (drain(c) < 0)
			return -1;
		if (c->tag || c->wait_key)
			return 0;
		if ((n = evbuffer_remove(in, chunk, sizeof(chunk))) <= 0)
			return 0;
		skip = take_preamble(c, chunk, (size_t)n);
		if (skip < (size_t)n && pxc_pmi_reader_feed(&c->rd, chunk + skip, n - skip) < 0) {
			conn_free(c);
			return -1;
		}
		if (evbuffer_get_length(bufferevent_get_output(c->bev)) > PMI_OUT_MAX) {
			pxc_error("pmi: %s:%u reads no replies: connection closed", c->proc.nspace,
				  c->proc.rank);
			conn_free(c);
			return -1;
		}
	}
}

static void conn_resume(pmi_conn_t *c)
{
	process_input(c);
}

/* Reading goes on while a request waits (up to the watermark), so that a
 * task that dies meanwhile is seen at once. */
static void on_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	process_input(arg);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	pmi_conn_t *c = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		pxc_debug("pmi: %s:%u: the task closed its PMI connection%s", c->proc.nspace,
			  c->proc.rank, c->finalized || !c->px ? "" : " without finalize");
		conn_free(c);
	}
}

/* ------------------------------------------------------------------ add */

struct add {
	int fd, task_fd;
	pmix_proc_t proc;
};

static void add_in_thread(void *arg)
{
	struct add *a = arg;
	pxc_sclient_t *cl = pxc_client_find(&a->proc);
	pmi_conn_t *c = calloc(1, sizeof(*c));

	if (!c || !cl || !(c->kvs = pxc_store_create()) || !(c->unc = pxc_store_create()) ||
	    !(c->bev = bufferevent_socket_new(pxc_srv.base, a->fd, BEV_OPT_CLOSE_ON_FREE))) {
		pxc_error("pmi: %s:%u: %s", a->proc.nspace, a->proc.rank,
			  cl ? "out of memory" : "not a registered client");
		if (c) {
			pxc_store_destroy(c->kvs);
			pxc_store_destroy(c->unc);
		}
		free(c);
		close(a->fd);
		close(a->task_fd);
		free(a);
		return;
	}
	c->proc = a->proc;
	c->uid = cl->uid;
	c->gid = cl->gid;
	c->task_fd = a->task_fd;
	pxc_pmi_reader_init(&c->rd);
	evutil_make_socket_nonblocking(a->fd);
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, PMI_IN_MAX);
	bufferevent_enable(c->bev, EV_READ);
	c->next = pmi.conns;
	pmi.conns = c;
	free(a);
}

int pxc_server_pmi_add(int fd, int task_fd, const pmix_proc_t *proc)
{
	struct add *a = malloc(sizeof(*a));

	if (!a || !proc || fd < 0) {
		free(a);
		if (fd >= 0)
			close(fd);
		if (task_fd >= 0)
			close(task_fd);
		return errno = a ? EINVAL : ENOMEM, -1;
	}
	a->fd = fd;
	a->task_fd = task_fd;
	a->proc = *proc;
	if (pxc_srv_post(add_in_thread, a) < 0) {
		int e = errno;

		close(fd);
		if (task_fd >= 0)
			close(task_fd);
		free(a);
		return errno = e, -1;
	}
	return 0;
}
