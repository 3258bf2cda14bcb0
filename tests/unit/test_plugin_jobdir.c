/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_jobdir.c - check suite for the per-job directory on the srun
 * host (src/plugin/lib/jobdir.c): creation with mode 0700, one key per
 * job shared by every opener, atomic step files, removal of other jobs'
 * stale directories and of a reused job id's old directory, refusal of an
 * unsafe existing directory, of a malformed key and of names with "..";
 * and plug_mkdirs_as (lib/util.c): the directories of
 * PMIX_OUTPUT_TO_DIRECTORY, made with a user's rights.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/jobdir.h"
#include "lib/util.h"
#include "runner.h"

static char base[64];

static void setup(void)
{
	strcpy(base, "/tmp/tjobdir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
}

static void teardown(void)
{
	plug_jobdir_close();
	plug_rm_tree(base);
}

static char *path_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *path_of(const char *fmt, ...)
{
	static char buf[512];
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%s/slurmix-%u/%s", base, (unsigned)geteuid(), rel);
	return buf;
}

static int alive_none(uint32_t job, time_t *submit)
{
	(void)job;
	*submit = 0;
	return 0;
}

static time_t future;

/* Job 7 alive, submitted in the future; every other job gone. */
static int alive_7(uint32_t job, time_t *submit)
{
	*submit = job == 7 ? future : 0;
	return job == 7;
}

START_TEST(creates_dirs_and_key)
{
	char key[PLUG_JOBDIR_KEY_LEN + 1], key2[PLUG_JOBDIR_KEY_LEN + 1];
	struct stat sb;

	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), 0);
	ck_assert_uint_eq(strlen(key), PLUG_JOBDIR_KEY_LEN);
	ck_assert_uint_eq(strspn(key, "0123456789abcdef"), PLUG_JOBDIR_KEY_LEN);
	ck_assert_int_eq(stat(path_of("job.5"), &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0700);
	ck_assert_int_eq(stat(path_of("job.5/pub"), &sb), 0);
	ck_assert_int_eq(stat(path_of("job.5/key"), &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_str_eq(plug_jobdir_path(), path_of("job.5"));
	/* a second srun of the job gets the same key */
	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key2), 0);
	ck_assert_str_eq(key, key2);
	/* another job another key */
	ck_assert_int_eq(plug_jobdir_open(base, 6, NULL, key2), 0);
	ck_assert_str_ne(key, key2);
}
END_TEST

START_TEST(step_files)
{
	char key[PLUG_JOBDIR_KEY_LEN + 1], *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), 0);
	ck_assert_int_eq(plug_jobdir_write("step.3", "abc\0def", 7), 0);
	ck_assert_int_eq(plug_jobdir_read("step.3", 100, &data, &len), 0);
	ck_assert_uint_eq(len, 7);
	ck_assert_int_eq(memcmp(data, "abc\0def", 7), 0);
	free(data);
	ck_assert_int_eq(plug_jobdir_read("step.3", 3, &data, &len), -1);
	ck_assert_int_eq(errno, EFBIG);
	{
		/* the steps with a file, ascending; other names are not steps */
		uint32_t ids[4];
		size_t n = 9;

		ck_assert_int_eq(plug_jobdir_write("step.10", "a", 1), 0);
		ck_assert_int_eq(plug_jobdir_write("step.1", "a", 1), 0);
		ck_assert_int_eq(plug_jobdir_write("step.x", "a", 1), 0);
		ck_assert_int_eq(plug_jobdir_write("step.2x", "a", 1), 0);
		ck_assert_int_eq(plug_jobdir_write("ended.4", "", 0), 0);
		ck_assert_int_eq(plug_jobdir_steps(ids, 4, &n), 0);
		ck_assert_uint_eq(n, 3);
		ck_assert(ids[0] == 1 && ids[1] == 3 && ids[2] == 10);
		ck_assert_int_eq(plug_jobdir_steps(ids, 2, &n), 0);
		ck_assert_uint_eq(n, 2); /* at most max */
		plug_jobdir_unlink("step.10");
		plug_jobdir_unlink("step.1");
	}
	plug_jobdir_unlink("step.3");
	ck_assert_int_eq(plug_jobdir_read("step.3", 100, &data, &len), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(plug_jobdir_file("../job.6/key"));
	ck_assert_int_eq(plug_jobdir_write("../x", "a", 1), -1);
	plug_jobdir_close();
	ck_assert_ptr_null(plug_jobdir_path());
	ck_assert_int_eq(plug_jobdir_write("step.3", "a", 1), -1);
	{
		uint32_t ids[1];
		size_t n = 9;

		ck_assert_int_eq(plug_jobdir_steps(ids, 1, &n), -1);
		ck_assert_uint_eq(n, 0);
	}
}
END_TEST

