/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/stepend.c - how the step ended, for its tools (net/stepend.h).
 *
 * Each node counts its tasks' exits (stepd/reap.c: the pidfd of every
 * task, PMIx client or not) and keeps the highest exit code (128 + the
 * signal for a task killed by one), as srun returns it, and the count of
 * tasks whose end could not be told (a kernel before 6.15 when Slurm
 * reaped the task first; a task that never reported). Once every local
 * task has exited, or at the latest at the step daemon's end, a node
 * other than 0 sends EXITS (lib/proto.h) to node 0. Node 0 counts the
 * nodes that told it, and a lost node as told; once all have, it raises
 * PMIX_EVENT_JOB_END, range LOCAL (its tools; its own tasks have ended):
 * PMIX_EVENT_AFFECTED_PROC {nspace, WILDCARD}, PMIX_JOB_TERM_STATUS
 * (PMIX_SUCCESS, or PMIX_ERR_JOB_NON_ZERO_TERM), PMIX_EXIT_CODE (that
 * highest code, or 0) with PMIX_PROCID of its rank; without
 * PMIX_EXIT_CODE when no task failed but some ends are unknown (the
 * status is not known then); PMIX_EVENT_TIMESTAMP.
 *
 * The process table: each node keeps its tasks' pids (from their
 * reports); the first tool that attaches to a node makes it ask every
 * other node for theirs (PIDS_REQ, answered PIDS), and the tool's HELLO
 * is answered once they came (2 s at most; a lost node counts), so its
 * table shows every task's pid. A node that told fewer pids than it has
 * tasks (asked before they all started) is asked again by the next
 * tool. Nothing is sent while no tool attaches.
 * Progress thread, except plug_stepend_wait.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "net/ctx.h"
#include "net/stepend.h"
#include "slurm_adapter.h"

#define NO_RANK UINT32_MAX
#define PIDS_WAIT_MS 2000

/* A tool's HELLO waiting for the other nodes' pids. */
typedef struct waiter {
	struct waiter *next;
	plug_stepend_ready_f fn;
	void *arg;
} waiter_t;

static struct {
	plug_net_t *net;
	uint32_t me, nnodes, ntasks; /* ntasks: this node's */
	uint32_t exited, unknown;
	uint32_t first_rank; /* the highest code's; NO_RANK: none failed */
	int32_t first_code;
	bool sent;      /* this node's EXITS went (node 0: counted) */
	bool ready;     /* the network started: a tool may be served */
	uint8_t *told;  /* node 0: [nnodes] */
	uint8_t *exits; /* node 0: [nnodes] its EXITS came (every task ended) */
	uint32_t ntold;
	bool done, stopped;
	uint32_t *lrank; /* this node's tasks that reported: rank, pid */
	pid_t *lpid;
	uint32_t nl;
	/* the other nodes' pids, asked when the first tool comes */
	uint8_t *answered; /* [nnodes] */
	uint32_t *got;     /* [nnodes] pids a node told (at most its tasks) */
	uint32_t nanswered;
	int pids; /* 0 not asked (or some missing), 1 asking, 2 every one known */
	waiter_t *waiters;
	struct event *timer;
} se;

/* A wait status as the exit code srun would give: the code, or 128 +
 * the signal. */
static int32_t code_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 1;
}

/* srun returns the highest exit code of the step's tasks */
static void failure(uint32_t rank, int32_t code)
{
	if (code != 0 && (se.first_rank == NO_RANK || code > se.first_code)) {
		se.first_rank = rank;
		se.first_code = code;
	}
}

static void job_end_queued(pmix_status_t st, void *arg)
{
	(void)st;
	(void)arg;
	se.done = true; /* plug_stepend_wait may let the tools' connections go */
}

