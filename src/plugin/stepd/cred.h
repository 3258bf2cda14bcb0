/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/cred.h - PMIx_Get_credential and PMIx_Validate_credential with
 * MUNGE, Slurm's own authentication (docs/credentials.md): the server
 * module's get_credential and validate_credential.
 *
 * A credential is a MUNGE credential the step daemon (root) makes for a
 * client, naming in its payload the client's uid and gid as the PMIx
 * server saw them on its socket (the core passes PMIX_USERID/PMIX_GRPID)
 * and its namespace and rank; any step daemon of the cluster validates it
 * (MUNGE checks it was made by root on a host of the same MUNGE key, and
 * not tampered with or expired) and answers the uid and gid named.
 *
 * Threads: the module calls in the stepd's progress thread; MUNGE's calls
 * in the step daemon's worker thread (stepd/worker.h: munged's socket may
 * be slow), whose answers come back to the progress thread.
 * Without libmunge at build time (configure defines PLUG_HAVE_MUNGE when
 * it finds it) both calls are PMIX_ERR_NOT_SUPPORTED.
 */
#ifndef PLUG_STEPD_CRED_H
#define PLUG_STEPD_CRED_H

#include <pmix_server.h>

/* Directive of ours for get: seconds the credential stays valid (MUNGE's
 * time-to-live, 1..3600; default MUNGE's, 300 s). */
#define PLUG_CRED_TTL "slurmix.cred.ttl"
/* The credential type we make and check (PMIX_CRED_TYPE). */
#define PLUG_CRED_TYPE "munge"

pmix_status_t plug_cred_get(const pmix_proc_t *proc, const pmix_info_t directives[], size_t ndirs,
			    pmix_credential_cbfunc_t cbfunc, void *cbdata);
pmix_status_t plug_cred_validate(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
				 const pmix_info_t directives[], size_t ndirs,
				 pmix_validation_cbfunc_t cbfunc, void *cbdata);

#endif
