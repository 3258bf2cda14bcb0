/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runner.c - the shared main() of the check programs (runner.h).
 *
 * The sequence is the one each program used to spell out: optionally
 * re-execute with malloc perturbation, dispatch a "child NAME" helper
 * run, resolve the program's own path, then create the runner, set the
 * fork mode only when the program asks for it (so that check keeps
 * reading CK_FORK otherwise), run with CK_NORMAL output and turn the
 * failure count into an exit status.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Freed memory is filled by malloc (glibc's perturb, with the per-thread
 * cache off so that every free goes through it): a use after free then
 * reads garbage and fails a test even without valgrind. The process runs
 * itself again with those settings; not under valgrind, which has its
 * own malloc and checks. Returns only if it did not re-execute. */
static void perturb_frees(char **argv)
{
	const char *pre = getenv("LD_PRELOAD"), *old = getenv("GLIBC_TUNABLES");
	char tun[512];

	if (getenv("SRVTEST_PERTURB") || (pre && strstr(pre, "vgpreload")))
		return;
	snprintf(tun, sizeof(tun), "%s%sglibc.malloc.tcache_count=0:glibc.malloc.perturb=165",
		 old ? old : "", old ? ":" : "");
	setenv("SRVTEST_PERTURB", "1", 1);
	setenv("GLIBC_TUNABLES", tun, 1);
	execv("/proc/self/exe", argv);
}

int unit_main(int argc, char **argv, const struct unit_spec *spec)
{
	SRunner *sr;
	int failed;

	if (spec->perturb_frees)
		perturb_frees(argv);
	if (spec->child && argc == 3 && strcmp(argv[1], "child") == 0)
		return spec->child(argv[2]);
	if (spec->self_exe && !realpath(argv[0], spec->self_exe))
		return EXIT_FAILURE;
	if (spec->suite)
		sr = srunner_create(spec->suite());
	else
		sr = srunner_create(
			unit_suite_of(spec->name, spec->tests, spec->ntests, spec->timeout));
	if (spec->fork != CK_FORK_GETENV)
		srunner_set_fork_status(sr, spec->fork);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

Suite *unit_suite_of(const char *name, const struct unit_test *tests, size_t n, int timeout)
{
	Suite *s = suite_create(name);

	for (size_t i = 0; i < n; i++) {
		TCase *tc = tcase_create(tests[i].name);

		tcase_set_timeout(tc, timeout);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}
