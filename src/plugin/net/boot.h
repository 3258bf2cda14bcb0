/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_boot.h - how the step daemons of a step learn each other's
 * endpoints: through Slurm's forwarding RPC, then over the direct
 * connections (plug_net.c).
 *
 * Every stepd listens on a Unix socket under SlurmdSpoolDir,
 * slurmix.<job>.<step> (%n/%h expanded as slurmd expands them). The
 * endpoint records (node id, address, port of each stepd's TCP listener)
 * go up the tree of the step's nodes (TreeWidth, plug_tree.c): a stepd
 * whose children have all reported sends its subtree's records to its
 * parent with slurm_forward_data, which slurmd on the parent's node
 * delivers to that socket (uid and length first, as Slurm writes them).
 * The root then holds every record: it hands plug_net the whole table,
 * which travels down the same tree over the direct connections (TABLE)
 * and to srun for the step file. A send that finds no socket yet (the
 * parent's stepd still starting) is retried with a growing pause until
 * SlurmixTimeout; then the step's fences fail instead of hanging.
 *
 * Only root or SlurmUser may deliver (SO_PEERCRED of slurmd's connection
 * and the uid slurmd reports), and every message carries the job key;
 * a child reports once, every node id once. Anything else is logged and
 * dropped.
 *
 * Threads: start and join run in the job manager thread; go, stop and
 * the receiving side in the progress thread; one sender thread per stepd
 * (the blocking RPC), joined at stop.
 */
#ifndef PLUG_BOOT_H
#define PLUG_BOOT_H

#include <stdint.h>
#include <pmix_common.h>

struct event_base;

typedef struct {
	const char *key;	/* the job key (PLUG_KEY_LEN) */
	uint32_t me, nnodes, width, job, step;
	const char *addr;	/* this stepd's TCP listener */
	uint16_t port;
	char *const *hosts;	/* [nnodes] node names, step order */
	int timeout_s;		/* give up on the parent after this */
} plug_boot_args_t;

/* Binds the Unix socket (before the tasks start). 0 or -1 (logged). */
int plug_boot_start(const plug_boot_args_t *a, struct event_base *base);
/* Progress thread: starts listening; a leaf reports at once. */
void plug_boot_go(void);
/* Progress thread: closes the socket and the forwarders' connections. */
void plug_boot_stop(void);
/* After stop, any thread but the progress thread: ends the sender thread
 * (within one RPC's time), removes the socket file, frees everything. */
void plug_boot_join(void);

/* The complete endpoint table, as the root packs it: n (UINT32), then n x
 * (STRING addr, UINT32 port). Unpacks one of nnodes entries from in,
 * checking each (an address shorter than INET6_ADDRSTRLEN, a port in
 * 1..65535), and hands each to fn (NULL: check only), which may refuse
 * it with -1. 0, or -1 when the table is malformed or refused (fn may
 * have taken the first entries). Any thread. */
typedef int (*plug_boot_entry_f)(void *arg, uint32_t node, const char *addr, uint16_t port);
int plug_boot_table_unpack(pmix_data_buffer_t *in, uint32_t nnodes, plug_boot_entry_f fn,
			   void *arg);

/* Upcalls into plug_net.c, progress thread: the root's complete table
 * (above); or the bootstrap failed. */
void plug_net_boot_table(const pmix_data_buffer_t *table);
void plug_net_boot_failed(const char *why);

#endif
