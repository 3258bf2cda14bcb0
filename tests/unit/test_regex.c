/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_regex.c - check suite for common/regex.c: PMIx_generate_regex /
 * PMIx_generate_ppn round trips through our parsers, the exact output for
 * the usual shapes, plain-text input, values, and malformed maps.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_server.h>

#include "regex.h"
#include "runner.h"

static char *join(char **argv, char sep)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (i = 0; argv[i]; i++) {
		if (i)
			strncat(s, &sep, 1);
		strcat(s, argv[i]);
	}
	return s;
}

/* generate -> parse gives the input back; returns the regex. */
static char *nodes_round_trip(const char *input)
{
	char *re = NULL, **names = NULL, *back;

	ck_assert_int_eq(PMIx_generate_regex(input, &re), PMIX_SUCCESS);
	ck_assert(strncmp(re, "slurmix:", 8) == 0);
	ck_assert_int_eq(pxc_regex_parse_nodes(re, &names), 0);
	back = join(names, ',');
	ck_assert_msg(strcmp(back, input) == 0, "%s -> %s -> %s", input, re, back);
	free(back);
	pxc_regex_argv_free(names);
	return re;
}

static void nodes_expect(const char *input, const char *regex)
{
	char *re = nodes_round_trip(input);

	ck_assert_str_eq(re, regex);
	free(re);
}

START_TEST(test_nodes_shapes)
{
	nodes_expect("vn1", "slurmix:vn1");
	nodes_expect("vn1,vn2,vn3,vn4,vn5,vn6,vn7,vn8,vn9,vn10,vn11,vn12,vn13,vn14,vn15,vn16",
		     "slurmix:vn[1-16]");
	nodes_expect("n001,n002,n003,n004,n005,n006,n007,n008,n009,n010,n011,n012,n013,"
		     "n014,n015,n016",
		     "slurmix:n[001-016]");
	nodes_expect("n09,n10,n11", "slurmix:n[09-11]");
	nodes_expect("n9,n10,n11", "slurmix:n[9-11]");
	nodes_expect("n1,n2,n4,n5,n9", "slurmix:n[1-2,4-5,9]");
	nodes_expect("login,vn1,vn2,head", "slurmix:login,vn[1-2],head");
	nodes_expect("a1,b1,a2", "slurmix:a1,b1,a2");
	nodes_expect("n1,n1,n2,n2", "slurmix:n[1,1-2,2]");
	nodes_expect("rack1-n01-ib,rack1-n02-ib", "slurmix:rack1-n[01-02]-ib");
	nodes_expect("n0,n00,n000", "slurmix:n[0,00,000]");
	nodes_expect("x.example.org", "slurmix:x.example.org");
	nodes_expect("node1234567890123456789", "slurmix:node1234567890123456789");
	free(nodes_round_trip("c1,c3,c5,d7,d8,d9,e,e,f001,f2"));
}
END_TEST

START_TEST(test_nodes_large)
{
	char *input = calloc(1, 1000 * 12), *re;
	int i;

	for (i = 0; i < 1000; i++)
		sprintf(input + strlen(input), "%snid%05d", i ? "," : "", i);
	re = nodes_round_trip(input);
	ck_assert_str_eq(re, "slurmix:nid[00000-00999]");
	free(re);
	input[0] = '\0';
	for (i = 0; i < 1000; i++) /* stride 2, then the odd ones */
		sprintf(input + strlen(input), "%snid%05d", i ? "," : "",
			i * 2 % 1000 + (i >= 500));
	free(nodes_round_trip(input));
	free(input);
}
END_TEST

