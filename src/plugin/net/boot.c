/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/boot.c - endpoint records up the tree through Slurm's forwarding
 * RPC (see net/boot.h for the design).
 *
 * Message (the data of a REQUEST_FORWARD_DATA): STRING key, UINT32 from
 * (the sender's node id), UINT32 n, n x (UINT32 node, STRING addr, UINT32
 * port). slurmd writes before it: UINT32 uid, UINT32 length (network
 * order), then closes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "lib/key.h"
#include "lib/endpoints.h"
#include "lib/tree.h"
#include "lib/util.h"
#include "net/boot.h"
#include "net/transport.h"
#include "slurm_adapter.h"

#define BOOT_MAX_MSG (16u << 20)
#define BOOT_MAX_READERS 1024

typedef struct reader {
	struct reader *next;
	int fd;
	struct event *ev;
	unsigned char hdr[8];
	size_t got; /* bytes of header + data read */
	uint32_t uid, len;
	char *data;
} reader_t;

static struct {
	plug_boot_args_t a;
	char key[PLUG_KEY_LEN + 1]; /* a.key points here: the caller's may go */
	struct event_base *base;
	char *raw; /* the path as slurmd expands it */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;
	struct event *lev;
	reader_t *readers;
	uint32_t nreaders;
	uint32_t parent, *kids, nkids, nfrom;
	unsigned char *kid_done;
	char **addr;            /* [nnodes] records of this subtree: */
	uint32_t *port, nrecs;  /* addr[node] set once it is in */
	pmix_data_buffer_t out; /* the report to the parent */
	pthread_t thr;
	int thr_on, done;
	atomic_int stop;
} boot = { .lfd = -1 };

/* ---- paths -------------------------------------------------------------- */

/* raw with %n -> node and %h -> this host, into out. 0/-1. */
static int expand(const char *raw, const char *node, char *out, size_t size)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "%s", node);
	return plug_path_expand(raw, node, host, out, size);
}

static int add_record(uint32_t node, const char *addr, uint32_t port)
{
	if (node >= boot.a.nnodes || boot.addr[node] || !addr || !*addr ||
	    strlen(addr) >= INET6_ADDRSTRLEN || !port || port > 65535 ||
	    !(boot.addr[node] = strdup(addr)))
		return -1;
	boot.port[node] = port;
	boot.nrecs++;
	return 0;
}

/* ---- sending to the parent ---------------------------------------------- */

/* arg: the network, alive until it is destroyed, which happens through
 * the loop after this has run (plug_boot_join ends the sender first). */
static void failed_fn(void *arg)
{
	plug_net_table_failed(arg, "the parent step daemon could not be reached");
}

/* Sends the report until slurmd delivered it. Where slurmd may call a
 * lost report delivered (plug_slurm_forward_confirmed), until this node
 * has the table (then every report reached the root) or the deadline;
 * the parent takes a repeated report as the first. */
static void *sender(void *arg)
{
	long deadline = pxc_now_ms() + 1000L * boot.a.timeout_s;
	int delay = 10, ok = 0, sent = 0;
	bool sure = plug_slurm_forward_confirmed();

	(void)arg;
	while (!atomic_load(&boot.stop)) {
		ok = plug_slurm_forward(boot.a.hosts[boot.parent], boot.raw, boot.out.base_ptr,
					(uint32_t)boot.out.bytes_used) == 0;
		sent |= ok;
		if ((ok && sure) || plug_net_table_seen(boot.a.net) || pxc_now_ms() >= deadline)
			break;
		for (int t = 0; t < delay && !atomic_load(&boot.stop); t += 10)
			usleep(10000);
		delay = delay < 500 ? delay * 2 : 500;
	}
	if (!sent && !atomic_load(&boot.stop)) {
		pxc_progress_t *pg = pxc_progress_global();

		plug_error("endpoints: node %s (parent of node %u) not reachable through "
			   "slurmd: %m",
			   boot.a.hosts[boot.parent], boot.a.me);
		if (pg) /* alive until after plug_boot_join */
			pxc_progress_post(pg, failed_fn, boot.a.net);
	}
	return NULL;
}

/* Root: the table, in node order (every record is in: each node reports
 * once and the children's subtrees cover them all). */
