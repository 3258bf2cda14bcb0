/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_capture.c - stepd/capture.c as slurmstepd uses it: the test
 * plays the step daemon (plug_capture_start, the out() callback) and Slurm
 * (a pipe or a terminal as each task's stdout and stderr, made before the
 * fork), and forks the tasks, which run the task hook (plug_capture_task)
 * and then write. What the test reads from "Slurm's" descriptors must be
 * exactly what the tasks wrote, and so must what out() got.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <check.h>

#include "runner.h"
#include "stepd/capture.h"

#define MAXT 4

/* What out() got, per task and channel. */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *data;
	size_t n, cap;
	int eofs;
	bool after_eof; /* bytes after the end: a bug */
} got[MAXT][2];

static void out_cb(void *arg, uint32_t ltask, int fd, const void *data, size_t n, bool eof)
{
	(void)arg;
	if (ltask >= MAXT || (fd != 1 && fd != 2))
		abort(); /* (the capture thread: no check assertion there) */
	pthread_mutex_lock(&m);
	if (got[ltask][fd - 1].eofs && (n || eof))
		got[ltask][fd - 1].after_eof = true;
	if (eof)
		got[ltask][fd - 1].eofs++;
	if (n) {
		typeof(got[0][0]) *g = &got[ltask][fd - 1];

		if (g->n + n > g->cap) {
			g->cap = (g->n + n) * 2;
			g->data = realloc(g->data, g->cap);
		}
		memcpy(g->data + g->n, data, n);
		g->n += n;
	}
	pthread_mutex_unlock(&m);
}

static void setup(void)
{
	int nul = open("/dev/null", O_RDONLY);

	memset(got, 0, sizeof(got));
	signal(SIGPIPE, SIG_IGN);
	/* the tasks' stdin is /dev/null unless a test gives a pipe (never
	 * the runner's own stdin) */
	if (nul >= 0 && nul != 0) {
		dup2(nul, 0);
		close(nul);
	}
	plug_capture_input(false, NULL, NULL);
	plug_capture_format(0, NULL, NULL);
}

static void teardown(void)
{
	plug_capture_stop(1000);
	for (int i = 0; i < MAXT; i++)
		for (int c = 0; c < 2; c++)
			free(got[i][c].data);
}

/* Deterministic bytes of every value, newlines included. */
static void fill_bytes(char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (char)(seed >> 16);
	}
}

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads fd to its end; returns the bytes (malloc) and their count. */
static char *read_all(int fd, size_t *n)
{
	size_t cap = 1 << 16;
	char *b = malloc(cap);
	ssize_t r;

	*n = 0;
	while ((r = read(fd, b + *n, cap - *n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		ck_assert_int_gt(r, 0);
		*n += (size_t)r;
		if (*n == cap)
			b = realloc(b, cap *= 2);
	}
	return b;
}

/* Forks task i with Slurm's stdout o and stderr e; it runs the hook, then
 * writes nout bytes (seed i) on stdout and nerr on stderr, and exits 0, or
 * with the errno of a failed write. */
static pid_t task(uint32_t i, int o, int e, size_t nout, size_t nerr)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *b = malloc(nout + nerr + 1);

		dup2(o, 1);
		dup2(e, 2);
		for (int fd = 3; fd < 64; fd++)
			if (fd != o && fd != e)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
		close(o);
		close(e);
		plug_capture_task(i);
		fill_bytes(b, nout + nerr, i + 1);
		if (write_all(1, b, nout) < 0 || write_all(2, b + nout, nerr) < 0)
			_exit(errno ? errno : 99);
		_exit(0);
	}
	return pid;
}

static int wait_task(pid_t pid)
{
	int ws;

	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	return WEXITSTATUS(ws);
}

/* Waits (at most 5 s) until out() got both ends of task i's captured
 * channels. */
static void wait_ends(uint32_t i, unsigned chans)
{
	for (int k = 0; k < 500; k++) {
		bool done = true;

		pthread_mutex_lock(&m);
		for (int c = 0; c < 2; c++)
			if ((chans & (1u << c)) && !got[i][c].eofs)
				done = false;
		pthread_mutex_unlock(&m);
		if (done)
			return;
		usleep(10000);
	}
	ck_abort_msg("task %u: no end of stream", i);
}

