/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ptools.c - the part of OpenPMIx's internals that its own command-line
 * tools (pps, pquery, pevent, plookup, pattrs of OpenPMIx 4.2) call, so
 * that those unmodified binaries run on our library (ptools.h).
 *
 * What they rely on, read from their binaries and OpenPMIx 4.2.2's
 * documented behaviour:
 *   - objects: the tools construct, allocate, list and release objects of
 *     a few classes with inline code, reading a class's size and its
 *     constructor/destructor arrays and an object's class, count and lock
 *     at fixed offsets; our classes are set up statically (initialized ==
 *     pmix_class_init_epoch), so that code never needs
 *     pmix_class_initialize, which still works for any class;
 *   - pmix_cmd_line_parse: getopt_long over the tool's options, stopping at
 *     the first argument that is not an option; each option an item of
 *     results->instances (key = its long name, values = its arguments, NULL
 *     for a flag), the rest in results->tail; -h/--help and -V print the
 *     tool's help texts (OpenPMIx's help files, which Debian's libpmix2
 *     installs: SLURMIX_PMIX_HELP_DIR, else its directory);
 *   - help texts: a file's "[topic]" section, lines up to the next "[",
 *     "#" lines skipped, used as the format for the caller's arguments;
 *   - attribute names through our PMIx_Get_attribute_string/_name; the
 *     functions and attributes pattrs prints (--client-fns, --client F, ...)
 *     come from common/attr_support.c, the tables the library answers
 *     PMIX_QUERY_ATTRIBUTE_SUPPORT from.
 * Any thread; the tools call it from their main thread before and around
 * PMIx_tool_init.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_version.h>

#include "attr_support.h"

#include "compat/ptools.h"

#define OFF(t, f) offsetof(t, f)
_Static_assert(sizeof(ptl_class_t) == 64 && OFF(ptl_class_t, initialized) == 32 &&
		       OFF(ptl_class_t, construct_array) == 40 && OFF(ptl_class_t, size) == 56,
	       "class layout");
_Static_assert(sizeof(ptl_object_t) == 112 && OFF(ptl_object_t, cls) == 40 &&
		       OFF(ptl_object_t, refcount) == 48 && OFF(ptl_object_t, dontfree) == 104,
	       "object layout");
_Static_assert(sizeof(ptl_item_t) == 136 && OFF(ptl_item_t, next) == 112 &&
		       OFF(ptl_item_t, prev) == 120,
	       "list item layout");
_Static_assert(sizeof(ptl_list_t) == 256 && OFF(ptl_list_t, length) == 248, "list layout");
_Static_assert(sizeof(ptl_cli_item_t) == 152 && OFF(ptl_cli_item_t, key) == 136 &&
		       OFF(ptl_cli_item_t, values) == 144,
	       "cli item layout");
_Static_assert(sizeof(ptl_cli_result_t) == 376 && OFF(ptl_cli_result_t, tail) == 368,
	       "cli result layout");
_Static_assert(sizeof(ptl_mutex_t) == 152 && OFF(ptl_mutex_t, m) == 112, "mutex layout");
_Static_assert(sizeof(ptl_infolist_t) == 688 && sizeof(ptl_querylist_t) == 160,
	       "info/query list layout");

#define HELP_DIR_DEFAULT "/usr/lib/x86_64-linux-gnu/pmix2/share/pmix"
#define COMPAT_VERSION "4.2.2 (slurmix " SLURMIX_VERSION ")"
#define DASHES "--------------------------------------------------------------------------"

int pmix_class_init_epoch = 1;
const char *pmix_tool_basename = NULL;
const char *pmix_tool_org = "PMIx";
const char *pmix_tool_version = COMPAT_VERSION;
const char *pmix_tool_msg = "https://github.com/openpmix/openpmix";
const char *PMIX_PROXY_VERSION = COMPAT_VERSION;
const char *PMIX_PROXY_BUGREPORT = "https://github.com/openpmix/openpmix";
struct ptl_framework pmix_pinstalldirs_base_framework;

