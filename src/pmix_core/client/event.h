/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event.h - what the client's connection needs of its event files
 * (client/event.c).
 */
#ifndef PXC_CLIENT_EVENT_H
#define PXC_CLIENT_EVENT_H

#include <stdint.h>
#include <pmix_common.h>

/* An EVENT message from the server (tag: its frame's, 0 or the late
 * handler it is for): delivers it to this process's handlers, unless the
 * process raised it itself. Progress thread. */
void pxc_event_handle_msg(uint32_t tag, pmix_data_buffer_t *payload);
/* The connection to the server ended: raises
 * PMIX_ERR_LOST_CONNECTION_TO_SERVER to this process's handlers.
 * Progress thread. */
void pxc_event_lost_connection(void);

#endif
