/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_common.h - types, constants, attribute keys and helper macros shared
 * by the client, server and tool interfaces of slurmix's PMIx library.
 *
 * This header is written for binary compatibility with OpenPMIx 4.2: every
 * struct below has the same members in the same order, every constant and
 * attribute key has the same value, so programs built against OpenPMIx
 * headers run against our libpmix.so.2 and the other way round.  Layouts are
 * checked by tests/abi (abi_check.sh) against the installed OpenPMIx headers,
 * and by the _Static_assert block at the end when PXC_ABI_ASSERTS is defined.
 *
 * The convenience macros (PMIX_INFO_CREATE, PMIX_VALUE_LOAD, ...) expand to
 * calls into the library, as OpenPMIx 4.2.3 and later do; nothing here
 * allocates behind the caller's back with a private allocator, so memory
 * from malloc() may be handed to the library and released by it.
 *
 * Comments after an attribute key give the type of the value that goes with
 * it in a pmix_info_t.
 */
#ifndef SLURMIX_PMIX_COMMON_H
#define SLURMIX_PMIX_COMMON_H

#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <pmix_version.h>

/* Symbols of the public API.  The library is built with
 * -fvisibility=hidden, so everything it exports is marked with this. */
#ifndef PMIX_EXPORT
#define PMIX_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Scalar types                                                        */
/* ------------------------------------------------------------------ */

#define PMIX_MAX_NSLEN  255
#define PMIX_MAX_KEYLEN 511

typedef char pmix_nspace_t[PMIX_MAX_NSLEN + 1];  /* job (namespace) name */
typedef char pmix_key_t[PMIX_MAX_KEYLEN + 1];    /* attribute or data key */

typedef uint32_t pmix_rank_t;
typedef int      pmix_status_t;
typedef uint16_t pmix_data_type_t;
typedef uint32_t pmix_info_directives_t;
typedef uint8_t  pmix_scope_t;
typedef uint8_t  pmix_data_range_t;
typedef uint8_t  pmix_persistence_t;
typedef uint8_t  pmix_proc_state_t;
typedef uint8_t  pmix_job_state_t;
typedef uint8_t  pmix_alloc_directive_t;
typedef uint8_t  pmix_link_state_t;
typedef uint8_t  pmix_coord_view_t;
typedef uint8_t  pmix_bind_envelope_t;
typedef uint16_t pmix_iof_channel_t;
typedef uint16_t pmix_locality_t;
typedef uint16_t pmix_storage_access_type_t;
typedef uint64_t pmix_device_type_t;
typedef uint64_t pmix_storage_medium_t;
typedef uint64_t pmix_storage_accessibility_t;
typedef uint64_t pmix_storage_persistence_t;

/* Result of PMIx_Value_compare. */
typedef enum {
    PMIX_EQUAL,
    PMIX_VALUE1_GREATER,
    PMIX_VALUE2_GREATER,
    PMIX_VALUE_TYPE_DIFFERENT,
    PMIX_VALUE_INCOMPATIBLE_OBJECTS,
    PMIX_VALUE_COMPARISON_NOT_AVAIL
} pmix_value_cmp_t;

/* Answer to a group invitation (PMIx_Group_join). */
typedef enum {
    PMIX_GROUP_DECLINE,
    PMIX_GROUP_ACCEPT
} pmix_group_opt_t;

/* Operation passed to the host's group callback. */
typedef enum {
    PMIX_GROUP_CONSTRUCT,
    PMIX_GROUP_DESTRUCT
} pmix_group_operation_t;

/* Result of PMIx_Value_true / PMIx_Info_true: a value may hold a boolean,
 * a string spelling one ("true", "no", ...), or something else. */
typedef enum {
    PMIX_BOOL_TRUE,
    PMIX_BOOL_FALSE,
    PMIX_NON_BOOL
} pmix_boolean_t;

/* Operation passed to the host's fabric callback. */
typedef enum {
    PMIX_FABRIC_REQUEST_INFO,
    PMIX_FABRIC_UPDATE_INFO
} pmix_fabric_operation_t;

/* ------------------------------------------------------------------ */
/* Constants                                                           */
/* ------------------------------------------------------------------ */

/* Special ranks (pmix_rank_t) */
#define PMIX_RANK_UNDEF       UINT32_MAX
#define PMIX_APP_WILDCARD     UINT32_MAX
#define PMIX_RANK_WILDCARD    (UINT32_MAX - 1)
#define PMIX_RANK_LOCAL_NODE  (UINT32_MAX - 2)
#define PMIX_RANK_INVALID     (UINT32_MAX - 3)
#define PMIX_RANK_LOCAL_PEERS (UINT32_MAX - 4)
#define PMIX_RANK_VALID       (UINT32_MAX - 50)

/* Data types (pmix_data_type_t): the tag in pmix_value_t.type */
#define PMIX_UNDEF                  0
#define PMIX_BOOL                   1
#define PMIX_BYTE                   2
#define PMIX_STRING                 3
#define PMIX_SIZE                   4
#define PMIX_PID                    5
#define PMIX_INT                    6
#define PMIX_INT8                   7
#define PMIX_INT16                  8
#define PMIX_INT32                  9
#define PMIX_INT64                  10
#define PMIX_UINT                   11
#define PMIX_UINT8                  12
#define PMIX_UINT16                 13
#define PMIX_UINT32                 14
#define PMIX_UINT64                 15
#define PMIX_FLOAT                  16
#define PMIX_DOUBLE                 17
#define PMIX_TIMEVAL                18
#define PMIX_TIME                   19
#define PMIX_STATUS                 20
#define PMIX_VALUE                  21
#define PMIX_PROC                   22
#define PMIX_APP                    23
#define PMIX_INFO                   24
#define PMIX_PDATA                  25
#define PMIX_BYTE_OBJECT            27
#define PMIX_KVAL                   28
#define PMIX_PERSIST                30
#define PMIX_POINTER                31
#define PMIX_SCOPE                  32
#define PMIX_DATA_RANGE             33
#define PMIX_COMMAND                34
#define PMIX_INFO_DIRECTIVES        35
#define PMIX_DATA_TYPE              36
#define PMIX_PROC_STATE             37
#define PMIX_PROC_INFO              38
#define PMIX_DATA_ARRAY             39
#define PMIX_PROC_RANK              40
#define PMIX_QUERY                  41
#define PMIX_COMPRESSED_STRING      42
#define PMIX_ALLOC_DIRECTIVE        43
#define PMIX_IOF_CHANNEL            45
#define PMIX_ENVAR                  46
#define PMIX_COORD                  47
#define PMIX_REGATTR                48
#define PMIX_REGEX                  49
#define PMIX_JOB_STATE              50
#define PMIX_LINK_STATE             51
#define PMIX_PROC_CPUSET            52
#define PMIX_GEOMETRY               53
#define PMIX_DEVICE_DIST            54
#define PMIX_ENDPOINT               55
#define PMIX_TOPO                   56
#define PMIX_DEVTYPE                57
#define PMIX_LOCTYPE                58
#define PMIX_COMPRESSED_BYTE_OBJECT 59
#define PMIX_PROC_NSPACE            60
#define PMIX_PROC_STATS             61
#define PMIX_DISK_STATS             62
#define PMIX_NET_STATS              63
#define PMIX_NODE_STATS             64
#define PMIX_DATA_BUFFER            65
#define PMIX_STOR_MEDIUM            66
#define PMIX_STOR_ACCESS            67
#define PMIX_STOR_PERSIST           68
#define PMIX_STOR_ACCESS_TYPE       69
#define PMIX_DATA_TYPE_MAX          500

/* Status and event codes (pmix_status_t), from 0 downwards */
#define PMIX_SUCCESS                            0
#define PMIX_ERROR                              (-1)
#define PMIX_DEBUGGER_RELEASE                   (-3)
#define PMIX_ERR_PROC_RESTART                   (-4)
#define PMIX_ERR_PROC_CHECKPOINT                (-5)
#define PMIX_ERR_PROC_MIGRATE                   (-6)
#define PMIX_ERR_PROC_REQUESTED_ABORT           (-8)
#define PMIX_ERR_EXISTS                         (-11)
#define PMIX_ERR_INVALID_CRED                   (-12)
#define PMIX_ERR_WOULD_BLOCK                    (-15)
#define PMIX_ERR_UNKNOWN_DATA_TYPE              (-16)
#define PMIX_ERR_TYPE_MISMATCH                  (-18)
#define PMIX_ERR_UNPACK_INADEQUATE_SPACE        (-19)
#define PMIX_ERR_UNPACK_FAILURE                 (-20)
#define PMIX_ERR_PACK_FAILURE                   (-21)
#define PMIX_ERR_NO_PERMISSIONS                 (-23)
#define PMIX_ERR_TIMEOUT                        (-24)
#define PMIX_ERR_UNREACH                        (-25)
#define PMIX_ERR_BAD_PARAM                      (-27)
#define PMIX_ERR_RESOURCE_BUSY                  (-28)
#define PMIX_ERR_OUT_OF_RESOURCE                (-29)
#define PMIX_ERR_INIT                           (-31)
#define PMIX_ERR_NOMEM                          (-32)
#define PMIX_ERR_NOT_FOUND                      (-46)
#define PMIX_ERR_NOT_SUPPORTED                  (-47)
#define PMIX_ERR_COMM_FAILURE                   (-49)
#define PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50)
#define PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES (-51)
#define PMIX_ERR_PARTIAL_SUCCESS                (-52)
#define PMIX_ERR_DUPLICATE_KEY                  (-53)
#define PMIX_PROCESS_SET_DEFINE                 (-55)
#define PMIX_PROCESS_SET_DELETE                 (-56)
#define PMIX_READY_FOR_DEBUG                    (-58)
#define PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED      (-59)
#define PMIX_ERR_EMPTY                          (-60)
#define PMIX_ERR_LOST_CONNECTION                (-61)
#define PMIX_ERR_EXISTS_OUTSIDE_SCOPE           (-62)
#define PMIX_QUERY_PARTIAL_SUCCESS              (-104)
#define PMIX_JCTRL_CHECKPOINT                   (-106)
#define PMIX_JCTRL_CHECKPOINT_COMPLETE          (-107)
#define PMIX_JCTRL_PREEMPT_ALERT                (-108)
#define PMIX_MONITOR_HEARTBEAT_ALERT            (-109)
#define PMIX_MONITOR_FILE_ALERT                 (-110)
#define PMIX_PROC_TERMINATED                    (-111)
#define PMIX_FABRIC_UPDATE_ENDPOINTS            (-113)
#define PMIX_ERR_EVENT_REGISTRATION             (-144)
#define PMIX_EVENT_JOB_END                      (-145)
#define PMIX_MODEL_DECLARED                     (-147)
#define PMIX_MODEL_RESOURCES                    (-151)
#define PMIX_OPENMP_PARALLEL_ENTERED            (-152)
#define PMIX_OPENMP_PARALLEL_EXITED             (-153)
#define PMIX_LAUNCHER_READY                     (-155)
#define PMIX_OPERATION_IN_PROGRESS              (-156)
#define PMIX_OPERATION_SUCCEEDED                (-157)
#define PMIX_ERR_INVALID_OPERATION              (-158)
#define PMIX_GROUP_INVITED                      (-159)
#define PMIX_GROUP_LEFT                         (-160)
#define PMIX_GROUP_INVITE_ACCEPTED              (-161)
#define PMIX_GROUP_INVITE_DECLINED              (-162)
#define PMIX_GROUP_INVITE_FAILED                (-163)
#define PMIX_GROUP_MEMBERSHIP_UPDATE            (-164)
#define PMIX_GROUP_CONSTRUCT_ABORT              (-165)
#define PMIX_GROUP_CONSTRUCT_COMPLETE           (-166)
#define PMIX_GROUP_LEADER_SELECTED              (-167)
#define PMIX_GROUP_LEADER_FAILED                (-168)
#define PMIX_GROUP_CONTEXT_ID_ASSIGNED          (-169)
#define PMIX_GROUP_MEMBER_FAILED                (-170)
#define PMIX_ERR_REPEAT_ATTR_REGISTRATION       (-171)
#define PMIX_ERR_IOF_FAILURE                    (-172)
#define PMIX_ERR_IOF_COMPLETE                   (-173)
#define PMIX_LAUNCH_COMPLETE                    (-174)
#define PMIX_FABRIC_UPDATED                     (-175)
#define PMIX_FABRIC_UPDATE_PENDING              (-176)
#define PMIX_ERR_JOB_APP_NOT_EXECUTABLE         (-177)
#define PMIX_ERR_JOB_NO_EXE_SPECIFIED           (-178)
#define PMIX_ERR_JOB_FAILED_TO_MAP              (-179)
#define PMIX_ERR_JOB_CANCELED                   (-180)
#define PMIX_ERR_JOB_FAILED_TO_LAUNCH           (-181)
#define PMIX_ERR_JOB_ABORTED                    (-182)
#define PMIX_ERR_JOB_KILLED_BY_CMD              (-183)
#define PMIX_ERR_JOB_ABORTED_BY_SIG             (-184)
#define PMIX_ERR_JOB_TERM_WO_SYNC               (-185)
#define PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED      (-186)
#define PMIX_ERR_JOB_NON_ZERO_TERM              (-187)
#define PMIX_ERR_JOB_ALLOC_FAILED               (-188)
#define PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT       (-189)
#define PMIX_ERR_JOB_EXE_NOT_FOUND              (-190)
#define PMIX_EVENT_JOB_START                    (-191)
#define PMIX_EVENT_SESSION_START                (-192)
#define PMIX_EVENT_SESSION_END                  (-193)
#define PMIX_ERR_PROC_TERM_WO_SYNC              (-200)
#define PMIX_EVENT_PROC_TERMINATED              (-201)
#define PMIX_EVENT_SYS_BASE                     (-230)
#define PMIX_EVENT_NODE_DOWN                    (-231)
#define PMIX_EVENT_NODE_OFFLINE                 (-232)
#define PMIX_ERR_JOB_WDIR_NOT_FOUND             (-233)
#define PMIX_ERR_JOB_INSUFFICIENT_RESOURCES     (-234)
#define PMIX_ERR_JOB_SYS_OP_FAILED              (-235)
#define PMIX_EVENT_SYS_OTHER                    (-330)
#define PMIX_EVENT_NO_ACTION_TAKEN              (-331)
#define PMIX_EVENT_PARTIAL_ACTION_TAKEN         (-332)
#define PMIX_EVENT_ACTION_DEFERRED              (-333)
#define PMIX_EVENT_ACTION_COMPLETE              (-334)
#define PMIX_ERR_PROC_KILLED_BY_CMD             (-400)
#define PMIX_ERR_PROC_FAILED_TO_START           (-401)
#define PMIX_ERR_PROC_ABORTED_BY_SIG            (-402)
#define PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED     (-403)
#define PMIX_ERR_EXIT_NONZERO_TERM              (-404)
#define PMIX_EXTERNAL_ERR_BASE                  (-3000)

/* Process states (pmix_proc_state_t) */
#define PMIX_PROC_STATE_UNDEF                 0
#define PMIX_PROC_STATE_PREPPED               1
#define PMIX_PROC_STATE_LAUNCH_UNDERWAY       2
#define PMIX_PROC_STATE_RESTART               3
#define PMIX_PROC_STATE_TERMINATE             4
#define PMIX_PROC_STATE_RUNNING               5
#define PMIX_PROC_STATE_CONNECTED             6
#define PMIX_PROC_STATE_UNTERMINATED          15
#define PMIX_PROC_STATE_TERMINATED            20
#define PMIX_PROC_STATE_ERROR                 50
#define PMIX_PROC_STATE_KILLED_BY_CMD         51
#define PMIX_PROC_STATE_ABORTED               52
#define PMIX_PROC_STATE_FAILED_TO_START       53
#define PMIX_PROC_STATE_ABORTED_BY_SIG        54
#define PMIX_PROC_STATE_TERM_WO_SYNC          55
#define PMIX_PROC_STATE_COMM_FAILED           56
#define PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED 57
#define PMIX_PROC_STATE_CALLED_ABORT          58
#define PMIX_PROC_STATE_HEARTBEAT_FAILED      59
#define PMIX_PROC_STATE_MIGRATING             60
#define PMIX_PROC_STATE_CANNOT_RESTART        61
#define PMIX_PROC_STATE_TERM_NON_ZERO         62
#define PMIX_PROC_STATE_FAILED_TO_LAUNCH      63

