/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/util.c - see lib/util.h. No Slurm and no PMIx here, so that the
 * unit tests can link it alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

int plug_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

int plug_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int plug_nspace_parse(const char *ns, uint32_t *job, uint32_t *step)
{
	unsigned j, s;
	int end = 0;

	if (!ns || sscanf(ns, "slurmix.%u.%u%n", &j, &s, &end) != 2 || ns[end])
		return -1;
	if (job)
		*job = j;
	if (step)
		*step = s;
	return 0;
}

bool plug_nspace_same_job(const char *a, const char *b)
{
	uint32_t ja, jb;

	return plug_nspace_parse(a, &ja, NULL) == 0 && plug_nspace_parse(b, &jb, NULL) == 0 &&
	       ja == jb;
}

const char *plug_env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++) {
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	}
	return NULL;
}

int plug_path_expand(const char *raw, const char *node, const char *host, char *out, size_t size)
{
	size_t o = 0;

	for (const char *p = raw; *p; p++) {
		const char *s = NULL;
		char one[2] = { *p, 0 };

		if (p[0] == '%' && (p[1] == 'n' || p[1] == 'h'))
			s = *++p == 'n' ? node : host;
		else
			s = one;
		if (o + strlen(s) >= size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(out + o, s, strlen(s) + 1);
		o += strlen(s);
	}
	if (!size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[o] = '\0';
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0; /* best effort: keep going */
}

void plug_rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int plug_rank_width(uint32_t ntasks)
{
	int w = 1;

	for (; ntasks >= 10; ntasks /= 10)
		w++;
	return w;
}

/* mkdir -p of one absolute path, in the forked child: no allocation. */
static int mkdir_p(const char *path)
{
	char b[PATH_MAX];
	size_t n = strlen(path);
	struct stat sb;

	if (n >= sizeof(b))
		return ENAMETOOLONG;
	memcpy(b, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (b[i] != '/' && b[i])
			continue;
		b[i] = '\0';
		if (mkdir(b, 0755) < 0 &&
		    (errno != EEXIST || stat(b, &sb) < 0 || !S_ISDIR(sb.st_mode)))
			return errno == EEXIST ? ENOTDIR : errno;
		b[i] = path[i];
	}
	return 0;
}

int64_t plug_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child's end within ms: 1 reaped (*status), 0 not yet, -1 error. */
static int reap_within(pid_t pid, int *status, int64_t ms)
{
	int64_t until = plug_mono_ms() + ms;

	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return -1;
		if (plug_mono_ms() >= until)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

int plug_mkdirs_as(uid_t uid, gid_t gid, int ngids, const gid_t *gids, char *const *paths,
		   int timeout_ms, size_t *bad)
{
	int pfd[2], status = 0, r;
	size_t failed = 0;
	pid_t pid;

	for (size_t i = 0; paths && paths[i]; i++)
		if (paths[i][0] != '/') {
			if (bad)
				*bad = i;
			errno = EINVAL;
			return -1;
		}
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) { /* only system calls from here */
		int e = 0;
		size_t i = 0;

		close(pfd[0]);
		if (!getuid() && ((ngids > 0 && gids ? setgroups((size_t)ngids, gids) :
						       setgroups(1, &gid)) < 0 ||
				  setgid(gid) < 0 || setuid(uid) < 0))
			e = errno;
		for (; !e && paths && paths[i]; i++)
			if ((e = mkdir_p(paths[i])))
				break;
		if (e)
			(void)!write(pfd[1], &i, sizeof(i));
		_exit(e & 0xff);
	}
	close(pfd[1]);
	if ((r = reap_within(pid, &status, timeout_ms)) == 0) {
		kill(pid, SIGKILL);
		r = reap_within(pid, &status, 100);
		close(pfd[0]);
		errno = r < 0 ? errno : ETIMEDOUT;
		return -1;
	}
	if (r < 0) {
		int e = errno;

		close(pfd[0]);
		errno = e;
		return -1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		close(pfd[0]);
		return 0;
	}
	if (read(pfd[0], &failed, sizeof(failed)) != (ssize_t)sizeof(failed))
		failed = 0;
	close(pfd[0]);
	if (bad)
		*bad = failed;
	errno = WIFEXITED(status) ? WEXITSTATUS(status) : ECANCELED; /* killed */
	return -1;
}

int plug_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

bool plug_wait_flag(pthread_cond_t *cond, pthread_mutex_t *lock, const bool *done, int ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (!*done)
		if (pthread_cond_timedwait(cond, lock, &until) == ETIMEDOUT)
			break;
	return *done;
}

int plug_write_nowait(int fd, const void *b, size_t n)
{
	const char *p = b;
	struct stat sb;
	char path[64];
	int f = fd, rc = 0;

	if (fstat(fd, &sb) < 0)
		return -errno;
	if (!S_ISREG(sb.st_mode)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((f = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
			return -errno;
	}
	while (n && !rc) {
		ssize_t w = write(f, p, n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else {
			rc = w < 0 ? -errno : -EIO;
		}
	}
	if (f != fd)
		close(f);
	return rc;
}

void plug_syslog_proc(int pri, const char *nspace, uint32_t rank, const char *msg)
{
	syslog(LOG_USER | pri, "slurmix[%s:%u]: %.*s", nspace, rank, (int)strcspn(msg, "\n"), msg);
}
