/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client/push.h - PMIx_IOF_push's forwarder of this process's stdin
 * (push.c).
 */
#ifndef PXC_CLIENT_PUSH_H
#define PXC_CLIENT_PUSH_H

/* Stops the forwarding of this process's stdin (PMIX_IOF_PUSH_STDIN) and
 * waits for its thread (finalize); nothing when none runs. Any thread
 * but the progress thread. */
void pxc_push_stop(void);

#endif
