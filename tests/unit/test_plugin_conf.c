/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_conf.c - common/conf.c (mpi.conf options, their packing for
 * the stepd, printing and environment overrides), without Slurm.
 *
 * The config half of slurm_adapter.c is replaced by a fake Slurm parser:
 * a table keeps "key", "value" pairs in the order they were added and
 * accepts only the keys and value types of the options it was created
 * with, as s_p_parse_pair does; the typed getters convert on the way out.
 * A table the test fills plays mpi.conf as slurmd parsed it; the table
 * plug_conf_get() returns is what slurmd packs for slurmstepd, which gets
 * it back through plug_conf_set(). The printable list records its pairs.
 * Log lines are kept so that error messages can be compared word for word.
 *
 * The expected outputs below (names, values, order, messages) are those of
 * the plugin as released; the round trip walks whatever options the plugin
 * declares, so a new option is covered without touching this file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "slurm_adapter.h"
#include "runner.h"

#define MAX_PAIRS 32

/* ---- the fake Slurm config parser and list ------------------------------ */

struct s_p_hashtbl {
	s_p_options_t opts[MAX_PAIRS];
	int nopts;
	char *key[MAX_PAIRS];
	char *val[MAX_PAIRS];
	int n;
};

typedef struct {
	char *name[MAX_PAIRS];
	char *value[MAX_PAIRS];
	int n;
} fake_list_t;

static char log_text[4096];
static const char *tmpfs;

void plug_log(int level, const char *fmt, ...)
{
	size_t len = strlen(log_text);
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(log_text + len, sizeof(log_text) - len, fmt, ap);
	va_end(ap);
	len = strlen(log_text);
	snprintf(log_text + len, sizeof(log_text) - len, "\n");
}

bool plug_debug_flag_mpi(void)
{
	return false;
}

const char *plug_slurm_tmpfs(void)
{
	return tmpfs;
}

void plug_conf_transfer(s_p_options_t **full, int *full_cnt, s_p_options_t *ours)
{
	int n = 0;

	while (ours[n].key)
		n++;
	*full = realloc(*full, (size_t)(*full_cnt + n) * sizeof(**full));
	ck_assert_ptr_nonnull(*full);
	for (int i = 0; i < n; i++) {
		(*full)[*full_cnt + i] = ours[i];
		(*full)[*full_cnt + i].key = strdup(ours[i].key);
	}
	*full_cnt += n;
}

s_p_hashtbl_t *plug_conf_tbl_create(s_p_options_t *opts)
{
	s_p_hashtbl_t *tbl = calloc(1, sizeof(*tbl));

	ck_assert_ptr_nonnull(tbl);
	for (; opts[tbl->nopts].key; tbl->nopts++) {
		ck_assert_int_lt(tbl->nopts, MAX_PAIRS);
		tbl->opts[tbl->nopts] = opts[tbl->nopts];
	}
	return tbl;
}

static int opt_type(const s_p_hashtbl_t *tbl, const char *key)
{
	for (int i = 0; i < tbl->nopts; i++)
		if (!strcasecmp(tbl->opts[i].key, key))
			return tbl->opts[i].type;
	return -1;
}

static int find(const s_p_hashtbl_t *tbl, const char *key)
{
	for (int i = 0; i < tbl->n; i++)
		if (!strcasecmp(tbl->key[i], key))
			return i;
	return -1;
}

static bool fake_bool(const char *s, bool *out)
{
	bool yes = !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1");

	if (!yes && strcasecmp(s, "no") && strcasecmp(s, "false") && strcmp(s, "0"))
		return false;
	*out = yes;
	return true;
}

static bool fake_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (s[0] < '0' || s[0] > '9' || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* s_p_parse_pair: an unknown key or a value of the wrong type is refused. */
static bool fake_parse_pair(s_p_hashtbl_t *tbl, const char *key, const char *val)
{
	int type = opt_type(tbl, key), i = find(tbl, key);
	uint32_t u;
	bool b;

	if (type < 0 || (type == S_P_UINT32 && !fake_u32(val, &u)) ||
	    (type == S_P_BOOLEAN && !fake_bool(val, &b)))
		return false;
	if (i < 0) {
		ck_assert_int_lt(tbl->n, MAX_PAIRS);
		i = tbl->n++;
		tbl->key[i] = strdup(key);
	} else {
		free(tbl->val[i]);
	}
	tbl->val[i] = strdup(val);
	return true;
}

void plug_conf_tbl_add(s_p_hashtbl_t *tbl, const char *key, const char *val)
{
	if (val)
		ck_assert_msg(fake_parse_pair(tbl, key, val), "%s=%s refused", key, val);
}

static const char *lookup(s_p_hashtbl_t *tbl, const char *key, int type)
{
	int i = tbl ? find(tbl, key) : -1;

	if (tbl)
		ck_assert_int_eq(opt_type(tbl, key), type);
	return i < 0 ? NULL : tbl->val[i];
}

bool plug_conf_get_str(s_p_hashtbl_t *tbl, const char *key, char **str)
{
	const char *v = lookup(tbl, key, S_P_STRING);

	return v && (*str = strdup(v));
}

bool plug_conf_get_u32(s_p_hashtbl_t *tbl, const char *key, uint32_t *val)
{
	const char *v = lookup(tbl, key, S_P_UINT32);

	return v && fake_u32(v, val);
}

bool plug_conf_get_bool(s_p_hashtbl_t *tbl, const char *key, bool *val)
{
	const char *v = lookup(tbl, key, S_P_BOOLEAN);

	return v && fake_bool(v, val);
}

void *plug_conf_list_create(void)
{
	fake_list_t *l = calloc(1, sizeof(*l));

	ck_assert_ptr_nonnull(l);
	return l;
}

void plug_conf_list_add(void *list, const char *name, const char *value)
{
	fake_list_t *l = list;

	ck_assert_int_lt(l->n, MAX_PAIRS);
	l->name[l->n] = strdup(name);
	l->value[l->n++] = value ? strdup(value) : NULL;
}

/* ---- helpers --------------------------------------------------------- */

/* The options as slurmd collects them, after one option of another plugin. */
static s_p_options_t *options(int *n)
{
	s_p_options_t *full = calloc(1, sizeof(*full));

	ck_assert_ptr_nonnull(full);
	full[0].key = strdup("OtherPluginKey");
	full[0].type = S_P_STRING;
	*n = 1;
	plug_conf_options(&full, n);
	full = realloc(full, (size_t)(*n + 1) * sizeof(*full));
	full[*n].key = NULL;
	return full + 1; /* ours only; leaked, the test process ends */
}

/* mpi.conf as slurmd parsed it: "Key=Value" lines, NULL-terminated. */
static s_p_hashtbl_t *file(const char *const *lines)
{
	int n;
	s_p_hashtbl_t *tbl = plug_conf_tbl_create(options(&n));

	for (; *lines; lines++) {
		char *kv = strdup(*lines), *eq = strchr(kv, '=');

		ck_assert_ptr_nonnull(eq);
		*eq = 0;
		ck_assert_msg(fake_parse_pair(tbl, kv, eq + 1), "%s refused", *lines);
		free(kv);
	}
	return tbl;
}

/* "Key=Value" per pair, one line each ("Key=(null)" for a NULL value). */
static char *pairs_text(char **keys, char **vals, int n)
{
	static char buf[4096];
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s=%s\n", keys[i],
					vals[i] ? vals[i] : "(null)");
	return buf;
}

static char *printed(void)
{
	fake_list_t *l = plug_conf_printable();

	return pairs_text(l->name, l->value, l->n);
}

static char *packed(void)
{
	s_p_hashtbl_t *tbl = plug_conf_get();

	return pairs_text(tbl->key, tbl->val, tbl->n);
}

static const char *printed_value(const char *key)
{
	fake_list_t *l = plug_conf_printable();

	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], key))
			return l->value[i];
	ck_abort_msg("%s not printed", key);
	return NULL;
}

static void setup(void)
{
	log_text[0] = 0;
	tmpfs = NULL;
	plug_conf_reset();
}

