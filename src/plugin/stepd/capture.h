/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/capture.h - the tasks' stdout and stderr through the step daemon,
 * with Slurm's own handling of them unchanged (docs/iof.md, "Capture in
 * the step daemon"). Neither Slurm nor PMIx here: unit-tested alone
 * (tests/unit/test_plugin_capture.c).
 *
 * Prefork makes one socket pair per local task. In the forked task, before
 * exec, the task hook puts a pipe in place of each of its stdout and
 * stderr that is neither a terminal nor a regular file, and hands the
 * pipe's read end and the descriptor Slurm gave it (a pipe to Slurm's IO
 * thread, /dev/null) to the step daemon over its socket pair. A regular
 * file (--output without --label) stays the task's: Slurm does not wait
 * for it, so srun could end before a relayed file were complete. The
 * capture thread of the step daemon then copies what the task writes to
 * Slurm's descriptor, unchanged, and gives each piece to out() as well. It
 * reads a pipe only once the previous piece is written to Slurm's
 * descriptor, so a task waits exactly when Slurm's side is slow, as it
 * does without slurmix. At the pipe's end of file, out() gets eof and
 * Slurm's descriptor is closed once everything is written.
 *
 * A task whose capture cannot be set up keeps Slurm's descriptors: the
 * task runs as it would have, and the step daemon logs why.
 */
#ifndef PLUG_CAPTURE_H
#define PLUG_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Channels: bit values of plug_capture_channels(). A task whose stderr
 * is the same open object as its stdout gets one pipe for both, so that
 * their order stays: its stderr is captured as stdout, and out() gets
 * its stderr's end at once. */
#define PLUG_CAPTURE_STDOUT 1u
#define PLUG_CAPTURE_STDERR 2u

/* What task ltask wrote on fd (1 or 2): n bytes at data, or its end
 * (eof, n 0). Called in the capture thread, in the task's order; may
 * block (the task then waits, like a slow Slurm). */
typedef void (*plug_capture_out_f)(void *arg, uint32_t ltask, int fd, const void *data, size_t n,
				   bool eof);

/* Prefork (job manager thread): the socket pairs for ntasks tasks and the
 * capture thread. ack_ms bounds a task's wait for the thread's answer.
 * 0, or -1 with errno (nothing is left; tasks then run uncaptured). */
int plug_capture_start(uint32_t ntasks, int ack_ms, plug_capture_out_f out, void *arg);
/* In the forked task ltask, as the user, before exec: interposes the
 * pipes. Async-signal-safe (no allocation, no lock, no log); never fails
 * the task. */
void plug_capture_task(uint32_t ltask);
/* The channels of ltask that are captured (any thread); 0 before its
 * task hook ran, or when nothing is. */
unsigned plug_capture_channels(uint32_t ltask);
/* The task's end of ltask's socket pair, or -1 (the unit tests send
 * broken hand-overs on it). */
int plug_capture_socket(uint32_t ltask);
/* Stops (plugin fini): takes no more hand-overs, writes out what the
 * tasks' pipes still hold until each ended or drain_ms passed, then stops the thread and
 * closes every descriptor. A thread stuck in a write for CAP_JOIN_S
 * more seconds is left running (logged) with what it uses. */
void plug_capture_stop(int drain_ms);

#endif
