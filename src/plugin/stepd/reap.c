/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/reap.c - end a step's slurmstepd without Slurm's 100 ms pause once
 * every task of the node has exited.
 *
 * slurmstepd (22.05, _wait_for_all_tasks) reaps its tasks in the job
 * manager thread: a blocking wait for one task, then, when tasks are
 * left, usleep(100000) so that the later exits go to srun in one message,
 * then a non-blocking sweep. With two or more tasks on a node every step
 * pays those 100 ms, also when all its tasks ended at the same moment.
 * Nothing is waited for then: cutting the sleep short when no task is
 * left keeps the one message and saves the 100 ms at the end of every
 * job and of every spawned step.
 *
 * Only an orderly end is cut short: every task of the node finalized
 * through PMIx (the server's client_finalized upcall, not for a lost
 * connection) and then exited. A node with a task killed, aborted or lost,
 * or running a program that does not use PMIx, keeps Slurm's timing as
 * it was: srun ends a step at once when it hears of a task killed by a
 * signal, and output that other tasks are still sending may then be cut
 * off; hearing 100 ms sooner would cut off more.
 *
 * How:
 *   - prefork (job manager thread) records that thread, makes a datagram
 *     socket pair (close-on-exec; between the two ends of a pair only the
 *     send buffer bounds the queue, not net.unix.max_dgram_qlen, and it is
 *     made large enough for about 1500 reports) and installs a handler
 *     that does nothing
 *     for PLUG_REAP_SIG, if nothing else handles that signal and the
 *     thread does not block it;
 *   - each task, between fork and exec, opens a pidfd of itself and sends
 *     it over the pair (a pidfd taken by the task cannot name a recycled
 *     pid);
 *   - the progress thread counts the clients that finalized and waits
 *     for every pidfd to become readable (the task has exited); once all
 *     have finalized and exited, every millisecond for at most
 *     PLUG_REAP_WATCH_MS: once a task has been reaped (waitid WNOWAIT
 *     says ECHILD: Slurm is past its blocking wait) and
 *     /proc/self/task/<tid>/syscall shows the manager thread in a sleep,
 *     it sends PLUG_REAP_SIG to that thread. The sleep returns early and
 *     Slurm sweeps the remaining zombies at once.
 * Anything unexpected (no pidfd support, a task that did not report or
 * did not finalize, the signal in use or blocked, /proc unreadable, the
 * thread not sleeping)
 * leaves Slurm's pause as it was. The handler uses SA_RESTART, so a
 * signal that found the thread anywhere else restarts what it
 * interrupted (where the kernel restarts at all).
 *
 * The same pidfds tell how a task ended (plug_reap_exit_status), for the
 * event its loss raises (PMIX_ERR_PROC_ABORTED_BY_SIG for a signal): they
 * are collected for every step, whatever SlurmixFastStepEnd says and with
 * one task too; only the watch for the pause needs two tasks and the
 * option. Slurm reaps a task as soon as it exits, so the status is read
 * with waitid(WNOWAIT) while the task is a zombie, else (Linux 6.15 and
 * later) from the pidfd itself (PIDFD_GET_INFO, PIDFD_INFO_EXIT), which
 * keeps it after the reaping. On an older kernel that lost the race it is
 * unknown.
 *
 * Threads: start in the job manager thread, task in the forked child,
 * stop from the stepd's fini. Everything else runs in the progress thread,
 * which owns reaper.w; stop posts the clean-up there and waits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event2/event.h>

#include "stepd/reap.h"
#include "pxc_host.h"
#include "slurm_adapter.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
/* PIDFD_GET_INFO (Linux 6.13; PIDFD_INFO_EXIT since 6.15): the first
 * version of its struct, 64 bytes (include/uapi/linux/pidfd.h). */
struct plug_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t ids[11];  /* pid, tgid, ppid and the credentials */
	int32_t exit_code; /* a wait status, with PIDFD_INFO_EXIT */
};
#define PLUG_PIDFD_GET_INFO _IOWR(0xFF, 11, struct plug_pidfd_info)
#define PLUG_PIDFD_INFO_EXIT (1ULL << 3)
#define PLUG_REAP_SIG (SIGRTMIN + 6)
#define PLUG_REAP_WATCH_MS 1000 /* after the last exit; Slurm sleeps 100 */
#define PLUG_REAP_FIRES 5       /* signals at most, ... */
#define PLUG_REAP_GAP_MS 10     /* ... this far apart */

typedef struct {
	int fd; /* pidfd, -1 until the task reported */
	pid_t pid;
	uint32_t rank;
	int ended;
	struct event *ev;
} task_t;

/* A question for a task's exit status, waiting for the task to end. */
typedef struct query {
	struct query *next;
	pid_t pid;
	struct event *timer;
	plug_reap_status_f fn;
	void *arg;
} query_t;

