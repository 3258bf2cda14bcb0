/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monitor.c - MONITOR: PMIx_Process_monitor's heartbeat and file monitors,
 * run by the server itself; the host only sees the alerts (as events it
 * carries beyond the node). docs/monitor.md is the contract.
 *
 * A request names its kind in its `monitor` info:
 *   PMIX_SEND_HEARTBEAT     a beat: every heartbeat monitor of the sender
 *                           saw one in its current period;
 *   PMIX_MONITOR_HEARTBEAT  a heartbeat monitor: every HEARTBEAT_TIME
 *                           seconds, a period without a beat is a miss;
 *   PMIX_MONITOR_FILE       a file monitor (absolute path): every
 *                           FILE_CHECK_TIME seconds the file is examined,
 *                           and a check where any of the requested
 *                           attributes (FILE_SIZE, _ACCESS, _MODIFY) did not
 *                           change since the previous one is a miss;
 *   PMIX_MONITOR_CANCEL     (or that directive with any kind) stops the
 *                           requester's monitor of that PMIX_MONITOR_ID,
 *                           or all of them (no id).
 * More than DROPS consecutive misses raise the alert once: an event with
 * the request's error code (HEARTBEAT_ALERT / FILE_ALERT when it is 0),
 * source and PMIX_EVENT_AFFECTED_PROC the monitored (requesting) process,
 * PMIX_MONITOR_ID when it has one, range PMIX_RANGE (default NAMESPACE),
 * delivered like a client's notification (pxc_event_raise). The monitor
 * is armed again by its next hit (a beat, or a check where everything
 * requested changed).
 *
 * Files are examined with the client's eyes, though the server may run
 * as root, and never in this thread: monstat.c's helper thread walks the
 * path as the client's uid/gid (the kernel decides; no symlink; the
 * client's own regular file) and posts the answer back. The request of a
 * file monitor is answered after its first check (PMIX_ERR_TIMEOUT when
 * that takes more than FIRST_CHECK monitor seconds). A tick whose
 * previous check has not come back is a miss, as is a check that fails;
 * each check walks the path again.
 *
 * An alert waits in the event queue like any notification (evqueue.c);
 * a monitor has at most one waiting: one that would be raised meanwhile
 * is dropped, counted and logged when the waiting one leaves.
 *
 * Monitors belong to the requesting client's connection (by peer id): its
 * FINALIZE or its end stops them, and so does server teardown; no timer
 * outlives them. At most PXC_MONITOR_MAX_PER_CLIENT per client. No
 * MONITOR after the client's FINALIZE (PMIX_ERR_INIT).
 * Progress thread only (monstat.c has the helper thread).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <event2/event.h>

#include "internal.h"
#include "server.h"
#include "peer.h"
#include "server/event.h"
#include "monitor.h"
#include "monstat.h"
#include "proto.h"

/* The first check of a file has this many monitor seconds. */
#define FIRST_CHECK 10

typedef enum { MON_BEAT, MON_FILE } mon_kind_t;

typedef struct mon {
	struct mon *next;
	uint64_t key; /* names it to the check thread and its alert */
	uint64_t peer_id;
	pmix_proc_t proc; /* the monitored process: the requester */
	uid_t uid;
	gid_t gid;
	char *id; /* PMIX_MONITOR_ID, or NULL */
	mon_kind_t kind;
	uint32_t period; /* seconds */
	uint32_t drops;  /* consecutive misses allowed */
	uint32_t misses;
	pmix_status_t code;
	pmix_data_range_t range;
	bool hit; /* beat: one came in this period */
	bool alerted;
	bool alert_queued;    /* its alert waits in the event queue */
	uint32_t alerts_lost; /* alerts dropped meanwhile */
	bool starting;        /* file: the request waits for the first check */
	bool checking;        /* file: a check is queued or running */
	uint32_t tag;         /* starting: the request to answer */
	struct event *timer;  /* the ticks (starting: the first check's limit) */
	char *path;           /* file monitors */
	bool size, atime, mtime;
	struct stat last;
} mon_t;

