/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_in.h - PMIx_IOF_push under slurmix-run (sxr_in.c, docs/iof.md
 * "Pushing stdin"). With SLURMIX_STDIN=push in slurmix-run's
 * environment, every task's stdin is a pipe that only pushes feed, open
 * until a push marked complete; otherwise rank 0 reads slurmix-run's own
 * stdin and the others /dev/null, as before, and pushes are
 * PMIX_ERR_NOT_SUPPORTED. Main thread, except the host callback.
 */
#ifndef SXR_IN_H
#define SXR_IN_H

#include <poll.h>
#include <pmix_server.h>
#include "sxr.h"

/* At the start: the mode, from SLURMIX_STDIN ("push", or "srun" and
 * unset: not; anything else is a usage error). 0/-1 (said why). */
int sxr_in_init(void);
/* Before the fork of t (push mode): the pipe; *child: the read end the
 * child takes as fd 0 (-1: none, stdin as without push mode). */
void sxr_in_prepare(struct sxr_task *t, int *child);
/* After the fork (parent): the read end closed; failed: the write end
 * too. */
void sxr_in_forked(struct sxr_task *t, int child, bool failed);
/* The write ends with bytes waiting, appended to pfd (at most max). */
int sxr_in_pollfds(struct sxr *s, struct pollfd *pfd, int max);
/* Writes what waits, as far as the tasks' pipes take it. */
void sxr_in_run(struct sxr *s);
/* t ended (or the job goes): its pushes end PMIX_ERR_IOF_COMPLETE. */
void sxr_in_close(struct sxr_task *t);
/* The server module's push_stdin (progress thread). */
pmix_status_t sxr_host_push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
				  size_t ntargets, const pmix_info_t directives[], size_t ndirs,
				  const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata);

#endif
