/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_slurmix.h - slurmix extensions to the PMIx API.
 *
 * Attributes of PMIx_Connect/PMIx_Disconnect described by the PMIx
 * connect/disconnect design (the Standard's dynamic process chapter, v2
 * era) for which no released PMIx header defines a key string. The keys
 * are in our own "slurmix." space so that they never collide with a later
 * OpenPMIx key; a program that wants to stay portable guards their use
 * with #ifdef. Semantics: docs/dynamic.md section 5. And one attribute
 * slurmix puts on events (docs/events.md).
 */
#ifndef PMIX_SLURMIX_H
#define PMIX_SLURMIX_H

/* (bool) every participant gets PMIX_PROC_HAS_CONNECTED as each one joins
 * a connect, SLURMIX_PROC_HAS_DISCONNECTED as each one joins a disconnect */
#define PMIX_CONNECT_NOTIFY_EACH        "slurmix.cnct.notify.each"
/* The event of a disconnect with PMIX_CONNECT_NOTIFY_EACH (source and
 * PMIX_EVENT_AFFECTED_PROC: the proc that joined it): the counterpart of
 * PMIX_PROC_HAS_CONNECTED, which no PMIx header has. Below
 * PMIX_EXTERNAL_ERR_BASE, in the space the Standard leaves to others. */
#define SLURMIX_PROC_HAS_DISCONNECTED   (-3950)
/* (bool) named procs that have not joined yet get PMIX_CONNECT_REQUESTED */
#define PMIX_CONNECT_NOTIFY_REQ         "slurmix.cnct.notify.req"
/* (bool) a named proc that terminates before joining is dropped from the
 * operation instead of failing it */
#define PMIX_CONNECT_OPTIONAL           "slurmix.cnct.optional"
/* (bool) a connected proc may terminate without disconnecting: no
 * PMIX_ERR_INVALID_TERMINATION for the others */
#define PMIX_CONNECT_EARLY_TERM_ALLOWED "slurmix.cnct.early.term"
/* (bool) only exchange job information: no group context id is assigned */
#define PMIX_CONNECT_XCHG_ONLY          "slurmix.cnct.xchg.only"
/* (char*) tells apart several operations over the same procs; every
 * participant must give the same string */
#define PMIX_CONNECT_ID                 "slurmix.cnct.id"
/* (pmix_rank_t) result of a connect: the caller's rank in the group
 * (namespaces in strcmp order, ranks ascending); PMIx_Get it from the
 * caller's own proc after PMIx_Connect, beside PMIX_GROUP_CONTEXT_ID */
#define PMIX_CONNECT_GROUP_RANK         "slurmix.cnct.grank"

/* (bool) PMIx_Spawn: the spawned job does not end when its parent job
 * fails (the key OpenPMIx defines; older headers lack it) */
#ifndef PMIX_SPAWN_CHILD_SEP
#define PMIX_SPAWN_CHILD_SEP "pmix.spchildsep"
#endif

/* (uint32_t) on a delivered event: how many events the step daemon's
 * event cache dropped for room, before anyone on its node had received
 * them, since the last event that said so (docs/events.md) */
#define SLURMIX_EVENT_CACHE_DROPPED "slurmix.evcache.dropped"

/* (uint64_t) on IO forwarded to a subscription: how many bytes of that
 * source's channel were lost to it (its cache size, its drop policy, or
 * the history's bound) since the last delivery that said so (docs/iof.md) */
#define SLURMIX_IOF_DROPPED "slurmix.iof.dropped"

#endif
