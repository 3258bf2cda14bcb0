/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/cred.c - see stepd/cred.h.
 *
 * Payload of a credential: "slurmix-cred 1 <uid> <gid> <nspace> <rank>".
 * Validation answers PMIX_USERID, PMIX_GRPID, PMIX_CRED_TYPE "munge" and
 * refuses:
 *   - what MUNGE refuses (tampered, made with another key, malformed, or
 *     expired): PMIX_ERR_INVALID_CRED;
 *   - a credential not made by root (a step daemon), or whose payload is
 *     not ours: PMIX_ERR_INVALID_CRED;
 *   - a credential of another user than the validating process's (root
 *     may validate any): PMIX_ERR_NO_PERMISSIONS.
 * A credential validated a second time (MUNGE calls it replayed) is
 * accepted: a PMIx credential proves who made it, it is not a ticket.
 * munged unreachable: PMIX_ERR_UNREACH. PMIX_CRED_TYPE without "munge":
 * PMIX_ERR_NOT_SUPPORTED at once.
 *
 * MUNGE's calls run in the step daemon's worker thread (stepd/worker.h),
 * in order; each answer is posted to the progress thread, which calls the
 * server's callback. PMIX_TIMEOUT is the
 * client library's (its blocking call stops waiting); a late answer is
 * then dropped by the server.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmix.h>
#ifdef PLUG_HAVE_MUNGE
#include <munge.h>
#endif

#include "pxc_host.h"
#include "lib/util.h"
#include "stepd/cred.h"
#include "stepd/worker.h"
#include "slurm_adapter.h"

#define CRED_MAGIC "slurmix-cred 1"
#define CRED_MAX_BYTES 65536 /* a credential larger than this is not ours */

typedef struct cjob {
	plug_work_t work; /* first: the worker's piece (stepd/worker.h) */
	bool validate;
	pmix_credential_cbfunc_t gcb;
	pmix_validation_cbfunc_t vcb;
	void *cbdata;
	uint32_t uid, gid; /* the asker, as the server saw it */
	bool have_id;
	int ttl;
	pmix_proc_t proc;
	char *in; /* validate: the credential, NUL-terminated */
	/* the answer */
	pmix_status_t st;
	char *out;           /* get: the credential */
	uint32_t cuid, cgid; /* validate: whom it names */
} cjob_t;

static void job_free(cjob_t *j)
{
	free(j->in);
	free(j->out);
	free(j);
}

/* ---- the progress thread's half ---------------------------------------- */

static void answer(plug_work_t *w)
{
	cjob_t *j = (cjob_t *)w;
	pmix_info_t info[3];
	size_t n = 0;

	if (w->cancelled)
		j->st = PMIX_ERR_UNREACH;
	if (j->validate) {
		if (j->st == PMIX_SUCCESS) {
			PMIx_Info_load(&info[n++], PMIX_USERID, &j->cuid, PMIX_UINT32);
			PMIx_Info_load(&info[n++], PMIX_GRPID, &j->cgid, PMIX_UINT32);
			PMIx_Info_load(&info[n++], PMIX_CRED_TYPE, PLUG_CRED_TYPE, PMIX_STRING);
		}
		j->vcb(j->st, n ? info : NULL, n, j->cbdata);
	} else {
		pmix_byte_object_t bo = { .bytes = j->out,
					  .size = j->out ? strlen(j->out) + 1 : 0 };

		if (j->st == PMIX_SUCCESS)
			PMIx_Info_load(&info[n++], PMIX_CRED_TYPE, PLUG_CRED_TYPE, PMIX_STRING);
		j->gcb(j->st, j->st == PMIX_SUCCESS ? &bo : NULL, n ? info : NULL, n, j->cbdata);
	}
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
	job_free(j);
}

/* ---- the worker: MUNGE -------------------------------------------------- */

#ifdef PLUG_HAVE_MUNGE
static pmix_status_t munge_status(munge_err_t e)
{
	switch (e) {
	case EMUNGE_SUCCESS: return PMIX_SUCCESS;
	case EMUNGE_SOCKET: return PMIX_ERR_UNREACH;
	case EMUNGE_NO_MEMORY: return PMIX_ERR_NOMEM;
	default: return PMIX_ERR_INVALID_CRED;
	}
}

static void do_get(cjob_t *j, munge_ctx_t ctx)
{
	char payload[PMIX_MAX_NSLEN + 96];
	munge_err_t e;

	snprintf(payload, sizeof(payload), "%s %u %u %s %u", CRED_MAGIC, j->uid, j->gid,
		 j->proc.nspace, j->proc.rank);
	if (j->ttl > 0 && munge_ctx_set(ctx, MUNGE_OPT_TTL, j->ttl) != EMUNGE_SUCCESS) {
		j->st = PMIX_ERR_BAD_PARAM;
		return;
	}
	e = munge_encode(&j->out, ctx, payload, (int)strlen(payload) + 1);
	if ((j->st = munge_status(e)) != PMIX_SUCCESS) {
		plug_debug("credential for %s:%u: %s", j->proc.nspace, j->proc.rank,
			   munge_ctx_strerror(ctx));
		free(j->out);
		j->out = NULL;
	}
}

