/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_spawn.c - PMIx_Spawn in slurmix-run: turns the requested apps and
 * attributes into a new local namespace "slurmix-run.<pid>.<n>".
 *
 * Runs in the main thread (sxr_host.c posts the request). Everything is
 * checked before anything starts: attributes (a required one that we
 * cannot honour gives PMIX_ERR_NOT_SUPPORTED), hosts (PMIX_HOST,
 * PMIX_HOSTFILE and their ADD_ forms must name this node), proc counts,
 * working directories and executables (searched in the app's PATH, after
 * PMIX_PREFIX/bin). sxr_job_launch then registers and starts the tasks, or
 * leaves nothing running. The environment of a spawned task is the
 * launcher's task environment, then the app's env entries (Open MPI puts
 * OMPI_PARENT_PORT and OMPI_MCA_* there), then the PMIX_*_ENVAR directives.
 */
#include "sxr.h"
#include "sxr_job.h"
#include "sxr_spawn.h"
#include "sxr_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attributes we honour (on one node most mapping requests are trivially
 * met) or that only tune output and need no action. */
static const char *const known_attrs[] = { PMIX_WDIR,
					   PMIX_PREFIX,
					   PMIX_HOST,
					   PMIX_HOSTFILE,
					   PMIX_ADD_HOST,
					   PMIX_ADD_HOSTFILE,
					   PMIX_SET_ENVAR,
					   PMIX_ADD_ENVAR,
					   PMIX_UNSET_ENVAR,
					   PMIX_PREPEND_ENVAR,
					   PMIX_APPEND_ENVAR,
					   PMIX_ENVARS_HARVESTED,
					   PMIX_PERSONALITY,
					   PMIX_MAPPER,
					   PMIX_DISPLAY_MAP,
					   PMIX_PPR,
					   PMIX_MAPBY,
					   PMIX_RANKBY,
					   PMIX_NON_PMI,
					   PMIX_STDIN_TGT,
					   PMIX_NOTIFY_COMPLETION,
					   PMIX_TIMEOUT,
					   PMIX_SPAWN_TIMEOUT,
					   PMIX_PRELOAD_BIN,
					   PMIX_PARENT_ID,
					   PMIX_REQUESTOR_IS_TOOL,
					   PMIX_FWD_STDOUT,
					   PMIX_FWD_STDERR,
					   PMIX_FWD_STDIN,
					   PMIX_FWD_STDDIAG,
					   PMIX_SETUP_APP_ENVARS,
					   PMIX_BINDTO,
					   NULL };

struct spawn_opts {
	const char *wdir;
	const char *prefix;
};

static int attr_known(const char *key)
{
	for (const char *const *k = known_attrs; *k; k++)
		if (!strcmp(key, *k))
			return 1;
	return 0;
}

static int host_is_local(struct sxr *s, const char *h, size_t len)
{
	size_t hl = strlen(s->hostname);
	const char *dot = strchr(s->hostname, '.');
	size_t sl = dot ? (size_t)(dot - s->hostname) : hl;

	return (len == hl && !strncmp(h, s->hostname, len)) ||
	       (len == sl && !strncmp(h, s->hostname, len)) ||
	       (len == 9 && !strncmp(h, "localhost", 9)) ||
	       (len == 9 && !strncmp(h, "127.0.0.1", 9));
}

/* Every name of a comma-separated list is this node (":slots" allowed). */
static int hosts_local(struct sxr *s, const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ",:");

		if (len && !host_is_local(s, p, len)) {
			sxr_msg("spawn: host \"%.*s\" is not this node", (int)len, p);
			return 0;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 1;
}

