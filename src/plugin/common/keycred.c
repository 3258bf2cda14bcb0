/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/keycred.c - the job key inside a MUNGE credential (see
 * common/keycred.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef PLUG_HAVE_MUNGE
#include <munge.h>
#endif

#include "common/keycred.h"
#include "lib/util.h"
#include "slurm_adapter.h"

#define KEYCRED_MAGIC "slurmix-key 1"

#ifdef PLUG_HAVE_MUNGE
int plug_keycred_put(char ***env, uint32_t job, const char *key)
{
	munge_ctx_t ctx = munge_ctx_create();
	char payload[64 + PLUG_KEY_LEN], *cred = NULL;
	munge_err_t e = EMUNGE_NO_MEMORY;
	int rc = -1;

	snprintf(payload, sizeof(payload), "%s %u %s", KEYCRED_MAGIC, job, key);
	if (ctx && (e = munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, (uid_t)0)) == EMUNGE_SUCCESS)
		e = munge_encode(&cred, ctx, payload, (int)strlen(payload));
	if (e == EMUNGE_SUCCESS)
		rc = plug_env_set(env, PLUG_KEY_CRED_ENV, cred);
	else
		plug_error("cannot seal the job key in a MUNGE credential: %s",
			   ctx ? munge_ctx_strerror(ctx) : munge_strerror(e));
	memset(payload, 0, sizeof(payload));
	free(cred);
	munge_ctx_destroy(ctx);
	return rc;
}

int plug_keycred_take(char **env, uint32_t job, uid_t uid, char key[PLUG_KEY_LEN + 1])
{
	const char *cred = plug_env_get(env, PLUG_KEY_CRED_ENV);
	char *buf = NULL, expect[48];
	int len = 0, rc = -1;
	uid_t cuid = (uid_t)-1;
	munge_err_t e;

	if (!cred)
		return plug_error("launch environment without %s", PLUG_KEY_CRED_ENV), -1;
	e = munge_decode(cred, NULL, (void **)&buf, &len, &cuid, NULL);
	if (e == EMUNGE_CRED_REPLAYED) /* another node of the step on this host */
		e = EMUNGE_SUCCESS;
	snprintf(expect, sizeof(expect), "%s %u ", KEYCRED_MAGIC, job);
	if (e != EMUNGE_SUCCESS)
		plug_error("%s refused by MUNGE: %s", PLUG_KEY_CRED_ENV, munge_strerror(e));
	else if (cuid != uid && cuid != 0)
		plug_error("%s made by uid %u, not the job's user %u", PLUG_KEY_CRED_ENV,
			   (unsigned)cuid, (unsigned)uid);
	else if (!buf || len != (int)(strlen(expect) + PLUG_KEY_LEN) ||
		 strncmp(buf, expect, strlen(expect)))
		plug_error("%s: not a job key of job %u", PLUG_KEY_CRED_ENV, job);
	else
		rc = 0;
	if (rc == 0) {
		memcpy(key, buf + strlen(expect), PLUG_KEY_LEN);
		key[PLUG_KEY_LEN] = '\0';
	}
	if (buf)
		memset(buf, 0, (size_t)len);
	free(buf);
	return rc;
}
#else
int plug_keycred_put(char ***env, uint32_t job, const char *key)
{
	(void)job;
	return plug_env_set(env, PLUG_KEY_ENV, key);
}

int plug_keycred_take(char **env, uint32_t job, uid_t uid, char key[PLUG_KEY_LEN + 1])
{
	const char *k = plug_env_get(env, PLUG_KEY_ENV);

	(void)job, (void)uid;
	if (!k || strlen(k) != PLUG_KEY_LEN)
		return plug_error("launch environment without %s", PLUG_KEY_ENV), -1;
	memcpy(key, k, PLUG_KEY_LEN + 1);
	return 0;
}
#endif
