/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/stepend.h - how the step ended, for the tools attached to it
 * (docs/iof.md, "Tools"): node 0 learns how every node's tasks ended
 * (EXITS, lib/proto.h) and raises PMIX_EVENT_JOB_END with the step's exit
 * code for its tools before it goes; the process table shows every local
 * task's pid, PMIx client or not.
 */
#ifndef PLUG_NET_STEPEND_H
#define PLUG_NET_STEPEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdbool.h>
#include "net/transport.h"

/* Before the network starts (job manager thread): this node's index,
 * the step's node count, this node's task count. 0/-1. */
int plug_stepend_register(plug_net_t *n, uint32_t me, uint32_t nnodes, uint32_t local_tasks);
/* stepd/reap.c's hooks (progress thread): a local task reported its pid;
 * a local task exited (known: its wait status could be read). */
void plug_stepend_task(uint32_t rank, pid_t pid);
void plug_stepend_exit(uint32_t rank, int known, int wstatus);
/* The pids of this node's tasks that reported so far (borrowed, progress
 * thread); their count. */
size_t plug_stepend_local_pids(const pid_t **pids);
/* A tool is attaching (the server's tool_connected upcall, progress
 * thread): fn(arg) once the other nodes told their tasks' pids (the first
 * time; 2 s at most), or at once. */
typedef void (*plug_stepend_ready_f)(void *arg);
void plug_stepend_tool(plug_stepend_ready_f fn, void *arg);
/* At the step's end, before the network stops (fini's thread): this
 * node tells node 0 how its tasks ended, if it has not yet (the ends it
 * did not learn count as unknown); on node 0, while tools are attached, waits until the other nodes' ends came and
 * the event went (timeout_ms at most for the ends, 2 s more for the
 * tools' connections to drain). Elsewhere returns at once. */
void plug_stepend_wait(int timeout_ms);
/* Node 0: whether node told that every one of its tasks ended (its step
 * daemon may then end at any time: a refused connection to it is no
 * loss). Elsewhere false. Progress thread. */
bool plug_stepend_node_ended(uint32_t node);
/* Forgets everything (after the network stopped). */
void plug_stepend_free(void);

#endif