/* Job states (pmix_job_state_t) */
#define PMIX_JOB_STATE_UNDEF                 0
#define PMIX_JOB_STATE_AWAITING_ALLOC        1
#define PMIX_JOB_STATE_LAUNCH_UNDERWAY       2
#define PMIX_JOB_STATE_RUNNING               3
#define PMIX_JOB_STATE_SUSPENDED             4
#define PMIX_JOB_STATE_CONNECTED             5
#define PMIX_JOB_STATE_UNTERMINATED          15
#define PMIX_JOB_STATE_TERMINATED            20
#define PMIX_JOB_STATE_TERMINATED_WITH_ERROR 50

/* Scopes of a PMIx_Put (pmix_scope_t) */
#define PMIX_SCOPE_UNDEF 0
#define PMIX_LOCAL       1
#define PMIX_REMOTE      2
#define PMIX_GLOBAL      3
#define PMIX_INTERNAL    4

/* Ranges of published data and events (pmix_data_range_t) */
#define PMIX_RANGE_UNDEF      0
#define PMIX_RANGE_RM         1
#define PMIX_RANGE_LOCAL      2
#define PMIX_RANGE_NAMESPACE  3
#define PMIX_RANGE_SESSION    4
#define PMIX_RANGE_GLOBAL     5
#define PMIX_RANGE_CUSTOM     6
#define PMIX_RANGE_PROC_LOCAL 7
#define PMIX_RANGE_INVALID    UINT8_MAX

/* Lifetimes of published data (pmix_persistence_t) */
#define PMIX_PERSIST_INDEF      0
#define PMIX_PERSIST_FIRST_READ 1
#define PMIX_PERSIST_PROC       2
#define PMIX_PERSIST_APP        3
#define PMIX_PERSIST_SESSION    4
#define PMIX_PERSIST_INVALID    UINT8_MAX

/* Bits of pmix_info_t.flags (pmix_info_directives_t) */
#define PMIX_INFO_REQD           0x00000001
#define PMIX_INFO_ARRAY_END      0x00000002
#define PMIX_INFO_REQD_PROCESSED 0x00000004
#define PMIX_INFO_QUALIFIER      0x00000008
#define PMIX_INFO_PERSISTENT     0x00000010
#define PMIX_INFO_DIR_RESERVED   0xffff0000

/* Allocation request kinds (pmix_alloc_directive_t) */
#define PMIX_ALLOC_NEW      1
#define PMIX_ALLOC_EXTEND   2
#define PMIX_ALLOC_RELEASE  3
#define PMIX_ALLOC_REAQUIRE 4
#define PMIX_ALLOC_EXTERNAL 128

/* IO forwarding channel bits (pmix_iof_channel_t) */
#define PMIX_FWD_NO_CHANNELS     0x0000
#define PMIX_FWD_STDIN_CHANNEL   0x0001
#define PMIX_FWD_STDOUT_CHANNEL  0x0002
#define PMIX_FWD_STDERR_CHANNEL  0x0004
#define PMIX_FWD_STDDIAG_CHANNEL 0x0008
#define PMIX_FWD_ALL_CHANNELS    0x00ff

/* Storage medium bits (pmix_storage_medium_t) */
#define PMIX_STORAGE_MEDIUM_UNKNOWN 0x0000000000000001
#define PMIX_STORAGE_MEDIUM_TAPE    0x0000000000000002
#define PMIX_STORAGE_MEDIUM_HDD     0x0000000000000004
#define PMIX_STORAGE_MEDIUM_SSD     0x0000000000000008
#define PMIX_STORAGE_MEDIUM_NVME    0x0000000000000010
#define PMIX_STORAGE_MEDIUM_PMEM    0x0000000000000020
#define PMIX_STORAGE_MEDIUM_RAM     0x0000000000000040

/* Storage accessibility bits (pmix_storage_accessibility_t) */
#define PMIX_STORAGE_ACCESSIBILITY_NODE    0x0000000000000001
#define PMIX_STORAGE_ACCESSIBILITY_SESSION 0x0000000000000002
#define PMIX_STORAGE_ACCESSIBILITY_JOB     0x0000000000000004
#define PMIX_STORAGE_ACCESSIBILITY_RACK    0x0000000000000008
#define PMIX_STORAGE_ACCESSIBILITY_CLUSTER 0x0000000000000010
#define PMIX_STORAGE_ACCESSIBILITY_REMOTE  0x0000000000000020

/* Storage persistence bits (pmix_storage_persistence_t) */
#define PMIX_STORAGE_PERSISTENCE_TEMPORARY 0x0000000000000001
#define PMIX_STORAGE_PERSISTENCE_NODE      0x0000000000000002
#define PMIX_STORAGE_PERSISTENCE_SESSION   0x0000000000000004
#define PMIX_STORAGE_PERSISTENCE_JOB       0x0000000000000008
#define PMIX_STORAGE_PERSISTENCE_SCRATCH   0x0000000000000010
#define PMIX_STORAGE_PERSISTENCE_PROJECT   0x0000000000000020
#define PMIX_STORAGE_PERSISTENCE_ARCHIVE   0x0000000000000040

/* Storage access bits (pmix_storage_access_type_t) */
#define PMIX_STORAGE_ACCESS_RD   0x0001
#define PMIX_STORAGE_ACCESS_WR   0x0002
#define PMIX_STORAGE_ACCESS_RDWR 0x0003

/* Coordinate views (pmix_coord_view_t) */
#define PMIX_COORD_VIEW_UNDEF    0x00
#define PMIX_COORD_LOGICAL_VIEW  0x01
#define PMIX_COORD_PHYSICAL_VIEW 0x02

/* Fabric link states (pmix_link_state_t) */
#define PMIX_LINK_STATE_UNKNOWN 0
#define PMIX_LINK_DOWN          1
#define PMIX_LINK_UP            2

/* Binding envelopes for PMIx_Get_cpuset (pmix_bind_envelope_t) */
#define PMIX_CPUBIND_PROCESS 0
#define PMIX_CPUBIND_THREAD  1

/* Relative locality bits (pmix_locality_t) */
#define PMIX_LOCALITY_UNKNOWN        0x0000
#define PMIX_LOCALITY_SHARE_HWTHREAD 0x0001
#define PMIX_LOCALITY_SHARE_CORE     0x0002
#define PMIX_LOCALITY_SHARE_L1CACHE  0x0004
#define PMIX_LOCALITY_SHARE_L2CACHE  0x0008
#define PMIX_LOCALITY_SHARE_L3CACHE  0x0010
#define PMIX_LOCALITY_SHARE_PACKAGE  0x0020
#define PMIX_LOCALITY_SHARE_NUMA     0x0040
#define PMIX_LOCALITY_SHARE_NODE     0x4000
#define PMIX_LOCALITY_NONLOCAL       0x8000

/* Device type bits (pmix_device_type_t) */
#define PMIX_DEVTYPE_UNKNOWN     0x00
#define PMIX_DEVTYPE_BLOCK       0x01
#define PMIX_DEVTYPE_GPU         0x02
#define PMIX_DEVTYPE_NETWORK     0x04
#define PMIX_DEVTYPE_OPENFABRICS 0x08
#define PMIX_DEVTYPE_DMA         0x10
#define PMIX_DEVTYPE_COPROC      0x20

/* A rank below this bound names one process; the ones above are the
 * special ranks listed with PMIX_RANK_UNDEF. */
#define PMIX_RANK_IS_VALID(r)  ((r) < PMIX_RANK_VALID)

/* True for the system event codes (node down, node offline, ...). */
#define PMIX_SYSTEM_EVENT(a)  ((a) <= PMIX_EVENT_SYS_BASE && (a) >= PMIX_EVENT_SYS_OTHER)

/* ------------------------------------------------------------------ */
/* Attribute keys                                                      */
/* ------------------------------------------------------------------ */

/* Attributes: Library initialisation */
#define PMIX_BIND_PROGRESS_THREAD "pmix.bind.pt"              /* char* */
#define PMIX_BIND_REQUIRED        "pmix.bind.reqd"            /* bool */
#define PMIX_EXTERNAL_PROGRESS    "pmix.evext"                /* bool */
#define PMIX_GRPID                "pmix.egid"                 /* uint32_t */
#define PMIX_HOMOGENEOUS_SYSTEM   "pmix.homo"                 /* bool */
#define PMIX_HOSTNAME_KEEP_FQDN   "pmix.fqdn"                 /* bool */
#define PMIX_KEEPALIVE_PIPE       "PMIX_KEEPALIVE_PIPE"  /* environment variable name */
#define PMIX_LAUNCHER_RNDZ_FILE   "PMIX_LAUNCHER_RNDZ_FILE"  /* environment variable name */
#define PMIX_LAUNCHER_RNDZ_URI    "PMIX_LAUNCHER_RNDZ_URI"  /* environment variable name */
#define PMIX_SINGLETON            "pmix.singleton"            /* char* */
#define PMIX_THREADING_MODEL      "pmix.threads"              /* char* */
#define PMIX_USERID               "pmix.euid"                 /* uint32_t */
#define PMIX_VERSION_INFO         "pmix.version"              /* char* */

/* Attributes: Server set-up */
#define PMIX_MYSERVER_URI              "pmix.mysrvr.uri"     /* char* */
#define PMIX_SERVER_ATTRIBUTES         "pmix.srvr.attrs"     /* char* */
#define PMIX_SERVER_ENABLE_MONITORING  "pmix.srv.monitor"    /* bool */
#define PMIX_SERVER_FUNCTIONS          "pmix.srvr.fns"       /* char* */
#define PMIX_SERVER_GATEWAY            "pmix.srv.gway"       /* bool */
#define PMIX_SERVER_HOSTNAME           "pmix.srvr.host"      /* char* */
#define PMIX_SERVER_INFO_ARRAY         "pmix.srv.arr"        /* pmix_data_array_t* */
#define PMIX_SERVER_NSPACE             "pmix.srv.nspace"     /* char* */
#define PMIX_SERVER_PIDINFO            "pmix.srvr.pidinfo"   /* pid_t */
#define PMIX_SERVER_RANK               "pmix.srv.rank"       /* pmix_rank_t */
#define PMIX_SERVER_REMOTE_CONNECTIONS "pmix.srvr.remote"    /* bool */
#define PMIX_SERVER_SCHEDULER          "pmix.srv.sched"      /* bool */
#define PMIX_SERVER_SESSION_SUPPORT    "pmix.srvr.sess"      /* bool */
#define PMIX_SERVER_SHARE_TOPOLOGY     "pmix.srvr.share"     /* bool */
#define PMIX_SERVER_START_TIME         "pmix.srv.strtime"    /* char* */
#define PMIX_SERVER_SYSTEM_SUPPORT     "pmix.srvr.sys"       /* bool */
#define PMIX_SERVER_TMPDIR             "pmix.srvr.tmpdir"    /* char* */
#define PMIX_SERVER_TOOL_SUPPORT       "pmix.srvr.tool"      /* bool */
#define PMIX_SERVER_URI                "pmix.srvr.uri"       /* char* */
#define PMIX_SYSTEM_TMPDIR             "pmix.sys.tmpdir"     /* char* */

/* Attributes: Tools and connections */
#define PMIX_ALL_CLONES_PARTICIPATE   "pmix.clone.part"       /* bool */
#define PMIX_CLIENT_AVG_MEMORY        "pmix.cl.mem.avg"       /* float */
#define PMIX_CONNECT_MAX_RETRIES      "pmix.tool.mretries"    /* uint32_t */
#define PMIX_CONNECT_RETRY_DELAY      "pmix.tool.retry"       /* uint32_t */
#define PMIX_CONNECT_SYSTEM_FIRST     "pmix.cnct.sys.first"   /* bool */
#define PMIX_CONNECT_TO_SYSTEM        "pmix.cnct.sys"         /* bool */
#define PMIX_LAUNCHER                 "pmix.tool.launcher"    /* bool */
#define PMIX_LAUNCHER_RENDEZVOUS_FILE "pmix.tool.lncrnd"      /* char* */
#define PMIX_TOOL_ATTACHMENT_FILE     "pmix.tool.attach"      /* char* */
#define PMIX_TOOL_ATTRIBUTES          "pmix.tool.attrs"       /* char* */
#define PMIX_TOOL_CONNECT_OPTIONAL    "pmix.tool.conopt"      /* bool */
#define PMIX_TOOL_DO_NOT_CONNECT      "pmix.tool.nocon"       /* bool */
#define PMIX_TOOL_FUNCTIONS           "pmix.tool.fns"         /* char* */
#define PMIX_TOOL_NSPACE              "pmix.tool.nspace"      /* char* */
#define PMIX_TOOL_RANK                "pmix.tool.rank"        /* uint32_t */

/* Attributes: TCP rendezvous */
#define PMIX_TCP_DISABLE_IPV4 "pmix.tcp.disipv4"     /* bool */
#define PMIX_TCP_DISABLE_IPV6 "pmix.tcp.disipv6"     /* bool */
#define PMIX_TCP_IF_EXCLUDE   "pmix.tcp.ifexclude"   /* char* */
#define PMIX_TCP_IF_INCLUDE   "pmix.tcp.ifinclude"   /* char* */
#define PMIX_TCP_IPV4_PORT    "pmix.tcp.ipv4"        /* int */
#define PMIX_TCP_IPV6_PORT    "pmix.tcp.ipv6"        /* int */
#define PMIX_TCP_REPORT_URI   "pmix.tcp.repuri"      /* char* */
#define PMIX_TCP_URI          "pmix.tcp.uri"         /* char* */

/* Attributes: Security */
#define PMIX_CRED_TYPE  "pmix.sec.ctype"   /* char* */
#define PMIX_CRYPTO_KEY "pmix.sec.key"     /* pmix_byte_object_t */

/* Attributes: Job, node and process description */
#define PMIX_ALLOCATED_NODELIST      "pmix.alist"              /* char* */
#define PMIX_ANL_MAP                 "pmix.anlmap"             /* char* */
#define PMIX_APPLDR                  "pmix.aldr"               /* pmix_rank_t */
#define PMIX_APPNUM                  "pmix.appnum"             /* uint32_t */
#define PMIX_APP_ARGV                "pmix.app.argv"           /* char* */
#define PMIX_APP_INFO                "pmix.app.info"           /* bool */
#define PMIX_APP_INFO_ARRAY          "pmix.app.arr"            /* pmix_data_array_t* */
#define PMIX_APP_MAP_REGEX           "pmix.apmap.regex"        /* char* */
#define PMIX_APP_MAP_TYPE            "pmix.apmap.type"         /* char* */
#define PMIX_APP_RANK                "pmix.apprank"            /* pmix_rank_t */
#define PMIX_APP_SIZE                "pmix.app.size"           /* uint32_t */
#define PMIX_ATTR_UNDEF              "pmix.undef"
#define PMIX_AVAIL_PHYS_MEMORY       "pmix.pmem"               /* uint64_t */
#define PMIX_CLIENT_ATTRIBUTES       "pmix.client.attrs"       /* char* */
#define PMIX_CLIENT_FUNCTIONS        "pmix.client.fns"         /* char* */
#define PMIX_CLUSTER_ID              "pmix.clid"               /* char* */
#define PMIX_CREDENTIAL              "pmix.cred"               /* char* */
#define PMIX_DAEMON_MEMORY           "pmix.dmn.mem"            /* float */
#define PMIX_EXIT_CODE               "pmix.exit.code"          /* int */
#define PMIX_GLOBAL_RANK             "pmix.grank"              /* pmix_rank_t */
#define PMIX_GROUP_NAMES             "pmix.pgrp.nm"            /* pmix_data_array_t* */
#define PMIX_HOSTNAME                "pmix.hname"              /* char* */
#define PMIX_HOSTNAME_ALIASES        "pmix.alias"              /* char* */
#define PMIX_JOBID                   "pmix.jobid"              /* char* */
#define PMIX_JOB_INFO                "pmix.job.info"           /* bool */
#define PMIX_JOB_INFO_ARRAY          "pmix.job.arr"            /* pmix_data_array_t* */
#define PMIX_JOB_NUM_APPS            "pmix.job.napps"          /* uint32_t */
#define PMIX_JOB_SIZE                "pmix.job.size"           /* uint32_t */
#define PMIX_JOB_TERM_STATUS         "pmix.job.term.status"    /* pmix_status_t */
#define PMIX_JOB_TIMEOUT             "pmix.job.time"           /* int */
#define PMIX_LOCALLDR                "pmix.lldr"               /* pmix_rank_t */
#define PMIX_LOCAL_COLLECTIVE_STATUS "pmix.loc.col.st"         /* pmix_status_t */
#define PMIX_LOCAL_PEERS             "pmix.lpeers"             /* char* */
#define PMIX_LOCAL_PROCS             "pmix.lprocs"             /* pmix_data_array_t* */
#define PMIX_LOCAL_RANK              "pmix.lrank"              /* uint16_t */
#define PMIX_LOCAL_SIZE              "pmix.local.size"         /* uint32_t */
#define PMIX_MAX_PROCS               "pmix.max.size"           /* uint32_t */
#define PMIX_NODEID                  "pmix.nodeid"             /* uint32_t */
#define PMIX_NODE_INFO               "pmix.node.info"          /* bool */
#define PMIX_NODE_INFO_ARRAY         "pmix.node.arr"           /* pmix_data_array_t* */
#define PMIX_NODE_LIST               "pmix.nlist"              /* char* */
#define PMIX_NODE_MAP                "pmix.nmap"               /* char* */
#define PMIX_NODE_MAP_RAW            "pmix.nmap.raw"           /* char* */
#define PMIX_NODE_OVERSUBSCRIBED     "pmix.ndosub"             /* bool */
#define PMIX_NODE_RANK               "pmix.nrank"              /* uint16_t */
#define PMIX_NODE_SIZE               "pmix.node.size"          /* uint32_t */
#define PMIX_NPROC_OFFSET            "pmix.offset"             /* pmix_rank_t */
#define PMIX_NSDIR                   "pmix.nsdir"              /* char* */
#define PMIX_NSPACE                  "pmix.nspace"             /* char* */
#define PMIX_NUM_ALLOCATED_NODES     "pmix.num.anodes"         /* uint32_t */
#define PMIX_NUM_NODES               "pmix.num.nodes"          /* uint32_t */
#define PMIX_NUM_SLOTS               "pmix.num.slots"          /* uint32_t */
#define PMIX_PACKAGE_RANK            "pmix.pkgrank"            /* uint16_t */
#define PMIX_PARENT_ID               "pmix.parent"             /* pmix_proc_t* */
#define PMIX_PRIMARY_SERVER          "pmix.pri.srvr"           /* bool */
#define PMIX_PROCDIR                 "pmix.pdir"               /* char* */
#define PMIX_PROCID                  "pmix.procid"             /* pmix_proc_t* */
#define PMIX_PROC_INFO_ARRAY         "pmix.pdata"              /* pmix_data_array_t* */
#define PMIX_PROC_MAP                "pmix.pmap"               /* char* */
#define PMIX_PROC_MAP_RAW            "pmix.pmap.raw"           /* char* */
#define PMIX_PROC_PID                "pmix.ppid"               /* pid_t */
#define PMIX_PROC_STATE_STATUS       "pmix.proc.state"         /* pmix_proc_state_t */
#define PMIX_PROC_TERM_STATUS        "pmix.proc.term.status"   /* pmix_status_t */
#define PMIX_RANK                    "pmix.rank"               /* pmix_rank_t */
#define PMIX_REINCARNATION           "pmix.reinc"              /* uint32_t */
#define PMIX_RM_NAME                 "pmix.rm.name"            /* char* */
#define PMIX_RM_VERSION              "pmix.rm.version"         /* char* */
#define PMIX_SPAWNED                 "pmix.spawned"            /* bool */
#define PMIX_SWITCH_PEERS            "pmix.speers"             /* char* */
#define PMIX_TDIR_RMCLEAN            "pmix.tdir.rmclean"       /* bool */
#define PMIX_TIME_REMAINING          "pmix.time.remaining"     /* uint32_t */
#define PMIX_TMPDIR                  "pmix.tmpdir"             /* char* */
#define PMIX_UNIV_SIZE               "pmix.univ.size"          /* uint32_t */

/* Attributes: Topology */
#define PMIX_CPUSET          "pmix.cpuset"   /* char* */
#define PMIX_CPUSET_BITMAP   "pmix.bitmap"   /* pmix_cpuset_t* */
#define PMIX_LOCALITY_STRING "pmix.locstr"   /* char* */
#define PMIX_LOCAL_CPUSETS   "pmix.lcpus"    /* char* */
#define PMIX_TOPOLOGY2       "pmix.topo2"    /* pmix_topology_t* */

/* Attributes: Devices and distances */
#define PMIX_DEVICE_DISTANCES "pmix.dev.dist"   /* pmix_data_array_t* */
#define PMIX_DEVICE_ID        "pmix.dev.id"     /* char* */
#define PMIX_DEVICE_TYPE      "pmix.dev.type"   /* pmix_device_type_t */

/* Attributes: Data retrieval modifiers */
#define PMIX_COLLECT_DATA               "pmix.collect"         /* bool */
#define PMIX_COLLECT_GENERATED_JOB_INFO "pmix.collect.gen"     /* bool */
#define PMIX_DATA_SCOPE                 "pmix.scope"           /* pmix_scope_t */
#define PMIX_EMBED_BARRIER              "pmix.embed.barrier"   /* bool */
#define PMIX_GET_POINTER_VALUES         "pmix.get.pntrs"       /* bool */
#define PMIX_GET_REFRESH_CACHE          "pmix.get.refresh"     /* bool */
#define PMIX_GET_STATIC_VALUES          "pmix.get.static"      /* bool */
#define PMIX_IMMEDIATE                  "pmix.immediate"       /* bool */
#define PMIX_OPTIONAL                   "pmix.optional"        /* bool */
#define PMIX_PERSISTENCE                "pmix.persist"         /* pmix_persistence_t */
#define PMIX_QUALIFIED_VALUE            "pmix.qual.val"        /* pmix_data_array_t* */
#define PMIX_RANGE                      "pmix.range"           /* pmix_data_range_t */
#define PMIX_SORTED_PROC_ARRAY          "pmix.sorted.parr"     /* bool */
#define PMIX_TIMEOUT                    "pmix.timeout"         /* int */
#define PMIX_WAIT                       "pmix.wait"            /* int */
#define PMIX_WAIT_FOR_CONNECTION        "pmix.wait.conn"       /* bool */

/* Attributes: Publish and lookup */
#define PMIX_ACCESS_GRPIDS      "pmix.agids"    /* pmix_data_array_t* */
#define PMIX_ACCESS_PERMISSIONS "pmix.aperms"   /* pmix_data_array_t* */
#define PMIX_ACCESS_USERIDS     "pmix.auids"    /* pmix_data_array_t* */

/* Attributes: Spawn and placement */
#define PMIX_ABORT_NON_ZERO_TERM              "pmix.abnz"           /* bool */
#define PMIX_ADD_HOST                         "pmix.addhost"        /* char* */
#define PMIX_ADD_HOSTFILE                     "pmix.addhostfile"    /* char* */
#define PMIX_AGGREGATE_HELP                   "pmix.agg.help"       /* bool */
#define PMIX_BINDTO                           "pmix.bindto"         /* char* */
#define PMIX_CMD_LINE                         "pmix.cmd.line"       /* char* */
#define PMIX_COLOCATE_NPERNODE                "pmix.colnum.node"    /* uint16_t */
#define PMIX_COLOCATE_NPERPROC                "pmix.colnum.proc"    /* uint16_t */
#define PMIX_COLOCATE_PROCS                   "pmix.colproc"        /* pmix_data_array_t* */
#define PMIX_COSPAWN_APP                      "pmix.cospawn"        /* bool */
#define PMIX_CPUS_PER_PROC                    "pmix.cpuperproc"     /* uint32_t */
#define PMIX_CPU_LIST                         "pmix.cpulist"        /* char* */
#define PMIX_DEBUGGER_DAEMONS                 "pmix.debugger"       /* bool */
#define PMIX_DISPLAY_ALLOCATION               "pmix.dispalloc"      /* bool */
#define PMIX_DISPLAY_MAP                      "pmix.dispmap"        /* bool */
#define PMIX_DISPLAY_MAP_DETAILED             "pmix.dispmapdet"     /* bool */
#define PMIX_DISPLAY_TOPOLOGY                 "pmix.disptopo"       /* char* */
#define PMIX_DO_NOT_LAUNCH                    "pmix.dnl"            /* bool */
#define PMIX_EXEC_AGENT                       "pmix.exec.agnt"      /* char* */
#define PMIX_FORKEXEC_AGENT                   "pmix.fe.agnt"        /* char* */
#define PMIX_HOST                             "pmix.host"           /* char* */
#define PMIX_HOSTFILE                         "pmix.hostfile"       /* char* */
#define PMIX_HOST_ATTRIBUTES                  "pmix.host.attrs"     /* char* */
#define PMIX_HOST_FUNCTIONS                   "pmix.host.fns"       /* char* */
#define PMIX_INDEX_ARGV                       "pmix.indxargv"       /* bool */
#define PMIX_JOB_CONTINUOUS                   "pmix.continuous"     /* bool */
#define PMIX_JOB_RECOVERABLE                  "pmix.recover"        /* bool */
#define PMIX_LAUNCHER_DAEMON                  "pmix.lnch.dmn"       /* char* */
#define PMIX_LAUNCH_DIRECTIVES                "pmix.lnch.dirs"      /* pmix_data_array_t* */
#define PMIX_MAPBY                            "pmix.mapby"          /* char* */
#define PMIX_MAX_RESTARTS                     "pmix.maxrestarts"    /* uint32_t */
#define PMIX_NOHUP                            "pmix.nohup"          /* bool */
#define PMIX_NOTIFY_COMPLETION                "pmix.notecomp"       /* bool */
#define PMIX_NOTIFY_JOB_EVENTS                "pmix.note.jev"       /* bool */
#define PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION "pmix.noteabproc"     /* bool */
#define PMIX_NOTIFY_PROC_TERMINATION          "pmix.noteproc"       /* bool */
#define PMIX_NO_OVERSUBSCRIBE                 "pmix.noover"         /* bool */
#define PMIX_NO_PROCS_ON_HEAD                 "pmix.nolocal"        /* bool */
#define PMIX_PERSONALITY                      "pmix.pers"           /* char* */
#define PMIX_PPR                              "pmix.ppr"            /* char* */
#define PMIX_PREFIX                           "pmix.prefix"         /* char* */
#define PMIX_PRELOAD_BIN                      "pmix.preloadbin"     /* bool */
#define PMIX_PRELOAD_FILES                    "pmix.preloadfiles"   /* char* */
#define PMIX_PROGRAMMING_MODEL                "pmix.pgm.model"      /* char* */
#define PMIX_RANKBY                           "pmix.rankby"         /* char* */
#define PMIX_REPORT_BINDINGS                  "pmix.repbind"        /* bool */
#define PMIX_REPORT_CHILD_SEP                 "pmix.rptchildsep"    /* bool */
#define PMIX_RUNTIME_OPTIONS                  "pmix.runopt"         /* char* */
#define PMIX_SET_SESSION_CWD                  "pmix.ssncwd"         /* bool */
#define PMIX_SHOW_LAUNCH_PROGRESS             "pmix.showprog"       /* bool */
#define PMIX_SPAWN_TIMEOUT                    "pmix.sp.time"        /* int */
#define PMIX_SPAWN_TOOL                       "pmix.spwn.tool"      /* bool */
#define PMIX_STDIN_TGT                        "pmix.stdin"          /* pmix_proc_t* */
#define PMIX_TIMEOUT_REPORT_STATE             "pmix.tim.state"      /* bool */
#define PMIX_TIMEOUT_STACKTRACES              "pmix.tim.stack"      /* bool */
#define PMIX_WDIR                             "pmix.wdir"           /* char* */
#define PMIX_WDIR_USER_SPECIFIED              "pmix.wdir.user"      /* bool */

/* Attributes: Environment of spawned applications */
#define PMIX_ADD_ENVAR        "pmix.envar.add"      /* pmix_envar_t* */
#define PMIX_APPEND_ENVAR     "pmix.envar.appnd"    /* pmix_envar_t* */
#define PMIX_ENVARS_HARVESTED "pmix.evar.hvstd"     /* bool */
#define PMIX_FIRST_ENVAR      "pmix.envar.first"    /* pmix_envar_t* */
#define PMIX_PREPEND_ENVAR    "pmix.envar.prepnd"   /* pmix_envar_t* */
#define PMIX_SET_ENVAR        "pmix.envar.set"      /* pmix_envar_t* */
#define PMIX_UNSET_ENVAR      "pmix.envar.unset"    /* char* */

/* Attributes: Application set-up */
#define PMIX_SETUP_APP_ALL       "pmix.setup.all"    /* bool */
#define PMIX_SETUP_APP_ENVARS    "pmix.setup.env"    /* bool */
#define PMIX_SETUP_APP_NONENVARS "pmix.setup.nenv"   /* bool */

/* Attributes: IO forwarding */
#define PMIX_FWD_STDDIAG             "pmix.fwd.stddiag"   /* bool */
#define PMIX_FWD_STDERR              "pmix.fwd.stderr"    /* bool */
#define PMIX_FWD_STDIN               "pmix.fwd.stdin"     /* bool */
#define PMIX_FWD_STDOUT              "pmix.fwd.stdout"    /* bool */
#define PMIX_IOF_BUFFERING_SIZE      "pmix.iof.bsize"     /* uint32_t */
#define PMIX_IOF_BUFFERING_TIME      "pmix.iof.btime"     /* uint32_t */
#define PMIX_IOF_CACHE_SIZE          "pmix.iof.csize"     /* uint32_t */
#define PMIX_IOF_COMPLETE            "pmix.iof.cmp"       /* bool */
#define PMIX_IOF_COPY                "pmix.iof.cpy"       /* bool */
#define PMIX_IOF_DROP_NEWEST         "pmix.iof.new"       /* bool */
#define PMIX_IOF_DROP_OLDEST         "pmix.iof.old"       /* bool */
#define PMIX_IOF_FILE_ONLY           "pmix.iof.fonly"     /* bool */
#define PMIX_IOF_FILE_PATTERN        "pmix.iof.fpt"       /* bool */
#define PMIX_IOF_LOCAL_OUTPUT        "pmix.iof.local"     /* bool */
#define PMIX_IOF_MERGE_STDERR_STDOUT "pmix.iof.mrg"       /* bool */
#define PMIX_IOF_OUTPUT_RAW          "pmix.iof.raw"       /* bool */
#define PMIX_IOF_OUTPUT_TO_DIRECTORY "pmix.iof.dir"       /* char* */
#define PMIX_IOF_OUTPUT_TO_FILE      "pmix.iof.file"      /* char* */
#define PMIX_IOF_PUSH_STDIN          "pmix.iof.stdin"     /* bool */
#define PMIX_IOF_RANK_OUTPUT         "pmix.iof.rank"      /* bool */
#define PMIX_IOF_REDIRECT            "pmix.iof.redir"     /* bool */
#define PMIX_IOF_TAG_DETAILED_OUTPUT "pmix.iof.tagdet"    /* bool */
#define PMIX_IOF_TAG_FULLNAME_OUTPUT "pmix.iof.tagfull"   /* bool */
#define PMIX_IOF_TAG_OUTPUT          "pmix.iof.tag"       /* bool */
#define PMIX_IOF_TIMESTAMP_OUTPUT    "pmix.iof.ts"        /* bool */
#define PMIX_IOF_XML_OUTPUT          "pmix.iof.xml"       /* bool */

