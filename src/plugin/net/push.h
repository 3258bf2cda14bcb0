/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/push.h - PMIx_IOF_push between the step daemons (docs/iof.md,
 * "Pushing stdin"): the server module's push_stdin takes the bytes to
 * the nodes of the target ranks, of this step or another step of the job
 * (a spawned child, a parent), where stepd/input.h writes them into the
 * tasks' stdin.
 */
#ifndef PLUG_NET_PUSH_H
#define PLUG_NET_PUSH_H

#include <pmix_common.h>
#include <pmix_server.h>
#include "net/transport.h"

/* Before the network starts (job manager thread). 0/-1. */
int plug_push_net_register(plug_net_t *n);
/* The server module's push_stdin (progress thread): bo NULL or empty, or
 * PMIX_IOF_COMPLETE in directives, ends the targets' stdin after the
 * bytes. cbfunc once every node answered (PMIX_SUCCESS: in every target's
 * stdin; a WILDCARD rank counts as done when one of that step's tasks
 * took it), with the first error otherwise (PMIX_ERR_UNREACH: a node was
 * lost). A task that reads slowly holds its push until it read enough. */
pmix_status_t plug_push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
			      size_t ntargets, const pmix_info_t directives[], size_t ndirs,
			      const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif
