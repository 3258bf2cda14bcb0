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

/* Hands the server fd, its end of a stream socketpair for proc (a client
 * the host registered), and task_fd, the task's end as this process holds
 * it: the server closes task_fd once the task has spoken (the task holds
 * its own copy by then) or at finalize, so that the server sees the task's
 * end of the connection. Both fds are the server's from here on, also on
 * failure. 0, or -1 with errno (ESHUTDOWN: no server). Any thread. */
int pxc_server_pmi_add(int fd, int task_fd, const pmix_proc_t *proc);
/* Server finalize (progress thread): closes every PMI connection. */
void pxc_pmi_fini(void);

#endif