static void give_table(void)
{
	pmix_data_buffer_t t;
	int rc = boot.nrecs != boot.a.nnodes;

	pxc_buf_init(&t);
	rc = rc || plug_endpoints_pack(&t, boot.a.nnodes, boot.addr, boot.port) < 0;
	if (!rc)
		plug_net_table_in(boot.a.net, &t, true);
	else
		plug_net_table_failed(boot.a.net, "an incomplete table");
	pxc_buf_clear(&t);
}

/* The report to the parent: key, this node, the subtree's records. 0/-1. */
static int pack_report(void)
{
	int rc;

	pxc_buf_init(&boot.out);
	rc = pxc_pack_str(&boot.out, boot.a.key) || pxc_pack_u32(&boot.out, boot.a.me) ||
	     pxc_pack_u32(&boot.out, boot.nrecs);
	for (uint32_t i = 0; !rc && i < boot.a.nnodes; i++)
		if (boot.addr[i])
			rc = pxc_pack_u32(&boot.out, i) || pxc_pack_str(&boot.out, boot.addr[i]) ||
			     pxc_pack_u32(&boot.out, boot.port[i]);
	return rc ? -1 : 0;
}

/* Every child reported: up to the parent, or the root has it all. */
static void subtree_done(void)
{
	if (boot.done)
		return;
	boot.done = 1;
	if (boot.parent == PLUG_TREE_NONE) {
		give_table();
		return;
	}
	if (pack_report() < 0 || (errno = pthread_create(&boot.thr, NULL, sender, NULL)) != 0) {
		plug_error("endpoints: cannot report to the parent: %m");
		plug_net_table_failed(boot.a.net, "out of memory");
		return;
	}
	boot.thr_on = 1;
}

/* ---- receiving from children -------------------------------------------- */

static int kid_index(uint32_t node)
{
	for (uint32_t i = 0; i < boot.nkids; i++)
		if (boot.kids[i] == node)
			return (int)i;
	return -1;
}

/* One child's report. 0, or -1 (logged by the caller). */
static int take_report(uint32_t uid, char *data, uint32_t len)
{
	pmix_data_buffer_t in;
	char *key = NULL, *addr;
	uint32_t from = UINT32_MAX, n = 0, node, port;
	int k, rc = -1;

	pxc_buf_init(&in);
	pxc_buf_load_take(&in, data, len);
	if ((uid != 0 && uid != (uint32_t)plug_slurm_user()) || pxc_unpack_str(&in, &key) ||
	    !plug_key_ok(key, boot.a.key) || pxc_unpack_u32(&in, &from) ||
	    (k = kid_index(from)) < 0)
		goto out;
	if (boot.kid_done[k]) { /* sent again (sender): taken already */
		rc = 0;
		goto out;
	}
	if (pxc_unpack_u32(&in, &n) || n > boot.a.nnodes)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		addr = NULL;
		if (pxc_unpack_u32(&in, &node) || pxc_unpack_str(&in, &addr) ||
		    pxc_unpack_u32(&in, &port) || add_record(node, addr, port) < 0) {
			free(addr);
			goto out;
		}
		free(addr);
	}
	boot.kid_done[k] = 1;
	rc = 0;
	if (++boot.nfrom == boot.nkids)
		subtree_done();
out:
	free(key);
	pxc_buf_clear(&in);
	return rc;
}

