/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/jobact.h - what PMIx_Job_control does to this node's tasks
 * (docs/jobctl.md), for stepd/jobctl.c, which carries the requests
 * between the nodes: signals through the tasks' pidfds, a TERMINATE's
 * SIGKILL after its grace, a PAUSE that tells the targets' handlers first
 * (a synchronous PMIX_JCTRL_PREEMPT_ALERT) and stops them once they
 * answered or the wait ended, checkpoints by the method each process
 * registered (a synchronous PMIX_JCTRL_CHECKPOINT event, or a signal),
 * and the cancel of a requestor's parts still pending here.
 *
 * Threads: the stepd's progress thread (the server's).
 */
#ifndef PLUG_STEPD_JOBACT_H
#define PLUG_STEPD_JOBACT_H

#include <stdint.h>
#include <event2/event.h>
#include <pmix_common.h>

enum {
	PLUG_JA_SIGNAL = 0, /* sig, and SIGKILL grace_ms later when not 0 */
	PLUG_JA_PAUSE = 1,  /* the alert, then SIGSTOP */
	PLUG_JA_CKPT = 2,   /* each target by its registered method */
	PLUG_JA_CANCEL = 3, /* the requestor's pending parts labelled label */
	PLUG_JA_KINDS
};

/* One action on some of this node's ranks. */
typedef struct {
	uint8_t kind;
	int sig;           /* SIGNAL */
	uint32_t grace_ms; /* SIGNAL: SIGKILL this much later; 0: none */
	uint32_t wait_ms;  /* PAUSE, CKPT: the longest wait for the handlers */
	const char *label; /* PMIX_JOB_CTRL_ID, or NULL; CANCEL: which */
	const char *ckpt;  /* CKPT: the checkpoint's id */
	pmix_proc_t requestor;
} plug_ja_t;

/* As the only rank: every task of this node. */
#define PLUG_JA_ALL UINT32_MAX

/* The answer of one node's part: runs exactly once, perhaps before
 * plug_ja_run returns. */
typedef void (*plug_ja_done_f)(pmix_status_t st, void *arg);

/* Does a to ranks[0..n) of this node (PLUG_JA_ALL: all of them), then
 * done with PMIX_SUCCESS; PMIX_ERR_NOT_FOUND when a named rank is not
 * running here (the others are still acted on); for a checkpoint,
 * PMIX_ERR_NOT_SUPPORTED when a target registered no method, the
 * synchronous event's failure (PMIX_ERR_TIMEOUT...) otherwise; for a
 * cancel, PMIX_ERR_NOT_FOUND when nothing here matched; a part cancelled
 * before it acted answers PMIX_ERR_JOB_CANCELED. */
void plug_ja_run(const plug_ja_t *a, const uint32_t *ranks, uint32_t n, plug_ja_done_f done,
		 void *arg);

/* PMIX_JOB_CTRL_CHECKPOINT_METHOD of this node's rank: a data array of
 * infos, PMIX_JOB_CTRL_CHECKPOINT_EVENT (bool) and/or
 * PMIX_JOB_CTRL_CHECKPOINT_SIGNAL (int); replaces an earlier one.
 * PMIX_SUCCESS, or PMIX_ERR_BAD_PARAM (nothing recorded). */
pmix_status_t plug_ja_ckpt_register(uint32_t rank, const pmix_info_t *method);

/* Before the first run: the timers' base. */
void plug_ja_start(struct event_base *base);
/* The step ends: pending SIGKILLs are sent now, pending parts answer
 * PMIX_ERR_UNREACH, registrations are dropped. */
void plug_ja_stop(void);

#endif
