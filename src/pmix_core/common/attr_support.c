/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attr_support.c - the attributes each function honours, per level, and
 * PMIX_QUERY_ATTRIBUTE_SUPPORT's answer (attr_support.h).
 *
 * The tables list what the code of that level reads and acts on, read
 * from it function by function: an attribute a level only carries to the
 * next one is listed at the level that acts on it (PMIx_Spawn's
 * attributes are the host's, its PMIX_TIMEOUT the client library's wait);
 * an attribute that is refused or ignored is not listed. Names are the
 * attribute macros' names (attr_table.h gives their strings and types);
 * functions are user-facing API names. A function that honours nothing
 * has an empty list (answered as one regattr named "NONE", as OpenPMIx
 * does). Change a table with the code it describes: test_attr_support.c
 * fails on a name that is no attribute, a function we do not export, and
 * an attribute that no source file of its level names.
 *
 * The host level is PMIx_Register_attributes's (OpenPMIx 4.2's form: a
 * function name and a NULL-terminated list of attributes, by name or by
 * string; kept as names), kept under
 * a lock; the server forgets it at finalize.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include <pmix_server.h>

#include "attr_support.h"
#include "pxc.h"

#define FN(f, ...)                        \
	{                                 \
		f, (const char *const[])  \
		{                         \
			__VA_ARGS__, NULL \
		}                         \
	}
#define FN0(f)                           \
	{                                \
		f, (const char *const[]) \
		{                        \
			NULL             \
		}                        \
	}
#define TIMEOUT "PMIX_TIMEOUT"
#define GET_QUALS                                                                                 \
	"PMIX_OPTIONAL", "PMIX_GET_REFRESH_CACHE", TIMEOUT, "PMIX_SESSION_INFO", "PMIX_APP_INFO", \
		"PMIX_NODE_INFO", "PMIX_HOSTNAME", "PMIX_NODEID", "PMIX_APPNUM",                  \
		"PMIX_SESSION_ID", "PMIX_GROUP_CONTEXT_ID"
#define QUERY_LEVELS                                                                         \
	"PMIX_QUERY_ATTRIBUTE_SUPPORT", "PMIX_QUERY_STABLE_ABI_VERSION",                     \
		"PMIX_QUERY_PROVISIONAL_ABI_VERSION", "PMIX_CLIENT_FUNCTIONS",               \
		"PMIX_CLIENT_ATTRIBUTES", "PMIX_SERVER_FUNCTIONS", "PMIX_SERVER_ATTRIBUTES", \
		"PMIX_TOOL_FUNCTIONS", "PMIX_TOOL_ATTRIBUTES", "PMIX_HOST_FUNCTIONS",        \
		"PMIX_HOST_ATTRIBUTES"
#define EVENT_REG                                                                             \
	"PMIX_EVENT_HDLR_NAME", "PMIX_EVENT_HDLR_FIRST", "PMIX_EVENT_HDLR_LAST",              \
		"PMIX_EVENT_HDLR_FIRST_IN_CATEGORY", "PMIX_EVENT_HDLR_LAST_IN_CATEGORY",      \
		"PMIX_EVENT_HDLR_BEFORE", "PMIX_EVENT_HDLR_AFTER", "PMIX_EVENT_HDLR_PREPEND", \
		"PMIX_EVENT_RETURN_OBJECT"

