/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/weight.h - a spawned step's CPU share under the kernel's
 * autogroup scheduler: its tasks over its parent's on the node (mpi.conf
 * SlurmixTaskWeight). See stepd/weight.c.
 */
#ifndef PLUG_WEIGHT_H
#define PLUG_WEIGHT_H

#include <stdint.h>

/* The autogroup nice value (-20..0) whose scheduler weight is closest to
 * ntasks / others times that of nice 0 (others 0 counts as 1). Pure. */
int plug_weight_nice(uint32_t ntasks, uint32_t others);
/* In slurmstepd (root, its own session): sets the nice value of this
 * process's autogroup for ntasks tasks sharing the node with others
 * (the parent's tasks here), when the kernel schedules by autogroup.
 * proc is the /proc directory ("/proc"; tests pass another). Returns the
 * nice value set, 0 when nothing was changed, -1 on error (logged at
 * debug level: the step runs with the default share). */
int plug_weight_apply(const char *proc, uint32_t ntasks, uint32_t others);

#endif
