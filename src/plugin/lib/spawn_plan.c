/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/spawn_plan.c - from a PMIx_Spawn request (job info, apps) to the
 * command line and environment of the child srun (see srun/spawn.h and
 * docs/dynamic.md §3). Slurm-free and side-effect free, so that the unit
 * test (tests/unit/test_plugin_spawn.c) can feed it anything.
 *
 * Attributes are looked up in one table. Each is honoured, translated to
 * an srun option, or has nothing to do here (K_IGNORE); an attribute we
 * do not know or cannot honour - among them what Open MPI sends without
 * marking it required (PMIX_MAPPER, PMIX_DISPLAY_MAP, PMIX_STDIN_TGT...)
 * - is ignored, and fails the request with PMIX_ERR_NOT_SUPPORTED when it
 * is marked PMIX_INFO_REQD. Job-level attributes come first, then each app's own: an
 * app's wdir, prefix, environment and hosts are per app; mapping options
 * in an app's info apply to the whole step (one srun).
 *
 * Several apps become one --multi-prog file: "first-last [env ...] cmd
 * args", where `env -C dir -u NAME NAME=value` carries what differs from
 * the srun's environment for that app. srun substitutes %t and %o in that
 * file, so an argument containing '%' changes meaning there (documented).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmix_slurmix.h"
#include "lib/proto.h"
#include "lib/spawn_plan.h"
#include "lib/util.h"

enum kind {
	K_IGNORE,
	K_HOST,
	K_HOSTFILE,
	K_WDIR,
	K_CWD,
	K_PREFIX,
	K_MAPBY,
	K_PPR,
	K_RANKBY,
	K_BINDTO,
	K_REPORTBIND,
	K_INDEXARGV,
	K_CPUS,
	K_NOOVER,
	K_NOHEAD,
	K_CPULIST,
	K_TIMEOUT,
	K_SPTIMEOUT,
	K_NOTIFY,
	K_NONPMI,
	K_CHILDSEP,
	K_FWDOUT,
	K_FWDERR,
	K_FWDIN,
	K_STDINTGT,
	K_TAG,
	K_TIMESTAMP,
	K_MERGE,
	K_OUTFILE,
	K_OUTDIR,
	K_PATTERN,
	K_FILEONLY,
	K_XML,
	K_SET,
	K_ADD,
	K_UNSET,
	K_PREPEND,
	K_APPEND,
	K_UNSUPPORTED,
};

static const struct {
	const char *key;
	enum kind kind;
} table[] = {
	{ PMIX_HOST, K_HOST },
	{ PMIX_ADD_HOST, K_HOST },
	{ PMIX_HOSTFILE, K_HOSTFILE },
	{ PMIX_ADD_HOSTFILE, K_HOSTFILE },
	{ PMIX_WDIR, K_WDIR },
	{ PMIX_SET_SESSION_CWD, K_CWD },
	{ PMIX_PREFIX, K_PREFIX },
	{ PMIX_MAPBY, K_MAPBY },
	{ PMIX_PPR, K_PPR },
	{ PMIX_RANKBY, K_RANKBY },
	{ PMIX_BINDTO, K_BINDTO },
	/* srun's --cpu-bind=verbose: each task's binding on its stderr */
	{ PMIX_REPORT_BINDINGS, K_REPORTBIND },
	/* each task's rank after its arguments: --multi-prog's %t */
	{ PMIX_INDEX_ARGV, K_INDEXARGV },
	{ PMIX_CPUS_PER_PROC, K_CPUS },
	{ PMIX_NO_OVERSUBSCRIBE, K_NOOVER },
	{ PMIX_NO_PROCS_ON_HEAD, K_NOHEAD },
	{ PMIX_CPU_LIST, K_CPULIST },
	{ PMIX_TIMEOUT, K_TIMEOUT },
	{ PMIX_SPAWN_TIMEOUT, K_SPTIMEOUT },
	{ PMIX_NOTIFY_COMPLETION, K_NOTIFY },
	{ "pmix.nonpmi", K_NONPMI },
	{ PMIX_SPAWN_CHILD_SEP, K_CHILDSEP },
	{ PMIX_SET_ENVAR, K_SET },
	{ PMIX_ADD_ENVAR, K_ADD },
	{ PMIX_UNSET_ENVAR, K_UNSET },
	{ PMIX_PREPEND_ENVAR, K_PREPEND },
	{ PMIX_APPEND_ENVAR, K_APPEND },
	/* nothing to do, also when required: srun forwards stdout/stderr to
	 * the parent srun's, the personality changes nothing here */
	{ PMIX_ALLOC_ID, K_IGNORE }, /* srun/spawn.c: the allocation to start in */
	{ PMIX_PERSONALITY, K_IGNORE },
	{ PMIX_WDIR_USER_SPECIFIED, K_IGNORE },
	{ PMIX_REQUESTOR_IS_CLIENT, K_IGNORE },
	{ PMIX_REQUESTOR_IS_TOOL, K_IGNORE },
	{ PMIX_FWD_STDOUT, K_FWDOUT }, /* false: srun prints none of it */
	{ PMIX_FWD_STDERR, K_FWDERR },
	/* stdin for pushes (docs/iof.md, "Pushing stdin"): true, or the
	 * rank that gets it */
	{ PMIX_FWD_STDIN, K_FWDIN },
	{ PMIX_STDIN_TGT, K_STDINTGT },
	/* how srun prints the output (docs/iof.md, "Spawned steps' output"),
	 * in their older names and their PMIX_IOF_ ones */
	{ "pmix.tagout", K_TAG },
	{ PMIX_IOF_TAG_OUTPUT, K_TAG },
	{ "pmix.tsout", K_TIMESTAMP },
	{ PMIX_IOF_TIMESTAMP_OUTPUT, K_TIMESTAMP },
	{ "pmix.mergeerrout", K_MERGE },
	{ PMIX_IOF_MERGE_STDERR_STDOUT, K_MERGE },
	{ "pmix.outfile", K_OUTFILE },
	{ PMIX_IOF_OUTPUT_TO_FILE, K_OUTFILE },
	{ "pmix.outdir", K_OUTDIR },
	{ PMIX_IOF_OUTPUT_TO_DIRECTORY, K_OUTDIR },
	{ PMIX_IOF_FILE_PATTERN, K_PATTERN },
	{ "pmix.nocopy", K_FILEONLY },
	{ PMIX_IOF_FILE_ONLY, K_FILEONLY },
	{ PMIX_IOF_XML_OUTPUT, K_XML },
	/* known, not done here: ignored unless required (Open MPI sends
	 * several of them, never required) */
	{ "pmix.mapper", K_UNSUPPORTED },
	{ PMIX_DISPLAY_MAP, K_UNSUPPORTED },
	{ PMIX_FWD_STDDIAG, K_UNSUPPORTED },
	{ PMIX_PRELOAD_BIN, K_UNSUPPORTED },
	{ PMIX_PRELOAD_FILES, K_UNSUPPORTED },
	{ PMIX_SPAWN_TOOL, K_UNSUPPORTED },
	{ PMIX_COSPAWN_APP, K_UNSUPPORTED },
	{ PMIX_JOB_CONTINUOUS, K_UNSUPPORTED },
	{ PMIX_MAX_RESTARTS, K_UNSUPPORTED },
};

