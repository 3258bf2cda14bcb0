/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_attr_support.c - PMIX_QUERY_ATTRIBUTE_SUPPORT and
 * PMIx_Register_attributes (common/attr_support.c).
 *
 * The tables: every name an attribute of attr_table.h, every function one
 * we export and implement (tests/abi/pmix_exports.txt, not in
 * client/unsupported.c), every attribute named by some source file of its
 * level, and the Slurm host's registrations (src/plugin/stepd/attrs.c)
 * named by the plugin's other files (SLURMIX_SRCDIR). The answers: a
 * level's functions, the attributes of named functions ("all", unknown
 * names absent, none as "NONE"), the Standard's form (function names as
 * keys), no qualifier as every level, broken qualifiers refused; before
 * PMIx_Init without a server; the host level through a server, from its
 * registrations, and the registration's refusals.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rawclient.h"
#include "srvthread.h"
#include "attr_support.h"

/* The text of a file of the source tree (malloc'ed), or NULL. */
static char *slurp(const char *rel)
{
	const char *src = getenv("SLURMIX_SRCDIR");
	char path[4096], *t = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", src ? src : "..", rel);
	if (!(f = fopen(path, "r")))
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (t = calloc(1, (size_t)n + 1)) && fread(t, 1, (size_t)n, f) != (size_t)n) {
		free(t);
		t = NULL;
	}
	fclose(f);
	return t;
}

/* Whether text names word as a whole identifier. */
static bool names(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; text && (p = strstr(p, word)); p += n) {
		char a = p > text ? p[-1] : ' ', b = p[n];

		if (!(a == '_' || (a >= 'A' && a <= 'Z') || (a >= 'a' && a <= 'z') ||
		      (a >= '0' && a <= '9') || a == '"') &&
		    !(b == '_' || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') ||
		      (b >= '0' && b <= '9') || b == '"'))
			return true;
	}
	return false;
}

/* Blanks t's comments in place (string and character literals kept):
 * a comment naming an attribute is no code acting on it. */
static void strip_comments(char *t)
{
	char quote = 0;

	for (char *p = t; *p; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			char *stop = e ? e + 2 : p + strlen(p);

			memset(p, ' ', (size_t)(stop - p));
			p = stop - 1;
		} else if (p[0] == '/' && p[1] == '/') {
			size_t n = strcspn(p, "\n");

			memset(p, ' ', n);
			p += n - 1;
		}
	}
}

/* The sources of a level without their comments, concatenated
 * (attr_support.c only after its tables), malloc'ed. */
static char *level_sources(int level)
{
	static const char *const client[] = { "src/pmix_core/client/", "src/pmix_core/common/",
					      NULL };
	static const char *const server[] = { "src/pmix_core/server/", "src/iof/",
					      "src/pmix_core/common/attr_support", NULL };
	static const char *const tool[] = { "src/pmix_core/tool/", NULL };
	const char *const *dirs = level == PXC_LEVEL_CLIENT ? client :
				  level == PXC_LEVEL_SERVER ? server :
							      tool;
	char cmd[4096], line[1024], *all = NULL;
	size_t len = 0;
	FILE *p;

	for (const char *const *d = dirs; *d; d++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && ls %s*.c", getenv("SLURMIX_SRCDIR") ?: "..",
			 *d);
		ck_assert_ptr_nonnull(p = popen(cmd, "r"));
		while (fgets(line, sizeof(line), p)) {
			char *t, *from;

			line[strcspn(line, "\n")] = '\0';
			ck_assert_ptr_nonnull(t = slurp(line));
			strip_comments(t);
			from = t;
			if (strstr(line, "attr_support.c"))
				ck_assert_ptr_nonnull(
					from = strstr(t, "*const tables[PXC_LEVELS]"));
			ck_assert_ptr_nonnull(all = realloc(all, len + strlen(from) + 1));
			memcpy(all + len, from, strlen(from) + 1);
			len += strlen(from);
			free(t);
		}
		pclose(p);
	}
	ck_assert_uint_gt(len, 1000);
	return all;
}

/* Whether the declaration of function in the public headers (hdrs) takes
 * an info array, or queries, which carry qualifiers: one that takes
 * neither can be handed no attribute. */
