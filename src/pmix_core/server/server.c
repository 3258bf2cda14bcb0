/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c - PMIx_server_init / PMIx_server_finalize, the listening socket,
 * and the small helpers every server file uses (posting work to the
 * progress thread, blocking waits, timers, info lookups).
 *
 * Init runs in the host's thread: it reads the attributes, makes a private
 * directory (mode 0700, owned by the clients' uid when the server runs as
 * root for another user) holding the socket "s", acquires the process's
 * progress engine and then hands the listening fd to the progress thread,
 * which accepts connections from then on. Finalize posts the teardown to the
 * progress thread (close every connection, fail every pending operation,
 * free all state), waits for it, then removes the files and releases the
 * engine, so nothing is left behind: no fd, no thread, no file.
 *
 * pxc_srv_post is the only way from a host thread into server state; it
 * holds post_lock so that it never races with finalize dropping the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <hwloc.h>
#include <event2/event.h>

#include "internal.h"
#include "locality.h"
#include "pset.h"
#include "evsync.h"
#include "upcall.h"
#include "connect.h"
#include "group.h"
#include "peer.h"
#include "pmi.h"
#include "jobctl.h"
#include "rendezvous.h"
#include "server.h"
#include "nspace.h"
#include "coll.h"
#include "dmodex.h"
#include "proto.h"
#include "evcache.h"
#include "evqueue.h"
#include "iof.h"
#include "monitor.h"
#include "attr_support.h"
#include "server/event.h"

pxc_srv_t pxc_srv = { .lfd = -1 };

static pthread_mutex_t post_lock = PTHREAD_MUTEX_INITIALIZER;
static pxc_progress_t *post_pg; /* non-NULL while the server runs */
static bool init_done;          /* guarded by post_lock */

#define PXC_SRV_MAX_PEERS 8192

/* ---------------------------------------------------------------- helpers */

int pxc_srv_post(pxc_work_f fn, void *arg)
{
	int rc;

	pthread_mutex_lock(&post_lock);
	if (!post_pg) {
		pthread_mutex_unlock(&post_lock);
		errno = ESHUTDOWN;
		return -1;
	}
	rc = pxc_progress_post(post_pg, fn, arg);
	pthread_mutex_unlock(&post_lock);
	return rc;
}

/* The work run this way is short and purely local (no host call, no IO
 * wait), so the wait needs no limit; a timed-out waiter would leave the
 * worker signalling a sync that is gone. */
pmix_status_t pxc_srv_call_wait(pxc_work_f fn, void *arg, pxc_sync_t *s)
{
	pmix_status_t st;

	if (pxc_srv.pg && pxc_progress_in_thread(pxc_srv.pg)) {
		fn(arg);
		return s->status;
	}
	if (pxc_srv_post(fn, arg) < 0)
		return PMIX_ERR_INIT;
	st = pxc_sync_wait(s, -1);
	return st;
}

pmix_status_t pxc_apiop_run(pxc_apiop_t *op, pxc_work_f fn)
{
	pmix_status_t st;

	if (!op->cbfunc) {
		op->blocking = true;
		pxc_sync_init(&op->sync);
		st = pxc_srv_call_wait(fn, op, &op->sync);
		pxc_sync_fini(&op->sync);
		return st;
	}
	if (pxc_srv_post(fn, op) < 0)
		return PMIX_ERR_INIT;
	return PMIX_SUCCESS;
}

void pxc_apiop_done(pxc_apiop_t *op, pmix_status_t status)
{
	if (op->blocking) {
		pxc_sync_signal(&op->sync, status);
		return;
	}
	if (op->cbfunc)
		op->cbfunc(status, op->cbdata);
	if (op->free_fn)
		op->free_fn(op);
}

uint64_t pxc_srv_new_id(void)
{
	static uint64_t next = 1; /* survives server restarts */

	return next++;
}