/* Per app: what differs from the srun's environment. */
typedef struct {
	char *wdir, *prefix;
	char **env; /* the app's full environment */
	char **hosts;
} app_t;

typedef struct {
	const plug_spawn_ctx_t *ctx;
	plug_spawn_plan_t *plan;
	char **hosts; /* job-level PMIX_HOST/HOSTFILE */
	char *dist, *bind, *wdir;
	uint32_t ppn, cpus, sp_timeout;
	bool overlap, nohead, cwd;
	bool report_bind, index_argv; /* PMIX_REPORT_BINDINGS, PMIX_INDEX_ARGV */
	bool no_out, no_err;          /* PMIX_FWD_STDOUT/STDERR false */
	bool tag, stamp, merge;       /* PMIX_TAG_OUTPUT, _TIMESTAMP_OUTPUT, _MERGE_STDERR_STDOUT */
	bool xml;                     /* PMIX_IOF_XML_OUTPUT */
	char *outfile;                /* PMIX_OUTPUT_TO_FILE */
	char *outdir;                 /* PMIX_OUTPUT_TO_DIRECTORY, made absolute */
	bool pattern;                 /* PMIX_IOF_FILE_PATTERN: outfile is the name */
	bool copy_reqd;               /* PMIX_IOF_FILE_ONLY false, required */
	bool fwd_in;                  /* PMIX_FWD_STDIN true, or PMIX_STDIN_TGT */
	int64_t stdin_tgt;            /* PMIX_STDIN_TGT's rank, -1: every rank */
	char **env;                   /* the srun's environment */
	app_t *apps;
	size_t napps;
} st_t;

static pmix_status_t fail(st_t *s, pmix_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static pmix_status_t fail(st_t *s, pmix_status_t st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->plan->err, sizeof(s->plan->err), fmt, ap);
	va_end(ap);
	return st;
}

static enum kind lookup(const char *key)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].key, key))
			return table[i].kind;
	return K_UNSUPPORTED;
}

char *plug_spawn_supported(void)
{
	size_t len = 1;
	char *list;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		len += strlen(table[i].key) + 1;
	if (!(list = calloc(1, len)))
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].kind == K_UNSUPPORTED)
			continue;
		if (*list)
			strcat(list, ",");
		strcat(list, table[i].key);
	}
	return list;
}

/* ---- values ------------------------------------------------------------- */