/* Owned by the progress thread once started. */
typedef struct {
	pxc_progress_t *pg;
	struct event *sockev, *tick;
	task_t *t;
	uint32_t *fin; /* ranks that finalized, [nfin] */
	uint32_t got, ended, nfin;
	int ticks;     /* since every task finalized and exited */
	int last_fire; /* tick of the last signal */
	query_t *queries;
} watch_t;

static struct {
	int on;
	int fast;    /* the pause is watched (SlurmixFastStepEnd, 2+ tasks) */
	int sock[2]; /* [0] read by the progress thread, [1] for the tasks */
	uint32_t ntasks;
	pthread_t mgr;
	pid_t mgr_tid;
	int sig_set;
	int ignored; /* stop left the signal ignored (SIG_IGN) */
	struct sigaction old;
	atomic_int fired; /* written by the progress thread */
	watch_t w;
	plug_reap_task_f on_task;
	plug_reap_exit_f on_exit;
} reaper = { .sock = { -1, -1 } };

/* What a task sends: its pid and rank, with a pidfd of itself. */
typedef struct {
	pid_t pid;
	uint32_t rank;
} report_t;

static void on_sig(int sig)
{
	(void)sig;
}

/* 1: the thread tid of this process is blocked in a sleep. */
static int in_sleep(pid_t tid)
{
	char path[64], buf[64];
	long nr;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%ld", &nr) != 1)
		return 0; /* "running" */
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep)
		return 1;
#endif
	return nr == SYS_clock_nanosleep;
}

/* 1: the task behind pidfd has been reaped already. */
static int reaped(int pidfd)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
	       errno == ECHILD;
}

