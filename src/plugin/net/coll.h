/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_coll.h - the host side of fences and direct modex across the step's
 * nodes: the server module's fence_nb and direct_modex callbacks
 * (plug_coll.c, plug_dmdx.c), running over plug_net.c.
 */
#ifndef PLUG_COLL_H
#define PLUG_COLL_H

#include <pmix_server.h>
#include "lib/map.h"

/* What the collectives need from the step; set once in prefork before
 * the network starts, read-only afterwards. */
typedef struct {
	char nspace[PMIX_MAX_NSLEN + 1];
	const plug_map_t *map;
	uint32_t me;
	uint32_t width;		/* TreeWidth */
	uint32_t timeout;	/* seconds */
	const char *host;	/* this node's name (borrowed from the step) */
} plug_coll_ctx_t;

extern plug_coll_ctx_t plug_coll_ctx;

/* Fences, connects and disconnects (kind) over any proc set, also across
 * namespaces of other steps of the job. */
enum { PLUG_COLL_FENCE = 0, PLUG_COLL_CONNECT = 1, PLUG_COLL_DISCONNECT = 2 };
pmix_status_t plug_coll_connect(const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_coll_disconnect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata);

/* plug_event.c: the host's notify_event (PMIX_ERR_INVALID_TERMINATION to
 * the stepds of the procs concerned; anything else NOT_SUPPORTED). */
pmix_status_t plug_event_notify(pmix_status_t code, const pmix_proc_t *source,
				pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata);

/* plug_xstep.c: another step of the job, from its srun's step file. */
typedef struct plug_xstep {
	struct plug_xstep *next;
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t step;
	plug_map_t *map;
	char **hosts;		/* [map->nnodes], NULL-terminated */
	uint32_t *peer;		/* [map->nnodes] plug_net peer ids */
	int ready;
	pmix_status_t status;	/* of the fetch */
} plug_xstep_t;

typedef void (*plug_xstep_cb_f)(pmix_status_t st, void *arg);
/* Makes sure every nspace of procs other than ours is known. Returns 1
 * when all are known now, 0 when cb will run later (progress thread,
 * in call order), or an error status (< 0). */
int plug_xstep_need(const pmix_proc_t *procs, size_t n, plug_xstep_cb_f cb, void *arg);
/* The known step of nspace (ready or being fetched), or NULL. */
plug_xstep_t *plug_xstep_find(const char *nspace);
/* Fails what waits (PMIX_ERR_UNREACH), forgets everything. */
void plug_xstep_stop(void);

pmix_status_t plug_coll_fence(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo,
			      char *data, size_t ndata,
			      pmix_modex_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_dmdx_request(const pmix_proc_t *proc,
				const pmix_info_t info[], size_t ninfo,
				pmix_modex_cbfunc_t cbfunc, void *cbdata);

#endif
