/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srvthread.h - the real PMIx server inside a test process.
 *
 * Every server suite (tests/unit/test_server_*.c) works the same way:
 * each test (fork mode) calls PMIx_server_init in its own test process,
 * so the server's progress thread runs beside the test, which plays the
 * host with a fake module whose callbacks count their calls and can be
 * told to fail (fakehost.h), and the clients, talking to the server like
 * our client library would: raw clients over the Unix socket
 * (rawclient.h). server_main() runs the tests with malloc filling freed
 * memory (runner.h), so that a use after free fails a test without
 * valgrind too.
 *
 * start_server() makes a fresh /tmp/srvtest.XXXXXX directory for the
 * server's files, stop_server() finalizes and removes it. register_job()
 * registers the standard job NS (size 4, ranks 0,1 on HOST and 2,3 on
 * "other") with nlocal local clients.
 *
 * This header also brings the server's internal headers: tests look at
 * its state (pxc_srv: socket path, directory, store) and post to its
 * progress thread (server/server.h); a suite includes the headers of the
 * other in-process entry points it calls (server/get.h, server/coll.h, ...).
 *
 * Every function here is called from the test's thread, never from the
 * server's progress thread or a host callback, unless it says otherwise;
 * failures are check assertions (they end the test).
 */
#ifndef UNIT_SRVTHREAD_H
#define UNIT_SRVTHREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_slurmix.h>
#include "pxc.h"
#include "pack.h"
#include "store.h"
#include "server/internal.h"
#include "server/server.h"
#include "runner.h"

#define NS "test.ns"     /* the job register_job() registers */
#define NS2 "test.other" /* a second namespace some tests register */
#define HOST "testhost"  /* the server's PMIX_HOSTNAME */
#define TMO 5000         /* ms to wait for any reply */

/* The server's PMIX_SERVER_TMPDIR, set by start_server(). */
extern char tmpdir[64];

/* PMIx_server_init with module mod (may be NULL), a new tmpdir and HOST,
 * and tool support when tools; returns its status. */
pmix_status_t start_server(pmix_server_module_t *mod, bool tools);
/* The same with up to 5 more init infos (copied). */
pmix_status_t start_server_with(pmix_server_module_t *mod, bool tools, const pmix_info_t *extra,
				size_t nextra);
/* PMIx_server_finalize (asserted to succeed), then removes tmpdir. */
void stop_server(void);
/* PMIx_server_register_nspace of name; info is the caller's. Returns the
 * call's status (cb may be NULL). */
pmix_status_t reg_nspace(const char *name, int nlocal, pmix_info_t *info, size_t n,
			 pmix_op_cbfunc_t cb, void *cbd);
/* Loads info i with key = v as a PMIX_UINT32. */
void load_u32(pmix_info_t *i, const char *key, uint32_t v);
/* Registers NS (job size 4, ranks 0,1 here) and its nlocal local clients,
 * waiting for the registration to complete. */
void register_job(int nlocal);
/* The string value of key at (ns, level, id) in st, or NULL when absent or
 * not a string. Borrowed from st. */
const char *sval(pxc_store_t *st, const char *ns, pxc_level_t l, uint32_t id, const char *key);
/* How many records st holds for rank r of NS. */
size_t nrecs(pxc_store_t *st, pmix_rank_t r);

/* The main() of a server suite: the suite "server" of tests[0..n), one
 * test case each with a 30 s timeout, always forked, run with freed
 * memory perturbed (runner.h); returns the exit status. Main thread. */
int server_main(int argc, char **argv, const struct unit_test *tests, size_t n);

#endif
