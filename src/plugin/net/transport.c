/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/transport.c - stepd-to-stepd transport (see net/transport.h).
 *
 * State, all owned by the progress thread once plug_net_start has posted
 * its work: the listener, the root's link to srun (while it hands over
 * the table), one peer record per node of the step (endpoint, primary
 * connection, queue of messages waiting for it), the list of every open
 * connection ("links", authenticated or not) so that stop can close them
 * all, and the users' registrations (read-only once started). Connects
 * are non-blocking (an EV_WRITE event with a timeout), so nothing here
 * ever blocks the progress thread.
 *
 * A lost peer is marked and a single event is made active; its callback
 * tells the users about every marked peer. So a failure found inside
 * plug_net_send (no endpoint, socket() failing) reaches the users only
 * after the sender's own call has returned and it has recorded what it
 * sent.
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/endpoints.h"
#include "lib/tree.h"
#include "net/transport.h"
#include "slurm_adapter.h"

#define NET_MAX_PAYLOAD (64u << 20)
#define NET_CONNECT_SEC 30
#define NET_MAX_FOREIGN 65536 /* stepds of other steps we talk to */
#define NET_MAX_USERS 16

typedef struct qmsg {
	struct qmsg *next;
	uint16_t cmd;
	uint32_t tag;
	pmix_data_buffer_t buf;
} qmsg_t;

typedef struct link {
	struct link *next;
	plug_net_t *net;
	pxc_conn_t *conn;
	int64_t node; /* -1: not authenticated yet */
	int srun;     /* the link to srun */
} link_t;

typedef struct {
	uint32_t step, node; /* which stepd (other steps: plug_net_peer) */
	char addr[INET6_ADDRSTRLEN];
	uint16_t port; /* 0: unknown yet */
	link_t *link;  /* primary connection, or NULL */
	int connecting;
	int lost;  /* to be reported to the users */
	int ended; /* said BYE: its connections close without a loss */
	qmsg_t *queue, **tail;
} peer_t;

typedef struct pconn {
	struct pconn *next;
	plug_net_t *net;
	int fd;
	struct event *ev;
	int64_t node; /* -1: srun */
} pconn_t;

struct plug_net {
	pxc_progress_t *pg;
	struct event_base *base;
	uint32_t me, nnodes, width;
	uint32_t job, step;           /* this step's ids */
	pmix_data_buffer_t steptable; /* root: the table, for srun's step file */
	uint32_t npeers;              /* nnodes + stepds of other steps */
	char key[PLUG_KEY_LEN + 1];
	char srun_host[256];
	uint16_t srun_port;
	char self_addr[INET6_ADDRSTRLEN];
	uint16_t self_port;
	int lfd;
	struct event *lev;
	struct event *lost_ev; /* reports the peers marked lost */
	peer_t *peers;
	link_t *links;
	int have_table, up, started, stopped, stuck;
	atomic_int table_seen; /* have_table, for other threads */
	pconn_t *pconns;       /* connects in progress */
	plug_net_user_t users[NET_MAX_USERS];
	size_t nusers;
};

bool plug_net_table_seen(plug_net_t *n)
{
	return atomic_load(&n->table_seen) != 0;
}

bool plug_net_peer_ended(const plug_net_t *n, uint32_t peer)
{
	return peer < n->npeers && n->peers[peer].ended;
}

const char *plug_net_addr(const plug_net_t *n)
{
	return n->self_addr;
}

uint16_t plug_net_port(const plug_net_t *n)
{
	return n->self_port;
}

uint32_t plug_net_me(const plug_net_t *n)
{
	return n->me;
}

uint32_t plug_net_nnodes(const plug_net_t *n)
{
	return n->nnodes;
}

uint32_t plug_net_step(const plug_net_t *n)
{
	return n->step;
}

uint32_t plug_net_width(const plug_net_t *n)
{
	return n->width;
}

struct event_base *plug_net_base(const plug_net_t *n)
{
	return n->base;
}

/* ---- users -------------------------------------------------------------- */

static int kinds_overlap(uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1)
{
	return a0 && b0 && a0 <= b1 && b0 <= a1;
}