#define DEFAULTS_PRINTED                          \
	"SlurmixTimeout=300\n"                    \
	"SlurmixClientLibDir=/test/lib/slurmix\n" \
	"SlurmixSetLdLibraryPath=yes\n"           \
	"SlurmixDebug=0\n"                        \
	"SlurmixTmpDir=(null)\n"                  \
	"SlurmixSpawnOverlap=yes\n"               \
	"SlurmixSpawnEndWithParent=yes\n"         \
	"SlurmixFastStepEnd=yes\n"                \
	"SlurmixEventCacheBytes=1048576\n"        \
	"SlurmixEventQueueBytes=262144\n"         \
	"SlurmixEventCacheAge=60\n"               \
	"SlurmixEventTimeout=10\n"                \
	"SlurmixTaskWeight=yes\n"                 \
	"SlurmixIOF=yes\n"                        \
	"SlurmixIOFHistory=65536\n"               \
	"SlurmixIOFQueueBytes=4194304\n"          \
	"SlurmixMaxConnections=1024\n"            \
	"SlurmixMaxPending=65536\n"               \
	"SlurmixMaxMessageMB=256\n"               \
	"SlurmixHelloTimeout=10\n"                \
	"SlurmixQueryCache=5\n"

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_defaults)
{
	ck_assert_uint_eq(plug_conf.timeout, 300);
	ck_assert_str_eq(plug_conf.client_libdir, "/test/lib/slurmix");
	ck_assert(plug_conf.set_ld_library_path);
	ck_assert_uint_eq(plug_conf.debug, 0);
	ck_assert_ptr_null(plug_conf.tmpdir);
	ck_assert(plug_conf.spawn_overlap && plug_conf.fast_step_end && plug_conf.task_weight);
	ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	/* no tmpdir: not packed at all */
	ck_assert_str_eq(packed(), "SlurmixTimeout=300\n"
				   "SlurmixClientLibDir=/test/lib/slurmix\n"
				   "SlurmixSetLdLibraryPath=yes\n"
				   "SlurmixDebug=0\n"
				   "SlurmixSpawnOverlap=yes\n"
				   "SlurmixSpawnEndWithParent=yes\n"
				   "SlurmixFastStepEnd=yes\n"
				   "SlurmixEventCacheBytes=1048576\n"
				   "SlurmixEventQueueBytes=262144\n"
				   "SlurmixEventCacheAge=60\n"
				   "SlurmixEventTimeout=10\n"
				   "SlurmixTaskWeight=yes\n"
				   "SlurmixIOF=yes\n"
				   "SlurmixIOFHistory=65536\n"
				   "SlurmixIOFQueueBytes=4194304\n"
				   "SlurmixMaxConnections=1024\n"
				   "SlurmixMaxPending=65536\n"
				   "SlurmixMaxMessageMB=256\n"
				   "SlurmixHelloTimeout=10\n"
				   "SlurmixQueryCache=5\n");
	plug_conf.timeout = 7;
	plug_conf_set(NULL); /* no mpi.conf */
	ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	ck_assert_str_eq(log_text, "");
}
END_TEST

START_TEST(test_options)
{
	static const struct {
		const char *key;
		int type;
	} want[] = {
		{ "SlurmixTimeout", S_P_UINT32 },
		{ "SlurmixClientLibDir", S_P_STRING },
		{ "SlurmixSetLdLibraryPath", S_P_BOOLEAN },
		{ "SlurmixDebug", S_P_UINT32 },
		{ "SlurmixTmpDir", S_P_STRING },
		{ "SlurmixSpawnOverlap", S_P_BOOLEAN },
		{ "SlurmixSpawnEndWithParent", S_P_BOOLEAN },
		{ "SlurmixFastStepEnd", S_P_BOOLEAN },
		{ "SlurmixEventCacheBytes", S_P_UINT32 },
		{ "SlurmixEventQueueBytes", S_P_UINT32 },
		{ "SlurmixEventCacheAge", S_P_UINT32 },
		{ "SlurmixEventTimeout", S_P_UINT32 },
		{ "SlurmixTaskWeight", S_P_BOOLEAN },
		{ "SlurmixIOF", S_P_BOOLEAN },
		{ "SlurmixIOFHistory", S_P_UINT32 },
		{ "SlurmixIOFQueueBytes", S_P_UINT32 },
		{ "SlurmixMaxConnections", S_P_UINT32 },
		{ "SlurmixMaxPending", S_P_UINT32 },
		{ "SlurmixMaxMessageMB", S_P_UINT32 },
		{ "SlurmixHelloTimeout", S_P_UINT32 },
		{ "SlurmixQueryCache", S_P_UINT32 },
	};
	int n;
	s_p_options_t *opts = options(&n);

	ck_assert_int_eq(n, 1 + 21);
	ck_assert_str_eq(opts[-1].key, "OtherPluginKey");
	for (int i = 0; i < 17; i++) {
		ck_assert_str_eq(opts[i].key, want[i].key);
		ck_assert_int_eq(opts[i].type, want[i].type);
		ck_assert_ptr_null(opts[i].handler);
		ck_assert_ptr_null(opts[i].line_options);
	}
}
END_TEST