/* The client library: client/, common/ (what its functions act on). */
static const pxc_attr_fn_t client_fns[] = {
	FN0("PMIx_Init"),
	FN0("PMIx_Finalize"),
	FN0("PMIx_Abort"),
	FN0("PMIx_Put"),
	FN0("PMIx_Commit"),
	FN0("PMIx_Store_internal"),
	FN("PMIx_Fence", TIMEOUT),
	FN("PMIx_Fence_nb", TIMEOUT),
	FN("PMIx_Get", GET_QUALS),
	FN("PMIx_Get_nb", GET_QUALS),
	FN("PMIx_Publish", TIMEOUT),
	FN("PMIx_Publish_nb", TIMEOUT),
	FN("PMIx_Lookup", TIMEOUT),
	FN("PMIx_Lookup_nb", TIMEOUT),
	FN("PMIx_Unpublish", TIMEOUT),
	FN("PMIx_Unpublish_nb", TIMEOUT),
	FN("PMIx_Spawn", TIMEOUT),
	FN("PMIx_Spawn_nb", TIMEOUT),
	FN("PMIx_Connect", TIMEOUT),
	FN("PMIx_Connect_nb", TIMEOUT),
	FN("PMIx_Disconnect", TIMEOUT),
	FN("PMIx_Disconnect_nb", TIMEOUT),
	FN("PMIx_Register_event_handler", EVENT_REG),
	FN0("PMIx_Deregister_event_handler"),
	FN("PMIx_Notify_event", "PMIX_EVENT_NON_DEFAULT", "PMIX_EVENT_CUSTOM_RANGE"),
	FN("PMIx_Query_info", QUERY_LEVELS),
	FN("PMIx_Query_info_nb", QUERY_LEVELS),
	FN("PMIx_Log", TIMEOUT),
	FN("PMIx_Log_nb", TIMEOUT),
	FN("PMIx_Allocation_request", TIMEOUT),
	FN("PMIx_Allocation_request_nb", TIMEOUT),
	FN("PMIx_Job_control", TIMEOUT),
	FN("PMIx_Job_control_nb", TIMEOUT),
	FN("PMIx_Process_monitor", TIMEOUT),
	FN("PMIx_Process_monitor_nb", TIMEOUT),
	FN("PMIx_Get_credential", TIMEOUT),
	FN("PMIx_Get_credential_nb", TIMEOUT),
	FN("PMIx_Validate_credential", TIMEOUT),
	FN("PMIx_Validate_credential_nb", TIMEOUT),
	FN("PMIx_Group_construct", TIMEOUT),
	FN("PMIx_Group_construct_nb", TIMEOUT),
	FN("PMIx_Group_destruct", TIMEOUT),
	FN("PMIx_Group_destruct_nb", TIMEOUT),
	FN("PMIx_Group_invite", TIMEOUT, "PMIX_GROUP_ID"),
	FN("PMIx_Group_invite_nb", TIMEOUT, "PMIX_GROUP_ID"),
	FN0("PMIx_Group_join"),
	FN0("PMIx_Group_join_nb"),
	FN0("PMIx_Group_leave"),
	FN0("PMIx_Group_leave_nb"),
	FN("PMIx_IOF_pull", TIMEOUT),
	FN0("PMIx_IOF_deregister"),
	FN("PMIx_IOF_push", "PMIX_IOF_COMPLETE", "PMIX_IOF_PUSH_STDIN", TIMEOUT),
	FN0("PMIx_Resolve_peers"),
	FN0("PMIx_Resolve_nodes"),
	FN0("PMIx_Load_topology"),
	FN0("PMIx_Get_cpuset"),
	FN0("PMIx_Parse_cpuset_string"),
	FN0("PMIx_Get_relative_locality"),
	{ NULL, NULL },
};

/* The server library: server/ and the IO forwarding engine it runs. */
#define IOF_OPTS                                                                             \
	"PMIX_IOF_CACHE_SIZE", "PMIX_IOF_DROP_OLDEST", "PMIX_IOF_DROP_NEWEST",               \
		"PMIX_IOF_BUFFERING_SIZE", "PMIX_IOF_BUFFERING_TIME", "PMIX_IOF_TAG_OUTPUT", \
		"PMIX_IOF_TIMESTAMP_OUTPUT", "PMIX_IOF_XML_OUTPUT"
