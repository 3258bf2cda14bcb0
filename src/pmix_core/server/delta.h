/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * delta.h - what a collecting fence has to send (delta.c): only the posted
 * records a local client has not yet delivered to the same participant
 * set. dmodex.c tells it about commits, coll.c asks it what to pack and
 * tells it which fences completed. Progress thread only.
 */
#ifndef PXC_SERVER_DELTA_H
#define PXC_SERVER_DELTA_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

/* A COMMIT from cl begins (its records get the next sequence number). */
void pxc_delta_commit(pxc_sclient_t *cl);
/* cl's current commit posted key with kind (after pxc_delta_commit). */
void pxc_delta_touch(pxc_sclient_t *cl, const char *key, uint8_t kind);
/* The signature (sorted, unique procs) when some client has a mark for
 * it, else NULL. */
pxc_fsig_t *pxc_delta_sig_find(const pmix_proc_t *procs, size_t n);
/* Appends to out the REMOTE/GLOBAL records of the local proc that were not
 * contributed to a completed collecting fence over sig (NULL: all of
 * them); *upto receives the sequence this covers. 0 or -1/ENOMEM. */
int pxc_delta_pack(const pmix_proc_t *proc, const pxc_fsig_t *sig, pmix_data_buffer_t *out,
		   uint32_t *upto);
/* The signature of procs with a reference taken (created when new), NULL
 * on ENOMEM; release it with pxc_delta_sig_release (NULL-tolerant). */
pxc_fsig_t *pxc_delta_sig_hold(const pmix_proc_t *procs, size_t n);
void pxc_delta_sig_release(pxc_fsig_t *sig);
/* A collecting fence over sig succeeded: the local proc contributed up to
 * upto (from pxc_delta_pack). */
void pxc_delta_done(pxc_fsig_t *sig, const pmix_proc_t *proc, uint32_t upto);
/* A client connected again: every fence sends everything again. */
void pxc_delta_forget_all(void);
/* Frees cl's delta (none when cl never committed). */
void pxc_delta_free(pxc_sclient_t *cl);

#endif
