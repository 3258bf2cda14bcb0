/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/abort.c - srun's side of PMIx_Abort (stepd/abort.h). A stepd
 * whose client called PMIx_Abort opens a new connection to the agent and
 * sends ABORT (key, node, rank, status, host, message); srun prints the
 * first one on its stderr through Slurm's log (later ones only with srun
 * -v), keeps its status for client_fini (srun's exit code), answers
 * ABORT_ACK and kills the step with SIGKILL through slurmctld (a blocking
 * RPC, in the agent's thread, which serves nothing else). A report that
 * names ranks (PMIx_Abort of some ranks of the step) is printed with them
 * and kills nothing: the stepds kill those ranks. The first report's
 * status is srun's exit code, whichever kind it was; later reports are
 * logged and acknowledged only, except that the first whole-step abort
 * still kills the step. Used for one-node steps too.
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

#define ABORT_MSG_MAX 4000         /* bytes of an abort message we print */
#define ABORT_RANKS_MAX (1u << 24) /* ranks in one report, and their bound */

static struct {
	int aborted, rc;
	int killed; /* the step was killed for a whole-step abort */
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

/* The ranks after an abort report, printed into out ("1,3,5", as many
 * as fit, then ",..."): 0 (none: the whole step), 1, or -1 on a malformed
 * list (the stepd checked them against the step; here only bounds). */
static int take_ranks(pmix_data_buffer_t *in, char *out, size_t cap)
{
	uint32_t n, r;
	size_t len = 0;

	out[0] = 0;
	if (!pxc_buf_remaining(in))
		return 0;
	if (pxc_unpack_u32(in, &n) != PMIX_SUCCESS || n == 0 || n > ABORT_RANKS_MAX)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (pxc_unpack_u32(in, &r) != PMIX_SUCCESS || r >= ABORT_RANKS_MAX)
			return -1;
		if (len + 16 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s%u", i ? "," : "", r);
		else if (len + 4 < cap && !strstr(out, "..."))
			len += (size_t)snprintf(out + len, cap - len, ",...");
	}
	return pxc_buf_remaining(in) ? -1 : 1;
}

/* ABORT on a fresh connection. 0, or -1 to drop the connection. */
static int take_abort(pxc_conn_t *c, pmix_data_buffer_t *in)
{
	char *key = NULL, *host = NULL, *msg = NULL, ranks[128];
	uint32_t node = UINT32_MAX, rank = 0;
	int32_t status = 0, one = 1;
	int ok, some = 0, first = !report.aborted;

	ok = pxc_unpack_str(in, &key) == PMIX_SUCCESS &&
	     pxc_unpack_u32(in, &node) == PMIX_SUCCESS &&
	     pxc_unpack_u32(in, &rank) == PMIX_SUCCESS &&
	     pxc_unpack(in, &status, &one, PMIX_INT32) == PMIX_SUCCESS &&
	     pxc_unpack_str(in, &host) == PMIX_SUCCESS &&
	     pxc_unpack_str(in, &msg) == PMIX_SUCCESS && plug_agent_key_ok(key) &&
	     node < plug_agent_nnodes() && (some = take_ranks(in, ranks, sizeof(ranks))) >= 0;
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
		else if (some)
			plug_log(first ? PLUG_LOG_INFO : PLUG_LOG_VERBOSE,
				 "slurmix: rank %u (%s) called PMIx_Abort(%d) on rank%s %s: %s",
				 rank, host ? host : "?", (int)status,
				 strchr(ranks, ',') ? "s" : "", ranks, msg ? msg : "");
		else
			plug_log(first ? PLUG_LOG_INFO : PLUG_LOG_VERBOSE,
				 "slurmix: rank %u (%s) called PMIx_Abort: %s", rank,
				 host ? host : "?", msg ? msg : "");
		report.aborted = 1;
		if (first)
			report.rc = exit_code(status);
		pxc_conn_send(c, PLUG_NET_ABORT_ACK, 0, 0, NULL);
		pxc_conn_close(c, 1);
		/* a whole-step abort ends the step; named ranks are killed
		 * by their own stepds */
		if (!some && !report.killed) {
			report.killed = 1;
			plug_slurm_kill_step(plug_agent_job(), plug_agent_step(), SIGKILL);
		}
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
