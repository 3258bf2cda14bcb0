/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_map.c - check suite for the plugin's Slurm-free parts: the
 * process map encoder/decoder (src/plugin/lib/map.c) and the config value
 * parsers (src/plugin/lib/util.c), and the PMI_process_mapping vector of a
 * map (plug_map_anl).
 *
 * Layouts are built the way Slurm distributes tasks (block, cyclic, plane,
 * arbitrary), encoded, decoded, and compared rank by rank; then the
 * decoder is fed broken strings and must answer EINVAL every time.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/map.h"
#include "lib/util.h"
#include "runner.h"

#define MAXN 64

typedef struct {
	uint32_t nnodes;
	uint16_t tasks[MAXN];
	uint32_t *tids[MAXN];
	uint32_t store[MAXN][MAXN];
} layout_t;

static void layout_init(layout_t *l, uint32_t nnodes)
{
	memset(l, 0, sizeof(*l));
	l->nnodes = nnodes;
	for (uint32_t i = 0; i < nnodes; i++)
		l->tids[i] = l->store[i];
}

static void put(layout_t *l, uint32_t node, uint32_t rank)
{
	l->store[node][l->tasks[node]++] = rank;
}

/* Block: per-node counts, consecutive ranks. */
static void block(layout_t *l, uint32_t nnodes, const uint32_t *cnt)
{
	uint32_t r = 0;

	layout_init(l, nnodes);
	for (uint32_t n = 0; n < nnodes; n++)
		for (uint32_t j = 0; j < cnt[n]; j++)
			put(l, n, r++);
}

/* Cyclic: rank r on node r % nnodes. */
static void cyclic(layout_t *l, uint32_t nnodes, uint32_t ntasks)
{
	layout_init(l, nnodes);
	for (uint32_t r = 0; r < ntasks; r++)
		put(l, r % nnodes, r);
}

/* Plane: blocks of `plane` ranks dealt round robin. */
static void plane(layout_t *l, uint32_t nnodes, uint32_t ntasks, uint32_t plane)
{
	layout_init(l, nnodes);
	for (uint32_t r = 0; r < ntasks; r++)
		put(l, (r / plane) % nnodes, r);
}

/* Encodes, decodes, and checks every rank's node and local rank. */
static char *roundtrip(const layout_t *l)
{
	char *text = plug_map_encode(l->nnodes, l->tasks, l->tids);
	plug_map_t *m;
	uint32_t total = 0;

	ck_assert_ptr_nonnull(text);
	m = plug_map_decode(text);
	ck_assert_msg(m != NULL, "decode of \"%s\" failed", text);
	ck_assert_uint_eq(m->nnodes, l->nnodes);
	for (uint32_t n = 0; n < l->nnodes; n++) {
		ck_assert_uint_eq(m->count[n], l->tasks[n]);
		for (uint32_t j = 0; j < l->tasks[n]; j++) {
			uint32_t r = l->tids[n][j];

			ck_assert_uint_eq(m->node_of[r], n);
			ck_assert_int_eq(plug_map_local_rank(m, r), (int)j);
			ck_assert_uint_eq(m->ranks[m->first[n] + j], r);
		}
		total += l->tasks[n];
	}
	ck_assert_uint_eq(m->ntasks, total);
	plug_map_free(m);
	return text;
}

START_TEST(test_block)
{
	layout_t l;
	uint32_t cnt[] = { 2, 2 }, uneven[] = { 3, 1, 2 };
	char *t;

	block(&l, 2, cnt);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;4;0-1|2-3");
	free(t);
	block(&l, 3, uneven);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;6;0-2|3|4-5");
	free(t);
}
END_TEST

START_TEST(test_cyclic)
{
	layout_t l;
	char *t;

	cyclic(&l, 2, 4);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;4;0,2|1,3");
	free(t);
	cyclic(&l, 2, 8);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;8;0-6:2|1-7:2");
	free(t);
	cyclic(&l, 3, 7);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;7;0-6:3|1,4|2,5");
	free(t);
}
END_TEST

START_TEST(test_plane)
{
	layout_t l;
	char *t;

	plane(&l, 2, 10, 2);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;10;0-1,4-5,8-9|2-3,6-7");
	free(t);
}
END_TEST

START_TEST(test_arbitrary)
{
	layout_t l;
	char *t;

	layout_init(&l, 3); /* srun -m arbitrary with a hostfile */
	put(&l, 0, 5);
	put(&l, 0, 0);
	put(&l, 0, 3);
	put(&l, 1, 1);
	put(&l, 2, 2);
	put(&l, 2, 4);
	put(&l, 2, 6);
	t = roundtrip(&l);
	ck_assert_str_eq(t, "1;7;5,0,3|1|2-6:2");
	free(t);
}
END_TEST

/* Places the ranks of an ANL vector the way its readers do (the blocks
 * repeated until every rank is placed) and checks them against the map;
 * returns the vector. */
