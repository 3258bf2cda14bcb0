/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/abort.c - srun's side of PMIx_Abort (stepd/abort.h). A stepd
 * whose client called PMIx_Abort opens a new connection to the agent and
 * sends ABORT (key, node, rank, status, host, message); srun prints the
 * first one on its stderr through Slurm's log (later ones only with srun
 * -v), keeps its status for client_fini (srun's exit code), answers
 * ABORT_ACK and kills the step with SIGKILL through slurmctld (a blocking
 * RPC, in the agent's thread, which serves nothing else). Later reports
 * are logged and acknowledged only. Used for one-node steps too.
 *
 * Threads: registration in srun's main thread before the agent starts;
 * the report in the agent's progress thread; the status is read in
 * client_fini after the agent stopped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "srun/abort.h"
#include "srun/agent.h"
#include "slurm_adapter.h"

#define ABORT_MSG_MAX 4000 /* bytes of an abort message we print */

static struct {
	int aborted, rc;
} report;

/* Printable copy of a client's message: bounded, no control characters
 * but newline and tab. */
static void clean(char *msg)
{
	if (strlen(msg) > ABORT_MSG_MAX)
		strcpy(msg + ABORT_MSG_MAX - 4, "...");
	for (unsigned char *p = (unsigned char *)msg; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
}

static int exit_code(int32_t status)
{
	int rc = (int)((uint32_t)status & 0xff);

	return status && !rc ? 1 : rc;
}

/* ABORT on a fresh connection. 0, or -1 to drop the connection. */
static int take_abort(pxc_conn_t *c, pmix_data_buffer_t *in)
{
	char *key = NULL, *host = NULL, *msg = NULL;
	uint32_t node = UINT32_MAX, rank = 0;
	int32_t status = 0, one = 1;
	int ok, first = !report.aborted;

	ok = pxc_unpack_str(in, &key) == PMIX_SUCCESS &&
	     pxc_unpack_u32(in, &node) == PMIX_SUCCESS &&
	     pxc_unpack_u32(in, &rank) == PMIX_SUCCESS &&
	     pxc_unpack(in, &status, &one, PMIX_INT32) == PMIX_SUCCESS &&
	     pxc_unpack_str(in, &host) == PMIX_SUCCESS &&
	     pxc_unpack_str(in, &msg) == PMIX_SUCCESS && plug_agent_key_ok(key) &&
	     node < plug_agent_nnodes();
	free(key);
	if (ok) {
		if (host)
			clean(host);
		if (msg)
			clean(msg);
		/* the first report is the one users need; the rest on -v */
		if (rank == PLUG_ABORT_RANK_STEPD)
			plug_log(first ? PLUG_LOG_INFO : PLUG_LOG_VERBOSE,
				 "slurmix: the step could not be set up on %s: %s",
				 host ? host : "?", msg ? msg : "");
		else
			plug_log(first ? PLUG_LOG_INFO : PLUG_LOG_VERBOSE,
				 "slurmix: rank %u (%s) called PMIx_Abort: %s", rank,
				 host ? host : "?", msg ? msg : "");
		report.aborted = 1;
		if (first)
			report.rc = exit_code(status);
		pxc_conn_send(c, PLUG_NET_ABORT_ACK, 0, 0, NULL);
		pxc_conn_close(c, 1);
		if (first)
			slurm_kill_job_step(plug_agent_job(), plug_agent_step(), SIGKILL);
	}
	free(host);
	free(msg);
	return ok ? 0 : (plug_error("bad abort report from a step daemon (node %u)", node), -1);
}

int plug_abort_srun_init(void)
{
	memset(&report, 0, sizeof(report));
	return plug_agent_register_message(PLUG_NET_ABORT, take_abort);
}

int plug_abort_srun_status(void)
{
	return report.rc;
}