int plug_net_register(plug_net_t *n, const plug_net_user_t *u)
{
	if (n->started || n->nusers == NET_MAX_USERS || u->first > u->last ||
	    kinds_overlap(u->first, u->last, PLUG_NET_HELLO, PLUG_NET_TABLE) ||
	    kinds_overlap(u->first, u->last, PLUG_NET_BYE, PLUG_NET_BYE))
		return -1;
	for (size_t i = 0; i < n->nusers; i++)
		if (kinds_overlap(u->first, u->last, n->users[i].first, n->users[i].last))
			return -1;
	n->users[n->nusers++] = *u;
	return 0;
}

static const plug_net_user_t *user_of(const plug_net_t *n, uint16_t cmd)
{
	for (size_t i = 0; i < n->nusers; i++)
		if (n->users[i].first && cmd >= n->users[i].first && cmd <= n->users[i].last)
			return &n->users[i];
	return NULL;
}

/* The users hear of every peer marked lost since the last time. */
static void report_lost(int fd, short what, void *arg)
{
	plug_net_t *n = arg;

	(void)fd, (void)what;
	for (uint32_t i = 0; i < n->npeers; i++) {
		if (!n->peers[i].lost)
			continue;
		n->peers[i].lost = 0;
		for (size_t u = 0; u < n->nusers; u++)
			if (n->users[u].peer_lost)
				n->users[u].peer_lost(n->users[u].arg, i);
	}
}

/* ---- peers -------------------------------------------------------------- */

/* After a realloc: the queue tails point into the old array. */
static void fix_tails(plug_net_t *n)
{
	for (uint32_t i = 0; i < n->npeers; i++) {
		qmsg_t **t = &n->peers[i].queue;

		while (*t)
			t = &(*t)->next;
		n->peers[i].tail = t;
	}
}

static void set_endpoint(peer_t *p, const char *addr, uint16_t port)
{
	if (addr && strlen(addr) < sizeof(p->addr)) {
		strcpy(p->addr, addr);
		p->port = port;
	}
}

