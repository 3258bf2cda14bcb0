/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_spawn.c - PMIx_Spawn, then connect/get/disconnect between the
 * parent job and its children.
 *
 * Parents (started by the launcher): each puts "sp.parent"; rank 0 checks
 * that spawning a missing executable fails and that a required unknown
 * attribute gives PMIX_ERR_NOT_SUPPORTED, that another host (PMIX_HOST)
 * or zero procs fail, then spawns 2 copies of this
 * program ("child" argument, SPAWN_TEST_ENV=yes in the app env) and shares
 * the child namespace with the other parents. Everybody then connects
 * (both namespaces, wildcard ranks), reads the other side's keys and job
 * size, and disconnects. Children also check PMIX_SPAWNED, PMIX_PARENT_ID
 * and the app env. Output: "child R ok" per child, "spawn ok: children=2"
 * from parent rank 0.
 */
#include "pt.h"

#define NCHILD 2

static void put_str(const char *key, const char *val)
{
	pmix_value_t v;

	PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
	PT_RC(PMIx_Put(PMIX_GLOBAL, key, &v));
	PMIX_VALUE_DESTRUCT(&v);
	PT_RC(PMIx_Commit());
}

static void check_str(const char *ns, pmix_rank_t r, const char *key, const char *prefix)
{
	char *s = pt_get_str(ns, r, key);

	if (strncmp(s, prefix, strlen(prefix)))
		PT_FAIL("%s of %s.%u is \"%s\"", key, ns, r, s);
	free(s);
}

static void connect_both(const char *parent_ns, const char *child_ns, int on)
{
	pmix_proc_t procs[2];

	PMIX_LOAD_PROCID(&procs[0], parent_ns, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&procs[1], child_ns, PMIX_RANK_WILDCARD);
	if (on)
		PT_RC(PMIx_Connect(procs, 2, NULL, 0));
	else
		PT_RC(PMIx_Disconnect(procs, 2, NULL, 0));
}

static int child(void)
{
	pmix_value_t *v;
	char parent_ns[PMIX_MAX_NSLEN + 1], msg[64];
	const char *env = getenv("SPAWN_TEST_ENV");

	v = pt_get(pt_me.nspace, pt_me.rank, PMIX_SPAWNED, PMIX_BOOL, NULL, 0);
	if (!v->data.flag)
		PT_FAIL("PMIX_SPAWNED is false in a child");
	PMIX_VALUE_RELEASE(v);
	v = pt_get(pt_me.nspace, pt_me.rank, PMIX_PARENT_ID, PMIX_PROC, NULL, 0);
	snprintf(parent_ns, sizeof(parent_ns), "%s", v->data.proc->nspace);
	PMIX_VALUE_RELEASE(v);
	if (!env || strcmp(env, "yes"))
		PT_FAIL("SPAWN_TEST_ENV is %s", env ? env : "unset");
	snprintf(msg, sizeof(msg), "child-%u", pt_me.rank);
	put_str("sp.child", msg);
	connect_both(parent_ns, pt_me.nspace, 1);
	check_str(parent_ns, 0, "sp.parent", "parent-0");
	if (pt_get_u32(parent_ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) < 1)
		PT_FAIL("parent job size");
	connect_both(parent_ns, pt_me.nspace, 0);
	printf("child %u ok\n", pt_me.rank);
	return 0;
}

enum { GOOD = 0, BAD_ATTR, BAD_HOST, NO_PROCS };

static pmix_status_t spawn(char *cmd, int how, char *out_ns)
{
	pmix_app_t app;
	pmix_info_t info;
	int bad_attr = how == BAD_ATTR || how == BAD_HOST;
	char *argv[] = { cmd, "child", NULL }, *env[] = { "SPAWN_TEST_ENV=yes", NULL };
	pmix_nspace_t ns;
	pmix_status_t rc;

	PMIX_APP_CONSTRUCT(&app);
	app.cmd = cmd;
	app.argv = argv;
	app.env = env;
	app.maxprocs = how == NO_PROCS ? 0 : NCHILD;
	if (how == BAD_HOST)
		PMIX_INFO_LOAD(&info, PMIX_HOST, "no-such-host.invalid", PMIX_STRING);
	else
		PMIX_INFO_LOAD(&info, "slurmix.test.no_such_attr", "x", PMIX_STRING);
	PMIX_INFO_REQUIRED(&info);
	rc = PMIx_Spawn(bad_attr ? &info : NULL, bad_attr ? 1 : 0, &app, 1, ns);
	PMIX_INFO_DESTRUCT(&info);
	if (out_ns && rc == PMIX_SUCCESS)
		snprintf(out_ns, PMIX_MAX_NSLEN + 1, "%s", ns);
	return rc;
}

static void spawn_children(char *self, char *child_ns)
{
	pmix_status_t rc;

	if ((rc = spawn("/nonexistent/slurmix-test-binary", GOOD, NULL)) == PMIX_SUCCESS)
		PT_FAIL("spawning a missing executable succeeded");
	if ((rc = spawn(self, BAD_ATTR, NULL)) != PMIX_ERR_NOT_SUPPORTED)
		PT_FAIL("required unknown attribute: %s", PMIx_Error_string(rc));
	if (spawn(self, BAD_HOST, NULL) == PMIX_SUCCESS)
		PT_FAIL("spawning on another host succeeded");
	if (spawn(self, NO_PROCS, NULL) == PMIX_SUCCESS)
		PT_FAIL("spawning 0 procs succeeded");
	rc = spawn(self, GOOD, child_ns);
	if (rc != PMIX_SUCCESS)
		PT_FAIL("PMIx_Spawn: %s", PMIx_Error_string(rc));
}

static int parent(char *self)
{
	char msg[64], child_ns[PMIX_MAX_NSLEN + 1] = "";
	char *ns;

	snprintf(msg, sizeof(msg), "parent-%u", pt_me.rank);
	put_str("sp.parent", msg);
	if (pt_me.rank == 0) {
		spawn_children(self, child_ns);
		put_str("sp.childns", child_ns);
	}
	pt_fence(NULL, 0, 1);
	ns = pt_get_str(pt_me.nspace, 0, "sp.childns");
	connect_both(pt_me.nspace, ns, 1);
	if (pt_get_u32(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) != NCHILD)
		PT_FAIL("child job size");
	for (pmix_rank_t r = 0; r < NCHILD; r++)
		check_str(ns, r, "sp.child", r ? "child-1" : "child-0");
	connect_both(pt_me.nspace, ns, 0);
	free(ns);
	if (pt_me.rank == 0)
		printf("spawn ok: children=%d\n", NCHILD);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	PT_RC(PMIx_Init(&pt_me, NULL, 0));
	rc = argc > 1 && !strcmp(argv[1], "child") ? child() : parent(argv[0]);
	fflush(stdout);
	PT_RC(PMIx_Finalize(NULL, 0));
	return rc;
}
