/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobctl.h - PMIx_Job_control (docs/jobctl.md): the server module's
 * job_control, for targets in any step of the job (net/xstep.h) on any of
 * its nodes:
 * PMIX_JOB_CTRL_SIGNAL, _KILL, _TERMINATE (SIGTERM, SIGKILL after a grace
 * period), _PAUSE (SIGSTOP), _RESUME (SIGCONT). The nodes of the targets
 * get a JOBCTL message (lib/proto.h) and answer once their tasks got the
 * signal. (The core does PMIX_REGISTER_CLEANUP itself, server/jobctl.c.)
 *
 * Threads: the stepd's progress thread, except register.
 */
#ifndef PLUG_STEPD_JOBCTL_H
#define PLUG_STEPD_JOBCTL_H

#include <pmix_server.h>
#include "net/transport.h"

/* Before the network starts (job manager thread). 0/-1. */
int plug_jobctl_net_register(plug_net_t *n);
pmix_status_t plug_jobctl_host(const pmix_proc_t *requestor, const pmix_proc_t targets[],
			       size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			       pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif
