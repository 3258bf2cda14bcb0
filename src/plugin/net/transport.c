/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_net.c - stepd-to-stepd transport (see plug_net.h for the design).
 *
 * State, all owned by the progress thread once plug_net_start has posted
 * its work: the listener, the root's link to srun (while it hands over
 * the table), one peer record per node of the step (endpoint, primary
 * connection, queue of messages waiting for it), and the list of every
 * open connection ("links", authenticated or not) so that stop can close
 * them all. Connects are non-blocking (an EV_WRITE event with a timeout),
 * so nothing here ever blocks the progress thread.
 *
 * Caveats: the key travels in clear inside HELLO (anyone who can sniff the
 * node network can learn it; a challenge-response needs a MAC we do not
 * have yet); the acceptor does not prove the key back.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>

#include "pack.h"
#include "net/boot.h"
#include "net/coll.h"
#include "common/conf.h"
#include "net/transport.h"
#include "lib/tree.h"
#include "progress.h"
#include "pxc.h"
#include "slurm_adapter.h"

#define NET_MAX_PAYLOAD (64u << 20)
#define NET_CONNECT_SEC 30
#define PLUG_NET_MAX_FOREIGN 65536	/* stepds of other steps we talk to */

typedef struct qmsg {
	struct qmsg *next;
	uint16_t cmd;
	uint32_t tag;
	pmix_data_buffer_t buf;
} qmsg_t;

typedef struct link {
	struct link *next;
	pxc_conn_t *conn;
	int64_t node;		/* -1: not authenticated yet */
	int srun;		/* the link to srun */
} link_t;

typedef struct {
	uint32_t step, node;	/* which stepd (other steps: plug_net_peer) */
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;		/* 0: unknown yet */
	link_t *link;		/* primary connection, or NULL */
	int connecting;
	qmsg_t *queue, **tail;
} peer_t;

typedef struct pconn {
	struct pconn *next;
	int fd;
	struct event *ev;
	int64_t node;		/* -1: srun */
} pconn_t;

static struct {
	pxc_progress_t *pg;
	struct event_base *base;
	uint32_t me, nnodes;
	uint32_t job, step;	/* this step's ids */
	pmix_data_buffer_t steptable;	/* root: the table, for srun's step file */
	int booting;		/* plug_boot started */
	uint32_t npeers;	/* nnodes + stepds of other steps */
	char key[PLUG_KEY_LEN + 1];
	char srun_host[256];
	uint16_t srun_port;
	struct sockaddr_storage self;	/* listener address */
	socklen_t selflen;
	char self_addr[INET6_ADDRSTRLEN];
	uint16_t self_port;
	int lfd;
	struct event *lev;
	peer_t *peers;
	link_t *links;
	int have_table, up;
	pconn_t *pconns;		/* connects in progress */
} net = { .lfd = -1 };

