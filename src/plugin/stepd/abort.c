/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/abort.c - the stepd side of PMIx_Abort (the server module's abort
 * upcall): the report goes to srun's agent (srun/agent.c) on a connection
 * of its own: ABORT (step key, node id, rank, status, host, message).
 * srun prints it, keeps the status as its exit code, answers ABORT_ACK
 * and kills the step. Only then does the aborting client get its answer
 * (so its own exit cannot overtake the report). A PMIx_Abort that names
 * ranks of the step (not the whole step) sends them with the report;
 * srun prints it and keeps the status but kills nothing: once srun
 * answered (or could not be reached), this stepd announces the ranks as
 * aborted and their own stepds kill them (net/lost.c); the caller goes on
 * unless it is among them. When srun cannot be
 * reached, answers nothing within PLUG_ABORT_SEC, or closes, this stepd
 * kills the step itself through slurmctld.
 *
 * Threads: plug_abort_report runs in the progress thread (the server calls
 * its module there); every report's state (connect event, connection,
 * timer) is owned by that thread. plug_abort_init runs in prefork (job
 * manager thread) before the server can call; plug_abort_stop posts the
 * clean-up to the progress thread and waits for it. A report still in
 * flight at stop answers its client with PMIX_ERR_UNREACH.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "lib/map.h"
#include "common/conf.h"
#include "net/ctx.h"
#include "net/event.h"
#include "net/lost.h"
#include "stepd/abort.h"
#include "slurm_adapter.h"

#define PLUG_ABORT_SEC 10
#define PLUG_ABORT_MSG_MAX 4000

typedef struct op {
	struct op *next;
	uint32_t id;
	int fd;
	struct event *ev; /* connect, then the answer timer */
	pxc_conn_t *conn;
	pmix_data_buffer_t msg;
	pmix_rank_t *ranks; /* the ranks to abort; NULL: the whole step */
	size_t nranks;
	int status;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
} op_t;

static struct {
	char key[PLUG_KEY_LEN + 1];
	char host[256];
	char port[8];
	uint32_t job, step, node;
	int ready;
	op_t *ops;
	uint32_t last_id;
	int ending; /* the step's PMIX_EVENT_JOB_END went out */
} reporter;

int plug_abort_init(char **env, uint32_t job, uint32_t step, uint32_t node)
{
	const char *key = plug_env_get(env, PLUG_KEY_ENV);
	const char *port = plug_env_get(env, PLUG_SRUN_PORT_ENV);
	const char *host = plug_env_get(env, "SLURM_SRUN_COMM_HOST");
	uint32_t p;

	reporter.job = job;
	reporter.step = step;
	reporter.node = node;
	reporter.ready = 0;
	reporter.ending = 0;
	if (!host)
		host = plug_env_get(env, "SLURM_LAUNCH_NODE_IPADDR");
	if (!key || strlen(key) != PLUG_KEY_LEN || !port ||
	    plug_parse_u32(port, 1, 65535, &p) < 0 || !host ||
	    strlen(host) >= sizeof(reporter.host))
		return plug_info("no abort agent in srun: PMIx_Abort kills the step "
				 "without a message"),
		       -1;
	strcpy(reporter.key, key);
	strcpy(reporter.host, host);
	snprintf(reporter.port, sizeof(reporter.port), "%u", p);
	reporter.ready = 1;
	return 0;
}

/* Ends a report: aborts the ranks it names (whether srun took it or
 * not, unless the step is ending), or kills the step unless srun did;
 * then answers the client. */