static void job_end(void)
{
	pmix_info_t *info = PMIx_Info_create(5);
	pmix_status_t term = se.first_rank == NO_RANK ? PMIX_SUCCESS : PMIX_ERR_JOB_NON_ZERO_TERM;
	int code = se.first_rank == NO_RANK ? 0 : se.first_code;
	time_t now = time(NULL);
	pmix_proc_t all, first;
	size_t n = 3;

	if (!info) {
		se.done = true;
		return;
	}
	PMIx_Load_procid(&all, plug_net_ctx.nspace, PMIX_RANK_WILDCARD);
	PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &all, PMIX_PROC);
	PMIx_Info_load(&info[1], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
	PMIx_Info_load(&info[2], PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
	if (se.first_rank != NO_RANK || !se.unknown)
		PMIx_Info_load(&info[n++], PMIX_EXIT_CODE, &code, PMIX_INT);
	if (se.first_rank != NO_RANK) {
		PMIx_Load_procid(&first, plug_net_ctx.nspace, se.first_rank);
		PMIx_Info_load(&info[n++], PMIX_PROCID, &first, PMIX_PROC);
	}
	if (PMIx_Notify_event(PMIX_EVENT_JOB_END, &all, PMIX_RANGE_LOCAL, info, n, job_end_queued,
			      NULL) != PMIX_SUCCESS)
		se.done = true;
	PMIx_Info_free(info, 5);
	plug_flag("step end: exit code %d (rank %d; %u ends unknown)", code,
		  se.first_rank == NO_RANK ? -1 : (int)se.first_rank, se.unknown);
}

/* Node 0: node told how its tasks ended (or was lost). */
static void node_told(uint32_t node)
{
	if (!se.told || se.done || node >= se.nnodes || se.told[node])
		return;
	se.told[node] = 1;
	if (++se.ntold == se.nnodes)
		job_end();
}

static void local_done(void)
{
	pmix_data_buffer_t b;

	if (se.sent)
		return;
	se.sent = true;
	if (se.me == 0) {
		node_told(0);
		return;
	}
	pxc_buf_init(&b);
	if (pxc_pack_u32(&b, se.first_rank) != PMIX_SUCCESS ||
	    pxc_pack_u32(&b, (uint32_t)se.first_code) != PMIX_SUCCESS ||
	    pxc_pack_u32(&b, se.unknown) != PMIX_SUCCESS ||
	    plug_net_send(se.net, 0, PLUG_NET_EXITS, 0, &b) < 0)
		plug_debug("step end: cannot tell node 0 how the tasks ended");
	pxc_buf_clear(&b);
}

void plug_stepend_task(uint32_t rank, pid_t pid)
{
	pmix_proc_t p;

	PMIx_Load_procid(&p, plug_net_ctx.nspace, rank);
	pxc_server_proc_pid(&p, pid);
	if (se.lrank && se.nl < se.ntasks) {
		se.lrank[se.nl] = rank;
		se.lpid[se.nl++] = pid;
	}
}

size_t plug_stepend_local_pids(const pid_t **pids)
{
	*pids = se.lpid;
	return se.lpid ? se.nl : 0;
}

/* ---- the other nodes' pids, for the tools' process table ---------------- */

/* Whether every other node told the pids of all its tasks (a node asked
 * before its tasks started told fewer: a later tool asks it again). */
static bool pids_complete(void)
{
	for (uint32_t n = 0; n < se.nnodes; n++)
		if (n != se.me && se.got[n] < plug_net_ctx.map->count[n])
			return false;
	return true;
}

static void pids_done(void)
{
	waiter_t *w;

	se.pids = pids_complete() ? 2 : 0;
	if (se.timer)
		event_del(se.timer);
	while ((w = se.waiters)) {
		se.waiters = w->next;
		w->fn(w->arg);
		free(w);
	}
}

static void pids_answered(uint32_t node)
{
	if (se.pids != 1 || !se.answered || node >= se.nnodes || se.answered[node])
		return;
	se.answered[node] = 1;
	if (++se.nanswered == se.nnodes)
		pids_done();
}

static void pids_timeout(int fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (se.pids == 1) {
		plug_debug("step end: not every node told its pids within %d ms", PIDS_WAIT_MS);
		pids_done();
	}
}

void plug_stepend_tool(plug_stepend_ready_f fn, void *arg)
{
	struct timeval tv = { PIDS_WAIT_MS / 1000, (PIDS_WAIT_MS % 1000) * 1000 };
	waiter_t *w;

	if (!se.ready || se.pids == 2 || se.nnodes < 2 || se.stopped || !se.answered ||
	    !(w = calloc(1, sizeof(*w)))) {
		fn(arg);
		return;
	}
	w->fn = fn;
	w->arg = arg;
	w->next = se.waiters;
	se.waiters = w;
	if (se.pids == 1)
		return;
	se.pids = 1;
	se.nanswered = 0;
	for (uint32_t n = 0; n < se.nnodes; n++) { /* only those that told fewer */
		se.answered[n] = n == se.me || se.got[n] >= plug_net_ctx.map->count[n];
		se.nanswered += se.answered[n];
	}
	if (!se.timer)
		se.timer = evtimer_new(plug_net_base(se.net), pids_timeout, NULL);
	if (!se.timer || evtimer_add(se.timer, &tv) < 0) {
		pids_done();
		return;
	}
	for (uint32_t n = 0; n < se.nnodes; n++)
		if (!se.answered[n] && plug_net_send(se.net, n, PLUG_NET_PIDS_REQ, 0, NULL) < 0)
			pids_answered(n);
}

static void pids_req(uint32_t from)
{
	pmix_data_buffer_t b;
	int ok;

	pxc_buf_init(&b);
	ok = pxc_pack_u32(&b, se.nl) == PMIX_SUCCESS;
	for (uint32_t i = 0; ok && i < se.nl; i++)
		ok = pxc_pack_u32(&b, se.lrank[i]) == PMIX_SUCCESS &&
		     pxc_pack_u32(&b, (uint32_t)se.lpid[i]) == PMIX_SUCCESS;
	if (!ok || plug_net_send(se.net, from, PLUG_NET_PIDS, 0, &b) < 0)
		plug_debug("step end: cannot tell node %u the pids", (unsigned)from);
	pxc_buf_clear(&b);
}

static void pids_in(uint32_t from, pmix_data_buffer_t *in)
{
	uint32_t n = 0, rank, pid;
	pmix_proc_t p;

	if (from >= se.nnodes || pxc_unpack_u32(in, &n) != PMIX_SUCCESS ||
	    n > plug_net_ctx.map->ntasks) {
		plug_error("malformed PIDS message from node %u: dropped", (unsigned)from);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (pxc_unpack_u32(in, &rank) != PMIX_SUCCESS ||
		    pxc_unpack_u32(in, &pid) != PMIX_SUCCESS || rank >= plug_net_ctx.map->ntasks ||
		    plug_net_ctx.map->node_of[rank] != from || pid == 0 || pid > INT32_MAX) {
			plug_error("malformed PIDS message from node %u: dropped", (unsigned)from);
			break;
		}
		PMIx_Load_procid(&p, plug_net_ctx.nspace, rank);
		pxc_server_proc_pid(&p, (pid_t)pid);
		if (i + 1 > se.got[from])
			se.got[from] = i + 1;
	}
	pids_answered(from);
}

void plug_stepend_exit(uint32_t rank, int known, int wstatus)
{
	if (se.stopped || se.exited >= se.ntasks)
		return;
	if (known)
		failure(rank, code_of(wstatus));
	else
		se.unknown++;
	if (++se.exited == se.ntasks)
		local_done();
}

static void on_msg(void *arg, uint32_t from, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	uint32_t rank, code, unknown;

	(void)arg;
	if (h->cmd == PLUG_NET_PIDS_REQ) {
		if (from < se.nnodes)
			pids_req(from);
		return;
	}
	if (h->cmd == PLUG_NET_PIDS) {
		pids_in(from, in);
		return;
	}
	if (se.me != 0 || pxc_unpack_u32(in, &rank) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &code) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &unknown) != PMIX_SUCCESS || unknown > plug_net_ctx.map->ntasks ||
	    (rank != NO_RANK && rank >= plug_net_ctx.map->ntasks) ||
	    (rank != NO_RANK && plug_net_ctx.map->node_of[rank] != from) ||
	    (se.told && from < se.nnodes && se.told[from])) {
		plug_error("malformed EXITS message from node %u: dropped", (unsigned)from);
		return;
	}
	if (rank != NO_RANK)
		failure(rank, (int32_t)code);
	se.unknown += unknown;
	if (se.exits && from < se.nnodes)
		se.exits[from] = 1;
	node_told(from);
}

