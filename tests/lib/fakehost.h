/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fakehost.h - host modules for the server under test, with failure
 * switches and a record of what they were asked.
 *
 * full_module answers every upcall at once, from inside the upcall,
 * counting calls in host and failing the ones whose switch is set
 * (host.fail_*). keep_module keeps every pointer the server hands it,
 * with a fingerprint of the arguments, and a keeper thread checks them
 * keeper.keep_ms later, long after the upcall returned, then calls back
 * from its own thread, as the Standard allows hosts to do. bad_module
 * calls back twice (inside the upcall and later), late, and across
 * finalize.
 *
 * Threads: the upcalls run in the server's progress thread; the keeper
 * thread answers kept requests; the test thread reads host and keeper.
 * keeper's counters and strings are written under keeper.lock; host's
 * fields are plain ints that tests read after a reply that follows the
 * upcall (the reply orders them). State starts zeroed in each (forked)
 * test.
 */
#ifndef UNIT_FAKEHOST_H
#define UNIT_FAKEHOST_H

#include <pthread.h>
#include <stdbool.h>
#include <pmix_server.h>

/* What full_module was asked, and the switches that make it fail. */
struct fake_host {
	int fail; /* PMIX status a failing callback returns */
	int fail_connected, fail_fence, fail_dmodex, fail_publish, fail_abort;
	int fail_query, fail_spawn, fail_lookup, fail_notify;
	int fail_cred; /* get/validate_credential: PMIX_ERR_NO_PERMISSIONS */
	int n_connected, n_finalized, n_fence, n_dmodex, n_notify, n_connect, n_abort;
	int n_query, n_tool, n_cred;
	/* what the last get/validate_credential was handed: how many
	 * PMIX_USERID and PMIX_GRPID directives, their values (UINT32 only,
	 * else -1), the credential validated (its first bytes, size) */
	int cred_nids;
	long cred_uid, cred_gid;
	char cred_got[64];
	size_t cred_ngot;
	int hold; /* bad_module: answer later only */
	pmix_status_t hold_status;
	int dereg_ns;       /* d_finalized: drop the namespace */
	int abort_msg_null; /* h_abort got msg NULL */
	size_t fence_nprocs, fence_ndata;
	pmix_data_buffer_t fence_blob;  /* a copy of the last fence's data */
	pmix_data_buffer_t dmodex_blob; /* what direct_modex answers */
	int dmodex_job;                 /* instead: PMIX_JOB_SIZE 7 of the
					 * asked nspace */
};

struct kept;

/* The keeper thread of keep_module and bad_module. */
struct keeper_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct kept *head, *tail;
	pthread_t thr;
	bool started;
	int keep_ms;           /* how long a request is kept */
	int nkept, ndone, bad; /* kept, answered, changed under the host */
	char bad_what[256];    /* the upcalls whose arguments changed */
	char seen[512];        /* "upcall," for every upcall kept */
};

/* The credential full_module's get_credential issues (with a NUL inside:
 * bytes, not a string) and the only one its validate_credential accepts;
 * validation answers the PMIX_USERID and PMIX_GRPID it was handed. */
#define FAKE_CRED "fake\0credential"
#define FAKE_CRED_LEN (sizeof(FAKE_CRED) - 1)
#define FAKE_CRED_TYPE "fake" /* PMIX_CRED_TYPE of the issued one */

extern struct fake_host host;
extern struct keeper_state keeper;

/* Answers at once; fails by host.fail_* switch; counts in host. A
 * credential that is not FAKE_CRED: PMIX_ERR_INVALID_CRED through the
 * callback. */
extern pmix_server_module_t full_module;
/* Keeps everything keeper.keep_ms, checks it, then answers. */
extern pmix_server_module_t keep_module;
/* publish, fence_nb, direct_modex: a double callback, or (host.hold) a
 * late one with host.hold_status. */
extern pmix_server_module_t bad_module;

/* Waits (10 s at most) until n kept requests were answered; asserts it.
 * Test thread. */
void keeper_drain(int n);
/* Waits (10 s at most) until the host was handed n requests; asserts it.
 * Test thread. */
void keeper_wait_kept(int n);
/* True when the keeper was handed the upcall what ("fence", ...). */
bool keeper_saw(const char *what);
/* Sets host.dmodex_blob to records k.r (REMOTE, "remote-val") and k.g
 * (GLOBAL, "global-val") of rank 3 of NS. Before the server starts. */
void remote_blob(void);

#endif