static const char *v_str(const pmix_info_t *i)
{
	return i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* A bool info without a value means true. */
static bool v_bool(const pmix_info_t *i)
{
	if (i->value.type == PMIX_BOOL)
		return i->value.data.flag;
	return i->value.type == PMIX_UNDEF;
}

/* -1 when not a non-negative number. */
static long v_num(const pmix_info_t *i)
{
	const pmix_value_t *v = &i->value;

	switch (v->type) {
	case PMIX_INT: return v->data.integer;
	case PMIX_INT8: return v->data.int8;
	case PMIX_INT16: return v->data.int16;
	case PMIX_INT32: return v->data.int32;
	case PMIX_INT64: return v->data.int64 > 0x7fffffff ? 0x7fffffff : (long)v->data.int64;
	case PMIX_UINT: return v->data.uint > 0x7fffffff ? 0x7fffffff : (long)v->data.uint;
	case PMIX_UINT8: return v->data.uint8;
	case PMIX_UINT16: return v->data.uint16;
	case PMIX_UINT32: return v->data.uint32 > 0x7fffffff ? 0x7fffffff : (long)v->data.uint32;
	case PMIX_SIZE: return v->data.size > 0x7fffffff ? 0x7fffffff : (long)v->data.size;
	case PMIX_STRING: return v->data.string ? strtol(v->data.string, NULL, 10) : -1;
	default: return -1;
	}
}

/* PMIX_STDIN_TGT: a rank of the new step (checked against its size in
 * srun_opts), or WILDCARD for all. */
static pmix_status_t stdin_target(st_t *s, const pmix_info_t *i)
{
	const pmix_value_t *v = &i->value;
	long n;

	s->fwd_in = true;
	if ((v->type == PMIX_PROC_RANK && v->data.rank == PMIX_RANK_WILDCARD) ||
	    (v->type == PMIX_UINT32 && v->data.uint32 == PMIX_RANK_WILDCARD)) {
		s->stdin_tgt = -1;
		return PMIX_SUCCESS;
	}
	n = v->type == PMIX_PROC_RANK ? (v->data.rank > 0x7fffffff ? -1 : (long)v->data.rank) :
					v_num(i);
	if (n < 0)
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: not a rank", i->key);
	s->stdin_tgt = n;
	return PMIX_SUCCESS;
}

/* PMIX_OUTPUT_TO_FILE: the files' name before ".<nspace>.<rank>.stdout"
 * (and ".stderr"), or with PMIX_IOF_FILE_PATTERN the one file's name
 * (checked in out_pattern: the pattern may come after it);
 * PMIX_OUTPUT_TO_DIRECTORY: the directory of "<nspace>/rank.<N>/". One
 * of them, one name, for the whole spawn. */
static pmix_status_t out_name(st_t *s, const pmix_info_t *i, char **where)
{
	const char *v = v_str(i);

	if (!v || !*v)
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: not a file name", i->key);
	if (*where && strcmp(*where, v))
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: two different names", i->key);
	if ((where == &s->outfile ? s->outdir : s->outfile) != NULL)
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: both a file and a directory", i->key);
	if (where == &s->outdir && strchr(v, '%'))
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: a directory name with %%", i->key);
	if (!*where && !(*where = strdup(v)))
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	return PMIX_SUCCESS;
}

/* The file name as Slurm's --output pattern: without
 * PMIX_IOF_FILE_PATTERN no % at all; with it %n (the child's nspace),
 * %r (its rank) and %% only. */
static pmix_status_t out_pattern(st_t *s)
{
	char *p, *o;

	if (!s->outfile)
		return PMIX_SUCCESS;
	if (!s->pattern) {
		if (strchr(s->outfile, '%'))
			return fail(s, PMIX_ERR_BAD_PARAM,
				    "%s %s: a name with %% (a pattern needs %s)",
				    PMIX_IOF_OUTPUT_TO_FILE, s->outfile, PMIX_IOF_FILE_PATTERN);
		return PMIX_SUCCESS;
	}
	if (!(p = malloc(strlen(s->outfile) * 8 + 1)))
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	o = p;
	for (const char *c = s->outfile; *c; c++) {
		if (*c != '%') {
			*o++ = *c;
			continue;
		}
		c++;
		if (*c == 'n')
			o = stpcpy(o, "slurmix.%j.%s");
		else if (*c == 'r')
			o = stpcpy(o, "%t");
		else if (*c == '%')
			o = stpcpy(o, "%%");
		else {
			free(p);
			return fail(s, PMIX_ERR_BAD_PARAM, "%s %s: %%%c is not %%n, %%r or %%%%",
				    PMIX_IOF_OUTPUT_TO_FILE, s->outfile, *c ? *c : ' ');
		}
	}
	*o = '\0';
	free(s->outfile);
	s->outfile = p;
	return PMIX_SUCCESS;
}

/* The directory made absolute, as the child's step daemons must make it
 * (their working directory is not the tasks'): against the new step's
 * working directory, which is the srun's unless PMIX_WDIR says. */
static pmix_status_t out_dir_abs(st_t *s)
{
	char cwd[PATH_MAX], *abs;
	const char *wd = s->napps == 1 && s->apps[0].wdir ? s->apps[0].wdir : s->wdir;
	int rc;

	if (!s->outdir || s->outdir[0] == '/')
		return PMIX_SUCCESS;
	if (!getcwd(cwd, sizeof(cwd)))
		return fail(s, PMIX_ERR_BAD_PARAM, "%s %s: no working directory: %s",
			    PMIX_IOF_OUTPUT_TO_DIRECTORY, s->outdir, strerror(errno));
	if (wd && wd[0] == '/')
		rc = asprintf(&abs, "%s/%s", wd, s->outdir);
	else if (wd)
		rc = asprintf(&abs, "%s/%s/%s", cwd, wd, s->outdir);
	else
		rc = asprintf(&abs, "%s/%s", cwd, s->outdir);
	if (rc < 0)
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	free(s->outdir);
	s->outdir = abs;
	if (strchr(abs, '%')) /* Slurm would read it as a pattern */
		return fail(s, PMIX_ERR_BAD_PARAM, "%s %s: a directory name with %%",
			    PMIX_IOF_OUTPUT_TO_DIRECTORY, abs);
	return PMIX_SUCCESS;
}

/* ---- environment lists (malloc()ed "K=V" arrays) ------------------------ */

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static void env_unset(char **env, const char *name)
{
	size_t n = strlen(name), j = 0;

	for (size_t i = 0; env && env[i]; i++) {
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			free(env[i]);
		else
			env[j++] = env[i];
	}
	if (env)
		env[j] = NULL;
}

static int env_set(char ***env, const char *name, const char *value)
{
	char *e;

	if (!name || !*name || strchr(name, '=') || asprintf(&e, "%s=%s", name, value) < 0)
		return -1;
	env_unset(*env, name);
	if (PMIx_Argv_append_nosize(env, e) != PMIX_SUCCESS) {
		free(e);
		return -1;
	}
	free(e);
	return 0;
}

/* "NAME=VALUE" from a raw entry. */
static int env_put(char ***env, const char *entry)
{
	const char *eq = strchr(entry ? entry : "", '=');
	char *name;
	int rc;

	if (!eq || eq == entry)
		return -1;
	name = strndup(entry, (size_t)(eq - entry));
	rc = name ? env_set(env, name, eq + 1) : -1;
	free(name);
	return rc;
}

/* prepend (1) or append (0) value to name with the separator. */
static int env_join(char ***env, const pmix_envar_t *e, int prepend)
{
	const char *old = env_get(*env, e->envar);
	char sep = e->separator ? e->separator : ':';
	char *v;
	int rc;

	if (!old || !*old)
		return env_set(env, e->envar, e->value ? e->value : "");
	if (asprintf(&v, prepend ? "%s%c%s" : "%3$s%2$c%1$s", e->value ? e->value : "", sep, old) <
	    0)
		return -1;
	rc = env_set(env, e->envar, v);
	free(v);
	return rc;
}

/* One PMIX_*_ENVAR directive applied to env. */
static pmix_status_t envar(st_t *s, char ***env, enum kind k, const pmix_info_t *i)
{
	const pmix_envar_t *e = i->value.type == PMIX_ENVAR ? &i->value.data.envar : NULL;

	if (k == K_UNSET) {
		if (!v_str(i))
			return fail(s, PMIX_ERR_BAD_PARAM, "%s needs a string", i->key);
		env_unset(*env, v_str(i));
		return PMIX_SUCCESS;
	}
	if (!e || !e->envar || !*e->envar)
		return fail(s, PMIX_ERR_BAD_PARAM, "%s needs a pmix_envar_t", i->key);
	if (k == K_ADD && env_get(*env, e->envar))
		return PMIX_SUCCESS;
	if ((k == K_SET || k == K_ADD) && env_set(env, e->envar, e->value ? e->value : "") == 0)
		return PMIX_SUCCESS;
	if ((k == K_PREPEND || k == K_APPEND) && env_join(env, e, k == K_PREPEND) == 0)
		return PMIX_SUCCESS;
	return fail(s, PMIX_ERR_BAD_PARAM, "bad environment directive %s", i->key);
}

/* ---- hosts -------------------------------------------------------------- */

/* Adds the names of a comma list ("vn1,vn2:4"), without slot counts. */
static int hosts_add(char ***hosts, const char *list)
{
	char **parts = PMIx_Argv_split(list ? list : "", ',');

	for (char **p = parts; p && *p; p++) {
		char *colon = strchr(*p, ':');

		if (colon)
			*colon = '\0';
		if (**p && PMIx_Argv_append_unique_nosize(hosts, *p) != PMIX_SUCCESS) {
			PMIx_Argv_free(parts);
			return -1;
		}
	}
	PMIx_Argv_free(parts);
	return 0;
}

/* A hostfile: one host per line, "#" comments, extra words ignored
 * ("slots=4"). */
static pmix_status_t hostfile_add(st_t *s, char ***hosts, const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[1024];
	int rc = 0;

	if (!f)
		return fail(s, PMIX_ERR_BAD_PARAM, "cannot read hostfile %s: %s",
			    path ? path : "(none)", strerror(errno));
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *w = strtok(line, " \t\r\n#");

		if (w && line[0] != '#')
			rc = hosts_add(hosts, w);
	}
	fclose(f);
	return rc ? fail(s, PMIX_ERR_NOMEM, "out of memory") : PMIX_SUCCESS;
}

