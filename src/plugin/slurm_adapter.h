/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurm_adapter.h - everything the plugin needs from Slurm that Slurm's
 * public headers (<slurm/slurm.h>) do not provide, for every supported
 * Slurm release series, plus version-neutral accessors the rest of
 * src/plugin uses.
 *
 * Slurm installs no headers for its plugin interface, so the types the
 * loader passes to an mpi plugin (mpi_step_info_t, ...), the config parser
 * (s_p_*), the log function and the few allocator functions whose memory
 * Slurm frees itself are declared here and in slurm_adapter.c from Slurm's
 * public sources of each series (SchedMD/slurm at the release tags named
 * below; files src/common/slurm_mpi.h or src/interfaces/mpi.h,
 * src/common/parse_config.h, read_config.h, log.h, xmalloc.h, list.h,
 * env.h, slurm_protocol_api.h, src/slurmd/slurmstepd/slurmstepd_job.h,
 * and slurm/slurm.h). Every function named here is exported by
 * libslurmfull.so under its slurm_ alias and resolved when slurmd,
 * slurmstepd, slurmctld or srun dlopen()s the plugin.
 *
 * One block per series below, selected on SLURM_VERSION_NUMBER, states the
 * facts that differ between series as PLUG_SLURM_* macros; the declarations
 * after the blocks and slurm_adapter.c follow those macros. Each fact was
 * read at the tag named in its block and checked to hold for every micro
 * release tag of that series (0 through the one named). Nothing outside
 * slurm_adapter.{h,c} depends on the series; docs/slurm-versions.md tells
 * which series were built and run here.
 *
 * The only struct layout we depend on is the head of stepd_step_rec_t up to
 * the field `batch`, and only inside slurm_adapter.c; the values read from
 * it are cross-checked at run time against what srun sent (plug_stepd_check).
 *
 * Threads: the log and config functions are called from Slurm's threads;
 * nothing here keeps state.
 */
#ifndef PLUG_SLURM_ADAPTER_H
#define PLUG_SLURM_ADAPTER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define PLUG_SLURM_SERIES_OF(a, b) (((a) << 8) | (b))
#define PLUG_SLURM_SERIES (SLURM_VERSION_NUMBER >> 8)
/* 1 when the Slurm built against is of series a.b or later */
#define PLUG_SLURM_SINCE(a, b) (PLUG_SLURM_SERIES >= PLUG_SLURM_SERIES_OF(a, b))

#if PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(22, 5) &&      \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(23, 2) &&  \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(23, 11) && \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(24, 5) &&  \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(24, 11) && \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(25, 5) &&  \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(25, 11) && \
	PLUG_SLURM_SERIES != PLUG_SLURM_SERIES_OF(26, 5)
#error "src/plugin/slurm_adapter.h has no block for this Slurm series (supported: 22.05 23.02 23.11 24.05 24.11 25.05 25.11 26.05; see docs/slurm-versions.md)"
#endif

/*
 * Common to every series 22.05-26.05 (read at each tag below): the mpi
 * plugin symbols the loader looks up (plugin_id and the eight mpi_p_* of
 * slurm_mpi.c / interfaces/mpi.c, same types; the printable list is `List`
 * up to 24.05 and `list_t *` from 24.11, a struct xlist pointer in both);
 * mpi_step_info_t (het_job_id, het_job_task_offset, step_id, step_layout);
 * plugin.c's loader calls init as int (*)(void) and fini as
 * void (*)(void), and requires plugin_version & 0xffffff to equal its own
 * SLURM_VERSION_NUMBER; the log_level_t values (log.h); the S_P_* order
 * (parse_config.h); the prototypes of slurm_xcalloc, slurm_xfree, xstrdup,
 * transfer_s_p_options, s_p_hashtbl_create, s_p_parse_pair,
 * s_p_get_string/uint32/boolean, list_create, destroy_config_key_pair,
 * env_array_overwrite, slurm_forward_data, and their strong_alias to
 * slurm_*; config_key_pair_t; the slurm_conf_t fields we read.
 *
 * What changed, one block per series: each PLUG_SLURM_* fact is 1 from the
 * series that brought it on. Every block was read at the tag it names and
 * holds for every micro release tag of its series (0 through that one).
 * slurm_get_errno() (a function returning errno up to 25.11, gone in 26.05)
 * is not used: Slurm's calls leave their error in errno in all.
 */