/* Two tasks, binary bytes with a partial last line, 1 MiB + 3 on stdout
 * and 70001 on stderr each: Slurm's side and out() get exactly them, then
 * one end each, and Slurm's side its end of file. */
START_TEST(test_byte_exact)
{
	enum { NOUT = (1 << 20) + 3, NERR = 70001 };
	int po[2][2], pe[2][2];
	pid_t pid[2];
	char *want = malloc(NOUT + NERR);

	ck_assert_int_eq(plug_capture_start(2, 5000, out_cb, NULL), 0);
	for (uint32_t i = 0; i < 2; i++) {
		ck_assert_int_eq(pipe2(po[i], O_CLOEXEC), 0);
		ck_assert_int_eq(pipe2(pe[i], O_CLOEXEC), 0);
		pid[i] = task(i, po[i][1], pe[i][1], NOUT, NERR);
		close(po[i][1]); /* as Slurm: the task's ends go once it forked */
		close(pe[i][1]);
	}
	for (uint32_t i = 0; i < 2; i++) {
		size_t no, ne;
		char *o = read_all(po[i][0], &no), *e = read_all(pe[i][0], &ne);

		fill_bytes(want, NOUT + NERR, i + 1);
		ck_assert_uint_eq(no, NOUT);
		ck_assert_uint_eq(ne, NERR);
		ck_assert(!memcmp(o, want, NOUT));
		ck_assert(!memcmp(e, want + NOUT, NERR));
		ck_assert_int_eq(wait_task(pid[i]), 0);
		ck_assert_uint_eq(plug_capture_channels(i),
				  PLUG_CAPTURE_STDOUT | PLUG_CAPTURE_STDERR);
		wait_ends(i, 3);
		pthread_mutex_lock(&m);
		ck_assert_uint_eq(got[i][0].n, NOUT);
		ck_assert_uint_eq(got[i][1].n, NERR);
		ck_assert(!memcmp(got[i][0].data, want, NOUT));
		ck_assert(!memcmp(got[i][1].data, want + NOUT, NERR));
		ck_assert_int_eq(got[i][0].eofs, 1);
		ck_assert_int_eq(got[i][1].eofs, 1);
		ck_assert(!got[i][0].after_eof && !got[i][1].after_eof);
		pthread_mutex_unlock(&m);
		free(o);
		free(e);
		close(po[i][0]);
		close(pe[i][0]);
	}
	free(want);
}
END_TEST

/* Slurm's side reads nothing for a while: the task waits, and no more than
 * the pipes and the one piece in hand got past (back-pressure is Slurm's);
 * once read, every byte arrives. */
START_TEST(test_back_pressure)
{
	enum { N = 8 << 20 };
	int po[2], pe[2];
	size_t n, held;
	char *b, *want = malloc(N);
	pid_t pid;
	int ws;

	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	pid = task(0, po[1], pe[1], N, 0);
	close(po[1]);
	close(pe[1]);
	usleep(400000);
	ck_assert_int_eq(waitpid(pid, &ws, WNOHANG), 0); /* still writing */
	pthread_mutex_lock(&m);
	held = got[0][0].n;
	pthread_mutex_unlock(&m);
	/* Slurm's pipe, the task's pipe and the piece in hand: 3 x 64 KiB */
	ck_assert_uint_le(held, 3u << 16);
	b = read_all(po[0], &n);
	fill_bytes(want, N, 1);
	ck_assert_uint_eq(n, N);
	ck_assert(!memcmp(b, want, N));
	ck_assert_int_eq(wait_task(pid), 0);
	wait_ends(0, 3);
	free(b);
	free(want);
	close(po[0]);
	close(pe[0]);
}
END_TEST

/* A terminal as stdout (srun -u, --pty) stays the task's own: isatty()
 * true in the task, nothing of it through out(); its stderr, a pipe, is
 * captured. */