/* ---- mapping ------------------------------------------------------------ */

/* "N:node", "N:socket", "N:core" (PMIX_PPR, or after "ppr:" in MAPBY). */
static pmix_status_t ppr(st_t *s, const char *v, bool reqd)
{
	char *end;
	long n = strtol(v ? v : "", &end, 10);

	if (n > 0 && n < 100000 && *end == ':' && !strncmp(end + 1, "node", 4)) {
		s->ppn = (uint32_t)n;
		return PMIX_SUCCESS;
	}
	if (reqd)
		return fail(s, PMIX_ERR_NOT_SUPPORTED, "ppr \"%s\": only N:node", v ? v : "");
	return PMIX_SUCCESS;
}

static void set_str(char **field, const char *v)
{
	free(*field);
	*field = v ? strdup(v) : NULL;
}

/* Modifiers after the policy: PE=n, OVERSUBSCRIBE, NOOVERSUBSCRIBE. */
static void mapby_mods(st_t *s, const char *mods)
{
	char **m = PMIx_Argv_split(mods, ':');

	for (char **p = m; p && *p; p++) {
		if (!strncasecmp(*p, "PE=", 3) && atoi(*p + 3) > 0)
			s->cpus = (uint32_t)atoi(*p + 3);
		else if (!strcasecmp(*p, "OVERSUBSCRIBE"))
			s->overlap = true;
		else if (!strcasecmp(*p, "NOOVERSUBSCRIBE"))
			s->overlap = false;
	}
	PMIx_Argv_free(m);
}

static pmix_status_t mapby(st_t *s, const char *v, bool reqd)
{
	static const char *const block[] = { "slot",    "core",  "hwthread", "socket",
					     "package", "numa",  "l1cache",  "l2cache",
					     "l3cache", "board", NULL };
	const char *colon = strchr(v ? v : "", ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v ? v : "");

	if (!v)
		return fail(s, PMIX_ERR_BAD_PARAM, "PMIX_MAPBY needs a string");
	if (!strncasecmp(v, "ppr", n) && n == 3)
		return ppr(s, colon + 1, reqd);
	if (n == 4 && !strncasecmp(v, "node", 4))
		set_str(&s->dist, "cyclic");
	for (int i = 0; block[i]; i++)
		if (n == strlen(block[i]) && !strncasecmp(v, block[i], n))
			set_str(&s->dist, "block");
	if (!s->dist && reqd && n)
		return fail(s, PMIX_ERR_NOT_SUPPORTED, "mapping policy \"%.*s\"", (int)n, v);
	if (colon)
		mapby_mods(s, colon + 1);
	return PMIX_SUCCESS;
}

static pmix_status_t rankby(st_t *s, const char *v, bool reqd)
{
	if (v && !strncasecmp(v, "node", 4))
		set_str(&s->dist, "cyclic");
	else if (v && (!strncasecmp(v, "slot", 4) || !strncasecmp(v, "fill", 4)))
		set_str(&s->dist, "block");
	else if (reqd)
		return fail(s, PMIX_ERR_NOT_SUPPORTED, "ranking policy \"%s\"", v ? v : "");
	return PMIX_SUCCESS;
}

static pmix_status_t bindto(st_t *s, const char *v, bool reqd)
{
	static const char *const map[][2] = {
		{ "none", "none" },      { "core", "cores" },      { "hwthread", "threads" },
		{ "socket", "sockets" }, { "package", "sockets" }, { "numa", "ldoms" },
		{ "board", "boards" },
	};
	size_t n = strcspn(v ? v : "", ":");

	for (size_t i = 0; v && i < sizeof(map) / sizeof(map[0]); i++)
		if (n == strlen(map[i][0]) && !strncasecmp(v, map[i][0], n)) {
			if (!s->bind || strncmp(s->bind, "map_cpu", 7))
				set_str(&s->bind, map[i][1]);
			return PMIX_SUCCESS;
		}
	return reqd ? fail(s, PMIX_ERR_NOT_SUPPORTED, "binding \"%s\"", v ? v : "") : PMIX_SUCCESS;
}

static pmix_status_t cpulist(st_t *s, const char *v)
{
	char *b;

	if (!v || !*v || strspn(v, "0123456789,") != strlen(v))
		return fail(s, PMIX_ERR_BAD_PARAM, "PMIX_CPU_LIST \"%s\"", v ? v : "");
	if (asprintf(&b, "map_cpu:%s", v) < 0)
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	free(s->bind);
	s->bind = b;
	return PMIX_SUCCESS;
}

/* ---- one attribute ------------------------------------------------------ */