bool plug_stepend_node_ended(uint32_t node)
{
	return se.exits && node < se.nnodes && se.exits[node];
}

static void on_lost(void *arg, uint32_t peer)
{
	(void)arg;
	node_told(peer); /* nothing more can come from it */
	pids_answered(peer);
}

static void on_start(void *arg)
{
	(void)arg;
	se.ready = true;
}

static void on_stop(void *arg)
{
	(void)arg;
	se.stopped = true;
	se.ready = false;
	if (se.pids == 1)
		pids_done(); /* the tools' HELLOs are answered: the server goes */
	if (se.timer)
		event_free(se.timer);
	se.timer = NULL;
}

int plug_stepend_register(plug_net_t *n, uint32_t me, uint32_t nnodes, uint32_t local_tasks)
{
	plug_net_user_t u = { .name = "stepend",
			      .first = PLUG_NET_EXITS,
			      .last = PLUG_NET_PIDS,
			      .msg = on_msg,
			      .peer_lost = on_lost,
			      .start = on_start,
			      .stop = on_stop };

	/* se is zero (static) and the progress thread reads nothing of it
	 * before on_start: a tool served earlier gets no pids gathered */
	se.net = n;
	se.me = me;
	se.nnodes = nnodes;
	se.ntasks = local_tasks;
	se.first_rank = NO_RANK;
	if ((me == 0 && (!(se.told = calloc(nnodes, 1)) || !(se.exits = calloc(nnodes, 1)))) ||
	    !(se.answered = calloc(nnodes, 1)) || !(se.got = calloc(nnodes, sizeof(*se.got))) ||
	    !(se.lrank = calloc(local_tasks ? local_tasks : 1, sizeof(*se.lrank))) ||
	    !(se.lpid = calloc(local_tasks ? local_tasks : 1, sizeof(*se.lpid))))
		return -1;
	return plug_net_register(n, &u);
}