START_TEST(test_terminal_left_alone)
{
	int master, slave, pe[2], pr[2];
	char c = 0, line[64];
	ssize_t r;
	pid_t pid;
	size_t ne;
	char *e;

	ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pr, O_CLOEXEC), 0);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(slave, 1);
		dup2(pe[1], 2);
		plug_capture_task(0);
		c = (char)('0' + isatty(1) + 2 * isatty(2));
		if (write(pr[1], &c, 1) != 1 || write(1, "tty\n", 4) != 4 ||
		    write(2, "err\n", 4) != 4)
			_exit(1);
		_exit(0);
	}
	close(slave);
	close(pe[1]);
	close(pr[1]);
	ck_assert_int_eq(read(pr[0], &c, 1), 1);
	ck_assert_int_eq(c, '1'); /* stdout a terminal, stderr not */
	r = read(master, line, sizeof(line));
	ck_assert_int_ge(r, 3);
	ck_assert(!memcmp(line, "tty", 3));
	e = read_all(pe[0], &ne);
	ck_assert_uint_eq(ne, 4);
	ck_assert(!memcmp(e, "err\n", 4));
	ck_assert_int_eq(wait_task(pid), 0);
	ck_assert_uint_eq(plug_capture_channels(0), PLUG_CAPTURE_STDERR);
	wait_ends(0, 2);
	pthread_mutex_lock(&m);
	ck_assert_uint_eq(got[0][0].n, 0);
	ck_assert_int_eq(got[0][0].eofs, 0);
	ck_assert_uint_eq(got[0][1].n, 4);
	pthread_mutex_unlock(&m);
	free(e);
	close(master);
	close(pe[0]);
	close(pr[0]);
}
END_TEST

/* Slurm's side is gone (srun ended): the task's writes fail with EPIPE as
 * they would have, and out() gets the end. */
START_TEST(test_slurm_side_gone)
{
	int po[2], pe[2];
	pid_t pid;

	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	close(po[0]);
	pid = task(0, po[1], pe[1], 4 << 20, 0);
	close(po[1]);
	close(pe[1]);
	ck_assert_int_eq(wait_task(pid), EPIPE);
	wait_ends(0, 1);
	close(pe[0]);
}
END_TEST

/* Broken hand-overs on a task's socket pair: a short message, a wrong magic, a message with
 * more descriptors than it says, one for another task. Each is refused
 * (logged); that task's own hook then finds no socket and keeps Slurm's
 * descriptors: its output still reaches Slurm's side whole, out() gets
 * nothing, and the thread goes on serving the other tasks. */
static void garbage(int kind)
{
	int fd = plug_capture_socket((uint32_t)kind);

	{
		uint32_t msg[3] = { 0x53584350u, (uint32_t)kind, 0 };
		int fds[3] = { 0, 1, 2 };
		union {
			struct cmsghdr h;
			char space[CMSG_SPACE(sizeof(fds))];
		} u;
		struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

		if (fd < 0)
			_exit(2);
		if (kind == 0)
			iov.iov_len = 3;
		if (kind == 1)
			msg[0] = 0xdeadbeef;
		if (kind == 2) { /* says stdout only (why[1] = 1), sends three */
			msg[2] = 0x0100;
			memset(&u, 0, sizeof(u));
			mh.msg_control = u.space;
			mh.msg_controllen = CMSG_SPACE(sizeof(fds));
			u.h.cmsg_level = SOL_SOCKET;
			u.h.cmsg_type = SCM_RIGHTS;
			u.h.cmsg_len = CMSG_LEN(sizeof(fds));
			memcpy(CMSG_DATA(&u.h), fds, sizeof(fds));
		}
		if (kind == 3)
			msg[1] = 7; /* not this task */
		(void)sendmsg(fd, &mh, MSG_NOSIGNAL);
	}
}

START_TEST(test_broken_handover)
{
	int po[4][2], pe[4][2];
	pid_t pid[4];

	ck_assert_int_eq(plug_capture_start(4, 2000, out_cb, NULL), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pipe2(po[i], O_CLOEXEC), 0);
		ck_assert_int_eq(pipe2(pe[i], O_CLOEXEC), 0);
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0) {
			dup2(po[i][1], 1);
			dup2(pe[i][1], 2);
			garbage(i);
			usleep(200000);
			plug_capture_task((uint32_t)i);
			if (write_all(1, "still here\n", 11) < 0)
				_exit(1);
			_exit(0);
		}
		close(po[i][1]);
		close(pe[i][1]);
	}
	for (int i = 0; i < 4; i++) {
		size_t n;
		char *b = read_all(po[i][0], &n);

		ck_assert_uint_eq(n, 11);
		ck_assert(!memcmp(b, "still here\n", 11));
		ck_assert_int_eq(wait_task(pid[i]), 0);
		free(b);
		close(po[i][0]);
		close(pe[i][0]);
	}
	pthread_mutex_lock(&m);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(got[i][0].n + got[i][1].n, 0);
	pthread_mutex_unlock(&m);
}
END_TEST

/* At the step's end a task's pipe may still hold output for Slurm's side
 * (an --output file, which Slurm does not wait for; here a pipe read late
 * to make it last): a stop writes it out first, until the task's end.
 * Fails without the drain (checked: the reader gets less, the task EPIPE). */
typedef struct {
	int fd;
	char *b;
	size_t n;
} late_t;

static void *read_late(void *arg)
{
	late_t *l = arg;

	usleep(300000);
	l->b = read_all(l->fd, &l->n);
	return NULL;
}

START_TEST(test_stop_drains)
{
	enum { N = 1 << 20 };
	int po[2], pe[2];
	late_t l = { 0 };
	pthread_t th;
	char *want = malloc(N);
	pid_t pid;

	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	pid = task(0, po[1], pe[1], N, 0);
	close(po[1]);
	close(pe[1]);
	l.fd = po[0];
	ck_assert_int_eq(pthread_create(&th, NULL, read_late, &l), 0);
	usleep(100000); /* the task is blocked: Slurm's side is not read yet */
	plug_capture_stop(10000);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(wait_task(pid), 0);
	fill_bytes(want, N, 1);
	ck_assert_uint_eq(l.n, N);
	ck_assert(!memcmp(l.b, want, N));
	free(l.b);
	free(want);
	close(po[0]);
	close(pe[0]);
}
END_TEST

/* stdout and stderr the same object (here one pipe): one pipe takes
 * both, so Slurm's side has them in the order the task wrote them, and
 * out() gets them all as stdout, and stderr's end at once. */
START_TEST(test_same_file)
{
	int po[2];
	pid_t pid;
	size_t n;
	char *b;

	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(po[1], 2);
		plug_capture_task(0);
		if (write(1, "out1\n", 5) != 5 || write(2, "err1\n", 5) != 5 ||
		    write(1, "out2\n", 5) != 5)
			_exit(1);
		_exit(0);
	}
	close(po[1]);
	b = read_all(po[0], &n);
	ck_assert_int_eq(wait_task(pid), 0);
	wait_ends(0, 1);
	ck_assert_uint_eq(plug_capture_channels(0), PLUG_CAPTURE_STDOUT);
	ck_assert_uint_eq(n, 15);
	ck_assert(!memcmp(b, "out1\nerr1\nout2\n", 15));
	pthread_mutex_lock(&m);
	ck_assert_uint_eq(got[0][0].n, 15);
	ck_assert_uint_eq(got[0][1].n, 0);
	ck_assert_int_eq(got[0][1].eofs, 1); /* its stderr ends at once */
	pthread_mutex_unlock(&m);
	free(b);
	close(po[0]);
}
END_TEST

/* A regular file (--output without --label) stays the task's own: Slurm
 * does not wait for it at the task's end, so it is not relayed; the task
 * writes it directly and out() gets nothing of it. */
START_TEST(test_regular_file_left_alone)
{
	char path[] = "/tmp/capture.XXXXXX", b[16];
	int f = mkstemp(path), pe[2];
	pid_t pid;

	ck_assert_int_ge(f, 0);
	unlink(path);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(f, 1);
		dup2(pe[1], 2);
		plug_capture_task(0);
		_exit(write(1, "direct\n", 7) == 7 && write(2, "e\n", 2) == 2 ? 0 : 1);
	}
	close(pe[1]);
	ck_assert_int_eq(wait_task(pid), 0);
	ck_assert_int_eq(pread(f, b, sizeof(b), 0), 7); /* there at once */
	ck_assert(!memcmp(b, "direct\n", 7));
	wait_ends(0, 2);
	ck_assert_uint_eq(plug_capture_channels(0), PLUG_CAPTURE_STDERR);
	pthread_mutex_lock(&m);
	ck_assert_uint_eq(got[0][0].n, 0);
	ck_assert_uint_eq(got[0][1].n, 2);
	pthread_mutex_unlock(&m);
	close(f);
	close(pe[0]);
}
END_TEST