static void query_end(watch_t *w, query_t *q, int known, int wstatus)
{
	for (query_t **pp = &w->queries; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	if (q->timer)
		event_free(q->timer);
	q->fn(known, wstatus, q->arg);
	free(q);
}

static void watch_free(watch_t *w)
{
	while (w->queries)
		query_end(w, w->queries, 0, 0);
	for (uint32_t i = 0; w->t && i < reaper.ntasks; i++) {
		if (w->t[i].ev)
			event_free(w->t[i].ev);
		if (w->t[i].fd >= 0)
			close(w->t[i].fd);
	}
	free(w->t);
	free(w->fin);
	w->t = NULL;
	w->fin = NULL;
	if (w->sockev)
		event_free(w->sockev);
	if (w->tick)
		event_free(w->tick);
	w->sockev = w->tick = NULL;
}

static void on_tick(int fd, short what, void *arg)
{
	watch_t *w = arg;
	uint32_t gone = 0;

	(void)fd, (void)what;
	for (uint32_t i = 0; i < reaper.ntasks; i++)
		gone += (uint32_t)reaped(w->t[i].fd);
	if (gone == reaper.ntasks || ++w->ticks > PLUG_REAP_WATCH_MS) {
		event_del(w->tick); /* Slurm is past its pause, or never came */
		return;
	}
	/* Again if a signal found another sleep of Slurm's (a task epilog
	 * wait, say) and the thread sleeps once more. */
	if (gone == 0 || atomic_load(&reaper.fired) >= PLUG_REAP_FIRES ||
	    (atomic_load(&reaper.fired) && w->ticks - w->last_fire < PLUG_REAP_GAP_MS) ||
	    !in_sleep(reaper.mgr_tid))
		return;
	/* Counted before it is sent: the woken thread may read the count
	 * (plug_reap_fired) before this thread runs again. */
	atomic_fetch_add(&reaper.fired, 1);
	if (pthread_kill(reaper.mgr, PLUG_REAP_SIG) != 0) {
		atomic_fetch_sub(&reaper.fired, 1);
		return;
	}
	w->last_fire = w->ticks;
	plug_flag("fast step end: all %u tasks ended, pause cut short", reaper.ntasks);
}

/* Every task finalized and exited: watch for Slurm's pause. */
static void maybe_watch(watch_t *w)
{
	struct timeval ms = { 0, 1000 };

	if (!reaper.fast || w->tick || w->ended < reaper.ntasks || w->got != reaper.ntasks ||
	    w->nfin < reaper.ntasks)
		return;
	w->tick = event_new(pxc_progress_base(w->pg), -1, EV_PERSIST, on_tick, w);
	if (w->tick)
		event_add(w->tick, &ms);
}

/* How task t ended, as a wait status: 1, or 0 when that cannot be told
 * (still running, or reaped by Slurm on a kernel without
 * PIDFD_INFO_EXIT). */
static int exit_status(const task_t *t, int *wstatus)
{
	struct plug_pidfd_info info;
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (t->fd < 0)
		return 0;
	if (waitid((idtype_t)P_PIDFD, (id_t)t->fd, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
		if (!si.si_pid)
			return 0; /* not ended */
		*wstatus = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 :
			   si.si_code == CLD_DUMPED ? (si.si_status & 0x7f) | 0x80 :
						      si.si_status & 0x7f;
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.mask = PLUG_PIDFD_INFO_EXIT;
	if (errno != ECHILD || ioctl(t->fd, PLUG_PIDFD_GET_INFO, &info) < 0 ||
	    !(info.mask & PLUG_PIDFD_INFO_EXIT))
		return 0;
	*wstatus = info.exit_code;
	return 1;
}

static task_t *task_of(watch_t *w, pid_t pid)
{
	for (uint32_t i = 0; pid > 0 && w->t && i < w->got && i < reaper.ntasks; i++)
		if (w->t[i].pid == pid)
			return &w->t[i];
	return NULL;
}

int plug_reap_pidfd(uint32_t rank)
{
	watch_t *w = &reaper.w;

	for (uint32_t i = 0; reaper.on && w->t && i < w->got && i < reaper.ntasks; i++)
		if (w->t[i].rank == rank)
			return w->t[i].fd >= 0 && !w->t[i].ended && !reaped(w->t[i].fd) ?
				       w->t[i].fd :
				       -1;
	return -1;
}

/* The questions about t's exit are answered. */
static void answer(watch_t *w, const task_t *t)
{
	query_t *q, *next;
	int wstatus = 0, known = -1; /* read once, and only when asked */

	for (q = w->queries; q; q = next) {
		next = q->next;
		if (q->pid != t->pid)
			continue;
		if (known < 0)
			known = exit_status(t, &wstatus);
		query_end(w, q, known, wstatus);
	}
}

static void on_exit_fd(int fd, short what, void *arg)
{
	task_t *t = arg;

	(void)fd, (void)what;
	if (t->ended)
		return;
	t->ended = 1;
	event_del(t->ev);
	reaper.w.ended++;
	answer(&reaper.w, t);
	if (reaper.on_exit) {
		int wstatus = 0, known = exit_status(t, &wstatus);

		reaper.on_exit(t->rank, known, wstatus);
	}
	maybe_watch(&reaper.w);
}

static void query_timeout(int fd, short what, void *arg)
{
	query_t *q = arg;
	task_t *t = task_of(&reaper.w, q->pid);
	int wstatus = 0, known = t ? exit_status(t, &wstatus) : 0;

	(void)fd, (void)what;
	query_end(&reaper.w, q, known, wstatus);
}

void plug_reap_exit_status(pid_t pid, int wait_ms, plug_reap_status_f fn, void *arg)
{
	watch_t *w = &reaper.w;
	task_t *t = reaper.on ? task_of(w, pid) : NULL;
	struct timeval tv = { wait_ms / 1000, (wait_ms % 1000) * 1000 };
	int wstatus = 0;
	query_t *q;

	if (!t || t->ended) {
		int known = t ? exit_status(t, &wstatus) : 0;

		fn(known, wstatus, arg);
		return;
	}
	if (!(q = calloc(1, sizeof(*q))) ||
	    !(q->timer = evtimer_new(pxc_progress_base(w->pg), query_timeout, q)) ||
	    evtimer_add(q->timer, &tv) < 0) {
		if (q && q->timer)
			event_free(q->timer);
		free(q);
		fn(0, 0, arg);
		return;
	}
	q->pid = pid;
	q->fn = fn;
	q->arg = arg;
	q->next = w->queries;
	w->queries = q;
}

/* A task's report: one datagram, its pid with one pidfd attached. */
static void on_sock(int fd, short what, void *arg)
{
	watch_t *w = arg;

	(void)what;
	for (;;) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} ctl;
		report_t r;
		struct iovec iov = { &r, sizeof(r) };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = ctl.b,
				    .msg_controllen = sizeof(ctl.b) };
		struct cmsghdr *c;
		int pidfd = -1;
		ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0)
			return;
		c = CMSG_FIRSTHDR(&m);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&pidfd, CMSG_DATA(c), sizeof(int));
		if (pidfd < 0)
			continue;
		if (n != (ssize_t)sizeof(r) || w->got >= reaper.ntasks) {
			close(pidfd);
			continue;
		}
		task_t *t = &w->t[w->got++];

		t->fd = pidfd;
		t->pid = r.pid;
		t->rank = r.rank;
		if (reaper.on_task)
			reaper.on_task(r.rank, r.pid);
		t->ev = event_new(pxc_progress_base(w->pg), pidfd, EV_READ | EV_PERSIST, on_exit_fd,
				  t);
		if (!t->ev || event_add(t->ev, NULL) < 0)
			w->got = reaper.ntasks + 1; /* cannot watch it: never fire */
	}
}