/* A request's parameters, as parsed. */
typedef struct {
	mon_kind_t kind;
	const char *id;
	const char *path;
	uint32_t period, drops;
	bool size, atime, mtime;
	pmix_data_range_t range;
} req_t;

static mon_t *monitors;
static uint32_t unit_ms = 1000;

void pxc_monitor_config(uint32_t ms)
{
	unit_ms = ms ? ms : 1000;
}

size_t pxc_monitor_count(void)
{
	size_t n = 0;

	for (const mon_t *m = monitors; m; m = m->next)
		n++;
	return n;
}

static mon_t *by_key(uint64_t key)
{
	for (mon_t *m = monitors; m; m = m->next)
		if (m->key == key)
			return m;
	return NULL;
}

/* The answer to MONITOR: a status and (success) no results. */
static void reply(uint64_t peer_id, uint32_t tag, pmix_status_t st)
{
	pmix_data_buffer_t body;

	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&body, NULL, 0, PMIX_INFO);
	pxc_peer_reply_id(peer_id, PXC_CMD_MONITOR, tag, st, &body);
	pxc_buf_clear(&body);
}

/* Frees m (unlinked); the request of one still starting is answered st. */
static void mon_free(mon_t *m, pmix_status_t st)
{
	if (m->starting)
		reply(m->peer_id, m->tag, st);
	if (m->timer)
		event_free(m->timer);
	free(m->id);
	free(m->path);
	free(m);
}

static void mon_unlink(mon_t *m)
{
	for (mon_t **pp = &monitors; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			return;
		}
}

/* Unlinks and frees every monitor of peer_id that matches (id NULL: all),
 * answering the starting ones st; returns how many. */
static size_t mon_remove(uint64_t peer_id, const char *id, pmix_status_t st)
{
	size_t n = 0;

	for (mon_t **pp = &monitors; *pp;) {
		mon_t *m = *pp;

		if (m->peer_id != peer_id || (id && (!m->id || strcmp(m->id, id) != 0))) {
			pp = &m->next;
			continue;
		}
		*pp = m->next;
		mon_free(m, st);
		n++;
	}
	return n;
}

void pxc_monitor_peer_gone(uint64_t peer_id)
{
	mon_remove(peer_id, NULL, PMIX_ERR_INIT);
}

void pxc_monitor_clear(void)
{
	while (monitors) {
		mon_t *m = monitors;

		monitors = m->next;
		mon_free(m, PMIX_ERR_INIT);
	}
	pxc_monstat_stop();
}

/* ------------------------------------------------------------ the file */

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Whether any requested attribute of now is as it was at the previous
 * check. */
static bool unchanged(const mon_t *m, const struct stat *now)
{
	return (m->size && now->st_size == m->last.st_size) ||
	       (m->atime && same_time(&now->st_atim, &m->last.st_atim)) ||
	       (m->mtime && same_time(&now->st_mtim, &m->last.st_mtim));
}

/* ------------------------------------------------------------- the alert */

/* Its alert left the event queue (delivered, handed to the host, or
 * dropped at teardown): the next one may be raised. */
static void alert_freed(uint64_t key)
{
	mon_t *m = by_key(key);

	if (!m)
		return;
	m->alert_queued = false;
	if (m->alerts_lost)
		pxc_log(PXC_LOG_WARN,
			"server: monitor %s of %s:%u: %u alerts dropped while the event queue "
			"held the previous one",
			m->id ? m->id : "(no id)", m->proc.nspace, m->proc.rank, m->alerts_lost);
	m->alerts_lost = 0;
}

static void alert(mon_t *m)
{
	pmix_info_t info[3];
	size_t n = 0;

	if (m->alert_queued) { /* at most one waits (the queue's bound) */
		if (m->alerts_lost < UINT32_MAX)
			m->alerts_lost++;
		return;
	}
	PMIx_Info_load(&info[n++], PMIX_EVENT_AFFECTED_PROC, &m->proc, PMIX_PROC);
	if (m->id)
		PMIx_Info_load(&info[n++], PMIX_MONITOR_ID, m->id, PMIX_STRING);
	if (m->path)
		PMIx_Info_load(&info[n++], PMIX_MONITOR_FILE, m->path, PMIX_STRING);
	pxc_debug("server: monitor %s of %s:%u raises %d", m->id ? m->id : "(no id)",
		  m->proc.nspace, m->proc.rank, m->code);
	m->alert_queued = true; /* (alert_freed may run inside) */
	if (!pxc_event_raise(m->code, &m->proc, m->range, info, n, alert_freed, m->key))
		m->alert_queued = false;
	for (size_t k = 0; k < n; k++)
		PMIx_Info_destruct(&info[k]);
}

