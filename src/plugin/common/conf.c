/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/conf.c - mpi.conf options and their environment overrides; see
 * common/conf.h. Keys, types and defaults live in the tables below so that
 * parsing, packing for the stepd and printing stay in step.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "lib/util.h"

#ifndef PLUG_CLIENT_LIBDIR
#define PLUG_CLIENT_LIBDIR "/usr/local/lib/slurmix"
#endif
#define PLUG_TIMEOUT_MAX (7 * 86400)

#define PLUG_CONF_DEFAULTS { .timeout = 300, .set_ld_library_path = true, \
			    .spawn_overlap = true, .fast_step_end = true, \
			    .task_weight = true }

plug_conf_t plug_conf = PLUG_CONF_DEFAULTS;

static s_p_options_t options[] = {
	{ .key = (char *)"SlurmixTimeout", .type = S_P_UINT32 },
	{ .key = (char *)"SlurmixClientLibDir", .type = S_P_STRING },
	{ .key = (char *)"SlurmixSetLdLibraryPath", .type = S_P_BOOLEAN },
	{ .key = (char *)"SlurmixDebug", .type = S_P_UINT32 },
	{ .key = (char *)"SlurmixTmpDir", .type = S_P_STRING },
	{ .key = (char *)"SlurmixSpawnOverlap", .type = S_P_BOOLEAN },
	{ .key = (char *)"SlurmixFastStepEnd", .type = S_P_BOOLEAN },
	{ .key = (char *)"SlurmixTaskWeight", .type = S_P_BOOLEAN },
	{ .key = NULL },
};

void plug_conf_reset(void)
{
	free(plug_conf.client_libdir);
	free(plug_conf.tmpdir);
	plug_conf = (plug_conf_t)PLUG_CONF_DEFAULTS;
	plug_conf.client_libdir = strdup(PLUG_CLIENT_LIBDIR);
}

void plug_conf_options(s_p_options_t **full, int *full_cnt)
{
	plug_conf_transfer(full, full_cnt, options);
}

/* Out-of-range numbers from the file: log, keep the default. */
static void check_ranges(void)
{
	if (plug_conf.timeout < 1 || plug_conf.timeout > PLUG_TIMEOUT_MAX) {
		plug_error("SlurmixTimeout=%u out of range 1..%u, using 300",
			   plug_conf.timeout, PLUG_TIMEOUT_MAX);
		plug_conf.timeout = 300;
	}
	if (plug_conf.debug > 3) {
		plug_error("SlurmixDebug=%u out of range 0..3, using 3",
			   plug_conf.debug);
		plug_conf.debug = 3;
	}
}

static void set_str(char **field, s_p_hashtbl_t *tbl, const char *key)
{
	char *v = NULL;

	if (plug_conf_get_str(tbl, key, &v)) {
		free(*field);
		*field = v;
	}
}

void plug_conf_set(s_p_hashtbl_t *tbl)
{
	plug_conf_reset();
	if (!tbl)
		return;
	plug_conf_get_u32(tbl, "SlurmixTimeout", &plug_conf.timeout);
	set_str(&plug_conf.client_libdir, tbl, "SlurmixClientLibDir");
	plug_conf_get_bool(tbl, "SlurmixSetLdLibraryPath",
			   &plug_conf.set_ld_library_path);
	plug_conf_get_u32(tbl, "SlurmixDebug", &plug_conf.debug);
	set_str(&plug_conf.tmpdir, tbl, "SlurmixTmpDir");
	plug_conf_get_bool(tbl, "SlurmixSpawnOverlap", &plug_conf.spawn_overlap);
	plug_conf_get_bool(tbl, "SlurmixFastStepEnd", &plug_conf.fast_step_end);
	plug_conf_get_bool(tbl, "SlurmixTaskWeight", &plug_conf.task_weight);
	check_ranges();
}

