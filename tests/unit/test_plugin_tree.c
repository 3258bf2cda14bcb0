/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_tree.c - check suite for the collective tree shape
 * (src/plugin/lib/tree.c): for many sizes and widths, every node but the
 * root has exactly one parent that lists it as a child, nobody has more
 * than `width` children, the root reaches every node exactly once, the
 * depth stays logarithmic, subtrees are contiguous; a few shapes are
 * checked literally; bad arguments give EINVAL.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tree.h"
#include "runner.h"

#define MAXW 64

/* Depth of me (root 0), following parents; -1 on a cycle. */
static int depth_of(uint32_t me, uint32_t n, uint32_t w)
{
	int d = 0;
	uint32_t p;

	while (me != 0) {
		ck_assert_int_eq(plug_tree_node(me, n, w, &p, NULL, NULL), 0);
		ck_assert_uint_lt(p, me);
		me = p;
		if (++d > (int)n)
			return -1;
	}
	return d;
}

static int log_ceil(uint32_t n, uint32_t w) /* levels below the root */
{
	uint64_t reach = 1, level = 1;
	int d = 0;

	if (w == 1)
		return (int)n - 1;
	while (reach < n) {
		level *= w;
		reach += level;
		d++;
	}
	return d;
}

static void check_shape(uint32_t n, uint32_t w)
{
	uint32_t *seen = calloc(n, sizeof(*seen)), kids[MAXW], nk, p;

	ck_assert_ptr_nonnull(seen);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_int_eq(plug_tree_node(i, n, w, &p, kids, &nk), 0);
		ck_assert_uint_le(nk, w);
		ck_assert(i == 0 ? p == PLUG_TREE_NONE : p < i);
		for (uint32_t k = 0; k < nk; k++) {
			uint32_t cp;

			ck_assert_uint_gt(kids[k], i);
			ck_assert(k == 0 || kids[k] > kids[k - 1]);
			ck_assert_int_eq(plug_tree_node(kids[k], n, w, &cp, NULL, NULL), 0);
			ck_assert_uint_eq(cp, i);
			seen[kids[k]]++;
		}
		if (nk) /* contiguous: first child right after me */
			ck_assert_uint_eq(kids[0], i + 1);
	}
	ck_assert_uint_eq(seen[0], 0);
	for (uint32_t i = 1; i < n; i++)
		ck_assert_uint_eq(seen[i], 1);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_int_le(depth_of(i, n, w), 2 * log_ceil(n, w) + 1);
	free(seen);
}

START_TEST(t_shapes)
{
	for (uint32_t w = 1; w <= 9; w++)
		for (uint32_t n = 1; n <= 150; n++)
			check_shape(n, w);
	check_shape(5000, 50);
	check_shape(4096, 2);
}
END_TEST

START_TEST(t_literal)
{
	uint32_t kids[MAXW], nk, p;

	/* 8 nodes, width 2: 0 -> {1, 5}; 1 -> {2, 4}; 2 -> {3}; 5 -> {6, 7} */
	ck_assert_int_eq(plug_tree_node(0, 8, 2, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, PLUG_TREE_NONE);
	ck_assert_uint_eq(nk, 2);
	ck_assert_uint_eq(kids[0], 1);
	ck_assert_uint_eq(kids[1], 5);
	ck_assert_int_eq(plug_tree_node(5, 8, 2, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, 0);
	ck_assert_uint_eq(nk, 2);
	ck_assert_uint_eq(kids[0], 6);
	ck_assert_uint_eq(kids[1], 7);
	ck_assert_int_eq(plug_tree_node(3, 8, 2, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, 2);
	ck_assert_uint_eq(nk, 0);
	/* width >= n - 1: a star */
	ck_assert_int_eq(plug_tree_node(0, 4, 50, &p, kids, &nk), 0);
	ck_assert_uint_eq(nk, 3);
	ck_assert_int_eq(plug_tree_node(3, 4, 50, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, 0);
	/* one node */
	ck_assert_int_eq(plug_tree_node(0, 1, 4, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, PLUG_TREE_NONE);
	ck_assert_uint_eq(nk, 0);
	/* width 1: a chain */
	ck_assert_int_eq(plug_tree_node(2, 5, 1, &p, kids, &nk), 0);
	ck_assert_uint_eq(p, 1);
	ck_assert_uint_eq(nk, 1);
	ck_assert_uint_eq(kids[0], 3);
	/* huge n: no overflow, no table */
	ck_assert_int_eq(plug_tree_node(UINT32_MAX - 1, UINT32_MAX, 2, &p, NULL, &nk), 0);
	ck_assert_uint_lt(p, UINT32_MAX - 1);
}
END_TEST

START_TEST(t_bad)
{
	uint32_t p;

	errno = 0;
	ck_assert_int_eq(plug_tree_node(0, 0, 2, &p, NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(plug_tree_node(0, 4, 0, &p, NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(plug_tree_node(4, 4, 2, &p, NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *tree_suite(void)
{
	Suite *s = suite_create("plugin_tree");
	TCase *tc = tcase_create("tree");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_shapes);
	tcase_add_test(tc, t_literal);
	tcase_add_test(tc, t_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = tree_suite, .fork = CK_FORK });
}
