/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/key.h - the job key: 128 random bits as 32 hex characters,
 * made by srun (lib/jobdir.c keeps it in the job directory for the job's
 * other sruns) and handed to the step daemons inside a MUNGE credential
 * (common/keycred.h). It never travels in clear: every connection between
 * the plugin's processes opens with a challenge-response (lib/auth.h) and
 * the endpoint reports carry an HMAC under it (net/boot.h).
 * SLURMIX_STEP_KEY carries it in clear only in a build without MUNGE (a
 * child srun of PMIx_Spawn gets it from its parent srun's environment as
 * SLURMIX_SPAWN_KEY, on the same host).
 */
#ifndef PLUG_LIB_KEY_H
#define PLUG_LIB_KEY_H

#define PLUG_KEY_ENV "SLURMIX_STEP_KEY"
#define PLUG_KEY_LEN 32 /* hex characters */

/* True when a and b are both keys of PLUG_KEY_LEN characters and equal;
 * compares in constant time. Any thread. */
int plug_key_ok(const char *a, const char *b);

#endif
