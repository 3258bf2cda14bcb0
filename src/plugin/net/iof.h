/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/iof.h - IO forwarding between the step daemons of a step
 * (docs/iof.md, "Between nodes"): a pull on one node gets the output of
 * the step's tasks on the others, or of another step of the job (a
 * spawned child, a parent). Only the nodes asked send, and only the
 * streams asked for.
 */
#ifndef PLUG_NET_IOF_H
#define PLUG_NET_IOF_H

#include <pmix_common.h>
#include <pmix_server.h>
#include "net/transport.h"

/* Before the network starts (job manager thread). 0/-1. */
int plug_iof_net_register(plug_net_t *n);
/* The server module's iof_pull (progress thread): asks the nodes of the
 * ranks among procs (this step's and other steps' of the job) that are
 * not asked yet for their streams on channels, each sending the history first; cbfunc once each answered
 * (or was lost, or the timeout passed). PMIX_OPERATION_SUCCEEDED when
 * nothing had to be asked. */
pmix_status_t plug_iof_pull(const pmix_proc_t procs[], size_t nprocs,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif
