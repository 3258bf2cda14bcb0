/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_iof.c - the tasks' output under slurmix-run (see sxr_iof.h).
 *
 * Each captured channel of a task is the read end of a pipe whose write
 * end the task has as its fd 1 or 2. The main loop polls the read ends;
 * what comes is written out whole on slurmix-run's own fd (a slow reader
 * of slurmix-run's output slows the task, as a terminal or a pipe would
 * have without us) and handed to the server, which copies it. End of file
 * ends that channel for the server (PMIX_IOF_COMPLETE). When a task ends,
 * its pipes are read first, so that its last output, and its end of
 * stream when nobody else holds the pipe, come before its end is
 * reported.
 */
#include "sxr.h"
#include "sxr_iof.h"
#include "sxr_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536
#define PER_RUN (1 << 20) /* bytes of one channel per sxr_iof_run */

static const pmix_iof_channel_t channel_of[2] = { PMIX_FWD_STDOUT_CHANNEL,
						  PMIX_FWD_STDERR_CHANNEL };

void sxr_iof_prepare(struct sxr_task *t, int child[2])
{
	for (int k = 0; k < 2; k++) {
		int fds[2];

		child[k] = -1;
		t->iof_fd[k] = -1;
		if (isatty(k + 1))
			continue; /* the task keeps the terminal */
		if (pipe2(fds, O_CLOEXEC) < 0)
			continue; /* (out of descriptors: that channel as it is) */
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		t->iof_fd[k] = fds[0];
		child[k] = fds[1];
	}
}

void sxr_iof_child(const int child[2])
{
	for (int k = 0; k < 2; k++)
		if (child[k] == k + 1) /* (fd k + 1 was closed: pipe2 gave it) */
			fcntl(k + 1, F_SETFD, 0);
		else if (child[k] >= 0)
			dup2(child[k], k + 1); /* (the copy is not close-on-exec) */
}

void sxr_iof_forked(struct sxr_task *t, int child[2], bool failed)
{
	for (int k = 0; k < 2; k++) {
		if (child[k] >= 0)
			close(child[k]);
		child[k] = -1;
		if (failed && t->iof_fd[k] >= 0) {
			close(t->iof_fd[k]);
			t->iof_fd[k] = -1;
		}
	}
}

int sxr_iof_pollfds(struct sxr *s, struct pollfd *pfd, int max)
{
	int n = 0;

	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			for (int k = 0; k < 2; k++)
				if (j->tasks[r].iof_fd[k] >= 0 && n < max)
					pfd[n++] = (struct pollfd){ .fd = j->tasks[r].iof_fd[k],
								    .events = POLLIN };
	return n;
}

/* Writes all of p on fd, waiting while it is full (a slow reader of our
 * output slows the task). -1 when nobody reads it any more (EPIPE). */
static int write_all_out(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, 1000);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE)
			return -1;
		if (w <= 0)
			return 0; /* our own output is unusable: the server still gets it */
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void deliver(struct sxr *s, struct sxr_task *t, int k, const char *p, size_t n, bool end)
{
	pmix_byte_object_t bo = { .bytes = (char *)p, .size = n };
	pmix_info_t info;
	pmix_proc_t src;
	bool yes = true;

	if (!s->server_up)
		return;
	PMIX_LOAD_PROCID(&src, t->job->nspace, t->rank);
	PMIX_INFO_LOAD(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	/* blocking: the server took them (so nothing piles up on the way; its
	 * progress thread never waits for ours) */
	if (PMIx_server_IOF_deliver(&src, channel_of[k], &bo, &info, end ? 1 : 0, NULL, NULL) !=
	    PMIX_SUCCESS)
		sxr_verbose(s, "output of rank %u of %s not forwarded", t->rank, t->job->nspace);
	PMIX_INFO_DESTRUCT(&info);
}

/* Reads channel k of t until it would block, up to limit bytes; closes it
 * at its end. */
static void drain(struct sxr *s, struct sxr_task *t, int k, size_t limit)
{
	static char buf[CHUNK];
	size_t got = 0;

	while (t->iof_fd[k] >= 0 && got < limit) {
		ssize_t n = read(t->iof_fd[k], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n > 0)
			deliver(s, t, k, buf, (size_t)n, false);
		if (n <= 0 || write_all_out(k + 1, buf, (size_t)n) < 0) {
			/* end of file (or an error: the same for us), or nobody
			 * reads our output: the task gets its EPIPE/SIGPIPE */
			deliver(s, t, k, NULL, 0, true);
			close(t->iof_fd[k]);
			t->iof_fd[k] = -1;
			return;
		}
		got += (size_t)n;
	}
}

void sxr_iof_run(struct sxr *s)
{
	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			for (int k = 0; k < 2; k++)
				drain(s, &j->tasks[r], k, PER_RUN);
}

void sxr_iof_task_ended(struct sxr *s, struct sxr_task *t)
{
	for (int k = 0; k < 2; k++) /* (bounded: a child of it may write on) */
		drain(s, t, k, 16 * PER_RUN);
}

void sxr_iof_close(struct sxr_task *t)
{
	for (int k = 0; k < 2; k++)
		if (t->iof_fd[k] >= 0) {
			close(t->iof_fd[k]);
			t->iof_fd[k] = -1;
		}
}