static char *anl_check(const layout_t *l)
{
	char *text = plug_map_encode(l->nnodes, l->tasks, l->tids), *anl;
	plug_map_t *m = plug_map_decode(text);
	unsigned blk[MAXN][3];
	size_t nb = 0, r = 0;
	const char *p;
	int used;

	ck_assert_ptr_nonnull(m);
	anl = plug_map_anl(m);
	ck_assert_ptr_nonnull(anl);
	ck_assert_msg(!strncmp(anl, "(vector", 7), "%s", anl);
	for (p = anl + 7; *p == ','; p += used) {
		ck_assert_uint_lt(nb, MAXN);
		ck_assert_int_eq(sscanf(p, ",(%u,%u,%u)%n", &blk[nb][0], &blk[nb][1], &blk[nb][2],
					&used),
				 3);
		nb++;
	}
	ck_assert_str_eq(p, ")");
	ck_assert_uint_gt(nb, 0);
	while (r < m->ntasks)
		for (size_t b = 0; b < nb && r < m->ntasks; b++)
			for (unsigned n = 0; n < blk[b][1] && r < m->ntasks; n++)
				for (unsigned k = 0; k < blk[b][2] && r < m->ntasks; k++, r++)
					ck_assert_msg(m->node_of[r] == blk[b][0] + n,
						      "%s: rank %zu on node %u, not %u", anl, r,
						      m->node_of[r], blk[b][0] + n);
	plug_map_free(m);
	free(text);
	return anl;
}

static void anl_is(const layout_t *l, const char *want)
{
	char *anl = anl_check(l);

	ck_assert_str_eq(anl, want);
	free(anl);
}

