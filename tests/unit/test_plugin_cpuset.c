/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_cpuset.c - check suite for src/plugin/lib/cpuset.c: the
 * CPUs of each local task from Slurm's mask_cpu / map_cpu lists (with
 * and without 0x, cycling when the list is short), the fallback for other
 * bindings and for broken entries, and the cut to the node's CPUs.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "lib/cpuset.h"
#include "runner.h"

static hwloc_bitmap_t avail, own;

static void setup(void)
{
	avail = hwloc_bitmap_alloc();
	own = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(avail, 0, 7); /* 8 CPUs */
	hwloc_bitmap_set_range(own, 0, 7);
}

static void teardown(void)
{
	hwloc_bitmap_free(avail);
	hwloc_bitmap_free(own);
}

/* The task's set as hwloc's list string ("0-1,4"). */
static char *set_of(uint32_t type, const char *bind, uint32_t ltask)
{
	hwloc_bitmap_t s = plug_cpuset_of_task(type, bind, ltask, avail, own);
	char *out = NULL;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_ge(hwloc_bitmap_list_asprintf(&out, s), 0);
	hwloc_bitmap_free(s);
	return out;
}

#define CK_SET(type, bind, lt, want)               \
	do {                                       \
		char *_s = set_of(type, bind, lt); \
		ck_assert_str_eq(_s, want);        \
		free(_s);                          \
	} while (0)

START_TEST(masks)
{
	CK_SET(PLUG_BIND_MASK, "0x3,0xC", 0, "0-1");
	CK_SET(PLUG_BIND_MASK, "0x3,0xC", 1, "2-3");
	CK_SET(PLUG_BIND_MASK, "0x3,0xC", 2, "0-1");     /* cycles */
	CK_SET(PLUG_BIND_MASK, "f0", 0, "4-7");          /* no 0x */
	CK_SET(PLUG_BIND_MASK, "0x30000000f", 0, "0-3"); /* cut to the node */
	CK_SET(PLUG_BIND_MASK | 0x4, "0x80", 0, "7");    /* other flags too */
}
END_TEST

START_TEST(maps)
{
	CK_SET(PLUG_BIND_MAP, "0,2,4", 1, "2");
	CK_SET(PLUG_BIND_MAP, "0,2,4", 4, "2");
	CK_SET(PLUG_BIND_MAP, "7", 3, "7");
	CK_SET(PLUG_BIND_MAP, "0x5", 0, "5");
}
END_TEST

START_TEST(fallbacks)
{
	hwloc_bitmap_zero(own);
	hwloc_bitmap_set_range(own, 2, 5);
	CK_SET(0, NULL, 0, "2-5");  /* no binding */
	CK_SET(0, "0x3", 0, "2-5"); /* list but no mask type */
	CK_SET(PLUG_BIND_MASK, NULL, 0, "2-5");
	CK_SET(PLUG_BIND_MASK, "", 0, "2-5");
	CK_SET(PLUG_BIND_MASK, "0xZZ", 0, "2-5"); /* broken */
	CK_SET(PLUG_BIND_MASK, "0x", 0, "2-5");
	CK_SET(PLUG_BIND_MASK, "0x0", 0, "2-5");      /* empty mask */
	CK_SET(PLUG_BIND_MASK, "0x100", 0, "2-5");    /* only CPUs the node lacks */
	CK_SET(PLUG_BIND_MASK, "0x3,,0xC", 1, "2-5"); /* empty entry */
	CK_SET(PLUG_BIND_MAP, "-1", 0, "2-5");
	CK_SET(PLUG_BIND_MAP, "abc", 0, "2-5");
	CK_SET(PLUG_BIND_MAP, "99999999999", 0, "2-5");
	CK_SET(PLUG_BIND_MAP, "1,x", 0, "1"); /* the good entry still counts */
}
END_TEST

START_TEST(entry_parser)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	char big[20000];

	ck_assert_int_eq(plug_cpuset_entry("0xff", 4, 0, s), 0);
	ck_assert_int_eq(hwloc_bitmap_weight(s), 8);
	ck_assert_int_eq(plug_cpuset_entry("12", 2, 1, s), 0);
	ck_assert(hwloc_bitmap_isset(s, 12));
	ck_assert_int_eq(plug_cpuset_entry("12", 0, 1, s), -1);
	memset(big, 'f', sizeof(big)); /* absurdly long mask */
	ck_assert_int_eq(plug_cpuset_entry(big, sizeof(big), 0, s), -1);
	ck_assert(hwloc_bitmap_iszero(s));
	hwloc_bitmap_free(s);
}
END_TEST

static Suite *cpuset_suite(void)
{
	Suite *s = suite_create("plugin_cpuset");
	TCase *tc = tcase_create("cpuset");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, masks);
	tcase_add_test(tc, maps);
	tcase_add_test(tc, fallbacks);
	tcase_add_test(tc, entry_parser);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = cpuset_suite });
}