static void start_fn(void *arg)
{
	watch_t *w = arg;

	w->t = calloc(reaper.ntasks, sizeof(*w->t));
	w->fin = calloc(reaper.ntasks, sizeof(*w->fin));
	if (!w->fin) {
		free(w->t);
		w->t = NULL;
	}
	for (uint32_t i = 0; w->t && i < reaper.ntasks; i++)
		w->t[i].fd = -1;
	w->sockev = w->t ? event_new(pxc_progress_base(w->pg), reaper.sock[0], EV_READ | EV_PERSIST,
				     on_sock, w) :
			   NULL;
	if (!w->sockev || event_add(w->sockev, NULL) < 0) {
		plug_debug("fast step end: cannot watch the tasks");
		watch_free(w);
	}
}

void plug_reap_hooks(plug_reap_task_f on_task, plug_reap_exit_f on_exit)
{
	reaper.on_task = on_task;
	reaper.on_exit = on_exit;
}

void plug_reap_finalized(uint32_t rank)
{
	watch_t *w = &reaper.w;

	if (!w->fin) /* not armed (w is the progress thread's) */
		return;
	for (uint32_t i = 0; i < w->nfin; i++)
		if (w->fin[i] == rank)
			return;
	if (w->nfin < reaper.ntasks)
		w->fin[w->nfin++] = rank;
	maybe_watch(w);
}

static void stop_fn(void *arg)
{
	watch_free(&reaper.w);
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

/* The signal is free and reaches this thread: the handler goes in. */
static int install_handler(void)
{
	struct sigaction sa;
	sigset_t cur;

	if (sigaction(PLUG_REAP_SIG, NULL, &reaper.old) < 0 ||
	    (reaper.old.sa_handler != SIG_DFL &&
	     !(reaper.ignored && reaper.old.sa_handler == SIG_IGN)) ||
	    (reaper.old.sa_flags & SA_SIGINFO) || pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0 ||
	    sigismember(&cur, PLUG_REAP_SIG))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(PLUG_REAP_SIG, &sa, NULL) < 0)
		return -1;
	reaper.sig_set = 1;
	return 0;
}

int plug_reap_start(uint32_t node_tasks, int fast)
{
	pxc_progress_t *pg = pxc_progress_global();
	int buf = 1 << 20; /* about 1500 reports (an skb each) */

	if (reaper.on || node_tasks < 1)
		return node_tasks < 1 ? 0 : -1;
	atomic_store(&reaper.fired, 0);
	if (!pg || socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, reaper.sock) < 0 ||
	    fcntl(reaper.sock[0], F_SETFL, O_NONBLOCK) < 0) {
		plug_debug("fast step end not armed: %s",
			   pg ? strerror(errno) : "no progress thread");
		plug_reap_stop();
		return -1;
	}
	if (setsockopt(reaper.sock[1], SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		setsockopt(reaper.sock[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	reaper.fast = fast && node_tasks >= 2;
	if (reaper.fast && install_handler() < 0) {
		plug_debug("fast step end not armed: signal %d in use or blocked",
			   (int)PLUG_REAP_SIG);
		reaper.fast = 0; /* the exit statuses are still collected */
	}
	reaper.ntasks = node_tasks;
	reaper.mgr = pthread_self();
	reaper.mgr_tid = (pid_t)syscall(SYS_gettid);
	memset(&reaper.w, 0, sizeof(reaper.w));
	reaper.w.pg = pg;
	if (pxc_progress_post(pg, start_fn, &reaper.w) < 0) {
		plug_reap_stop();
		return -1;
	}
	reaper.on = 1;
	return 0;
}

void plug_reap_task(uint32_t rank)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} ctl;
	report_t r = { .pid = getpid(), .rank = rank };
	struct iovec iov = { &r, sizeof(r) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b) };
	struct cmsghdr *c;
	int fd;

	if (!reaper.on || reaper.sock[1] < 0)
		return;
#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, r.pid, 0);
#else
	fd = -1;
#endif
	if (fd < 0)
		return;
	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	(void)sendmsg(reaper.sock[1], &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

void plug_reap_stop(void)
{
	if (reaper.on && reaper.w.pg)
		pxc_progress_call(reaper.w.pg, stop_fn, 10000);
	if (reaper.sig_set) {
		/* Ignored from now on: a late signal must not end the stepd,
		 * and the handler's code may be unloaded with the plugin. */
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigemptyset(&sa.sa_mask);
		sigaction(PLUG_REAP_SIG, &sa, NULL);
		reaper.sig_set = 0;
		reaper.ignored = 1;
	}
	for (int i = 0; i < 2; i++) {
		if (reaper.sock[i] >= 0)
			close(reaper.sock[i]);
		reaper.sock[i] = -1;
	}
	reaper.on = 0;
	reaper.fast = 0;
	reaper.w.pg = NULL;
}

int plug_reap_fired(void)
{
	return atomic_load(&reaper.fired);
}
