/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srvthread.c - start, stop and feed the real server in the test process
 * (srvthread.h).
 *
 * The server gets a directory of its own under /tmp for each start, and
 * the standard job; everything here runs in the test's thread and
 * asserts (check) what must not fail.
 */
#include "srvthread.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char tmpdir[64];

static void op_cb(pmix_status_t st, void *cbdata)
{
	pxc_sync_signal(cbdata, st);
}

pmix_status_t start_server_with(pmix_server_module_t *mod, bool tools, const pmix_info_t *extra,
				size_t nextra)
{
	pmix_info_t info[8];
	size_t n = 2;
	bool t = true;

	ck_assert_uint_le(nextra, 5);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srvtest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_HOSTNAME, HOST, PMIX_STRING);
	if (tools)
		PMIx_Info_load(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &t, PMIX_BOOL);
	for (size_t i = 0; i < nextra; i++)
		PMIx_Info_xfer(&info[n++], &extra[i]);
	pmix_status_t st = PMIx_server_init(mod, info, n);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&info[i]);
	return st;
}

pmix_status_t start_server(pmix_server_module_t *mod, bool tools)
{
	return start_server_with(mod, tools, NULL, 0);
}

void stop_server(void)
{
	ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
	rmdir(tmpdir);
}

pmix_status_t reg_nspace(const char *name, int nlocal, pmix_info_t *info, size_t n,
			 pmix_op_cbfunc_t cb, void *cbd)
{
	pmix_nspace_t ns;

	PMIx_Load_nspace(ns, name);
	return PMIx_server_register_nspace(ns, nlocal, info, n, cb, cbd);
}

void load_u32(pmix_info_t *i, const char *key, uint32_t v)
{
	PMIx_Info_load(i, key, &v, PMIX_UINT32);
}

/* Registers NS (job size 4, ranks 0,1 here) and its local clients. */
void register_job(int nlocal)
{
	pmix_info_t info[6];
	pxc_sync_t s;
	pmix_proc_t p;

	load_u32(&info[0], PMIX_JOB_SIZE, 4);
	PMIx_Info_load(&info[1], PMIX_NODE_MAP, HOST ",other", PMIX_STRING);
	PMIx_Info_load(&info[2], PMIX_PROC_MAP, "0,1;2,3", PMIX_STRING);
	PMIx_Info_load(&info[3], "test.jobkey", "jobval", PMIX_STRING);
	pxc_sync_init(&s);
	ck_assert_int_eq(reg_nspace(NS, nlocal, info, 4, op_cb, &s), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_sync_wait(&s, TMO), PMIX_SUCCESS);
	pxc_sync_fini(&s);
	for (int r = 0; r < nlocal; r++) {
		PMIx_Load_procid(&p, NS, (pmix_rank_t)r);
		ck_assert_int_eq(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL,
							     NULL),
				 PMIX_SUCCESS);
	}
	for (int i = 0; i < 4; i++)
		PMIx_Info_destruct(&info[i]);
}

const char *sval(pxc_store_t *st, const char *ns, pxc_level_t l, uint32_t id, const char *key)
{
	const pmix_value_t *v = pxc_store_get(st, ns, l, id, key, NULL);

	return v && v->type == PMIX_STRING ? v->data.string : NULL;
}

size_t nrecs(pxc_store_t *st, pmix_rank_t r)
{
	return pxc_store_count(st, NS, PXC_LVL_PROC, r, PXC_KINDS_ALL);
}

int server_main(int argc, char **argv, const struct unit_test *tests, size_t n)
{
	const struct unit_spec spec = {
		.name = "server",
		.tests = tests,
		.ntests = n,
		.timeout = 30,
		.fork = CK_FORK,
		.perturb_frees = true,
	};

	return unit_main(argc, argv, &spec);
}
