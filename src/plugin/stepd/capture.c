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
 * fd 0/1/2, and then says so ('c'). Without an answer within ack_ms the
 * task keeps Slurm's descriptors and says nothing; the thread touches
 * none of them (not even their flags: they are the task's too) before
 * the word, and drops them when the socket pair closes without it.
 *
 * The thread: one poll() over the socket pairs not yet used, the pipes
 * whose previous piece is written out, and Slurm's descriptors with a
 * piece waiting (made non-blocking; a regular file still blocks, as it
 * does for the task under Slurm). A write error on Slurm's side (srun
 * went, EPIPE) closes that channel's pipe too: the task's next write gets
 * EPIPE or SIGPIPE, as it would have.
 *
 * stdin (docs/iof.md, "Pushing stdin"): a task whose fd 0 is a pipe or a
 * socket (what Slurm gives for srun's stdin) gets a pipe there too, and
 * hands over the pipe's write end with Slurm's descriptor. The thread
 * copies what comes from srun into it, unchanged, and reads Slurm's side
 * only once the previous piece is in the task's pipe (srun's stdin waits
 * when the task reads slowly, as it does without slurmix). Pushes
 * (plug_capture_push, any thread) queue per task and go into the same
 * pipe between srun's pieces, each whole, in the order given. The task's
 * stdin ends after a push marked complete, or at the end of srun's input
 * when no push came before it and the input is not held. /dev/null, a
 * file and a terminal stay the task's (pushes to them are refused).
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

#include "lib/util.h"
#include "stepd/capture.h"
#include "slurm_adapter.h"

#define CAP_MAGIC 0x53584350u /* "SXCP" */
#define CAP_BUF 65536
#define CAP_POLL_MS 1000
#define CAP_JOIN_S 5 /* after the drain: the longest a stop waits for the thread */

/* Why a channel is not captured (the task tells, the thread logs).
 * WHY_SHARED: stderr is the same object as stdout: one pipe takes both,
 * so that their order stays. */
enum {
	WHY_OK = 0,
	WHY_TTY = 1,
	WHY_NOFD = 2,
	WHY_PIPE = 3,
	WHY_SHARED = 4,
	WHY_FILE = 5,
	WHY_NULL = 6, /* stdin: /dev/null or another device */
};

typedef struct {
	uint32_t magic, ltask;
	uint8_t why[3]; /* [0] stdout, [1] stderr, [2] stdin */
} cap_msg_t;

/* A push waiting for a task's stdin. */
typedef struct pitem {
	struct pitem *next;
	const char *data; /* the caller's, until done() */
	size_t len, off;
	bool complete;
	void *token;
} pitem_t;

/* stdin's states (cap.lock). */
enum { IN_WAIT = 0, IN_OPEN, IN_CLOSED, IN_NONE };

typedef struct {
	int sfd, tfd; /* Slurm's stdin (read), the task's pipe (write); -1 closed */
	char *buf;
	size_t len, off; /* a piece of srun's being written */
	pitem_t *cur;    /* the push being written (thread) */
	/* (cap.lock) */
	pitem_t *head, *tail;
	size_t queued;
	uint8_t state, why;
	bool pushed; /* a push came: srun's end does not end the task's stdin */
	bool broken; /* a push was refused (too much waits): it ends after the queue */
} istream_t;

typedef struct {
	int rfd, ofd; /* the pipe's read end, Slurm's descriptor; -1 closed */
	char *buf;
	const char *wp;  /* the piece being written out: buf, or the formatter's */
	size_t len, off; /* its length, and how much of it is written */
} cstream_t;

typedef struct {
	int sp[2]; /* [0] the thread's end, [1] the task's; -1 closed */
	unsigned chans;
	unsigned held;   /* taken, waiting for the task's word (confirm) */
	bool shared_err; /* its stderr goes with stdout */
	cstream_t s[2];
	istream_t in;
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
	uint64_t *what;       /* [pfd index]: task << 2 | 0 its socket pair, 1 + c
			 * its stream c, 3 its stdin */
	pthread_mutex_t lock; /* the stdin queues and states */
} cap = { .wake = { -1, -1 }, .lock = PTHREAD_MUTEX_INITIALIZER };

/* How the output goes (plug_capture_format); kept across starts. */
static struct {
	unsigned how;
	plug_capture_fmt_f fmt;
	void *arg;
} fmtcfg;