/* Slurm 22.05, the base: read at slurm-22-05-8-1 (= Debian 12's slurm-wlm
 * 22.05.8-4+deb12u3, whose patches touch none of these); built and run.
 * slurm_mpi.h's types are mpi_plugin_client_info_t and
 * mpi_plugin_task_info_t (with `slurm_addr_t *self`); hostlist_t is a
 * pointer; slurm_kill_job_step(job, step, signal). */

/* Slurm 23.02: read at slurm-23-02-8-1. slurm_mpi.h became
 * src/interfaces/mpi.h, its types mpi_step_info_t and mpi_task_info_t
 * (same fields); stepd_step_rec_t's container a step_container_t * (a
 * pointer as 22.05's char *). */
/* s_p_options_t ends in pack/unpack callbacks (parse_config.h, commit
 * 08a1008f04 "Add the ability to pack an array in a hashtbl") */
#define PLUG_SLURM_S_P_PACK PLUG_SLURM_SINCE(23, 2)
/* list_append() returns void, not the item (list.h) */
#define PLUG_SLURM_LIST_APPEND_VOID PLUG_SLURM_SINCE(23, 2)

/* Slurm 23.11: read at slurm-23-11-11-1. */
/* mpi_task_info_t has no `self` (interfaces/mpi.h, commit 77ebd457a1) */
#define PLUG_SLURM_TASK_NO_SELF PLUG_SLURM_SINCE(23, 11)
/* slurm.h's hostlist_t is the struct; its functions take hostlist_t * */
#define PLUG_SLURM_HOSTLIST_STRUCT PLUG_SLURM_SINCE(23, 11)
/* slurm_kill_job_step(job, step, signal, flags) (slurm.h) */
#define PLUG_SLURM_KILL_STEP_FLAGS PLUG_SLURM_SINCE(23, 11)
/* stepd_step_rec_t has node_addrs and node_list after node_tasks
 * (slurmstepd_job.h) */
#define PLUG_SLURM_STEPD_NODE_ADDRS PLUG_SLURM_SINCE(23, 11)

/* From Slurm 23.02.5 to 23.11.x, slurmd's REQUEST_FORWARD_DATA handler
 * (_rpc_forward_data, src/slurmd/slurmd/req.c) answers success when it
 * could not connect to the socket and errno happens to be 0 (commit
 * 1f63e9c399 "Ensure fd is usable", first in 23.02.5; fixed in 24.05.0 by
 * 2799c4e367 "Prevent the rc of REQUEST_FORWARD_DATA RPC from being a false
 * success", which names mpi/pmix's start-up failing from it). Seen here on
 * 23.11.11: a stepd's endpoint report to a parent whose socket was not
 * there yet was "delivered" and lost, and the step's first fence timed
 * out. The only fact that depends on the micro release. */
#define PLUG_SLURM_FORWARD_FALSE_OK \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 5) && !PLUG_SLURM_SINCE(24, 5))

/* Slurm 24.05: read at slurm-24-05-8-1. Nothing else we use changed
 * (stepd_step_rec_t's switch_job became switch_step, in the same place). */

/* Slurm 24.11: read at slurm-24-11-7-1 and in the release tarball
 * slurm-24.11.7.tar.xz; built from it and run. List left the public
 * headers (list_t). */
/* slurm_step_id_t starts with the 64-bit `sluid_t sluid` (slurm.h): never
 * filled positionally */
#define PLUG_SLURM_SLUID PLUG_SLURM_SINCE(24, 11)
/* ESLURM_JOB_SETTING_DB_INX (an update refused while the database sets
 * the job's index: try again) is gone (slurm_errno.h, commit 98c2add5bc,
 * "replaced with the sluid generation within slurmctld") */
#define PLUG_SLURM_NO_DB_INX PLUG_SLURM_SINCE(24, 11)

/* Slurm 25.05: read at slurm-25-05-8-1. */
/* stepd_step_rec_t has het_job_step_task_cnts after het_job_step_cnt
 * (slurmstepd_job.h) */
