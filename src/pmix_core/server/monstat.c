/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monstat.c - the file checks of the file monitors, on a helper thread.
 *
 * A check may block for as long as a file system pleases (a hard-mounted
 * NFS server that stopped answering blocks forever), so none runs in the
 * progress thread: monitor.c queues them here (a bounded FIFO), one
 * detached helper thread, started with the first one, does them one at a
 * time and puts the answers on a second list, then posts
 * pxc_monstat_drain to the progress thread (pxc_srv_post), which hands
 * them to their done() callbacks there.
 *
 * The walk: with the thread's file system identity switched to the
 * client's uid and gid (raw setfsuid/setfsgid: they change the calling
 * thread only; glibc's wrappers would change every thread of the
 * process) and its supplementary groups emptied (raw setgroups, the same),
 * every part of the path is opened with O_PATH|O_NOFOLLOW from the
 * previous one and fstat'ed through its descriptor, so the kernel decides
 * the access (mode bits, ACLs, root squashing), no symlink is followed and
 * what is examined is what was opened. The last part must be a regular
 * file the uid owns. EACCES and the like are PMIX_ERR_NO_PERMISSIONS;
 * ENOENT / ENOTDIR, which the kernel tells only to one who may search the
 * directory, PMIX_ERR_NOT_FOUND. The path is resolved in the mount
 * namespace of the server's process.
 *
 * Lifetime: the state (share_t) is shared by the thread and the server,
 * refcounted. At teardown the server marks it stopped, drops the queued
 * work and its reference, and never waits: a thread stuck in a file system
 * keeps its request (its own copy) and the state alive, and when it comes
 * back it sees the stop, frees its request, and frees the state when it
 * is the last owner. Nothing else is touched by the thread (pxc_srv_post is
 * safe at any time; the library's code stays mapped: the plugin is linked
 * -z nodelete). Threads: as said; share_t's lists and flags under its lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "server.h"
#include "monstat.h"

typedef struct req {
	struct req *next;
	uint64_t key;
	uid_t uid;
	gid_t gid;
	pxc_monstat_done_f done;
	pmix_status_t status;
	struct stat st;
	char path[]; /* the thread's own copy */
} req_t;

typedef struct {
	req_t *head, **tail;
} list_t;

typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	list_t todo, done;
	size_t queued; /* submitted, not yet drained */
	int refs;      /* the thread's and the server's */
	bool stop;     /* the server is gone */
	bool woken;    /* a drain is posted */
} share_t;

void (*pxc_monstat_test_hook)(const char *path);
static atomic_uint nthreads;
static share_t *svc; /* the server's share; progress thread */

unsigned pxc_monstat_threads(void)
{
	return atomic_load(&nthreads);
}

/* ------------------------------------------------------------ the lists */

static void list_init(list_t *l)
{
	l->head = NULL;
	l->tail = &l->head;
}

static void list_push(list_t *l, req_t *r)
{
	r->next = NULL;
	*l->tail = r;
	l->tail = &r->next;
}

static req_t *list_pop(list_t *l)
{
	req_t *r = l->head;

	if (r && !(l->head = r->next))
		l->tail = &l->head;
	return r;
}

/* Takes the whole list; *l is empty afterwards. */
static req_t *list_take(list_t *l)
{
	req_t *r = l->head;

	list_init(l);
	return r;
}

static void reqs_free(req_t *r)
{
	while (r) {
		req_t *next = r->next;

		free(r);
		r = next;
	}
}

/* Drops one reference (caller holds the lock, released here); frees the
 * share when it was the last. */
static void share_unref(share_t *s)
{
	bool last = --s->refs == 0;

	pthread_mutex_unlock(&s->lock);
	if (!last)
		return;
	reqs_free(list_take(&s->todo));
	reqs_free(list_take(&s->done));
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* ------------------------------------------------------------- the walk */

pmix_status_t pxc_monstat_check_path(const char *path)
{
	size_t parts = 0;

	if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
		return PMIX_ERR_BAD_PARAM;
	for (const char *p = path; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		if (!(len = strcspn(p, "/")))
			break;
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.') ||
		    ++parts > PXC_MONSTAT_MAX_PARTS)
			return PMIX_ERR_BAD_PARAM;
		p += len;
	}
	return PMIX_SUCCESS;
}

/* This thread's file system identity becomes uid/gid, without
 * supplementary groups (when run as root); whether it took. */
static bool become(uid_t uid, gid_t gid)
{
	if (geteuid() == 0 && syscall(SYS_setgroups, 0, NULL) < 0)
		return false;
	syscall(SYS_setfsgid, gid);
	syscall(SYS_setfsuid, uid);
	/* an invalid id changes nothing and answers the current one */
	return (uid_t)syscall(SYS_setfsuid, -1) == uid && (gid_t)syscall(SYS_setfsgid, -1) == gid;
}

/* Opens comp of dfd (closed here) as it is (no symlink followed) into
 * *st (fstat of what was opened); -1 with *rc the reason. */
static int open_part(int dfd, const char *comp, struct stat *st, pmix_status_t *rc)
{
	int fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	close(dfd);
	if (fd < 0) {
		*rc = errno == ENOENT || errno == ENOTDIR ? PMIX_ERR_NOT_FOUND :
							    PMIX_ERR_NO_PERMISSIONS;
		return -1;
	}
	if (fstat(fd, st) < 0 || S_ISLNK(st->st_mode)) {
		close(fd);
		*rc = PMIX_ERR_NO_PERMISSIONS;
		return -1;
	}
	return fd;
}

