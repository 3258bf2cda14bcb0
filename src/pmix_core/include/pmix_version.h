/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_version.h - the PMIx version our headers and library present.
 *
 * We implement the OpenPMIx 4.2 ABI and report ourselves as 4.2.2, the
 * release whose headers define the baseline layouts.  Open MPI's configure
 * reads PMIX_VERSION_MAJOR to pick its PMIx glue (3 or more selects the
 * external v3+ component).  SLURMIX_VERSION is our own release.
 */
#ifndef SLURMIX_PMIX_VERSION_H
#define SLURMIX_PMIX_VERSION_H

#define PMIX_VERSION_MAJOR   4L
#define PMIX_VERSION_MINOR   2L
#define PMIX_VERSION_RELEASE 2L

/* 0x00MMmmrr: major, minor, release */
#define PMIX_NUMERIC_VERSION 0x00040202

#define SLURMIX_VERSION       "0.1.0"
#define SLURMIX_VERSION_MAJOR 0
#define SLURMIX_VERSION_MINOR 1
#define SLURMIX_VERSION_PATCH 0

#endif /* SLURMIX_PMIX_VERSION_H */