int plug_key_ok(const char *a, const char *b)
{
	unsigned diff = 0;

	if (!a || !b || strlen(a) != PLUG_KEY_LEN || strlen(b) != PLUG_KEY_LEN)
		return 0;
	for (size_t i = 0; i < PLUG_KEY_LEN; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return diff == 0;
}

uint32_t plug_net_me(void)
{
	return net.me;
}

struct event_base *plug_net_base(void)
{
	return net.base;
}

uint32_t plug_net_step(void)
{
	return net.step;
}

/* After a realloc: the queue tails point into the old array. */
static void fix_tails(void)
{
	for (uint32_t i = 0; i < net.npeers; i++) {
		qmsg_t **t = &net.peers[i].queue;

		while (*t)
			t = &(*t)->next;
		net.peers[i].tail = t;
	}
}

uint32_t plug_net_peer(uint32_t step, uint32_t node, const char *addr, uint16_t port)
{
	peer_t *p, *grown;

	if (step == net.step)
		return node < net.nnodes ? node : UINT32_MAX;
	for (uint32_t i = net.nnodes; i < net.npeers; i++) {
		p = &net.peers[i];
		if (p->step == step && p->node == node) {
			if (addr && !p->port && strlen(addr) < sizeof(p->addr)) {
				strcpy(p->addr, addr);
				p->port = port;
			}
			return i;
		}
	}
	if (net.npeers >= net.nnodes + PLUG_NET_MAX_FOREIGN ||
	    !(grown = realloc(net.peers, (net.npeers + 1) * sizeof(*grown))))
		return UINT32_MAX;
	net.peers = grown;
	p = &net.peers[net.npeers];
	memset(p, 0, sizeof(*p));
	p->step = step;
	p->node = node;
	if (addr && strlen(addr) < sizeof(p->addr)) {
		strcpy(p->addr, addr);
		p->port = port;
	}
	net.npeers++;
	fix_tails();
	return net.npeers - 1;
}

/* ---- links -------------------------------------------------------------- */

static void link_drop(link_t *l)
{
	for (link_t **p = &net.links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	pxc_conn_close(l->conn, 0);
	free(l);
}

static void queue_free(peer_t *p)
{
	qmsg_t *q;

	while ((q = p->queue)) {
		p->queue = q->next;
		pxc_buf_clear(&q->buf);
		free(q);
	}
	p->tail = &p->queue;
}

/* Node unreachable: drop what waited for it, fail what depends on it. */
static void peer_lost(uint32_t node, const char *why)
{
	peer_t *p = &net.peers[node];

	plug_debug("step daemon of node %u unreachable: %s", node, why);
	queue_free(p);
	p->connecting = 0;
	plug_coll_peer_lost(node);
	plug_dmdx_peer_lost(node);
}

static void flush_queue(peer_t *p)
{
	qmsg_t *q;

	while ((q = p->queue)) {
		p->queue = q->next;
		pxc_conn_send(p->link->conn, q->cmd, q->tag, 0, &q->buf);
		pxc_buf_clear(&q->buf);
		free(q);
	}
	p->tail = &p->queue;
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h,
		   pmix_data_buffer_t *in, void *arg);
static void on_close(pxc_conn_t *c, int err, void *arg);

static link_t *link_new(int fd, int64_t node, int srun)
{
	link_t *l = calloc(1, sizeof(*l));

	if (!l) {
		close(fd);
		return NULL;
	}
	l->conn = pxc_conn_new(net.base, fd, NET_MAX_PAYLOAD, on_msg, on_close, l);
	if (!l->conn) {
		free(l);
		return NULL;
	}
	l->node = node;
	l->srun = srun;
	l->next = net.links;
	net.links = l;
	return l;
}

/* ---- outgoing connections ----------------------------------------------- */

static void connected(pconn_t *pc)
{
	pmix_data_buffer_t b;
	link_t *l = link_new(pc->fd, pc->node, pc->node < 0);

	pc->fd = -1;
	if (!l) {
		for (uint32_t i = 0; i < net.nnodes; i++)
			if (i != net.me && (pc->node < 0 || pc->node == (int64_t)i))
				peer_lost(i, "out of memory");
		return;
	}
	pxc_buf_init(&b);
	if (pc->node < 0) {
		pxc_pack_str(&b, net.key);
		pxc_buf_append(&b, net.steptable.base_ptr, net.steptable.bytes_used);
		pxc_conn_send(l->conn, PLUG_NET_STEPTABLE, 0, 0, &b);
	} else {
		peer_t *p = &net.peers[pc->node];

		pxc_pack_str(&b, net.key);
		pxc_pack_u32(&b, net.me);
		pxc_pack_u32(&b, net.step);
		pxc_conn_send(l->conn, PLUG_NET_HELLO, 0, 0, &b);
		p->connecting = 0;
		if (!p->link)
			p->link = l;
		flush_queue(p);
	}
	pxc_buf_clear(&b);
}

static void connect_done(int fd, short what, void *arg)
{
	pconn_t *pc = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	for (pconn_t **p = &net.pconns; *p; p = &(*p)->next)
		if (*p == pc) {
			*p = pc->next;
			break;
		}
	if (what & EV_TIMEOUT)
		err = ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	event_free(pc->ev);
	if (err) {
		close(fd);
		if (pc->node < 0) {
			plug_error("cannot reach srun at %s:%u: %s", net.srun_host,
				   net.srun_port, strerror(err));
			for (uint32_t i = 0; i < net.nnodes; i++)
				if (i != net.me)
					peer_lost(i, "no endpoint table");
		} else {
			peer_lost((uint32_t)pc->node, strerror(err));
		}
	} else {
		connected(pc);
	}
	free(pc);
}

/* Starts a non-blocking connect; node -1 is srun. 0/-1. */
/* Collective messages are small and latency-bound: without TCP_NODELAY,
 * Nagle's algorithm and delayed ACKs add ~40 ms per tree hop. */
static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		plug_debug("TCP_NODELAY: %m");
}

static int start_connect(const char *host, uint16_t port, int64_t node)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct timeval tv = { NET_CONNECT_SEC, 0 };
	char svc[8];
	pconn_t *pc = calloc(1, sizeof(*pc));
	int fd = -1;

	snprintf(svc, sizeof(svc), "%u", port);
	hints.ai_flags = AI_NUMERICSERV;
	if (!pc || getaddrinfo(host, svc, &hints, &ai) != 0)
		goto fail;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		set_nodelay(fd);
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		       errno != EINPROGRESS))
		goto fail;
	pc->fd = fd;
	pc->node = node;
	pc->ev = event_new(net.base, fd, EV_WRITE, connect_done, pc);
	if (!pc->ev || event_add(pc->ev, &tv) < 0)
		goto fail;
	pc->next = net.pconns;
	net.pconns = pc;
	freeaddrinfo(ai);
	return 0;
fail:
	if (pc && pc->ev)
		event_free(pc->ev);
	if (fd >= 0)
		close(fd);
	if (ai)
		freeaddrinfo(ai);
	free(pc);
	return -1;
}

static void peer_connect(uint32_t node)
{
	peer_t *p = &net.peers[node];

	if (p->link || p->connecting || (node < net.nnodes && !net.have_table))
		return;
	if (!p->port) {		/* another step's stepd known only by its hello */
		peer_lost(node, "no endpoint");
		return;
	}
	p->connecting = 1;
	if (start_connect(p->addr, p->port, node) < 0) {
		p->connecting = 0;
		peer_lost(node, "cannot start a connection");
	}
}

int plug_net_send(uint32_t to, uint16_t cmd, uint32_t tag,
		  const pmix_data_buffer_t *payload)
{
	peer_t *p;
	qmsg_t *q;

	if (!net.up || to >= net.npeers || to == net.me)
		return -1;
	p = &net.peers[to];
	if (p->link)
		return pxc_conn_send(p->link->conn, cmd, tag, 0, payload);
	if (!(q = calloc(1, sizeof(*q))))
		return -1;
	q->cmd = cmd;
	q->tag = tag;
	pxc_buf_init(&q->buf);
	if (payload && payload->bytes_used &&
	    pxc_buf_load_copy(&q->buf, payload->base_ptr, payload->bytes_used) < 0) {
		free(q);
		return -1;
	}
	*p->tail = q;
	p->tail = &q->next;
	peer_connect(to);
	return 0;
}

void plug_net_flood(uint16_t cmd, uint32_t except, const pmix_data_buffer_t *payload)
{
	uint32_t w = plug_coll_ctx.width, parent, n = 0;
	uint32_t *kids;

	if (!net.up || !(kids = calloc(w, sizeof(*kids))))
		return;
	if (plug_tree_node(net.me, net.nnodes, w, &parent, kids, &n) == 0) {
		if (parent != PLUG_TREE_NONE && parent != except)
			plug_net_send(parent, cmd, 0, payload);
		for (uint32_t i = 0; i < n; i++)
			if (kids[i] != except)
				plug_net_send(kids[i], cmd, 0, payload);
	}
	free(kids);
}