/* The walk of a checked path, as the current file system identity: the
 * stat of a regular file uid owns. */
static pmix_status_t walk(const char *path, uid_t uid, struct stat *out)
{
	char buf[PATH_MAX], *save = NULL, *comp;
	pmix_status_t rc = PMIX_ERR_NO_PERMISSIONS;
	int fd;

	if (strlen(path) >= sizeof(buf))
		return PMIX_ERR_BAD_PARAM;
	strcpy(buf, path);
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 && fstat(fd, out) < 0) {
		close(fd);
		fd = -1;
	}
	for (comp = strtok_r(buf, "/", &save); fd >= 0 && comp; comp = strtok_r(NULL, "/", &save)) {
		if (!S_ISDIR(out->st_mode)) {
			close(fd);
			return PMIX_ERR_NOT_FOUND;
		}
		fd = open_part(fd, comp, out, &rc);
	}
	if (fd < 0)
		return rc;
	close(fd);
	if (!S_ISREG(out->st_mode) || (uid != 0 && out->st_uid != uid))
		return PMIX_ERR_NO_PERMISSIONS;
	return PMIX_SUCCESS;
}

static pmix_status_t check(const req_t *r, struct stat *out)
{
	const uid_t euid = geteuid();
	const gid_t egid = getegid();
	pmix_status_t st = PMIX_ERR_NO_PERMISSIONS;

	if (become(r->uid, r->gid))
		st = walk(r->path, r->uid, out);
	become(euid, egid);
	return st;
}

/* ----------------------------------------------------------- the thread */

static void on_wake(void *arg)
{
	(void)arg;
	pxc_monstat_drain();
}

/* An answer is ready (lock held): the progress thread is woken unless a
 * wake is on its way. The lock is released around the post. */
static void wake(share_t *s)
{
	if (s->woken)
		return;
	s->woken = true;
	pthread_mutex_unlock(&s->lock);
	if (pxc_srv_post(on_wake, NULL) < 0) {
		pthread_mutex_lock(&s->lock);
		s->woken = false; /* the next tick drains */
		return;
	}
	pthread_mutex_lock(&s->lock);
}

static void *stat_main(void *arg)
{
	share_t *s = arg;
	req_t *r;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stop && !s->todo.head)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stop || !(r = list_pop(&s->todo)))
			break;
		pthread_mutex_unlock(&s->lock);
		if (pxc_monstat_test_hook)
			pxc_monstat_test_hook(r->path);
		r->status = check(r, &r->st);
		pthread_mutex_lock(&s->lock);
		if (s->stop) { /* nobody waits for it any more */
			free(r);
			break;
		}
		list_push(&s->done, r);
		wake(s);
	}
	share_unref(s);
	atomic_fetch_sub(&nthreads, 1);
	return NULL;
}

/* The share and its thread (detached, every signal blocked); NULL when
 * the thread cannot start. */
static share_t *share_start(void)
{
	share_t *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thr;
	int rc = -1;

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	list_init(&s->todo);
	list_init(&s->done);
	s->refs = 2;
	sigfillset(&all);
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		atomic_fetch_add(&nthreads, 1);
		if ((rc = pthread_create(&thr, &attr, stat_main, s)) != 0)
			atomic_fetch_sub(&nthreads, 1);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

/* ------------------------------------------------------- progress thread */

pmix_status_t pxc_monstat_submit(uint64_t key, const char *path, uid_t uid, gid_t gid,
				 pxc_monstat_done_f done)
{
	size_t len = strlen(path);
	req_t *r;

	if (!svc && !(svc = share_start())) {
		pxc_error("server: monitor: the file check thread cannot start");
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	if (!(r = calloc(1, sizeof(*r) + len + 1)))
		return PMIX_ERR_NOMEM;
	r->key = key;
	r->uid = uid;
	r->gid = gid;
	r->done = done;
	memcpy(r->path, path, len + 1);
	pthread_mutex_lock(&svc->lock);
	if (svc->queued >= PXC_MONSTAT_QUEUE) {
		pthread_mutex_unlock(&svc->lock);
		free(r);
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	svc->queued++;
	list_push(&svc->todo, r);
	pthread_cond_signal(&svc->cond);
	pthread_mutex_unlock(&svc->lock);
	return PMIX_SUCCESS;
}

void pxc_monstat_drain(void)
{
	req_t *list;

	if (!svc)
		return;
	pthread_mutex_lock(&svc->lock);
	list = list_take(&svc->done);
	svc->woken = false;
	for (const req_t *r = list; r; r = r->next)
		svc->queued--;
	pthread_mutex_unlock(&svc->lock);
	while (list) {
		req_t *r = list;
		pxc_monstat_res_t res = { .key = r->key, .status = r->status, .st = r->st };

		list = r->next;
		r->done(&res);
		free(r);
	}
}

void pxc_monstat_stop(void)
{
	share_t *s = svc;
	req_t *todo, *done;

	if (!s)
		return;
	svc = NULL;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	todo = list_take(&s->todo);
	done = list_take(&s->done);
	pthread_cond_broadcast(&s->cond);
	share_unref(s);
	reqs_free(todo);
	reqs_free(done);
}
