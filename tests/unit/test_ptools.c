/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ptools.c - the OpenPMIx internals that its command-line tools
 * call (src/pmix_core/compat/ptools.c), without the tools: the command
 * line parser (options, flags, the tail, and broken command lines), help
 * texts from a help file of our own, the classes (constructed as the
 * tools' inline code does, and pmix_class_initialize of a new class), and
 * attribute names. The real binaries run in tests/cluster/run_iof_tests.sh.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "compat/ptools.h"

static struct option opts[] = {
	{ "help", optional_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
	{ "verbose", no_argument, NULL, 'v' },    { "pid", required_argument, NULL, 0 },
	{ "nodes", no_argument, NULL, 0 },        { NULL, 0, NULL, 0 },
};

/* As the tools do it: PMIX_CONSTRUCT by hand on the stack. */
static void construct(ptl_cli_result_t *r)
{
	memset(r, 0xa5, sizeof(*r)); /* stack garbage */
	ck_assert_int_eq(pmix_cli_result_t_class.initialized, pmix_class_init_epoch);
	r->super.cls = &pmix_cli_result_t_class;
	r->super.refcount = 1;
	for (ptl_ctor_f *f = pmix_cli_result_t_class.construct_array; *f; f++)
		(*f)(&r->super);
}

static void destruct(ptl_cli_result_t *r)
{
	for (ptl_ctor_f *f = r->super.cls->destruct_array; *f; f++)
		(*f)(&r->super);
}

static ptl_cli_item_t *param(ptl_cli_result_t *r, const char *key)
{
	for (ptl_item_t *i = r->instances.sentinel.next; i != &r->instances.sentinel; i = i->next)
		if (!strcmp(((ptl_cli_item_t *)i)->key, key))
			return (ptl_cli_item_t *)i;
	return NULL;
}

static int parse(ptl_cli_result_t *r, const char *line)
{
	char **argv = NULL, *copy = strdup(line), *save = NULL;
	int rc;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		PMIx_Argv_append_nosize(&argv, t);
	construct(r);
	rc = pmix_cmd_line_parse(argv, "h::vV", opts, NULL, r, "help-test.txt");
	PMIx_Argv_free(argv);
	free(copy);
	return rc;
}

START_TEST(options_and_tail)
{
	ptl_cli_result_t r;
	ptl_cli_item_t *c;

	pmix_tool_basename = "ptest";
	ck_assert_int_eq(parse(&r, "ptest --pid 42 --nodes -v --pid=43 key1 \"key 2\" key3"),
			 PMIX_SUCCESS);
	ck_assert_ptr_nonnull(c = param(&r, "pid"));
	ck_assert_int_eq(PMIx_Argv_count(c->values), 2);
	ck_assert_str_eq(c->values[0], "42");
	ck_assert_str_eq(c->values[1], "43");
	ck_assert_ptr_nonnull(c = param(&r, "nodes"));
	ck_assert_ptr_null(c->values); /* a flag */
	ck_assert_ptr_nonnull(param(&r, "verbose"));
	ck_assert_ptr_null(param(&r, "help"));
	ck_assert_int_eq(r.instances.length, 3);
	ck_assert_int_eq(PMIx_Argv_count(r.tail), 4); /* split by the test at the space */
	ck_assert_str_eq(r.tail[0], "key1");
	ck_assert_str_eq(r.tail[1], "key"); /* one quote taken off */
	ck_assert_str_eq(r.tail[2], "2");
	destruct(&r);
	ck_assert_int_eq(parse(&r, "ptest"), PMIX_SUCCESS);
	ck_assert_ptr_null(r.tail);
	ck_assert_int_eq(r.instances.length, 0);
	destruct(&r);
}
END_TEST

/* Broken command lines: an error, never a crash or a half-filled result
 * used as good. */
START_TEST(broken_command_lines)
{
	static const char *bad[] = { "ptest --bogus", "ptest --pid",     "ptest -vx",
				     "ptest -hfoo",   "ptest --nodes=3", "ptest -x" };
	ptl_cli_result_t r;

	pmix_tool_basename = "ptest";
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(&r, bad[i]) == PMIX_ERR_SILENT, "%s", bad[i]);
		destruct(&r);
	}
	construct(&r);
	ck_assert_int_eq(pmix_cmd_line_parse(NULL, "h", opts, NULL, &r, "x"), PMIX_ERR_BAD_PARAM);
	destruct(&r);
}
END_TEST

static char dir[] = "/tmp/ptools.XXXXXX";

static void help_file(void)
{
	char path[256];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/help-test.txt", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("# a comment\n[usage]\n%s usage of %s\n# skipped\nsecond line\n[pid]\nthe pid\n", f);
	fclose(f);
	setenv("SLURMIX_PMIX_HELP_DIR", dir, 1);
}

static void help_gone(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/help-test.txt", dir);
	unlink(path);
	rmdir(dir);
}

START_TEST(help_texts)
{
	ptl_cli_result_t r;
	char *s;

	help_file();
	s = pmix_show_help_string("help-test.txt", "usage", false, "a", "b");
	ck_assert_str_eq(s, "a usage of b\nsecond line\n");
	free(s);
	s = pmix_show_help_string("help-test", "pid", true); /* .txt added */
	ck_assert_ptr_nonnull(strstr(s, "\nthe pid\n"));
	ck_assert_int_eq(strncmp(s, "-----", 5), 0);
	free(s);
	ck_assert_ptr_null(pmix_show_help_string("help-test.txt", "nothing", false));
	ck_assert_ptr_null(pmix_show_help_string("help-none.txt", "usage", false)); /* logged */
	ck_assert_ptr_null(pmix_show_help_string("../etc/passwd", "usage", false));
	ck_assert_int_eq(pmix_show_help("help-test.txt", "pid", false), PMIX_SUCCESS);
	pmix_tool_basename = "ptest";
	ck_assert_int_eq(parse(&r, "ptest --help"), PMIX_OPERATION_SUCCEEDED);
	destruct(&r);
	ck_assert_int_eq(parse(&r, "ptest -h pid"), PMIX_OPERATION_SUCCEEDED);
	destruct(&r);
	ck_assert_int_eq(parse(&r, "ptest -V"), PMIX_OPERATION_SUCCEEDED);
	destruct(&r);
	help_gone();
}
END_TEST