/* ---- incoming ----------------------------------------------------------- */

static int set_peer(void *arg, uint32_t node, const char *addr, uint16_t port)
{
	(void)arg;
	strcpy(net.peers[node].addr, addr);	/* shorter than INET6_ADDRSTRLEN */
	net.peers[node].port = port;
	return 0;
}

static int take_table(pmix_data_buffer_t *in)
{
	uint32_t n = net.nnodes, parent;

	if (plug_boot_table_unpack(in, net.nnodes, set_peer, NULL) < 0)
		return -1;
	net.have_table = 1;
	for (uint32_t i = 0; i < n; i++)
		if (net.peers[i].queue)
			peer_connect(i);
	/* Early link to the parent in the tree of all nodes: the first fence
	 * pays no connect, and a dead parent or child is seen as a closed
	 * connection instead of a timeout. */
	if (plug_tree_node(net.me, n, plug_coll_ctx.width, &parent, NULL, NULL) == 0 &&
	    parent != PLUG_TREE_NONE)
		peer_connect(parent);
	return 0;
}

/* A complete table (the root's, or one from the parent): taken, and sent
 * on to this node's children in the tree of all nodes. 0/-1. */
static int table_in(const pmix_data_buffer_t *table)
{
	pmix_data_buffer_t copy = *table;
	uint32_t parent, *kids = calloc(plug_coll_ctx.width ? plug_coll_ctx.width : 1,
					sizeof(*kids)), nkids = 0;
	int rc;

	copy.unpack_ptr = copy.base_ptr;
	rc = net.have_table || !kids ? -1 : take_table(&copy);
	if (rc == 0 && plug_tree_node(net.me, net.nnodes, plug_coll_ctx.width, &parent,
				      kids, &nkids) == 0)
		for (uint32_t i = 0; i < nkids; i++)
			plug_net_send(kids[i], PLUG_NET_TABLE, 0, table);
	free(kids);
	return rc;
}

void plug_net_boot_failed(const char *why)
{
	if (!net.up)		/* stopping: the sender thread's news is stale */
		return;
	plug_error("no endpoint table: %s", why);
	for (uint32_t i = 0; i < net.nnodes; i++)
		if (i != net.me)
			peer_lost(i, "no endpoint table");
}

void plug_net_boot_table(const pmix_data_buffer_t *table)
{
	if (table_in(table) < 0) {
		plug_net_boot_failed("a bad table");
		return;
	}
	/* srun writes it to the step file for the job's other steps */
	pxc_buf_init(&net.steptable);
	if (pxc_buf_append(&net.steptable, table->base_ptr, table->bytes_used) < 0 ||
	    start_connect(net.srun_host, net.srun_port, -1) < 0)
		plug_error("cannot hand the endpoint table to srun: other steps "
			   "cannot reach this one");
}

