/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/boot.h - how the step daemons of a step learn each other's
 * endpoints: through Slurm's forwarding RPC, then over the direct
 * connections (net/transport.c).
 *
 * Every stepd listens on a Unix socket under SlurmdSpoolDir,
 * slurmix.<job>.<step> (%n/%h expanded as slurmd expands them). The
 * endpoint records (node id, address, port of each stepd's TCP listener)
 * go up the tree of the step's nodes (TreeWidth, lib/tree.c): a stepd
 * whose children have all reported sends its subtree's records to its
 * parent with slurm_forward_data, which slurmd on the parent's node
 * delivers to that socket (uid and length first, as Slurm writes them).
 * The root then holds every record: it hands plug_net the whole table,
 * which travels down the same tree over the direct connections (TABLE)
 * and to srun for the step file. A send that finds no socket yet (the
 * parent's stepd still starting) is retried with a growing pause until
 * SlurmixTimeout; then the step's fences fail instead of hanging. Where
 * slurmd may answer success for a report it could not deliver
 * (plug_slurm_forward_confirmed: Slurm 23.02.5 to 23.11), the report is
 * sent again, with the same pauses, until this node has the table.
 *
 * Only root or SlurmUser may deliver (SO_PEERCRED of slurmd's connection
 * and the uid slurmd reports), and every message carries the job key;
 * a child's report counts once (a repeat is dropped silently), every
 * node id once. Anything else is logged and dropped.
 *
 * Threads: start and join run in the job manager thread; go, stop and
 * the receiving side in the progress thread; one sender thread per stepd
 * (the blocking RPC), joined at stop.
 */
#ifndef PLUG_BOOT_H
#define PLUG_BOOT_H

#include <stdint.h>
#include <pmix_common.h>

#include "net/transport.h"

typedef struct {
	plug_net_t *net; /* the table's destination */
	const char *key; /* the job key (PLUG_KEY_LEN), copied */
	uint32_t me, nnodes, width, job, step;
	const char *addr; /* this stepd's TCP listener */
	uint16_t port;
	char *const *hosts; /* [nnodes] node names, step order */
	int timeout_s;      /* give up on the parent after this */
} plug_boot_args_t;

/* Binds the Unix socket (before the tasks start) and registers with
 * a->net (before plug_net_start), which starts the exchange once it is up
 * and stops it with itself. The root hands the table to
 * plug_net_table_in; a failure is plug_net_table_failed. 0 or -1
 * (logged). */
int plug_boot_start(const plug_boot_args_t *a);
/* After stop, any thread but the progress thread: ends the sender thread
 * (within one RPC's time), removes the socket file, frees everything. */
void plug_boot_join(void);

#endif
