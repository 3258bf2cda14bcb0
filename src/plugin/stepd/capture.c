/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/capture.c - the tasks' stdout and stderr through the step daemon
 * (see stepd/capture.h and docs/iof.md, "Capture in the step daemon").
 *
 * Why a pipe put in place in the task hook: it is the one place every
 * Slurm release gives a plugin, in the task, after Slurm set up the
 * task's descriptors and before exec; the step daemon then holds Slurm's
 * descriptor and writes through it, so whatever Slurm does with it
 * (srun's terminal, --label, --output with --label) sees the same bytes.
 * A descriptor that is a terminal (srun -u's stdout, --pty) is left
 * alone: a pipe there would change isatty() and the line discipline. So
 * is a regular file (--output/--error without --label, which the task
 * writes directly): Slurm does not wait for it at the task's end, so srun
 * could end before a relayed file were complete.
 *
 * The hand-over: the task sends {magic, ltask, why[2]} and, for each
 * channel it captures, its pipe's read end and Slurm's descriptor
 * (SCM_RIGHTS) on its own socket pair (made in prefork, inherited, close
 * on exec); the thread answers one byte (the channels it took, as bits of
 * plug_capture_channels) and only then does the task put those pipes on
 * fd 1/2. Without an answer within ack_ms the task
 * keeps Slurm's descriptors.
 *
 * The thread: one poll() over the socket pairs not yet used, the pipes
 * whose previous piece is written out, and Slurm's descriptors with a
 * piece waiting (made non-blocking; a regular file still blocks, as it
 * does for the task under Slurm). A write error on Slurm's side (srun
 * went, EPIPE) closes that channel's pipe too: the task's next write gets
 * EPIPE or SIGPIPE, as it would have.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "stepd/capture.h"
#include "slurm_adapter.h"

#define CAP_MAGIC 0x53584350u /* "SXCP" */
#define CAP_BUF 65536
#define CAP_POLL_MS 1000
#define CAP_JOIN_S 5 /* after the drain: the longest a stop waits for the thread */

/* Why a channel is not captured (the task tells, the thread logs).
 * WHY_SHARED: stderr is the same object as stdout: one pipe takes both,
 * so that their order stays. */
enum { WHY_OK = 0, WHY_TTY = 1, WHY_NOFD = 2, WHY_PIPE = 3, WHY_SHARED = 4, WHY_FILE = 5 };

typedef struct {
	uint32_t magic, ltask;
	uint8_t why[2]; /* [0] stdout, [1] stderr */
} cap_msg_t;

typedef struct {
	int rfd, ofd; /* the pipe's read end, Slurm's descriptor; -1 closed */
	char *buf;
	size_t len, off; /* the piece being written out */
} cstream_t;

typedef struct {
	int sp[2]; /* [0] the thread's end, [1] the task's; -1 closed */
	unsigned chans;
	cstream_t s[2];
} ctask_t;

static struct {
	ctask_t *t;
	uint32_t n;
	int ack_ms;
	int64_t drain_until; /* stop: 0 running, else until when streams may drain */
	plug_capture_out_f out;
	void *arg;
	int wake[2];
	pthread_t thread;
	bool running, abandoned;
	struct pollfd *pfd;
	uint64_t *what; /* [pfd index]: task << 2 | 0 its socket pair, 1 + c
			 * its stream c */
} cap = { .wake = { -1, -1 } };

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- in the task (async-signal-safe) ------------------------------------ */

static uint8_t why_not(int fd)
{
	struct termios t;
	struct stat st;

	if (fcntl(fd, F_GETFD) < 0)
		return WHY_NOFD;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return WHY_FILE;
	return ioctl(fd, TCGETS, &t) == 0 ? WHY_TTY : WHY_OK; /* (isatty, signal-safe) */
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The thread's answer within ack_ms (EINTR retried): the channels taken,
 * 0 for none or no answer. */
static char await_ack(int sock)
{
	int64_t until = mono_ms() + cap.ack_ms;
	struct pollfd pf = { .fd = sock, .events = POLLIN };
	char ack = 0;

	for (;;) {
		int64_t left = until - mono_ms();
		int r = poll(&pf, 1, left > 0 ? (int)left : 0);

		if (r == 1)
			return read(sock, &ack, 1) == 1 ? ack : 0;
		if (r == 0 || errno != EINTR || left <= 0)
			return 0;
	}
}

void plug_capture_task(uint32_t ltask)
{
	cap_msg_t m = { .magic = CAP_MAGIC, .ltask = ltask };
	int p[2][2] = { { -1, -1 }, { -1, -1 } }, fds[4], nfd = 0, sock;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(fds))];
	} u;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	char ack = 0;
	bool shared;

	if (!cap.t || ltask >= cap.n || (sock = cap.t[ltask].sp[1]) < 0)
		return;
	shared = same_file(1, 2);
	for (int c = 0; c < 2; c++) {
		m.why[c] = why_not(c + 1);
		if (c == 1 && m.why[1] == WHY_OK && shared && m.why[0] == WHY_OK)
			m.why[1] = WHY_SHARED;
		if (m.why[c] == WHY_OK && pipe2(p[c], O_CLOEXEC) < 0)
			m.why[c] = WHY_PIPE;
		if (m.why[c] == WHY_OK) {
			fds[nfd++] = p[c][0];
			fds[nfd++] = c + 1;
		}
	}
	if (nfd) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.space;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		u.h.cmsg_level = SOL_SOCKET;
		u.h.cmsg_type = SCM_RIGHTS;
		u.h.cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(&u.h), fds, nfd * sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(m) && nfd)
		ack = await_ack(sock);
	for (int c = 0; c < 2; c++)
		if (p[c][1] >= 0 && (ack & (1 << c)))
			dup2(p[c][1], c + 1); /* (dup2 clears close-on-exec) */
	if (m.why[1] == WHY_SHARED && (ack & 1))
		dup2(p[0][1], 2); /* stderr into stdout's pipe: their order kept */
	for (int c = 0; c < 2; c++) {
		close_fd(&p[c][0]);
		close_fd(&p[c][1]);
	}
}