/* HELLO on a fresh incoming connection. 0, or -1 to drop it. */
static int hello(link_t *l, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	char *key = NULL;
	uint32_t node = UINT32_MAX, step = UINT32_MAX;
	int ok;

	if (h->cmd != PLUG_NET_HELLO || pxc_unpack_str(in, &key) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &node) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &step) != PMIX_SUCCESS) {
		free(key);
		return plug_error("peer connection without a hello: dropped"), -1;
	}
	ok = plug_key_ok(key, net.key);
	free(key);
	if (ok && step != net.step)	/* a stepd of another step of the job */
		node = plug_net_peer(step, node, NULL, 0);
	else if (ok && (node >= net.nnodes || node == net.me))
		ok = 0;
	if (!ok || node == UINT32_MAX)
		return plug_error("peer with a bad key or node id %u: dropped", node), -1;
	l->node = node;
	if (!net.peers[node].link) {
		net.peers[node].link = l;
		flush_queue(&net.peers[node]);
	}
	return 0;
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h,
		   pmix_data_buffer_t *in, void *arg)
{
	link_t *l = arg;

	(void)c;
	if (l->srun) {
		link_drop(l);	/* srun answers nothing: done */
		return;
	}
	if (l->node < 0) {
		if (hello(l, h, in) < 0)
			link_drop(l);
		return;
	}
	if (h->cmd == PLUG_NET_TABLE) {
		if (l->node >= net.nnodes || net.have_table)
			plug_error("endpoint table from node %u dropped", (unsigned)l->node);
		else if (table_in(in) < 0)
			plug_net_boot_failed("a bad table from the parent");
	} else if (h->cmd == PLUG_NET_FANIN || h->cmd == PLUG_NET_FANOUT)
		plug_coll_msg((uint32_t)l->node, h, in);
	else if (h->cmd == PLUG_NET_DMDX_REQ || h->cmd == PLUG_NET_DMDX_RESP)
		plug_dmdx_msg((uint32_t)l->node, h, in);
	else if (h->cmd == PLUG_NET_LOST)
		plug_lost_msg((uint32_t)l->node, h, in);
	else if (h->cmd == PLUG_NET_EVENT)
		plug_event_msg((uint32_t)l->node, h, in);
	else
		plug_error("unknown message %u from node %u", h->cmd, (unsigned)l->node);
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	link_t *l = arg;
	int64_t node = l->node;
	int was_primary = node >= 0 && net.peers[node].link == l;

	(void)c;
	link_drop(l);
	if (was_primary) {
		net.peers[node].link = NULL;
		peer_lost((uint32_t)node, err ? strerror(err) : "connection closed");
	}
}

static void on_accept(int lfd, short what, void *arg)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)what, (void)arg;
	if (fd >= 0) {
		set_nodelay(fd);
		link_new(fd, -1, 0);
	}
}

/* ---- start / stop ------------------------------------------------------- */

static void start_fn(void *arg)
{
	(void)arg;
	net.lev = event_new(net.base, net.lfd, EV_READ | EV_PERSIST, on_accept, NULL);
	if (!net.lev || event_add(net.lev, NULL) < 0) {
		plug_error("cannot start the step daemons' network");
		return;
	}
	net.up = 1;
	plug_boot_go();
}

