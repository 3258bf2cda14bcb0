/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/abort.h - srun's side of PMIx_Abort: the abort reports of the step
 * daemons (stepd/abort.h), through srun's agent.
 */
#ifndef PLUG_SRUN_ABORT_H
#define PLUG_SRUN_ABORT_H

/* Registers the ABORT handler with the agent (before plug_agent_start).
 * 0/-1. srun's main thread. */
int plug_abort_srun_init(void);
/* The exit code srun must use: the status of the first PMIx_Abort (1
 * when it does not fit 1..255), or 0 when nothing aborted. After the
 * agent stopped. */
int plug_abort_srun_status(void);

#endif
