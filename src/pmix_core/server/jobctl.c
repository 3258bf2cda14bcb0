/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobctl.c - JOBCTL: cleanup registrations done by the server itself, the
 * other directives handed to the host's job_control.
 *
 * PMIX_REGISTER_CLEANUP (files), PMIX_REGISTER_CLEANUP_DIR (directories,
 * with PMIX_CLEANUP_RECURSIVE, PMIX_CLEANUP_EMPTY, PMIX_CLEANUP_IGNORE,
 * PMIX_CLEANUP_LEAVE_TOPDIR) are recorded on the requester's namespace and
 * carried out when the namespace is deregistered (or the server
 * finalizes). Open MPI registers its session directory this way and fails
 * MPI_Init when the request is refused.
 *
 * Safety: the server may run as root for a job of another user, and the
 * paths come from that user. So: absolute paths without "..", every
 * directory on the way opened with O_NOFOLLOW (a symlink anywhere stops
 * the walk), entries examined with fstatat(AT_SYMLINK_NOFOLLOW) and removed
 * with unlinkat relative to an open directory, only entries owned by the
 * uid of the client that registered them, depth and entry count bounded.
 * A symlink itself is removed (when owned by the uid), never followed.
 * Progress thread only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "upcall.h"
#include "peer.h"
#include "jobctl.h"
#include "proto.h"

#define CLEAN_MAX_DEPTH 32
#define CLEAN_MAX_ENTRIES 1000000

struct pxc_cleanup {
	pxc_cleanup_t *next;
	char *path; /* NULL: only an ignore list */
	bool dir, recursive, empty_only, leave_top;
	char **ignore;
	uid_t uid;
};

typedef struct {
	const pxc_cleanup_t *c;
	char **ignore; /* the namespace's ignore lists */
	size_t budget;
} walk_t;

static void argv_free(char **a)
{
	for (size_t i = 0; a && a[i]; i++)
		free(a[i]);
	free(a);
}

static char **split_commas(const char *s)
{
	size_t n = 1, i = 0;
	char **out, *copy, *save = NULL;

	for (const char *p = s; *p; p++)
		n += *p == ',';
	out = calloc(n + 1, sizeof(char *));
	copy = strdup(s);
	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t && !(out[i++] = strdup(t)))
			break;
	free(copy);
	return out;
}

/* ---------------------------------------------------------- removal */

static bool ignored(const walk_t *w, const char *name)
{
	for (size_t i = 0; w->ignore && w->ignore[i]; i++)
		if (fnmatch(w->ignore[i], name, 0) == 0)
			return true;
	return false;
}

static void clean_dir(walk_t *w, int dfd, int depth, bool recurse);

/* Handles one entry of the open directory dfd. */
static void clean_entry(walk_t *w, int dfd, const char *name, int depth, bool recurse)
{
	struct stat st;
	int fd;

	if (w->budget == 0 || ignored(w, name) ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != w->c->uid)
		return;
	w->budget--;
	if (!S_ISDIR(st.st_mode)) {
		if (!w->c->empty_only)
			unlinkat(dfd, name, 0);
		return;
	}
	if (!recurse || depth >= CLEAN_MAX_DEPTH)
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	clean_dir(w, fd, depth + 1, recurse); /* closes fd */
	unlinkat(dfd, name, AT_REMOVEDIR);    /* fails if not empty: fine */
}

/* Cleans the contents of dfd (takes ownership of dfd). */
static void clean_dir(walk_t *w, int dfd, int depth, bool recurse)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) && w->budget)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			clean_entry(w, dirfd(d), e->d_name, depth, recurse);
	closedir(d);
}

/* Opens the parent directory of path without following any symlink;
 * *base points to the last component. -1 on failure. */
static int open_parent(char *path, char **base)
{
	int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL, *comp = strtok_r(path + 1, "/", &save), *next;

	while (dfd >= 0 && comp) {
		next = strtok_r(NULL, "/", &save);
		if (!next) {
			*base = comp;
			return dfd;
		}
		int fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(dfd);
		dfd = fd;
		comp = next;
	}
	if (dfd >= 0)
		close(dfd);
	return -1;
}