#define PLUG_SLURM_STEPD_HET_STEP_TASK_CNTS PLUG_SLURM_SINCE(25, 5)
/* slurmd no longer caches its hwloc topology in
 * SlurmdSpoolDir/hwloc_topo_whole.xml (src/slurmd/common/xcpuinfo.c,
 * commit 2d0c866a50 "Stop attempting to load hwloc_topo_whole.xml") */
#define PLUG_SLURM_NO_TOPO_CACHE PLUG_SLURM_SINCE(25, 5)

/* Slurm 25.11: read at slurm-25-11-7-1. mpi/pmix's own fini became void
 * (the loader always called it as void). */
/* slurm_kill_job_step(slurm_step_id_t *, signal, flags) and
 * slurm_get_job_steps(slurm_step_id_t *, resp, flags) (slurm.h, commit
 * 0aba30e383 and its neighbours) */
#define PLUG_SLURM_STEP_CALLS_BY_ID PLUG_SLURM_SINCE(25, 11)
/* resource_allocation_response_msg_t and job_desc_msg_t carry
 * `slurm_step_id_t step_id` instead of `job_id` (slurm.h) */
#define PLUG_SLURM_MSG_STEP_ID PLUG_SLURM_SINCE(25, 11)

/* Slurm 26.05: read at slurm-26-05-3-1 and in the release tarball
 * slurm-26.05.3.tar.xz; built from it and run. */
/* slurm_load_job, slurm_kill_job and slurm_allocation_lookup take a
 * slurm_step_id_t by value instead of the job id (slurm.h, commit
 * 4a398f5f9b and its neighbours; the job-id calls stay as _Generic macros,
 * we call the real functions) */
#define PLUG_SLURM_JOB_CALLS_BY_ID PLUG_SLURM_SINCE(26, 5)

#define PLUG_EXPORT __attribute__((visibility("default")))

/* ---- the mpi plugin interface (slurm_mpi.h; interfaces/mpi.h) ---------- */

/* srun side: what srun knows about the step it launches
 * (mpi_plugin_client_info_t in 22.05, mpi_step_info_t from 23.02). */
typedef struct {
	uint32_t het_job_id;          /* het job leader id or NO_VAL */
	uint32_t het_job_task_offset; /* het job task offset or NO_VAL */
	slurm_step_id_t step_id;
	slurm_step_layout_t *step_layout;
} plug_client_info_t;

/* slurmstepd, in the forked task: who this task is
 * (mpi_plugin_task_info_t in 22.05, mpi_task_info_t from 23.02). */
typedef struct {
	void *client;     /* slurm_addr_t * of srun */
	uint32_t gtaskid; /* rank in the step */
	int ltaskid;      /* rank on this node */
	uint32_t ltasks;  /* tasks on this node */
	uint32_t nnodes;
	uint32_t nodeid;
	uint32_t ntasks;
#if !PLUG_SLURM_TASK_NO_SELF
	void *self; /* slurm_addr_t * */
#endif
	slurm_step_id_t step_id;
} plug_task_info_t;

/* slurmstepd's step record; opaque outside slurm_adapter.c. */
typedef struct plug_stepd_rec plug_stepd_rec_t;

/* The list Slurm's loader gets from mpi_p_conf_get_printable: List up to
 * 24.05, list_t * from 24.11, a struct xlist * in both. */
typedef struct xlist *plug_list_t;

/* srun's state token: anything non-NULL means success. */
typedef void plug_client_state_t;

/* ---- config parser (src/common/parse_config.h; S_P_* alike in all) ----- */

typedef struct s_p_hashtbl s_p_hashtbl_t;

typedef enum {
	S_P_IGNORE = 0,
	S_P_STRING,
	S_P_LONG,
	S_P_UINT16,
	S_P_UINT32,
	S_P_UINT64,
	S_P_POINTER,
	S_P_ARRAY,
	S_P_BOOLEAN,
} plug_s_p_type_t;

typedef struct plug_s_p_options {
	char *key;
	int type; /* plug_s_p_type_t */
	int (*handler)(void **data, int type, const char *key, const char *value, const char *line,
		       char **leftover);
	void (*destroy)(void *data);
	struct plug_s_p_options *line_options;
#if PLUG_SLURM_S_P_PACK
	void (*pack)(void *data, void *buffer); /* buf_t * */
	void *(*unpack)(void *buffer);
#endif
} s_p_options_t;