s_p_hashtbl_t *plug_conf_get(void)
{
	s_p_hashtbl_t *tbl = plug_conf_tbl_create(options);
	char num[16];

	snprintf(num, sizeof(num), "%u", plug_conf.timeout);
	plug_conf_tbl_add(tbl, "SlurmixTimeout", num);
	plug_conf_tbl_add(tbl, "SlurmixClientLibDir", plug_conf.client_libdir);
	plug_conf_tbl_add(tbl, "SlurmixSetLdLibraryPath",
			  plug_conf.set_ld_library_path ? "yes" : "no");
	snprintf(num, sizeof(num), "%u", plug_conf.debug);
	plug_conf_tbl_add(tbl, "SlurmixDebug", num);
	plug_conf_tbl_add(tbl, "SlurmixTmpDir", plug_conf.tmpdir);
	plug_conf_tbl_add(tbl, "SlurmixSpawnOverlap", plug_conf.spawn_overlap ? "yes" : "no");
	plug_conf_tbl_add(tbl, "SlurmixFastStepEnd", plug_conf.fast_step_end ? "yes" : "no");
	plug_conf_tbl_add(tbl, "SlurmixTaskWeight", plug_conf.task_weight ? "yes" : "no");
	return tbl;
}

void *plug_conf_printable(void)
{
	void *list = plug_conf_list_create();
	char num[16];

	snprintf(num, sizeof(num), "%u", plug_conf.timeout);
	plug_conf_list_add(list, "SlurmixTimeout", num);
	plug_conf_list_add(list, "SlurmixClientLibDir", plug_conf.client_libdir);
	plug_conf_list_add(list, "SlurmixSetLdLibraryPath",
			   plug_conf.set_ld_library_path ? "yes" : "no");
	snprintf(num, sizeof(num), "%u", plug_conf.debug);
	plug_conf_list_add(list, "SlurmixDebug", num);
	plug_conf_list_add(list, "SlurmixTmpDir", plug_conf.tmpdir);
	plug_conf_list_add(list, "SlurmixSpawnOverlap",
			   plug_conf.spawn_overlap ? "yes" : "no");
	plug_conf_list_add(list, "SlurmixFastStepEnd",
			   plug_conf.fast_step_end ? "yes" : "no");
	plug_conf_list_add(list, "SlurmixTaskWeight", plug_conf.task_weight ? "yes" : "no");
	return list;
}

/* One override: 0 applied or absent, 1 malformed (logged). */
static int env_u32(char **env, const char *name, uint32_t min, uint32_t max,
		   uint32_t *field)
{
	const char *v = env ? plug_env_get(env, name) : getenv(name);

	if (!v)
		return 0;
	if (plug_parse_u32(v, min, max, field) == 0)
		return 0;
	plug_error("ignoring %s=\"%s\": not a number in range", name, v);
	return 1;
}

static int env_bool(char **env, const char *name, bool *field)
{
	const char *v = env ? plug_env_get(env, name) : getenv(name);

	if (!v || plug_parse_bool(v, field) == 0)
		return 0;
	plug_error("ignoring %s=\"%s\": not yes/no", name, v);
	return 1;
}

static int env_str(char **env, const char *name, char **field)
{
	const char *v = env ? plug_env_get(env, name) : getenv(name);
	char *copy;

	if (!v)
		return 0;
	if (v[0] != '/' || !(copy = strdup(v))) {
		plug_error("ignoring %s=\"%s\": not an absolute path", name, v);
		return 1;
	}
	free(*field);
	*field = copy;
	return 0;
}

/* SlurmixTmpDir has no override on purpose: slurmstepd creates directories
 * there as root, so only the admin chooses it. SLURMIX_TASK_WEIGHT can
 * only turn the weighting off: raising a step's CPU share is the admin's
 * call. */
int plug_conf_env(char **env)
{
	bool weight = plug_conf.task_weight;
	int bad = 0;

	bad += env_u32(env, "SLURMIX_TIMEOUT", 1, PLUG_TIMEOUT_MAX, &plug_conf.timeout);
	bad += env_u32(env, "SLURMIX_DEBUG", 0, 3, &plug_conf.debug);
	bad += env_bool(env, "SLURMIX_SET_LD_LIBRARY_PATH",
			&plug_conf.set_ld_library_path);
	bad += env_str(env, "SLURMIX_CLIENT_LIBDIR", &plug_conf.client_libdir);
	bad += env_bool(env, "SLURMIX_SPAWN_OVERLAP", &plug_conf.spawn_overlap);
	bad += env_bool(env, "SLURMIX_FAST_STEP_END", &plug_conf.fast_step_end);
	bad += env_bool(env, "SLURMIX_TASK_WEIGHT", &weight);
	plug_conf.task_weight = plug_conf.task_weight && weight;
	return bad;
}

const char *plug_conf_tmpdir(void)
{
	const char *t = plug_conf.tmpdir ? plug_conf.tmpdir : plug_slurm_tmpfs();

	return t && t[0] == '/' ? t : "/tmp";
}