START_TEST(test_nodes_plain_and_values)
{
	char **names = NULL, *text = NULL;
	pmix_value_t v;

	ck_assert_int_eq(pxc_regex_parse_nodes("n1,n2,x", &names), 0);
	ck_assert_str_eq(names[2], "x");
	ck_assert_ptr_null(names[3]);
	pxc_regex_argv_free(names);
	ck_assert_int_eq(pxc_regex_parse_nodes("h[3-4]", &names), 0);
	ck_assert_str_eq(names[1], "h4");
	pxc_regex_argv_free(names);

	memset(&v, 0, sizeof(v));
	v.type = PMIX_REGEX;
	v.data.bo.bytes = "slurmix:a[1-2]";
	v.data.bo.size = strlen(v.data.bo.bytes) + 1;
	ck_assert_int_eq(pxc_regex_value_text(&v, &text), 0);
	ck_assert_str_eq(text, "slurmix:a[1-2]");
	free(text);
	v.data.bo.size -= 4; /* no NUL, and shorter */
	ck_assert_int_eq(pxc_regex_value_text(&v, &text), 0);
	ck_assert_str_eq(text, "slurmix:a[1");
	free(text);
	v.type = PMIX_STRING;
	v.data.string = "n1";
	ck_assert_int_eq(pxc_regex_value_text(&v, &text), 0);
	free(text);
	v.type = PMIX_UINT32;
	ck_assert_int_eq(pxc_regex_value_text(&v, &text), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_nodes_malformed)
{
	static const char *bad[] = {
		"",
		"slurmix:",
		"n[1-",
		"n[",
		"n]",
		"n[]",
		"n[3-1]",
		"n[1-2]x[3]",
		"n[a-b]",
		"n[1--2]",
		"n[1,]",
		"a,,b",
		",a",
		"a,",
		"n[1-1000000000]",
		"n[0-999999999999999999]",
		"n[1-2",
		"n[[1]]",
		"n[1-2]]",
		"slurmix:n[-3]",
		"n[1234567890123456789]",
	};
	char **names = (char **)0x1;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_msg(pxc_regex_parse_nodes(bad[i], &names) == -1, "%s", bad[i]);
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(pxc_regex_parse_nodes(NULL, &names), -1);
	ck_assert_int_eq(PMIx_generate_regex("a[1]", (char **)&names), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_generate_regex("a,,b", (char **)&names), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_generate_regex("", (char **)&names), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_generate_regex(NULL, (char **)&names), PMIX_ERR_BAD_PARAM);
}
END_TEST

/* ---- process maps ---- */

/* input is a plain ppn map without ranges; generate -> parse gives it back */
static void ppn_expect(const char *input, const char *expect)
{
	char *ppn = NULL, **nodes = NULL, *back;

	ck_assert_int_eq(PMIx_generate_ppn(input, &ppn), PMIX_SUCCESS);
	if (expect)
		ck_assert_str_eq(ppn, expect);
	ck_assert_int_eq(pxc_regex_parse_ppn(ppn, &nodes), 0);
	back = join(nodes, ';');
	ck_assert_msg(strcmp(back, input) == 0, "%s -> %s -> %s", input, ppn, back);
	free(back);
	free(ppn);
	pxc_regex_argv_free(nodes);
}

START_TEST(test_ppn_shapes)
{
	ppn_expect("0", "slurmix:0");
	ppn_expect("0,1,2,3,4,5,6,7", "slurmix:0-7");
	ppn_expect("0,1,2,3;4,5,6,7;8,9,10,11;12,13,14,15", "slurmix:0-3;+4*3");
	ppn_expect("0,2,4,6;1,3,5,7", "slurmix:0,2,4,6;+1*1");
	ppn_expect("0,1;2,3", "slurmix:0-1;2-3");
	ppn_expect("0,1;2;3,4,5", "slurmix:0-1;2;3-5");
	ppn_expect("5,6;3,4;1,2", "slurmix:5-6;-2*2");
	ppn_expect("0;;1", "slurmix:0;;1");
	ppn_expect("0,3;1,4;2,5;9", NULL);
}
END_TEST

START_TEST(test_ppn_ranges_input)
{
	char *ppn = NULL, **nodes = NULL;

	ck_assert_int_eq(PMIx_generate_ppn("1-4;2-5;8,10,11,12;6,7,9", &ppn), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_regex_parse_ppn(ppn, &nodes), 0);
	ck_assert_str_eq(nodes[0], "1,2,3,4");
	ck_assert_str_eq(nodes[1], "2,3,4,5");
	ck_assert_str_eq(nodes[2], "8,10,11,12");
	ck_assert_str_eq(nodes[3], "6,7,9");
	ck_assert_ptr_null(nodes[4]);
	pxc_regex_argv_free(nodes);
	free(ppn);
	/* plain text straight into the parser */
	ck_assert_int_eq(pxc_regex_parse_ppn("0,1;2-3", &nodes), 0);
	ck_assert_str_eq(nodes[1], "2,3");
	pxc_regex_argv_free(nodes);
}
END_TEST

START_TEST(test_ppn_large)
{
	size_t n = 1024, i, j;
	char *input = calloc(1, n * 8 * 8), *ppn;
	char **nodes;

	for (i = 0; i < n; i++)
		for (j = 0; j < 8; j++)
			sprintf(input + strlen(input), "%s%zu", j ? "," : (i ? ";" : ""),
				i * 8 + j);
	ck_assert_int_eq(PMIx_generate_ppn(input, &ppn), PMIX_SUCCESS);
	ck_assert_str_eq(ppn, "slurmix:0-7;+8*1023");
	ck_assert_int_eq(pxc_regex_parse_ppn(ppn, &nodes), 0);
	ck_assert_str_eq(nodes[1023], "8184,8185,8186,8187,8188,8189,8190,8191");
	pxc_regex_argv_free(nodes);
	free(ppn);
	free(input);
}
END_TEST

START_TEST(test_ppn_malformed)
{
	static const char *bad[] = {
		"",
		"slurmix:",
		"a",
		"0,,1",
		"0,",
		"1-0",
		"0;x",
		"+1*3",
		"0;+1",
		"0;+1*",
		"0;+1*0",
		"0;*3",
		"0-4294967296",
		"4294967296",
		"0;-1*1",
		"0-99999999",
		"0;+1*99999999",
		"0;;+1*2",
		"0 1",
	};
	char **nodes = NULL, *ppn = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_msg(pxc_regex_parse_ppn(bad[i], &nodes) == -1, "%s", bad[i]);
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(PMIx_generate_ppn("0,x", &ppn), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_generate_ppn(NULL, &ppn), PMIX_ERR_BAD_PARAM);
}
END_TEST

static Suite *regex_suite(void)
{
	Suite *s = suite_create("regex");
	TCase *tc = tcase_create("all");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_nodes_shapes);
	tcase_add_test(tc, test_nodes_large);
	tcase_add_test(tc, test_nodes_plain_and_values);
	tcase_add_test(tc, test_nodes_malformed);
	tcase_add_test(tc, test_ppn_shapes);
	tcase_add_test(tc, test_ppn_ranges_input);
	tcase_add_test(tc, test_ppn_large);
	tcase_add_test(tc, test_ppn_malformed);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = regex_suite, .fork = CK_FORK });
}