/* ------------------------------------------------------------ the classes */

static void list_init(ptl_list_t *l)
{
	l->sentinel.next = &l->sentinel;
	l->sentinel.prev = &l->sentinel;
	l->sentinel.super.cls = &pmix_list_item_t_class;
	l->sentinel.super.refcount = 1;
	l->length = 0;
}

static void item_ctor(ptl_object_t *o)
{
	ptl_item_t *i = (ptl_item_t *)o;

	i->next = i->prev = NULL;
	i->item_free = 1;
}

static void list_ctor(ptl_object_t *o)
{
	list_init((ptl_list_t *)o);
}

static void release(ptl_object_t *o);

/* Releases the items left (as PMIX_LIST_DESTRUCT does). */
static void list_dtor(ptl_object_t *o)
{
	ptl_list_t *l = (ptl_list_t *)o;

	while (l->length && l->sentinel.next != &l->sentinel) {
		ptl_item_t *i = l->sentinel.next;

		l->sentinel.next = i->next;
		i->next->prev = &l->sentinel;
		l->length--;
		release(&i->super);
	}
	list_init(l);
}

static void mutex_ctor(ptl_object_t *o)
{
	pthread_mutex_init(&((ptl_mutex_t *)o)->m, NULL);
}

static void mutex_dtor(ptl_object_t *o)
{
	pthread_mutex_destroy(&((ptl_mutex_t *)o)->m);
}

static void cli_item_ctor(ptl_object_t *o)
{
	ptl_cli_item_t *c = (ptl_cli_item_t *)o;

	c->key = NULL;
	c->values = NULL;
}

static void cli_item_dtor(ptl_object_t *o)
{
	ptl_cli_item_t *c = (ptl_cli_item_t *)o;

	free(c->key);
	PMIx_Argv_free(c->values);
	c->key = NULL;
	c->values = NULL;
}

static void embedded(ptl_object_t *o, ptl_class_t *cls)
{
	o->cls = cls;
	o->refcount = 1;
	for (ptl_ctor_f *f = cls->construct_array; *f; f++)
		(*f)(o);
}

static void cli_result_ctor(ptl_object_t *o)
{
	ptl_cli_result_t *r = (ptl_cli_result_t *)o;

	memset(&r->instances, 0, sizeof(r->instances));
	embedded(&r->instances.super, &pmix_list_t_class);
	r->tail = NULL;
}

static void cli_result_dtor(ptl_object_t *o)
{
	ptl_cli_result_t *r = (ptl_cli_result_t *)o;

	list_dtor(&r->instances.super);
	PMIx_Argv_free(r->tail);
	r->tail = NULL;
}

static void infolist_ctor(ptl_object_t *o)
{
	PMIx_Info_construct(&((ptl_infolist_t *)o)->info);
}

static void infolist_dtor(ptl_object_t *o)
{
	PMIx_Info_destruct(&((ptl_infolist_t *)o)->info);
}

static void querylist_ctor(ptl_object_t *o)
{
	PMIx_Query_construct(&((ptl_querylist_t *)o)->query);
}

/* A class set up at compile time: its arrays name its parents' functions
 * first (constructors) or last (destructors). */