/* A formatter for the test: each byte in upper case, "<END fd>" at the
 * end (so the result does not depend on how the bytes were cut). */
static char fbuf[2][1 << 17];

static int upper(void *arg, uint32_t ltask, int fd, const char *raw, size_t n, bool eof,
		 const char **out, size_t *outn)
{
	char *b = fbuf[fd == 2];

	(void)arg;
	if (ltask != 0 || n > sizeof(fbuf[0]) - 16)
		abort();
	for (size_t i = 0; i < n; i++)
		b[i] = raw[i] >= 'a' && raw[i] <= 'z' ? (char)(raw[i] - 32) : raw[i];
	*outn = n + (eof ? (size_t)sprintf(b + n, "<END %d>", fd) : 0);
	*out = b;
	return 0;
}

/* PLUG_CAPTURE_FILES with a formatter: a regular file as stdout is
 * taken, and gets the formatted bytes (what a spawned step's --output
 * gets with its lines tagged), out() the raw ones; PLUG_CAPTURE_MERGE:
 * stderr goes into stdout's pipe, in order, and Slurm's stderr gets
 * nothing but its end. Fails without either (tried: the file holds the
 * raw bytes; stderr's lines reach Slurm's stderr). */
START_TEST(test_format_merge)
{
	char path[] = "/tmp/capture.XXXXXX", b[64];
	const char want[] = "OUT1\nERR1\nOUT2\n<END 1>";
	int f = mkstemp(path), pe[2];
	size_t n;
	char *e;
	pid_t pid;

	ck_assert_int_ge(f, 0);
	unlink(path);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	plug_capture_format(PLUG_CAPTURE_FILES | PLUG_CAPTURE_MERGE, upper, NULL);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(f, 1);
		dup2(pe[1], 2);
		plug_capture_task(0);
		_exit(write(1, "out1\n", 5) == 5 && write(2, "err1\n", 5) == 5 &&
				      write(1, "out2\n", 5) == 5 ?
			      0 :
			      1);
	}
	close(pe[1]);
	ck_assert_int_eq(wait_task(pid), 0);
	e = read_all(pe[0], &n);
	ck_assert_uint_eq(n, 0);
	wait_ends(0, 1);
	for (int k = 0; k < 500 && pread(f, b, sizeof(b), 0) < (ssize_t)strlen(want); k++)
		usleep(10000);
	ck_assert_int_eq(pread(f, b, sizeof(b), 0), (ssize_t)strlen(want));
	ck_assert(!memcmp(b, want, strlen(want)));
	ck_assert_uint_eq(plug_capture_channels(0), PLUG_CAPTURE_STDOUT);
	pthread_mutex_lock(&m);
	ck_assert_uint_eq(got[0][0].n, 15);
	ck_assert(!memcmp(got[0][0].data, "out1\nerr1\nout2\n", 15));
	ck_assert_uint_eq(got[0][1].n, 0);
	ck_assert_int_eq(got[0][1].eofs, 1);
	pthread_mutex_unlock(&m);
	free(e);
	close(f);
	close(pe[0]);
}
END_TEST

/* Without a start, and with a task index out of range, the hook does
 * nothing; a second start is refused. */
START_TEST(test_not_started)
{
	plug_capture_task(0);
	ck_assert_uint_eq(plug_capture_channels(0), 0);
	ck_assert_int_eq(plug_capture_start(0, 100, out_cb, NULL), -1);
	ck_assert_int_eq(plug_capture_start(1, 100, out_cb, NULL), 0);
	ck_assert_int_eq(plug_capture_start(1, 100, out_cb, NULL), -1);
	plug_capture_task(5);
	ck_assert_uint_eq(plug_capture_channels(5), 0);
	plug_capture_stop(1000);
	plug_capture_stop(1000);
}
END_TEST

