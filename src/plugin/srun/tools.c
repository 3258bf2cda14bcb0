/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/tools.c - tools attach to the step where its srun runs (see
 * srun/tools.h and docs/iof.md, "Tools").
 *
 * Once the endpoint table is in, srun listens on a Unix socket in the job
 * directory (the user's, 0700) and writes two rendezvous files in its
 * TMPDIR (else /tmp), each holding "unix:<socket>\n", mode 0600, made with
 * O_EXCL|O_NOFOLLOW: pmix.<host>.tool.<srun pid> (a tool's --pid) and
 * pmix.<host>.tool.<nspace>. Both go when the agent stops.
 *
 * A connection to the socket is a tool's. Its credentials (SO_PEERCRED)
 * must be srun's user or root, else it is closed with a log line. srun
 * then connects to node 0's step daemon, sends TOOL_ATTACH (key, step,
 * the tool's uid, gid and pid) and waits for its one-byte answer; from
 * then on the two connections are joined: every byte of one is written
 * to the other, unchanged (the PMIx wire of the tool and the step's
 * server). Nothing is read from the tool before the answer, so its first
 * bytes reach the server's side only once that is a PMIx connection. A
 * side that has more than 1 MiB waiting stops the other from being read
 * until it drained to 256 KiB, so neither end can make srun grow. When
 * one end closes, what the other still has to get is written, then both
  * close (what is left must go within 5 s). The attach must be answered
 * within 10 s. At most 128 connections at a time (a tool opens two); more
 * are refused with a log line. Out of descriptors, the listener pauses
 * 100 ms. At the step's end srun waits
 * (3 s at most) for node 0's step daemon to close the tools' connections
 * itself, after its last words to them (the step's end event).
 *
 * Threads: the agent's progress thread (table hook, stop hook, events).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "lib/jobdir.h"
#include "lib/proto.h"
#include "srun/agent.h"
#include "srun/tools.h"
#include "slurm_adapter.h"

#define TOOLS_MAX 128 /* connections: a tool opens two */
#define TOOLS_CLOSE_SEC 5
#define TOOLS_ATTACH_SEC 10
#define TOOLS_HIGH (1u << 20)
#define TOOLS_LOW (256u << 10)

typedef struct sess {
	struct sess *next;
	struct bufferevent *tool, *step;
	struct event *timer;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	bool joined;
	bool closing; /* one end closed: the other is written out */
} sess_t;

static struct {
	int lfd;
	struct event *lev, *relisten; /* relisten: after EMFILE */
	char *sock, *rdv[2];
	sess_t *sessions;
	atomic_uint nsess; /* written by the progress thread only */
} tools = { .lfd = -1 };

static void sess_free(sess_t *s)
{
	for (sess_t **p = &tools.sessions; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	tools.nsess--;
	if (s->timer)
		event_free(s->timer);
	if (s->tool)
		bufferevent_free(s->tool);
	if (s->step)
		bufferevent_free(s->step);
	free(s);
}

static struct bufferevent *other(sess_t *s, struct bufferevent *b)
{
	return b == s->tool ? s->step : s->tool;
}

/* Frees s once nothing is left to write to the end still open. */
static void maybe_done(sess_t *s)
{
	if (evbuffer_get_length(bufferevent_get_output(s->tool)) == 0 &&
	    evbuffer_get_length(bufferevent_get_output(s->step)) == 0)
		sess_free(s);
}

static void pump_read(struct bufferevent *b, void *arg)
{
	sess_t *s = arg;
	struct bufferevent *o = other(s, b);

	if (s->closing)
		return;
	evbuffer_add_buffer(bufferevent_get_output(o), bufferevent_get_input(b));
	if (evbuffer_get_length(bufferevent_get_output(o)) > TOOLS_HIGH)
		bufferevent_disable(b, EV_READ); /* until o drained */
}

/* o's output went below TOOLS_LOW (its write watermark). */
static void pump_written(struct bufferevent *o, void *arg)
{
	sess_t *s = arg;

	if (s->closing) {
		maybe_done(s);
		return;
	}
	bufferevent_enable(other(s, o), EV_READ);
}

static void pump_event(struct bufferevent *b, short what, void *arg)
{
	sess_t *s = arg;
	struct timeval tv = { TOOLS_CLOSE_SEC, 0 };

	if (!s->closing && (what & BEV_EVENT_EOF))
		evbuffer_add_buffer(bufferevent_get_output(other(s, b)), bufferevent_get_input(b));
	if (!s->closing)
		evtimer_add(s->timer, &tv); /* what is left goes within 5 s, or not */
	s->closing = true;
	bufferevent_disable(s->tool, EV_READ);
	bufferevent_disable(s->step, EV_READ);
	evbuffer_drain(bufferevent_get_output(b), evbuffer_get_length(bufferevent_get_output(b)));
	/* the other end gets what it still has to get, then closes */
	bufferevent_setwatermark(other(s, b), EV_WRITE, 0, 0);
	maybe_done(s);
}

static void join(sess_t *s)
{
	s->joined = true;
	event_del(s->timer);
	bufferevent_setcb(s->tool, pump_read, pump_written, pump_event, s);
	bufferevent_setcb(s->step, pump_read, pump_written, pump_event, s);
	bufferevent_setwatermark(s->tool, EV_WRITE, TOOLS_LOW, 0);
	bufferevent_setwatermark(s->step, EV_WRITE, TOOLS_LOW, 0);
	bufferevent_setwatermark(s->step, EV_READ, 0, 0);
	bufferevent_enable(s->tool, EV_READ | EV_WRITE);
	bufferevent_enable(s->step, EV_READ | EV_WRITE);
	if (evbuffer_get_length(bufferevent_get_input(s->step)))
		pump_read(s->step, s); /* the server's first bytes came with the answer */
}

static void attach_fail(sess_t *s, const char *why)
{
	plug_error("tool pid %d: cannot attach to node 0's step daemon: %s", (int)s->pid, why);
	sess_free(s); /* the tool sees its connection close */
}

/* The step daemon's one-byte answer. */
static void attach_read(struct bufferevent *b, void *arg)
{
	sess_t *s = arg;
	unsigned char c = 0;

	if (bufferevent_read(b, &c, 1) != 1)
		return;
	if (c != 1) {
		attach_fail(s, "refused");
		return;
	}
	join(s);
}

static void attach_event(struct bufferevent *b, short what, void *arg)
{
	sess_t *s = arg;
	struct evbuffer *out = bufferevent_get_output(b);
	pmix_data_buffer_t p;
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .cmd = PLUG_NET_TOOL_ATTACH };
	int one = 1, ok;

	if (!(what & BEV_EVENT_CONNECTED)) {
		attach_fail(s, what & BEV_EVENT_EOF ? "closed" : "cannot connect");
		return;
	}
	setsockopt(bufferevent_getfd(b), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	pxc_buf_init(&p);
	ok = pxc_pack_str(&p, plug_agent_key()) == PMIX_SUCCESS &&
	     pxc_pack_u32(&p, plug_agent_step()) == PMIX_SUCCESS &&
	     pxc_pack_u32(&p, (uint32_t)s->uid) == PMIX_SUCCESS &&
	     pxc_pack_u32(&p, (uint32_t)s->gid) == PMIX_SUCCESS &&
	     pxc_pack_u32(&p, (uint32_t)s->pid) == PMIX_SUCCESS;
	h.len = (uint32_t)p.bytes_used;
	pxc_wire_hdr_encode(&h, hdr);
	ok = ok && evbuffer_add(out, hdr, sizeof(hdr)) == 0 &&
	     evbuffer_add(out, p.base_ptr, p.bytes_used) == 0;
	pxc_buf_clear(&p);
	if (!ok) {
		attach_fail(s, "out of memory");
		return;
	}
	bufferevent_setwatermark(b, EV_READ, 1, 0);
	bufferevent_enable(b, EV_READ);
}

static void attach_timeout(evutil_socket_t fd, short what, void *arg)
{
	sess_t *s = arg;

	(void)fd;
	(void)what;
	if (s->closing)
		sess_free(s); /* its reader took nothing for 5 s */
	else
		attach_fail(s, "no answer within 10 s");
}

static int start_attach(sess_t *s)
{
	struct event_base *base = plug_agent_base();
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST }, *ai;
	struct timeval tv = { TOOLS_ATTACH_SEC, 0 };
	uint16_t port = 0;
	const char *addr = plug_agent_root(&port);
	char svc[8];
	int rc, fd;

	if (!addr)
		return -1;
	snprintf(svc, sizeof(svc), "%u", port);
	if (getaddrinfo(addr, svc, &hints, &ai) != 0)
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s->step = fd >= 0 ? bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE) : NULL;
	s->timer = evtimer_new(base, attach_timeout, s);
	if (!s->step || !s->timer) {
		if (fd >= 0 && !s->step)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	bufferevent_setcb(s->step, attach_read, NULL, attach_event, s);
	rc = bufferevent_socket_connect(s->step, ai->ai_addr, (int)ai->ai_addrlen);
	freeaddrinfo(ai);
	if (rc < 0)
		return -1;
	return evtimer_add(s->timer, &tv);
}

static void relisten(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (tools.lev)
		event_add(tools.lev, NULL);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct ucred cr = { 0 };
	struct timeval tv = { 0, 100000 };
	socklen_t len = sizeof(cr);
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	sess_t *s;

	(void)what;
	(void)arg;
	if (fd < 0) {
		if ((errno == EMFILE || errno == ENFILE) && tools.relisten) {
			event_del(tools.lev); /* no descriptor: try again in 100 ms */
			evtimer_add(tools.relisten, &tv);
		}
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		plug_error("a tool's connection without credentials: refused");
		close(fd);
		return;
	}
	if (cr.uid != getuid() && cr.uid != 0) {
		plug_error("tool pid %d uid %u refused: not the job's user", (int)cr.pid,
			   (unsigned)cr.uid);
		close(fd);
		return;
	}
	if (atomic_load(&tools.nsess) >= TOOLS_MAX) {
		plug_error("tool pid %d refused: %u tool connections already", (int)cr.pid,
			   atomic_load(&tools.nsess));
		close(fd);
		return;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		close(fd);
		return;
	}
	s->uid = cr.uid;
	s->gid = cr.gid;
	s->pid = cr.pid;
	s->next = tools.sessions;
	tools.sessions = s;
	tools.nsess++;
	s->tool = bufferevent_socket_new(plug_agent_base(), fd, BEV_OPT_CLOSE_ON_FREE);
	if (!s->tool) {
		close(fd);
		sess_free(s);
		return;
	}
	bufferevent_disable(s->tool, EV_READ); /* nothing read before the answer */
	if (start_attach(s) < 0)
		attach_fail(s, "no step daemon to reach");
}

/* pmix.<host>.tool.<suffix> in TMPDIR (else /tmp), pointing at the socket. */
static char *write_rdv(const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	char host[256] = "", *path = NULL, *uri = NULL;
	int rc;

	if (!dir || !*dir)
		dir = "/tmp";
	if (gethostname(host, sizeof(host) - 1) < 0 || strchr(suffix, '/') ||
	    asprintf(&path, "%s/pmix.%s.tool.%s", dir, host, suffix) < 0)
		return NULL;
	if (asprintf(&uri, "unix:%s", tools.sock) < 0) {
		free(path);
		return NULL;
	}
	rc = pxc_rdv_create(path, uri, getuid(), getgid());
	free(uri);
	if (rc < 0 && errno == EEXIST) /* the step daemon of this node serves the step */
		plug_debug("tool rendezvous file %s is a live server's: left to it", path);
	else if (rc < 0)
		plug_error("cannot create the tool rendezvous file %s: %m", path);
	if (rc < 0) {
		free(path);
		return NULL;
	}
	return path;
}

static void listen_tools(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *jd = plug_jobdir_path();
	char ns[64], pid[24];

	if (!jd || tools.lfd >= 0)
		return;
	if (asprintf(&tools.sock, "%s/tool.%u", jd, plug_agent_step()) < 0) {
		tools.sock = NULL;
		return;
	}
	if (strlen(tools.sock) >= sizeof(sa.sun_path)) {
		plug_error("tools cannot attach: %s is too long for a socket", tools.sock);
		free(tools.sock);
		tools.sock = NULL;
		return;
	}
	strcpy(sa.sun_path, tools.sock);
	unlink(tools.sock); /* a stale one of a killed srun */
	tools.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (tools.lfd < 0 || bind(tools.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(tools.lfd, 16) < 0 ||
	    !(tools.lev = event_new(plug_agent_base(), tools.lfd, EV_READ | EV_PERSIST, on_accept,
				    NULL)) ||
	    !(tools.relisten = evtimer_new(plug_agent_base(), relisten, NULL)) ||
	    event_add(tools.lev, NULL) < 0) {
		plug_error("tools cannot attach: cannot listen on %s: %m", tools.sock);
		plug_tools_stop();
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(ns, sizeof(ns), "slurmix.%u.%u", plug_agent_job(), plug_agent_step());
	tools.rdv[0] = write_rdv(pid);
	tools.rdv[1] = write_rdv(ns);
	plug_flag("tools attach through %s", tools.sock);
}

int plug_tools_srun_init(void)
{
	/* the stop first: a socket made at the table is always taken away */
	return plug_agent_on_stop(plug_tools_stop) < 0 || plug_agent_on_table(listen_tools) < 0 ?
		       -1 :
		       0;
}

void plug_tools_drain(int timeout_ms)
{
	for (int waited = 0; atomic_load(&tools.nsess) && waited < timeout_ms; waited += 10)
		usleep(10000);
}

void plug_tools_stop(void)
{
	while (tools.sessions)
		sess_free(tools.sessions);
	for (int i = 0; i < 2; i++) {
		if (tools.rdv[i])
			unlink(tools.rdv[i]);
		free(tools.rdv[i]);
		tools.rdv[i] = NULL;
	}
	if (tools.lev)
		event_free(tools.lev);
	if (tools.relisten)
		event_free(tools.relisten);
	tools.lev = tools.relisten = NULL;
	if (tools.lfd >= 0)
		close(tools.lfd);
	tools.lfd = -1;
	if (tools.sock)
		unlink(tools.sock);
	free(tools.sock);
	tools.sock = NULL;
}