#define CLASS(var, nm, par, depth, ctor, dtor, type, ctors, dtors) \
	static ptl_ctor_f var##_ctors[] = ctors;                   \
	static ptl_ctor_f var##_dtors[] = dtors;                   \
	ptl_class_t var = { nm, par, ctor, dtor, 1, depth, var##_ctors, var##_dtors, sizeof(type) }
#define L(...)              \
	{                   \
		__VA_ARGS__ \
	}

CLASS(pmix_object_t_class, "pmix_object_t", NULL, 0, NULL, NULL, ptl_object_t, L(NULL), L(NULL));
CLASS(pmix_list_item_t_class, "pmix_list_item_t", &pmix_object_t_class, 1, item_ctor, NULL,
      ptl_item_t, L(item_ctor, NULL), L(NULL));
CLASS(pmix_list_t_class, "pmix_list_t", &pmix_object_t_class, 1, list_ctor, list_dtor, ptl_list_t,
      L(list_ctor, NULL), L(list_dtor, NULL));
CLASS(pmix_mutex_t_class, "pmix_mutex_t", &pmix_object_t_class, 1, mutex_ctor, mutex_dtor,
      ptl_mutex_t, L(mutex_ctor, NULL), L(mutex_dtor, NULL));
CLASS(pmix_cli_item_t_class, "pmix_cli_item_t", &pmix_list_item_t_class, 2, cli_item_ctor,
      cli_item_dtor, ptl_cli_item_t, L(item_ctor, cli_item_ctor, NULL), L(cli_item_dtor, NULL));
CLASS(pmix_cli_result_t_class, "pmix_cli_result_t", &pmix_object_t_class, 1, cli_result_ctor,
      cli_result_dtor, ptl_cli_result_t, L(cli_result_ctor, NULL), L(cli_result_dtor, NULL));
CLASS(pmix_infolist_t_class, "pmix_infolist_t", &pmix_list_item_t_class, 2, infolist_ctor,
      infolist_dtor, ptl_infolist_t, L(item_ctor, infolist_ctor, NULL), L(infolist_dtor, NULL));
/* no destructor: pquery moves the query out before it releases the item */
CLASS(pmix_querylist_t_class, "pmix_querylist_t", &pmix_list_item_t_class, 2, querylist_ctor, NULL,
      ptl_querylist_t, L(item_ctor, querylist_ctor, NULL), L(NULL));

void pmix_class_initialize(ptl_class_t *cls)
{
	ptl_ctor_f *ctors, *dtors;
	int depth = 0, nc = 0, nd = 0;

	if (!cls || cls->initialized == pmix_class_init_epoch)
		return;
	for (ptl_class_t *c = cls; c; c = c->parent)
		depth++;
	ctors = calloc((size_t)depth + 1, sizeof(*ctors));
	dtors = calloc((size_t)depth + 1, sizeof(*dtors));
	if (!ctors || !dtors) {
		free(ctors);
		free(dtors);
		return; /* left uninitialised: the caller's objects get no constructors */
	}
	for (ptl_class_t *c = cls; c; c = c->parent)
		if (c->destruct)
			dtors[nd++] = c->destruct;
	for (int i = depth - 1; i >= 0; i--) { /* the root first */
		ptl_class_t *c = cls;

		for (int k = 0; k < i; k++)
			c = c->parent;
		if (c->construct)
			ctors[nc++] = c->construct;
	}
	cls->construct_array = ctors; /* for the process's life, as OpenPMIx does */
	cls->destruct_array = dtors;
	cls->depth = depth - 1;
	cls->initialized = pmix_class_init_epoch;
}

static ptl_object_t *obj_new(ptl_class_t *cls)
{
	ptl_object_t *o;

	pmix_class_initialize(cls);
	if (!(o = calloc(1, cls->size)))
		return NULL;
	pthread_mutex_init(&o->lock, NULL);
	embedded(o, cls);
	return o;
}

static void release(ptl_object_t *o)
{
	int left;

	pthread_mutex_lock(&o->lock);
	left = --o->refcount;
	pthread_mutex_unlock(&o->lock);
	if (left > 0)
		return;
	for (ptl_ctor_f *f = o->cls->destruct_array; f && *f; f++)
		(*f)(o);
	if (!o->dontfree)
		free(o);
}

static void list_append(ptl_list_t *l, ptl_item_t *i)
{
	i->prev = l->sentinel.prev;
	i->next = &l->sentinel;
	l->sentinel.prev->next = i;
	l->sentinel.prev = i;
	l->length++;
}

/* ----------------------------------------------------------- set-up calls */

bool pmix_output_init(void)
{
	return true;
}

int pmix_mca_base_framework_open(struct ptl_framework *framework, int flags)
{
	(void)framework;
	(void)flags;
	return PMIX_SUCCESS;
}

int pmix_mca_base_var_init(void)
{
	return PMIX_SUCCESS;
}

int pmix_pinstall_dirs_base_init(pmix_info_t info[], size_t ninfo)
{
	(void)info;
	(void)ninfo;
	return PMIX_SUCCESS;
}

pmix_status_t pmix_show_help_init(char *helpdir)
{
	(void)helpdir;
	return PMIX_SUCCESS;
}

int pmix_util_keyval_parse_init(void)
{
	return PMIX_SUCCESS;
}

pmix_status_t pmix_register_params(void)
{
	return PMIX_SUCCESS;
}

int pmix_init_util(pmix_info_t info[], size_t ninfo, char *libdir)
{
	(void)info;
	(void)ninfo;
	(void)libdir;
	return PMIX_SUCCESS;
}

int pmix_asprintf(char **ptr, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ptr, fmt, ap);
	va_end(ap);
	if (n < 0)
		*ptr = NULL;
	return n;
}

