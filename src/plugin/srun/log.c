/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/log.c - see srun/log.h.
 *
 * Each (channel, key, value) of an aggregated message has an entry: the
 * first message prints at once and starts its timer; messages until the
 * timer fires only count; then the count is printed ("slurmix: N more
 * processes sent this message (KEY VALUE)") and the entry goes, so that a
 * later burst prints anew. At most LOG_AGG_MAX entries: past them a
 * message prints unaggregated. srun's end prints what is still counted.
 * The writes go straight to srun's own descriptors 1 and 2, next to the
 * tasks' output that srun writes there, without ever holding up the
 * agent (put(): what does not go at once is dropped).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h> /* LOG_ priorities */
#include <event2/event.h>
#include <pmix.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "lib/util.h"
#include "srun/agent.h"
#include "srun/log.h"
#include "slurm_adapter.h"

#define LOG_AGG_MAX 1024
#define LOG_MSG_MAX (65536 + 1) /* a step daemon's limit and its newline */

typedef struct agg {
	struct agg *next;
	int fd;
	char *key, *val;
	uint32_t more;
	struct event *timer;
} agg_t;

static agg_t *aggs;
static size_t naggs;

/* Never waits (lib/util.h): what srun's descriptor cannot take at once
 * is dropped. */
static void put(int fd, const char *s)
{
	if (plug_write_nowait(fd, s, strlen(s)) < 0)
		plug_debug("log: a message could not go to srun's fd %d", fd);
}

static void agg_free(agg_t *a)
{
	for (agg_t **p = &aggs; *p; p = &(*p)->next)
		if (*p == a) {
			*p = a->next;
			break;
		}
	if (a->timer)
		event_free(a->timer);
	free(a->key);
	free(a->val);
	free(a);
	naggs--;
}

/* The entry's count, if any, and the entry goes. */
static void agg_flush(agg_t *a)
{
	char line[512];

	if (a->more) {
		snprintf(line, sizeof(line),
			 "slurmix: %u more process%s sent this message (%s %s)\n", a->more,
			 a->more == 1 ? "" : "es", a->key, a->val);
		put(a->fd, line);
	}
	agg_free(a);
}

static void agg_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	agg_flush(arg);
}

/* An aggregated message: printed if it is the first of its kind. */
static void aggregate(int fd, const char *key, const char *val, const char *msg)
{
	struct timeval tv = { PLUG_LOG_AGG_MS / 1000, (PLUG_LOG_AGG_MS % 1000) * 1000 };
	agg_t *a;

	for (a = aggs; a; a = a->next)
		if (a->fd == fd && !strcmp(a->key, key) && !strcmp(a->val, val)) {
			a->more++;
			return;
		}
	put(fd, msg);
	if (naggs >= LOG_AGG_MAX || !(a = calloc(1, sizeof(*a))))
		return;
	a->fd = fd;
	a->key = strdup(key);
	a->val = strdup(val);
	a->timer = evtimer_new(plug_agent_base(), agg_timer, a);
	a->next = aggs;
	aggs = a;
	naggs++;
	if (!a->key || !a->val || !a->timer || evtimer_add(a->timer, &tv) < 0)
		agg_free(a);
}

static void on_log(plug_agent_req_t *req, pmix_data_buffer_t *in)
{
	char *channel = NULL, *key = NULL, *val = NULL, *msg = NULL;
	int32_t pri = 0, n = 1;
	pmix_proc_t src;
	pmix_status_t st = PMIX_SUCCESS;

	if (pxc_unpack_proc(in, &src) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &channel) != PMIX_SUCCESS || !channel ||
	    pxc_unpack(in, &pri, &n, PMIX_INT32) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &key) != PMIX_SUCCESS || pxc_unpack_str(in, &val) != PMIX_SUCCESS ||
	    pxc_unpack_str(in, &msg) != PMIX_SUCCESS || !msg || strlen(msg) > LOG_MSG_MAX ||
	    pri < LOG_EMERG || pri > LOG_DEBUG) {
		plug_error("malformed log request from a step daemon: refused");
		st = PMIX_ERR_BAD_PARAM;
	} else if (!strcmp(channel, "syslog")) {
		plug_syslog_proc(pri, src.nspace, src.rank, msg);
	} else if (!strcmp(channel, "stdout") || !strcmp(channel, "stderr")) {
		int fd = channel[3] == 'o' ? 1 : 2;

		if (key && *key && val)
			aggregate(fd, key, val, msg);
		else
			put(fd, msg);
	} else {
		st = PMIX_ERR_NOT_SUPPORTED;
	}
	plug_agent_reply(req, st, NULL);
	free(channel);
	free(key);
	free(val);
	free(msg);
}

/* srun's end: the counts still open are printed. */
static void on_stop(void)
{
	while (aggs)
		agg_flush(aggs);
}

void plug_log_srun_init(void)
{
	if (plug_agent_register_handler(PLUG_NET_LOG, on_log, on_stop) < 0)
		plug_error("log: cannot register its request");
}
