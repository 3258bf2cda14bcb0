/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/agent.c - the agent in srun (see net/transport.h): srun listens on an
 * ephemeral TCP port and puts it, with the job key, in the launch
 * environment. The step daemons learn each other's endpoints among
 * themselves (net/boot.h); the root's daemon then sends srun the whole
 * table (STEPTABLE: key, table), which srun writes to the step file for
 * the job's other steps. A table with a bad key or the wrong number of
 * nodes is dropped with a log line.
 *
 * Abort agent: the listener stays open until client_fini. A stepd whose
 * client called PMIx_Abort opens a new connection and sends ABORT (key,
 * node, rank, status, host, message); srun prints the first one on its
 * stderr through Slurm's log (later ones only with srun -v), keeps its
 * status for client_fini (srun's
 * exit code), answers ABORT_ACK and kills the step with SIGKILL through
 * slurmctld (a blocking RPC, in this thread, which serves nothing else).
 * Later reports are logged and acknowledged only. Used for one-node steps
 * too (no endpoint table then).
 *
 * Job directory and requests (docs/dynamic.md sections 1-2): the key is
 * the job's (lib/jobdir.c), so stepds of different steps of the job can
 * authenticate each other; once the table is complete srun writes it with
 * the node list and process map to step.<stepid> in the job directory
 * (removed at client_fini). A connection whose first message is a request
 * (PLUG_NET_STEPINFO..PLUG_NET_REQ_LAST) carries one request: the key is
 * checked, the command's handler runs and answers with plug_agent_reply.
 *
 * Threads: mpi_p_client_prelaunch (srun's main thread) starts a progress
 * engine of the core in srun and posts the listener to it; all state below
 * is then owned by that thread; client_fini posts the stop and releases
 * the engine.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/event.h>

#include "pxc_host.h"
#include "lib/endpoints.h"
#include "lib/jobdir.h"
#include "lib/key.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "srun/agent.h"
#include "slurm_adapter.h"

static struct {
	pxc_progress_t *pg;
	struct event_base *base;
	int lfd;
	struct event *lev;
	uint32_t nnodes;
	char key[PLUG_KEY_LEN + 1];
	uint32_t job, step;
	char *nodelist, *map; /* for the step file */
	int step_file;        /* written */
	char root_addr[64];   /* node 0's stepd, from the table */
	uint16_t root_port;
	char new_addr[64]; /* a table's, until it is found good */
	uint16_t new_port;
} agent = { .lfd = -1 };

struct plug_agent_req {
	pxc_conn_t *conn; /* NULL once the requester left */
	uint32_t tag;
};

#define AGENT_NCMD (PLUG_NET_REQ_LAST - PLUG_NET_STEPINFO + 1)
static plug_agent_handler_f handlers[AGENT_NCMD];
static plug_agent_stop_f stoppers[AGENT_NCMD];
static plug_agent_message_f messages[PLUG_NET_STEPINFO]; /* other kinds */
#define AGENT_NHOOKS 4
static plug_agent_table_f table_hooks[AGENT_NHOOKS];
static plug_agent_stop_f stop_hooks[AGENT_NHOOKS];

/* step.<stepid>: nspace, node list, map, then the table as sent. */
static void write_step_file(const pmix_data_buffer_t *table)
{
	pmix_data_buffer_t f;
	char name[32], ns[64];

	if (!plug_jobdir_path())
		return;
	snprintf(name, sizeof(name), "step.%u", agent.step);
	snprintf(ns, sizeof(ns), "slurmix.%u.%u", agent.job, agent.step);
	pxc_buf_init(&f);
	if (pxc_pack_str(&f, ns) == PMIX_SUCCESS &&
	    pxc_pack_str(&f, agent.nodelist) == PMIX_SUCCESS &&
	    pxc_pack_str(&f, agent.map) == PMIX_SUCCESS &&
	    pxc_buf_append(&f, table->base_ptr, table->bytes_used) == 0 &&
	    plug_jobdir_write(name, f.base_ptr, f.bytes_used) == 0)
		agent.step_file = 1;
	else
		plug_error("cannot write %s/%s: %m", plug_jobdir_path(), name);
	pxc_buf_clear(&f);
}

static int take_root(void *arg, uint32_t node, const char *addr, uint16_t port)
{
	(void)arg;
	if (node == 0) {
		snprintf(agent.new_addr, sizeof(agent.new_addr), "%s", addr);
		agent.new_port = port;
	}
	return 0;
}

/* The root daemon's STEPTABLE: key, then n, n x (STRING addr, UINT32
 * port). 0, or -1 (logged). */
static int take_table(pmix_data_buffer_t *in)
{
	pmix_data_buffer_t table = *in, check;
	char *key = NULL;
	int ok = pxc_unpack_str(in, &key) == PMIX_SUCCESS && plug_key_ok(key, agent.key) &&
		 !agent.step_file;

	free(key);
	table.base_ptr = table.unpack_ptr = in->unpack_ptr;
	table.bytes_used = (size_t)(in->base_ptr + in->bytes_used - in->unpack_ptr);
	check = table;
	ok = ok && plug_endpoints_unpack(&check, agent.nnodes, take_root, NULL) == 0;
	if (!ok)
		return plug_error("bad endpoint table from a step daemon: dropped"), -1;
	memcpy(agent.root_addr, agent.new_addr, sizeof(agent.root_addr));
	agent.root_port = agent.new_port;
	write_step_file(&table);
	for (int i = 0; i < AGENT_NHOOKS; i++)
		if (table_hooks[i])
			table_hooks[i]();
	return 0;
}

/* ---- requests ----------------------------------------------------------- */

int plug_agent_register_handler(uint16_t cmd, plug_agent_handler_f fn, plug_agent_stop_f stop)
{
	if (cmd <= PLUG_NET_STEPINFO || cmd == PLUG_NET_STEPLIST || cmd > PLUG_NET_REQ_LAST ||
	    handlers[cmd - PLUG_NET_STEPINFO])
		return -1;
	handlers[cmd - PLUG_NET_STEPINFO] = fn;
	stoppers[cmd - PLUG_NET_STEPINFO] = stop;
	return 0;
}

int plug_agent_register_message(uint16_t cmd, plug_agent_message_f fn)
{
	if (cmd == 0 || cmd >= PLUG_NET_STEPINFO || cmd == PLUG_NET_STEPTABLE || messages[cmd])
		return -1;
	messages[cmd] = fn;
	return 0;
}

int plug_agent_on_table(plug_agent_table_f fn)
{
	for (int i = 0; i < AGENT_NHOOKS; i++)
		if (!table_hooks[i])
			return table_hooks[i] = fn, 0;
	return -1;
}

int plug_agent_on_stop(plug_agent_stop_f fn)
{
	for (int i = 0; i < AGENT_NHOOKS; i++)
		if (!stop_hooks[i])
			return stop_hooks[i] = fn, 0;
	return -1;
}

const char *plug_agent_key(void)
{
	return agent.key;
}

const char *plug_agent_root(uint16_t *port)
{
	*port = agent.root_port;
	return agent.root_port ? agent.root_addr : NULL;
}

int plug_agent_key_ok(const char *key)
{
	return plug_key_ok(key, agent.key);
}

void plug_agent_reply(plug_agent_req_t *req, pmix_status_t st, const pmix_data_buffer_t *payload)
{
	pmix_data_buffer_t b;

	if (!req)
		return;
	pxc_buf_init(&b);
	if (req->conn && pxc_pack_status(&b, st) == PMIX_SUCCESS &&
	    (st != PMIX_SUCCESS || !payload || !payload->bytes_used ||
	     pxc_buf_append(&b, payload->base_ptr, payload->bytes_used) == 0))
		pxc_conn_send(req->conn, PLUG_NET_REPLY, req->tag, PXC_WIRE_F_REPLY, &b);
	pxc_buf_clear(&b);
	if (req->conn) {
		pxc_conn_set_arg(req->conn, NULL);
		pxc_conn_close(req->conn, 1);
	}
	free(req);
}

int plug_agent_req_gone(const plug_agent_req_t *req)
{
	return !req || !req->conn;
}

struct event_base *plug_agent_base(void)
{
	return agent.base;
}

uint32_t plug_agent_job(void)
{
	return agent.job;
}

uint32_t plug_agent_step(void)
{
	return agent.step;
}

uint32_t plug_agent_nnodes(void)
{
	return agent.nnodes;
}

const char *plug_agent_nodelist(void)
{
	return agent.nodelist ? agent.nodelist : "";
}

const char *plug_agent_map(void)
{
	return agent.map ? agent.map : "";
}

void plug_agent_set_step(const char *nodelist, const char *map)
{
	free(agent.nodelist);
	free(agent.map);
	agent.nodelist = strdup(nodelist ? nodelist : "");
	agent.map = strdup(map ? map : "");
}

/* STEPINFO: nspace -> the bytes of its step file. A step of this job
 * that is still starting (its srun writes the file once every stepd has
 * registered) is waited for, polling every 100 ms for up to
 * STEPINFO_WAIT_MS, so that a connect racing the other step's start-up
 * does not fail; the waits end early when the requester goes away and are
 * freed when the agent stops. A step that ended (its srun left
 * "ended.<step>" when it removed its step file) is PMIX_ERR_NOT_FOUND at
 * once: nothing waits 20 s for a step that will not come back. */
#define STEPINFO_POLL_MS 100
#define STEPINFO_WAIT_MS 20000

typedef struct sinfo_wait {
	struct sinfo_wait *next;
	plug_agent_req_t *req;
	struct event *ev;
	char name[32];
	int left_ms;
} sinfo_wait_t;

static sinfo_wait_t *sinfo_waits;

static void sinfo_unlink(sinfo_wait_t *w)
{
	for (sinfo_wait_t **pp = &sinfo_waits; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	if (w->ev)
		event_free(w->ev);
	free(w);
}

/* Whether the step of step file "step.<id>" left its end marker. */
static int step_ended(const char *name)
{
	char ended[40], *data = NULL;
	size_t len = 0;

	snprintf(ended, sizeof(ended), "ended.%s", name + 5);
	if (plug_jobdir_read(ended, 64, &data, &len) < 0)
		return 0;
	free(data);
	return 1;
}

/* Replies with the step file if it is there. 1 when answered. */
static int stepinfo_answer(plug_agent_req_t *req, const char *name, int last)
{
	pmix_data_buffer_t out;
	char *data = NULL;
	size_t len = 0;

	if (plug_jobdir_read(name, 64u << 20, &data, &len) < 0) {
		if (!last && !step_ended(name))
			return 0;
		plug_agent_reply(req, PMIX_ERR_NOT_FOUND, NULL);
		return 1;
	}
	pxc_buf_init(&out);
	pxc_buf_load_take(&out, data, len);
	plug_agent_reply(req, PMIX_SUCCESS, &out);
	pxc_buf_clear(&out);
	return 1;
}

static void stepinfo_poll(evutil_socket_t fd, short what, void *arg)
{
	sinfo_wait_t *w = arg;
	struct timeval tv = { 0, STEPINFO_POLL_MS * 1000 };

	(void)fd, (void)what;
	w->left_ms -= STEPINFO_POLL_MS;
	if (plug_agent_req_gone(w->req)) {
		plug_agent_reply(w->req, PMIX_ERR_UNREACH, NULL); /* frees it */
		sinfo_unlink(w);
	} else if (stepinfo_answer(w->req, w->name, w->left_ms <= 0)) {
		sinfo_unlink(w);
	} else {
		evtimer_add(w->ev, &tv);
	}
}

static void stepinfo_stop(void)
{
	while (sinfo_waits) {
		plug_agent_reply(sinfo_waits->req, PMIX_ERR_UNREACH, NULL);
		sinfo_unlink(sinfo_waits);
	}
}

static void stepinfo(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	char *ns = NULL;
	uint32_t job, step;
	sinfo_wait_t *w;
	struct timeval tv = { 0, STEPINFO_POLL_MS * 1000 };

	if (pxc_unpack_str(in, &ns) != PMIX_SUCCESS || !ns ||
	    plug_nspace_parse(ns, &job, &step) < 0 || job != agent.job) {
		free(ns);
		return plug_agent_reply(req, PMIX_ERR_NOT_FOUND, NULL);
	}
	free(ns);
	if (!(w = calloc(1, sizeof(*w))))
		return plug_agent_reply(req, PMIX_ERR_NOMEM, NULL);
	snprintf(w->name, sizeof(w->name), "step.%u", step);
	w->req = req;
	w->left_ms = STEPINFO_WAIT_MS;
	if (stepinfo_answer(req, w->name, 0)) {
		free(w);
		return;
	}
	w->ev = evtimer_new(agent.base, stepinfo_poll, w);
	w->next = sinfo_waits;
	sinfo_waits = w;
	if (!w->ev || evtimer_add(w->ev, &tv) < 0) {
		plug_agent_reply(req, PMIX_ERR_NOMEM, NULL);
		sinfo_unlink(w);
	}
}

/* STEPLIST: the ids of the job's steps whose step file is there (each
 * srun writes its own once the step's table is in and removes it at its
 * end), at most STEPLIST_MAX. */
#define STEPLIST_MAX 65536

static void steplist(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	uint32_t *ids = malloc(STEPLIST_MAX * sizeof(*ids));
	pmix_data_buffer_t out;
	size_t n = 0;
	pmix_status_t st = ids ? PMIX_SUCCESS : PMIX_ERR_NOMEM;

	(void)in;
	if (st == PMIX_SUCCESS && plug_jobdir_steps(ids, STEPLIST_MAX, &n) < 0)
		st = PMIX_ERR_NOT_FOUND;
	pxc_buf_init(&out);
	if (st == PMIX_SUCCESS && pxc_pack_u32(&out, (uint32_t)n) != PMIX_SUCCESS)
		st = PMIX_ERR_NOMEM;
	for (size_t i = 0; st == PMIX_SUCCESS && i < n; i++)
		if (pxc_pack_u32(&out, ids[i]) != PMIX_SUCCESS)
			st = PMIX_ERR_NOMEM;
	plug_agent_reply(req, st, st == PMIX_SUCCESS ? &out : NULL);
	pxc_buf_clear(&out);
	free(ids);
}

/* A request on a fresh connection. 0, or -1 to drop the connection. */
static int take_request(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	plug_agent_handler_f fn = h->cmd == PLUG_NET_STEPINFO ?
					  stepinfo :
				  h->cmd == PLUG_NET_STEPLIST ?
					  steplist :
					  handlers[h->cmd - PLUG_NET_STEPINFO];
	plug_agent_req_t *req;
	char *key = NULL;
	int ok = pxc_unpack_str(in, &key) == PMIX_SUCCESS && plug_key_ok(key, agent.key);

	free(key);
	if (!ok)
		return plug_error("request %u with a bad key: dropped", h->cmd), -1;
	if (!(req = calloc(1, sizeof(*req))))
		return -1;
	req->conn = c;
	req->tag = h->tag;
	pxc_conn_set_arg(c, req);
	if (fn)
		fn(req, in);
	else
		plug_agent_reply(req, PMIX_ERR_NOT_SUPPORTED, NULL);
	return 0;
}

static void on_msg(pxc_conn_t *c, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in, void *arg)
{
	if (!arg && h->cmd >= PLUG_NET_STEPINFO && h->cmd <= PLUG_NET_REQ_LAST) {
		if (take_request(c, h, in) < 0)
			pxc_conn_close(c, 0);
		return;
	}
	if (arg) { /* a second message on a request */
		((plug_agent_req_t *)arg)->conn = NULL;
		pxc_conn_close(c, 0);
		return;
	}
	if (h->cmd < PLUG_NET_STEPINFO && messages[h->cmd]) {
		if (messages[h->cmd](c, in) < 0)
			pxc_conn_close(c, 0);
		return;
	}
	if (h->cmd == PLUG_NET_STEPTABLE)
		take_table(in);
	else
		plug_error("unexpected message %u on srun's port: dropped", h->cmd);
	pxc_conn_close(c, 0); /* one message per connection */
}

static void on_close(pxc_conn_t *c, int err, void *arg)
{
	(void)err;
	if (arg) /* a request's requester left */
		((plug_agent_req_t *)arg)->conn = NULL;
	pxc_conn_close(c, 0);
}

static void on_accept(int lfd, short what, void *arg)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)what, (void)arg;
	if (fd >= 0 && !pxc_conn_new(agent.base, fd, 1u << 16, on_msg, on_close, NULL))
		plug_error("rendezvous: cannot take a connection: %m");
}