/* How stdin pushes end (plug_capture_input); kept across starts. */
static struct {
	bool hold;
	plug_capture_in_f done;
	void *arg;
} incfg;

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
		return fmtcfg.how & PLUG_CAPTURE_FILES ? WHY_OK : WHY_FILE;
	return ioctl(fd, TCGETS, &t) == 0 ? WHY_TTY : WHY_OK; /* (isatty, signal-safe) */
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The thread's answer within ack_ms (EINTR retried): the channels taken,
 * 0 for none or no answer. */
static char await_ack(int sock)
{
	int64_t until = plug_mono_ms() + cap.ack_ms;
	struct pollfd pf = { .fd = sock, .events = POLLIN };
	char ack = 0;

	for (;;) {
		int64_t left = until - plug_mono_ms();
		int r = poll(&pf, 1, left > 0 ? (int)left : 0);

		if (r == 1)
			return read(sock, &ack, 1) == 1 ? ack : 0;
		if (r == 0 || errno != EINTR || left <= 0)
			return 0;
	}
}

/* Why Slurm's stdin is not taken: only a pipe or a socket (srun's) is. */
static uint8_t why_not_in(void)
{
	struct termios t;
	struct stat st;

	if (fcntl(0, F_GETFD) < 0 || fstat(0, &st) < 0)
		return WHY_NOFD;
	if (S_ISREG(st.st_mode))
		return WHY_FILE;
	if (ioctl(0, TCGETS, &t) == 0)
		return WHY_TTY;
	return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? WHY_OK : WHY_NULL;
}

/* The task's channels to hand over: why[] filled, each taken channel's
 * pipe in p[c] and its two descriptors in fds; their count. */
static int prepare(cap_msg_t *m, int p[3][2], int fds[6])
{
	bool merge = fmtcfg.how & PLUG_CAPTURE_MERGE, shared = same_file(1, 2);
	int nfd = 0;

	for (int c = 0; c < 3; c++) {
		m->why[c] = c < 2 ? why_not(c + 1) : why_not_in();
		if (c == 1 && m->why[1] == WHY_OK && (merge || (shared && m->why[0] == WHY_OK)))
			m->why[1] = WHY_SHARED;
		if (m->why[c] == WHY_OK && pipe2(p[c], O_CLOEXEC) < 0)
			m->why[c] = WHY_PIPE;
		if (m->why[c] != WHY_OK)
			continue;
		fds[nfd++] = c < 2 ? p[c][0] : p[c][1]; /* the thread's end */
		fds[nfd++] = c < 2 ? c + 1 : 0;         /* Slurm's */
	}
	return nfd;
}

void plug_capture_task(uint32_t ltask)
{
	cap_msg_t m = { .magic = CAP_MAGIC, .ltask = ltask };
	int p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, fds[6], nfd, sock;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(fds))];
	} u;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	char ack = 0;

	if (!cap.t || ltask >= cap.n || (sock = cap.t[ltask].sp[1]) < 0)
		return;
	if ((nfd = prepare(&m, p, fds))) {
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
	else if (fmtcfg.how & PLUG_CAPTURE_MERGE)
		dup2(1, 2); /* merged, stdout not taken: stderr goes where it goes */
	if (p[2][0] >= 0 && (ack & 4))
		dup2(p[2][0], 0);
	/* the word: the pipes are in place. Until it, the thread touches
	 * none of Slurm's descriptors, which a task that gave up waiting
	 * still uses itself */
	if (ack)
		(void)send(sock, "c", 1, MSG_NOSIGNAL);
	for (int c = 0; c < 3; c++) {
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
	case WHY_SHARED: return "it goes with stdout (the same file, or merged)";
	case WHY_FILE:
		return "it is a file (--output/--error/--input), which Slurm does not wait for: "
		       "srun could end before a relayed file is complete";
	case WHY_NULL: return "it is /dev/null (srun --input=none, or another task's)";
	default: return "the task said so";
	}
}

/* ---- stdin ---- */

/* Ends the pushes of list with st (done() outside the lock). */
static void in_fail(pitem_t *list, uint32_t ltask, int st)
{
	while (list) {
		pitem_t *it = list;

		list = it->next;
		incfg.done(incfg.arg, ltask, it->token, st);
		free(it);
	}
}