/* Integer of any integral type; -1 if the value is not one. */
static long info_long(const pmix_value_t *v)
{
	switch (v->type) {
	case PMIX_INT: return v->data.integer;
	case PMIX_INT32: return v->data.int32;
	case PMIX_UINT32: return v->data.uint32;
	case PMIX_UINT: return v->data.uint;
	case PMIX_SIZE: return (long)v->data.size;
	case PMIX_INT64: return (long)v->data.int64;
	case PMIX_UINT64: return (long)v->data.uint64;
	case PMIX_INT16: return v->data.int16;
	case PMIX_UINT16: return v->data.uint16;
	case PMIX_INT8: return v->data.int8;
	case PMIX_UINT8: return v->data.uint8;
	default: return -1;
	}
}

int pxc_srv_timeout(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, PMIX_TIMEOUT);
	long t = i ? info_long(&i->value) : -1;

	/* 0 means "no limit" in the Standard; we always bound the wait. */
	if (t > 0 && t < 7 * 24 * 3600)
		return (int)t;
	return pxc_default_timeout();
}

struct event *pxc_srv_timer(int sec, void (*fn)(int, short, void *), void *arg)
{
	struct event *ev = evtimer_new(pxc_srv.base, fn, arg);
	struct timeval tv = { .tv_sec = sec, .tv_usec = 0 };

	if (ev && evtimer_add(ev, &tv) < 0) {
		event_free(ev);
		ev = NULL;
	}
	return ev;
}

void pxc_srv_timer_free(struct event *ev)
{
	if (ev)
		event_free(ev);
}

long pxc_srv_value_long(const pmix_value_t *v)
{
	return info_long(v);
}

int pxc_srv_buf_reserve(pmix_data_buffer_t *buf, size_t cap)
{
	pxc_buf_init(buf);
	buf->base_ptr = malloc(cap ? cap : 1);
	if (!buf->base_ptr) {
		errno = ENOMEM;
		return -1;
	}
	buf->bytes_allocated = cap ? cap : 1;
	buf->pack_ptr = buf->unpack_ptr = buf->base_ptr;
	return 0;
}

/* ------------------------------------------------------------- attributes */

static char *info_str(const pmix_info_t *info, size_t ninfo, const char *key)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, key);

	if (!i || i->value.type != PMIX_STRING || !i->value.data.string)
		return NULL;
	return i->value.data.string;
}

/* A non-negative number of info's key, else dflt. */
static uint32_t info_u32(const pmix_info_t *info, size_t ninfo, const char *key, uint32_t dflt)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, key);
	long v = i ? info_long(&i->value) : -1;

	return v >= 0 && v <= (long)UINT32_MAX ? (uint32_t)v : dflt;
}