/* ---- the thread ---------------------------------------------------------- */

unsigned plug_capture_channels(uint32_t ltask)
{
	if (!cap.t || ltask >= cap.n)
		return 0;
	return __atomic_load_n(&cap.t[ltask].chans, __ATOMIC_ACQUIRE);
}

int plug_capture_socket(uint32_t ltask)
{
	return cap.t && ltask < cap.n ? cap.t[ltask].sp[1] : -1;
}

static const char *why_text(uint8_t why)
{
	switch (why) {
	case WHY_TTY: return "it is a terminal";
	case WHY_NOFD: return "the task has no such descriptor";
	case WHY_PIPE: return "no pipe could be made";
	case WHY_SHARED: return "it is the same file as stdout: it goes with stdout";
	case WHY_FILE:
		return "it is a file (--output/--error), which Slurm does not wait for: "
		       "srun could end before a relayed file is complete";
	default: return "the task said so";
	}
}

/* Takes task i's hand-over: checks it, keeps its descriptors, answers. */
static void take(uint32_t i)
{
	ctask_t *t = &cap.t[i];
	cap_msg_t m;
	int fds[4], nfd = 0, want = 0;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(fds))];
	} u;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.space,
			     .msg_controllen = sizeof(u.space) };
	ssize_t r = recvmsg(t->sp[0], &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	unsigned chans = 0;
	char ack;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	for (struct cmsghdr *h = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL; h; h = CMSG_NXTHDR(&mh, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
			for (size_t k = 0; k < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
				int fd;

				memcpy(&fd, CMSG_DATA(h) + k * sizeof(int), sizeof(int));
				if (nfd < 4)
					fds[nfd++] = fd;
				else
					close(fd);
			}
	for (int c = 0; r == (ssize_t)sizeof(m) && c < 2; c++)
		want += m.why[c] == WHY_OK ? 2 : 0;
	if (r != (ssize_t)sizeof(m) || m.magic != CAP_MAGIC || m.ltask != i || nfd != want ||
	    (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		if (r != 0)
			plug_error("task %u: a broken output hand-over (%zd bytes, %d descriptors): "
				   "its output is not captured",
				   i, r, nfd);
		for (int k = 0; k < nfd; k++)
			close(fds[k]);
	} else {
		for (int c = 0, k = 0; c < 2; c++) {
			cstream_t *s = &t->s[c];

			if (m.why[c] != WHY_OK) {
				plug_debug("task %u: its %s is not captured: %s", i,
					   c ? "stderr" : "stdout", why_text(m.why[c]));
				continue;
			}
			s->rfd = fds[k++];
			s->ofd = fds[k++];
			if (!(s->buf = malloc(CAP_BUF))) {
				close_fd(&s->rfd);
				close_fd(&s->ofd);
				plug_error("task %u: no memory: its %s is not captured", i,
					   c ? "stderr" : "stdout");
				continue;
			}
			fcntl(s->rfd, F_SETFL, fcntl(s->rfd, F_GETFL) | O_NONBLOCK);
			fcntl(s->ofd, F_SETFL, fcntl(s->ofd, F_GETFL) | O_NONBLOCK);
			chans |= c ? PLUG_CAPTURE_STDERR : PLUG_CAPTURE_STDOUT;
		}
		__atomic_store_n(&t->chans, chans, __ATOMIC_RELEASE);
		if (m.why[1] == WHY_SHARED && (chans & PLUG_CAPTURE_STDOUT))
			cap.out(cap.arg, i, 2, NULL, 0, true); /* (its bytes come as stdout) */
	}
	ack = (char)chans;
	if (r > 0 && write(t->sp[0], &ack, 1) != 1 && chans)
		plug_debug("task %u: the answer to its output hand-over was lost", i);
	close_fd(&t->sp[0]);
	close_fd(&t->sp[1]);
}

static void stream_end(uint32_t i, int c)
{
	cstream_t *s = &cap.t[i].s[c];

	close_fd(&s->ofd);
	free(s->buf);
	s->buf = NULL;
	s->len = s->off = 0;
}

/* Writes out what waits; false once Slurm's side is gone. */
static bool flush(uint32_t i, int c)
{
	cstream_t *s = &cap.t[i].s[c];

	while (s->off < s->len) {
		ssize_t w = write(s->ofd, s->buf + s->off, s->len - s->off);

		if (w > 0) {
			s->off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return true;
		plug_debug("task %u: its %s cannot be written on (%s): the task gets EPIPE", i,
			   c ? "stderr" : "stdout", w < 0 ? strerror(errno) : "no progress");
		if (s->rfd >= 0) {
			close_fd(&s->rfd);
			cap.out(cap.arg, i, c + 1, NULL, 0, true);
		}
		stream_end(i, c);
		return false;
	}
	s->len = s->off = 0;
	if (s->rfd < 0)
		stream_end(i, c);
	return true;
}

static void fill(uint32_t i, int c)
{
	cstream_t *s = &cap.t[i].s[c];
	ssize_t r = read(s->rfd, s->buf, CAP_BUF);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r > 0) {
		cap.out(cap.arg, i, c + 1, s->buf, (size_t)r, false);
		s->len = (size_t)r;
		s->off = 0;
		flush(i, c);
		return;
	}
	close_fd(&s->rfd); /* the end, or an error: the same for the task */
	cap.out(cap.arg, i, c + 1, NULL, 0, true);
	if (!s->len)
		stream_end(i, c);
}

/* Rebuilds the poll set; the number of entries (the wake pipe first).
 * Stopping: no more hand-overs. */
static nfds_t poll_set(bool stopping)
{
	nfds_t n = 0;

	cap.pfd[n] = (struct pollfd){ .fd = cap.wake[0], .events = POLLIN };
	cap.what[n++] = 0;
	for (uint32_t i = 0; i < cap.n; i++) {
		ctask_t *t = &cap.t[i];

		if (t->sp[0] >= 0 && !stopping) {
			cap.pfd[n] = (struct pollfd){ .fd = t->sp[0], .events = POLLIN };
			cap.what[n++] = (uint64_t)i << 2;
		}
		for (int c = 0; c < 2; c++) {
			cstream_t *s = &t->s[c];

			if (s->len && s->ofd >= 0)
				cap.pfd[n] = (struct pollfd){ .fd = s->ofd, .events = POLLOUT };
			else if (s->rfd >= 0)
				cap.pfd[n] = (struct pollfd){ .fd = s->rfd, .events = POLLIN };
			else
				continue;
			cap.what[n++] = (uint64_t)i << 2 | (uint64_t)(c + 1);
		}
	}
	return n;
}

/* Every signal is blocked here (from the start): a write on a closed pipe
 * is EPIPE, never SIGPIPE. */
static void *run(void *arg)
{
	(void)arg;
	for (;;) {
		int64_t until = __atomic_load_n(&cap.drain_until, __ATOMIC_ACQUIRE),
			wait = CAP_POLL_MS;
		nfds_t n = poll_set(until != 0);

		if (until) { /* stopping: until every stream drained, or the deadline */
			if (n == 1 || mono_ms() >= until)
				break;
			if (until - mono_ms() < wait)
				wait = (int)(until - mono_ms());
		}
		if (poll(cap.pfd, n, (int)wait) <= 0)
			continue;
		if (cap.pfd[0].revents) {
			char x[16];

			if (read(cap.wake[0], x, sizeof(x)) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				break;
		}
		for (nfds_t k = 1; k < n; k++) {
			uint32_t i = (uint32_t)(cap.what[k] >> 2);
			int c = (int)(cap.what[k] & 3) - 1;

			if (!cap.pfd[k].revents)
				continue;
			if (c < 0)
				take(i);
			else if (cap.t[i].s[c].len)
				flush(i, c);
			else
				fill(i, c);
		}
	}
	return NULL;
}

/* ---- life cycle ---------------------------------------------------------- */

static void free_all(void)
{
	for (uint32_t i = 0; cap.t && i < cap.n; i++) {
		ctask_t *t = &cap.t[i];

		close_fd(&t->sp[0]);
		close_fd(&t->sp[1]);
		for (int c = 0; c < 2; c++) {
			close_fd(&t->s[c].rfd);
			stream_end(i, c);
		}
	}
	close_fd(&cap.wake[0]);
	close_fd(&cap.wake[1]);
	free(cap.t);
	free(cap.pfd);
	free(cap.what);
	memset(&cap, 0, sizeof(cap));
	cap.wake[0] = cap.wake[1] = -1;
}

int plug_capture_start(uint32_t ntasks, int ack_ms, plug_capture_out_f out, void *arg)
{
	size_t slots = 1 + 3 * (size_t)ntasks;
	int e;

	if (cap.t || cap.abandoned || !ntasks || !out)
		return errno = EINVAL, -1;
	cap.t = calloc(ntasks, sizeof(*cap.t));
	cap.pfd = calloc(slots, sizeof(*cap.pfd));
	cap.what = calloc(slots, sizeof(*cap.what));
	if (!cap.t || !cap.pfd || !cap.what) {
		free_all();
		return errno = ENOMEM, -1;
	}
	cap.n = ntasks;
	for (uint32_t i = 0; i < ntasks; i++) {
		ctask_t *t = &cap.t[i];

		t->sp[0] = t->sp[1] = -1;
		for (int c = 0; c < 2; c++)
			t->s[c].rfd = t->s[c].ofd = -1;
	}
	cap.ack_ms = ack_ms;
	cap.out = out;
	cap.arg = arg;
	if (pipe2(cap.wake, O_CLOEXEC | O_NONBLOCK) < 0)
		goto fail;
	for (uint32_t i = 0; i < ntasks; i++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cap.t[i].sp) < 0)
			goto fail;
	{
		sigset_t all, old;

		sigfillset(&all); /* the thread starts with every signal blocked */
		pthread_sigmask(SIG_BLOCK, &all, &old);
		e = pthread_create(&cap.thread, NULL, run, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (e) {
		errno = e;
		goto fail;
	}
	cap.running = true;
	return 0;
fail:
	e = errno;
	free_all();
	errno = e;
	return -1;
}

void plug_capture_stop(int drain_ms)
{
	if (cap.abandoned)
		return;
	if (cap.running) {
		struct timespec until;
		int e;

		__atomic_store_n(&cap.drain_until, mono_ms() + (drain_ms > 0 ? drain_ms : 1),
				 __ATOMIC_RELEASE);
		if (write(cap.wake[1], "x", 1) < 0)
			plug_debug("capture: cannot wake the thread (%s)", strerror(errno));
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (drain_ms > 0 ? drain_ms / 1000 : 0) + CAP_JOIN_S;
		if ((e = pthread_timedjoin_np(cap.thread, NULL, &until))) {
			/* stuck in a write (a hung file system): left as it is,
			 * with everything it uses; no new start in this process */
			cap.abandoned = true;
			plug_error("the output capture thread did not stop (%s): left running",
				   strerror(e));
			return;
		}
		for (uint32_t i = 0; i < cap.n; i++)
			for (int c = 0; c < 2; c++)
				if (cap.t[i].s[c].rfd >= 0 || cap.t[i].s[c].len)
					plug_info("task %u: its %s did not end within %d ms of the "
						  "step's end: the rest is not written",
						  i, c ? "stderr" : "stdout", drain_ms);
	}
	free_all();
}
