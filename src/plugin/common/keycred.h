/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common/keycred.h - the job key (lib/key.h) handed from srun to its step
 * daemons inside a MUNGE credential instead of in clear: Slurm's launch
 * message, which carries the launch environment, is signed but not
 * encrypted. srun encodes the key with a UID restriction to root (only a
 * slurmstepd, or root, can decode it) and puts the credential into the
 * launch environment as SLURMIX_STEP_CRED; each step daemon decodes it
 * once in prefork and removes it from the environment the tasks get.
 * MUNGE's replay mark is accepted: every node of a step decodes the same
 * credential, several of them on one host when slurmd runs a virtual
 * cluster. Payload: "slurmix-key 1 <jobid> <key>".
 *
 * Without libmunge at build time the key travels in clear as
 * SLURMIX_STEP_KEY, as before (configure warns). Blocking calls to
 * munged: srun's main thread (prelaunch) and the stepd's prefork only.
 */
#ifndef PLUG_COMMON_KEYCRED_H
#define PLUG_COMMON_KEYCRED_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/key.h"

#define PLUG_KEY_CRED_ENV "SLURMIX_STEP_CRED"

/* srun: sets the job key's credential in *env (the launch environment).
 * 0, or -1 (logged). */
int plug_keycred_put(char ***env, uint32_t job, const char *key);

/* Step daemon: the key of the credential in env, made by uid for job,
 * into key. 0, or -1 (logged). The variable stays in env: the caller
 * removes it. */
int plug_keycred_take(char **env, uint32_t job, uid_t uid, char key[PLUG_KEY_LEN + 1]);

#endif