/* Attributes: Events */
#define PMIX_EVENT_ACTION_TIMEOUT         "pmix.evtimeout"      /* int */
#define PMIX_EVENT_AFFECTED_PROC          "pmix.evproc"         /* pmix_proc_t* */
#define PMIX_EVENT_AFFECTED_PROCS         "pmix.evaffected"     /* pmix_data_array_t* */
#define PMIX_EVENT_CUSTOM_RANGE           "pmix.evrange"        /* pmix_data_array_t* */
#define PMIX_EVENT_DO_NOT_CACHE           "pmix.evnocache"      /* bool */
#define PMIX_EVENT_HDLR_AFTER             "pmix.evafter"        /* char* */
#define PMIX_EVENT_HDLR_APPEND            "pmix.evappend"       /* bool */
#define PMIX_EVENT_HDLR_BEFORE            "pmix.evbefore"       /* char* */
#define PMIX_EVENT_HDLR_FIRST             "pmix.evfirst"        /* bool */
#define PMIX_EVENT_HDLR_FIRST_IN_CATEGORY "pmix.evfirstcat"     /* bool */
#define PMIX_EVENT_HDLR_LAST              "pmix.evlast"         /* bool */
#define PMIX_EVENT_HDLR_LAST_IN_CATEGORY  "pmix.evlastcat"      /* bool */
#define PMIX_EVENT_HDLR_NAME              "pmix.evname"         /* char* */
#define PMIX_EVENT_HDLR_PREPEND           "pmix.evprepend"      /* bool */
#define PMIX_EVENT_NON_DEFAULT            "pmix.evnondef"       /* bool */
#define PMIX_EVENT_ONESHOT                "pmix.evone"          /* bool */
#define PMIX_EVENT_PROXY                  "pmix.evproxy"        /* pmix_proc_t* */
#define PMIX_EVENT_RETURN_OBJECT          "pmix.evobject"       /* void* */
#define PMIX_EVENT_SILENT_TERMINATION     "pmix.evsilentterm"   /* bool */
#define PMIX_EVENT_TERMINATE_JOB          "pmix.evterm.job"     /* bool */
#define PMIX_EVENT_TERMINATE_NODE         "pmix.evterm.node"    /* bool */
#define PMIX_EVENT_TERMINATE_PROC         "pmix.evterm.proc"    /* bool */
#define PMIX_EVENT_TERMINATE_SESSION      "pmix.evterm.sess"    /* bool */
#define PMIX_EVENT_TEXT_MESSAGE           "pmix.evtext"         /* char* */
#define PMIX_EVENT_TIMESTAMP              "pmix.evtstamp"       /* time_t */

/* Attributes: Queries */
#define PMIX_QUERY_ALLOC_STATUS            "pmix.query.alloc"    /* char* */
#define PMIX_QUERY_ATTRIBUTE_SUPPORT       "pmix.qry.attrs"      /* pmix_data_array_t* */
#define PMIX_QUERY_AUTHORIZATIONS          "pmix.qry.auths"      /* pmix_data_array_t* */
#define PMIX_QUERY_AVAIL_SERVERS           "pmix.qry.asrvrs"     /* pmix_data_array_t* */
#define PMIX_QUERY_DEBUG_SUPPORT           "pmix.qry.debug"      /* char* */
#define PMIX_QUERY_GROUP_MEMBERSHIP        "pmix.qry.pgrpmems"   /* pmix_data_array_t* */
#define PMIX_QUERY_GROUP_NAMES             "pmix.qry.pgrp"       /* pmix_data_array_t* */
#define PMIX_QUERY_JOB_STATUS              "pmix.qry.jst"        /* pmix_status_t */
#define PMIX_QUERY_LOCAL_ONLY              "pmix.qry.local"      /* bool */
#define PMIX_QUERY_LOCAL_PROC_TABLE        "pmix.qry.lptable"    /* pmix_data_array_t* */
#define PMIX_QUERY_MEMORY_USAGE            "pmix.qry.mem"        /* pmix_data_array_t* */
#define PMIX_QUERY_NAMESPACES              "pmix.qry.ns"         /* char* */
#define PMIX_QUERY_NAMESPACE_INFO          "pmix.qry.nsinfo"     /* pmix_data_array_t* */
#define PMIX_QUERY_NUM_GROUPS              "pmix.qry.pgrpnum"    /* size_t */
#define PMIX_QUERY_NUM_PSETS               "pmix.qry.psetnum"    /* size_t */
#define PMIX_QUERY_PROC_TABLE              "pmix.qry.ptable"     /* pmix_data_array_t* */
#define PMIX_QUERY_PROVISIONAL_ABI_VERSION "pmix.qry.prabiver"   /* char* */
#define PMIX_QUERY_PSET_MEMBERSHIP         "pmix.qry.pmems"      /* pmix_data_array_t* */
#define PMIX_QUERY_PSET_NAMES              "pmix.qry.psets"      /* char* */
#define PMIX_QUERY_QUALIFIERS              "pmix.qry.quals"      /* pmix_data_array_t* */
#define PMIX_QUERY_QUEUE_LIST              "pmix.qry.qlst"       /* char* */
#define PMIX_QUERY_QUEUE_STATUS            "pmix.qry.qst"        /* pmix_data_array_t* */
#define PMIX_QUERY_REFRESH_CACHE           "pmix.qry.rfsh"       /* bool */
#define PMIX_QUERY_REPORT_AVG              "pmix.qry.avg"        /* bool */
#define PMIX_QUERY_REPORT_MINMAX           "pmix.qry.minmax"     /* bool */
#define PMIX_QUERY_RESULTS                 "pmix.qry.res"        /* pmix_data_array_t* */
#define PMIX_QUERY_SPAWN_SUPPORT           "pmix.qry.spawn"      /* char* */
#define PMIX_QUERY_STABLE_ABI_VERSION      "pmix.qry.stabiver"   /* char* */
#define PMIX_QUERY_SUPPORTED_KEYS          "pmix.qry.keys"       /* char* */
#define PMIX_QUERY_SUPPORTED_QUALIFIERS    "pmix.qry.quals"      /* bool */

/* Attributes: Logging */
#define PMIX_LOG_AGG                       "pmix.log.agg"        /* bool */
#define PMIX_LOG_COMPLETION                "pmix.logcomp"        /* bool */
#define PMIX_LOG_EMAIL                     "pmix.log.email"      /* pmix_data_array_t* */
#define PMIX_LOG_EMAIL_ADDR                "pmix.log.emaddr"     /* char* */
#define PMIX_LOG_EMAIL_MSG                 "pmix.log.emmsg"      /* char* */
#define PMIX_LOG_EMAIL_SENDER_ADDR         "pmix.log.emfaddr"    /* char* */
#define PMIX_LOG_EMAIL_SERVER              "pmix.log.esrvr"      /* char* */
#define PMIX_LOG_EMAIL_SRVR_PORT           "pmix.log.esrvrprt"   /* int32_t */
#define PMIX_LOG_EMAIL_SUBJECT             "pmix.log.emsub"      /* char* */
#define PMIX_LOG_GENERATE_TIMESTAMP        "pmix.log.gtstmp"     /* bool */
#define PMIX_LOG_GLOBAL_DATASTORE          "pmix.log.gstore"     /* bool */
#define PMIX_LOG_GLOBAL_SYSLOG             "pmix.log.gsys"       /* char* */
#define PMIX_LOG_JOB_EVENTS                "pmix.log.jev"        /* bool */
#define PMIX_LOG_JOB_RECORD                "pmix.log.jrec"       /* bool */
#define PMIX_LOG_KEY                       "pmix.log.key"        /* char* */
#define PMIX_LOG_LOCAL_SYSLOG              "pmix.log.lsys"       /* char* */
#define PMIX_LOG_MSG                       "pmix.log.msg"        /* pmix_byte_object_t */
#define PMIX_LOG_ONCE                      "pmix.log.once"       /* bool */
#define PMIX_LOG_PROC_ABNORMAL_TERMINATION "pmix.logabproc"      /* bool */
#define PMIX_LOG_PROC_TERMINATION          "pmix.logproc"        /* bool */
#define PMIX_LOG_SOURCE                    "pmix.log.source"     /* pmix_proc_t* */
#define PMIX_LOG_STDERR                    "pmix.log.stderr"     /* char* */
#define PMIX_LOG_STDOUT                    "pmix.log.stdout"     /* char* */
#define PMIX_LOG_SYSLOG                    "pmix.log.syslog"     /* char* */
#define PMIX_LOG_SYSLOG_PRI                "pmix.log.syspri"     /* int */
#define PMIX_LOG_TAG_OUTPUT                "pmix.log.tag"        /* bool */
#define PMIX_LOG_TIMESTAMP                 "pmix.log.tstmp"      /* time_t */
#define PMIX_LOG_TIMESTAMP_OUTPUT          "pmix.log.tsout"      /* bool */
#define PMIX_LOG_VAL                       "pmix.log.val"        /* char* */
#define PMIX_LOG_XML_OUTPUT                "pmix.log.xml"        /* bool */

/* Attributes: Job control */
#define PMIX_CLEANUP_EMPTY               "pmix.clnup.empty"      /* bool */
#define PMIX_CLEANUP_IGNORE              "pmix.clnup.ignore"     /* char* */
#define PMIX_CLEANUP_LEAVE_TOPDIR        "pmix.clnup.lvtop"      /* bool */
#define PMIX_CLEANUP_RECURSIVE           "pmix.clnup.recurse"    /* bool */
#define PMIX_JOB_CTRL_CANCEL             "pmix.jctrl.cancel"     /* char* */
#define PMIX_JOB_CTRL_CHECKPOINT         "pmix.jctrl.ckpt"       /* char* */
#define PMIX_JOB_CTRL_CHECKPOINT_EVENT   "pmix.jctrl.ckptev"     /* bool */
#define PMIX_JOB_CTRL_CHECKPOINT_METHOD  "pmix.jctrl.ckmethod"   /* pmix_data_array_t* */
#define PMIX_JOB_CTRL_CHECKPOINT_SIGNAL  "pmix.jctrl.ckptsig"    /* int */
#define PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT "pmix.jctrl.ckptsig"    /* int */
#define PMIX_JOB_CTRL_ID                 "pmix.jctrl.id"         /* char* */
#define PMIX_JOB_CTRL_KILL               "pmix.jctrl.kill"       /* bool */
#define PMIX_JOB_CTRL_PAUSE              "pmix.jctrl.pause"      /* bool */
#define PMIX_JOB_CTRL_PREEMPTIBLE        "pmix.jctrl.preempt"    /* bool */
#define PMIX_JOB_CTRL_PROVISION          "pmix.jctrl.pvn"        /* char* */
#define PMIX_JOB_CTRL_PROVISION_IMAGE    "pmix.jctrl.pvnimg"     /* char* */
#define PMIX_JOB_CTRL_RESTART            "pmix.jctrl.restart"    /* char* */
#define PMIX_JOB_CTRL_RESUME             "pmix.jctrl.resume"     /* bool */
#define PMIX_JOB_CTRL_SIGNAL             "pmix.jctrl.sig"        /* int */
#define PMIX_JOB_CTRL_TERMINATE          "pmix.jctrl.term"       /* bool */

/* Attributes: Process monitoring */
#define PMIX_MONITOR_APP_CONTROL     "pmix.monitor.appctrl"   /* bool */
#define PMIX_MONITOR_CANCEL          "pmix.monitor.cancel"    /* char* */
#define PMIX_MONITOR_FILE            "pmix.monitor.fmon"      /* char* */
#define PMIX_MONITOR_FILE_ACCESS     "pmix.monitor.faccess"   /* char* */
#define PMIX_MONITOR_FILE_CHECK_TIME "pmix.monitor.ftime"     /* uint32_t */
#define PMIX_MONITOR_FILE_DROPS      "pmix.monitor.fdrop"     /* uint32_t */
#define PMIX_MONITOR_FILE_MODIFY     "pmix.monitor.fmod"      /* char* */
#define PMIX_MONITOR_FILE_SIZE       "pmix.monitor.fsize"     /* bool */
#define PMIX_MONITOR_HEARTBEAT       "pmix.monitor.mbeat"     /* bool */
#define PMIX_MONITOR_HEARTBEAT_DROPS "pmix.monitor.bdrop"     /* uint32_t */
#define PMIX_MONITOR_HEARTBEAT_TIME  "pmix.monitor.btime"     /* uint32_t */
#define PMIX_MONITOR_ID              "pmix.monitor.id"        /* char* */
#define PMIX_SEND_HEARTBEAT          "pmix.monitor.beat"      /* bool */

/* Attributes: Allocation requests */
#define PMIX_ALLOC_BANDWIDTH          "pmix.alloc.bw"          /* float */
#define PMIX_ALLOC_CPU_LIST           "pmix.alloc.cpulist"     /* char* */
#define PMIX_ALLOC_FABRIC             "pmix.alloc.net"         /* pmix_data_array_t* */
#define PMIX_ALLOC_FABRIC_ENDPTS      "pmix.alloc.endpts"      /* size_t */
#define PMIX_ALLOC_FABRIC_ENDPTS_NODE "pmix.alloc.endpts.nd"   /* size_t */
#define PMIX_ALLOC_FABRIC_ID          "pmix.alloc.netid"       /* char* */
#define PMIX_ALLOC_FABRIC_PLANE       "pmix.alloc.netplane"    /* char* */
#define PMIX_ALLOC_FABRIC_QOS         "pmix.alloc.netqos"      /* char* */
#define PMIX_ALLOC_FABRIC_SEC_KEY     "pmix.alloc.nsec"        /* pmix_byte_object_t */
#define PMIX_ALLOC_FABRIC_TYPE        "pmix.alloc.nettype"     /* char* */
#define PMIX_ALLOC_ID                 "pmix.alloc.id"          /* char* */
#define PMIX_ALLOC_MEM_SIZE           "pmix.alloc.msize"       /* float */
#define PMIX_ALLOC_NODE_LIST          "pmix.alloc.nlist"       /* char* */
#define PMIX_ALLOC_NUM_CPUS           "pmix.alloc.ncpus"       /* uint64_t */
#define PMIX_ALLOC_NUM_CPU_LIST       "pmix.alloc.ncpulist"    /* char* */
#define PMIX_ALLOC_NUM_NODES          "pmix.alloc.nnodes"      /* uint64_t */
#define PMIX_ALLOC_QUEUE              "pmix.alloc.queue"       /* char* */
#define PMIX_ALLOC_REQ_ID             "pmix.alloc.reqid"       /* char* */
#define PMIX_ALLOC_TIME               "pmix.alloc.time"        /* uint32_t */

/* Attributes: Resource requests */
#define PMIX_REQUESTOR_IS_CLIENT "pmix.req.client"   /* bool */
#define PMIX_REQUESTOR_IS_TOOL   "pmix.req.tool"     /* bool */
#define PMIX_REQUIRED_KEY        "pmix.req.key"      /* char* */

