/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_spawn.c - plug_spawn_plan (src/plugin/lib/spawn_plan.c):
 * PMIx_Spawn attributes and apps -> the child srun's command line,
 * environment and multi-prog file; required attributes we cannot honour,
 * nodes outside the allocation and malformed requests are refused with
 * nothing allocated.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix_common.h>

#include "lib/spawn_plan.h"
#include "lib/srun_io.h"
#include "runner.h"

static char *alloc_nodes[] = { "vn1", "vn2", "vn3", "vn4", NULL };
static char *base_env[] = { "PATH=/usr/bin",      "HOME=/root",     "SLURM_NTASKS=8",
			    "SLURMIX_SPAWN_ID=3", "SLURM_JOB_ID=7", NULL };

static plug_spawn_ctx_t ctx(void)
{
	return (plug_spawn_ctx_t){ .srun = "/usr/bin/srun",
				   .job = 7,
				   .alloc = alloc_nodes,
				   .overlap = true,
				   .mpfile = "/x/mp",
				   .env = base_env };
}

static char *argv_cmd[] = { "./child", "a b", NULL };

static pmix_app_t app(int n)
{
	return (pmix_app_t){ .cmd = "./child", .argv = argv_cmd, .maxprocs = n };
}

static bool has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

static bool has_prefix(char **v, const char *s)
{
	for (; v && *v; v++)
		if (!strncmp(*v, s, strlen(s)))
			return true;
	return false;
}

/* The plan's status for one job-level attribute (a refused one leaves
 * no argv). */
static pmix_status_t plan_one(const plug_spawn_ctx_t *c, const pmix_app_t *a, const char *key,
			      const void *v, pmix_data_type_t t)
{
	pmix_info_t i;
	plug_spawn_plan_t p;
	pmix_status_t st;

	PMIx_Info_load(&i, key, v, t);
	st = plug_spawn_plan(c, &i, 1, a, 1, &p);
	ck_assert(st == PMIX_SUCCESS || !p.argv);
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&i);
	return st;
}

START_TEST(plain)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(4);
	plug_spawn_plan_t p;

	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_SUCCESS);
	ck_assert_str_eq(p.argv[0], "/usr/bin/srun");
	ck_assert(has(p.argv, "--mpi=slurmix"));
	ck_assert(has(p.argv, "--jobid=7"));
	ck_assert(has(p.argv, "--ntasks=4"));
	ck_assert(has(p.argv, "--nodes=4"));
	ck_assert(has(p.argv, "--overlap"));
	ck_assert(has(p.argv, "--overcommit"));
	ck_assert(has(p.argv, "./child"));
	ck_assert(has(p.argv, "a b"));
	ck_assert(!has_prefix(p.argv, "--multi-prog"));
	ck_assert(has(p.env, "PATH=/usr/bin"));
	ck_assert(!has_prefix(p.env, "SLURM_NTASKS="));
	ck_assert(!has_prefix(p.env, "SLURMIX_SPAWN_ID="));
	ck_assert(has(p.env, "SLURM_JOB_ID=7"));
	ck_assert_ptr_null(p.multiprog);
	ck_assert_uint_eq(p.ntasks, 4);
	ck_assert(!has_prefix(p.argv, "--output"));
	ck_assert(!has_prefix(p.argv, "--error"));
	plug_spawn_plan_free(&p);
}
END_TEST

/* PMIX_FWD_STDOUT / _STDERR false: srun prints none of that channel;
 * true changes nothing; at app level too. */