static void reader_free(reader_t *r)
{
	for (reader_t **pp = &boot.readers; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	boot.nreaders--;
	event_free(r->ev);
	close(r->fd);
	free(r->data);
	free(r);
}

/* 1 when the message is complete, 0 for more, -1 on an error. */
static int reader_fill(reader_t *r)
{
	ssize_t n;

	if (r->got < 8) {
		n = read(r->fd, r->hdr + r->got, 8 - r->got);
		if (n > 0 && (r->got += (size_t)n) == 8) {
			memcpy(&r->uid, r->hdr, 4);
			memcpy(&r->len, r->hdr + 4, 4);
			r->uid = ntohl(r->uid);
			r->len = ntohl(r->len);
			if (r->len == 0 || r->len > BOOT_MAX_MSG || !(r->data = malloc(r->len)))
				return -1;
		}
	} else {
		n = read(r->fd, r->data + (r->got - 8), r->len - (r->got - 8));
		if (n > 0)
			r->got += (size_t)n;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	return r->got >= 8 && r->got == 8 + (size_t)r->len;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	reader_t *r = arg;
	int rc = reader_fill(r);

	(void)fd, (void)what;
	if (rc == 0)
		return;
	if (rc > 0) {
		rc = take_report(r->uid, r->data, r->len);
		r->data = NULL; /* take_report took it */
	}
	if (rc < 0)
		plug_error("endpoints: a bad report through slurmd: dropped");
	reader_free(r);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	int fd = accept4((int)lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct ucred cr;
	socklen_t len = sizeof(cr);
	reader_t *r;

	(void)what, (void)arg;
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    (cr.uid != 0 && cr.uid != plug_slurm_user()) || boot.nreaders >= BOOT_MAX_READERS ||
	    !(r = calloc(1, sizeof(*r)))) {
		close(fd);
		return;
	}
	r->fd = fd;
	r->ev = event_new(boot.base, fd, EV_READ | EV_PERSIST, on_read, r);
	if (!r->ev || event_add(r->ev, NULL) < 0) {
		if (r->ev)
			event_free(r->ev);
		free(r);
		close(fd);
		return;
	}
	r->next = boot.readers;
	boot.readers = r;
	boot.nreaders++;
}

/* ---- life cycle --------------------------------------------------------- */

static int bind_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	unlink(boot.path);
	strcpy(sa.sun_path, boot.path);
	boot.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (boot.lfd < 0 || bind(boot.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(boot.path, 0600) < 0 || listen(boot.lfd, 128) < 0)
		return plug_error("endpoints: cannot listen on %s: %m", boot.path), -1;
	return 0;
}

static void boot_go(void *arg);
static void boot_stop(void *arg);

int plug_boot_start(const plug_boot_args_t *a)
{
	const char *spool = plug_slurm_spooldir();
	plug_net_user_t user = { .name = "endpoints", .start = boot_go, .stop = boot_stop };

	boot.a = *a;
	snprintf(boot.key, sizeof(boot.key), "%s", a->key);
	boot.a.key = boot.key;
	boot.base = plug_net_base(a->net);
	boot.parent = PLUG_TREE_NONE;
	atomic_store(&boot.stop, 0);
	if (!spool || !*spool ||
	    asprintf(&boot.raw, "%s/slurmix.%u.%u", spool, a->job, a->step) < 0 ||
	    expand(boot.raw, a->hosts[a->me], boot.path, sizeof(boot.path)) < 0)
		return plug_error("endpoints: no usable SlurmdSpoolDir socket path"), -1;
	if (!(boot.kids = calloc(a->width ? a->width : 1, sizeof(uint32_t))) ||
	    !(boot.kid_done = calloc(a->width ? a->width : 1, 1)) ||
	    !(boot.addr = calloc(a->nnodes, sizeof(char *))) ||
	    !(boot.port = calloc(a->nnodes, sizeof(uint32_t))) ||
	    plug_tree_node(a->me, a->nnodes, a->width, &boot.parent, boot.kids, &boot.nkids) < 0 ||
	    add_record(a->me, a->addr, a->port) < 0)
		return plug_error("endpoints: out of memory"), -1;
	if (plug_net_register(a->net, &user) < 0)
		return plug_error("endpoints: cannot register with the network"), -1;
	return bind_socket();
}

/* The network is up: start listening; a leaf reports at once. */
static void boot_go(void *arg)
{
	(void)arg;
	boot.lev = event_new(boot.base, boot.lfd, EV_READ | EV_PERSIST, on_accept, NULL);
	if (!boot.lev || event_add(boot.lev, NULL) < 0) {
		plug_net_table_failed(boot.a.net, "cannot watch the endpoints socket");
		return;
	}
	if (boot.nkids == 0)
		subtree_done();
}

/* The network stops: close the socket and the forwarders' connections. */
static void boot_stop(void *arg)
{
	(void)arg;
	atomic_store(&boot.stop, 1);
	while (boot.readers)
		reader_free(boot.readers);
	if (boot.lev)
		event_free(boot.lev);
	boot.lev = NULL;
}

void plug_boot_join(void)
{
	atomic_store(&boot.stop, 1);
	if (boot.thr_on)
		pthread_join(boot.thr, NULL);
	if (boot.lfd >= 0) {
		close(boot.lfd);
		unlink(boot.path);
	}
	for (uint32_t i = 0; boot.addr && i < boot.a.nnodes; i++)
		free(boot.addr[i]);
	free(boot.addr);
	free(boot.port);
	pxc_buf_clear(&boot.out);
	free(boot.raw);
	free(boot.kids);
	free(boot.kid_done);
	memset(&boot, 0, sizeof(boot));
	boot.lfd = -1;
}
