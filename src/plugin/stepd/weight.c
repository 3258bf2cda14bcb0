/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/weight.c - a spawned step's CPU share under the kernel's autogroup
 * scheduler follows its number of tasks on the node.
 *
 * With CONFIG_SCHED_AUTOGROUP on (Debian's and Ubuntu's kernels, among
 * others), the scheduler first shares the CPUs between sessions, then
 * between the processes of a session. slurmstepd calls setsid(), so each
 * step is one session: when two steps share CPUs, as a spawned step does
 * with its parent by default (SlurmixSpawnOverlap), each step gets half
 * of them whatever its number of tasks. Two parents busy-polling in
 * MPI_Comm_spawn then hold a whole CPU while eight children starting up
 * share the other; under mpirun, one session, the ten processes get a
 * tenth each. The same holds between any steps started with --overlap.
 *
 * A session's weight is that of its autogroup nice value
 * (/proc/<pid>/autogroup, see sched(7)); a spawned step of N tasks on a
 * node where its parent step has P tasks gets the nice value whose weight
 * is closest to N / P times that of nice 0 (the parent's), so that the two
 * share the node's CPUs by task, as one mpirun's processes do, rather
 * than by halves. Never above 0: a spawned step is not made to yield.
 * Lowering the value needs CAP_SYS_NICE: slurmstepd is root; the tasks
 * cannot change it back (nor lower it further) once they run as the user.
 *
 * Only spawned steps: weighting every step was tried and, on the virtual
 * cluster (several nodes on one machine's CPUs), a job whose nodes held
 * 5, 1, 1 and 1 busy-polling ranks stalled for up to two minutes in its
 * MPI traffic, about one run in three; unweighted it never did. A
 * spawned step is the case that needs it: it exists to share its parent's
 * CPUs. Weighting only the child by its own count (parent at 0) left the
 * 2 + 8 spawning job at 1.03x mpirun; over the parent's count, 0.94x.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stepd/weight.h"
#include "slurm_adapter.h"

/* The kernel's CFS weight of nice -20 .. 0 (sched_prio_to_weight). */
static const double weight[21] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548,
	7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,  1024,
};

int plug_weight_nice(uint32_t ntasks, uint32_t others)
{
	double want = (double)(ntasks ? ntasks : 1) / (others ? others : 1) * 1024.0, best = 1e300;
	int nice = 0;

	for (int i = 0; i <= 20; i++) { /* nearest on a log scale */
		double d = weight[i] > want ? weight[i] / want : want / weight[i];

		if (d < best) {
			best = d;
			nice = i - 20;
		}
	}
	return nice;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int plug_weight_apply(const char *proc, uint32_t ntasks, uint32_t others)
{
	char path[256], buf[64];
	int nice = plug_weight_nice(ntasks, others), fd, len, rc;

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled", proc);
	if (nice == 0 || read_file(path, buf, sizeof(buf)) < 0 || buf[0] != '1')
		return 0; /* no autogroups: shares are per process already */
	snprintf(path, sizeof(path), "%s/self/autogroup", proc);
	len = snprintf(buf, sizeof(buf), "%d", nice);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
		plug_debug("task weight: %s: %s", path, strerror(errno));
		return -1;
	}
	rc = write(fd, buf, (size_t)len) == len ? 0 : -1;
	if (rc < 0)
		plug_debug("task weight: nice %d for %u tasks (%u others): %s", nice, ntasks,
			   others, strerror(errno));
	close(fd);
	return rc < 0 ? -1 : nice;
}
