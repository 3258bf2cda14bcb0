/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_weight.h - a step's CPU share under the kernel's autogroup
 * scheduler follows its number of tasks on the node (mpi.conf
 * SlurmixTaskWeight). See plug_weight.c.
 */
#ifndef PLUG_WEIGHT_H
#define PLUG_WEIGHT_H

#include <stdint.h>

/* The autogroup nice value (-20..0) whose scheduler weight is closest to
 * ntasks times that of nice 0. Pure. */
int plug_weight_nice(uint32_t ntasks);
/* In slurmstepd (root, its own session): sets the nice value of this
 * process's autogroup for ntasks tasks, when the kernel schedules by
 * autogroup. proc is the /proc directory ("/proc"; tests pass another).
 * Returns the nice value set, 0 when nothing was changed, -1 on error
 * (logged at debug level: the step runs with the default share). */
int plug_weight_apply(const char *proc, uint32_t ntasks);

#endif
