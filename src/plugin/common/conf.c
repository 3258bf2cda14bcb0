/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/conf.c - mpi.conf options and their environment overrides; see
 * common/conf.h. Each option is one row of rows[]: its key, its field of
 * plug_conf (the field's type says the option's type), its default, its
 * range and its override. Everything else walks the rows in order: the
 * defaults (plug_conf_reset), the options slurmd parses mpi.conf with
 * (plug_conf_options), reading the parsed or unpacked table
 * (plug_conf_set), the table packed for slurmstepd (plug_conf_get),
 * `scontrol show config` (plug_conf_printable) and the overrides
 * (plug_conf_env). Adding an option is one row plus its field.
 *
 * Row order is the order slurmd packs and scontrol prints the options.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "lib/util.h"

#ifndef PLUG_CLIENT_LIBDIR
#define PLUG_CLIENT_LIBDIR "/usr/local/lib/slurmix"
#endif
#define PLUG_TIMEOUT_MAX (7 * 86400)

/* All zero until plug_conf_reset(), which init() calls before Slurm calls
 * anything else. */
plug_conf_t plug_conf;

/* One option. Exactly one of u32, flag and path is set: its field. */
struct conf_row {
	const char *key;       /* mpi.conf key, also the name printed */
	const char *env;       /* the override, or NULL for none */
	uint32_t *u32;         /* a number in [min, max] */
	bool *flag;            /* yes/no */
	char **path;           /* a string; an override must be absolute */
	uint32_t dflt;         /* default of u32 or flag */
	const char *dflt_path; /* default of path (NULL: unset) */
	uint32_t min, max;     /* u32: range, in mpi.conf and in the override */
	uint32_t out_of_range; /* u32: taken instead of mpi.conf's value
				 * outside [min, max] (logged) */
	bool env_only_off;     /* flag: the override can only turn it off */
};

