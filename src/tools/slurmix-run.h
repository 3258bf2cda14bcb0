/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurmix-run.h - what the main loop of slurmix-run (slurmix-run.c) offers
 * the other files: how the launcher ends.
 *
 * The first failure decides the exit status (see slurmix-run.c); ending
 * sends a signal to every task and, unless it was SIGKILL, arms the grace
 * timer of the main loop, after which what is left gets SIGKILL. Main
 * thread only: both change the launcher's state.
 */
#ifndef SLURMIX_RUN_H
#define SLURMIX_RUN_H

#include "sxr.h"

/* Records status as the exit status, unless one was recorded before. */
void sxr_set_status(struct sxr *s, int status);
/* Starts ending: sends sig to every running task. Once ending, only
 * SIGKILL is sent again. */
void sxr_terminate(struct sxr *s, int sig);

#endif