static void clean_one(const pxc_cleanup_t *c, char **ignore)
{
	walk_t w = { .c = c, .ignore = ignore, .budget = CLEAN_MAX_ENTRIES };
	char *copy = strdup(c->path), *base = NULL;
	struct stat st;
	int pfd = copy ? open_parent(copy, &base) : -1, fd;

	if (pfd < 0 || fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != c->uid) {
		goto out;
	}
	if (!c->dir || !S_ISDIR(st.st_mode)) {
		if (!S_ISDIR(st.st_mode))
			unlinkat(pfd, base, 0);
		goto out;
	}
	fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		clean_dir(&w, fd, 1, c->recursive);
	if (!c->leave_top)
		unlinkat(pfd, base, AT_REMOVEDIR);
out:
	if (pfd >= 0)
		close(pfd);
	free(copy);
}

/* Every ignore pattern registered for the namespace (borrowed strings). */
static char **collect_ignores(const pxc_snspace_t *ns)
{
	size_t n = 0, i = 0;
	char **all;

	for (const pxc_cleanup_t *c = ns->cleanups; c; c = c->next)
		for (size_t k = 0; c->ignore && c->ignore[k]; k++)
			n++;
	all = calloc(n + 1, sizeof(char *));
	for (const pxc_cleanup_t *c = ns->cleanups; all && c; c = c->next)
		for (size_t k = 0; c->ignore && c->ignore[k]; k++)
			all[i++] = c->ignore[k];
	return all;
}

void pxc_cleanup_run(pxc_snspace_t *ns)
{
	char **ignore = collect_ignores(ns);

	for (pxc_cleanup_t *c = ns->cleanups; c; c = c->next)
		if (c->path)
			clean_one(c, ignore);
	free(ignore);
	while (ns->cleanups) {
		pxc_cleanup_t *c = ns->cleanups;

		ns->cleanups = c->next;
		free(c->path);
		argv_free(c->ignore);
		free(c);
	}
}

/* ------------------------------------------------------------ registering */

/* Absolute, not "/", no "." or ".." component. */
static bool safe_path(const char *p)
{
	size_t len = strlen(p);

	if (p[0] != '/' || len >= PATH_MAX || len < 2)
		return false;
	for (const char *c = p; (c = strchr(c, '/')); c++) {
		size_t n = strcspn(c + 1, "/");

		if ((n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
	}
	return true;
}

static int add_cleanup(pxc_snspace_t *ns, const char *path, bool dir, const pmix_info_t *info,
		       size_t ninfo, uid_t uid)
{
	pxc_cleanup_t *c = calloc(1, sizeof(*c));
	const pmix_info_t *ig = pxc_info_find(info, ninfo, PMIX_CLEANUP_IGNORE);

	if (!c)
		return -1;
	c->path = path ? strdup(path) : NULL;
	c->dir = dir;
	c->recursive = pxc_info_flag(info, ninfo, PMIX_CLEANUP_RECURSIVE);
	c->empty_only = pxc_info_flag(info, ninfo, PMIX_CLEANUP_EMPTY);
	c->leave_top = pxc_info_flag(info, ninfo, PMIX_CLEANUP_LEAVE_TOPDIR);
	c->uid = uid;
	if (ig && ig->value.type == PMIX_STRING && ig->value.data.string)
		c->ignore = split_commas(ig->value.data.string);
	if ((path && !c->path) || (ig && ig->value.type == PMIX_STRING && !c->ignore)) {
		free(c->path);
		free(c);
		return -1;
	}
	c->next = ns->cleanups;
	ns->cleanups = c;
	return 0;
}

static pmix_status_t add_list(pxc_snspace_t *ns, const pmix_info_t *i, bool dir,
			      const pmix_info_t *info, size_t ninfo, uid_t uid)
{
	char **paths;
	pmix_status_t st = PMIX_SUCCESS;

	if (i->value.type != PMIX_STRING || !i->value.data.string)
		return PMIX_ERR_BAD_PARAM;
	paths = split_commas(i->value.data.string);
	if (!paths)
		return PMIX_ERR_NOMEM;
	for (size_t k = 0; paths[k] && st == PMIX_SUCCESS; k++) {
		if (!safe_path(paths[k]))
			st = PMIX_ERR_BAD_PARAM;
		else if (add_cleanup(ns, paths[k], dir, info, ninfo, uid) < 0)
			st = PMIX_ERR_NOMEM;
	}
	argv_free(paths);
	return st;
}

static bool is_cleanup_key(const char *k)
{
	return strcmp(k, PMIX_REGISTER_CLEANUP) == 0 || strcmp(k, PMIX_REGISTER_CLEANUP_DIR) == 0 ||
	       strcmp(k, PMIX_CLEANUP_IGNORE) == 0 || strcmp(k, PMIX_CLEANUP_RECURSIVE) == 0 ||
	       strcmp(k, PMIX_CLEANUP_EMPTY) == 0 || strcmp(k, PMIX_CLEANUP_LEAVE_TOPDIR) == 0;
}

static pmix_status_t register_cleanups(pxc_peer_t *p, const pmix_info_t *info, size_t ninfo)
{
	pxc_snspace_t *ns = p->client ? p->client->ns : NULL;
	const pmix_info_t *f = pxc_info_find(info, ninfo, PMIX_REGISTER_CLEANUP);
	const pmix_info_t *d = pxc_info_find(info, ninfo, PMIX_REGISTER_CLEANUP_DIR);
	pmix_status_t st = PMIX_SUCCESS;

	if (!ns)
		return PMIX_ERR_NOT_SUPPORTED; /* tools have no namespace here */
	if (f)
		st = add_list(ns, f, false, info, ninfo, p->uid ? p->uid : p->client->uid);
	if (st == PMIX_SUCCESS && d)
		st = add_list(ns, d, true, info, ninfo, p->uid ? p->uid : p->client->uid);
	if (st == PMIX_SUCCESS && !f && !d &&
	    add_cleanup(ns, NULL, false, info, ninfo, p->client->uid) < 0)
		st = PMIX_ERR_NOMEM;
	return st;
}

static void reply_results(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_status_t st)
{
	pmix_data_buffer_t body;

	pxc_buf_init(&body);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(&body, NULL, 0, PMIX_INFO);
	pxc_peer_reply(p, h->cmd, h->tag, st, &body);
	pxc_buf_clear(&body);
}

int pxc_do_jobctl(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in)
{
	pmix_proc_t *targets = NULL;
	pmix_info_t *info = NULL;
	size_t nt = 0, ninfo = 0;
	bool cleanup = false;
	pxc_upcall_t *r;

	if (pxc_unpack_array(in, (void **)&targets, &nt, PMIX_PROC) != PMIX_SUCCESS)
		return -1;
	if (pxc_unpack_array(in, (void **)&info, &ninfo, PMIX_INFO) != PMIX_SUCCESS)
		return pxc_array_free(targets, nt, PMIX_PROC), -1;
	for (size_t i = 0; i < ninfo; i++)
		cleanup |= is_cleanup_key(info[i].key);
	if (cleanup) {
		reply_results(p, h, register_cleanups(p, info, ninfo));
	} else if (!pxc_srv.module.job_control) {
		reply_results(p, h, PMIX_ERR_NOT_SUPPORTED);
	} else if (!(r = pxc_upcall_new(p, h->tag, h->cmd, pxc_upcall_done_info))) {
		reply_results(p, h, pxc_upcall_new_status());
	} else {
		/* the request owns what the host is handed */
		r->a.procs = targets;
		r->a.nprocs = nt;
		r->a.info = info;
		r->a.ninfo = ninfo;
		targets = NULL;
		info = NULL;
		pxc_upcall_after_call(r, pxc_srv.module.job_control(&r->a.proc, r->a.procs,
								    r->a.nprocs, r->a.info,
								    r->a.ninfo, pxc_upcall_cb_info,
								    PXC_UPCALL_CBDATA(r)));
	}
	pxc_array_free(targets, nt, PMIX_PROC);
	pxc_array_free(info, ninfo, PMIX_INFO);
	return 0;
}