uint32_t plug_net_peer(plug_net_t *n, uint32_t step, uint32_t node, const char *addr, uint16_t port)
{
	peer_t *p, *grown;

	if (step == n->step)
		return node < n->nnodes ? node : UINT32_MAX;
	for (uint32_t i = n->nnodes; i < n->npeers; i++) {
		p = &n->peers[i];
		if (p->step == step && p->node == node) {
			if (!p->port)
				set_endpoint(p, addr, port);
			return i;
		}
	}
	if (n->npeers >= n->nnodes + NET_MAX_FOREIGN ||
	    !(grown = realloc(n->peers, (n->npeers + 1) * sizeof(*grown))))
		return UINT32_MAX;
	n->peers = grown;
	p = &n->peers[n->npeers];
	memset(p, 0, sizeof(*p));
	p->step = step;
	p->node = node;
	set_endpoint(p, addr, port);
	n->npeers++;
	fix_tails(n);
	return n->npeers - 1;
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

/* Peer unreachable: drop what waited for it; the users hear of it from
 * the loop. */
static void peer_lost(plug_net_t *n, uint32_t node, const char *why)
{
	peer_t *p = &n->peers[node];

	plug_debug("step daemon of node %u unreachable: %s", node, why);
	queue_free(p);
	p->connecting = 0;
	p->lost = 1;
	if (n->lost_ev)
		event_active(n->lost_ev, 0, 0);
}

/* Every node of the step but this one. */
static void all_lost(plug_net_t *n, const char *why)
{
	for (uint32_t i = 0; i < n->nnodes; i++)
		if (i != n->me)
			peer_lost(n, i, why);
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

/* ---- links -------------------------------------------------------------- */

static void link_drop(link_t *l)
{
	plug_net_t *n = l->net;

	for (link_t **p = &n->links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	pxc_conn_close(l->conn, 0);
	free(l);
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg);
static void on_close(pxc_conn_t *c, int err, void *arg);

/* At a normal stop: BYE to an authenticated stepd, then the connection
 * closes once written (the loop goes on until the server stops). */
static void link_bye(link_t *l)
{
	plug_net_t *n = l->net;

	if (l->node < 0 || l->srun) {
		link_drop(l);
		return;
	}
	for (link_t **p = &n->links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	pxc_conn_set_arg(l->conn, NULL);
	pxc_conn_send(l->conn, PLUG_NET_BYE, 0, 0, NULL);
	pxc_conn_close(l->conn, 1);
	free(l);
}

static link_t *link_new(plug_net_t *n, int fd, int64_t node, int srun)
{
	link_t *l = calloc(1, sizeof(*l));

	if (!l) {
		close(fd);
		return NULL;
	}
	l->net = n;
	l->conn = pxc_conn_new(n->base, fd, NET_MAX_PAYLOAD, on_msg, on_close, l);
	if (!l->conn) {
		free(l);
		return NULL;
	}
	l->node = node;
	l->srun = srun;
	l->next = n->links;
	n->links = l;
	return l;
}

/* ---- outgoing connections ----------------------------------------------- */

static void connected(pconn_t *pc)
{
	plug_net_t *n = pc->net;
	pmix_data_buffer_t b;
	link_t *l = link_new(n, pc->fd, pc->node, pc->node < 0);

	pc->fd = -1;
	if (!l) {
		if (pc->node < 0)
			all_lost(n, "out of memory");
		else
			peer_lost(n, (uint32_t)pc->node, "out of memory");
		return;
	}
	pxc_buf_init(&b);
	if (pc->node < 0) {
		pxc_pack_str(&b, n->key);
		pxc_buf_append(&b, n->steptable.base_ptr, n->steptable.bytes_used);
		pxc_conn_send(l->conn, PLUG_NET_STEPTABLE, 0, 0, &b);
	} else {
		peer_t *p = &n->peers[pc->node];

		pxc_pack_str(&b, n->key);
		pxc_pack_u32(&b, n->me);
		pxc_pack_u32(&b, n->step);
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
	plug_net_t *n = pc->net;
	int err = 0;
	socklen_t len = sizeof(err);

	for (pconn_t **p = &n->pconns; *p; p = &(*p)->next)
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
			plug_error("cannot reach srun at %s:%u: %s", n->srun_host, n->srun_port,
				   strerror(err));
			all_lost(n, "no endpoint table");
		} else {
			peer_lost(n, (uint32_t)pc->node, strerror(err));
		}
	} else {
		connected(pc);
	}
	free(pc);
}

/* Collective messages are small and latency-bound: without TCP_NODELAY,
 * Nagle's algorithm and delayed ACKs add ~40 ms per tree hop. */
static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		plug_debug("TCP_NODELAY: %m");
}

/* Starts a non-blocking connect; node -1 is srun. 0/-1. */
static int start_connect(plug_net_t *n, const char *host, uint16_t port, int64_t node)
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
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS))
		goto fail;
	pc->net = n;
	pc->fd = fd;
	pc->node = node;
	pc->ev = event_new(n->base, fd, EV_WRITE, connect_done, pc);
	if (!pc->ev || event_add(pc->ev, &tv) < 0)
		goto fail;
	pc->next = n->pconns;
	n->pconns = pc;
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

static void peer_connect(plug_net_t *n, uint32_t node)
{
	peer_t *p = &n->peers[node];

	if (p->link || p->connecting || (node < n->nnodes && !n->have_table))
		return;
	if (!p->port) { /* another step's stepd known only by its hello */
		peer_lost(n, node, "no endpoint");
		return;
	}
	p->connecting = 1;
	if (start_connect(n, p->addr, p->port, node) < 0) {
		p->connecting = 0;
		peer_lost(n, node, "cannot start a connection");
	}
}

int plug_net_send(plug_net_t *n, uint32_t to, uint16_t cmd, uint32_t tag,
		  const pmix_data_buffer_t *payload)
{
	peer_t *p;
	qmsg_t *q;

	if (!n || !n->up || to >= n->npeers || to == n->me)
		return -1;
	p = &n->peers[to];
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
	peer_connect(n, to);
	return 0;
}

size_t plug_net_queued(const plug_net_t *n, uint32_t to)
{
	const peer_t *p;
	size_t sum = 0;

	if (!n || to >= n->npeers)
		return 0;
	p = &n->peers[to];
	for (const qmsg_t *q = p->queue; q; q = q->next)
		sum += q->buf.bytes_used;
	return sum + (p->link ? pxc_conn_queued(p->link->conn) : 0);
}

void plug_net_flood(plug_net_t *n, uint16_t cmd, uint32_t except, const pmix_data_buffer_t *payload)
{
	uint32_t parent, nkids = 0, *kids;

	if (!n || !n->up || !(kids = calloc(n->width, sizeof(*kids))))
		return;
	if (plug_tree_node(n->me, n->nnodes, n->width, &parent, kids, &nkids) == 0) {
		if (parent != PLUG_TREE_NONE && parent != except)
			plug_net_send(n, parent, cmd, 0, payload);
		for (uint32_t i = 0; i < nkids; i++)
			if (kids[i] != except)
				plug_net_send(n, kids[i], cmd, 0, payload);
	}
	free(kids);
}

/* ---- the endpoint table ------------------------------------------------- */

static int set_peer(void *arg, uint32_t node, const char *addr, uint16_t port)
{
	plug_net_t *n = arg;

	set_endpoint(&n->peers[node], addr, port); /* checked: short enough */
	return 0;
}

static int take_table(plug_net_t *n, pmix_data_buffer_t *in)
{
	uint32_t parent;

	if (plug_endpoints_unpack(in, n->nnodes, set_peer, n) < 0)
		return -1;
	n->have_table = 1;
	atomic_store(&n->table_seen, 1);
	for (uint32_t i = 0; i < n->nnodes; i++)
		if (n->peers[i].queue)
			peer_connect(n, i);
	/* Early link to the parent in the tree of all nodes: the first fence
	 * pays no connect, and a dead parent or child is seen as a closed
	 * connection instead of a timeout. */
	if (plug_tree_node(n->me, n->nnodes, n->width, &parent, NULL, NULL) == 0 &&
	    parent != PLUG_TREE_NONE)
		peer_connect(n, parent);
	return 0;
}

/* A complete table (the root's, or one from the parent): taken, and sent
 * on to this node's children in the tree of all nodes. 0/-1. */
static int table_in(plug_net_t *n, const pmix_data_buffer_t *table)
{
	pmix_data_buffer_t copy = *table;
	uint32_t parent, *kids = calloc(n->width ? n->width : 1, sizeof(*kids)), nkids = 0;
	int rc;

	copy.unpack_ptr = copy.base_ptr;
	rc = n->have_table || !kids ? -1 : take_table(n, &copy);
	if (rc == 0 && plug_tree_node(n->me, n->nnodes, n->width, &parent, kids, &nkids) == 0)
		for (uint32_t i = 0; i < nkids; i++)
			plug_net_send(n, kids[i], PLUG_NET_TABLE, 0, table);
	free(kids);
	return rc;
}

void plug_net_table_failed(plug_net_t *n, const char *why)
{
	if (!n->up) /* stopping: the sender thread's news is stale */
		return;
	plug_error("no endpoint table: %s", why);
	all_lost(n, "no endpoint table");
}

void plug_net_table_in(plug_net_t *n, const pmix_data_buffer_t *table, bool to_srun)
{
	if (table_in(n, table) < 0) {
		plug_net_table_failed(n, "a bad table");
		return;
	}
	if (!to_srun || !n->srun_port)
		return;
	/* srun writes it to the step file for the job's other steps */
	pxc_buf_clear(&n->steptable);
	pxc_buf_init(&n->steptable);
	if (pxc_buf_append(&n->steptable, table->base_ptr, table->bytes_used) < 0 ||
	    start_connect(n, n->srun_host, n->srun_port, -1) < 0)
		plug_error("cannot hand the endpoint table to srun: other steps "
			   "cannot reach this one");
}

/* ---- incoming ----------------------------------------------------------- */

