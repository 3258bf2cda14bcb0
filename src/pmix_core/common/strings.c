/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * strings.c - names of status codes, enums and attributes:
 * PMIx_Error_string/_code, PMIx_*_string for scopes, ranges, states, ...,
 * PMIx_Get_attribute_string/_name.
 *
 * PMIx_Error_string returns the text OpenPMIx 4.2.2 (the release our ABI
 * follows and that Debian ships) returns, e.g. "SUCCESS", "NOT-FOUND",
 * because tools print these strings; the texts below were read from that
 * library's PMIx_Error_string. Codes it does not name fall back to their
 * macro name from our header (status_table.h), then to "ERROR STRING NOT
 * FOUND". PMIx_Error_code accepts either form, case-insensitively, and
 * returns INT32_MIN for an unknown name, as later OpenPMIx releases do.
 *
 * The attribute functions map a macro name ("PMIX_JOB_SIZE") to its
 * string ("pmix.job.size") and back through attr_table.h, generated from
 * our pmix_common.h by gen_tables.py; an unknown input is returned as is.
 *
 * Enum strings: same words as OpenPMIx 4.2.2. PMIx_IOF_channel_string
 * returns one of sixteen static strings, so unlike OpenPMIx's it is
 * thread-safe.
 *
 * Thread safety: all functions are reentrant.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <pmix.h>

struct code_text {
	pmix_status_t code;
	const char *text;
};