/* Task i's stdin is over (state IN_CLOSED or IN_NONE): its descriptors
 * closed, what waits ended with st. */
static void in_close(uint32_t i, uint8_t state, int st)
{
	istream_t *s = &cap.t[i].in;
	pitem_t *list;

	close_fd(&s->sfd);
	close_fd(&s->tfd);
	free(s->buf);
	s->buf = NULL;
	s->len = s->off = 0;
	pthread_mutex_lock(&cap.lock);
	s->state = state;
	list = s->head;
	s->head = s->tail = NULL;
	s->queued = 0;
	pthread_mutex_unlock(&cap.lock);
	if (s->cur) {
		incfg.done(incfg.arg, i, s->cur->token, st);
		free(s->cur);
		s->cur = NULL;
	}
	in_fail(list, i, st);
}

/* The hand-over's stdin descriptors (or none, why): the stream opens. */
static void in_take(uint32_t i, const int *fds, uint8_t why)
{
	istream_t *s = &cap.t[i].in;

	if (why == WHY_OK && (s->buf = malloc(CAP_BUF))) {
		s->tfd = fds[0];
		s->sfd = fds[1];
		return; /* opens with the task's word (confirmed) */
	}
	if (why == WHY_OK) {
		close(fds[0]);
		close(fds[1]);
		plug_error("task %u: no memory: its stdin takes no pushes", i);
	}
	in_close(i, IN_NONE, -ENOTSUP);
}

/* The next push to write, or NULL. */
static pitem_t *in_next(istream_t *s)
{
	pthread_mutex_lock(&cap.lock);
	if (!s->cur && s->head) {
		s->cur = s->head;
		if (!(s->head = s->head->next))
			s->tail = NULL;
		s->queued -= s->cur->len;
	}
	pthread_mutex_unlock(&cap.lock);
	return s->cur;
}

/* Whether there is something to write into the task's pipe. */
static bool in_pending(istream_t *s)
{
	bool any;

	pthread_mutex_lock(&cap.lock);
	any = s->cur || s->head || s->off < s->len;
	pthread_mutex_unlock(&cap.lock);
	return any;
}

/* Writes b[*off..len) into the task's pipe: 1 all of it, 0 the pipe is
 * full, -1 the task closed its stdin. */
static int in_write(istream_t *s, const char *b, size_t *off, size_t len)
{
	while (*off < len) {
		ssize_t w = write(s->tfd, b + *off, len - *off);

		if (w > 0)
			*off += (size_t)w;
		else if (w < 0 && errno == EAGAIN)
			return 0;
		else if (!(w < 0 && errno == EINTR))
			return -1;
	}
	return 1;
}

/* The task's pipe takes more: srun's piece first, then the pushes. */
static void in_flush(uint32_t i)
{
	istream_t *s = &cap.t[i].in;
	pitem_t *it;
	int r = s->off < s->len ? in_write(s, s->buf, &s->off, s->len) : 1;

	if (r > 0)
		s->len = s->off = 0;
	while (r > 0 && (it = in_next(s))) {
		if ((r = in_write(s, it->data, &it->off, it->len)) <= 0)
			break;
		s->cur = NULL;
		incfg.done(incfg.arg, i, it->token, 0);
		if (it->complete) { /* the task sees the end of its stdin */
			free(it);
			in_close(i, IN_CLOSED, -EPIPE);
			return;
		}
		free(it);
	}
	if (r < 0) {
		plug_debug("task %u closed its stdin: no more of it is passed on", i);
		in_close(i, IN_CLOSED, -EPIPE);
	}
}

/* srun's side is readable: a piece, or its end. */
static void in_fill(uint32_t i)
{
	istream_t *s = &cap.t[i].in;
	ssize_t r = read(s->sfd, s->buf, CAP_BUF);
	bool pushed;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r > 0) {
		s->len = (size_t)r;
		s->off = 0;
		in_flush(i);
		return;
	}
	close_fd(&s->sfd); /* srun's input ended */
	pthread_mutex_lock(&cap.lock);
	pushed = s->pushed;
	pthread_mutex_unlock(&cap.lock);
	if (!pushed && !incfg.hold)
		in_close(i, IN_CLOSED, -EPIPE);
}