static bool takes_info(const char *hdrs, const char *function)
{
	char call[128];
	const char *p, *end;

	snprintf(call, sizeof(call), " %s(", function);
	ck_assert_msg(p = strstr(hdrs, call), "%s is not declared", function);
	ck_assert_ptr_nonnull(end = strchr(p, ';'));
	for (const char *t = p; t < end; t++)
		if (!strncmp(t, "pmix_info_t", 11) || !strncmp(t, "pmix_query_t", 12))
			return true;
	return false;
}

START_TEST(tables_are_true)
{
	char *exports = slurp("tests/abi/pmix_exports.txt");
	char *unsupported = slurp("src/pmix_core/client/unsupported.c");
	char *hdrs = NULL, *h;
	size_t hlen = 0;
	static const char *const headers[] = { "src/pmix_core/include/pmix.h",
					       "src/pmix_core/include/pmix_server.h",
					       "src/pmix_core/include/pmix_tool.h",
					       "src/pmix_core/include/pmix_deprecated.h" };

	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		ck_assert_ptr_nonnull(h = slurp(headers[i]));
		ck_assert_ptr_nonnull(hdrs = realloc(hdrs, hlen + strlen(h) + 1));
		memcpy(hdrs + hlen, h, strlen(h) + 1);
		hlen += strlen(h);
		free(h);
	}

	ck_assert_ptr_nonnull(exports);
	ck_assert_ptr_nonnull(unsupported);
	ck_assert_ptr_null(pxc_attr_table(PXC_LEVEL_HOST));
	for (int l = PXC_LEVEL_CLIENT; l <= PXC_LEVEL_TOOL; l++) {
		const pxc_attr_fn_t *t = pxc_attr_table(l);
		char *src = level_sources(l);
		size_t nf = 0;

		for (; t->function; t++, nf++) {
			char call[128];

			snprintf(call, sizeof(call), "%s(", t->function);
			ck_assert_msg(names(exports, t->function), "%s is not exported",
				      t->function);
			ck_assert_msg(!strstr(unsupported, call), "%s is not supported",
				      t->function);
			ck_assert_msg(!t->attrs[0] || takes_info(hdrs, t->function),
				      "level %d, %s takes no info, yet lists %s", l, t->function,
				      t->attrs[0]);
			for (const char *const *a = t->attrs; *a; a++) {
				ck_assert_msg(pxc_attr_lookup(*a, NULL, NULL),
					      "%s: %s is no attribute", t->function, *a);
				ck_assert_msg(names(src, *a), "level %d, %s: no source names %s", l,
					      t->function, *a);
			}
		}
		ck_assert_uint_gt(nf, 5);
		free(src);
	}
	/* refused by the server (server/iof.c: a client's own stdin is its
	 * library's business, client/push.c) */
	for (const pxc_attr_fn_t *t = pxc_attr_table(PXC_LEVEL_SERVER); t->function; t++)
		for (const char *const *a = t->attrs; *a; a++)
			ck_assert_msg(strcmp(t->function, "PMIx_IOF_push") ||
					      strcmp(*a, "PMIX_IOF_PUSH_STDIN"),
				      "the server refuses PMIx_IOF_push's PMIX_IOF_PUSH_STDIN");
	free(hdrs);
	free(exports);
	free(unsupported);
}
END_TEST

/* The host's registrations: every attribute of stepd/attrs.c's table is
 * named by another file of the plugin. */
START_TEST(host_table_is_true)
{
	char *t = slurp("src/plugin/stepd/attrs.c"), *p, *end, *others = NULL;
	char cmd[4096], line[1024];
	size_t len = 0, checked = 0;
	FILE *ls;

	ck_assert_ptr_nonnull(t);
	snprintf(cmd, sizeof(cmd), "cd '%s' && ls src/plugin/*/*.c | grep -v stepd/attrs.c",
		 getenv("SLURMIX_SRCDIR") ?: "..");
	ck_assert_ptr_nonnull(ls = popen(cmd, "r"));
	while (fgets(line, sizeof(line), ls)) {
		char *s;

		line[strcspn(line, "\n")] = '\0';
		ck_assert_ptr_nonnull(s = slurp(line));
		ck_assert_ptr_nonnull(others = realloc(others, len + strlen(s) + 1));
		memcpy(others + len, s, strlen(s) + 1);
		len += strlen(s);
		free(s);
	}
	pclose(ls);
	ck_assert_ptr_nonnull(p = strstr(t, "host_attrs[] = {"));
	ck_assert_ptr_nonnull(end = strstr(p, "\n};"));
	*end = '\0';
	while ((p = strstr(p, "PMIX_"))) {
		char name[128];
		size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		ck_assert_msg(pxc_attr_lookup(name, NULL, NULL), "%s is no attribute", name);
		ck_assert_msg(names(others, name), "no plugin file but attrs.c names %s", name);
		checked++;
		p += n;
	}
	ck_assert_uint_gt(checked, 40);
	free(others);
	free(t);
	/* the credential upcalls never look at PMIX_TIMEOUT (stepd/cred.c) */
	ck_assert_ptr_nonnull(t = slurp("src/plugin/stepd/attrs.c"));
	for (const char *const *f = (const char *const[]){ "{ \"get_credential\"",
							   "{ \"validate_credential\"", NULL };
	     *f; f++) {
		ck_assert_ptr_nonnull(p = strstr(t, *f));
		ck_assert_ptr_nonnull(end = strchr(p, '}'));
		*end = '\0';
		ck_assert_msg(!strstr(p, "PMIX_TIMEOUT"), "%s: the host has no PMIX_TIMEOUT", *f);
		*end = '}';
	}
	free(t);
}
END_TEST

