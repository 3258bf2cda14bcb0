/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/key.h - the job key: 128 random bits as 32 hex characters,
 * made by srun (lib/jobdir.c keeps it in the job directory for the job's
 * other sruns) and handed to the step daemons in the launch environment.
 * Every connection between the plugin's processes carries it (HELLO,
 * endpoint reports, requests to srun, abort reports).
 */
#ifndef PLUG_LIB_KEY_H
#define PLUG_LIB_KEY_H

#define PLUG_KEY_ENV "SLURMIX_STEP_KEY"
#define PLUG_KEY_LEN 32 /* hex characters */

/* True when a and b are both keys of PLUG_KEY_LEN characters and equal;
 * compares in constant time. Any thread. */
int plug_key_ok(const char *a, const char *b);

#endif
