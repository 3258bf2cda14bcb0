/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/log.c - see stepd/log.h; docs/log.md has the rules.
 *
 * The caller's own stream: the step daemon takes a copy of the task's own
 * fd 1 or 2 (the source: PMIX_LOG_SOURCE of this step, or the caller,
 * running on this node) and writes the message there, as if the task had
 * written it: through the capture pipe when slurmix captures
 * (stepd/capture.c), else into the pipe, socket or terminal Slurm gave
 * the task. Only a pipe (the capture's, Slurm's; see to_stream): a file
 * (srun --output without capture), terminal (--pty) or socket is
 * PMIX_ERR_NOT_SUPPORTED. It never waits: a pipe that cannot take the
 * message at once (srun not reading) fails the channel with
 * PMIX_ERR_RESOURCE_BUSY. The text
 * loses its trailing NULs (OpenPMIx's clients send them) and gains a
 * newline when it has none. PMIX_LOG_TAG_OUTPUT, _TIMESTAMP_OUTPUT and
 * _XML_OUTPUT format it as IO forwarding does (iof/format.h), stamped with
 * PMIX_LOG_TIMESTAMP when given (PMIX_LOG_GENERATE_TIMESTAMP: now).
 *
 * Channels go in order; PMIX_LOG_ONCE stops at the first that worked. The
 * answer: success when every channel tried worked (with ONCE: one), else
 * the first error. srun's channels (PMIX_LOG_AGG, _GLOBAL_SYSLOG) answer
 * once srun took them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h> /* LOG_ priorities */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#include "pxc_host.h"
#include "common/agent_client.h"
#include "lib/proto.h"
#include "net/ctx.h"
#include "lib/util.h"
#include "stepd/reap.h"
#include "stepd/log.h"
#include "slurm_adapter.h"

#define LOG_MAX_BYTES 65536 /* one message */

typedef struct {
	pmix_proc_t src;    /* whose stream: PMIX_LOG_SOURCE of this step, or the caller */
	pmix_proc_t caller; /* whom syslog and the job record name */
	bool once, agg;
	sx_iof_fmt_t fmt;
	int64_t stamp_ms; /* 0: now, if stamped */
	int pri;          /* syslog priority */
	const char *key, *val;
} opts_t;

/* A call with requests to srun still out. */
typedef struct {
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
	uint32_t waiting;
	pmix_status_t st;
	bool once; /* PMIX_LOG_ONCE: srun's success clears earlier errors */
} call_t;

static const char *str_of(const pmix_info_t *i)
{
	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static void parse(opts_t *o, const pmix_proc_t *client, const pmix_info_t *d, size_t n)
{
	const pmix_info_t *i;

	memset(o, 0, sizeof(*o));
	o->src = o->caller = *client;
	o->pri = LOG_ERR;
	o->once = pxc_info_flag(d, n, PMIX_LOG_ONCE);
	o->agg = pxc_info_flag(d, n, PMIX_LOG_AGG);
	o->fmt.tag = pxc_info_flag(d, n, PMIX_LOG_TAG_OUTPUT);
	o->fmt.timestamp = pxc_info_flag(d, n, PMIX_LOG_TIMESTAMP_OUTPUT) ||
			   pxc_info_flag(d, n, PMIX_LOG_GENERATE_TIMESTAMP);
	o->fmt.xml = pxc_info_flag(d, n, PMIX_LOG_XML_OUTPUT);
	if ((i = pxc_info_find(d, n, PMIX_LOG_TIMESTAMP)) && i->value.type == PMIX_TIME) {
		o->stamp_ms = (int64_t)i->value.data.time * 1000;
		o->fmt.timestamp = true;
	}
	if ((i = pxc_info_find(d, n, PMIX_LOG_SYSLOG_PRI)) && i->value.type == PMIX_INT &&
	    i->value.data.integer >= LOG_EMERG && i->value.data.integer <= LOG_DEBUG)
		o->pri = i->value.data.integer;
	/* another task's stream only of this step (a rank writes into its
	 * peers' output, as a tool of the step may; nothing outside it) */
	if ((i = pxc_info_find(d, n, PMIX_LOG_SOURCE)) && i->value.type == PMIX_PROC &&
	    i->value.data.proc && !strcmp(i->value.data.proc->nspace, plug_net_ctx.nspace))
		o->src = *i->value.data.proc;
	o->key = str_of(pxc_info_find(d, n, PMIX_LOG_KEY));
	o->val = str_of(pxc_info_find(d, n, PMIX_LOG_VAL));
}

/* The message of a channel item: its string without trailing NULs,
 * malloc()ed with a newline; NULL (and *st) when it is not a string. */
static char *message(const pmix_info_t *i, pmix_status_t *st)
{
	const char *s = str_of(i);
	size_t n;
	char *m;

	if (!s) {
		*st = PMIX_ERR_BAD_PARAM;
		return NULL;
	}
	n = strnlen(s, LOG_MAX_BYTES + 1);
	if (n > LOG_MAX_BYTES) {
		*st = PMIX_ERR_BAD_PARAM;
		return NULL;
	}
	if (!(m = malloc(n + 2))) {
		*st = PMIX_ERR_NOMEM;
		return NULL;
	}
	memcpy(m, s, n);
	if (!n || m[n - 1] != '\n')
		m[n++] = '\n';
	m[n] = '\0';
	return m;
}

static void call_end(call_t *c);

/* A channel answered later (by srun) ended with st. */
static void part_end(call_t *c, pmix_status_t st)
{
	if (st == PMIX_SUCCESS && c->once)
		c->st = PMIX_SUCCESS;
	else if (st != PMIX_SUCCESS && c->st == PMIX_SUCCESS)
		c->st = st;
	if (--c->waiting == 0)
		call_end(c);
}

/* Into task src's own fd (1 or 2) on this node, when that is a pipe (the
 * capture's, or Slurm's): found through a copy of the task's own
 * descriptor (pidfd_getfd on the task's pidfd, stepd/reap.c), written
 * through a private non-blocking open of that pipe. Only pipes: a write
 * into a pipe means the same whoever makes it, while a file, socket or
 * device may treat root's write otherwise than the task's (quotas, proc
 * files, credentials passed on a socket), and may wait. */
static pmix_status_t to_stream(const opts_t *o, int fd, const char *msg)
{
	int pfd = strcmp(o->src.nspace, plug_net_ctx.nspace) ? -1 : plug_reap_pidfd(o->src.rank);
	sx_iof_buf_t out = { 0 }, resid = { 0 };
	const char *b = msg;
	size_t n = strlen(msg);
	pmix_status_t st;
	struct stat sb;
	int f, mode;

	if (pfd < 0)
		return PMIX_ERR_NOT_FOUND; /* not a running task of this node */
	if ((f = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0)) < 0)
		return errno == ENOSYS || errno == EPERM ? PMIX_ERR_NOT_SUPPORTED :
							   PMIX_ERR_NOT_FOUND;
	mode = fcntl(f, F_GETFL);
	if (fstat(f, &sb) < 0 || !S_ISFIFO(sb.st_mode) || mode < 0 ||
	    ((mode & O_ACCMODE) != O_WRONLY && (mode & O_ACCMODE) != O_RDWR)) {
		close(f);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (sx_iof_fmt_any(&o->fmt)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		if (sx_iof_format(&o->fmt, &resid, &o->src,
				  fd == 1 ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL, msg,
				  n, true,
				  o->stamp_ms ? o->stamp_ms :
						(int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
				  &out) < 0) {
			close(f);
			sx_iof_buf_free(&out);
			sx_iof_buf_free(&resid);
			return PMIX_ERR_NOMEM;
		}
		b = sx_iof_buf_data(&out);
		n = sx_iof_buf_size(&out);
	}
	switch (plug_write_nowait(f, b, n)) {
	case 0: st = PMIX_SUCCESS; break;
	case -EAGAIN: st = PMIX_ERR_RESOURCE_BUSY; break;
	case -EPIPE: /* the write failed */
	case -EIO: st = PMIX_ERROR; break;
	default: st = PMIX_ERR_NOT_SUPPORTED; /* the pipe cannot be opened so */
	}
	close(f);
	sx_iof_buf_free(&out);
	sx_iof_buf_free(&resid);
	return st;
}

/* ---- srun's channels ---------------------------------------------------- */

static void call_end(call_t *c)
{
	c->cbfunc(c->st, c->cbdata);
	free(c);
}

static void srun_answer(pmix_status_t st, pmix_data_buffer_t *reply, void *arg)
{
	call_t *c = arg;

	(void)reply;
	part_end(c, st);
}

static pmix_status_t to_srun(call_t *c, const opts_t *o, const char *channel, const char *msg)
{
	pmix_data_buffer_t b;
	int32_t pri = o->pri;
	int rc = -1;

	pxc_buf_init(&b);
	if (pxc_pack_proc(&b, &o->caller) == PMIX_SUCCESS &&
	    pxc_pack_str(&b, channel) == PMIX_SUCCESS &&
	    pxc_pack(&b, &pri, 1, PMIX_INT32) == PMIX_SUCCESS &&
	    pxc_pack_str(&b, o->agg && o->key ? o->key : "") == PMIX_SUCCESS &&
	    pxc_pack_str(&b, o->agg && o->val ? o->val : "") == PMIX_SUCCESS &&
	    pxc_pack_str(&b, msg) == PMIX_SUCCESS)
		rc = plug_agent_request(PLUG_NET_LOG, &b, 0, srun_answer, c);
	pxc_buf_clear(&b);
	if (rc < 0)
		return PMIX_ERR_UNREACH;
	c->waiting++;
	return PMIX_SUCCESS;
}

/* ---- the module's log --------------------------------------------------- */

/* One channel. Returns its status; *later: srun answers it. */
static pmix_status_t channel(call_t *c, const opts_t *o, const pmix_info_t *i, bool *later)
{
	pmix_status_t st = PMIX_SUCCESS;
	bool out = PMIx_Check_key(i->key, PMIX_LOG_STDOUT);
	char *msg = NULL;

	*later = false;
	if (out || PMIx_Check_key(i->key, PMIX_LOG_STDERR)) {
		if (!(msg = message(i, &st)))
			return st;
		if (o->agg && o->key && o->val) {
			st = to_srun(c, o, out ? "stdout" : "stderr", msg);
			*later = st == PMIX_SUCCESS;
		} else {
			st = to_stream(o, out ? 1 : 2, msg);
		}
	} else if (PMIx_Check_key(i->key, PMIX_LOG_SYSLOG) ||
		   PMIx_Check_key(i->key, PMIX_LOG_LOCAL_SYSLOG)) {
		if ((msg = message(i, &st)))
			plug_syslog_proc(o->pri, o->caller.nspace, o->caller.rank, msg);
	} else if (PMIx_Check_key(i->key, PMIX_LOG_GLOBAL_SYSLOG)) {
		if ((msg = message(i, &st)) && (st = to_srun(c, o, "syslog", msg)) == PMIX_SUCCESS)
			*later = true;
	} else if (PMIx_Check_key(i->key, PMIX_LOG_JOB_RECORD)) {
		if ((msg = message(i, &st)))
			plug_log(PLUG_LOG_INFO, "mpi/slurmix: job record of %s:%u: %.*s",
				 o->caller.nspace, o->caller.rank, (int)strcspn(msg, "\n"), msg);
	} else {
		st = PMIX_ERR_NOT_SUPPORTED; /* PMIX_LOG_EMAIL, unknown channels */
	}
	free(msg);
	return st;
}

void plug_log_host(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
		   const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
		   void *cbdata)
{
	call_t *c = calloc(1, sizeof(*c));
	bool later, any = false;
	opts_t o;

	if (!c) {
		cbfunc(PMIX_ERR_NOMEM, cbdata);
		return;
	}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	c->waiting = 1; /* this call's own */
	parse(&o, client, directives, ndirs);
	c->once = o.once;
	for (size_t i = 0; i < ndata; i++) {
		pmix_status_t st = channel(c, &o, &data[i], &later);

		if (st != PMIX_SUCCESS) {
			if (c->st == PMIX_SUCCESS)
				c->st = st;
			continue;
		}
		any = any || !later;
		if (o.once)
			break; /* taken (srun's answer decides for its channels) */
	}
	if (o.once && any)
		c->st = PMIX_SUCCESS;
	if (!ndata)
		c->st = PMIX_ERR_BAD_PARAM;
	if (--c->waiting == 0)
		call_end(c);
}
