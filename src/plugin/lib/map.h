/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/map.h - the step's process map (which rank runs on which node) as
 * srun computes it from the step layout, and its compact text form carried
 * to every slurmstepd in the launch environment (SLURMIX_PROC_MAP).
 *
 * Text form: "1;<ntasks>;<node 0>|<node 1>|...", one entry per node in
 * step node order; an entry is a comma list of the node's ranks in
 * launch order, where "a-b" is a..b step 1 and "a-b:s" is a..b step s.
 * Block, cyclic and plane layouts stay a few bytes per node; arbitrary
 * ones degrade gracefully to plain lists. Example, 4 ranks cyclic over
 * 2 nodes: "1;4;0,2|1,3"; 8 ranks cyclic over 2: "1;8;0-6:2|1-7:2".
 *
 * No Slurm and no PMIx here (unit-tested alone). Plain malloc/free; the
 * decoder never trusts its input: every malformed string gives EINVAL.
 */
#ifndef PLUG_MAP_H
#define PLUG_MAP_H

#include <stdint.h>

#define PLUG_MAP_ENV "SLURMIX_PROC_MAP"
#define PLUG_MAP_MAX_TASKS (1u << 24)
#define PLUG_MAP_MAX_NODES (1u << 20)

typedef struct {
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t *node_of; /* [ntasks]: node index of each rank */
	uint32_t *count;   /* [nnodes]: ranks on each node */
	uint32_t *first;   /* [nnodes]: index of the node's first rank in ranks */
	uint32_t *ranks;   /* [ntasks]: ranks grouped by node, launch order */
} plug_map_t;

/* Encodes Slurm's layout (tasks[n] ranks on node n, listed in tids[n]).
 * Returns a malloc()ed string, or NULL with errno (EINVAL for a layout
 * that is not a permutation of 0..ntasks-1, ENOMEM). Any thread. */
char *plug_map_encode(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids);
/* Parses the text form. Returns a map to free with plug_map_free, or NULL
 * with errno (EINVAL malformed, ENOMEM). Any thread. */
plug_map_t *plug_map_decode(const char *text);
/* Accepts NULL. */
void plug_map_free(plug_map_t *map);
/* MPICH's PMI_process_mapping of the map (PMIX_ANL_MAP too):
 * "(vector,(node,count,ppn),...)", blocks in rank order, each placing ppn
 * consecutive ranks on each of count consecutive nodes from node, the
 * list repeated until every rank is placed ("(vector,(0,2,1))" for 4
 * ranks cyclic over 2 nodes, like Slurm's mpi/pmi2). A malloc()ed string,
 * or NULL with errno. Any thread. */
char *plug_map_anl(const plug_map_t *map);
/* Index of rank among the ranks of its node (its local rank), or -1. */
int plug_map_local_rank(const plug_map_t *map, uint32_t rank);

#endif