int plug_capture_push(uint32_t ltask, const void *data, size_t n, bool complete, void *token)
{
	istream_t *s;
	pitem_t *it;
	int st = 0;

	if (!cap.t || ltask >= cap.n || !incfg.done)
		return -ENOTSUP;
	if (!(it = calloc(1, sizeof(*it))))
		return -ENOMEM;
	*it = (pitem_t){ .data = data, .len = n, .complete = complete, .token = token };
	s = &cap.t[ltask].in;
	pthread_mutex_lock(&cap.lock);
	if (s->state == IN_NONE)
		st = -ENOTSUP;
	else if (s->state == IN_CLOSED || s->broken)
		st = -EPIPE;
	else if (s->queued && s->queued + n > PLUG_CAPTURE_PUSH_MAX)
		st = -ENOBUFS;
	if (st == -ENOBUFS) {
		/* no gap in the middle of the task's input: it ends after what
		 * was taken (a push of its own may be bigger than the bound) */
		s->broken = true;
		s->tail->complete = true;
	}
	if (!st) {
		s->pushed = true;
		s->queued += n;
		if (s->tail)
			s->tail->next = it;
		else
			s->head = it;
		s->tail = it;
	}
	pthread_mutex_unlock(&cap.lock);
	if (st) {
		free(it);
		return st;
	}
	if (write(cap.wake[1], "p", 1) < 0 && errno != EAGAIN)
		plug_debug("capture: cannot wake the thread (%s)", strerror(errno));
	return 0;
}

int plug_capture_stdin(uint32_t ltask)
{
	int st;

	if (!cap.t || ltask >= cap.n)
		return -ENOTSUP;
	pthread_mutex_lock(&cap.lock);
	st = cap.t[ltask].in.state;
	pthread_mutex_unlock(&cap.lock);
	return st == IN_OPEN ? 0 : st == IN_WAIT ? -EAGAIN : st == IN_CLOSED ? -EPIPE : -ENOTSUP;
}

void plug_capture_format(unsigned how, plug_capture_fmt_f fmt, void *arg)
{
	fmtcfg.how = how;
	fmtcfg.fmt = fmt;
	fmtcfg.arg = arg;
}

void plug_capture_input(bool hold, plug_capture_in_f done, void *arg)
{
	incfg.hold = hold;
	incfg.done = done;
	incfg.arg = arg;
}

/* ---- the hand-over ---- */

