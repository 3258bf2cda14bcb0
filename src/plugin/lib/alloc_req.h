/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/alloc_req.h - a PMIx_Allocation_request's directive and attributes
 * read and checked in one place (alloc_req.c), Slurm-free: the step
 * daemon refuses what is wrong at once, srun checks again what a step
 * daemon sends it (docs/alloc.md has the mapping to Slurm).
 *
 * Threads: any; nothing is kept between calls.
 */
#ifndef PLUG_LIB_ALLOC_REQ_H
#define PLUG_LIB_ALLOC_REQ_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

/* The longest node list and label taken (bytes). */
#define PLUG_ALLOC_STR_MAX 65536
/* The longest wait for a new allocation's grant (s): a day. */
#define PLUG_ALLOC_TIMEOUT_MAX 86400

/* What a request asks. The strings point into the infos parsed (they
 * must outlive it); absent ones are NULL, absent numbers 0. */
typedef struct {
	pmix_alloc_directive_t directive;
	uint32_t nnodes;      /* PMIX_ALLOC_NUM_NODES */
	const char *nodelist; /* PMIX_ALLOC_NODE_LIST (a Slurm host list) */
	uint32_t ncpus;       /* PMIX_ALLOC_NUM_CPUS */
	uint32_t time_s;      /* PMIX_ALLOC_TIME (s) */
	const char *queue;    /* PMIX_ALLOC_QUEUE: a partition */
	const char *reqid;    /* PMIX_ALLOC_REQ_ID: the caller's label */
	const char *allocid;  /* PMIX_ALLOC_ID: a Slurm job id, digits */
	uint32_t timeout_s;   /* PMIX_TIMEOUT (s), for a NEW one's grant */
} plug_alloc_req_t;

/* Reads directive and info into r. PMIX_SUCCESS; PMIX_ERR_NO_PERMISSIONS
 * (EXTEND: Slurm lets no user grow a job or raise its time limit);
 * PMIX_ERR_NOT_SUPPORTED (REAQUIRE, EXTERNAL, an unknown attribute
 * marked required); PMIX_ERR_BAD_PARAM (an unknown directive, a value of
 * the wrong type or out of range, a RELEASE that releases nothing). err
 * (errlen bytes) gets a line saying why. */
pmix_status_t plug_alloc_parse(pmix_alloc_directive_t directive, const pmix_info_t *info,
			       size_t ninfo, plug_alloc_req_t *r, char *err, size_t errlen);

/* A Slurm job id in s (digits only, 1 .. UINT32_MAX - 2): 0/-1. */
int plug_alloc_id_parse(const char *s, uint32_t *id);

#endif