/* Every server-module function the step daemon implements (stepd/step.c's
 * module) that stands for user-facing functions is registered. */
START_TEST(host_registers_its_module)
{
	char *step = slurp("src/plugin/stepd/step.c"), *attrs = slurp("src/plugin/stepd/attrs.c");
	static const char *const not_api[] = { "tool_connected", "client_connected",
					       "client_connected2", "client_finalized", NULL };
	char *p, *end;
	size_t checked = 0;

	ck_assert_ptr_nonnull(step);
	ck_assert_ptr_nonnull(attrs);
	ck_assert_ptr_nonnull(p = strstr(step, "pmix_server_module_t module = {"));
	ck_assert_ptr_nonnull(end = strstr(p, "\n};"));
	*end = '\0';
	while ((p = strstr(p, "\n\t."))) {
		char fn[64], entry[80];
		bool skip = false;

		p += 3;
		snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(p, " ="), p);
		for (size_t i = 0; not_api[i]; i++)
			skip = skip || !strcmp(fn, not_api[i]);
		if (skip || !strcmp(fn, "spawn")) /* spawn: the planner's table */
			continue;
		snprintf(entry, sizeof(entry), "{ \"%s\",", fn);
		ck_assert_msg(strstr(attrs, entry), "stepd/attrs.c registers no %s", fn);
		checked++;
	}
	ck_assert_uint_gt(checked, 15);
	free(step);
	free(attrs);
}
END_TEST

/* One query of key with the given qualifiers (keys: NULL-terminated). */
static pmix_query_t make(char **keys, pmix_info_t *qual, size_t nqual)
{
	pmix_query_t q = { .keys = keys, .qualifiers = qual, .nqual = nqual };

	return q;
}

static const pmix_info_t *function_of(const pmix_info_t *level, const char *f)
{
	const pmix_data_array_t *d = level->value.data.darray;

	ck_assert_int_eq(level->value.type, PMIX_DATA_ARRAY);
	ck_assert_int_eq(d->type, PMIX_INFO);
	for (size_t i = 0; i < d->size; i++)
		if (PMIx_Check_key(((pmix_info_t *)d->array)[i].key, f))
			return &((pmix_info_t *)d->array)[i];
	return NULL;
}

static const pmix_regattr_t *regattr_of(const pmix_info_t *fn, const char *name, size_t *n)
{
	const pmix_data_array_t *d = fn->value.data.darray;

	ck_assert_int_eq(fn->value.type, PMIX_DATA_ARRAY);
	ck_assert_int_eq(d->type, PMIX_REGATTR);
	if (n)
		*n = d->size;
	for (size_t i = 0; i < d->size; i++)
		if (strcmp(((pmix_regattr_t *)d->array)[i].name, name) == 0)
			return &((pmix_regattr_t *)d->array)[i];
	return NULL;
}