#define MONITOR_ATTRS                                                                            \
	"PMIX_MONITOR_HEARTBEAT", "PMIX_MONITOR_FILE", "PMIX_SEND_HEARTBEAT",                    \
		"PMIX_MONITOR_CANCEL", "PMIX_MONITOR_ID", "PMIX_MONITOR_HEARTBEAT_TIME",         \
		"PMIX_MONITOR_HEARTBEAT_DROPS", "PMIX_MONITOR_FILE_CHECK_TIME",                  \
		"PMIX_MONITOR_FILE_DROPS", "PMIX_MONITOR_FILE_SIZE", "PMIX_MONITOR_FILE_ACCESS", \
		"PMIX_MONITOR_FILE_MODIFY", "PMIX_RANGE"
#define CLEANUP_ATTRS                                                                   \
	"PMIX_REGISTER_CLEANUP", "PMIX_REGISTER_CLEANUP_DIR", "PMIX_CLEANUP_RECURSIVE", \
		"PMIX_CLEANUP_EMPTY", "PMIX_CLEANUP_IGNORE", "PMIX_CLEANUP_LEAVE_TOPDIR"
#define SERVER_QUERY                                                                            \
	"PMIX_QUERY_NAMESPACES", "PMIX_QUERY_NAMESPACE_INFO", "PMIX_JOB_SIZE",                  \
		"PMIX_QUERY_PROC_TABLE", "PMIX_QUERY_LOCAL_PROC_TABLE", "PMIX_QUERY_NUM_PSETS", \
		"PMIX_QUERY_PSET_NAMES", "PMIX_QUERY_PSET_MEMBERSHIP", "PMIX_QUERY_NUM_GROUPS", \
		"PMIX_QUERY_GROUP_NAMES", "PMIX_QUERY_GROUP_MEMBERSHIP", "PMIX_SERVER_URI",     \
		"PMIX_QUERY_SUPPORTED_KEYS", "PMIX_NSPACE", "PMIX_PSET_NAME", "PMIX_GROUP_ID",  \
		QUERY_LEVELS
#define GROUP_ATTRS                                                                 \
	TIMEOUT, "PMIX_GROUP_INFO", "PMIX_GROUP_ENDPT_DATA", "PMIX_GROUP_OPTIONAL", \
		"PMIX_GROUP_ASSIGN_CONTEXT_ID", "PMIX_GROUP_NOTIFY_TERMINATION"
static const pxc_attr_fn_t server_fns[] = {
	FN("PMIx_server_init", "PMIX_SERVER_NSPACE", "PMIX_SERVER_RANK", "PMIX_SERVER_TMPDIR",
	   "PMIX_SYSTEM_TMPDIR", "PMIX_SERVER_TOOL_SUPPORT", "PMIX_SERVER_SYSTEM_SUPPORT",
	   "PMIX_HOSTNAME", "PMIX_NODEID", "PMIX_TOPOLOGY2", "PMIX_USERID", "PMIX_GRPID"),
	FN0("PMIx_server_finalize"),
	FN("PMIx_server_register_nspace", "PMIX_SESSION_INFO_ARRAY", "PMIX_APP_INFO_ARRAY",
	   "PMIX_NODE_INFO_ARRAY", "PMIX_PROC_DATA", "PMIX_SESSION_ID", "PMIX_APPNUM", "PMIX_RANK",
	   "PMIX_HOSTNAME", "PMIX_NODEID", "PMIX_JOB_SIZE", "PMIX_NODE_MAP", "PMIX_PROC_MAP",
	   "PMIX_LOCAL_PEERS"),
	FN0("PMIx_server_register_client"),
	FN0("PMIx_server_setup_fork"),
	FN0("PMIx_server_dmodex_request"),
	FN("PMIx_server_IOF_deliver", "PMIX_IOF_COMPLETE"),
	FN0("PMIx_server_define_process_set"),
	FN0("PMIx_server_delete_process_set"),
	FN0("PMIx_Register_attributes"),
	/* what the server does with its clients' requests */
	FN("PMIx_Fence", "PMIX_COLLECT_DATA", TIMEOUT),
	FN("PMIx_Fence_nb", "PMIX_COLLECT_DATA", TIMEOUT),
	FN("PMIx_Get", "PMIX_IMMEDIATE", "PMIX_GET_REFRESH_CACHE", TIMEOUT),
	FN("PMIx_Get_nb", "PMIX_IMMEDIATE", "PMIX_GET_REFRESH_CACHE", TIMEOUT),
	FN("PMIx_Connect", TIMEOUT),
	FN("PMIx_Connect_nb", TIMEOUT),
	FN("PMIx_Disconnect", TIMEOUT),
	FN("PMIx_Disconnect_nb", TIMEOUT),
	FN("PMIx_Notify_event", "PMIX_EVENT_DO_NOT_CACHE", "PMIX_EVENT_CUSTOM_RANGE"),
	FN("PMIx_Query_info", SERVER_QUERY),
	FN("PMIx_Query_info_nb", SERVER_QUERY),
	FN("PMIx_Job_control", CLEANUP_ATTRS),
	FN("PMIx_Job_control_nb", CLEANUP_ATTRS),
	FN("PMIx_Process_monitor", MONITOR_ATTRS),
	FN("PMIx_Process_monitor_nb", MONITOR_ATTRS),
	FN("PMIx_Group_construct", GROUP_ATTRS),
	FN("PMIx_Group_construct_nb", GROUP_ATTRS),
	FN("PMIx_Group_destruct", TIMEOUT, "PMIX_GROUP_OPTIONAL"),
	FN("PMIx_Group_destruct_nb", TIMEOUT, "PMIX_GROUP_OPTIONAL"),
	FN("PMIx_IOF_pull", IOF_OPTS),
	FN("PMIx_IOF_push", "PMIX_IOF_COMPLETE"),
	{ NULL, NULL },
};

