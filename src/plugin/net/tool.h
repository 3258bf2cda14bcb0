/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/tool.h - tools that attach through srun (docs/iof.md, "Tools"):
 * srun's agent takes a tool's connection on the host where srun runs and
 * carries it to node 0's step daemon over the transport (TOOL_ATTACH,
 * lib/proto.h); there it becomes a tool connection of the step's PMIx
 * server, with the tool's credentials as srun read them.
 */
#ifndef PLUG_NET_TOOL_H
#define PLUG_NET_TOOL_H

#include <sys/types.h>
#include "net/transport.h"

/* Before the network starts (job manager thread). Tools run as uid (the
 * job's user) or root. 0/-1. */
int plug_tool_net_register(plug_net_t *n, uid_t uid);

#endif
