/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_in.c - PMIx_IOF_push under slurmix-run (see sxr_in.h).
 *
 * The host callback copies the targets and the bytes into a request for
 * the main thread, which queues one item per target task, all sharing
 * the bytes. The main loop writes them into the tasks' pipes (which are
 * non-blocking on our side) as far as they take them, in order; a push
 * is answered once every target has its bytes, or refused them: so the
 * next one waits for a slow reader. A push marked complete closes the
 * pipe after its bytes: the task reads its end of file.
 */
#include "sxr.h"
#include "sxr_host.h"
#include "sxr_in.h"
#include "sxr_req.h"
#include "sxr_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One push: its bytes, shared by its items, and how its targets went. */
struct sxr_push {
	char *data;
	size_t n;
	int complete;
	int left, ok, all;
	pmix_status_t err, err_all; /* named targets' first error, WILDCARD's */
	pmix_op_cbfunc_t cb;
	void *cbdata;
};

struct sxr_pitem {
	struct sxr_pitem *next;
	struct sxr_push *p;
	size_t off;
};

static bool push_mode;

int sxr_in_init(void)
{
	const char *v = getenv("SLURMIX_STDIN");

	if (v && *v && strcmp(v, "srun") && strcmp(v, "push")) {
		sxr_msg("SLURMIX_STDIN=%s: not push or srun", v);
		return -1;
	}
	push_mode = v && !strcmp(v, "push");
	return 0;
}

void sxr_in_prepare(struct sxr_task *t, int *child)
{
	int fds[2];

	*child = -1;
	t->in_fd = -1;
	if (!push_mode || pipe2(fds, O_CLOEXEC) < 0)
		return;
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	t->in_fd = fds[1];
	*child = fds[0];
}

void sxr_in_forked(struct sxr_task *t, int child, bool failed)
{
	if (child >= 0)
		close(child);
	if (failed && t->in_fd >= 0) {
		close(t->in_fd);
		t->in_fd = -1;
	}
}

int sxr_in_pollfds(struct sxr *s, struct pollfd *pfd, int max)
{
	int n = 0;

	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			if (j->tasks[r].in_fd >= 0 && j->tasks[r].in_head && n < max)
				pfd[n++] = (struct pollfd){ .fd = j->tasks[r].in_fd,
							    .events = POLLOUT };
	return n;
}

static void finish(struct sxr_push *p);

/* One target of p ended with st; the last answers p. */
static void part_done(struct sxr_push *p, bool all, pmix_status_t st)
{
	if (st == PMIX_SUCCESS)
		p->ok++;
	else if (all && p->err_all == PMIX_SUCCESS)
		p->err_all = st;
	else if (!all && p->err == PMIX_SUCCESS)
		p->err = st;
	finish(p);
}

/* One part of p less; the last answers p. */
static void finish(struct sxr_push *p)
{
	pmix_status_t st;

	if (--p->left)
		return;
	st = p->err != PMIX_SUCCESS ? p->err : p->all && !p->ok ? p->err_all : PMIX_SUCCESS;
	if (p->cb)
		p->cb(st, p->cbdata);
	free(p->data);
	free(p);
}

/* t's stdin is over: its pipe closed, what waits ends with st. */
static void in_end(struct sxr_task *t, pmix_status_t st)
{
	if (t->in_fd >= 0) {
		close(t->in_fd);
		t->in_ended = true;
	}
	t->in_fd = -1;
	while (t->in_head) {
		struct sxr_pitem *it = t->in_head;

		t->in_head = it->next;
		part_done(it->p, it->p->all, st);
		free(it);
	}
	t->in_tail = NULL;
}

void sxr_in_close(struct sxr_task *t)
{
	in_end(t, PMIX_ERR_IOF_COMPLETE);
}