/* Texts returned by OpenPMIx 4.2.2's PMIx_Error_string. */
static const struct code_text texts_422[] = {
	{ -1367, "PMIX TEMPORARILY UNAVAILABLE" },
	{ -1366, "TAKE-NEXT-OPTION" },
	{ -1363, "FABRIC_NOT_PARSEABLE" },
	{ -404, "PROC-EXIT-NONZERO-TERM" },
	{ -403, "PROC-SENSOR-BOUND-EXCEEDED" },
	{ -402, "PROC-ABORTED-BY-SIG" },
	{ -401, "PROC-FAILED-TO-START" },
	{ -400, "PROC-KILLED-BY-CMD" },
	{ -334, "EVENT-ACTION-COMPLETE" },
	{ -333, "EVENT-ACTION-DEFERRED" },
	{ -332, "EVENT-PARTIAL-ACTION-TAKEN" },
	{ -331, "EVENT-NO-ACTION-TAKEN" },
	{ -330, "UNDEFINED-SYSTEM-EVENT" },
	{ -235, "SYSTEM OPERATION FAILED" },
	{ -234, "INSUFFICIENT RESOURCES" },
	{ -233, "WORKING DIRECTORY NOT FOUND" },
	{ -232, "NODE-OFFLINE" },
	{ -231, "NODE-DOWN" },
	{ -230, "SYSTEM BASE EVENT" },
	{ -201, "PROC TERMINATED" },
	{ -200, "PROC TERMINATED WITHOUT SYNC" },
	{ -193, "SESSION ENDED" },
	{ -192, "SESSION STARTED" },
	{ -191, "JOB STARTED" },
	{ -190, "EXECUTABLE NOT FOUND" },
	{ -189, "JOB ABORTED BY SYSTEM EVENT" },
	{ -188, "FAILED TO OBTAIN ALLOCATION" },
	{ -187, "NON-ZERO TERMINATION" },
	{ -186, "SENSOR BOUND EXCEEDED" },
	{ -185, "TERMINATED WITHOUT SYNC" },
	{ -184, "ABORTED BY SIGNAL" },
	{ -183, "KILLED BY COMMAND" },
	{ -182, "JOB ABORTED" },
	{ -181, "JOB FAILED TO LAUNCH" },
	{ -180, "JOB CANCELED" },
	{ -179, "JOB FAILED TO MAP" },
	{ -178, "NO EXECUTABLE SPECIFIED" },
	{ -177, "APPLICATION NOT EXECUTABLE" },
	{ -176, "FABRIC-UPDATE-PENDING" },
	{ -175, "FABRIC-UPDATED" },
	{ -174, "PMIX LAUNCH COMPLETE" },
	{ -173, "IOF COMPLETE" },
	{ -172, "IOF FAILURE" },
	{ -171, "REPEAT-ATTRIBUTE-REGISTRATION" },
	{ -170, "GROUP-MEMBER-FAILED" },
	{ -169, "GROUP-CONTEXT-ID-ASSIGNED" },
	{ -168, "GROUP-LEADER-FAILED" },
	{ -167, "GROUP-LEADER-SELECTED" },
	{ -166, "GROUP-CONSTRUCT-COMPLETE" },
	{ -165, "GROUP-CONSTRUCT-ABORT" },
	{ -164, "GROUP-MEMBERSHIP-UPDATE" },
	{ -163, "GROUP-INVITE-FAILED" },
	{ -162, "GROUP-INVITE-DECLINED" },
	{ -161, "GROUP-INVITE-ACCEPTED" },
	{ -160, "GROUP-LEFT" },
	{ -159, "GROUP-INVITED" },
	{ -158, "INVALID-OPERATION" },
	{ -157, "OPERATION-SUCCEEDED" },
	{ -156, "OPERATION-IN-PROGRESS" },
	{ -155, "LAUNCHER-READY" },
	{ -153, "OPENMP-PARALLEL-EXITED" },
	{ -152, "OPENMP-PARALLEL-ENTERED" },
	{ -150, "CONNECT-REQUESTED" },
	{ -149, "PROC-HAS-CONNECTED" },
	{ -148, "GDS-ACTION-COMPLETE" },
	{ -147, "PMIX MODEL DECLARED" },
	{ -146, "UPDATE-ENDPOINTS" },
	{ -145, "JOB ENDED" },
	{ -144, "EVENT-REGISTRATION" },
	{ -113, "FABRIC-UPDATE-ENDPOINTS" },
	{ -112, "INVALID-TERMINATION" },
	{ -111, "PROC-TERMINATED" },
	{ -110, "PMIX FILE MONITOR ALERT" },
	{ -109, "PMIX HEARTBEAT ALERT" },
	{ -108, "PMIX PRE-EMPTION ALERT" },
	{ -107, "PMIX JOB CONTROL CHECKPOINT COMPLETE" },
	{ -106, "PMIX JOB CONTROL CHECKPOINT" },
	{ -105, "PMIX ALLOC OPERATION COMPLETE" },
	{ -104, "QUERY-PARTIAL-SUCCESS" },
	{ -74, "WDIR NOT ACCESSIBLE" },
	{ -73, "EXE NOT ACCESSIBLE" },
	{ -72, "PIPE_SETUP_FAILURE" },
	{ -71, "SYS_LIMITS_CHILDREN" },
	{ -70, "SYS_LIMITS_PIPES" },
	{ -69, "FILE_WRITE_FAILURE" },
	{ -68, "FILE_READ_FAILURE" },
	{ -67, "FILE_OPEN_FAILURE" },
	{ -65, "VALUE_OUT_OF_BOUNDS" },
	{ -64, "NOT_AVAILABLE" },
	{ -63, "FATAL" },
	{ -62, "OUTSIDE-SCOPE" },
	{ -61, "LOST_CONNECTION" },
	{ -60, "EMPTY" },
	{ -59, "PARAM-VALUE-NOT-SUPPORTED" },
	{ -58, "READY-FOR-DEBUG" },
	{ -55, "PROCESS SET DEFINED" },
	{ -53, "DUPLICATE KEY" },
	{ -52, "PARTIAL SUCCESS" },
	{ -51, "PMIX CONFLICTING CLEANUP DIRECTIVES" },
	{ -50, "UNPACK-PAST-END" },
	{ -49, "COMM-FAILURE" },
	{ -48, "NOT-IMPLEMENTED" },
	{ -47, "NOT-SUPPORTED" },
	{ -46, "NOT-FOUND" },
	{ -45, "SERVER-NOT-AVAIL" },
	{ -44, "INVALID-NAMESPACE" },
	{ -43, "INVALID-SIZE" },
	{ -42, "INVALID-KEYVAL" },
	{ -41, "INVALID-NUM-PARSED" },
	{ -40, "INVALID-ARGS" },
	{ -39, "INVALID-NUM-ARGS" },
	{ -38, "INVALID-LENGTH" },
	{ -37, "INVALID-VAL-LENGTH" },
	{ -36, "INVALID-VAL" },
	{ -35, "INVALID-KEY-LENGTH" },
	{ -34, "INVALID-KEY" },
	{ -33, "INVALID-ARG" },
	{ -32, "NO-MEM" },
	{ -31, "INIT" },
	{ -30, "DATA-VALUE-NOT-FOUND" },
	{ -29, "OUT-OF-RESOURCE" },
	{ -28, "RESOURCE-BUSY" },
	{ -27, "BAD-PARAM" },
	{ -26, "ERR-IN-ERRNO" },
	{ -25, "UNREACHABLE" },
	{ -24, "TIMEOUT" },
	{ -23, "NO-PERMISSIONS" },
	{ -22, "PACK-MISMATCH" },
	{ -21, "PACK-FAILURE" },
	{ -20, "UNPACK-FAILURE" },
	{ -19, "UNPACK-INADEQUATE-SPACE" },
	{ -18, "TYPE-MISMATCH" },
	{ -17, "PROC-ENTRY-NOT-FOUND" },
	{ -16, "UNKNOWN-DATA-TYPE" },
	{ -15, "WOULD-BLOCK" },
	{ -14, "READY-FOR-HANDSHAKE" },
	{ -13, "HANDSHAKE-FAILED" },
	{ -12, "INVALID-CREDENTIAL" },
	{ -11, "EXISTS" },
	{ -10, "SERVER FAILED REQUEST" },
	{ -9, "PROC-ABORTING" },
	{ -8, "PROC-ABORT-REQUESTED" },
	{ -7, "PROC-ABORTED" },
	{ -6, "PROC-MIGRATE" },
	{ -5, "PROC-CHECKPOINT-ERROR" },
	{ -4, "PROC_RESTART" },
	{ -3, "DEBUGGER-RELEASE" },
	{ -2, "SILENT_ERROR" },
	{ -1, "ERROR" },
	{ 0, "SUCCESS" },
};

struct status_name {
	pmix_status_t code;
	const char *name;
	bool alias; /* another name for a code listed earlier */
};

static const struct status_name status_names[] = {
#include "status_table.h"
};

struct attr_name {
	const char *name;
	const char *string;
	pmix_data_type_t type; /* unused here: attr_support.c's regattrs */
};

static const struct attr_name attrs[] = {
#include "attr_table.h"
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *PMIx_Error_string(pmix_status_t status)
{
	size_t i;

	for (i = 0; i < COUNT(texts_422); i++)
		if (texts_422[i].code == status)
			return texts_422[i].text;
	for (i = 0; i < COUNT(status_names); i++)
		if (status_names[i].code == status)
			return status_names[i].name;
	return "ERROR STRING NOT FOUND";
}

pmix_status_t PMIx_Error_code(const char *errname)
{
	size_t i;

	if (!errname)
		return INT32_MIN;
	for (i = 0; i < COUNT(status_names); i++)
		if (!strcasecmp(status_names[i].name, errname))
			return status_names[i].code;
	for (i = 0; i < COUNT(texts_422); i++)
		if (!strcasecmp(texts_422[i].text, errname))
			return texts_422[i].code;
	return INT32_MIN;
}

const char *PMIx_Get_attribute_string(const char *attribute)
{
	size_t i;

	for (i = 0; attribute && i < COUNT(attrs); i++)
		if (!strcmp(attrs[i].name, attribute))
			return attrs[i].string;
	return attribute;
}

const char *PMIx_Get_attribute_name(const char *attrstring)
{
	size_t i;

	for (i = 0; attrstring && i < COUNT(attrs); i++)
		if (!strcmp(attrs[i].string, attrstring))
			return attrs[i].name;
	return attrstring;
}

const char *PMIx_Proc_state_string(pmix_proc_state_t state)
{
	switch (state) {
	case PMIX_PROC_STATE_UNDEF: return "UNDEFINED";
	case PMIX_PROC_STATE_PREPPED: return "PREPPED FOR LAUNCH";
	case PMIX_PROC_STATE_LAUNCH_UNDERWAY: return "LAUNCH UNDERWAY";
	case PMIX_PROC_STATE_RESTART: return "PROC READY FOR RESTART";
	case PMIX_PROC_STATE_TERMINATE: return "PROC MARKED FOR TERMINATION";
	case PMIX_PROC_STATE_RUNNING: return "PROC EXECUTING";
	case PMIX_PROC_STATE_CONNECTED: return "PROC HAS CONNECTED TO LOCAL PMIX SERVER";
	case PMIX_PROC_STATE_UNTERMINATED: return "PROC HAS NOT TERMINATED";
	case PMIX_PROC_STATE_TERMINATED: return "PROC HAS TERMINATED";
	case PMIX_PROC_STATE_ERROR: return "PROC ERROR";
	case PMIX_PROC_STATE_KILLED_BY_CMD: return "PROC KILLED BY CMD";
	case PMIX_PROC_STATE_ABORTED: return "PROC ABNORMALLY ABORTED";
	case PMIX_PROC_STATE_FAILED_TO_START: return "PROC FAILED TO START";
	case PMIX_PROC_STATE_ABORTED_BY_SIG: return "PROC ABORTED BY SIGNAL";
	case PMIX_PROC_STATE_TERM_WO_SYNC: return "PROC TERMINATED WITHOUT CALLING PMIx_Finalize";
	case PMIX_PROC_STATE_COMM_FAILED: return "PROC LOST COMMUNICATION";
	case PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED: return "PROC SENSOR BOUND EXCEEDED";
	case PMIX_PROC_STATE_CALLED_ABORT: return "PROC CALLED PMIx_Abort";
	case PMIX_PROC_STATE_HEARTBEAT_FAILED: return "PROC FAILED TO REPORT HEARTBEAT";
	case PMIX_PROC_STATE_MIGRATING: return "PROC WAITING TO MIGRATE";
	case PMIX_PROC_STATE_CANNOT_RESTART: return "PROC CANNOT BE RESTARTED";
	case PMIX_PROC_STATE_TERM_NON_ZERO: return "PROC TERMINATED WITH NON-ZERO STATUS";
	case PMIX_PROC_STATE_FAILED_TO_LAUNCH: return "PROC FAILED TO LAUNCH";
	default: return "UNKNOWN STATE";
	}
}

const char *PMIx_Scope_string(pmix_scope_t scope)
{
	switch (scope) {
	case PMIX_SCOPE_UNDEF: return "UNDEFINED";
	case PMIX_LOCAL: return "SHARE ON LOCAL NODE ONLY";
	case PMIX_REMOTE: return "SHARE ON REMOTE NODES ONLY";
	case PMIX_GLOBAL: return "SHARE ACROSS ALL NODES";
	case PMIX_INTERNAL: return "STORE INTERNALLY";
	default: return "UNKNOWN SCOPE";
	}
}

const char *PMIx_Persistence_string(pmix_persistence_t persist)
{
	switch (persist) {
	case PMIX_PERSIST_INDEF: return "INDEFINITE";
	case PMIX_PERSIST_FIRST_READ: return "DELETE ON FIRST ACCESS";
	case PMIX_PERSIST_PROC: return "RETAIN UNTIL PUBLISHING PROCESS TERMINATES";
	case PMIX_PERSIST_APP: return "RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES";
	case PMIX_PERSIST_SESSION:
		return "RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES";
	case PMIX_PERSIST_INVALID: return "INVALID";
	default: return "UNKNOWN PERSISTENCE";
	}
}

const char *PMIx_Data_range_string(pmix_data_range_t range)
{
	switch (range) {
	case PMIX_RANGE_UNDEF: return "UNDEFINED";
	case PMIX_RANGE_RM: return "INTENDED FOR HOST RESOURCE MANAGER ONLY";
	case PMIX_RANGE_LOCAL: return "AVAIL ON LOCAL NODE ONLY";
	case PMIX_RANGE_NAMESPACE: return "AVAIL TO PROCESSES IN SAME JOB ONLY";
	case PMIX_RANGE_SESSION: return "AVAIL TO PROCESSES IN SAME ALLOCATION ONLY";
	case PMIX_RANGE_GLOBAL: return "AVAIL TO ANYONE WITH AUTHORIZATION";
	case PMIX_RANGE_CUSTOM: return "AVAIL AS SPECIFIED IN DIRECTIVES";
	case PMIX_RANGE_PROC_LOCAL: return "AVAIL ON LOCAL PROC ONLY";
	case PMIX_RANGE_INVALID: return "INVALID";
	default: return "UNKNOWN";
	}
}

const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive)
{
	switch (directive) {
	case PMIX_ALLOC_NEW: return "NEW";
	case PMIX_ALLOC_EXTEND: return "EXTEND";
	case PMIX_ALLOC_RELEASE: return "RELEASE";
	case PMIX_ALLOC_REAQUIRE: return "REACQUIRE";
	default: return "UNSPECIFIED";
	}
}

const char *PMIx_Job_state_string(pmix_job_state_t state)
{
	switch (state) {
	case PMIX_JOB_STATE_UNDEF: return "UNDEFINED";
	case PMIX_JOB_STATE_PREPPED: return "PREPPED FOR LAUNCH";
	case PMIX_JOB_STATE_LAUNCH_UNDERWAY: return "LAUNCHING";
	case PMIX_JOB_STATE_RUNNING: return "RUNNING";
	case PMIX_JOB_STATE_SUSPENDED: return "SUSPENDED";
	case PMIX_JOB_STATE_CONNECTED: return "CONNECTED";
	case PMIX_JOB_STATE_UNTERMINATED: return "UNTERMINATED";
	case PMIX_JOB_STATE_TERMINATED: return "TERMINATED";
	case PMIX_JOB_STATE_TERMINATED_WITH_ERROR: return "TERMINATED WITH ERROR";
	default: return "UNKNOWN";
	}
}

const char *PMIx_Link_state_string(pmix_link_state_t state)
{
	switch (state) {
	case PMIX_LINK_DOWN: return "INACTIVE";
	case PMIX_LINK_UP: return "ACTIVE";
	default: return "UNKNOWN";
	}
}

const char *PMIx_Device_type_string(pmix_device_type_t type)
{
	switch (type) {
	case PMIX_DEVTYPE_BLOCK: return "BLOCK";
	case PMIX_DEVTYPE_GPU: return "GPU";
	case PMIX_DEVTYPE_NETWORK: return "NETWORK";
	case PMIX_DEVTYPE_OPENFABRICS: return "OPENFABRICS";
	case PMIX_DEVTYPE_DMA: return "DMA";
	case PMIX_DEVTYPE_COPROC: return "COPROCESSOR";
	default: return "UNKNOWN";
	}
}

const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp)
{
	switch (cmp) {
	case PMIX_EQUAL: return "EQUAL";
	case PMIX_VALUE1_GREATER: return "VALUE1 GREATER";
	case PMIX_VALUE2_GREATER: return "VALUE2 GREATER";
	case PMIX_VALUE_TYPE_DIFFERENT: return "DIFFERENT TYPES";
	case PMIX_VALUE_INCOMPATIBLE_OBJECTS: return "INCOMPATIBLE OBJECTS";
	case PMIX_VALUE_COMPARISON_NOT_AVAIL: return "COMPARISON NOT AVAILABLE";
	default: return "UNKNOWN VALUE";
	}
}

/* "STDIN STDOUT STDERR STDDIAG " subsets, indexed by the four channel bits. */
static const char *const iof_names[16] = {
	"NONE",
	"STDIN ",
	"STDOUT ",
	"STDIN STDOUT ",
	"STDERR ",
	"STDIN STDERR ",
	"STDOUT STDERR ",
	"STDIN STDOUT STDERR ",
	"STDDIAG ",
	"STDIN STDDIAG ",
	"STDOUT STDDIAG ",
	"STDIN STDOUT STDDIAG ",
	"STDERR STDDIAG ",
	"STDIN STDERR STDDIAG ",
	"STDOUT STDERR STDDIAG ",
	"STDIN STDOUT STDERR STDDIAG ",
};

const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel)
{
	unsigned bits = 0;

	if (channel & PMIX_FWD_STDIN_CHANNEL)
		bits |= 1;
	if (channel & PMIX_FWD_STDOUT_CHANNEL)
		bits |= 2;
	if (channel & PMIX_FWD_STDERR_CHANNEL)
		bits |= 4;
	if (channel & PMIX_FWD_STDDIAG_CHANNEL)
		bits |= 8;
	return iof_names[bits];
}