START_TEST(test_file_values)
{
	static const char *const lines[] = {
		"SlurmixTimeout=60",
		"SlurmixClientLibDir=/opt/sx/lib",
		"SlurmixSetLdLibraryPath=no",
		"SlurmixDebug=3",
		"SlurmixTmpDir=/scratch",
		"SlurmixSpawnOverlap=no",
		"SlurmixSpawnEndWithParent=no",
		"SlurmixFastStepEnd=no",
		"SlurmixEventCacheBytes=0",
		"SlurmixEventQueueBytes=65536",
		"SlurmixEventCacheAge=5",
		"SlurmixEventTimeout=3",
		"SlurmixTaskWeight=no",
		"SlurmixIOF=no",
		"SlurmixIOFHistory=4096",
		"SlurmixIOFQueueBytes=65536",
		"SlurmixMaxConnections=64",
		"SlurmixMaxPending=8",
		"SlurmixMaxMessageMB=16",
		"SlurmixHelloTimeout=5",
		"SlurmixQueryCache=0",
		NULL,
	};
	const char *want = "SlurmixTimeout=60\n"
			   "SlurmixClientLibDir=/opt/sx/lib\n"
			   "SlurmixSetLdLibraryPath=no\n"
			   "SlurmixDebug=3\n"
			   "SlurmixTmpDir=/scratch\n"
			   "SlurmixSpawnOverlap=no\n"
			   "SlurmixSpawnEndWithParent=no\n"
			   "SlurmixFastStepEnd=no\n"
			   "SlurmixEventCacheBytes=0\n"
			   "SlurmixEventQueueBytes=65536\n"
			   "SlurmixEventCacheAge=5\n"
			   "SlurmixEventTimeout=3\n"
			   "SlurmixTaskWeight=no\n"
			   "SlurmixIOF=no\n"
			   "SlurmixIOFHistory=4096\n"
			   "SlurmixIOFQueueBytes=65536\n"
			   "SlurmixMaxConnections=64\n"
			   "SlurmixMaxPending=8\n"
			   "SlurmixMaxMessageMB=16\n"
			   "SlurmixHelloTimeout=5\n"
			   "SlurmixQueryCache=0\n";

	plug_conf_set(file(lines));
	ck_assert_uint_eq(plug_conf.timeout, 60);
	ck_assert_str_eq(plug_conf.client_libdir, "/opt/sx/lib");
	ck_assert(!plug_conf.set_ld_library_path);
	ck_assert_uint_eq(plug_conf.debug, 3);
	ck_assert_str_eq(plug_conf.tmpdir, "/scratch");
	ck_assert(!plug_conf.spawn_overlap && !plug_conf.fast_step_end && !plug_conf.task_weight);
	ck_assert(!plug_conf.spawn_end_with_parent);
	ck_assert_uint_eq(plug_conf.event_cache_bytes, 0);
	ck_assert_uint_eq(plug_conf.event_cache_age, 5);
	ck_assert_uint_eq(plug_conf.event_timeout, 3);
	ck_assert(!plug_conf.iof);
	ck_assert_uint_eq(plug_conf.iof_history, 4096);
	ck_assert_uint_eq(plug_conf.query_cache, 0);
	ck_assert_str_eq(printed(), want);
	ck_assert_str_eq(packed(), want);
	ck_assert_str_eq(plug_conf_tmpdir(), "/scratch");
	/* a second mpi.conf starts from the defaults, not from the first */
	plug_conf_set(file((const char *const[]){ "SlurmixDebug=1", NULL }));
	ck_assert_uint_eq(plug_conf.debug, 1);
	ck_assert_uint_eq(plug_conf.timeout, 300);
	ck_assert_ptr_null(plug_conf.tmpdir);
	ck_assert_str_eq(log_text, "");
}
END_TEST

/* Every option slurmd is told about: a value other than its default goes
 * through mpi.conf, is printed, packed, unpacked in "slurmstepd" and packed
 * again unchanged. */