/* ------------------------------------------------------------- help texts */

static FILE *open_help(const char *filename, char **path)
{
	const char *dir = getenv("SLURMIX_PMIX_HELP_DIR");
	FILE *f = NULL;

	if (!dir || !*dir)
		dir = HELP_DIR_DEFAULT;
	*path = NULL;
	if (!filename || strchr(filename, '/'))
		return NULL;
	if (asprintf(path, "%s/%s", dir, filename) >= 0 && !(f = fopen(*path, "re")) &&
	    !strstr(filename, ".txt")) {
		free(*path);
		if (asprintf(path, "%s/%s.txt", dir, filename) < 0)
			*path = NULL;
		else
			f = fopen(*path, "re");
	}
	return f;
}

/* The topic's lines, each ending in "\n"; NULL when there is none. */
static char *read_topic(const char *filename, const char *topic)
{
	char *path = NULL, *line = NULL, *text = NULL;
	size_t cap = 0, len = 0, tlen = topic ? strlen(topic) : 0;
	FILE *f = open_help(filename, &path);
	bool in = false;
	ssize_t n;

	if (!f) {
		fprintf(stderr,
			"%s\nSorry!  You were supposed to get help about:\n    %s\nBut I couldn't "
			"open the help file:\n    %s: %s.  Sorry!\n%s\n",
			DASHES, topic ? topic : "",
			path     ? path :
			filename ? filename :
				   "",
			strerror(errno ? errno : ENOENT), DASHES);
		free(path);
		return NULL;
	}
	free(path);
	while (topic && (n = getline(&line, &cap, f)) >= 0) {
		if (line[0] == '[') {
			if (in)
				break;
			in = !strncmp(line + 1, topic, tlen) && line[tlen + 1] == ']';
			continue;
		}
		if (!in || line[0] == '#')
			continue;
		if (n == 0 || line[n - 1] != '\n')
			line[n++] = '\n'; /* getline left room for the NUL */
		char *g = realloc(text, len + (size_t)n + 1);

		if (!g)
			break;
		text = g;
		memcpy(text + len, line, (size_t)n);
		len += (size_t)n;
		text[len] = '\0';
	}
	free(line);
	fclose(f);
	if (in && !text)
		text = strdup("");
	return in ? text : NULL;
}

static char *vrender(const char *filename, const char *topic, int header, va_list ap)
{
	char *text = read_topic(filename, topic), *fmt = NULL, *out = NULL;

	if (!text)
		return NULL;
	if (header && asprintf(&fmt, "%s\n%s%s\n", DASHES, text, DASHES) < 0)
		fmt = NULL;
	if (!header)
		fmt = text, text = NULL;
	if (fmt && vasprintf(&out, fmt, ap) < 0)
		out = NULL;
	free(fmt);
	free(text);
	return out;
}

char *pmix_show_help_string(const char *filename, const char *topic, int want_error_header, ...)
{
	va_list ap;
	char *s;

	va_start(ap, want_error_header);
	s = vrender(filename, topic, want_error_header, ap);
	va_end(ap);
	return s;
}