/* ---- stdin ---- */

/* What done() got, in order. */
static struct {
	int n, st[64];
	void *token[64];
} dn;

static void in_done(void *arg, uint32_t ltask, void *token, int status)
{
	(void)arg, (void)ltask;
	pthread_mutex_lock(&m);
	if (dn.n < 64) {
		dn.token[dn.n] = token;
		dn.st[dn.n] = status;
	}
	dn.n++;
	pthread_mutex_unlock(&m);
}

static int dones(void)
{
	int n;

	pthread_mutex_lock(&m);
	n = dn.n;
	pthread_mutex_unlock(&m);
	return n;
}

static void wait_dones(int want)
{
	for (int k = 0; k < 500 && dones() < want; k++)
		usleep(10000);
	ck_assert_int_ge(dones(), want);
}

/* Forks task 0 with stdin in and stdout o (closing other, the test's
 * end of its stdin, as exec would); after the hook it copies its stdin
 * to stdout until the end (mode 'c'; 's': after 500 ms), or closes its
 * stdin and sleeps 1 s (mode 'x'); exits 0. */
static pid_t task_in(int in, int o, int other, char mode)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char b[65536];
		ssize_t r;

		dup2(in, 0);
		dup2(o, 1);
		if (other >= 0)
			close(other);
		close(in);
		close(o);
		plug_capture_task(0);
		if (mode == 'x') {
			close(0);
			sleep(1);
			_exit(0);
		}
		if (mode == 's')
			usleep(500000);
		while ((r = read(0, b, sizeof(b))) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 || write_all(1, b, (size_t)r) < 0)
				_exit(3);
		}
		_exit(0);
	}
	return pid;
}

typedef struct {
	int fd;
	const char *b;
	size_t n;
} feed_t;

static void *feed(void *arg)
{
	feed_t *f = arg;

	(void)write_all(f->fd, f->b, f->n);
	close(f->fd);
	return NULL;
}

/* srun's stdin (a pipe, as Slurm gives it) reaches the task byte for
 * byte, and its end is the task's end of input. */
START_TEST(test_stdin_passthrough)
{
	enum { N = (1 << 20) + 3 };
	int pi[2], po[2];
	char *want = malloc(N), *b;
	size_t n;
	pid_t pid;

	plug_capture_input(false, in_done, NULL);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	pid = task_in(pi[0], po[1], pi[1], 'c');
	close(pi[0]);
	close(po[1]);
	fill_bytes(want, N, 9);
	{
		feed_t f = { pi[1], want, N };
		pthread_t th;

		ck_assert_int_eq(pthread_create(&th, NULL, feed, &f), 0);
		b = read_all(po[0], &n);
		pthread_join(th, NULL);
	}
	ck_assert_uint_eq(n, N);
	ck_assert(!memcmp(b, want, N));
	ck_assert_int_eq(wait_task(pid), 0);
	ck_assert_int_eq(plug_capture_stdin(0), -EPIPE);
	free(b);
	free(want);
	close(po[0]);
}
END_TEST

/* Pushes reach the task whole and in order while srun's side stays open
 * and silent; the one marked complete ends the task's input (the task
 * exits); a push after it is refused. Fails without the end (tried: the
 * task never exits, read_all waits). */
START_TEST(test_stdin_push)
{
	enum { N = 300000 };
	int pi[2], po[2];
	char *data = malloc(N), *b;
	size_t n;
	pid_t pid;

	plug_capture_input(false, in_done, NULL);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	fill_bytes(data, N, 3);
	/* before the task's hook ran: it waits for it */
	ck_assert_int_eq(plug_capture_push(0, data, 1000, false, (void *)1), 0);
	pid = task_in(pi[0], po[1], pi[1], 'c');
	close(pi[0]);
	close(po[1]);
	ck_assert_int_eq(plug_capture_push(0, data + 1000, N - 2000, false, (void *)2), 0);
	ck_assert_int_eq(plug_capture_push(0, data + N - 1000, 1000, true, (void *)3), 0);
	b = read_all(po[0], &n);
	ck_assert_uint_eq(n, N);
	ck_assert(!memcmp(b, data, N));
	ck_assert_int_eq(wait_task(pid), 0);
	wait_dones(3);
	for (int k = 0; k < 3; k++) {
		ck_assert_ptr_eq(dn.token[k], (void *)(intptr_t)(k + 1));
		ck_assert_int_eq(dn.st[k], 0);
	}
	ck_assert_int_eq(plug_capture_push(0, "x", 1, false, (void *)4), -EPIPE);
	free(b);
	free(data);
	close(pi[1]);
	close(po[0]);
}
END_TEST

