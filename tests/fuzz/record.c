/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record.c - records a real client's traffic to its PMIx server as seed
 * inputs of fuzz_server (tests/fuzz/seeds.sh runs it).
 *
 *   record DIR PROGRAM [ARGS...]
 *
 * Run as a task of a launcher of ours (slurmix-run), which gives it its
 * server's address (SLURMIX_PMIX_SERVER_URI, "unix:PATH"), PMIX_NAMESPACE
 * and PMIX_RANK: it listens on a socket of its own, points the variable
 * there, runs PROGRAM, and relays each connection the program opens to
 * the real server, both ways, byte for byte. Each connection's frames
 * from the client after its HELLO are written, when it ends, as one file
 * DIR/PROGRAM.RANK.N in fuzz_server's input format (fuzz_server.c): the
 * rank, the namespace, then every frame (payloads cut at 65535 bytes;
 * the frames that fit in 64 KiB).
 * Exits with PROGRAM's status. No PMIx here: only the frame header
 * (src/pmix_core/wire/frame.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXC 16
#define HDR 16
#define CMD_HELLO 1

typedef struct {
	int cl, sv;        /* the client's end, the server's */
	unsigned char *in; /* client bytes not yet framed */
	size_t nin, cap;
	unsigned char *rec; /* the seed being made */
	size_t nrec, rcap;
	int frames; /* frames seen (the first is HELLO) */
} conn_t;

static const char *dir, *prog, *ns, *rank;
static int nfile;

/* A seed stays small (fuzzing mutates it whole): 64 KiB at most. */
#define SEED_MAX 65536

static int put(conn_t *c, const void *p, size_t n)
{
	if (c->nrec + n > SEED_MAX)
		return -1;
	if (c->nrec + n > c->rcap) {
		size_t cap = (c->nrec + n) * 2;
		unsigned char *r = realloc(c->rec, cap);

		if (!r)
			return -1;
		c->rec = r;
		c->rcap = cap;
	}
	memcpy(c->rec + c->nrec, p, n);
	c->nrec += n;
	return 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Takes the complete frames out of c->in into the seed. */
static void frames(conn_t *c)
{
	size_t off = 0;

	while (c->nin - off >= HDR) {
		const unsigned char *h = c->in + off;
		uint32_t len = be32(h + 4);
		uint16_t cmd = (uint16_t)(h[12] << 8 | h[13]);
		unsigned char rec[8];
		size_t cut = len > 65535 ? 65535 : len;

		if (c->nin - off - HDR < len)
			break;
		if (c->frames++ > 0 || cmd != CMD_HELLO) {
			rec[0] = (unsigned char)cmd;
			rec[1] = h[15];
			memcpy(rec + 2, h + 8, 4); /* the tag */
			rec[6] = (unsigned char)(cut >> 8);
			rec[7] = (unsigned char)cut;
			if (c->nrec + 8 + cut <= SEED_MAX) { /* (whole frames only) */
				put(c, rec, 8);
				put(c, h + HDR, cut);
			}
		}
		off += HDR + len;
	}
	memmove(c->in, c->in + off, c->nin - off);
	c->nin -= off;
}

static void finish(conn_t *c)
{
	char path[4096];
	FILE *f;

	close(c->cl);
	close(c->sv);
	if (c->nrec > 2) {
		snprintf(path, sizeof(path), "%s/%s.%s.%d", dir, prog, rank, nfile++);
		if ((f = fopen(path, "w"))) {
			fwrite(c->rec, 1, c->nrec, f);
			fclose(f);
		}
	}
	free(c->in);
	free(c->rec);
	memset(c, 0, sizeof(*c));
	c->cl = c->sv = -1;
}

static int unix_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Copies what from has to to; the client's bytes are also framed. 0, or
 * -1 when either side ended. */
static int relay(conn_t *c, int from, int to)
{
	unsigned char buf[65536];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n <= 0)
		return -1;
	for (ssize_t off = 0, w; off < n; off += w)
		if ((w = write(to, buf + off, (size_t)(n - off))) <= 0)
			return -1;
	if (from == c->cl) {
		if (c->nin + (size_t)n > c->cap) {
			size_t cap = (c->nin + (size_t)n) * 2;
			unsigned char *p = realloc(c->in, cap);

			if (!p)
				return -1;
			c->in = p;
			c->cap = cap;
		}
		memcpy(c->in + c->nin, buf, (size_t)n);
		c->nin += (size_t)n;
		frames(c);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *uri = getenv("SLURMIX_PMIX_SERVER_URI");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	conn_t conns[MAXC];
	char mine[512], env[600];
	int lfd, status = 1;
	pid_t child;
	unsigned char r, nl;

	ns = getenv("PMIX_NAMESPACE");
	rank = getenv("PMIX_RANK");
	if (argc < 3 || !uri || strncmp(uri, "unix:", 5) || !ns || !rank || strlen(ns) > 255) {
		fprintf(stderr, "usage: record DIR PROGRAM [ARGS...], as a task of slurmix-run\n");
		return 2;
	}
	dir = argv[1];
	prog = basename(argv[2]);
	snprintf(mine, sizeof(mine), "%s/rec.%d.sock", dir, (int)getpid());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", mine);
	unlink(mine);
	if ((lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0) {
		perror("record: listen");
		return 2;
	}
	snprintf(env, sizeof(env), "unix:%s", mine);
	setenv("SLURMIX_PMIX_SERVER_URI", env, 1);
	signal(SIGPIPE, SIG_IGN);
	if ((child = fork()) == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	for (int i = 0; i < MAXC; i++)
		conns[i] = (conn_t){ .cl = -1, .sv = -1 };
	r = (unsigned char)atoi(rank);
	nl = (unsigned char)strlen(ns);
	for (int left = -1; left != 0;) { /* after the program: 2 s for the rest */
		struct pollfd pf[1 + 2 * MAXC];
		int np = 0, ws, open = 0;

		if (left < 0 && waitpid(child, &ws, WNOHANG) == child) {
			status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
			left = 20;
		}
		for (int i = 0; i < MAXC; i++)
			open += conns[i].cl >= 0;
		if (left > 0 && (!open || --left == 0))
			break;
		pf[np++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < MAXC; i++) {
			pf[np++] = (struct pollfd){ .fd = conns[i].cl, .events = POLLIN };
			pf[np++] = (struct pollfd){ .fd = conns[i].sv, .events = POLLIN };
		}
		if (poll(pf, (nfds_t)np, 100) < 0 && errno != EINTR)
			break;
		if (pf[0].revents & POLLIN) {
			int cl = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), sv = unix_connect(uri + 5),
			    k;

			for (k = 0; k < MAXC && conns[k].cl >= 0; k++)
				;
			if (cl < 0 || sv < 0 || k == MAXC) {
				close(cl);
				close(sv);
			} else {
				conns[k].cl = cl;
				conns[k].sv = sv;
				put(&conns[k], &r, 1);
				put(&conns[k], &nl, 1);
				put(&conns[k], ns, nl);
			}
		}
		for (int i = 0; i < MAXC; i++) {
			short a = pf[1 + 2 * i].revents, b = pf[2 + 2 * i].revents;

			if (conns[i].cl < 0)
				continue;
			if (((a & (POLLIN | POLLHUP)) &&
			     relay(&conns[i], conns[i].cl, conns[i].sv) < 0) ||
			    ((b & (POLLIN | POLLHUP)) &&
			     relay(&conns[i], conns[i].sv, conns[i].cl) < 0))
				finish(&conns[i]);
		}
	}
	for (int i = 0; i < MAXC; i++)
		if (conns[i].cl >= 0)
			finish(&conns[i]);
	close(lfd);
	unlink(mine);
	return status;
}