START_TEST(forwarding)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(2);
	pmix_info_t *info = PMIx_Info_create(2), ai;
	plug_spawn_plan_t p;
	bool no = false, yes = true;

	PMIx_Info_load(&info[0], PMIX_FWD_STDOUT, &no, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_FWD_STDERR, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/dev/null"));
	ck_assert(has(p.argv, "--error=all")); /* stderr stays srun's */
	plug_spawn_plan_free(&p);
	PMIx_Info_load(&ai, PMIX_FWD_STDERR, &no, PMIX_BOOL);
	a.info = &ai;
	a.ninfo = 1;
	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--error=/dev/null"));
	ck_assert(!has_prefix(p.argv, "--output"));
	plug_spawn_plan_free(&p);
	/* a later true does not undo an app's false; not a bool: no effect */
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_load(&info[1], PMIX_FWD_STDERR, "no", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/dev/null"));
	ck_assert(has(p.argv, "--error=/dev/null")); /* the app's false */
	plug_spawn_plan_free(&p);
	a.info = NULL;
	a.ninfo = 0;
	ck_assert_int_eq(plug_spawn_plan(&c, info + 1, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(!has_prefix(p.argv, "--error")); /* "no" is no bool */
	ck_assert(!has_prefix(p.argv, "--output"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&ai);
	PMIx_Info_free(info, 2);
}
END_TEST

/* PMIX_FWD_STDIN true: every task's stdin is srun's (--input=all) and
 * held open for pushes (SLURMIX_STDIN=push); PMIX_STDIN_TGT: that rank's
 * only; neither: --input=none as before; a rank past the step's size is
 * refused. Fails with the attributes ignored (tried). */
START_TEST(stdin_forwarding)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(4);
	pmix_info_t info[2];
	plug_spawn_plan_t p;
	bool yes = true;
	uint32_t tgt = 2, far = 4;

	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--input=none"));
	ck_assert(!has_prefix(p.env, "SLURMIX_STDIN="));
	plug_spawn_plan_free(&p);
	PMIx_Info_load(&info[0], PMIX_FWD_STDIN, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--input=all"));
	ck_assert(has(p.env, "SLURMIX_STDIN=push"));
	plug_spawn_plan_free(&p);
	PMIx_Info_load(&info[1], PMIX_STDIN_TGT, &tgt, PMIX_UINT32);
	ck_assert_int_eq(plug_spawn_plan(&c, info + 1, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--input=2"));
	ck_assert(has(p.env, "SLURMIX_STDIN=push"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_load(&info[1], PMIX_STDIN_TGT, &far, PMIX_UINT32);
	ck_assert_int_eq(plug_spawn_plan(&c, info + 1, 1, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
}
END_TEST

/* The parent srun's --output/--error/--label from its command line and
 * environment: long, short, attached and abbreviated forms; the value of
 * another option (-J -o, --chdir=-l) is not taken for one of them;
 * parsing stops at the program (its own -o is not srun's). Fails when
 * the parser ignores the options that take a value (tried). */
START_TEST(srun_io)
{
	char *a1[] = { "srun", "--mpi=slurmix", "-J",     "-o", "-N", "2",  "--output",
		       "o.%j", "--err=e.%t",    "./prog", "-o", "x",  "-l", NULL };
	char *a2[] = { "srun", "-lN2", "-oout.%t", "--chdir=-l", "--", "-e", "x", NULL };
	char *a3[] = { "srun", "--partition", "-l", "--outp=a", "-e", "b", "--lab", "prog", NULL };
	char *a4[] = { "srun", "--label=x", "--o=z", "-K1", "prog", NULL };
	char *env[] = { "SLURM_STDOUTMODE=env.out", "SLURM_LABELIO=1", NULL };
	const char cmdline[] = "srun\0-l\0--output=c.%j\0./p\0-e\0no";
	plug_srun_io_t io;

	ck_assert_int_eq(plug_srun_io_parse(a1, NULL, &io), 0);
	ck_assert_str_eq(io.out, "o.%j");
	ck_assert_str_eq(io.err, "e.%t");
	ck_assert(!io.label); /* the program's -l */
	plug_srun_io_free(&io);
	ck_assert_int_eq(plug_srun_io_parse(a2, NULL, &io), 0);
	ck_assert_str_eq(io.out, "out.%t");
	ck_assert_ptr_null(io.err);
	ck_assert(io.label);
	plug_srun_io_free(&io);
	ck_assert_int_eq(plug_srun_io_parse(a3, NULL, &io), 0);
	ck_assert_str_eq(io.out, "a");
	ck_assert_str_eq(io.err, "b");
	ck_assert(io.label); /* --lab, not the partition "-l" */
	plug_srun_io_free(&io);
	/* "--o" names several options: none of them */
	ck_assert_int_eq(plug_srun_io_parse(a4, env, &io), 0);
	ck_assert_str_eq(io.out, "env.out");
	ck_assert(io.label);
	plug_srun_io_free(&io);
	ck_assert_int_eq(plug_srun_io_cmdline(cmdline, sizeof(cmdline), NULL, &io), 0);
	ck_assert_str_eq(io.out, "c.%j");
	ck_assert_ptr_null(io.err);
	ck_assert(io.label);
	plug_srun_io_free(&io);
	ck_assert_int_eq(plug_srun_io_parse(NULL, NULL, &io), 0);
	ck_assert(!io.out && !io.err && !io.label);
}
END_TEST

/* Spawned output where the parent srun puts its own (docs/iof.md,
 * "Spawned steps' output"): its --output/--error patterns, appended to;
 * never Slurm's labels (SLURM_LABELIO dropped), tags instead under the
 * parent's --label; PMIX_TAG_OUTPUT, _TIMESTAMP_OUTPUT and
 * _MERGE_STDERR_STDOUT to the child's step daemons; PMIX_OUTPUT_TO_FILE
 * to files of the child's nspace and rank; a bad file name refused.
 * Fails with the attributes ignored (tried). */
START_TEST(output_where_parent)
{
	char *env[] = { "PATH=/usr/bin", "SLURM_LABELIO=1", NULL };
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(2);
	pmix_info_t info[4];
	plug_spawn_plan_t p;
	bool yes = true, no = false;

	c.env = env;
	c.out = "o.%j.%t";
	c.err = "e.%j";
	c.label = true;
	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--open-mode=append"));
	ck_assert(has(p.argv, "--output=o.%j.%t"));
	ck_assert(has(p.argv, "--error=e.%j"));
	ck_assert(has(p.env, "SLURMIX_IOF_FORMAT=tag"));
	ck_assert(!has_prefix(p.env, "SLURM_LABELIO="));
	plug_spawn_plan_free(&p);
	/* stdout silenced: stderr still where the parent's goes */
	c.err = NULL;
	c.label = false;
	PMIx_Info_load(&info[0], PMIX_FWD_STDOUT, &no, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/dev/null"));
	ck_assert(has(p.argv, "--error=o.%j.%t"));
	ck_assert(!has_prefix(p.env, "SLURMIX_IOF_FORMAT="));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[0]);
	/* the attributes, older and newer names */
	c.out = NULL;
	PMIx_Info_load(&info[0], "pmix.tagout", &yes, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_IOF_TIMESTAMP_OUTPUT, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[2], "pmix.mergeerrout", &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.env, "SLURMIX_IOF_FORMAT=tag,timestamp,merge"));
	ck_assert(!has_prefix(p.argv, "--output") && !has_prefix(p.argv, "--error"));
	plug_spawn_plan_free(&p);
	PMIx_Info_load(&info[3], PMIX_IOF_OUTPUT_TO_FILE, "/r/out", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info + 3, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/r/out.slurmix.%j.%s.%t.stdout"));
	ck_assert(has(p.argv, "--error=/r/out.slurmix.%j.%s.%t.stderr"));
	plug_spawn_plan_free(&p);
	ck_assert_int_eq(plug_spawn_plan(&c, info + 2, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/r/out.slurmix.%j.%s.%t.stdout"));
	ck_assert(!has_prefix(p.argv, "--error")); /* merged: with the output */
	plug_spawn_plan_free(&p);
	for (int i = 0; i < 4; i++)
		PMIx_Info_destruct(&info[i]);
	/* broken: a pattern, not a string, two different files */
	ck_assert_int_eq(plan_one(&c, &a, "pmix.outfile", "/r/o.%t", PMIX_STRING),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(plan_one(&c, &a, "pmix.outfile", &yes, PMIX_BOOL), PMIX_ERR_BAD_PARAM);
	PMIx_Info_load(&info[0], "pmix.outfile", "/r/a", PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_IOF_OUTPUT_TO_FILE, "/r/b", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
}
END_TEST

/* PMIX_IOF_FILE_PATTERN, PMIX_OUTPUT_TO_DIRECTORY, PMIX_IOF_XML_OUTPUT,
 * PMIX_IOF_FILE_ONLY */
START_TEST(output_files_dirs)
{
	char *env[] = { "PATH=/usr/bin", NULL }, cwd[4096], want[4200];
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(12);
	pmix_info_t info[3];
	plug_spawn_plan_t p;
	bool yes = true, no = false;

	c.env = env;
	/* the pattern is the one file of both channels, %n %r %% only */
	PMIx_Info_load(&info[0], PMIX_IOF_OUTPUT_TO_FILE, "/r/o.%n.%r.%%", PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_IOF_FILE_PATTERN, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/r/o.slurmix.%j.%s.%t.%%"));
	ck_assert(has(p.argv, "--error=/r/o.slurmix.%j.%s.%t.%%"));
	plug_spawn_plan_free(&p);
	/* without the pattern flag a % is refused; a bad pattern too */
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_IOF_OUTPUT_TO_FILE, "/r/o.%j", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	ck_assert_ptr_nonnull(strstr(p.err, "%j"));
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_IOF_OUTPUT_TO_FILE, "/r/o%", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	/* a directory: <dir>/<nspace>/rank.<N>/, N of 2 digits for 12 ranks,
	 * made by the step daemons (absolute) */
	PMIx_Info_load(&info[0], PMIX_IOF_OUTPUT_TO_DIRECTORY, "/r/d", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/r/d/slurmix.%j.%s/rank.%2t/stdout"));
	ck_assert(has(p.argv, "--error=/r/d/slurmix.%j.%s/rank.%2t/stderr"));
	ck_assert(has(p.env, "SLURMIX_IOF_DIR=/r/d"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[0]);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	PMIx_Info_load(&info[0], "pmix.outdir", "rel", PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_IOF_MERGE_STDERR_STDOUT, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[2], PMIX_IOF_XML_OUTPUT, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_SUCCESS);
	snprintf(want, sizeof(want), "--output=%s/rel/slurmix.%%j.%%s/rank.%%2t/stdout", cwd);
	ck_assert(has(p.argv, want));
	ck_assert(!has_prefix(p.argv, "--error")); /* merged */
	snprintf(want, sizeof(want), "SLURMIX_IOF_DIR=%s/rel", cwd);
	ck_assert(has(p.env, want));
	ck_assert(has(p.env, "SLURMIX_IOF_FORMAT=merge,xml"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_destruct(&info[2]);
	/* against PMIX_WDIR */
	PMIx_Info_load(&info[1], PMIX_WDIR, "/w", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--output=/w/rel/slurmix.%j.%s/rank.%2t/stdout"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	/* both silenced: no directories */
	PMIx_Info_load(&info[1], PMIX_FWD_STDOUT, &no, PMIX_BOOL);
	PMIx_Info_load(&info[2], PMIX_FWD_STDERR, &no, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(!has_prefix(p.env, "SLURMIX_IOF_DIR="));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_destruct(&info[2]);
	/* file output is never copied: FILE_ONLY true or not required is
	 * fine, a required false is not supported */
	PMIx_Info_load(&info[1], PMIX_IOF_FILE_ONLY, &no, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	plug_spawn_plan_free(&p);
	info[1].flags |= PMIX_INFO_REQD;
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(plug_spawn_plan(&c, info + 1, 1, &a, 1, &p), PMIX_SUCCESS);
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	/* broken: a file and a directory, a directory with %, not a string */
	PMIx_Info_load(&info[1], PMIX_IOF_OUTPUT_TO_FILE, "/r/o", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_destruct(&info[0]);
	ck_assert_int_eq(plan_one(&c, &a, PMIX_IOF_OUTPUT_TO_DIRECTORY, "/r/%j", PMIX_STRING),
			 PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(plan_one(&c, &a, PMIX_IOF_OUTPUT_TO_DIRECTORY, &yes, PMIX_BOOL),
			 PMIX_ERR_BAD_PARAM);
}
END_TEST

START_TEST(mapping)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(6);
	pmix_info_t *info = PMIx_Info_create(6);
	plug_spawn_plan_t p;
	uint32_t cpus = 2;
	bool yes = true;
	int tmo = 9;

	PMIx_Info_load(&info[0], PMIX_MAPBY, "ppr:2:node:PE=3", PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_BINDTO, "core", PMIX_STRING);
	PMIx_Info_load(&info[2], PMIX_NO_OVERSUBSCRIBE, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[3], PMIX_NO_PROCS_ON_HEAD, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[4], PMIX_TIMEOUT, &tmo, PMIX_INT);
	PMIx_Info_load(&info[5], PMIX_CPUS_PER_PROC, &cpus, PMIX_UINT32);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 6, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--ntasks-per-node=2"));
	ck_assert(has(p.argv, "--nodes=3"));
	ck_assert(has(p.argv, "--cpus-per-task=2"));
	ck_assert(has(p.argv, "--cpu-bind=cores"));
	ck_assert(has(p.argv, "--exclude=vn1"));
	ck_assert(!has(p.argv, "--overlap"));
	ck_assert(!has(p.argv, "--overcommit"));
	ck_assert_uint_eq(p.timeout, 9);
	plug_spawn_plan_free(&p);
	PMIx_Info_free(info, 6);
}
END_TEST

START_TEST(hosts)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(2);
	pmix_info_t *info = PMIx_Info_create(2);
	plug_spawn_plan_t p;

	PMIx_Info_load(&info[0], PMIX_HOST, "vn3,vn2:4,vn3", PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_WDIR, "/work", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--nodelist=vn3,vn2"));
	ck_assert(has(p.argv, "--nodes=2"));
	ck_assert(has(p.argv, "--chdir=/work"));
	plug_spawn_plan_free(&p);
	PMIx_Info_free(info, 2);
	info = PMIx_Info_create(1);
	PMIx_Info_load(&info[0], PMIX_HOST, "vn2,vn9", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_JOB_FAILED_TO_MAP);
	ck_assert_ptr_null(p.argv);
	ck_assert_ptr_nonnull(strstr(p.err, "vn9"));
	PMIx_Info_free(info, 1);
}
END_TEST

START_TEST(required)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(1);
	pmix_info_t *info = PMIx_Info_create(3);
	plug_spawn_plan_t p;
	bool yes = true;

	PMIx_Info_load(&info[0], PMIX_PERSONALITY, "ompi", PMIX_STRING);
	PMIx_Info_load(&info[1], "slurmix.no.such.thing", &yes, PMIX_BOOL);
	PMIx_Info_load(&info[2], PMIX_DISPLAY_MAP, &yes, PMIX_BOOL);
	info[0].flags |= PMIX_INFO_REQD; /* nothing to do: fine */
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_SUCCESS);
	plug_spawn_plan_free(&p);
	info[2].flags |= PMIX_INFO_REQD; /* sent by Open MPI, not done */
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_ERR_NOT_SUPPORTED);
	info[2].flags = 0;
	info[1].flags |= PMIX_INFO_REQD;
	ck_assert_int_eq(plug_spawn_plan(&c, info, 3, &a, 1, &p), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_ptr_null(p.argv);
	ck_assert_ptr_null(p.env);
	PMIx_Info_free(info, 3);
	info = PMIx_Info_create(1);
	PMIx_Info_load(&info[0], PMIX_MAPBY, "rankfile", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_SUCCESS);
	plug_spawn_plan_free(&p);
	info[0].flags |= PMIX_INFO_REQD;
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_NOT_SUPPORTED);
	PMIx_Info_free(info, 1);
}
END_TEST

START_TEST(environment)
{
	plug_spawn_ctx_t c = ctx();
	char *aenv[] = { "OMPI_PARENT_PORT=1.0:77", NULL };
	pmix_app_t a = app(1);
	pmix_info_t *info = PMIx_Info_create(4);
	pmix_envar_t set = { .envar = "FOO", .value = "bar" };
	pmix_envar_t pre = { .envar = "PATH", .value = "/opt/bin", .separator = ':' };
	plug_spawn_plan_t p;

	a.env = aenv;
	PMIx_Info_load(&info[0], PMIX_SET_ENVAR, &set, PMIX_ENVAR);
	PMIx_Info_load(&info[1], PMIX_PREPEND_ENVAR, &pre, PMIX_ENVAR);
	PMIx_Info_load(&info[2], PMIX_UNSET_ENVAR, "HOME", PMIX_STRING);
	PMIx_Info_load(&info[3], PMIX_PREFIX, "/pfx", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 4, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.env, "FOO=bar"));
	ck_assert(has(p.env, "PATH=/pfx/bin:/opt/bin:/usr/bin"));
	ck_assert(has(p.env, "LD_LIBRARY_PATH=/pfx/lib"));
	ck_assert(has(p.env, "OMPI_PARENT_PORT=1.0:77"));
	ck_assert(!has_prefix(p.env, "HOME="));
	plug_spawn_plan_free(&p);
	PMIx_Info_free(info, 4);
}
END_TEST

START_TEST(mpmd)
{
	plug_spawn_ctx_t c = ctx();
	char *e1[] = { "X=1", NULL };
	char *av2[] = { "./other", "%t", NULL };
	pmix_app_t a[2] = {
		app(2), { .cmd = "./other", .argv = av2, .maxprocs = 3, .env = e1, .cwd = "/w" }
	};
	plug_spawn_plan_t p;

	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, a, 2, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--multi-prog"));
	ck_assert(has(p.argv, "/x/mp"));
	ck_assert(has(p.argv, "--ntasks=5"));
	ck_assert_ptr_nonnull(p.multiprog);
	ck_assert_ptr_nonnull(strstr(p.multiprog, "0-1 env ./child 'a b'\n"));
	ck_assert_ptr_nonnull(strstr(p.multiprog, "2-4 env -C /w X=1 ./other %t\n"));
	plug_spawn_plan_free(&p);
	c.mpfile = NULL;
	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, a, 2, &p), PMIX_ERR_NOT_SUPPORTED);
}
END_TEST

/* PMIX_INDEX_ARGV: one app through --multi-prog with %t (the task's
 * rank) after its arguments; PMIX_REPORT_BINDINGS: --cpu-bind=verbose,
 * alone or before a binding */
START_TEST(index_argv_report_bindings)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(3);
	pmix_info_t info[2];
	plug_spawn_plan_t p;
	bool yes = true, no = false;

	PMIx_Info_load(&info[0], PMIX_INDEX_ARGV, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_REPORT_BINDINGS, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--multi-prog"));
	ck_assert(!has(p.argv, "./child"));
	ck_assert_ptr_nonnull(p.multiprog);
	ck_assert_str_eq(p.multiprog, "0-2 env ./child 'a b' %t\n");
	ck_assert(has(p.argv, "--cpu-bind=verbose"));
	plug_spawn_plan_free(&p);
	PMIx_Info_destruct(&info[1]);
	PMIx_Info_load(&info[1], PMIX_BINDTO, "core", PMIX_STRING);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_REPORT_BINDINGS, &yes, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 2, &a, 1, &p), PMIX_SUCCESS);
	ck_assert(has(p.argv, "--cpu-bind=verbose,cores"));
	ck_assert(has(p.argv, "./child")); /* no index: no multi-prog */
	plug_spawn_plan_free(&p);
	/* false: nothing */
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_INDEX_ARGV, &no, PMIX_BOOL);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_SUCCESS);
	ck_assert_ptr_null(p.multiprog);
	plug_spawn_plan_free(&p);
	/* required, and without a place for the file: refused */
	info[0].flags |= PMIX_INFO_REQD;
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_load(&info[0], PMIX_INDEX_ARGV, &yes, PMIX_BOOL);
	c.mpfile = NULL;
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_NOT_SUPPORTED);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
}
END_TEST

START_TEST(broken)
{
	plug_spawn_ctx_t c = ctx();
	pmix_app_t a = app(0);
	pmix_info_t *info = PMIx_Info_create(2);
	plug_spawn_plan_t p;
	int n = 1;

	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	a = app(1);
	a.cmd = NULL;
	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, &a, 1, &p), PMIX_ERR_JOB_NO_EXE_SPECIFIED);
	ck_assert_int_eq(plug_spawn_plan(&c, NULL, 0, NULL, 0, &p), PMIX_ERR_BAD_PARAM);
	a = app(1);
	PMIx_Info_load(&info[0], PMIX_WDIR, "relative", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_load(&info[1], PMIX_HOST, &n, PMIX_INT); /* wrong type */
	ck_assert_int_eq(plug_spawn_plan(&c, info + 1, 1, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_free(info, 2);
	info = PMIx_Info_create(1);
	PMIx_Info_load(&info[0], PMIX_HOSTFILE, "/nonexistent/hosts", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p), PMIX_ERR_BAD_PARAM);
	PMIx_Info_free(info, 1);
	a = app(9);
	info = PMIx_Info_create(1);
	PMIx_Info_load(&info[0], PMIX_PPR, "2:node", PMIX_STRING);
	ck_assert_int_eq(plug_spawn_plan(&c, info, 1, &a, 1, &p),
			 PMIX_ERR_JOB_INSUFFICIENT_RESOURCES);
	PMIx_Info_free(info, 1);
}
END_TEST

/* PMIX_QUERY_SPAWN_SUPPORT: what is honoured, not what is only known. */
START_TEST(supported)
{
	char *list = plug_spawn_supported(), *dup, *save = NULL;
	static const char *const in[] = { PMIX_HOST,      PMIX_WDIR,       PMIX_IOF_TAG_OUTPUT,
					  PMIX_SET_ENVAR, PMIX_INDEX_ARGV, PMIX_REPORT_BINDINGS };
	static const char *const out[] = { PMIX_MAPPER, PMIX_DISPLAY_MAP, PMIX_PRELOAD_BIN,
					   PMIX_MAX_RESTARTS };
	size_t n = 0;

	ck_assert_ptr_nonnull(list);
	dup = strdup(list);
	for (char *k = strtok_r(dup, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		ck_assert(*k);
		for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
			ck_assert_str_ne(k, out[i]);
		for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
			n += !strcmp(k, in[i]);
	}
	ck_assert_uint_eq(n, sizeof(in) / sizeof(in[0]));
	free(dup);
	free(list);
}
END_TEST

static Suite *spawn_suite(void)
{
	Suite *s = suite_create("plugin_spawn");
	TCase *t = tcase_create("plan");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, plain);
	tcase_add_test(t, forwarding);
	tcase_add_test(t, stdin_forwarding);
	tcase_add_test(t, srun_io);
	tcase_add_test(t, output_where_parent);
	tcase_add_test(t, output_files_dirs);
	tcase_add_test(t, mapping);
	tcase_add_test(t, hosts);
	tcase_add_test(t, required);
	tcase_add_test(t, environment);
	tcase_add_test(t, mpmd);
	tcase_add_test(t, index_argv_report_bindings);
	tcase_add_test(t, broken);
	tcase_add_test(t, supported);
	suite_add_tcase(s, t);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = spawn_suite, .fork = CK_FORK });
}