START_TEST(test_round_trip_every_row)
{
	int n;
	s_p_options_t *opts = options(&n);
	s_p_hashtbl_t *tbl = plug_conf_tbl_create(opts);
	char want[MAX_PAIRS][64], *first;

	for (int i = 0; opts[i].key; i++) {
		const char *dflt = printed_value(opts[i].key);

		if (!strcmp(opts[i].key, "SlurmixIOFQueueBytes")) /* (at least 64 KiB) */
			snprintf(want[i], sizeof(want[i]), "65536");
		else if (!strcmp(opts[i].key, "SlurmixMaxConnections")) /* (at least 16) */
			snprintf(want[i], sizeof(want[i]), "16");
		else if (opts[i].type == S_P_UINT32)
			snprintf(want[i], sizeof(want[i]), "%s", strcmp(dflt, "2") ? "2" : "1");
		else if (opts[i].type == S_P_BOOLEAN)
			snprintf(want[i], sizeof(want[i]), "%s",
				 strcmp(dflt, "yes") ? "yes" : "no");
		else
			snprintf(want[i], sizeof(want[i]), "/round/%s", opts[i].key);
		ck_assert(fake_parse_pair(tbl, opts[i].key, want[i]));
	}
	plug_conf_set(tbl);
	for (int i = 0; opts[i].key; i++)
		ck_assert_str_eq(printed_value(opts[i].key), want[i]);
	tbl = plug_conf_get();
	ck_assert_int_eq(tbl->n, n - 1);
	first = strdup(pairs_text(tbl->key, tbl->val, tbl->n));
	plug_conf_reset();
	ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	plug_conf_set(tbl);
	ck_assert_str_eq(packed(), first);
	for (int i = 0; opts[i].key; i++)
		ck_assert_str_eq(printed_value(opts[i].key), want[i]);
	ck_assert_str_eq(log_text, "");
	free(first);
}
END_TEST

START_TEST(test_file_out_of_range)
{
	plug_conf_set(file((const char *const[]){ "SlurmixTimeout=0", "SlurmixDebug=4", NULL }));
	ck_assert_uint_eq(plug_conf.timeout, 300);
	ck_assert_uint_eq(plug_conf.debug, 3);
	ck_assert_str_eq(log_text,
			 "mpi/slurmix: SlurmixTimeout=0 out of range 1..604800, using 300\n"
			 "mpi/slurmix: SlurmixDebug=4 out of range 0..3, using 3\n");
	log_text[0] = 0;
	plug_conf_set(file((const char *const[]){ "SlurmixTimeout=604801", NULL }));
	ck_assert_uint_eq(plug_conf.timeout, 300);
	ck_assert_str_eq(log_text,
			 "mpi/slurmix: SlurmixTimeout=604801 out of range 1..604800, using 300\n");
	log_text[0] = 0;
	plug_conf_set(
		file((const char *const[]){ "SlurmixTimeout=604800", "SlurmixDebug=0", NULL }));
	ck_assert_uint_eq(plug_conf.timeout, 604800);
	plug_conf_set(file((const char *const[]){ "SlurmixTimeout=1", NULL }));
	ck_assert_uint_eq(plug_conf.timeout, 1);
	ck_assert_str_eq(log_text, "");
	/* a synchronous event's wait is never endless */
	plug_conf_set(file((const char *const[]){ "SlurmixQueryCache=3601", NULL }));
	ck_assert_uint_eq(plug_conf.query_cache, 5);
	log_text[0] = '\0';
	plug_conf_set(file((const char *const[]){ "SlurmixEventTimeout=0", NULL }));
	ck_assert_uint_eq(plug_conf.event_timeout, 10);
	ck_assert_str_eq(log_text,
			 "mpi/slurmix: SlurmixEventTimeout=0 out of range 1..3600, using 10\n");
	log_text[0] = 0;
}
END_TEST

