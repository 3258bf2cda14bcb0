/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurm_adapter.c - the Slurm side of slurm_adapter.h: declarations of the
 * libslurmfull functions we call and of the head of slurmstepd's step
 * record, for the series slurm_adapter.h selected (its PLUG_SLURM_*
 * facts), and thin wrappers over them.
 *
 * Memory rule: objects handed to Slurm (option arrays, hash tables, lists
 * and their items) are allocated with Slurm's allocator, because Slurm
 * frees them with xfree(); strings Slurm hands us are copied into malloc()
 * memory and released with xfree() at once, so the rest of the plugin only
 * sees malloc()/free().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "slurm_adapter.h"

/* ---- libslurmfull, resolved when Slurm loads the plugin ----------------- */

/* The same in every series 22.05-26.05 (slurm_adapter.h): log.h, xmalloc.h,
 * xstring.h, parse_config.h, list.h, read_config.h, env.h and
 * slurm_protocol_api.h, under the slurm_ names their strong_alias gives. */
extern slurm_conf_t slurm_conf;
extern void slurm_log_var(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern void *slurm_xcalloc(size_t cnt, size_t sz, bool clear, bool try_, const char *file, int line,
			   const char *func);
extern void slurm_xfree(void **p);
extern char *slurm_xstrdup(const char *s);
extern void slurm_transfer_s_p_options(s_p_options_t **full, s_p_options_t *options, int *full_cnt);
extern s_p_hashtbl_t *slurm_s_p_hashtbl_create(const s_p_options_t opts[]);
extern int slurm_s_p_parse_pair(s_p_hashtbl_t *tbl, const char *key, const char *value);
extern int slurm_s_p_get_string(char **str, const char *key, const s_p_hashtbl_t *tbl);
extern int slurm_s_p_get_uint32(uint32_t *num, const char *key, const s_p_hashtbl_t *tbl);
extern int slurm_s_p_get_boolean(bool *flag, const char *key, const s_p_hashtbl_t *tbl);
extern plug_list_t slurm_list_create(void (*destroy)(void *));
#if PLUG_SLURM_LIST_APPEND_VOID
extern void slurm_list_append(plug_list_t l, void *x);
#else
extern void *slurm_list_append(plug_list_t l, void *x);
#endif
extern void slurm_destroy_config_key_pair(void *object);
extern int slurm_env_array_overwrite(char ***array, const char *name, const char *value);
extern int slurm_forward_data(char **nodelist, char *address, uint32_t len, const char *data);

/* read_config.h: config_key_pair_t */
typedef struct {
	char *name;
	char *value;
} plug_key_pair_t;

/* slurm.h's host list handle */
#if PLUG_SLURM_HOSTLIST_STRUCT
typedef hostlist_t *plug_hostlist_t;
#else
typedef hostlist_t plug_hostlist_t;
#endif

/* Head of stepd_step_rec_t (src/slurmd/slurmstepd/slurmstepd_job.h at the
 * tag of the series' block in slurm_adapter.h), field for field up to
 * `batch`. 22.05's container is a char *, a step_container_t * from 23.02:
 * a pointer in both. Checked against the real header (offsetof of the
 * fields we read, compiled in a configured source tree) for 22.05.8,
 * 24.11.7 and 26.05.3 on x86_64: docs/slurm-versions.md. */
struct plug_stepd_rec {
	char *alias_list;
	void *container;
	int state; /* slurmstepd_state_t */
	pthread_cond_t state_cond;
	pthread_mutex_t state_mutex;
	slurm_step_id_t step_id;
	uint32_t array_job_id;
	uint32_t array_task_id;
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t nodeid;
	uint32_t node_tasks;
#if PLUG_SLURM_STEPD_NODE_ADDRS
	void *node_addrs; /* slurm_addr_t * */
	char *node_list;
#endif
	uint32_t het_job_id;
	uint32_t het_job_nnodes;
	char *het_job_node_list;
	uint32_t het_job_node_offset;
	uint32_t het_job_ntasks;
	uint32_t het_job_offset;
	uint32_t het_job_step_cnt;
#if PLUG_SLURM_STEPD_HET_STEP_TASK_CNTS
	uint32_t *het_job_step_task_cnts;
#endif
	uint32_t het_job_task_offset;
	uint16_t *het_job_task_cnts;
	uint32_t **het_job_tids;
	uint32_t *het_job_tid_offsets;
	uint16_t *task_cnts;
	uint32_t cpus_per_task;
	uint32_t debug;
	uint64_t job_mem;
	uint64_t step_mem;
	uint16_t cpus;
	uint32_t argc;
	char **env;
	char **argv;
	char *cwd;
	task_dist_states_t task_dist;
	char *node_name;
	cpu_bind_type_t cpu_bind_type;
	char *cpu_bind;
	mem_bind_type_t mem_bind_type;
	char *mem_bind;
	uint16_t accel_bind_type;
	uint32_t cpu_freq_min;
	uint32_t cpu_freq_max;
	uint32_t cpu_freq_gov;
	void *switch_job; /* dynamic_plugin_data_t *; switch_step from 24.05 */
	uid_t uid;
	char *user_name;
	char *pw_gecos;
	char *pw_dir;
	char *pw_shell;
	gid_t gid;
	int ngids;
	char **gr_names;
	gid_t *gids;
	bool aborted;
	bool batch;
};

/* ---- logging ------------------------------------------------------------ */

void plug_log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	slurm_log_var(level, "%s", buf);
}