/* Attributes: Sessions */
#define PMIX_SESSION_ID         "pmix.session.id"   /* uint32_t */
#define PMIX_SESSION_INFO       "pmix.ssn.info"     /* bool */
#define PMIX_SESSION_INFO_ARRAY "pmix.ssn.arr"      /* pmix_data_array_t* */

/* Attributes: Process groups */
#define PMIX_GROUP_ADD_MEMBERS        "pmix.grp.add"       /* pmix_data_array_t* */
#define PMIX_GROUP_ASSIGN_CONTEXT_ID  "pmix.grp.actxid"    /* bool */
#define PMIX_GROUP_CONTEXT_ID         "pmix.grp.ctxid"     /* size_t */
#define PMIX_GROUP_ENDPT_DATA         "pmix.grp.endpt"     /* pmix_byte_object_t */
#define PMIX_GROUP_FT_COLLECTIVE      "pmix.grp.ftcoll"    /* bool */
#define PMIX_GROUP_ID                 "pmix.grp.id"        /* char* */
#define PMIX_GROUP_INFO               "pmix.grp.info"      /* pmix_data_array_t* */
#define PMIX_GROUP_LEADER             "pmix.grp.ldr"       /* bool */
#define PMIX_GROUP_LOCAL_CID          "pmix.grp.lclid"     /* size_t */
#define PMIX_GROUP_LOCAL_ONLY         "pmix.grp.lcl"       /* bool */
#define PMIX_GROUP_MEMBERSHIP         "pmix.grp.mbrs"      /* pmix_data_array_t* */
#define PMIX_GROUP_NOTIFY_TERMINATION "pmix.grp.notterm"   /* bool */
#define PMIX_GROUP_OPTIONAL           "pmix.grp.opt"       /* bool */

/* Attributes: Process sets */
#define PMIX_PSET_MEMBERS "pmix.pset.mems"   /* pmix_data_array_t* */
#define PMIX_PSET_NAME    "pmix.pset.nm"     /* char* */
#define PMIX_PSET_NAMES   "pmix.pset.nms"    /* pmix_data_array_t* */

/* Attributes: Programming models */
#define PMIX_MODEL_AFFINITY_POLICY "pmix.mdl.tap"       /* char* */
#define PMIX_MODEL_CPU_TYPE        "pmix.mdl.cputype"   /* char* */
#define PMIX_MODEL_LIBRARY_NAME    "pmix.mdl.name"      /* char* */
#define PMIX_MODEL_LIBRARY_VERSION "pmix.mld.vrs"       /* char* */
#define PMIX_MODEL_NUM_CPUS        "pmix.mdl.ncpu"      /* uint64_t */
#define PMIX_MODEL_NUM_THREADS     "pmix.mdl.nthrds"    /* uint64_t */
#define PMIX_MODEL_PHASE_NAME      "pmix.mdl.phase"     /* char* */
#define PMIX_MODEL_PHASE_TYPE      "pmix.mdl.ptype"     /* char* */

/* Attributes: Debugger support */
#define PMIX_BREAKPOINT             "pmix.brkpnt"       /* char* */
#define PMIX_DEBUG_DAEMONS_PER_NODE "pmix.dbg.dpnd"     /* uint16_t */
#define PMIX_DEBUG_DAEMONS_PER_PROC "pmix.dbg.dpproc"   /* uint16_t */
#define PMIX_DEBUG_STOP_IN_APP      "pmix.dbg.notify"   /* varies */
#define PMIX_DEBUG_STOP_IN_INIT     "pmix.dbg.init"     /* varies */
#define PMIX_DEBUG_STOP_ON_EXEC     "pmix.dbg.exec"     /* varies */
#define PMIX_DEBUG_TARGET           "pmix.dbg.tgt"      /* pmix_proc_t* */

/* Attributes: Fabric */
#define PMIX_FABRIC_COORDINATES        "pmix.fab.coord"      /* pmix_data_array_t* */
#define PMIX_FABRIC_COST_MATRIX        "pmix.fab.cm"         /* pointer */
#define PMIX_FABRIC_DEVICES            "pmix.fab.devs"       /* pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE_COORDINATES "pmix.fab.coord"      /* pmix_geometry_t */
#define PMIX_FABRIC_DIMS               "pmix.fab.dims"       /* uint32_t */
#define PMIX_FABRIC_ENDPT              "pmix.fab.endpt"      /* pmix_data_array_t* */
#define PMIX_FABRIC_GROUPS             "pmix.fab.grps"       /* char* */
#define PMIX_FABRIC_IDENTIFIER         "pmix.fab.id"         /* char* */
#define PMIX_FABRIC_INDEX              "pmix.fab.idx"        /* size_t */
#define PMIX_FABRIC_NUM_DEVICES        "pmix.fab.nverts"     /* size_t */
#define PMIX_FABRIC_PLANE              "pmix.fab.plane"      /* char* */
#define PMIX_FABRIC_SHAPE              "pmix.fab.shape"      /* pmix_data_array_t* */
#define PMIX_FABRIC_SHAPE_STRING       "pmix.fab.shapestr"   /* char* */
#define PMIX_FABRIC_SWITCH             "pmix.fab.switch"     /* char* */
#define PMIX_FABRIC_VENDOR             "pmix.fab.vndr"       /* char* */

/* Attributes: Fabric devices */
#define PMIX_ENUM_VALUE              "pmix.descr.enum"        /* char* */
#define PMIX_FABRIC_DEVICE           "pmix.fabdev"            /* pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE_ADDRESS   "pmix.fabdev.addr"       /* char* */
#define PMIX_FABRIC_DEVICE_BUS_TYPE  "pmix.fabdev.btyp"       /* char* */
#define PMIX_FABRIC_DEVICE_DRIVER    "pmix.fabdev.driver"     /* char* */
#define PMIX_FABRIC_DEVICE_FIRMWARE  "pmix.fabdev.fmwr"       /* char* */
#define PMIX_FABRIC_DEVICE_INDEX     "pmix.fabdev.idx"        /* uint32_t */
#define PMIX_FABRIC_DEVICE_MTU       "pmix.fabdev.mtu"        /* size_t */
#define PMIX_FABRIC_DEVICE_NAME      "pmix.fabdev.nm"         /* char* */
#define PMIX_FABRIC_DEVICE_PCI_DEVID "pmix.fabdev.pcidevid"   /* char* */
#define PMIX_FABRIC_DEVICE_SPEED     "pmix.fabdev.speed"      /* size_t */
#define PMIX_FABRIC_DEVICE_STATE     "pmix.fabdev.state"      /* pmix_link_state_t */
#define PMIX_FABRIC_DEVICE_TYPE      "pmix.fabdev.type"       /* char* */
#define PMIX_FABRIC_DEVICE_VENDOR    "pmix.fabdev.vndr"       /* char* */
#define PMIX_FABRIC_DEVICE_VENDORID  "pmix.fabdev.vendid"     /* char* */
#define PMIX_MAX_VALUE               "pmix.descr.maxval"      /* varies */
#define PMIX_MIN_VALUE               "pmix.descr.minval"      /* varies */

/* Attributes: Storage systems */
#define PMIX_QUERY_STORAGE_LIST          "pmix.strg.list"      /* char* */
#define PMIX_STORAGE_ACCESSIBILITY       "pmix.strg.access"    /* pmix_storage_accessibility_t */
#define PMIX_STORAGE_ACCESS_TYPE         "pmix.strg.atype"     /* pmix_storage_access_type_t */
#define PMIX_STORAGE_BW_CUR              "pmix.strg.bwcur"     /* double */
#define PMIX_STORAGE_BW_MAX              "pmix.strg.bwmax"     /* double */
#define PMIX_STORAGE_CAPACITY_LIMIT      "pmix.strg.cap"       /* uint64_t */
#define PMIX_STORAGE_CAPACITY_USED       "pmix.strg.capuse"    /* double */
#define PMIX_STORAGE_ID                  "pmix.strg.id"        /* char* */
#define PMIX_STORAGE_IOPS_CUR            "pmix.strg.iopscur"   /* double */
#define PMIX_STORAGE_IOPS_MAX            "pmix.strg.iopsmax"   /* double */
#define PMIX_STORAGE_MEDIUM              "pmix.strg.medium"    /* pmix_storage_medium_t */
#define PMIX_STORAGE_MINIMAL_XFER_SIZE   "pmix.strg.minxfer"   /* double */
#define PMIX_STORAGE_OBJECTS_USED        "pmix.strg.objuse"    /* uint64_t */
#define PMIX_STORAGE_OBJECT_LIMIT        "pmix.strg.obj"       /* uint64_t */
#define PMIX_STORAGE_PATH                "pmix.strg.path"      /* char* */
#define PMIX_STORAGE_PERSISTENCE         "pmix.strg.persist"   /* pmix_storage_persistence_t */
#define PMIX_STORAGE_SUGGESTED_XFER_SIZE "pmix.strg.sxfer"     /* double */
#define PMIX_STORAGE_TYPE                "pmix.strg.type"      /* char* */
#define PMIX_STORAGE_VERSION             "pmix.strg.ver"       /* char* */

/* Attributes: Attribute registration */
#define PMIX_REGISTER_CLEANUP     "pmix.reg.cleanup"      /* char* */
#define PMIX_REGISTER_CLEANUP_DIR "pmix.reg.cleanupdir"   /* char* */
#define PMIX_REGISTER_NODATA      "pmix.reg.nodata"       /* bool */

/* ------------------------------------------------------------------ */
/* Structures                                                          */
/* ------------------------------------------------------------------ */
/* Member order and types are part of the ABI: never reorder. */

/* A run of bytes owned by whoever owns the enclosing object. */
typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

/* A typed array: `array` points to `size` elements of `type`. */
typedef struct pmix_data_array {
    pmix_data_type_t type;
    size_t size;
    void *array;
} pmix_data_array_t;

/* An environment variable to set, prepend or append in a spawned job. */
typedef struct {
    char *envar;
    char *value;
    char separator;
} pmix_envar_t;

/* Fabric coordinates of a device. */
typedef struct pmix_coord {
    pmix_coord_view_t view;
    uint32_t *coord;
    size_t dims;
} pmix_coord_t;

/* A cpu set; `bitmap` is an hwloc_bitmap_t when source is "hwloc". */
typedef struct {
    char *source;
    void *bitmap;
} pmix_cpuset_t;

/* A topology; `topology` is an hwloc_topology_t when source is "hwloc". */
typedef struct {
    char *source;
    void *topology;
} pmix_topology_t;

typedef struct pmix_geometry {
    size_t fabric;
    char *uuid;
    char *osname;
    pmix_coord_t *coordinates;
    size_t ncoords;
} pmix_geometry_t;

typedef struct pmix_device_distance {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
    uint16_t mindist;
    uint16_t maxdist;
} pmix_device_distance_t;

typedef struct pmix_endpoint {
    char *uuid;
    char *osname;
    pmix_byte_object_t endpt;
} pmix_endpoint_t;

/* A process: its job's namespace and its rank in that job. */
typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

/* One row of a process table (query results). */
typedef struct pmix_proc_info {
    pmix_proc_t proc;
    char *hostname;
    char *executable_name;
    pid_t pid;
    int exit_code;
    pmix_proc_state_t state;
} pmix_proc_info_t;

/* Buffer for PMIx_Data_pack/unpack.  Treat the members as private. */
typedef struct pmix_data_buffer {
    char *base_ptr;
    char *pack_ptr;
    char *unpack_ptr;
    size_t bytes_allocated;
    size_t bytes_used;
} pmix_data_buffer_t;

typedef struct pmix_proc_stats {
    char *node;
    pmix_proc_t proc;
    pid_t pid;
    char *cmd;
    char state;
    struct timeval time;
    float percent_cpu;
    int32_t priority;
    uint16_t num_threads;
    float pss;
    float vsize;
    float rss;
    float peak_vsize;
    uint16_t processor;
    struct timeval sample_time;
} pmix_proc_stats_t;

typedef struct {
    char *disk;
    uint64_t num_reads_completed;
    uint64_t num_reads_merged;
    uint64_t num_sectors_read;
    uint64_t milliseconds_reading;
    uint64_t num_writes_completed;
    uint64_t num_writes_merged;
    uint64_t num_sectors_written;
    uint64_t milliseconds_writing;
    uint64_t num_ios_in_progress;
    uint64_t milliseconds_io;
    uint64_t weighted_milliseconds_io;
} pmix_disk_stats_t;

typedef struct {
    char *net_interface;
    uint64_t num_bytes_recvd;
    uint64_t num_packets_recvd;
    uint64_t num_recv_errs;
    uint64_t num_bytes_sent;
    uint64_t num_packets_sent;
    uint64_t num_send_errs;
} pmix_net_stats_t;

typedef struct {
    char *node;
    float la;
    float la5;
    float la15;
    float total_mem;
    float free_mem;
    float buffers;
    float cached;
    float swap_cached;
    float swap_total;
    float swap_free;
    float mapped;
    struct timeval sample_time;
    pmix_disk_stats_t *diskstats;
    size_t ndiskstats;
    pmix_net_stats_t *netstats;
    size_t nnetstats;
} pmix_node_stats_t;

/* A tagged value.  `type` (a PMIX_* data type) says which member of
 * `data` is live.  The union's member order is ABI: append only. */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_nspace_t *nspace;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        pmix_persistence_t persist;
        pmix_scope_t scope;
        pmix_data_range_t range;
        pmix_proc_state_t state;
        pmix_proc_info_t *pinfo;
        pmix_data_array_t *darray;
        void *ptr;
        pmix_alloc_directive_t adir;
        pmix_envar_t envar;
        pmix_coord_t *coord;
        pmix_link_state_t linkstate;
        pmix_job_state_t jstate;
        pmix_topology_t *topo;
        pmix_cpuset_t *cpuset;
        pmix_locality_t locality;
        pmix_geometry_t *geometry;
        pmix_device_type_t devtype;
        pmix_device_distance_t *devdist;
        pmix_endpoint_t *endpoint;
        pmix_data_buffer_t *dbuf;
        pmix_proc_stats_t *pstats;
        pmix_disk_stats_t *dkstats;
        pmix_net_stats_t *netstats;
        pmix_node_stats_t *ndstats;
    } data;
} pmix_value_t;

/* A key, directive flags (PMIX_INFO_REQD, ...) and a value. */
typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

/* One result of PMIx_Lookup: who published it, the key, the value. */
typedef struct pmix_pdata {
    pmix_proc_t proc;
    pmix_key_t key;
    pmix_value_t value;
} pmix_pdata_t;

/* One application of a PMIx_Spawn request. */
typedef struct pmix_app {
    char *cmd;
    char **argv;
    char **env;
    char *cwd;
    int maxprocs;
    pmix_info_t *info;
    size_t ninfo;
} pmix_app_t;

/* One query of PMIx_Query_info: keys plus qualifiers. */
typedef struct pmix_query {
    char **keys;
    pmix_info_t *qualifiers;
    size_t nqual;
} pmix_query_t;

/* Description of a supported attribute (PMIx_Register_attributes). */
typedef struct pmix_regattr_t {
    char *name;
    pmix_key_t string;
    pmix_data_type_t type;
    char **description;
} pmix_regattr_t;

/* Handle of a registered fabric (PMIx_Fabric_register). */
typedef struct pmix_fabric_s {
    char *name;
    size_t index;
    pmix_info_t *info;
    size_t ninfo;
    void *module;
} pmix_fabric_t;

