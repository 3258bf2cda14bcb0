/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/reap.h - the node's tasks by their pidfds: how each ended, and
 * the end of a step's slurmstepd without Slurm's 100 ms pause once every
 * task of the node has exited (mpi.conf SlurmixFastStepEnd).
 * See stepd/reap.c for why and how.
 *
 * plug_reap_start: in prefork, in the job manager thread (it records that
 * thread), after the progress thread is up. plug_reap_task: in each forked
 * task, before exec. plug_reap_finalized: in the progress thread (the
 * server's client_finalized upcall), and plug_reap_exit_status.
 * plug_reap_stop: at step fini, from
 * any thread but the progress thread.
 */
#ifndef PLUG_REAP_H
#define PLUG_REAP_H

#include <stdint.h>
#include <sys/types.h>

/* Collects the pidfds of node_tasks tasks, and with fast (and 2 or more
 * tasks) arms the watch for the pause. 0, or -1 when nothing can be
 * collected (logged at debug level; Slurm's pause stays). */
int plug_reap_start(uint32_t node_tasks, int fast);
/* In the task, between fork and exec: sends its rank and a pidfd of
 * itself. */
void plug_reap_task(uint32_t rank);
/* Told in the progress thread, once per task: on_task when a task
 * reported (its rank and pid), on_exit when it exited (known and wait
 * status as for plug_reap_exit_status). Either may be NULL. Before
 * plug_reap_start. */
typedef void (*plug_reap_task_f)(uint32_t rank, pid_t pid);
typedef void (*plug_reap_exit_f)(uint32_t rank, int known, int wstatus);
void plug_reap_hooks(plug_reap_task_f on_task, plug_reap_exit_f on_exit);
/* In the progress thread: the client of rank finalized through PMIx (not
 * a lost connection). Only when every task did is the pause cut short. */
void plug_reap_finalized(uint32_t rank);
/* Undoes plug_reap_start; no signal is sent after it returns. */
void plug_reap_stop(void);

/* How the task pid of this node ended: fn(1, wait status, arg) once it
 * has exited, or fn(0, 0, arg) when that cannot be told (no such task,
 * no pidfd, still running after wait_ms, or reaped on a kernel without
 * PIDFD_INFO_EXIT). fn runs exactly once, now or later, in the progress
 * thread (at plug_reap_stop at the latest). */
typedef void (*plug_reap_status_f)(int known, int wstatus, void *arg);
void plug_reap_exit_status(pid_t pid, int wait_ms, plug_reap_status_f fn, void *arg);

/* The pidfd of this node's task rank while it runs (borrowed: the
 * task's own, it cannot name a recycled pid), or -1. Progress thread. */
int plug_reap_pidfd(uint32_t rank);

/* For the tests: how many signals the watch sent (0: none). */
int plug_reap_fired(void);

#endif