static const struct conf_row rows[] = {
	{ .key = "SlurmixTimeout",
	  .env = "SLURMIX_TIMEOUT",
	  .u32 = &plug_conf.timeout,
	  .dflt = 300,
	  .min = 1,
	  .max = PLUG_TIMEOUT_MAX,
	  .out_of_range = 300 },
	{ .key = "SlurmixClientLibDir",
	  .env = "SLURMIX_CLIENT_LIBDIR",
	  .path = &plug_conf.client_libdir,
	  .dflt_path = PLUG_CLIENT_LIBDIR },
	{ .key = "SlurmixSetLdLibraryPath",
	  .env = "SLURMIX_SET_LD_LIBRARY_PATH",
	  .flag = &plug_conf.set_ld_library_path,
	  .dflt = true },
	{ .key = "SlurmixDebug",
	  .env = "SLURMIX_DEBUG",
	  .u32 = &plug_conf.debug,
	  .dflt = 0,
	  .min = 0,
	  .max = 3,
	  .out_of_range = 3 },
	/* No override on purpose: slurmstepd creates directories there as
	 * root, so only the admin chooses it. */
	{ .key = "SlurmixTmpDir", .path = &plug_conf.tmpdir },
	{ .key = "SlurmixSpawnOverlap",
	  .env = "SLURMIX_SPAWN_OVERLAP",
	  .flag = &plug_conf.spawn_overlap,
	  .dflt = true },
	{ .key = "SlurmixSpawnEndWithParent",
	  .env = "SLURMIX_SPAWN_END_WITH_PARENT",
	  .flag = &plug_conf.spawn_end_with_parent,
	  .dflt = true },
	{ .key = "SlurmixFastStepEnd",
	  .env = "SLURMIX_FAST_STEP_END",
	  .flag = &plug_conf.fast_step_end,
	  .dflt = true },
	{ .key = "SlurmixEventCacheBytes",
	  .env = "SLURMIX_EVENT_CACHE_BYTES",
	  .u32 = &plug_conf.event_cache_bytes,
	  .dflt = 1048576,
	  .min = 0,
	  .max = 1073741824,
	  .out_of_range = 1048576 },
	{ .key = "SlurmixEventQueueBytes",
	  .env = "SLURMIX_EVENT_QUEUE_BYTES",
	  .u32 = &plug_conf.event_queue_bytes,
	  .dflt = 262144,
	  .min = 0,
	  .max = 1073741824,
	  .out_of_range = 262144 },
	{ .key = "SlurmixEventCacheAge",
	  .env = "SLURMIX_EVENT_CACHE_AGE",
	  .u32 = &plug_conf.event_cache_age,
	  .dflt = 60,
	  .min = 0,
	  .max = 86400,
	  .out_of_range = 60 },
	/* Never endless: a host's wait for handlers always ends. */
	{ .key = "SlurmixEventTimeout",
	  .env = "SLURMIX_EVENT_TIMEOUT",
	  .u32 = &plug_conf.event_timeout,
	  .dflt = 10,
	  .min = 1,
	  .max = 3600,
	  .out_of_range = 10 },
	/* Raising a step's CPU share is the admin's call. */
	{ .key = "SlurmixTaskWeight",
	  .env = "SLURMIX_TASK_WEIGHT",
	  .flag = &plug_conf.task_weight,
	  .dflt = true,
	  .env_only_off = true },
	/* A user may turn capture off for a step; only the admin may force
	 * it on. */
	{ .key = "SlurmixIOF",
	  .env = "SLURMIX_IOF",
	  .flag = &plug_conf.iof,
	  .dflt = true,
	  .env_only_off = true },
	{ .key = "SlurmixIOFHistory",
	  .env = "SLURMIX_IOF_HISTORY",
	  .u32 = &plug_conf.iof_history,
	  .dflt = 65536,
	  .min = 2,
	  .max = 16777216,
	  .out_of_range = 65536 },
	{ .key = "SlurmixIOFQueueBytes",
	  .env = "SLURMIX_IOF_QUEUE_BYTES",
	  .u32 = &plug_conf.iof_queue,
	  .dflt = 4194304,
	  .min = 65536,
	  .max = 268435456,
	  .out_of_range = 4194304 },
	/* Limits (docs/limits.md): no overrides, they protect the node. */
	{ .key = "SlurmixMaxConnections",
	  .u32 = &plug_conf.max_connections,
	  .dflt = 1024,
	  .min = 16,
	  .max = 1048576,
	  .out_of_range = 1024 },
	{ .key = "SlurmixMaxPending",
	  .u32 = &plug_conf.max_pending,
	  .dflt = 1024,
	  .min = 1,
	  .max = 1048576,
	  .out_of_range = 1024 },
	{ .key = "SlurmixMaxMessageMB",
	  .u32 = &plug_conf.max_message_mb,
	  .dflt = 256,
	  .min = 1,
	  .max = 256,
	  .out_of_range = 256 },
	{ .key = "SlurmixHelloTimeout",
	  .u32 = &plug_conf.hello_timeout,
	  .dflt = 10,
	  .min = 1,
	  .max = 3600,
	  .out_of_range = 10 },
	/* No override: it protects slurmctld, the admin's call. */
	{ .key = "SlurmixQueryCache",
	  .u32 = &plug_conf.query_cache,
	  .dflt = 5,
	  .min = 0,
	  .max = 3600,
	  .out_of_range = 5 },
};

#define ROWS (sizeof(rows) / sizeof(rows[0]))

/* The rows as Slurm's parser wants them, NULL-key terminated; filled once
 * (slurmd may ask from more than one thread). */
static s_p_options_t slurm_options[ROWS + 1];
static pthread_once_t slurm_options_once = PTHREAD_ONCE_INIT;

static void slurm_options_fill(void)
{
	for (size_t i = 0; i < ROWS; i++) {
		slurm_options[i].key = (char *)rows[i].key;
		slurm_options[i].type = rows[i].u32  ? S_P_UINT32 :
					rows[i].flag ? S_P_BOOLEAN :
						       S_P_STRING;
	}
}

static s_p_options_t *options(void)
{
	pthread_once(&slurm_options_once, slurm_options_fill);
	return slurm_options;
}