static int hostfile_local(struct sxr *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int ok = 1;

	if (!f) {
		sxr_msg("spawn: cannot read hostfile %s: %s", path, strerror(errno));
		return 0;
	}
	while (ok && fgets(line, sizeof(line), f)) {
		char *h = line + strspn(line, " \t");
		size_t len = strcspn(h, " \t\r\n#");

		if (len && *h != '#' && !host_is_local(s, h, len)) {
			sxr_msg("spawn: host \"%.*s\" in %s is not this node", (int)len, h, path);
			ok = 0;
		}
	}
	fclose(f);
	return ok;
}

/* Checks one attribute; returns PMIX_SUCCESS or why the spawn must fail. */
static pmix_status_t check_attr(struct sxr *s, const pmix_info_t *in, struct spawn_opts *o)
{
	const char *str = in->value.type == PMIX_STRING ? in->value.data.string : NULL;
	int reqd = (in->flags & PMIX_INFO_REQD) != 0;

	if (!strcmp(in->key, PMIX_HOST) || !strcmp(in->key, PMIX_ADD_HOST))
		return !str || hosts_local(s, str) ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
	if (!strcmp(in->key, PMIX_HOSTFILE) || !strcmp(in->key, PMIX_ADD_HOSTFILE))
		return !str || hostfile_local(s, str) ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
	if (!strcmp(in->key, PMIX_WDIR) && str)
		o->wdir = str;
	else if (!strcmp(in->key, PMIX_PREFIX) && str)
		o->prefix = str;
	else if (!strcmp(in->key, PMIX_BINDTO) && reqd && (!str || strcasecmp(str, "none")))
		return sxr_msg("spawn: binding is not supported"), PMIX_ERR_NOT_SUPPORTED;
	if (reqd && !attr_known(in->key)) {
		sxr_msg("spawn: required attribute %s is not supported", in->key);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t check_attrs(struct sxr *s, const pmix_info_t *info, size_t n,
				 struct spawn_opts *o)
{
	pmix_status_t rc;

	for (size_t i = 0; i < n; i++)
		if ((rc = check_attr(s, &info[i], o)) != PMIX_SUCCESS)
			return rc;
	return PMIX_SUCCESS;
}

/* ---------------------------------------------------------------- env */

static int envar_apply(char ***env, const pmix_info_t *in)
{
	const pmix_envar_t *e = &in->value.data.envar;
	const char *old;
	char *joined;
	int rc;

	if (!strcmp(in->key, PMIX_UNSET_ENVAR) && in->value.type == PMIX_STRING)
		return sxr_env_set(env, in->value.data.string, NULL);
	if (in->value.type != PMIX_ENVAR || !e->envar)
		return 0;
	old = sxr_env_get(*env, e->envar);
	if (!strcmp(in->key, PMIX_SET_ENVAR) || (!strcmp(in->key, PMIX_ADD_ENVAR) && !old))
		return sxr_env_set(env, e->envar, e->value ? e->value : "");
	if (!old || (strcmp(in->key, PMIX_PREPEND_ENVAR) && strcmp(in->key, PMIX_APPEND_ENVAR)))
		return old ? 0 : sxr_env_set(env, e->envar, e->value ? e->value : "");
	if (!strcmp(in->key, PMIX_PREPEND_ENVAR))
		rc = asprintf(&joined, "%s%c%s", e->value ? e->value : "", e->separator, old);
	else
		rc = asprintf(&joined, "%s%c%s", old, e->separator, e->value ? e->value : "");
	if (rc < 0)
		return -1;
	rc = sxr_env_set(env, e->envar, joined);
	free(joined);
	return rc;
}

static int app_env(struct sxr *s, const pmix_app_t *a, const pmix_info_t *jinfo, size_t njinfo,
		   char ***out)
{
	char **env = sxr_argv_dup(s->base_env);

	for (char **e = a->env; env && e && *e; e++) {
		char *eq = strchr(*e, '='), *name;

		if (!eq || !(name = strndup(*e, (size_t)(eq - *e))))
			continue;
		if (sxr_env_set(&env, name, eq + 1) < 0) {
			sxr_argv_free(env);
			env = NULL;
		}
		free(name);
	}
	for (size_t i = 0; env && i < njinfo; i++)
		if (envar_apply(&env, &jinfo[i]) < 0) {
			sxr_argv_free(env);
			env = NULL;
		}
	for (size_t i = 0; env && i < a->ninfo; i++)
		if (envar_apply(&env, &a->info[i]) < 0) {
			sxr_argv_free(env);
			env = NULL;
		}
	*out = env;
	return env ? 0 : -1;
}

/* ---------------------------------------------------------------- apps */

static char *abs_dir(struct sxr *s, const char *dir)
{
	char *out;

	if (!dir || !*dir)
		return strdup(s->cwd);
	if (dir[0] == '/')
		return strdup(dir);
	return asprintf(&out, "%s/%s", s->cwd, dir) < 0 ? NULL : out;
}

static pmix_status_t build_app(struct sxr *s, const pmix_app_t *a, const pmix_info_t *jinfo,
			       size_t njinfo, const struct spawn_opts *jo, struct sxr_app *out)
{
	struct spawn_opts o = *jo;
	const char *cmd = a->cmd && *a->cmd ? a->cmd : a->argv ? a->argv[0] : NULL;
	pmix_status_t rc = check_attrs(s, a->info, a->ninfo, &o);

	if (rc != PMIX_SUCCESS)
		return rc;
	if (!cmd || a->maxprocs < 1) {
		sxr_msg("spawn: app without a command or with maxprocs %d", a->maxprocs);
		return PMIX_ERR_BAD_PARAM;
	}
	out->nprocs = (uint32_t)a->maxprocs;
	out->cwd = abs_dir(s, a->cwd && *a->cwd ? a->cwd : o.wdir);
	if (a->argv && a->argv[0])
		out->argv = sxr_argv_dup(a->argv);
	else if (sxr_argv_add(&out->argv, cmd) < 0)
		out->argv = NULL;
	if (!out->cwd || !out->argv || app_env(s, a, jinfo, njinfo, &out->env) < 0)
		return PMIX_ERR_NOMEM;
	if (sxr_resolve_exe(cmd, out->cwd, sxr_env_get(out->env, "PATH"), o.prefix, &out->exe) <
	    0) {
		sxr_msg("spawn: cannot execute %s: %s", cmd, strerror(errno));
		return errno == ENOENT ? PMIX_ERR_NOT_FOUND : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
	}
	return PMIX_SUCCESS;
}

void sxr_spawn_run(struct sxr *s, const pmix_proc_t *requestor, const pmix_info_t *info,
		   size_t ninfo, const pmix_app_t *apps, size_t napps, pmix_spawn_cbfunc_t cbfunc,
		   void *cbdata)
{
	struct spawn_opts jo = { 0 };
	struct sxr_app *sa = napps ? calloc(napps, sizeof(*sa)) : NULL;
	struct sxr_job *j = NULL;
	pmix_nspace_t none = { 0 };
	pmix_status_t rc = sa ? check_attrs(s, info, ninfo, &jo) : PMIX_ERR_BAD_PARAM;

	if (s->terminating)
		rc = PMIX_ERR_JOB_TERMINATED;
	for (size_t i = 0; rc == PMIX_SUCCESS && i < napps; i++)
		rc = build_app(s, &apps[i], info, ninfo, &jo, &sa[i]);
	if (rc == PMIX_SUCCESS) {
		rc = sxr_job_launch(s, sa, napps, requestor, &j); /* takes sa */
		sa = NULL;
	}
	sxr_apps_free(sa, napps);
	sxr_verbose(s, "spawn from %s.%u: %s%s%s", requestor->nspace, requestor->rank,
		    PMIx_Error_string(rc), j ? " -> " : "", j ? j->nspace : "");
	if (cbfunc)
		cbfunc(rc, j ? j->nspace : none, cbdata);
}