/* Each override alone changes its own option and nothing else. */
START_TEST(test_env_each)
{
	static const struct {
		const char *var, *key, *printed;
	} ov[] = {
		{ "SLURMIX_TIMEOUT=42", "SlurmixTimeout", "42" },
		{ "SLURMIX_CLIENT_LIBDIR=/env/lib", "SlurmixClientLibDir", "/env/lib" },
		{ "SLURMIX_SET_LD_LIBRARY_PATH=no", "SlurmixSetLdLibraryPath", "no" },
		{ "SLURMIX_DEBUG=2", "SlurmixDebug", "2" },
		{ "SLURMIX_SPAWN_OVERLAP=off", "SlurmixSpawnOverlap", "no" },
		{ "SLURMIX_SPAWN_END_WITH_PARENT=no", "SlurmixSpawnEndWithParent", "no" },
		{ "SLURMIX_FAST_STEP_END=FALSE", "SlurmixFastStepEnd", "no" },
		{ "SLURMIX_EVENT_CACHE_BYTES=4096", "SlurmixEventCacheBytes", "4096" },
		{ "SLURMIX_EVENT_QUEUE_BYTES=0", "SlurmixEventQueueBytes", "0" },
		{ "SLURMIX_EVENT_CACHE_AGE=0", "SlurmixEventCacheAge", "0" },
		{ "SLURMIX_EVENT_TIMEOUT=30", "SlurmixEventTimeout", "30" },
		{ "SLURMIX_TASK_WEIGHT=0", "SlurmixTaskWeight", "no" },
		{ "SLURMIX_IOF=no", "SlurmixIOF", "no" },
		{ "SLURMIX_IOF_HISTORY=1024", "SlurmixIOFHistory", "1024" },
		{ "SLURMIX_IOF_QUEUE_BYTES=100000", "SlurmixIOFQueueBytes", "100000" },
	};

	for (size_t i = 0; i < sizeof(ov) / sizeof(ov[0]); i++) {
		char *env[] = { (char *)"PATH=/bin", (char *)ov[i].var, NULL };
		char want[1024], *at;
		size_t len = strlen(ov[i].key);

		plug_conf_reset();
		ck_assert_int_eq(plug_conf_env(env), 0);
		snprintf(want, sizeof(want), "%s", DEFAULTS_PRINTED);
		at = strstr(want, ov[i].key);
		ck_assert_ptr_nonnull(at);
		snprintf(at + len + 1, sizeof(want) - (size_t)(at + len + 1 - want), "%s%s",
			 ov[i].printed, strchr(strstr(DEFAULTS_PRINTED, ov[i].key), '\n'));
		ck_assert_str_eq(printed(), want);
	}
	/* SlurmixTmpDir has none */
	plug_conf_reset();
	ck_assert_int_eq(plug_conf_env((char *[]){ (char *)"SLURMIX_TMPDIR=/x",
						   (char *)"SLURMIX_TMP_DIR=/x", NULL }),
			 0);
	ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	ck_assert_str_eq(log_text, "");
}
END_TEST

/* Overrides come after the file; SLURMIX_TASK_WEIGHT can only turn off. */
START_TEST(test_env_over_file)
{
	plug_conf_set(file((const char *const[]){ "SlurmixTimeout=60", "SlurmixSpawnOverlap=no",
						  "SlurmixTaskWeight=no",
						  "SlurmixClientLibDir=/file/lib", NULL }));
	ck_assert_int_eq(plug_conf_env((char *[]){
				 (char *)"SLURMIX_TIMEOUT=61", (char *)"SLURMIX_SPAWN_OVERLAP=yes",
				 (char *)"SLURMIX_TASK_WEIGHT=yes",
				 (char *)"SLURMIX_CLIENT_LIBDIR=/env/lib", NULL }),
			 0);
	ck_assert_uint_eq(plug_conf.timeout, 61);
	ck_assert(plug_conf.spawn_overlap);
	ck_assert(!plug_conf.task_weight);
	ck_assert_str_eq(plug_conf.client_libdir, "/env/lib");
	ck_assert_int_eq(plug_conf_env((char *[]){ (char *)"SLURMIX_TASK_WEIGHT=no", NULL }), 0);
	ck_assert(!plug_conf.task_weight);
	plug_conf_reset();
	ck_assert_int_eq(plug_conf_env((char *[]){ (char *)"SLURMIX_TASK_WEIGHT=yes", NULL }), 0);
	ck_assert(plug_conf.task_weight);
}
END_TEST

/* NULL: the process environment. */
START_TEST(test_env_process)
{
	setenv("SLURMIX_TIMEOUT", "77", 1);
	setenv("SLURMIX_FAST_STEP_END", "no", 1);
	ck_assert_int_eq(plug_conf_env(NULL), 0);
	ck_assert_uint_eq(plug_conf.timeout, 77);
	ck_assert(!plug_conf.fast_step_end);
	/* an explicit array does not look at the process environment */
	plug_conf_reset();
	ck_assert_int_eq(plug_conf_env((char *[]){ NULL }), 0);
	ck_assert_uint_eq(plug_conf.timeout, 300);
}
END_TEST

