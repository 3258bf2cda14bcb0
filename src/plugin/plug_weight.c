/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plug_weight.c - a step's CPU share under the kernel's autogroup
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
 * (/proc/<pid>/autogroup, see sched(7)); one step of N tasks gets the
 * nice value whose weight is closest to N times that of nice 0, so that
 * steps share a CPU by task, as processes do without autogroups. Tasks
 * still compete with other sessions as N processes would. Lowering the
 * value needs CAP_SYS_NICE: slurmstepd is root; the tasks cannot change
 * it back (nor lower it further) once they run as the user.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plug_weight.h"
#include "slurm_adapter.h"

/* The kernel's CFS weight of nice -20 .. 0 (sched_prio_to_weight). */
static const double weight[21] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277, 1024,
};

int plug_weight_nice(uint32_t ntasks)
{
	double want = (double)(ntasks ? ntasks : 1) * 1024.0, best = 1e300;
	int nice = 0;

	for (int i = 0; i <= 20; i++) {	/* nearest on a log scale */
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

int plug_weight_apply(const char *proc, uint32_t ntasks)
{
	char path[256], buf[64];
	int nice = plug_weight_nice(ntasks), fd, len, rc;

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled", proc);
	if (nice == 0 || read_file(path, buf, sizeof(buf)) < 0 || buf[0] != '1')
		return 0;	/* no autogroups: shares are per process already */
	snprintf(path, sizeof(path), "%s/self/autogroup", proc);
	len = snprintf(buf, sizeof(buf), "%d", nice);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
		plug_debug("task weight: %s: %s", path, strerror(errno));
		return -1;
	}
	rc = write(fd, buf, (size_t)len) == len ? 0 : -1;
	if (rc < 0)
		plug_debug("task weight: nice %d for %u tasks: %s", nice, ntasks,
			   strerror(errno));
	close(fd);
	return rc < 0 ? -1 : nice;
}