/* A period or a check ended: a miss or a hit. */
static void record(mon_t *m, bool miss)
{
	if (!miss) {
		m->misses = 0;
		m->alerted = false; /* a hit arms it again */
		return;
	}
	if (m->misses < UINT32_MAX)
		m->misses++;
	if (m->misses > m->drops && !m->alerted) {
		m->alerted = true;
		alert(m);
	}
}

static int arm(mon_t *m);

/* The first check came back: the request is answered, and the monitor
 * runs (or is gone). */
static void started(mon_t *m, const pxc_monstat_res_t *res)
{
	pmix_status_t st = res->status;

	event_free(m->timer);
	m->timer = NULL;
	m->starting = false;
	if (st == PMIX_SUCCESS) {
		m->last = res->st;
		if (arm(m) < 0)
			st = PMIX_ERR_NOMEM;
	}
	reply(m->peer_id, m->tag, st);
	if (st != PMIX_SUCCESS) {
		mon_unlink(m);
		mon_free(m, st);
	}
}

/* A check came back (monstat.c): a failed one is a miss, as is one where
 * a requested attribute did not change. */
static void on_checked(const pxc_monstat_res_t *res)
{
	mon_t *m = by_key(res->key);

	if (!m || !m->checking)
		return; /* cancelled meanwhile */
	m->checking = false;
	if (m->starting) {
		started(m, res);
		return;
	}
	record(m, res->status != PMIX_SUCCESS || unchanged(m, &res->st));
	if (res->status == PMIX_SUCCESS)
		m->last = res->st;
}

/* The first check did not come back in time. */
static void on_start_late(evutil_socket_t fd, short what, void *arg)
{
	mon_t *m = arg;

	(void)fd, (void)what;
	pxc_log(PXC_LOG_WARN, "server: monitor of %s:%u: the first check of %s did not end",
		m->proc.nspace, m->proc.rank, m->path);
	mon_unlink(m);
	mon_free(m, PMIX_ERR_TIMEOUT);
}

/* A file's tick: a check is queued, unless the previous one is still on
 * its way (the file system may hang): then, or when it cannot be queued,
 * the tick is a miss. */
static void tick_file(mon_t *m)
{
	pxc_monstat_drain(); /* what came back already */
	if (m->checking ||
	    pxc_monstat_submit(m->key, m->path, m->uid, m->gid, on_checked) != PMIX_SUCCESS) {
		record(m, true);
		return;
	}
	m->checking = true;
}

/* The end of a period (heartbeat) or a check's time (file). */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	mon_t *m = arg;

	(void)fd, (void)what;
	if (m->kind == MON_FILE) {
		tick_file(m);
		return;
	}
	record(m, !m->hit);
	m->hit = false;
}

/* A beat from peer_id: every heartbeat monitor of it had a hit. */
static void beat(uint64_t peer_id)
{
	for (mon_t *m = monitors; m; m = m->next)
		if (m->peer_id == peer_id && m->kind == MON_BEAT)
			m->hit = true;
}

/* ----------------------------------------------------------- the request */

/* A count or a number of seconds: any non-negative integer value up to
 * UINT32_MAX. */
static pmix_status_t get_u32(const pmix_info_t *dirs, size_t n, const char *key, uint32_t dflt,
			     uint32_t *out)
{
	const pmix_info_t *i = pxc_info_find(dirs, n, key);
	long v;

	*out = dflt;
	if (!i)
		return PMIX_SUCCESS;
	v = pxc_srv_value_long(&i->value);
	if (v < 0 || (unsigned long)v > UINT32_MAX)
		return PMIX_ERR_BAD_PARAM;
	*out = (uint32_t)v;
	return PMIX_SUCCESS;
}

