/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srun/pubdir.h - PMIx_Publish / Lookup / Unpublish for every step of a
 * job (docs/dynamic.md section 4), srun's half: the pub/ directory of
 * the job directory on srun's host, shared by every step of the
 * allocation and surviving the publishing step.
 *
 * srun side (srun's progress thread): handlers of PLUG_NET_PUBLISH,
 * LOOKUP and UNPUBLISH (srun/agent.h), PMIX_WAIT lookups woken by inotify
 * on pub/ (polling when inotify is not available), each with its own
 * timer; at srun's end its step's PROC/APP-persistent entries are removed
 * and pending lookups are answered PMIX_ERR_UNREACH.
 */
#ifndef PLUG_SRUN_PUBDIR_H
#define PLUG_SRUN_PUBDIR_H

/* Registers the PUBLISH, LOOKUP and UNPUBLISH handlers with srun's agent
 * (before plug_agent_start). srun's main thread. */
void plug_pub_srun_init(void);

#endif
