/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/reap.h - end a step's slurmstepd without Slurm's 100 ms pause once
 * every task of the node has exited (mpi.conf SlurmixFastStepEnd).
 * See stepd/reap.c for why and how.
 *
 * plug_reap_start: in prefork, in the job manager thread (it records that
 * thread), after the progress thread is up. plug_reap_task: in each forked
 * task, before exec. plug_reap_finalized: in the progress thread (the
 * server's client_finalized upcall). plug_reap_stop: at step fini, from
 * any thread but the progress thread.
 */
#ifndef PLUG_REAP_H
#define PLUG_REAP_H

#include <stdint.h>

/* Arms the watch for node_tasks tasks (nothing below 2). 0, or -1 when
 * it cannot be armed (logged at debug level; Slurm's pause stays). */
int plug_reap_start(uint32_t node_tasks);
/* In the task, between fork and exec: sends a pidfd of itself. */
void plug_reap_task(void);
/* In the progress thread: the client of rank finalized through PMIx (not
 * a lost connection). Only when every task did is the pause cut short. */
void plug_reap_finalized(uint32_t rank);
/* Undoes plug_reap_start; no signal is sent after it returns. */
void plug_reap_stop(void);

/* For the tests: how many signals the watch sent (0: none). */
int plug_reap_fired(void);

#endif