START_TEST(answers)
{
	char *keys[] = { PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL };
	pmix_info_t qual[3];
	pmix_query_t q;
	pxc_infolist_t r = { NULL, 0, 0 };
	const pmix_info_t *f;
	const pmix_regattr_t *ra;
	size_t n;
	bool yes = true, no = false;

	/* a level's functions: the implemented ones only */
	PMIx_Info_load(&qual[0], PMIX_CLIENT_FUNCTIONS, &yes, PMIX_BOOL);
	q = make(keys, qual, 1);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.info[0].key, PMIX_CLIENT_FUNCTIONS);
	ck_assert_int_eq(r.info[0].value.type, PMIX_STRING);
	ck_assert_ptr_nonnull(strstr(r.info[0].value.data.string, "PMIx_Get_nb,"));
	ck_assert_ptr_null(strstr(r.info[0].value.data.string, "PMIx_Fabric_register"));
	pxc_infolist_free(&r);
	PMIx_Info_destruct(&qual[0]);
	/* named functions: unknown ones absent, none as NONE, types and
	 * strings from attr_table.h */
	PMIx_Info_load(&qual[0], PMIX_CLIENT_ATTRIBUTES, "PMIx_Get,PMIx_Nope,PMIx_Abort",
		       PMIX_STRING);
	PMIx_Info_load(&qual[1], PMIX_SERVER_ATTRIBUTES, "PMIx_Fence", PMIX_STRING);
	PMIx_Info_load(&qual[2], PMIX_TOOL_FUNCTIONS, &no, PMIX_BOOL);
	q = make(keys, qual, 3);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(r.info[0].key, PMIX_CLIENT_ATTRIBUTES);
	ck_assert_uint_eq(r.info[0].value.data.darray->size, 2);
	ck_assert_ptr_null(function_of(&r.info[0], "PMIx_Nope"));
	ck_assert_ptr_nonnull(f = function_of(&r.info[0], "PMIx_Get"));
	ck_assert_ptr_nonnull(ra = regattr_of(f, "PMIX_TIMEOUT", NULL));
	ck_assert_str_eq(ra->string, PMIX_TIMEOUT);
	ck_assert_int_eq(ra->type, PMIX_INT);
	ck_assert_ptr_nonnull(ra->description);
	ck_assert_ptr_nonnull(ra->description[0]);
	ck_assert_ptr_null(regattr_of(f, "PMIX_IMMEDIATE", NULL)); /* the server's */
	ck_assert_ptr_nonnull(f = function_of(&r.info[0], "PMIx_Abort"));
	ck_assert_ptr_nonnull(regattr_of(f, "NONE", &n));
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(r.info[1].key, PMIX_SERVER_ATTRIBUTES);
	ck_assert_ptr_nonnull(f = function_of(&r.info[1], "PMIx_Fence"));
	ck_assert_ptr_nonnull(regattr_of(f, "PMIX_COLLECT_DATA", NULL));
	pxc_infolist_free(&r);
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&qual[i]);
	/* "all" and the unknown only: every function, then an empty array */
	PMIx_Info_load(&qual[0], PMIX_TOOL_ATTRIBUTES, "all", PMIX_STRING);
	PMIx_Info_load(&qual[1], PMIX_CLIENT_ATTRIBUTES, "PMIx_Nope", PMIX_STRING);
	q = make(keys, qual, 2);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.n, 2);
	n = 0;
	for (const pxc_attr_fn_t *t = pxc_attr_table(PXC_LEVEL_TOOL); t->function; t++)
		n++;
	ck_assert_uint_eq(r.info[0].value.data.darray->size, n);
	ck_assert_uint_eq(r.info[1].value.data.darray->size, 0);
	pxc_infolist_free(&r);
	PMIx_Info_destruct(&qual[0]);
	PMIx_Info_destruct(&qual[1]);
}
END_TEST

START_TEST(standard_form_and_all_levels)
{
	char *keys[] = { PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Fence", "PMIx_Spawn", NULL };
	pmix_info_t qual;
	pmix_query_t q;
	pxc_infolist_t r = { NULL, 0, 0 };
	bool yes = true, host = false;
	static const char *const order[] = {
		PMIX_CLIENT_FUNCTIONS,  PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_FUNCTIONS,
		PMIX_SERVER_ATTRIBUTES, PMIX_TOOL_FUNCTIONS,    PMIX_TOOL_ATTRIBUTES,
		PMIX_HOST_ATTRIBUTES, /* no PMIX_HOST_FUNCTIONS: nothing registered */
	};

	/* bool level, functions named as keys */
	PMIx_Info_load(&qual, PMIX_CLIENT_ATTRIBUTES, &yes, PMIX_BOOL);
	q = make(keys, &qual, 1);
	ck_assert_int_eq(pxc_attr_query_check(&q, &host), PMIX_SUCCESS);
	ck_assert(!host);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.info[0].value.data.darray->size, 2);
	ck_assert_ptr_nonnull(function_of(&r.info[0], "PMIx_Spawn"));
	pxc_infolist_free(&r);
	PMIx_Info_destruct(&qual);
	/* no level: every level, functions then attributes, the host's too */
	q = make(keys, NULL, 0);
	ck_assert_int_eq(pxc_attr_query_check(&q, &host), PMIX_SUCCESS);
	ck_assert(host);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_SUCCESS);
	ck_assert_uint_eq(r.n, 7);
	for (size_t i = 0; i < 7; i++)
		ck_assert_str_eq(r.info[i].key, order[i]);
	ck_assert_uint_eq(r.info[6].value.data.darray->size, 0); /* nothing registered */
	ck_assert_uint_eq(r.info[1].value.data.darray->size, 2);
	pxc_infolist_free(&r);
}
END_TEST