/* Attributes that only make sense for the whole step. */
static pmix_status_t job_attr(st_t *s, enum kind k, const pmix_info_t *i, bool reqd)
{
	long n;

	switch (k) {
	case K_MAPBY: return mapby(s, v_str(i), reqd);
	case K_PPR: return ppr(s, v_str(i), reqd);
	case K_RANKBY: return rankby(s, v_str(i), reqd);
	case K_BINDTO: return bindto(s, v_str(i), reqd);
	case K_CPULIST: return cpulist(s, v_str(i));
	case K_REPORTBIND: s->report_bind = s->report_bind || v_bool(i); return PMIX_SUCCESS;
	case K_INDEXARGV: s->index_argv = s->index_argv || v_bool(i); return PMIX_SUCCESS;
	case K_NOOVER:
		if (v_bool(i))
			s->overlap = false;
		return PMIX_SUCCESS;
	case K_NOHEAD: s->nohead = v_bool(i); return PMIX_SUCCESS;
	case K_NOTIFY: s->plan->notify = v_bool(i); return PMIX_SUCCESS;
	case K_NONPMI: s->plan->nonpmi = v_bool(i); return PMIX_SUCCESS;
	case K_CHILDSEP: s->plan->child_sep = v_bool(i); return PMIX_SUCCESS;
	/* one srun for every app: any app (or the job) that says false
	 * silences the channel for all; only a real false counts */
	case K_FWDOUT:
		if (i->value.type == PMIX_BOOL && !i->value.data.flag)
			s->no_out = true;
		return PMIX_SUCCESS;
	case K_FWDERR:
		if (i->value.type == PMIX_BOOL && !i->value.data.flag)
			s->no_err = true;
		return PMIX_SUCCESS;
	case K_FWDIN: s->fwd_in = s->fwd_in || v_bool(i); return PMIX_SUCCESS;
	case K_STDINTGT: return stdin_target(s, i);
	case K_TAG: s->tag = s->tag || v_bool(i); return PMIX_SUCCESS;
	case K_TIMESTAMP: s->stamp = s->stamp || v_bool(i); return PMIX_SUCCESS;
	case K_MERGE: s->merge = s->merge || v_bool(i); return PMIX_SUCCESS;
	case K_XML: s->xml = s->xml || v_bool(i); return PMIX_SUCCESS;
	case K_OUTFILE: return out_name(s, i, &s->outfile);
	case K_OUTDIR: return out_name(s, i, &s->outdir);
	case K_PATTERN: s->pattern = s->pattern || v_bool(i); return PMIX_SUCCESS;
	case K_FILEONLY:
		/* file output is never copied to the parent's (docs/iof.md) */
		if (i->value.type == PMIX_BOOL && !i->value.data.flag && reqd)
			s->copy_reqd = true;
		return PMIX_SUCCESS;
	case K_CWD: s->cwd = v_bool(i); return PMIX_SUCCESS;
	default: break;
	}
	if ((n = v_num(i)) < 0 || (k == K_CPUS && (n == 0 || n > 4096)))
		return fail(s, PMIX_ERR_BAD_PARAM, "%s: not a number", i->key);
	if (k == K_CPUS)
		s->cpus = (uint32_t)n;
	else if (k == K_SPTIMEOUT)
		s->sp_timeout = (uint32_t)n;
	else if (!s->plan->timeout || (n && (uint32_t)n < s->plan->timeout))
		s->plan->timeout = (uint32_t)n;
	return PMIX_SUCCESS;
}

/* One attribute, job level (a == NULL) or of app a. */
static pmix_status_t attr(st_t *s, app_t *a, const pmix_info_t *i)
{
	enum kind k = lookup(i->key);
	bool reqd = i->flags & PMIX_INFO_REQD;
	char ***env = a ? &a->env : &s->env;

	switch (k) {
	case K_IGNORE: return PMIX_SUCCESS;
	case K_UNSUPPORTED:
		return reqd ? fail(s, PMIX_ERR_NOT_SUPPORTED,
				   "attribute %s is not "
				   "supported by srun spawns",
				   i->key) :
			      PMIX_SUCCESS;
	case K_HOST:
		if (!v_str(i) || hosts_add(a ? &a->hosts : &s->hosts, v_str(i)) < 0)
			return fail(s, PMIX_ERR_BAD_PARAM, "bad %s", i->key);
		return PMIX_SUCCESS;
	case K_HOSTFILE: return hostfile_add(s, a ? &a->hosts : &s->hosts, v_str(i));
	case K_WDIR:
		if (!v_str(i) || v_str(i)[0] != '/')
			return fail(s, PMIX_ERR_BAD_PARAM, "%s must be an absolute path", i->key);
		set_str(a ? &a->wdir : &s->wdir, v_str(i));
		return PMIX_SUCCESS;
	case K_PREFIX:
		if (!v_str(i) || v_str(i)[0] != '/')
			return fail(s, PMIX_ERR_BAD_PARAM, "%s must be an absolute path", i->key);
		set_str(a ? &a->prefix : &s->apps[0].prefix, v_str(i));
		if (!a) /* job level: every app */
			for (size_t j = 1; j < s->napps; j++)
				set_str(&s->apps[j].prefix, v_str(i));
		return PMIX_SUCCESS;
	case K_SET:
	case K_ADD:
	case K_UNSET:
	case K_PREPEND:
	case K_APPEND: return envar(s, env, k, i);
	default: return job_attr(s, k, i, reqd);
	}
}

/* ---- building the plan -------------------------------------------------- */

/* Variables of the parent srun's environment that a child srun would
 * read as options or that belong to the parent step. */
static bool stripped(const char *e)
{
	static const char *const names[] = {
		"SLURM_NTASKS=",
		"SLURM_NPROCS=",
		"SLURM_NNODES=",
		"SLURM_JOB_NUM_NODES=",
		"SLURM_NTASKS_PER_NODE=",
		"SLURM_NTASKS_PER_SOCKET=",
		"SLURM_NTASKS_PER_CORE=",
		"SLURM_CPUS_PER_TASK=",
		"SLURM_DISTRIBUTION=",
		"SLURM_CPU_BIND",
		"SLURM_OVERLAP=",
		"SLURM_EXCLUSIVE=",
		"SLURM_EXACT=",
		"SLURM_WHOLE=",
		"SLURM_MPI_TYPE=",
		"SLURM_STEP_",
		"SLURM_WORKING_DIR=",
		"SLURM_KILL_BAD_EXIT=",
		"SLURM_MULTI_PROG=",
		"SLURM_HOSTFILE=",
		"SLURM_ARBITRARY_NODELIST=",
		"SLURM_EXCLUDE=",
		"SLURM_NODELIST_REQ=",
		"SLURM_MEM_PER_CPU=",
		"SLURM_MEM_PER_NODE=",
		"SLURM_MEM_PER_GPU=",
		"SLURMIX_SPAWN",
		"SLURMIX_PARENT",
		NULL,
	};

	for (int i = 0; names[i]; i++)
		if (!strncmp(e, names[i], strlen(names[i])))
			return true;
	return false;
}

static pmix_status_t base_env(st_t *s)
{
	for (char **e = s->ctx->env; e && *e; e++)
		if (!stripped(*e) && PMIx_Argv_append_nosize(&s->env, *e) != PMIX_SUCCESS)
			return fail(s, PMIX_ERR_NOMEM, "out of memory");
	return PMIX_SUCCESS;
}

static pmix_status_t check_apps(st_t *s, const pmix_app_t *apps, size_t napps)
{
	uint64_t total = 0;

	if (!apps || !napps || napps > 1000)
		return fail(s, PMIX_ERR_BAD_PARAM, "no apps");
	for (size_t i = 0; i < napps; i++) {
		if (!apps[i].cmd || !*apps[i].cmd)
			return fail(s, PMIX_ERR_JOB_NO_EXE_SPECIFIED, "app %zu has no command", i);
		if (apps[i].maxprocs <= 0)
			return fail(s, PMIX_ERR_BAD_PARAM, "app %zu: maxprocs %d", i,
				    apps[i].maxprocs);
		total += (uint64_t)apps[i].maxprocs;
	}
	if (total > 1000000)
		return fail(s, PMIX_ERR_BAD_PARAM, "%llu processes", (unsigned long long)total);
	s->plan->ntasks = (uint32_t)total;
	return PMIX_SUCCESS;
}

