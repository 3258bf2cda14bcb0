/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobctl.h - the JOBCTL request handler and the cleanups it registers
 * (jobctl.c). Progress thread only.
 */
#ifndef PXC_SERVER_JOBCTL_H
#define PXC_SERVER_JOBCTL_H

#include "internal.h"

/* Handler of JOBCTL (peer.c's table): 0, or -1 on a malformed request
 * (the connection is closed). */
int pxc_do_jobctl(pxc_peer_t *p, const pxc_wire_hdr_t *h, pmix_data_buffer_t *in);
/* Runs and frees the cleanups registered for ns. */
void pxc_cleanup_run(pxc_snspace_t *ns);

#endif