/* Qualifiers of the wrong type: BAD_PARAM, from the check, the answer and
 * PMIx_Query_info (before PMIx_Init: answered without a server). */
START_TEST(broken_qualifiers)
{
	char *keys[] = { PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL };
	pmix_info_t qual[2];
	pmix_query_t q;
	pxc_infolist_t r = { NULL, 0, 0 };
	pmix_info_t *res = NULL;
	size_t nres = 0;
	int i32 = 3;
	bool yes = true;

	PMIx_Info_load(&qual[0], PMIX_CLIENT_FUNCTIONS, &yes, PMIX_BOOL);
	PMIx_Info_load(&qual[1], PMIX_CLIENT_ATTRIBUTES, &i32, PMIX_INT);
	q = make(keys, qual, 2);
	ck_assert_int_eq(pxc_attr_query_check(&q, NULL), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(pxc_attr_query_answer(&q, &r), PMIX_ERR_BAD_PARAM);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_ERR_BAD_PARAM);
	ck_assert_ptr_null(res);
	PMIx_Info_destruct(&qual[1]);
	PMIx_Info_load(&qual[1], PMIX_SERVER_FUNCTIONS, "PMIx_Get", PMIX_STRING);
	ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&qual[1]);
	PMIx_Info_load(&qual[1], PMIX_SERVER_ATTRIBUTES, NULL, PMIX_STRING);
	ck_assert_int_eq(pxc_attr_query_check(&q, NULL), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&qual[1]);
	/* good: answered here, before PMIx_Init */
	PMIx_Info_load(&qual[1], PMIX_CLIENT_ATTRIBUTES, "PMIx_Fence", PMIX_STRING);
	ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
	ck_assert_uint_eq(nres, 2);
	ck_assert_str_eq(res[1].key, PMIX_CLIENT_ATTRIBUTES);
	ck_assert_ptr_nonnull(function_of(&res[1], "PMIx_Fence"));
	PMIx_Info_free(res, nres);
	PMIx_Info_destruct(&qual[1]);
	/* the host level needs a server */
	PMIx_Info_load(&qual[1], PMIX_HOST_FUNCTIONS, &yes, PMIX_BOOL);
	ck_assert_int_ne(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
	PMIx_Info_destruct(&qual[0]);
	PMIx_Info_destruct(&qual[1]);
	/* and registering is a server's */
	ck_assert_int_eq(PMIx_Register_attributes("spawn", NULL), PMIX_ERR_INIT);
}
END_TEST

/* q sent to the server over fd as request tag: the reply's status, its
 * results in *res (free with pxc_array_free) when it has some. */
