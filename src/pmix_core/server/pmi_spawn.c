/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_spawn.c - PMI-1 and PMI-2 spawn requests into PMIx apps (see
 * pmi_spawn.h). A command's arguments do not include the command (PMI's
 * argN / argvN), the PMIx app's argv does (argv[0] = the command). Of the
 * per-command info keys MPICH passes on from MPI_Info, "wdir" becomes the
 * app's directory and "host" its PMIX_HOST; the others are ignored, as
 * Slurm's mpi/pmi2 ignores them. Every count is checked against its
 * limit and every indexed key must be there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pmi_spawn.h"

/* The pairs of one command: [from, to) of m->pairs. */
typedef struct {
	const pxc_pmi_msg_t *m;
	size_t from, to;
} seg_t;

static const char *seg_get(const seg_t *s, const char *key)
{
	for (size_t i = s->from; i < s->to; i++)
		if (!strcmp(s->m->pairs[i].key, key))
			return s->m->pairs[i].val;
	return NULL;
}

static const char *seg_geti(const seg_t *s, const char *fmt, long i)
{
	char key[48];

	snprintf(key, sizeof(key), fmt, i);
	return seg_get(s, key);
}

static int seg_int(const seg_t *s, const char *key, long min, long max, long dflt, long *out)
{
	const char *v = seg_get(s, key);

	if (!v) {
		*out = dflt;
		return dflt < min ? -1 : 0;
	}
	return pxc_pmi_int(v, min, max, out);
}

static int env_add(char ***env, const char *name, const char *val)
{
	char *e;
	int rc;

	if (asprintf(&e, "%s=%s", name, val) < 0)
		return -1;
	rc = PMIx_Argv_append_nosize(env, e) == PMIX_SUCCESS ? 0 : -1;
	free(e);
	return rc;
}

/* The preput pairs (keys kfmt/vfmt with an index from 0) into env. */
static int preputs(const seg_t *s, const char *count, const char *kfmt, const char *vfmt,
		   char ***env, const char **why)
{
	char name[64], num[16], *kv;
	long n;

	if (seg_int(s, count, 0, PXC_PMI_SPAWN_MAX_PREPUT, 0, &n) < 0)
		return *why = "bad preput count", -1;
	for (long i = 0; i < n; i++) {
		const char *k = seg_geti(s, kfmt, i), *v = seg_geti(s, vfmt, i);
		int rc;

		if (!k || !*k || !v || strchr(k, '='))
			return *why = "a preput pair is missing", -1;
		if (strlen(k) > PXC_PMI_KEYLEN_MAX || strlen(v) > PXC_PMI_VALLEN_MAX)
			return *why = "a preput pair is too long", -1;
		snprintf(name, sizeof(name), "%s%ld", PXC_PMI_PREPUT_ENV, i);
		if (asprintf(&kv, "%s=%s", k, v) < 0)
			return *why = "out of memory", -1;
		rc = env_add(env, name, kv);
		free(kv);
		if (rc < 0)
			return *why = "out of memory", -1;
	}
	snprintf(num, sizeof(num), "%ld", n);
	if (n && env_add(env, PXC_PMI_PREPUT_ENV_COUNT, num) < 0)
		return *why = "out of memory", -1;
	return 0;
}

static int app_info(pmix_app_t *app, const char *key, const char *val, const char **why)
{
	pmix_info_t *grown;

	if (!strcmp(key, "wdir")) {
		free(app->cwd);
		return (app->cwd = strdup(val)) ? 0 : (*why = "out of memory", -1);
	}
	if (strcmp(key, "host"))
		return 0;
	grown = realloc(app->info, (app->ninfo + 1) * sizeof(*grown));
	if (!grown)
		return *why = "out of memory", -1;
	app->info = grown;
	PMIx_Info_load(&app->info[app->ninfo++], PMIX_HOST, val, PMIX_STRING);
	return 0;
}

/* One command: cmd, nprocs, its arguments and info, by the given key
 * names and formats. */
static int one_app(const seg_t *s, const char *cmdkey, const char *procs, const char *argc,
		   const char *argfmt, long argbase, const char *infon, const char *ikfmt,
		   const char *ivfmt, pmix_app_t *app, const char **why)
{
	const char *cmd = seg_get(s, cmdkey);
	long np, na, ni;

	if (!cmd || !*cmd)
		return *why = "spawn without a command", -1;
	if (seg_int(s, procs, 1, PXC_PMI_SPAWN_MAX_PROCS, -1, &np) < 0)
		return *why = "bad process count", -1;
	if (seg_int(s, argc, 0, PXC_PMI_SPAWN_MAX_ARGS, 0, &na) < 0 ||
	    seg_int(s, infon, 0, PXC_PMI_SPAWN_MAX_INFO, 0, &ni) < 0)
		return *why = "bad argument or info count", -1;
	app->maxprocs = (int)np;
	if (!(app->cmd = strdup(cmd)) || PMIx_Argv_append_nosize(&app->argv, cmd) != PMIX_SUCCESS)
		return *why = "out of memory", -1;
	for (long i = 0; i < na; i++) {
		const char *a = seg_geti(s, argfmt, i + argbase);

		if (!a)
			return *why = "an argument is missing", -1;
		if (PMIx_Argv_append_nosize(&app->argv, a) != PMIX_SUCCESS)
			return *why = "out of memory", -1;
	}
	for (long i = 0; i < ni; i++) {
		const char *k = seg_geti(s, ikfmt, i), *v = seg_geti(s, ivfmt, i);

		if (!k || !v)
			return *why = "an info pair is missing", -1;
		if (app_info(app, k, v, why) < 0)
			return -1;
	}
	return 0;
}

int pxc_pmi_spawn_v1(const pxc_pmi_msg_t *m, pmix_app_t *app, long *total, long *sofar,
		     char ***preput, const char **why)
{
	seg_t s = { m, 0, m->npairs };

	if (seg_int(&s, "totspawns", 1, PXC_PMI_SPAWN_MAX_CMDS, 1, total) < 0 ||
	    seg_int(&s, "spawnssofar", 1, *total, 1, sofar) < 0)
		return *why = "bad totspawns or spawnssofar", -1;
	if (one_app(&s, "execname", "nprocs", "argcnt", "arg%ld", 1, "info_num", "info_key_%ld",
		    "info_val_%ld", app, why) < 0)
		return -1;
	return preputs(&s, "preput_num", "preput_key_%ld", "preput_val_%ld", preput, why);
}

int pxc_pmi_spawn_v2(const pxc_pmi_msg_t *m, pmix_app_t **apps, size_t *n, char ***preput,
		     const char **why)
{
	seg_t head = { m, 0, m->npairs }, s = { m, 0, 0 };
	pmix_app_t *a;
	size_t k = 0;
	long ncmds;

	for (size_t i = 0; i < m->npairs && head.to == m->npairs; i++)
		if (!strcmp(m->pairs[i].key, "subcmd"))
			head.to = i;
	if (seg_int(&head, "ncmds", 1, PXC_PMI_SPAWN_MAX_CMDS, -1, &ncmds) < 0)
		return *why = "bad ncmds", -1;
	if (!(a = PMIx_App_create((size_t)ncmds)))
		return *why = "out of memory", -1;
	s.from = head.to;
	for (; k < (size_t)ncmds; k++) {
		if (s.from >= m->npairs) {
			*why = "fewer commands than ncmds";
			break;
		}
		for (s.to = s.from + 1; s.to < m->npairs && strcmp(m->pairs[s.to].key, "subcmd");
		     s.to++)
			;
		if (one_app(&s, "subcmd", "maxprocs", "argc", "argv%ld", 0, "infokeycount",
			    "infokey%ld", "infoval%ld", &a[k], why) < 0)
			break;
		s.from = s.to;
	}
	if (k == (size_t)ncmds && s.from < m->npairs) {
		*why = "more commands than ncmds";
		k = 0;
	}
	if (k == (size_t)ncmds &&
	    preputs(&head, "preputcount", "ppkey%ld", "ppval%ld", preput, why) < 0)
		k = 0;
	if (k < (size_t)ncmds) {
		PMIx_App_free(a, (size_t)ncmds);
		PMIx_Argv_free(*preput);
		*preput = NULL;
		return -1;
	}
	*apps = a;
	*n = (size_t)ncmds;
	return 0;
}