static int read_attrs(const pmix_info_t *info, size_t ninfo)
{
	const pmix_info_t *i;
	const char *s;

	s = info_str(info, ninfo, PMIX_SERVER_TMPDIR);
	if (!s || !*s)
		s = getenv("TMPDIR");
	pxc_srv.tmpdir = strdup(s && *s ? s : "/tmp");
	s = info_str(info, ninfo, PMIX_SYSTEM_TMPDIR);
	pxc_srv.sysdir = strdup(s && *s ? s : "/tmp");
	free(pxc_srv.rdvdir);
	free(pxc_srv.rdvname);
	pxc_srv.rdvdir = pxc_srv.rdvname = NULL;
	if ((s = info_str(info, ninfo, PXC_SERVER_RDV_DIR)) && *s)
		pxc_srv.rdvdir = strdup(s);
	if ((s = info_str(info, ninfo, PXC_SERVER_RDV_NAME)) && *s)
		pxc_srv.rdvname = strdup(s);
	pxc_srv.uid = geteuid();
	pxc_srv.gid = getegid();
	if ((i = pxc_info_find(info, ninfo, PMIX_USERID)) && info_long(&i->value) >= 0)
		pxc_srv.uid = (uid_t)info_long(&i->value);
	if ((i = pxc_info_find(info, ninfo, PMIX_GRPID)) && info_long(&i->value) >= 0)
		pxc_srv.gid = (gid_t)info_long(&i->value);
	s = info_str(info, ninfo, PMIX_SERVER_NSPACE);
	snprintf(pxc_srv.me.nspace, sizeof(pxc_srv.me.nspace), "%s", s ? s : "slurmix-server");
	pxc_srv.me.rank = 0;
	if ((i = pxc_info_find(info, ninfo, PMIX_SERVER_RANK)) && info_long(&i->value) >= 0)
		pxc_srv.me.rank = (pmix_rank_t)info_long(&i->value);
	if ((i = pxc_info_find(info, ninfo, PMIX_TOPOLOGY2)) && i->value.type == PMIX_TOPO &&
	    i->value.data.topo && i->value.data.topo->topology && i->value.data.topo->source &&
	    strncmp(i->value.data.topo->source, "hwloc", 5) == 0) {
		hwloc_topology_t t;

		pxc_topo_free();
		if (hwloc_topology_dup(&t, i->value.data.topo->topology) == 0)
			pxc_srv.topo = t; /* no discovery of our own */
	}
	pxc_srv.tool_support = pxc_info_flag(info, ninfo, PMIX_SERVER_TOOL_SUPPORT);
	pxc_srv.system_support = pxc_info_flag(info, ninfo, PMIX_SERVER_SYSTEM_SUPPORT);
	pxc_srv.rdv_defer = pxc_info_flag(info, ninfo, PXC_SERVER_RDV_DEFER);
	if ((i = pxc_info_find(info, ninfo, PMIX_NODEID)) && i->value.type == PMIX_UINT32) {
		pxc_srv.nodeid = i->value.data.uint32;
		pxc_srv.has_nodeid = true;
	}
	pxc_evcache_config(info_u32(info, ninfo, PXC_SERVER_EVCACHE_BYTES, 1024 * 1024),
			   info_u32(info, ninfo, PXC_SERVER_EVCACHE_AGE, 60));
	pxc_evq_config(info_u32(info, ninfo, PXC_SERVER_EVENT_QUEUE_BYTES, 256 * 1024));
	pxc_monitor_config(info_u32(info, ninfo, PXC_SERVER_MONITOR_UNIT_MS, 1000));
	pxc_iof_config(info_u32(info, ninfo, PXC_SERVER_IOF_HISTORY, 64 * 1024),
		       info_u32(info, ninfo, PXC_SERVER_IOF_QUEUE, 4 * 1024 * 1024));
	pxc_peer_config(info_u32(info, ninfo, PXC_SERVER_MAX_PEERS, 1024),
			info_u32(info, ninfo, PXC_SERVER_MAX_PENDING, 65536),
			info_u32(info, ninfo, PXC_SERVER_MAX_MESSAGE, PXC_WIRE_MAX_PAYLOAD),
			info_u32(info, ninfo, PXC_SERVER_HELLO_MS, 10000));
	s = info_str(info, ninfo, PMIX_HOSTNAME);
	if (s)
		snprintf(pxc_srv.hostname, sizeof(pxc_srv.hostname), "%s", s);
	else if (gethostname(pxc_srv.hostname, sizeof(pxc_srv.hostname) - 1) < 0)
		snprintf(pxc_srv.hostname, sizeof(pxc_srv.hostname), "localhost");
	if (!pxc_srv.tmpdir || !pxc_srv.sysdir) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- the socket */

static int make_dir(void)
{
	struct sockaddr_un sa;
	char *tmpl = NULL;

	if (asprintf(&tmpl, "%s/slurmix.%d.XXXXXX", pxc_srv.tmpdir, (int)getpid()) < 0)
		return -1;
	/* dir + "/s" + NUL must fit sun_path */
	if (strlen(tmpl) + 3 > sizeof(sa.sun_path)) {
		pxc_error("server: tmpdir '%s' is too long for a Unix socket path "
			  "(max %zu bytes); set PMIX_SERVER_TMPDIR to a shorter one",
			  pxc_srv.tmpdir, sizeof(sa.sun_path) - 24);
		free(tmpl);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(tmpl)) {
		pxc_error("server: cannot create a directory in %s: %s", pxc_srv.tmpdir,
			  strerror(errno));
		free(tmpl);
		return -1;
	}
	pxc_srv.dir = tmpl;
	return 0;
}

/* Gives the directory and socket to the clients' user when that is not us. */
static int hand_over(const char *path)
{
	if (pxc_srv.uid == geteuid() && pxc_srv.gid == getegid())
		return 0;
	if (chown(path, pxc_srv.uid, pxc_srv.gid) < 0) {
		pxc_error("server: cannot give %s to uid %u gid %u: %s", path,
			  (unsigned)pxc_srv.uid, (unsigned)pxc_srv.gid, strerror(errno));
		return -1;
	}
	return 0;
}

static int make_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (asprintf(&pxc_srv.sockpath, "%s/s", pxc_srv.dir) < 0 ||
	    asprintf(&pxc_srv.uri, "unix:%s", pxc_srv.sockpath) < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", pxc_srv.sockpath);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(pxc_srv.sockpath, 0600) < 0 ||
	    hand_over(pxc_srv.sockpath) < 0 || hand_over(pxc_srv.dir) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		int e = errno;

		pxc_error("server: cannot listen on %s: %s", pxc_srv.sockpath, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	pxc_srv.lfd = fd;
	return 0;
}

static size_t count_peers(void)
{
	size_t n = 0;

	for (pxc_peer_t *p = pxc_srv.peers; p; p = p->next)
		n++;
	return n;
}

static void accept_cb(int lfd, short what, void *arg)
{
	(void)what;
	(void)arg;
	for (int i = 0; i < 64; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				pxc_error("server: accept: %s", strerror(errno));
			return;
		}
		if (count_peers() >= PXC_SRV_MAX_PEERS) {
			pxc_error("server: too many connections, refusing one");
			close(fd);
			continue;
		}
		pxc_peer_accept(fd);
	}
}

/* ------------------------------------------------------- init / finalize */

static void start_in_thread(void *arg)
{
	pxc_sync_t *s = arg;

	pxc_srv.base = pxc_progress_base(pxc_srv.pg);
	pxc_srv.lev = event_new(pxc_srv.base, pxc_srv.lfd, EV_READ | EV_PERSIST, accept_cb, NULL);
	if (!pxc_srv.lev || event_add(pxc_srv.lev, NULL) < 0) {
		pxc_sync_signal(s, PMIX_ERR_NOMEM);
		return;
	}
	pxc_srv.running = true;
	pxc_sync_signal(s, PMIX_SUCCESS);
}

static void free_strings(void)
{
	free(pxc_srv.tmpdir);
	free(pxc_srv.sysdir);
	free(pxc_srv.rdvdir);
	free(pxc_srv.rdvname);
	pxc_srv.rdvdir = pxc_srv.rdvname = NULL;
	free(pxc_srv.dir);
	free(pxc_srv.sockpath);
	free(pxc_srv.uri);
	pxc_srv.tmpdir = pxc_srv.sysdir = pxc_srv.dir = NULL;
	pxc_srv.sockpath = pxc_srv.uri = NULL;
}

/* Removes the files and strings made by init (any thread, engine stopped
 * or not yet started). */
static void undo_files(void)
{
	if (pxc_srv.lfd >= 0)
		close(pxc_srv.lfd);
	pxc_srv.lfd = -1;
	pxc_rdv_remove();
	if (pxc_srv.sockpath)
		unlink(pxc_srv.sockpath);
	if (pxc_srv.dir)
		rmdir(pxc_srv.dir);
	free_strings();
}

static pmix_status_t start_engine(void)
{
	pxc_sync_t s;
	pmix_status_t st;

	pxc_srv.pg = pxc_progress_acquire();
	if (!pxc_srv.pg)
		return PMIX_ERR_OUT_OF_RESOURCE;
	pthread_mutex_lock(&post_lock);
	post_pg = pxc_srv.pg;
	pthread_mutex_unlock(&post_lock);
	pxc_sync_init(&s);
	st = pxc_srv_call_wait(start_in_thread, &s, &s);
	pxc_sync_fini(&s);
	return st;
}

static void stop_engine(void)
{
	pthread_mutex_lock(&post_lock);
	post_pg = NULL;
	pthread_mutex_unlock(&post_lock);
	if (pxc_srv.pg)
		pxc_progress_release();
	pxc_srv.pg = NULL;
	pxc_srv.base = NULL;
}

static pmix_status_t init_locked(pmix_server_module_t *module, pmix_info_t info[], size_t ninfo)
{
	pmix_status_t st;

	memset(&pxc_srv.module, 0, sizeof(pxc_srv.module));
	if (module)
		pxc_srv.module = *module;
	if (read_attrs(info, ninfo) < 0 || make_dir() < 0 || make_socket() < 0) {
		st = pxc_errno_status(errno);
		undo_files();
		return st == PMIX_ERROR ? PMIX_ERR_INIT : st;
	}
	pxc_srv.store = pxc_store_create();
	st = pxc_srv.store ? start_engine() : PMIX_ERR_NOMEM;
	if (st == PMIX_SUCCESS && pxc_srv.tool_support && !pxc_srv.rdv_defer && pxc_rdv_write() < 0)
		pxc_error("server: could not write the tool rendezvous files");
	if (st != PMIX_SUCCESS) {
		stop_engine();
		pxc_store_destroy(pxc_srv.store);
		pxc_srv.store = NULL;
		undo_files();
	}
	return st;
}

pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[], size_t ninfo)
{
	pmix_status_t st;

	pthread_mutex_lock(&post_lock);
	if (init_done) {
		pthread_mutex_unlock(&post_lock);
		pxc_error("server: PMIx_server_init called twice");
		return PMIX_ERR_INIT;
	}
	init_done = true;
	pthread_mutex_unlock(&post_lock);
	st = init_locked(module, info, ninfo);
	if (st != PMIX_SUCCESS) {
		pthread_mutex_lock(&post_lock);
		init_done = false;
		pthread_mutex_unlock(&post_lock);
		return st;
	}
	pxc_role = PXC_ROLE_SERVER;
	pxc_debug("server: listening at %s", pxc_srv.uri);
	return PMIX_SUCCESS;
}