/* Listener on the address this node uses towards srun's host. */
static int listen_self(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai = NULL;
	int ufd = -1, rc = -1;

	if (getaddrinfo(net.srun_host, "9", &hints, &ai) != 0)
		return plug_error("cannot resolve srun's host %s", net.srun_host), -1;
	ufd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	net.selflen = sizeof(net.self);
	if (ufd < 0 || connect(ufd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    getsockname(ufd, (struct sockaddr *)&net.self, &net.selflen) < 0)
		goto out;
	((struct sockaddr_in *)&net.self)->sin_port = 0;	/* same offset in v6 */
	net.lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (net.lfd < 0 || bind(net.lfd, (struct sockaddr *)&net.self, net.selflen) < 0 ||
	    listen(net.lfd, 128) < 0 ||
	    getsockname(net.lfd, (struct sockaddr *)&net.self, &net.selflen) < 0 ||
	    getnameinfo((struct sockaddr *)&net.self, net.selflen, net.self_addr,
			sizeof(net.self_addr), NULL, 0, NI_NUMERICHOST) != 0)
		goto out;
	net.self_port = ntohs(((struct sockaddr_in *)&net.self)->sin_port);
	rc = 0;
out:
	if (rc < 0)
		plug_error("cannot listen for the step daemons: %m");
	if (ufd >= 0)
		close(ufd);
	freeaddrinfo(ai);
	return rc;
}

static int read_env(char **env)
{
	const char *key = plug_env_get(env, PLUG_KEY_ENV);
	const char *port = plug_env_get(env, PLUG_SRUN_PORT_ENV);
	const char *host = plug_env_get(env, "SLURM_SRUN_COMM_HOST");
	uint32_t p;

	if (!host)
		host = plug_env_get(env, "SLURM_LAUNCH_NODE_IPADDR");
	if (!key || strlen(key) != PLUG_KEY_LEN || !port ||
	    plug_parse_u32(port, 1, 65535, &p) < 0 || !host ||
	    strlen(host) >= sizeof(net.srun_host))
		return plug_error("launch environment lacks %s/%s/SLURM_SRUN_COMM_HOST",
				  PLUG_KEY_ENV, PLUG_SRUN_PORT_ENV), -1;
	strcpy(net.key, key);
	strcpy(net.srun_host, host);
	{
		const char *id = plug_env_get(env, "SLURMIX_STEP");
		const char *dot = id ? strchr(id, '.') : NULL;

		if (!dot || plug_parse_u32(dot + 1, 0, UINT32_MAX, &net.step) < 0 ||
		    sscanf(id, "%u.", &net.job) != 1)
			return plug_error("launch environment lacks SLURMIX_STEP"), -1;
	}
	net.srun_port = (uint16_t)p;
	return 0;
}

int plug_net_start(uint32_t me, uint32_t nnodes, char *const *hosts, char **env)
{
	plug_boot_args_t ba = { .me = me, .nnodes = nnodes, .hosts = hosts,
				.width = plug_coll_ctx.width, .timeout_s = (int)plug_coll_ctx.timeout };

	net.me = me;
	net.nnodes = nnodes;
	net.pg = pxc_progress_global();
	if (!net.pg || read_env(env) < 0 || listen_self() < 0)
		return -1;
	/* Only the progress thread uses it; taken here so that it is set
	 * before any fence can reach plug_coll.c. */
	net.base = pxc_progress_base(net.pg);
	if (!(net.peers = calloc(nnodes, sizeof(peer_t))))
		return -1;
	net.npeers = nnodes;
	for (uint32_t i = 0; i < nnodes; i++) {
		net.peers[i].tail = &net.peers[i].queue;
		net.peers[i].step = net.step;
		net.peers[i].node = i;
	}
	ba.key = net.key;
	ba.job = net.job;
	ba.step = net.step;
	ba.addr = net.self_addr;
	ba.port = net.self_port;
	net.booting = 1;
	if (plug_boot_start(&ba, net.base) < 0 || pxc_progress_post(net.pg, start_fn, NULL) < 0)
		return -1;
	plug_debug("node %u listens on %s:%u", me, net.self_addr, net.self_port);
	return 0;
}

static void stop_fn(void *arg)
{
	pxc_sync_t *s = arg;

	net.up = 0;
	plug_coll_stop();
	plug_dmdx_stop();
	while (net.pconns) {
		pconn_t *pc = net.pconns;

		net.pconns = pc->next;
		event_free(pc->ev);
		close(pc->fd);
		free(pc);
	}
	while (net.links)
		link_drop(net.links);
	for (uint32_t i = 0; net.peers && i < net.npeers; i++)
		queue_free(&net.peers[i]);
	if (net.lev)
		event_free(net.lev);
	net.lev = NULL;
	plug_boot_stop();
	pxc_sync_signal(s, PMIX_SUCCESS);
}

void plug_net_stop(void)
{
	if (net.pg && net.peers &&
	    pxc_progress_call(net.pg, stop_fn, 10000) == PMIX_ERR_TIMEOUT) {
		plug_error("network did not stop in time");
		return;
	}
	if (net.booting)
		plug_boot_join();
	if (net.lfd >= 0)
		close(net.lfd);
	pxc_buf_clear(&net.steptable);
	free(net.peers);
	memset(&net, 0, sizeof(net));
	net.lfd = -1;
}