START_TEST(stale_dirs_removed)
{
	char key[PLUG_JOBDIR_KEY_LEN + 1], old[PLUG_JOBDIR_KEY_LEN + 1];
	struct stat sb;

	ck_assert_int_eq(plug_jobdir_open(base, 3, NULL, key), 0);
	ck_assert_int_eq(plug_jobdir_open(base, 7, NULL, old), 0);
	/* job 3 is gone: removed when job 7 opens with a liveness test; job
	 * 7's own key predates its submission: wiped, new key */
	future = time(NULL) + 100;
	ck_assert_int_eq(plug_jobdir_open(base, 7, alive_7, key), 0);
	ck_assert_int_eq(stat(path_of("job.3"), &sb), -1);
	ck_assert_int_eq(stat(path_of("job.7/key"), &sb), 0);
	ck_assert_str_ne(key, old);
	/* nothing alive: the current job's directory stays */
	ck_assert_int_eq(plug_jobdir_open(base, 7, alive_none, old), 0);
	ck_assert_str_eq(key, old);
	/* not a job directory: untouched */
	ck_assert_int_eq(mkdir(path_of("other"), 0700), 0);
	ck_assert_int_eq(plug_jobdir_open(base, 8, alive_none, key), 0);
	ck_assert_int_eq(stat(path_of("other"), &sb), 0);
	ck_assert_int_eq(stat(path_of("job.7"), &sb), -1);
}
END_TEST

/* Job 7 alive since a minute ago, found slowly (a slurmctld round trip). */
static int alive_7_slow(uint32_t job, time_t *submit)
{
	usleep(30000);
	*submit = job == 7 ? time(NULL) - 60 : 0;
	return job == 7;
}

/* Several sruns of one allocation open a reused job id's stale directory
 * at the same moment: one replaces it, all end with the same new key. */
START_TEST(concurrent_openers_share_one_key)
{
	enum { N = 6 };
	char old[PLUG_JOBDIR_KEY_LEN + 1], key[PLUG_JOBDIR_KEY_LEN + 1];
	char got[N][PLUG_JOBDIR_KEY_LEN + 1];
	struct timespec then[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
	int go[2], res[2];
	pid_t pid[N];

	ck_assert_int_eq(plug_jobdir_open(base, 7, NULL, old), 0);
	plug_jobdir_close();
	ck_assert_int_eq(utimensat(AT_FDCWD, path_of("job.7/key"), then, 0), 0);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(res), 0);
	for (int i = 0; i < N; i++) {
		char c;

		if ((pid[i] = fork()) == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 0 ||
			    plug_jobdir_open(base, 7, alive_7_slow, key) != 0)
				_exit(1);
			_exit(write(res[1], key, PLUG_JOBDIR_KEY_LEN) == PLUG_JOBDIR_KEY_LEN ? 0 :
											       1);
		}
		ck_assert_int_gt(pid[i], 0);
	}
	close(go[0]);
	close(go[1]); /* all start together */
	close(res[1]);
	for (int i = 0; i < N; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		ck_assert_int_eq(read(res[0], got[i], PLUG_JOBDIR_KEY_LEN), PLUG_JOBDIR_KEY_LEN);
		got[i][PLUG_JOBDIR_KEY_LEN] = '\0';
	}
	close(res[0]);
	ck_assert_str_ne(got[0], old);
	for (int i = 1; i < N; i++)
		ck_assert_str_eq(got[i], got[0]);
}
END_TEST