bool plug_debug_flag_mpi(void)
{
	return (slurm_conf.debug_flags & DEBUG_FLAG_MPI) != 0;
}

const char *plug_slurm_tmpfs(void)
{
	return slurm_conf.tmp_fs;
}

uint32_t plug_slurm_tree_width(void)
{
	return slurm_conf.tree_width ? slurm_conf.tree_width : 50;
}

uint32_t plug_slurm_kill_wait(void)
{
	return slurm_conf.kill_wait;
}

int plug_slurm_srun_port_range(uint16_t *lo, uint16_t *hi)
{
	const uint16_t *r = slurm_conf.srun_port_range;

	if (!r || !r[0] || r[1] < r[0])
		return -1;
	*lo = r[0];
	*hi = r[1];
	return 0;
}

const char *plug_slurm_spooldir(void)
{
	return slurm_conf.slurmd_spooldir;
}

uid_t plug_slurm_user(void)
{
	return (uid_t)slurm_conf.slurm_user_id;
}

int plug_slurm_forward(const char *host, const char *path, const void *data, uint32_t len)
{
	char *nodes = strdup(host), *addr = strdup(path), *mine = nodes;
	int rc = -1;

	if (nodes && addr)
		rc = slurm_forward_data(&nodes, addr, len, data) == SLURM_SUCCESS ? 0 : -1;
	/* with several nodes Slurm may replace the list by one of its own
	 * allocator (the failed ones); with one it leaves ours */
	free(mine);
	free(addr);
	return rc;
}

const char *plug_slurm_cluster_name(void)
{
	return slurm_conf.cluster_name && slurm_conf.cluster_name[0] ? slurm_conf.cluster_name :
								       NULL;
}

bool plug_slurm_forward_confirmed(void)
{
	return !PLUG_SLURM_FORWARD_FALSE_OK;
}

const char *plug_slurm_topo_cache(void)
{
#if PLUG_SLURM_NO_TOPO_CACHE
	return NULL;
#else
	return "hwloc_topo_whole.xml";
#endif
}

/* ---- step record -------------------------------------------------------- */

int plug_stepd_info(const plug_stepd_rec_t *job, plug_stepd_info_t *out)
{
	if (!job || !out) {
		errno = EINVAL;
		return -1;
	}
	out->step_id = job->step_id;
	out->nnodes = job->nnodes;
	out->ntasks = job->ntasks;
	out->nodeid = job->nodeid;
	out->node_tasks = job->node_tasks;
	out->uid = job->uid;
	out->gid = job->gid;
	out->ngids = job->ngids > 0 && job->gids ? job->ngids : 0;
	out->gids = out->ngids ? job->gids : NULL;
	out->batch = job->batch;
	out->het_job_id = job->het_job_id;
	out->cpu_bind_type = (uint32_t)job->cpu_bind_type;
	out->cpu_bind = job->cpu_bind;
	out->cwd = job->cwd;
	out->argv = job->argv;
	out->argc = job->argv ? job->argc : 0;
	return 0;
}

