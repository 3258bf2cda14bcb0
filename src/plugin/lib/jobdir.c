/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/jobdir.c - the per-job directory on the srun host (see
 * lib/jobdir.h). Every path is built from the base, the uid and numbers,
 * never from peer input; directories found in place are trusted only if
 * they are real directories of this uid without group/other access.
 *
 * Opening (cleaning stale directories, replacing a reused job id's old
 * one, creating or reading the key) runs under an flock on
 * slurmix-<uid>/.lock, so that sruns of one allocation starting together
 * cannot remove each other's fresh directory and end with different keys.
 * The lock is waited for at most LOCK_WAIT_MS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/jobdir.h"
#include "lib/util.h"

#define LOCK_WAIT_MS 30000

static char *jobdir;

int plug_make_key(char *key)
{
	unsigned char raw[PLUG_JOBDIR_KEY_LEN / 2];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(key + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* mkdir 0700, or accept an existing safe one. 0, or -1 with errno. */
static int safe_dir(const char *path)
{
	struct stat sb;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno != EEXIST || lstat(path, &sb) < 0)
		return -1;
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Reads an existing key. 0, or -1 (missing or malformed). */
static int read_key(const char *path, char *key)
{
	char buf[PLUG_JOBDIR_KEY_LEN + 2];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < PLUG_JOBDIR_KEY_LEN)
		return errno = n < 0 ? errno : EINVAL, -1;
	for (int i = 0; i < PLUG_JOBDIR_KEY_LEN; i++)
		if (!strchr("0123456789abcdef", buf[i]) || !buf[i])
			return errno = EINVAL, -1;
	memcpy(key, buf, PLUG_JOBDIR_KEY_LEN);
	key[PLUG_JOBDIR_KEY_LEN] = '\0';
	return 0;
}

/* Creates the key atomically, or reads the winner's. */
static int get_key(char *key)
{
	char *tmp = NULL, *path = plug_jobdir_file("key");
	int fd = -1, rc = -1;

	if (!path || asprintf(&tmp, "%s/.key.%d", jobdir, (int)getpid()) < 0)
		goto out;
	if (plug_make_key(key) < 0)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, key, PLUG_JOBDIR_KEY_LEN) != PLUG_JOBDIR_KEY_LEN ||
	    write(fd, "\n", 1) != 1)
		goto out;
	if (link(tmp, path) == 0)
		rc = 0;
	else if (errno == EEXIST)
		rc = read_key(path, key);
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(path);
	return rc;
}

/* job.<n> with n != job and the job gone: removed. */
static void clean_stale(const char *base, uint32_t job, plug_job_alive_f alive)
{
	DIR *d = opendir(base);
	struct dirent *e;
	uint32_t n;
	time_t submit;

	while (d && (e = readdir(d))) {
		char *path;

		if (strncmp(e->d_name, "job.", 4) ||
		    plug_parse_u32(e->d_name + 4, 0, UINT32_MAX, &n) < 0 || n == job ||
		    alive(n, &submit) != 0)
			continue;
		if (asprintf(&path, "%s/%s", base, e->d_name) >= 0) {
			plug_rm_tree(path);
			free(path);
		}
	}
	if (d)
		closedir(d);
}

/* The current job's directory left over from an older job of that id. */
static void clean_own(uint32_t job, plug_job_alive_f alive)
{
	char *key = plug_jobdir_file("key");
	struct stat sb;
	time_t submit = 0;

	if (key && lstat(key, &sb) == 0 && alive(job, &submit) == 1 && submit &&
	    sb.st_mtime < submit)
		plug_rm_tree(jobdir);
	free(key);
}

static int make_tree(const char *base, uint32_t job)
{
	char *top = NULL, *pub = NULL;
	int rc = -1;

	plug_jobdir_close();
	if (asprintf(&top, "%s/slurmix-%u", base, (unsigned)geteuid()) < 0)
		return -1;
	if (safe_dir(top) == 0 && asprintf(&jobdir, "%s/job.%u", top, job) >= 0 &&
	    safe_dir(jobdir) == 0 && (pub = plug_jobdir_file("pub")) && safe_dir(pub) == 0)
		rc = 0;
	free(top);
	free(pub);
	return rc;
}