/* Static initialisers, one per structure. */
#define PMIX_BYTE_OBJECT_STATIC_INIT { .bytes = NULL, .size = 0 }
#define PMIX_DATA_ARRAY_STATIC_INIT  { .type = PMIX_UNDEF, .size = 0, .array = NULL }
#define PMIX_ENVAR_STATIC_INIT       { .envar = NULL, .value = NULL, .separator = '\0' }
#define PMIX_COORD_STATIC_INIT       { .view = PMIX_COORD_VIEW_UNDEF, .coord = NULL, .dims = 0 }
#define PMIX_CPUSET_STATIC_INIT      { .source = NULL, .bitmap = NULL }
#define PMIX_TOPOLOGY_STATIC_INIT    { .source = NULL, .topology = NULL }
#define PMIX_GEOMETRY_STATIC_INIT \
    { .fabric = 0, .uuid = NULL, .osname = NULL, .coordinates = NULL, .ncoords = 0 }
#define PMIX_DEVICE_DIST_STATIC_INIT \
    { .uuid = NULL, .osname = NULL, .type = PMIX_DEVTYPE_UNKNOWN, .mindist = 0, .maxdist = 0 }
#define PMIX_ENDPOINT_STATIC_INIT \
    { .uuid = NULL, .osname = NULL, .endpt = PMIX_BYTE_OBJECT_STATIC_INIT }
#define PMIX_PROC_STATIC_INIT        { .nspace = {0}, .rank = PMIX_RANK_UNDEF }
#define PMIX_PROC_INFO_STATIC_INIT \
    { .proc = PMIX_PROC_STATIC_INIT, .hostname = NULL, .executable_name = NULL, \
      .pid = 0, .exit_code = 0, .state = PMIX_PROC_STATE_UNDEF }
#define PMIX_DATA_BUFFER_STATIC_INIT \
    { .base_ptr = NULL, .pack_ptr = NULL, .unpack_ptr = NULL, \
      .bytes_allocated = 0, .bytes_used = 0 }
#define PMIX_PROC_STATS_STATIC_INIT \
    { .node = NULL, .proc = PMIX_PROC_STATIC_INIT, .pid = 0, .cmd = NULL, \
      .state = '\0', .time = {0, 0}, .percent_cpu = 0.0, .priority = 0, \
      .num_threads = 0, .pss = 0.0, .vsize = 0.0, .rss = 0.0, \
      .peak_vsize = 0.0, .processor = 0, .sample_time = {0, 0} }
#define PMIX_DISK_STATS_STATIC_INIT \
    { .disk = NULL, .num_reads_completed = 0, .num_reads_merged = 0, \
      .num_sectors_read = 0, .milliseconds_reading = 0, \
      .num_writes_completed = 0, .num_writes_merged = 0, \
      .num_sectors_written = 0, .milliseconds_writing = 0, \
      .num_ios_in_progress = 0, .milliseconds_io = 0, \
      .weighted_milliseconds_io = 0 }
#define PMIX_NET_STATS_STATIC_INIT \
    { .net_interface = NULL, .num_bytes_recvd = 0, .num_packets_recvd = 0, \
      .num_recv_errs = 0, .num_bytes_sent = 0, .num_packets_sent = 0, \
      .num_send_errs = 0 }
#define PMIX_NODE_STATS_STATIC_INIT \
    { .node = NULL, .la = 0, .la5 = 0, .la15 = 0, .total_mem = 0.0, \
      .free_mem = 0.0, .buffers = 0.0, .cached = 0.0, .swap_cached = 0.0, \
      .swap_total = 0.0, .swap_free = 0.0, .mapped = 0.0, \
      .sample_time = {0, 0}, .diskstats = NULL, .ndiskstats = 0, \
      .netstats = NULL, .nnetstats = 0 }
#define PMIX_VALUE_STATIC_INIT       { .type = PMIX_UNDEF, .data.ptr = NULL }
#define PMIX_INFO_STATIC_INIT \
    { .key = {0}, .flags = 0, .value = PMIX_VALUE_STATIC_INIT }
#define PMIX_LOOKUP_STATIC_INIT \
    { .proc = PMIX_PROC_STATIC_INIT, .key = {0}, .value = PMIX_VALUE_STATIC_INIT }
#define PMIX_APP_STATIC_INIT \
    { .cmd = NULL, .argv = NULL, .env = NULL, .cwd = NULL, .maxprocs = 0, \
      .info = NULL, .ninfo = 0 }
#define PMIX_QUERY_STATIC_INIT       { .keys = NULL, .qualifiers = NULL, .nqual = 0 }
#define PMIX_REGATTR_STATIC_INIT \
    { .name = NULL, .string = {0}, .type = PMIX_UNDEF, .description = NULL }
#define PMIX_FABRIC_STATIC_INIT \
    { .name = NULL, .index = 0, .info = NULL, .ninfo = 0, .module = NULL }

/* ------------------------------------------------------------------ */
/* Callback types                                                      */
/* ------------------------------------------------------------------ */
/* Unless said otherwise, arrays passed to a callback belong to the
 * library and are valid only until the callback returns, or until the
 * callback calls the release_fn it was given. */

/* Releases data the library passed to a callback. */
typedef void (*pmix_release_cbfunc_t)(void *cbdata);

/* Completion of a fence or a direct modex: the collected blob. */
typedef void (*pmix_modex_cbfunc_t)(pmix_status_t status, const char *data,
                                    size_t ndata, void *cbdata,
                                    pmix_release_cbfunc_t release_fn,
                                    void *release_cbdata);

/* Completion of PMIx_Spawn_nb: the namespace of the new job. */
typedef void (*pmix_spawn_cbfunc_t)(pmix_status_t status, pmix_nspace_t nspace,
                                    void *cbdata);

/* Completion of an operation that returns only a status. */
typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

/* Completion of PMIx_Lookup_nb. */
typedef void (*pmix_lookup_cbfunc_t)(pmix_status_t status, pmix_pdata_t data[],
                                     size_t ndata, void *cbdata);

/* Called by an event handler when it is done with an event. */
typedef void (*pmix_event_notification_cbfunc_fn_t)(pmix_status_t status,
                                                    pmix_info_t *results,
                                                    size_t nresults,
                                                    pmix_op_cbfunc_t cbfunc,
                                                    void *thiscbdata,
                                                    void *notification_cbdata);

/* An event handler. */
typedef void (*pmix_notification_fn_t)(size_t evhdlr_registration_id,
                                       pmix_status_t status,
                                       const pmix_proc_t *source,
                                       pmix_info_t info[], size_t ninfo,
                                       pmix_info_t *results, size_t nresults,
                                       pmix_event_notification_cbfunc_fn_t cbfunc,
                                       void *cbdata);

/* Completion of a handler registration: the reference to deregister. */
typedef void (*pmix_hdlr_reg_cbfunc_t)(pmix_status_t status, size_t refid,
                                       void *cbdata);
typedef void (*pmix_evhdlr_reg_cbfunc_t)(pmix_status_t status, size_t refid,
                                         void *cbdata);

/* Completion of PMIx_Get_nb. */
typedef void (*pmix_value_cbfunc_t)(pmix_status_t status, pmix_value_t *kv,
                                    void *cbdata);

/* Completion of an operation that returns an array of infos. */
typedef void (*pmix_info_cbfunc_t)(pmix_status_t status, pmix_info_t *info,
                                   size_t ninfo, void *cbdata,
                                   pmix_release_cbfunc_t release_fn,
                                   void *release_cbdata);

/* Completion of PMIx_Get_credential_nb. */
typedef void (*pmix_credential_cbfunc_t)(pmix_status_t status,
                                         pmix_byte_object_t *credential,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Completion of PMIx_Validate_credential_nb. */
typedef void (*pmix_validation_cbfunc_t)(pmix_status_t status,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Completion of PMIx_Compute_distances_nb. */
typedef void (*pmix_device_dist_cbfunc_t)(pmix_status_t status,
                                          pmix_device_distance_t *dist,
                                          size_t ndist, void *cbdata,
                                          pmix_release_cbfunc_t release_fn,
                                          void *release_cbdata);

/* Delivery of forwarded output to a PMIx_IOF_pull subscriber. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel,
                                  pmix_proc_t *source,
                                  pmix_byte_object_t *payload,
                                  pmix_info_t info[], size_t ninfo);

/* ------------------------------------------------------------------ */
/* Helpers for the structures above                                    */
/* ------------------------------------------------------------------ */
/* Conventions, shared by every family below:
 *   _construct(p)   zero one caller-owned object;
 *   _destruct(p)    free what the object points to, not the object;
 *   _create(n)      malloc and construct n objects (NULL on failure);
 *   _free(p, n)     destruct n objects and free the array itself;
 *   _load / _xfer   copy data in (the source stays the caller's).
 * All memory comes from malloc() and goes back through free().  These
 * functions keep no state and may be called from any thread, before
 * PMIx_Init and after PMIx_Finalize. */

/* keys, namespaces, process ids */
PMIX_EXPORT void PMIx_Load_key(pmix_key_t key, const char *src);
PMIX_EXPORT bool PMIx_Check_key(const char *key, const char *str);
PMIX_EXPORT bool PMIx_Check_reserved_key(const char *key);
PMIX_EXPORT void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str);
PMIX_EXPORT bool PMIx_Check_nspace(const char *key1, const char *key2);
PMIX_EXPORT bool PMIx_Nspace_invalid(const char *nspace);
PMIX_EXPORT void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk);
PMIX_EXPORT void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src);
PMIX_EXPORT bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b);
PMIX_EXPORT bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b);
PMIX_EXPORT bool PMIx_Procid_invalid(const pmix_proc_t *p);

/* NULL-terminated string arrays and environments */
PMIX_EXPORT int PMIx_Argv_count(char **a);
PMIX_EXPORT pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg);
PMIX_EXPORT pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg);
PMIX_EXPORT pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg);
PMIX_EXPORT void PMIx_Argv_free(char **argv);
PMIX_EXPORT char **PMIx_Argv_split_inter(const char *src_string, int delimiter,
                                         bool include_empty);
PMIX_EXPORT char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter);
PMIX_EXPORT char **PMIx_Argv_split(const char *src_string, int delimiter);
PMIX_EXPORT char *PMIx_Argv_join(char **argv, int delimiter);
PMIX_EXPORT char **PMIx_Argv_copy(char **argv);
PMIX_EXPORT pmix_status_t PMIx_Setenv(const char *name, const char *value,
                                      bool overwrite, char ***env);

/* pmix_value_t */
PMIX_EXPORT void PMIx_Value_construct(pmix_value_t *val);
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);
PMIX_EXPORT pmix_value_t *PMIx_Value_create(size_t n);
PMIX_EXPORT void PMIx_Value_free(pmix_value_t *v, size_t n);
PMIX_EXPORT pmix_boolean_t PMIx_Value_true(const pmix_value_t *v);
PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
                                          pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data,
                                            size_t *sz);
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest,
                                          const pmix_value_t *src);
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1,
                                                pmix_value_t *v2);
PMIX_EXPORT pmix_status_t PMIx_Value_get_size(const pmix_value_t *val,
                                              size_t *size);

/* pmix_data_array_t */
PMIX_EXPORT void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type);
PMIX_EXPORT void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num,
                                           pmix_data_type_t type);
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);
PMIX_EXPORT pmix_data_array_t *PMIx_Data_array_create(size_t n,
                                                      pmix_data_type_t type);
PMIX_EXPORT void PMIx_Data_array_free(pmix_data_array_t *p);

/* pmix_info_t */
PMIX_EXPORT void PMIx_Info_construct(pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_destruct(pmix_info_t *p);
PMIX_EXPORT pmix_info_t *PMIx_Info_create(size_t n);
PMIX_EXPORT void PMIx_Info_free(pmix_info_t *p, size_t n);
PMIX_EXPORT pmix_boolean_t PMIx_Info_true(const pmix_info_t *p);
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key,
                                         const void *data, pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src);
PMIX_EXPORT void PMIx_Info_required(pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_optional(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_required(const pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_optional(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_processed(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_was_processed(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_set_end(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_end(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_qualifier(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_qualifier(const pmix_info_t *p);
PMIX_EXPORT void PMIx_Info_persistent(pmix_info_t *p);
PMIX_EXPORT bool PMIx_Info_is_persistent(const pmix_info_t *p);
PMIX_EXPORT pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size);

/* Info lists: an opaque list that grows one info at a time and is then
 * turned into a pmix_data_array_t of pmix_info_t. */
PMIX_EXPORT void *PMIx_Info_list_start(void);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr, const char *key,
                                             const void *value,
                                             pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key,
                                                    const void *value,
                                                    pmix_data_type_t type,
                                                    bool overwrite);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key,
                                                   const pmix_value_t *value);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add_value_unique(void *ptr,
                                                          const char *key,
                                                          const pmix_value_t *value,
                                                          bool overwrite);
PMIX_EXPORT pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key,
                                                 const void *value,
                                                 pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer_unique(void *ptr,
                                                     const pmix_info_t *info,
                                                     bool overwrite);
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);
PMIX_EXPORT pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next);

/* pmix_coord_t, pmix_topology_t, pmix_cpuset_t, pmix_geometry_t */
PMIX_EXPORT void PMIx_Coord_construct(pmix_coord_t *m);
PMIX_EXPORT void PMIx_Coord_destruct(pmix_coord_t *m);
PMIX_EXPORT pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number);
PMIX_EXPORT void PMIx_Coord_free(pmix_coord_t *m, size_t number);
PMIX_EXPORT void PMIx_Topology_construct(pmix_topology_t *t);
PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo);
PMIX_EXPORT pmix_topology_t *PMIx_Topology_create(size_t n);
PMIX_EXPORT void PMIx_Topology_free(pmix_topology_t *t, size_t n);
PMIX_EXPORT void PMIx_Cpuset_construct(pmix_cpuset_t *cpuset);
PMIX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset);
PMIX_EXPORT pmix_cpuset_t *PMIx_Cpuset_create(size_t n);
PMIX_EXPORT void PMIx_Cpuset_free(pmix_cpuset_t *c, size_t n);
PMIX_EXPORT void PMIx_Geometry_construct(pmix_geometry_t *g);
PMIX_EXPORT void PMIx_Geometry_destruct(pmix_geometry_t *g);
PMIX_EXPORT pmix_geometry_t *PMIx_Geometry_create(size_t n);
PMIX_EXPORT void PMIx_Geometry_free(pmix_geometry_t *g, size_t n);

/* pmix_device_distance_t, pmix_byte_object_t, pmix_endpoint_t, pmix_envar_t */
PMIX_EXPORT void PMIx_Device_distance_construct(pmix_device_distance_t *d);
PMIX_EXPORT void PMIx_Device_distance_destruct(pmix_device_distance_t *d);
PMIX_EXPORT pmix_device_distance_t *PMIx_Device_distance_create(size_t n);
PMIX_EXPORT void PMIx_Device_distance_free(pmix_device_distance_t *d, size_t n);
PMIX_EXPORT void PMIx_Byte_object_construct(pmix_byte_object_t *b);
PMIX_EXPORT void PMIx_Byte_object_destruct(pmix_byte_object_t *g);
PMIX_EXPORT pmix_byte_object_t *PMIx_Byte_object_create(size_t n);
PMIX_EXPORT void PMIx_Byte_object_free(pmix_byte_object_t *g, size_t n);
/* Takes ownership of d (malloc'ed, sz bytes). */
PMIX_EXPORT void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz);
PMIX_EXPORT void PMIx_Endpoint_construct(pmix_endpoint_t *e);
PMIX_EXPORT void PMIx_Endpoint_destruct(pmix_endpoint_t *e);
PMIX_EXPORT pmix_endpoint_t *PMIx_Endpoint_create(size_t n);
PMIX_EXPORT void PMIx_Endpoint_free(pmix_endpoint_t *e, size_t n);
PMIX_EXPORT void PMIx_Envar_construct(pmix_envar_t *e);
PMIX_EXPORT void PMIx_Envar_destruct(pmix_envar_t *e);
PMIX_EXPORT pmix_envar_t *PMIx_Envar_create(size_t n);
PMIX_EXPORT void PMIx_Envar_free(pmix_envar_t *e, size_t n);
PMIX_EXPORT void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value,
                                 char separator);

