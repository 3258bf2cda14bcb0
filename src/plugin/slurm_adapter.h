/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurm_adapter.h - everything the plugin needs from Slurm that Slurm's
 * public headers (<slurm/slurm.h>) do not provide, for one Slurm release
 * series, plus version-neutral accessors the rest of src/plugin uses.
 *
 * Slurm installs no headers for its plugin interface, so the types the
 * loader passes to an mpi plugin (mpi_plugin_client_info_t, ...), the
 * config parser (s_p_*), the log function and the few allocator functions
 * whose memory Slurm frees itself are declared here from the Slurm 22.05.8
 * sources (src/common/slurm_mpi.h, parse_config.h, read_config.h, log.h,
 * xmalloc.h, src/slurmd/slurmstepd/slurmstepd_job.h). Every function named
 * here is exported by libslurmfull.so under its slurm_ alias and resolved
 * when slurmd, slurmstepd, slurmctld or srun dlopen()s the plugin.
 *
 * The only struct layout we depend on is the head of stepd_step_rec_t up to
 * the field `gid`, and only inside slurm_adapter.c; the values read from it
 * are cross-checked at run time against what srun sent (plug_stepd_check).
 * To support another Slurm series, add a block selected on
 * SLURM_VERSION_NUMBER here and in slurm_adapter.c; nothing else changes.
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

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 6, 0)
#error "src/plugin/slurm_adapter.h knows Slurm 22.05 only"
#endif

#define PLUG_EXPORT __attribute__((visibility("default")))

/* ---- the mpi plugin interface (src/common/slurm_mpi.h, 22.05) ---------- */

/* srun side: what srun knows about the step it launches. */
typedef struct {
	uint32_t het_job_id;          /* het job leader id or NO_VAL */
	uint32_t het_job_task_offset; /* het job task offset or NO_VAL */
	slurm_step_id_t step_id;
	slurm_step_layout_t *step_layout;
} plug_client_info_t;

/* slurmstepd, in the forked task: who this task is. */
typedef struct {
	void *client;     /* slurm_addr_t * of srun */
	uint32_t gtaskid; /* rank in the step */
	int ltaskid;      /* rank on this node */
	uint32_t ltasks;  /* tasks on this node */
	uint32_t nnodes;
	uint32_t nodeid;
	uint32_t ntasks;
	void *self; /* slurm_addr_t * (gone in 23.11) */
	slurm_step_id_t step_id;
} plug_task_info_t;

/* slurmstepd's step record; opaque outside slurm_adapter.c. */
typedef struct plug_stepd_rec plug_stepd_rec_t;

/* srun's state token: anything non-NULL means success. */
typedef void plug_client_state_t;

/* ---- config parser (src/common/parse_config.h) ------------------------- */

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
} s_p_options_t;

/* ---- versions-neutral accessors (slurm_adapter.c) ---------------------- */

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
/* slurm.conf ClusterName (PMIX_CLUSTER_ID), or NULL. */
const char *plug_slurm_cluster_name(void);

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
