/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/agent_client.h - requests to an srun's agent (srun/agent.h,
 * docs/dynamic.md section 2), from a step daemon to its srun and from a
 * child srun to its parent srun: each request opens its own TCP
 * connection, sends (cmd, tag, key + payload), waits for one
 * PLUG_NET_REPLY and closes.
 *
 * Threads: plug_agent_client_init before the requests start (prefork, or
 * a child srun's prelaunch); plug_agent_request in the progress thread;
 * plug_agent_client_stop from another thread.
 */
#ifndef PLUG_AGENT_CLIENT_H
#define PLUG_AGENT_CLIENT_H

#include <stdint.h>
#include <pmix_common.h>

/* Sends one request and calls cb once, in the progress thread: the
 * reply's status and payload (positioned after the status; NULL unless
 * PMIX_SUCCESS), or PMIX_ERR_UNREACH (srun gone or unreachable),
 * PMIX_ERR_TIMEOUT (no answer in timeout_sec; 0 means SlurmixTimeout).
 * Returns 0 (cb will run, never from inside this call), or -1 (cb will
 * not run). */
typedef void (*plug_agent_cb_f)(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata);
int plug_agent_request(uint16_t cmd, const pmix_data_buffer_t *payload, uint32_t timeout_sec,
		       plug_agent_cb_f cb, void *cbdata);
/* Reads the agent's address and the job key from env (the launch
 * environment: SLURMIX_SRUN_PORT, SLURMIX_STEP_KEY, SLURM_SRUN_COMM_HOST).
 * 0/-1. */
int plug_agent_client_init(char **env);
/* Fails what is pending with PMIX_ERR_UNREACH (not from the progress
 * thread; in a stepd before PMIx_server_finalize). */
void plug_agent_client_stop(void);
/* True once plug_agent_client_stop began (or before init): what fails
 * with PMIX_ERR_UNREACH then fails because this side stops, not because
 * srun is unreachable. */
int plug_agent_client_stopping(void);

#endif
