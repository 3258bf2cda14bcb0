/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/input.h - pushes into this node's tasks' stdin (PMIx_IOF_push,
 * docs/iof.md "Pushing stdin"), over the capture thread's stdin streams
 * (stepd/capture.h): by rank, with the status PMIx expects.
 */
#ifndef PLUG_INPUT_H
#define PLUG_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>
#include "lib/map.h"

/* How a push ended: PMIX_SUCCESS (in every target's stdin; for all the
 * node's ranks, in at least one's), or the first target's error. */
typedef void (*plug_input_done_f)(pmix_status_t st, void *arg);

/* Prefork, before the capture starts (stepd/output.h): the node's ranks
 * (map, nodeid) and whether the end of srun's input leaves the tasks'
 * stdin open for pushes (hold: SLURMIX_STDIN=push). */
void plug_input_start(const plug_map_t *map, uint32_t nodeid, bool hold);
/* Progress thread: n bytes at data (copied) for the stdin of ranks[0..nranks)
 * of this node (ranks NULL: all of them), their end after them when
 * complete. PMIX_SUCCESS: done(st, arg) runs later in the progress
 * thread; else the error (done does not run): PMIX_ERR_BAD_PARAM (a rank
 * not on this node), PMIX_ERR_NOT_SUPPORTED (a stdin that takes no
 * pushes: /dev/null, a file, a terminal, capture off),
 * PMIX_ERR_IOF_COMPLETE (its stdin ended), PMIX_ERR_OUT_OF_RESOURCE (too
 * much waits for it), PMIX_ERR_NOMEM. */
pmix_status_t plug_input_push(const pmix_rank_t *ranks, uint32_t nranks, const void *data, size_t n,
			      bool complete, plug_input_done_f done, void *arg);
/* Plugin fini, before the capture stops (any thread but the progress
 * thread): no push reaches the capture after it (the progress thread
 * forgets the map); those it holds end when it stops. */
void plug_input_stop(void);

#endif