/* pmix_data_buffer_t */
PMIX_EXPORT void PMIx_Data_buffer_construct(pmix_data_buffer_t *b);
PMIX_EXPORT void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b);
PMIX_EXPORT pmix_data_buffer_t *PMIx_Data_buffer_create(void);
PMIX_EXPORT void PMIx_Data_buffer_release(pmix_data_buffer_t *b);
/* Takes ownership of bytes (malloc'ed, sz bytes). */
PMIX_EXPORT void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz);
/* Hands the unread bytes to the caller, who frees them. */
PMIX_EXPORT void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes,
                                         size_t *sz);

/* pmix_proc_t, multi-cluster namespaces, pmix_proc_info_t */
PMIX_EXPORT void PMIx_Proc_construct(pmix_proc_t *p);
PMIX_EXPORT void PMIx_Proc_destruct(pmix_proc_t *p);
PMIX_EXPORT pmix_proc_t *PMIx_Proc_create(size_t n);
PMIX_EXPORT void PMIx_Proc_free(pmix_proc_t *p, size_t n);
PMIX_EXPORT void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
PMIX_EXPORT void PMIx_Multicluster_nspace_construct(pmix_nspace_t target,
                                                    pmix_nspace_t cluster,
                                                    pmix_nspace_t nspace);
PMIX_EXPORT void PMIx_Multicluster_nspace_parse(pmix_nspace_t target,
                                                pmix_nspace_t cluster,
                                                pmix_nspace_t nspace);
PMIX_EXPORT void PMIx_Proc_info_construct(pmix_proc_info_t *p);
PMIX_EXPORT void PMIx_Proc_info_destruct(pmix_proc_info_t *p);
PMIX_EXPORT pmix_proc_info_t *PMIx_Proc_info_create(size_t n);
PMIX_EXPORT void PMIx_Proc_info_free(pmix_proc_info_t *p, size_t n);

/* statistics */
PMIX_EXPORT void PMIx_Proc_stats_construct(pmix_proc_stats_t *p);
PMIX_EXPORT void PMIx_Proc_stats_destruct(pmix_proc_stats_t *p);
PMIX_EXPORT pmix_proc_stats_t *PMIx_Proc_stats_create(size_t n);
PMIX_EXPORT void PMIx_Proc_stats_free(pmix_proc_stats_t *p, size_t n);
PMIX_EXPORT void PMIx_Disk_stats_construct(pmix_disk_stats_t *p);
PMIX_EXPORT void PMIx_Disk_stats_destruct(pmix_disk_stats_t *p);
PMIX_EXPORT pmix_disk_stats_t *PMIx_Disk_stats_create(size_t n);
PMIX_EXPORT void PMIx_Disk_stats_free(pmix_disk_stats_t *p, size_t n);
PMIX_EXPORT void PMIx_Net_stats_construct(pmix_net_stats_t *p);
PMIX_EXPORT void PMIx_Net_stats_destruct(pmix_net_stats_t *p);
PMIX_EXPORT pmix_net_stats_t *PMIx_Net_stats_create(size_t n);
PMIX_EXPORT void PMIx_Net_stats_free(pmix_net_stats_t *p, size_t n);
PMIX_EXPORT void PMIx_Node_stats_construct(pmix_node_stats_t *p);
PMIX_EXPORT void PMIx_Node_stats_destruct(pmix_node_stats_t *p);
PMIX_EXPORT pmix_node_stats_t *PMIx_Node_stats_create(size_t n);
PMIX_EXPORT void PMIx_Node_stats_free(pmix_node_stats_t *p, size_t n);

/* pmix_pdata_t, pmix_app_t, pmix_query_t, pmix_regattr_t, pmix_fabric_t */
PMIX_EXPORT void PMIx_Pdata_construct(pmix_pdata_t *p);
PMIX_EXPORT void PMIx_Pdata_destruct(pmix_pdata_t *p);
PMIX_EXPORT pmix_pdata_t *PMIx_Pdata_create(size_t n);
PMIX_EXPORT void PMIx_Pdata_free(pmix_pdata_t *p, size_t n);
PMIX_EXPORT void PMIx_App_construct(pmix_app_t *p);
PMIX_EXPORT void PMIx_App_destruct(pmix_app_t *p);
PMIX_EXPORT pmix_app_t *PMIx_App_create(size_t n);
PMIX_EXPORT void PMIx_App_info_create(pmix_app_t *p, size_t n);
PMIX_EXPORT void PMIx_App_free(pmix_app_t *p, size_t n);
PMIX_EXPORT void PMIx_App_release(pmix_app_t *p);
PMIX_EXPORT void PMIx_Query_construct(pmix_query_t *p);
PMIX_EXPORT void PMIx_Query_destruct(pmix_query_t *p);
PMIX_EXPORT pmix_query_t *PMIx_Query_create(size_t n);
PMIX_EXPORT void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n);
PMIX_EXPORT void PMIx_Query_free(pmix_query_t *p, size_t n);
PMIX_EXPORT void PMIx_Query_release(pmix_query_t *p);
PMIX_EXPORT void PMIx_Regattr_construct(pmix_regattr_t *p);
PMIX_EXPORT void PMIx_Regattr_destruct(pmix_regattr_t *p);
PMIX_EXPORT pmix_regattr_t *PMIx_Regattr_create(size_t n);
PMIX_EXPORT void PMIx_Regattr_free(pmix_regattr_t *p, size_t n);
PMIX_EXPORT void PMIx_Regattr_load(pmix_regattr_t *info, const char *name,
                                   const char *key, pmix_data_type_t type,
                                   const char *description);
PMIX_EXPORT void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src);
PMIX_EXPORT void PMIx_Fabric_construct(pmix_fabric_t *p);

/* ------------------------------------------------------------------ */
/* Convenience macros                                                  */
/* ------------------------------------------------------------------ */
/* Each wraps one of the helpers above.  Macros that take an "r" store
 * the helper's return value there; the _FREE/_RELEASE forms also reset
 * the caller's pointer to NULL. */

#define PXC_FREE_AND_CLEAR_(fn, m, n) \
    do { fn((m), (n)); (m) = NULL; } while (0)

#define PMIX_LOAD_KEY(a, b)             PMIx_Load_key((a), (b))
#define PMIX_CHECK_KEY(a, b)            PMIx_Check_key((a)->key, (b))
#define PMIX_CHECK_RESERVED_KEY(a)      PMIx_Check_reserved_key(a)
#define PMIX_LOAD_NSPACE(a, b)          PMIx_Load_nspace((a), (b))
#define PMIX_CHECK_NSPACE(a, b)         PMIx_Check_nspace((a), (b))
#define PMIX_NSPACE_INVALID(a)          PMIx_Nspace_invalid(a)
#define PMIX_LOAD_PROCID(a, b, c)       PMIx_Load_procid((a), (b), (c))
#define PMIX_XFER_PROCID(a, b)          PMIx_Xfer_procid((a), (b))
#define PMIX_PROCID_XFER(a, b)          PMIx_Xfer_procid((a), (b))
#define PMIX_CHECK_PROCID(a, b)         PMIx_Check_procid((a), (b))
#define PMIX_CHECK_RANK(a, b)           PMIx_Check_rank((a), (b))
#define PMIX_PROCID_INVALID(a)          PMIx_Procid_invalid(a)

#define PMIX_ARGV_COUNT(r, a)           ((r) = PMIx_Argv_count(a))
#define PMIX_ARGV_APPEND(r, a, b)       ((r) = PMIx_Argv_append_nosize((char ***)&(a), (b)))
#define PMIX_ARGV_PREPEND(r, a, b)      ((r) = PMIx_Argv_prepend_nosize((char ***)&(a), (b)))
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b) ((r) = PMIx_Argv_append_unique_nosize((a), (b)))
#define PMIX_ARGV_FREE(a)               do { PMIx_Argv_free(a); (a) = NULL; } while (0)
#define PMIX_ARGV_SPLIT(a, b, c)        ((a) = PMIx_Argv_split((b), (c)))
#define PMIX_ARGV_JOIN(a, b, c)         ((a) = PMIx_Argv_join((b), (c)))
#define PMIX_ARGV_COPY(a, b)            ((a) = PMIx_Argv_copy(b))
#define PMIX_SETENV(r, a, b, c)         ((r) = PMIx_Setenv((a), (b), true, (c)))

#define PMIX_VALUE_CONSTRUCT(m)         PMIx_Value_construct(m)
#define PMIX_VALUE_DESTRUCT(m)          PMIx_Value_destruct(m)
#define PMIX_VALUE_CREATE(m, n)         ((m) = PMIx_Value_create(n))
#define PMIX_VALUE_RELEASE(m)           PXC_FREE_AND_CLEAR_(PMIx_Value_free, m, 1)
#define PMIX_VALUE_FREE(m, n)           PXC_FREE_AND_CLEAR_(PMIx_Value_free, m, n)
#define PMIX_VALUE_LOAD(v, d, t)        PMIx_Value_load((v), (d), (t))
#define PMIX_VALUE_UNLOAD(r, k, d, s)   ((r) = PMIx_Value_unload((k), (d), (s)))
#define PMIX_VALUE_XFER_DIRECT(r, v, s) ((r) = PMIx_Value_xfer((v), (s)))
/* Copies s into v, allocating v first when it is NULL. */
#define PMIX_VALUE_XFER(r, v, s)                                        \
    do {                                                                \
        if (NULL == (v)) {                                              \
            (v) = (pmix_value_t *)malloc(sizeof(pmix_value_t));         \
        }                                                               \
        (r) = (NULL == (v)) ? PMIX_ERR_NOMEM : PMIx_Value_xfer((v), (s)); \
    } while (0)
#define PMIX_CHECK_TRUE(a)              (PMIx_Value_true(a) == PMIX_BOOL_TRUE)
#define PMIX_CHECK_BOOL(a)              (PMIx_Value_true(a) != PMIX_NON_BOOL)

/* Stores the number held in value m into n, cast to type t; s becomes
 * PMIX_ERR_BAD_PARAM when m does not hold a number. */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                               \
    do {                                                                \
        (s) = PMIX_SUCCESS;                                             \
        switch ((m)->type) {                                            \
        case PMIX_SIZE:      (n) = (t)((m)->data.size);    break;       \
        case PMIX_INT:       (n) = (t)((m)->data.integer); break;       \
        case PMIX_INT8:      (n) = (t)((m)->data.int8);    break;       \
        case PMIX_INT16:     (n) = (t)((m)->data.int16);   break;       \
        case PMIX_INT32:     (n) = (t)((m)->data.int32);   break;       \
        case PMIX_INT64:     (n) = (t)((m)->data.int64);   break;       \
        case PMIX_UINT:      (n) = (t)((m)->data.uint);    break;       \
        case PMIX_UINT8:     (n) = (t)((m)->data.uint8);   break;       \
        case PMIX_UINT16:    (n) = (t)((m)->data.uint16);  break;       \
        case PMIX_UINT32:    (n) = (t)((m)->data.uint32);  break;       \
        case PMIX_UINT64:    (n) = (t)((m)->data.uint64);  break;       \
        case PMIX_FLOAT:     (n) = (t)((m)->data.fval);    break;       \
        case PMIX_DOUBLE:    (n) = (t)((m)->data.dval);    break;       \
        case PMIX_PID:       (n) = (t)((m)->data.pid);     break;       \
        case PMIX_PROC_RANK: (n) = (t)((m)->data.rank);    break;       \
        case PMIX_STATUS:    (n) = (t)((m)->data.status);  break;       \
        default:             (s) = PMIX_ERR_BAD_PARAM;     break;       \
        }                                                               \
    } while (0)

#define PMIX_DATA_ARRAY_INIT(m, t)         PMIx_Data_array_init((m), (t))
#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t) PMIx_Data_array_construct((m), (n), (t))
#define PMIX_DATA_ARRAY_DESTRUCT(m)        PMIx_Data_array_destruct(m)
#define PMIX_DATA_ARRAY_CREATE(m, n, t)    ((m) = PMIx_Data_array_create((n), (t)))
#define PMIX_DATA_ARRAY_FREE(m)            do { PMIx_Data_array_free(m); (m) = NULL; } while (0)

#define PMIX_INFO_CONSTRUCT(m)          PMIx_Info_construct(m)
#define PMIX_INFO_DESTRUCT(m)           PMIx_Info_destruct(m)
#define PMIX_INFO_CREATE(m, n)          ((m) = PMIx_Info_create(n))
#define PMIX_INFO_FREE(m, n)            PXC_FREE_AND_CLEAR_(PMIx_Info_free, m, n)
#define PMIX_INFO_LOAD(i, k, d, t)      ((void)PMIx_Info_load((i), (k), (d), (t)))
#define PMIX_INFO_XFER(d, s)            ((void)PMIx_Info_xfer((d), (s)))
#define PMIX_INFO_REQUIRED(m)           PMIx_Info_required(m)
#define PMIX_INFO_OPTIONAL(m)           PMIx_Info_optional(m)
#define PMIX_INFO_IS_REQUIRED(m)        PMIx_Info_is_required(m)
#define PMIX_INFO_IS_OPTIONAL(m)        PMIx_Info_is_optional(m)
#define PMIX_INFO_PROCESSED(m)          PMIx_Info_processed(m)
#define PMIX_INFO_WAS_PROCESSED(m)      PMIx_Info_was_processed(m)
#define PMIX_INFO_SET_END(m)            PMIx_Info_set_end(m)
#define PMIX_INFO_IS_END(m)             PMIx_Info_is_end(m)
#define PMIX_INFO_SET_QUALIFIER(i)      PMIx_Info_qualifier(i)
#define PMIX_INFO_IS_QUALIFIER(i)       PMIx_Info_is_qualifier(i)
#define PMIX_INFO_SET_PERSISTENT(ii)    PMIx_Info_persistent(ii)
#define PMIX_INFO_IS_PERSISTENT(ii)     PMIx_Info_is_persistent(ii)
#define PMIX_INFO_TRUE(m)               (PMIx_Info_true(m) == PMIX_BOOL_TRUE)

#define PMIX_INFO_LIST_START(p)              ((p) = PMIx_Info_list_start())
#define PMIX_INFO_LIST_ADD(r, p, a, v, t)    ((r) = PMIx_Info_list_add((p), (a), (v), (t)))
#define PMIX_INFO_LIST_PREPEND(r, p, a, v, t) ((r) = PMIx_Info_list_prepend((p), (a), (v), (t)))
#define PMIX_INFO_LIST_INSERT(r, p, i)       ((r) = PMIx_Info_list_insert((p), (i)))
#define PMIX_INFO_LIST_XFER(r, p, a)         ((r) = PMIx_Info_list_xfer((p), (a)))
#define PMIX_INFO_LIST_CONVERT(r, p, m)      ((r) = PMIx_Info_list_convert((p), (m)))
#define PMIX_INFO_LIST_RELEASE(p)            PMIx_Info_list_release(p)

/* Note the argument order: m, number of coordinates d, dimensions n. */
#define PMIX_COORD_CREATE(m, d, n)      ((m) = PMIx_Coord_create((n), (d)))
#define PMIX_COORD_CONSTRUCT(m)         PMIx_Coord_construct(m)
#define PMIX_COORD_DESTRUCT(m)          PMIx_Coord_destruct(m)
#define PMIX_COORD_FREE(m, n)           PXC_FREE_AND_CLEAR_(PMIx_Coord_free, m, n)