static bool in_alloc(const st_t *s, const char *host)
{
	for (char **a = s->ctx->alloc; a && *a; a++)
		if (!strcmp(*a, host))
			return true;
	return false;
}

/* The nodes the step may use: the requested hosts (job level and every
 * app's), else the allocation; without the head node if asked. */
static pmix_status_t pool(st_t *s, char ***out)
{
	char **src = s->hosts;

	for (size_t i = 0; i < s->napps; i++)
		for (char **h = s->apps[i].hosts; h && *h; h++)
			if (PMIx_Argv_append_unique_nosize(&s->hosts, *h) != PMIX_SUCCESS)
				return fail(s, PMIX_ERR_NOMEM, "out of memory");
	src = s->hosts ? s->hosts : s->ctx->alloc;
	for (char **h = src; h && *h; h++) {
		if (!in_alloc(s, *h))
			return fail(s, PMIX_ERR_JOB_FAILED_TO_MAP,
				    "node %s is not in "
				    "job %u's allocation",
				    *h, s->ctx->job);
		if (s->nohead && s->ctx->alloc && !strcmp(*h, s->ctx->alloc[0]))
			continue;
		if (PMIx_Argv_append_nosize(out, *h) != PMIX_SUCCESS)
			return fail(s, PMIX_ERR_NOMEM, "out of memory");
	}
	if (!*out)
		return fail(s, PMIX_ERR_JOB_FAILED_TO_MAP, "no node left to run on");
	return PMIX_SUCCESS;
}