void plug_conf_reset(void)
{
	for (size_t i = 0; i < ROWS; i++)
		if (rows[i].path)
			free(*rows[i].path);
	plug_conf = (plug_conf_t){ 0 };
	for (size_t i = 0; i < ROWS; i++) {
		const struct conf_row *r = &rows[i];

		if (r->u32)
			*r->u32 = r->dflt;
		else if (r->flag)
			*r->flag = r->dflt != 0;
		else if (r->dflt_path)
			*r->path = strdup(r->dflt_path);
	}
}

void plug_conf_options(s_p_options_t **full, int *full_cnt)
{
	plug_conf_transfer(full, full_cnt, options());
}

/* One option from mpi.conf as slurmd parsed it, or from the table slurmd
 * packed; an absent key keeps the default. */
static void row_read(const struct conf_row *r, s_p_hashtbl_t *tbl)
{
	char *v = NULL;

	if (r->u32) {
		plug_conf_get_u32(tbl, r->key, r->u32);
	} else if (r->flag) {
		plug_conf_get_bool(tbl, r->key, r->flag);
	} else if (plug_conf_get_str(tbl, r->key, &v)) {
		free(*r->path);
		*r->path = v;
	}
}

/* A number out of range in the file: logged, replaced. */
static void row_check(const struct conf_row *r)
{
	if (r->u32 && (*r->u32 < r->min || *r->u32 > r->max)) {
		plug_error("%s=%u out of range %u..%u, using %u", r->key, *r->u32, r->min, r->max,
			   r->out_of_range);
		*r->u32 = r->out_of_range;
	}
}

void plug_conf_set(s_p_hashtbl_t *tbl)
{
	plug_conf_reset();
	if (!tbl)
		return;
	for (size_t i = 0; i < ROWS; i++)
		row_read(&rows[i], tbl);
	for (size_t i = 0; i < ROWS; i++)
		row_check(&rows[i]);
}

/* The value as mpi.conf spells it, in num[size] for a number; NULL for an
 * unset path. */
static const char *row_text(const struct conf_row *r, char *num, size_t size)
{
	if (r->flag)
		return *r->flag ? "yes" : "no";
	if (r->path)
		return *r->path;
	snprintf(num, size, "%u", *r->u32);
	return num;
}

s_p_hashtbl_t *plug_conf_get(void)
{
	s_p_hashtbl_t *tbl = plug_conf_tbl_create(options());
	char num[16];

	for (size_t i = 0; i < ROWS; i++)
		plug_conf_tbl_add(tbl, rows[i].key, row_text(&rows[i], num, sizeof(num)));
	return tbl;
}

void *plug_conf_printable(void)
{
	void *list = plug_conf_list_create();
	char num[16];

	for (size_t i = 0; i < ROWS; i++)
		plug_conf_list_add(list, rows[i].key, row_text(&rows[i], num, sizeof(num)));
	return list;
}

/* One override that is set: 0 applied, 1 malformed (logged, not applied). */
static int row_env(const struct conf_row *r, const char *v)
{
	bool on;
	char *copy;

	if (r->u32) {
		if (plug_parse_u32(v, r->min, r->max, r->u32) == 0)
			return 0;
		plug_error("ignoring %s=\"%s\": not a number in range", r->env, v);
	} else if (r->flag) {
		if (plug_parse_bool(v, &on) == 0) {
			*r->flag = r->env_only_off ? *r->flag && on : on;
			return 0;
		}
		plug_error("ignoring %s=\"%s\": not yes/no", r->env, v);
	} else {
		if (v[0] == '/' && (copy = strdup(v))) {
			free(*r->path);
			*r->path = copy;
			return 0;
		}
		plug_error("ignoring %s=\"%s\": not an absolute path", r->env, v);
	}
	return 1;
}

int plug_conf_env(char **env)
{
	int bad = 0;

	for (size_t i = 0; i < ROWS; i++) {
		const char *name = rows[i].env;
		const char *v = !name ? NULL : env ? plug_env_get(env, name) : getenv(name);

		if (v)
			bad += row_env(&rows[i], v);
	}
	return bad;
}

const char *plug_conf_tmpdir(void)
{
	const char *t = plug_conf.tmpdir ? plug_conf.tmpdir : plug_slurm_tmpfs();

	return t && t[0] == '/' ? t : "/tmp";
}