static void do_validate(cjob_t *j, munge_ctx_t ctx)
{
	void *buf = NULL;
	int len = 0, end = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	unsigned u, g;
	munge_err_t e = munge_decode(j->in, ctx, &buf, &len, &uid, &gid);

	if (e == EMUNGE_CRED_REPLAYED)
		e = EMUNGE_SUCCESS; /* see the top of the file */
	j->st = munge_status(e);
	if (j->st == PMIX_SUCCESS &&
	    (uid != 0 || !buf || len < 1 || ((char *)buf)[len - 1] != '\0' ||
	     sscanf(buf, CRED_MAGIC " %u %u %*s %*u%n", &u, &g, &end) != 2 || !end))
		j->st = PMIX_ERR_INVALID_CRED; /* not a step daemon's */
	if (j->st == PMIX_SUCCESS && j->have_id && j->uid != 0 && j->uid != u)
		j->st = PMIX_ERR_NO_PERMISSIONS;
	if (j->st == PMIX_SUCCESS) {
		j->cuid = u;
		j->cgid = g;
	} else if (e != EMUNGE_SUCCESS) {
		plug_debug("credential from %s:%u refused: %s", j->proc.nspace, j->proc.rank,
			   munge_strerror(e));
	}
	free(buf);
}

static void run_job(plug_work_t *w)
{
	cjob_t *j = (cjob_t *)w;
	munge_ctx_t ctx = munge_ctx_create();

	if (!ctx) {
		j->st = PMIX_ERR_NOMEM;
		return;
	}
	if (j->validate)
		do_validate(j, ctx);
	else
		do_get(j, ctx);
	munge_ctx_destroy(ctx);
}
#else
static void run_job(plug_work_t *w)
{
	((cjob_t *)w)->st = PMIX_ERR_NOT_SUPPORTED;
}
#endif

static void drop_job(plug_work_t *w)
{
	job_free((cjob_t *)w);
}

/* ---- the module calls --------------------------------------------------- */

/* PMIX_CRED_TYPE, when given, must name ours (a comma list). */
static bool type_ok(const pmix_info_t *dirs, size_t n)
{
	const pmix_info_t *t = pxc_info_find(dirs, n, PMIX_CRED_TYPE);
	char *list, *tok, *save = NULL;
	bool ok = false;

	if (!t)
		return true;
	if (t->value.type != PMIX_STRING || !t->value.data.string ||
	    !(list = strdup(t->value.data.string)))
		return false;
	for (tok = strtok_r(list, ", ", &save); tok && !ok; tok = strtok_r(NULL, ", ", &save))
		ok = !strcmp(tok, PLUG_CRED_TYPE);
	free(list);
	return ok;
}

static uint32_t dir_u32(const pmix_info_t *dirs, size_t n, const char *key, bool *have)
{
	const pmix_info_t *i = pxc_info_find(dirs, n, key);

	if (!i || i->value.type != PMIX_UINT32) {
		*have = false;
		return 0;
	}
	return i->value.data.uint32;
}

static pmix_status_t submit(cjob_t *j, const pmix_proc_t *proc, const pmix_info_t *dirs, size_t n)
{
	bool have_u = true, have_g = true;

	if (!type_ok(dirs, n)) {
		job_free(j);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	j->proc = *proc;
	j->uid = dir_u32(dirs, n, PMIX_USERID, &have_u);
	j->gid = dir_u32(dirs, n, PMIX_GRPID, &have_g);
	j->have_id = have_u && have_g;
	j->work.run = run_job;
	j->work.done = answer;
	j->work.drop = drop_job;
	if (plug_worker_submit(&j->work) < 0) {
		job_free(j);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}

pmix_status_t plug_cred_get(const pmix_proc_t *proc, const pmix_info_t directives[], size_t ndirs,
			    pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
	const pmix_info_t *ttl = pxc_info_find(directives, ndirs, PLUG_CRED_TTL);
	cjob_t *j;
	bool have = true;

	if (!proc || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
#ifndef PLUG_HAVE_MUNGE
	return PMIX_ERR_NOT_SUPPORTED;
#endif
	if (!(j = calloc(1, sizeof(*j))))
		return PMIX_ERR_NOMEM;
	j->gcb = cbfunc;
	j->cbdata = cbdata;
	if (ttl) {
		uint32_t v = ttl->value.type == PMIX_INT ? (uint32_t)ttl->value.data.integer :
							   dir_u32(ttl, 1, PLUG_CRED_TTL, &have);

		if (!have || v < 1 || v > 3600) {
			job_free(j);
			return PMIX_ERR_BAD_PARAM;
		}
		j->ttl = (int)v;
	}
	/* a client cannot choose whom the credential names: the server's
	 * PMIX_USERID/PMIX_GRPID are the only ones (server/cred.c) */
	return submit(j, proc, directives, ndirs);
}

pmix_status_t plug_cred_validate(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
				 const pmix_info_t directives[], size_t ndirs,
				 pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
	cjob_t *j;

	if (!proc || !cbfunc)
		return PMIX_ERR_BAD_PARAM;
#ifndef PLUG_HAVE_MUNGE
	(void)cred;
	return PMIX_ERR_NOT_SUPPORTED;
#endif
	if (!cred || !cred->bytes || !cred->size || cred->size > CRED_MAX_BYTES)
		return PMIX_ERR_INVALID_CRED;
	if (!(j = calloc(1, sizeof(*j))) || !(j->in = strndup(cred->bytes, cred->size))) {
		free(j);
		return PMIX_ERR_NOMEM;
	}
	j->validate = true;
	j->vcb = cbfunc;
	j->cbdata = cbdata;
	return submit(j, proc, directives, ndirs);
}
