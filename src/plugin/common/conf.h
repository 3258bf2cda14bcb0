/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/conf.h - the plugin's options: mpi.conf keys (prefixed Slurmix),
 * their defaults and their environment overrides.
 *
 * Life cycle in Slurm 22.05: slurmd/slurmctld call plug_conf_options() and
 * plug_conf_set() with the table parsed from mpi.conf, then plug_conf_get()
 * to pack it for the step daemons; slurmstepd gets the unpacked table in
 * plug_conf_set(); slurmctld shows plug_conf_printable() in
 * `scontrol show config`. The environment overrides (SLURMIX_TIMEOUT, ...)
 * are read from the step's environment in slurmstepd and from srun's own
 * environment in srun, after the file values.
 *
 * One process-wide instance (plug_conf), written only by Slurm's config
 * calls and by plug_conf_env(), both before any step work starts. Each
 * field has one row in common/conf.c's table (key, default, range, override),
 * which every function below walks: a new option is a field and a row.
 */
#ifndef PLUG_CONF_H
#define PLUG_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include "slurm_adapter.h"

typedef struct {
	uint32_t timeout;           /* SlurmixTimeout, seconds (300) */
	char *client_libdir;        /* SlurmixClientLibDir ($pkglibdir) */
	bool set_ld_library_path;   /* SlurmixSetLdLibraryPath (yes) */
	uint32_t debug;             /* SlurmixDebug, 0..3 (0) */
	char *tmpdir;               /* SlurmixTmpDir (TmpFS, else /tmp) */
	bool spawn_overlap;         /* SlurmixSpawnOverlap (yes): spawned
					 * steps share the CPUs (--overlap) */
	bool spawn_end_with_parent; /* SlurmixSpawnEndWithParent (yes): a
					 * spawned step ends when its parent
					 * step fails (stepd/family.c) */
	bool fast_step_end;         /* SlurmixFastStepEnd (yes): no 100 ms
					 * reaping pause once all tasks ended
					 * (stepd/reap.c) */
	uint32_t event_cache_bytes; /* SlurmixEventCacheBytes (1 MiB): the
					 * server's cache of events for late
					 * registrants, 0: none */
	uint32_t event_queue_bytes; /* SlurmixEventQueueBytes (256 KiB): events
					 * flight and queued per client, then
					 * notifiers wait; 0: no bound */
	uint32_t event_cache_age;   /* SlurmixEventCacheAge, seconds (60),
					 * 0: no age limit */
	uint32_t event_timeout;     /* SlurmixEventTimeout, seconds (10),
					 * 1..3600: the longest wait for the
					 * handlers of a synchronous event */
	bool task_weight;           /* SlurmixTaskWeight (yes): a spawned
					 * step's autogroup CPU weight is its
					 * tasks over its parent's on the node
					 * (stepd/weight.c) */
	bool iof;                   /* SlurmixIOF (yes): the tasks' stdout and
					 * stderr pass through the step daemon
					 * for PMIx_IOF_pull (stepd/capture.c) */
	uint32_t iof_history;       /* SlurmixIOFHistory (64 KiB): bytes kept
					 * per task and channel for late
					 * subscribers */
	uint32_t iof_queue;         /* SlurmixIOFQueueBytes (4 MiB): bytes that
					 * may wait per subscriber and stream
					 * without PMIX_IOF_CACHE_SIZE */
	uint32_t query_cache;       /* SlurmixQueryCache, seconds (5), 0..3600:
					 * how long an answer of slurmctld serves
					 * PMIx_Query_info (srun/query.c) */
	/* Limits on what the node's processes control (docs/limits.md),
	 * the PMIx server's: */
	uint32_t max_connections; /* SlurmixMaxConnections (1024): held at once */
	uint32_t max_pending;     /* SlurmixMaxPending (1024): requests of one
					 * connection waiting for the step daemon */
	uint32_t max_message_mb;  /* SlurmixMaxMessageMB (256): one message */
	uint32_t hello_timeout;   /* SlurmixHelloTimeout, seconds (10): for a
					 * new connection's HELLO */
} plug_conf_t;

extern plug_conf_t plug_conf;

/* Back to the defaults (frees the strings). */
void plug_conf_reset(void);
/* Slurm's conf hooks; see slurm_adapter.h for who owns what. */
void plug_conf_options(s_p_options_t **full, int *full_cnt);
void plug_conf_set(s_p_hashtbl_t *tbl);
s_p_hashtbl_t *plug_conf_get(void);
void *plug_conf_printable(void);
/* Applies SLURMIX_* overrides from env (NULL: the process environment).
 * A malformed value is logged and ignored. Returns the number ignored. */
int plug_conf_env(char **env);
/* The temporary directory base in effect (never NULL). */
const char *plug_conf_tmpdir(void);

#endif
