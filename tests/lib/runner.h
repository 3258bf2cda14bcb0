/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runner.h - the main() of every check program in tests/unit.
 *
 * A unit file builds its suite and hands it to unit_main() with what its
 * tests need from the process around them: the fork mode (check's own
 * CK_FORK variable decides unless the program insists on forking), a
 * "child NAME" entry for programs that re-execute themselves as helper
 * processes, the program's own path for that re-execution, and glibc's
 * free perturbation for programs that hunt uses after free. Everything
 * else check reads from the environment itself (CK_RUN_SUITE,
 * CK_RUN_CASE, CK_DEFAULT_TIMEOUT, CK_TIMEOUT_MULTIPLIER, ...).
 *
 * Only the main thread calls these functions, before any test runs.
 */
#ifndef UNIT_RUNNER_H
#define UNIT_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <check.h>

struct unit_test;

struct unit_spec {
	/* Builds the suite to run; called once. */
	Suite *(*suite)(void);
	/* Without suite: the suite unit_suite_of(name, tests, ntests,
	 * timeout). */
	const char *name;
	const struct unit_test *tests;
	size_t ntests;
	int timeout;
	/* CK_FORK: always fork; 0 (CK_FORK_GETENV): as $CK_FORK says. */
	enum fork_status fork;
	/* If set, "PROGRAM child NAME" returns child(NAME) instead of
	 * running the suite. */
	int (*child)(const char *name);
	/* If set (PATH_MAX bytes), receives the real path of argv[0]; the
	 * program fails if it cannot be resolved. */
	char *self_exe;
	/* Runs the program again with freed memory filled by malloc, so
	 * that a use after free fails a test without valgrind (skipped
	 * under valgrind). */
	bool perturb_frees;
};

/* Runs spec's suite (or its child entry) with check's normal output;
 * returns the process exit status: EXIT_SUCCESS when every test passed. */
int unit_main(int argc, char **argv, const struct unit_spec *spec);

/* One test of a table-built suite: its test case name and function. */
struct unit_test {
	const char *name;
	const TTest *test;
};

/* A suite called name with one test case per table entry, each with the
 * given timeout (seconds); the suite is the caller's (srunner frees it). */
Suite *unit_suite_of(const char *name, const struct unit_test *tests, size_t n, int timeout);

#endif