static pmix_status_t ask_wire(int fd, uint32_t tag, const pmix_query_t *q, pmix_info_t **res,
			      size_t *n)
{
	pmix_data_buffer_t b;
	pmix_status_t st;

	*res = NULL;
	*n = 0;
	pxc_buf_init(&b);
	pxc_pack_array(&b, q, 1, PMIX_QUERY);
	rc_send(fd, PXC_CMD_QUERY, tag, &b);
	st = rc_reply(fd, tag, &b);
	if (st == PMIX_SUCCESS)
		ck_assert_int_eq(pxc_unpack_array(&b, (void **)res, n, PMIX_INFO), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	return st;
}

/* The host's registrations, answered by the server to a client. */
START_TEST(host_level)
{
	char *spawn[] = { "PMIX_HOST", PMIX_WDIR, NULL }, *bad[] = { "PMIX_NO_SUCH", NULL };
	char *none[] = { "N/A", NULL }, *keys[] = { PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL };
	pmix_info_t qual[2], *res = NULL;
	pmix_query_t q;
	const pmix_info_t *f;
	size_t n = 0;
	bool yes = true;
	int fd;

	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	register_job(1);
	ck_assert_int_eq(PMIx_Register_attributes("spawn", spawn), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Register_attributes("PMIx_Spawn", spawn),
			 PMIX_ERR_REPEAT_ATTR_REGISTRATION);
	ck_assert_int_eq(PMIx_Register_attributes("abort", none), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Register_attributes("log", bad), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_Register_attributes("no_such_fn", spawn), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_Register_attributes(NULL, spawn), PMIX_ERR_BAD_PARAM);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&qual[0], PMIX_HOST_FUNCTIONS, &yes, PMIX_BOOL);
	PMIx_Info_load(&qual[1], PMIX_HOST_ATTRIBUTES, "PMIx_Spawn_nb,PMIx_Abort,PMIx_Log",
		       PMIX_STRING);
	q = make(keys, qual, 2);
	ck_assert_int_eq(ask_wire(fd, 2, &q, &res, &n), PMIX_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(res[0].key, PMIX_HOST_FUNCTIONS);
	ck_assert_str_eq(res[0].value.data.string, "PMIx_Spawn,PMIx_Spawn_nb,PMIx_Abort");
	ck_assert_uint_eq(res[1].value.data.darray->size, 2); /* no Log: refused */
	ck_assert_ptr_nonnull(f = function_of(&res[1], "PMIx_Spawn_nb"));
	ck_assert_ptr_nonnull(regattr_of(f, "PMIX_HOST", NULL));
	ck_assert_ptr_nonnull(regattr_of(f, "PMIX_WDIR", NULL)); /* given as its string */
	ck_assert_ptr_nonnull(f = function_of(&res[1], "PMIx_Abort"));
	ck_assert_ptr_nonnull(regattr_of(f, "NONE", NULL));
	pxc_array_free(res, n, PMIX_INFO);
	/* the Standard's form: the keys after it are function names, answered
	 * with it (not handed on as unknown keys) */
	{
		char *skeys[] = { PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Spawn", NULL };
		pmix_info_t sq;
		pmix_query_t s;

		PMIx_Info_load(&sq, PMIX_HOST_ATTRIBUTES, &yes, PMIX_BOOL);
		s = make(skeys, &sq, 1);
		ck_assert_int_eq(ask_wire(fd, 4, &s, &res, &n), PMIX_SUCCESS);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(res[0].key, PMIX_HOST_ATTRIBUTES);
		ck_assert_uint_eq(res[0].value.data.darray->size, 1);
		ck_assert_ptr_nonnull(function_of(&res[0], "PMIx_Spawn"));
		pxc_array_free(res, n, PMIX_INFO);
		PMIx_Info_destruct(&sq);
	}
	/* a broken qualifier from a raw client: unanswered, the server on */
	PMIx_Info_destruct(&qual[1]);
	load_u32(&qual[1], PMIX_HOST_ATTRIBUTES, 7);
	ck_assert_int_eq(ask_wire(fd, 3, &q, &res, &n), PMIX_ERR_NOT_SUPPORTED);
	PMIx_Info_destruct(&qual[0]);
	PMIx_Info_destruct(&qual[1]);
	close(fd);
	stop_server();
	/* finalize forgot them: no host functions, and no empty list of them
	 * (OpenPMIx 4.2.2's pattrs --host-fns splits it and reads entry 0) */
	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	register_job(1);
	fd = rc_hello(0, PMIX_SUCCESS, NULL);
	PMIx_Info_load(&qual[0], PMIX_HOST_FUNCTIONS, &yes, PMIX_BOOL);
	q = make(keys, qual, 1);
	ck_assert_int_eq(ask_wire(fd, 5, &q, &res, &n), PMIX_SUCCESS);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!PMIx_Check_key(res[i].key, PMIX_HOST_FUNCTIONS),
			      "host functions answered as \"%s\"", res[i].value.data.string);
	pxc_array_free(res, n, PMIX_INFO);
	PMIx_Info_destruct(&qual[0]);
	close(fd);
	ck_assert_int_eq(PMIx_Register_attributes("spawn", spawn), PMIX_SUCCESS);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "tables_are_true", tables_are_true },
		{ "host_table_is_true", host_table_is_true },
		{ "host_registers_its_module", host_registers_its_module },
		{ "answers", answers },
		{ "standard_form_and_all_levels", standard_form_and_all_levels },
		{ "broken_qualifiers", broken_qualifiers },
		{ "host_level", host_level },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