/* ---- environment and host lists ------------------------------------ */

int plug_env_set(char ***env, const char *name, const char *value)
{
	return slurm_env_array_overwrite(env, name, value) ? 0 : -1;
}

char **plug_hostlist_expand(const char *list, uint32_t *n)
{
	plug_hostlist_t hl = list ? slurm_hostlist_create(list) : NULL;
	int cnt = hl ? slurm_hostlist_count(hl) : 0;
	char **names = cnt > 0 ? calloc((size_t)cnt + 1, sizeof(char *)) : NULL;
	char *h;

	for (int i = 0; names && i < cnt && (h = slurm_hostlist_shift(hl)); i++) {
		names[i] = strdup(h);
		free(h); /* slurm_hostlist_shift's result is malloc()ed */
		if (!names[i])
			cnt = 0;
	}
	if (hl)
		slurm_hostlist_destroy(hl);
	if (!names || !cnt || !names[cnt - 1]) {
		for (int i = 0; names && names[i]; i++)
			free(names[i]);
		free(names);
		errno = EINVAL;
		return NULL;
	}
	*n = (uint32_t)cnt;
	return names;
}

int plug_hostlist_count(const char *list)
{
	plug_hostlist_t hl = list ? slurm_hostlist_create(list) : NULL;
	int cnt = hl ? slurm_hostlist_count(hl) : -1;

	if (hl)
		slurm_hostlist_destroy(hl);
	return cnt;
}

int plug_hostlist_index(const char *list, const char *name, uint32_t expect)
{
	plug_hostlist_t hl = list ? slurm_hostlist_create(list) : NULL;
	int cnt = hl ? slurm_hostlist_count(hl) : 0, idx = -1;
	char *h;

	if (cnt <= 0 || (uint32_t)cnt != expect) {
		if (hl)
			slurm_hostlist_destroy(hl);
		return -2;
	}
	for (int i = 0; i < cnt && (h = slurm_hostlist_shift(hl)); i++) {
		if (idx < 0 && !strcmp(h, name))
			idx = i;
		free(h); /* malloc()ed by slurm_hostlist_shift */
	}
	slurm_hostlist_destroy(hl);
	return idx;
}

/* ---- config ------------------------------------------------------------- */

void plug_conf_transfer(s_p_options_t **full, int *full_cnt, s_p_options_t *ours)
{
	slurm_transfer_s_p_options(full, ours, full_cnt);
}

bool plug_conf_get_str(s_p_hashtbl_t *tbl, const char *key, char **str)
{
	char *v = NULL;

	if (!tbl || !slurm_s_p_get_string(&v, key, tbl) || !v)
		return false;
	*str = strdup(v);
	slurm_xfree((void **)&v);
	return *str != NULL;
}

bool plug_conf_get_u32(s_p_hashtbl_t *tbl, const char *key, uint32_t *val)
{
	return tbl && slurm_s_p_get_uint32(val, key, tbl);
}

bool plug_conf_get_bool(s_p_hashtbl_t *tbl, const char *key, bool *val)
{
	return tbl && slurm_s_p_get_boolean(val, key, tbl);
}

s_p_hashtbl_t *plug_conf_tbl_create(s_p_options_t *opts)
{
	return slurm_s_p_hashtbl_create(opts);
}

void plug_conf_tbl_add(s_p_hashtbl_t *tbl, const char *key, const char *val)
{
	if (val)
		slurm_s_p_parse_pair(tbl, key, val);
}

void *plug_conf_list_create(void)
{
	return slurm_list_create(slurm_destroy_config_key_pair);
}

void plug_conf_list_add(void *list, const char *name, const char *value)
{
	plug_key_pair_t *kp = slurm_xcalloc(1, sizeof(*kp), true, false, __FILE__, __LINE__,
					    __func__);

	kp->name = slurm_xstrdup(name);
	kp->value = slurm_xstrdup(value); /* NULL stays NULL */
	slurm_list_append(list, kp);
}

