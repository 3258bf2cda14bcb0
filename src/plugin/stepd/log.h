/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/log.h - PMIx_Log (docs/log.md): the server module's log. Each
 * data item is a channel: PMIX_LOG_STDOUT / _STDERR go into the caller's
 * own stdout / stderr on this node (so Slurm, --label, --output files and
 * IO forwarding see them as the task's output); with PMIX_LOG_AGG (Open
 * MPI 5's help messages) to srun instead, which prints each (key, value)
 * once with how many more processes sent it (srun/log.h); PMIX_LOG_SYSLOG
 * and _LOCAL_SYSLOG to this node's syslog, _GLOBAL_SYSLOG to the syslog
 * of srun's host; PMIX_LOG_JOB_RECORD to the step daemon's log (slurmd's
 * log file). PMIX_LOG_EMAIL and unknown channels: PMIX_ERR_NOT_SUPPORTED.
 *
 * Threads: the stepd's progress thread.
 */
#ifndef PLUG_STEPD_LOG_H
#define PLUG_STEPD_LOG_H

#include <pmix_server.h>

void plug_log_host(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
		   const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
		   void *cbdata);

#endif