/* ---- version-neutral accessors (slurm_adapter.c) ----------------------- */

/* Slurm log levels we use (src/common/log.h). */
enum {
	PLUG_LOG_ERROR = 2,
	PLUG_LOG_INFO = 3,
	PLUG_LOG_VERBOSE = 4,
	PLUG_LOG_DEBUG = 5,
	PLUG_LOG_DEBUG2 = 6,
};

/* Logs through Slurm's log (the daemon's log file, or srun's stderr). */
void plug_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when DebugFlags contains MPI (log_flag(MPI, ...) in Slurm). */
bool plug_debug_flag_mpi(void);
/* Slurm's TmpFS, or NULL when unset. Borrowed pointer. */
const char *plug_slurm_tmpfs(void);
/* Slurm's TreeWidth (50 when unset). */
uint32_t plug_slurm_tree_width(void);
/* KillWait: seconds between SIGTERM and SIGKILL when a step ends. */
uint32_t plug_slurm_kill_wait(void);
/* slurm.conf SrunPortRange (the ports srun may listen on, for sites
 * whose firewall opens only those): 0 with [lo, hi], -1 when unset. */
int plug_slurm_srun_port_range(uint16_t *lo, uint16_t *hi);
/* SlurmdSpoolDir as configured (%n/%h not expanded), or NULL. Borrowed. */
const char *plug_slurm_spooldir(void);
/* The uid of SlurmUser. */
uid_t plug_slurm_user(void);
/* Slurm's forwarding RPC (REQUEST_FORWARD_DATA): slurmd on node `host`
 * connects to the Unix socket `path` (expanding %n and %h there) and
 * writes the sender's uid and len (each 4 bytes, network order), then
 * data. Blocking (up to MessageTimeout). 0, or -1 when slurmd could not
 * deliver it (no such socket yet, node down). */
int plug_slurm_forward(const char *host, const char *path, const void *data, uint32_t len);
/* True when plug_slurm_forward's 0 means the data was delivered. False
 * for the Slurm releases whose slurmd answers success for a socket it
 * could not connect to (PLUG_SLURM_FORWARD_FALSE_OK): a sender that needs
 * delivery must then send again until it sees the effect. */
bool plug_slurm_forward_confirmed(void);
/* slurm.conf ClusterName (PMIX_CLUSTER_ID), or NULL. */
const char *plug_slurm_cluster_name(void);
/* The file in SlurmdSpoolDir where slurmd caches its hwloc topology
 * (XML), or NULL when this Slurm's slurmd writes none. */
const char *plug_slurm_topo_cache(void);

#define plug_error(...) plug_log(PLUG_LOG_ERROR, "mpi/slurmix: " __VA_ARGS__)
#define plug_info(...) plug_log(PLUG_LOG_INFO, "mpi/slurmix: " __VA_ARGS__)
#define plug_debug(...) plug_log(PLUG_LOG_DEBUG, "mpi/slurmix: " __VA_ARGS__)
#define plug_flag(...)                                                            \
	do {                                                                      \
		if (plug_debug_flag_mpi())                                        \
			plug_log(PLUG_LOG_VERBOSE, "MPI: slurmix: " __VA_ARGS__); \
	} while (0)

/* What the plugin needs from stepd_step_rec_t, copied out. */
typedef struct {
	slurm_step_id_t step_id;
	uint32_t nnodes;     /* nodes in the step */
	uint32_t ntasks;     /* tasks in the step */
	uint32_t nodeid;     /* this node's index in the step */
	uint32_t node_tasks; /* tasks on this node */
	uid_t uid;
	gid_t gid;
	int ngids;         /* the job's groups, as Slurm opens its files with */
	const gid_t *gids; /* them; borrowed */
	bool batch;
	uint32_t het_job_id;    /* NO_VAL unless a het job step */
	uint32_t cpu_bind_type; /* cpu_bind_type_t: --cpu-bind as the task plugin set it */
	const char *cpu_bind;   /* its mask/map list, or NULL; borrowed */
	const char *cwd;        /* the tasks' working directory, or NULL; borrowed */
	char *const *argv;      /* the step's command line (argc words), or NULL; borrowed */
	uint32_t argc;
} plug_stepd_info_t;