/* A new class (as a tool's own would be): its arrays from its parents,
 * constructors root first, destructors own first; objects of the
 * tools' classes as PMIX_NEW makes them. */
static int order[8], norder;
static void c_a(ptl_object_t *o)
{
	(void)o;
	order[norder++] = 1;
}
static void c_b(ptl_object_t *o)
{
	(void)o;
	order[norder++] = 2;
}
static void d_a(ptl_object_t *o)
{
	(void)o;
	order[norder++] = 3;
}
static void d_b(ptl_object_t *o)
{
	(void)o;
	order[norder++] = 4;
}

START_TEST(classes)
{
	ptl_class_t a = { "a", &pmix_object_t_class, c_a, d_a, 0, 0, NULL, NULL, 200 };
	ptl_class_t b = { "b", &a, c_b, d_b, 0, 0, NULL, NULL, 300 };
	ptl_object_t o = { 0 };
	ptl_querylist_t *q;

	pmix_class_initialize(&b);
	ck_assert_int_eq(b.initialized, pmix_class_init_epoch);
	ck_assert_int_eq(a.initialized, 0); /* only what was asked */
	o.cls = &b;
	for (ptl_ctor_f *f = b.construct_array; *f; f++)
		(*f)(&o);
	for (ptl_ctor_f *f = b.destruct_array; *f; f++)
		(*f)(&o);
	ck_assert_int_eq(norder, 4);
	ck_assert(order[0] == 1 && order[1] == 2 && order[2] == 4 && order[3] == 3);
	free(b.construct_array);
	free(b.destruct_array);
	/* querylist: constructed query, no destructor (pquery moves it out) */
	ck_assert_ptr_null(pmix_querylist_t_class.destruct_array[0]);
	ck_assert_uint_ge(pmix_querylist_t_class.size, 160);
	q = calloc(1, pmix_querylist_t_class.size);
	memset(&q->query, 0xa5, sizeof(q->query));
	for (ptl_ctor_f *f = pmix_querylist_t_class.construct_array; *f; f++)
		(*f)(&q->super.super);
	ck_assert_ptr_null(q->query.keys);
	ck_assert_uint_eq(q->super.item_free, 1);
	free(q);
}
END_TEST

START_TEST(attributes)
{
	char **fns;

	ck_assert_str_eq(pmix_attributes_lookup("PMIX_QUERY_NAMESPACES"), "pmix.qry.ns");
	ck_assert_str_eq(pmix_attributes_lookup("pmix_query_namespaces"), "pmix.qry.ns");
	ck_assert_str_eq(pmix_attributes_lookup("pmix.qry.ns"), "pmix.qry.ns");
	ck_assert_str_eq(pmix_attributes_lookup("NO_SUCH"), "NO_SUCH");
	ck_assert_str_eq(pmix_attributes_reverse_lookup("pmix.qry.ns"), "PMIX_QUERY_NAMESPACES");
	ck_assert_ptr_null(pmix_attributes_lookup(NULL));
	pmix_init_registered_attrs();
	ck_assert_int_eq(pmix_register_client_attrs(), PMIX_SUCCESS);
	fns = pmix_attributes_print_functions("pmix.client.fns");
	ck_assert_str_eq(fns[0], "CLIENT SUPPORTED FUNCTIONS: ");
	ck_assert_str_eq(fns[1], "PMIx_Init");
	PMIx_Argv_free(fns);
	/* pattrs --client PMIx_Get,PMIx_Nope: the headers, the function and
	 * its attributes, nothing for an unknown name */
	fns = pmix_attributes_print_attr("pmix.client.attrs", "PMIx_Get,PMIx_Nope");
	ck_assert_ptr_nonnull(fns);
	ck_assert_str_eq(fns[0], "CLIENT SUPPORTED ATTRIBUTES: ");
	ck_assert_str_eq(fns[1], "PMIx_Get:");
	ck_assert_ptr_nonnull(strstr(fns[2], "PMIX_OPTIONAL"));
	ck_assert_ptr_nonnull(strstr(fns[2], "pmix.optional"));
	for (size_t i = 1; fns[i]; i++)
		ck_assert_ptr_null(strstr(fns[i], "PMIx_Nope"));
	PMIx_Argv_free(fns);
	/* broken: no function, a level that is none */
	ck_assert_ptr_null(pmix_attributes_print_attr("pmix.client.attrs", NULL));
	fns = pmix_attributes_print_attr("pmix.no.level", "all");
	ck_assert_ptr_nonnull(fns);
	ck_assert_ptr_null(fns[1]);
	PMIx_Argv_free(fns);
	ck_assert(pmix_output_init());
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "options_and_tail", options_and_tail },
		{ "broken_command_lines", broken_command_lines },
		{ "help_texts", help_texts },
		{ "classes", classes },
		{ "attributes", attributes },
	};

	return unit_main(argc, argv,
			 &(struct unit_spec){ .name = "ptools",
					      .tests = tests,
					      .ntests = sizeof(tests) / sizeof(tests[0]),
					      .timeout = 20 });
}