/* The tool library: tool/. */
#define TOOL_CONNECT                                                                              \
	"PMIX_SERVER_PIDINFO", "PMIX_SERVER_NSPACE", "PMIX_SERVER_URI", "PMIX_CONNECT_TO_SYSTEM", \
		"PMIX_CONNECT_SYSTEM_FIRST", "PMIX_SERVER_TMPDIR", "PMIX_SYSTEM_TMPDIR",          \
		"PMIX_TOOL_NSPACE", "PMIX_TOOL_RANK"
static const pxc_attr_fn_t tool_fns[] = {
	FN("PMIx_tool_init", TOOL_CONNECT, "PMIX_TOOL_DO_NOT_CONNECT"),
	FN0("PMIx_tool_finalize"),
	FN0("PMIx_tool_disconnect"),
	FN0("PMIx_tool_get_servers"),
	FN0("PMIx_tool_set_server"),
	FN("PMIx_tool_attach_to_server", TOOL_CONNECT),
	FN("PMIx_tool_connect_to_server", TOOL_CONNECT),
	{ NULL, NULL },
};

static const pxc_attr_fn_t *const tables[PXC_LEVELS] = { client_fns, server_fns, tool_fns, NULL };
static const char *const level_attrs[PXC_LEVELS] = { PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES,
						     PMIX_TOOL_ATTRIBUTES, PMIX_HOST_ATTRIBUTES };
static const char *const level_fns[PXC_LEVELS] = { PMIX_CLIENT_FUNCTIONS, PMIX_SERVER_FUNCTIONS,
						   PMIX_TOOL_FUNCTIONS, PMIX_HOST_FUNCTIONS };
static const char *const level_text[PXC_LEVELS] = { "acted on by the PMIx client library",
						    "acted on by the PMIx server library",
						    "acted on by the PMIx tool library",
						    "acted on by the host environment" };

struct attr_name {
	const char *name;
	const char *string;
	pmix_data_type_t type;
};

static const struct attr_name attr_names[] = {
#include "attr_table.h"
};

const pxc_attr_fn_t *pxc_attr_table(int level)
{
	return level >= 0 && level < PXC_LEVELS ? tables[level] : NULL;
}

