/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_client.c - check suite for the client and tool library
 * (src/pmix_core/client, src/pmix_core/tool) against the real server.
 *
 * Each test case (forked by check) is a PMIx server: it calls
 * PMIx_server_init with a small host module, registers one or two
 * namespaces and starts its clients by re-executing this binary
 * ("test_client child <scenario>") with the environment from
 * PMIx_server_setup_fork: a forked copy of a server process cannot be a
 * client (its progress thread does not survive fork), exec gives each
 * client a clean process. A scenario returns 0 on success and prints the
 * failing check otherwise; the parent asserts every client's exit status
 * and kills any that outlive the test's deadline.
 *
 * The "server dies mid-fence" case runs the server in a child process whose
 * host fence_nb kills it; the test process is a child subreaper so that it
 * collects the orphaned clients.
 *
 * Tests without a server: singleton init, local-only calls (locality,
 * cpuset strings, ABI query before init) and broken servers (a fake one
 * that closes or answers HELLO with garbage).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>
#include <pmix_slurmix.h>
#include "client/direct.h"
#include "server/evsync.h"

extern char **environ;

/* This binary, for re-executing it as a client ("/proc/self/exe" would
 * be valgrind's tool under valgrind). */
static char self_exe[4096];

#define EV_CLIENT_CODE (PMIX_EXTERNAL_ERR_BASE - 11)
#define EV_SERVER_CODE (PMIX_EXTERNAL_ERR_BASE - 12)
#define EV_LOCAL_CODE (PMIX_EXTERNAL_ERR_BASE - 13)

/* ================================================================ helpers */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

/* Removes what a killed server left behind. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void info_u32(pmix_info_t *i, const char *k, uint32_t v)
{
	PMIX_INFO_LOAD(i, k, &v, PMIX_UINT32);
}

static void info_str(pmix_info_t *i, const char *k, const char *v)
{
	PMIX_INFO_LOAD(i, k, v, PMIX_STRING);
}

static void info_bool(pmix_info_t *i, const char *k, bool v)
{
	PMIX_INFO_LOAD(i, k, &v, PMIX_BOOL);
}

static void info_int(pmix_info_t *i, const char *k, int v)
{
	PMIX_INFO_LOAD(i, k, &v, PMIX_INT);
}

/* ================================================================ host */

#define MAXPUB 16
static struct {
	pmix_pdata_t pub[MAXPUB];
	size_t npub;
	bool notify_on_fence;
	bool die_in_fence;
} host;

static pmix_status_t h_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			     size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
			     void *cbdata)
{
	(void)procs, (void)nprocs, (void)info, (void)ninfo;
	if (host.die_in_fence)
		kill(getpid(), SIGKILL);
	if (host.notify_on_fence)
		PMIx_Notify_event(EV_SERVER_CODE, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL);
	cbfunc(PMIX_SUCCESS, data, ndata, cbdata, NULL, NULL);
	return PMIX_SUCCESS;
}

static pmix_status_t h_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
			       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	for (size_t i = 0; i < ninfo && host.npub < MAXPUB; i++) {
		if (strncmp(info[i].key, "pmix.", 5) == 0)
			continue;
		pmix_pdata_t *p = &host.pub[host.npub++];

		p->proc = *proc;
		PMIX_LOAD_KEY(p->key, info[i].key);
		PMIx_Value_xfer(&p->value, &info[i].value);
	}
	cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t h_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
			      size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	pmix_pdata_t out[MAXPUB];
	size_t n = 0;

	(void)proc, (void)info, (void)ninfo;
	for (char **k = keys; k && *k; k++)
		for (size_t i = 0; i < host.npub; i++)
			if (strcmp(host.pub[i].key, *k) == 0)
				out[n++] = host.pub[i];
	cbfunc(n ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, out, n, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t h_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
				 size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)proc, (void)keys, (void)info, (void)ninfo;
	cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

/* push_stdin: what the pushes brought (in order), refusing rank 7
 * (PMIX_ERR_NOT_SUPPORTED); the end of the stream with
 * PMIX_IOF_PUSH_STDIN's bytes makes the file "pushed" in tmpdir. */
#define PUSH_MAX (1u << 20)
static struct {
	char *bytes;
	size_t n;
	int calls, completes, nulls;
	pmix_rank_t src_rank, target_rank;
} pushed;
static char tmpdir[256];

static pmix_status_t h_push(const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	bool complete = !bo;

	for (size_t i = 0; i < ndirs; i++)
		if (PMIx_Check_key(directives[i].key, PMIX_IOF_COMPLETE))
			complete = complete || PMIx_Info_true(&directives[i]);
	if (ntargets != 1 || targets[0].rank == 7)
		return PMIX_ERR_NOT_SUPPORTED;
	pushed.calls++;
	pushed.src_rank = source->rank;
	pushed.target_rank = targets[0].rank;
	pushed.nulls += !bo;
	if (!pushed.bytes)
		pushed.bytes = malloc(PUSH_MAX);
	if (bo && pushed.bytes && pushed.n + bo->size <= PUSH_MAX) {
		memcpy(pushed.bytes + pushed.n, bo->bytes, bo->size);
		pushed.n += bo->size;
	}
	if (complete && ++pushed.completes == 2) {
		char path[300];
		FILE *f;

		snprintf(path, sizeof(path), "%s/pushed", tmpdir);
		if ((f = fopen(path, "w")))
			fclose(f);
	}
	cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

/* get_credential: "tc-cred <uid> <gid>" of the PMIX_USERID/PMIX_GRPID the
 * server handed it, with PMIX_CRED_TYPE "tc"; validate_credential: those
 * two back for a credential of that form, else PMIX_ERR_INVALID_CRED
 * through the callback. Directive "tc.fail": PMIX_ERR_NO_PERMISSIONS at
 * once; "tc.hold": no answer ever (the server fails it at finalize). */
#define TC_CRED_FMT "tc-cred %u %u"

static bool cred_ids(const pmix_info_t *dirs, size_t n, uint32_t *uid, uint32_t *gid)
{
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		if (dirs[i].value.type != PMIX_UINT32)
			continue;
		if (PMIx_Check_key(dirs[i].key, PMIX_USERID) && ++found)
			*uid = dirs[i].value.data.uint32;
		else if (PMIx_Check_key(dirs[i].key, PMIX_GRPID) && ++found)
			*gid = dirs[i].value.data.uint32;
	}
	return found == 2;
}

static bool dir_set(const pmix_info_t *dirs, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (PMIx_Check_key(dirs[i].key, key))
			return true;
	return false;
}

static pmix_status_t h_getcred(const pmix_proc_t *proc, const pmix_info_t dirs[], size_t ndirs,
			       pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
	char text[64];
	pmix_byte_object_t bo = { .bytes = text };
	pmix_info_t info;
	uint32_t uid = 0, gid = 0;

	(void)proc;
	if (dir_set(dirs, ndirs, "tc.fail") || !cred_ids(dirs, ndirs, &uid, &gid))
		return PMIX_ERR_NO_PERMISSIONS;
	if (dir_set(dirs, ndirs, "tc.hold"))
		return PMIX_SUCCESS;
	bo.size = (size_t)snprintf(text, sizeof(text), TC_CRED_FMT, uid, gid);
	info_str(&info, PMIX_CRED_TYPE, "tc");
	cbfunc(PMIX_SUCCESS, &bo, &info, 1, cbdata);
	PMIX_INFO_DESTRUCT(&info);
	return PMIX_SUCCESS;
}

static pmix_status_t h_valcred(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
			       const pmix_info_t dirs[], size_t ndirs,
			       pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
	char text[64];
	pmix_info_t res[2];
	unsigned uid, gid;

	(void)proc;
	if (dir_set(dirs, ndirs, "tc.fail"))
		return PMIX_ERR_NO_PERMISSIONS;
	snprintf(text, sizeof(text), "%.*s", (int)cred->size, cred->bytes ? cred->bytes : "");
	if (sscanf(text, TC_CRED_FMT, &uid, &gid) != 2) {
		cbfunc(PMIX_ERR_INVALID_CRED, NULL, 0, cbdata);
		return PMIX_SUCCESS;
	}
	info_u32(&res[0], PMIX_USERID, uid);
	info_u32(&res[1], PMIX_GRPID, gid);
	cbfunc(PMIX_SUCCESS, res, 2, cbdata);
	return PMIX_SUCCESS;
}

typedef struct {
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	uint32_t uid;
} late_t;

static void *late_answer(void *arg)
{
	late_t *l = arg;
	pmix_info_t res;
	char id[32];

	usleep(1500000);
	snprintf(id, sizeof(id), "tc-%u", l->uid);
	info_str(&res, PMIX_ALLOC_ID, id);
	l->cbfunc(PMIX_SUCCESS, &res, 1, l->cbdata, NULL, NULL);
	PMIX_INFO_DESTRUCT(&res);
	free(l);
	return NULL;
}

static pmix_status_t alloc_late(uint32_t uid, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	late_t *l = malloc(sizeof(*l));
	pthread_t t;

	if (!l)
		return PMIX_ERR_NOMEM;
	*l = (late_t){ cbfunc, cbdata, uid };
	if (pthread_create(&t, NULL, late_answer, l) != 0)
		return free(l), PMIX_ERR_NOMEM;
	pthread_detach(t);
	return PMIX_SUCCESS;
}

/* allocate: NEW answers PMIX_ALLOC_ID "tc-<uid>" (the uid the server
 * handed it) and the caller's PMIX_ALLOC_REQ_ID back; "tc.fail": refused
 * at once; "tc.hold": never answers; "tc.late": NEW answered 1.5 s
 * later, from a thread of its own; other directives NO_PERMISSIONS
 * through the callback. */