/* HELLO on a fresh incoming connection. 0, or -1 to drop it. */
static int hello(link_t *l, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	plug_net_t *n = l->net;
	char *key = NULL;
	uint32_t node = UINT32_MAX, step = UINT32_MAX;
	int ok;

	if (h->cmd != PLUG_NET_HELLO || pxc_unpack_str(in, &key) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &node) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &step) != PMIX_SUCCESS) {
		free(key);
		return plug_error("peer connection without a hello: dropped"), -1;
	}
	ok = plug_key_ok(key, n->key);
	free(key);
	if (ok && step != n->step) /* a stepd of another step of the job */
		node = plug_net_peer(n, step, node, NULL, 0);
	else if (ok && (node >= n->nnodes || node == n->me))
		ok = 0;
	if (!ok || node == UINT32_MAX)
		return plug_error("peer with a bad key or node id %u: dropped", node), -1;
	l->node = node;
	if (!n->peers[node].link) {
		n->peers[node].link = l;
		flush_queue(&n->peers[node]);
	}
	return 0;
}

/* A fresh connection whose first message is a user's handover kind. */
static bool handover(link_t *l, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	plug_net_t *n = l->net;
	const plug_net_user_t *u = NULL;
	char *key = NULL;
	int fd, ok;

	for (size_t i = 0; i < n->nusers && !u; i++)
		if (n->users[i].handover && n->users[i].handover_cmd == h->cmd)
			u = &n->users[i];
	if (!u)
		return false;
	ok = pxc_unpack_str(in, &key) == PMIX_SUCCESS && plug_key_ok(key, n->key);
	free(key);
	fd = ok ? fcntl(pxc_conn_fd(l->conn), F_DUPFD_CLOEXEC, 3) : -1; /* never stdio */
	link_drop(l);
	if (!ok)
		plug_error("%s: connection with a bad key: dropped", u->name);
	else if (fd < 0)
		plug_error("%s: cannot take the connection: %m", u->name);
	else
		u->handover(u->arg, fd, in);
	return true;
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	link_t *l = arg;
	plug_net_t *n = l->net;
	const plug_net_user_t *u;

	(void)c;
	if (l->srun) {
		link_drop(l); /* srun answers nothing: done */
		return;
	}
	if (l->node < 0) {
		if (h->cmd != PLUG_NET_HELLO && handover(l, h, in))
			return;
		if (hello(l, h, in) < 0)
			link_drop(l);
		return;
	}
	if (h->cmd == PLUG_NET_BYE) {
		if (l->node < n->npeers)
			n->peers[l->node].ended = 1;
	} else if (h->cmd == PLUG_NET_TABLE) {
		if (l->node >= n->nnodes || n->have_table)
			plug_error("endpoint table from node %u dropped", (unsigned)l->node);
		else if (table_in(n, in) < 0)
			plug_net_table_failed(n, "a bad table from the parent");
	} else if ((u = user_of(n, h->cmd)) && u->msg) {
		u->msg(u->arg, (uint32_t)l->node, h, in);
	} else {
		plug_error("unknown message %u from node %u", h->cmd, (unsigned)l->node);
	}
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	link_t *l = arg;
	plug_net_t *n = l->net;
	int64_t node = l->node;
	int was_primary = node >= 0 && n->peers[node].link == l;

	(void)c;
	link_drop(l);
	if (was_primary) {
		n->peers[node].link = NULL;
		peer_lost(n, (uint32_t)node, err ? strerror(err) : "connection closed");
	}
}

static void on_accept(int lfd, short what, void *arg)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)what;
	if (fd >= 0) {
		set_nodelay(fd);
		link_new(arg, fd, -1, 0);
	}
}

/* ---- create / start / stop ---------------------------------------------- */

/* Listener on the address this node uses towards route_host. */
static int listen_self(plug_net_t *n)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai = NULL;
	struct sockaddr_storage self;
	socklen_t selflen = sizeof(self);
	int ufd = -1, rc = -1;

	if (getaddrinfo(n->srun_host, "9", &hints, &ai) != 0)
		return plug_error("cannot resolve srun's host %s", n->srun_host), -1;
	ufd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ufd < 0 || connect(ufd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    getsockname(ufd, (struct sockaddr *)&self, &selflen) < 0)
		goto out;
	((struct sockaddr_in *)&self)->sin_port = 0; /* same offset in v6 */
	n->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (n->lfd < 0 || bind(n->lfd, (struct sockaddr *)&self, selflen) < 0 ||
	    listen(n->lfd, 128) < 0 ||
	    getsockname(n->lfd, (struct sockaddr *)&self, &selflen) < 0 ||
	    getnameinfo((struct sockaddr *)&self, selflen, n->self_addr, sizeof(n->self_addr), NULL,
			0, NI_NUMERICHOST) != 0)
		goto out;
	n->self_port = ntohs(((struct sockaddr_in *)&self)->sin_port);
	rc = 0;