static int add(char ***v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add(char ***v, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	rc = PMIx_Argv_append_nosize(v, s) == PMIX_SUCCESS ? 0 : -1;
	free(s);
	return rc;
}

/* --nodes, --nodelist/--exclude, --ntasks-per-node. */
static pmix_status_t node_opts(st_t *s, char ***argv)
{
	char **nodes = NULL, *list;
	uint32_t np = 0, want, nt = s->plan->ntasks;
	pmix_status_t st = pool(s, &nodes);
	int rc = 0;

	if (st != PMIX_SUCCESS)
		return PMIx_Argv_free(nodes), st;
	np = (uint32_t)PMIx_Argv_count(nodes);
	want = s->ppn ? (nt + s->ppn - 1) / s->ppn : (nt < np ? nt : np);
	if (want > np) {
		PMIx_Argv_free(nodes);
		return fail(s, PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
			    "%u processes at %u "
			    "per node need %u nodes, %u available",
			    nt, s->ppn, want, np);
	}
	rc |= add(argv, "--nodes=%u", want);
	if (s->ppn)
		rc |= add(argv, "--ntasks-per-node=%u", s->ppn);
	if (s->hosts) {
		for (uint32_t i = want; i < np; i++) { /* the first `want` */
			free(nodes[i]);
			nodes[i] = NULL;
		}
		list = PMIx_Argv_join(nodes, ',');
		rc |= !list || add(argv, "--nodelist=%s", list);
		free(list);
	} else if (s->nohead && s->ctx->alloc && s->ctx->alloc[0]) {
		rc |= add(argv, "--exclude=%s", s->ctx->alloc[0]);
	}
	PMIx_Argv_free(nodes);
	return rc ? fail(s, PMIX_ERR_NOMEM, "out of memory") : PMIX_SUCCESS;
}

/* Where the output goes (docs/iof.md, "Spawned steps' output"): where
 * the parent srun puts its own (its --output/--error patterns, which the
 * child resolves for its own step), always appended to, so that a file
 * the parent's tasks write is never cut; PMIX_OUTPUT_TO_FILE's or
 * PMIX_OUTPUT_TO_DIRECTORY's files instead (a pattern's one file gets
 * both channels); silenced channels to nobody (the tasks' output is
 * still captured for PMIx_IOF_pull). Merged, stderr goes with stdout: to
 * its file (Slurm puts both into --output without --error), or into the
 * same pipe in the task (stepd/capture.c). */
static bool err_silenced(const st_t *s)
{
	return s->merge ? s->no_out : s->no_err; /* merged: with stdout */
}

static int output_opts(st_t *s, char ***argv)
{
	const char *ns = "slurmix.%j.%s.%t"; /* the child's nspace.rank */
	int w = plug_rank_width(s->plan->ntasks);
	bool err_out = err_silenced(s);
	int rc = add(argv, "--open-mode=append");

	if (s->no_out)
		rc |= add(argv, "--output=/dev/null");
	else if (s->outdir)
		rc |= add(argv, "--output=%s/slurmix.%%j.%%s/rank.%%%dt/stdout", s->outdir, w);
	else if (s->outfile && s->pattern)
		rc |= add(argv, "--output=%s", s->outfile);
	else if (s->outfile)
		rc |= add(argv, "--output=%s.%s.stdout", s->outfile, ns);
	else if (s->ctx->out)
		rc |= add(argv, "--output=%s", s->ctx->out);
	if (err_out)
		rc |= add(argv, "--error=/dev/null");
	else if (s->merge)
		return rc; /* with the output */
	else if (s->outdir)
		rc |= add(argv, "--error=%s/slurmix.%%j.%%s/rank.%%%dt/stderr", s->outdir, w);
	else if (s->outfile && s->pattern)
		rc |= add(argv, "--error=%s", s->outfile);
	else if (s->outfile)
		rc |= add(argv, "--error=%s.%s.stderr", s->outfile, ns);
	else if (s->ctx->err)
		rc |= add(argv, "--error=%s", s->ctx->err);
	else if (s->no_out) /* stderr would follow --output otherwise */
		rc |= add(argv, "--error=%s", s->ctx->out ? s->ctx->out : "all");
	return rc;
}

/* The output attributes that need every other one first. */
static pmix_status_t output_check(st_t *s)
{
	pmix_status_t st;

	if (s->copy_reqd && (s->outfile || s->outdir))
		return fail(s, PMIX_ERR_NOT_SUPPORTED,
			    "%s false: file output is not copied to the parent's output",
			    PMIX_IOF_FILE_ONLY);
	if ((st = out_pattern(s)) != PMIX_SUCCESS)
		return st;
	return out_dir_abs(s);
}

static pmix_status_t srun_opts(st_t *s, char ***argv)
{
	plug_spawn_plan_t *p = s->plan;
	pmix_status_t st;
	int rc = 0;

	rc |= add(argv, "%s", s->ctx->srun);
	rc |= add(argv, "--mpi=slurmix");
	rc |= add(argv, "--jobid=%u", s->ctx->job);
	rc |= add(argv, "--ntasks=%u", p->ntasks);
	rc |= add(argv, "--kill-on-bad-exit=1");
	if (s->fwd_in && s->stdin_tgt >= (int64_t)p->ntasks)
		return fail(s, PMIX_ERR_BAD_PARAM, "%s %lld: the new step has %u ranks",
			    PMIX_STDIN_TGT, (long long)s->stdin_tgt, p->ntasks);
	/* pushes only (the stepds hold the stdin open for them) */
	if (s->fwd_in && s->stdin_tgt >= 0)
		rc |= add(argv, "--input=%lld", (long long)s->stdin_tgt);
	else
		rc |= add(argv, "--input=%s", s->fwd_in ? "all" : "none");
	if (s->overlap) /* share the CPUs, and more tasks than CPUs */
		rc |= add(argv, "--overlap") | add(argv, "--overcommit");
	/* not forwarded: to nobody (the tasks' output is still captured for
	 * PMIx_IOF_pull, docs/iof.md) */
	if ((st = output_check(s)) != PMIX_SUCCESS)
		return st;
	rc |= output_opts(s, argv);
	if (s->dist)
		rc |= add(argv, "--distribution=%s", s->dist);
	if (s->cpus)
		rc |= add(argv, "--cpus-per-task=%u", s->cpus);
	if (s->bind || s->report_bind) /* ("verbose" alone keeps the task plugin's binding) */
		rc |= add(argv, "--cpu-bind=%s%s%s", s->report_bind ? "verbose" : "",
			  s->report_bind && s->bind ? "," : "", s->bind ? s->bind : "");
	if (s->napps == 1 && (s->apps[0].wdir || s->wdir))
		rc |= add(argv, "--chdir=%s", s->apps[0].wdir ? s->apps[0].wdir : s->wdir);
	else if (s->wdir)
		rc |= add(argv, "--chdir=%s", s->wdir);
	if (rc)
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	return node_opts(s, argv);
}

/* PATH and LD_LIBRARY_PATH under a prefix. */
static int prefix_env(char ***env, const char *prefix)
{
	pmix_envar_t bin = { .envar = (char *)"PATH", .separator = ':' };
	pmix_envar_t lib = { .envar = (char *)"LD_LIBRARY_PATH", .separator = ':' };
	char *b = NULL, *l = NULL;
	int rc = -1;

	if (asprintf(&b, "%s/bin", prefix) >= 0 && asprintf(&l, "%s/lib", prefix) >= 0) {
		bin.value = b;
		lib.value = l;
		rc = env_join(env, &bin, 1) | env_join(env, &lib, 1);
	}
	free(b);
	free(l);
	return rc;
}

/* The app's environment: the srun's, its env entries, its directives
 * (already applied to a->env on top of an empty list, so replay them
 * here in order), its prefix. */
static pmix_status_t app_env(st_t *s, app_t *a, const pmix_app_t *app)
{
	char **mine = a->env;
	pmix_status_t st;

	a->env = PMIx_Argv_copy(s->env);
	if (s->env && !a->env)
		return PMIx_Argv_free(mine), fail(s, PMIX_ERR_NOMEM, "out of memory");
	for (char **e = app->env; e && *e; e++)
		if (env_put(&a->env, *e) < 0)
			return PMIx_Argv_free(mine),
			       fail(s, PMIX_ERR_BAD_PARAM, "bad env entry \"%s\"", *e);
	PMIx_Argv_free(mine);
	for (size_t j = 0; j < app->ninfo; j++) {
		enum kind k = lookup(app->info[j].key);

		if (k >= K_SET && k <= K_APPEND &&
		    (st = envar(s, &a->env, k, &app->info[j])) != PMIX_SUCCESS)
			return st;
	}
	if (a->prefix && prefix_env(&a->env, a->prefix) < 0)
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	return PMIX_SUCCESS;
}

static int append_quoted(char **line, const char *word)
{
	char *n;
	int rc;

	if (word[0] && strcspn(word, " \t'\"\\") == strlen(word))
		rc = asprintf(&n, "%s %s", *line, word);
	else
		rc = asprintf(&n, "%s '%s'", *line, word);
	free(*line);
	*line = rc < 0 ? NULL : n;
	return rc < 0 ? -1 : 0;
}

/* "first-last [env -C dir -u X Y=v] cmd args" for app i. */
static int mp_line(st_t *s, size_t i, const pmix_app_t *app, uint32_t first, char **out)
{
	app_t *a = &s->apps[i];
	char *line = NULL;
	int rc = asprintf(&line, "%u-%u env", first, first + (uint32_t)app->maxprocs - 1) < 0;

	if (!rc && (a->wdir || s->wdir))
		rc = append_quoted(&line, "-C") ||
		     append_quoted(&line, a->wdir ? a->wdir : s->wdir);
	for (char **e = s->env; !rc && e && *e; e++) {
		char *name = strndup(*e, strcspn(*e, "="));

		if (name && !env_get(a->env, name))
			rc = append_quoted(&line, "-u") || append_quoted(&line, name);
		free(name);
	}
	for (char **e = a->env; !rc && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name = eq ? strndup(*e, (size_t)(eq - *e)) : NULL;
		const char *old = name ? env_get(s->env, name) : NULL;

		if (name && (!old || strcmp(old, eq + 1)))
			rc = append_quoted(&line, *e);
		free(name);
	}
	if (!rc)
		rc = append_quoted(&line, app->cmd);
	for (char **p = app->argv && app->argv[0] ? app->argv + 1 : NULL; !rc && p && *p; p++)
		rc = append_quoted(&line, *p);
	if (!rc && s->index_argv) /* srun puts the task's rank there */
		rc = append_quoted(&line, "%t");
	*out = line;
	return rc ? -1 : 0;
}

static pmix_status_t multiprog(st_t *s, const pmix_app_t *apps, char ***argv)
{
	char *text = strdup(""), *line = NULL, *n;
	uint32_t first = 0;

	for (size_t i = 0; text && i < s->napps; i++) {
		if (mp_line(s, i, &apps[i], first, &line) < 0 ||
		    asprintf(&n, "%s%s\n", text, line) < 0)
			n = NULL;
		free(text);
		free(line);
		line = NULL;
		text = n;
		first += (uint32_t)apps[i].maxprocs;
	}
	if (!text || add(argv, "--multi-prog") || add(argv, "%s", s->ctx->mpfile)) {
		free(text);
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	}
	s->plan->multiprog = text;
	return PMIX_SUCCESS;
}

/* The command: one app directly, several (or any with PMIX_INDEX_ARGV)
 * through --multi-prog. */
static pmix_status_t command(st_t *s, const pmix_app_t *apps, char ***argv, char ***env)
{
	if (s->napps > 1 || s->index_argv) {
		if (!s->ctx->mpfile)
			return fail(s, PMIX_ERR_NOT_SUPPORTED, "no place for a multi-prog file");
		pmix_status_t st = multiprog(s, apps, argv);

		*env = s->env;
		s->env = NULL;
		return st;
	}
	if (add(argv, "%s", apps[0].cmd) < 0)
		return fail(s, PMIX_ERR_NOMEM, "out of memory");
	for (char **p = apps[0].argv && apps[0].argv[0] ? apps[0].argv + 1 : NULL; p && *p; p++)
		if (add(argv, "%s", *p) < 0)
			return fail(s, PMIX_ERR_NOMEM, "out of memory");
	*env = s->apps[0].env;
	s->apps[0].env = NULL;
	return PMIX_SUCCESS;
}

static pmix_status_t walk(st_t *s, const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps)
{
	pmix_status_t st = PMIX_SUCCESS;

	for (size_t i = 0; st == PMIX_SUCCESS && i < ninfo; i++)
		st = attr(s, NULL, &info[i]);
	for (size_t a = 0; st == PMIX_SUCCESS && a < s->napps; a++) {
		if (apps[a].cwd && apps[a].cwd[0] == '/')
			set_str(&s->apps[a].wdir, apps[a].cwd);
		for (size_t i = 0; st == PMIX_SUCCESS && i < apps[a].ninfo; i++) {
			enum kind k = lookup(apps[a].info[i].key);

			if (k < K_SET || k > K_APPEND) /* envars: in app_env */
				st = attr(s, &s->apps[a], &apps[a].info[i]);
		}
	}
	for (size_t a = 0; st == PMIX_SUCCESS && a < s->napps; a++)
		st = app_env(s, &s->apps[a], &apps[a]);
	return st;
}

/* The child srun never labels (Slurm's "0: " would read as the parent's
 * rank 0): under the parent's --label its lines are tagged with their
 * own nspace and rank by its step daemons instead. */
static int format_env(st_t *s, char ***env)
{
	char v[40] = "";
	bool tag = s->tag || s->ctx->label;
	bool files = !s->no_out || !err_silenced(s);

	env_unset(*env, "SLURM_LABELIO");
	/* the step daemons make the ranks' directories */
	if (s->outdir && files && env_set(env, PLUG_IOF_DIR_ENV, s->outdir) < 0)
		return -1;
	snprintf(v, sizeof(v), "%s%s%s%s", tag ? "tag," : "", s->stamp ? "timestamp," : "",
		 s->merge ? "merge," : "", s->xml ? "xml," : "");
	if (!*v)
		return 0;
	v[strlen(v) - 1] = '\0';
	return env_set(env, PLUG_IOF_FORMAT_ENV, v);
}

static void st_free(st_t *s)
{
	for (size_t i = 0; s->apps && i < s->napps; i++) {
		free(s->apps[i].wdir);
		free(s->apps[i].prefix);
		PMIx_Argv_free(s->apps[i].env);
		PMIx_Argv_free(s->apps[i].hosts);
	}
	free(s->apps);
	PMIx_Argv_free(s->hosts);
	PMIx_Argv_free(s->env);
	free(s->dist);
	free(s->bind);
	free(s->outfile);
	free(s->outdir);
	free(s->wdir);
}

pmix_status_t plug_spawn_plan(const plug_spawn_ctx_t *ctx, const pmix_info_t *info, size_t ninfo,
			      const pmix_app_t *apps, size_t napps, plug_spawn_plan_t *plan)
{
	st_t s = {
		.ctx = ctx, .plan = plan, .overlap = ctx->overlap, .napps = napps, .stdin_tgt = -1
	};
	char **argv = NULL, **env = NULL;
	pmix_status_t st;

	memset(plan, 0, sizeof(*plan));
	if ((!info && ninfo) || !ctx->srun)
		return fail(&s, PMIX_ERR_BAD_PARAM, "bad request");
	if ((st = check_apps(&s, apps, napps)) != PMIX_SUCCESS)
		return st;
	if (!(s.apps = calloc(napps, sizeof(app_t))))
		return fail(&s, PMIX_ERR_NOMEM, "out of memory");
	if ((st = base_env(&s)) == PMIX_SUCCESS &&
	    (st = walk(&s, info, ninfo, apps)) == PMIX_SUCCESS &&
	    (st = srun_opts(&s, &argv)) == PMIX_SUCCESS)
		st = command(&s, apps, &argv, &env);
	if (st == PMIX_SUCCESS && s.sp_timeout)
		plan->timeout = s.sp_timeout;
	if (st == PMIX_SUCCESS && s.cwd && env_set(&env, PLUG_SPAWN_CWD_ENV, "1") < 0)
		st = fail(&s, PMIX_ERR_NOMEM, "out of memory");
	if (st == PMIX_SUCCESS && s.fwd_in && env_set(&env, PLUG_STDIN_ENV, "push") < 0)
		st = fail(&s, PMIX_ERR_NOMEM, "out of memory");
	if (st == PMIX_SUCCESS && format_env(&s, &env) < 0)
		st = fail(&s, PMIX_ERR_NOMEM, "out of memory");
	st_free(&s);
	if (st != PMIX_SUCCESS) {
		char err[sizeof(plan->err)];

		memcpy(err, plan->err, sizeof(err));
		PMIx_Argv_free(argv);
		PMIx_Argv_free(env);
		free(plan->multiprog);
		memset(plan, 0, sizeof(*plan));
		memcpy(plan->err, err, sizeof(err));
		return st;
	}
	plan->argv = argv;
	plan->env = env;
	return PMIX_SUCCESS;
}

void plug_spawn_plan_free(plug_spawn_plan_t *plan)
{
	if (!plan)
		return;
	PMIx_Argv_free(plan->argv);
	PMIx_Argv_free(plan->env);
	free(plan->multiprog);
	plan->argv = plan->env = NULL;
	plan->multiprog = NULL;
}