/* The per-uid directory's lock, held: an fd to close, or -1 with errno. */
static int lock_top(const char *base)
{
	char *top = NULL, *path = NULL;
	int fd = -1;

	if (asprintf(&top, "%s/slurmix-%u", base, (unsigned)geteuid()) < 0 || safe_dir(top) < 0 ||
	    asprintf(&path, "%s/.lock", top) < 0)
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	for (int waited = 0; fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0; waited += 10) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= LOCK_WAIT_MS) {
			int err = errno == EWOULDBLOCK ? ETIMEDOUT : errno;

			close(fd);
			fd = -1;
			errno = err;
			break;
		}
		usleep(10000);
	}
out:
	free(top);
	free(path);
	return fd;
}

/* Under the lock. */
static int open_locked(const char *base, uint32_t job, plug_job_alive_f alive, char *key)
{
	char *top = NULL;

	if (make_tree(base, job) < 0)
		return -1;
	if (alive) {
		if (asprintf(&top, "%s/slurmix-%u", base, (unsigned)geteuid()) >= 0)
			clean_stale(top, job, alive);
		free(top);
		clean_own(job, alive);
		if (make_tree(base, job) < 0) /* again, if clean_own wiped it */
			return -1;
	}
	return get_key(key);
}

int plug_jobdir_open(const char *base, uint32_t job, plug_job_alive_f alive, char *key)
{
	int err, lock, rc;

	if (!base)
		base = getenv(PLUG_JOBDIR_BASE_ENV);
	if (!base || !*base)
		base = "/tmp";
	plug_jobdir_close();
	if ((lock = lock_top(base)) < 0)
		return -1;
	rc = open_locked(base, job, alive, key);
	err = errno;
	close(lock);
	if (rc < 0)
		plug_jobdir_close();
	errno = err;
	return rc;
}

const char *plug_jobdir_path(void)
{
	return jobdir;
}

char *plug_jobdir_file(const char *name)
{
	char *path;

	if (!jobdir || !name || strstr(name, "..") || asprintf(&path, "%s/%s", jobdir, name) < 0)
		return NULL;
	return path;
}

int plug_jobdir_write(const char *name, const void *data, size_t len)
{
	char *path = plug_jobdir_file(name), *tmp = NULL;
	int fd = -1, rc = -1;

	if (!path || asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && write(fd, data, len) == (ssize_t)len && close(fd) == 0 &&
	    rename(tmp, path) == 0)
		rc = 0;
	else if (fd >= 0)
		unlink(tmp);
	fd = -1;
out:
	free(path);
	free(tmp);
	return rc;
}

int plug_jobdir_read(const char *name, size_t max, char **data, size_t *len)
{
	char *path = plug_jobdir_file(name), *buf = NULL;
	int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat sb;
	int rc = -1;

	free(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && (size_t)sb.st_size > max)
		errno = EFBIG;
	else if (fstat(fd, &sb) == 0 && (buf = malloc((size_t)sb.st_size + 1)) &&
		 read(fd, buf, (size_t)sb.st_size) == sb.st_size) {
		buf[sb.st_size] = '\0';
		*data = buf;
		*len = (size_t)sb.st_size;
		buf = NULL;
		rc = 0;
	}
	free(buf);
	close(fd);
	return rc;
}

void plug_jobdir_unlink(const char *name)
{
	char *path = plug_jobdir_file(name);

	if (path)
		unlink(path);
	free(path);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int plug_jobdir_steps(uint32_t *ids, size_t max, size_t *n)
{
	DIR *d = jobdir ? opendir(jobdir) : NULL;
	struct dirent *e;
	unsigned id;
	int end;

	*n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && *n < max) {
		end = 0;
		if (sscanf(e->d_name, "step.%u%n", &id, &end) == 1 && end && !e->d_name[end])
			ids[(*n)++] = id;
	}
	closedir(d);
	qsort(ids, *n, sizeof(*ids), cmp_u32);
	return 0;
}

void plug_jobdir_close(void)
{
	free(jobdir);
	jobdir = NULL;
}
