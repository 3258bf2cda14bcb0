/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client/iof.h - the client's IO forwarding handlers (iof.c): the IOF
 * frames of the server and the teardown.
 */
#ifndef PXC_CLIENT_IOF_H
#define PXC_CLIENT_IOF_H

#include <stdint.h>
#include <pmix_common.h>

/* An IOF frame (proto.h) for handler tag: to its output callback, or to
 * stdout/stderr. Progress thread. */
void pxc_iof_handle_msg(uint32_t tag, pmix_data_buffer_t *payload);
/* Forgets every handler (finalize). Any thread. */
void pxc_iof_release_all(void);

#endif