/* FILE_SIZE/_ACCESS/_MODIFY: a bool, or a string PMIx_Value_true reads
 * ("true", "yes", "1", ...); a bare key counts as true. */
static pmix_status_t get_flag(const pmix_info_t *dirs, size_t n, const char *key, bool *out)
{
	const pmix_info_t *i = pxc_info_find(dirs, n, key);

	*out = false;
	if (!i)
		return PMIX_SUCCESS;
	if (i->value.type != PMIX_BOOL && i->value.type != PMIX_STRING &&
	    i->value.type != PMIX_UNDEF)
		return PMIX_ERR_BAD_PARAM;
	if (i->value.type == PMIX_STRING && PMIx_Value_true(&i->value) == PMIX_NON_BOOL)
		return PMIX_ERR_BAD_PARAM;
	*out = pxc_info_flag(dirs, n, key);
	return PMIX_SUCCESS;
}

static const char *const common_keys[] = { PMIX_MONITOR_ID, PMIX_RANGE, PMIX_MONITOR_APP_CONTROL,
					   PMIX_TIMEOUT, NULL };
static const char *const beat_keys[] = { PMIX_MONITOR_HEARTBEAT_TIME, PMIX_MONITOR_HEARTBEAT_DROPS,
					 NULL };
static const char *const file_keys[] = { PMIX_MONITOR_FILE_SIZE,   PMIX_MONITOR_FILE_ACCESS,
					 PMIX_MONITOR_FILE_MODIFY, PMIX_MONITOR_FILE_CHECK_TIME,
					 PMIX_MONITOR_FILE_DROPS,  NULL };

static bool listed(const char *const *keys, const char *key)
{
	for (; *keys; keys++)
		if (PMIx_Check_key(key, *keys))
			return true;
	return false;
}

/* A required directive this kind does not know: PMIX_ERR_NOT_SUPPORTED. */
static pmix_status_t check_required(mon_kind_t kind, const pmix_info_t *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (PMIx_Info_is_required(&dirs[i]) && !listed(common_keys, dirs[i].key) &&
		    !listed(kind == MON_BEAT ? beat_keys : file_keys, dirs[i].key))
			return PMIX_ERR_NOT_SUPPORTED;
	return PMIX_SUCCESS;
}

/* PMIX_MONITOR_ID (a non-empty string) and PMIX_RANGE (PROC_LOCAL and
 * CUSTOM are not supported: the alert has no list of procs). */
static pmix_status_t parse_common(const pmix_info_t *dirs, size_t n, req_t *q)
{
	const pmix_info_t *id = pxc_info_find(dirs, n, PMIX_MONITOR_ID);
	const pmix_info_t *r = pxc_info_find(dirs, n, PMIX_RANGE);

	if (id && (id->value.type != PMIX_STRING || !id->value.data.string ||
		   !*id->value.data.string || strlen(id->value.data.string) > 255))
		return PMIX_ERR_BAD_PARAM;
	q->id = id ? id->value.data.string : NULL;
	q->range = PMIX_RANGE_NAMESPACE;
	if (!r)
		return PMIX_SUCCESS;
	if (r->value.type != PMIX_DATA_RANGE)
		return PMIX_ERR_BAD_PARAM;
	switch (r->value.data.range) {
	case PMIX_RANGE_UNDEF: return PMIX_SUCCESS;
	case PMIX_RANGE_RM:
	case PMIX_RANGE_LOCAL:
	case PMIX_RANGE_NAMESPACE:
	case PMIX_RANGE_SESSION:
	case PMIX_RANGE_GLOBAL: q->range = r->value.data.range; return PMIX_SUCCESS;
	case PMIX_RANGE_PROC_LOCAL:
	case PMIX_RANGE_CUSTOM: return PMIX_ERR_NOT_SUPPORTED;
	default: return PMIX_ERR_BAD_PARAM;
	}
}

static pmix_status_t parse_beat(const pmix_info_t *dirs, size_t n, req_t *q)
{
	pmix_status_t st = get_u32(dirs, n, PMIX_MONITOR_HEARTBEAT_TIME, 0, &q->period);

	if (st == PMIX_SUCCESS)
		st = get_u32(dirs, n, PMIX_MONITOR_HEARTBEAT_DROPS, 0, &q->drops);
	return st;
}