static void flush_task(struct sxr_task *t)
{
	while (t->in_fd >= 0 && t->in_head) {
		struct sxr_pitem *it = t->in_head;
		struct sxr_push *p = it->p;
		ssize_t w = p->n > it->off ? write(t->in_fd, p->data + it->off, p->n - it->off) : 0;

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w < 0) { /* the task closed its stdin (EPIPE) */
			in_end(t, PMIX_ERR_IOF_COMPLETE);
			return;
		}
		it->off += (size_t)w;
		if (it->off < p->n)
			continue;
		if (!(t->in_head = it->next))
			t->in_tail = NULL;
		free(it);
		if (p->complete) { /* its end: after this push's bytes */
			part_done(p, p->all, PMIX_SUCCESS);
			in_end(t, PMIX_ERR_IOF_COMPLETE);
			return;
		}
		part_done(p, p->all, PMIX_SUCCESS);
	}
}

void sxr_in_run(struct sxr *s)
{
	for (struct sxr_job *j = s->jobs; j; j = j->next)
		for (uint32_t r = 0; r < j->size; r++)
			flush_task(&j->tasks[r]);
}

/* Queues p for t (or refuses it). */
static void enqueue(struct sxr_push *p, struct sxr_task *t, bool all)
{
	struct sxr_pitem *it;

	p->left++;
	if (t->in_fd < 0 || !(it = calloc(1, sizeof(*it)))) {
		part_done(p, all,
			  t->in_fd >= 0 ? PMIX_ERR_NOMEM :
			  t->in_ended   ? PMIX_ERR_IOF_COMPLETE :
					  PMIX_ERR_NOT_SUPPORTED);
		return;
	}
	it->p = p;
	if (t->in_tail)
		t->in_tail->next = it;
	else
		t->in_head = it;
	t->in_tail = it;
}

/* Main thread: the request's targets get their items. */
static void run_push(struct sxr *s, struct sxr_work *w)
{
	struct sxr_req *r = (struct sxr_req *)w;
	struct sxr_push *p = calloc(1, sizeof(*p));

	if (!p) {
		r->cb.op(PMIX_ERR_NOMEM, r->cbdata);
		sxr_req_free(r);
		return;
	}
	*p = (struct sxr_push){ .data = r->data,
				.n = r->ndata,
				.complete = r->status,
				.left = 1,
				.cb = r->cb.op,
				.cbdata = r->cbdata };
	r->data = NULL;
	for (size_t i = 0; i < r->nprocs; i++) {
		struct sxr_job *j = sxr_find_job(s, r->procs[i].nspace);
		bool all = r->procs[i].rank == PMIX_RANK_WILDCARD;

		p->all |= all;
		if (!j || (!all && r->procs[i].rank >= j->size)) {
			p->left++;
			part_done(p, false, j ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_FOUND);
			continue;
		}
		for (uint32_t k = all ? 0 : r->procs[i].rank;
		     k < (all ? j->size : r->procs[i].rank + 1); k++)
			enqueue(p, &j->tasks[k], all);
	}
	sxr_req_free(r);
	finish(p); /* this call's own part */
	sxr_in_run(s);
}

pmix_status_t sxr_host_push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
				  size_t ntargets, const pmix_info_t directives[], size_t ndirs,
				  const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	struct sxr_req *r = sxr_req_new(run_push, source);
	int rc;

	if (!r)
		return PMIX_ERR_NOMEM;
	r->status = !bo || !bo->size;
	for (size_t i = 0; i < ndirs; i++)
		if (PMIx_Check_key(directives[i].key, PMIX_IOF_COMPLETE) &&
		    PMIx_Info_true(&directives[i]) == PMIX_BOOL_TRUE)
			r->status = 1;
	r->cb.op = cbfunc;
	r->cbdata = cbdata;
	rc = sxr_copy_procs(r, targets, ntargets);
	if (!rc && bo && bo->size) {
		if ((r->data = malloc(bo->size))) {
			memcpy(r->data, bo->bytes, bo->size);
			r->ndata = bo->size;
		} else {
			rc = -1;
		}
	}
	return sxr_req_post_checked(r, rc);
}