int plug_slurm_job_alive(uint32_t job, time_t *submit)
{
	job_info_msg_t *msg = NULL;
	uint32_t state;
	int rc;

	*submit = 0;
	if (plug_slurm_load_job(&msg, job) != SLURM_SUCCESS)
		return errno == ESLURM_INVALID_JOB_ID ? 0 : -1;
	if (!msg || msg->record_count < 1) {
		slurm_free_job_info_msg(msg);
		return 0;
	}
	state = msg->job_array[0].job_state & JOB_STATE_BASE;
	rc = state == JOB_PENDING || state == JOB_RUNNING || state == JOB_SUSPENDED;
	*submit = msg->job_array[0].submit_time;
	slurm_free_job_info_msg(msg);
	return rc;
}

/* ---- API calls whose arguments differ between series -------------------- */

#if PLUG_SLURM_JOB_CALLS_BY_ID || PLUG_SLURM_STEP_CALLS_BY_ID
/* A slurm_step_id_t by its fields, never positionally (PLUG_SLURM_SLUID:
 * the struct starts with the sluid from 24.11): sluid 0, unknown to us,
 * as in slurm.h's SLURM_STEP_ID_INITIALIZER; no het component. */
static slurm_step_id_t step_id_of(uint32_t job, uint32_t step)
{
	slurm_step_id_t id;

	memset(&id, 0, sizeof(id));
	id.job_id = job;
	id.step_id = step;
	id.step_het_comp = NO_VAL;
	return id;
}
#endif

int plug_slurm_kill_step(uint32_t job, uint32_t step, uint16_t sig)
{
#if PLUG_SLURM_STEP_CALLS_BY_ID
	slurm_step_id_t id = step_id_of(job, step);

	return slurm_kill_job_step(&id, sig, 0);
#elif PLUG_SLURM_KILL_STEP_FLAGS
	return slurm_kill_job_step(job, step, sig, 0);
#else
	return slurm_kill_job_step(job, step, sig);
#endif
}

int plug_slurm_kill_job(uint32_t job, uint16_t sig)
{
#if PLUG_SLURM_JOB_CALLS_BY_ID
	return slurm_kill_job(step_id_of(job, NO_VAL), sig, 0);
#else
	return slurm_kill_job(job, sig, 0);
#endif
}

int plug_slurm_load_job(job_info_msg_t **msg, uint32_t job)
{
#if PLUG_SLURM_JOB_CALLS_BY_ID
	return slurm_load_job(msg, step_id_of(job, NO_VAL), SHOW_ALL);
#else
	return slurm_load_job(msg, job, SHOW_ALL);
#endif
}

int plug_slurm_job_steps(uint32_t job, job_step_info_response_msg_t **msg)
{
#if PLUG_SLURM_STEP_CALLS_BY_ID
	slurm_step_id_t id = step_id_of(job, NO_VAL);

	return slurm_get_job_steps(&id, msg, SHOW_ALL);
#else
	return slurm_get_job_steps(0, job, NO_VAL, msg, SHOW_ALL);
#endif
}

int plug_slurm_alloc_lookup(uint32_t job, resource_allocation_response_msg_t **msg)
{
#if PLUG_SLURM_JOB_CALLS_BY_ID
	return slurm_allocation_lookup(step_id_of(job, NO_VAL), msg);
#else
	return slurm_allocation_lookup(job, msg);
#endif
}

uint32_t plug_slurm_alloc_job(const resource_allocation_response_msg_t *msg)
{
#if PLUG_SLURM_MSG_STEP_ID
	return msg->step_id.job_id;
#else
	return msg->job_id;
#endif
}

void plug_slurm_desc_job(job_desc_msg_t *desc, uint32_t job)
{
#if PLUG_SLURM_MSG_STEP_ID
	desc->step_id.job_id = job;
#else
	desc->job_id = job;
#endif
}

bool plug_slurm_err_retry(int e)
{
#if PLUG_SLURM_NO_DB_INX
	(void)e;
	return false;
#else
	return e == ESLURM_JOB_SETTING_DB_INX;
#endif
}