pmix_status_t pmix_show_help(const char *filename, const char *topic, int want_error_header, ...)
{
	va_list ap;
	char *s;

	va_start(ap, want_error_header);
	s = vrender(filename, topic, want_error_header, ap);
	va_end(ap);
	if (s)
		fputs(s, stderr);
	free(s);
	return PMIX_SUCCESS;
}

/* Prints a help text (stdout, as OpenPMIx's parser does) and frees it. */
static void put(char *s)
{
	if (s)
		fputs(s, stdout);
	free(s);
}

/* ----------------------------------------------------------- command line */

static const char *base(void)
{
	return pmix_tool_basename ? pmix_tool_basename : "pmix";
}

static int store(ptl_cli_result_t *r, const char *name, const char *value)
{
	ptl_cli_item_t *c = NULL;

	for (ptl_item_t *i = r->instances.sentinel.next; i != &r->instances.sentinel; i = i->next)
		if (!strcmp(((ptl_cli_item_t *)i)->key, name)) {
			c = (ptl_cli_item_t *)i;
			break;
		}
	if (!c) {
		if (!(c = (ptl_cli_item_t *)obj_new(&pmix_cli_item_t_class)) ||
		    !(c->key = strdup(name))) {
			if (c)
				release(&c->super.super);
			return PMIX_ERR_NOMEM;
		}
		list_append(&r->instances, &c->super);
	}
	return value && PMIx_Argv_append_nosize(&c->values, value) != PMIX_SUCCESS ?
		       PMIX_ERR_NOMEM :
		       PMIX_SUCCESS;
}

/* -h [topic]: the tool's help, or a topic of it. */
static int help(const char *helpfile, const char *optarg_, const char *next)
{
	const char *t = next;

	if (optarg_) {
		put(pmix_show_help_string("help-cli.txt", "unrecognized-option", true, base(),
					  optarg_));
		return PMIX_ERR_SILENT;
	}
	if (!next) {
		put(pmix_show_help_string(helpfile, "usage", false, base(), pmix_tool_org,
					  pmix_tool_version, base(), pmix_tool_msg));
		return PMIX_OPERATION_SUCCEEDED;
	}
	while (*t == '-')
		t++;
	if (!strcmp(t, "version") || !strcmp(t, "V")) {
		put(pmix_show_help_string("help-cli.txt", "version", false));
	} else if (!strcmp(t, "verbose") || !strcmp(t, "v")) {
		put(pmix_show_help_string("help-cli.txt", "verbose", false));
	} else if (!strcmp(t, "help") || !strcmp(t, "h")) {
		const char *b = base();

		put(pmix_show_help_string("help-cli.txt", "help", false, b, b, b, b, b, b, b, b));
	} else {
		char *s = pmix_show_help_string(helpfile, t, false);

		put(s ? s :
			pmix_show_help_string("help-cli.txt", "unknown-option", true, t, base()));
	}
	return PMIX_OPERATION_SUCCEEDED;
}

static const struct option *long_of(const struct option *opts, int val)
{
	for (; opts && opts->name; opts++)
		if (opts->val == val)
			return opts;
	return NULL;
}

/* One short option the tool's table knows (getopt returned opt). */
static int short_opt(ptl_cli_result_t *r, const struct option *opts, const char *shorts,
		     char **argv, int opt)
{
	const char *s = strchr(shorts, opt);
	const struct option *o = long_of(opts, opt);
	const char *arg = NULL;

	if (s && s[1] == ':' && s[2] == ':')
		arg = argv[optind - 1][2] ? argv[optind - 1] + 2 : NULL;
	else if (s && s[1] == ':')
		arg = optarg;
	if (!o) {
		put(pmix_show_help_string("help-cli.txt", "short-no-long", true, base(),
					  argv[optind - 1]));
		return PMIX_ERR_SILENT;
	}
	if (o->has_arg == no_argument && arg) {
		put(pmix_show_help_string("help-cli.txt", "short-arg-error", true, base(),
					  argv[optind - 1], arg));
		return PMIX_ERR_SILENT;
	}
	return store(r, o->name, arg);
}