/* The hand-over's descriptors (at most 6) into fds; their count. */
static int recv_fds(struct msghdr *mh, ssize_t r, int fds[6])
{
	int nfd = 0;

	for (struct cmsghdr *h = r > 0 ? CMSG_FIRSTHDR(mh) : NULL; h; h = CMSG_NXTHDR(mh, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
			for (size_t k = 0; k < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
				int fd;

				memcpy(&fd, CMSG_DATA(h) + k * sizeof(int), sizeof(int));
				if (nfd < 6)
					fds[nfd++] = fd;
				else
					close(fd);
			}
	return nfd;
}

/* An output channel of the hand-over: its two descriptors; its bit. */
static unsigned out_take(uint32_t i, int c, const int *fds)
{
	cstream_t *s = &cap.t[i].s[c];

	s->rfd = fds[0];
	s->ofd = fds[1];
	if (!(s->buf = malloc(CAP_BUF))) {
		close_fd(&s->rfd);
		close_fd(&s->ofd);
		plug_error("task %u: no memory: its %s is not captured", i,
			   c ? "stderr" : "stdout");
		return 0;
	}
	return c ? PLUG_CAPTURE_STDERR : PLUG_CAPTURE_STDOUT;
}

static void stream_end(uint32_t i, int c);

static void nonblock(int fd)
{
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* The task's word after the answer: its pipes are in place ('c'), and
 * the streams it handed over go; or it gave up waiting (its end of the
 * socket pair closes at exec, or at its end): they are dropped with
 * Slurm's descriptors untouched, which the task still uses. */
static void confirmed(uint32_t i)
{
	ctask_t *t = &cap.t[i];
	char c = 0;
	ssize_t r = recv(t->sp[0], &c, 1, MSG_DONTWAIT);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close_fd(&t->sp[0]);
	if (r != 1 || c != 'c') {
		plug_debug("task %u: did not take its pipes: it keeps Slurm's descriptors", i);
		for (int k = 0; k < 2; k++) {
			close_fd(&t->s[k].rfd);
			stream_end(i, k);
		}
		t->held = 0;
		in_close(i, IN_NONE, -ENOTSUP);
		return;
	}
	for (int k = 0; k < 2; k++) {
		nonblock(t->s[k].rfd);
		nonblock(t->s[k].ofd);
	}
	nonblock(t->in.sfd);
	nonblock(t->in.tfd);
	__atomic_store_n(&t->chans, t->held & 3u, __ATOMIC_RELEASE);
	t->held = 0;
	if (t->shared_err && (t->chans & PLUG_CAPTURE_STDOUT))
		cap.out(cap.arg, i, 2, NULL, 0, true); /* (its bytes come as stdout) */
	if (t->in.tfd >= 0) {
		pthread_mutex_lock(&cap.lock);
		t->in.state = IN_OPEN;
		pthread_mutex_unlock(&cap.lock);
	}
}

/* Takes task i's hand-over: checks it, keeps its descriptors, answers. */
static void take(uint32_t i)
{
	ctask_t *t = &cap.t[i];
	cap_msg_t m;
	int fds[6], nfd, want = 0;
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
	char ack = 0;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	nfd = recv_fds(&mh, r, fds);
	for (int c = 0; r == (ssize_t)sizeof(m) && c < 3; c++)
		want += m.why[c] == WHY_OK ? 2 : 0;
	if (r != (ssize_t)sizeof(m) || m.magic != CAP_MAGIC || m.ltask != i || nfd != want ||
	    (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		if (r != 0)
			plug_error("task %u: a broken output hand-over (%zd bytes, %d descriptors): "
				   "its output is not captured",
				   i, r, nfd);
		for (int k = 0; k < nfd; k++)
			close(fds[k]);
		in_close(i, IN_NONE, -ENOTSUP);
	} else {
		int k = 0;

		for (int c = 0; c < 2; c++) {
			if (m.why[c] != WHY_OK) {
				plug_debug("task %u: its %s is not captured: %s", i,
					   c ? "stderr" : "stdout", why_text(m.why[c]));
				continue;
			}
			chans |= out_take(i, c, fds + k);
			k += 2;
		}
		if (m.why[2] != WHY_OK)
			plug_debug("task %u: its stdin takes no pushes: %s", i, why_text(m.why[2]));
		in_take(i, fds + k, m.why[2]);
		t->shared_err = m.why[1] == WHY_SHARED;
		ack = (char)(chans | (t->in.tfd >= 0 ? 4 : 0));
	}
	if (r > 0 && write(t->sp[0], &ack, 1) != 1 && ack)
		plug_debug("task %u: the answer to its output hand-over was lost", i);
	close_fd(&t->sp[1]);
	if (ack) {
		t->held = chans | 4u; /* (4: held even with no output channel) */
		return;               /* its word comes on sp[0] (confirmed) */
	}
	close_fd(&t->sp[0]);
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
		ssize_t w = write(s->ofd, s->wp + s->off, s->len - s->off);

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

/* The piece to write for raw[0..n) (n 0 with eof: what the formatter
 * still holds): formatted when there is a formatter. */
static void piece(uint32_t i, int c, size_t n, bool eof)
{
	cstream_t *s = &cap.t[i].s[c];
	const char *p = s->buf;
	size_t len = n;

	if (fmtcfg.fmt && fmtcfg.fmt(fmtcfg.arg, i, c + 1, s->buf, n, eof, &p, &len) < 0) {
		p = s->buf; /* unformatted, rather than lost */
		len = n;
	}
	s->wp = p;
	s->len = len;
	s->off = 0;
}

static void fill(uint32_t i, int c)
{
	cstream_t *s = &cap.t[i].s[c];
	ssize_t r = read(s->rfd, s->buf, CAP_BUF);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r > 0) {
		cap.out(cap.arg, i, c + 1, s->buf, (size_t)r, false);
		piece(i, c, (size_t)r, false);
		flush(i, c);
		return;
	}
	close_fd(&s->rfd); /* the end, or an error: the same for the task */
	cap.out(cap.arg, i, c + 1, NULL, 0, true);
	piece(i, c, 0, true);
	if (s->len)
		flush(i, c);
	else
		stream_end(i, c);
}

/* Task i's stdin entry of the poll set, if it has one. */
static bool in_poll(uint32_t i, struct pollfd *pf)
{
	istream_t *s = &cap.t[i].in;

	if (s->tfd < 0 || cap.t[i].held)
		return false;
	if (in_pending(s))
		*pf = (struct pollfd){ .fd = s->tfd, .events = POLLOUT };
	else if (s->sfd >= 0)
		*pf = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
	else
		return false; /* waits for a push (the wake pipe) */
	return true;
}

/* Rebuilds the poll set; the number of entries (the wake pipe first).
 * Stopping: no more hand-overs, and no stdin (the tasks are gone). */
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
		for (int c = 0; c < 2 && !t->held; c++) {
			cstream_t *s = &t->s[c];

			if (s->len && s->ofd >= 0)
				cap.pfd[n] = (struct pollfd){ .fd = s->ofd, .events = POLLOUT };
			else if (s->rfd >= 0)
				cap.pfd[n] = (struct pollfd){ .fd = s->rfd, .events = POLLIN };
			else
				continue;
			cap.what[n++] = (uint64_t)i << 2 | (uint64_t)(c + 1);
		}
		if (!stopping && in_poll(i, &cap.pfd[n]))
			cap.what[n++] = (uint64_t)i << 2 | 3;
	}
	return n;
}

static void on_ready(uint32_t i, int c, short revents)
{
	if (c < 0 && cap.t[i].held) {
		confirmed(i);
	} else if (c < 0) {
		take(i);
	} else if (c == 2) {
		if ((revents & (POLLOUT | POLLERR)) && cap.t[i].in.tfd >= 0 &&
		    in_pending(&cap.t[i].in))
			in_flush(i);
		else if (cap.t[i].in.sfd >= 0)
			in_fill(i);
	} else if (cap.t[i].s[c].len) {
		flush(i, c);
	} else {
		fill(i, c);
	}
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
			if (n == 1 || plug_mono_ms() >= until)
				break;
			if (until - plug_mono_ms() < wait)
				wait = (int)(until - plug_mono_ms());
		}
		if (poll(cap.pfd, n, (int)wait) <= 0)
			continue;
		if (cap.pfd[0].revents) {
			char x[64];

			if (read(cap.wake[0], x, sizeof(x)) < 0 && errno != EAGAIN &&
			    errno != EINTR)
				break;
		}
		for (nfds_t k = 1; k < n; k++)
			if (cap.pfd[k].revents)
				on_ready((uint32_t)(cap.what[k] >> 2), (int)(cap.what[k] & 3) - 1,
					 cap.pfd[k].revents);
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
		in_close(i, IN_CLOSED, -ECANCELED);
	}
	close_fd(&cap.wake[0]);
	close_fd(&cap.wake[1]);
	free(cap.t);
	free(cap.pfd);
	free(cap.what);
	memset(&cap, 0, sizeof(cap));
	cap.wake[0] = cap.wake[1] = -1;
	cap.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

int plug_capture_start(uint32_t ntasks, int ack_ms, plug_capture_out_f out, void *arg)
{
	size_t slots = 1 + 4 * (size_t)ntasks;
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
		t->in.sfd = t->in.tfd = -1;
	}
	cap.ack_ms = ack_ms;
	cap.out = out;
	cap.arg = arg;
	if (pipe2(cap.wake, O_CLOEXEC | O_NONBLOCK) < 0)
		goto fail;
	for (uint32_t i = 0; i < ntasks; i++)
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cap.t[i].sp) < 0)
			goto fail;
	e = plug_thread_start(&cap.thread, run, NULL); /* every signal blocked */
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

int plug_capture_stop(int drain_ms)
{
	if (cap.abandoned)
		return -1;
	if (cap.running) {
		struct timespec until;
		int e;

		__atomic_store_n(&cap.drain_until, plug_mono_ms() + (drain_ms > 0 ? drain_ms : 1),
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
			return -1;
		}
		for (uint32_t i = 0; i < cap.n; i++)
			for (int c = 0; c < 2; c++)
				if (cap.t[i].s[c].rfd >= 0 || cap.t[i].s[c].len)
					plug_info("task %u: its %s did not end within %d ms of the "
						  "step's end: the rest is not written",
						  i, c ? "stderr" : "stdout", drain_ms);
	}
	free_all();
	return 0;
}