static void start_fn(void *arg)
{
	(void)arg;
	agent.base = pxc_progress_base(agent.pg);
	agent.lev = event_new(agent.base, agent.lfd, EV_READ | EV_PERSIST, on_accept, NULL);
	if (!agent.lev || event_add(agent.lev, NULL) < 0)
		plug_error("rendezvous: cannot listen");
}

_Static_assert(PLUG_KEY_LEN == PLUG_JOBDIR_KEY_LEN, "one key length");

/* The job key from the job directory; without one (a broken base
 * directory) a step-only key: the step works, other steps cannot reach it.
 * Stale job directories are cleaned unless told not to. */
static int make_key(bool clean_stale)
{
	plug_job_alive_f alive = clean_stale ? plug_slurm_job_alive : NULL;

	if (plug_jobdir_open(NULL, agent.job, alive, agent.key) == 0)
		return 0;
	plug_error("no job directory (%m): PMIx_Publish/Lookup, connect and spawn "
		   "across steps will fail");
	return plug_make_key(agent.key);
}

/* Binds fd (family AF_INET6 dual stack, or AF_INET) to port (0: any). */
static int bind_port(int fd, int family, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_ANY_INIT,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };

	return family == AF_INET6 ? bind(fd, (struct sockaddr *)&s6, sizeof(s6)) :
				    bind(fd, (struct sockaddr *)&s4, sizeof(s4));
}

/* The agent's listener: any port, or with SrunPortRange a free one of the
 * range (tried from a random start, as srun's own listeners share it).
 * 0 with *port, or -1 with errno. */
static int listen_any(uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int family = AF_INET6, off = 0, rc = -1;
	uint16_t lo = 0, hi = 0;

	agent.lfd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (agent.lfd >= 0) /* dual stack: IPv4 stepds too */
		setsockopt(agent.lfd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	else if ((agent.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) >= 0)
		family = AF_INET; /* no IPv6 at all */
	if (agent.lfd < 0)
		return -1;
	if (plug_slurm_srun_port_range(&lo, &hi) < 0) {
		rc = bind_port(agent.lfd, family, 0);
	} else {
		uint32_t n = (uint32_t)hi - lo + 1;
		uint32_t start = ((uint32_t)getpid() * 2654435761u ^ (uint32_t)pxc_now_ms()) % n;

		errno = EADDRINUSE;
		for (uint32_t k = 0; rc < 0 && errno == EADDRINUSE && k < n; k++)
			rc = bind_port(agent.lfd, family, (uint16_t)(lo + (start + k) % n));
		if (rc < 0)
			plug_error("rendezvous: no free port in SrunPortRange=%u-%u: %m", lo, hi);
	}
	if (rc < 0 || listen(agent.lfd, 1024) < 0 ||
	    getsockname(agent.lfd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
					   ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

int plug_agent_start(uint32_t nnodes, uint32_t job, uint32_t step, bool clean_stale, char ***env)
{
	uint16_t port = 0;
	char sport[8];

	agent.nnodes = nnodes;
	agent.job = job;
	agent.step = step;
	if (make_key(clean_stale) < 0 || listen_any(&port) < 0)
		return plug_error("rendezvous: cannot listen: %m"), -1;
	if (!(agent.pg = pxc_progress_acquire()))
		return plug_error("rendezvous: no progress thread: %m"), -1;
	if (pxc_progress_post(agent.pg, start_fn, NULL) < 0)
		return -1;
	snprintf(sport, sizeof(sport), "%u", port);
	if (plug_env_set(env, PLUG_KEY_ENV, agent.key) < 0 ||
	    plug_env_set(env, PLUG_SRUN_PORT_ENV, sport) < 0)
		return -1;
	plug_flag("rendezvous for %u nodes on port %u", nnodes, port);
	return 0;
}

static void stop_fn(void *arg)
{
	pxc_sync_t *s = arg;

	if (agent.lev)
		event_free(agent.lev);
	agent.lev = NULL;
	stepinfo_stop();
	for (int i = 0; i < AGENT_NCMD; i++)
		if (stoppers[i])
			stoppers[i]();
	for (int i = 0; i < AGENT_NHOOKS; i++)
		if (stop_hooks[i])
			stop_hooks[i]();
	if (agent.step_file) {
		char name[32];

		snprintf(name, sizeof(name), "step.%u", agent.step);
		plug_jobdir_unlink(name);
		/* for the job's life (it goes with the job directory) */
		snprintf(name, sizeof(name), "ended.%u", agent.step);
		if (plug_jobdir_write(name, "", 0) < 0)
			plug_debug("cannot leave %s in the job directory", name);
	}
	pxc_sync_signal(s, PMIX_SUCCESS);
}

void plug_agent_stop(void)
{
	if (agent.pg && pxc_progress_call(agent.pg, stop_fn, 10000) == PMIX_ERR_TIMEOUT)
		return; /* stuck: leave the engine to it */
	if (agent.pg)
		pxc_progress_release();
	if (agent.lfd >= 0)
		close(agent.lfd);
	free(agent.nodelist);
	free(agent.map);
	plug_jobdir_close();
	memset(&agent, 0, sizeof(agent));
	agent.lfd = -1;
	memset(handlers, 0, sizeof(handlers));
	memset(stoppers, 0, sizeof(stoppers));
	memset(messages, 0, sizeof(messages));
	memset(table_hooks, 0, sizeof(table_hooks));
	memset(stop_hooks, 0, sizeof(stop_hooks));
}