static int unknown_opt(const struct option *opts, char **argv)
{
	const char *a = optind > 0 ? argv[optind - 1] : "";
	const char *name = strncmp(a, "--", 2) == 0 ? a + 2 : a + (a[0] == '-');

	for (const struct option *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name)) {
			put(pmix_show_help_string("help-cli.txt", "missing-argument", true, base(),
						  a));
			return PMIX_ERR_SILENT;
		}
	put(pmix_show_help_string("help-cli.txt", "unregistered-option", true, base(), a));
	return PMIX_ERR_SILENT;
}

int pmix_cmd_line_parse(char **pargv, char *shorts, struct option opts[], void *storefn,
			ptl_cli_result_t *results, char *helpfile)
{
	char **argv = NULL;
	int argc, rc = PMIX_SUCCESS, opt, idx;

	if (!pargv || !shorts || !results || storefn)
		return PMIX_ERR_BAD_PARAM;
	for (char **a = pargv; *a; a++) { /* one pair of quotes off, as OpenPMIx */
		size_t n = strlen(*a);
		const char *s = *a;

		if (n && s[0] == '"')
			s++, n--;
		if (n && s[n - 1] == '"')
			n--;
		char *c = strndup(s, n);

		if (!c || PMIx_Argv_append_nosize(&argv, c) != PMIX_SUCCESS) {
			free(c);
			PMIx_Argv_free(argv);
			return PMIX_ERR_NOMEM;
		}
		free(c);
	}
	argc = PMIx_Argv_count(argv);
	optind = 0;
	opterr = 0;
	optopt = 0;
	optarg = NULL;
	while (rc == PMIX_SUCCESS) {
		if (optind == argc || (optind > 0 && argv[optind][0] != '-'))
			break;
		idx = 0;
		opt = getopt_long(argc, argv, shorts, opts, &idx);
		if (opt == -1)
			break;
		if (opt == 0)
			rc = store(results, opts[idx].name, optarg);
		else if (opt == 'h')
			rc = help(helpfile, optarg, optarg ? NULL : argv[optind]);
		else if (opt == 'V') {
			put(pmix_show_help_string(helpfile, "version", false, base(), pmix_tool_org,
						  pmix_tool_version, pmix_tool_msg));
			rc = PMIX_OPERATION_SUCCEEDED;
		} else if (opt != '?' && opt != ':' && strchr(shorts, opt))
			rc = short_opt(results, opts, shorts, argv, opt);
		else
			rc = unknown_opt(opts, argv);
	}
	if (rc == PMIX_SUCCESS && optind < argc && strcmp(argv[optind], "&")) {
		PMIx_Argv_free(results->tail);
		results->tail = NULL;
		for (int i = optind; i < argc && rc == PMIX_SUCCESS; i++)
			if (PMIx_Argv_append_nosize(&results->tail, argv[i]) != PMIX_SUCCESS)
				rc = PMIX_ERR_NOMEM;
	}
	PMIx_Argv_free(argv);
	return rc;
}

/* ------------------------------------------------------------- attributes */