bool pxc_attr_lookup(const char *name, const char **string, pmix_data_type_t *type)
{
	for (size_t i = 0; name && i < sizeof(attr_names) / sizeof(attr_names[0]); i++)
		if (strcmp(attr_names[i].name, name) == 0) {
			if (string)
				*string = attr_names[i].string;
			if (type)
				*type = attr_names[i].type;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------ host level */

/* One registration, under every user-facing name it stands for. */
typedef struct {
	char *function;
	char **attrs; /* NULL: none */
} host_fn_t;

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_fn_t *host_fns;
static size_t host_n;

/* The server module's function names (the Standard's form of the
 * registration) -> the user-facing functions they serve. */
static const struct {
	const char *module;
	const char *api[3];
} module_map[] = {
	{ "abort", { "PMIx_Abort" } },
	{ "fence_nb", { "PMIx_Fence", "PMIx_Fence_nb" } },
	{ "direct_modex", { "PMIx_Get", "PMIx_Get_nb" } },
	{ "publish", { "PMIx_Publish", "PMIx_Publish_nb" } },
	{ "lookup", { "PMIx_Lookup", "PMIx_Lookup_nb" } },
	{ "unpublish", { "PMIx_Unpublish", "PMIx_Unpublish_nb" } },
	{ "spawn", { "PMIx_Spawn", "PMIx_Spawn_nb" } },
	{ "connect", { "PMIx_Connect", "PMIx_Connect_nb" } },
	{ "disconnect", { "PMIx_Disconnect", "PMIx_Disconnect_nb" } },
	{ "register_events", { "PMIx_Register_event_handler" } },
	{ "notify_event", { "PMIx_Notify_event" } },
	{ "query", { "PMIx_Query_info", "PMIx_Query_info_nb" } },
	{ "log", { "PMIx_Log", "PMIx_Log_nb" } },
	{ "allocate", { "PMIx_Allocation_request", "PMIx_Allocation_request_nb" } },
	{ "job_control", { "PMIx_Job_control", "PMIx_Job_control_nb" } },
	{ "monitor", { "PMIx_Process_monitor", "PMIx_Process_monitor_nb" } },
	{ "get_credential", { "PMIx_Get_credential", "PMIx_Get_credential_nb" } },
	{ "validate_credential", { "PMIx_Validate_credential", "PMIx_Validate_credential_nb" } },
	{ "iof_pull", { "PMIx_IOF_pull" } },
	{ "push_stdin", { "PMIx_IOF_push" } },
	{ "group", { "PMIx_Group_construct", "PMIx_Group_destruct" } },
};

static bool in_table(const pxc_attr_fn_t *t, const char *f)
{
	for (; t && t->function; t++)
		if (strcmp(t->function, f) == 0)
			return true;
	return false;
}

/* The user-facing names function stands for (at most 3), 0 if none. */
static size_t api_names(const char *function, const char *out[3])
{
	for (size_t i = 0; i < sizeof(module_map) / sizeof(module_map[0]); i++)
		if (strcmp(module_map[i].module, function) == 0) {
			size_t n = 0;

			while (n < 3 && module_map[i].api[n])
				out[n] = module_map[i].api[n], n++;
			return n;
		}
	out[0] = function;
	return in_table(client_fns, function) || in_table(tool_fns, function) ? 1 : 0;
}

static bool host_has(const char *f)
{
	for (size_t i = 0; i < host_n; i++)
		if (strcmp(host_fns[i].function, f) == 0)
			return true;
	return false;
}

/* The name of an attribute given by name ("PMIX_TIMEOUT") or by its
 * string ("pmix.timeout"), NULL if it is none of ours. */
static const char *attr_name(const char *a)
{
	const char *n = PMIx_Get_attribute_name(a);

	return pxc_attr_lookup(n, NULL, NULL) ? n : NULL;
}

/* attrs: NULL, {NULL}, {"N/A"} or {"NONE"} is none; else every entry must
 * be an attribute of ours (a name or a string). */
static pmix_status_t check_attrs(char **attrs, bool *none)
{
	*none = !attrs || !attrs[0] ||
		(!attrs[1] && (strcmp(attrs[0], "N/A") == 0 || strcmp(attrs[0], "NONE") == 0));
	for (size_t i = 0; !*none && attrs[i]; i++)
		if (!attr_name(attrs[i]))
			return PMIX_ERR_BAD_PARAM;
	return PMIX_SUCCESS;
}

/* The names of attrs (checked), as a malloc'ed argv. */
static char **name_copy(char **attrs)
{
	char **v = NULL;

	for (size_t i = 0; attrs[i]; i++)
		if (PMIx_Argv_append_nosize(&v, attr_name(attrs[i])) != PMIX_SUCCESS) {
			PMIx_Argv_free(v);
			return NULL;
		}
	return v;
}

static pmix_status_t host_add(const char *const api[], size_t n, char **attrs, bool none)
{
	host_fn_t *g = realloc(host_fns, (host_n + n) * sizeof(*g));

	if (!g)
		return PMIX_ERR_NOMEM;
	host_fns = g;
	for (size_t i = 0; i < n; i++) {
		host_fn_t *h = &host_fns[host_n + i];

		h->function = strdup(api[i]);
		h->attrs = none ? NULL : name_copy(attrs);
		if (!h->function || (!none && !h->attrs)) {
			/* nothing half-registered: none of api[] is kept */
			for (size_t k = 0; k <= i; k++) {
				free(host_fns[host_n + k].function);
				PMIx_Argv_free(host_fns[host_n + k].attrs);
			}
			return PMIX_ERR_NOMEM;
		}
	}
	host_n += n;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Register_attributes(char *function, char *attrs[])
{
	const char *api[3];
	size_t n;
	bool none;
	pmix_status_t st;

	if (pxc_role != PXC_ROLE_SERVER)
		return PMIX_ERR_INIT;
	if (!function || !(n = api_names(function, api)))
		return PMIX_ERR_BAD_PARAM;
	if ((st = check_attrs(attrs, &none)) != PMIX_SUCCESS)
		return st;
	pthread_mutex_lock(&host_lock);
	for (size_t i = 0; i < n && st == PMIX_SUCCESS; i++)
		if (host_has(api[i]))
			st = PMIX_ERR_REPEAT_ATTR_REGISTRATION;
	if (st == PMIX_SUCCESS)
		st = host_add(api, n, attrs, none);
	pthread_mutex_unlock(&host_lock);
	return st;
}

void pxc_attr_host_clear(void)
{
	pthread_mutex_lock(&host_lock);
	for (size_t i = 0; i < host_n; i++) {
		free(host_fns[i].function);
		PMIx_Argv_free(host_fns[i].attrs);
	}
	free(host_fns);
	host_fns = NULL;
	host_n = 0;
	pthread_mutex_unlock(&host_lock);
}

/* ---------------------------------------------------------------- answer */

/* One level asked: its functions list, or the attributes of wanted
 * (NULL: all). */
typedef struct {
	int level;
	bool fns;
	char **wanted;
} ask_t;

static bool wants(char **wanted, const char *f)
{
	for (size_t i = 0; wanted && wanted[i]; i++)
		if (strcmp(wanted[i], "all") == 0 || strcmp(wanted[i], f) == 0)
			return true;
	return !wanted;
}

/* The level a qualifier names (*fns: a functions key), -1 if none. */
static int level_of(const char *key, bool *fns)
{
	for (int l = 0; l < PXC_LEVELS; l++)
		if (PMIx_Check_key(key, level_attrs[l]) || PMIx_Check_key(key, level_fns[l])) {
			*fns = PMIx_Check_key(key, level_fns[l]);
			return l;
		}
	return -1;
}

/* The functions a bool attributes qualifier asks for: the Standard's
 * form, keys after PMIX_QUERY_ATTRIBUTE_SUPPORT; NULL (all) when none. */
static char **keys_after(const pmix_query_t *q)
{
	if (!q->keys || !q->keys[0] || strcmp(q->keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) ||
	    !q->keys[1])
		return NULL;
	return PMIx_Argv_copy(&q->keys[1]);
}

/* Reads one level qualifier into a (a->level set); false to skip it
 * (a bool false). */
static pmix_status_t read_qual(const pmix_query_t *q, const pmix_info_t *i, ask_t *a, bool *use)
{
	const pmix_value_t *v = &i->value;

	*use = true;
	if (v->type == PMIX_BOOL) {
		*use = v->data.flag;
		if (*use && !a->fns)
			a->wanted = keys_after(q);
		return PMIX_SUCCESS;
	}
	if (a->fns || v->type != PMIX_STRING || !v->data.string)
		return PMIX_ERR_BAD_PARAM;
	a->wanted = PMIx_Argv_split(v->data.string, ',');
	return a->wanted || !v->data.string[0] ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static void asks_free(ask_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		PMIx_Argv_free(a[i].wanted);
	free(a);
}

/* The levels q asks for, in the order of its qualifiers; every level
 * (functions, then attributes) when it names none. */
static pmix_status_t parse(const pmix_query_t *q, ask_t **out, size_t *nout)
{
	ask_t *a = calloc(q->nqual + 2 * PXC_LEVELS, sizeof(*a));
	size_t n = 0;
	bool any = false, use, fns;
	pmix_status_t st = PMIX_SUCCESS;

	if (!a)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; q->qualifiers && i < q->nqual && st == PMIX_SUCCESS; i++) {
		int l = level_of(q->qualifiers[i].key, &fns);

		if (l < 0)
			continue;
		any = true;
		a[n] = (ask_t){ .level = l, .fns = fns };
		st = read_qual(q, &q->qualifiers[i], &a[n], &use);
		if (st == PMIX_SUCCESS && use)
			n++;
		else
			PMIx_Argv_free(a[n].wanted), a[n].wanted = NULL;
	}
	for (int l = 0; !any && l < PXC_LEVELS; l++) {
		a[n++] = (ask_t){ .level = l, .fns = true };
		a[n++] = (ask_t){ .level = l, .wanted = keys_after(q) };
	}
	if (st != PMIX_SUCCESS) {
		asks_free(a, n);
		return st;
	}
	*out = a;
	*nout = n;
	return PMIX_SUCCESS;
}

pmix_status_t pxc_attr_query_check(const pmix_query_t *q, bool *host)
{
	ask_t *a;
	size_t n;
	pmix_status_t st;

	if (!q)
		return PMIX_ERR_BAD_PARAM;
	if ((st = parse(q, &a, &n)) != PMIX_SUCCESS)
		return st;
	if (host) {
		*host = false;
		for (size_t i = 0; i < n; i++)
			*host = *host || a[i].level == PXC_LEVEL_HOST;
	}
	asks_free(a, n);
	return PMIX_SUCCESS;
}

static void snapshot_free(pxc_attr_fn_t *t)
{
	for (size_t i = 0; t && t[i].function; i++) {
		free((char *)t[i].function);
		PMIx_Argv_free((char **)t[i].attrs);
	}
	free(t);
}

/* A copy of the host's table (the lock is not held while answering). */
static pxc_attr_fn_t *host_snapshot(void)
{
	pxc_attr_fn_t *t;

	pthread_mutex_lock(&host_lock);
	t = calloc(host_n + 1, sizeof(*t));
	for (size_t i = 0; t && i < host_n; i++) {
		char *f = strdup(host_fns[i].function);
		char **v = PMIx_Argv_copy(host_fns[i].attrs);

		if (!f || (host_fns[i].attrs && !v)) {
			free(f);
			PMIx_Argv_free(v);
			snapshot_free(t); /* what was copied (t[i] is still empty) */
			t = NULL;
			break;
		}
		t[i].function = f;
		t[i].attrs = (const char *const *)v;
	}
	pthread_mutex_unlock(&host_lock);
	return t;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static pmix_status_t load_regattrs(pmix_info_t *out, const pxc_attr_fn_t *f, int level)
{
	size_t n = count(f->attrs);
	pmix_data_array_t *d = PMIx_Data_array_create(n ? n : 1, PMIX_REGATTR);
	pmix_regattr_t *r;
	const char *s = "";
	pmix_data_type_t t = PMIX_UNDEF;

	if (!d)
		return PMIX_ERR_NOMEM;
	r = d->array;
	if (!n)
		PMIx_Regattr_load(&r[0], "NONE", "", PMIX_UNDEF, level_text[level]);
	for (size_t i = 0; i < n; i++) {
		if (!pxc_attr_lookup(f->attrs[i], &s, &t))
			s = f->attrs[i], t = PMIX_UNDEF; /* a table the tests refuse */
		PMIx_Regattr_load(&r[i], f->attrs[i], s, t, level_text[level]);
	}
	snprintf(out->key, sizeof(out->key), "%s", f->function);
	out->value.type = PMIX_DATA_ARRAY;
	out->value.data.darray = d;
	return PMIX_SUCCESS;
}

static pmix_status_t answer_attrs(pmix_info_t *out, const pxc_attr_fn_t *t, const ask_t *a)
{
	size_t n = 0, k = 0;
	pmix_data_array_t *d;
	pmix_status_t st = PMIX_SUCCESS;

	for (const pxc_attr_fn_t *f = t; f && f->function; f++)
		n += wants(a->wanted, f->function);
	d = n ? PMIx_Data_array_create(n, PMIX_INFO) : calloc(1, sizeof(*d));
	if (!d)
		return PMIX_ERR_NOMEM;
	d->type = PMIX_INFO; /* none asked is known: an empty array */
	out->value.type = PMIX_DATA_ARRAY;
	out->value.data.darray = d;
	for (const pxc_attr_fn_t *f = t; f && f->function && st == PMIX_SUCCESS; f++)
		if (wants(a->wanted, f->function))
			st = load_regattrs(&((pmix_info_t *)d->array)[k++], f, a->level);
	return st;
}

static pmix_status_t answer_fns(pmix_info_t *out, const pxc_attr_fn_t *t)
{
	char **names = NULL;
	char *s;
	pmix_status_t st = PMIX_SUCCESS;

	for (; t && t->function && st == PMIX_SUCCESS; t++)
		st = PMIx_Argv_append_nosize(&names, t->function);
	s = names ? PMIx_Argv_join(names, ',') : strdup("");
	PMIx_Argv_free(names);
	if (st != PMIX_SUCCESS || !s) {
		free(s);
		return PMIX_ERR_NOMEM;
	}
	out->value.type = PMIX_STRING;
	out->value.data.string = s;
	return PMIX_SUCCESS;
}

pmix_status_t pxc_attr_query_answer(const pmix_query_t *q, pxc_infolist_t *r)
{
	ask_t *a;
	size_t n;
	pxc_attr_fn_t *host = NULL;
	pmix_status_t st;

	if (!q || !r)
		return PMIX_ERR_BAD_PARAM;
	if ((st = parse(q, &a, &n)) != PMIX_SUCCESS)
		return st;
	for (size_t i = 0; i < n && st == PMIX_SUCCESS; i++) {
		int l = a[i].level;
		const pxc_attr_fn_t *t = tables[l];
		pmix_info_t *o;

		if (l == PXC_LEVEL_HOST && !host && !(host = host_snapshot())) {
			st = PMIX_ERR_NOMEM;
			break;
		}
		if (l == PXC_LEVEL_HOST)
			t = host;
		/* a level without functions (a host that registered none) has
		 * no functions list, as in OpenPMIx (whose pattrs cannot read
		 * an empty one) */
		if (a[i].fns && !t->function)
			continue;
		if (!(o = pxc_infolist_add(r, a[i].fns ? level_fns[l] : level_attrs[l])))
			st = PMIX_ERR_NOMEM;
		else
			st = a[i].fns ? answer_fns(o, t) : answer_attrs(o, t, &a[i]);
	}
	snapshot_free(host);
	asks_free(a, n);
	return st;
}
