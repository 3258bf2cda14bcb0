/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/xstep.h - the other steps of the job (a parent and the steps it
 * spawned, two sruns of one allocation): what this step daemon knows of
 * each, fetched once from its srun's step file (STEPINFO through
 * stepd/srun_request.h), for collectives and direct modex across
 * namespaces (docs/dynamic.md section 5). Progress thread.
 */
#ifndef PLUG_NET_XSTEP_H
#define PLUG_NET_XSTEP_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "lib/map.h"

/* Another step of the job, from its srun's step file. */
typedef struct plug_xstep {
	struct plug_xstep *next;
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t step;
	plug_map_t *map;
	char **hosts;   /* [map->nnodes], NULL-terminated */
	uint32_t *peer; /* [map->nnodes] net/transport.h peer ids */
	int ready;
	pmix_status_t status; /* of the fetch */
} plug_xstep_t;

typedef void (*plug_xstep_cb_f)(pmix_status_t st, void *arg);
/* Makes sure every nspace of procs other than ours is known. Returns 1
 * when all are known now, 0 when cb will run later (progress thread,
 * in call order), or an error status (< 0). */
int plug_xstep_need(const pmix_proc_t *procs, size_t n, plug_xstep_cb_f cb, void *arg);
/* Makes sure every step of the job that srun's job directory lists is
 * known (asks srun, then fetches what is new). 0: cb runs later (progress
 * thread, any status: what could not be fetched stays unknown), or an
 * error status (cb will not run). */
int plug_xstep_all(plug_xstep_cb_f cb, void *arg);
/* The known step of nspace (ready or being fetched), or NULL. */
plug_xstep_t *plug_xstep_find(const char *nspace);
/* The known steps one after the other: the first for NULL, then the one
 * after x; NULL at the end. */
plug_xstep_t *plug_xstep_next(const plug_xstep_t *x);
/* The process map and peer ids of the step of nspace: this step's (peer
 * NULL: a node's index is its peer id), or a known and fetched other
 * step's. False when it is neither. */
bool plug_xstep_route(const char *nspace, const plug_map_t **map, const uint32_t **peer);
/* Fails what waits (PMIX_ERR_UNREACH), forgets everything. */
void plug_xstep_stop(void);

#endif