#define PMIX_TOPOLOGY_CONSTRUCT(m)      PMIx_Topology_construct(m)
#define PMIX_TOPOLOGY_DESTRUCT(x)       PMIx_Topology_destruct(x)
#define PMIX_TOPOLOGY_CREATE(m, n)      ((m) = PMIx_Topology_create(n))
#define PMIX_TOPOLOGY_FREE(m, n)        PXC_FREE_AND_CLEAR_(PMIx_Topology_free, m, n)
#define PMIX_CPUSET_CONSTRUCT(m)        PMIx_Cpuset_construct(m)
#define PMIX_CPUSET_DESTRUCT(m)         PMIx_Cpuset_destruct(m)
#define PMIX_CPUSET_CREATE(m, n)        ((m) = PMIx_Cpuset_create(n))
#define PMIX_CPUSET_FREE(m, n)          PXC_FREE_AND_CLEAR_(PMIx_Cpuset_free, m, n)
#define PMIX_GEOMETRY_CONSTRUCT(m)      PMIx_Geometry_construct(m)
#define PMIX_GEOMETRY_DESTRUCT(m)       PMIx_Geometry_destruct(m)
#define PMIX_GEOMETRY_CREATE(m, n)      ((m) = PMIx_Geometry_create(n))
#define PMIX_GEOMETRY_FREE(m, n)        PXC_FREE_AND_CLEAR_(PMIx_Geometry_free, m, n)

#define PMIX_DEVICE_DIST_CONSTRUCT(m)   PMIx_Device_distance_construct(m)
#define PMIX_DEVICE_DIST_DESTRUCT(m)    PMIx_Device_distance_destruct(m)
#define PMIX_DEVICE_DIST_CREATE(m, n)   ((m) = PMIx_Device_distance_create(n))
#define PMIX_DEVICE_DIST_FREE(m, n)     PXC_FREE_AND_CLEAR_(PMIx_Device_distance_free, m, n)

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)   PMIx_Byte_object_construct(m)
#define PMIX_BYTE_OBJECT_DESTRUCT(m)    PMIx_Byte_object_destruct(m)
#define PMIX_BYTE_OBJECT_CREATE(m, n)   ((m) = PMIx_Byte_object_create(n))
#define PMIX_BYTE_OBJECT_FREE(m, n)     PXC_FREE_AND_CLEAR_(PMIx_Byte_object_free, m, n)
/* Moves d (s bytes) into b; d and s are cleared. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)                                  \
    do {                                                                \
        PMIx_Byte_object_load((b), (char *)(d), (s));                   \
        (d) = NULL;                                                     \
        (s) = 0;                                                        \
    } while (0)

#define PMIX_ENDPOINT_CONSTRUCT(m)      PMIx_Endpoint_construct(m)
#define PMIX_ENDPOINT_DESTRUCT(m)       PMIx_Endpoint_destruct(m)
#define PMIX_ENDPOINT_CREATE(m, n)      ((m) = PMIx_Endpoint_create(n))
#define PMIX_ENDPOINT_FREE(m, n)        PXC_FREE_AND_CLEAR_(PMIx_Endpoint_free, m, n)

#define PMIX_ENVAR_CONSTRUCT(m)         PMIx_Envar_construct(m)
#define PMIX_ENVAR_DESTRUCT(m)          PMIx_Envar_destruct(m)
#define PMIX_ENVAR_CREATE(m, n)         ((m) = PMIx_Envar_create(n))
#define PMIX_ENVAR_FREE(m, n)           PXC_FREE_AND_CLEAR_(PMIx_Envar_free, m, n)
#define PMIX_ENVAR_LOAD(m, e, v, s)     PMIx_Envar_load((m), (char *)(e), (char *)(v), (s))

#define PMIX_DATA_BUFFER_CONSTRUCT(m)   PMIx_Data_buffer_construct(m)
#define PMIX_DATA_BUFFER_DESTRUCT(m)    PMIx_Data_buffer_destruct(m)
#define PMIX_DATA_BUFFER_CREATE(m)      ((m) = PMIx_Data_buffer_create())
#define PMIX_DATA_BUFFER_RELEASE(m)     do { PMIx_Data_buffer_release(m); (m) = NULL; } while (0)
#define PMIX_DATA_BUFFER_LOAD(b, d, s)  PMIx_Data_buffer_load((b), (char *)(d), (s))
/* Hands the buffer's unread bytes to the caller as d (s bytes). */
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s)                                \
    do {                                                                \
        char *pxc_ub_bytes_ = NULL;                                     \
        size_t pxc_ub_size_ = 0;                                        \
        PMIx_Data_buffer_unload((b), &pxc_ub_bytes_, &pxc_ub_size_);    \
        (d) = pxc_ub_bytes_;                                            \
        (s) = pxc_ub_size_;                                             \
    } while (0)

#define PMIX_PROC_CONSTRUCT(m)          PMIx_Proc_construct(m)
#define PMIX_PROC_DESTRUCT(m)           PMIx_Proc_destruct(m)
#define PMIX_PROC_CREATE(m, n)          ((m) = PMIx_Proc_create(n))
#define PMIX_PROC_FREE(m, n)            PXC_FREE_AND_CLEAR_(PMIx_Proc_free, m, n)
#define PMIX_PROC_RELEASE(m)            PXC_FREE_AND_CLEAR_(PMIx_Proc_free, m, 1)
#define PMIX_PROC_LOAD(m, n, r)         PMIx_Proc_load((m), (n), (r))
#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n) \
    PMIx_Multicluster_nspace_construct((t), (c), (n))
#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n) \
    PMIx_Multicluster_nspace_parse((t), (c), (n))

#define PMIX_PROC_INFO_CONSTRUCT(m)     PMIx_Proc_info_construct(m)
#define PMIX_PROC_INFO_DESTRUCT(m)      PMIx_Proc_info_destruct(m)
#define PMIX_PROC_INFO_CREATE(m, n)     ((m) = PMIx_Proc_info_create(n))
#define PMIX_PROC_INFO_FREE(m, n)       PXC_FREE_AND_CLEAR_(PMIx_Proc_info_free, m, n)
#define PMIX_PROC_INFO_RELEASE(m)       PXC_FREE_AND_CLEAR_(PMIx_Proc_info_free, m, 1)

#define PMIX_PROC_STATS_CONSTRUCT(m)    PMIx_Proc_stats_construct(m)
#define PMIX_PROC_STATS_DESTRUCT(m)     PMIx_Proc_stats_destruct(m)
#define PMIX_PROC_STATS_CREATE(m, n)    ((m) = PMIx_Proc_stats_create(n))
#define PMIX_PROC_STATS_FREE(m, n)      PXC_FREE_AND_CLEAR_(PMIx_Proc_stats_free, m, n)
#define PMIX_PROC_STATS_RELEASE(m)      PXC_FREE_AND_CLEAR_(PMIx_Proc_stats_free, m, 1)
#define PMIX_DISK_STATS_CONSTRUCT(m)    PMIx_Disk_stats_construct(m)
#define PMIX_DISK_STATS_DESTRUCT(m)     PMIx_Disk_stats_destruct(m)
#define PMIX_DISK_STATS_CREATE(m, n)    ((m) = PMIx_Disk_stats_create(n))
#define PMIX_DISK_STATS_FREE(m, n)      PXC_FREE_AND_CLEAR_(PMIx_Disk_stats_free, m, n)
#define PMIX_DISK_STATS_RELEASE(m)      PXC_FREE_AND_CLEAR_(PMIx_Disk_stats_free, m, 1)
#define PMIX_NET_STATS_CONSTRUCT(m)     PMIx_Net_stats_construct(m)
#define PMIX_NET_STATS_DESTRUCT(m)      PMIx_Net_stats_destruct(m)
#define PMIX_NET_STATS_CREATE(m, n)     ((m) = PMIx_Net_stats_create(n))
#define PMIX_NET_STATS_FREE(m, n)       PXC_FREE_AND_CLEAR_(PMIx_Net_stats_free, m, n)
#define PMIX_NET_STATS_RELEASE(m)       PXC_FREE_AND_CLEAR_(PMIx_Net_stats_free, m, 1)
#define PMIX_NODE_STATS_CONSTRUCT(m)    PMIx_Node_stats_construct(m)
#define PMIX_NODE_STATS_DESTRUCT(m)     PMIx_Node_stats_destruct(m)
#define PMIX_NODE_STATS_CREATE(m, n)    ((m) = PMIx_Node_stats_create(n))
#define PMIX_NODE_STATS_FREE(m, n)      PXC_FREE_AND_CLEAR_(PMIx_Node_stats_free, m, n)
#define PMIX_NODE_STATS_RELEASE(m)      PXC_FREE_AND_CLEAR_(PMIx_Node_stats_free, m, 1)

#define PMIX_PDATA_CONSTRUCT(m)         PMIx_Pdata_construct(m)
#define PMIX_PDATA_DESTRUCT(m)          PMIx_Pdata_destruct(m)
#define PMIX_PDATA_CREATE(m, n)         ((m) = PMIx_Pdata_create(n))
#define PMIX_PDATA_FREE(m, n)           PXC_FREE_AND_CLEAR_(PMIx_Pdata_free, m, n)
#define PMIX_PDATA_RELEASE(m)           PXC_FREE_AND_CLEAR_(PMIx_Pdata_free, m, 1)
/* Fills pdata m with a copy of proc p, key k and the value at v. */
#define PMIX_PDATA_LOAD(m, p, k, v, t)                                  \
    do {                                                                \
        if (NULL != (m)) {                                              \
            PMIx_Pdata_construct(m);                                    \
            PMIx_Xfer_procid(&(m)->proc, (p));                          \
            PMIx_Load_key((m)->key, (k));                               \
            (void)PMIx_Value_load(&(m)->value, (v), (t));               \
        }                                                               \
    } while (0)
/* Makes pdata d a deep copy of pdata s. */
#define PMIX_PDATA_XFER(d, s)                                           \
    do {                                                                \
        if (NULL != (d)) {                                              \
            PMIx_Pdata_construct(d);                                    \
            PMIx_Xfer_procid(&(d)->proc, &(s)->proc);                   \
            PMIx_Load_key((d)->key, (s)->key);                          \
            (void)PMIx_Value_xfer(&(d)->value, &(s)->value);            \
        }                                                               \
    } while (0)

#define PMIX_APP_CONSTRUCT(m)           PMIx_App_construct(m)
#define PMIX_APP_DESTRUCT(m)            PMIx_App_destruct(m)
#define PMIX_APP_CREATE(m, n)           ((m) = PMIx_App_create(n))
#define PMIX_APP_INFO_CREATE(m, n)      PMIx_App_info_create((m), (n))
#define PMIX_APP_FREE(m, n)             PXC_FREE_AND_CLEAR_(PMIx_App_free, m, n)
#define PMIX_APP_RELEASE(m)             do { PMIx_App_release(m); (m) = NULL; } while (0)

#define PMIX_QUERY_CONSTRUCT(m)         PMIx_Query_construct(m)
#define PMIX_QUERY_DESTRUCT(m)          PMIx_Query_destruct(m)
#define PMIX_QUERY_CREATE(m, n)         ((m) = PMIx_Query_create(n))
#define PMIX_QUERY_QUALIFIERS_CREATE(m, n) PMIx_Query_qualifiers_create((m), (n))
#define PMIX_QUERY_FREE(m, n)           PXC_FREE_AND_CLEAR_(PMIx_Query_free, m, n)
#define PMIX_QUERY_RELEASE(m)           do { PMIx_Query_release(m); (m) = NULL; } while (0)

#define PMIX_REGATTR_CONSTRUCT(a)       PMIx_Regattr_construct(a)
#define PMIX_REGATTR_DESTRUCT(a)        PMIx_Regattr_destruct(a)
#define PMIX_REGATTR_CREATE(m, n)       ((m) = PMIx_Regattr_create(n))
#define PMIX_REGATTR_FREE(m, n)         PXC_FREE_AND_CLEAR_(PMIx_Regattr_free, m, n)
#define PMIX_REGATTR_LOAD(a, n, k, t, v) PMIx_Regattr_load((a), (n), (k), (t), (v))
#define PMIX_REGATTR_XFER(a, b)         PMIx_Regattr_xfer((a), (b))

#define PMIX_FABRIC_CONSTRUCT(x)        PMIx_Fabric_construct(x)

#ifdef __cplusplus
}
#endif

/* Retired names, still accepted from old sources and binaries. */
#include <pmix_deprecated.h>

/* Layout checks for LP64, against the sizes OpenPMIx 4.2 binaries were
 * built with.  The library build defines PXC_ABI_ASSERTS. */
#if defined(PXC_ABI_ASSERTS) && !defined(__cplusplus) && defined(__LP64__)
#include <stddef.h>
_Static_assert(sizeof(pmix_nspace_t) == 256, "pmix_nspace_t");
_Static_assert(sizeof(pmix_key_t) == 512, "pmix_key_t");
_Static_assert(sizeof(pmix_proc_t) == 260, "pmix_proc_t");
_Static_assert(offsetof(pmix_proc_t, rank) == 256, "pmix_proc_t.rank");
_Static_assert(sizeof(pmix_byte_object_t) == 16, "pmix_byte_object_t");
_Static_assert(sizeof(pmix_data_array_t) == 24, "pmix_data_array_t");
_Static_assert(offsetof(pmix_data_array_t, size) == 8, "pmix_data_array_t.size");
_Static_assert(offsetof(pmix_data_array_t, array) == 16, "pmix_data_array_t.array");
_Static_assert(sizeof(pmix_envar_t) == 24, "pmix_envar_t");
_Static_assert(sizeof(pmix_coord_t) == 24, "pmix_coord_t");
_Static_assert(sizeof(pmix_value_t) == 32, "pmix_value_t");
_Static_assert(offsetof(pmix_value_t, data) == 8, "pmix_value_t.data");
_Static_assert(sizeof(pmix_info_t) == 552, "pmix_info_t");
_Static_assert(offsetof(pmix_info_t, flags) == 512, "pmix_info_t.flags");
_Static_assert(offsetof(pmix_info_t, value) == 520, "pmix_info_t.value");
_Static_assert(sizeof(pmix_pdata_t) == 808, "pmix_pdata_t");
_Static_assert(offsetof(pmix_pdata_t, key) == 260, "pmix_pdata_t.key");
_Static_assert(offsetof(pmix_pdata_t, value) == 776, "pmix_pdata_t.value");
_Static_assert(sizeof(pmix_app_t) == 56, "pmix_app_t");
_Static_assert(offsetof(pmix_app_t, maxprocs) == 32, "pmix_app_t.maxprocs");
_Static_assert(offsetof(pmix_app_t, info) == 40, "pmix_app_t.info");
_Static_assert(offsetof(pmix_app_t, ninfo) == 48, "pmix_app_t.ninfo");
_Static_assert(sizeof(pmix_query_t) == 24, "pmix_query_t");
_Static_assert(sizeof(pmix_proc_info_t) == 296, "pmix_proc_info_t");
_Static_assert(offsetof(pmix_proc_info_t, hostname) == 264, "pmix_proc_info_t.hostname");
_Static_assert(offsetof(pmix_proc_info_t, pid) == 280, "pmix_proc_info_t.pid");
_Static_assert(offsetof(pmix_proc_info_t, exit_code) == 284, "pmix_proc_info_t.exit_code");
_Static_assert(offsetof(pmix_proc_info_t, state) == 288, "pmix_proc_info_t.state");
_Static_assert(sizeof(pmix_regattr_t) == 536, "pmix_regattr_t");
_Static_assert(sizeof(pmix_data_buffer_t) == 40, "pmix_data_buffer_t");
_Static_assert(sizeof(pmix_topology_t) == 16, "pmix_topology_t");
_Static_assert(sizeof(pmix_cpuset_t) == 16, "pmix_cpuset_t");
_Static_assert(sizeof(pmix_geometry_t) == 40, "pmix_geometry_t");
_Static_assert(sizeof(pmix_endpoint_t) == 32, "pmix_endpoint_t");
_Static_assert(sizeof(pmix_device_distance_t) == 32, "pmix_device_distance_t");
#endif

#endif /* SLURMIX_PMIX_COMMON_H */