/* What the fini thread asks the progress thread (static: a late answer
 * after a timed-out call still lands somewhere valid). */
static struct {
	unsigned tools;
	size_t queued;
	bool done;
} probe;

static void probe_fn(void *arg)
{
	pxc_sync_t *s = arg;

	probe.tools = pxc_server_tool_count();
	probe.queued = pxc_server_tool_queued();
	probe.done = se.done;
	pxc_sync_signal(s, PMIX_SUCCESS);
}

/* Fini: every local task has ended; what was not told is unknown. */
static void end_fn(void *arg)
{
	if (!se.sent && se.ready) {
		se.unknown += se.ntasks - se.exited;
		se.exited = se.ntasks;
		local_done();
	}
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

void plug_stepend_wait(int timeout_ms)
{
	long start = pxc_now_ms(), drain_until = 0;

	if (!se.net || pxc_progress_call(pxc_progress_global(), end_fn, 2000) != PMIX_SUCCESS ||
	    se.me != 0 || !se.told)
		return;
	for (;;) {
		if (pxc_progress_call(pxc_progress_global(), probe_fn, 2000) != PMIX_SUCCESS)
			return;
		if (!probe.tools || (probe.done && !probe.queued))
			return;
		if (probe.done && !drain_until)
			drain_until = pxc_now_ms() + 2000;
		if ((drain_until && pxc_now_ms() > drain_until) ||
		    (!probe.done && pxc_now_ms() - start > timeout_ms)) {
			plug_info("step end: %s: the attached tools may miss the end",
				  probe.done ? "their connections did not drain" :
					       "the other nodes' ends did not come");
			return;
		}
		usleep(10000);
	}
}

void plug_stepend_free(void)
{
	waiter_t *w;

	while ((w = se.waiters)) { /* not reached: stop answered them */
		se.waiters = w->next;
		free(w);
	}
	if (se.timer)
		event_free(se.timer);
	free(se.answered);
	free(se.got);
	free(se.lrank);
	free(se.lpid);
	free(se.told);
	free(se.exits);
	memset(&se, 0, sizeof(se));
}