/* Held: srun's side ends at once (a batch script's /dev/null through
 * srun), and the task's stdin stays open for a push, which ends it.
 * Without hold the same push is refused: the task saw the end. */
START_TEST(test_stdin_hold)
{
	for (int hold = 0; hold < 2; hold++) {
		int pi[2], po[2];
		char *b;
		size_t n;
		pid_t pid;

		memset(&dn, 0, sizeof(dn));
		plug_capture_input(hold, in_done, NULL);
		ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
		ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
		ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
		close(pi[1]); /* srun's input: ended */
		pid = task_in(pi[0], po[1], -1, 'c');
		close(pi[0]);
		close(po[1]);
		for (int k = 0; k < 200 && plug_capture_stdin(0) == -EAGAIN; k++)
			usleep(10000);
		usleep(100000); /* (srun's end is seen) */
		if (hold) {
			ck_assert_int_eq(plug_capture_push(0, "late\n", 5, true, NULL), 0);
		} else {
			ck_assert_int_eq(plug_capture_push(0, "late\n", 5, true, NULL), -EPIPE);
		}
		b = read_all(po[0], &n);
		ck_assert_uint_eq(n, hold ? 5 : 0);
		ck_assert_int_eq(wait_task(pid), 0);
		free(b);
		close(po[0]);
		plug_capture_stop(1000);
	}
}
END_TEST

/* /dev/null (srun --input=none) stays the task's: pushes are refused. A
 * task that closes its stdin ends a push waiting for it with -EPIPE. A
 * push to a task whose hook never ran ends -ECANCELED at the stop. */