const char *PMIx_Data_type_string(pmix_data_type_t type)
{
	static const char *const names[] = {
		[PMIX_BOOL] = "PMIX_BOOL",
		[PMIX_BYTE] = "PMIX_BYTE",
		[PMIX_STRING] = "PMIX_STRING",
		[PMIX_SIZE] = "PMIX_SIZE",
		[PMIX_PID] = "PMIX_PID",
		[PMIX_INT] = "PMIX_INT",
		[PMIX_INT8] = "PMIX_INT8",
		[PMIX_INT16] = "PMIX_INT16",
		[PMIX_INT32] = "PMIX_INT32",
		[PMIX_INT64] = "PMIX_INT64",
		[PMIX_UINT] = "PMIX_UINT",
		[PMIX_UINT8] = "PMIX_UINT8",
		[PMIX_UINT16] = "PMIX_UINT16",
		[PMIX_UINT32] = "PMIX_UINT32",
		[PMIX_UINT64] = "PMIX_UINT64",
		[PMIX_FLOAT] = "PMIX_FLOAT",
		[PMIX_DOUBLE] = "PMIX_DOUBLE",
		[PMIX_TIMEVAL] = "PMIX_TIMEVAL",
		[PMIX_TIME] = "PMIX_TIME",
		[PMIX_STATUS] = "PMIX_STATUS",
		[PMIX_VALUE] = "PMIX_VALUE",
		[PMIX_PROC] = "PMIX_PROC",
		[PMIX_APP] = "PMIX_APP",
		[PMIX_INFO] = "PMIX_INFO",
		[PMIX_PDATA] = "PMIX_PDATA",
		[26] = "PMIX_BUFFER",
		[PMIX_BYTE_OBJECT] = "PMIX_BYTE_OBJECT",
		[PMIX_KVAL] = "PMIX_KVAL",
		[PMIX_PERSIST] = "PMIX_PERSIST",
		[PMIX_POINTER] = "PMIX_POINTER",
		[PMIX_SCOPE] = "PMIX_SCOPE",
		[PMIX_DATA_RANGE] = "PMIX_DATA_RANGE",
		[PMIX_COMMAND] = "PMIX_COMMAND",
		[PMIX_INFO_DIRECTIVES] = "PMIX_INFO_DIRECTIVES",
		[PMIX_DATA_TYPE] = "PMIX_DATA_TYPE",
		[PMIX_PROC_STATE] = "PMIX_PROC_STATE",
		[PMIX_PROC_INFO] = "PMIX_PROC_INFO",
		[PMIX_DATA_ARRAY] = "PMIX_DATA_ARRAY",
		[PMIX_PROC_RANK] = "PMIX_PROC_RANK",
		[PMIX_QUERY] = "PMIX_QUERY",
		[PMIX_COMPRESSED_STRING] = "PMIX_COMPRESSED_STRING",
		[PMIX_ALLOC_DIRECTIVE] = "PMIX_ALLOC_DIRECTIVE",
		[PMIX_IOF_CHANNEL] = "PMIX_IOF_CHANNEL",
		[PMIX_ENVAR] = "PMIX_ENVAR",
		[PMIX_COORD] = "PMIX_COORD",
		[PMIX_REGATTR] = "PMIX_REGATTR",
		[PMIX_REGEX] = "PMIX_REGEX",
		[PMIX_JOB_STATE] = "PMIX_JOB_STATE",
		[PMIX_LINK_STATE] = "PMIX_LINK_STATE",
		[PMIX_PROC_CPUSET] = "PMIX_PROC_CPUSET",
		[PMIX_GEOMETRY] = "PMIX_GEOMETRY",
		[PMIX_DEVICE_DIST] = "PMIX_DEVICE_DIST",
		[PMIX_ENDPOINT] = "PMIX_ENDPOINT",
		[PMIX_TOPO] = "PMIX_TOPO",
		[PMIX_DEVTYPE] = "PMIX_DEVTYPE",
		[PMIX_LOCTYPE] = "PMIX_LOCTYPE",
		[PMIX_COMPRESSED_BYTE_OBJECT] = "PMIX_COMPRESSED_BYTE_OBJECT",
		[PMIX_PROC_NSPACE] = "PMIX_PROC_NSPACE",
		[PMIX_PROC_STATS] = "PMIX_PROC_STATS",
		[PMIX_DISK_STATS] = "PMIX_DISK_STATS",
		[PMIX_NET_STATS] = "PMIX_NET_STATS",
		[PMIX_NODE_STATS] = "PMIX_NODE_STATS",
		[PMIX_DATA_BUFFER] = "PMIX_DATA_BUFFER",
		[PMIX_STOR_MEDIUM] = "PMIX_STOR_MEDIUM",
		[PMIX_STOR_ACCESS] = "PMIX_STOR_ACCESS",
		[PMIX_STOR_PERSIST] = "PMIX_STOR_PERSIST",
		[PMIX_STOR_ACCESS_TYPE] = "PMIX_STOR_ACCESS_TYPE",
	};

	if (type < COUNT(names) && names[type])
		return names[type];
	return "NOT INITIALIZED";
}
