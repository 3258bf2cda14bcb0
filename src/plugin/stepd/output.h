/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/output.h - the tasks' captured output (stepd/capture.h) handed to
 * the step's PMIx server (PMIx_server_IOF_deliver), so that PMIx_IOF_pull
 * gets it; and the wait that lets a task's end of stream come before its
 * termination event (docs/iof.md).
 */
#ifndef PLUG_OUTPUT_H
#define PLUG_OUTPUT_H

#include <stdint.h>
#include <pmix_common.h>
#include "lib/map.h"

/* How the tasks' output goes to srun (a spawned step's, set by its
 * parent srun in PLUG_IOF_FORMAT_ENV; docs/iof.md, "Spawned steps'
 * output"): each line tagged "[nspace,rank]<stdout>: ", timestamped,
 * or as XML (iof/format.h), stderr merged into stdout; files: a regular file
 * (--output without --label) is captured too, so that PMIx_IOF_pull
 * gets it (a spawned step's: its parent's pulls). */
typedef struct {
	bool tag, timestamp, xml, merge, files;
} plug_output_fmt_t;

/* Prefork, after the server started (job manager thread): the capture of
 * the node's ntasks tasks of nspace (map, nodeid give their ranks), their
 * output to srun as fmt says (NULL: unchanged). 0, or -1 (logged: the
 * tasks run uncaptured). */
int plug_output_start(const char *nspace, const plug_map_t *map, uint32_t nodeid, uint32_t ntasks,
		      int ack_ms, const plug_output_fmt_t *fmt);
/* In the forked task ltask, before exec (stepd/capture.h). */
void plug_output_task(uint32_t ltask);
/* Progress thread: fn(arg) once every captured channel of local rank
 * `rank` delivered its end to the server, or after ms (logged), at the
 * latest; at once (before returning) when nothing of it is captured or
 * all of it ended. */
void plug_output_when_ended(pmix_rank_t rank, int ms, void (*fn)(void *), void *arg);
/* Before the server stops (plugin fini). */
void plug_output_stop(void);

#endif