/* A malformed override: one clear message, the value left as it was. */
START_TEST(test_env_bad)
{
	static const struct {
		const char *var, *msg;
	} bad[] = {
		{ "SLURMIX_TIMEOUT=0", "ignoring SLURMIX_TIMEOUT=\"0\": not a number in range" },
		{ "SLURMIX_TIMEOUT=604801",
		  "ignoring SLURMIX_TIMEOUT=\"604801\": not a number in range" },
		{ "SLURMIX_TIMEOUT=12s",
		  "ignoring SLURMIX_TIMEOUT=\"12s\": not a number in range" },
		{ "SLURMIX_TIMEOUT=-5", "ignoring SLURMIX_TIMEOUT=\"-5\": not a number in range" },
		{ "SLURMIX_TIMEOUT=", "ignoring SLURMIX_TIMEOUT=\"\": not a number in range" },
		{ "SLURMIX_DEBUG=4", "ignoring SLURMIX_DEBUG=\"4\": not a number in range" },
		{ "SLURMIX_SET_LD_LIBRARY_PATH=maybe",
		  "ignoring SLURMIX_SET_LD_LIBRARY_PATH=\"maybe\": not yes/no" },
		{ "SLURMIX_CLIENT_LIBDIR=lib/slurmix",
		  "ignoring SLURMIX_CLIENT_LIBDIR=\"lib/slurmix\": not an absolute path" },
		{ "SLURMIX_CLIENT_LIBDIR=",
		  "ignoring SLURMIX_CLIENT_LIBDIR=\"\": not an absolute path" },
		{ "SLURMIX_SPAWN_OVERLAP=2", "ignoring SLURMIX_SPAWN_OVERLAP=\"2\": not yes/no" },
		{ "SLURMIX_FAST_STEP_END=", "ignoring SLURMIX_FAST_STEP_END=\"\": not yes/no" },
		{ "SLURMIX_TASK_WEIGHT=off!", "ignoring SLURMIX_TASK_WEIGHT=\"off!\": not yes/no" },
	};
	char *all[sizeof(bad) / sizeof(bad[0]) + 1] = { NULL };
	size_t n = sizeof(bad) / sizeof(bad[0]), lines = 0;

	for (size_t i = 0; i < n; i++) {
		char want[256];

		log_text[0] = 0;
		ck_assert_int_eq(plug_conf_env((char *[]){ (char *)bad[i].var, NULL }), 1);
		snprintf(want, sizeof(want), "mpi/slurmix: %s\n", bad[i].msg);
		ck_assert_str_eq(log_text, want);
		ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	}
	/* all at once (first of each name counts): one message per variable */
	for (size_t i = 0; i < n; i++)
		all[i] = (char *)bad[i].var;
	log_text[0] = 0;
	ck_assert_int_eq(plug_conf_env(all), 7);
	ck_assert_str_eq(printed(), DEFAULTS_PRINTED);
	for (const char *p = log_text; *p; p = strchr(p, '\n') + 1)
		lines++;
	ck_assert_uint_eq(lines, 7);
}
END_TEST

START_TEST(test_tmpdir)
{
	ck_assert_str_eq(plug_conf_tmpdir(), "/tmp");
	tmpfs = "/var/tmp";
	ck_assert_str_eq(plug_conf_tmpdir(), "/var/tmp");
	tmpfs = "relative";
	ck_assert_str_eq(plug_conf_tmpdir(), "/tmp");
	plug_conf_set(file((const char *const[]){ "SlurmixTmpDir=/scratch/sx", NULL }));
	ck_assert_str_eq(plug_conf_tmpdir(), "/scratch/sx");
	plug_conf_set(file((const char *const[]){ "SlurmixTmpDir=no-slash", NULL }));
	ck_assert_str_eq(plug_conf_tmpdir(), "/tmp");
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("plugin_conf");
	TCase *tc = tcase_create("conf");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_file_values);
	tcase_add_test(tc, test_round_trip_every_row);
	tcase_add_test(tc, test_file_out_of_range);
	tcase_add_test(tc, test_env_each);
	tcase_add_test(tc, test_env_over_file);
	tcase_add_test(tc, test_env_process);
	tcase_add_test(tc, test_env_bad);
	tcase_add_test(tc, test_tmpdir);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = conf_suite, .fork = CK_FORK });
}
