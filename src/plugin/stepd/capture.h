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
 *
 * stdin: a task whose fd 0 is a pipe or socket (srun's stdin) gets a pipe
 * there as well; the thread copies srun's bytes into it unchanged (srun's
 * side is read only once the previous piece is in the task's pipe) and
 * writes the pushes (plug_capture_push) between them, each whole, in
 * order. The task's stdin ends after a push marked complete, or at the
 * end of srun's input when no push came and the input is not held
 * (plug_capture_input). /dev/null, files and terminals stay the task's.
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

/* Bytes that may wait for one task's stdin: past them a push is refused
 * (-ENOBUFS). */
#define PLUG_CAPTURE_PUSH_MAX (16u << 20)

/* A push's end: 0 written into the task's stdin, -EPIPE the stdin ended
 * first (the task closed it, a complete push, srun's end), -ENOTSUP the
 * task's stdin is not a pipe the thread holds, -ECANCELED the capture
 * stopped. Called once per accepted push, in the capture thread (or in
 * plug_capture_stop's caller), in the order of the task's pushes. */
typedef void (*plug_capture_in_f)(void *arg, uint32_t ltask, void *token, int status);

/* Before plug_capture_start: hold (the end of srun's input does not end
 * the tasks' stdin: a push marked complete does, or the step's end) and
 * the pushes' end callback (NULL: pushes are refused). Kept across
 * starts. */
void plug_capture_input(bool hold, plug_capture_in_f done, void *arg);
/* Queues n bytes at data (the caller's until done() ran for token) for
 * task ltask's stdin, its end after them when complete. Any thread. 0
 * (done() will run), -ENOTSUP (not a pipe the thread holds, or pushes
 * off), -EPIPE (its stdin ended), -ENOBUFS (PLUG_CAPTURE_PUSH_MAX
 * waiting), -ENOMEM. A push before the task's hook ran waits for it. */
int plug_capture_push(uint32_t ltask, const void *data, size_t n, bool complete, void *token);
/* Whether ltask's stdin takes pushes: 0 yes, -EAGAIN its hook has not
 * run yet, -EPIPE ended, -ENOTSUP no. Any thread. */
int plug_capture_stdin(uint32_t ltask);

/* How the output goes to Slurm (plug_capture_format), bits:
 * PLUG_CAPTURE_FILES  a regular file is taken too (Slurm's --output
 *                     without --label), so that fmt sees its bytes;
 * PLUG_CAPTURE_MERGE  the task's stderr goes into its stdout (one pipe
 *                     for both when stdout is taken, else fd 2 becomes
 *                     fd 1): stderr is captured as stdout. */
#define PLUG_CAPTURE_FILES 1u
#define PLUG_CAPTURE_MERGE 2u

/* What goes to Slurm instead of raw[0..n) that task ltask wrote on fd
 * (eof: its end, n 0, for what the formatter still holds): *out and
 * *outn, valid until the next call for the same stream. In the capture
 * thread, after out() got the raw bytes. 0, or -1 (the raw bytes go). */
typedef int (*plug_capture_fmt_f)(void *arg, uint32_t ltask, int fd, const char *raw, size_t n,
				  bool eof, const char **out, size_t *outn);

/* Before plug_capture_start: how (PLUG_CAPTURE_* bits) and the
 * formatter (NULL: the bytes go unchanged). Kept across starts. */
void plug_capture_format(unsigned how, plug_capture_fmt_f fmt, void *arg);

/* Prefork (job manager thread): the socket pairs for ntasks tasks and the
 * capture thread. ack_ms bounds a task's wait for the thread's answer.
 * 0, or -1 with errno (nothing is left; tasks then run uncaptured). */
int plug_capture_start(uint32_t ntasks, int ack_ms, plug_capture_out_f out, void *arg);
/* In the forked task ltask, as the user, before exec: interposes the
 * pipes. Async-signal-safe (no allocation, no lock, no log); never fails
 * the task. */
void plug_capture_task(uint32_t ltask);
/* The output channels of ltask that are captured (any thread); 0 before
 * its task hook ran, or when nothing is. */
unsigned plug_capture_channels(uint32_t ltask);
/* The task's end of ltask's socket pair, or -1 (the unit tests send
 * broken hand-overs on it). */
int plug_capture_socket(uint32_t ltask);
/* Stops (plugin fini): takes no more hand-overs and no more stdin,
 * writes out what the tasks' pipes still hold until each ended or
 * drain_ms passed, then stops the thread, ends the pushes still waiting
 * (-ECANCELED) and closes every descriptor. A thread stuck in a write for CAP_JOIN_S
 * more seconds is left running (logged) with what it uses. 0, or -1 when
 * the thread was left running (it may still call out() and the
 * formatter: what they use must stay). */
int plug_capture_stop(int drain_ms);

#endif
