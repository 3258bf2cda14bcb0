/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_iof.h - the tasks' output under slurmix-run (sxr_iof.c): each task's
 * stdout and stderr go through a pipe to slurmix-run, which writes them
 * out unchanged on its own stdout and stderr and hands them to its PMIx
 * server (PMIx_server_IOF_deliver), so that PMIx_IOF_pull gets them
 * (docs/iof.md). A channel whose slurmix-run descriptor is a terminal is
 * left as it is (the task's isatty() must not change): not captured.
 * Main thread.
 */
#ifndef SXR_IOF_H
#define SXR_IOF_H

#include <poll.h>
#include "sxr.h"

/* Before the fork of t: the pipes; child[0], child[1]: the write ends the
 * child takes as fd 1 and 2 (-1: that channel not captured: a terminal,
 * or no descriptor for a pipe). */
void sxr_iof_prepare(struct sxr_task *t, int child[2]);
/* In the child (async-signal-safe): the write ends become fd 1 and 2. */
void sxr_iof_child(const int child[2]);
/* After the fork (parent): the write ends closed; failed: the read ends
 * too. */
void sxr_iof_forked(struct sxr_task *t, int child[2], bool failed);
/* The open read ends of every task, appended to pfd (at most max);
 * returns how many. */
int sxr_iof_pollfds(struct sxr *s, struct pollfd *pfd, int max);
/* Reads what every task wrote (each channel at most a bounded amount per
 * call), writes it out and delivers it; an end of file ends that channel
 * (PMIX_IOF_COMPLETE). */
void sxr_iof_run(struct sxr *s);
/* t ended: what it left in its pipes first (before its end is
 * reported). */
void sxr_iof_task_ended(struct sxr *s, struct sxr_task *t);
/* Closes what is left (the job is freed). */
void sxr_iof_close(struct sxr_task *t);

#endif