out:
	if (rc < 0)
		plug_error("cannot listen for the step daemons: %m");
	if (ufd >= 0)
		close(ufd);
	freeaddrinfo(ai);
	return rc;
}

plug_net_t *plug_net_create(const plug_net_args_t *a)
{
	plug_net_t *n = calloc(1, sizeof(*n));

	if (!n || !a->pg || !a->key || strlen(a->key) != PLUG_KEY_LEN || !a->route_host ||
	    strlen(a->route_host) >= sizeof(n->srun_host) || a->me >= a->nnodes || !a->width) {
		free(n);
		return plug_error("the step daemons' network: bad arguments"), NULL;
	}
	n->lfd = -1;
	n->pg = a->pg;
	n->base = pxc_progress_base(a->pg);
	n->me = a->me;
	n->nnodes = a->nnodes;
	n->width = a->width;
	n->job = a->job;
	n->step = a->step;
	n->srun_port = a->srun_port;
	strcpy(n->key, a->key);
	strcpy(n->srun_host, a->route_host);
	pxc_buf_init(&n->steptable);
	if (!(n->peers = calloc(n->nnodes, sizeof(peer_t))) ||
	    !(n->lost_ev = event_new(n->base, -1, 0, report_lost, n)) || listen_self(n) < 0) {
		plug_net_destroy(n);
		return NULL;
	}
	n->npeers = n->nnodes;
	for (uint32_t i = 0; i < n->nnodes; i++) {
		n->peers[i].tail = &n->peers[i].queue;
		n->peers[i].step = n->step;
		n->peers[i].node = i;
	}
	plug_debug("node %u listens on %s:%u", n->me, n->self_addr, n->self_port);
	return n;
}

static void start_fn(void *arg)
{
	plug_net_t *n = arg;

	n->lev = event_new(n->base, n->lfd, EV_READ | EV_PERSIST, on_accept, n);
	if (!n->lev || event_add(n->lev, NULL) < 0) {
		plug_error("cannot start the step daemons' network");
		return;
	}
	n->up = 1;
	for (size_t i = 0; i < n->nusers; i++)
		if (n->users[i].start)
			n->users[i].start(n->users[i].arg);
}

int plug_net_start(plug_net_t *n)
{
	n->started = 1;
	return pxc_progress_post(n->pg, start_fn, n);
}

static void stop_fn(void *arg)
{
	pxc_sync_t *s = arg;
	plug_net_t *n = s->arg;

	n->up = 0;
	for (size_t i = 0; i < n->nusers; i++)
		if (n->users[i].stop)
			n->users[i].stop(n->users[i].arg);
	while (n->pconns) {
		pconn_t *pc = n->pconns;

		n->pconns = pc->next;
		event_free(pc->ev);
		close(pc->fd);
		free(pc);
	}
	while (n->links)
		link_bye(n->links);
	for (uint32_t i = 0; i < n->npeers; i++)
		queue_free(&n->peers[i]);
	if (n->lev)
		event_free(n->lev);
	n->lev = NULL;
	event_free(n->lost_ev);
	n->lost_ev = NULL;
	pxc_sync_signal(s, PMIX_SUCCESS);
}

void plug_net_stop(plug_net_t *n)
{
	if (!n || !n->started || n->stopped)
		return;
	n->stopped = 1;
	if (pxc_progress_call_arg(n->pg, stop_fn, n, 10000) == PMIX_ERR_TIMEOUT) {
		plug_error("network did not stop in time");
		n->stuck = 1; /* the progress thread may still use it */
	}
}

void plug_net_destroy(plug_net_t *n)
{
	if (!n)
		return;
	plug_net_stop(n);
	if (n->stuck) /* leaked on purpose, as the stop's sync is */
		return;
	if (n->lost_ev && !n->started) /* never started: no loop has it */
		event_free(n->lost_ev);
	if (n->lfd >= 0)
		close(n->lfd);
	pxc_buf_clear(&n->steptable);
	free(n->peers);
	free(n);
}