static void op_done(op_t *o, int acked, pmix_status_t st)
{
	for (op_t **p = &reporter.ops; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	if (o->ev)
		event_free(o->ev);
	if (o->fd >= 0)
		close(o->fd);
	pxc_conn_close(o->conn, 0);
	pxc_buf_clear(&o->msg);
	if (o->ranks && st != PMIX_ERR_UNREACH) {
		if (!acked)
			plug_error("srun did not take the abort report: the ranks are aborted "
				   "without its message");
		plug_lost_abort(o->ranks, o->nranks, o->status);
	} else if (!acked && st != PMIX_ERR_UNREACH) {
		plug_error("srun did not take the abort report: killing step %u.%u", reporter.job,
			   reporter.step);
		plug_slurm_kill_step(reporter.job, reporter.step, SIGKILL);
	}
	if (o->cbfunc)
		o->cbfunc(st, o->cbdata);
	free(o->ranks);
	free(o);
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	(void)c, (void)in;
	op_done(arg, h->cmd == PLUG_NET_ABORT_ACK, PMIX_SUCCESS);
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	op_t *o = arg;

	(void)err;
	pxc_conn_close(c, 0);
	o->conn = NULL;
	op_done(o, 0, PMIX_SUCCESS);
}

static void on_timer(int fd, short what, void *arg)
{
	(void)fd, (void)what;
	op_done(arg, 0, PMIX_SUCCESS);
}

static void on_connect(int fd, short what, void *arg)
{
	struct timeval tv = { PLUG_ABORT_SEC, 0 };
	struct event_base *base = pxc_progress_base(pxc_progress_global());
	op_t *o = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	if ((what & EV_TIMEOUT) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
		return op_done(o, 0, PMIX_SUCCESS);
	event_free(o->ev);
	o->ev = NULL;
	o->fd = -1; /* the connection owns it now */
	o->conn = pxc_conn_new(base, fd, 1u << 16, on_msg, on_close, o);
	o->ev = evtimer_new(base, on_timer, o);
	if (!o->conn || !o->ev || evtimer_add(o->ev, &tv) < 0 ||
	    pxc_conn_send(o->conn, PLUG_NET_ABORT, 0, 0, &o->msg) < 0)
		op_done(o, 0, PMIX_SUCCESS);
}

static int pack_report(op_t *o, pmix_rank_t rank, int status, const char *host, const char *msg)
{
	char *cut = strndup(msg ? msg : "", PLUG_ABORT_MSG_MAX);
	int32_t st = status;
	int rc;

	pxc_buf_init(&o->msg);
	rc = !cut || pxc_pack_str(&o->msg, reporter.key) != PMIX_SUCCESS ||
			     pxc_pack_u32(&o->msg, reporter.node) != PMIX_SUCCESS ||
			     pxc_pack_u32(&o->msg, rank) != PMIX_SUCCESS ||
			     pxc_pack(&o->msg, &st, 1, PMIX_INT32) != PMIX_SUCCESS ||
			     pxc_pack_str(&o->msg, host) != PMIX_SUCCESS ||
			     pxc_pack_str(&o->msg, cut) != PMIX_SUCCESS ?
		     -1 :
		     0;
	if (rc == 0 && o->ranks) {
		rc = pxc_pack_u32(&o->msg, (uint32_t)o->nranks) == PMIX_SUCCESS ? 0 : -1;
		for (size_t i = 0; rc == 0 && i < o->nranks; i++)
			rc = pxc_pack_u32(&o->msg, o->ranks[i]) == PMIX_SUCCESS ? 0 : -1;
	}
	free(cut);
	return rc;
}

/* Non-blocking connect to srun's agent. 0/-1. */
static int start_connect(op_t *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct timeval tv = { PLUG_ABORT_SEC, 0 };
	struct event_base *base = pxc_progress_base(pxc_progress_global());
	int rc = -1;

	if (!base || getaddrinfo(reporter.host, reporter.port, &hints, &ai) != 0)
		return -1;
	o->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (o->fd >= 0 &&
	    (connect(o->fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS)) {
		o->ev = event_new(base, o->fd, EV_WRITE, on_connect, o);
		rc = o->ev && event_add(o->ev, &tv) == 0 ? 0 : -1;
	}
	freeaddrinfo(ai);
	return rc;
}

/* ---- the step's processes hear the end first ------------------------------ */

/* Names up to 16 procs in buf: "rank 3" or "ranks 3,5,7 and 4 more". */
static void name_ranks(char *buf, size_t len, const pmix_proc_t *un, size_t nun)
{
	size_t at = (size_t)snprintf(buf, len, "rank%s ", nun == 1 ? "" : "s");

	for (size_t i = 0; i < nun && i < 16 && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? "," : "", un[i].rank);
	if (nun > 16 && at < len)
		snprintf(buf + at, len - at, " and %zu more", nun - 16);
}

void plug_abort_end_log(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun)
{
	char who[256];

	if (st == PMIX_SUCCESS) {
		plug_info("PMIX_EVENT_JOB_END: %zu process%s answered", nhandled,
			  nhandled == 1 ? "" : "es");
	} else if (st == PMIX_ERR_NOT_FOUND) {
		plug_info("PMIX_EVENT_JOB_END: no process has a handler for it: the step ends now");
	} else {
		name_ranks(who, sizeof(who), un, nun);
		plug_error("PMIX_EVENT_JOB_END: %zu process%s did not answer (%s): %s", nun,
			   nun == 1 ? "" : "es", PMIx_Error_string(st), who);
	}
}

/* The step's processes had PMIX_EVENT_JOB_END: now the report goes (and
 * srun ends the step), unless the report was ended meanwhile (stop). */
static void job_end_done(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
			 void *cbdata)
{
	uint32_t id = (uint32_t)(uintptr_t)cbdata;
	op_t *o;

	for (o = reporter.ops; o && o->id != id; o = o->next)
		;
	plug_abort_end_log(st, nhandled, un, nun);
	if (o && start_connect(o) < 0)
		op_done(o, 0, PMIX_SUCCESS);
}

uint32_t plug_abort_grace_ms(void)
{
	uint32_t s = plug_slurm_kill_wait();

	if (!s || s > plug_conf.event_timeout)
		s = plug_conf.event_timeout;
	return s * 1000;
}

int plug_abort_end_notice(const pmix_proc_t *source, const pmix_proc_t *failed, int status,
			  const char *msg, plug_event_sync_f cb, void *cbdata)
{
	uint32_t ms = plug_abort_grace_ms();
	pmix_status_t term = status;
	pmix_info_t info[7];
	bool yes = true;
	int secs = (int)(ms / 1000), rc;

	PMIx_Info_load(&info[0], PMIX_EVENT_TERMINATE_JOB, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
	PMIx_Info_load(&info[2], PMIX_EVENT_AFFECTED_PROC, failed, PMIX_PROC);
	PMIx_Info_load(&info[3], PMIX_EXIT_CODE, &status, PMIX_INT);
	PMIx_Info_load(&info[4], PMIX_EVENT_ACTION_TIMEOUT, &secs, PMIX_INT);
	PMIx_Info_load(&info[5], PMIX_EVENT_TEXT_MESSAGE, msg ? msg : "", PMIX_STRING);
	/* for the handlers registered for it: a default handler (Open MPI's
	 * aborts the process, with a PMIx_Abort of its own) is no answer */
	PMIx_Info_load(&info[6], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
	rc = plug_event_sync(PMIX_EVENT_JOB_END, source, info, 7, ms, cb, cbdata);
	for (int i = 0; i < 7; i++)
		PMIx_Info_destruct(&info[i]);
	if (rc < 0)
		plug_error("PMIX_EVENT_JOB_END cannot be raised (%u ms): the step ends now", ms);
	return rc;
}

/* A whole-step abort: PMIX_EVENT_JOB_END first, o's report once each
 * process answered (or the grace passed). 0, or -1 when it cannot be
 * raised (the report goes at once). */
static int job_end_first(op_t *o, pmix_rank_t rank, int status, const char *msg)
{
	pmix_proc_t caller;

	if (!plug_net_ctx.nspace[0] || reporter.ending)
		return -1; /* a second abort of the step: no second round */
	reporter.ending = 1;
	PMIx_Load_procid(&caller, plug_net_ctx.nspace, rank);
	return plug_abort_end_notice(&caller, &caller, status, msg, job_end_done,
				     (void *)(uintptr_t)o->id);
}

pmix_status_t plug_abort_report(pmix_rank_t rank, int status, const char *host, const char *msg,
				const pmix_rank_t *ranks, size_t nranks, pmix_op_cbfunc_t cbfunc,
				void *cbdata)
{
	op_t *o = calloc(1, sizeof(*o));

	if (ranks)
		plug_error("rank %u (%s) called PMIx_Abort(%d) on %zu rank%s of the step (first: "
			   "%u): %s",
			   rank, host, status, nranks, nranks == 1 ? "" : "s", ranks[0],
			   msg ? msg : "");
	else
		plug_error("rank %u (%s) called PMIx_Abort(%d): %s", rank, host, status,
			   msg ? msg : "");
	if (o && ranks && !(o->ranks = malloc(nranks * sizeof(*ranks)))) {
		free(o);
		o = NULL;
	}
	if (!o || !reporter.ready)
		goto kill;
	if (ranks) /* (memcpy from NULL would let the compiler assume ranks) */
		memcpy(o->ranks, ranks, nranks * sizeof(*ranks));
	o->nranks = ranks ? nranks : 0;
	o->status = status;
	o->fd = -1;
	o->cbfunc = cbfunc;
	o->cbdata = cbdata;
	o->id = ++reporter.last_id ? reporter.last_id : ++reporter.last_id;
	o->next = reporter.ops;
	reporter.ops = o;
	/* a whole-step abort: the report (and the step's end) after the
	 * step's processes had PMIX_EVENT_JOB_END */
	if (pack_report(o, rank, status, host, msg) < 0 ||
	    ((ranks || job_end_first(o, rank, status, msg) < 0) && start_connect(o) < 0)) {
		o->cbfunc = NULL; /* answered below */
		op_done(o, 0, PMIX_SUCCESS);
		return PMIX_OPERATION_SUCCEEDED;
	}
	return PMIX_SUCCESS;
kill:
	if (o)
		free(o->ranks);
	free(o);
	if (ranks)
		plug_lost_abort(ranks, nranks, status);
	else
		plug_slurm_kill_step(reporter.job, reporter.step, SIGKILL);
	return PMIX_OPERATION_SUCCEEDED;
}

/* ---- procs of other steps ------------------------------------------------ */

static void others_done(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	if (st != PMIX_SUCCESS)
		plug_error("abort of procs of other steps: %s", PMIx_Error_string(st));
}

pmix_status_t plug_abort_others(const pmix_proc_t *caller, int status, const char *msg,
				const pmix_proc_t *procs, size_t n, pmix_op_cbfunc_t cbfunc,
				void *cbdata)
{
	pmix_data_array_t da = { .type = PMIX_PROC, .size = n, .array = (void *)procs };
	char *cut = strndup(msg ? msg : "", PLUG_ABORT_MSG_MAX);
	pmix_info_t info[4];
	bool yes = true;
	int ec = status;
	pmix_status_t st;

	if (!cut)
		return PMIX_ERR_NOMEM;
	plug_error("rank %u called PMIx_Abort(%d) on %zu proc%s of other steps (first: %s:%u): %s",
		   caller->rank, status, n, n == 1 ? "" : "s", procs[0].nspace, procs[0].rank, cut);
	PMIx_Info_load(&info[0], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIx_Info_load(&info[1], PMIX_EXIT_CODE, &ec, PMIX_INT);
	PMIx_Info_load(&info[2], PLUG_ABORT_KILL_KEY, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[3], PLUG_ABORT_MSG_KEY, cut, PMIX_STRING);
	st = plug_event_notify(PMIX_ERR_PROC_REQUESTED_ABORT, caller, PMIX_RANGE_CUSTOM, info, 4,
			       cbfunc ? cbfunc : others_done, cbdata);
	for (int i = 0; i < 4; i++)
		PMIx_Info_destruct(&info[i]);
	free(cut);
	return st;
}

/* An abort of procs of this step asked by a process of another step: the
 * ones on this node are aborted like ranks named by a local PMIx_Abort
 * (reported to our srun, then flooded and killed). Taken: never
 * delivered as an event (the step's own flood tells its processes). */
static bool abort_in(pmix_status_t code, const pmix_proc_t *source, const pmix_info_t *info,
		     size_t ninfo)
{
	const pmix_info_t *kill_i = pxc_info_find(info, ninfo, PLUG_ABORT_KILL_KEY);
	const pmix_info_t *ec_i = pxc_info_find(info, ninfo, PMIX_EXIT_CODE);
	const pmix_info_t *msg_i = pxc_info_find(info, ninfo, PLUG_ABORT_MSG_KEY);
	const pmix_info_t *cr = pxc_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
	const plug_map_t *map = plug_net_ctx.map;
	const pmix_data_array_t *da;
	pmix_rank_t *ranks = NULL;
	unsigned char *seen = NULL;
	char *text = NULL;
	size_t n = 0;

	if (code != PMIX_ERR_PROC_REQUESTED_ABORT || !kill_i || !source)
		return false;
	if (kill_i->value.type != PMIX_BOOL || !ec_i || ec_i->value.type != PMIX_INT || !cr ||
	    cr->value.type != PMIX_DATA_ARRAY || !(da = cr->value.data.darray) ||
	    da->type != PMIX_PROC || !da->array || !map) {
		plug_error("malformed abort request from %s:%u: dropped", source->nspace,
			   source->rank);
		return true;
	}
	if (!(seen = calloc(map->ntasks, 1)) || !(ranks = malloc(map->ntasks * sizeof(*ranks))))
		goto done;
	for (size_t i = 0; i < da->size; i++) {
		const pmix_proc_t *p = (const pmix_proc_t *)da->array + i;

		if (!PMIx_Check_nspace(p->nspace, plug_net_ctx.nspace))
			continue;
		for (uint32_t r = 0; r < map->ntasks; r++)
			if ((p->rank == PMIX_RANK_WILDCARD || p->rank == r) &&
			    map->node_of[r] == plug_net_ctx.me && !seen[r]++)
				ranks[n++] = r;
	}
	if (n && asprintf(&text, "%s (from %s:%u)",
			  msg_i && msg_i->value.type == PMIX_STRING && msg_i->value.data.string ?
				  msg_i->value.data.string :
				  "",
			  source->nspace, source->rank) > 0)
		plug_abort_report(source->rank, ec_i->value.data.integer,
				  plug_net_ctx.host ? plug_net_ctx.host : "?", text, ranks, n, NULL,
				  NULL);
done:
	free(text);
	free(seen);
	free(ranks);
	return true;
}

void plug_abort_watch(void)
{
	if (plug_event_watch(abort_in) < 0)
		plug_error("cannot watch events: aborts from other steps are not served");
}

/* Blocking: connect, send, wait for the ACK (or the close); bounded. */
static void send_blocking(const pmix_data_buffer_t *msg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct timeval tv = { PLUG_ABORT_SEC, 0 };
	unsigned char hdr[PXC_WIRE_HDR_LEN], ack[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = (uint32_t)msg->bytes_used, .cmd = PLUG_NET_ABORT };
	int fd = -1;

	if (getaddrinfo(reporter.host, reporter.port, &hints, &ai) != 0)
		return;
	pxc_wire_hdr_encode(&h, hdr);
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0 &&
	    connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
	    send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) == (ssize_t)sizeof(hdr) &&
	    send(fd, msg->base_ptr, msg->bytes_used, MSG_NOSIGNAL) == (ssize_t)msg->bytes_used)
		(void)!recv(fd, ack, sizeof(ack), MSG_WAITALL); /* ACK, or srun closed */
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
}

void plug_abort_launch_failed(const char *host, const char *why)
{
	op_t o = { .fd = -1 };

	if (!reporter.ready || pack_report(&o, PLUG_ABORT_RANK_STEPD, 1, host, why) < 0)
		return;
	send_blocking(&o.msg);
	pxc_buf_clear(&o.msg);
}

static void stop_fn(void *arg)
{
	while (reporter.ops)
		op_done(reporter.ops, 0, PMIX_ERR_UNREACH);
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

void plug_abort_stop(void)
{
	pxc_progress_call(pxc_progress_global(), stop_fn, 10000);
	reporter.ready = 0;
}