static pmix_status_t parse_file(const pmix_info_t *mon, const pmix_info_t *dirs, size_t n, req_t *q)
{
	pmix_status_t st;

	if (mon->value.type != PMIX_STRING ||
	    pxc_monstat_check_path(mon->value.data.string) != PMIX_SUCCESS)
		return PMIX_ERR_BAD_PARAM;
	q->path = mon->value.data.string;
	if ((st = get_u32(dirs, n, PMIX_MONITOR_FILE_CHECK_TIME, 0, &q->period)) != PMIX_SUCCESS ||
	    (st = get_u32(dirs, n, PMIX_MONITOR_FILE_DROPS, 0, &q->drops)) != PMIX_SUCCESS ||
	    (st = get_flag(dirs, n, PMIX_MONITOR_FILE_SIZE, &q->size)) != PMIX_SUCCESS ||
	    (st = get_flag(dirs, n, PMIX_MONITOR_FILE_ACCESS, &q->atime)) != PMIX_SUCCESS ||
	    (st = get_flag(dirs, n, PMIX_MONITOR_FILE_MODIFY, &q->mtime)) != PMIX_SUCCESS)
		return st;
	return q->size || q->atime || q->mtime ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
}

static bool id_taken(uint64_t peer_id, const char *id)
{
	for (const mon_t *m = monitors; id && m; m = m->next)
		if (m->peer_id == peer_id && m->id && strcmp(m->id, id) == 0)
			return true;
	return false;
}

static size_t count_of(uint64_t peer_id)
{
	size_t n = 0;

	for (const mon_t *m = monitors; m; m = m->next)
		n += m->peer_id == peer_id;
	return n;
}

static int arm(mon_t *m)
{
	uint64_t ms = (uint64_t)m->period * unit_ms;
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000), .tv_usec = (long)(ms % 1000) * 1000 };

	m->timer = event_new(pxc_srv.base, -1, EV_PERSIST, on_tick, m);
	return m->timer && event_add(m->timer, &tv) == 0 ? 0 : -1;
}

/* A file monitor's first check is queued; its request waits for it
 * (FIRST_CHECK monitor seconds at most). */
static pmix_status_t first_check(mon_t *m, uint32_t tag)
{
	uint64_t ms = (uint64_t)FIRST_CHECK * unit_ms;
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000), .tv_usec = (long)(ms % 1000) * 1000 };
	pmix_status_t st;

	m->timer = event_new(pxc_srv.base, -1, 0, on_start_late, m);
	if (!m->timer || event_add(m->timer, &tv) != 0)
		return PMIX_ERR_NOMEM;
	if ((st = pxc_monstat_submit(m->key, m->path, m->uid, m->gid, on_checked)) != PMIX_SUCCESS)
		return st;
	m->starting = m->checking = true;
	m->tag = tag;
	return PMIX_SUCCESS;
}

/* A new monitor: a heartbeat runs at once, a file once its first check
 * came back (*later: the request is answered then). */
static pmix_status_t start(pxc_peer_t *p, const req_t *q, pmix_status_t error, uint32_t tag,
			   bool *later)
{
	static uint64_t next_key = 1; /* survives server restarts */
	mon_t *m;
	pmix_status_t st = PMIX_SUCCESS;

	if (q->period == 0)
		return PMIX_ERR_BAD_PARAM;
	if (id_taken(p->id, q->id))
		return PMIX_ERR_EXISTS;
	if (count_of(p->id) >= PXC_MONITOR_MAX_PER_CLIENT)
		return PMIX_ERR_OUT_OF_RESOURCE;
	if (!(m = calloc(1, sizeof(*m))))
		return PMIX_ERR_NOMEM;
	*m = (mon_t){ .key = next_key++,
		      .peer_id = p->id,
		      .proc = p->proc,
		      .uid = p->client->uid,
		      .gid = p->client->gid,
		      .kind = q->kind,
		      .period = q->period,
		      .drops = q->drops,
		      .range = q->range,
		      .size = q->size,
		      .atime = q->atime,
		      .mtime = q->mtime };
	m->code = error != PMIX_SUCCESS ? error :
		  q->kind == MON_BEAT   ? PMIX_MONITOR_HEARTBEAT_ALERT :
					  PMIX_MONITOR_FILE_ALERT;
	if ((q->path && !(m->path = strdup(q->path))) || (q->id && !(m->id = strdup(q->id))))
		st = PMIX_ERR_NOMEM;
	else if (q->kind == MON_FILE)
		st = first_check(m, tag);
	else if (arm(m) < 0)
		st = PMIX_ERR_NOMEM;
	if (st != PMIX_SUCCESS) {
		m->starting = false; /* answered by the caller */
		mon_free(m, st);
		return st;
	}
	m->next = monitors;
	monitors = m;
	*later = m->starting;
	return PMIX_SUCCESS;
}