/* Copies the fields above out of Slurm's step record. Returns 0, or -1
 * (EINVAL) when job is NULL. slurmstepd, job manager thread. */
int plug_stepd_info(const plug_stepd_rec_t *job, plug_stepd_info_t *out);

/* Liveness of a job of this cluster (slurm_load_job, a blocking RPC to
 * slurmctld): 1 pending/running/suspended (*submit = submission time),
 * 0 finished or unknown to slurmctld, -1 no answer. srun only. */
int plug_slurm_job_alive(uint32_t job, time_t *submit);

/* Slurm's API calls whose arguments differ between series, by job and
 * step number. Each returns what the Slurm call returns (SLURM_SUCCESS,
 * or SLURM_ERROR with Slurm's errno) and blocks as it does (an RPC to
 * slurmctld, up to MessageTimeout). */
/* Signals a step (slurm_kill_job_step, no flags). */
int plug_slurm_kill_step(uint32_t job, uint32_t step, uint16_t sig);
/* Signals a whole job (slurm_kill_job, no flags). */
int plug_slurm_kill_job(uint32_t job, uint16_t sig);
/* slurm_load_job(SHOW_ALL); *msg for slurm_free_job_info_msg. */
int plug_slurm_load_job(job_info_msg_t **msg, uint32_t job);
/* Every step of the job (slurm_get_job_steps, SHOW_ALL); *msg for
 * slurm_free_job_step_info_response_msg. */
int plug_slurm_job_steps(uint32_t job, job_step_info_response_msg_t **msg);
/* slurm_allocation_lookup; *msg for
 * slurm_free_resource_allocation_response_msg. */
int plug_slurm_alloc_lookup(uint32_t job, resource_allocation_response_msg_t **msg);
/* The job id of an allocation Slurm granted. */
uint32_t plug_slurm_alloc_job(const resource_allocation_response_msg_t *msg);
/* Names the job a job_desc_msg_t (slurm_init_job_desc_msg'ed) updates. */
void plug_slurm_desc_job(job_desc_msg_t *desc, uint32_t job);
/* True when e (errno of a failed Slurm call) says "the job cannot be
 * updated yet, try again" (series with ESLURM_JOB_SETTING_DB_INX). */
bool plug_slurm_err_retry(int e);

/* Sets name=value in a Slurm environment array (Slurm's allocator, as
 * Slurm's own task hooks do in the forked task). 0 or -1. */
int plug_env_set(char ***env, const char *name, const char *value);
/* Expands a Slurm host list ("vn[1-3]") into a malloc()ed array of
 * malloc()ed names; *n gets the count. NULL with errno on error. */
char **plug_hostlist_expand(const char *list, uint32_t *n);
/* How many names the host list holds, counted without expanding it; -1
 * when it cannot be parsed. */
int plug_hostlist_count(const char *list);
/* The position of name in the host list, one name at a time (no list of
 * its size is built): -1 when absent, -2 when the list does not hold
 * exactly expect names or cannot be parsed. */
int plug_hostlist_index(const char *list, const char *name, uint32_t expect);

/* The config table as Slurm wants it: options copied into Slurm-owned
 * memory (conf_options), typed getters (conf_set), a table built from
 * "key", "value" pairs (conf_get), a list of printable pairs
 * (conf_get_printable). The returned objects are owned by Slurm. */
void plug_conf_transfer(s_p_options_t **full, int *full_cnt, s_p_options_t *ours);
/* Each getter returns true when the key was present. *str is malloc()ed. */
bool plug_conf_get_str(s_p_hashtbl_t *tbl, const char *key, char **str);
bool plug_conf_get_u32(s_p_hashtbl_t *tbl, const char *key, uint32_t *val);
bool plug_conf_get_bool(s_p_hashtbl_t *tbl, const char *key, bool *val);
s_p_hashtbl_t *plug_conf_tbl_create(s_p_options_t *opts);
void plug_conf_tbl_add(s_p_hashtbl_t *tbl, const char *key, const char *val);
/* Printable list: create, append (copies name and value; value may be NULL). */
void *plug_conf_list_create(void);
void plug_conf_list_add(void *list, const char *name, const char *value);

#endif
