/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/log.h - PMIx_Log's srun half (docs/log.md): the LOG requests of
 * the step daemons (stepd/log.c). A message with PMIX_LOG_AGG (Open MPI
 * 5's help messages: every rank that hits the same problem sends the same
 * key and value) is printed once on srun's stdout or stderr, and the same
 * (key, value) from more processes is counted: PLUG_LOG_AGG_MS after the
 * first, one line says how many more sent it. "syslog" messages go to the
 * syslog of srun's host (PMIX_LOG_GLOBAL_SYSLOG).
 *
 * Threads: init in srun's main thread (prelaunch); requests, timers and
 * the stop hook in the agent's progress thread.
 */
#ifndef PLUG_SRUN_LOG_H
#define PLUG_SRUN_LOG_H

#define PLUG_LOG_AGG_MS 2000 /* from a message's first print to its count */

/* Registers the request with the agent (before plug_agent_start). */
void plug_log_srun_init(void);

#endif
