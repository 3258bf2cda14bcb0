/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi.h - PMI-1 and PMI-2 served by the PMIx server (pmi.c): MPICH's
 * simple PMI and PMI-2 clients (and MVAPICH's, Intel MPI's) on a socket
 * the host hands over per task, answered from the same store, fences,
 * direct modex and host directory as the PMIx clients.
 *
 * The host (the plugin's prefork) makes a socketpair per local task and
 * gives the server its end with pxc_server_pmi_add; the task's end goes to
 * the task as PMI_FD, and the task hook writes the preamble
 * (pxc_pmi_preamble_write, pmi_wire.h) into it before exec. The wire
 * formats are in pmi_wire.h.
 */
#ifndef PXC_SERVER_PMI_H
#define PXC_SERVER_PMI_H

#include <pmix_common.h>
#include "pmi_wire.h"

/* Hands the server fd, its end of a stream socketpair for proc (a client
 * the host registered), and task_fd, the task's end as this process holds
 * it: the server closes task_fd once the task has spoken (the task holds
 * its own copy by then) or at finalize, so that the server sees the task's
 * end of the connection. Both fds are the server's from here on, also on
 * failure. 0, or -1 with errno (ESHUTDOWN: no server). Any thread. */
int pxc_server_pmi_add(int fd, int task_fd, const pmix_proc_t *proc);
/* Server finalize (progress thread): closes every PMI connection. */
void pxc_pmi_fini(void);

/* For pmi_cmd.c, progress thread only, over the connection type of
 * internal.h (opaque here). */
typedef struct pxc_pmi_conn pxc_pmi_conn_t;
typedef void (*pxc_pmi_reply_f)(pxc_pmi_conn_t *c, pmix_status_t st, pmix_data_buffer_t *reply);
/* The current request's reply name (resp, copied) and the PMI-2 thrid
 * of m (may be NULL) that its reply echoes. */
void pxc_pmi_set_current(pxc_pmi_conn_t *c, const char *resp, const pxc_pmi_msg_t *m);
/* Starts the current request's reply with rc, in the framing the request
 * came in; pxc_pmi_send ends, sends and clears it. */
void pxc_pmi_reply_begin(pxc_pmi_conn_t *c, pxc_pmi_out_t *o, int rc);
void pxc_pmi_send(pxc_pmi_conn_t *c, pxc_pmi_out_t *o);
/* Whole replies: rc=-1 with why; rc=0 with one pair k1=v1 (k1 may be
 * NULL); a get's value (NULL: not found). */
void pxc_pmi_reply_error(pxc_pmi_conn_t *c, const char *why);
void pxc_pmi_reply_ok(pxc_pmi_conn_t *c, const char *k1, const char *v1);
void pxc_pmi_reply_value(pxc_pmi_conn_t *c, const char *val);
/* Merges a reply's BLOB field into the connection's store. */
pmix_status_t pxc_pmi_merge_blob(pxc_pmi_conn_t *c, pmix_data_buffer_t *reply);
/* Sends the request cmd with payload b to the server; fn (NULL: no reply
 * wanted) gets the reply, and no further request of the task is handled
 * until then. 0 or -1. */
int pxc_pmi_request(pxc_pmi_conn_t *c, uint16_t cmd, pmix_data_buffer_t *b, pxc_pmi_reply_f fn);
/* Connects c to the server as its client and says HELLO; the reply
 * answers the task's init. 0 or -1. */
int pxc_pmi_hello(pxc_pmi_conn_t *c);
/* Handles the task's next requests once c waits for nothing (after a
 * reply written outside a server callback: a node attribute's waiter).
 * May free c. */
void pxc_pmi_resume(pxc_pmi_conn_t *c);

#endif
