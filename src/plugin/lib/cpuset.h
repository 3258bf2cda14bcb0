/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cpuset.h - the CPUs each task of this node will run on, for its
 * PMIX_LOCALITY_STRING (and PMIX_CPUSET), known in slurmstepd before the
 * tasks exist.
 *
 * Slurm's task plugin (task/affinity, task/cgroup with binding) turns the
 * step's --cpu-bind, explicit or automatic, into the step record's
 * cpu_bind_type and cpu_bind before slurmstepd starts: for mask_cpu a
 * comma-separated list of hexadecimal masks ("0x3,0xC" or "3,C"), for
 * map_cpu a list of CPU ids ("0,2"), the n-th local task taking the n-th
 * entry and the list repeating when it is shorter than the tasks. Slurm's
 * CPU numbers are the machine's (OS indexes), as in hwloc bitmaps. Any
 * other binding (none, sockets, ldoms, rank) gives every task the CPUs
 * the step daemon may use itself.
 *
 * Pure functions over hwloc bitmaps (unit-tested); no Slurm here.
 */
#ifndef PLUG_CPUSET_H
#define PLUG_CPUSET_H

#include <stdint.h>
#include <hwloc.h>

#define PLUG_BIND_MAP 0x0080u  /* CPU_BIND_MAP in slurm.h */
#define PLUG_BIND_MASK 0x0100u /* CPU_BIND_MASK */

/* One task's CPUs from one list entry; 0, or -1 (EINVAL) for an entry
 * that is not a mask (mask_cpu) or a CPU id (map_cpu). */
int plug_cpuset_entry(const char *entry, size_t len, int is_map, hwloc_bitmap_t out);

/* The CPUs of local task `ltask`: from bind when bind_type says mask_cpu
 * or map_cpu and the list holds a valid entry, else a copy of `fallback`.
 * A set outside `avail` is cut to it (a mask naming CPUs the node lacks);
 * an empty result falls back too. Returns a new bitmap (hwloc_bitmap_free)
 * or NULL (ENOMEM). */
hwloc_bitmap_t plug_cpuset_of_task(uint32_t bind_type, const char *bind, uint32_t ltask,
				   hwloc_const_bitmap_t avail, hwloc_const_bitmap_t fallback);

#endif