START_TEST(unsafe_dirs_refused)
{
	char key[PLUG_JOBDIR_KEY_LEN + 1], top[300];

	snprintf(top, sizeof(top), "%s/slurmix-%u", base, (unsigned)geteuid());
	ck_assert_int_eq(mkdir(top, 0755), 0);
	ck_assert_int_eq(chmod(top, 0755), 0);
	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_ptr_null(plug_jobdir_path());
	ck_assert_int_eq(rmdir(top), 0);
	ck_assert_int_eq(symlink("/tmp", top), 0);
	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), -1);
	ck_assert_int_eq(unlink(top), 0);
	/* a job directory that is a link */
	ck_assert_int_eq(mkdir(top, 0700), 0);
	ck_assert_int_eq(symlink(base, path_of("job.5")), 0);
	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), -1);
}
END_TEST

START_TEST(bad_key_refused)
{
	char key[PLUG_JOBDIR_KEY_LEN + 1];
	int fd;

	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), 0);
	ck_assert_int_eq(unlink(path_of("job.5/key")), 0);
	fd = open(path_of("job.5/key"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "zz\n", 3), 3);
	close(fd);
	ck_assert_int_eq(plug_jobdir_open(base, 5, NULL, key), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(mkdirs_as_user)
{
	char a[256], b[256], f[256], *paths[3] = { a, b, NULL };
	uid_t uid = getuid() ? getuid() : 65534;
	gid_t gid = getuid() ? getgid() : 65534;
	size_t bad = 9;
	struct stat sb;
	int fd;

	/* a directory the user may write: made, with its parents, theirs */
	snprintf(a, sizeof(a), "%s/open/d/slurmix.4.1/rank.0", base);
	snprintf(b, sizeof(b), "%s/open/d/slurmix.4.1/rank.1/", base);
	snprintf(f, sizeof(f), "%s/open", base);
	ck_assert_int_eq(mkdir(f, 0777), 0);
	ck_assert_int_eq(chmod(f, 0777), 0);
	chmod(base, 0755);
	ck_assert_int_eq(plug_mkdirs_as(uid, gid, 0, NULL, paths, 10000, &bad), 0);
	ck_assert_int_eq(stat(a, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_uint_eq(sb.st_uid, uid);
	ck_assert_int_eq(stat(b, &sb), 0);
	ck_assert_uint_eq(sb.st_uid, uid);
	/* again: they exist, fine */
	ck_assert_int_eq(plug_mkdirs_as(uid, gid, 0, NULL, paths, 10000, &bad), 0);
	/* broken: a file on the way, a relative path */
	snprintf(f, sizeof(f), "%s/open/file", base);
	ck_assert_int_ge(fd = open(f, O_CREAT | O_WRONLY, 0644), 0);
	close(fd);
	snprintf(b, sizeof(b), "%s/open/file/rank.0", base);
	errno = 0;
	ck_assert_int_eq(plug_mkdirs_as(uid, gid, 0, NULL, paths, 10000, &bad), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_uint_eq(bad, 1);
	snprintf(b, sizeof(b), "rel/rank.0");
	ck_assert_int_eq(plug_mkdirs_as(uid, gid, 0, NULL, paths, 10000, &bad), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(bad, 1);
	/* as another user than root: root's own directory is not theirs */
	if (!getuid()) {
		snprintf(a, sizeof(a), "%s/mine", base);
		paths[1] = NULL;
		ck_assert_int_eq(plug_mkdirs_as(uid, gid, 0, NULL, paths, 10000, &bad), -1);
		ck_assert_int_eq(errno, EACCES);
		ck_assert_int_eq(stat(a, &sb), -1);
	}
	ck_assert_int_eq(plug_rank_width(1), 1);
	ck_assert_int_eq(plug_rank_width(9), 1);
	ck_assert_int_eq(plug_rank_width(10), 2);
	ck_assert_int_eq(plug_rank_width(1000), 4);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("plugin_jobdir");
	TCase *tc = tcase_create("jobdir");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, creates_dirs_and_key);
	tcase_add_test(tc, step_files);
	tcase_add_test(tc, stale_dirs_removed);
	tcase_add_test(tc, concurrent_openers_share_one_key);
	tcase_add_test(tc, unsafe_dirs_refused);
	tcase_add_test(tc, bad_key_refused);
	tcase_add_test(tc, mkdirs_as_user);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = suite, .fork = CK_FORK });
}