/* Progress thread: drops every connection and all state. */
static void teardown_in_thread(void *arg)
{
	pxc_sync_t *s = arg;

	pxc_srv.running = false;
	if (pxc_srv.lev)
		event_free(pxc_srv.lev);
	pxc_srv.lev = NULL;
	pxc_pmi_fini(); /* before the peers: its connections are peers too */
	while (pxc_srv.peers)
		pxc_peer_drop(pxc_srv.peers, false);
	pxc_coll_fail_all(PMIX_ERR_INIT);
	pxc_parked_fail_all(PMIX_ERR_INIT);
	pxc_evq_clear(); /* before the host's requests: nothing may start */
	pxc_evsync_clear();
	pxc_monitor_clear();
	pxc_upcall_fail_all(PMIX_ERR_INIT);
	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns; ns = ns->next)
		pxc_cleanup_run(ns);
	pxc_ns_free_all();
	pxc_ns_kept_clear();
	pxc_psets_free();
	pxc_evcache_clear();
	pxc_iof_clear();
	pxc_cnx_free_all();
	pxc_grp_free_all();
	pxc_topo_free();
	pxc_attr_host_clear();
	pxc_store_destroy(pxc_srv.store);
	pxc_srv.store = NULL;
	pxc_sync_signal(s, PMIX_SUCCESS);
}

pmix_status_t PMIx_server_finalize(void)
{
	pxc_sync_t s;

	pthread_mutex_lock(&post_lock);
	if (!init_done) {
		pthread_mutex_unlock(&post_lock);
		return PMIX_ERR_INIT;
	}
	pthread_mutex_unlock(&post_lock);
	if (pxc_progress_in_thread(pxc_srv.pg))
		return PMIX_ERR_WOULD_BLOCK;
	pxc_sync_init(&s);
	pxc_srv_call_wait(teardown_in_thread, &s, &s);
	pxc_sync_fini(&s);
	stop_engine();
	undo_files();
	pxc_role = PXC_ROLE_NONE;
	pthread_mutex_lock(&post_lock);
	init_done = false;
	pthread_mutex_unlock(&post_lock);
	return PMIX_SUCCESS;
}
