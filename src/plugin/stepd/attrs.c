/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attrs.c - what the Slurm host honours, per server-module function, for
 * PMIX_QUERY_ATTRIBUTE_SUPPORT's host level (docs/query.md, "Attribute
 * support"). Registered by the module function's name ("spawn", "log",
 * ...), which the core maps to the user-facing functions.
 *
 * Each list is what the upcall (stepd/, and srun/ or lib/ behind it)
 * reads and acts on; keys it refuses or ignores are not listed. Spawn's
 * list is the spawn planner's own table (plug_spawn_supported), so it
 * cannot drift from what spawn does; the others sit here beside the
 * module they describe (stepd/step.c's). Keys of slurmix's own
 * (pmix_slurmix.h) are not registered: the core knows only the
 * Standard's attributes.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_server.h>

#include "lib/spawn_plan.h"
#include "stepd/attrs.h"
#include "slurm_adapter.h"

#define L(...) ((const char *[]){ __VA_ARGS__, NULL })

static const struct {
	const char *function;
	const char **attrs;
} host_attrs[] = {
	{ "abort", L("N/A") },
	{ "fence_nb", L(PMIX_TIMEOUT) },
	{ "direct_modex", L(PMIX_TIMEOUT) },
	{ "publish", L(PMIX_RANGE, PMIX_PERSISTENCE) },
	{ "lookup", L(PMIX_RANGE, PMIX_WAIT, PMIX_TIMEOUT) },
	{ "unpublish", L(PMIX_RANGE) },
	{ "notify_event", L(PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_DO_NOT_CACHE) },
	{ "group", L(PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_OPTIONAL, PMIX_TIMEOUT) },
	{ "query", L(PMIX_TIME_REMAINING, PMIX_QUERY_JOB_STATUS, PMIX_QUERY_ALLOC_STATUS,
		     PMIX_QUERY_QUEUE_LIST, PMIX_QUERY_QUEUE_STATUS, PMIX_QUERY_NAMESPACES,
		     PMIX_QUERY_NAMESPACE_INFO, PMIX_QUERY_SPAWN_SUPPORT, PMIX_QUERY_DEBUG_SUPPORT,
		     PMIX_QUERY_MEMORY_USAGE, PMIX_QUERY_REFRESH_CACHE, PMIX_NSPACE, PMIX_ALLOC_ID,
		     PMIX_ALLOC_QUEUE) },
	{ "connect", L(PMIX_TIMEOUT) },
	{ "disconnect", L(PMIX_TIMEOUT) },
	{ "register_events", L("N/A") },
	{ "iof_pull", L("N/A") },
	{ "push_stdin", L(PMIX_IOF_COMPLETE) },
	/* (PMIX_TIMEOUT is the client library's wait: stepd/cred.c) */
	{ "get_credential", L(PMIX_CRED_TYPE) },
	{ "validate_credential", L(PMIX_CRED_TYPE) },
	{ "log", L(PMIX_LOG_STDOUT, PMIX_LOG_STDERR, PMIX_LOG_AGG, PMIX_LOG_KEY, PMIX_LOG_VAL,
		   PMIX_LOG_SYSLOG, PMIX_LOG_LOCAL_SYSLOG, PMIX_LOG_GLOBAL_SYSLOG,
		   PMIX_LOG_SYSLOG_PRI, PMIX_LOG_JOB_RECORD, PMIX_LOG_ONCE, PMIX_LOG_TAG_OUTPUT,
		   PMIX_LOG_TIMESTAMP_OUTPUT, PMIX_LOG_GENERATE_TIMESTAMP, PMIX_LOG_XML_OUTPUT,
		   PMIX_LOG_TIMESTAMP, PMIX_LOG_SOURCE) },
	{ "job_control", L(PMIX_JOB_CTRL_SIGNAL, PMIX_JOB_CTRL_KILL, PMIX_JOB_CTRL_TERMINATE,
			   PMIX_JOB_CTRL_PAUSE, PMIX_JOB_CTRL_RESUME, PMIX_JOB_CTRL_CHECKPOINT,
			   PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT, PMIX_JOB_CTRL_CHECKPOINT_METHOD,
			   PMIX_JOB_CTRL_CHECKPOINT_EVENT, PMIX_JOB_CTRL_CHECKPOINT_SIGNAL,
			   PMIX_JOB_CTRL_CANCEL, PMIX_JOB_CTRL_ID, PMIX_TIMEOUT) },
	{ "allocate",
	  L(PMIX_ALLOC_NUM_NODES, PMIX_ALLOC_NODE_LIST, PMIX_ALLOC_NUM_CPUS, PMIX_ALLOC_TIME,
	    PMIX_ALLOC_QUEUE, PMIX_ALLOC_ID, PMIX_ALLOC_REQ_ID, PMIX_TIMEOUT) },
};

/* The names ("PMIX_HOST") of the spawn planner's attribute strings
 * ("pmix.host") that are the Standard's (malloc'ed argv), or NULL. */
static char **spawn_names(void)
{
	char *list = plug_spawn_supported();
	char **keys = list ? PMIx_Argv_split(list, ',') : NULL, **names = NULL;

	free(list);
	for (size_t i = 0; keys && keys[i]; i++) {
		const char *n = PMIx_Get_attribute_name(keys[i]);

		if (strcmp(n, keys[i]) && PMIx_Argv_append_nosize(&names, n) != PMIX_SUCCESS) {
			PMIx_Argv_free(names);
			names = NULL;
			break;
		}
	}
	PMIx_Argv_free(keys);
	return names;
}

static int reg(const char *function, char **attrs)
{
	pmix_status_t st = PMIx_Register_attributes((char *)function, attrs);

	if (st == PMIX_SUCCESS)
		return 0;
	plug_error("PMIx_Register_attributes(%s): %s", function, PMIx_Error_string(st));
	return -1;
}

int plug_attrs_register(void)
{
	char **spawn = spawn_names();
	int rc = spawn ? reg("spawn", spawn) :
			 (plug_error("spawn's attributes: out of memory"), -1);

	PMIx_Argv_free(spawn);
	for (size_t i = 0; i < sizeof(host_attrs) / sizeof(host_attrs[0]); i++)
		rc |= reg(host_attrs[i].function, (char **)host_attrs[i].attrs);
	return rc;
}
