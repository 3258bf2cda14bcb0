/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/tools.h - tools attach to a step through its srun (docs/iof.md,
 * "Tools"): rendezvous files on srun's host (pmix.<host>.tool.<srun pid>
 * and pmix.<host>.tool.<nspace>) name a Unix socket of srun's agent, and
 * each tool that connects there is carried to node 0's step daemon
 * (TOOL_ATTACH, net/tool.h), whose PMIx server serves it.
 */
#ifndef PLUG_SRUN_TOOLS_H
#define PLUG_SRUN_TOOLS_H

/* Registers with the agent (before plug_agent_start, srun's main
 * thread): the socket and files appear once the endpoint table is in.
 * 0/-1. */
int plug_tools_srun_init(void);
/* At the step's end, before the agent stops (srun's main thread): waits
 * up to timeout_ms for node 0's step daemon to close every tool's
 * connection, once it told them how the step ended. */
void plug_tools_drain(int timeout_ms);
/* Closes every attached tool, the socket and the files (the agent's stop
 * hook; progress thread). Idempotent. */
void plug_tools_stop(void);

#endif