static pmix_status_t h_alloc(const pmix_proc_t *proc, pmix_alloc_directive_t dir,
			     const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
			     void *cbdata)
{
	pmix_info_t res[2];
	uint32_t uid = 0, gid = 0;
	char id[32];
	size_t n = 1;

	(void)proc;
	if (dir_set(data, ndata, "tc.fail") || !cred_ids(data, ndata, &uid, &gid))
		return PMIX_ERR_NO_PERMISSIONS;
	if (dir_set(data, ndata, "tc.hold"))
		return PMIX_SUCCESS;
	if (dir_set(data, ndata, "tc.late"))
		return alloc_late(uid, cbfunc, cbdata);
	if (dir != PMIX_ALLOC_NEW) {
		cbfunc(PMIX_ERR_NO_PERMISSIONS, NULL, 0, cbdata, NULL, NULL);
		return PMIX_SUCCESS;
	}
	snprintf(id, sizeof(id), "tc-%u", uid);
	info_str(&res[0], PMIX_ALLOC_ID, id);
	for (size_t i = 0; i < ndata; i++)
		if (PMIx_Check_key(data[i].key, PMIX_ALLOC_REQ_ID) &&
		    data[i].value.type == PMIX_STRING)
			info_str(&res[n++], PMIX_ALLOC_REQ_ID, data[i].value.data.string);
	cbfunc(PMIX_SUCCESS, res, n, cbdata, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		PMIX_INFO_DESTRUCT(&res[i]);
	return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
	.allocate = h_alloc,
	.fence_nb = h_fence,
	.publish = h_publish,
	.lookup = h_lookup,
	.unpublish = h_unpublish,
	.push_stdin = h_push,
	.get_credential = h_getcred,
	.validate_credential = h_valcred,
};

static void server_start(bool tools)
{
	pmix_info_t info[2];

	/* the server's progress thread writes with writev(): a client that is
	 * gone must not kill the test process (reported to the wire owner) */
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/slurmix-tc.%d", (int)getpid());
	ck_assert_int_eq(mkdir(tmpdir, 0700) == 0 || errno == EEXIST, 1);
	info_str(&info[0], PMIX_SERVER_TMPDIR, tmpdir);
	info_bool(&info[1], PMIX_SERVER_TOOL_SUPPORT, tools);
	ck_assert_int_eq(PMIx_server_init(&module, info, 2), PMIX_SUCCESS);
	PMIX_INFO_DESTRUCT(&info[0]);
}

static void server_stop(void)
{
	ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
	rmdir(tmpdir);
}

static pmix_info_t *proc_data(const char *host_name, uint32_t rank, uint32_t nprocs)
{
	pmix_info_t *a;
	uint16_t lr = (uint16_t)rank;

	PMIX_INFO_CREATE(a, 5);
	PMIX_INFO_LOAD(&a[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&a[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
	PMIX_INFO_LOAD(&a[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
	info_str(&a[3], PMIX_HOSTNAME, host_name);
	info_u32(&a[4], PMIX_NODEID, 0);
	(void)nprocs;
	return a;
}

static void register_ns(const char *ns, uint32_t nprocs)
{
	size_t ni = 6 + nprocs;
	pmix_info_t *info;
	char host_name[256], peers[256] = "";
	pmix_data_array_t *da;

	gethostname(host_name, sizeof(host_name));
	for (uint32_t r = 0; r < nprocs; r++)
		snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%u", r ? "," : "",
			 r);
	PMIX_INFO_CREATE(info, ni);
	info_u32(&info[0], PMIX_JOB_SIZE, nprocs);
	info_u32(&info[1], PMIX_UNIV_SIZE, nprocs);
	info_u32(&info[2], PMIX_MAX_PROCS, nprocs);
	info_u32(&info[3], PMIX_LOCAL_SIZE, nprocs);
	info_str(&info[4], PMIX_LOCAL_PEERS, peers);
	info_str(&info[5], "test.joblevel", "hello");
	for (uint32_t r = 0; r < nprocs; r++) {
		da = malloc(sizeof(*da));
		da->type = PMIX_INFO;
		da->size = 5;
		da->array = proc_data(host_name, r, nprocs);
		PMIX_INFO_LOAD(&info[6 + r], PMIX_PROC_DATA, da, PMIX_DATA_ARRAY);
		PMIx_Data_array_destruct(da);
		free(da);
	}
	ck_assert_int_eq(PMIx_server_register_nspace(ns, (int)nprocs, info, ni, NULL, NULL),
			 PMIX_SUCCESS);
	PMIX_INFO_FREE(info, ni);
}

static char **env_copy(void)
{
	size_t n = 0;
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + 1, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		e[i] = strdup(environ[i]);
	return e;
}

static void env_add(char ***env, const char *kv)
{
	size_t n = 0;

	while ((*env)[n])
		n++;
	*env = realloc(*env, (n + 2) * sizeof(char *));
	(*env)[n] = strdup(kv);
	(*env)[n + 1] = NULL;
}

static pid_t start_client(const char *ns, uint32_t rank, const char *scenario)
{
	pmix_proc_t proc;
	char **env = env_copy();
	char extra[512];
	pid_t pid;

	PMIX_LOAD_PROCID(&proc, ns, rank);
	ck_assert_int_eq(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL),
			 PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS);
	snprintf(extra, sizeof(extra), "TEST_SERVER_PID=%d", (int)getpid());
	env_add(&env, extra);
	snprintf(extra, sizeof(extra), "TEST_TMPDIR=%s", tmpdir);
	env_add(&env, extra);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "test_client", "child", (char *)scenario, NULL };

		execve(self_exe, argv, env);
		_exit(127);
	}
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
	return pid;
}

/* Waits for n children (pid -1 entries: any child); returns how many did
 * not exit 0. Kills stragglers at the deadline. */
static int wait_clients(pid_t *pids, int n, double timeout_s)
{
	double deadline = now_s() + timeout_s;
	int failed = 0, left = n, status;
	pid_t p;

	while (left > 0) {
		p = waitpid(-1, &status, WNOHANG);
		if (p > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				failed++;
			continue;
		}
		if (now_s() > deadline) {
			for (int i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			while (waitpid(-1, &status, 0) > 0)
				;
			return failed + left;
		}
		usleep(10000);
	}
	return failed;
}

static int run_job(const char *ns, uint32_t nprocs, const char *scenario, double timeout_s)
{
	pid_t pids[16];

	register_ns(ns, nprocs);
	for (uint32_t r = 0; r < nprocs; r++)
		pids[r] = start_client(ns, r, scenario);
	return wait_clients(pids, (int)nprocs, timeout_s);
}

/* ================================================================ clients */

#define CK(c)                                                                                      \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "client %s:%u: %s:%d: %s\n", me.nspace, me.rank, __FILE__, \
				__LINE__, #c);                                                     \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)
#define CKS(expr, want)                                                                            \
	do {                                                                                       \
		pmix_status_t _s = (expr);                                                         \
		if (_s != (want)) {                                                                \
			fprintf(stderr, "client %s:%u: %s:%d: %s = %d (%s), want %d\n", me.nspace, \
				me.rank, __FILE__, __LINE__, #expr, _s, PMIx_Error_string(_s),     \
				(int)(want));                                                      \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

static pmix_proc_t me;

static uint32_t get_u32(const pmix_proc_t *p, const char *key, pmix_status_t *st)
{
	pmix_value_t *v = NULL;
	uint32_t out = 0;

	*st = PMIx_Get(p, key, NULL, 0, &v);
	if (*st == PMIX_SUCCESS && v->type == PMIX_UINT32)
		out = v->data.uint32;
	else if (*st == PMIX_SUCCESS)
		*st = PMIX_ERR_TYPE_MISMATCH;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return out;
}

/* Threads of this process; a joined thread can linger in /proc/self/task
 * for a moment after pthread_join returns, so wait (up to 2 s) for the
 * count to come down to `want` (pass -1 to just count). */
static int count_threads_settled(int want)
{
	double end = now_s() + 2;
	int n;

	while ((n = count_dir("/proc/self/task")) != want && want >= 0 && now_s() < end)
		usleep(5000);
	return n;
}

static int count_threads(void)
{
	return count_threads_settled(-1);
}

static int count_fds(void)
{
	return count_dir("/proc/self/fd");
}

static int c_initfin(void)
{
	int fds0 = count_fds(), thr0 = count_threads();
	pmix_proc_t wild, again;
	pmix_status_t st;
	pmix_value_t *v;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CK(strcmp(me.nspace, getenv("PMIX_NAMESPACE")) == 0);
	CK(me.rank == (uint32_t)atoi(getenv("PMIX_RANK")));
	CK(PMIx_Initialized());
	CKS(PMIx_Init(&again, NULL, 0), PMIX_SUCCESS);
	CK(again.rank == me.rank);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	CK(get_u32(&wild, PMIX_JOB_SIZE, &st) == 3 && st == PMIX_SUCCESS);
	CKS(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v), PMIX_SUCCESS);
	CK(v->type == PMIX_UINT16 && v->data.uint16 == me.rank);
	PMIX_VALUE_RELEASE(v);
	CKS(PMIx_Get(&wild, "test.joblevel", NULL, 0, &v), PMIX_SUCCESS);
	CK(v->type == PMIX_STRING && strcmp(v->data.string, "hello") == 0);
	PMIX_VALUE_RELEASE(v);
	CK(PMIx_Get_version()[0] >= '3');
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	CK(PMIx_Initialized());
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	CK(!PMIx_Initialized());
	CK(count_fds() == fds0);
	CK(count_threads_settled(thr0) == thr0);
	CKS(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_INIT);
	/* and again: init works after a full finalize */
	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	CK(count_fds() == fds0 && count_threads_settled(thr0) == thr0);
	return 0;
}

static int put_keys(void)
{
	char val[64];
	pmix_value_t v = { .type = PMIX_STRING };

	v.data.string = val;
	snprintf(val, sizeof(val), "local-%u", me.rank);
	CKS(PMIx_Put(PMIX_LOCAL, "t.local", &v), PMIX_SUCCESS);
	snprintf(val, sizeof(val), "remote-%u", me.rank);
	CKS(PMIx_Put(PMIX_REMOTE, "t.remote", &v), PMIX_SUCCESS);
	snprintf(val, sizeof(val), "global-%u", me.rank);
	CKS(PMIx_Put(PMIX_GLOBAL, "t.global", &v), PMIX_SUCCESS);
	v.data.string = "not-my-host";
	CKS(PMIx_Put(PMIX_GLOBAL, PMIX_HOSTNAME, &v), PMIX_SUCCESS);
	CKS(PMIx_Put(PMIX_INTERNAL, "t.internal", &v), PMIX_SUCCESS);
	CKS(PMIx_Put(PMIX_GLOBAL, NULL, &v), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Commit(), PMIX_SUCCESS);
	return 0;
}

static int check_str(const pmix_proc_t *p, const char *key, const char *want,
		     const pmix_info_t *info, size_t ninfo)
{
	pmix_value_t *v = NULL;
	pmix_status_t st = PMIx_Get(p, key, info, ninfo, &v);
	int ok = st == PMIX_SUCCESS && v->type == PMIX_STRING && strcmp(v->data.string, want) == 0;

	if (!ok)
		fprintf(stderr, "get %s:%u %s -> %d (%s) want %s\n", p->nspace, p->rank, key, st,
			st == PMIX_SUCCESS && v->type == PMIX_STRING ? v->data.string : "?", want);
	if (v)
		PMIX_VALUE_RELEASE(v);
	return ok;
}

static volatile int nb_done;
static volatile pmix_status_t nb_status;
static char nb_str[64];

static void value_cb(pmix_status_t st, pmix_value_t *kv, void *cbdata)
{
	(void)cbdata;
	nb_status = st;
	if (st == PMIX_SUCCESS && kv->type == PMIX_STRING)
		snprintf(nb_str, sizeof(nb_str), "%s", kv->data.string);
	nb_done = 1;
}

static void op_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	nb_status = st;
	nb_done = 1;
}

static volatile pmix_status_t cb_fence_st = -9999, cb_get_st = -9999;

/* Runs in the progress thread: a blocking call needing the server must
 * fail at once, a Get answered locally must work. */
static void op_cb_blocking(pmix_status_t st, void *cbdata)
{
	pmix_proc_t wild;
	pmix_value_t *v = NULL;

	(void)cbdata;
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	cb_fence_st = PMIx_Fence(NULL, 0, NULL, 0);
	cb_get_st = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
	if (v)
		PMIX_VALUE_RELEASE(v);
	nb_status = st;
	nb_done = 1;
}

static bool wait_flag(volatile int *f, int want, double s);

static int c_putget(void)
{
	pmix_proc_t peer;
	char want[64], host_name[256];
	pmix_info_t opt;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	if (put_keys())
		return 1;
	gethostname(host_name, sizeof(host_name));
	/* own data is local at once; the reserved key is not shadowed */
	snprintf(want, sizeof(want), "global-%u", me.rank);
	CK(check_str(&me, "t.global", want, NULL, 0));
	CK(check_str(&me, "t.internal", "not-my-host", NULL, 0));
	CK(check_str(&me, PMIX_HOSTNAME, host_name, NULL, 0));
	/* barrier without data, then fetch peers' data through the server */
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 3);
	info_bool(&opt, PMIX_OPTIONAL, true);
	CKS(PMIx_Get(&peer, "t.global", &opt, 1, &(pmix_value_t *){ NULL }), PMIX_ERR_NOT_FOUND);
	snprintf(want, sizeof(want), "global-%u", peer.rank);
	CK(check_str(&peer, "t.global", want, NULL, 0));
	snprintf(want, sizeof(want), "local-%u", peer.rank);
	CK(check_str(&peer, "t.local", want, NULL, 0));
	/* REMOTE scope is not for processes on the same node */
	{
		pmix_info_t imm;
		pmix_value_t *v = NULL;

		info_bool(&imm, PMIX_IMMEDIATE, true);
		CK(PMIx_Get(&peer, "t.remote", &imm, 1, &v) != PMIX_SUCCESS);
	}
	/* now cached: OPTIONAL finds it */
	snprintf(want, sizeof(want), "global-%u", peer.rank);
	CK(check_str(&peer, "t.global", want, &opt, 1));
	/* non-blocking forms */
	PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 2) % 3);
	CKS(PMIx_Get_nb(&peer, "t.global", NULL, 0, value_cb, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_done, 1, 5));
	snprintf(want, sizeof(want), "global-%u", peer.rank);
	CK(nb_status == PMIX_SUCCESS && strcmp(nb_str, want) == 0);
	nb_done = 0;
	CKS(PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_done, 1, 5));
	CK(nb_status == PMIX_SUCCESS);
	nb_done = 0;
	CKS(PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb_blocking, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_done, 1, 5));
	CKS(cb_fence_st, PMIX_ERR_WOULD_BLOCK);
	CKS(cb_get_st, PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_fence(void)
{
	pmix_proc_t peer, sub[2];
	pmix_info_t coll;
	char want[64];

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	if (put_keys())
		return 1;
	info_bool(&coll, PMIX_COLLECT_DATA, true);
	CKS(PMIx_Fence(NULL, 0, &coll, 1), PMIX_SUCCESS);
	{
		char host_name[256];

		/* the reserved key put by every rank shadowed nothing */
		gethostname(host_name, sizeof(host_name));
		PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 3);
		CK(check_str(&me, PMIX_HOSTNAME, host_name, NULL, 0));
		CK(check_str(&peer, PMIX_HOSTNAME, host_name, NULL, 0));
	}
	/* after a data fence, peers' GLOBAL data is local (OPTIONAL works) */
	info_bool(&coll, PMIX_OPTIONAL, true);
	for (uint32_t r = 0; r < 3; r++) {
		PMIX_LOAD_PROCID(&peer, me.nspace, r);
		snprintf(want, sizeof(want), "global-%u", r);
		CK(check_str(&peer, "t.global", want, &coll, 1));
	}
	/* a fence over a subset: ranks 0 and 1 only */
	if (me.rank < 2) {
		PMIX_LOAD_PROCID(&sub[0], me.nspace, 0);
		PMIX_LOAD_PROCID(&sub[1], me.nspace, 1);
		CKS(PMIx_Fence(sub, 2, NULL, 0), PMIX_SUCCESS);
	}
	/* explicit wildcard */
	PMIX_LOAD_PROCID(&peer, me.nspace, PMIX_RANK_WILDCARD);
	CKS(PMIx_Fence(&peer, 1, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_twons(void)
{
	pmix_proc_t both[2], other;
	pmix_info_t coll;
	char want[64];
	pmix_status_t st;
	bool is_a;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	is_a = strcmp(me.nspace, "nsA") == 0;
	if (put_keys())
		return 1;
	PMIX_LOAD_PROCID(&both[0], "nsA", PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&both[1], "nsB", PMIX_RANK_WILDCARD);
	info_bool(&coll, PMIX_COLLECT_DATA, true);
	CKS(PMIx_Fence(both, 2, &coll, 1), PMIX_SUCCESS);
	PMIX_LOAD_PROCID(&other, is_a ? "nsB" : "nsA", 1);
	snprintf(want, sizeof(want), "global-%u", 1);
	CK(check_str(&other, "t.global", want, NULL, 0));
	/* the other namespace's job info, through the server */
	PMIX_LOAD_PROCID(&other, is_a ? "nsB" : "nsA", PMIX_RANK_WILDCARD);
	CK(get_u32(&other, PMIX_JOB_SIZE, &st) == 2 && st == PMIX_SUCCESS);
	CKS(PMIx_Fence(both, 2, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Connect(both, 2, NULL, 0), PMIX_SUCCESS);
	/* after connect the other job's info is local (OPTIONAL) */
	info_bool(&coll, PMIX_OPTIONAL, true);
	{
		pmix_value_t *v = NULL;

		CKS(PMIx_Get(&other, PMIX_LOCAL_PEERS, &coll, 1, &v), PMIX_SUCCESS);
		CK(v->type == PMIX_STRING && strcmp(v->data.string, "0,1") == 0);
		PMIX_VALUE_RELEASE(v);
	}
	CKS(PMIx_Disconnect(both, 2, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static volatile int term_seen, cn_left;
static volatile uint32_t term_src;
static pmix_status_t cn_st[2];

static void term_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == PMIX_ERR_INVALID_TERMINATION && source) {
		term_src = source->rank;
		term_seen = 1;
	}
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void cn_cb(pmix_status_t st, void *cbdata)
{
	cn_st[(intptr_t)cbdata] = st;
	__atomic_sub_fetch(&cn_left, 1, __ATOMIC_SEQ_CST);
}

static size_t my_size(const char *key, pmix_status_t *st)
{
	pmix_value_t *v = NULL;
	size_t out = 0;

	*st = PMIx_Get(&me, key, NULL, 0, &v);
	if (*st == PMIX_SUCCESS && v->type == PMIX_SIZE)
		out = v->data.size;
	else if (*st == PMIX_SUCCESS && v->type == PMIX_PROC_RANK)
		out = v->data.rank;
	if (v)
		PMIX_VALUE_RELEASE(v);
	return out;
}

/* Connect/disconnect attributes and results (server/connect.c), run by
 * nsA:0,1 and nsB:0,1. */
static int c_cnx(void)
{
	pmix_proc_t both[2], other[2];
	pmix_info_t bad, ids[2];
	pmix_status_t st, code = PMIX_ERR_INVALID_TERMINATION;
	size_t ctx, ctx2;
	bool is_a;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	is_a = strcmp(me.nspace, "nsA") == 0;
	PMIX_LOAD_PROCID(&both[0], "nsA", PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&both[1], "nsB", PMIX_RANK_WILDCARD);
	/* never connected; broken attributes; another cluster: clean errors */
	CKS(PMIx_Disconnect(both, 2, NULL, 0), PMIX_ERR_INVALID_OPERATION);
	info_int(&bad, PMIX_CONNECT_ID, 5);
	CKS(PMIx_Connect(both, 2, &bad, 1), PMIX_ERR_BAD_PARAM);
	info_str(&bad, PMIX_CONNECT_XCHG_ONLY, "yes");
	CKS(PMIx_Connect(both, 2, &bad, 1), PMIX_ERR_BAD_PARAM);
	PMIX_INFO_DESTRUCT(&bad);
	info_str(&bad, PMIX_TIMEOUT, "10");
	CKS(PMIx_Connect(both, 2, &bad, 1), PMIX_ERR_BAD_PARAM);
	PMIX_INFO_DESTRUCT(&bad);
	other[0] = both[0];
	PMIX_LOAD_PROCID(&other[1], "elsewhere:nsB", PMIX_RANK_WILDCARD);
	CKS(PMIx_Connect(other, 2, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
	/* results: a context id shared by the group, a group rank */
	CKS(PMIx_Connect(both, 2, NULL, 0), PMIX_SUCCESS);
	ctx = my_size(PMIX_GROUP_CONTEXT_ID, &st);
	CK(st == PMIX_SUCCESS && ctx != 0);
	CK(my_size(PMIX_CONNECT_GROUP_RANK, &st) == (is_a ? 0 : 2) + me.rank);
	CKS(PMIx_Connect(both, 2, NULL, 0), PMIX_SUCCESS);
	ctx2 = my_size(PMIX_GROUP_CONTEXT_ID, &st);
	CK(st == PMIX_SUCCESS && ctx2 != ctx && ctx2 != 0);
	/* two connects of one set told apart by id, opposite orders */
	cn_left = 2;
	info_str(&ids[0], PMIX_CONNECT_ID, is_a ? "x" : "y");
	info_str(&ids[1], PMIX_CONNECT_ID, is_a ? "y" : "x");
	CKS(PMIx_Connect_nb(both, 2, &ids[0], 1, cn_cb, (void *)0), PMIX_SUCCESS);
	CKS(PMIx_Connect_nb(both, 2, &ids[1], 1, cn_cb, (void *)1), PMIX_SUCCESS);
	for (int i = 0; i < 1000 && cn_left > 0; i++)
		usleep(10000);
	CK(cn_left == 0 && cn_st[0] == PMIX_SUCCESS && cn_st[1] == PMIX_SUCCESS);
	PMIX_INFO_DESTRUCT(&ids[0]);
	PMIX_INFO_DESTRUCT(&ids[1]);
	CKS(PMIx_Disconnect(both, 2, NULL, 0), PMIX_SUCCESS);
	if (me.rank == 0) { /* nsB:0 finalizes while connected to nsA:0 */
		CK(PMIx_Register_event_handler(&code, 1, NULL, 0, term_hdl, NULL, NULL) > 0);
		PMIX_LOAD_PROCID(&other[0], "nsA", 0);
		PMIX_LOAD_PROCID(&other[1], "nsB", 0);
		CKS(PMIx_Connect(other, 2, NULL, 0), PMIX_SUCCESS);
		if (is_a) /* and nsA:0 hears of it */
			CK(wait_flag(&term_seen, 1, 10) && term_src == 0);
	}
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_getsem(void)
{
	pmix_proc_t wild, peer;
	pmix_info_t info[3];
	pmix_value_t *v = NULL;
	pmix_status_t st;
	double t0;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
	/* OPTIONAL on a missing key: not found, without waiting */
	info_bool(&info[0], PMIX_OPTIONAL, true);
	t0 = now_s();
	CKS(PMIx_Get(&peer, "nobody.posts", info, 1, &v), PMIX_ERR_NOT_FOUND);
	CK(now_s() - t0 < 0.5);
	/* reserved key of our own namespace missing: not found, no server trip */
	CKS(PMIx_Get(&wild, "pmix.nonexistent", NULL, 0, &v), PMIX_ERR_NOT_FOUND);
	/* IMMEDIATE: the server answers at once */
	info_bool(&info[0], PMIX_IMMEDIATE, true);
	t0 = now_s();
	st = PMIx_Get(&peer, "nobody.posts", info, 1, &v);
	CK(st != PMIX_SUCCESS && now_s() - t0 < 3.0);
	/* TIMEOUT on a key nobody posts: an error within the timeout */
	info_int(&info[0], PMIX_TIMEOUT, 1);
	t0 = now_s();
	st = PMIx_Get(&peer, "nobody.posts", info, 1, &v);
	CK(st != PMIX_SUCCESS && now_s() - t0 < 2.5);
	/* REFRESH_CACHE goes to the server and still finds job data */
	info_bool(&info[0], PMIX_GET_REFRESH_CACHE, true);
	CKS(PMIx_Get(&wild, PMIX_JOB_SIZE, info, 1, &v), PMIX_SUCCESS);
	CK(v->type == PMIX_UINT32 && v->data.uint32 == 2);
	PMIX_VALUE_RELEASE(v);
	/* proc-level miss falls back to job level */
	CK(get_u32(&me, PMIX_JOB_SIZE, &st) == 2 && st == PMIX_SUCCESS);
	/* NULL key: all of a proc's data */
	CKS(PMIx_Get(&me, NULL, NULL, 0, &v), PMIX_SUCCESS);
	CK(v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_INFO &&
	   v->data.darray->size >= 3);
	PMIX_VALUE_RELEASE(v);
	/* node-level qualifier */
	info_bool(&info[0], PMIX_NODE_INFO, true);
	st = PMIx_Get(&wild, PMIX_HOSTNAME, info, 1, &v);
	CK(st == PMIX_SUCCESS || st == PMIX_ERR_NOT_FOUND);
	if (v)
		PMIX_VALUE_RELEASE(v);
	CKS(PMIx_Get(NULL, NULL, NULL, 0, &v), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* ---- events ---- */

static volatile int ev_order[8];
static volatile int ev_n;
static volatile int ev_client_seen, ev_server_seen, ev_reg_done, ev_get_done;
static volatile pmix_status_t ev_get_status = -9999;
static volatile uint32_t ev_client_src;

static void hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		size_t ninfo, pmix_info_t *results, size_t nresults,
		pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	int tag = -1;

	(void)id, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (strcmp(info[i].key, PMIX_EVENT_RETURN_OBJECT) == 0)
			tag = (int)(intptr_t)info[i].value.data.ptr;
	if (status == EV_LOCAL_CODE && ev_n < 8)
		ev_order[ev_n++] = tag;
	if (status == EV_CLIENT_CODE) {
		ev_client_src = source->rank;
		ev_client_seen = 1;
	}
	if (status == EV_SERVER_CODE) {
		/* a blocking call that needs the server, from inside a handler */
		pmix_info_t refresh;
		pmix_value_t *v = NULL;
		pmix_proc_t wild;

		PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
		info_bool(&refresh, PMIX_GET_REFRESH_CACHE, true);
		ev_get_status = PMIx_Get(&wild, PMIX_JOB_SIZE, &refresh, 1, &v);
		if (v)
			PMIX_VALUE_RELEASE(v);
		ev_server_seen = 1;
	}
	cbfunc(tag == 3 ? PMIX_EVENT_ACTION_COMPLETE : PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void reg_cb(pmix_status_t st, size_t ref, void *cbdata)
{
	(void)cbdata;
	if (st == PMIX_SUCCESS && ref > 0)
		ev_reg_done++;
}

static int reg(pmix_status_t code, int tag, const char *where)
{
	pmix_info_t info[2];
	size_t n = 1;

	PMIX_INFO_LOAD(&info[0], PMIX_EVENT_RETURN_OBJECT, (void *)(intptr_t)tag, PMIX_POINTER);
	if (where)
		info_bool(&info[n++], where, true);
	return PMIx_Register_event_handler(code ? &code : NULL, code ? 1 : 0, info, n, hdl, reg_cb,
					   NULL);
}

static bool wait_flag(volatile int *f, int want, double s)
{
	double end = now_s() + s;

	while (*f < want && now_s() < end)
		usleep(2000);
	return *f >= want;
}

/* Handlers registered for affected procs: counts per handler tag. */
static volatile int aff_seen[3];

static void aff_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (strcmp(info[i].key, PMIX_EVENT_RETURN_OBJECT) == 0)
			aff_seen[(intptr_t)info[i].value.data.ptr]++;
	cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Registers aff_hdl (tag) for code, affected procs aff[0..n) (n 0: none,
 * n 1: PMIX_EVENT_AFFECTED_PROC, more: PMIX_EVENT_AFFECTED_PROCS). */
static pmix_status_t reg_aff(pmix_status_t code, intptr_t tag, pmix_proc_t *aff, size_t n)
{
	pmix_info_t info[2];
	pmix_data_array_t da = { .type = PMIX_PROC, .size = n, .array = aff };

	PMIX_INFO_LOAD(&info[0], PMIX_EVENT_RETURN_OBJECT, (void *)tag, PMIX_POINTER);
	if (n == 1)
		PMIX_INFO_LOAD(&info[1], PMIX_EVENT_AFFECTED_PROC, aff, PMIX_PROC);
	else if (n > 1)
		PMIX_INFO_LOAD(&info[1], PMIX_EVENT_AFFECTED_PROCS, &da, PMIX_DATA_ARRAY);
	pmix_status_t st = PMIx_Register_event_handler(&code, 1, info, n ? 2 : 1, aff_hdl, NULL,
						       NULL) > 0 ?
				   PMIX_SUCCESS :
				   PMIX_ERROR;

	for (size_t i = 0; i < (n ? 2u : 1u); i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	return st;
}

/* Notifies code locally, naming affected procs aff[0..n) as reg_aff does. */
static pmix_status_t notify_aff(pmix_status_t code, pmix_proc_t *aff, size_t n)
{
	pmix_info_t info;
	pmix_data_array_t da = { .type = PMIX_PROC, .size = n, .array = aff };

	pmix_status_t st;

	if (n == 1)
		PMIX_INFO_LOAD(&info, PMIX_EVENT_AFFECTED_PROC, aff, PMIX_PROC);
	else if (n > 1)
		PMIX_INFO_LOAD(&info, PMIX_EVENT_AFFECTED_PROCS, &da, PMIX_DATA_ARRAY);
	st = PMIx_Notify_event(code, NULL, PMIX_RANGE_PROC_LOCAL, n ? &info : NULL, n ? 1 : 0, NULL,
			       NULL);
	if (n)
		PMIX_INFO_DESTRUCT(&info);
	return st;
}

/* PMIX_EVENT_AFFECTED_PROC(S) at registration filter what a handler gets:
 * handler 0 takes everything, 1 rank 5 only, 2 the namespace's wildcard. */
static int c_affected(void)
{
	pmix_status_t code = EV_LOCAL_CODE - 1;
	pmix_proc_t five, six, two[2], wild, other;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIX_LOAD_PROCID(&five, me.nspace, 5);
	PMIX_LOAD_PROCID(&six, me.nspace, 6);
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&other, "another.ns", 5);
	two[0] = six;
	two[1] = five;
	CKS(reg_aff(code, 0, NULL, 0), PMIX_SUCCESS);
	CKS(reg_aff(code, 1, &five, 1), PMIX_SUCCESS);
	CKS(reg_aff(code, 2, &wild, 1), PMIX_SUCCESS);
	CKS(notify_aff(code, &five, 1), PMIX_SUCCESS); /* all three */
	CK(wait_flag(&aff_seen[0], 1, 5));
	CKS(notify_aff(code, &six, 1), PMIX_SUCCESS); /* 0 and 2 */
	CK(wait_flag(&aff_seen[0], 2, 5));
	CKS(notify_aff(code, two, 2), PMIX_SUCCESS); /* all three (rank 5 is among them) */
	CK(wait_flag(&aff_seen[0], 3, 5));
	CKS(notify_aff(code, &other, 1), PMIX_SUCCESS); /* 0 only: another namespace */
	CK(wait_flag(&aff_seen[0], 4, 5));
	CKS(notify_aff(code, NULL, 0), PMIX_SUCCESS); /* 0 only: names nobody */
	CK(wait_flag(&aff_seen[0], 5, 5));
	usleep(100000);
	CK(aff_seen[0] == 5 && aff_seen[1] == 2 && aff_seen[2] == 3);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_events(void)
{
	pmix_status_t code = EV_CLIENT_CODE, scode = EV_SERVER_CODE;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	/* ordering: plain(1), LAST(2), FIRST(0); default handler(4) comes after */
	CKS(reg(EV_LOCAL_CODE, 1, NULL), PMIX_SUCCESS);
	CKS(reg(EV_LOCAL_CODE, 2, PMIX_EVENT_HDLR_LAST), PMIX_SUCCESS);
	CKS(reg(EV_LOCAL_CODE, 0, PMIX_EVENT_HDLR_FIRST), PMIX_SUCCESS);
	CKS(reg(0, 4, NULL), PMIX_SUCCESS);
	CK(wait_flag(&ev_reg_done, 4, 5));
	CKS(PMIx_Register_event_handler(&code, 1, NULL, 0, hdl, NULL, NULL) > 0, 1);
	CKS(PMIx_Register_event_handler(&scode, 1, NULL, 0, hdl, NULL, NULL) > 0, 1);
	CKS(PMIx_Notify_event(EV_LOCAL_CODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&ev_n, 4, 5));
	CK(ev_order[0] == 0 && ev_order[1] == 1 && ev_order[2] == 2 && ev_order[3] == 4);
	/* a handler returning ACTION_COMPLETE stops the chain */
	ev_n = 0;
	CKS(reg(EV_LOCAL_CODE, 3, PMIX_EVENT_HDLR_PREPEND), PMIX_SUCCESS);
	CK(wait_flag(&ev_reg_done, 5, 5));
	CKS(PMIx_Notify_event(EV_LOCAL_CODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&ev_n, 2, 5));
	usleep(100000);
	CK(ev_n == 2 && ev_order[0] == 0 && ev_order[1] == 3);
	/* between clients, and from the server (raised in the host's fence) */
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	if (me.rank == 1)
		CKS(PMIx_Notify_event(EV_CLIENT_CODE, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, NULL,
				      NULL),
		    PMIX_SUCCESS);
	if (me.rank == 0) {
		CK(wait_flag(&ev_client_seen, 1, 5));
		CK(ev_client_src == 1);
	}
	CK(wait_flag(&ev_server_seen, 1, 5));
	CKS(ev_get_status, PMIX_SUCCESS);
	CKS(PMIx_Deregister_event_handler(9999, NULL, NULL), PMIX_ERR_NOT_FOUND);
	/* a collective algorithm the caller requires is not honoured */
	{
		pmix_info_t ai[2];
		bool yes = true;
		pmix_proc_t all;

		PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
		PMIx_Info_load(&ai[0], PMIX_COLLECTIVE_ALGO, "ring", PMIX_STRING);
		PMIx_Info_load(&ai[1], PMIX_COLLECTIVE_ALGO_REQD, &yes, PMIX_BOOL);
		CKS(PMIx_Fence(NULL, 0, ai, 2), PMIX_ERR_NOT_SUPPORTED);
		PMIX_INFO_REQUIRED(&ai[0]);
		CKS(PMIx_Fence(NULL, 0, ai, 1), PMIX_ERR_NOT_SUPPORTED);
		CKS(PMIx_Connect(&all, 1, ai, 1), PMIX_ERR_NOT_SUPPORTED);
		CKS(PMIx_Disconnect(&all, 1, ai, 1), PMIX_ERR_NOT_SUPPORTED);
		/* asked for, not required: the fence runs */
		PMIx_Info_destruct(&ai[0]);
		PMIx_Info_load(&ai[0], PMIX_COLLECTIVE_ALGO, "ring", PMIX_STRING);
		CKS(PMIx_Fence(NULL, 0, ai, 1), PMIX_SUCCESS);
		PMIx_Info_destruct(&ai[0]);
		PMIx_Info_destruct(&ai[1]);
	}
	/* an unknown id with a callback: the callback still comes, NOT_FOUND */
	nb_done = 0;
	nb_status = -9999;
	CKS(PMIx_Deregister_event_handler(9999, op_cb, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_done, 1, 5));
	CKS(nb_status, PMIX_ERR_NOT_FOUND);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* Order against a fence (docs/events.md): rank 1 notifies, waits for its
 * callback, and all fence; rank 0's handler is slow (300 ms), yet rank 0's
 * fence returns only after it ran. Twice: with the reply channel and on
 * the plain path (the channel closed). */
#define EV_ORDER_CODE (PMIX_EXTERNAL_ERR_BASE - 15)
static volatile int order_seen, order_notified;

static void order_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source,
		      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
		      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
	usleep(300000);
	if (status == EV_ORDER_CODE)
		order_seen++;
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void order_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	order_notified = st == PMIX_SUCCESS ? 1 : -1;
}

static int c_evorder(void)
{
	pmix_status_t code = EV_ORDER_CODE;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Register_event_handler(&code, 1, NULL, 0, order_hdl, NULL, NULL) > 0, 1);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	for (int round = 1; round <= 2; round++) {
		if (round == 2)
			pxc_direct_close_channel(); /* the plain path from now on */
		if (me.rank == 1) {
			order_notified = 0;
			CKS(PMIx_Notify_event(EV_ORDER_CODE, NULL, PMIX_RANGE_NAMESPACE, NULL, 0,
					      order_cb, NULL),
			    PMIX_SUCCESS);
			CK(wait_flag(&order_notified, 1, 5));
		}
		CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
		if (me.rank == 0)
			CKS(order_seen, round);
	}
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* Late registrants (docs/events.md): rank 1 notifies before anyone
 * registered; rank 0's handlers registered afterwards each get it once,
 * after their registration's callback; rank 1's own later handler does
 * not (it raised it). */
#define EV_LATE_CODE (PMIX_EXTERNAL_ERR_BASE - 16)
static volatile int late_seen[2], late_early, late_reg_done;

static void late_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == EV_LATE_CODE && id >= 1) {
		late_early += !late_reg_done;
		late_seen[late_reg_done > 1]++;
	}
	cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void late_reg_cb(pmix_status_t st, size_t id, void *cbdata)
{
	(void)id, (void)cbdata;
	if (st == PMIX_SUCCESS)
		late_reg_done++;
}

static int c_evlate(void)
{
	pmix_status_t code = EV_LATE_CODE;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	if (me.rank == 1) {
		order_notified = 0;
		CKS(PMIx_Notify_event(EV_LATE_CODE, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, order_cb,
				      NULL),
		    PMIX_SUCCESS);
		CK(wait_flag(&order_notified, 1, 5));
	}
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Register_event_handler(&code, 1, NULL, 0, late_hdl, late_reg_cb, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&late_reg_done, 1, 5));
	usleep(300000);
	CKS(PMIx_Register_event_handler(&code, 1, NULL, 0, late_hdl, late_reg_cb, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&late_reg_done, 2, 5));
	usleep(300000);
	if (me.rank == 0)
		CK(late_seen[0] == 1 && late_seen[1] == 1 && late_early == 0);
	else
		CK(late_seen[0] == 0 && late_seen[1] == 0);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* Synchronous events (server/evsync.c): each rank's handler answers the
 * first one after 200 ms; rank 1 keeps the second for 1.5 s, past the
 * host's timeout. Neither handler sees the sync id. The ranks say they
 * are ready with an event the server process's own handler counts. */
#define EV_SYNC_CODE (PMIX_EXTERNAL_ERR_BASE - 17)
#define EV_READY_CODE (PMIX_EXTERNAL_ERR_BASE - 18)
#define EV_NOBODY_CODE (PMIX_EXTERNAL_ERR_BASE - 19)
static volatile int sync_seen, sync_leaked;
static pmix_event_notification_cbfunc_fn_t sync_kept;
static void *sync_kept_data;

static void sync_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (strcmp(info[i].key, "slurmix.ev.sync") == 0)
			sync_leaked = 1;
	if (status != EV_SYNC_CODE) {
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
		return;
	}
	if (++sync_seen == 1)
		usleep(200000);
	if (sync_seen == 2 && me.rank == 1) {
		sync_kept = cbfunc;
		sync_kept_data = cbdata;
		return;
	}
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int c_evsync(void)
{
	pmix_status_t code = EV_SYNC_CODE;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CK(PMIx_Register_event_handler(&code, 1, NULL, 0, sync_hdl, NULL, NULL) > 0);
	order_notified = 0;
	CKS(PMIx_Notify_event(EV_READY_CODE, NULL, PMIX_RANGE_LOCAL, NULL, 0, order_cb, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&order_notified, 1, 5));
	CK(wait_flag(&sync_seen, 2, 10));
	if (me.rank == 1) {
		usleep(1500000);
		sync_kept(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, sync_kept_data);
	}
	CK(!sync_leaked);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static volatile int lost_seen;

static void lost_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == PMIX_ERR_LOST_CONNECTION_TO_SERVER)
		lost_seen = 1;
	cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int c_death(void)
{
	pmix_proc_t wild;
	pmix_value_t *v;
	pmix_status_t st;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CK(PMIx_Register_event_handler(NULL, 0, NULL, 0, lost_hdl, NULL, NULL) > 0);
	st = PMIx_Fence(NULL, 0, NULL, 0);
	CK(st == PMIX_ERR_LOST_CONNECTION_TO_SERVER);
	CK(wait_flag(&lost_seen, 1, 5));
	/* later calls fail fast; local data still answers */
	PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_UNREACH);
	CKS(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS);
	PMIX_VALUE_RELEASE(v);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_pubsub(void)
{
	pmix_info_t info[2];
	pmix_pdata_t pd;
	char *keys[] = { "svc.port", NULL };

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	if (me.rank == 0) {
		info_str(&info[0], "svc.port", "tcp://x:1");
		CKS(PMIx_Publish(info, 1), PMIX_SUCCESS);
		PMIX_INFO_DESTRUCT(&info[0]);
	}
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_LOAD_KEY(pd.key, "svc.port");
	info_bool(&info[0], PMIX_WAIT, true);
	info_int(&info[1], PMIX_TIMEOUT, 5);
	CKS(PMIx_Lookup(&pd, 1, info, 2), PMIX_SUCCESS);
	CK(pd.value.type == PMIX_STRING && strcmp(pd.value.data.string, "tcp://x:1") == 0);
	CK(pd.proc.rank == 0);
	PMIX_PDATA_DESTRUCT(&pd);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	if (me.rank == 0)
		CKS(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_resolve(void)
{
	pmix_proc_t *procs;
	size_t n;
	char *nodes, host_name[256];

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	gethostname(host_name, sizeof(host_name));
	CKS(PMIx_Resolve_peers(host_name, me.nspace, &procs, &n), PMIX_SUCCESS);
	CK(n == 3 && procs[0].rank == 0 && procs[2].rank == 2);
	free(procs);
	CKS(PMIx_Resolve_peers("no-such-node", NULL, &procs, &n), PMIX_ERR_NOT_FOUND);
	CKS(PMIx_Resolve_nodes(me.nspace, &nodes), PMIX_SUCCESS);
	CK(strstr(nodes, host_name) != NULL);
	free(nodes);
	CKS(PMIx_Job_control_nb(NULL, 0, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	{
		/* the host has no spawn/log: clean errors, no hang */
		pmix_app_t app;
		pmix_nspace_t ns;
		pmix_info_t d;

		PMIX_APP_CONSTRUCT(&app);
		app.cmd = strdup("/bin/true");
		app.maxprocs = 1;
		CK(PMIx_Spawn(NULL, 0, &app, 1, ns) != PMIX_SUCCESS);
		PMIX_APP_DESTRUCT(&app);
		info_str(&d, PMIX_LOG_STDERR, "hello");
		CK(PMIx_Log(&d, 1, NULL, 0) != PMIX_ERR_WOULD_BLOCK);
		PMIX_INFO_DESTRUCT(&d);
	}
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

static int c_tool(void)
{
	pmix_info_t info[2];
	pmix_query_t q;
	pmix_info_t *res = NULL;
	size_t nres = 0;
	pid_t spid = atoi(getenv("TEST_SERVER_PID"));

	unsetenv("PMIX_NAMESPACE");
	unsetenv("SLURMIX_PMIX_SERVER_URI");
	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &spid, PMIX_PID);
	info_str(&info[1], PMIX_SERVER_TMPDIR, getenv("TEST_TMPDIR"));
	CKS(PMIx_tool_init(&me, info, 2), PMIX_SUCCESS);
	PMIX_INFO_DESTRUCT(&info[1]);
	CK(PMIx_tool_is_connected());
	PMIX_QUERY_CONSTRUCT(&q);
	PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
	CKS(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
	CK(nres >= 1 && res[0].value.type == PMIX_STRING &&
	   strstr(res[0].value.data.string, "nsT"));
	PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_DESTRUCT(&q);
	CKS(PMIx_tool_finalize(), PMIX_SUCCESS);
	CK(!PMIx_tool_is_connected());
	/* with nothing given: find the server's rendezvous file in TMPDIR */
	setenv("TMPDIR", getenv("TEST_TMPDIR"), 1);
	CKS(PMIx_tool_init(&me, NULL, 0), PMIX_SUCCESS);
	CK(PMIx_tool_is_connected());
	CKS(PMIx_tool_finalize(), PMIX_SUCCESS);
	/* not connected on request */
	info_bool(&info[0], PMIX_TOOL_DO_NOT_CONNECT, true);
	CKS(PMIx_tool_init(&me, info, 1), PMIX_SUCCESS);
	CK(!PMIx_tool_is_connected());
	CKS(PMIx_tool_finalize(), PMIX_SUCCESS);
	return 0;
}

static volatile int fin_done;
static volatile pmix_status_t fin_status = -9999;

static void fin_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results;
	(void)nresults;
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
	fin_status = PMIx_Finalize(NULL, 0);
	fin_done = 1;
}

/* PMIx_Finalize from inside an event handler neither deadlocks nor fails */
static int c_finhdl(void)
{
	pmix_status_t code = EV_LOCAL_CODE;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	CK(PMIx_Register_event_handler(&code, 1, NULL, 0, fin_hdl, NULL, NULL) > 0);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Notify_event(EV_LOCAL_CODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL),
	    PMIX_SUCCESS);
	CK(wait_flag(&fin_done, 1, 5));
	CKS(fin_status, PMIX_SUCCESS);
	CK(!PMIx_Initialized());
	return 0;
}

/* ---- blocking calls from several threads, and request order ----
 * One blocking call at a time takes the direct path (client/direct.c),
 * the others the progress thread; fire-and-forget COMMITs, nb fences and
 * blocking fences interleave. Every Get must see the right value, and a
 * COMMIT must reach the server before the fences that follow it. */
#define TH_N 4
#define TH_GETS 100
static volatile int th_bad, th_nb_done;

static void *th_main(void *arg)
{
	pmix_proc_t peer;
	pmix_info_t refresh;

	(void)arg;
	PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 3);
	info_bool(&refresh, PMIX_GET_REFRESH_CACHE, true);
	for (int i = 0; i < TH_GETS; i++) {
		char want[32];

		snprintf(want, sizeof(want), "base-%u", peer.rank);
		if (!check_str(&peer, "th.base", want, &refresh, 1))
			__sync_fetch_and_add(&th_bad, 1);
	}
	return NULL;
}

static void th_fence_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	__sync_fetch_and_add(st == PMIX_SUCCESS ? &th_nb_done : &th_bad, 1);
}

static int c_threads(void)
{
	pthread_t t[TH_N];
	pmix_proc_t peer;
	pmix_value_t val;
	char buf[32];

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	snprintf(buf, sizeof(buf), "base-%u", me.rank);
	PMIX_VALUE_LOAD(&val, buf, PMIX_STRING);
	CKS(PMIx_Put(PMIX_GLOBAL, "th.base", &val), PMIX_SUCCESS);
	PMIX_VALUE_DESTRUCT(&val);
	CKS(PMIx_Commit(), PMIX_SUCCESS);
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	for (int i = 0; i < TH_N; i++)
		CK(pthread_create(&t[i], NULL, th_main, NULL) == 0);
	for (int i = 0; i < TH_N; i++)
		pthread_join(t[i], NULL);
	CK(th_bad == 0);
	PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 2) % 3);
	for (int i = 0; i < 30; i++) {
		char key[32], want[32];

		snprintf(key, sizeof(key), "ord.%d", i);
		snprintf(buf, sizeof(buf), "%u-%d", me.rank, i);
		PMIX_VALUE_LOAD(&val, buf, PMIX_STRING);
		CKS(PMIx_Put(PMIX_GLOBAL, key, &val), PMIX_SUCCESS);
		PMIX_VALUE_DESTRUCT(&val);
		CKS(PMIx_Commit(), PMIX_SUCCESS);
		if (i % 2 == 0) {
			CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
		} else {
			pmix_info_t refresh;
			int done = th_nb_done;

			/* a blocking call while the nb fence may still be queued */
			CKS(PMIx_Fence_nb(NULL, 0, NULL, 0, th_fence_cb, NULL), PMIX_SUCCESS);
			info_bool(&refresh, PMIX_GET_REFRESH_CACHE, true);
			snprintf(key, sizeof(key), "ord.%d", i - 1);
			snprintf(want, sizeof(want), "%u-%d", peer.rank, i - 1);
			CK(check_str(&peer, key, want, &refresh, 1));
			snprintf(key, sizeof(key), "ord.%d", i);
			CK(wait_flag(&th_nb_done, done + 1, 10));
		}
		snprintf(want, sizeof(want), "%u-%d", peer.rank, i);
		CK(check_str(&peer, key, want, NULL, 0));
	}
	CK(wait_flag(&th_nb_done, 15, 10));
	CK(th_bad == 0);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* IO forwarding (client/iof.c, server/iof.c): rank 0 pulls rank 1's
 * stdout, which the test's host delivers (iof_pull below): 3000 bytes
 * before anyone pulled, then "live N" lines every 20 ms for 2 s, then
 * the end. */
#define IOF_HISTORY 3000
static pthread_mutex_t iof_m = PTHREAD_MUTEX_INITIALIZER;
static char iof_first[1000];
static size_t iof_bytes[3];
static uint64_t iof_dropped[3];
static volatile int iof_complete[3], iof_reg_done, iof_reg_early, iof_in_call, iof_dereg_done;
static size_t iof_ids[3];

static void iof_cb(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
		   pmix_info_t info[], size_t ninfo)
{
	int k;

	(void)ch, (void)src;
	pthread_mutex_lock(&iof_m);
	if (!iof_ids[0]) /* the first pull: its frames may come before it returned */
		iof_ids[0] = id;
	k = id == iof_ids[0] ? 0 : id == iof_ids[1] ? 1 : 2;
	if (k == 0 && iof_bytes[0] < sizeof(iof_first)) {
		size_t n = bo->size < sizeof(iof_first) - iof_bytes[0] ?
				   bo->size :
				   sizeof(iof_first) - iof_bytes[0];

		memcpy(iof_first + iof_bytes[0], bo->bytes, n);
	}
	iof_bytes[k] += bo->size;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, SLURMIX_IOF_DROPPED))
			iof_dropped[k] += info[i].value.data.uint64;
		else if (PMIx_Check_key(info[i].key, PMIX_IOF_COMPLETE))
			iof_complete[k]++;
	pthread_mutex_unlock(&iof_m);
}

static void iof_reg_cb(pmix_status_t st, size_t id, void *cbdata)
{
	(void)cbdata;
	iof_reg_early += iof_in_call;
	if (st == PMIX_SUCCESS)
		iof_ids[1] = id;
	iof_reg_done++;
}

static void iof_dereg_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	iof_dereg_done += st == PMIX_SUCCESS;
}

static size_t iof_got(int k)
{
	size_t n;

	pthread_mutex_lock(&iof_m);
	n = iof_bytes[k];
	pthread_mutex_unlock(&iof_m);
	return n;
}

static int c_iof(void)
{
	pmix_proc_t one;
	pmix_info_t info[2];
	uint32_t cache = 1000;
	bool yes = true;
	size_t before;
	int fds[2], saved, id;
	char buf[4096];
	ssize_t n;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIx_Load_procid(&one, me.nspace, 1);
	if (me.rank == 0) {
		/* broken calls first */
		CKS(PMIx_IOF_pull(NULL, 0, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iof_cb, NULL, NULL),
		    PMIX_ERR_BAD_PARAM);
		CKS(PMIx_IOF_pull(&one, 1, NULL, 0, 0, iof_cb, NULL, NULL), PMIX_ERR_BAD_PARAM);
		CKS(PMIx_IOF_deregister(4242, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
		PMIx_Info_load(&info[0], PMIX_IOF_CACHE_SIZE, "x", PMIX_STRING);
		CKS(PMIx_IOF_pull(&one, 1, info, 1, PMIX_FWD_STDOUT_CHANNEL, iof_cb, NULL, NULL),
		    PMIX_ERR_BAD_PARAM);
		PMIx_Info_destruct(&info[0]);
		/* blocking: the id is the return value; the first 1000 bytes */
		PMIx_Info_load(&info[0], PMIX_IOF_CACHE_SIZE, &cache, PMIX_UINT32);
		PMIx_Info_load(&info[1], PMIX_IOF_DROP_NEWEST, &yes, PMIX_BOOL);
		id = PMIx_IOF_pull(&one, 1, info, 2, PMIX_FWD_STDOUT_CHANNEL, iof_cb, NULL, NULL);
		CK(id > 0);
		for (int t = 0; t < 500 && iof_got(0) < 1100; t++)
			usleep(10000);
		CK(iof_ids[0] == (size_t)id);
		for (int t = 0; t < 500 && iof_got(0) < 1100; t++)
			usleep(10000);
		CK(iof_got(0) > 1000);
		for (int i = 0; i < 1000; i++)
			CK(iof_first[i] == (char)(i % 251));
		CK(iof_dropped[0] >= IOF_HISTORY - 1000); /* and the lines before the pull */
		/* non-blocking: the callback never inside the call */
		iof_in_call = 1;
		CKS(PMIx_IOF_pull(&one, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, iof_cb, iof_reg_cb,
				  NULL),
		    PMIX_SUCCESS);
		iof_in_call = 0;
		CK(wait_flag(&iof_reg_done, 1, 5));
		CK(iof_reg_early == 0 && iof_ids[1] != iof_ids[0]);
		/* nothing after the deregistration returned */
		CKS(PMIx_IOF_deregister(iof_ids[0], NULL, 0, NULL, NULL), PMIX_SUCCESS);
		before = iof_got(0);
		usleep(200000);
		CK(iof_got(0) == before);
		CKS(PMIx_IOF_deregister(iof_ids[0], NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
		/* the end of the stream */
		CK(wait_flag(&iof_complete[1], 1, 10));
		CK(iof_got(1) >= IOF_HISTORY);
		CKS(PMIx_IOF_deregister(iof_ids[1], NULL, 0, iof_dereg_cb, NULL), PMIX_SUCCESS);
		CK(wait_flag(&iof_dereg_done, 1, 5));
		/* no output callback: this process's stdout gets it */
		CK(pipe(fds) == 0);
		saved = dup(1);
		CK(dup2(fds[1], 1) == 1);
		id = PMIx_IOF_pull(&one, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, NULL);
		CK(id >= 0);
		/* until "live" came (5 s at most: a loaded machine is slow) */
		n = 0;
		for (int t = 0; t < 500 && !memmem(buf, (size_t)n, "live", 4); t++) {
			struct pollfd pf = { .fd = fds[0], .events = POLLIN };
			ssize_t k;

			if (poll(&pf, 1, 10) == 1 && (size_t)n < sizeof(buf) - 1 &&
			    (k = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
				n += k;
		}
		CKS(PMIx_IOF_deregister((size_t)id, NULL, 0, NULL, NULL), PMIX_SUCCESS);
		dup2(saved, 1);
		close(saved);
		close(fds[1]);
		close(fds[0]);
		CK(n > 0);
		buf[n] = 0;
		CK(memmem(buf, (size_t)n, "live", 4) != NULL);
		PMIx_Info_destruct(&info[0]);
		PMIx_Info_destruct(&info[1]);
	}
	CKS(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* PMIx_IOF_push (client/push.c, server/iof.c): broken calls, a blocking
 * push, one the host refuses, a non-blocking one, an end alone, then
 * PMIX_IOF_PUSH_STDIN of a pipe on fd 0 fed by a thread (PUSH_STDIN_BYTES,
 * pattern i % 253), which ends with its own PMIX_IOF_COMPLETE. */
#define PUSH_STDIN_BYTES 300000
static volatile int push_cb_done, push_cb_early, push_in_call;

static void push_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	push_cb_early += push_in_call;
	push_cb_done += st == PMIX_SUCCESS;
}

static void *push_writer(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[10000];

	for (int off = 0; off < PUSH_STDIN_BYTES; off += (int)sizeof(buf)) {
		for (int i = 0; i < (int)sizeof(buf); i++)
			buf[i] = (char)((off + i) % 253);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
		usleep(2000);
	}
	close(fd);
	return NULL;
}

static int c_push(void)
{
	pmix_proc_t one, seven;
	pmix_byte_object_t bo = { .bytes = "hello", .size = 5 };
	pmix_info_t info[2];
	bool yes = true;
	int fds[2];
	pthread_t th;
	char path[300];

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIx_Load_procid(&one, me.nspace, 1);
	PMIx_Load_procid(&seven, me.nspace, 7);
	PMIx_Info_load(&info[0], PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
	PMIx_Info_load(&info[1], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	CKS(PMIx_IOF_push(NULL, 0, &bo, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_IOF_push(&one, 1, NULL, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_IOF_push(&one, 1, &bo, info, 1, NULL, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_IOF_push(&one, 1, &bo, NULL, 1, NULL, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_IOF_push(&one, 1, &bo, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	CKS(PMIx_IOF_push(&seven, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
	push_in_call = 1;
	CKS(PMIx_IOF_push(&one, 1, &bo, NULL, 0, push_cb, NULL), PMIX_SUCCESS);
	push_in_call = 0;
	CK(wait_flag(&push_cb_done, 1, 5));
	CKS(PMIx_IOF_push(&one, 1, NULL, &info[1], 1, NULL, NULL), PMIX_SUCCESS);
	/* this process's stdin */
	CK(pipe(fds) == 0);
	CK(dup2(fds[0], 0) == 0);
	close(fds[0]);
	CK(pthread_create(&th, NULL, push_writer, (void *)(intptr_t)fds[1]) == 0);
	CKS(PMIx_IOF_push(&one, 1, NULL, info, 1, NULL, NULL), PMIX_SUCCESS);
	CKS(PMIx_IOF_push(&one, 1, NULL, info, 1, NULL, NULL), PMIX_ERR_RESOURCE_BUSY);
	snprintf(path, sizeof(path), "%s/pushed", getenv("TEST_TMPDIR"));
	for (int t = 0; t < 1000 && access(path, F_OK) != 0; t++)
		usleep(10000);
	CK(access(path, F_OK) == 0);
	pthread_join(th, NULL);
	CKS(PMIx_IOF_push(NULL, 0, NULL, &info[1], 1, NULL, NULL), PMIX_SUCCESS);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	return 0;
}

/* What the _nb callbacks got (nb_cred: 1 when called, 2 off the caller's
 * thread). */
static volatile int nb_cred;
static pmix_status_t nb_cred_st;
static char nb_cred_bytes[64], nb_cred_type[16];
static uint32_t nb_cred_uid;
static pthread_t caller;

static void got_cred(pmix_status_t st, pmix_byte_object_t *cred, pmix_info_t info[], size_t ninfo,
		     void *cbdata)
{
	(void)cbdata;
	nb_cred_st = st;
	snprintf(nb_cred_bytes, sizeof(nb_cred_bytes), "%.*s", cred ? (int)cred->size : 0,
		 cred ? cred->bytes : "");
	if (ninfo == 1 && info[0].value.type == PMIX_STRING)
		snprintf(nb_cred_type, sizeof(nb_cred_type), "%s", info[0].value.data.string);
	nb_cred = pthread_equal(caller, pthread_self()) ? 1 : 2;
}

static void validated(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *cbdata)
{
	(void)cbdata;
	nb_cred_st = st;
	nb_cred_uid = ninfo && info[0].value.type == PMIX_UINT32 ? info[0].value.data.uint32 : 0;
	nb_cred = pthread_equal(caller, pthread_self()) ? 1 : 2;
}

static uint32_t res_id(const pmix_info_t *res, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (PMIx_Check_key(res[i].key, key) && res[i].value.type == PMIX_UINT32)
			return res[i].value.data.uint32;
	return UINT32_MAX;
}

/* PMIx_Get_credential / PMIx_Validate_credential through the server to
 * h_getcred / h_valcred: the credential names this process's uid and gid
 * whatever it claims, bad parameters, the host's refusals, a timeout. */
static int c_cred(void)
{
	pmix_byte_object_t cred, forged = { .bytes = "forged", .size = 6 };
	pmix_info_t dirs[2], *res = (pmix_info_t *)1;
	size_t nres = 99;
	char want[64];
	double t0;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	caller = pthread_self();
	snprintf(want, sizeof(want), TC_CRED_FMT, (unsigned)getuid(), (unsigned)getgid());
	CKS(PMIx_Get_credential(NULL, 0, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Get_credential(NULL, 1, &cred), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Get_credential_nb(NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Validate_credential(NULL, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM);
	CK(res == NULL && nres == 0);
	CKS(PMIx_Validate_credential(&forged, NULL, 0, &res, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Validate_credential(&forged, NULL, 0, NULL, &nres), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Validate_credential_nb(NULL, NULL, 0, validated, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Validate_credential_nb(&forged, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
	/* blocking: claiming to be root changes nothing */
	info_u32(&dirs[0], PMIX_USERID, 0);
	info_u32(&dirs[1], PMIX_GRPID, 0);
	CKS(PMIx_Get_credential(dirs, 2, &cred), PMIX_SUCCESS);
	CK(cred.size == strlen(want) && memcmp(cred.bytes, want, cred.size) == 0);
	CKS(PMIx_Validate_credential(&cred, dirs, 2, &res, &nres), PMIX_SUCCESS);
	CK(nres == 2 && res_id(res, nres, PMIX_USERID) == getuid() &&
	   res_id(res, nres, PMIX_GRPID) == getgid());
	PMIx_Info_free(res, nres);
	CKS(PMIx_Validate_credential(&cred, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	CKS(PMIx_Validate_credential(&forged, NULL, 0, &res, &nres), PMIX_ERR_INVALID_CRED);
	CK(res == NULL && nres == 0);
	/* non-blocking, called back from the progress thread */
	CKS(PMIx_Get_credential_nb(dirs, 2, got_cred, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_cred, 1, 5) && nb_cred == 2);
	CKS(nb_cred_st, PMIX_SUCCESS);
	CK(strcmp(nb_cred_bytes, want) == 0 && strcmp(nb_cred_type, "tc") == 0);
	nb_cred = 0;
	CKS(PMIx_Validate_credential_nb(&cred, NULL, 0, validated, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_cred, 1, 5) && nb_cred == 2);
	CKS(nb_cred_st, PMIX_SUCCESS);
	CK(nb_cred_uid == getuid());
	nb_cred = 0;
	CKS(PMIx_Validate_credential_nb(&forged, NULL, 0, validated, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_cred, 1, 5));
	CKS(nb_cred_st, PMIX_ERR_INVALID_CRED);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	PMIX_INFO_DESTRUCT(&dirs[1]);
	PMIx_Byte_object_destruct(&cred);
	/* the host refuses at once */
	info_bool(&dirs[0], "tc.fail", true);
	CKS(PMIx_Get_credential(dirs, 1, &cred), PMIX_ERR_NO_PERMISSIONS);
	CK(cred.bytes == NULL && cred.size == 0);
	nb_cred = 0;
	CKS(PMIx_Get_credential_nb(dirs, 1, got_cred, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_cred, 1, 5));
	CKS(nb_cred_st, PMIX_ERR_NO_PERMISSIONS);
	CK(nb_cred_bytes[0] == '\0');
	CKS(PMIx_Validate_credential(&forged, dirs, 1, &res, &nres), PMIX_ERR_NO_PERMISSIONS);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	/* the host never answers: PMIX_TIMEOUT ends the wait */
	info_bool(&dirs[0], "tc.hold", true);
	info_int(&dirs[1], PMIX_TIMEOUT, 1);
	t0 = now_s();
	CKS(PMIx_Get_credential(dirs, 2, &cred), PMIX_ERR_TIMEOUT);
	CK(now_s() - t0 < 4);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	PMIX_INFO_DESTRUCT(&dirs[1]);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Get_credential(NULL, 0, &cred), PMIX_ERR_INIT);
	return 0;
}

static volatile int nb_alloc;
static pmix_status_t nb_alloc_st;
static char nb_alloc_id[32];

static void allocated(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *cbdata,
		      pmix_release_cbfunc_t rel, void *relcbdata)
{
	(void)cbdata;
	nb_alloc_st = st;
	nb_alloc_id[0] = '\0';
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_ALLOC_ID) && info[i].value.type == PMIX_STRING)
			snprintf(nb_alloc_id, sizeof(nb_alloc_id), "%s", info[i].value.data.string);
	if (rel)
		rel(relcbdata);
	nb_alloc = pthread_equal(caller, pthread_self()) ? 1 : 2;
}

static const char *res_str(const pmix_info_t *res, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (PMIx_Check_key(res[i].key, key) && res[i].value.type == PMIX_STRING)
			return res[i].value.data.string;
	return "";
}

/* PMIx_Allocation_request(_nb) through the server to h_alloc: the host
 * is told this process's uid whatever it claims and its results come
 * back; bad parameters, the host's refusals, a timeout. */
static int c_alloc(void)
{
	pmix_info_t dirs[2], *res = (pmix_info_t *)1;
	size_t nres = 99;
	char want[32];
	double t0;

	CKS(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	caller = pthread_self();
	snprintf(want, sizeof(want), "tc-%u", (unsigned)getuid());
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 1, &res, &nres), PMIX_ERR_BAD_PARAM);
	CK(res == NULL && nres == 0);
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, &res, NULL), PMIX_ERR_BAD_PARAM);
	CKS(PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, NULL, 1, allocated, NULL),
	    PMIX_ERR_BAD_PARAM);
	/* blocking: claiming to be root changes nothing */
	info_u32(&dirs[0], PMIX_USERID, 0);
	info_str(&dirs[1], PMIX_ALLOC_REQ_ID, "mine");
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, dirs, 2, &res, &nres), PMIX_SUCCESS);
	CK(nres == 2 && strcmp(res_str(res, nres, PMIX_ALLOC_ID), want) == 0 &&
	   strcmp(res_str(res, nres, PMIX_ALLOC_REQ_ID), "mine") == 0);
	PMIx_Info_free(res, nres);
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	CKS(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, dirs, 2, &res, &nres),
	    PMIX_ERR_NO_PERMISSIONS);
	CK(res == NULL && nres == 0);
	/* non-blocking, called back from the progress thread */
	CKS(PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, dirs, 2, allocated, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_alloc, 1, 5) && nb_alloc == 2);
	CKS(nb_alloc_st, PMIX_SUCCESS);
	CK(strcmp(nb_alloc_id, want) == 0);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	PMIX_INFO_DESTRUCT(&dirs[1]);
	/* the host refuses at once */
	info_bool(&dirs[0], "tc.fail", true);
	CKS(PMIx_Allocation_request(PMIX_ALLOC_RELEASE, dirs, 1, &res, &nres),
	    PMIX_ERR_NO_PERMISSIONS);
	nb_alloc = 0;
	CKS(PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, dirs, 1, allocated, NULL), PMIX_SUCCESS);
	CK(wait_flag(&nb_alloc, 1, 5));
	CKS(nb_alloc_st, PMIX_ERR_NO_PERMISSIONS);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	/* the host never answers: PMIX_TIMEOUT ends the wait */
	info_bool(&dirs[0], "tc.hold", true);
	info_int(&dirs[1], PMIX_TIMEOUT, 1);
	t0 = now_s();
	CKS(PMIx_Allocation_request(PMIX_ALLOC_RELEASE, dirs, 2, &res, &nres), PMIX_ERR_TIMEOUT);
	CK(now_s() - t0 < 4);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	/* a NEW one's PMIX_TIMEOUT is its grant's: not the wait for the id */
	info_bool(&dirs[0], "tc.late", true);
	t0 = now_s();
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, dirs, 2, &res, &nres), PMIX_SUCCESS);
	CK(nres == 1 && strcmp(res_str(res, nres, PMIX_ALLOC_ID), want) == 0 &&
	   now_s() - t0 >= 1.4);
	PMIx_Info_free(res, nres);
	PMIX_INFO_DESTRUCT(&dirs[0]);
	PMIX_INFO_DESTRUCT(&dirs[1]);
	CKS(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
	CKS(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, NULL, NULL), PMIX_ERR_INIT);
	return 0;
}

static int run_scenario(const char *name)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} t[] = {
		{ "initfin", c_initfin },   { "putget", c_putget },   { "fence", c_fence },
		{ "twons", c_twons },       { "getsem", c_getsem },   { "events", c_events },
		{ "affected", c_affected }, { "death", c_death },     { "pubsub", c_pubsub },
		{ "resolve", c_resolve },   { "tool", c_tool },       { "finhdl", c_finhdl },
		{ "cnx", c_cnx },           { "threads", c_threads }, { "evorder", c_evorder },
		{ "evlate", c_evlate },     { "evsync", c_evsync },   { "iof", c_iof },
		{ "push", c_push },         { "cred", c_cred },       { "alloc", c_alloc },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].fn();
	return 2;
}

/* ================================================================ tests */

START_TEST(init_finalize)
{
	pmix_proc_t wild;
	pmix_value_t *v;
	pmix_query_t q;
	pmix_info_t *res;
	size_t nres;

	server_start(false);
	ck_assert_int_eq(run_job("nsI", 3, "initfin", 20), 0);
	/* inside the server process, the client API dispatches to the server */
	PMIX_LOAD_PROCID(&wild, "nsI", PMIX_RANK_WILDCARD);
	ck_assert_int_eq(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS);
	ck_assert_uint_eq(v->data.uint32, 3);
	PMIX_VALUE_RELEASE(v);
	ck_assert_int_eq(PMIx_Init(NULL, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
	PMIX_QUERY_CONSTRUCT(&q);
	PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
	ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
	ck_assert_ptr_nonnull(strstr(res[0].value.data.string, "nsI"));
	PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_DESTRUCT(&q);
	server_stop();
}
END_TEST

START_TEST(put_commit_get)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsP", 3, "putget", 20), 0);
	server_stop();
}
END_TEST

START_TEST(fences)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsF", 3, "fence", 20), 0);
	server_stop();
}
END_TEST

START_TEST(threads_and_order)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsT", 3, "threads", 30), 0);
	server_stop();
}
END_TEST

START_TEST(two_namespaces)
{
	pid_t pids[4];

	server_start(false);
	register_ns("nsA", 2);
	register_ns("nsB", 2);
	pids[0] = start_client("nsA", 0, "twons");
	pids[1] = start_client("nsA", 1, "twons");
	pids[2] = start_client("nsB", 0, "twons");
	pids[3] = start_client("nsB", 1, "twons");
	ck_assert_int_eq(wait_clients(pids, 4, 20), 0);
	server_stop();
}
END_TEST

START_TEST(connect_attributes)
{
	pid_t pids[4];

	server_start(false);
	register_ns("nsA", 2);
	register_ns("nsB", 2);
	pids[0] = start_client("nsA", 0, "cnx");
	pids[1] = start_client("nsA", 1, "cnx");
	pids[2] = start_client("nsB", 0, "cnx");
	pids[3] = start_client("nsB", 1, "cnx");
	ck_assert_int_eq(wait_clients(pids, 4, 40), 0);
	server_stop();
}
END_TEST

START_TEST(get_semantics)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsG", 2, "getsem", 20), 0);
	server_stop();
}
END_TEST

static volatile int srv_hdl_seen;

static void srv_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == EV_SERVER_CODE)
		srv_hdl_seen++;
	cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

START_TEST(events)
{
	pmix_status_t code = EV_SERVER_CODE;

	server_start(false);
	host.notify_on_fence = true;
	/* the server process's own handler sees the events it raises */
	ck_assert_int_gt(PMIx_Register_event_handler(&code, 1, NULL, 0, srv_hdl, NULL, NULL), 0);
	ck_assert_int_eq(run_job("nsE", 2, "events", 20), 0);
	ck_assert_int_ge(srv_hdl_seen, 1);
	server_stop();
}
END_TEST

START_TEST(event_order)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsO", 2, "evorder", 20), 0);
	server_stop();
}
END_TEST

START_TEST(event_late_registrant)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsL", 2, "evlate", 20), 0);
	server_stop();
}
END_TEST

/* The host side of c_iof: what rank 1 "wrote". */
static void *iof_feeder(void *arg)
{
	const char *ns = arg;
	pmix_proc_t one;
	pmix_byte_object_t bo;
	pmix_info_t done;
	bool yes = true;
	char line[32];

	PMIx_Load_procid(&one, ns, 1);
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "live %d\n", i);
		bo = (pmix_byte_object_t){ .bytes = line, .size = strlen(line) };
		PMIx_server_IOF_deliver(&one, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL);
		usleep(20000);
	}
	PMIx_Info_load(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	bo = (pmix_byte_object_t){ .bytes = NULL, .size = 0 };
	PMIx_server_IOF_deliver(&one, PMIX_FWD_STDOUT_CHANNEL, &bo, &done, 1, NULL, NULL);
	PMIx_Info_destruct(&done);
	return NULL;
}

START_TEST(iof_pull)
{
	static char ns[] = "nsI";
	char hist[IOF_HISTORY];
	pmix_byte_object_t bo = { .bytes = hist, .size = sizeof(hist) };
	pmix_proc_t one;
	pthread_t th;

	for (int i = 0; i < IOF_HISTORY; i++)
		hist[i] = (char)(i % 251);
	server_start(false);
	PMIx_Load_procid(&one, ns, 1);
	ck_assert_int_eq(PMIx_server_IOF_deliver(&one, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL,
						 NULL),
			 PMIX_SUCCESS);
	ck_assert_int_eq(pthread_create(&th, NULL, iof_feeder, ns), 0);
	ck_assert_int_eq(run_job(ns, 2, "iof", 30), 0);
	pthread_join(th, NULL);
	server_stop();
}
END_TEST

/* PMIx_IOF_push through the server to the host's push_stdin: the bytes
 * in order, the end, and this process's stdin pushed whole. */
START_TEST(iof_push)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsU", 1, "push", 30), 0);
	ck_assert_int_eq(pushed.src_rank, 0);
	ck_assert_int_eq(pushed.target_rank, 1);
	ck_assert_int_eq(pushed.completes, 2);
	ck_assert_int_eq(pushed.nulls, 2); /* the two ends without bytes */
	ck_assert_uint_eq(pushed.n, 10 + PUSH_STDIN_BYTES);
	ck_assert_int_eq(memcmp(pushed.bytes, "hellohello", 10), 0);
	for (size_t i = 0; i < PUSH_STDIN_BYTES; i++)
		if (pushed.bytes[10 + i] != (char)(i % 253))
			ck_abort_msg("stdin byte %zu differs", i);
	free(pushed.bytes);
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/pushed", tmpdir);
		unlink(path);
	}
	server_stop();
}
END_TEST

/* The host's synchronous events (server/evsync.c) with the real client
 * library: no disposition at once, answered once every chain ended (not
 * before the 200 ms handlers), timed out naming rank 1. */
static struct {
	pthread_mutex_t m;
	volatile int ready, done;
	pmix_status_t st;
	size_t nhandled, nun;
	pmix_proc_t un[4];
} sy = { .m = PTHREAD_MUTEX_INITIALIZER };

static void ready_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source,
		      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
		      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
	if (status == EV_READY_CODE)
		__atomic_add_fetch(&sy.ready, 1, __ATOMIC_SEQ_CST);
	cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void sync_done(pmix_status_t st, size_t nhandled, const pmix_proc_t *un, size_t nun,
		      void *cbdata)
{
	(void)cbdata;
	pthread_mutex_lock(&sy.m);
	sy.st = st;
	sy.nhandled = nhandled;
	sy.nun = nun;
	for (size_t i = 0; i < nun && i < 4; i++)
		sy.un[i] = un[i];
	__atomic_add_fetch(&sy.done, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&sy.m);
}

/* Raises code synchronously with timeout_ms and waits for the outcome
 * (the done-th); returns how long it took. */
static long sync_round(pmix_status_t code, int timeout_ms, int done)
{
	long t0 = pxc_now_ms();

	ck_assert_int_eq(pxc_server_notify_sync(code, NULL, PMIX_RANGE_SESSION, NULL, 0, timeout_ms,
						sync_done, NULL),
			 PMIX_SUCCESS);
	for (int i = 0; i < 1000 && sy.done < done; i++)
		usleep(10000);
	ck_assert_int_eq(sy.done, done);
	return pxc_now_ms() - t0;
}

START_TEST(event_sync)
{
	pmix_status_t ready = EV_READY_CODE;
	pid_t pids[2];
	long ms;

	server_start(false);
	ck_assert_int_gt(PMIx_Register_event_handler(&ready, 1, NULL, 0, ready_hdl, NULL, NULL), 0);
	register_ns("nsY", 2);
	for (uint32_t r = 0; r < 2; r++)
		pids[r] = start_client("nsY", r, "evsync");
	for (int i = 0; i < 1000 && sy.ready < 2; i++)
		usleep(10000);
	ck_assert_int_eq(sy.ready, 2);
	ms = sync_round(EV_NOBODY_CODE, 5000, 1);
	ck_assert_int_eq(sy.st, PMIX_ERR_NOT_FOUND); /* no disposition */
	ck_assert_int_lt(ms, 1000);
	ms = sync_round(EV_SYNC_CODE, 5000, 2);
	ck_assert_int_eq(sy.st, PMIX_SUCCESS);
	ck_assert_uint_eq(sy.nhandled, 2);
	ck_assert_uint_eq(sy.nun, 0);
	ck_assert_int_ge(ms, 190); /* after the handlers, not before */
	ms = sync_round(EV_SYNC_CODE, 500, 3);
	ck_assert_int_eq(sy.st, PMIX_ERR_TIMEOUT);
	ck_assert_uint_eq(sy.nhandled, 1);
	ck_assert_uint_eq(sy.nun, 1);
	ck_assert_uint_eq(sy.un[0].rank, 1);
	ck_assert_int_ge(ms, 450);
	ck_assert_int_eq(wait_clients(pids, 2, 20), 0);
	server_stop();
}
END_TEST

START_TEST(affected_filter)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsA", 1, "affected", 20), 0);
	server_stop();
}
END_TEST

START_TEST(finalize_in_handler)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsH", 2, "finhdl", 20), 0);
	server_stop();
}
END_TEST

START_TEST(pubsub)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsU", 2, "pubsub", 20), 0);
	server_stop();
}
END_TEST

START_TEST(credentials)
{
	pmix_byte_object_t bo = { .bytes = "x", .size = 1 };
	pmix_info_t *res;
	size_t nres;

	server_start(false);
	ck_assert_int_eq(run_job("nsK", 2, "cred", 20), 0);
	ck_assert_int_eq(run_job("nsA", 1, "alloc", 20), 0);
	/* a server process has no server to ask */
	ck_assert_int_eq(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, NULL, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	/* a server process has no server to ask */
	ck_assert_int_eq(PMIx_Get_credential(NULL, 0, &bo), PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(PMIx_Validate_credential(&bo, NULL, 0, &res, &nres),
			 PMIX_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(PMIx_Validate_credential_nb(&bo, NULL, 0, validated, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	server_stop();
}
END_TEST

START_TEST(resolve)
{
	server_start(false);
	ck_assert_int_eq(run_job("nsR", 3, "resolve", 20), 0);
	server_stop();
}
END_TEST

START_TEST(tool_connect_query)
{
	pid_t pid;

	server_start(true);
	register_ns("nsT", 1);
	{
		char **env = env_copy();
		char kv[512];

		snprintf(kv, sizeof(kv), "TEST_SERVER_PID=%d", (int)getpid());
		env_add(&env, kv);
		snprintf(kv, sizeof(kv), "TEST_TMPDIR=%s", tmpdir);
		env_add(&env, kv);
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "test_client", "child", "tool", NULL };

			execve(self_exe, argv, env);
			_exit(127);
		}
		for (char **e = env; *e; e++)
			free(*e);
		free(env);
	}
	ck_assert_int_eq(wait_clients(&pid, 1, 20), 0);
	server_stop();
}
END_TEST

START_TEST(server_dies_mid_fence)
{
	pid_t srv, pids[2] = { -1, -1 };

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	srv = fork();
	if (srv == 0) {
		host.die_in_fence = true;
		server_start(false);
		register_ns("nsD", 2);
		start_client("nsD", 0, "death");
		start_client("nsD", 1, "death");
		pause();
		_exit(0);
	}
	/* the server is killed (SIGKILL) in its fence: one failure; the two
	 * orphaned clients must each report a clean error */
	ck_assert_int_eq(wait_clients(pids, 3, 20), 1);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/slurmix-tc.%d", (int)srv);
	rm_tree(tmpdir);
}
END_TEST

/* ---- without a server ---- */

START_TEST(singleton)
{
	pmix_proc_t p, wild;
	pmix_value_t *v;

	unsetenv("PMIX_NAMESPACE");
	ck_assert_int_eq(PMIx_Init(&p, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_eq(strncmp(p.nspace, "singleton.", 10), 0);
	ck_assert_uint_eq(p.rank, 0);
	PMIX_LOAD_PROCID(&wild, p.nspace, PMIX_RANK_WILDCARD);
	ck_assert_int_eq(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_SUCCESS);
	ck_assert_uint_eq(v->data.uint32, 1);
	PMIX_VALUE_RELEASE(v);
	ck_assert_int_eq(PMIx_Get(&p, "not.there", NULL, 0, &v), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Commit(), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Publish(&(pmix_info_t){ .key = "x" }, 1), PMIX_ERR_UNREACH);
	ck_assert_int_eq(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
}
END_TEST

START_TEST(local_only_calls)
{
	pmix_locality_t loc;
	pmix_cpuset_t cs = { 0 };
	pmix_query_t q;
	pmix_info_t *res;
	size_t nres;

	ck_assert_int_eq(PMIx_Get_relative_locality("NM0:SK0:L30-3:L20:L10:CR0:HT0",
						    "NM0:SK0:L30-3:L21:L11:CR1:HT1", &loc),
			 PMIX_SUCCESS);
	ck_assert_uint_eq(loc, PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA |
				       PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE);
	ck_assert_int_eq(PMIx_Get_relative_locality(NULL, "NM0", &loc), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(PMIx_Parse_cpuset_string("hwloc:0-3,8", &cs), PMIX_SUCCESS);
	ck_assert_str_eq(cs.source, "hwloc");
	PMIx_Cpuset_destruct(&cs);
	ck_assert_int_eq(PMIx_Parse_cpuset_string("other:0-3", &cs), PMIX_ERR_NOT_SUPPORTED);
	{
		pmix_topology_t topo = { 0 };

		ck_assert_int_eq(PMIx_Load_topology(&topo), PMIX_SUCCESS);
		ck_assert_str_eq(topo.source, "hwloc");
		ck_assert_ptr_nonnull(topo.topology);
		PMIx_Topology_destruct(&topo);
		ck_assert_int_eq(PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS), PMIX_SUCCESS);
		ck_assert_ptr_nonnull(cs.bitmap);
		PMIx_Cpuset_destruct(&cs);
		ck_assert_int_eq(PMIx_Get_cpuset(&cs, 7), PMIX_ERR_BAD_PARAM);
	}
	ck_assert_int_eq(PMIx_Parse_cpuset_string("hwloc:zz", &cs), PMIX_ERR_BAD_PARAM);
	/* the ABI version query works before init */
	PMIX_QUERY_CONSTRUCT(&q);
	PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_STABLE_ABI_VERSION);
	ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
	ck_assert_uint_eq(nres, 1);
	ck_assert_str_eq(res[0].value.data.string, "0.0");
	PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_DESTRUCT(&q);
	ck_assert_int_eq(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_INIT);
	ck_assert_int_eq(PMIx_Get(NULL, "x", NULL, 0, &(pmix_value_t *){ NULL }), PMIX_ERR_INIT);
	ck_assert_int_eq(PMIx_Put(PMIX_GLOBAL, "x", &(pmix_value_t){ .type = PMIX_BOOL }),
			 PMIX_ERR_INIT);
	{
		pmix_byte_object_t bo = { NULL, 0 };
		pmix_info_t *res;
		size_t nres;

		ck_assert_int_eq(PMIx_Get_credential(NULL, 0, &bo), PMIX_ERR_INIT);
		ck_assert_int_eq(PMIx_Validate_credential(&bo, NULL, 0, &res, &nres),
				 PMIX_ERR_INIT);
	}
}
END_TEST

/* A fake server: accepts one connection, reads the HELLO header, answers
 * with `reply` bytes (or closes), then closes. */
struct fake {
	int lfd;
	const char *reply;
	size_t len;
};

static void *fake_server(void *arg)
{
	struct fake *f = arg;
	char buf[4096];
	int fd = accept(f->lfd, NULL, NULL);

	if (fd >= 0) {
		(void)!read(fd, buf, sizeof(buf));
		if (f->len)
			(void)!write(fd, f->reply, f->len);
		close(fd);
	}
	return NULL;
}

/* A listening Unix socket for a fake server at /tmp/<name>.<pid> (path in
 * sa), named to the client library as its server (fake:0). Returns the fd. */
static int fake_listen(const char *name, struct sockaddr_un *sa)
{
	char uri[200];
	int lfd;

	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "/tmp/%s.%d", name, (int)getpid());
	unlink(sa->sun_path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)sa, sizeof(*sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	snprintf(uri, sizeof(uri), "unix:%s", sa->sun_path);
	setenv("PMIX_NAMESPACE", "fake", 1);
	setenv("PMIX_RANK", "0", 1);
	setenv("SLURMIX_PMIX_SERVER_URI", uri, 1);
	return lfd;
}

static pmix_status_t init_against_fake(const char *reply, size_t len)
{
	struct sockaddr_un sa;
	struct fake f = { .reply = reply, .len = len };
	pthread_t t;
	pmix_status_t st;
	pmix_proc_t p;

	f.lfd = fake_listen("slurmix-fake", &sa);
	pthread_create(&t, NULL, fake_server, &f);
	st = PMIx_Init(&p, NULL, 0);
	pthread_join(t, NULL);
	close(f.lfd);
	unlink(sa.sun_path);
	return st;
}

START_TEST(broken_server)
{
	static const char garbage[] = "this is not a slurmix frame header!!";
	static const unsigned char huge[16] = { 0x53, 0x4c, 0x4d, 0x58, 0xff, 0xff, 0xff, 0xff,
						0,    0,    0,    1,    0,    1,    0,    1 };
	double t0 = now_s();

	ck_assert_int_ne(init_against_fake(NULL, 0), PMIX_SUCCESS);
	ck_assert_int_ne(init_against_fake(garbage, sizeof(garbage)), PMIX_SUCCESS);
	ck_assert_int_ne(init_against_fake((const char *)huge, sizeof(huge)), PMIX_SUCCESS);
	ck_assert(now_s() - t0 < 5);
	ck_assert(!PMIx_Initialized());
	/* no server listening at all */
	setenv("SLURMIX_PMIX_SERVER_URI", "unix:/nonexistent/sock", 1);
	ck_assert_int_eq(PMIx_Init(NULL, NULL, 0), PMIX_ERR_UNREACH);
	setenv("SLURMIX_PMIX_SERVER_URI", "tcp://1.2.3.4:5", 1);
	ck_assert_int_ne(PMIx_Init(NULL, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_eq(count_threads_settled(1), 1);
}
END_TEST

/* ---- broken CONNECT results (helper "robust"; one block) ----
 * A fake server that completes HELLO (and the reply channel's HELLO)
 * properly, then answers each CONNECT with the next canned reply, and
 * every other request with a bare success. After the last canned reply it
 * closes everything at the next CONNECT. */
#include <arpa/inet.h>
#include "runner.h"

#define PXC_TEST_CMD_CONNECT 11 /* wire/proto.h */

struct fake_cnct {
	int lfd;
	pmix_data_buffer_t *replies;
	size_t n;
};

static int fd_io(int fd, void *buf, size_t len, int rd)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = rd ? POLLIN : POLLOUT };
		ssize_t k;

		if (poll(&pfd, 1, 10000) != 1)
			return -1;
		k = rd ? read(fd, p, len) : write(fd, p, len);
		if (k <= 0)
			return -1;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Reads one frame with its payload (freed by the caller). */
static int fake_read_body(int fd, uint16_t *cmd, uint32_t *tag, pmix_data_buffer_t *body)
{
	unsigned char h[16];
	uint32_t len;
	char *p = NULL;

	if (fd_io(fd, h, sizeof(h), 1) < 0)
		return -1;
	len = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	*tag = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
	*cmd = (uint16_t)(h[12] << 8 | h[13]);
	if (len > (1u << 20) || !(p = malloc(len + 1)) || (len && fd_io(fd, p, len, 1) < 0)) {
		free(p);
		return -1;
	}
	PMIX_DATA_BUFFER_CONSTRUCT(body);
	PMIx_Data_load(body, &(pmix_byte_object_t){ .bytes = p, .size = len });
	return 0;
}

/* Reads one frame: cmd and tag; the payload is discarded. */
static int fake_read(int fd, uint16_t *cmd, uint32_t *tag)
{
	pmix_data_buffer_t body;

	if (fake_read_body(fd, cmd, tag, &body) < 0)
		return -1;
	PMIX_DATA_BUFFER_DESTRUCT(&body);
	return 0;
}

/* A frame with the given flags. */
static int fake_write_flags(int fd, uint16_t cmd, uint32_t tag, uint16_t flags,
			    const pmix_data_buffer_t *pl)
{
	unsigned char h[16];
	uint32_t w[3] = { htonl(0x534c4d58u), htonl((uint32_t)pl->bytes_used), htonl(tag) };
	uint16_t s[2] = { htons(cmd), htons(flags) };

	memcpy(h, w, 12);
	memcpy(h + 12, s, 4);
	return fd_io(fd, h, 16, 0) < 0 ? -1 : fd_io(fd, pl->base_ptr, pl->bytes_used, 0);
}

/* A reply frame. */
static int fake_write(int fd, uint16_t cmd, uint32_t tag, const pmix_data_buffer_t *pl)
{
	return fake_write_flags(fd, cmd, tag, 1, pl);
}

static void pk(pmix_data_buffer_t *b, void *v, pmix_data_type_t t)
{
	ck_assert_int_eq(PMIx_Data_pack(NULL, b, v, 1, t), PMIX_SUCCESS);
}

/* STATUS st (and, for a HELLO, the two procs and an empty blob). */
static void pk_status(pmix_data_buffer_t *b, pmix_status_t st, int hello)
{
	pmix_proc_t me, srv;
	pmix_byte_object_t bo = { NULL, 0 };

	PMIX_DATA_BUFFER_CONSTRUCT(b);
	pk(b, &st, PMIX_STATUS);
	if (!hello)
		return;
	PMIx_Load_procid(&me, "fake", 0);
	PMIx_Load_procid(&srv, "fakesrv", 0);
	pk(b, &me, PMIX_PROC);
	pk(b, &srv, PMIX_PROC);
	pk(b, &bo, PMIX_BYTE_OBJECT);
}

static int fake_accept_hello(int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	pmix_data_buffer_t b;
	uint16_t cmd;
	uint32_t tag;
	int fd;

	if (poll(&pfd, 1, 10000) != 1 || (fd = accept(lfd, NULL, NULL)) < 0)
		return -1;
	pk_status(&b, PMIX_SUCCESS, 1);
	if (fake_read(fd, &cmd, &tag) < 0 || cmd != 1 || fake_write(fd, 1, tag, &b) < 0) {
		close(fd);
		fd = -1;
	}
	PMIX_DATA_BUFFER_DESTRUCT(&b);
	return fd;
}

static void *fake_cnct_server(void *arg)
{
	struct fake_cnct *f = arg;
	int c1 = fake_accept_hello(f->lfd), c2 = c1 < 0 ? -1 : fake_accept_hello(f->lfd);
	size_t next = 0;
	uint16_t cmd;
	uint32_t tag;

	while (c1 >= 0 && fake_read(c1, &cmd, &tag) == 0) {
		pmix_data_buffer_t ok, *r = &ok;
		int fd = (tag & 0x80000000u) && c2 >= 0 ? c2 : c1;

		if (cmd == PXC_TEST_CMD_CONNECT && next == f->n)
			break; /* out of script: the server goes away */
		pk_status(&ok, PMIX_SUCCESS, 0);
		if (cmd == PXC_TEST_CMD_CONNECT)
			r = &f->replies[next++];
		if (tag)
			fake_write(fd, cmd, tag, r);
		PMIX_DATA_BUFFER_DESTRUCT(&ok);
	}
	if (c2 >= 0)
		close(c2);
	if (c1 >= 0)
		close(c1);
	return NULL;
}

/* Canned CONNECT replies: STATUS 0, then `tail` built by the caller. */
enum {
	CN_GARBAGE,
	CN_NO_BLOB,
	CN_BAD_BLOB,
	CN_COUNT_ONLY,
	CN_CUT_INFO,
	CN_BAD_TYPE,
	CN_NB_GARBAGE,
	CN_GOOD,
	CN_N
};

static void build_cnct_replies(pmix_data_buffer_t *r)
{
	static const char junk[] = "\xde\xad\xbe\xef not packed at all \xff\xff\xff\xff";
	pmix_byte_object_t empty = { NULL, 0 }, bad = { (char *)junk, sizeof(junk) };
	pmix_info_t info;
	size_t one = 1, many = 1000;
	uint32_t v = 42;
	pmix_data_buffer_t whole;
	uint16_t bogus_type = htons(0x7777);
	size_t off;

	for (int i = 0; i < CN_N; i++) {
		pk_status(&r[i], PMIX_SUCCESS, 0);
		if (i != CN_NO_BLOB)
			pk(&r[i], i == CN_BAD_BLOB ? &bad : &empty, PMIX_BYTE_OBJECT);
	}
	/* raw bytes where INFO[] belongs */
	PMIx_Data_copy_payload(&r[CN_GARBAGE], &(pmix_data_buffer_t){ .base_ptr = (char *)junk,
								      .unpack_ptr = (char *)junk,
								      .bytes_used = sizeof(junk) });
	PMIx_Data_copy_payload(&r[CN_NB_GARBAGE],
			       &(pmix_data_buffer_t){ .base_ptr = (char *)junk,
						      .unpack_ptr = (char *)junk,
						      .bytes_used = sizeof(junk) });
	pk(&r[CN_COUNT_ONLY], &many, PMIX_SIZE); /* 1000 infos, none there */
	/* a good INFO[1] cut short by 3 bytes */
	PMIx_Info_load(&info, "fake.result", &v, PMIX_UINT32);
	PMIX_DATA_BUFFER_CONSTRUCT(&whole);
	pk(&whole, &one, PMIX_SIZE);
	pk(&whole, &info, PMIX_INFO);
	pk(&r[CN_GOOD], &one, PMIX_SIZE);
	pk(&r[CN_GOOD], &info, PMIX_INFO);
	whole.bytes_used -= 3;
	PMIx_Data_copy_payload(&r[CN_CUT_INFO], &whole);
	whole.bytes_used += 3;
	/* the same INFO[1] with the INFO item's type (after the SIZE item:
	 * 2 + 4 + 8 bytes) replaced by an unknown one */
	off = r[CN_BAD_TYPE].bytes_used;
	PMIx_Data_copy_payload(&r[CN_BAD_TYPE], &whole);
	memcpy(r[CN_BAD_TYPE].base_ptr + off + 14, &bogus_type, 2);
	PMIX_DATA_BUFFER_DESTRUCT(&whole);
	PMIx_Info_destruct(&info);
}

static void cnct_cb(pmix_status_t st, void *cbdata)
{
	*(volatile pmix_status_t *)cbdata = st;
}

START_TEST(broken_connect_results)
{
	struct sockaddr_un sa;
	pmix_data_buffer_t replies[CN_N];
	struct fake_cnct f = { .replies = replies, .n = CN_N };
	volatile pmix_status_t nb = 1;
	pmix_proc_t me, other;
	pmix_value_t *v = NULL;
	pthread_t t;
	double t0;

	build_cnct_replies(replies);
	f.lfd = fake_listen("slurmix-fakec", &sa);
	pthread_create(&t, NULL, fake_cnct_server, &f);
	ck_assert_int_eq(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIx_Load_procid(&other, "other", PMIX_RANK_WILDCARD);
	t0 = now_s();
	/* every broken reply: an error, and the client carries on */
	for (int i = CN_GARBAGE; i <= CN_BAD_TYPE; i++) {
		pmix_status_t st = PMIx_Connect(&other, 1, NULL, 0);

		ck_assert_msg(st != PMIX_SUCCESS && st < 0, "broken reply %d gave %d", i, st);
	}
	ck_assert_int_eq(PMIx_Connect_nb(&other, 1, NULL, 0, cnct_cb, (void *)&nb), PMIX_SUCCESS);
	while (nb == 1 && now_s() - t0 < 10)
		usleep(1000);
	ck_assert_int_lt(nb, 0);
	/* a good reply after all that works, and its result is stored */
	ck_assert_int_eq(PMIx_Connect(&other, 1, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Get(&me, "fake.result", NULL, 0, &v), PMIX_SUCCESS);
	ck_assert_uint_eq(v->data.uint32, 42);
	PMIX_VALUE_RELEASE(v);
	/* the server goes away at the next CONNECT: a clean error */
	ck_assert_int_lt(PMIx_Connect(&other, 1, NULL, 0), 0);
	ck_assert(now_s() - t0 < 10);
	pthread_join(t, NULL);
	ck_assert_int_lt(PMIx_Connect(&other, 1, NULL, 0), 0);
	PMIx_Finalize(NULL, 0);
	ck_assert(now_s() - t0 < 15);
	close(f.lfd);
	unlink(sa.sun_path);
	for (int i = 0; i < CN_N; i++)
		PMIX_DATA_BUFFER_DESTRUCT(&replies[i]);
}
END_TEST
/* ---- end of broken CONNECT results ---- */

/* ---- a reply channel that breaks ----
 * The server answers the first blocking call with garbage on the reply
 * channel: that call fails, and the next ones go the plain way (their
 * tags without PXC_TAG_REPLY_CHANNEL, replies on the first connection)
 * and succeed. */
struct fake_rb {
	int lfd;
	int plain_tags; /* requests after the break without the bit */
	int after;      /* requests after the break */
};

static void *fake_rbreak_server(void *arg)
{
	struct fake_rb *f = arg;
	int c1 = fake_accept_hello(f->lfd), c2 = c1 < 0 ? -1 : fake_accept_hello(f->lfd);
	int broke = 0;
	uint16_t cmd;
	uint32_t tag;

	while (c1 >= 0 && c2 >= 0 && fake_read(c1, &cmd, &tag) == 0) {
		pmix_data_buffer_t ok;

		if (!broke && (tag & 0x80000000u)) {
			broke = fd_io(c2, "NOT-A-FRAME-AT-ALL", 18, 0) == 0;
			continue;
		}
		f->after++;
		f->plain_tags += tag && !(tag & 0x80000000u);
		pk_status(&ok, PMIX_SUCCESS, 0);
		if (tag)
			fake_write(c1, cmd, tag, &ok);
		PMIX_DATA_BUFFER_DESTRUCT(&ok);
	}
	if (c2 >= 0)
		close(c2);
	if (c1 >= 0)
		close(c1);
	return NULL;
}

START_TEST(broken_reply_channel)
{
	struct fake_rb f = { 0 };
	struct sockaddr_un sa;
	pmix_info_t pub;
	pmix_proc_t me;
	pthread_t t;
	double t0 = now_s();

	f.lfd = fake_listen("slurmix-fakerb", &sa);
	pthread_create(&t, NULL, fake_rbreak_server, &f);
	ck_assert_int_eq(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	PMIx_Info_load(&pub, "rb.key", "v", PMIX_STRING);
	ck_assert_int_eq(PMIx_Publish(&pub, 1), PMIX_ERR_LOST_CONNECTION_TO_SERVER);
	ck_assert_int_eq(PMIx_Publish(&pub, 1), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Publish(&pub, 1), PMIX_SUCCESS);
	PMIx_Info_destruct(&pub);
	PMIx_Finalize(NULL, 0);
	pthread_join(t, NULL);
	ck_assert_int_ge(f.after, 2);
	ck_assert_int_eq(f.plain_tags, f.after);
	ck_assert(now_s() - t0 < 10);
	close(f.lfd);
	unlink(sa.sun_path);
}
END_TEST

/* ---- broken events from a server ----
 * After the REGEVENTS reply the fake server sends on the first
 * connection: an EVENT that does not unpack, an EVENT whose sync id is a
 * string, and a synchronous EVENT (sync id 7): the client drops the first,
 * delivers the other two (the handler never sees the id) and answers the
 * third with EVENT_DONE (7, handled). Before them, two IOF frames: one
 * that does not unpack and one for a handler this client never pulled:
 * both dropped, the connection kept (else the events would not come).
 * The first blocking PUBLISH gets an
 * event mark that does not unpack on the reply channel: that call fails,
 * the next one goes the plain way and succeeds. */
#define PXC_TEST_CMD_REGEVENTS 13
#define PXC_TEST_CMD_PUBLISH 7
#define PXC_TEST_CMD_EVENT 15
#define PXC_TEST_CMD_EVENT_DONE 21
#define PXC_TEST_CMD_IOF 23
#define BEV_CODE (PMIX_EXTERNAL_ERR_BASE - 21)

struct fake_bev {
	int lfd;
	volatile int done_id, done_handled, got_done;
};

static volatile int bev_seen, bev_leak;

static void bev_hdl(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		    size_t ninfo, pmix_info_t *results, size_t nresults,
		    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++)
		if (strcmp(info[i].key, "slurmix.ev.sync") == 0)
			bev_leak = 1;
	if (status == BEV_CODE)
		__atomic_add_fetch(&bev_seen, 1, __ATOMIC_SEQ_CST);
	cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* EVENT BEV_CODE from fake:0, range SESSION, with the one info. */
static void pk_event(pmix_data_buffer_t *b, const pmix_info_t *info)
{
	pmix_status_t code = BEV_CODE;
	pmix_data_range_t range = PMIX_RANGE_SESSION;
	pmix_proc_t src;
	size_t one = 1;

	PMIX_DATA_BUFFER_CONSTRUCT(b);
	PMIx_Load_procid(&src, "fakesrv", 0);
	pk(b, &code, PMIX_STATUS);
	pk(b, &src, PMIX_PROC);
	pk(b, &range, PMIX_DATA_RANGE);
	pk(b, &one, PMIX_SIZE);
	ck_assert_int_eq(PMIx_Data_pack(NULL, b, (void *)info, 1, PMIX_INFO), PMIX_SUCCESS);
}

static void fake_bev_events(int c1)
{
	static const char junk[] = "\xde\xad\xbe\xef not an event";
	pmix_data_buffer_t e;
	pmix_info_t info;
	uint32_t id = 7;

	pmix_byte_object_t bo = { .bytes = "out", .size = 3 };
	pmix_proc_t src;
	uint16_t ch = PMIX_FWD_STDOUT_CHANNEL;
	size_t none = 0;

	PMIX_DATA_BUFFER_CONSTRUCT(&e);
	PMIx_Data_copy_payload(&e, &(pmix_data_buffer_t){ .base_ptr = (char *)junk,
							  .unpack_ptr = (char *)junk,
							  .bytes_used = sizeof(junk) });
	fake_write_flags(c1, PXC_TEST_CMD_IOF, 5, 0, &e);
	fake_write_flags(c1, PXC_TEST_CMD_EVENT, 0, 0, &e);
	PMIX_DATA_BUFFER_DESTRUCT(&e);
	PMIX_DATA_BUFFER_CONSTRUCT(&e); /* well formed, for a handler nobody pulled */
	PMIx_Load_procid(&src, "fakesrv", 0);
	pk(&e, &src, PMIX_PROC);
	pk(&e, &ch, PMIX_UINT16);
	pk(&e, &bo, PMIX_BYTE_OBJECT);
	pk(&e, &none, PMIX_SIZE);
	fake_write_flags(c1, PXC_TEST_CMD_IOF, 99, 0, &e);
	PMIX_DATA_BUFFER_DESTRUCT(&e);
	PMIx_Info_load(&info, "slurmix.ev.sync", "seven", PMIX_STRING);
	pk_event(&e, &info);
	fake_write_flags(c1, PXC_TEST_CMD_EVENT, 0, 0, &e);
	PMIX_DATA_BUFFER_DESTRUCT(&e);
	PMIx_Info_destruct(&info);
	PMIx_Info_load(&info, "slurmix.ev.sync", &id, PMIX_UINT32);
	pk_event(&e, &info);
	fake_write_flags(c1, PXC_TEST_CMD_EVENT, 0, 0, &e);
	PMIX_DATA_BUFFER_DESTRUCT(&e);
	PMIx_Info_destruct(&info);
}

static void *fake_bev_server(void *arg)
{
	struct fake_bev *f = arg;
	int c1 = fake_accept_hello(f->lfd), c2 = c1 < 0 ? -1 : fake_accept_hello(f->lfd);
	bool broke = false;
	pmix_data_buffer_t in;
	uint16_t cmd;
	uint32_t tag;

	while (c1 >= 0 && c2 >= 0 && fake_read_body(c1, &cmd, &tag, &in) == 0) {
		pmix_data_buffer_t ok;
		int fd = (tag & 0x80000000u) ? c2 : c1;

		if (cmd == PXC_TEST_CMD_EVENT_DONE) {
			uint32_t id = 0;
			bool handled = false;
			int32_t n = 1;

			if (PMIx_Data_unpack(NULL, &in, &id, &n, PMIX_UINT32) == PMIX_SUCCESS &&
			    PMIx_Data_unpack(NULL, &in, &handled, &n, PMIX_BOOL) == PMIX_SUCCESS) {
				f->done_id = (int)id;
				f->done_handled = handled;
				f->got_done++;
			}
		} else if (cmd == PXC_TEST_CMD_PUBLISH && !broke && fd == c2) {
			pmix_data_buffer_t mark;

			PMIX_DATA_BUFFER_CONSTRUCT(&mark);
			PMIx_Data_copy_payload(&mark, &(pmix_data_buffer_t){ .base_ptr = "xy",
									     .unpack_ptr = "xy",
									     .bytes_used = 2 });
			fake_write_flags(c2, PXC_TEST_CMD_EVENT, tag, 1, &mark);
			PMIX_DATA_BUFFER_DESTRUCT(&mark);
			broke = true;
		} else if (tag) {
			pk_status(&ok, PMIX_SUCCESS, 0);
			fake_write(fd, cmd, tag, &ok);
			PMIX_DATA_BUFFER_DESTRUCT(&ok);
			if (cmd == PXC_TEST_CMD_REGEVENTS)
				fake_bev_events(c1);
		}
		PMIX_DATA_BUFFER_DESTRUCT(&in);
	}
	if (c2 >= 0)
		close(c2);
	if (c1 >= 0)
		close(c1);
	return NULL;
}

START_TEST(broken_events)
{
	struct fake_bev f = { 0 };
	pmix_status_t code = BEV_CODE;
	struct sockaddr_un sa;
	pmix_info_t pub;
	pmix_proc_t me;
	pthread_t t;
	double t0 = now_s();

	f.lfd = fake_listen("slurmix-fakeev", &sa);
	pthread_create(&t, NULL, fake_bev_server, &f);
	ck_assert_int_eq(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_gt(PMIx_Register_event_handler(&code, 1, NULL, 0, bev_hdl, NULL, NULL), 0);
	while ((bev_seen < 2 || !f.got_done) && now_s() - t0 < 10)
		usleep(1000);
	ck_assert_int_eq(bev_seen, 2);
	ck_assert_int_eq(bev_leak, 0);
	ck_assert_int_eq(f.got_done, 1);
	ck_assert_int_eq(f.done_id, 7);
	ck_assert_int_eq(f.done_handled, 1);
	PMIx_Info_load(&pub, "bev.key", "v", PMIX_STRING);
	ck_assert_int_ne(PMIx_Publish(&pub, 1), PMIX_SUCCESS);
	ck_assert_int_eq(PMIx_Publish(&pub, 1), PMIX_SUCCESS);
	PMIx_Info_destruct(&pub);
	PMIx_Finalize(NULL, 0);
	pthread_join(t, NULL);
	ck_assert(now_s() - t0 < 15);
	close(f.lfd);
	unlink(sa.sun_path);
}
END_TEST

static Suite *client_suite(void)
{
	Suite *s = suite_create("client");
	TCase *tc = tcase_create("with-server");
	TCase *tl = tcase_create("local");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, init_finalize);
	tcase_add_test(tc, put_commit_get);
	tcase_add_test(tc, fences);
	tcase_add_test(tc, threads_and_order);
	tcase_add_test(tc, two_namespaces);
	tcase_add_test(tc, connect_attributes);
	tcase_add_test(tc, get_semantics);
	tcase_add_test(tc, events);
	tcase_add_test(tc, affected_filter);
	tcase_add_test(tc, event_order);
	tcase_add_test(tc, event_late_registrant);
	tcase_add_test(tc, iof_pull);
	tcase_add_test(tc, iof_push);
	tcase_add_test(tc, event_sync);
	tcase_add_test(tc, finalize_in_handler);
	tcase_add_test(tc, pubsub);
	tcase_add_test(tc, resolve);
	tcase_add_test(tc, credentials);
	tcase_add_test(tc, tool_connect_query);
	tcase_add_test(tc, server_dies_mid_fence);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tl, 30);
	tcase_add_test(tl, singleton);
	tcase_add_test(tl, local_only_calls);
	tcase_add_test(tl, broken_server);
	tcase_add_test(tl, broken_connect_results);
	tcase_add_test(tl, broken_reply_channel);
	tcase_add_test(tl, broken_events);
	suite_add_tcase(s, tl);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv,
			 &(struct unit_spec){ .suite = client_suite,
					      .fork = CK_FORK,
					      .child = run_scenario,
					      .self_exe = self_exe });
}