/* PMI_process_mapping: Slurm's mpi/pmi2 vectors for the same layouts. */
START_TEST(test_anl)
{
	layout_t l;
	uint32_t two[] = { 2, 2 }, uneven[] = { 3, 1, 2 }, one[] = { 4 };

	block(&l, 2, two);
	anl_is(&l, "(vector,(0,2,2))");
	block(&l, 3, uneven);
	anl_is(&l, "(vector,(0,1,3),(1,1,1),(2,1,2))");
	block(&l, 1, one);
	anl_is(&l, "(vector,(0,1,4))");
	cyclic(&l, 2, 4);
	anl_is(&l, "(vector,(0,2,1))");
	cyclic(&l, 3, 7); /* the last round is short */
	anl_is(&l, "(vector,(0,3,1),(0,3,1),(0,1,1))");
	plane(&l, 2, 10, 2);
	anl_is(&l, "(vector,(0,2,2),(0,2,2),(0,1,2))");
	plane(&l, 2, 8, 2);
	anl_is(&l, "(vector,(0,2,2))");
	layout_init(&l, 3); /* arbitrary */
	put(&l, 0, 5);
	put(&l, 0, 0);
	put(&l, 0, 3);
	put(&l, 1, 1);
	put(&l, 2, 2);
	put(&l, 2, 4);
	put(&l, 2, 6);
	free(anl_check(&l));
	errno = 0;
	ck_assert_ptr_null(plug_map_anl(NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_encode_bad_layout)
{
	layout_t l;

	layout_init(&l, 2);
	put(&l, 0, 0);
	put(&l, 1, 0); /* duplicate rank */
	errno = 0;
	ck_assert_ptr_null(plug_map_encode(l.nnodes, l.tasks, l.tids));
	ck_assert_int_eq(errno, EINVAL);
	layout_init(&l, 2);
	put(&l, 0, 0);
	put(&l, 1, 2); /* gap: rank 1 missing */
	ck_assert_ptr_null(plug_map_encode(l.nnodes, l.tasks, l.tids));
	layout_init(&l, 2);
	put(&l, 0, 0); /* node without task */
	ck_assert_ptr_null(plug_map_encode(l.nnodes, l.tasks, l.tids));
	ck_assert_ptr_null(plug_map_encode(0, l.tasks, l.tids));
	ck_assert_ptr_null(plug_map_encode(1, NULL, l.tids));
}
END_TEST

START_TEST(test_decode_broken)
{
	static const char *const bad[] = {
		"",
		"1",
		"1;",
		"1;;0",
		"2;1;0",
		"1;0;",
		"1;x;0",
		"1;1;",
		"1;1;1",
		"1;2;0",
		"1;2;0,0,1",
		"1;2;0|",
		"1;2;|0,1",
		"1;2;0||1",
		"1;2;0-1|",
		"1;4;0-3:0",
		"1;4;0-3:2",
		"1;4;3-0",
		"1;4;0-1,2-3,",
		"1;4;0-1;2-3",
		"1;3;0-2 ",
		"1;2;-1,0",
		"1;2;0,1x",
		"1;4294967296;0",
		"1;99999999999999999999;0",
		"1;2;0,99999999999999999999",
		"1;2;0-1:4294967296",
		"1;3;0|1|2|",
		"1;2;1,0|",
		"1;17000000;0",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_msg(plug_map_decode(bad[i]) == NULL, "\"%s\" accepted", bad[i]);
		ck_assert_msg(errno == EINVAL, "\"%s\": errno %d", bad[i], errno);
	}
	ck_assert_ptr_null(plug_map_decode(NULL));
	ck_assert_int_eq(plug_map_local_rank(NULL, 0), -1);
	plug_map_free(NULL);
}
END_TEST

START_TEST(test_decode_large)
{
	/* 1M ranks on 4 nodes in block form: cheap to parse. */
	plug_map_t *m = plug_map_decode(
		"1;1048576;0-262143|262144-524287|524288-786431|786432-1048575");

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->node_of[524288], 2);
	ck_assert_int_eq(plug_map_local_rank(m, 1048575), 262143);
	plug_map_free(m);
}
END_TEST

/* Slurm's %n / %h in paths (SlurmdSpoolDir) */
START_TEST(test_path_expand)
{
	char out[32];

	ck_assert_int_eq(plug_path_expand("/var/%n/spool", "vn1", "h", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/var/vn1/spool");
	ck_assert_int_eq(plug_path_expand("%h-%n-%%x", "n", "host", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "host-n-%%x");
	ck_assert_int_eq(plug_path_expand("", "n", "h", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(plug_path_expand("/a/%n", "n", "h", out, 4), -1); /* "/a/n" + NUL */
	ck_assert_int_eq(plug_path_expand("/a/%n", "n", "h", out, 5), 0);
	ck_assert_str_eq(out, "/a/n");
	ck_assert_int_eq(plug_path_expand("/a/%n", "n", "h", out, 0), -1);
}
END_TEST

START_TEST(test_parsers)
{
	bool b = false;
	uint32_t v = 7;
	char *env[] = { "SLURMIX_TIMEOUTX=1", "SLURMIX_TIMEOUT=42", "A", NULL };

	ck_assert_int_eq(plug_parse_bool("YES", &b), 0);
	ck_assert(b);
	ck_assert_int_eq(plug_parse_bool("off", &b), 0);
	ck_assert(!b);
	ck_assert_int_eq(plug_parse_bool("maybe", &b), -1);
	ck_assert_int_eq(plug_parse_bool(NULL, &b), -1);
	ck_assert_int_eq(plug_parse_u32("300", 1, 1000, &v), 0);
	ck_assert_uint_eq(v, 300);
	ck_assert_int_eq(plug_parse_u32("0", 1, 1000, &v), -1);
	ck_assert_int_eq(plug_parse_u32("1001", 1, 1000, &v), -1);
	ck_assert_int_eq(plug_parse_u32("-1", 0, 1000, &v), -1);
	ck_assert_int_eq(plug_parse_u32("12s", 0, 1000, &v), -1);
	ck_assert_int_eq(plug_parse_u32("", 0, 1000, &v), -1);
	ck_assert_int_eq(plug_parse_u32("99999999999999999999", 0, 1000, &v), -1);
	ck_assert_uint_eq(v, 300);
	ck_assert_str_eq(plug_env_get(env, "SLURMIX_TIMEOUT"), "42");
	ck_assert_ptr_null(plug_env_get(env, "A_B"));
	ck_assert_ptr_null(plug_env_get(NULL, "A"));
	{
		uint32_t job = 0, step = 0;

		ck_assert_int_eq(plug_nspace_parse("slurmix.4711.3", &job, &step), 0);
		ck_assert_uint_eq(job, 4711);
		ck_assert_uint_eq(step, 3);
		ck_assert_int_eq(plug_nspace_parse("slurmix.4711.3", NULL, NULL), 0);
		ck_assert_int_eq(plug_nspace_parse("slurmix.4711.3x", &job, &step), -1);
		ck_assert_int_eq(plug_nspace_parse("slurmix.4711", &job, &step), -1);
		ck_assert_int_eq(plug_nspace_parse("other.1.2", &job, &step), -1);
		ck_assert_int_eq(plug_nspace_parse("", &job, &step), -1);
		ck_assert_int_eq(plug_nspace_parse(NULL, &job, &step), -1);
	}
}
END_TEST

static Suite *map_suite(void)
{
	Suite *s = suite_create("plugin_map");
	TCase *tc = tcase_create("map");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_block);
	tcase_add_test(tc, test_cyclic);
	tcase_add_test(tc, test_plane);
	tcase_add_test(tc, test_arbitrary);
	tcase_add_test(tc, test_anl);
	tcase_add_test(tc, test_encode_bad_layout);
	tcase_add_test(tc, test_decode_broken);
	tcase_add_test(tc, test_decode_large);
	tcase_add_test(tc, test_parsers);
	tcase_add_test(tc, test_path_expand);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = map_suite, .fork = CK_FORK });
}
