/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/agent_client.c - the stepd side of the requests to srun (net/transport.h,
 * docs/dynamic.md section 2): each request opens its own TCP connection
 * to srun's agent, sends (cmd, tag, key + payload), waits for one
 * PLUG_NET_REPLY and closes. A single timer per request covers the
 * connect and the answer; a closed connection or a refused connect is
 * PMIX_ERR_UNREACH. The callback always runs from the event loop, never
 * from inside plug_agent_request.
 *
 * Threads: plug_agent_client_init in prefork (job manager thread) before the
 * server can call its module; everything else in the progress thread;
 * plug_agent_client_stop posts the failing of what is pending there and waits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "common/conf.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "slurm_adapter.h"

typedef struct rq {
	struct rq *next;
	int fd;
	struct event *conn_ev; /* connect */
	struct event *timer;
	pxc_conn_t *conn;
	uint16_t cmd;
	uint32_t tag;
	pmix_data_buffer_t msg;
	plug_agent_cb_f cb;
	void *cbdata;
} rq_t;

static struct {
	char key[PLUG_KEY_LEN + 1];
	char host[256];
	char port[8];
	int ready;
	uint32_t last_tag;
	rq_t *rqs;
} requests;

int plug_agent_client_init(char **env)
{
	const char *key = plug_env_get(env, PLUG_KEY_ENV);
	const char *port = plug_env_get(env, PLUG_SRUN_PORT_ENV);
	const char *host = plug_env_get(env, "SLURM_SRUN_COMM_HOST");
	uint32_t p;

	requests.ready = 0;
	if (!host)
		host = plug_env_get(env, "SLURM_LAUNCH_NODE_IPADDR");
	if (!key || strlen(key) != PLUG_KEY_LEN || !port ||
	    plug_parse_u32(port, 1, 65535, &p) < 0 || !host ||
	    strlen(host) >= sizeof(requests.host))
		return -1;
	strcpy(requests.key, key);
	strcpy(requests.host, host);
	snprintf(requests.port, sizeof(requests.port), "%u", p);
	requests.ready = 1;
	return 0;
}

/* Frees what a request holds but the record itself. */
static void rq_release(rq_t *r)
{
	if (r->conn_ev)
		event_free(r->conn_ev);
	if (r->timer)
		event_free(r->timer);
	if (r->fd >= 0)
		close(r->fd);
	pxc_conn_close(r->conn, 0);
	pxc_buf_clear(&r->msg);
}

static void rq_done(rq_t *r, pmix_status_t st, pmix_data_buffer_t *reply)
{
	for (rq_t **p = &requests.rqs; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	rq_release(r);
	r->cb(st, st == PMIX_SUCCESS ? reply : NULL, r->cbdata);
	free(r);
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	rq_t *r = arg;
	pmix_status_t st;

	(void)c;
	if (h->cmd != PLUG_NET_REPLY || h->tag != r->tag ||
	    pxc_unpack_status(in, &st) != PMIX_SUCCESS) {
		plug_error("bad answer from srun to request %u", r->cmd);
		st = PMIX_ERR_UNPACK_FAILURE;
	}
	rq_done(r, st, in);
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	rq_t *r = arg;

	(void)err;
	pxc_conn_close(c, 0);
	r->conn = NULL;
	rq_done(r, PMIX_ERR_UNREACH, NULL);
}

static void on_timer(int fd, short what, void *arg)
{
	rq_t *r = arg;

	(void)fd, (void)what;
	plug_error("request %u to srun: no answer in time", r->cmd);
	rq_done(r, PMIX_ERR_TIMEOUT, NULL);
}

static void on_connect(int fd, short what, void *arg)
{
	struct event_base *base = pxc_progress_base(pxc_progress_global());
	rq_t *r = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)what;
	event_free(r->conn_ev);
	r->conn_ev = NULL;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
		return rq_done(r, PMIX_ERR_UNREACH, NULL);
	r->fd = -1; /* the connection owns it now */
	r->conn = pxc_conn_new(base, fd, 64u << 20, on_msg, on_close, r);
	if (!r->conn || pxc_conn_send(r->conn, r->cmd, r->tag, 0, &r->msg) < 0)
		rq_done(r, PMIX_ERR_UNREACH, NULL);
}

/* Non-blocking connect to srun's agent. 0/-1. */
static int start_connect(rq_t *r)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct event_base *base = pxc_progress_base(pxc_progress_global());
	int rc = -1;

	if (!base || getaddrinfo(requests.host, requests.port, &hints, &ai) != 0)
		return -1;
	r->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->fd >= 0 &&
	    (connect(r->fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS)) {
		r->conn_ev = event_new(base, r->fd, EV_WRITE, on_connect, r);
		rc = r->conn_ev && event_add(r->conn_ev, NULL) == 0 ? 0 : -1;
	}
	freeaddrinfo(ai);
	return rc;
}

static int pack_msg(rq_t *r, const pmix_data_buffer_t *payload)
{
	pxc_buf_init(&r->msg);
	if (pxc_pack_str(&r->msg, requests.key) != PMIX_SUCCESS)
		return -1;
	if (payload && payload->bytes_used &&
	    pxc_buf_append(&r->msg, payload->base_ptr, payload->bytes_used) < 0)
		return -1;
	return 0;
}

int plug_agent_request(uint16_t cmd, const pmix_data_buffer_t *payload, uint32_t timeout_sec,
		       plug_agent_cb_f cb, void *cbdata)
{
	struct event_base *base = pxc_progress_base(pxc_progress_global());
	struct timeval tv = { timeout_sec ? timeout_sec : plug_conf.timeout, 0 };
	rq_t *r;

	if (!requests.ready || !base || !cb || !(r = calloc(1, sizeof(*r))))
		return -1;
	r->fd = -1;
	r->cmd = cmd;
	r->tag = ++requests.last_tag ? requests.last_tag : ++requests.last_tag;
	r->cb = cb;
	r->cbdata = cbdata;
	r->timer = evtimer_new(base, on_timer, r);
	if (!r->timer || evtimer_add(r->timer, &tv) < 0 || pack_msg(r, payload) < 0 ||
	    start_connect(r) < 0) {
		rq_release(r);
		free(r);
		return -1;
	}
	r->next = requests.rqs;
	requests.rqs = r;
	return 0;
}

static void stop_fn(void *arg)
{
	while (requests.rqs)
		rq_done(requests.rqs, PMIX_ERR_UNREACH, NULL);
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

int plug_agent_client_stopping(void)
{
	return !requests.ready;
}

void plug_agent_client_stop(void)
{
	if (requests.ready) {
		requests.ready = 0;
		pxc_progress_call(pxc_progress_global(), stop_fn, 10000);
	}
}