START_TEST(test_stdin_refused)
{
	int nul = open("/dev/null", O_RDONLY), pi[2], po[2];
	static char big[1 << 20];
	pid_t pid;

	plug_capture_input(false, in_done, NULL);
	ck_assert_int_eq(plug_capture_start(3, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	pid = task_in(nul, po[1], po[0], 'c');
	ck_assert_int_eq(wait_task(pid), 0);
	for (int k = 0; k < 200 && plug_capture_stdin(0) == -EAGAIN; k++)
		usleep(10000);
	ck_assert_int_eq(plug_capture_stdin(0), -ENOTSUP);
	ck_assert_int_eq(plug_capture_push(0, "x", 1, false, NULL), -ENOTSUP);
	ck_assert_int_eq(plug_capture_push(7, "x", 1, false, NULL), -ENOTSUP);
	plug_capture_stop(1000);
	/* the task closes its stdin */
	memset(&dn, 0, sizeof(dn));
	ck_assert_int_eq(plug_capture_start(3, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
	pid = task_in(pi[0], po[1], pi[1], 'x');
	for (int k = 0; k < 200 && plug_capture_stdin(0) == -EAGAIN; k++)
		usleep(10000);
	usleep(200000);
	ck_assert_int_eq(plug_capture_push(0, big, sizeof(big), false, (void *)5), 0);
	ck_assert_int_eq(plug_capture_push(2, "y", 1, false, (void *)6), 0); /* never runs */
	wait_dones(1);
	ck_assert_ptr_eq(dn.token[0], (void *)5);
	ck_assert_int_eq(dn.st[0], -EPIPE);
	ck_assert_int_eq(wait_task(pid), 0);
	plug_capture_stop(1000);
	ck_assert_int_eq(dones(), 2);
	ck_assert_ptr_eq(dn.token[1], (void *)6);
	ck_assert_int_eq(dn.st[1], -ECANCELED);
	close(pi[0]);
	close(pi[1]);
	close(po[0]);
	close(po[1]);
	close(nul);
}
END_TEST

/* A task that gave up waiting for the thread's answer keeps srun's pipe
 * as its stdin, and the thread, which got it too, reads none of it: every
 * byte reaches the task. Fails without the task's word (tried: the
 * thread took some). */
START_TEST(test_stdin_gave_up)
{
	enum { N = 1 << 20 };
	int pi[2], po[2];
	char *want = malloc(N), *b;
	size_t n;
	pid_t pid;
	feed_t f;
	pthread_t th;

	plug_capture_input(false, in_done, NULL);
	ck_assert_int_eq(plug_capture_start(1, 0, out_cb, NULL), 0); /* no wait at all */
	ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	pid = task_in(pi[0], po[1], pi[1], 's');
	close(pi[0]);
	close(po[1]);
	fill_bytes(want, N, 5);
	f = (feed_t){ pi[1], want, N };
	ck_assert_int_eq(pthread_create(&th, NULL, feed, &f), 0);
	b = read_all(po[0], &n);
	pthread_join(th, NULL);
	ck_assert_uint_eq(n, N);
	ck_assert(!memcmp(b, want, N));
	ck_assert_int_eq(wait_task(pid), 0);
	free(b);
	free(want);
	close(po[0]);
}
END_TEST

/* Too much waiting for a task that reads late: the push past the bound
 * is refused and the task's input ends after what was taken (no gap in
 * the middle), later pushes are refused too. */
START_TEST(test_stdin_overflow)
{
	enum { M = 10 << 20 };
	int pi[2], po[2];
	char *data = malloc(3 * (size_t)M), *b;
	size_t n;
	pid_t pid;

	plug_capture_input(true, in_done, NULL);
	ck_assert_int_eq(plug_capture_start(1, 5000, out_cb, NULL), 0);
	ck_assert_int_eq(pipe2(pi, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	fill_bytes(data, 3 * (size_t)M, 8);
	pid = task_in(pi[0], po[1], pi[1], 's');
	close(pi[0]);
	close(po[1]);
	for (int k = 0; k < 200 && plug_capture_stdin(0) != 0; k++)
		usleep(10000);
	ck_assert_int_eq(plug_capture_push(0, data, M, false, (void *)1), 0);
	usleep(50000); /* (the first is being written) */
	ck_assert_int_eq(plug_capture_push(0, data + M, M, false, (void *)2), 0);
	ck_assert_int_eq(plug_capture_push(0, data + 2 * M, M, false, (void *)3), -ENOBUFS);
	ck_assert_int_eq(plug_capture_push(0, "x", 1, true, (void *)4), -EPIPE);
	b = read_all(po[0], &n);
	ck_assert_uint_eq(n, 2 * (size_t)M);
	ck_assert(!memcmp(b, data, 2 * (size_t)M));
	ck_assert_int_eq(wait_task(pid), 0);
	free(b);
	free(data);
	close(pi[1]);
	close(po[0]);
}
END_TEST

static Suite *capture_suite(void)
{
	const struct unit_test tests[] = {
		{ "byte_exact", test_byte_exact },
		{ "back_pressure", test_back_pressure },
		{ "terminal_left_alone", test_terminal_left_alone },
		{ "slurm_side_gone", test_slurm_side_gone },
		{ "broken_handover", test_broken_handover },
		{ "not_started", test_not_started },
		{ "stop_drains", test_stop_drains },
		{ "same_file", test_same_file },
		{ "regular_file_left_alone", test_regular_file_left_alone },
		{ "format_merge", test_format_merge },
		{ "stdin_passthrough", test_stdin_passthrough },
		{ "stdin_push", test_stdin_push },
		{ "stdin_hold", test_stdin_hold },
		{ "stdin_refused", test_stdin_refused },
		{ "stdin_gave_up", test_stdin_gave_up },
		{ "stdin_overflow", test_stdin_overflow },
	};
	Suite *s = suite_create("plugin_capture");

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		TCase *tc = tcase_create(tests[i].name);

		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 30);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = capture_suite });
}