/* PMIX_MONITOR_CANCEL: a string id, or NULL / empty / a bare key for all. */
static pmix_status_t cancel(pxc_peer_t *p, const pmix_info_t *c)
{
	const char *id = NULL;

	if (c->value.type == PMIX_STRING)
		id = c->value.data.string && *c->value.data.string ? c->value.data.string : NULL;
	else if (c->value.type != PMIX_UNDEF)
		return PMIX_ERR_BAD_PARAM;
	if (mon_remove(p->id, id, PMIX_ERR_NOT_FOUND) == 0 && id)
		return PMIX_ERR_NOT_FOUND;
	return PMIX_SUCCESS;
}

static pmix_status_t handle(pxc_peer_t *p, const pmix_info_t *mon, pmix_status_t error,
			    const pmix_info_t *dirs, size_t n, uint32_t tag, bool *later)
{
	const pmix_info_t *c = pxc_info_find(dirs, n, PMIX_MONITOR_CANCEL);
	req_t q = { 0 };
	pmix_status_t st;

	if (!p->client)
		return PMIX_ERR_NOT_SUPPORTED; /* tools: nothing to monitor */
	if (p->finalized)
		return PMIX_ERR_INIT; /* its monitors ended with FINALIZE */
	if (PMIx_Check_key(mon->key, PMIX_SEND_HEARTBEAT))
		return beat(p->id), PMIX_SUCCESS;
	if (PMIx_Check_key(mon->key, PMIX_MONITOR_CANCEL))
		return cancel(p, mon);
	if (c)
		return cancel(p, c);
	if (PMIx_Check_key(mon->key, PMIX_MONITOR_HEARTBEAT))
		q.kind = MON_BEAT;
	else if (PMIx_Check_key(mon->key, PMIX_MONITOR_FILE))
		q.kind = MON_FILE;
	else
		return PMIX_ERR_NOT_SUPPORTED;
	if ((st = check_required(q.kind, dirs, n)) != PMIX_SUCCESS ||
	    (st = parse_common(dirs, n, &q)) != PMIX_SUCCESS)
		return st;
	st = q.kind == MON_BEAT ? parse_beat(dirs, n, &q) : parse_file(mon, dirs, n, &q);
	return st == PMIX_SUCCESS ? start(p, &q, error, tag, later) : st;
}

int pxc_do_monitor(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_info_t *mon = NULL, *dirs = NULL;
	size_t nmon = 0, ndirs = 0;
	pmix_status_t error, st;
	bool later = false;

	if (pxc_unpack_array(in, (void **)&mon, &nmon, PMIX_INFO) != PMIX_SUCCESS ||
	    pxc_unpack_status(in, &error) != PMIX_SUCCESS ||
	    pxc_unpack_array(in, (void **)&dirs, &ndirs, PMIX_INFO) != PMIX_SUCCESS || nmon != 1) {
		pxc_array_free(mon, nmon, PMIX_INFO);
		pxc_array_free(dirs, ndirs, PMIX_INFO);
		return -1;
	}
	st = handle(p, mon, error, dirs, ndirs, h->tag, &later);
	if (!later)
		reply(p->id, h->tag, st);
	pxc_array_free(mon, nmon, PMIX_INFO);
	pxc_array_free(dirs, ndirs, PMIX_INFO);
	return 0;
}