const char *pmix_attributes_lookup(const char *name)
{
	char up[256];
	size_t i;

	if (!name || strlen(name) >= sizeof(up))
		return name;
	for (i = 0; name[i]; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	return strcmp(PMIx_Get_attribute_string(up), up) ? PMIx_Get_attribute_string(up) : name;
}

const char *pmix_attributes_reverse_lookup(const char *attrstring)
{
	return PMIx_Get_attribute_name(attrstring);
}

void pmix_init_registered_attrs(void)
{
}

pmix_status_t pmix_register_client_attrs(void)
{
	return PMIX_SUCCESS;
}

pmix_status_t pmix_register_server_attrs(void)
{
	return PMIX_SUCCESS;
}

pmix_status_t pmix_register_tool_attrs(void)
{
	return PMIX_SUCCESS;
}

static const char *level_title(const char *level, const char *what)
{
	static char t[64];
	const char *who = !level                  ? "" :
			  strstr(level, "client") ? "CLIENT" :
			  strstr(level, "srvr")   ? "SERVER" :
			  strstr(level, "host")   ? "HOST" :
			  strstr(level, "tool")   ? "TOOL" :
						    "";

	snprintf(t, sizeof(t), "%s SUPPORTED %s: ", who, what);
	return t;
}

/* This process's answer to an attribute query of one level qualifier
 * (key, with the functions value, or a bool when value is NULL). */
static pmix_status_t ask_level(const char *key, const char *value, pxc_infolist_t *r)
{
	pmix_info_t q_info;
	pmix_query_t q = { 0 };
	bool yes = true;
	pmix_status_t st;

	PMIx_Info_load(&q_info, key, value ? (const void *)value : &yes,
		       value ? PMIX_STRING : PMIX_BOOL);
	q.qualifiers = &q_info;
	q.nqual = 1;
	st = pxc_attr_query_answer(&q, r);
	PMIx_Info_destruct(&q_info);
	return st;
}

char **pmix_attributes_print_functions(char *level)
{
	char **ans = NULL, **names;
	pxc_infolist_t r = { NULL, 0, 0 };

	PMIx_Argv_append_nosize(&ans, level_title(level, "FUNCTIONS"));
	if (level && ask_level(level, NULL, &r) == PMIX_SUCCESS && r.n == 1 &&
	    r.info[0].value.type == PMIX_STRING && r.info[0].value.data.string) {
		names = PMIx_Argv_split(r.info[0].value.data.string, ',');
		for (size_t i = 0; names && names[i]; i++)
			PMIx_Argv_append_nosize(&ans, names[i]);
		PMIx_Argv_free(names);
	}
	pxc_infolist_free(&r);
	return ans;
}

/* The attributes of the functions named (comma list or "all") at level,
 * as pattrs prints them: the headers, then each function and its
 * attributes. */
char **pmix_attributes_print_attr(char *level, char *function)
{
	char **ans = NULL;
	pxc_infolist_t r = { NULL, 0, 0 };
	const pmix_data_array_t *d;

	if (!level || !function)
		return NULL;
	pmix_attributes_print_headers(&ans, level);
	if (ask_level(level, function, &r) == PMIX_SUCCESS && r.n == 1 &&
	    r.info[0].value.type == PMIX_DATA_ARRAY && (d = r.info[0].value.data.darray) &&
	    d->type == PMIX_INFO) {
		const pmix_info_t *f = d->array;

		for (size_t i = 0; i < d->size; i++) {
			const pmix_data_array_t *a = f[i].value.data.darray;

			if (f[i].value.type == PMIX_DATA_ARRAY && a && a->type == PMIX_REGATTR)
				pmix_attributes_print_attrs(&ans, (char *)f[i].key, a->array,
							    a->size);
		}
	}
	pxc_infolist_free(&r);
	return ans;
}

void pmix_attributes_print_headers(char ***ans, char *level)
{
	if (ans)
		PMIx_Argv_append_nosize(ans, level_title(level, "ATTRIBUTES"));
}

void pmix_attributes_print_attrs(char ***ans, char *function, pmix_regattr_t *attrs, size_t nattrs)
{
	char *line = NULL;

	if (!ans)
		return;
	if (function && asprintf(&line, "%s:", function) >= 0) {
		PMIx_Argv_append_nosize(ans, line);
		free(line);
	}
	for (size_t i = 0; attrs && i < nattrs; i++) {
		/* an entry without a string ("NONE": no attributes) is its name */
		if ((attrs[i].string[0] ?
			     asprintf(&line, "    %-35.35s  %-25.25s  %s",
				      attrs[i].name ? attrs[i].name : "", attrs[i].string,
				      PMIx_Data_type_string(attrs[i].type)) :
			     asprintf(&line, "    %s", attrs[i].name ? attrs[i].name : "")) < 0)
			return;
		PMIx_Argv_append_nosize(ans, line);
		free(line);
	}
}
