/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/family.h - failures between a spawned step and the step that
 * spawned it (stepd/family.c; docs/events.md, "failures").
 *
 * A task of a spawned step that is lost or aborted is announced to its
 * parent step too, by the stepd that saw it; a task of a step that
 * spawned others is announced to each child step by the stepd that
 * spawned it (and a whole-step abort at once). A child step whose parent
 * failed ends itself (slurm_kill_job_step, after a short grace for the
 * event) unless mpi.conf's SlurmixSpawnEndWithParent is no or the spawn
 * asked PMIX_SPAWN_CHILD_SEP.
 *
 * Progress thread, except init (prefork, before the server runs).
 */
#ifndef PLUG_STEPD_FAMILY_H
#define PLUG_STEPD_FAMILY_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>
#include "net/transport.h"

/* Prefork: this step (its nspace, job and step ids) and its parent (NULL:
 * not spawned); end: end this step when the parent fails. Also hooks the
 * lost ranks (net/lost.h) and the incoming events (net/event.h). */
void plug_family_init(const char *nspace, uint32_t job, uint32_t step, const pmix_proc_t *parent,
		      bool end);
/* This stepd spawned the step nspace. */
void plug_family_child(const char *nspace);
/* A local rank called PMIx_Abort for the whole step (status). */
void plug_family_aborted(pmix_rank_t rank, int status);
/* Before the network starts: drops the grace timer when it stops. 0/-1. */
int plug_family_register(plug_net_t *n);
/* Frees what init and child kept (plugin fini, progress thread gone). */
void plug_family_stop(void);

#endif
