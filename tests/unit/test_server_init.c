/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_init.c - protocol tests of the PMIx server's life cycle
 * (server.c): init and finalize leave no file, socket or descriptor behind
 * and can be repeated in one process; a tmpdir too long for a socket path
 * fails cleanly; PMIX_USERID hands the directory and socket to that user;
 * setup_fork gives a client its environment; locality and cpuset strings,
 * from this machine's topology or from the host's PMIX_TOPOLOGY2.
 *
 * Each test runs the real server in its own process, as every server
 * suite does (tests/lib/srvthread.h).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <hwloc.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

START_TEST(init_finalize_leaves_nothing)
{
	int before = count_fds();
	char dir[256];
	struct stat st;

	ck_assert_int_eq(start_server(&full_module, true), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_role, PXC_ROLE_SERVER);
	snprintf(dir, sizeof(dir), "%s", pxc_srv.dir);
	ck_assert_int_eq(stat(pxc_srv.sockpath, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_ptr_nonnull(pxc_srv.rdv[0]);
	ck_assert_int_eq(access(pxc_srv.rdv[0], R_OK), 0);
	register_job(2);
	int fd = rc_hello(0, PMIX_SUCCESS, NULL);
	stop_server();
	ck_assert(rc_closed(fd));
	close(fd);
	ck_assert_int_ne(stat(dir, &st), 0);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(pxc_role, PXC_ROLE_NONE);
	/* and again: a second init in the same process works */
	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	stop_server();
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

START_TEST(init_long_tmpdir_fails_cleanly)
{
	char longdir[200];
	pmix_info_t info;

	memset(longdir, 'x', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	PMIx_Info_load(&info, PMIX_SERVER_TMPDIR, longdir, PMIX_STRING);
	ck_assert_int_ne(PMIx_server_init(NULL, &info, 1), PMIX_SUCCESS);
	PMIx_Info_destruct(&info);
	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	stop_server();
}
END_TEST

START_TEST(userid_chowns_dir)
{
	pmix_info_t info[3];
	uint32_t uid = 65534;
	struct stat st;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srvtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_USERID, &uid, PMIX_UINT32);
	PMIx_Info_load(&info[2], PMIX_GRPID, &uid, PMIX_UINT32);
	ck_assert_int_eq(PMIx_server_init(NULL, info, 3), PMIX_SUCCESS);
	ck_assert_int_eq(stat(pxc_srv.dir, &st), 0);
	if (geteuid() == 0) {
		ck_assert_uint_eq(st.st_uid, 65534);
		ck_assert_int_eq(stat(pxc_srv.sockpath, &st), 0);
		ck_assert_uint_eq(st.st_uid, 65534);
		ck_assert_int_eq(st.st_mode & 0777, 0600);
	}
	stop_server();
	for (int i = 0; i < 3; i++)
		PMIx_Info_destruct(&info[i]);
}
END_TEST

START_TEST(setup_fork_env)
{
	char **env = NULL;
	pmix_proc_t p;
	bool uri = false, ns = false, prefix = false;

	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	PMIx_Load_procid(&p, NS, 3);
	ck_assert_int_eq(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
	for (int i = 0; env[i]; i++) {
		uri |= strncmp(env[i], PXC_ENV_URI "=unix:/", strlen(PXC_ENV_URI) + 7) == 0;
		ns |= strcmp(env[i], "PMIX_NAMESPACE=" NS) == 0;
		prefix |= strncmp(env[i], "PMIX_INSTALL_PREFIX", 19) == 0;
		ck_assert(strcmp(env[i], "PMIX_RANK=3") == 0 || strncmp(env[i], "PMIX_RANK=", 10));
		free(env[i]);
	}
	free(env);
	ck_assert(uri && ns && !prefix);
	stop_server();
}
END_TEST

START_TEST(locality_strings)
{
	hwloc_topology_t t;
	pmix_cpuset_t cs = { .source = "hwloc" };
	char *loc = NULL, *str = NULL;

	ck_assert_int_eq(start_server(NULL, false), PMIX_SUCCESS);
	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	cs.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_set(cs.bitmap, hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, 0)->os_index);
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_SUCCESS);
	ck_assert_int_eq(strncmp(loc, "NM", 2), 0);
	ck_assert_ptr_nonnull(strstr(loc, ":HT0"));
	ck_assert_int_eq(PMIx_server_generate_cpuset_string(&cs, &str), PMIX_SUCCESS);
	ck_assert_int_eq(strncmp(str, "hwloc:", 6), 0);
	free(loc);
	free(str);
	hwloc_bitmap_free(cs.bitmap);
	hwloc_topology_destroy(t);
	cs.source = "other";
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_ERR_BAD_PARAM);
	stop_server();
}
END_TEST

/* A host's PMIX_TOPOLOGY2 is what the locality strings are computed
 * from (a synthetic 2-package machine here, unlike this one), not a
 * discovery of the server's own; the server keeps its own copy. */
START_TEST(locality_host_topology)
{
	hwloc_topology_t t;
	pmix_topology_t topo = { .source = "hwloc" };
	pmix_cpuset_t cs = { .source = "hwloc" };
	pmix_info_t info[2];
	char *loc = NULL;

	ck_assert_int_eq(hwloc_topology_init(&t), 0);
	ck_assert_int_eq(hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:1"), 0);
	ck_assert_int_eq(hwloc_topology_load(t), 0);
	topo.topology = t;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srvtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
	ck_assert_int_eq(PMIx_server_init(NULL, info, 2), PMIX_SUCCESS);
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	hwloc_topology_destroy(t); /* the server's copy lives on */
	cs.bitmap = hwloc_bitmap_alloc();
	hwloc_bitmap_set(cs.bitmap, 3);
	ck_assert_int_eq(PMIx_server_generate_locality_string(&cs, &loc), PMIX_SUCCESS);
	ck_assert_ptr_nonnull(strstr(loc, "SK1:"));
	ck_assert_ptr_nonnull(strstr(loc, ":CR3:HT3"));
	free(loc);
	hwloc_bitmap_free(cs.bitmap);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "init", init_finalize_leaves_nothing },
		{ "longtmp", init_long_tmpdir_fails_cleanly },
		{ "userid", userid_chowns_dir },
		{ "setup_fork", setup_fork_env },
		{ "locality_host_topology", locality_host_topology },
		{ "locality", locality_strings },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
