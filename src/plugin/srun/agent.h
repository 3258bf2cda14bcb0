/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/agent.h - the agent in srun: a TCP listener whose port and the
 * job key go into the launch environment (SLURMIX_SRUN_PORT,
 * SLURMIX_STEP_KEY), for what the step daemons (and child sruns) must
 * tell this srun. The agent knows no feature: its own business is the
 * step table (STEPTABLE from the root daemon, written to the job
 * directory as step.<stepid> for the job's other steps), STEPINFO
 * (another step's file) and STEPLIST (the steps that have one);
 * everything else is registered by the feature before plug_agent_start
 * (srun/prelaunch.c does it):
 *
 *   requests (40..59, docs/dynamic.md section 2): a fresh connection per
 *     request; the key is checked, the handler gets the request (`in`
 *     positioned after the key) and answers it exactly once with
 *     plug_agent_reply, at once or later from the progress thread; it is
 *     told to stop through its stop hook (answer what is pending there).
 *     A request without a handler gets PMIX_ERR_NOT_SUPPORTED.
 *   messages (other kinds below 40, e.g. ABORT): the handler gets the
 *     fresh connection and the payload, checks the key itself
 *     (plug_agent_key_ok), answers and closes the connection, or returns
 *     -1 to have it dropped.
 *
 * Threads: registration and start in srun's main thread (prelaunch);
 * handlers run in the agent's progress thread (a progress engine of the
 * core, started here); plug_agent_stop in client_fini.
 */
#ifndef PLUG_SRUN_AGENT_H
#define PLUG_SRUN_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "pxc_host.h"

typedef struct plug_agent_req plug_agent_req_t;
typedef void (*plug_agent_handler_f)(plug_agent_req_t *req, pmix_data_buffer_t *in);
typedef void (*plug_agent_stop_f)(void);
typedef int (*plug_agent_message_f)(pxc_conn_t *c, pmix_data_buffer_t *in);
typedef void (*plug_agent_table_f)(void);

/* A request handler: 0, or -1 (cmd outside 41..59, STEPLIST, or already
 * taken).
 * stop may be NULL. */
int plug_agent_register_handler(uint16_t cmd, plug_agent_handler_f fn, plug_agent_stop_f stop);
/* A message handler: 0, or -1 (cmd 0, a request, STEPTABLE, or taken). */
int plug_agent_register_message(uint16_t cmd, plug_agent_message_f fn);
/* fn is called in the progress thread once the step's endpoint table is
 * in (on_table), or when the agent stops (on_stop, before the step file
 * goes). At most 4 of each; before plug_agent_start. 0/-1. */
int plug_agent_on_table(plug_agent_table_f fn);
int plug_agent_on_stop(plug_agent_stop_f fn);
/* Node 0's stepd endpoint (address; *port set), once the table is in;
 * else NULL. Progress thread. */
const char *plug_agent_root(uint16_t *port);

/* Starts the agent for nnodes stepds of step job.step and sets the two
 * variables in env. clean_stale: remove the job directories of jobs that
 * have ended (slurm_load_job round trips) on the way. The listener stays
 * open until plug_agent_stop. 0/-1. */
int plug_agent_start(uint32_t nnodes, uint32_t job, uint32_t step, bool clean_stale, char ***env);
/* Stops it: every handler's stop hook, the step file removed, the
 * registrations forgotten. Idempotent. */
void plug_agent_stop(void);

/* Answers req (payload may be NULL) and frees it. A requester that has
 * gone meanwhile is simply not answered. Progress thread. */
void plug_agent_reply(plug_agent_req_t *req, pmix_status_t st, const pmix_data_buffer_t *payload);
/* True when the requester has closed its connection. */
int plug_agent_req_gone(const plug_agent_req_t *req);
/* The job key (valid once started), for connections of srun's own. */
const char *plug_agent_key(void);
/* True when key is the job's. Progress thread. */
int plug_agent_key_ok(const char *key);

/* The agent's progress thread's event base (valid once started). */
struct event_base *plug_agent_base(void);
/* The job, step and node count of this srun. */
uint32_t plug_agent_job(void);
uint32_t plug_agent_step(void);
uint32_t plug_agent_nnodes(void);
/* This srun's step: node list and process map text ("" until known). */
const char *plug_agent_nodelist(void);
const char *plug_agent_map(void);
/* What goes into step.<stepid> besides the endpoints: the step's node
 * list (Slurm hostlist) and process map (lib/map.h text). Call before
 * plug_agent_start; copies. */
void plug_agent_set_step(const char *nodelist, const char *map);

#endif
